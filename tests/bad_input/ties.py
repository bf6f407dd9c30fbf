"""Bad input to svmtrust.ties: scores, the tolerance, values compared with 0 and their scale."""

import numpy as np
from svmtrust import ties

M = "svmtrust.ties."

CASES = [
    (M + "check_tie_tol", "negative", lambda: ties.check_tie_tol(-1e-9), "tie_tol"),
    (M + "check_tie_tol", "NaN", lambda: ties.check_tie_tol(np.nan), "tie_tol"),
    (M + "check_tie_tol", "inf", lambda: ties.check_tie_tol(np.inf), "tie_tol"),
    (M + "check_tie_tol", "string", lambda: ties.check_tie_tol("1e-9"), "tie_tol"),
    (M + "check_tie_tol", "bool", lambda: ties.check_tie_tol(True), "tie_tol"),
    (M + "merged", "NaN", lambda: ties.merged([1.0, np.nan]), "values"),
    (M + "merged", "2-D", lambda: ties.merged([[1.0, 2.0]]), "values"),
    (M + "merged", "strings", lambda: ties.merged(["a", "b"]), "values"),
    (M + "merged", "booleans", lambda: ties.merged([True, False]), "values"),
    (M + "merged", "tol negative", lambda: ties.merged([1.0, 2.0], -1.0), "tol"),
    (M + "bag_counts", "old empty", lambda: ties.bag_counts([], [1.0]), "old"),
    (M + "bag_counts", "old NaN", lambda: ties.bag_counts([np.nan], [1.0]), "old"),
    (M + "bag_counts", "new NaN", lambda: ties.bag_counts([1.0], [np.nan]), "new"),
    (M + "bag_counts", "new 2-D", lambda: ties.bag_counts([1.0], [[1.0]]), "new"),
    (M + "bag_counts", "tol string", lambda: ties.bag_counts([1.0], [1.0], "0"), "tol"),
    (M + "smallest", "1-D", lambda: ties.smallest([1.0, 2.0]), "values"),
    (M + "smallest", "no column", lambda: ties.smallest(np.ones((2, 0))), "values"),
    (M + "smallest", "NaN", lambda: ties.smallest([[1.0, np.nan]]), "values"),
    (M + "is_zero", "values NaN", lambda: ties.is_zero(np.nan, 1.0), "values"),
    (M + "is_zero", "values string", lambda: ties.is_zero("0", 1.0), "values"),
    (M + "is_zero", "scale negative", lambda: ties.is_zero(0.0, -1.0), "scale"),
    (M + "is_zero", "scale NaN", lambda: ties.is_zero(0.0, np.nan), "scale"),
    (M + "is_zero", "tol NaN", lambda: ties.is_zero(0.0, 1.0, np.nan), "tol"),
]
