"""The one tie rule: when two computed scores count as equal.

A p-value counts the old scores at least as strange as the new one, so it depends on which
scores are *equal*. Scores that are equal in exact arithmetic (copies of one example, the
margin 1 that the KKT conditions give every free support vector and every copy of one, the
values of two one-vs-rest SVMs with the same ``||w||``) come out of floating-point arithmetic
a few units in the last place apart, and those bits change with the processor (OpenBLAS picks
other kernels on AVX-512 machines), the batch a row is computed in, the solver and the order
of the rows or of the feature columns. Compared bit for bit, such ties are decided by rounding.

The rule, applied to one *bag* of scores (the old scores and the new one that are ranked
together): sort the bag, and let two neighbours belong to one group when they differ by at
most the gap::

    gap = tol * max{|a| : a in the bag, a finite}                                        (T)

with ``tol =`` :data:`TIE_TOL` unless a caller states another; every member of a group is then
equal to the group's largest value (:func:`merged`). Infinite scores equal to each other form
one group. ``tol = 0`` merges only bitwise-equal scores: the formula on the raw bits.

Why this rule
-------------
* **Robust.** Scores equal in exact arithmetic differ by rounding, about ``1e-16`` to ``1e-13``
  of the bag's largest score here, far below ``TIE_TOL = 1e-9``: they always merge. Two scores
  that differ in exact arithmetic merge on one machine and not on another only if a gap between
  neighbours lies within rounding of ``gap`` itself, a set of measure zero for data drawn from
  a density and, on the structured problems of the tests, never met.
* **Valid.** The merged value of each score is a function of that score and of the multiset of
  the bag, never of the order of the examples or of which one is new: (T) is a symmetric
  function of the bag. A conformal p-value computed from a nonconformity measure that depends
  on the bag symmetrically is valid under exchangeability (Vovk, Gammerman & Shafer 2005,
  Sec. 2.2; proved in the confidence chapter), so every p-value of the library stays valid.
  Merging can make a p-value only larger (each group takes its largest value, and ties count
  as stranger).
* **Local.** A new score changes the groups only through its two neighbours in the sorted bag,
  so the counts of every new score against one set of old scores take a sort of the old scores
  and a binary search per new score (:func:`bag_counts`).

What is *not* merged: the multipliers of the transductive SVM, which are compared at their own
resolution (:data:`svmtrust.svm.SUPPORT_TOL`, relative to the largest multiplier) by the same
chain rule (:func:`svmtrust.svm.merge_multiplier_ties`); and TCM-NN's distance ratios, which
are computed in one fixed order for every pair and are bit for bit those of brute force
(:mod:`svmtrust.tcm_nn`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TIE_TOL", "check_tie_tol", "merged", "bag_counts", "smallest", "is_zero"]

#: The resolution of every score the library ranks, relative to the largest score of the bag:
#: six orders of magnitude above the rounding of an SVM distance (about 1e-15 of its terms),
#: and far below the gaps between scores that differ in exact arithmetic.
TIE_TOL = 1e-9


def check_tie_tol(value, name: str = "tie_tol") -> float:
    """Return ``value`` as a finite float at least 0, or raise ``ValueError`` naming ``name``."""
    number = np.nan
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        number = float(value)
    if not (np.isfinite(number) and number >= 0):
        raise ValueError(f"{name}: expected a finite number at least 0, got {value!r}")
    return number


def _scores(values, name: str) -> np.ndarray:
    """``values`` as a 1-D float array with no NaN, or ``ValueError`` naming ``name``."""
    array = np.asarray(values)
    if array.dtype.kind not in "iuf" or array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of numbers, got {values!r}")
    array = array.astype(float)
    if np.any(np.isnan(array)):
        raise ValueError(f"{name}: contains NaN")
    return array


def _gap(values: np.ndarray, tol: float) -> float:
    """``tol`` times the largest finite ``|value|`` (eq. (T)); 0 for ``tol = 0``."""
    finite = np.abs(values[np.isfinite(values)])
    return tol * float(np.max(finite, initial=0.0))


def _linked(lower, upper, gap: float):
    """Whether neighbours ``lower <= upper`` share a group: ``upper - lower <= gap``, and an
    undefined difference (``inf - inf``, two equal infinite scores) links too."""
    with np.errstate(invalid="ignore"):
        return ~(upper - lower > gap)


def merged(values, tol: float = TIE_TOL) -> np.ndarray:
    """Every value replaced by the largest value of its group under the rule (T).

    Parameters
    ----------
    values : array_like of shape (N,)
        Scores, no NaN (``+-inf`` allowed).
    tol : float
        At least 0.

    Returns
    -------
    ndarray of shape (N,)
        A function of the multiset of ``values`` and of each value: permuting ``values``
        permutes the result the same way.

    Raises
    ------
    ValueError
        Naming ``values`` or ``tol``.
    """
    values, tol = _scores(values, "values"), check_tie_tol(tol, "tol")
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    link = _linked(ordered[:-1], ordered[1:], _gap(values, tol))
    group = np.r_[0, np.cumsum(~link)]
    last = np.r_[np.flatnonzero(np.diff(group)), ordered.size - 1]
    out = np.empty_like(values)
    out[order] = ordered[last][group]
    return out


def bag_counts(old, new, tol: float = TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """For each new score, how many old scores lie above its group and how many in it.

    Each new score is ranked in its own bag, the old scores plus that one, merged by the rule
    (T): ``greater`` counts the old scores of groups above the new score's group and ``ties``
    those of its group. With ``tol = 0`` they are ``#{old > new}`` and ``#{old == new}``.

    Parameters
    ----------
    old : array_like of shape (n,)
        Old scores, at least one, no NaN (``+inf`` allowed, equal to another ``+inf``).
    new : array_like of shape (m,)
    tol : float
        At least 0.

    Returns
    -------
    greater, ties : ndarray of int, shape (m,)
        Equal to the counts on ``merged(np.r_[old, new[j]], tol)`` for every ``j`` (tested).

    Raises
    ------
    ValueError
        Naming ``old``, ``new`` or ``tol``.
    """
    old, new, tol = _scores(old, "old"), _scores(new, "new"), check_tie_tol(tol, "tol")
    if old.size == 0:
        raise ValueError("old: expected at least one old score")
    old = np.sort(old)
    greater = np.empty(new.size, dtype=np.int64)
    ties = np.empty(new.size, dtype=np.int64)
    # the bag's scale is the old scores' unless the new score is larger in magnitude
    scale = np.fmax(np.abs(np.where(np.isfinite(new), new, 0.0)), _gap(old, 1.0))
    gaps = tol * scale
    for gap in np.unique(gaps):
        at = gaps == gap
        greater[at], ties[at] = _counts_at_gap(old, new[at], gap)
    return greater, ties


def _counts_at_gap(ordered: np.ndarray, new: np.ndarray, gap: float):
    """:func:`bag_counts` of new scores that share one ``gap``, against sorted old scores."""
    n = ordered.size
    link = _linked(ordered[:-1], ordered[1:], gap)
    group = np.r_[0, np.cumsum(~link)]
    first = np.searchsorted(group, group, side="left")  # first index of each one's group
    last = np.searchsorted(group, group, side="right") - 1
    pos = np.searchsorted(ordered, new, side="right")  # ordered[pos - 1] <= new < ordered[pos]
    below = np.maximum(pos - 1, 0)
    above = np.minimum(pos, n - 1)
    left = (pos > 0) & _linked(ordered[below], new, gap)
    right = (pos < n) & _linked(new, ordered[above], gap)
    start = np.where(left, first[below], pos)
    end = np.where(right, last[above], pos - 1)
    return n - 1 - end, end - start + 1


def smallest(values, tol: float = TIE_TOL) -> np.ndarray:
    """Which entries of each row equal the row's smallest under the rule (T), each row a bag.

    The choices that compare computed values across candidates (the label of the smallest
    objective, the model of the largest distance) take them from here, so that two candidates
    equal in exact arithmetic stay tied whatever their last bits.

    Parameters
    ----------
    values : array_like of shape (m, k)
        No NaN; ``+inf`` marks an entry that is not a candidate (it is the smallest only in a
        row of ``+inf``).
    tol : float
        At least 0.

    Returns
    -------
    ndarray of bool, shape (m, k)
        At least one True per row (``k >= 1``).

    Raises
    ------
    ValueError
        Naming ``values`` or ``tol``.
    """
    array = np.asarray(values)
    if array.ndim != 2 or array.shape[1] == 0:
        raise ValueError(f"values: expected a 2-D array with at least one column, got {values!r}")
    rows = [merged(row, tol) for row in array]
    grouped = np.array(rows).reshape(array.shape)
    return grouped == grouped.min(axis=1, keepdims=True)


def is_zero(values, scale, tol: float = TIE_TOL) -> np.ndarray:
    """Whether each value is 0 within ``tol`` times its ``scale`` (the size of the terms it was
    summed from): the rule (T) for a value compared with an exact 0, such as a margin
    ``y f(x)`` that is 0 in exact arithmetic.

    Parameters
    ----------
    values, scale : array_like of numbers, broadcastable
        ``scale`` at least 0.
    tol : float
        At least 0.

    Returns
    -------
    ndarray of bool

    Raises
    ------
    ValueError
        Naming ``values``, ``scale`` or ``tol``.
    """
    values = np.asarray(values)
    scale = np.asarray(scale)
    if values.dtype.kind not in "iuf" or np.any(np.isnan(values)):
        raise ValueError(f"values: expected numbers, not NaN, got {values!r}")
    if scale.dtype.kind not in "iuf" or not np.all(scale >= 0):
        raise ValueError(f"scale: expected numbers at least 0, got {scale!r}")
    return np.abs(values) <= check_tie_tol(tol, "tol") * scale
