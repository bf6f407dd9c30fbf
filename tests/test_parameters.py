"""Every parameter an estimator shows does what it says (issue 54).

For every public estimator of the library (every ``BaseEstimator`` a module's ``__all__``
exports, :func:`public_estimators`) and every key of its ``get_params()``, :data:`CHANGES` says
what a change of that one parameter does, and the test checks it on a small problem:

- ``MOVES``: what the fitted estimator computes (its p-values, predictions, and for the
  selectors the table they choose by) differs from the base estimator's;
- ``REFUSED``: ``fit`` raises a ``ValueError`` whose message starts with the parameter's name;
- ``Same(reason, evidence)``: the p-values and predictions are *identical* (a documented
  invariance: the canonical optimum, which does not depend on the solver or on how it is
  reached, or a parameter of speed and memory only), and ``evidence(base, changed)`` shows
  that the parameter reached the fit all the same.

A parameter added to an estimator without an entry here fails
:func:`test_every_parameter_has_an_entry`, so the table cannot fall behind the code. The base
estimators use the polynomial kernel, the one kernel that reads ``gamma``, ``degree`` and
``coef0`` alike, and smoothing with a fixed seed, so that ``smoothing_seed`` matters;
TestMarginSelector's grid holds one model twice, so that its random tie-break (``seed``) has ties to break.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import svmtrust
from sklearn.base import BaseEstimator, clone
from svmtrust.nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from svmtrust.pipeline import ConformalPipeline
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM
from svmtrust.venn_abers_svm import VennAbersSVM

MOVES = "moves"
REFUSED = "refused"


@dataclass(frozen=True)
class Same:
    """A change documented to leave every p-value and prediction as it is."""

    reason: str
    evidence: Callable | None = None


def _problem():
    """Two overlapping classes of 20 in three features, mirrored (``x -> -x`` with the labels
    swapped: under the odd polynomial kernel of the base estimators many test points then get
    the same p-value under both labels, ties for ``tie_break`` to decide), and test points: 9
    among the data and 6 training rows (which tie with themselves in the selectors'
    validation sets)."""
    rng = np.random.default_rng(54)
    half = rng.normal(0.6, 1.0, (20, 3))
    X = np.vstack([half, -half])
    y = np.repeat([1, 0], 20)
    y[[3, 7]] = 0
    y[[23, 27]] = 1  # the labels of -x are the swapped labels of x
    test = np.vstack([rng.normal(0.0, 1.2, (9, 3)), X[:6]])
    return X, y, test


X, Y, TEST = _problem()
GRID = dict(gammas=(0.1, 1.0), Cs=(0.5, 8.0))
POLY = dict(kernel="poly", gamma=0.3, C=1.0, smoothing=True, smoothing_seed=0)


def _solvers(model) -> set:
    """Which solvers produced the fitted SVMs' multipliers."""
    svms = getattr(model, "svms_", None) or getattr(model, "base_", None)
    if svms is None:  # cross-conformal: one proper SVM set per fold
        svms = [s for fold in model.models_ for s in fold.svms]
    return {s.solver for s in svms}


def _joint_refused(model, changed) -> bool:
    """``max_joint = 2`` refuses three test points jointly; the default takes them."""
    model.solve_joint(TEST[:3])
    with pytest.raises(ValueError, match="above max_joint = 2"):
        changed.solve_joint(TEST[:3])
    return True


def _backend(model, changed) -> bool:
    return model.algorithm_ != changed.algorithm_


#: What every SVM machine's kernel, box, solver and smoothing parameters do.
SVM_CHANGES = {
    "kernel": ("rbf", MOVES),
    "C": (0.05, MOVES),
    "solver": (
        "cvxpy",
        Same(
            "the canonical optimum, the same point from either solver",
            lambda a, b: _solvers(a) == {"libsvm"} and _solvers(b) == {"cvxpy"},
        ),
    ),
    "mondrian": (True, MOVES),
    "gamma": (1.0, MOVES),
    "degree": (2, MOVES),
    "coef0": (1.0, MOVES),
    "smoothing": (False, MOVES),
    "smoothing_seed": (1, MOVES),
}
#: What the full machines' ``method`` does.
METHOD = (
    "retrain",
    Same(
        "both methods reach the canonical optimum of the augmented set",
        lambda a, b: hasattr(a, "incremental_") and not hasattr(b, "incremental_"),
    ),
)
#: What a fixed split's parameters do.
SPLIT_CHANGES = {"calibration_size": (0.5, MOVES), "seed": (1, MOVES)}

#: The base estimator of each class and, for each parameter, (new value, what it does).
CHANGES = {
    SplitConformalSVM: (
        SplitConformalSVM(**POLY),
        {**SVM_CHANGES, **SPLIT_CHANGES, "convention": ("hardoon", MOVES)},
    ),
    CrossConformalSVM: (
        CrossConformalSVM(**POLY),
        {**SVM_CHANGES, "n_folds": (3, MOVES), "seed": (1, MOVES)},
    ),
    DistanceTCM: (DistanceTCM(**POLY), {**SVM_CHANGES, "method": METHOD}),
    TransductiveSVM: (
        TransductiveSVM(**POLY),
        {
            **SVM_CHANGES,
            "method": METHOD,
            "max_joint": (2, Same("a limit of solve_joint only", _joint_refused)),
            "reuse_outside_margin": (False, REFUSED),
            "tie_break": ("first", MOVES),
        },
    ),
    VennAbersSVM: (
        VennAbersSVM(kernel="poly", gamma=0.3, C=1.0),
        {
            **{k: SVM_CHANGES[k] for k in ("kernel", "C", "solver", "gamma", "degree", "coef0")},
            "predictor": ("cross", MOVES),
            "merge": ("brier", MOVES),
            "calibration_size": (0.5, MOVES),
            "seed": (1, MOVES),
            "n_folds": (3, REFUSED),  # read by the cross predictor only
            "method": ("retrain", REFUSED),  # read by the full predictor only
        },
    ),
    TCMNearestNeighbours: (
        TCMNearestNeighbours(smoothing=True, smoothing_seed=0),
        {
            "k": (3, MOVES),
            "block_size": (3, Same("how many test rows are scored at a time: memory only")),
            "n_jobs": (2, Same("threads over blocks of test rows, each row scored alone")),
            "algorithm": ("fast", Same("a second backend of the same ratio (eq. (2))", _backend)),
            "smoothing": (False, MOVES),
            "smoothing_seed": (1, MOVES),
        },
    ),
    SplitConformalNearestNeighbours: (
        SplitConformalNearestNeighbours(smoothing=True, smoothing_seed=0),
        {
            **SPLIT_CHANGES,
            "k": (3, MOVES),
            "mondrian": (True, MOVES),
            "smoothing": (False, MOVES),
            "smoothing_seed": (1, MOVES),
        },
    ),
    NonconformityModelSelector: (
        NonconformityModelSelector(**GRID, smoothing=True, smoothing_seed=0),
        {
            "gammas": ((0.1, 8.0), MOVES),
            "Cs": ((0.5, 64.0), MOVES),
            "seed": (1, MOVES),
            "validation_size": (20, MOVES),
            "tie_break": ("credibility", MOVES),
            "smoothing": (False, MOVES),
            "smoothing_seed": (1, MOVES),
        },
    ),
    CrossValidationSelector: (
        CrossValidationSelector(**GRID),
        {
            "gammas": ((0.1, 8.0), MOVES),
            "Cs": ((0.5, 64.0), MOVES),
            "folds": (3, MOVES),
            "seed": (1, MOVES),
        },
    ),
    TestMarginSelector: (
        TestMarginSelector(gammas=GRID["gammas"], Cs=(0.5, 8.0, 8.0)),  # two models tie
        {
            "gammas": ((0.1, 8.0), MOVES),
            "Cs": ((0.5, 64.0), MOVES),
            "seed": (1, MOVES),
            "margin": ("geometric", MOVES),
        },
    ),
}

#: Public estimators not in :data:`CHANGES`, each with the reason.
NOT_HERE = {
    ConformalPipeline: "scikit-learn's Pipeline: its parameters are its steps' parameters",
}


def public_estimators() -> set:
    """Every ``BaseEstimator`` subclass that a module of svmtrust exports in ``__all__``."""
    found = set()
    for info in pkgutil.walk_packages(svmtrust.__path__, "svmtrust."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isclass(value) and issubclass(value, BaseEstimator):
                found.add(value)
    return found


def outputs(model) -> dict:
    """What a fitted estimator computes on :data:`TEST`, and the table a selector chose by."""
    found = {"predict": model.predict(TEST)}
    if hasattr(model, "predict_pairs"):
        found["predict_pairs"] = np.array(model.predict_pairs(TEST))
    for method in ("predict_p", "predict_proba", "chosen_model"):
        if hasattr(model, method):
            found[method] = getattr(model, method)(TEST)
    for table in ("cv_errors_", "validation_margins_"):
        if hasattr(model, table):
            found[table] = getattr(model, table)
    return found


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_every_estimator_is_here():
    assert public_estimators() == set(CHANGES) | set(NOT_HERE)


@pytest.mark.parametrize("cls", list(CHANGES), ids=lambda c: c.__name__)
def test_every_parameter_has_an_entry(cls):
    base, changes = CHANGES[cls]
    assert sorted(changes) == sorted(base.get_params())


CASES = [
    pytest.param(cls, name, id=f"{cls.__name__}-{name}")
    for cls, (_, changes) in CHANGES.items()
    for name in changes
]
_BASES: dict = {}


def _fitted_base(cls):
    """The base estimator of ``cls``, fitted once and its outputs computed once."""
    if cls not in _BASES:
        model = clone(CHANGES[cls][0]).fit(X, Y)
        _BASES[cls] = (model, outputs(model))
    return _BASES[cls]


@pytest.mark.parametrize("cls, name", CASES)
def test_a_changed_parameter_does_what_it_says(cls, name):
    base, changes = CHANGES[cls]
    value, effect = changes[name]
    assert base.get_params()[name] != value
    changed = clone(base).set_params(**{name: value})
    if effect == REFUSED:
        with pytest.raises(ValueError, match=f"^{name}:"):
            changed.fit(X, Y)
        return
    fitted, expected = _fitted_base(cls)
    changed.fit(X, Y)
    if effect == MOVES:
        assert not _same(outputs(changed), expected)
    else:
        assert _same(outputs(changed), expected), effect.reason
        if effect.evidence is not None:
            assert effect.evidence(fitted, changed)


@pytest.mark.parametrize(
    "cls", [SplitConformalSVM, CrossConformalSVM, DistanceTCM, TransductiveSVM]
)
@pytest.mark.parametrize(
    "kernel, name, value",
    [
        ("rbf", "degree", 2),
        ("rbf", "coef0", 1.0),
        ("linear", "gamma", 0.5),
        (lambda A, B=None: A @ (A if B is None else B).T, "gamma", 0.5),
    ],
)
def test_a_parameter_the_kernel_does_not_read_is_refused(cls, kernel, name, value):
    """``SVC`` ignores them; here a value that would change nothing is refused, naming it."""
    with pytest.raises(ValueError, match=f"^{name}: the .* kernel does not read it"):
        cls(kernel=kernel, **{name: value}).fit(X, Y)


@pytest.mark.parametrize("cls", [SplitConformalSVM, CrossConformalSVM, DistanceTCM])
def test_gamma_is_searched(cls):
    """Two values of ``gamma`` give two sets of p-values under the default kernel (the old
    default, a function with gamma 1, gave the same p-values for every ``gamma``)."""
    small = cls(gamma=0.001).fit(X, Y).predict_p(TEST)
    large = cls(gamma=100.0).fit(X, Y).predict_p(TEST)
    assert not np.array_equal(small, large)


def test_gamma_scale_on_data_it_cannot_scale_names_the_cause():
    with pytest.raises(ValueError, match=r"^gamma: 'scale' is 1 / \(d Var\(X\)\), and Var"):
        SplitConformalSVM().fit(X * 1e200, Y)


@pytest.mark.parametrize("cls", [TransductiveSVM, DistanceTCM])
def test_the_full_machines_keep_their_own_copy_of_the_training_set(cls):
    """Overwriting the caller's array after ``fit`` leaves the p-values as they were."""
    data = X.copy()
    model = cls().fit(data, Y)
    before = model.predict_p(TEST)
    data[:] = 0.0
    np.testing.assert_array_equal(model.predict_p(TEST), before)
