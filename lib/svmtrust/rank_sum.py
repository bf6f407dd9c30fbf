"""The exact rank-sum p-value of several test examples (Saunders et al. 1999, Section 3.2).

Put ``k`` test examples into a bag of ``N = l + k`` examples, each with a strangeness score
(for the transductive SVM, its Lagrange multiplier). If the bag is exchangeable, the ranks of
the ``k`` test examples are a uniformly random ``k``-subset of the ranks of the bag, so the
p-value of the observed rank sum ``T`` is the fraction of ``k``-subsets whose ranks sum to at
least ``T``. This module counts those subsets exactly, by dynamic programming over rank sums,
and estimates the same fraction by Monte Carlo as a check.

* **Ranks with ties**: the rank of an example is the number of examples whose score is at
  most its own (``scipy.stats.rankdata(method="max")``: ties share the largest rank of their
  group), so that for ``k = 1`` the rank-sum p-value is exactly eq. (13) of the paper.
* **Ties within the solvers' accuracy**: the scores are ranked as given. The transductive SVM
  first makes multipliers that agree within the support tolerance exactly equal
  (:func:`svmtrust.svm.merge_multiplier_ties`), so that rounding cannot break a tie.

Examples
--------
>>> from svmtrust.rank_sum import rank_sum_p_value
>>> rank_sum_p_value([0.0, 0.0, 0.5, 1.0, 2.0], test_index=[3, 4])  # the 2 largest of 5
0.1
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import rankdata

from .validation import check_array, check_integer, check_rng

__all__ = ["rank_sum_counts", "rank_sum_p_value", "rank_sum_p_value_mc"]

#: Monte Carlo draws of :func:`rank_sum_p_value_mc` are made in chunks of this many.
_MC_CHUNK = 10_000


def _check_ranks(ranks) -> np.ndarray:
    """Return ``ranks`` as int64 if they are a non-empty 1-D array of integers in ``1..N``."""
    values = check_array(ranks, "ranks", ndim=1)
    if np.any(values != np.round(values)) or np.any((values < 1) | (values > values.size)):
        raise ValueError(f"ranks: must be integers in [1, {values.size}] (rankdata's ranks)")
    return values.astype(np.int64)


def rank_sum_counts(ranks, k: int) -> np.ndarray:
    """How many k-subsets of the ranks have each rank sum, by dynamic programming.

    ``counts[s]`` is the number of subsets of ``k`` of the ``N`` examples whose ranks sum to
    ``s``. Equal ranks are treated as a group of ``m`` examples of which ``c`` are taken in
    ``binom(m, c)`` ways; the recursion over groups, ``count_j(s) += binom(m, c) *
    count_{j-c}(s - c r)``, costs ``O(N k S)`` with ``S <= k N`` the largest sum. The counts
    are integers held in float64: exact when ``binom(N, k) < 2**53`` (every partial count is then
    an exactly representable integer), otherwise within a relative ``N k 2**-53``.

    Parameters
    ----------
    ranks : array_like of int, shape (N,)
        Ranks in ``1..N``, ties sharing the largest rank of their group
        (``scipy.stats.rankdata(scores, method="max")``).
    k : int
        Subset size, ``1 <= k <= N``.

    Returns
    -------
    ndarray of shape (S + 1,)
        Counts of the sums ``0..S``, ``S`` the sum of the ``k`` largest ranks; they add up to
        ``binom(N, k)``.

    Raises
    ------
    ValueError
        If ``ranks`` are not integers in ``1..N`` or ``k`` is not an integer in ``[1, N]``.
    """
    ranks = _check_ranks(ranks)
    k = check_integer(k, "k", low=1, high=ranks.size)
    top = int(np.sort(ranks)[-k:].sum())
    counts = np.zeros((k + 1, top + 1))
    counts[0, 0] = 1.0
    values, sizes = np.unique(ranks, return_counts=True)
    for rank, size in zip(values.tolist(), sizes.tolist()):
        for j in range(k, 0, -1):  # descending: counts[j - c] still excludes this group
            for c in range(1, min(size, j) + 1):
                shift = c * rank
                if shift > top:
                    break
                counts[j, shift:] += math.comb(size, c) * counts[j - c, : top + 1 - shift]
    return counts[k]


def _check_test_index(test_index, n: int) -> np.ndarray:
    """Validate the positions of the test examples in a bag of ``n``."""
    index = np.asarray(test_index)
    if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
        raise ValueError("test_index: expected a non-empty 1-D array of integer positions")
    if np.any((index < 0) | (index >= n)) or np.unique(index).size != index.size:
        raise ValueError(f"test_index: positions must be distinct and lie in [0, {n})")
    return index


def _ranks_and_index(scores, test_index) -> tuple[np.ndarray, np.ndarray]:
    """The ranks of the bag (``rankdata(method="max")``) and the checked test positions."""
    ranks = rankdata(check_array(scores, "scores", ndim=1), method="max")
    return ranks, _check_test_index(test_index, ranks.size)


def rank_sum_p_value(scores, test_index) -> float:
    """Exact p-value of several test examples (Section 3.2 of Saunders et al. 1999).

    With ranks ``R_j = #{i : a_i <= a_j}`` (``scipy.stats.rankdata(method="max")``: a random
    example has ``R >= R_j`` exactly when its score is at least ``a_j``, as in eq. (13)) over
    the whole bag of ``N = l + k`` examples and
    observed sum ``T = sum_{j in test} R_j``, the p-value is the probability that ``k`` ranks
    drawn without replacement sum to at least ``T``:
    ``#{k-subsets with rank sum >= T} / binom(N, k)``, counted by :func:`rank_sum_counts`.
    For ``k = 1`` it is eq. (13) (:func:`svmtrust.conformal.p_values`).

    Parameters
    ----------
    scores : array_like of shape (N,)
        Strangeness of every example of the bag (the Lagrange multipliers).
    test_index : array_like of int, shape (k,)
        Positions of the test examples in ``scores``.

    Returns
    -------
    float
        In ``[1 / binom(N, k), 1]``.

    Raises
    ------
    ValueError
        If ``scores`` is not a finite 1-D array, or ``test_index`` is not a non-empty array of
        distinct integer positions in it.
    """
    ranks, index = _ranks_and_index(scores, test_index)
    counts = rank_sum_counts(ranks, index.size)
    observed = int(ranks[index].sum())
    return float(counts[observed:].sum() / counts.sum())


def _random_subsets(n: int, k: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` uniform random k-subsets of ``range(n)``, one per row.

    Uniform k-tuples with a repeated index are drawn again: the tuples with distinct indices
    are uniform, so their sets are uniform k-subsets. Costs O(size k), not O(size n).
    """
    picks = rng.integers(n, size=(size, k))
    while True:
        ordered = np.sort(picks, axis=1)
        repeated = np.flatnonzero(np.any(ordered[:, 1:] == ordered[:, :-1], axis=1))
        if repeated.size == 0:
            return picks
        picks[repeated] = rng.integers(n, size=(repeated.size, k))


def rank_sum_p_value_mc(scores, test_index, n_draws: int, rng) -> float:
    """Monte Carlo estimate of :func:`rank_sum_p_value`, the check of the exact computation.

    Parameters
    ----------
    scores, test_index
        As for :func:`rank_sum_p_value`.
    n_draws : int
        Random k-subsets drawn, at least 1.
    rng : numpy.random.Generator or int
        The source of the draws, or a non-negative seed for ``numpy.random.default_rng``.

    Returns
    -------
    float
        The fraction of draws whose rank sum reaches the observed one; its standard error is
        ``sqrt(p (1 - p) / n_draws)``.

    Raises
    ------
    ValueError
        As :func:`rank_sum_p_value`, and if ``n_draws`` is not a positive integer or ``rng`` is
        neither a Generator nor a non-negative integer seed.
    """
    ranks, index = _ranks_and_index(scores, test_index)
    n_draws = check_integer(n_draws, "n_draws", low=1)
    rng = check_rng(rng, "rng", seed_ok=True)
    observed = ranks[index].sum()
    hits, left = 0, n_draws
    while left > 0:
        size = min(left, _MC_CHUNK)
        picks = _random_subsets(ranks.size, index.size, size, rng)
        hits += int(np.sum(ranks[picks].sum(axis=1) >= observed))
        left -= size
    return hits / n_draws
