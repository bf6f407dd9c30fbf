"""Bad input to the module functions of svmtrust.transduction (not the estimator, task E,
nor the rank-sum functions, task D)."""

import numpy as np
from svmtrust.transduction import TransductiveSVM, break_ties, margin_transduction

from ._data import X, Y, nan

M = "svmtrust.transduction.margin_transduction"
B = "svmtrust.transduction.break_ties"
P = np.array([[0.5, 0.5], [0.1, 0.9]])
MODEL = TransductiveSVM(C=1.0).fit(X, Y)

CASES = [
    (M, "model not fitted", lambda: margin_transduction(TransductiveSVM(), X), "model"),
    (M, "model of another kind", lambda: margin_transduction(object(), X), "model"),
    (M, "X NaN", lambda: margin_transduction(MODEL, nan(X)), "X"),
    (M, "X width", lambda: margin_transduction(MODEL, X[:, :1]), "X"),
    (M, "joint a string", lambda: margin_transduction(MODEL, X[:2], joint="no"), "joint"),
    (B, "tie_break unknown", lambda: break_ties(P, P, tie_break="random"), "tie_break"),
    (B, "tie_break not a string", lambda: break_ties(P, P, tie_break=0), "tie_break"),
    (B, "p_values one-dimensional", lambda: break_ties(P[0], P), "p_values"),
    (B, "p_values NaN", lambda: break_ties(nan(P), P), "p_values"),
    (B, "cost of another shape", lambda: break_ties(P, P[:1]), "cost"),
    (B, "cost NaN", lambda: break_ties(P, nan(P)), "cost"),
]
