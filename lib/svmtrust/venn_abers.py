"""Inductive Venn-ABERS predictors: two probabilities, one of them calibrated.

A Venn predictor (Vovk, Gammerman & Shafer 2005, ch. 6) splits the examples into categories and
predicts, for a new object, the frequency of label 1 in its category, once for each label the
object could have. Venn-ABERS predictors (Vovk & Petej 2014) take the categories from isotonic
regression of the labels on a classifier's scores: for a test score ``s`` and a hypothetical
label ``y``, fit the non-decreasing function of the score to the calibration pairs together with
``(s, y)`` (the pool-adjacent-violators algorithm, tied scores one point), and read its value at
``s``. With ``y = 0`` this is ``p0``, with ``y = 1`` it is ``p1``, and ``p0 <= p1``. On
exchangeable data the pair contains, in the papers' sense, a calibrated probability: the one of
the true label (Vovk & Petej 2014; Vovk, Gammerman & Shafer 2005, ch. 6). No single number is
guaranteed calibrated; the merges :func:`log_loss_merge` and :func:`brier_merge` are the
minimax choices of one probability under each loss (the log-loss merge is Vovk, Petej &
Fedorova's 2015; both are derived in their docstrings).

The inductive predictor reads one calibration set. Its fitted value at the new point depends only
on where the new score falls among the distinct calibration scores and on its label, so the
``2 (G + 1)`` values, for ``G`` distinct calibration scores, are computed once
(:func:`calibration_table`) and each test score is located by a binary search. A test score
equal to a calibration score is pooled with it: label 0 pooled with the group gives the value of
label 0 just above the group, label 1 the value just below (the violator is pooled either way).
Scores are compared by the library's tie rule (:mod:`svmtrust.ties`): values equal in exact
arithmetic are equal here whatever their last bits.

**The table in O(G log G).** Let the groups, ascending, hold ``n_1, ..., n_G`` scores of which
``m_1, ..., m_G`` are labelled 1, and let ``W_i = n_1 + ... + n_i`` and ``S_i = m_1 + ... + m_i``
(``W_0 = S_0 = 0``): the cumulative sum diagram of Vovk, Petej & Fedorova (2015). The isotonic
fit's value at a point is the max-min of block means over the blocks holding it; a new point of
label ``y`` after the first ``t`` groups lies in the blocks of groups ``i + 1 .. j`` with
``i <= t <= j``, of mean ``(S_j - S_i + y) / (W_j - W_i + 1)``, so

.. math:: p_y(t) = \\max_{i \\le t} \\min_{j \\ge t} \\frac{S_j - (S_i - y)}{W_j - (W_i - 1)},
   \\qquad \\text{(VA)}

the slope from the point ``A_i = (W_i - 1, S_i - y)`` to ``B_j = (W_j, S_j)``. Every ``A_i`` with
``i <= t`` lies left of every ``B_j`` with ``j >= t``, and the max-min slope between two such
sets is the slope of their lower common tangent (the bridge of their lower convex hulls).
As ``t`` grows the ``A`` set gains a point on the right, the ``B`` set loses its leftmost
point and ``p_y(t)`` does not fall, so the bridge's end on ``B`` never moves left:
:func:`_bridge_slopes` keeps the hull of the ``A_i`` as a stack, reads the hulls of the ``B_j``
from next-vertex pointers computed once from the right, walks the ``B`` end to the right and
finds the ``A`` end by binary search, ``O(G log G)`` in all (after the sort; Vovk, Petej &
Fedorova's own stack algorithm reaches the same values in linear time after sorting). The
diagram's coordinates are integers, so every comparison is an exact integer cross product and
each value is the correctly rounded ratio of two integers: no isotonic fit's rounding enters.
"""

from __future__ import annotations

import numpy as np
from sklearn.isotonic import isotonic_regression

from . import ties
from .validation import check_array

__all__ = [
    "calibration_table",
    "venn_abers_pairs",
    "log_loss_merge",
    "brier_merge",
    "cross_merge",
    "isotonic_at_last",
]


def _check_labels(labels, n: int, name: str = "cal_labels") -> np.ndarray:
    """Labels as floats in {0, 1}, ``n`` of them, or ``ValueError`` naming ``name``."""
    array = check_array(labels, name, ndim=1)
    if array.shape != (n,):
        raise ValueError(f"{name}: expected {n} labels, got shape {array.shape}")
    if not np.all((array == 0) | (array == 1)):
        raise ValueError(f"{name}: expected labels 0 and 1")
    return array.astype(float)


def calibration_table(cal_scores, cal_labels, tie_tol: float = ties.TIE_TOL) -> dict:
    """The inductive Venn-ABERS predictor of a calibration set, for any test score.

    Parameters
    ----------
    cal_scores : array_like of shape (k,)
        The classifier's scores of the calibration examples (larger: more likely label 1).
    cal_labels : array_like of shape (k,)
        Their labels, 0 or 1.
    tie_tol : float
        The tie rule's tolerance (:func:`svmtrust.ties.merged`).

    Returns
    -------
    dict
        ``scores`` (the calibration scores, merged by the tie rule), ``levels`` (the ``G``
        distinct merged scores, ascending), ``counts`` (calibration scores at each level),
        ``p0`` and ``p1`` (arrays of ``G + 1``: entry ``t`` is the value for a test score above
        exactly ``t`` of the levels and equal to none).

    Raises
    ------
    ValueError
        Naming the argument: scores not finite or fewer than one, labels not 0 or 1.
    """
    scores = check_array(cal_scores, "cal_scores", ndim=1)
    if scores.size == 0:
        raise ValueError("cal_scores: expected at least one calibration score")
    labels = _check_labels(cal_labels, scores.size)
    merged = ties.merged(scores, ties.check_tie_tol(tie_tol))
    levels, group, weights, _ = _groups(merged, labels)
    table = {"scores": merged, "levels": levels, "counts": weights.astype(int)}
    W = np.r_[0, np.cumsum(table["counts"])].tolist()
    S = np.r_[0, np.cumsum(np.bincount(group, weights=labels))].astype(int).tolist()
    table["p0"], table["p1"] = _bridge_slopes(W, S, 0), _bridge_slopes(W, S, 1)
    return table


def _groups(merged, labels):
    """The distinct merged scores (ascending), each score's group, the groups' sizes and their
    means of ``labels``: the points of the isotonic fit, tied scores pooled."""
    levels, group = np.unique(merged, return_inverse=True)
    weights = np.bincount(group).astype(float)
    return levels, group, weights, np.bincount(group, weights=labels) / weights


def _cross(o, a, b) -> int:
    """The cross product of ``a - o`` and ``b - o``: positive when ``o, a, b`` turn left."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _suffix_hulls(B) -> list:
    """``nxt[j]``: the vertex after ``B[j]`` on the lower hull of ``B[j:]`` (-1 for the last), so
    that the hull of every suffix is the chain ``j, nxt[j], nxt[nxt[j]], ...``; collinear middle
    points dropped."""
    nxt, stack = [-1] * len(B), []
    for j in range(len(B) - 1, -1, -1):
        while len(stack) >= 2 and _cross(B[j], B[stack[-1]], B[stack[-2]]) <= 0:
            stack.pop()
        nxt[j] = stack[-1] if stack else -1
        stack.append(j)
    return nxt


def _tangent_end(A, hull, b) -> tuple:
    """The rightmost vertex of the lower hull ``hull`` (indices into ``A``, left to right) that
    maximises the slope to ``b``, a point to the right of every ``A``: binary search, since the
    slope rises and then falls along the hull."""
    lo, hi = 0, len(hull) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _cross(A[hull[mid - 1]], A[hull[mid]], b) >= 0:
            lo = mid
        else:
            hi = mid - 1
    return A[hull[lo]]


def _bridge_slopes(W, S, label: int) -> np.ndarray:
    """``p_label(t)`` of eq. (VA) for ``t = 0 .. G``, from the cumulative sums ``W`` and ``S``
    (integer lists of ``G + 1``): the slopes of the bridges between the hulls of
    ``A_0 .. A_t`` and ``B_t .. B_G`` (module notes)."""
    B = list(zip(W, S))
    A = [(w - 1, s - label) for w, s in B]
    nxt = _suffix_hulls(B)
    hull, j, values = [], 0, []
    for t in range(len(B)):
        while len(hull) >= 2 and _cross(A[hull[-2]], A[hull[-1]], A[t]) <= 0:
            hull.pop()
        hull.append(t)
        j = max(j, t)
        while True:
            a = _tangent_end(A, hull, B[j])
            start = j
            while nxt[j] != -1 and _cross(a, B[j], B[nxt[j]]) < 0:
                j = nxt[j]
            if j == start:
                break
        values.append((B[j][1] - a[1]) / (B[j][0] - a[0]))
    return np.array(values)


def venn_abers_pairs(cal_scores, cal_labels, test_scores, tie_tol: float = ties.TIE_TOL):
    """``(p0, p1)`` of the inductive Venn-ABERS predictor for every test score.

    Parameters
    ----------
    cal_scores, cal_labels, tie_tol
        As :func:`calibration_table`.
    test_scores : array_like of shape (m,)

    Returns
    -------
    p0, p1 : ndarray of shape (m,)
        ``p0 <= p1``; the isotonic fits' values at each test score with label 0 and with label 1.

    Notes
    -----
    Each test score is ranked in its own bag, the calibration scores and itself, by the tie rule
    (:func:`svmtrust.ties.bag_counts`): tied with one calibration group, it is pooled with that
    group. Two cases read the bag directly instead of the table, with the same result as the
    definition: a test score the rule ties with more than one calibration group (two groups
    less than twice the tolerance apart, bridged by it), and one larger in magnitude than every
    calibration score (it sets the bag's tolerance, which might then merge calibration groups).
    """
    table = calibration_table(cal_scores, cal_labels, tie_tol)
    test = check_array(test_scores, "test_scores", ndim=1)
    greater, tied = ties.bag_counts(table["scores"], test, tie_tol)
    edges = np.r_[0, np.cumsum(table["counts"])]  # calibration scores below each level
    gap = np.searchsorted(edges, table["scores"].size - greater - tied)  # levels below
    spans = np.searchsorted(edges, table["scores"].size - greater) - gap  # levels tied with it
    direct = (spans > 1) | (np.abs(test) > np.max(np.abs(table["scores"])))
    p1 = table["p1"][gap].copy()
    p0 = np.where(
        spans == 1, table["p0"][np.minimum(gap + 1, table["levels"].size)], table["p0"][gap]
    )
    for j in np.flatnonzero(direct):
        p0[j], p1[j] = _pair_in_bag(cal_scores, cal_labels, test[j], tie_tol)
    return p0, p1


def _pair_in_bag(cal_scores, cal_labels, score: float, tie_tol: float):
    """``(p0, p1)`` of one test score from its bag, by the definition."""
    bag = np.r_[np.asarray(cal_scores, dtype=float), score]
    labels = np.asarray(cal_labels, dtype=float)
    return tuple(_fit_at_last(bag, np.r_[labels, label], tie_tol) for label in (0.0, 1.0))


def isotonic_at_last(scores, labels, tie_tol: float = ties.TIE_TOL) -> float:
    """The isotonic fit of ``labels`` on ``scores``, tied scores pooled, read at the last
    example: the full Venn-ABERS predictor's probability for a bag whose last example is the
    test example with a hypothetical label (Vovk & Petej 2014).

    Parameters
    ----------
    scores : array_like of shape (n,)
        The scores of the bag's examples, the test example last; ties by the tie rule
        (:func:`svmtrust.ties.merged`, on the whole bag).
    labels : array_like of shape (n,)
        Their labels, 0 or 1, the hypothetical one last.
    tie_tol : float

    Returns
    -------
    float
    """
    scores = check_array(scores, "scores", ndim=1)
    if scores.size == 0:
        raise ValueError("scores: expected at least one score")
    labels = _check_labels(labels, scores.size, "labels")
    return _fit_at_last(scores, labels, ties.check_tie_tol(tie_tol))


def _fit_at_last(scores, labels, tie_tol: float) -> float:
    """:func:`isotonic_at_last` of checked arrays."""
    _, group, weights, means = _groups(ties.merged(scores, tie_tol), labels)
    return float(isotonic_regression(means, sample_weight=weights)[group[-1]])


def _check_pair(p0, p1):
    """``p0`` and ``p1`` as float arrays of one shape in ``[0, 1]``.

    ``p0 <= p1`` holds for the inductive predictor but not always for the full one, whose two
    probabilities come from two scorers (:func:`isotonic_at_last`); the merges below are the
    minimax choices either way."""
    arrays = []
    for name, value in (("p0", p0), ("p1", p1)):
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name}: expected numbers, got {value!r}") from None
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name}: expected finite numbers")
        arrays.append(array)
    p0, p1 = arrays
    if p0.shape != p1.shape:
        raise ValueError(f"p1: expected the shape of p0 {p0.shape}, got {p1.shape}")
    for name, array in (("p0", p0), ("p1", p1)):
        if np.any((array < 0) | (array > 1)):
            raise ValueError(f"{name}: expected probabilities in [0, 1]")
    return p0, p1


def log_loss_merge(p0, p1) -> np.ndarray:
    """``p1 / (1 - p0 + p1)``: the probability whose larger log-loss regret against ``p0``
    (outcome 0) and ``p1`` (outcome 1) is smallest (Vovk, Petej & Fedorova 2015).

    The regrets are ``log((1 - p0) / (1 - p))`` and ``log(p1 / p)``; they are equal, and the
    larger of them smallest, where ``(1 - p) / (1 - p0) = p / p1``.
    """
    p0, p1 = _check_pair(p0, p1)
    return p1 / (1.0 - p0 + p1)


def brier_merge(p0, p1) -> np.ndarray:
    """``p1 + (p0^2 - p1^2) / 2``: the probability whose larger Brier regret is smallest.

    Under outcome 0 the regret against ``p0`` is ``p^2 - p0^2``, under outcome 1 against ``p1``
    it is ``(1 - p)^2 - (1 - p1)^2``; the first grows with ``p`` and the second falls, so the
    larger is smallest where they are equal, ``2 p = 1 - (1 - p1)^2 + p0^2``.
    """
    p0, p1 = _check_pair(p0, p1)
    return p1 + (p0**2 - p1**2) / 2.0


def cross_merge(p0, p1, loss: str = "log_loss") -> np.ndarray:
    """The cross Venn-ABERS probability from the pairs of ``K`` folds (rows): the probability
    whose larger regret, averaged over the folds, is smallest (Vovk, Petej & Fedorova 2015).

    For ``loss="log_loss"`` the averaged regrets are ``log(GM(1 - p0) / (1 - p))`` and
    ``log(GM(p1) / p)``, equal at ``GM(p1) / (GM(1 - p0) + GM(p1))``, with ``GM`` the geometric
    mean over the folds; for ``loss="brier"`` they are ``p^2 - mean(p0^2)`` and
    ``(1 - p)^2 - mean((1 - p1)^2)``, equal at ``mean(p1) + (mean(p0^2) - mean(p1^2)) / 2``.
    With one fold these are :func:`log_loss_merge` and :func:`brier_merge`.

    Parameters
    ----------
    p0, p1 : array_like of shape (K, m)
    loss : {"log_loss", "brier"}

    Returns
    -------
    ndarray of shape (m,)
    """
    p0, p1 = _check_pair(p0, p1)
    if p0.ndim != 2:
        raise ValueError(f"p0: expected one row per fold, shape (K, m), got shape {p0.shape}")
    if loss == "brier":
        return np.mean(p1, axis=0) + (np.mean(p0**2, axis=0) - np.mean(p1**2, axis=0)) / 2.0
    if loss != "log_loss":
        raise ValueError(f"loss: must be one of ('log_loss', 'brier'), got {loss!r}")
    with np.errstate(divide="ignore"):
        gm1 = np.exp(np.mean(np.log(p1), axis=0))
        gm0 = np.exp(np.mean(np.log1p(-p0), axis=0))
    return gm1 / (gm0 + gm1)
