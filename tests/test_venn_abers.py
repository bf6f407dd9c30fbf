"""The inductive Venn-ABERS predictor against its definition and against the venn-abers package.

The definition is written again here without the library: pool-adjacent-violators in plain
Python on the calibration pairs and the test pair, tied scores one point, the fit read at the
test score. The generated problems hold the structures that decide ties: integer scores with
many copies, test scores equal to calibration scores, a calibration set of one label, scores
perturbed by rounding (which must not move a pair), and untied continuous scores.
"""

from __future__ import annotations

import numpy as np
import pytest
from svmtrust import ties
from svmtrust.venn_abers import (
    brier_merge,
    calibration_table,
    cross_merge,
    log_loss_merge,
    venn_abers_pairs,
)


def _pava(values, weights):
    """Non-decreasing least-squares fit by pool-adjacent-violators, in plain Python."""
    blocks = []  # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    return [m for m, _, c in blocks for _ in range(c)]


def _pair_by_definition(cal_scores, cal_labels, score):
    """``(p0, p1)`` of one test score: the fit on the calibration pairs and ``(score, y)``,
    exactly equal scores pooled, read at ``score``."""
    pair = []
    for label in (0.0, 1.0):
        scores = list(cal_scores) + [score]
        labels = list(cal_labels) + [label]
        levels = sorted(set(scores))
        sums = {s: 0.0 for s in levels}
        counts = {s: 0 for s in levels}
        for s, y in zip(scores, labels):
            sums[s] += y
            counts[s] += 1
        fit = _pava([sums[s] / counts[s] for s in levels], [counts[s] for s in levels])
        pair.append(fit[levels.index(score)])
    return tuple(pair)


def _problems():
    """``(name, cal_scores, cal_labels, test_scores)``: 4 structures x 5 seeds."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        k = int(rng.integers(5, 60))
        # integer scores with many copies and labels that conflict on them
        cal = rng.integers(-3, 4, k).astype(float)
        lab = (rng.random(k) < 1 / (1 + np.exp(-cal))).astype(float)
        yield f"integers {seed}", cal, lab, np.r_[np.arange(-5.0, 6.0), np.arange(-3.5, 4.0)]
        # continuous scores, test scores drawn anew and some equal to calibration scores
        cal = rng.normal(size=k)
        lab = (rng.random(k) < 1 / (1 + np.exp(-2 * cal))).astype(float)
        yield f"continuous {seed}", cal, lab, np.r_[rng.normal(size=20), cal[:5]]
        # one label only
        yield f"one label {seed}", cal, np.ones(k), np.r_[rng.normal(size=10), cal[:3]]
        # a few distinct values, each repeated
        cal = rng.choice([0.1, 0.2, 0.5, 0.9], k)
        lab = (rng.random(k) < cal).astype(float)
        yield f"four values {seed}", cal, lab, np.array([0.0, 0.1, 0.15, 0.2, 0.5, 0.7, 0.9, 1.0])


PROBLEMS = list(_problems())


@pytest.mark.parametrize("name,cal,lab,test", PROBLEMS, ids=[p[0] for p in PROBLEMS])
def test_pairs_equal_the_definition(name, cal, lab, test):
    """Every test score's pair equals the plain-Python definition (20 problems, 530 pairs), and
    0 <= p0 <= p1 <= 1."""
    p0, p1 = venn_abers_pairs(cal, lab, test)
    expected = np.array([_pair_by_definition(cal, lab, s) for s in test])
    np.testing.assert_allclose(p0, expected[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(p1, expected[:, 1], rtol=0, atol=1e-12)
    assert np.all((0 <= p0) & (p0 <= p1) & (p1 <= 1))


def test_rounding_does_not_move_a_pair():
    """Scores equal in exact arithmetic but for their last bits (each multiplied by 1 +- a few
    eps, calibration and test alike) give the pairs of the exact scores: the tie rule pools
    them, where exact comparison would split the copies into distinct points."""
    rng = np.random.default_rng(7)
    cal = rng.integers(0, 6, 80) / 7.0
    lab = (rng.random(80) < cal).astype(float)
    test = np.arange(0, 6) / 7.0
    exact = venn_abers_pairs(cal, lab, test)

    def jitter(x):
        return x * (1 + rng.integers(-4, 5, x.size) * np.finfo(float).eps)

    noisy_cal, noisy_test = jitter(cal), jitter(test)
    assert len(np.unique(noisy_cal)) > len(np.unique(cal))  # the bits differ
    again = venn_abers_pairs(noisy_cal, lab, noisy_test)
    np.testing.assert_array_equal(again[0], exact[0])
    np.testing.assert_array_equal(again[1], exact[1])


def test_a_bridging_or_outlying_test_score_reads_its_bag():
    """A test score the tie rule links to two calibration groups, and one beyond every
    calibration score, get the pair of their own bag merged by the rule."""
    cal = np.array([1.0, 1.0 + 1.5e-9, 2.0, 3.0])
    lab = np.array([0.0, 1.0, 0.0, 1.0])
    bridge, far = 1.0 + 0.75e-9, 3e9
    for score in (bridge, far):
        p0, p1 = venn_abers_pairs(cal, lab, [score])
        bag = np.r_[cal, score]
        merged = ties.merged(bag)
        expected = _pair_by_definition(merged[:-1], lab, merged[-1])
        assert (p0[0], p1[0]) == pytest.approx(expected, abs=1e-12)


def test_pairs_match_the_venn_abers_package():
    """IVAP against the package's ``VennAbers`` (Vovk, Petej & Fedorova's algorithms 1-6, as
    that package writes them) on untied scores in (0, 1) and on scores with
    copies: the same pairs to 1e-12, and its calibrated probability is the log-loss merge."""
    venn_abers = pytest.importorskip("venn_abers")
    largest = 0.0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        cal = rng.random(200) if seed % 2 else np.round(rng.random(200), 1)
        lab = (rng.random(200) < cal).astype(float)
        test = np.r_[rng.random(50), cal[:10]]
        model = venn_abers.VennAbers().fit(p_cal=np.c_[1 - cal, cal], y_cal=lab)
        p_prime, pairs = model.predict_proba(p_test=np.c_[1 - test, test])
        p0, p1 = venn_abers_pairs(cal, lab, test)
        largest = max(largest, np.max(np.abs(pairs - np.c_[p0, p1])))
        np.testing.assert_allclose(p_prime[:, 1], log_loss_merge(p0, p1), rtol=0, atol=1e-12)
    assert largest < 1e-12


def test_the_table_is_the_definition_at_every_gap():
    """Entry t of the table is the fit's value at a new point above exactly t levels."""
    rng = np.random.default_rng(3)
    cal = rng.integers(0, 5, 30).astype(float)
    lab = (rng.random(30) < 0.5).astype(float)
    table = calibration_table(cal, lab)
    between = np.r_[table["levels"][0] - 1, (table["levels"][:-1] + table["levels"][1:]) / 2]
    between = np.r_[between, table["levels"][-1] + 1]
    expected = np.array([_pair_by_definition(cal, lab, s) for s in between])
    np.testing.assert_allclose(table["p0"], expected[:, 0], atol=1e-12)
    np.testing.assert_allclose(table["p1"], expected[:, 1], atol=1e-12)


def test_merges_are_the_minimax_choices():
    """On a fine grid of p, the merges minimise the larger regret under log loss and under
    the Brier score (to the grid's step), for pairs drawn at random."""
    rng = np.random.default_rng(0)
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    for _ in range(20):
        p0, p1 = np.sort(rng.uniform(0.01, 0.99, 2))
        log_regret = np.maximum(np.log((1 - p0) / (1 - grid)), np.log(p1 / grid))
        brier_regret = np.maximum(grid**2 - p0**2, (1 - grid) ** 2 - (1 - p1) ** 2)
        assert abs(grid[np.argmin(log_regret)] - log_loss_merge(p0, p1)) < 1e-5
        assert abs(grid[np.argmin(brier_regret)] - brier_merge(p0, p1)) < 1e-5


def test_cross_merge_of_one_fold_is_the_log_loss_merge():
    """With one fold the geometric means are the values themselves."""
    p0, p1 = np.array([[0.1, 0.4, 0.0]]), np.array([[0.3, 0.5, 0.2]])
    np.testing.assert_allclose(cross_merge(p0, p1), log_loss_merge(p0[0], p1[0]))


def _diagrams():
    """Cumulative sum diagrams built to contain the hard structures: runs of groups of one
    label (collinear points of the diagram), groups of many copies with conflicting labels,
    a single group, and long untied stretches; 260 of them, 1 to 300 groups."""
    rng = np.random.default_rng(11)
    for case in range(260):
        G = int(rng.integers(1, 12)) if case < 200 else int(rng.integers(50, 300))
        counts = rng.integers(1, int(rng.integers(1, 6)) + 1, G)
        if case % 3 == 0:  # whole groups of one label, in runs
            ones = np.where(rng.random(G) < np.linspace(0.1, 0.9, G), counts, 0)
        elif case % 3 == 1:  # conflicting copies
            ones = rng.binomial(counts, np.linspace(0, 1, G))
        else:
            ones = (rng.random(G) < 0.5) * counts
        yield counts, ones


def _exact_max_min(counts, ones, label):
    """Eq. (VA) by brute force in rationals: the max-min of block means."""
    from fractions import Fraction

    W = np.r_[0, np.cumsum(counts)].tolist()
    S = np.r_[0, np.cumsum(ones)].tolist()
    G = len(W) - 1
    return [
        max(
            min(Fraction(S[j] - S[i] + label, W[j] - W[i] + 1) for j in range(t, G + 1))
            for i in range(t + 1)
        )
        for t in range(G + 1)
    ]


def test_the_bridge_table_is_the_max_min_exactly_and_the_isotonic_fit():
    """Every entry of the O(G log G) table is the correctly rounded rational of eq. (VA)
    (brute force, on the 200 small diagrams) and the isotonic fit's value with the new point
    inserted (scikit-learn's PAVA, every gap, on all 260; 1e-12)."""
    from sklearn.isotonic import isotonic_regression

    compared = 0
    for case, (counts, ones) in enumerate(_diagrams()):
        labels = np.concatenate([np.r_[np.ones(m), np.zeros(c - m)] for c, m in zip(counts, ones)])
        scores = np.repeat(np.arange(counts.size, dtype=float), counts)
        table = calibration_table(scores, labels)
        means = ones / counts
        for name, label in (("p0", 0), ("p1", 1)):
            fitted = [
                isotonic_regression(
                    np.insert(means, t, label), sample_weight=np.insert(counts, t, 1.0)
                )[t]
                for t in range(counts.size + 1)
            ]
            np.testing.assert_allclose(table[name], fitted, rtol=0, atol=1e-12)
            if case < 200:
                exact = [float(v) for v in _exact_max_min(counts, ones, label)]
                assert table[name].tolist() == exact
            compared += counts.size + 1
    assert compared > 10000
