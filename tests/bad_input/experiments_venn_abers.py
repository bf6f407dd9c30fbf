"""Bad input to the protocol of the chapter "Probabilities you can trust",
svmtrust.experiments.venn_abers: its runs, stages and tables."""

import numpy as np
import pandas as pd
from svmtrust.experiments import venn_abers as va

EMPTY = pd.DataFrame()
RNG = np.random.default_rng(0)
ROWS = pd.DataFrame(
    {
        "stage": "trial",
        "data": "a",
        "machine": ["Platt", "IVAP"],
        "trial": 0,
        "true": 1,
        "n_classes": 2,
        "q0": 0.2,
        "q1": 0.8,
        "v0": [np.nan, 0.3],
        "v1": [np.nan, 0.7],
    }
)
M = "svmtrust.experiments.venn_abers."

CASES = [
    (M + "run", "scale unknown", lambda: va.run(scale="huge"), "scale"),
    (M + "run", "seed negative", lambda: va.run(seed=-1), "seed"),
    (M + "run", "n_jobs zero", lambda: va.run(n_jobs=0), "n_jobs"),
    (M + "tasks", "scale unknown", lambda: va.tasks("huge"), "scale"),
    (M + "machines", "gamma negative", lambda: va.machines(-1.0, 10.0, 0), "gamma"),
    (M + "machines", "C zero", lambda: va.machines(1.0, 0.0, 0), "C"),
    (M + "fit_machine", "not a machine", lambda: va.fit_machine("svm", None, None), "model"),
    (M + "trial_sizes", "unknown set", lambda: va.trial_sizes("nope", 100, 50), "name"),
    (M + "trial_sizes", "n_train zero", lambda: va.trial_sizes("pima", 0, 50), "n_train"),
    (
        M + "draw_sets",
        "n_train below 5 a class",
        lambda: va.draw_sets("iris", 14, 5, RNG),
        "n_train",
    ),
    (M + "draw_sets", "n_test too large", lambda: va.draw_sets("iris", 50, 500, RNG), "n_test"),
    (M + "evaluate", "train outside", lambda: va.evaluate("iris", [10**6], [0], 0), "train"),
    (M + "widths", "calibration zero", lambda: va.widths("pima", 50, 0, 5, RNG), "calibration"),
    (M + "costs", "repeats zero", lambda: va.costs("satimage", 50, 5, 0, RNG), "repeats"),
    (M + "example_scores", "empty", lambda: va.example_scores(EMPTY), "rows"),
    (M + "score_table", "empty", lambda: va.score_table(EMPTY), "rows"),
    (M + "example_scores", "stage unknown", lambda: va.example_scores(ROWS, "cost"), "stage"),
    (M + "box_table", "no C rows", lambda: va.box_table(ROWS), "rows"),
    (M + "differences", "unknown reference", lambda: va.differences(ROWS, "Nope"), "reference"),
    (M + "verdicts", "level 2", lambda: va.verdicts(ROWS, level=2.0), "level"),
    (M + "validity", "paired a string", lambda: va.validity(ROWS, paired="IVAP"), "paired"),
    (M + "validity", "no paired machine", lambda: va.validity(ROWS, paired=["CVAP"]), "rows"),
    (M + "reliability", "unknown score", lambda: va.reliability(ROWS, "spherical"), "score"),
    (M + "width_table", "no width rows", lambda: va.width_table(ROWS), "rows"),
    (M + "cost_table", "no cost rows", lambda: va.cost_table(ROWS), "rows"),
    (M + "summary", "empty", lambda: va.summary(EMPTY), "rows"),
]
