"""Maximal discrepancy (Anguita, Ghio & Ridella 2010): soft loss, bounded-w SVM, peeling, MD."""

from functools import partial

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from svmtrust.discrepancy import (
    exact_min_soft_loss,
    fit_bounded_w,
    maximal_discrepancy,
    optimal_set_widths,
    peel,
    peeled_soft_loss_bounds,
    represent,
    soft_loss,
    soft_loss_lower_bound,
)
from svmtrust.experiments import discrepancy as protocol
from svmtrust.experiments import parallel_map
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.svm import fit_svm


def _noisy(seed, l, d=2, noise=0.2):
    """Two overlapping Gaussian classes with a fraction ``noise`` of labels flipped."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(l) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(l, d)) + 0.8 * y[:, None]
    flip = rng.random(l) < noise
    return X, np.where(flip, -y, y)


def _tiny(seed):
    """The random tiny problems of the sandwich check (l = 4..8, radius 0.3, 1 or 3)."""
    rng = np.random.default_rng(seed)
    l = int(rng.integers(4, 9))
    X = rng.normal(size=(l, 2))
    y = np.where(rng.random(l) < 0.5, -1.0, 1.0)
    y[:2] = 1.0, -1.0
    return X, y, float(rng.choice([0.3, 1.0, 3.0]))


def test_soft_loss_at_breakpoints_and_symmetry():
    m = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    hard = (m <= 0).astype(float)
    hinge = np.maximum(0.0, 1.0 - m)
    expected = np.where(m <= -1, hard, hinge / 2)  # eq. (2), term by term
    assert np.array_equal(soft_loss(m), expected)
    assert soft_loss([-1.0, 0.0, 1.0]).tolist() == [1.0, 0.5, 0.0]
    assert np.allclose(soft_loss(m), 1.0 - soft_loss(-m))  # eq. (6)


@pytest.mark.parametrize("seed", [5, 8, 9, 12, 13, 21])
def test_peeled_bounds_sandwich_exact_minimum(seed):
    """Theorem 3 (upper) always holds. Theorem 2 (lower) holds on these instances."""
    X, y, w_max = _tiny(seed)
    lower, upper, _ = peeled_soft_loss_bounds(X, y, w_max)
    exact = exact_min_soft_loss(X, y, w_max)
    assert exact <= upper + 1e-7
    if seed != 21:
        assert lower <= exact + 1e-7
    else:
        # A counterexample to Theorem 2 for the peeled set: problem (9) has a unique optimum
        # (so no tie rule is involved), no point is critical there, so nothing is peeled, yet
        # capping two points at loss 1 lowers the soft loss.
        _, _, n_peeled = peeled_soft_loss_bounds(X, y, w_max)
        assert n_peeled == 0
        assert optimal_set_widths(X, y, w_max).max() < 1e-3
        assert lower > exact + 0.1


def test_upper_bound_sandwich_on_random_tiny_problems():
    for seed in range(20, 28):
        X, y, w_max = _tiny(seed)
        lower, upper, _ = peeled_soft_loss_bounds(X, y, w_max)
        assert lower <= upper
        assert exact_min_soft_loss(X, y, w_max) <= upper + 1e-7


def test_md_nonnegative_when_bounded():
    for seed in range(3):
        X, y = _noisy(seed, 20, noise=0.3)
        result = maximal_discrepancy(X, y, w_max=2.0, n_shuffles=8, seed=seed)
        assert np.all(result.md >= 0.0)
        assert result.bound == pytest.approx(result.train_error + result.md.mean())
        assert result.delta_term == pytest.approx(3 * np.sqrt(-np.log(0.025) / 40))


def test_unbounded_variant_uses_plain_soft_loss():
    X, y = _noisy(1, 20, noise=0.3)
    bl = maximal_discrepancy(X, y, 2.0, n_shuffles=6, seed=3)
    ul = maximal_discrepancy(X, y, 2.0, n_shuffles=6, seed=3, bounded=False)
    w, b, _ = fit_bounded_w(X, y, 2.0)
    assert ul.train_error == pytest.approx(np.mean(soft_loss(y * (X @ w + b))), abs=1e-7)
    assert np.all(bl.md >= ul.md - 1e-7)  # on these data peeling lowers nu', so raises MD
    assert np.all(ul.md >= -1e-7)  # an exact hinge solution has soft loss <= 1/2


@pytest.mark.parametrize("w_max", [0.3, 1.0, 5.0])
def test_norm_within_w_max(w_max):
    X, y = _noisy(2, 30, d=3)
    w, b, xi = fit_bounded_w(X, y, w_max)
    assert np.linalg.norm(w) <= w_max * (1 + 1e-7)
    assert np.allclose(xi, np.maximum(0.0, 1.0 - y * (X @ w + b)), atol=1e-7)
    kernel = partial(rbf_kernel, gamma=0.5)
    beta, b, _ = fit_bounded_w(X, y, w_max, kernel=kernel)
    assert beta @ kernel(X, X) @ beta <= w_max**2 * (1 + 1e-6)


def test_label_flipping_identity_over_finite_class():
    """Eq. (7): max_f (nu1 - nu2) = 1 - 2 min_f nu' for any class, here 200 random lines."""
    X, y = _noisy(4, 16)
    rng = np.random.default_rng(0)
    W, B = rng.normal(size=(200, 2)), rng.normal(size=200)
    F = X @ W.T + B  # f_k(x_i) in column k
    half = len(y) // 2
    losses = soft_loss(y[:, None] * F)
    md = np.max(losses[:half].mean(axis=0) - losses[half:].mean(axis=0))
    flipped = np.r_[-y[:half], y[half:]]
    assert md == pytest.approx(1.0 - 2.0 * np.min(soft_loss(flipped[:, None] * F).mean(axis=0)))


@pytest.mark.parametrize("C", [0.1, 1.0])
def test_equivalent_to_c_svm(C):
    X, y = _noisy(3, 40, noise=0.1)
    svm = fit_svm(linear_kernel(X), y, C)
    w_svm = X.T @ svm.coef
    w, b, xi = fit_bounded_w(X, y, np.linalg.norm(w_svm))
    assert np.allclose(w, w_svm, atol=1e-5 * np.linalg.norm(w_svm))
    xi_svm = np.maximum(0.0, 1.0 - y * (X @ w_svm + svm.b))
    assert xi.sum() == pytest.approx(xi_svm.sum(), rel=1e-6)


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda X, y: fit_bounded_w(X, y, 0.0), "w_max"),
        (lambda X, y: fit_bounded_w(X, y, -1.0), "w_max"),
        (lambda X, y: maximal_discrepancy(X[:-1], y[:-1], 1.0, n_shuffles=2), "X"),
        (lambda X, y: fit_bounded_w(np.where(X > 1, np.nan, X), y, 1.0), "X"),
        (lambda X, y: peeled_soft_loss_bounds(X, np.ones_like(y), 1.0), "y"),
        (lambda X, y: maximal_discrepancy(X, y, 1.0, n_shuffles=0), "n_shuffles"),
        (lambda X, y: soft_loss([0.0, np.nan]), "margins"),
    ],
    ids=[
        "w_max zero",
        "w_max negative",
        "odd l",
        "NaN",
        "single class",
        "no shuffles",
        "NaN margins",
    ],
)
def test_bad_input(call, name):
    X, y = _noisy(0, 10)
    with pytest.raises(ValueError) as info:
        call(X, y)
    assert str(info.value).startswith(f"{name}:"), str(info.value)


def test_protocol_same_results_for_n_jobs():
    """Both stages of the Table 1 protocol give identical rows with one worker and with two:
    every task draws from its own seeded generator, whichever process runs it."""
    stages = [
        (protocol._select_task, [(20, i, 3) for i in range(3)]),
        (protocol._table_task, [(20, i, 3, 1.0, 3) for i in range(3)]),
    ]
    for task, tasks in stages:
        one = parallel_map(task, tasks, seed=4, n_jobs=1, progress=False)
        two = parallel_map(task, tasks, seed=4, n_jobs=2, progress=False)
        assert one == two
        assert len({row["pi_hat"] for rows in one for row in rows}) > 1  # distinct draws


def test_table1_statistics_and_text():
    """Table 1's mean and Student-t half-width, in percent, on hand-made replicates, and the
    bound-against-CV comparison of the radius."""
    values = np.array([0.10, 0.12, 0.14, 0.16])
    rows = pd.DataFrame(
        {
            "stage": "table",
            "l": 20,
            "w_max": 0.3,
            "BL": values,
            "UL": values - 0.01,
            "pi_hat": values / 2,
            "pi_hat_cv": values / 4,
            "UL_md_negative": [0.0, 0.0, 0.5, 0.0],
            "BL_md_min": [0.2, 0.1, 0.3, 0.4],
            "n_peeled": 1,
            "n_peeled_shuffles": 2.0,
            "w_max_cv": [1.0, 0.7, 1.0, 0.45],
            "pi_hat_plain": values / 3,
        }
    )
    t1 = protocol.table1(rows)
    half = stats.t.ppf(0.975, 3) * 100 * values.std(ddof=1) / 2
    assert t1.loc[20, "BL"] == pytest.approx(13.0) and t1.loc[20, "BL_ci"] == pytest.approx(half)
    assert t1.loc[20, "UL"] == pytest.approx(12.0) and t1.loc[20, "pi_hat"] == pytest.approx(6.5)
    assert t1.loc[20, "UL_md_negative_%"] == pytest.approx(12.5)
    assert t1.loc[20, "BL_md_min"] == pytest.approx(0.1)
    assert t1.loc[20, "paper_BL"] == 32.5
    text = protocol.table1_text(rows)
    assert text.loc[20, "BL book"] == f"13.0 ± {half:.1f}"
    assert text.loc[20, "BL paper"] == "32.5 ± 1.2"
    cv = protocol.cv_comparison(rows)
    assert cv.loc[20, "w_max_bound"] == 0.3 and cv.loc[20, "w_max_cv_median"] == 0.85
    assert cv.loc[20, "pi_bound"] == pytest.approx(13.0 / 3) and cv.loc[
        20, "pi_cv"
    ] == pytest.approx(3.25)


def _small(seed):
    """Random small problems for the certified bound: l = 4..8, d = 1..3, radii over 3 decades,
    offset and scaled points (the bias range must be handled), both classes present."""
    rng = np.random.default_rng(seed)
    l, d = int(rng.integers(4, 9)), int(rng.integers(1, 4))
    X = rng.normal(size=(l, d)) * rng.choice([0.3, 1.0, 4.0]) + rng.normal(size=d) * 3
    y = np.where(rng.random(l) < 0.5, -1.0, 1.0)
    y[:2] = 1.0, -1.0
    return X, y, float(rng.choice([0.05, 0.3, 1.0, 3.0, 20.0]))


def test_certified_lower_bound_below_exact_minimum():
    """The envelope bound never exceeds the exact minimum soft loss (2^l convex solves), on
    many random small problems, linear and RBF."""
    gaps = []
    for seed in range(60):
        X, y, w_max = _small(seed)
        kernel = partial(rbf_kernel, gamma=0.5) if seed % 4 == 3 else None
        bound = soft_loss_lower_bound(X, y, w_max, kernel=kernel)
        exact = exact_min_soft_loss(X, y, w_max, kernel=kernel)
        assert 0.0 <= bound <= exact + 1e-9, (seed, bound, exact)
        gaps.append(exact - bound)
    assert max(gaps) > 0.05  # the test can fail: the bound is not trivially 0 ...
    assert min(gaps) < 1e-6  # ... and it is tight on some problems


def test_certified_lower_bound_below_random_rules():
    """Independently of the enumeration: no rule of the class, sampled at random with biases
    far outside the range the bound keeps, has a soft loss below the bound."""
    for seed in range(8):
        X, y, w_max = _small(100 + seed)
        bound = soft_loss_lower_bound(X, y, w_max)
        rng = np.random.default_rng(seed)
        W = rng.normal(size=(4000, X.shape[1]))
        W *= w_max * rng.random((4000, 1)) / np.linalg.norm(W, axis=1, keepdims=True)
        b = rng.normal(size=4000) * 10 * (1 + w_max * np.abs(X).max())
        losses = soft_loss(y[:, None] * (X @ W.T + b)).mean(axis=0)
        assert losses.min() >= bound - 1e-9


def test_certified_lower_bound_closed_form():
    """All points at one location: the envelope is exact there (range [-1, 1]), and the
    minimum soft loss is min(n_+, n_-) / l, reached by a constant rule."""
    X = np.ones((5, 2))
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0])
    assert soft_loss_lower_bound(X, y, 1.0) == pytest.approx(0.4, abs=1e-7)
    assert exact_min_soft_loss(X, y, 1.0) == pytest.approx(0.4, abs=1e-7)


def test_optimal_set_widths_detect_ties():
    """Two points at one location with opposite labels: the hinge loss is 2 for every bias in
    [-1, 1] (a width of 2 in b). Two points apart at a radius too small to separate them: w
    is unique (the ball is curved) but b still ranges over [-1/2, 1/2] (a width of 1)."""
    X = np.zeros((2, 1))
    y = np.array([1.0, -1.0])
    assert optimal_set_widths(X, y, 1.0)[0] == pytest.approx(2.0, abs=1e-4)
    X = np.array([[-1.0], [1.0]])
    widths = optimal_set_widths(X, y, 0.5)
    assert widths[0] == pytest.approx(1.0, abs=1e-4) and widths[1] < 1e-3


def test_md_floor_of_constant_rules():
    """The peeled MD is at least |n'_+ - n'_-| / l (the constant rules), on random flips."""
    X, y = _noisy(5, 30, noise=0.3)
    rep = represent(X)
    rng = np.random.default_rng(0)
    for _ in range(6):
        flipped = y.copy()
        flipped[rng.permutation(30)[:15]] *= -1
        run = peel(rep, flipped, 0.5)
        assert 1 - 2 * run.lower >= protocol.md_floor(flipped) - 1e-7
    assert protocol.md_floor(np.array([1.0, 1.0, 1.0, -1.0])) == 0.5


def test_certify_rebuilds_the_table_replicates():
    """The certified stage redraws each table replicate from its generator: the same test soft
    loss, and a certified MD above the plain solution's MD (which is below the true MD)."""
    from svmtrust.experiments import task_rng

    for i in range(2):
        row = protocol._table_task((20, i, 4, 0.3, 2), task_rng(1, i))[0]
        cert = protocol._certify_task((20, i, 4, 0.3), task_rng(1, i))[0]
        assert cert["pi_hat"] == row["pi_hat"]
        assert cert["cert_md"] >= row["UL_md"] - 1e-9
        assert cert["cert_bound"] >= cert["nu_rule"]
