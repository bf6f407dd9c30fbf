"""Bad input to svmtrust.venn_abers: scores, labels, tolerances and pairs."""

import numpy as np
from svmtrust import venn_abers

M = "svmtrust.venn_abers."
CAL, LAB = np.array([0.1, 0.4, 0.4, 0.9]), np.array([0, 1, 0, 1])

CASES = [
    (
        M + "calibration_table",
        "cal_scores NaN",
        lambda: venn_abers.calibration_table([np.nan, 1.0], [0, 1]),
        "cal_scores",
    ),
    (
        M + "calibration_table",
        "cal_scores empty",
        lambda: venn_abers.calibration_table([], []),
        "cal_scores",
    ),
    (
        M + "calibration_table",
        "cal_scores 2-D",
        lambda: venn_abers.calibration_table(np.ones((2, 2)), [0, 1]),
        "cal_scores",
    ),
    (
        M + "calibration_table",
        "cal_labels -1 and +1",
        lambda: venn_abers.calibration_table(CAL, [-1, 1, -1, 1]),
        "cal_labels",
    ),
    (
        M + "calibration_table",
        "cal_labels too few",
        lambda: venn_abers.calibration_table(CAL, [0, 1]),
        "cal_labels",
    ),
    (
        M + "calibration_table",
        "tie_tol negative",
        lambda: venn_abers.calibration_table(CAL, LAB, -1.0),
        "tie_tol",
    ),
    (
        M + "venn_abers_pairs",
        "test_scores inf",
        lambda: venn_abers.venn_abers_pairs(CAL, LAB, [np.inf]),
        "test_scores",
    ),
    (
        M + "venn_abers_pairs",
        "test_scores a string",
        lambda: venn_abers.venn_abers_pairs(CAL, LAB, "x"),
        "test_scores",
    ),
    (
        M + "venn_abers_pairs",
        "cal_labels strings",
        lambda: venn_abers.venn_abers_pairs(CAL, ["a"] * 4, [0.5]),
        "cal_labels",
    ),
    (
        M + "cross_merge",
        "loss unknown",
        lambda: venn_abers.cross_merge([[0.2]], [[0.4]], loss="hinge"),
        "loss",
    ),
    (
        M + "isotonic_at_last",
        "labels too few",
        lambda: venn_abers.isotonic_at_last([0.1, 0.2], [1]),
        "labels",
    ),
    (M + "isotonic_at_last", "scores empty", lambda: venn_abers.isotonic_at_last([], []), "scores"),
    (M + "log_loss_merge", "p1 above 1", lambda: venn_abers.log_loss_merge([0.5], [1.5]), "p1"),
    (
        M + "log_loss_merge",
        "p1 of another shape",
        lambda: venn_abers.log_loss_merge([0.1, 0.2], [0.5]),
        "p1",
    ),
    (M + "brier_merge", "p0 NaN", lambda: venn_abers.brier_merge([np.nan], [0.5]), "p0"),
    (M + "brier_merge", "p1 a string", lambda: venn_abers.brier_merge([0.1], ["x"]), "p1"),
    (
        M + "cross_merge",
        "one fold as a 1-D array",
        lambda: venn_abers.cross_merge([0.1, 0.2], [0.3, 0.4]),
        "p0",
    ),
    (M + "cross_merge", "p0 negative", lambda: venn_abers.cross_merge([[-0.1]], [[0.3]]), "p0"),
]
