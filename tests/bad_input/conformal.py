"""Bad input to the functions of svmtrust.conformal."""

import numpy as np
from svmtrust import conformal

from ._data import nan

M = "svmtrust.conformal."
P = np.full((2, 2), 0.5)

CASES = [
    (M + "region_significance", "neither", lambda: conformal.region_significance(), "significance"),
    (
        M + "region_significance",
        "both",
        lambda: conformal.region_significance(0.1, confidence=0.9),
        "significance",
    ),
    (
        M + "region_significance",
        "above 0.5",
        lambda: conformal.region_significance(0.9),
        "significance",
    ),
    (
        M + "region_significance",
        "confidence low",
        lambda: conformal.region_significance(confidence=0.2),
        "confidence",
    ),
    (
        M + "region_significance",
        "confidence 1",
        lambda: conformal.region_significance(confidence=1.0),
        "confidence",
    ),
    (
        M + "default_validation_size",
        "zero",
        lambda: conformal.default_validation_size(0),
        "n_samples",
    ),
    (
        M + "default_validation_size",
        "float",
        lambda: conformal.default_validation_size(2.7),
        "n_samples",
    ),
    (M + "merge_ties", "scores NaN", lambda: conformal.merge_ties(nan([1.0, 2.0]), 1e-9), "scores"),
    (M + "merge_ties", "tol zero", lambda: conformal.merge_ties([1.0, 2.0], 0.0), "tol"),
    (M + "merge_ties", "tol string", lambda: conformal.merge_ties([1.0, 2.0], "1e-9"), "tol"),
    (M + "p_values", "scores NaN", lambda: conformal.p_values(nan([1.0, 2.0, 3.0]), 1.0), "scores"),
    (
        M + "p_values",
        "new_scores NaN",
        lambda: conformal.p_values([1.0, 2.0], nan([1.0, 2.0])),
        "new_scores",
    ),
    (M + "p_values", "scores empty", lambda: conformal.p_values([], 1.0), "scores"),
    (M + "p_values", "scores strings", lambda: conformal.p_values(["a"], 1.0), "scores"),
    (M + "p_values", "new_scores 2-D", lambda: conformal.p_values([1.0], [[1.0]]), "new_scores"),
    (
        M + "p_values",
        "include_new a string",
        lambda: conformal.p_values([1.0], 1.0, include_new="no"),
        "include_new",
    ),
    (
        M + "p_values",
        "include_new 0",
        lambda: conformal.p_values([1.0], 1.0, include_new=0),
        "include_new",
    ),
    (M + "predict_set", "significance 0", lambda: conformal.predict_set(P, 0.0), "significance"),
    (M + "predict_set", "significance 1", lambda: conformal.predict_set(P, 1.0), "significance"),
    (
        M + "predict_set",
        "significance NaN",
        lambda: conformal.predict_set(P, np.nan),
        "significance",
    ),
    (
        M + "predict_set",
        "significance True",
        lambda: conformal.predict_set(P, True),
        "significance",
    ),
    (
        M + "predict_set",
        "strict a string",
        lambda: conformal.predict_set(P, 0.1, strict="no"),
        "strict",
    ),
    (M + "predict_set", "P NaN", lambda: conformal.predict_set(nan(P), 0.1), "P"),
    (M + "predict_set", "P 1-D", lambda: conformal.predict_set(P[0], 0.1), "P"),
    (
        M + "confidence_credibility",
        "P outside [0,1]",
        lambda: conformal.confidence_credibility(np.array([[1.5, 0.1]])),
        "P",
    ),
    (
        M + "confidence_credibility",
        "P one label",
        lambda: conformal.confidence_credibility(np.array([[0.5]])),
        "P",
    ),
    (M + "confidence_credibility", "P negative", lambda: conformal.confidence_credibility(-P), "P"),
    (
        M + "error_rate",
        "true_index float",
        lambda: conformal.error_rate(P, np.array([0.0, 1.0]), 0.1),
        "true_index",
    ),
    (
        M + "error_rate",
        "true_index out of range",
        lambda: conformal.error_rate(P, np.array([0, 2]), 0.1),
        "true_index",
    ),
    (
        M + "error_rate",
        "true_index negative",
        lambda: conformal.error_rate(P, np.array([0, -1]), 0.1),
        "true_index",
    ),
    (M + "error_rate", "true_index short", lambda: conformal.error_rate(P, [0], 0.1), "true_index"),
    (
        M + "error_rate",
        "true_index booleans",
        lambda: conformal.error_rate(P, np.array([True, False]), 0.1),
        "true_index",
    ),
    (
        M + "error_rate",
        "significance 2",
        lambda: conformal.error_rate(P, [0, 1], 2.0),
        "significance",
    ),
    (
        M + "error_rate",
        "strict 1",
        lambda: conformal.error_rate(P, [0, 1], 0.1, strict=1),
        "strict",
    ),
    (
        M + "p_values",
        "scores strings of numbers",
        lambda: conformal.p_values(["1", "2"], 1.0),
        "scores",
    ),
    (M + "p_values", "scores booleans", lambda: conformal.p_values([True, False], 1.0), "scores"),
    (M + "p_values", "new_scores a string", lambda: conformal.p_values([1.0], "1"), "new_scores"),
    (M + "p_values", "new_scores True", lambda: conformal.p_values([1.0], True), "new_scores"),
    (
        M + "counts_p_values",
        "greater -1",
        lambda: conformal.counts_p_values([-1], [0], 1),
        "greater",
    ),
    (M + "counts_p_values", "ties -1", lambda: conformal.counts_p_values([0], [-1], 1), "ties"),
    (
        M + "counts_p_values",
        "greater + ties above n",
        lambda: conformal.counts_p_values([1], [1], 1),
        "ties",
    ),
    (
        M + "counts_p_values",
        "greater 1.5",
        lambda: conformal.counts_p_values([1.5], [0], 3),
        "greater",
    ),
    (
        M + "counts_p_values",
        "ties NaN",
        lambda: conformal.counts_p_values([0], [np.nan], 3),
        "ties",
    ),
    (
        M + "counts_p_values",
        "greater booleans",
        lambda: conformal.counts_p_values([True], [0], 3),
        "greater",
    ),
    (
        M + "counts_p_values",
        "greater 2-D",
        lambda: conformal.counts_p_values([[0]], [0], 3),
        "greater",
    ),
    (
        M + "counts_p_values",
        "ties short",
        lambda: conformal.counts_p_values([0, 1], [0], 3),
        "ties",
    ),
    (
        M + "calibration_p_values",
        "labels short",
        lambda: conformal.calibration_p_values([1.0, 2.0], np.ones((2, 2)), [0, 0], labels=["a"]),
        "labels",
    ),
    (
        M + "calibration_p_values",
        "test_scores booleans",
        lambda: conformal.calibration_p_values([1.0, 2.0], np.ones((2, 2), dtype=bool)),
        "test_scores",
    ),
]

NO_INPUT = {
    M + "ConformalPrediction": "a result record built by ConformalClassifierMixin.predict_all",
}

CASES += [
    (M + "error_band", "trials zero", lambda: conformal.error_band(0, 0.1), "trials"),
    (M + "error_band", "trials a float", lambda: conformal.error_band(10.5, 0.1), "trials"),
    (M + "error_band", "significance 1", lambda: conformal.error_band(10, 1.0), "significance"),
    (
        M + "error_band",
        "a significance in an array out of range",
        lambda: conformal.error_band([10, 10], [0.1, -0.1]),
        "significance",
    ),
    (M + "error_band", "level 1", lambda: conformal.error_band(10, 0.1, 1.0), "level"),
]
