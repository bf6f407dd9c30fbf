"""Bad input to the checks of svmtrust.validation themselves."""

import numpy as np
import pandas as pd
from svmtrust import validation as v
from svmtrust.kernels import linear_kernel
from svmtrust.optimal_face import canonical_optimum
from svmtrust.svm import fit_svm

from ._data import NOT_PSD, SOL, K, Y, nan

M = "svmtrust.validation."

CASES = [
    (M + "check_array", "strings", lambda: v.check_array([["a"]], "X", 2), "X"),
    (M + "check_array", "wrong ndim", lambda: v.check_array([1.0], "X", 2), "X"),
    (M + "check_array", "empty", lambda: v.check_array([], "a", 1), "a"),
    (M + "check_array", "NaN", lambda: v.check_array(nan([1.0, 2.0]), "a", 1), "a"),
    (M + "check_array", "ragged", lambda: v.check_array([[1.0], [1.0, 2.0]], "a", 2), "a"),
    (M + "check_array", "complex", lambda: v.check_array([1j, 2.0], "a", 1), "a"),
    (M + "check_binary_labels", "labels 0/1", lambda: v.check_binary_labels([0.0, 1.0]), "y"),
    (M + "check_binary_labels", "one class", lambda: v.check_binary_labels([1.0, 1.0]), "y"),
    (M + "check_binary_labels", "short", lambda: v.check_binary_labels([1.0, -1.0], n=3), "y"),
    (M + "check_binary_labels", "booleans", lambda: v.check_binary_labels([True, False]), "y"),
    (
        M + "check_class_labels",
        "class labels 2-D",
        lambda: v.check_class_labels(np.zeros((4, 1)), n=4),
        "y",
    ),
    (
        M + "check_class_labels",
        "class labels short",
        lambda: v.check_class_labels(["a", "b"], n=3),
        "y",
    ),
    (
        M + "check_class_labels",
        "class labels NaN",
        lambda: v.check_class_labels([1.0, np.nan, 2.0], n=3),
        "y",
    ),
    (
        M + "check_class_labels",
        "class labels None",
        lambda: v.check_class_labels(np.array(["a", None], dtype=object), n=2),
        "y",
    ),
    (
        M + "check_class_labels",
        "class labels one class",
        lambda: v.check_class_labels(["a", "a"], n=2),
        "y",
    ),
    (
        M + "check_class_labels",
        "labels of mixed types",
        lambda: v.check_class_labels(np.array(["a", 1], dtype=object)),
        "y",
    ),
    (M + "check_C", "C a string", lambda: v.check_C("1"), "C"),
    (M + "check_C", "C True", lambda: v.check_C(True), "C"),
    (M + "check_C", "C -inf", lambda: v.check_C(-np.inf), "C"),
    (M + "check_C", "C an array", lambda: v.check_C(np.array([1.0, 2.0])), "C"),
    (M + "check_significance", "zero", lambda: v.check_significance(0.0), "significance"),
    (M + "check_significance", "a string", lambda: v.check_significance("0.1"), "significance"),
    (M + "check_significance", "True", lambda: v.check_significance(True), "significance"),
    (M + "check_significance", "other name", lambda: v.check_significance(2.0, "delta"), "delta"),
    (M + "check_positive", "zero", lambda: v.check_positive(0.0, "gamma"), "gamma"),
    (M + "check_positive", "inf", lambda: v.check_positive(np.inf, "gamma"), "gamma"),
    (M + "check_positive", "True", lambda: v.check_positive(True, "gamma"), "gamma"),
    (M + "check_positive", "an array", lambda: v.check_positive(np.ones(2), "gamma"), "gamma"),
    (M + "check_integer", "float", lambda: v.check_integer(2.0, "k"), "k"),
    (M + "check_integer", "True", lambda: v.check_integer(True, "k"), "k"),
    (M + "check_integer", "below low", lambda: v.check_integer(0, "k"), "k"),
    (M + "check_integer", "above high", lambda: v.check_integer(5, "k", 1, 4), "k"),
    (M + "check_integer", "a string", lambda: v.check_integer("3", "k"), "k"),
    (M + "check_kernel_matrix", "not PSD", lambda: v.check_kernel_matrix(NOT_PSD), "K"),
    (M + "check_kernel_matrix", "not square", lambda: v.check_kernel_matrix(K[:, :3]), "K"),
    (M + "check_kernel_matrix", "not symmetric", lambda: v.check_kernel_matrix(np.triu(K)), "K"),
    (M + "check_kernel_matrix", "NaN", lambda: v.check_kernel_matrix(nan(K), "kernel"), "kernel"),
    (
        M + "check_kernel_matrix",
        "full a string",
        lambda: v.check_kernel_matrix(K, full="no"),
        "full",
    ),
    (
        M + "check_kernel_matrix",
        "entries near overflow",
        lambda: v.check_kernel_matrix(1e307 * K),
        "K",
    ),
    (
        M + "check_kernel_matrix",
        "negative diagonal",
        lambda: v.check_kernel_matrix(-np.eye(3)),
        "K",
    ),
    (M + "check_seed", "seed 1.0", lambda: v.check_seed(1.0), "seed"),
    (M + "check_seed", "seed True", lambda: v.check_seed(True), "seed"),
    (M + "check_seed", "seed a string", lambda: v.check_seed("0"), "seed"),
    (M + "check_seed", "seed negative", lambda: v.check_seed(-1, "seeds"), "seeds"),
    (M + "check_rng", "rng a seed", lambda: v.check_rng(0), "rng"),
    (M + "check_rng", "seed negative", lambda: v.check_rng(-1, "seed", seed_ok=True), "seed"),
    (M + "check_rng", "legacy RandomState", lambda: v.check_rng(np.random.RandomState(0)), "rng"),
    (M + "check_bool", "the string False", lambda: v.check_bool("False", "joint"), "joint"),
    (M + "check_bool", "1", lambda: v.check_bool(1, "joint"), "joint"),
    (M + "check_bool", "None", lambda: v.check_bool(None, "joint"), "joint"),
    (M + "check_choice", "unknown", lambda: v.check_choice("osqp", "solver", ("cvxpy",)), "solver"),
    (M + "check_choice", "an array", lambda: v.check_choice(np.array(["a"]), "box", ("a",)), "box"),
    (M + "check_table", "not a table", lambda: v.check_table({"a": [1]}, "results"), "results"),
    (M + "check_table", "empty", lambda: v.check_table(pd.DataFrame(), "results"), "results"),
    (
        M + "check_table",
        "column missing",
        lambda: v.check_table(pd.DataFrame({"a": [1]}), "results", ("b",)),
        "results",
    ),
    (M + "check_indices", "floats", lambda: v.check_indices([0.5], "free", 3), "free"),
    (M + "check_indices", "booleans", lambda: v.check_indices([True], "free", 3), "free"),
    (M + "check_indices", "out of range", lambda: v.check_indices([3], "free", 3), "free"),
    (M + "check_indices", "negative", lambda: v.check_indices([-1], "free", 3), "free"),
    (M + "check_indices", "wrong size", lambda: v.check_indices([0], "free", 3, size=2), "free"),
    (M + "check_indices", "2-D", lambda: v.check_indices([[0]], "free", 3), "free"),
    (M + "check_n_jobs", "zero", lambda: v.check_n_jobs(0), "n_jobs"),
    (M + "check_n_jobs", "minus two", lambda: v.check_n_jobs(-2), "n_jobs"),
    (M + "check_n_jobs", "float", lambda: v.check_n_jobs(2.0), "n_jobs"),
    (M + "check_n_jobs", "boolean", lambda: v.check_n_jobs(True), "n_jobs"),
    (M + "check_n_jobs", "string", lambda: v.check_n_jobs("2"), "n_jobs"),
]

_XK = np.random.default_rng(0).normal(size=(6, 2))
_GRAM = v.check_kernel_gram(lambda A, B: A @ B.T + 1.0, _XK)
#: The same check of a library kernel's Gram matrix, which holds no factor (PSD by construction).
_LIBRARY_GRAM = v.check_kernel_gram(linear_kernel, _XK)
NO_INPUT = {M + "CheckedGram": "a result record built by check_kernel_gram"}
CASES += [
    (M + "check_numeric", "a boolean", lambda: v.check_numeric(True, "a"), "a"),
    (M + "check_numeric", "numeric strings", lambda: v.check_numeric(["1", "2"], "a"), "a"),
    (M + "check_numeric", "complex", lambda: v.check_numeric([1j], "a"), "a"),
    (M + "check_numeric", "ragged", lambda: v.check_numeric([1.0, [2.0]], "a"), "a"),
    (M + "kernel_block", "kernel a string", lambda: v.kernel_block("rbf", _XK, _XK), "kernel"),
    (
        M + "kernel_block",
        "kernel returns a vector",
        lambda: v.kernel_block(lambda A, B: A[:, 0], _XK, _XK),
        "kernel",
    ),
    (
        M + "kernel_block",
        "kernel returns the wrong shape",
        lambda: v.kernel_block(lambda A, B: A @ A.T, _XK, _XK[:2]),
        "kernel",
    ),
    (
        M + "check_kernel_gram",
        "kernel not PSD",
        lambda: v.check_kernel_gram(lambda A, B: -A @ B.T, _XK),
        "kernel",
    ),
    (
        M + "check_kernel_gram",
        "kernel not symmetric",
        lambda: v.check_kernel_gram(lambda A, B: A @ B.T + A[:, :1], _XK),
        "kernel",
    ),
    (
        M + "check_augmented_gram",
        "new block not symmetric",
        lambda: v.check_augmented_gram(_GRAM, np.ones((6, 2)), np.array([[9.0, 1.0], [0.0, 9.0]])),
        "kernel",
    ),
    (
        M + "check_augmented_kernel",
        "augmented matrix not PSD",
        lambda: v.check_augmented_kernel(_GRAM, _GRAM.matrix[:, :1], _GRAM.matrix[:1, :1] - 0.5),
        "kernel",
    ),
    (
        M + "check_augmented_kernel",
        "new block NaN",
        lambda: v.check_augmented_kernel(_GRAM, _GRAM.matrix[:, :1], np.array([[np.nan]])),
        "kernel",
    ),
    (
        M + "check_augmented_gram",
        "augmented matrix not PSD",
        lambda: v.check_augmented_gram(_GRAM, _GRAM.matrix[:, :1], _GRAM.matrix[:1, :1] - 0.5),
        "kernel",
    ),
    (
        M + "check_augmented_gram",
        "augmented matrix not PSD, a library kernel's training Gram matrix",
        lambda: v.check_augmented_gram(
            _LIBRARY_GRAM, _LIBRARY_GRAM.matrix[:, :1], _LIBRARY_GRAM.matrix[:1, :1] - 0.5
        ),
        "kernel",
    ),
    (
        M + "check_augmented_kernel",
        "gram a matrix",
        lambda: v.check_augmented_kernel(_GRAM.matrix, _GRAM.matrix[:, :1], np.ones((1, 1))),
        "gram",
    ),
    (
        M + "check_augmented_kernel",
        "cross short",
        lambda: v.check_augmented_kernel(_GRAM, _GRAM.matrix[:-1, :1], np.ones((1, 1))),
        "kernel",
    ),
    (
        M + "check_augmented_kernel",
        "cross NaN",
        lambda: v.check_augmented_kernel(_GRAM, nan(_GRAM.matrix[:, :1]), np.ones((1, 1))),
        "kernel",
    ),
    (
        M + "check_augmented_kernel",
        "cross of two columns, new of one",
        lambda: v.check_augmented_kernel(_GRAM, _GRAM.matrix[:, :2], np.ones((1, 1))),
        "kernel",
    ),
]

# Strings and booleans are not numbers: ``numpy.asarray(["1"], dtype=float)`` reads "1" as 1
# and True as 1; check_array refuses them, and with it every function whose door it is.
_Q = K * np.outer(Y, Y)
CASES += [
    (M + "check_array", "strings of numbers", lambda: v.check_array(["1", "2"], "a", 1), "a"),
    (M + "check_array", "bytes", lambda: v.check_array([b"1", b"2"], "a", 1), "a"),
    (M + "check_array", "booleans", lambda: v.check_array([True, False], "a", 1), "a"),
    (
        M + "check_array",
        "objects",
        lambda: v.check_array(np.array([1.0, 2.0], dtype=object), "a", 1),
        "a",
    ),
    (M + "check_numeric", "a string", lambda: v.check_numeric("1", "value"), "value"),
    (M + "check_symmetric", "not symmetric", lambda: v.check_symmetric(np.triu(K)), "M"),
    (M + "check_symmetric", "not square", lambda: v.check_symmetric(K[:, :3], "A"), "A"),
    (
        "svmtrust.kernels.linear_kernel",
        "X strings of numbers",
        lambda: linear_kernel([["1", "2"]]),
        "X",
    ),
    ("svmtrust.kernels.linear_kernel", "X booleans", lambda: linear_kernel([[True]]), "X"),
    (
        "svmtrust.svm.fit_svm",
        "y strings '1' and '-1'",
        lambda: fit_svm(K, np.where(Y > 0, "1", "-1")),
        "y",
    ),
    (
        "svmtrust.svm.fit_svm",
        "canonical not a bool",
        lambda: fit_svm(K, Y, 1.0, "libsvm", canonical="yes"),
        "canonical",
    ),
    (
        "svmtrust.optimal_face.canonical_optimum",
        'd "0"',
        lambda: canonical_optimum(_Q, -np.ones(Y.size), Y, "0", 1.0, SOL.alpha),
        "d",
    ),
]
