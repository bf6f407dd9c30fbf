"""Bad input to svmtrust.pipeline."""

import numpy as np
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from svmtrust import pipeline
from svmtrust.tcm_nn import TCMNearestNeighbours

from ._data import nan

M = "svmtrust.pipeline."


def _fitted(*transformers):
    X = np.r_[np.zeros((3, 2)), np.ones((3, 2))] + np.arange(6)[:, None] * 0.01
    model = pipeline.make_conformal_pipeline(*transformers, TCMNearestNeighbours())
    return model.fit(X, np.repeat([0, 1], 3))


CASES = [
    (M + "make_conformal_pipeline", "no step", lambda: pipeline.make_conformal_pipeline(), "steps"),
    (
        M + "make_conformal_pipeline",
        "last step not conformal",
        lambda: pipeline.make_conformal_pipeline(StandardScaler(), SVC()),
        "steps",
    ),
    (
        M + "ConformalPipeline",
        "significance above 0.5",
        lambda: _fitted(StandardScaler()).predict_set(np.zeros((1, 2)), 0.9),
        "significance",
    ),
    (
        M + "ConformalPipeline",
        "NaN in X (the machine alone)",
        lambda: _fitted().predict_p(nan(np.zeros((1, 2)))),
        "X",
    ),
    (
        M + "ConformalPipeline",
        "wrong number of features",
        lambda: _fitted().predict_confidence(np.zeros((1, 3))),
        "X",
    ),
]
