"""The exact rank-sum p-value of several test examples (Saunders et al. 1999, Section 3.2):
enumeration, Monte Carlo, eq. (13) and the exact Mann-Whitney test as oracles."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, rankdata
from svmtrust import conformal
from svmtrust.rank_sum import rank_sum_counts, rank_sum_p_value, rank_sum_p_value_mc
from svmtrust.svm import merge_multiplier_ties


def test_merge_multiplier_ties():
    merged = merge_multiplier_ties([0.0, 0.0, 1.0, 1.0 + 1e-8, 2.0, 3.0 - 1e-9, 3.0, 0.5])
    assert merged.tolist() == [0.0, 0.0, 1.0 + 1e-8, 1.0 + 1e-8, 2.0, 3.0, 3.0, 0.5]


def _brute_rank_sum_p(scores, test_index):
    """Enumerate every k-subset: exact rational p-value."""
    ranks = [sum(1 for b in scores if b <= a) for a in scores]
    observed = sum(ranks[i] for i in test_index)
    subsets = list(itertools.combinations(range(len(scores)), len(test_index)))
    hits = sum(1 for s in subsets if sum(ranks[i] for i in s) >= observed)
    return Fraction(hits, len(subsets))


@pytest.mark.parametrize("seed", range(6))
def test_rank_sum_exact_against_enumeration(seed):
    rng = np.random.default_rng(seed)
    N, k = int(rng.integers(6, 13)), int(rng.integers(1, 5))
    scores = rng.integers(0, 4, size=N).astype(float)  # heavy ties, as multipliers at 0 and C
    test_index = rng.choice(N, size=k, replace=False)
    assert rank_sum_p_value(scores, test_index) == pytest.approx(
        float(_brute_rank_sum_p(scores.tolist(), test_index.tolist())), abs=1e-15
    )


@pytest.mark.parametrize("k", [2, 3, 5])
def test_rank_sum_exact_against_monte_carlo(k):
    """The test's own Monte Carlo, and the library's, agree with the exact DP within 4 SE."""
    rng = np.random.default_rng(k)
    scores = np.r_[np.zeros(30), rng.exponential(size=40)]  # a tie block at 0
    test_index = np.r_[rng.choice(30, 1), 30 + rng.choice(40, k - 1, replace=False)]
    exact = rank_sum_p_value(scores, test_index)
    ranks = rankdata(scores, method="max")
    draws = 40_000
    sums = np.array([ranks[rng.permutation(70)[:k]].sum() for _ in range(draws)])
    se = math.sqrt(exact * (1 - exact) / draws)
    assert abs(np.mean(sums >= ranks[test_index].sum()) - exact) <= 4 * se
    assert abs(rank_sum_p_value_mc(scores, test_index, draws, rng) - exact) <= 4 * se


@pytest.mark.parametrize("seed", range(5))
def test_rank_sum_k1_is_eq13(seed):
    rng = np.random.default_rng(seed)
    scores = rng.choice([0.0, 0.5, 1.0, 2.0, 3.5], size=25)
    for j in range(25):
        old = np.delete(scores, j)
        assert rank_sum_p_value(scores, [j]) == pytest.approx(
            conformal.p_values(old, scores[j]), abs=1e-15
        )
        assert rank_sum_p_value(scores, [j]) == pytest.approx(np.mean(scores >= scores[j]))


def test_rank_sum_without_ties_is_exact_mann_whitney():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=18)
    test_index = np.array([2, 5, 11, 17])
    train = np.delete(scores, test_index)
    expected = mannwhitneyu(scores[test_index], train, alternative="greater", method="exact").pvalue
    assert rank_sum_p_value(scores, test_index) == pytest.approx(expected, rel=1e-12)


def test_rank_sum_counts_add_up_at_the_size_limit():
    ranks = rankdata(np.r_[np.zeros(400), np.arange(110.0)], method="max")  # l = 500, k = 10
    counts = rank_sum_counts(ranks, 10)
    assert counts.sum() == pytest.approx(math.comb(510, 10), rel=1e-12)
    small = rank_sum_counts(
        rankdata(np.arange(30.0), method="max"), 4
    )  # binom(30, 4) < 2^53: exact integers
    assert small.sum() == math.comb(30, 4) and np.all(small == np.round(small))
