"""The incremental SVM (issue 26): one example added to a trained SVM gives the canonical optimum
of the augmented set, the multipliers :func:`svmtrust.svm.fit_svm` returns when it retrains, and
the conformal machines built on it give the p-values of retraining.

Checked against retraining from scratch (libsvm and its canonical step) on random, degenerate
(``w = 0``, duplicated rows, a test object equal to a training object, an empty margin set)
and hard-margin problems; each route of :data:`svmtrust.incremental_svm.ROUTES` is reached.
"""

from __future__ import annotations

import functools
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from svmtrust.incremental_svm import Additions, IncrementalSVM
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.svm import SolveError, fit_svm
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM

#: Multipliers of the two routes agree to this fraction of max(1, max(alpha)).
ALPHA_TOL = 1e-9


def _compare(K, y, C, label, solver="libsvm"):
    """Add the last example of ``K`` to the SVM of the others and retrain; return both."""
    n = y.size
    base = fit_svm(K[:n, :n], y, C, solver, check_kernel=False)
    added = IncrementalSVM(K[:n, :n], base, solver).add(K[:n, n], K[n, n], label)
    retrained = fit_svm(K, np.r_[y, label], C, solver, check_kernel=False)
    return added, retrained


def _assert_same(added, retrained, K):
    sol, ref = added.solution, retrained
    scale = max(1.0, float(np.max(ref.alpha)))
    assert np.max(np.abs(sol.alpha - ref.alpha)) <= ALPHA_TOL * scale
    assert abs(sol.b - ref.b) <= 1e-8 * scale
    assert abs(sol.objective - ref.objective) <= 1e-8 * max(1.0, abs(ref.objective))
    assert np.array_equal(sol.free, ref.free)
    assert np.array_equal(sol.bounded, ref.bounded)
    assert sol.exact and ref.exact
    # the decision values the machine ranks are those of the augmented Gram matrix
    assert np.allclose(added.decision, K @ ref.coef + ref.b, rtol=0, atol=1e-8 * scale)


def _problem(seed, n, kernel, separable=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n + 1, 3))
    y = np.where(X[:, 0] + (0.0 if separable else 0.7) * rng.normal(size=n + 1) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    return kernel(X, X), y[:n]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(8, 60),
    C=st.sampled_from([0.1, 1.0, 10.0, 1000.0]),
    kernel=st.sampled_from(["rbf", "linear"]),
    label=st.sampled_from([-1.0, 1.0]),
)
def test_soft_margin_addition_equals_retraining(seed, n, C, kernel, label):
    k = functools.partial(rbf_kernel, gamma=0.5) if kernel == "rbf" else linear_kernel
    K, y = _problem(seed, n, k)
    added, retrained = _compare(K, y, C, label)
    _assert_same(added, retrained, K)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 40), label=st.sampled_from([-1.0, 1.0]))
def test_hard_margin_addition_equals_retraining(seed, n, label):
    K, y = _problem(seed, n, functools.partial(rbf_kernel, gamma=2.0), separable=True)
    added, retrained = _compare(K, y, np.inf, label)
    _assert_same(added, retrained, K)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(6, 40),
    C=st.sampled_from([0.01, 0.3, 1.0, 10.0]),
    kernel=st.sampled_from(["linear", "poly"]),
    label=st.sampled_from([-1.0, 1.0]),
)
def test_degenerate_grid_addition_equals_retraining(seed, n, C, kernel, label):
    """Points on an integer grid in one or two dimensions: copies, points at the origin, kernels
    of rank 1 to 3, faces of many optima. Whatever the route, the multipliers are retraining's
    (a multiplier on its bound may come out a rounding error inside it on one side)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n + 1, int(rng.integers(1, 3)))))
    y = np.where(X[:, 0] + rng.normal(size=n + 1) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    K = X @ X.T if kernel == "linear" else (X @ X.T) ** 2
    added, retrained = _compare(K, y[:n], C, label)
    scale = max(1.0, float(np.max(retrained.alpha)))
    assert np.max(np.abs(added.solution.alpha - retrained.alpha)) <= ALPHA_TOL * scale
    assert abs(added.solution.objective - retrained.objective) <= 1e-8 * scale


def test_hard_margin_not_separable_raises_as_retraining():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [1.0]])
    y = np.array([-1.0, -1.0, 1.0, 1.0])
    K = linear_kernel(X, X)
    inc = IncrementalSVM(K[:4, :4], fit_svm(K[:4, :4], y, np.inf))
    with pytest.raises(SolveError):
        fit_svm(K, np.r_[y, 1.0], np.inf)
    with pytest.raises(SolveError):
        inc.add(K[:4, 4], K[4, 4], 1.0)


def test_routes_and_their_events():
    """Far outside the margin nothing moves; inside, the path runs; the SVM is not changed."""
    K, y = _problem(3, 40, functools.partial(rbf_kernel, gamma=0.5))
    base = fit_svm(K[:40, :40], y, 1.0)
    inc = IncrementalSVM(K[:40, :40], base)
    margins = y * base.decision_function(K[:40, :40])
    deep = int(np.argmax(margins))  # a training point far on its own side, as a test object
    outside = inc.add(K[:40, deep], K[deep, deep], y[deep])
    assert outside.route == "outside" and outside.events == 0
    assert np.array_equal(outside.solution.alpha, np.r_[base.alpha, 0.0])
    wrong = inc.add(K[:40, deep], K[deep, deep], -y[deep])  # the same point, other label
    assert wrong.route == "path" and wrong.events >= 1
    assert wrong.solution.alpha[40] > 0
    again = inc.add(K[:40, deep], K[deep, deep], -y[deep])
    assert np.array_equal(again.solution.alpha, wrong.solution.alpha)
    assert np.array_equal(inc.solution.alpha, base.alpha)
    assert dict(inc.routes) == {"outside": 1, "path": 2}  # every addition counted by its route


def test_empty_margin_set_moves_the_bias_alone():
    """Classes of equal size and a box so small that every multiplier sits at C: no margin
    set to start from, so the path begins with a step of the bias alone."""
    K, _ = _problem(5, 30, functools.partial(rbf_kernel, gamma=0.5))
    y = np.array([1.0, -1.0] * 15)
    base = fit_svm(K[:30, :30], y, 0.01)
    assert base.free.size == 0
    for label in (-1.0, 1.0):
        added, retrained = _compare(K, y, 0.01, label)
        assert added.route != "retrain"
        _assert_same(added, retrained, K)


def test_w_zero_degenerate_problem():
    """30 uniform points in 3-D, a third positive, linear kernel: the optimum has w = 0 and a
    face of many optima (the canonical step or retraining decides)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(31, 3))
    y = np.where(np.arange(30) % 3 == 0, 1.0, -1.0)
    K = linear_kernel(X, X)
    for label in (-1.0, 1.0):
        added, retrained = _compare(K, y, 1.0, label)
        _assert_same(added, retrained, K)


def test_test_object_equal_to_a_margin_example():
    """A copy of a free support vector with its own label lies on the margin: the optimal face
    then has many points and the canonical step splits the copies' multiplier equally."""
    K, y = _problem(7, 40, functools.partial(rbf_kernel, gamma=0.5))
    base = fit_svm(K[:40, :40], y, 1.0)
    j = int(base.free[0])
    X_idx = np.r_[np.arange(40), j]
    K2 = K[np.ix_(X_idx, X_idx)]
    added, retrained = _compare(K2, y, 1.0, y[j])
    assert added.route == "canonical"
    _assert_same(added, retrained, K2)
    assert added.solution.alpha[40] == added.solution.alpha[j] > 0
    added, retrained = _compare(K2, y, 1.0, -y[j])  # the contradicting copy
    _assert_same(added, retrained, K2)


def test_examples_at_the_origin_of_the_feature_space():
    """Zero feature vectors (x = 0 under the homogeneous polynomial kernel): the path ends with
    their multipliers split equally, the minimum-norm optimum retraining also returns."""
    X = np.array([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0], [-1.0], [1.0], [0.0], [1.0]])
    y = np.array([1.0, -1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
    added, retrained = _compare((X @ X.T) ** 2, y, 0.3, -1.0)
    _assert_same(added, retrained, (X @ X.T) ** 2)
    assert np.allclose(added.solution.alpha[X[:, 0] == 0], 0.15, rtol=0, atol=1e-12)


@pytest.mark.parametrize("C", [1.0, 10.0])
def test_duplicated_rows(C):
    """Every training row twice, test objects fresh or copies: any route, same optimum."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(15, 2)), 1)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=15) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    X, y = np.r_[X, X], np.r_[y, y]
    routes = Counter()
    for test in (X[3], X[7], X[0] + 0.05, rng.normal(size=2)):
        Xa = np.r_[X, test[None, :]]
        K = rbf_kernel(Xa, Xa, gamma=0.5)
        for label in (-1.0, 1.0):
            added, retrained = _compare(K, y, C, label)
            _assert_same(added, retrained, K)
            routes[added.route] += 1
    assert routes["path"] >= 4  # the copies on the margin share one index of the path


def test_additions_are_computed_once_per_problem_and_label():
    K, y = _problem(2, 30, functools.partial(rbf_kernel, gamma=0.5))
    machines = [IncrementalSVM(K[:30, :30], fit_svm(K[:30, :30], s * y, 1.0)) for s in (1, -1)]
    added = Additions(machines, K[:30, 30], K[30, 30])
    first = added.get(0, 1.0)
    assert added.get(0, 1) is first
    assert np.array_equal(added.get(1, -1.0).solution.alpha, first.solution.alpha)


# --------------------------------------------------------------------------- the machines


def _p_values(machine, method, X, y, X_test):
    return machine(method).fit(X, y).predict_p(X_test)


MACHINES = {
    "TSVM": lambda C: lambda method: TransductiveSVM(rbf_kernel, C=C, method=method),
    "TSVM Mondrian": lambda C: (
        lambda method: TransductiveSVM(rbf_kernel, C=C, method=method, mondrian=True)
    ),
    "Distance": lambda C: lambda method: DistanceTCM(C=C, method=method),
    "Distance Mondrian": lambda C: lambda method: DistanceTCM(C=C, method=method, mondrian=True),
}


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 30),
    n_classes=st.sampled_from([2, 3]),
    n_copies=st.integers(0, 5),
    C=st.sampled_from([1.0, 10.0]),
    machine=st.sampled_from(sorted(MACHINES)),
)
def test_p_values_equal_retraining(seed, n, n_classes, n_copies, C, machine):
    """Random data on a coarse grid (coincidences), some rows repeated, half the test objects
    copies of training ones."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 1)
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    X[:, 0] += y
    pick = rng.choice(n, size=n_copies, replace=False)
    X, y = np.r_[X, X[pick]], np.r_[y, y[pick]]
    X_test = np.r_[X[rng.choice(y.size, size=3)], rng.normal(size=(3, 2)) + [1.0, 0.0]]
    make = MACHINES[machine](C)
    incremental = _p_values(make, "incremental", X, y, X_test)
    retrained = _p_values(make, "retrain", X, y, X_test)
    assert np.max(np.abs(incremental - retrained)) <= 1e-12


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_p_values_equal_retraining_hard_margin(machine):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    X[:, 0] += np.where(y == 1, 0.5, -0.5)  # separable by a margin
    X_test = rng.normal(size=(4, 2)) * 0.3
    make = MACHINES[machine](np.inf)
    incremental = _p_values(make, "incremental", X, y, X_test)
    retrained = _p_values(make, "retrain", X, y, X_test)
    assert np.max(np.abs(incremental - retrained)) <= 1e-12


def test_distance_tcm_counts_the_same_solves():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, 3, size=40)
    X[:, 0] += y
    X_test = rng.normal(size=(5, 2)) + [1.0, 0.0]
    """Both methods solve the augmented SVMs in which the test example, under its candidate
    label's sign in that one-vs-rest problem, lies inside the training SVM's margin
    (``s f_j(x) < 1``), counted here from the training SVMs directly."""
    model = DistanceTCM(C=10.0).fit(X, y)
    P_inc, solves_inc = model.solve(X_test)
    P_ret, solves_ret = DistanceTCM(C=10.0, method="retrain").fit(X, y).solve(X_test)
    assert np.array_equal(P_inc, P_ret)
    F = np.column_stack([s.decision_function(model.kernel_(X_test, X)) for s in model.base_])
    signs = [np.where(np.arange(3) == c, 1.0, -1.0) for c in range(3)]
    inside = sum(int(np.sum(s * F < 1.0)) for s in signs)
    assert solves_inc == solves_ret == inside and 0 < inside < 5 * 3 * 3


@pytest.mark.parametrize("machine", [TransductiveSVM, DistanceTCM])
def test_a_retrain_fit_refuses_incremental_prediction(machine):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(10, 2)), np.array([0, 1] * 5)
    model = machine(C=1.0, method="retrain").fit(X, y)
    model.set_params(method="incremental")
    with pytest.raises(ValueError, match="^method:"):
        model.predict_p(X[:2])
