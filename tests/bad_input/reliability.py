"""Bad input to svmtrust.reliability: forecasts, outcomes, the score, eps and the band's
resampling."""

import numpy as np
from svmtrust import reliability

M = "svmtrust.reliability."
X, Y = np.array([0.1, 0.4, 0.4, 0.9]), np.array([0, 1, 0, 1])

CASES = [
    (
        M + "corp_curve",
        "forecasts NaN",
        lambda: reliability.corp_curve([np.nan, 0.5], [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "forecasts inf",
        lambda: reliability.corp_curve([np.inf, 0.5], [0, 1]),
        "forecasts",
    ),
    (M + "corp_curve", "forecasts empty", lambda: reliability.corp_curve([], []), "forecasts"),
    (
        M + "corp_curve",
        "forecasts 2-D",
        lambda: reliability.corp_curve(np.full((2, 2), 0.5), [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "forecasts above 1",
        lambda: reliability.corp_curve([1.5, 0.5], [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "forecasts negative",
        lambda: reliability.corp_curve([-0.1, 0.5], [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "forecasts strings",
        lambda: reliability.corp_curve(["0.1", "0.5"], [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "forecasts booleans",
        lambda: reliability.corp_curve([True, False], [0, 1]),
        "forecasts",
    ),
    (
        M + "corp_curve",
        "outcomes -1 and +1",
        lambda: reliability.corp_curve(X, [-1, 1, -1, 1]),
        "outcomes",
    ),
    (M + "corp_curve", "outcomes too few", lambda: reliability.corp_curve(X, [0, 1]), "outcomes"),
    (
        M + "corp_curve",
        "outcomes NaN",
        lambda: reliability.corp_curve(X, [0, 1, np.nan, 1]),
        "outcomes",
    ),
    (M + "corp_curve", "outcomes 2-D", lambda: reliability.corp_curve(X, [Y]), "outcomes"),
    (
        M + "brier_score",
        "outcomes probabilities",
        lambda: reliability.brier_score(X, X),
        "outcomes",
    ),
    (
        M + "brier_score",
        "forecasts a string",
        lambda: reliability.brier_score("x", [1]),
        "forecasts",
    ),
    (M + "log_loss", "outcomes strings", lambda: reliability.log_loss(X, ["a"] * 4), "outcomes"),
    (M + "log_loss", "forecasts above 1", lambda: reliability.log_loss([2.0], [1]), "forecasts"),
    (M + "log_loss", "eps 0", lambda: reliability.log_loss(X, Y, eps=0.0), "eps"),
    (M + "log_loss", "eps 0.5", lambda: reliability.log_loss(X, Y, eps=0.5), "eps"),
    (M + "log_loss", "eps NaN", lambda: reliability.log_loss(X, Y, eps=np.nan), "eps"),
    (M + "log_loss", "eps a string", lambda: reliability.log_loss(X, Y, eps="1e-15"), "eps"),
    (
        M + "score_decomposition",
        "score unknown",
        lambda: reliability.score_decomposition(X, Y, "crps"),
        "score",
    ),
    (
        M + "score_decomposition",
        "score not a string",
        lambda: reliability.score_decomposition(X, Y, 1),
        "score",
    ),
    (
        M + "score_decomposition",
        "eps negative",
        lambda: reliability.score_decomposition(X, Y, "log", -1.0),
        "eps",
    ),
    (
        M + "score_decomposition",
        "outcomes 2",
        lambda: reliability.score_decomposition(X, [0, 2, 0, 1]),
        "outcomes",
    ),
    (
        M + "score_decomposition",
        "forecasts NaN",
        lambda: reliability.score_decomposition([np.nan], [1]),
        "forecasts",
    ),
    (
        M + "consistency_band",
        "forecasts inf",
        lambda: reliability.consistency_band([np.inf]),
        "forecasts",
    ),
    (
        M + "consistency_band",
        "forecasts above 1",
        lambda: reliability.consistency_band([1.2]),
        "forecasts",
    ),
    (
        M + "consistency_band",
        "n_resamples 0",
        lambda: reliability.consistency_band(X, 0),
        "n_resamples",
    ),
    (
        M + "consistency_band",
        "n_resamples a float",
        lambda: reliability.consistency_band(X, 10.0),
        "n_resamples",
    ),
    (M + "consistency_band", "level 1", lambda: reliability.consistency_band(X, 10, 1.0), "level"),
    (M + "consistency_band", "level 0", lambda: reliability.consistency_band(X, 10, 0.0), "level"),
    (
        M + "consistency_band",
        "seed negative",
        lambda: reliability.consistency_band(X, 10, 0.9, -1),
        "seed",
    ),
    (
        M + "consistency_band",
        "seed a string",
        lambda: reliability.consistency_band(X, 10, 0.9, "0"),
        "seed",
    ),
    (
        M + "consistency_band",
        "seed a legacy RandomState",
        lambda: reliability.consistency_band(X, 10, 0.9, np.random.RandomState(0)),
        "seed",
    ),
]
