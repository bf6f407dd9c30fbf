"""Bad input to svmtrust.qp (the one Clarabel call and the PSD helpers) and to the compiled
problems of svmtrust.discrepancy."""

import cvxpy as cp
import numpy as np
from svmtrust import discrepancy, qp, validation

from ._data import K_ASYMMETRIC, K_LIN, NOT_PSD, K, nan

M = "svmtrust.qp."
D = "svmtrust.discrepancy."

CASES = [
    (M + "solve", "not a problem", lambda: qp.solve("min x", "toy"), "problem"),
    (
        M + "solve",
        "description not a string",
        lambda: qp.solve(cp.Problem(cp.Minimize(0)), 3),
        "what",
    ),
    (
        M + "solve",
        "tolerance zero",
        lambda: qp.solve(cp.Problem(cp.Minimize(0)), "toy", 0.0),
        "tol",
    ),
    (
        M + "solve",
        "tolerance a string",
        lambda: qp.solve(cp.Problem(cp.Minimize(0)), "toy", "tight"),
        "tol",
    ),
    (M + "psd_eigh", "not square", lambda: qp.psd_eigh(K[:, :-1]), "M"),
    (M + "psd_eigh", "NaN", lambda: qp.psd_eigh(nan(K)), "M"),
    (M + "psd_eigh", "order zero", lambda: qp.psd_eigh(K, n=0), "n"),
    (M + "psd_eigh", "order a float", lambda: qp.psd_eigh(K, n=2.5), "n"),
    (M + "kernel_factor", "1-D", lambda: qp.kernel_factor(np.ones(4)), "K"),
    (M + "kernel_factor", "NaN", lambda: qp.kernel_factor(nan(NOT_PSD)), "K"),
    (M + "kernel_factor", "indefinite", lambda: qp.kernel_factor(NOT_PSD), "K"),
    (M + "kernel_factor", "not symmetric", lambda: qp.kernel_factor(K_ASYMMETRIC), "K"),
    (
        M + "kernel_factor",
        "eigenvalue just below the PSD tolerance",
        lambda: qp.kernel_factor(K_LIN - 2 * validation.psd_shift(K_LIN) * np.eye(len(K_LIN))),
        "K",
    ),
    (
        M + "solve",
        "not convex (maximise a convex function)",
        lambda: qp.solve(cp.Problem(cp.Maximize(cp.sum_squares(cp.Variable(2)))), "toy"),
        "problem",
    ),
    ("svmtrust.validation.psd_shift", "not square", lambda: validation.psd_shift(K[:2]), "K"),
    (
        "svmtrust.validation.psd_shift",
        "strings",
        lambda: validation.psd_shift([["a", "b"], ["c", "d"]]),
        "K",
    ),
    (D + "BoundedWProblem", "size zero", lambda: discrepancy.BoundedWProblem(0), "l"),
    (D + "BoundedWProblem", "size a bool", lambda: discrepancy.BoundedWProblem(True), "l"),
    (D + "BoundedWProblem", "size a float", lambda: discrepancy.BoundedWProblem(3.5), "l"),
    (D + "EnvelopeProblem", "size negative", lambda: discrepancy.EnvelopeProblem(-2), "l"),
    (D + "EnvelopeProblem", "size a string", lambda: discrepancy.EnvelopeProblem("8"), "l"),
]
