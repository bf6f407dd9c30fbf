"""The exact dual QP (cvxpy) against libsvm, and against the KKT conditions themselves."""

import numpy as np
import pytest
from sklearn.svm import SVC

from svmtrust.kernels import linear_kernel
from svmtrust.svm import (
    SUPPORT_TOL,
    SolveError,
    categorise,
    duplicate_groups,
    fit_svm,
    kernel_factor,
    kkt_bias,
)

from .problems import random_problem

KINDS = ("soft", "hard", "unbalanced", "duplicates", "poly", "hard_rbf")
#: 6 kinds x 4 seeds = 24 random problems.
PROBLEMS = [(kind, seed) for kind in KINDS for seed in range(4)]


def _pooled(sol, groups):
    return np.bincount(groups, weights=sol.alpha)


@pytest.fixture(scope="module", params=PROBLEMS, ids=[f"{k}-{s}" for k, s in PROBLEMS])
def solved(request):
    K, y, C = random_problem(*request.param)
    return K, y, C, fit_svm(K, y, C, "cvxpy"), fit_svm(K, y, C, "libsvm")


def test_objectives_agree(solved):
    K, y, C, exact, fast = solved
    assert abs(exact.objective - fast.objective) <= 1e-6 * abs(fast.objective)


def test_decision_values_and_bias_agree(solved):
    """libsvm caches the kernel in single precision (Qfloat = float), so its margins carry
    errors of order 1e-7 relative to ``C * K``; on low-rank kernels (the polynomial problems)
    its free support vectors sit up to ~2e-5 off the margin, hence the tolerance 1e-4."""
    K, y, C, exact, fast = solved
    f_exact, f_fast = exact.decision_function(K), fast.decision_function(K)
    scale = max(1.0, np.max(np.abs(f_fast)))
    assert np.max(np.abs(f_exact - f_fast)) <= 1e-4 * scale
    assert exact.b == pytest.approx(fast.b, abs=1e-4 * scale)


def test_support_sets_agree_over_distinct_points(solved):
    K, y, C, exact, fast = solved
    groups = duplicate_groups(K, y)
    pooled_exact, pooled_fast = _pooled(exact, groups), _pooled(fast, groups)
    scale = max(pooled_exact.max(), pooled_fast.max())
    assert np.max(np.abs(pooled_exact - pooled_fast)) <= 1e-4 * scale
    assert np.array_equal(pooled_exact > 0, pooled_fast > 0)
    if np.bincount(groups).max() == 1:  # no repeated point: the solution is unique
        assert np.array_equal(exact.support, fast.support)
        assert np.array_equal(exact.free, fast.free)
        assert np.array_equal(exact.bounded, fast.bounded)


@pytest.mark.parametrize("solver", ("exact", "fast"))
def test_kkt_conditions_hold(solved, solver):
    """An independent check of optimality: feasibility and complementary slackness."""
    K, y, C, exact, fast = solved
    sol = exact if solver == "exact" else fast
    a = sol.alpha
    assert np.all(a >= 0) and np.all(a <= C)
    assert abs(a @ y) <= 1e-6 * max(a.max(), 1.0)
    margins = y * sol.decision_function(K)
    tol = 1e-4
    zero = a == 0
    assert np.all(margins[zero] >= 1 - tol)
    assert np.all(np.abs(margins[sol.free] - 1) <= tol)
    assert np.all(margins[sol.bounded] <= 1 + tol)
    if np.isinf(C):
        assert sol.bounded.size == 0


def test_categories_partition_support(solved):
    K, y, C, exact, _ = solved
    assert np.array_equal(np.union1d(exact.free, exact.bounded), exact.support)
    assert np.intersect1d(exact.free, exact.bounded).size == 0
    assert np.all(exact.alpha[exact.bounded] == C)
    assert np.all(exact.alpha[np.setdiff1d(np.arange(len(y)), exact.support)] == 0)


def test_w_norm_from_dual_value(solved):
    K, y, C, exact, _ = solved
    coef = exact.coef
    assert exact.w_norm_squared == pytest.approx(coef @ K @ coef, rel=1e-9, abs=1e-12)


def test_libsvm_bias_matches_sklearn_intercept():
    K, y, C = random_problem("soft", 11)
    sol = fit_svm(K, y, C, "libsvm")
    model = SVC(C=C, kernel="precomputed", tol=1e-9).fit(K, y)
    assert sol.b == pytest.approx(model.intercept_[0], abs=1e-6)
    assert np.allclose(sol.decision_function(K), model.decision_function(K), atol=1e-6)


def test_bias_midpoint_without_free_support_vectors():
    # Four points on a line, C small enough that every multiplier sits at C.
    X = np.array([[-1.0], [-0.5], [0.5], [1.0]])
    y = np.array([-1.0, 1.0, -1.0, 1.0])
    K = linear_kernel(X)
    sol = fit_svm(K, y, 0.01, "cvxpy")
    assert sol.free.size == 0
    g = K @ sol.coef
    residual = y - g
    at_c = sol.alpha == sol.C
    lower = residual[(y > 0) != at_c]
    upper = residual[(y > 0) == at_c]
    assert sol.b == pytest.approx((lower.max() + upper.min()) / 2)
    assert sol.b == pytest.approx(fit_svm(K, y, 0.01, "libsvm").b, abs=1e-8)


def test_categorise_snaps_within_tolerance():
    alpha = np.array([-1e-12, 1e-9, 0.5, 1 - 1e-8, 1.0 + 1e-12])
    snapped, support, free, bounded = categorise(alpha, 1.0)
    assert snapped.tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    assert support.tolist() == [2, 3, 4]
    assert free.tolist() == [2] and bounded.tolist() == [3, 4]
    assert SUPPORT_TOL == 1e-6


def test_kkt_bias_average_over_free():
    K, y, C = random_problem("soft", 5)
    sol = fit_svm(K, y, C, "cvxpy")
    expected = np.mean(y[sol.free] - (K @ sol.coef)[sol.free])
    assert kkt_bias(K, y, sol.alpha, C, sol.free, sol.bounded) == pytest.approx(expected)


def test_kernel_factor_reproduces_kernel():
    K, _, _ = random_problem("poly", 2)
    F = kernel_factor(K)
    assert np.allclose(F @ F.T, K, atol=1e-9 * np.abs(K).max())


def test_duplicate_groups():
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    y = np.array([1.0, -1.0, 1.0, 1.0])
    groups = duplicate_groups(linear_kernel(X) + 1.0, y)
    assert groups[0] == groups[2]
    assert len(set(groups.tolist())) == 3


@pytest.mark.parametrize("solver", ("cvxpy", "libsvm"))
def test_hard_margin_on_non_separable_data_raises(solver):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(SolveError) as info:
        fit_svm(linear_kernel(X), y, np.inf, solver)
    assert info.value.status == "unbounded"
    assert "unbounded" in str(info.value)


def test_soft_margin_on_same_data_succeeds():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    for solver in ("cvxpy", "libsvm"):
        sol = fit_svm(linear_kernel(X), y, 1.0, solver)
        assert sol.status == "optimal"
        assert sol.bounded.size > 0


def test_solve_error_survives_pickling():
    """A failed solve in a joblib worker must reach the caller as SolveError, status intact."""
    import pickle

    err = pickle.loads(pickle.dumps(SolveError("cvxpy", "unbounded", "not separable")))
    assert isinstance(err, SolveError)
    assert (err.solver, err.status, err.detail) == ("cvxpy", "unbounded", "not separable")
    assert str(err) == "cvxpy solve failed with status 'unbounded': not separable"


@pytest.mark.parametrize("kind,seed", [("soft", 3), ("unbalanced", 1), ("poly", 2)])
def test_loose_libsvm_tolerance_is_libsvm_default(kind, seed):
    """``tol`` is handed to libsvm as it is: the multipliers are SVC's at that tolerance, and
    the dual value can only fall short of the exact optimum, by little (a KKT violation of at
    most ``tol`` per example costs at most ``tol * C`` each in the dual)."""
    K, y, C = random_problem(kind, seed)
    C = 1.0 if np.isinf(C) else C
    loose = fit_svm(K, y, C, "libsvm", tol=1e-3)
    model = SVC(C=C, kernel="precomputed", tol=1e-3).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    assert np.allclose(loose.alpha, categorise(alpha, C)[0], rtol=0, atol=1e-12)
    exact = fit_svm(K, y, C, "cvxpy")
    assert loose.objective <= exact.objective + 1e-9 * abs(exact.objective)
    assert exact.objective - loose.objective <= 1e-3 * C * len(y)
