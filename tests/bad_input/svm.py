"""Bad input to the public functions of svmtrust.svm."""

import numpy as np
from svmtrust.svm import (
    canonical_solution,
    categorise,
    dual_objective,
    duplicate_groups,
    fit_svm,
    kkt_bias,
)

from ._data import NOT_PSD, SOL, K, X, Y, inf, nan

M = "svmtrust.svm."
F = M + "fit_svm"
A = SOL.alpha
E = np.array([], dtype=int)

CASES = [
    (M + "canonical_solution", "NaN in K", lambda: canonical_solution(nan(K), Y, 1.0, A), "K"),
    (M + "canonical_solution", "y 0/1", lambda: canonical_solution(K, Y > 0, 1.0, A), "y"),
    (M + "canonical_solution", "C zero", lambda: canonical_solution(K, Y, 0.0, A), "C"),
    (
        M + "canonical_solution",
        "alpha short",
        lambda: canonical_solution(K, Y, 1.0, A[:-1]),
        "alpha",
    ),
    (M + "canonical_solution", "alpha above C", lambda: canonical_solution(K, Y, 1e-3, A), "alpha"),
    (F, "NaN in K", lambda: fit_svm(nan(K), Y), "K"),
    (F, "inf in K", lambda: fit_svm(inf(K), Y), "K"),
    (F, "NaN in y", lambda: fit_svm(K, nan(Y)), "y"),
    (F, "y too short", lambda: fit_svm(K, Y[:-1]), "y"),
    (F, "y 2-D", lambda: fit_svm(K, Y[:, None]), "y"),
    (F, "labels outside {-1,+1}", lambda: fit_svm(K, np.r_[Y[:-1], 2.0]), "y"),
    (F, "labels 0/1", lambda: fit_svm(K, (Y > 0).astype(float)), "y"),
    (F, "single class", lambda: fit_svm(K, np.ones(8)), "y"),
    (F, "K not square", lambda: fit_svm(K[:, :-1], Y), "K"),
    (F, "K not symmetric", lambda: fit_svm(K + np.triu(np.ones_like(K), 1) * 0.1, Y), "K"),
    (F, "K not PSD", lambda: fit_svm(NOT_PSD, np.array([1.0, -1.0])), "K"),
    (F, "K 1-D", lambda: fit_svm(np.ones(8), Y), "K"),
    (F, "K strings", lambda: fit_svm([["a", "b"], ["c", "d"]], np.array([1.0, -1.0])), "K"),
    (F, "K overflows its scale", lambda: fit_svm(1e306 * K, Y, 1.0), "K"),
    (F, "C zero", lambda: fit_svm(K, Y, C=0.0), "C"),
    (F, "C negative", lambda: fit_svm(K, Y, C=-1.0), "C"),
    (F, "C NaN", lambda: fit_svm(K, Y, C=np.nan), "C"),
    (F, "C string", lambda: fit_svm(K, Y, C="big"), "C"),
    (F, "C True", lambda: fit_svm(K, Y, C=True), "C"),
    (F, "unknown solver", lambda: fit_svm(K, Y, solver="osqp"), "solver"),
    (F, "solver a list", lambda: fit_svm(K, Y, solver=["cvxpy"]), "solver"),
    (F, "check_kernel a string", lambda: fit_svm(K, Y, check_kernel="no"), "check_kernel"),
    (F, "tol zero", lambda: fit_svm(K, Y, 1.0, "libsvm", tol=0.0), "tol"),
    (F, "tol NaN", lambda: fit_svm(K, Y, 1.0, "libsvm", tol=np.nan), "tol"),
    (F, "tol string", lambda: fit_svm(K, Y, 1.0, "libsvm", tol="1e-3"), "tol"),
    (F, "tol with cvxpy", lambda: fit_svm(K, Y, 1.0, "cvxpy", tol=1e-3), "tol"),
    (F, "hard margin, not separable", lambda: fit_svm(K[:2, :2] * 0 + 1, [1.0, -1.0]), None),
    (
        M + "SVMSolution.decision_function",
        "K_rows width",
        lambda: SOL.decision_function(np.ones((2, 5))),
        "K_rows",
    ),
    (
        M + "SVMSolution.decision_function",
        "K_rows NaN",
        lambda: SOL.decision_function(nan(K)),
        "K_rows",
    ),
    (M + "dual_objective", "alpha short", lambda: dual_objective(K, Y, A[:-1]), "alpha"),
    (M + "dual_objective", "alpha negative", lambda: dual_objective(K, Y, -A), "alpha"),
    (M + "dual_objective", "NaN in K", lambda: dual_objective(nan(K), Y, A), "K"),
    (M + "dual_objective", "y 0/1", lambda: dual_objective(K, Y > 0, A), "y"),
    (M + "categorise", "alpha NaN", lambda: categorise(nan(A), 1.0), "alpha"),
    (M + "categorise", "alpha empty", lambda: categorise([], 1.0), "alpha"),
    (M + "categorise", "C zero", lambda: categorise(A, 0.0), "C"),
    (M + "categorise", "alpha 2-D", lambda: categorise(A[:, None], 1.0), "alpha"),
    (
        M + "kkt_bias",
        "free out of range",
        lambda: kkt_bias(K, Y, A, 1.0, np.array([99]), E),
        "free",
    ),
    (M + "kkt_bias", "free floats", lambda: kkt_bias(K, Y, A, 1.0, np.array([0.5]), E), "free"),
    (M + "kkt_bias", "NaN in alpha", lambda: kkt_bias(K, Y, nan(A), 1.0, SOL.free, E), "alpha"),
    (M + "kkt_bias", "C string", lambda: kkt_bias(K, Y, A, "1", SOL.free, E), "C"),
    (M + "kkt_bias", "y short", lambda: kkt_bias(K, Y[:-1], A, 1.0, SOL.free, E), "y"),
    (M + "duplicate_groups", "y short", lambda: duplicate_groups(K, Y[:-1]), "y"),
    (M + "duplicate_groups", "NaN in K", lambda: duplicate_groups(nan(K), Y), "K"),
    (M + "duplicate_groups", "tol negative", lambda: duplicate_groups(K, Y, tol=-1.0), "tol"),
    (M + "duplicate_groups", "K not square", lambda: duplicate_groups(X, Y), "K"),
]
