"""Bad input of the confidence-comparison modules: svmtrust.svm_distance, split_conformal,
efficiency and their protocol svmtrust.experiments.confidence_compared (issue 13)."""

import functools

import numpy as np
import pandas as pd
import scipy.sparse
from svmtrust import efficiency
from svmtrust import one_vs_rest as ovr
from svmtrust import svm_distance as sd
from svmtrust.experiments import confidence_compared as protocol
from svmtrust.kernels import rbf_kernel, rows_alone
from svmtrust.split_conformal import SplitConformalSVM, calibration_count
from svmtrust.validation import check_callable

from ._data import BAD_KERNELS, SOL, K, Y, nan

X = np.random.default_rng(1).normal(size=(12, 3))
Y3 = np.array([0, 1, 2] * 4)
KERNEL = functools.partial(rbf_kernel, gamma=0.5)
DIST = "svmtrust.svm_distance.DistanceTCM"
SPLIT = "svmtrust.split_conformal.SplitConformalSVM"
P = "svmtrust.experiments.confidence_compared."
EFF = "svmtrust.efficiency."
P2 = np.array([[0.5, 0.1], [0.2, 0.7]])
CODES = (Y > 0).astype(int)


def _rows():
    """Two trial rows of one data set under one machine, as :func:`protocol.run` returns."""
    return pd.DataFrame(
        {
            "stage": "trial",
            "data": "breast",
            "machine": "Split",
            "trial": [0, 1],
            "n_train": 100,
            "true": [0, 1],
            "n_classes": 2,
            "p0": [0.5, 0.1],
            "p1": [0.2, 0.7],
            "seconds": 0.1,
        }
    )


ROWS = _rows()


def _split(**params):
    return lambda: SplitConformalSVM(**params).fit(X, Y3)


def _psd_on_training(A, B):
    """``a.b`` on the first three features, less ``0.9 a_4 b_4``: PSD on examples whose fourth
    feature is 0, indefinite once one has it 1 (the Schur complement is ``-0.9``)."""
    return A[:, :3] @ B[:, :3].T - 0.9 * np.outer(A[:, 3], B[:, 3])


def _flagged(A, flag):
    """``A`` with a fourth feature ``flag``: 0 for training examples, 1 for a test example."""
    return np.column_stack([A, np.full(len(A), flag)])


DistanceTCM = sd.DistanceTCM
#: Each machine with valid parameters for X (a split leaves 8 proper training examples).
_MACHINES = {
    DIST: functools.partial(DistanceTCM, kernel=KERNEL),
    SPLIT: functools.partial(SplitConformalSVM, kernel=KERNEL, calibration_size=4),
}
FITTED_DIST = _MACHINES[DIST]().fit(X, Y3)
FITTED_SPLIT = _MACHINES[SPLIT]().fit(X, Y3)

NO_INPUT = {
    "svmtrust.split_conformal.ClassLeftOut": "an exception class, raised by fit",
    "svmtrust.experiments.confidence_compared.describe": "takes no argument",
}
GRAM = np.ones((13, 13))

#: Bad training data, each refused by both machines' fit.
_BAD_DATA = [
    ("NaN in X", nan(X), Y3, "X"),
    ("complex X", X + 1j, Y3, "X"),
    ("sparse X", scipy.sparse.csr_matrix(X), Y3, "X"),
    ("X 1-D", X[:, 0], Y3, "X"),
    ("X without features", X[:, :0], Y3, "X"),
    ("y too short", X, Y3[:-1], "y"),
    ("y None", X, None, "y"),
    ("y a single class", X, np.zeros(12), "y"),
    ("y continuous", X, np.linspace(0, 1, 12), "y"),
    ("y with NaN", X, nan(Y3), "y"),
]

#: Bad test data, each refused by both fitted machines' predict_p.
_BAD_TEST = [
    ("NaN in X", nan(X[:2])),
    ("complex X", X[:2] * 1j),
    ("sparse X", scipy.sparse.csr_matrix(X[:2])),
    ("wrong width", X[:2, :2]),
    ("X 1-D", X[0]),
]

CASES = (
    [
        case
        for name, cls, fitted in (
            (DIST, _MACHINES[DIST], FITTED_DIST),
            (SPLIT, _MACHINES[SPLIT], FITTED_SPLIT),
        )
        for case in [
            (
                f"{name}.fit",
                "kernel an unknown name",
                lambda c=cls: c(kernel="sigmoid").fit(X, Y3),
                "kernel",
            ),
            (f"{name}.fit", "C zero", lambda c=cls: c(C=0.0).fit(X, Y3), "C"),
            (f"{name}.fit", "C a string", lambda c=cls: c(C="1").fit(X, Y3), "C"),
            (f"{name}.fit", "solver unknown", lambda c=cls: c(solver="smo").fit(X, Y3), "solver"),
            (
                f"{name}.fit",
                "mondrian a string",
                lambda c=cls: c(mondrian="no").fit(X, Y3),
                "mondrian",
            ),
            (f"{name}.fit", "mondrian 1", lambda c=cls: c(mondrian=1).fit(X, Y3), "mondrian"),
            (
                f"{name}.fit",
                "kernel returns NaN",
                lambda c=cls: c(kernel=lambda A, B: np.full((len(A), len(B)), np.nan)).fit(X, Y3),
                "kernel",
            ),
            (f"{name}.predict_p", "unfitted", lambda c=cls: c().predict_p(X), "X"),
            (f"{name}.predict", "unfitted", lambda c=cls: c().predict(X), "X"),
            (
                f"{name}.predict_set",
                "significance 0",
                lambda f=fitted: f.predict_set(X[:2], 0.0),
                "significance",
            ),
            (
                f"{name}.predict_set",
                "significance 1.5",
                lambda f=fitted: f.predict_set(X[:2], 1.5),
                "significance",
            ),
            (
                f"{name}.predict_set",
                "significance a string",
                lambda f=fitted: f.predict_set(X[:2], "5%"),
                "significance",
            ),
        ]
        + [
            (f"{name}.fit", text, lambda c=cls, a=a, b=b: c().fit(a, b), arg)
            for text, a, b, arg in _BAD_DATA
        ]
        + [
            (f"{name}.fit", text, lambda c=cls, k=kernel: c(kernel=k).fit(X, Y3), "kernel")
            for text, kernel in BAD_KERNELS
        ]
        + [
            (f"{name}.predict_p", text, lambda f=fitted, a=a: f.predict_p(a), "X")
            for text, a in _BAD_TEST
        ]
    ]
    + [
        # DistanceTCM's own methods
        (
            f"{DIST}.predict_p",
            "kernel PSD on the training set, not with the test example",
            lambda: (
                DistanceTCM(kernel=_psd_on_training)
                .fit(_flagged(X, 0.0), Y3)
                .predict_p(_flagged(X[:1], 1.0))
            ),
            "kernel",
        ),
        (f"{DIST}.fit", "method unknown", lambda: DistanceTCM(method="exact").fit(X, Y3), "method"),
        (
            f"{DIST}.solve",
            "fitted with method='retrain', asked incremental",
            lambda: (
                DistanceTCM(kernel=KERNEL, method="retrain")
                .fit(X, Y3)
                .set_params(method="incremental")
                .solve(X[:2])
            ),
            "method",
        ),
        (f"{DIST}.solve", "wrong width", lambda: FITTED_DIST.solve(X[:2, :2]), "X"),
        (f"{DIST}.solve", "unfitted", lambda: DistanceTCM().solve(X), "X"),
        (
            f"{DIST}.bag_strangeness",
            "gram of the training set only",
            lambda: FITTED_DIST.bag_strangeness(GRAM[:12, :12], np.r_[FITTED_DIST.codes_, 0]),
            "gram",
        ),
        (
            f"{DIST}.bag_strangeness",
            "gram NaN",
            lambda: FITTED_DIST.bag_strangeness(nan(GRAM), np.r_[FITTED_DIST.codes_, 0]),
            "gram",
        ),
        (
            f"{DIST}.bag_strangeness",
            "candidate label out of range",
            lambda: FITTED_DIST.bag_strangeness(GRAM, np.r_[FITTED_DIST.codes_, 3]),
            "codes",
        ),
        (
            f"{DIST}.bag_strangeness",
            "codes too short",
            lambda: FITTED_DIST.bag_strangeness(GRAM, FITTED_DIST.codes_),
            "codes",
        ),
        (
            f"{DIST}.bag_strangeness",
            "unfitted",
            lambda: DistanceTCM().bag_strangeness(GRAM, np.zeros(13, int)),
            "gram",
        ),
        # SplitConformalSVM's own parameters and methods
        (f"{SPLIT}.fit", "calibration_size 0", _split(calibration_size=0), "calibration_size"),
        (f"{SPLIT}.fit", "calibration_size 1.0", _split(calibration_size=1.0), "calibration_size"),
        (
            f"{SPLIT}.fit",
            "calibration_size all but one",
            _split(calibration_size=11),
            "calibration_size",
        ),
        (
            f"{SPLIT}.fit",
            "calibration_size unknown string",
            _split(calibration_size="half"),
            "calibration_size",
        ),
        (
            f"{SPLIT}.fit",
            "calibration_size NaN",
            _split(calibration_size=np.nan),
            "calibration_size",
        ),
        (f"{SPLIT}.fit", "convention unknown", _split(convention="crepes"), "convention"),
        (f"{SPLIT}.fit", "seed negative", _split(seed=-1), "seed"),
        (f"{SPLIT}.fit", "seed 2**32", _split(seed=2**32), "seed"),
        (f"{SPLIT}.fit", "seed a float", _split(seed=0.5), "seed"),
        (f"{SPLIT}.fit", "seed a string", _split(seed="0"), "seed"),
        (
            f"{SPLIT}.fit",
            "a class only in calibration",
            lambda: SplitConformalSVM(calibration_size=2, seed=69).fit(
                X, np.r_[np.zeros(10), 1, 1]
            ),
            "y",
        ),
        (f"{SPLIT}.test_scores", "wrong width", lambda: FITTED_SPLIT.test_scores(X[:2, :1]), "X"),
        (f"{SPLIT}.test_scores", "unfitted", lambda: SplitConformalSVM().test_scores(X), "X"),
        (
            "svmtrust.split_conformal.calibration_count",
            "n a float",
            lambda: calibration_count(10.0, 3),
            "n",
        ),
        (
            "svmtrust.split_conformal.calibration_count",
            "n too small",
            lambda: calibration_count(2, 1),
            "n",
        ),
        (
            "svmtrust.split_conformal.calibration_count",
            "count a bool",
            lambda: calibration_count(10, True),
            "calibration_size",
        ),
        (
            "svmtrust.split_conformal.calibration_count",
            "fraction negative",
            lambda: calibration_count(10, -0.2),
            "calibration_size",
        ),
        (
            "svmtrust.split_conformal.calibration_count",
            "fraction rounding to zero",
            lambda: calibration_count(10, 0.01),
            "calibration_size",
        ),
        # the one-against-the-rest helpers
        ("svmtrust.one_vs_rest.problems", "one class", lambda: ovr.problems(1), "n_classes"),
        ("svmtrust.one_vs_rest.problems", "a float", lambda: ovr.problems(2.0), "n_classes"),
        (
            "svmtrust.one_vs_rest.problem_signs",
            "class out of range",
            lambda: ovr.problem_signs(CODES, 3, 3),
            "c",
        ),
        (
            "svmtrust.one_vs_rest.problem_signs",
            "n_classes 1",
            lambda: ovr.problem_signs(CODES, 0, 1),
            "n_classes",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "codes out of range",
            lambda: ovr.fit_one_vs_rest(K, CODES + 1, 2, 1.0),
            "codes",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "codes too short",
            lambda: ovr.fit_one_vs_rest(K, CODES[:-1], 2, 1.0),
            "codes",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "one class",
            lambda: ovr.fit_one_vs_rest(K, CODES, 1, 1.0),
            "n_classes",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "K not square",
            lambda: ovr.fit_one_vs_rest(K[:, :4], CODES, 2, 1.0),
            "K",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "K NaN",
            lambda: ovr.fit_one_vs_rest(nan(K), CODES, 2, 1.0),
            "K",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "a class without examples",
            lambda: ovr.fit_one_vs_rest(K, np.zeros_like(CODES), 2, 1.0),
            "codes",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "unknown solver",
            lambda: ovr.fit_one_vs_rest(K, CODES, 2, 1.0, "smo"),
            "solver",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "canonical not a bool",
            lambda: ovr.fit_one_vs_rest(K, CODES, 2, 1.0, canonical="no"),
            "canonical",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "C negative",
            lambda: ovr.fit_one_vs_rest(K, CODES, 2, -1.0),
            "C",
        ),
        (
            "svmtrust.one_vs_rest.fit_one_vs_rest",
            "solver unknown",
            lambda: ovr.fit_one_vs_rest(K, CODES, 2, 1.0, solver="smo"),
            "solver",
        ),
        (
            "svmtrust.svm_distance.kkt_margins",
            "solution a dict",
            lambda: sd.kkt_margins({"alpha": SOL.alpha}, K),
            "solution",
        ),
        (
            "svmtrust.svm_distance.kkt_margins",
            "K_rows of other size",
            lambda: sd.kkt_margins(SOL, K[:4, :4]),
            "solution",
        ),
        (
            "svmtrust.svm_distance.kkt_margins",
            "K_rows not square",
            lambda: sd.kkt_margins(SOL, K[:, :4]),
            "K_rows",
        ),
        (
            "svmtrust.svm_distance.kkt_margins",
            "K_rows NaN",
            lambda: sd.kkt_margins(SOL, nan(K)),
            "K_rows",
        ),
        (
            "svmtrust.one_vs_rest.own_class_strangeness",
            "values 1-D",
            lambda: ovr.own_class_strangeness(np.ones(4), np.zeros(4, int), 2),
            "values",
        ),
        (
            "svmtrust.one_vs_rest.own_class_strangeness",
            "values too narrow for 3 classes",
            lambda: ovr.own_class_strangeness(np.ones((4, 1)), np.zeros(4, int), 3),
            "values",
        ),
        (
            "svmtrust.one_vs_rest.own_class_strangeness",
            "codes out of range",
            lambda: ovr.own_class_strangeness(np.ones((4, 3)), np.full(4, 3), 3),
            "codes",
        ),
        (
            "svmtrust.one_vs_rest.own_class_strangeness",
            "codes floats",
            lambda: ovr.own_class_strangeness(np.ones((4, 1)), np.zeros(4), 2),
            "codes",
        ),
        (
            "svmtrust.one_vs_rest.own_class_strangeness",
            "n_classes a float",
            lambda: ovr.own_class_strangeness(np.ones((4, 1)), np.zeros(4, int), 2.0),
            "n_classes",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "solutions empty",
            lambda: ovr.scaled_decisions([], K),
            "solutions",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "solutions one SVMSolution, not a list",
            lambda: ovr.scaled_decisions(SOL, K),
            "solutions",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "K_rows of other width",
            lambda: ovr.scaled_decisions([SOL], K[:, :4]),
            "solutions",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "columns without a support vector",
            lambda: ovr.scaled_decisions([SOL], K[:, SOL.support[1:]], columns=SOL.support[1:]),
            "columns",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "columns past the training examples",
            lambda: ovr.scaled_decisions([SOL], K[:, :2], columns=[0, K.shape[0]]),
            "columns",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "columns not as many as K_rows's",
            lambda: ovr.scaled_decisions([SOL], K[:, :3], columns=[0, 1]),
            "columns",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "K_rows NaN",
            lambda: ovr.scaled_decisions([SOL], nan(K)),
            "K_rows",
        ),
        (
            "svmtrust.one_vs_rest.scaled_decisions",
            "alone not a bool",
            lambda: ovr.scaled_decisions([SOL], K, alone="yes"),
            "alone",
        ),
        (
            "svmtrust.kernels.rows_alone",
            "X NaN",
            lambda: rows_alone(KERNEL, nan(X), X),
            "X",
        ),
        (
            "svmtrust.kernels.rows_alone",
            "Z of another width",
            lambda: rows_alone(KERNEL, X, X[:, :2]),
            "Z",
        ),
        (
            "svmtrust.kernels.rows_alone",
            "a kernel returning the wrong shape",
            lambda: rows_alone(lambda A, B: A @ A.T, X, X),
            "kernel",
        ),
        # the checks shared by both machines
        (
            "svmtrust.validation.check_callable",
            "a string",
            lambda: check_callable("rbf", "kernel"),
            "kernel",
        ),
        (
            "svmtrust.validation.check_callable",
            "None",
            lambda: check_callable(None, "func"),
            "func",
        ),
        (
            "svmtrust.split_conformal.SplitConformalSVM.fit",
            "y a single class",
            lambda: SplitConformalSVM().fit(X, np.ones(12)),
            "y",
        ),
        (
            "svmtrust.split_conformal.SplitConformalSVM.fit",
            "X 3-D",
            lambda: SplitConformalSVM().fit(X[:, :, None], Y3),
            "X",
        ),
        (
            "svmtrust.split_conformal.SplitConformalSVM.predict_p",
            "wrong width",
            lambda: FITTED_SPLIT.predict_p(X[:, :2]),
            "X",
        ),
        # efficiency
        (
            EFF + "observed_fuzziness",
            "P above 1",
            lambda: efficiency.observed_fuzziness(P2 * 3, [0, 1]),
            "P",
        ),
        (
            EFF + "observed_fuzziness",
            "P NaN",
            lambda: efficiency.observed_fuzziness(nan(P2), [0, 1]),
            "P",
        ),
        (
            EFF + "observed_fuzziness",
            "true_index out of range",
            lambda: efficiency.observed_fuzziness(P2, [0, 2]),
            "true_index",
        ),
        (
            EFF + "observed_fuzziness",
            "true_index floats",
            lambda: efficiency.observed_fuzziness(P2, [0.0, 1.0]),
            "true_index",
        ),
        (
            EFF + "observed_fuzziness",
            "true_index too short",
            lambda: efficiency.observed_fuzziness(P2, [0]),
            "true_index",
        ),
        (
            EFF + "region_summary",
            "significance 0",
            lambda: efficiency.region_summary(P2, [0, 1], 0.0),
            "significance",
        ),
        (
            EFF + "region_summary",
            "strict a string",
            lambda: efficiency.region_summary(P2, [0, 1], 0.1, strict="no"),
            "strict",
        ),
        (
            EFF + "region_summary",
            "true_index negative",
            lambda: efficiency.region_summary(P2, [0, -1], 0.1),
            "true_index",
        ),
        (EFF + "region_summary", "P 1-D", lambda: efficiency.region_summary(P2[0], [0], 0.1), "P"),
        # the protocol: data and machines
        (P + "load", "unknown data set", lambda: protocol.load("usps"), "name"),
        (P + "load", "a list of names", lambda: protocol.load(["pima"]), "name"),
        (
            P + "draw",
            "fewer training examples than two a class",
            lambda: protocol.draw("iris", 2, 10, np.random.default_rng(0)),
            "n_train",
        ),
        (P + "svm_params", "unknown data set", lambda: protocol.svm_params("usps"), "name"),
        (P + "machines", "gamma zero", lambda: protocol.machines(0.0, 1.0, 0), "gamma"),
        (P + "machines", "gamma NaN", lambda: protocol.machines(np.nan, 1.0, 0), "gamma"),
        (P + "machines", "C negative", lambda: protocol.machines(1.0, -1.0, 0), "C"),
        (P + "machines", "seed negative", lambda: protocol.machines(1.0, 1.0, -1), "seed"),
        (
            P + "draw",
            "unknown data set",
            lambda: protocol.draw("usps", 10, 1, np.random.default_rng(0)),
            "name",
        ),
        (
            P + "draw",
            "n_train one",
            lambda: protocol.draw("breast", 1, 1, np.random.default_rng(0)),
            "n_train",
        ),
        (
            P + "draw",
            "n_test zero",
            lambda: protocol.draw("breast", 10, 0, np.random.default_rng(0)),
            "n_test",
        ),
        (
            P + "draw",
            "more examples than the data set",
            lambda: protocol.draw("breast", 600, 200, np.random.default_rng(0)),
            "n_test",
        ),
        (P + "draw", "rng a seed", lambda: protocol.draw("breast", 10, 1, 0), "rng"),
        (
            P + "fit_split",
            "model not a split machine",
            lambda: protocol.fit_split(DistanceTCM(), X, Y3),
            "model",
        ),
        (
            P + "fit_split",
            "NaN in X",
            lambda: protocol.fit_split(SplitConformalSVM(), nan(X), Y3),
            "X",
        ),
        (
            P + "fit_machine",
            "model not a confidence machine",
            lambda: protocol.fit_machine("TSVM", X, Y3),
            "model",
        ),
        (
            P + "fit_machine",
            "NaN in X",
            lambda: protocol.fit_machine(DistanceTCM(), nan(X), Y3),
            "X",
        ),
        (
            P + "evaluate",
            "unknown data set",
            lambda: protocol.evaluate("usps", np.arange(10), np.arange(10, 11), 0),
            "name",
        ),
        (
            P + "evaluate",
            "train positions out of range",
            lambda: protocol.evaluate("breast", np.arange(10) + 10**6, np.arange(10, 11), 0),
            "train",
        ),
        (
            P + "evaluate",
            "test positions floats",
            lambda: protocol.evaluate("breast", np.arange(10), np.array([10.0]), 0),
            "test",
        ),
        (
            P + "evaluate",
            "seed a float",
            lambda: protocol.evaluate("breast", np.arange(10), np.arange(10, 11), 0.5),
            "seed",
        ),
        (
            P + "evaluate",
            "smoothing_seed negative",
            lambda: protocol.evaluate("breast", np.arange(10), np.arange(10, 11), 0, -1),
            "smoothing_seed",
        ),
        (
            P + "evaluate",
            "repeats zero",
            lambda: protocol.evaluate("breast", np.arange(10), np.arange(10, 11), 0, 0, 0),
            "repeats",
        ),
        (P + "run", "unknown scale", lambda: protocol.run(scale="huge"), "scale"),
        (P + "run", "seed negative", lambda: protocol.run(seed=-1), "seed"),
        (P + "run", "seed a string", lambda: protocol.run(seed="0"), "seed"),
        (P + "run", "n_jobs zero", lambda: protocol.run(n_jobs=0), "n_jobs"),
        # the protocol: tables
        (P + "band", "trials zero", lambda: protocol.band(0, 0.1), "trials"),
        (P + "band", "eps 1", lambda: protocol.band(100, 1.0), "eps"),
        (P + "band", "trials a float", lambda: protocol.band(100.0, 0.1), "trials"),
        (P + "band_power", "trials zero", lambda: protocol.band_power(0, 0.1), "trials"),
        (P + "band_power", "eps 0", lambda: protocol.band_power(100, 0.0), "eps"),
        (P + "band_power", "power 1", lambda: protocol.band_power(100, 0.1, 1.0), "power"),
        (
            P + "cross_conformal_error_bound",
            "eps 0",
            lambda: protocol.cross_conformal_error_bound(0.0, 100),
            "eps",
        ),
        (
            P + "cross_conformal_error_bound",
            "one fold",
            lambda: protocol.cross_conformal_error_bound(0.1, 100, 1),
            "n_folds",
        ),
        (
            P + "cross_conformal_error_bound",
            "fewer examples than folds",
            lambda: protocol.cross_conformal_error_bound(0.1, 4, 5),
            "n",
        ),
        (
            P + "cross_conformal_error_bound",
            "n a float",
            lambda: protocol.cross_conformal_error_bound(0.1, 100.0),
            "n",
        ),
    ]
    + [
        (
            P + func,
            f"true label {value}",
            lambda f=func, v=value: getattr(protocol, f)(ROWS.assign(true=[0, v])),
            "rows",
        )
        for func in ("validity", "efficiency", "forced", "class_errors", "per_trial")
        for value in (np.nan, 1.5, 2, "1")
    ]
    + [
        case
        for func in ("validity", "efficiency", "summary", "forced", "class_errors")
        for case in [
            (P + func, "rows not a table", lambda f=func: getattr(protocol, f)([1]), "rows"),
            (P + func, "rows empty", lambda f=func: getattr(protocol, f)(ROWS.iloc[:0]), "rows"),
            (
                P + func,
                "rows without columns",
                lambda f=func: getattr(protocol, f)(ROWS[["data", "p0"]]),
                "rows",
            ),
        ]
    ]
    + [
        case
        for func in ("validity", "efficiency", "forced", "class_errors", "curves")
        for case in [
            (
                P + func,
                "smoothed p-values asked, none in the rows",
                lambda f=func: getattr(protocol, f)(
                    ROWS, *([[0.1]] if f == "curves" else []), smoothed=True
                ),
                "rows",
            ),
            (
                P + func,
                "smoothed a string",
                lambda f=func: getattr(protocol, f)(
                    ROWS, *([[0.1]] if f == "curves" else []), smoothed="yes"
                ),
                "smoothed",
            ),
        ]
    ]
    + [
        (
            P + "validity",
            "no trial rows",
            lambda: protocol.validity(ROWS.assign(stage="cost")),
            "rows",
        ),
        (
            P + "efficiency",
            "stage unknown",
            lambda: protocol.efficiency(ROWS, stage="test"),
            "stage",
        ),
        (
            P + "efficiency",
            "no row of the stage",
            lambda: protocol.efficiency(ROWS, stage="cost"),
            "rows",
        ),
        (
            P + "efficiency",
            "significance 0",
            lambda: protocol.efficiency(ROWS, significance=0.0),
            "significance",
        ),
        (P + "curves", "rows not a table", lambda: protocol.curves(None, [0.1]), "rows"),
        (
            P + "curves",
            "significance 1 in the grid",
            lambda: protocol.curves(ROWS, [0.1, 1.0]),
            "significances",
        ),
        (
            P + "curves",
            "significances a string",
            lambda: protocol.curves(ROWS, "0.1"),
            "significances",
        ),
        (
            P + "paired_differences",
            "rows not a table",
            lambda: protocol.paired_differences("rows", [("Split", "Split")]),
            "rows",
        ),
        (
            P + "paired_differences",
            "machine not in rows",
            lambda: protocol.paired_differences(ROWS, [("Split", "TSVM")]),
            "pairs",
        ),
        (
            P + "paired_differences",
            "no pair",
            lambda: protocol.paired_differences(ROWS, []),
            "pairs",
        ),
        (
            P + "paired_differences",
            "a pair of three",
            lambda: protocol.paired_differences(ROWS, [("Split", "Split", "Split")]),
            "pairs",
        ),
        (
            P + "paired_differences",
            "measure unknown",
            lambda: protocol.paired_differences(ROWS, [("Split", "Split")], measure="width"),
            "measure",
        ),
        (
            P + "per_trial",
            "significance 1",
            lambda: protocol.per_trial(ROWS, "size", significance=1.0),
            "significance",
        ),
        (
            P + "smoothing_effect",
            "no smoothed p-values in the rows",
            lambda: protocol.smoothing_effect(ROWS),
            "rows",
        ),
        (
            P + "class_errors",
            "significance 0",
            lambda: protocol.class_errors(ROWS, 0.0),
            "significance",
        ),
    ]
)


#: Paired differences of the recorded kind, in miniature (two data sets, one claim).
_DIFFS = pd.DataFrame(
    {"mean": [-0.1, 0.05], "se": [0.02, 0.03], "z": [-5.0, 1.7], "trials": [10, 10]},
    index=pd.MultiIndex.from_tuples(
        [("Split - Cross", "pima"), ("Split - Cross", "iris")], names=["pair", "data"]
    ),
)
_TIMES = pd.DataFrame(
    {"fit": [0.1], "per object": [0.01]}, index=pd.Index(["Split"], name="machine")
)
CASES += [
    (
        P + "set_verdicts",
        "differences not a table",
        lambda: protocol.set_verdicts("d"),
        "differences",
    ),
    (
        P + "set_verdicts",
        "differences without z",
        lambda: protocol.set_verdicts(_DIFFS.drop(columns="z")),
        "differences",
    ),
    (P + "set_verdicts", "level 1.5", lambda: protocol.set_verdicts(_DIFFS, 1.5), "level"),
    (
        P + "set_verdicts",
        "a NaN mean",
        lambda: protocol.set_verdicts(_DIFFS.assign(mean=[np.nan, 0.05])),
        "differences",
    ),
    (
        P + "blocked_verdicts",
        "a NaN mean",
        lambda: protocol.blocked_verdicts(_DIFFS.assign(mean=[np.nan, 0.05])),
        "differences",
    ),
    (
        P + "blocked_verdicts",
        "differences not a table",
        lambda: protocol.blocked_verdicts([1, 2]),
        "differences",
    ),
    (
        P + "blocked_verdicts",
        "no claim besides the data sets",
        lambda: protocol.blocked_verdicts(_DIFFS.droplevel("pair")),
        "differences",
    ),
    (P + "blocked_verdicts", "level 0", lambda: protocol.blocked_verdicts(_DIFFS, 0.0), "level"),
    (
        P + "fit_and_object_times",
        "unknown data set",
        lambda: protocol.fit_and_object_times("nope"),
        "name",
    ),
    (
        P + "fit_and_object_times",
        "repeats zero",
        lambda: protocol.fit_and_object_times(repeats=0),
        "repeats",
    ),
    (
        P + "fit_and_object_times",
        "an unknown machine",
        lambda: protocol.fit_and_object_times(timed=("Magic",)),
        "timed",
    ),
    (
        P + "fit_and_object_times",
        "timed a string",
        lambda: protocol.fit_and_object_times(timed="Split"),
        "timed",
    ),
    (
        P + "cost_per_object",
        "times without per object",
        lambda: protocol.cost_per_object(_TIMES.drop(columns="per object")),
        "times",
    ),
    (P + "cost_per_object", "negative seconds", lambda: protocol.cost_per_object(-_TIMES), "times"),
    (
        P + "cost_per_object",
        "objects zero",
        lambda: protocol.cost_per_object(_TIMES, [0]),
        "objects",
    ),
    (
        P + "cost_per_object",
        "objects empty",
        lambda: protocol.cost_per_object(_TIMES, []),
        "objects",
    ),
]

_G = K @ SOL.coef
_D = np.diag(K)
_W = "svmtrust.one_vs_rest.w_is_zero"
CASES += [
    (_W, "solution a dict", lambda: ovr.w_is_zero({"alpha": SOL.alpha}, _G, _D), "solution"),
    (_W, "values NaN", lambda: ovr.w_is_zero(SOL, nan(_G), _D), "values"),
    (_W, "values too short", lambda: ovr.w_is_zero(SOL, _G[:-1], _D), "values"),
    (_W, "diagonal 2-D", lambda: ovr.w_is_zero(SOL, _G, K), "diagonal"),
    (_W, "rows floats", lambda: ovr.w_is_zero(SOL, _G, _D, np.arange(_D.size) + 0.0), "rows"),
    (
        _W,
        "rows without a support vector",
        lambda: ovr.w_is_zero(SOL, _G[1:], _D[1:], np.arange(1, _D.size)),
        "rows",
    ),
    (
        "svmtrust.one_vs_rest.scaled_decisions",
        "flat of other length",
        lambda: ovr.scaled_decisions([SOL], K, flat=[True, False]),
        "flat",
    ),
    (
        "svmtrust.one_vs_rest.scaled_decisions",
        "flat not booleans",
        lambda: ovr.scaled_decisions([SOL], K, flat=[1]),
        "flat",
    ),
]
