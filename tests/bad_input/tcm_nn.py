"""Bad input of svmtrust.tcm_nn and of its protocol svmtrust.experiments.tcm_nn (issue 13)."""

import numpy as np
import pandas as pd
import scipy.sparse
from svmtrust.experiments import tcm_nn as protocol
from svmtrust.tcm_nn import TCMNearestNeighbours, paired_distances, strangeness

X = np.random.default_rng(0).normal(size=(12, 3))
Y = np.array([0, 1, 2] * 4)  # every class has 4 examples: k = 3 is the largest allowed
EST = "svmtrust.tcm_nn.TCMNearestNeighbours"
PROTOCOL = "svmtrust.experiments.tcm_nn"
RESULTS = pd.DataFrame(
    {"data": ["segment"], "method": ["TCM-NN"], "k": [1], "errors": [3], "n_test": [231]}
)


def _fitted(**params):
    return TCMNearestNeighbours(**params).fit(X, Y)


def _with(a, value):
    a = np.array(a, dtype=float)
    a.flat[1] = value
    return a


def _fit(**params):
    return lambda: TCMNearestNeighbours(**params).fit(X, Y)


CASES = [
    # the constructor's parameters, checked by fit
    (f"{EST}.fit", "k zero", _fit(k=0), "k"),
    (f"{EST}.fit", "k negative", _fit(k=-2), "k"),
    (f"{EST}.fit", "k a bool", _fit(k=True), "k"),
    (f"{EST}.fit", "k a float", _fit(k=1.5), "k"),
    (f"{EST}.fit", "k larger than a class", _fit(k=5), "k"),
    (f"{EST}.fit", "k equal to a class", _fit(k=4), "k"),
    (f"{EST}.fit", "block_size zero", _fit(block_size=0), "block_size"),
    (f"{EST}.fit", "block_size a float", _fit(block_size=64.0), "block_size"),
    (f"{EST}.fit", "n_jobs zero", _fit(n_jobs=0), "n_jobs"),
    (f"{EST}.fit", "n_jobs -2", _fit(n_jobs=-2), "n_jobs"),
    (f"{EST}.fit", "n_jobs a bool", _fit(n_jobs=True), "n_jobs"),
    (f"{EST}.fit", "n_jobs a string", _fit(n_jobs="2"), "n_jobs"),
    (f"{EST}.fit", "unknown backend", _fit(algorithm="kd_tree"), "algorithm"),
    (f"{EST}.fit", "backend not a string", _fit(algorithm=None), "algorithm"),
    # training data
    (f"{EST}.fit", "NaN in X", lambda: TCMNearestNeighbours().fit(_with(X, np.nan), Y), "X"),
    (f"{EST}.fit", "inf in X", lambda: TCMNearestNeighbours().fit(_with(X, np.inf), Y), "X"),
    (f"{EST}.fit", "complex X", lambda: TCMNearestNeighbours().fit(X + 1j, Y), "X"),
    (
        f"{EST}.fit",
        "sparse X",
        lambda: TCMNearestNeighbours().fit(scipy.sparse.csr_matrix(X), Y),
        "X",
    ),
    (f"{EST}.fit", "X 1-D", lambda: TCMNearestNeighbours().fit(X[:, 0], Y), "X"),
    (f"{EST}.fit", "X without features", lambda: TCMNearestNeighbours().fit(X[:, :0], Y), "X"),
    (
        f"{EST}.fit",
        "X strings",
        lambda: TCMNearestNeighbours().fit(X.astype(str).astype(object) + "a", Y),
        "X",
    ),
    (f"{EST}.fit", "y too short", lambda: TCMNearestNeighbours().fit(X, Y[:-1]), "y"),
    (f"{EST}.fit", "y too long", lambda: TCMNearestNeighbours().fit(X, np.r_[Y, 0]), "y"),
    (f"{EST}.fit", "y None", lambda: TCMNearestNeighbours().fit(X, None), "y"),
    (f"{EST}.fit", "y a single class", lambda: TCMNearestNeighbours().fit(X, np.zeros(12)), "y"),
    (f"{EST}.fit", "y with NaN", lambda: TCMNearestNeighbours().fit(X, _with(Y, np.nan)), "y"),
    (
        f"{EST}.fit",
        "y continuous",
        lambda: TCMNearestNeighbours().fit(X, np.linspace(0, 1, 12)),
        "y",
    ),
    (f"{EST}.fit", "one sample", lambda: TCMNearestNeighbours().fit(X[:1], Y[:1]), "X"),
    # test objects
    (f"{EST}.predict_p", "unfitted", lambda: TCMNearestNeighbours().predict_p(X), "X"),
    (f"{EST}.predict", "unfitted", lambda: TCMNearestNeighbours().predict(X), "X"),
    (
        f"{EST}.predict_confidence",
        "unfitted",
        lambda: TCMNearestNeighbours().predict_confidence(X),
        "X",
    ),
    (f"{EST}.score", "unfitted", lambda: TCMNearestNeighbours().score(X, Y), "X"),
    (f"{EST}.predict_p", "NaN in X", lambda: _fitted().predict_p(_with(X[:2], np.nan)), "X"),
    (f"{EST}.predict_p", "inf in X", lambda: _fitted().predict_p(_with(X[:2], -np.inf)), "X"),
    (f"{EST}.predict_p", "complex X", lambda: _fitted().predict_p(X[:2] * 1j), "X"),
    (
        f"{EST}.predict_p",
        "sparse X",
        lambda: _fitted().predict_p(scipy.sparse.csr_matrix(X[:2])),
        "X",
    ),
    (f"{EST}.predict_p", "wrong width", lambda: _fitted().predict_p(X[:2, :2]), "X"),
    (f"{EST}.predict_p", "X 1-D", lambda: _fitted().predict_p(X[0]), "X"),
    (
        f"{EST}.predict_p",
        "columns named otherwise than in fit",
        lambda: (
            TCMNearestNeighbours()
            .fit(pd.DataFrame(X, columns=["a", "b", "c"]), Y)
            .predict_p(pd.DataFrame(X[:2], columns=["a", "b", "d"]))
        ),
        "X",
    ),
    (
        f"{EST}.predict_p",
        "squared distances overflow",
        lambda: _fitted().predict_p(X[:2] * 1e160),
        "X",
    ),
    (
        f"{EST}.predict_p",
        "block_size set to 0 after fit",
        lambda: _fitted().set_params(block_size=0).predict_p(X[:2]),
        "block_size",
    ),
    (
        f"{EST}.predict_p",
        "n_jobs set to 0 after fit",
        lambda: _fitted(algorithm="fast").set_params(n_jobs=0).predict_p(X[:2]),
        "n_jobs",
    ),
    (f"{EST}.predict", "wrong width", lambda: _fitted().predict(X[:2, :1]), "X"),
    (
        f"{EST}.predict_confidence",
        "NaN in X",
        lambda: _fitted().predict_confidence(_with(X[:2], np.nan)),
        "X",
    ),
    (
        f"{EST}.predict_set",
        "significance 0",
        lambda: _fitted().predict_set(X[:2], 0.0),
        "significance",
    ),
    (
        f"{EST}.predict_set",
        "significance 1",
        lambda: _fitted().predict_set(X[:2], 1.0),
        "significance",
    ),
    (
        f"{EST}.predict_set",
        "significance a string",
        lambda: _fitted().predict_set(X[:2], "5%"),
        "significance",
    ),
    (f"{EST}.predict_set", "wrong width", lambda: _fitted().predict_set(X[:2, :2], 0.1), "X"),
    (f"{EST}.score", "y too short", lambda: _fitted().score(X, Y[:-1]), "y"),
    # the functions
    ("svmtrust.tcm_nn.strangeness", "NaN sum", lambda: strangeness(np.nan, 1.0), "same"),
    ("svmtrust.tcm_nn.strangeness", "negative sum", lambda: strangeness(1.0, -1.0), "other"),
    ("svmtrust.tcm_nn.strangeness", "a string", lambda: strangeness("far", 1.0), "same"),
    ("svmtrust.tcm_nn.strangeness", "a string of a number", lambda: strangeness("1", 1.0), "same"),
    ("svmtrust.tcm_nn.strangeness", "True", lambda: strangeness(1.0, True), "other"),
    (
        "svmtrust.tcm_nn.strangeness",
        "shapes that do not broadcast",
        lambda: strangeness([1.0, 2.0], [1.0, 2.0, 3.0]),
        "other",
    ),
    (
        "svmtrust.tcm_nn.paired_distances",
        "shapes differ",
        lambda: paired_distances(X[:3], X[:2]),
        "B",
    ),
    ("svmtrust.tcm_nn.paired_distances", "NaN", lambda: paired_distances(_with(X, np.nan), X), "A"),
    ("svmtrust.tcm_nn.paired_distances", "complex", lambda: paired_distances(X, X * 1j), "B"),
    ("svmtrust.tcm_nn.paired_distances", "1-D", lambda: paired_distances(X[0], X[1]), "A"),
    (
        "svmtrust.tcm_nn.paired_distances",
        "coordinates of 1e200",
        lambda: paired_distances(X * 1e200, X),
        "A",
    ),
    # the protocol
    (f"{PROTOCOL}.load", "unknown data set", lambda: protocol.load("usps"), "name"),
    (f"{PROTOCOL}.splits", "unknown data set", lambda: protocol.splits("usps", 0), "name"),
    (f"{PROTOCOL}.splits", "seed negative", lambda: protocol.splits("segment", -1), "seed"),
    (
        f"{PROTOCOL}.region_counts",
        "significance 0",
        lambda: protocol.region_counts(np.full((2, 2), 0.5), np.array([0, 1]), 0.0),
        "significance",
    ),
    (
        f"{PROTOCOL}.region_counts",
        "true_index out of range",
        lambda: protocol.region_counts(np.full((2, 2), 0.5), np.array([0, 2]), 0.1),
        "true_index",
    ),
    (
        f"{PROTOCOL}.region_counts",
        "p-values above 1",
        lambda: protocol.region_counts(np.full((2, 2), 1.5), np.array([0, 1]), 0.1),
        "P",
    ),
    (
        f"{PROTOCOL}.evaluate_split",
        "k zero",
        lambda: protocol.evaluate_split("segment", 0, np.arange(200), np.arange(200, 220), (0,)),
        "ks",
    ),
    (
        f"{PROTOCOL}.evaluate_split",
        "unknown data set",
        lambda: protocol.evaluate_split("usps", 0, np.arange(9), np.arange(9, 12), (1,)),
        "name",
    ),
    (f"{PROTOCOL}.run", "unknown scale", lambda: protocol.run(scale="huge"), "scale"),
    (f"{PROTOCOL}.run", "seed a float", lambda: protocol.run(seed=0.5), "seed"),
    (f"{PROTOCOL}.run", "n_jobs zero", lambda: protocol.run(n_jobs=0), "n_jobs"),
    (
        f"{PROTOCOL}.error_table",
        "results not a table",
        lambda: protocol.error_table([1]),
        "results",
    ),
    (f"{PROTOCOL}.error_table", "k zero", lambda: protocol.error_table(RESULTS, k=0), "k"),
    (
        f"{PROTOCOL}.table1",
        "results without columns",
        lambda: protocol.table1(RESULTS[["data"]]),
        "results",
    ),
    (f"{PROTOCOL}.table2", "results not a table", lambda: protocol.table2(None), "results"),
    (
        f"{PROTOCOL}.implied_error",
        "none negative",
        lambda: protocol.implied_error(50.0, -1.0, 90.0),
        "none",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "one NaN",
        lambda: protocol.implied_error(np.nan, 1.0, 90.0),
        "one",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "none NaN",
        lambda: protocol.implied_error(50.0, np.nan, 90.0),
        "none",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "correct NaN with single-label regions",
        lambda: protocol.implied_error(50.0, 1.0, np.nan),
        "correct",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "one + none = 120",
        lambda: protocol.implied_error(70.0, 50.0, 90.0),
        "none",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "one a string",
        lambda: protocol.implied_error("50", 1.0, 90.0),
        "one",
    ),
    (
        f"{PROTOCOL}.implied_error",
        "correct above 100",
        lambda: protocol.implied_error(50.0, 1.0, 190.0),
        "correct",
    ),
    (f"{PROTOCOL}.table3", "results not a table", lambda: protocol.table3("csv"), "results"),
    (f"{PROTOCOL}.table3", "level 5", lambda: protocol.table3(RESULTS, levels=(5,)), "levels"),
    (
        f"{PROTOCOL}.error_by_k",
        "data set not in results",
        lambda: protocol.error_by_k(RESULTS, "usps_like"),
        "name",
    ),
    (f"{PROTOCOL}.calibration", "results not a table", lambda: protocol.calibration({}), "results"),
    (
        f"{PROTOCOL}.calibration",
        "data set not in results",
        lambda: protocol.calibration(RESULTS, "optdigits"),
        "name",
    ),
    (f"{PROTOCOL}.seed_spread", "fixed split", lambda: protocol.seed_spread("optdigits"), "name"),
    (
        f"{PROTOCOL}.seed_spread",
        "seeds repeated",
        lambda: protocol.seed_spread("segment", seeds=(1, 1)),
        "seeds",
    ),
    (
        f"{PROTOCOL}.seed_spread",
        "seed negative",
        lambda: protocol.seed_spread("segment", seeds=(-1,)),
        "seeds",
    ),
    (
        f"{PROTOCOL}.random_split_errors",
        "n_train zero",
        lambda: protocol.random_split_errors("segment", n_train=0),
        "n_train",
    ),
    (
        f"{PROTOCOL}.random_split_errors",
        "seed negative",
        lambda: protocol.random_split_errors("segment", n_train=100, seeds=(-1,)),
        "seeds",
    ),
    (
        f"{PROTOCOL}.affected_examples",
        "X_test wrong width",
        lambda: protocol.affected_examples(X, Y, X[:2, :2]),
        "X_test",
    ),
    (
        f"{PROTOCOL}.affected_examples",
        "k larger than a class",
        lambda: protocol.affected_examples(X, Y, X[:2], k=4),
        "k",
    ),
    (
        f"{PROTOCOL}.affected_examples",
        "NaN in X_train",
        lambda: protocol.affected_examples(_with(X, np.nan), Y, X[:2]),
        "X_train",
    ),
    (
        f"{PROTOCOL}.affected_examples",
        "y_train too short",
        lambda: protocol.affected_examples(X, Y[:-1], X[:2]),
        "y_train",
    ),
    (f"{PROTOCOL}.summary", "results not a table", lambda: protocol.summary(3), "results"),
]
