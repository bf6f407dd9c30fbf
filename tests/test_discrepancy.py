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
    peeled_soft_loss_bounds,
    soft_loss,
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
        # A counterexample to Theorem 2 as stated: no point is critical at the hinge optimum,
        # so nothing is peeled, yet capping two points at loss 1 lowers the soft loss.
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
    assert np.all(bl.md >= ul.md - 1e-7)  # peeling lowers nu', so raises MD
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
    ids=["w_max zero", "w_max negative", "odd l", "NaN", "single class", "no shuffles",
         "NaN margins"],
)
def test_bad_input(call, name):
    X, y = _noisy(0, 10)
    with pytest.raises(ValueError) as info:
        call(X, y)
    assert str(info.value).startswith(f"{name}:"), str(info.value)


def test_protocol_same_results_for_n_jobs():
    """Both stages of the Table 1 protocol give identical rows with one worker and with two:
    every task draws from its own seeded generator, whichever process runs it."""
    stages = [(protocol._select_task, [(20, i, 3) for i in range(3)]),
              (protocol._table_task, [(20, i, 3, 1.0, 3) for i in range(3)])]
    for task, tasks in stages:
        one = parallel_map(task, tasks, seed=4, n_jobs=1, progress=False)
        two = parallel_map(task, tasks, seed=4, n_jobs=2, progress=False)
        assert one == two
        assert len({row["pi_hat"] for rows in one for row in rows}) > 1  # distinct draws


def test_table1_statistics_and_text():
    """Table 1's mean and Student-t half-width, in percent, on hand-made replicates, and the
    bound-against-CV comparison of the radius."""
    values = np.array([0.10, 0.12, 0.14, 0.16])
    rows = pd.DataFrame({
        "stage": "table", "l": 20, "w_max": 0.3, "BL": values, "UL": values - 0.01,
        "pi_hat": values / 2, "pi_hat_cv": values / 4, "UL_md_negative": [0.0, 0.0, 0.5, 0.0],
        "BL_md_min": [0.2, 0.1, 0.3, 0.4], "n_peeled": 1, "n_peeled_shuffles": 2.0,
        "w_max_cv": [1.0, 0.7, 1.0, 0.45], "pi_hat_plain": values / 3,
    })
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
    assert cv.loc[20, "pi_bound"] == pytest.approx(13.0 / 3) and cv.loc[20, "pi_cv"] == pytest.approx(3.25)
