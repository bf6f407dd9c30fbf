"""Bad input to the module functions of svmtrust.transduction (not the estimator, task E,
nor the rank-sum functions, task D)."""

from svmtrust.transduction import TransductiveSVM, margin_transduction

from ._data import X, Y, nan

M = "svmtrust.transduction.margin_transduction"
MODEL = TransductiveSVM(C=1.0).fit(X, Y)

CASES = [
    (M, "model not fitted", lambda: margin_transduction(TransductiveSVM(), X), "model"),
    (M, "model of another kind", lambda: margin_transduction(object(), X), "model"),
    (M, "X NaN", lambda: margin_transduction(MODEL, nan(X)), "X"),
    (M, "X width", lambda: margin_transduction(MODEL, X[:, :1]), "X"),
    (M, "joint a string", lambda: margin_transduction(MODEL, X[:2], joint="no"), "joint"),
]
