"""Conformal p-values, prediction regions, confidence and credibility.

The one place these formulas live; every confidence chapter calls them.

A strangeness (nonconformity) score is larger for a stranger example. Given the scores
``a_1, ..., a_n`` of the old examples and the score ``a_new`` of a new example in the same bag,
the p-value counts the new example in its own bag,

    p = (#{i : a_i >= a_new} + 1) / (n + 1),

which is eq. (13) of Saunders, Gammerman & Vovk (1999) and eq. (3) of Proedrou et al. (2002),
and the conformal p-value of Vovk, Gammerman & Shafer (2005, Sec. 2.2). Under exchangeability
``P{p <= eps} <= eps`` for every significance level ``eps``.

Hardoon, Hussain & Shawe-Taylor (2009, Sec. 3) leave the new example out of its own bag,

    p = #{i : a_i >= a_new} / n,

over a validation set of n scores (their nonconformity ``y f(x)`` is a conformity score, so
``a = -y f(x)`` here). :func:`p_values` takes that convention as ``include_new=False``, and
:func:`predict_set` takes their region rule ``p >= eps`` (their Definition 3.1) as
``strict=False``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .validation import (
    NOT_FITTED,
    check_array,
    check_bool,
    check_indices,
    check_integer,
    check_positive,
    check_significance,
)

__all__ = [
    "ConformalClassifierMixin",
    "p_values",
    "merge_ties",
    "predict_set",
    "confidence_credibility",
    "error_rate",
    "default_validation_size",
    "region_significance",
]


def p_values(scores, new_scores, include_new=True) -> np.ndarray:
    """Conformal p-values of new scores against a bag of old scores.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Strangeness of the n old examples (larger is stranger). ``+inf`` is allowed (a score
        that is infinitely strange, e.g. a positive distance over a zero one); NaN is not.
    new_scores : array_like of shape (m,) or float
        Strangeness of each new example, each computed in the bag of the old examples plus
        that one new example.
    include_new : bool
        ``True`` (the default, the conformal convention) counts the new example in its own
        bag; ``False`` is the convention of Hardoon, Hussain & Shawe-Taylor (2009, Sec. 3),
        ``#{i : scores_i >= new} / n``, which can be 0.

    Returns
    -------
    ndarray of shape (m,) (a float for a scalar ``new_scores``)
        ``(#{i : scores_i >= new} + 1) / (n + 1)``, in ``[1 / (n + 1), 1]``, or with
        ``include_new=False`` ``#{i : scores_i >= new} / n``, in ``[0, 1]``. Ties count as
        stranger, so equal scores give the largest p-value they can.
    """
    old = np.sort(_check_scores(scores, "scores"))
    scalar = np.ndim(new_scores) == 0
    new = _check_scores(np.atleast_1d(new_scores), "new_scores")
    at_least = old.size - np.searchsorted(old, new, side="left")
    extra = 1.0 if check_bool(include_new, "include_new") else 0.0
    p = (at_least + extra) / (old.size + extra)
    return float(p[0]) if scalar else p


def merge_ties(scores, tol: float) -> np.ndarray:
    """Make scores that agree within ``tol`` times the largest ``|score|`` exactly equal.

    The scores are sorted, and a new group starts wherever two neighbours differ by more than
    ``tol * max|scores|``; every score is replaced by the largest of its group. Scores computed
    to rounding (multipliers of the SVM's canonical optimum, distances to its hyperplane) can
    differ in their last bits with the order of the examples; merged, equal examples stay tied.
    The result depends on the multiset of scores only, so p-values computed from it stay valid;
    it can only make them larger.

    Parameters
    ----------
    scores : array_like of shape (N,)
        Scores, no NaN (infinite ones form their own groups).
    tol : float
        Relative tolerance, positive.

    Returns
    -------
    ndarray of shape (N,)
    """
    values = _check_scores(scores, "scores")
    tol = check_positive(tol, "tol")
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    finite = np.abs(ordered[np.isfinite(ordered)])
    gap = tol * max(float(np.max(finite, initial=0.0)), np.finfo(float).tiny)
    with np.errstate(invalid="ignore"):  # inf - inf: equal infinite scores, one group
        group = np.r_[0, np.cumsum(np.diff(ordered) > gap)]
    last = np.r_[np.flatnonzero(np.diff(group)), ordered.size - 1]
    merged = np.empty_like(values)
    merged[order] = ordered[last][group]
    return merged


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


def predict_set(P, significance, strict=True) -> np.ndarray:
    """Conformal prediction regions: the labels whose p-value exceeds the significance level.

    The rule is strict, ``p > eps``, as in Vovk, Gammerman & Shafer (2005, Sec. 2.2); crepes keeps
    ``p >= eps`` instead, which differs only on ties with ``eps``, and so does Definition 3.1 of
    Hardoon, Hussain & Shawe-Taylor (2009) (``strict=False``).

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
        p-values, one column per candidate label.
    significance : float
        The significance level ``eps`` in (0, 1).
    strict : bool
        ``True`` (the default) keeps the labels with ``p > eps``, ``False`` those with
        ``p >= eps``.

    Returns
    -------
    ndarray of bool, shape (m, n_labels)
        ``True`` where the label is in the region.
    """
    P = _check_p_matrix(P)
    eps = check_significance(significance)
    return P > eps if check_bool(strict, "strict") else P >= eps


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


def error_rate(P, true_index, significance, strict=True) -> float:
    """Fraction of examples whose true label falls outside its prediction region.

    For a valid conformal predictor on exchangeable data this is at most ``significance`` in
    expectation.

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
    true_index : array_like of int, shape (m,)
        Column index of each example's true label.
    significance : float
    strict : bool
        The region rule of :func:`predict_set`.

    Returns
    -------
    float
    """
    regions = predict_set(P, significance, strict=strict)
    idx = check_indices(true_index, "true_index", regions.shape[1], size=regions.shape[0])
    return float(np.mean(~regions[np.arange(idx.size), idx]))


class ConformalClassifierMixin:
    """Forced predictions and regions for a classifier that computes conformal p-values.

    A class that mixes this in defines ``predict_p(X) -> (m, n_classes)`` (p-values, columns in
    ``classes_`` order) and a fitted ``classes_``; the mixin derives the rest from the p-values,
    through :func:`confidence_credibility` and :func:`predict_set`. Every method raises
    :class:`sklearn.exceptions.NotFittedError` on an estimator that is not fitted.
    """

    def _fitted_p_values(self, X) -> np.ndarray:
        """``predict_p(X)``, after checking that the estimator is fitted."""
        check_is_fitted(self, msg=NOT_FITTED)
        return self.predict_p(X)

    def predict_confidence(self, X):
        """Forced prediction, confidence and credibility of each test object.

        Returns
        -------
        labels : ndarray of shape (m,)
            The label (a value of ``classes_``) with the largest p-value, the first in
            ``classes_`` on a tie.
        confidence : ndarray of shape (m,)
            One minus the second largest p-value.
        credibility : ndarray of shape (m,)
            The largest p-value.
        """
        index, confidence, credibility = confidence_credibility(self._fitted_p_values(X))
        return self.classes_[index], confidence, credibility

    def predict(self, X) -> np.ndarray:
        """The label with the largest p-value (the first in ``classes_`` on a tie)."""
        return self.predict_confidence(X)[0]

    def predict_set(self, X, significance=None, *, confidence=None) -> np.ndarray:
        """Region predictions: the labels whose p-value exceeds the significance level.

        Give the level either as ``significance`` (the region's error probability ``eps``, as
        the book writes it: ``predict_set(X, 0.05)``) or as ``confidence=1 - eps`` (as crepes
        and most conformal libraries do: ``predict_set(X, confidence=0.95)``). A significance
        above 0.5 is refused (:func:`region_significance`), since it is almost always a
        confidence passed by position.

        Parameters
        ----------
        X : array_like of shape (m, d)
        significance : float in (0, 0.5]
        confidence : float in [0.5, 1), keyword only

        Returns
        -------
        ndarray of bool, shape (m, n_classes)
            Columns in ``classes_`` order (:func:`predict_set`: ``p > eps``).
        """
        significance = region_significance(significance, confidence)
        return predict_set(self._fitted_p_values(X), significance)


def region_significance(significance=None, confidence=None) -> float:
    """The significance level ``eps`` of a prediction region, given as ``significance`` or
    as ``confidence = 1 - eps`` (one of the two).

    Conformal libraries differ: the book, like Vovk et al. (2005), writes regions at a
    significance level (``eps = 0.05``), crepes and MAPIE at a confidence (0.95). A region at a
    significance above 0.5 errs more often than not, so such a ``significance`` is refused
    with a message that names ``confidence`` (the function :func:`predict_set` of p-values
    still takes any level in (0, 1), for curves over ``eps``).

    Raises
    ------
    ValueError
        Naming ``significance`` when both or neither are given, or when ``significance`` is
        outside (0, 0.5]; naming ``confidence`` when it is outside [0.5, 1).
    """
    if (significance is None) == (confidence is None):
        raise ValueError(
            "significance: give the region's significance level eps, or confidence=1 - eps "
            "(one of the two)"
        )
    if confidence is not None:
        confidence = check_significance(confidence, "confidence")
        if confidence < 0.5:
            raise ValueError(
                f"confidence: {confidence!r} is below 0.5; a region of confidence 1 - eps errs "
                "with probability at most eps, so confidence is usually 0.8 to 0.99"
            )
        return 1.0 - confidence
    significance = check_significance(significance)
    if significance > 0.5:
        raise ValueError(
            f"significance: {significance!r} is above 0.5; predict_set takes the significance "
            f"level eps (the region errs with probability at most eps), not a confidence: for "
            f"confidence {significance!r} pass confidence={significance!r}"
        )
    return significance


def default_validation_size(n_samples: int) -> int:
    """Size of the validation (calibration) set of an inductive machine trained on
    ``n_samples`` examples: ``min(n / 5, 50)`` of Hardoon et al. (2009, Sec. 5), rounded down,
    at least 1. Used by :mod:`svmtrust.nonconformity_selection` and
    :mod:`svmtrust.split_conformal`."""
    return max(1, min(check_integer(n_samples, "n_samples") // 5, 50))
