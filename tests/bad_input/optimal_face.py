"""Bad input to the public functions of svmtrust.optimal_face."""

import numpy as np
from svmtrust.optimal_face import canonical_optimum, equality_multiplier, identical_groups

from ._data import SOL, K, Y, nan

M = "svmtrust.optimal_face."
F = M + "canonical_optimum"
Q = K * np.outer(Y, Y)
ONES = -np.ones(Y.size)
X0 = SOL.alpha
FREE = np.zeros(Y.size, dtype=bool)

NO_INPUT = {M + "FaceOptimum": "a result record built by canonical_optimum"}

CASES = [
    (F, "NaN in A", lambda: canonical_optimum(nan(Q), ONES, Y, 0.0, 1.0, X0), "A"),
    (F, "A not square", lambda: canonical_optimum(Q[:, :-1], ONES, Y, 0.0, 1.0, X0), "A"),
    (F, "c short", lambda: canonical_optimum(Q, ONES[:-1], Y, 0.0, 1.0, X0), "c"),
    (F, "a not signs", lambda: canonical_optimum(Q, ONES, Y * 2, 0.0, 1.0, X0), "a"),
    (F, "d NaN", lambda: canonical_optimum(Q, ONES, Y, np.nan, 1.0, X0), "d"),
    (F, "u zero", lambda: canonical_optimum(Q, ONES, Y, 0.0, 0.0, X0), "u"),
    (F, "u string", lambda: canonical_optimum(Q, ONES, Y, 0.0, "1", X0), "u"),
    (F, "x short", lambda: canonical_optimum(Q, ONES, Y, 0.0, 1.0, X0[:-1]), "x"),
    (F, "x NaN", lambda: canonical_optimum(Q, ONES, Y, 0.0, 1.0, nan(X0)), "x"),
    (F, "tol zero", lambda: canonical_optimum(Q, ONES, Y, 0.0, 1.0, X0, tol=0.0), "tol"),
    (M + "identical_groups", "a short", lambda: identical_groups(Q, Y[:-1]), "a"),
    (M + "identical_groups", "tol negative", lambda: identical_groups(Q, Y, tol=-1.0), "tol"),
    (
        M + "equality_multiplier",
        "NaN gradient",
        lambda: equality_multiplier(nan(Y), Y, FREE, FREE),
        "gradient",
    ),
    (M + "equality_multiplier", "free floats", lambda: equality_multiplier(Y, Y, Y, FREE), "free"),
    (
        M + "equality_multiplier",
        "at_upper short",
        lambda: equality_multiplier(Y, Y, FREE, FREE[:-1]),
        "at_upper",
    ),
]
