"""Bad input to svmtrust.qp (the one Clarabel call and the PSD helpers) and to the compiled
problems of svmtrust.discrepancy."""

import cvxpy as cp
import numpy as np
from svmtrust import discrepancy, qp, validation

from ._data import K_ASYMMETRIC, K_LIN, NOT_PSD, K, nan

M = "svmtrust.qp."
D = "svmtrust.discrepancy."
_SIGNS = np.array([1.0, -1.0, 1.0, -1.0])
_EYE, _ONES = np.eye(4), np.ones(4)


def _bounded(phi=_EYE, y=_SIGNS, w_max=1.0, mask=_ONES):
    """:meth:`BoundedWProblem.solve` of four points, one argument spoilt."""
    return discrepancy.BoundedWProblem(4).solve(phi, y, w_max, mask)


def _envelope(A=_EYE, y=_SIGNS, v=_ONES, B=1.0):
    """:meth:`EnvelopeProblem.solve` of four points, one argument spoilt."""
    return discrepancy.EnvelopeProblem(4).solve(A, y, v, B)


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
    (M + "psd_eigh", "not PSD", lambda: qp.psd_eigh(NOT_PSD), "M"),
    (M + "psd_eigh", "not symmetric", lambda: qp.psd_eigh(K_ASYMMETRIC), "M"),
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
    (D + "BoundedWProblem.solve", "y short", lambda: _bounded(y=np.ones(3)), "y"),
    (D + "BoundedWProblem.solve", "y zero", lambda: _bounded(y=np.r_[1.0, 0.0, 1.0, 1.0]), "y"),
    (D + "BoundedWProblem.solve", "phi too wide", lambda: _bounded(phi=np.eye(5)[:4]), "phi"),
    (D + "BoundedWProblem.solve", "phi NaN", lambda: _bounded(phi=nan(np.eye(4))), "phi"),
    (D + "BoundedWProblem.solve", "w_max a string", lambda: _bounded(w_max="a"), "w_max"),
    (D + "BoundedWProblem.solve", "mask a list of 2", lambda: _bounded(mask=[1, 1]), "mask"),
    (D + "BoundedWProblem.solve", "mask 0.5", lambda: _bounded(mask=np.full(4, 0.5)), "mask"),
    (D + "EnvelopeProblem.solve", "A short", lambda: _envelope(A=np.eye(4)[:3]), "A"),
    (D + "EnvelopeProblem.solve", "y 2", lambda: _envelope(y=np.full(4, 2.0)), "y"),
    (D + "EnvelopeProblem.solve", "v negative", lambda: _envelope(v=-np.ones(4)), "v"),
    (D + "EnvelopeProblem.solve", "B NaN", lambda: _envelope(B=np.nan), "B"),
]
