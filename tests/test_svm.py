"""The exact dual QP (cvxpy) against libsvm, and against the KKT conditions themselves."""

import warnings

import numpy as np
import pytest
from sklearn.svm import SVC
from svmtrust import optimal_face, svm
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.qp import kernel_factor
from svmtrust.svm import (
    SUPPORT_TOL,
    SolveError,
    categorise,
    duplicate_groups,
    fit_svm,
    kkt_bias,
)

from .problems import degenerate_problem, random_problem

KINDS = (
    "soft",
    "hard",
    "unbalanced",
    "duplicates",
    "poly",
    "hard_rbf",
    "degenerate",
    "low_rank",
    "at_bound",
    "tiny_scale",
    "huge_scale",
)
#: 11 kinds x 4 seeds = 44 random problems.
PROBLEMS = [(kind, seed) for kind in KINDS for seed in range(4)]
#: Kinds whose optimal multipliers need not be unique (the degenerate problems' w = 0 optimum
#: leaves 20 free multipliers with a fixed sum), so that solvers agree on the objective, the
#: decision function and the KKT conditions but not on the support.
NOT_UNIQUE = ("degenerate",)


def _pooled(sol, groups):
    return np.bincount(groups, weights=sol.alpha)


@pytest.fixture(scope="module", params=PROBLEMS, ids=[f"{k}-{s}" for k, s in PROBLEMS])
def solved(request):
    K, y, C = random_problem(*request.param)
    return K, y, C, fit_svm(K, y, C, "cvxpy"), fit_svm(K, y, C, "libsvm"), request.param[0]


def test_objectives_agree(solved):
    K, y, C, exact, fast, _ = solved
    assert abs(exact.objective - fast.objective) <= 1e-6 * abs(fast.objective)


def test_decision_values_and_bias_agree(solved):
    """libsvm caches the kernel in single precision (Qfloat = float), so its margins carry
    errors of order 1e-7 relative to ``C * K``; on low-rank kernels (the polynomial problems)
    its free support vectors sit up to ~2e-5 off the margin, hence the tolerance 1e-4."""
    K, y, C, exact, fast, _ = solved
    f_exact, f_fast = exact.decision_function(K), fast.decision_function(K)
    scale = max(1.0, np.max(np.abs(f_fast)))
    assert np.max(np.abs(f_exact - f_fast)) <= 1e-4 * scale
    assert exact.b == pytest.approx(fast.b, abs=1e-4 * scale)


def test_support_sets_agree_over_distinct_points(solved):
    K, y, C, exact, fast, kind = solved
    if kind in NOT_UNIQUE:
        pytest.skip("the optimal multipliers are not unique")
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
    K, y, C, exact, fast, _ = solved
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
    K, y, C, exact, *_ = solved
    assert np.array_equal(np.union1d(exact.free, exact.bounded), exact.support)
    assert np.intersect1d(exact.free, exact.bounded).size == 0
    assert np.all(exact.alpha[exact.bounded] == C)
    assert np.all(exact.alpha[np.setdiff1d(np.arange(len(y)), exact.support)] == 0)


def test_w_norm_from_dual_value(solved):
    K, y, C, exact, *_ = solved
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
    assert "unbounded" in str(info.value) and "not separable" in str(info.value)
    if solver == "libsvm":  # libsvm's boxes suspected it, the exact solver confirmed it
        assert "largest box" in str(info.value) and "cvxpy" in str(info.value)


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


# --------------------------------------------------------------------------- the libsvm path


def _margin_violation(K, sol):
    """Largest KKT violation in margin units, written out independently of the library."""
    margins = sol.y * (K @ (sol.alpha * sol.y) + sol.b)
    zero, at_c = sol.alpha == 0, sol.alpha == sol.C
    free = ~zero & ~at_c
    return max(
        np.max(1 - margins[zero], initial=0),
        np.max(np.abs(margins[free] - 1), initial=0),
        np.max(margins[at_c] - 1, initial=0),
    )


def test_degenerate_set_is_solved_by_libsvm_itself():
    """The issue's problems (w = 0 at the optimum for most seeds): at LIBSVM_TOL = 1e-9 alone
    six of the first ten ran to the iteration limit and raised; with the second run at
    LIBSVM_REACHABLE_TOL libsvm answers every one, with no fallback, on the exact optimum."""
    for seed in range(20):
        K, y, C = degenerate_problem(seed)
        fast, exact = fit_svm(K, y, C, "libsvm"), fit_svm(K, y, C, "cvxpy")
        assert (fast.solver, fast.fallback) == ("libsvm", ""), seed
        assert fast.objective == pytest.approx(exact.objective, rel=1e-9)
        assert np.allclose(fast.decision_function(K), exact.decision_function(K), atol=1e-5)


@pytest.mark.parametrize("kind", ("soft", "degenerate"))
@pytest.mark.parametrize("factor", (1e-50, 1e40))
def test_extreme_kernel_scales_give_the_same_svm(kind, factor):
    """K times 1e-50 underflows a single-precision cache and K times 1e40 overflows it; the
    same problem (C divided by the factor) must give the same decision function, multipliers
    divided by the factor and, where the optimum is unique, the same support."""
    K, y, C = random_problem(kind, 0)
    plain = fit_svm(K, y, C, "libsvm")
    scaled = fit_svm(K * factor, y, C / factor, "libsvm")
    assert scaled.solver == "libsvm"
    assert np.allclose(scaled.decision_function(K * factor), plain.decision_function(K), atol=1e-5)
    assert scaled.objective * factor == pytest.approx(plain.objective, rel=1e-6)
    if kind not in NOT_UNIQUE:
        assert np.allclose(scaled.alpha * factor, plain.alpha, rtol=1e-4, atol=1e-9 * C)
        assert np.array_equal(scaled.free, plain.free)
        assert np.array_equal(scaled.bounded, plain.bounded)


def test_power_of_two_kernel_scale_leaves_libsvm_arithmetic_unchanged():
    """libsvm runs on K / s with s a power of two, so K and 4 K (with C / 4) are the same run."""
    K, y, C = random_problem("poly", 1)
    plain, scaled = fit_svm(K, y, C, "libsvm"), fit_svm(4 * K, y, C / 4, "libsvm")
    assert np.array_equal(scaled.alpha * 4, plain.alpha)
    assert scaled.n_iter == plain.n_iter


def test_fallback_when_libsvm_reaches_its_iteration_limit(monkeypatch):
    K, y, C = degenerate_problem(0)
    monkeypatch.setattr(svm, "LIBSVM_MAX_ITER", 3)
    sol = fit_svm(K, y, C, "libsvm")
    # the accurate run stops at its budget, the run at the reachable tolerance after 3
    assert (sol.solver, sol.fallback) == ("cvxpy", "max_iter_reached")
    assert sol.n_iter == svm.LIBSVM_ACCURATE_ITER * len(y) + 3
    assert np.array_equal(sol.alpha, fit_svm(K, y, C, "cvxpy").alpha)
    with pytest.raises(SolveError) as info:  # an explicit tolerance gets libsvm as it is
        fit_svm(K, y, C, "libsvm", tol=1e-3)
    assert (info.value.solver, info.value.status) == ("libsvm", "max_iter_reached")


def test_loose_libsvm_answer_is_polished_exactly(monkeypatch):
    """A stopping tolerance of 0.5 leaves margins far off 1; the active-set polish of the
    canonical optimum repairs them exactly, without the exact solver."""
    K, y, C = random_problem("soft", 0)
    loose = fit_svm(K, y, C, "libsvm", tol=0.5)  # libsvm's answer, unchecked
    assert _margin_violation(K, loose) > 0.01
    monkeypatch.setattr(svm, "LIBSVM_TOL", 0.5 / max(1.0, C))  # the same eps (s = 1 for RBF)
    sol = fit_svm(K, y, C, "libsvm")
    assert (sol.solver, sol.fallback, sol.exact) == ("libsvm", "", True)
    assert _margin_violation(K, sol) < 1e-9


def test_fallback_when_libsvm_answer_violates_kkt(monkeypatch):
    """With the polish switched off (both routes), the loose answer fails the KKT check and
    cvxpy answers."""
    K, y, C = random_problem("soft", 0)
    loose = fit_svm(K, y, C, "libsvm", tol=0.5)
    monkeypatch.setattr(svm, "LIBSVM_TOL", 0.5 / max(1.0, C))
    monkeypatch.setattr(svm, "_unique_optimum", lambda K, sol: None)
    monkeypatch.setattr(optimal_face, "_active_set_optimum", lambda *problem: (problem[5], False))
    with pytest.warns(svm.InexactWarning, match="not certified exact"):
        sol = fit_svm(K, y, C, "libsvm")
    assert (sol.solver, sol.fallback, sol.n_iter) == ("cvxpy", "kkt_violation", loose.n_iter)
    assert not sol.exact
    assert _margin_violation(K, sol) < 1e-6


def test_libsvm_answers_pass_their_own_check_with_room():
    """On the oracle problems libsvm's largest KKT violation is at most 2e-7 of the scale
    the check uses, fifty times below LIBSVM_KKT_TOL: the check does not fire on noise."""
    for kind in KINDS:
        K, y, C = random_problem(kind, 0)
        sol = fit_svm(K, y, C, "libsvm")
        scale = max(1.0, sol.alpha.max() * np.abs(K).sum(axis=1).max())
        assert sol.fallback in ("", "small_box") and _margin_violation(K, sol) <= 2e-7 * scale, kind


def test_separable_data_beyond_the_largest_box_fall_back(monkeypatch):
    """Hard-margin multipliers of 4.8 / s: with boxes only up to 1 / s, libsvm's boxes call
    the data not separable and the exact solver, which finds them separable, answers."""
    K, y, C = random_problem("hard", 0)
    monkeypatch.setattr(svm, "HARD_MARGIN_C", 1.0)
    sol = fit_svm(K, y, C, "libsvm")
    assert (sol.solver, sol.fallback) == ("cvxpy", "unbounded")
    assert np.array_equal(sol.alpha, fit_svm(K, y, C, "cvxpy").alpha)


def test_both_solvers_failing_reports_both(monkeypatch):
    def failing_cvxpy(K, y, C):
        raise SolveError("cvxpy", "numerical_error", "stand-in failure")

    K, y, C = degenerate_problem(0)
    monkeypatch.setattr(svm, "LIBSVM_MAX_ITER", 3)
    monkeypatch.setattr(svm, "_solve_cvxpy", failing_cvxpy)
    with pytest.raises(SolveError) as info:
        fit_svm(K, y, C, "libsvm")
    assert info.value.status == "numerical_error"
    assert "iterations" in str(info.value) and "stand-in failure" in str(info.value)


def test_accurate_run_where_it_converges_reachable_run_where_it_cycles():
    """A well-posed problem is solved at LIBSVM_TOL within its budget, as a direct SVC fit at
    that tolerance; a degenerate one spends the budget, then stops at LIBSVM_REACHABLE_TOL."""
    K, y, C = random_problem("soft", 1)
    direct = SVC(C=C, kernel="precomputed", tol=svm.LIBSVM_TOL * max(1.0, C)).fit(K, y)
    assert (
        fit_svm(K, y, C, "libsvm").n_iter == direct.n_iter_[0] < svm.LIBSVM_ACCURATE_ITER * len(y)
    )
    K, y, C = degenerate_problem(0)
    again = SVC(C=C, kernel="precomputed", tol=svm.LIBSVM_REACHABLE_TOL * max(1.0, C)).fit(K, y)
    assert fit_svm(K, y, C, "libsvm").n_iter == svm.LIBSVM_ACCURATE_ITER * len(y) + again.n_iter_[0]


def _large_box_problem(structure: str, seed: int):
    """``(K, y, C)`` with a box above ``LARGE_BOX``: overlapping classes (multipliers at C
    inside the margin), separated classes (a hard-margin optimum within the box), copies and
    conflicting copies, linear and RBF kernels."""
    rng = np.random.default_rng([seed, len(structure)])
    n, d = int(rng.integers(20, 60)), int(rng.integers(2, 5))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    shift = 3.0 if structure == "separated" else 0.5
    X = rng.normal(size=(n, d)) + shift * y[:, None] * (np.arange(d) == 0)
    if structure in ("copies", "conflicting"):
        rows = rng.choice(n, n // 4, replace=False)
        X, y = (
            np.vstack([X, X[rows]]),
            np.r_[y, -y[rows] if structure == "conflicting" else y[rows]],
        )
    C = float(10.0 ** rng.uniform(3.2, 6))
    if seed % 2:
        return linear_kernel(X), y, C
    return rbf_kernel(X, gamma=float(10.0 ** rng.uniform(-2, 1)) / d), y, C


def test_no_hard_margin_attempt_when_an_example_is_inside_the_margin(monkeypatch):
    """``svm._inside_the_margin`` skips the hard-margin attempt of a large box only where it
    cannot succeed: with and without the skip, the same bits on 24 generated problems, each
    with both solvers; the skip is taken on many of them and not on the separated ones."""
    solved = {}
    for skip in (True, False):
        if not skip:
            monkeypatch.setattr(svm, "_inside_the_margin", lambda K, sol: False)
        for structure in ("overlapping", "separated", "copies", "conflicting"):
            for seed in range(6):
                K, y, C = _large_box_problem(structure, seed)
                for solver in ("libsvm", "cvxpy"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", svm.InexactWarning)
                        sol = fit_svm(K, y, C, solver)
                    key = (structure, seed, solver)
                    solved.setdefault(key, []).append(
                        (sol, skip and svm._inside_the_margin(K, sol))
                    )
    skipped = {key for key, ((_, inside), _) in solved.items() if inside}
    for key, ((with_skip, _), (without, _)) in solved.items():
        np.testing.assert_array_equal(with_skip.alpha, without.alpha, err_msg=str(key))
        assert with_skip.b == without.b and with_skip.solver == without.solver, key
    assert len(skipped) >= 20, len(skipped)  # 28 of the 48 (fixed seeds)
    assert not any(key[0] == "separated" for key in skipped)


@pytest.mark.parametrize("seed", range(4))
def test_the_private_libsvm_call_gives_svc_multipliers_to_the_last_bit(seed):
    """``svm._run_libsvm`` calls scikit-learn's private ``sklearn.svm._libsvm.fit`` as
    ``SVC.fit`` does (its docstring says why): the same multipliers, bit for bit, on a Gram
    matrix and on data with libsvm's own RBF kernel. This test fails first if scikit-learn
    changes that private function."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1.0, -1.0)
    K, C, tol = X @ X.T, 0.5 + seed, 1e-6
    alpha, status, _ = svm._run_libsvm(K, y, C, tol, 1.0, 10**6)
    model = SVC(C=C, kernel="precomputed", tol=tol).fit(K, y)
    expected = np.zeros(40)
    expected[model.support_] = np.abs(model.dual_coef_[0])
    assert status == "optimal"
    np.testing.assert_array_equal(alpha, expected)
    alpha, _, _ = svm._run_libsvm(X, y, C, tol, 1.0, 10**6, {"kernel": "rbf", "gamma": 0.5})
    model = SVC(C=C, kernel="rbf", gamma=0.5, tol=tol).fit(X, y)
    expected = np.zeros(40)
    expected[model.support_] = np.abs(model.dual_coef_[0])
    np.testing.assert_array_equal(alpha, expected)
