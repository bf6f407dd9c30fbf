"""The CORP reliability curve, score decomposition and consistency band against their definitions.

The curve is written again here without the library: equal forecasts grouped in plain Python,
pool-adjacent-violators on the groups' frequencies weighted by their sizes, and, on small
problems, the max-min formula of isotonic regression. The generated problems hold the
structures that decide ties and edge cases: continuous forecasts, a few distinct forecasts with
many copies each, all forecasts equal, outcomes of one class only, forecasts of exactly 0 and 1
that the outcome contradicts, calibrated forecasts equal to their groups' frequencies, and a
single example.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from svmtrust.reliability import (
    LOG_EPS,
    brier_score,
    consistency_band,
    corp_curve,
    log_loss,
    score_decomposition,
)


def _pava(values, weights):
    """Non-decreasing weighted least-squares fit by pool-adjacent-violators, in plain Python."""
    blocks = []  # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return [m for m, _, c in blocks for _ in range(c)]


def _grouped(forecasts, outcomes):
    """The distinct forecasts (ascending), their sizes and their numbers of outcomes 1."""
    levels = sorted(set(float(f) for f in forecasts))
    counts = {f: 0 for f in levels}
    ones = {f: 0 for f in levels}
    for f, y in zip(forecasts, outcomes):
        counts[float(f)] += 1
        ones[float(f)] += int(y)
    return levels, [counts[f] for f in levels], [ones[f] for f in levels]


def _curve_by_definition(forecasts, outcomes):
    """``(levels, fit)``: PAV of the groups' frequencies weighted by the groups' sizes."""
    levels, counts, ones = _grouped(forecasts, outcomes)
    return levels, _pava([k / m for k, m in zip(ones, counts)], counts)


def _curve_by_min_max(forecasts, outcomes):
    """The isotonic fit at group ``t``: the max over ``i <= t`` of the min over ``j >= t`` of
    the frequency of outcome 1 in the groups ``i .. j`` (brute force, O(G^3))."""
    levels, counts, ones = _grouped(forecasts, outcomes)
    G = len(levels)
    return [
        max(
            min(sum(ones[i : j + 1]) / sum(counts[i : j + 1]) for j in range(t, G))
            for i in range(t + 1)
        )
        for t in range(G)
    ]


def _calibrated(rng, n_groups):
    """Forecasts equal to their groups' frequencies ``k / m``, strictly increasing across the
    groups: the forecasts are their own PAV fit."""
    forecasts, outcomes = [], []
    sizes = rng.integers(1, 12, n_groups)
    groups = {}  # one group a frequency, so that the forecasts are distinct across groups
    for m in sizes:
        k = int(rng.integers(0, m + 1))
        groups.setdefault(k / m, (k, int(m)))
    for k, m in groups.values():
        forecasts += [k / m] * m
        outcomes += [1.0] * k + [0.0] * (m - k)
    order = rng.permutation(len(forecasts))
    return np.array(forecasts)[order], np.array(outcomes)[order]


def _problems():
    """``(name, forecasts, outcomes)``: 7 structures x 8 seeds, and one single example."""
    for seed in range(8):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(5, 120))
        x = rng.random(n)
        yield f"continuous, miscalibrated {seed}", x, (rng.random(n) < x**2).astype(float)
        x = rng.choice([0.05, 0.2, 0.5, 0.55, 0.9], n)
        yield f"five values {seed}", x, (rng.random(n) < 1 - x).astype(float)
        yield f"all equal {seed}", np.full(n, 0.3), (rng.random(n) < 0.3).astype(float)
        cls = float(seed % 2)
        yield f"one class {seed}", rng.random(n), np.full(n, cls)
        x = rng.choice([0.0, 0.0, 1.0, 0.4], n)
        yield f"zeros and ones {seed}", x, (rng.random(n) < 0.5).astype(float)
        yield f"calibrated {seed}", *_calibrated(rng, int(rng.integers(1, 8)))
        x = np.round(rng.random(n), 1)
        yield f"rounded, calibrated draws {seed}", x, (rng.random(n) < x).astype(float)
    yield "one example", np.array([0.7]), np.array([1.0])


PROBLEMS = list(_problems())
IDS = [p[0] for p in PROBLEMS]


@pytest.mark.parametrize("name,x,y", PROBLEMS, ids=IDS)
def test_curve_equals_plain_pava(name, x, y):
    """The levels are the distinct forecasts, ascending, and the fit equals the plain-Python
    PAV of the groups (57 problems) to 1e-12: non-decreasing, in [0, 1]."""
    levels, fit = corp_curve(x, y)
    expected_levels, expected = _curve_by_definition(x, y)
    np.testing.assert_array_equal(levels, expected_levels)
    np.testing.assert_allclose(fit, expected, rtol=0, atol=1e-12)
    assert np.all(np.diff(fit) >= 0) and np.all((0 <= fit) & (fit <= 1))


SMALL = [p for p in PROBLEMS if len(set(p[1])) <= 40]


@pytest.mark.parametrize("name,x,y", SMALL, ids=[p[0] for p in SMALL])
def test_curve_equals_the_min_max_formula(name, x, y):
    """On the 41 problems of at most 40 distinct forecasts, the fit equals the max-min formula
    of isotonic regression, a second definition that shares nothing with PAV."""
    np.testing.assert_allclose(corp_curve(x, y)[1], _curve_by_min_max(x, y), rtol=0, atol=1e-12)


def test_the_order_of_the_examples_does_not_matter():
    rng = np.random.default_rng(3)
    x = rng.choice([0.1, 0.3, 0.6, 0.8], 60)
    y = (rng.random(60) < x).astype(float)
    order = rng.permutation(60)
    for got, expected in zip(corp_curve(x[order], y[order]), corp_curve(x, y)):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("score", ["brier", "log"])
@pytest.mark.parametrize("name,x,y", PROBLEMS, ids=IDS)
def test_decomposition_identity_and_signs(name, x, y, score):
    """score == MCB - DSC + UNC to 1e-12, the score is the one of brier_score / log_loss, and
    MCB >= 0, DSC >= 0 up to rounding (the module notes' proof) on 57 problems x 2 scores."""
    parts = score_decomposition(x, y, score=score)
    direct = brier_score(x, y) if score == "brier" else log_loss(x, y)
    assert parts["score"] == pytest.approx(direct, rel=1e-12, abs=1e-15)
    assert parts["score"] == pytest.approx(
        parts["mcb"] - parts["dsc"] + parts["unc"], rel=0, abs=1e-12
    )
    assert parts["mcb"] >= -1e-15 and parts["dsc"] >= -1e-15
    assert all(isinstance(v, float) and math.isfinite(v) for v in parts.values())


@pytest.mark.parametrize("name,x,y", PROBLEMS, ids=IDS)
def test_components_in_closed_form(name, x, y):
    """Independent formulas of the parts. Brier: UNC = c (1 - c) and DSC = mean (r - c)^2 (the
    cross term vanishes on every PAV block); log: UNC is the entropy of c and DSC the mean
    Kullback-Leibler divergence of c from r (both clipped at LOG_EPS)."""
    c = float(np.mean(y))
    _, group = np.unique(x, return_inverse=True)
    r = np.asarray(_curve_by_definition(x, y)[1])[group]
    brier = score_decomposition(x, y, "brier")
    assert brier["unc"] == pytest.approx(c * (1 - c), abs=1e-12)
    assert brier["dsc"] == pytest.approx(float(np.mean((r - c) ** 2)), abs=1e-12)

    def clip(p):
        return np.clip(p, LOG_EPS, 1 - LOG_EPS)

    def kl(p, q):
        return p * np.log(clip(p) / clip(q)) + (1 - p) * np.log(clip(1 - p) / clip(1 - q))

    log = score_decomposition(x, y, "log")
    cc = float(clip(c))
    assert log["unc"] == pytest.approx(-c * np.log(cc) - (1 - c) * np.log1p(-cc), abs=1e-12)
    assert log["dsc"] == pytest.approx(float(np.mean(kl(r, c))), abs=1e-12)


def test_calibrated_forecasts_have_mcb_zero_exactly():
    """Forecasts equal to their groups' frequencies are their own PAV fit, bit for bit: MCB is
    0.0 for both scores (20 problems); moving one group off its frequency makes MCB positive."""
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        x, y = _calibrated(rng, int(rng.integers(1, 10)))
        levels, fit = corp_curve(x, y)
        np.testing.assert_array_equal(fit, levels)
        for score in ("brier", "log"):
            assert score_decomposition(x, y, score)["mcb"] == 0.0
        lowest = x == x.min()
        moved = np.where(lowest, x.min() / 2, x)  # the lowest group off its frequency
        if x.min() > 0:
            for score in ("brier", "log"):
                assert score_decomposition(moved, y, score)["mcb"] > 0


def test_all_equal_forecasts_and_one_class():
    """All forecasts equal: the curve is one point, the mean outcome, and DSC is 0.0. One class
    only: the fit is that class everywhere, the Brier UNC and DSC are 0.0, and the log UNC is
    the clipped entropy, below 1e-13."""
    y = np.array([0, 1, 1, 0, 1.0])
    levels, fit = corp_curve(np.full(5, 0.4), y)
    assert levels.tolist() == [0.4] and fit.tolist() == [0.6]
    for score in ("brier", "log"):
        assert score_decomposition(np.full(5, 0.4), y, score)["dsc"] == 0.0
    x = np.array([0.1, 0.5, 0.9, 0.5])
    for cls in (0.0, 1.0):
        assert corp_curve(x, np.full(4, cls))[1].tolist() == [cls] * 3
        brier = score_decomposition(x, np.full(4, cls), "brier")
        assert brier["unc"] == 0.0 and brier["dsc"] == 0.0
        assert brier["mcb"] == pytest.approx(brier["score"], abs=1e-15)
        assert 0 < score_decomposition(x, np.full(4, cls), "log")["unc"] < 1e-13


def test_pav_scores_best_among_isotonic_recalibrations():
    """The claim behind MCB >= 0 and DSC >= 0, checked directly: no non-decreasing map of the
    forecasts (200 random ones, sorted uniforms and steps) scores better than the PAV fit under
    either score."""
    rng = np.random.default_rng(11)
    x = rng.choice(np.linspace(0.05, 0.95, 12), 150)
    y = (rng.random(150) < 0.2 + 0.6 * x**3).astype(float)
    levels, fit = corp_curve(x, y)
    group = np.searchsorted(levels, x)
    best_brier, best_log = brier_score(fit[group], y), log_loss(fit[group], y)
    for k in range(200):
        values = rng.random(levels.size) if k % 2 else rng.choice([0.0, 0.3, 0.7, 1.0], levels.size)
        g = np.sort(values)[group]
        assert brier_score(g, y) >= best_brier - 1e-15
        assert log_loss(g, y) >= best_log - 1e-15


def test_log_loss_clips_forecasts_of_zero_and_one():
    """A forecast 0 against outcome 1 costs -log(eps), finite; a forecast inside the interval
    is untouched; eps is the argument's."""
    assert log_loss([0.0], [1.0]) == pytest.approx(-math.log(LOG_EPS))
    assert log_loss([1.0], [0.0]) == log_loss([0.0], [1.0])  # 1 - LOG_EPS is exact
    assert log_loss([0.0, 1.0], [0.0, 1.0]) < 1e-14
    assert log_loss([0.25], [1.0]) == pytest.approx(math.log(4))
    assert log_loss([0.0], [1.0], eps=0.01) == pytest.approx(-math.log(0.01))
    assert brier_score([0.25, 1.0], [1.0, 1.0]) == pytest.approx(0.5625 / 2)


def test_band_is_reproducible_from_its_seed():
    """The same seed gives the same band bit for bit; a Generator in the same state gives it
    too; another seed another band; the global numpy state neither matters nor moves."""
    rng = np.random.default_rng(5)
    x = np.round(rng.random(300), 2)
    np.random.seed(1)
    state = np.random.get_state()[1].copy()
    first = consistency_band(x, n_resamples=200, level=0.9, seed=42)
    np.testing.assert_array_equal(np.random.get_state()[1], state)
    np.random.seed(2)
    again = consistency_band(x, n_resamples=200, level=0.9, seed=42)
    generator = consistency_band(x, n_resamples=200, level=0.9, seed=np.random.default_rng(42))
    for a, b, c in zip(first, again, generator):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    other = consistency_band(x, n_resamples=200, level=0.9, seed=43)
    assert not (np.array_equal(first[1], other[1]) and np.array_equal(first[2], other[2]))


def test_band_shape_and_order():
    rng = np.random.default_rng(6)
    x = rng.choice([0.0, 0.2, 0.5, 1.0], 80)
    levels, lower, upper = consistency_band(x, n_resamples=100, level=0.8, seed=1)
    np.testing.assert_array_equal(levels, np.unique(x))
    assert np.all(lower <= upper) and np.all((0 <= lower) & (upper <= 1))
    assert lower[0] == upper[0] == 0.0 and lower[-1] == upper[-1] == 1.0  # forecasts 0 and 1
    wide = consistency_band(x, n_resamples=100, level=0.98, seed=1)
    assert np.all(wide[1] <= lower) and np.all(upper <= wide[2])


def test_band_contains_calibrated_forecasts():
    """For calibrated forecasts (400 examples, outcomes drawn as Bernoulli of the forecasts; 5
    problems), the 90% band contains the diagonal at 90% of the distinct forecasts or more in
    every problem, and the observed curve at 80% or more on average (the band's coverage is
    pointwise, and one curve can leave it along a stretch: 76% in the worst problem here)."""
    inside = []
    for seed in range(5):
        rng = np.random.default_rng(200 + seed)
        x = rng.random(400)
        y = (rng.random(400) < x).astype(float)
        levels, lower, upper = consistency_band(x, n_resamples=300, level=0.9, seed=seed)
        _, fit = corp_curve(x, y)
        assert np.mean((lower <= levels) & (levels <= upper)) >= 0.9
        inside.append(np.mean((lower <= fit) & (fit <= upper)))
    assert np.mean(inside) >= 0.8


def test_band_flags_miscalibrated_forecasts():
    """Forecasts whose outcomes follow x^3 instead: the observed curve leaves the band at most
    of the distinct forecasts (it stays inside at 17% of them)."""
    rng = np.random.default_rng(9)
    x = rng.random(400)
    y = (rng.random(400) < x**3).astype(float)
    levels, lower, upper = consistency_band(x, n_resamples=300, level=0.9, seed=0)
    _, fit = corp_curve(x, y)
    assert np.mean((lower <= fit) & (fit <= upper)) < 0.5
