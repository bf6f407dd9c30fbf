"""ConformalPipeline: preprocessing in front of a confidence machine, its p-values in reach."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from svmtrust.pipeline import ConformalPipeline, make_conformal_pipeline
from svmtrust.split_conformal import SplitConformalSVM
from svmtrust.tcm_nn import TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (25, 3)), rng.normal(1.5, 1, (25, 3))]) * [1.0, 50.0, 0.1]
    return X, np.repeat(["a", "b"], 25), rng.normal(0.75, 1, (6, 3)) * [1.0, 50.0, 0.1]


@pytest.mark.parametrize(
    "machine",
    [
        TransductiveSVM(kernel="rbf", C=10.0),
        SplitConformalSVM(kernel="rbf"),
        TCMNearestNeighbours(),
    ],
)
def test_forwards_to_the_machine_on_transformed_data(machine):
    X, y, new = _data()
    pipe = make_conformal_pipeline(StandardScaler(), machine).fit(X, y)
    scaler = StandardScaler().fit(X)
    alone = clone(machine).fit(scaler.transform(X), y)
    Z = scaler.transform(new)
    np.testing.assert_array_equal(pipe.predict_p(new), alone.predict_p(Z))
    np.testing.assert_array_equal(pipe.predict_set(new, 0.2), alone.predict_set(Z, 0.2))
    np.testing.assert_array_equal(
        pipe.predict_set(new, confidence=0.8), alone.predict_set(Z, confidence=0.8)
    )
    for ours, theirs in zip(pipe.predict_confidence(new), alone.predict_confidence(Z)):
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(pipe.predict(new), alone.predict(Z))
    ours, theirs = pipe.predict_all(new, 0.2), alone.predict_all(Z, confidence=0.8)
    for field in ("p_values", "labels", "confidence", "credibility", "regions"):
        np.testing.assert_array_equal(getattr(ours, field), getattr(theirs, field))


def test_a_machine_alone_and_the_step_names():
    X, y, new = _data()
    machine = TransductiveSVM(kernel="rbf", C=10.0)
    pipe = ConformalPipeline([("tsvm", machine)]).fit(X, y)
    np.testing.assert_array_equal(pipe.predict_p(new), clone(machine).fit(X, y).predict_p(new))
    names = [name for name, _ in make_conformal_pipeline(StandardScaler(), machine).steps]
    assert names == ["standardscaler", "transductivesvm"]


def test_methods_exist_only_for_a_conformal_last_step():
    pipe = ConformalPipeline([("scaler", StandardScaler()), ("svc", SVC())])
    assert not hasattr(pipe, "predict_p")
    assert not hasattr(pipe, "predict_set")
    assert hasattr(make_conformal_pipeline(StandardScaler(), TCMNearestNeighbours()), "predict_p")
    # scikit-learn's own Pipeline does not forward them: the reason this class exists
    assert not hasattr(make_pipeline(StandardScaler(), TCMNearestNeighbours()), "predict_p")


def test_grid_search_over_the_machine_keeps_the_p_values():
    X, y, new = _data()
    pipe = make_conformal_pipeline(StandardScaler(), TransductiveSVM(kernel="rbf", C=10.0))
    search = GridSearchCV(pipe, {"transductivesvm__gamma": [0.1, 1.0]}, cv=3).fit(X, y)
    best = search.best_estimator_
    assert isinstance(best, ConformalPipeline)
    P = best.predict_p(new)
    assert P.shape == (6, 2) and np.all((P > 0) & (P <= 1))
    assert clone(pipe).get_params()["transductivesvm__C"] == 10.0


def test_unfitted_and_bad_levels_raise():
    X, y, new = _data()
    pipe = make_conformal_pipeline(StandardScaler(), TCMNearestNeighbours())
    with pytest.raises(Exception, match="not fitted"):
        pipe.predict_p(new)
    pipe.fit(X, y)
    with pytest.raises(ValueError, match="significance"):
        pipe.predict_set(new, 0.9)
