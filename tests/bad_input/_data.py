"""Small valid inputs shared by the case files, and helpers that spoil them."""

import numpy as np
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.svm import fit_svm

X = np.random.default_rng(0).normal(size=(8, 2))
K = rbf_kernel(X)
Y = np.array([1.0, -1.0] * 4)
NOT_PSD = np.array([[1.0, 2.0], [2.0, 1.0]])


def _indefinite(K):
    """``K`` with its smallest eigenvalue replaced by -0.5: symmetric, not PSD."""
    w, V = np.linalg.eigh(K)
    w[0] = -0.5
    M = (V * w) @ V.T
    return (M + M.T) / 2.0


K_INDEFINITE = _indefinite(K)
K_ASYMMETRIC = K + np.triu(np.ones_like(K), 1) * 0.1
SOL = fit_svm(K, Y, C=1.0)
HARD = fit_svm(linear_kernel(X), np.sign(X[:, 0]) + (X[:, 0] == 0), C=np.inf)
K_LIN = linear_kernel(X)


def nan(a):
    """A float copy of ``a`` with a NaN in its second entry."""
    a = np.array(a, dtype=float)
    a.flat[1] = np.nan
    return a


def inf(a):
    """A float copy of ``a`` with inf in its first entry."""
    a = np.array(a, dtype=float)
    a.flat[0] = np.inf
    return a


def _sigmoid(A, B):
    """``tanh(2 a.b + 1)``: symmetric, but indefinite on the case files' data."""
    return np.tanh(2.0 * A @ B.T + 1.0)


#: Kernels every estimator's fit refuses, naming ``kernel`` (issue 22): ``(description,
#: kernel)``.
BAD_KERNELS = [
    ("kernel -rbf, not PSD", lambda A, B: -rbf_kernel(A, B)),
    ("kernel sigmoid, indefinite", _sigmoid),
    ("kernel not symmetric", lambda A, B: rbf_kernel(A, B) + 0.1 * A[:, :1]),
    ("kernel of the wrong shape", lambda A, B: rbf_kernel(A, B)[:, :-1]),
]
