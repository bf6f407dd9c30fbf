"""Bad input to svmtrust.kernels."""

import numpy as np
from svmtrust.kernels import linear_kernel, named_kernel, polynomial_kernel, rbf_kernel

from ._data import X, nan

M = "svmtrust.kernels."
BIG = 1e155 * X

CASES = [
    (M + "named_kernel", "unknown name", lambda: named_kernel("sigmoid", X), "kernel"),
    (M + "named_kernel", "not a kernel", lambda: named_kernel(3, X), "kernel"),
    (M + "named_kernel", "gamma word", lambda: named_kernel("rbf", X, gamma="wide"), "gamma"),
    (M + "named_kernel", "gamma negative", lambda: named_kernel("rbf", X, gamma=-1.0), "gamma"),
    (M + "named_kernel", "degree 0", lambda: named_kernel("poly", X, degree=0), "degree"),
    (M + "named_kernel", "degree 2.5", lambda: named_kernel("poly", X, degree=2.5), "degree"),
    (M + "named_kernel", "coef0 negative", lambda: named_kernel("poly", X, coef0=-1.0), "coef0"),
    (M + "named_kernel", "coef0 NaN", lambda: named_kernel("poly", X, coef0=np.nan), "coef0"),
    (M + "named_kernel", "X NaN", lambda: named_kernel("rbf", nan(X)), "X"),
    (M + "rbf_kernel", "NaN in X", lambda: rbf_kernel(nan(X)), "X"),
    (M + "rbf_kernel", "gamma zero", lambda: rbf_kernel(X, gamma=0.0), "gamma"),
    (M + "rbf_kernel", "gamma a string", lambda: rbf_kernel(X, gamma="1"), "gamma"),
    (M + "rbf_kernel", "gamma inf", lambda: rbf_kernel(X, gamma=np.inf), "gamma"),
    (M + "rbf_kernel", "Z width", lambda: rbf_kernel(X, np.ones((3, 5))), "Z"),
    (M + "rbf_kernel", "Z NaN", lambda: rbf_kernel(X, nan(X)), "Z"),
    (M + "rbf_kernel", "X 1-D", lambda: rbf_kernel(X[:, 0]), "X"),
    (M + "rbf_kernel", "X strings", lambda: rbf_kernel([["a", "b"]]), "X"),
    (M + "linear_kernel", "Z width mismatch", lambda: linear_kernel(X, np.ones((3, 5))), "Z"),
    (M + "linear_kernel", "X empty", lambda: linear_kernel(np.ones((0, 2))), "X"),
    (M + "linear_kernel", "X overflows", lambda: linear_kernel(BIG), "X"),
    (M + "linear_kernel", "X times Z overflows", lambda: linear_kernel(BIG, 1e160 * X), "X"),
    (
        M + "polynomial_kernel",
        "degree not integer",
        lambda: polynomial_kernel(X, degree=2.5),
        "degree",
    ),
    (M + "polynomial_kernel", "degree zero", lambda: polynomial_kernel(X, degree=0), "degree"),
    (
        M + "polynomial_kernel",
        "degree a string",
        lambda: polynomial_kernel(X, degree="3"),
        "degree",
    ),
    (M + "polynomial_kernel", "degree True", lambda: polynomial_kernel(X, degree=True), "degree"),
    (M + "polynomial_kernel", "degree NaN", lambda: polynomial_kernel(X, degree=np.nan), "degree"),
    (M + "polynomial_kernel", "scale zero", lambda: polynomial_kernel(X, scale=0.0), "scale"),
    (M + "polynomial_kernel", "X overflows to inf", lambda: polynomial_kernel(1e60 * X), "X"),
    (M + "polynomial_kernel", "NaN in Z", lambda: polynomial_kernel(X, nan(X)), "Z"),
]
