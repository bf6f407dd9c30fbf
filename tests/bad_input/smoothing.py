"""Bad input of smoothed p-values (svmtrust.conformal), of the smoothing parameters of every
conformal estimator, and of the machines CrossConformalSVM and SplitConformalNearestNeighbours
(issue 24)."""

import functools

import numpy as np
import scipy.sparse
from svmtrust import conformal
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import NonconformityModelSelector
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM

from ._data import nan

M = "svmtrust.conformal."
CROSS = "svmtrust.split_conformal.CrossConformalSVM"
SNN = "svmtrust.tcm_nn.SplitConformalNearestNeighbours"
KERNEL = functools.partial(rbf_kernel, gamma=0.5)
X = np.random.default_rng(2).normal(size=(15, 2))
Y = np.array([0, 1, 2] * 5)
Y2 = Y % 2

#: Every conformal estimator with valid parameters (two classes for the selector).
_SMOOTHED = {
    "svmtrust.transduction.TransductiveSVM": (functools.partial(TransductiveSVM, KERNEL, 1.0), Y),
    "svmtrust.svm_distance.DistanceTCM": (functools.partial(DistanceTCM, KERNEL), Y),
    "svmtrust.split_conformal.SplitConformalSVM": (
        functools.partial(SplitConformalSVM, KERNEL, calibration_size=5),
        Y,
    ),
    "svmtrust.tcm_nn.TCMNearestNeighbours": (TCMNearestNeighbours, Y),
    "svmtrust.nonconformity_selection.NonconformityModelSelector": (
        functools.partial(NonconformityModelSelector, (0.5,), (1.0,)),
        Y2,
    ),
    CROSS: (functools.partial(CrossConformalSVM, KERNEL, n_folds=3), Y),
    SNN: (functools.partial(SplitConformalNearestNeighbours, calibration_size=5), Y),
}


def _smoothed_p(make, y, **params):
    """Fit with valid parameters, then set bad smoothing ones and ask for p-values (the
    estimators of issue 24 refuse them already at fit)."""

    def thunk():
        model = make().fit(X, y).set_params(**params)
        model.predict_p(X[:2])

    return thunk


_BAD_SMOOTHING = [
    ("smoothing a string", {"smoothing": "yes"}, "smoothing"),
    ("smoothing 1", {"smoothing": 1}, "smoothing"),
    ("smoothing_seed negative", {"smoothing": True, "smoothing_seed": -1}, "smoothing_seed"),
    ("smoothing_seed a float", {"smoothing": True, "smoothing_seed": 0.5}, "smoothing_seed"),
]

_BAD_FIT = [
    ("NaN in X", lambda c: c().fit(nan(X), Y), "X"),
    ("complex X", lambda c: c().fit(X + 1j, Y), "X"),
    ("sparse X", lambda c: c().fit(scipy.sparse.csr_matrix(X), Y), "X"),
    ("y too short", lambda c: c().fit(X, Y[:-1]), "y"),
    ("y a single class", lambda c: c().fit(X, np.zeros(15)), "y"),
    ("mondrian a string", lambda c: c(mondrian="no").fit(X, Y), "mondrian"),
    ("seed negative", lambda c: c(seed=-1).fit(X, Y), "seed"),
    ("smoothing 1", lambda c: c(smoothing=1).fit(X, Y), "smoothing"),
    ("smoothing_seed a string", lambda c: c(smoothing_seed="0").fit(X, Y), "smoothing_seed"),
    ("predict_p unfitted", lambda c: c().predict_p(X), "X"),
    ("predict_p wrong width", lambda c: c().fit(X, Y).predict_p(X[:2, :1]), "X"),
    ("predict_p NaN", lambda c: c().fit(X, Y).predict_p(nan(X[:2])), "X"),
]

CASES = (
    [
        (
            M + "p_values",
            "tau negative",
            lambda: conformal.p_values([1.0, 2.0], 1.0, tau=-0.1),
            "tau",
        ),
        (
            M + "p_values",
            "tau above 1",
            lambda: conformal.p_values([1.0, 2.0], 1.0, tau=1.5),
            "tau",
        ),
        (M + "p_values", "tau NaN", lambda: conformal.p_values([1.0, 2.0], 1.0, tau=np.nan), "tau"),
        (M + "p_values", "tau a string", lambda: conformal.p_values([1.0], 1.0, tau="0.5"), "tau"),
        (M + "p_values", "tau a bool", lambda: conformal.p_values([1.0], 1.0, tau=True), "tau"),
        (
            M + "p_values",
            "tau of the wrong length",
            lambda: conformal.p_values([1.0], [1.0, 2.0, 3.0], tau=[0.5, 0.5]),
            "tau",
        ),
        (
            M + "rank_counts",
            "scores NaN",
            lambda: conformal.rank_counts(nan([1.0, 2.0]), [1.0]),
            "scores",
        ),
        (
            M + "rank_counts",
            "new_scores NaN",
            lambda: conformal.rank_counts([1.0], [np.nan]),
            "new_scores",
        ),
        (M + "counts_p_values", "n zero", lambda: conformal.counts_p_values([0], [0], 0), "n"),
        (
            M + "counts_p_values",
            "include_new a string",
            lambda: conformal.counts_p_values([0], [0], 3, include_new="no"),
            "include_new",
        ),
        (
            M + "counts_p_values",
            "tau 2",
            lambda: conformal.counts_p_values([0], [0], 3, tau=2.0),
            "tau",
        ),
        (
            M + "SplitConformalMixin.predict_p",
            "unfitted",
            lambda: SplitConformalNearestNeighbours().predict_p(X),
            "X",
        ),
        (M + "smoothing_draws", "seed negative", lambda: conformal.smoothing_draws(-1, 3), "seed"),
        (M + "smoothing_draws", "m negative", lambda: conformal.smoothing_draws(0, -1), "m"),
        (M + "smoothing_draws", "m a float", lambda: conformal.smoothing_draws(0, 2.0), "m"),
        (
            M + "SmoothingMixin",
            "smoothing_seed negative at the first smoothed call",
            lambda: (
                TCMNearestNeighbours(smoothing=True, smoothing_seed=-1).fit(X, Y).predict_p(X[:2])
            ),
            "smoothing_seed",
        ),
        (
            M + "check_smoothing",
            "smoothing 1",
            lambda: conformal.check_smoothing(1, 0),
            "smoothing",
        ),
        (
            M + "check_smoothing",
            "smoothing_seed a string",
            lambda: conformal.check_smoothing(True, "0"),
            "smoothing_seed",
        ),
        (
            M + "calibration_p_values",
            "scores NaN",
            lambda: conformal.calibration_p_values(nan([1.0, 2.0]), np.ones((2, 2))),
            "scores",
        ),
        (
            M + "calibration_p_values",
            "test_scores 1-D",
            lambda: conformal.calibration_p_values([1.0, 2.0], np.ones(2)),
            "test_scores",
        ),
        (
            M + "calibration_p_values",
            "test_scores strings",
            lambda: conformal.calibration_p_values([1.0, 2.0], [["a", "b"]]),
            "test_scores",
        ),
        (
            M + "calibration_p_values",
            "test_scores NaN",
            lambda: conformal.calibration_p_values([1.0, 2.0], [[np.nan, 1.0]]),
            "test_scores",
        ),
        (
            M + "calibration_p_values",
            "codes out of range",
            lambda: conformal.calibration_p_values([1.0, 2.0], np.ones((2, 2)), [0, 2]),
            "codes",
        ),
        (
            M + "calibration_p_values",
            "a label without calibration example",
            lambda: conformal.calibration_p_values([1.0, 2.0], np.ones((2, 2)), [0, 0]),
            "y",
        ),
    ]
    + [
        (f"{name}.predict_p", description, _smoothed_p(make, y, **params), argname)
        for name, (make, y) in _SMOOTHED.items()
        for description, params, argname in _BAD_SMOOTHING
    ]
    + [
        (f"{name}.fit", description, functools.partial(thunk, cls), argname)
        for name, cls in (
            (CROSS, functools.partial(CrossConformalSVM, KERNEL, n_folds=3)),
            (SNN, functools.partial(SplitConformalNearestNeighbours, calibration_size=5)),
        )
        for description, thunk, argname in _BAD_FIT
    ]
    + [
        (f"{CROSS}.fit", "n_folds 1", lambda: CrossConformalSVM(n_folds=1).fit(X, Y), "n_folds"),
        (
            f"{CROSS}.fit",
            "n_folds above n",
            lambda: CrossConformalSVM(n_folds=16).fit(X, Y),
            "n_folds",
        ),
        (f"{CROSS}.fit", "C zero", lambda: CrossConformalSVM(C=0.0).fit(X, Y), "C"),
        (
            f"{CROSS}.fit",
            "kernel unknown",
            lambda: CrossConformalSVM(kernel="sigmoid").fit(X, Y),
            "kernel",
        ),
        (
            f"{CROSS}.fit",
            "solver unknown",
            lambda: CrossConformalSVM(solver="smo").fit(X, Y),
            "solver",
        ),
        (f"{SNN}.fit", "k zero", lambda: SplitConformalNearestNeighbours(k=0).fit(X, Y), "k"),
        (
            f"{SNN}.fit",
            "k above a class's proper examples",
            lambda: SplitConformalNearestNeighbours(k=5, calibration_size=5).fit(X, Y),
            "y",
        ),
        (
            f"{SNN}.fit",
            "calibration_size 1.0",
            lambda: SplitConformalNearestNeighbours(calibration_size=1.0).fit(X, Y),
            "calibration_size",
        ),
    ]
)
