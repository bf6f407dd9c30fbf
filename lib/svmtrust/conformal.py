"""Conformal p-values, prediction regions, confidence and credibility.

The one place these formulas live; every confidence chapter calls them.

A strangeness (nonconformity) score is larger for a stranger example. Given the scores
``a_1, ..., a_n`` of the old examples and the score ``a_new`` of a new example in the same bag,
the p-value counts the new example in its own bag,

    p = (#{i : a_i >= a_new} + 1) / (n + 1),

which is eq. (13) of Saunders, Gammerman & Vovk (1999) and eq. (3) of Proedrou et al. (2002),
and the conformal p-value of Vovk, Gammerman & Shafer (2005, Sec. 2.2). Under exchangeability
``P{p <= eps} <= eps`` for every significance level ``eps``.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array, check_significance


def p_values(scores, new_scores) -> np.ndarray:
    """Conformal p-values of new scores against a bag of old scores.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Strangeness of the n old examples (larger is stranger). ``+inf`` is allowed (a score
        that is infinitely strange, e.g. a positive distance over a zero one); NaN is not.
    new_scores : array_like of shape (m,) or float
        Strangeness of each new example, each computed in the bag of the old examples plus
        that one new example.

    Returns
    -------
    ndarray of shape (m,) (a float for a scalar ``new_scores``)
        ``(#{i : scores_i >= new} + 1) / (n + 1)``, in ``[1 / (n + 1), 1]``. Ties count as
        stranger, so equal scores give the largest p-value they can.
    """
    old = np.sort(_check_scores(scores, "scores"))
    scalar = np.ndim(new_scores) == 0
    new = _check_scores(np.atleast_1d(new_scores), "new_scores")
    at_least = old.size - np.searchsorted(old, new, side="left")
    p = (at_least + 1.0) / (old.size + 1.0)
    return float(p[0]) if scalar else p


def _check_scores(scores, name: str) -> np.ndarray:
    """Validate a vector of strangeness scores: numeric, 1-D, non-empty, no NaN (inf allowed)."""
    try:
        arr = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name}: expected a numeric array ({err})") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty 1-D array, got shape {arr.shape}")
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name}: contains NaN")
    return arr


def _check_p_matrix(P) -> np.ndarray:
    """Validate a matrix of p-values: one row per test example, one column per label."""
    P = check_array(P, "P", ndim=2)
    if np.any((P < 0) | (P > 1)):
        raise ValueError("P: p-values must lie in [0, 1]")
    return P


def predict_set(P, significance) -> np.ndarray:
    """Conformal prediction regions: the labels whose p-value exceeds the significance level.

    The rule is strict, ``p > eps``, as in Vovk, Gammerman & Shafer (2005, Sec. 2.2); crepes keeps
    ``p >= eps`` instead, which differs only on ties with ``eps``.

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
        p-values, one column per candidate label.
    significance : float
        The significance level ``eps`` in (0, 1).

    Returns
    -------
    ndarray of bool, shape (m, n_labels)
        ``True`` where the label is in the region.
    """
    P = _check_p_matrix(P)
    return P > check_significance(significance)


def confidence_credibility(P):
    """The forced prediction with its confidence and credibility.

    The prediction is the label with the largest p-value (the first one on a tie), its
    credibility that largest p-value, and its confidence one minus the second largest
    (eq. (14) of Saunders, Gammerman & Vovk 1999).

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
        p-values, at least two labels.

    Returns
    -------
    labels : ndarray of int, shape (m,)
        Column index of the predicted label.
    confidence : ndarray of shape (m,)
    credibility : ndarray of shape (m,)
    """
    P = _check_p_matrix(P)
    if P.shape[1] < 2:
        raise ValueError(f"P: needs at least two labels (columns), got {P.shape[1]}")
    labels = np.argmax(P, axis=1)
    ordered = np.sort(P, axis=1)
    return labels, 1.0 - ordered[:, -2], ordered[:, -1]


def error_rate(P, true_index, significance) -> float:
    """Fraction of examples whose true label falls outside its prediction region.

    For a valid conformal predictor on exchangeable data this is at most ``significance`` in
    expectation.

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
    true_index : array_like of int, shape (m,)
        Column index of each example's true label.
    significance : float

    Returns
    -------
    float
    """
    regions = predict_set(P, significance)
    idx = np.asarray(true_index)
    if idx.shape != (regions.shape[0],) or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"true_index: expected {regions.shape[0]} integer column indices")
    if np.any((idx < 0) | (idx >= regions.shape[1])):
        raise ValueError(f"true_index: indices must lie in [0, {regions.shape[1]})")
    return float(np.mean(~regions[np.arange(idx.size), idx]))
