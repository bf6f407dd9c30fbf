"""scikit-learn's estimator checks on the library's estimators (issue 13).

Each estimator runs every check of ``parametrize_with_checks`` on an instance small enough to
keep the checks fast: a two-point grid for the selectors, an RBF kernel and a soft margin for
the transductive SVM (the paper's hard margin, the default, has no solution on the checks'
overlapping data, and a linear kernel leaves most multipliers tied at C, which the checks'
accuracy floor of 0.83 on three blobs does not survive). ``EXPECTED_FAILURES`` lists the checks
an estimator is known to fail, each with its reason; today there are none.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    parametrize_with_checks,
)
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM
from svmtrust.venn_abers_svm import VennAbersSVM

GRID = dict(gammas=(0.5, 2.0), Cs=(1.0, 10.0))


class RBF:
    """:func:`rbf_kernel` (gamma 1) with a repr free of memory addresses, for stable test ids."""

    def __call__(self, X, Z=None):
        return rbf_kernel(X, Z)

    def __repr__(self):
        return "rbf_kernel"


ESTIMATORS = [
    TransductiveSVM(kernel=RBF(), C=10.0),
    NonconformityModelSelector(**GRID),
    CrossValidationSelector(**GRID),  # folds=10, capped at the smaller class
    TestMarginSelector(**GRID),
    VennAbersSVM(C=10.0, predictor="inductive"),
    VennAbersSVM(C=10.0, predictor="cross"),
    VennAbersSVM(C=10.0, predictor="full"),
]

#: Checks an estimator is known to fail, by class name: {check name: one-line reason}.
EXPECTED_FAILURES = {type(e).__name__: {} for e in ESTIMATORS}


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=lambda e: EXPECTED_FAILURES[type(e).__name__]
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_unfitted_estimator_names_fit(estimator):
    """NotFittedError, with the project's message (argument first), from predict."""
    with pytest.raises(NotFittedError, match=r"^X: this \w+ instance is not fitted yet"):
        estimator.predict(np.zeros((2, 2)))


def _relabel(y, labels):
    """``y`` in {-1, +1} written with ``labels[0]`` for -1 and ``labels[1]`` for +1."""
    return np.asarray(labels)[(y > 0).astype(int)]


@pytest.mark.parametrize("estimator", ESTIMATORS[1:], ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("labels", [("neg", "pos"), (0, 1), (7, -2)])
def test_selectors_encode_any_two_labels(estimator, labels):
    """Any two labels give the models of {-1, +1}: the sorted first label plays -1."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=60) > 0, 1.0, -1.0)
    signed = estimator.fit(X, y).predict(X)
    ordered = sorted(labels)
    relabelled = estimator.fit(X, _relabel(y, ordered))
    assert relabelled.classes_.tolist() == ordered
    assert np.array_equal(relabelled.predict(X), _relabel(signed, ordered))
    assert len(set(signed)) == 2  # both labels are predicted, so the mapping is tested


# --------------------------------------------------------------------------- pandas DataFrames

#: Every estimator of the package, the conformal ones with ``predict_p``/``predict_set``.
ALL_ESTIMATORS = [
    *ESTIMATORS,
    TCMNearestNeighbours(k=1),
    SplitConformalSVM(kernel=RBF()),
    CrossConformalSVM(kernel=RBF(), n_folds=3),
    SplitConformalNearestNeighbours(k=1),
]


@pytest.mark.parametrize(
    "estimator",
    [
        e
        for e in ALL_ESTIMATORS
        if not isinstance(e, TransductiveSVM) and getattr(e, "predictor", None) != "full"
    ],
    ids=lambda e: type(e).__name__,
)
def test_dataframe_column_names_consistency(estimator):
    """scikit-learn's own check (not among those ``parametrize_with_checks`` runs): fitted on
    a DataFrame, the estimator keeps ``feature_names_in_``, predicts on the same columns
    without a warning and refuses other names. (The check's ``score`` of the transductive
    SVM, one solve per candidate labelling, takes a good half-minute; the test below covers
    its methods on a DataFrame. The full Venn-ABERS predictor, two SVMs per test object and
    class, takes as long; the inductive and cross ones run the same code on DataFrames.)"""
    check_dataframe_column_names_consistency(type(estimator).__name__, clone(estimator))


def _conformal_calls(estimator):
    """The public methods that take test points, as ``name -> f(X)``."""
    calls = {
        name: getattr(estimator, name)
        for name in ("predict", "predict_p", "predict_confidence", "predict_p_all", "bound")
        if hasattr(estimator, name)
    }
    if hasattr(estimator, "predict_set"):
        calls["predict_set"] = lambda X: estimator.predict_set(X, 0.1)
    if hasattr(estimator, "epsilon_crit_"):
        calls["epsilon_crit_"] = estimator.epsilon_crit_
    return calls


CONFORMAL = [e for e in ALL_ESTIMATORS if hasattr(e, "predict_p")]


@pytest.mark.parametrize("estimator", CONFORMAL, ids=lambda e: type(e).__name__)
def test_conformal_methods_on_dataframes(estimator):
    """With the columns of ``fit`` no method warns (NonconformityModelSelector used to check
    ``X`` twice and warn "X does not have valid feature names" on every call); an array
    without names warns, as in scikit-learn, and gives the same answers."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(60, 2)), columns=["height", "weight"])
    y = np.where(X["height"] + 0.5 * rng.normal(size=60) > 0, "tall", "short")
    model = clone(estimator).fit(X, y)
    assert model.feature_names_in_.tolist() == ["height", "weight"]
    test = X.iloc[:7]
    for name, call in _conformal_calls(model).items():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            named = call(test)
        with pytest.warns(UserWarning, match="does not have valid feature names"):
            unnamed = call(test.to_numpy())
        for a, b in zip(np.atleast_1d(named), np.atleast_1d(unnamed)):
            assert np.array_equal(a, b), name
        with pytest.raises(ValueError, match="(?s)^X: .*Feature names"):
            call(test.rename(columns={"weight": "mass"}))


# --------------------------------------------------------------------------- the README

README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_blocks() -> list[tuple[str, str]]:
    """The README's ```python blocks, each with the ```text block shown as its output ("")."""
    pattern = r"```python\n(.*?)```(?:\n\nprints\n\n```text\n(.*?)```)?"
    return re.findall(pattern, README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_code_runs_and_prints_what_it_shows(capsys):
    """Every python block of the README runs, without a warning, and the quick start prints
    exactly the output the README shows under it, so the README cannot fall behind."""
    blocks = _readme_blocks()
    assert sum(1 for _, shown in blocks if shown) == 1  # the quick start
    assert any("predict_set" in code and "pipe.predict_p" in code for code, _ in blocks)
    for code, shown in blocks:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exec(compile(code, str(README), "exec"), {"__name__": "readme"})
        printed = capsys.readouterr().out
        if shown:
            assert printed == shown


def test_named_kernels_as_in_svc_and_a_grid_search_over_gamma():
    """kernel="rbf" with gamma gives the p-values of the same kernel passed as a function, for
    the three SVM machines; GridSearchCV searches gamma directly; "scale" is 1 / (d Var X)."""
    import functools

    from sklearn.model_selection import GridSearchCV
    from svmtrust.kernels import named_kernel, rbf_kernel
    from svmtrust.split_conformal import SplitConformalSVM
    from svmtrust.svm_distance import DistanceTCM
    from svmtrust.transduction import TransductiveSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)
    for machine in (TransductiveSVM, DistanceTCM, SplitConformalSVM):
        named = machine(kernel="rbf", gamma=0.5, C=1.0).fit(X[:30], y[:30])
        given = machine(kernel=functools.partial(rbf_kernel, gamma=0.5), C=1.0).fit(X[:30], y[:30])
        np.testing.assert_array_equal(named.predict_p(X[30:]), given.predict_p(X[30:]))
    scale = named_kernel("rbf", X, gamma="scale").keywords["gamma"]
    assert scale == pytest.approx(1.0 / (3 * X.var()))
    search = GridSearchCV(DistanceTCM(kernel="rbf", C=1.0), {"gamma": [0.1, 1.0]}, cv=3)
    assert search.fit(X, y).best_params_["gamma"] in (0.1, 1.0)
    poly = named_kernel("poly", X, gamma=1.0, degree=2, coef0=1.0)
    np.testing.assert_allclose(poly(X[:2], X[2:4]), (X[:2] @ X[2:4].T + 1.0) ** 2)
