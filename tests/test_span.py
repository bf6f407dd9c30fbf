"""Span of support vectors, span rule, leave-one-out and the radius-margin bounds."""

import dataclasses

import numpy as np
import pytest
from svmtrust import datasets, ties
from svmtrust.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from svmtrust.span import (
    exact_loo,
    fit_l2_svm,
    jaakkola_haussler_errors,
    l2_kernel,
    l2_rescaled_radius_margin_bound,
    leave_one_out,
    linear_rescaled_bound,
    radius_margin_bound,
    radius_squared,
    rescaled_radius_margin_bound,
    span,
    span_bound,
    span_closed_form,
    span_rule_early_stopping,
    span_rule_errors,
    span_rule_loo,
)
from svmtrust.svm import fit_svm
from threadpoolctl import threadpool_limits

from . import certified_grid
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
        radius_squared(K) * sol.w_norm_squared / len(y)
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rescaling_identity_with_linear_kernel(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 4)) * np.array([4.0, 1.5, 0.7, 0.2]) + 3.0
    y = np.where(X[:, 0] - 3.0 + rng.normal(size=50) > 0, 1.0, -1.0)
    K = linear_kernel(X)
    sol = fit_svm(K, y, 1.0)
    assert rescaled_radius_margin_bound(K, sol) == pytest.approx(
        linear_rescaled_bound(X, sol), rel=1e-8
    )


X_BAD = np.random.default_rng(0).normal(size=(10, 2))
K_BAD = rbf_kernel(X_BAD)
Y_BAD = np.array([1.0, -1.0] * 5)
SOL_BAD = fit_svm(K_BAD, Y_BAD, 1.0)


def _nan(a):
    a = np.array(a, dtype=float)
    a.flat[3] = np.nan
    return a


NO_SV = dataclasses.replace(
    SOL_BAD,
    alpha=np.zeros(10),
    support=np.array([], dtype=int),
    free=np.array([], dtype=int),
    bounded=np.array([], dtype=int),
)


@pytest.mark.parametrize(
    "func",
    [
        span,
        span_closed_form,
        span_rule_loo,
        span_rule_early_stopping,
        radius_margin_bound,
        rescaled_radius_margin_bound,
    ],
)
@pytest.mark.parametrize(
    "case,args,name",
    [
        ("sizes differ", (K_BAD[:8, :8], SOL_BAD), "sol"),
        ("no support vectors", (K_BAD, NO_SV), "sol"),
        ("NaN in K", (_nan(K_BAD), SOL_BAD), "K"),
        ("not a solution", (K_BAD, "sol"), "sol"),
    ],
)
def test_bad_input(func, case, args, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        func(*args)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: exact_loo(_nan(K_BAD), Y_BAD, 1.0), "K"),
        (lambda: exact_loo(K_BAD, Y_BAD[:-1], 1.0), "y"),
        (lambda: exact_loo(K_BAD, Y_BAD, np.nan), "C"),
        (lambda: radius_squared(_nan(K_BAD)), "K"),
        (lambda: span_rule_loo(K_BAD, SOL_BAD, method="exact"), "method"),
        (lambda: linear_rescaled_bound(X_BAD[:5], SOL_BAD), "sol"),
        (lambda: linear_rescaled_bound(X_BAD, "sol"), "sol"),
        (lambda: linear_rescaled_bound(X_BAD, SOL_BAD, box="ball"), "box"),
        (lambda: rescaled_radius_margin_bound(K_BAD, SOL_BAD, box="tight"), "box"),
        (lambda: span_bound(K_BAD, SOL_BAD), "sol"),  # C finite: Theorem 1 is for C = inf
        (lambda: span_bound(K_BAD, fit_svm(K_BAD, Y_BAD), spans=np.ones(3)), "spans"),
        (lambda: span_bound(_nan(K_BAD), SOL_BAD), "K"),
        (lambda: jaakkola_haussler_errors(K_BAD[:8, :8], SOL_BAD), "sol"),
        (lambda: jaakkola_haussler_errors(_nan(K_BAD), SOL_BAD), "K"),
    ],
)
def test_bad_input_other(call, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        call()


# ----------------------------------------------------------------------------- closed form vs lstsq


def _affine_distance2(Phi, p, others):
    """Squared distance from ``Phi[p]`` to the affine hull of ``Phi[others]``, by least squares.

    Independent of the library: explicit features and ``numpy.linalg.lstsq`` on the differences
    to the first point (no Gram matrix, no bordered system).
    """
    base = Phi[others[0]]
    target = Phi[p] - base
    directions = (Phi[others[1:]] - base).T
    if directions.shape[1]:
        coef = np.linalg.lstsq(directions, target, rcond=None)[0]
        target = target - directions @ coef
    return float(target @ target)


def _poly2_features(X):
    """Explicit feature map of ``(x . z)^2``: all products ``x_i x_j``, with sqrt(2) off the diagonal."""
    d = X.shape[1]
    cols = [
        X[:, i] * X[:, j] * (1.0 if i == j else np.sqrt(2.0)) for i in range(d) for j in range(i, d)
    ]
    return np.column_stack(cols)


def _three_free_in_the_plane():
    """The chapter's picture: 24 points in 2-D, linear kernel, hard margin, three free support
    vectors, so K_FF (3 x 3, rank 2) is singular and the bordered matrix is not."""
    rng = np.random.default_rng(4)
    y = np.r_[np.ones(12), -np.ones(12)]
    X = rng.normal(scale=0.7, size=(24, 2)) + np.outer(y, [1.2, 0.9])
    return X, y


def _closed_form_cases():
    X, y = _three_free_in_the_plane()
    yield "three free SVs in 2-D", X, linear_kernel(X), y, np.inf
    for seed in range(3):  # soft margin, linear kernel in 3-D: many free SVs, K_FF singular
        rng = np.random.default_rng(seed)
        y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
        X = rng.normal(size=(40, 3)) + 0.8 * y[:, None]
        sol = fit_svm(linear_kernel(X), y, 1.0)
        if sol.free.size <= 4:  # at most d + 1 free SVs: the bordered matrix can be invertible
            yield f"linear soft {seed}", X, linear_kernel(X), y, 1.0
    for seed in range(3):  # polynomial degree 2 in 3-D: 6 explicit features
        rng = np.random.default_rng(10 + seed)
        y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
        X = rng.normal(size=(30, 3)) + 0.7 * y[:, None]
        yield f"poly2 {seed}", _poly2_features(X), polynomial_kernel(X, degree=2), y, 3.0


@pytest.mark.parametrize("case", list(_closed_form_cases()), ids=lambda c: c[0])
def test_closed_form_equals_least_squares_distance(case):
    """Closed-form spans against an independent least-squares distance to the affine hull of
    the (other) first-category support vectors, in explicit features: 1e-9 relative, whether
    K_FF is singular or not (the bordered matrix is factorised directly)."""
    _, Phi, K, y, C = case
    assert np.allclose(Phi @ Phi.T, K, atol=1e-10 * np.abs(K).max())
    sol = fit_svm(K, y, C)
    closed = span_closed_form(K, sol)
    checked = 0
    for p in sol.support:
        others = [int(i) for i in sol.free if i != p]
        if len(others) < 1:
            continue
        hull = Phi[others] - Phi[others[0]]
        if np.linalg.matrix_rank(hull[1:], tol=1e-8 * np.abs(Phi).max()) < len(others) - 1:
            continue  # affinely dependent: the bordered matrix is singular (tested below)
        exact = _affine_distance2(Phi, p, others)
        assert closed[p] == pytest.approx(exact, rel=1e-9, abs=1e-12 * np.abs(K).max()), p
        checked += 1
    assert checked >= 3


def test_closed_form_singular_gram_block_not_below_exact():
    """The case where the Cholesky route put a span about 4e-6 below the exact distance."""
    X, y = _three_free_in_the_plane()
    K = linear_kernel(X)
    sol = fit_svm(K, y)
    assert sol.free.size == 3 and np.linalg.matrix_rank(K[np.ix_(sol.free, sol.free)]) == 2
    closed = span_closed_form(K, sol)
    for p in sol.free:
        exact = _affine_distance2(X, p, [int(i) for i in sol.free if i != p])
        assert abs(closed[p] - exact) <= 1e-12 * exact


def test_closed_form_singular_bordered_matrix_uses_the_ridge():
    """A repeated first-category support vector makes the bordered matrix singular: the ridge
    applies, the twins get span 0 and every span matches least squares to the ridge's bias
    (relative to the scale of K)."""
    X, y = _three_free_in_the_plane()
    twin = int(fit_svm(linear_kernel(X), y).free[0])
    X, y = np.vstack([X, X[twin]]), np.r_[y, y[twin]]
    K = linear_kernel(X)
    sol = fit_svm(K, y)
    assert {twin, len(y) - 1} <= set(sol.free.tolist())
    closed = span_closed_form(K, sol)
    scale = float(np.mean(np.diag(K)[sol.free]))
    for p in sol.support:
        exact = _affine_distance2(X, p, [int(i) for i in sol.free if i != p])
        assert abs(closed[p] - exact) <= 1e-8 * scale
    assert closed[twin] <= 1e-8 * scale and closed[len(y) - 1] <= 1e-8 * scale


# ----------------------------------------------------------------------------- rescaling boxes


@pytest.mark.parametrize("box", ["origin", "range"])
def test_rescaling_boxes_kernel_equals_explicit(box):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 3)) * np.array([3.0, 1.0, 0.3]) + 2.0
    X[0] *= 4.0  # one outlier: a box far from symmetric about the mean
    y = np.where(X[:, 0] - X[:, 0].mean() + rng.normal(size=40) > 0, 1.0, -1.0)
    K = linear_kernel(X)
    sol = fit_svm(K, y, 1.0)
    assert rescaled_radius_margin_bound(K, sol, box=box) == pytest.approx(
        linear_rescaled_bound(X, sol, box=box), rel=1e-8
    )


def test_rescaling_boxes_by_hand():
    """Axis-aligned data whose principal axes are the coordinate axes: the boxes by hand."""
    grid = np.array([-5.0, -3.0, 3.0, 5.0])
    X = np.array([[a, b] for a in grid for b in grid / 5.0])  # symmetric about both axes
    y = np.where(X[:, 1] > 0, 1.0, -1.0)
    K = linear_kernel(X)
    sol = fit_svm(K, y, 1.0)
    w = sol.coef @ X
    # symmetric data: both boxes have edges 2 * max |x_k| = max - min
    edges = 2 * np.abs(X).max(axis=0)
    expected = float(np.sum(edges**2 * w**2)) / len(y)
    for box in ("origin", "range"):
        assert rescaled_radius_margin_bound(K, sol, box=box) == pytest.approx(expected, rel=1e-8)
    # shift one point outwards on the first axis only: the origin box grows, the range box
    # grows by half as much
    X2 = X.copy()
    X2[0, 0] = -9.0
    K2 = linear_kernel(X2)
    sol2 = fit_svm(K2, y, 1.0)
    assert rescaled_radius_margin_bound(K2, sol2, box="range") <= rescaled_radius_margin_bound(
        K2, sol2, box="origin"
    )


def _per_axis_value(K, sol, U, eigvals, box):
    """The paper's rescaled functional on the given eigenbasis, axis by axis (no eigenspaces)."""
    root = np.sqrt(eigvals)
    coords, coef_axes = U * root, root * (sol.coef @ U)
    if box == "origin":
        edges = 2 * np.abs(coords).max(axis=0)
    else:
        edges = coords.max(axis=0) - coords.min(axis=0)
    return float(np.sum(edges**2 * coef_axes**2)) / K.shape[0]


def _repeated_eigenvalue_problem(seed):
    """The RBF kernel ``K``, labels and box of data with repeated rows, some of them with the
    other label: ``K + I / C`` then has the eigenvalue ``1 / C`` once per repeated row (breast
    cancer has it 12 times), and conflicting labels give ``w`` a component in that eigenspace."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(25, 60)), int(rng.integers(3, 6))
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    copies = rng.choice(n, size=int(rng.integers(3, 9)), replace=False)
    flip = np.where(np.arange(copies.size) % 2 == 0, -1.0, 1.0)  # every other copy conflicts
    X, y = np.vstack([X, X[copies]]), np.r_[y, y[copies] * flip]
    return rbf_kernel(X, gamma=0.2), y, float(rng.choice([0.5, 2.0, 10.0])), copies.size


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("box", ["origin", "range"])
def test_rescaling_of_a_repeated_eigenvalue(seed, box):
    """The value is a function of the bag (the same on every order of the rows), and no
    orthonormal basis of the repeated eigenspace gives a larger one (it is their supremum)."""
    K, y, C, repeats = _repeated_eigenvalue_problem(seed)
    K_l2, sol = l2_kernel(K, C), fit_l2_svm(K, y, C)
    value = rescaled_radius_margin_bound(K_l2, sol, box=box)
    rng = np.random.default_rng(1000 + seed)
    for _ in range(3):
        order = rng.permutation(len(y))
        K_o = K[np.ix_(order, order)]
        again = rescaled_radius_margin_bound(
            l2_kernel(K_o, C), fit_l2_svm(K_o, y[order], C), box=box
        )
        assert again == pytest.approx(value, rel=1e-7)
    centred = K_l2 - K_l2.mean(axis=0) - K_l2.mean(axis=1)[:, None] + K_l2.mean()
    eigvals, U = np.linalg.eigh((centred + centred.T) / 2)
    keep = eigvals > 1e-9 * eigvals[-1]
    eigvals, U = eigvals[keep], U[:, keep]
    repeated = np.flatnonzero(np.isclose(eigvals, 1 / C, rtol=1e-9))
    assert repeated.size >= repeats  # the structure the test is about is there
    values = []
    for _ in range(20):  # random bases of the repeated eigenspace
        Q, _ = np.linalg.qr(rng.normal(size=(repeated.size, repeated.size)))
        rotated = U.copy()
        rotated[:, repeated] = U[:, repeated] @ Q
        values.append(_per_axis_value(K_l2, sol, rotated, eigvals, box))
    assert max(values) <= value * (1 + 1e-9)
    assert max(values) - min(values) > 1e-6 * value  # the per-axis form depends on the basis


def test_rescaling_of_an_isotropic_plane_by_hand():
    """Eight points on a circle of radius r: the covariance is a multiple of I, every direction
    of the plane is an axis, and both edges are the diameter 2r, so the value is
    4 r^2 ||w||^2 / n (per axis it would depend on the basis: between r cos(pi/8) and r)."""
    r = 3.0
    angles = np.pi / 8 + np.arange(8) * np.pi / 4  # no vertex on a coordinate axis
    X = r * np.c_[np.cos(angles), np.sin(angles)]
    y = np.where(X[:, 0] + 0.4 * X[:, 1] > 0, 1.0, -1.0)
    K = linear_kernel(X)
    sol = fit_svm(K, y, 1.0)
    w = sol.coef @ X
    expected = 4 * r**2 * float(w @ w) / len(y)
    for box in ("origin", "range"):
        assert rescaled_radius_margin_bound(K, sol, box=box) == pytest.approx(expected, rel=1e-8)
        assert linear_rescaled_bound(X, sol, box=box) == pytest.approx(expected, rel=1e-8)


# ----------------------------------------------------------------------------- Theorem 1, JH


def _enclosing_circle_diameter(P):
    """Diameter of the smallest circle containing 2-D points, by brute force over pairs and
    triples (the circle is fixed by two or three of the points), independent of any QP."""
    best = np.inf
    pts = list(P)
    for i in range(len(pts)):
        for j in range(i + 1, len(pts)):
            centre, r = (pts[i] + pts[j]) / 2, np.linalg.norm(pts[i] - pts[j]) / 2
            if np.all(np.linalg.norm(P - centre, axis=1) <= r * (1 + 1e-12)):
                best = min(best, r)
            for k in range(j + 1, len(pts)):
                a, b, c = pts[i], pts[j], pts[k]
                d = 2 * (a[0] * (b[1] - c[1]) + b[0] * (c[1] - a[1]) + c[0] * (a[1] - b[1]))
                if abs(d) < 1e-14:
                    continue
                ux = (
                    (a @ a) * (b[1] - c[1]) + (b @ b) * (c[1] - a[1]) + (c @ c) * (a[1] - b[1])
                ) / d
                uy = (
                    (a @ a) * (c[0] - b[0]) + (b @ b) * (a[0] - c[0]) + (c @ c) * (b[0] - a[0])
                ) / d
                centre = np.array([ux, uy])
                r = np.linalg.norm(a - centre)
                if np.all(np.linalg.norm(P - centre, axis=1) <= r * (1 + 1e-12)):
                    best = min(best, r)
    return 2 * best


@pytest.mark.parametrize("seed", range(4))
def test_span_bound_geometry_and_theorem_1(seed):
    """S D ||w||^2 / l with D from a brute-force enclosing circle; the bound holds (it counts
    at least the leave-one-out errors) and never exceeds four times the radius-margin one."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    X = rng.normal(size=(30, 2)) + 1.8 * y[:, None]
    K = linear_kernel(X)
    sol = fit_svm(K, y)
    spans = span(K, sol)
    S = np.sqrt(np.max(spans[sol.support]))
    D = _enclosing_circle_diameter(X[sol.support])
    bound = span_bound(K, sol)
    assert bound == pytest.approx(S * D * sol.w_norm_squared / len(y), rel=1e-5)
    assert exact_loo(K, y, np.inf, solver="cvxpy") <= bound + 1e-12
    assert bound <= 4 * radius_margin_bound(K, sol) * (1 + 1e-6)


def test_jaakkola_haussler_rule_from_explicit_decision_values():
    K, y, C = random_problem("soft", 3)
    sol = fit_svm(K, y, C)
    f = K @ (sol.alpha * y) + sol.b  # decision values written out, not through the library
    expected = np.zeros(len(y), dtype=bool)
    sv = sol.alpha > 0
    expected[sv] = y[sv] * f[sv] - sol.alpha[sv] * np.diag(K)[sv] <= 0
    assert np.array_equal(jaakkola_haussler_errors(K, sol), expected)


def test_span_rule_counts_a_tie_as_an_error():
    K, y, C = random_problem("soft", 3)
    sol = fit_svm(K, y, C)
    margins = y * sol.decision_function(K)
    p = int(sol.free[0])
    spans = np.where(sol.alpha > 0, 0.0, np.nan)
    # alpha_p S_p^2 meets the margin: y_p f(x_p) - alpha_p S_p^2 is 0 to rounding, of either
    # sign; the library's tie rule (svmtrust.ties.is_zero) counts it as 0, an error
    tie = margins[p] / sol.alpha[p]
    for ulps in range(-3, 4):
        spans[p] = tie * (1.0 + ulps * np.finfo(float).eps)
        assert span_rule_errors(K, sol, spans)[p], ulps
    spans[p] = tie * (1.0 - 1e-6)  # an estimate clearly above 0: correct
    assert not span_rule_errors(K, sol, spans)[p]


def _no_free_support_vector(seed):
    """A small overlapping problem whose support vectors are all bounded at C = 0.1 (the seeds
    of the test are the first such of a search, two with every point a support vector)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(16, 2))
    y = np.where(X[:, 0] + 1.5 * rng.normal(size=16) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    K = rbf_kernel(X, gamma=0.5)
    sol = fit_svm(K, y, 0.1, solver="cvxpy")
    assert sol.free.size == 0
    return K, y, sol


@pytest.mark.parametrize("seed", [18, 23, 24, 25, 26, 47])
def test_span_rule_without_first_category_support_vector_is_the_training_error(seed):
    """Issue 22: with every support vector at C, span_rule_loo counted every support vector
    as an error (the upper bound #SV / l). It now returns the training error, the lower bound of
    leave-one-out derived in its docstring; exact leave-one-out lies between the two, and no
    removal keeps the sets of support vectors (the rule's assumption)."""
    K, y, sol = _no_free_support_vector(seed)
    training = float(np.mean(y * sol.decision_function(K) <= 0))
    loo = leave_one_out(K, y, sol.C, solver="cvxpy", sol=sol)
    for method in ("closed_form", "qp"):
        assert span_rule_loo(K, sol, method) == training
    assert training <= float(np.mean(loo.errors)) <= sol.support.size / len(y)
    assert not np.any(loo.sets_unchanged[sol.support])


def _plateau_problems():
    """The review's structures (``tests/certified_grid.py``): categorical rows with conflicting
    copies, one-hot codes, integer grids, near-copies (RBF at gamma 2^-15, 2^-7 and 2 of the
    LIBSVM guide's grid), the linear kernel of binary rows and the ill-scaled cubic kernel;
    two seeds each, the smallest size: 30 ``(name, K, y)``."""
    for name in ("binary", "one-hot", "integer grid", "near-copies", "ill-scaled", "binary linear"):
        make, sizes, kernels = certified_grid.STRUCTURES[name]
        for seed in range(2):
            X, y = make(seed, sizes[0])
            for kernel in kernels:
                gammas = certified_grid.GAMMAS[[0, 4, 8]] if kernel == "rbf" else [None]
                for gamma in gammas:
                    yield (
                        f"{name} {seed} {kernel} {gamma}",
                        certified_grid.gram(X, kernel, gamma),
                        y,
                    )


def _plateau_boxes(K):
    """Three boxes ``C`` so small (``C n max K_ii <= 1/4``) that every point is a support vector
    of the L2-SVM: there the rescaled functional is the same for every ``C``."""
    return [2.0**-k / (len(K) * float(np.max(np.diag(K)))) for k in (2, 4, 6)]


def test_l2_rescaled_functional_is_flat_where_every_point_is_a_support_vector():
    """Once every point is a support vector the margins are all 1, and the rescaled functional of
    the L2-SVM no longer depends on C (the selection_compared chapter proves it): on each of the
    30 structured problems, at three such C (90 fits), the values agree to 1e-12 and form one
    group of the tie rule. Decomposing K + I/C instead moved them by up to 0.1 relative on
    these problems (one-hot and integer-grid rows at gamma 2^-15 and 2^-7), because its
    eigenspaces and the axes of clustered eigenvalues change with 1/C."""
    compared = 0
    for name, K, y in _plateau_problems():
        values = []
        for C in _plateau_boxes(K):
            sol = fit_l2_svm(K, y, C)
            assert sol.support.size == len(y), name
            values.append(l2_rescaled_radius_margin_bound(K, sol, C))
            compared += 1
        assert np.ptp(values) <= 1e-12 * max(values), (name, values)
        assert len(set(ties.merged(values))) == 1, name
    assert compared == 90


@pytest.mark.parametrize("seed", [0, 1, 2, 4, 5])
def test_l2_rescaled_functional_from_K_equals_that_of_K_plus_I_over_C(seed):
    """H (K + I/C) H = H K H + H / C on the complement of the ones: where the eigenvalues are
    apart (overlapping Gaussian classes, RBF, C from 0.25 to 16, both boxes), the kernel PCA of
    K shifted by 1/C and that of K + I/C give the same value. (Seed 3's kernel has eigenvalues
    near 1e-11 whose axes neither decomposition fixes: the routes differ there by 3e-7.)"""
    K, y, _ = random_problem("soft", seed)
    gaps = np.diff(np.linalg.eigvalsh(K))
    assert gaps.min() > 1e-7 * np.linalg.eigvalsh(K)[-1]  # the premise: the axes are fixed
    for C in (0.25, 2.0, 16.0):
        sol = fit_l2_svm(K, y, C)
        for box in ("origin", "range"):
            direct = rescaled_radius_margin_bound(l2_kernel(K, C), sol, box=box)
            assert l2_rescaled_radius_margin_bound(K, sol, C, box) == pytest.approx(
                direct, rel=1e-8
            )
