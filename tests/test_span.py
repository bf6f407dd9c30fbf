"""Span of support vectors, span rule, leave-one-out and the radius-margin bounds."""

import dataclasses

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from svmtrust import datasets
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.span import (
    exact_loo,
    leave_one_out,
    linear_rescaled_bound,
    radius_margin_bound,
    radius_squared,
    rescaled_radius_margin_bound,
    span,
    span_closed_form,
    span_rule_early_stopping,
    span_rule_loo,
)
from svmtrust.svm import fit_svm

from .problems import random_problem



@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """Small dense problems run faster on one BLAS thread, above all on a shared machine."""
    with threadpool_limits(limits=1):
        yield


PROBLEMS = [(kind, seed) for kind in ("soft", "hard", "hard_rbf", "unbalanced") for seed in (0, 1)]


@pytest.fixture(scope="module", params=PROBLEMS, ids=[f"{k}-{s}" for k, s in PROBLEMS])
def solved(request):
    K, y, C = random_problem(*request.param)
    sol = fit_svm(K, y, C)
    return K, y, C, sol, span(K, sol), span(K, sol, constrained=False)


def test_closed_form_equals_unconstrained_qp(solved):
    K, _, _, sol, _, unconstrained = solved
    closed = span_closed_form(K, sol)
    sv = sol.support[np.isfinite(unconstrained[sol.support])]
    assert sol.free.size >= 2
    free = np.intersect1d(sv, sol.free)
    gap = np.abs(closed[free] - unconstrained[free]) / np.maximum(unconstrained[free], 1e-8)
    assert np.max(gap) <= 1e-4
    # second category: the distance to the affine hull of the first-category vectors
    bounded = np.intersect1d(sv, sol.bounded)
    assert np.allclose(closed[bounded], unconstrained[bounded], rtol=1e-4, atol=1e-8)
    assert np.all(np.isnan(closed[sol.alpha == 0]))


def test_constrained_never_below_unconstrained(solved):
    _, _, _, sol, constrained, unconstrained = solved
    sv = sol.support
    assert np.all(constrained[sv] >= unconstrained[sv] - 1e-7 * (1 + unconstrained[sv]))


def test_theorem_2_identity_where_sets_do_not_change(solved):
    K, y, C, sol, constrained, _ = solved
    loo = leave_one_out(K, y, C, solver="cvxpy", sol=sol)
    sv = sol.support[loo.sets_unchanged[sol.support]]
    if sv.size == 0:
        pytest.skip("every removal changes the support-vector sets")
    lhs = y[sv] * sol.decision_function(K[sv]) - loo.margins[sv]
    rhs = sol.alpha[sv] * constrained[sv]
    assert np.allclose(lhs, rhs, rtol=1e-4, atol=1e-5)


def test_early_stopping_gives_the_same_answer(solved):
    K, _, _, sol, _, _ = solved
    full = span_rule_loo(K, sol, method="qp", early_stopping=False)
    assert span_rule_loo(K, sol, method="qp", early_stopping=True) == full


def test_duplicated_support_vectors_have_zero_span():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1.0, -1.0)
    sol0 = fit_svm(rbf_kernel(X, gamma=0.5), y, 1.0)
    twin = sol0.free[0]
    X2, y2 = np.vstack([X, X[twin]]), np.r_[y, y[twin]]
    K = rbf_kernel(X2, gamma=0.5)
    sol = fit_svm(K, y2, 1.0)
    closed = span_closed_form(K, sol)
    assert np.all(np.isfinite(closed[sol.support]))
    copies = [i for i in (twin, len(y)) if i in sol.free]
    for i in copies:  # a free copy lies on its twin: distance 0 (ridge bias only)
        assert closed[i] <= 1e-6
    unconstrained = span(K, sol, constrained=False)
    assert np.allclose(closed[sol.support], unconstrained[sol.support], atol=1e-5)


def _grid_gap(K, y, Cs):
    gaps = [span_rule_loo(K, fit_svm(K, y, C, "libsvm")) - exact_loo(K, y, C) for C in Cs]
    return abs(float(np.mean(gaps))), float(np.mean(np.abs(gaps)))


def _real(name, n, seed):
    X, y, _ = datasets.load(name)
    rows = np.random.default_rng(seed).permutation(len(y))[:n]
    return X[rows], y[rows].astype(float)


@pytest.mark.parametrize("name", ["synthetic", "breast", "digits"])
def test_span_rule_close_to_exact_loo(name):
    if name == "synthetic":
        rng = np.random.default_rng(0)
        y = np.where(rng.random(150) < 0.5, 1.0, -1.0)
        X = rng.normal(size=(150, 2)) + 1.2 * y[:, None]
        K, Cs = rbf_kernel(X, gamma=0.5), (0.3, 1.0, 10.0)
    elif name == "breast":
        X, y = _real("breast", 150, 0)
        K, Cs = rbf_kernel(X, gamma=1 / 8), (1.0, 3.0, 10.0)
    else:
        X, digits, _ = datasets.load("usps_like")
        rows = np.random.default_rng(0).permutation(len(digits))[:150]
        X, y = X[rows], np.where(digits[rows] <= 4, 1.0, -1.0)
        K, Cs = rbf_kernel(X, gamma=1 / 50), (np.inf,)
    mean_gap, _ = _grid_gap(K, y, Cs)
    assert mean_gap <= 0.03


@pytest.mark.parametrize("solver", ["libsvm", "cvxpy"])
@pytest.mark.parametrize("kind", ["soft", "hard"])
def test_exact_loo_matches_naive_loop(kind, solver):
    K, y, C = random_problem(kind, 5)
    K, y = K[:40, :40], y[:40]
    wrong = 0
    for p in range(len(y)):
        keep = np.arange(len(y)) != p
        sub = fit_svm(K[np.ix_(keep, keep)], y[keep], C, solver)
        wrong += y[p] * sub.decision_function(K[p, keep][None, :])[0] <= 0
    assert exact_loo(K, y, C, solver=solver) == wrong / len(y)


def test_radius_two_points():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert radius_squared(linear_kernel(X)) == pytest.approx(25 / 4, rel=1e-6)
    # RBF: ||phi(a) - phi(b)||^2 = 2 - 2 k(a, b)
    k = np.exp(-0.1 * 25)
    assert radius_squared(rbf_kernel(X, gamma=0.1)) == pytest.approx((2 - 2 * k) / 4, rel=1e-6)


def test_radius_points_on_a_circle():
    angles = np.linspace(0, 2 * np.pi, 7, endpoint=False) + 0.3
    X = np.array([5.0, -2.0]) + 1.7 * np.c_[np.cos(angles), np.sin(angles)]
    assert radius_squared(linear_kernel(X)) == pytest.approx(1.7**2, rel=1e-6)
    # three points on an arc of less than a half circle: the sphere is smaller
    assert radius_squared(linear_kernel(X[:3])) < 1.7**2 * 0.99


def test_radius_margin_bound_definition():
    K, y, C = random_problem("hard", 2)
    sol = fit_svm(K, y, C)
    assert radius_margin_bound(K, sol) == pytest.approx(
        radius_squared(K) * sol.w_norm_squared / len(y))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rescaling_identity_with_linear_kernel(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 4)) * np.array([4.0, 1.5, 0.7, 0.2]) + 3.0
    y = np.where(X[:, 0] - 3.0 + rng.normal(size=50) > 0, 1.0, -1.0)
    K = linear_kernel(X)
    sol = fit_svm(K, y, 1.0)
    assert rescaled_radius_margin_bound(K, sol) == pytest.approx(
        linear_rescaled_bound(X, sol), rel=1e-8)


X_BAD = np.random.default_rng(0).normal(size=(10, 2))
K_BAD = rbf_kernel(X_BAD)
Y_BAD = np.array([1.0, -1.0] * 5)
SOL_BAD = fit_svm(K_BAD, Y_BAD, 1.0)


def _nan(a):
    a = np.array(a, dtype=float)
    a.flat[3] = np.nan
    return a


NO_SV = dataclasses.replace(SOL_BAD, alpha=np.zeros(10), support=np.array([], dtype=int),
                            free=np.array([], dtype=int), bounded=np.array([], dtype=int))


@pytest.mark.parametrize("func", [span, span_closed_form, span_rule_loo, span_rule_early_stopping,
                                  radius_margin_bound,
                                  rescaled_radius_margin_bound])
@pytest.mark.parametrize("case,args,name", [
    ("sizes differ", (K_BAD[:8, :8], SOL_BAD), "sol"),
    ("no support vectors", (K_BAD, NO_SV), "sol"),
    ("NaN in K", (_nan(K_BAD), SOL_BAD), "K"),
    ("not a solution", (K_BAD, "sol"), "sol"),
])
def test_bad_input(func, case, args, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        func(*args)


@pytest.mark.parametrize("call,name", [
    (lambda: exact_loo(_nan(K_BAD), Y_BAD, 1.0), "K"),
    (lambda: exact_loo(K_BAD, Y_BAD[:-1], 1.0), "y"),
    (lambda: exact_loo(K_BAD, Y_BAD, np.nan), "C"),
    (lambda: radius_squared(_nan(K_BAD)), "K"),
    (lambda: span_rule_loo(K_BAD, SOL_BAD, method="exact"), "method"),
    (lambda: linear_rescaled_bound(X_BAD[:5], SOL_BAD), "sol"),
])
def test_bad_input_other(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()
