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

Smoothed p-values (Vovk, Gammerman & Shafer 2005, Sec. 2.4) break ties at random: with one
uniform draw ``tau`` in [0, 1] per new example,

    p = (#{i : a_i > a_new} + tau (#{i : a_i = a_new} + 1)) / (n + 1),

which is *exactly* valid, ``P{p <= eps} = eps`` under exchangeability, whatever the ties, as
long as every test object has its own ``tau``, uniform and independent of the data and of the
other objects' draws (:func:`p_values` with ``tau``). Every estimator draws them the same way,
through :class:`SmoothingMixin`: a generator the estimator owns, seeded by its
``smoothing_seed`` and advanced by every smoothed call, so that an object predicted alone gets
a fresh draw too. With ``smoothing_seed=None`` (the default) the generator is seeded from fresh
OS entropy, so every clone and every new estimator draws independent ``tau``: valid in any
calling pattern (a new estimator or :func:`sklearn.base.clone` per object, as
``cross_val_score`` and ``GridSearchCV`` do), not reproducible. With an integer seed a clone,
or a new estimator with the same seed, repeats the same draws: reproducible, and valid within
one estimator's stream, but a loop that builds a new estimator per object with the same
integer seed gives every object the same ``tau``, and validity is lost.

Hardoon's convention has no share of the new example to smooth: with ``include_new=False`` and
``tau`` the p-value is theirs with its ties broken at random,
``(#{a_i > a_new} + tau #{a_i = a_new}) / n``, which is not a smoothed conformal p-value and
not valid (it can be 0, and ``P{p <= eps}`` exceeds ``eps``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom
from sklearn.utils.validation import check_is_fitted

from .ties import TIE_TOL, bag_counts, check_tie_tol, merged
from .validation import (
    NOT_FITTED,
    check_array,
    check_bool,
    check_indices,
    check_integer,
    check_numeric,
    check_positive,
    check_seed,
    check_significance,
)

__all__ = [
    "ConformalClassifierMixin",
    "ConformalPrediction",
    "SplitConformalMixin",
    "p_values",
    "calibration_p_values",
    "rank_counts",
    "counts_p_values",
    "smoothing_draws",
    "check_smoothing",
    "SmoothingMixin",
    "merge_ties",
    "predict_set",
    "confidence_credibility",
    "error_band",
    "error_rate",
    "default_validation_size",
    "region_significance",
]


def p_values(scores, new_scores, include_new=True, tau=None, tie_tol=TIE_TOL) -> np.ndarray:
    """Conformal p-values of new scores against a bag of old scores, smoothed or not.

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
    tau : float or array_like of shape (m,) in [0, 1], optional
        ``None`` (the default): the p-value above, ties counted as stranger. A number (or one
        per new score): the smoothed p-value of Vovk, Gammerman & Shafer (2005, Sec. 2.4),
        ``(#{scores_i > new} + tau (#{scores_i == new} + 1)) / (n + 1)``; with ``tau``
        uniform on [0, 1] and independent of the scores (and of the other new scores' draws),
        ``P{p <= eps} = eps`` exactly under exchangeability. With ``include_new=False``,
        ``(#{scores_i > new} + tau #{scores_i == new}) / n``: Hardoon's p-value with its ties
        broken at random, not a smoothed conformal p-value and not valid (with distinct
        scores ``P{p <= eps} = (floor(eps n) + 1) / (n + 1)``, above ``eps``; ties make it
        worse). ``tau = 1`` gives the p-value without smoothing.
    tie_tol : float, default :data:`svmtrust.ties.TIE_TOL`
        Each new score is counted in its own bag, the old scores plus that one, whose scores
        are merged by the library's tie rule (:mod:`svmtrust.ties`, eq. (T)): neighbours within
        ``tie_tol`` times the bag's largest ``|score|`` are equal. ``0`` compares the bits
        (crepes' ``p_values_batch`` then gives the same p-values, bit for bit); with scores
        that are distinct at the resolution ``tie_tol`` both agree.

    Returns
    -------
    ndarray of shape (m,) (a float for a scalar ``new_scores``)
        ``(#{i : scores_i >= new} + 1) / (n + 1)``, in ``[1 / (n + 1), 1]``, or with
        ``include_new=False`` ``#{i : scores_i >= new} / n``, in ``[0, 1]``. Ties count as
        stranger, so equal scores give the largest p-value they can. Smoothed, the p-value
        lies between the one without smoothing less ``(ties + 1) / (n + 1)`` and it.

    Raises
    ------
    ValueError
        Naming ``tau`` if it is not a number (or a vector of one per new score) in [0, 1].
    """
    scalar = np.ndim(new_scores) == 0
    greater, ties = rank_counts(scores, np.atleast_1d(new_scores), tie_tol)
    p = counts_p_values(greater, ties, np.size(scores), include_new, tau)
    return float(p[0]) if scalar else p


def _p_value(scores: np.ndarray, new: float, tau: float | None) -> float:
    """:func:`p_values` of one new score with the new example counted (``include_new``), for
    arguments the caller has made valid: ``scores`` a non-empty float array and ``new`` a float,
    neither NaN, ``tau`` None or in [0, 1], the bag already merged (:func:`svmtrust.ties.merged`).
    The estimators rank their own multipliers and distances with it; the same counts and formula
    (:func:`_from_counts`), the same bits."""
    greater = int(np.count_nonzero(scores > new))
    ties = int(np.count_nonzero(scores == new))
    return _from_counts(greater, ties, scores.size, 1.0, tau)


def calibration_p_values(
    scores, test_scores, codes=None, include_new=True, tau=None, labels=None, tie_tol=TIE_TOL
) -> np.ndarray:
    """Split (inductive) conformal p-values of every test example and candidate label.

    Column ``c`` ranks ``test_scores[:, c]`` among the calibration scores (:func:`p_values`),
    or, label-conditional (Mondrian, Vovk, Gammerman & Shafer 2005, Sec. 4.5), among those of
    the calibration examples of label ``c`` only.

    Parameters
    ----------
    scores : array_like of shape (q,)
        Strangeness of the calibration examples under their own labels.
    test_scores : array_like of shape (m, n_labels)
        Strangeness of each test example under each candidate label.
    codes : array_like of int, shape (q,), optional
        Column index of each calibration example's label: Mondrian p-values. ``None`` (the
        default): every calibration example calibrates every label.
    include_new, tau, tie_tol
        As in :func:`p_values` (``tau`` one draw per test example, shared by its labels; the
        bag of a Mondrian p-value is the calibration examples of its label and the test one).
    labels : sequence, optional
        The labels' names, for the message when a label has no calibration example.

    Returns
    -------
    ndarray of shape (m, n_labels)

    Raises
    ------
    ValueError
        Naming ``y``, if a label has no calibration example (Mondrian p-values only); naming
        the argument that is not as described above.
    """
    scores = _check_scores(scores, "scores")
    test_scores = check_numeric(test_scores, "test_scores")  # inf allowed, NaN refused
    if test_scores.ndim != 2:
        raise ValueError(f"test_scores: expected a 2-D array, got shape {test_scores.shape}")
    if np.any(np.isnan(test_scores)):
        raise ValueError("test_scores: contains NaN")
    n_labels = test_scores.shape[1]
    if codes is not None:
        codes = check_indices(codes, "codes", n_labels, size=scores.size)
    labels = range(n_labels) if labels is None else labels
    if np.ndim(labels) != 1 or len(labels) != n_labels:
        raise ValueError(
            f"labels: expected {n_labels} names, one per column of test_scores, got {labels!r}"
        )
    P = np.empty_like(test_scores)
    for c in range(n_labels):
        old = scores if codes is None else scores[codes == c]
        if old.size == 0:
            raise ValueError(
                f"y: class {labels[c]!r} has no calibration example,"
                " so its Mondrian p-value is undefined"
            )
        P[:, c] = p_values(old, test_scores[:, c], include_new, tau, tie_tol)
    return P


def rank_counts(scores, new_scores, tie_tol=TIE_TOL) -> tuple[np.ndarray, np.ndarray]:
    """How many old scores exceed, and how many equal, each new score, in its merged bag.

    Parameters
    ----------
    scores : array_like of shape (n,)
        Old strangeness scores, no NaN (``+inf`` allowed, equal to another ``+inf``).
    new_scores : array_like of shape (m,)
    tie_tol : float, default :data:`svmtrust.ties.TIE_TOL`
        At least 0: the tie rule's resolution (:func:`svmtrust.ties.bag_counts`).

    Returns
    -------
    greater, ties : ndarray of int, shape (m,)
        ``#{i : scores_i > new}`` and ``#{i : scores_i == new}`` once the bag of the old
        scores and that new one is merged (:mod:`svmtrust.ties`); with ``tie_tol = 0``, on the
        bits.
    """
    old = _check_scores(scores, "scores")
    new = _check_scores(np.atleast_1d(new_scores), "new_scores")
    return bag_counts(old, new, check_tie_tol(tie_tol))


def counts_p_values(greater, ties, n, include_new=True, tau=None) -> np.ndarray:
    """p-values from the counts of :func:`rank_counts` (formulas of :func:`p_values`).

    Parameters
    ----------
    greater, ties : array_like of int, shape (m,)
        Old scores above, and equal to, each new score (summed over folds for a
        cross-conformal p-value, eq. (2) of Vovk 2015).
    n : int
        Number of old scores.
    include_new : bool
    tau : float or array_like of shape (m,) in [0, 1], optional
        ``None``: ``(greater + ties + 1) / (n + 1)``; else the smoothed
        ``(greater + tau (ties + 1)) / (n + 1)`` (``include_new=False``: no ``+ 1``, over n).

    Returns
    -------
    ndarray of shape (m,)

    Raises
    ------
    ValueError
        Naming ``greater`` or ``ties`` if they are not 1-D arrays of integers (of the same
        length) at least 0, or ``ties`` if ``greater + ties`` exceeds ``n``: counts that no
        bag of ``n`` old scores has, whose p-value would leave [0, 1].
    """
    n = check_integer(n, "n")
    greater = _check_counts(greater, "greater")
    ties = _check_counts(ties, "ties", greater.size)
    if np.any(greater + ties > n):
        raise ValueError(f"ties: greater + ties exceeds the number of old scores n = {n}")
    extra = 1.0 if check_bool(include_new, "include_new") else 0.0
    return _from_counts(
        greater, ties, n, extra, None if tau is None else _check_tau(tau, greater.size)
    )


def _from_counts(greater, ties, n: int, extra: float, tau):
    """The p-value formulas of :func:`p_values` from checked counts (``extra`` 1 when the new
    example is counted in its own bag, else 0; ``tau`` None without smoothing)."""
    if tau is None:
        return (greater + ties + extra) / (n + extra)
    return (greater + tau * (ties + extra)) / (n + extra)


def _check_counts(counts, name: str, m: int | None = None) -> np.ndarray:
    """``counts`` as a 1-D int64 array (of length ``m`` if given), each at least 0."""
    values = np.asarray(counts)
    if values.dtype.kind not in "iu" or values.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of integer counts, got {counts!r}")
    if m is not None and values.size != m:
        raise ValueError(f"{name}: expected {m} counts, one per new score, got {values.size}")
    if np.any(values < 0):
        raise ValueError(f"{name}: counts must be at least 0")
    return values.astype(np.int64)


def _check_tau(tau, m: int):
    """``tau`` as a float or an array of m floats, each in [0, 1] (no strings, no booleans)."""
    values = np.asarray(tau)
    if values.dtype.kind not in "iuf" or values.ndim > 1 or values.size not in (1, m):
        raise ValueError(f"tau: expected a number in [0, 1] or {m} of them, got {tau!r}")
    values = values.astype(np.float64)
    if np.any(np.isnan(values)) or np.any((values < 0) | (values > 1)):
        raise ValueError("tau: every value must lie in [0, 1]")
    return values if values.ndim == 1 else float(values)


def smoothing_draws(seed, m) -> np.ndarray:
    """The ``tau`` of an estimator's first smoothed call: ``default_rng(seed).random(m)``.

    Vovk, Gammerman & Shafer's smoothed conformal predictor (2005, Sec. 2.4) draws one ``tau``
    per test object and uses it for every candidate label. An estimator's first smoothed call
    after its ``smoothing_seed`` is set draws these (:class:`SmoothingMixin`); its later calls
    continue the same stream. Calling this function again for every prediction does *not* give
    smoothed p-values: an object predicted alone would get the same ``tau`` at every call, and
    validity is lost.

    Parameters
    ----------
    seed : int
        In ``[0, MAX_SEED]`` (:func:`svmtrust.validation.check_seed`): the integer
        ``smoothing_seed`` of the estimator to reproduce (with ``smoothing_seed=None`` the first
        draws come from fresh OS entropy and are not reproducible).
    m : int
        Number of test objects, at least 0.

    Returns
    -------
    ndarray of shape (m,)
        Uniform on [0, 1).
    """
    return np.random.default_rng(check_seed(seed)).random(check_integer(m, "m", low=0))


def check_smoothing(smoothing, smoothing_seed) -> bool:
    """Check an estimator's ``smoothing`` (a bool) and ``smoothing_seed`` (``None``, fresh OS
    entropy, or a seed); return ``smoothing``.

    Raises
    ------
    ValueError
        Naming the parameter that is refused (a ``smoothing_seed`` that is neither ``None`` nor
        an integer in ``[0, MAX_SEED]``: negative, a float, a string, a bool).
    """
    if smoothing_seed is not None:
        check_seed(smoothing_seed, "smoothing_seed")
    return check_bool(smoothing, "smoothing")


class SmoothingMixin:
    """The smoothing draws of an estimator with the parameters ``smoothing`` and
    ``smoothing_seed``: one generator the estimator owns and advances, as online-cp does.

    Every smoothed call (:meth:`_smoothing_tau`, from ``predict_p`` and the methods built on
    it) draws the next ``m`` uniforms of the generator, one per test object. The generator is
    made from ``smoothing_seed`` (``numpy.random.default_rng(smoothing_seed)``) at the first
    smoothed call after the seed was set (by the constructor, :func:`sklearn.base.clone` or
    :meth:`set_params`, even to the same value, or by assigning another value to the
    attribute); later calls advance that one generator, whatever the seed. The draws are
    consecutive, so a batch gets the p-values its objects would get predicted one per call in
    the same order, and one call's p-values depend on the smoothed calls before it.

    * ``smoothing_seed=None`` (the default): the generator is seeded from fresh OS entropy (a new
      ``SeedSequence``) when it is made, so every clone and every new estimator draws its own,
      independent ``tau``. Every test object gets its own ``tau``, uniform and independent of
      the others', in any calling pattern (one object per call, batches, a loop that refits the
      same estimator, a new estimator or a clone per object as ``cross_val_score`` and
      ``GridSearchCV`` make), so ``P{p <= eps} = eps`` for every test object, exactly for a
      conformal machine on exchangeable data. Not reproducible.
    * an integer seed: reproducible. The same sequence of smoothed calls after the seed was set
      gives the same p-values, the first drawing :func:`smoothing_draws`
      ``(smoothing_seed, m)``, and a clone or a new estimator with the same seed repeats the
      same draws. Valid within one estimator's stream (one estimator refitted and asked again
      keeps drawing fresh ones), but a loop that builds a new estimator (or a clone) per object
      with the same integer seed gives every object the same first draw: its ``tau`` is not
      independent across objects, and validity is lost. Give each such estimator its own seed,
      or leave it ``None``.

    ``fit`` does not restart the draws. Calls without smoothing draw nothing. The generator's
    state is pickled (and deep-copied) with the estimator: a copy continues the stream where
    the estimator stands, so once it has drawn, a copy and its original draw the same ``tau``
    from there on, whatever the seed.
    """

    def set_params(self, **params):
        """Set the estimator's parameters (scikit-learn's ``set_params``); setting
        ``smoothing_seed``, even to its current value, restarts the smoothing draws."""
        super().set_params(**params)
        if "smoothing_seed" in params:
            self.__dict__.pop("_smoothing_state", None)
        return self

    def _smoothing_tau(self, m: int):
        """``None`` without ``smoothing``; else the next ``m`` draws of the estimator's
        generator (made from ``smoothing_seed``, fresh OS entropy for ``None``, if there is none
        yet or the seed changed since it was made; a ``None`` seed keeps advancing one
        generator, which only setting the seed restarts).

        Checks both parameters first (``ValueError`` naming the one refused).
        """
        if not check_smoothing(self.smoothing, self.smoothing_seed):
            return None
        m = check_integer(m, "m", low=0)
        seed = None if self.smoothing_seed is None else int(self.smoothing_seed)
        state = getattr(self, "_smoothing_state", None)
        if state is None or state[0] != seed:  # None == None: one generator for a None seed
            state = (seed, np.random.default_rng(seed))
            self._smoothing_state = state
        return state[1].random(m)


def merge_ties(scores, tol: float) -> np.ndarray:
    """Make scores that agree within ``tol`` times the largest ``|score|`` exactly equal.

    The library's tie rule (:func:`svmtrust.ties.merged`, eq. (T)), with its argument checked:
    the scores are sorted, and a new group starts wherever two neighbours differ by more than
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
        Relative tolerance, positive (the library's own is :data:`svmtrust.ties.TIE_TOL`).

    Returns
    -------
    ndarray of shape (N,)
    """
    return merged(_check_scores(scores, "scores"), check_positive(tol, "tol"))


def _check_scores(scores, name: str) -> np.ndarray:
    """Validate a vector of strangeness scores: numeric (no strings, no booleans), 1-D,
    non-empty, no NaN (inf allowed)."""
    arr = check_numeric(scores, name)
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


def error_band(trials, significance, level: float = 0.99) -> tuple[np.ndarray, np.ndarray]:
    """The central binomial band of the error count of an exactly valid region.

    A region at significance ``eps`` that is exactly valid on exchangeable data misses the true
    label of ``trials`` independent test examples ``Binomial(trials, eps)`` times; the band
    holds that count with probability at least ``level`` (its ends are the binomial quantiles
    of ``(1 - level) / 2`` and ``(1 + level) / 2``, :func:`scipy.stats.binom.interval`). A count
    above it says the guarantee failed; one below, that the region is conservative.

    Parameters
    ----------
    trials : int or array_like of int
        Test examples (independent trials), at least 1.
    significance : float or array_like of float
        Levels ``eps`` in (0, 1), broadcast against ``trials``.
    level : float
        The band's probability, in (0, 1).

    Returns
    -------
    low, high : ndarray of int
        The band's ends, counts of errors (divide by ``trials`` for rates).

    Raises
    ------
    ValueError
        Naming ``trials``, ``significance`` or ``level``.
    """
    level = check_significance(level, "level")
    counts = np.asarray(trials)
    if counts.dtype.kind not in "iu" or counts.size == 0 or np.any(counts < 1):
        raise ValueError(f"trials: expected counts of at least 1, got {trials!r}")
    eps = np.asarray(significance, dtype=object)
    try:
        eps = np.vectorize(check_significance, otypes=[float])(eps)
    except ValueError:
        raise ValueError(f"significance: expected levels in (0, 1), got {significance!r}") from None
    low, high = binom.interval(level, counts, eps)
    return low.astype(int), high.astype(int)


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


@dataclass(frozen=True)
class ConformalPrediction:
    """Everything a confidence machine says of a batch of test objects, from one computation
    of their p-values (:meth:`ConformalClassifierMixin.predict_all`).

    Attributes
    ----------
    p_values : ndarray of shape (m, n_classes)
        Columns in ``classes_`` order.
    labels : ndarray of shape (m,)
        The forced prediction (the largest p-value, ties as the machine's ``predict``).
    confidence, credibility : ndarray of shape (m,)
        One minus the second largest p-value, and the largest.
    regions : ndarray of bool, shape (m, n_classes)
        The prediction regions at the significance level asked for.
    significance : float
    """

    p_values: np.ndarray
    labels: np.ndarray
    confidence: np.ndarray
    credibility: np.ndarray
    regions: np.ndarray
    significance: float


class ConformalClassifierMixin(SmoothingMixin):
    """Forced predictions and regions for a classifier that computes conformal p-values.

    A class that mixes this in defines ``predict_p(X) -> (m, n_classes)`` (p-values, columns in
    ``classes_`` order) and a fitted ``classes_``; the mixin derives the rest from the p-values,
    through :func:`confidence_credibility` and :func:`predict_set`. Every method raises
    :class:`sklearn.exceptions.NotFittedError` on an estimator that is not fitted. Smoothed
    p-values draw through :class:`SmoothingMixin`: each call of ``predict_p`` or of a method
    built on it (``predict``, ``predict_set``, ``predict_confidence``, ``predict_all``) takes
    the next draws. Each of these computes every p-value again; :meth:`predict_all` gives them
    all from one computation. A class may override :meth:`_forced` (its own tie rule) and
    :meth:`_strict_regions` (its region rule).
    """

    def _fitted_p_values(self, X) -> np.ndarray:
        """``predict_p(X)``, after checking that the estimator is fitted."""
        check_is_fitted(self, msg=NOT_FITTED)
        return self.predict_p(X)

    def _forced(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The p-values of ``X`` and the column of each forced prediction (the largest
        p-value, the first in ``classes_`` on a tie)."""
        P = self._fitted_p_values(X)
        return P, confidence_credibility(P)[0]

    def _strict_regions(self) -> bool:
        """The region rule of :func:`predict_set`: ``p > eps`` (True) or ``p >= eps``."""
        return True

    def predict_confidence(self, X):
        """Forced prediction, confidence and credibility of each test object.

        Returns
        -------
        labels : ndarray of shape (m,)
            The label (a value of ``classes_``) with the largest p-value, the first in
            ``classes_`` on a tie (unless the machine has a tie rule of its own).
        confidence : ndarray of shape (m,)
            One minus the second largest p-value.
        credibility : ndarray of shape (m,)
            The largest p-value.
        """
        P, index = self._forced(X)
        _, confidence, credibility = confidence_credibility(P)
        return self.classes_[index], confidence, credibility

    def predict(self, X) -> np.ndarray:
        """The label with the largest p-value (ties as :meth:`predict_confidence`)."""
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
            Columns in ``classes_`` order (:func:`predict_set`: ``p > eps``, or ``p >= eps``
            for a machine whose convention says so).
        """
        significance = region_significance(significance, confidence)
        return predict_set(self._fitted_p_values(X), significance, self._strict_regions())

    def predict_all(self, X, significance=None, *, confidence=None) -> ConformalPrediction:
        """p-values, forced predictions with confidence and credibility, and regions, from one
        computation of the p-values: what :meth:`predict_p`, :meth:`predict_confidence` and
        :meth:`predict_set` give, at the cost of one of them (a full transductive machine
        solves its SVMs once, and smoothed p-values take one draw per test object).

        Parameters
        ----------
        X : array_like of shape (m, d)
        significance, confidence
            The regions' level, as :meth:`predict_set` takes it.

        Returns
        -------
        ConformalPrediction
        """
        significance = region_significance(significance, confidence)
        P, index = self._forced(X)
        _, conf, credibility = confidence_credibility(P)
        regions = predict_set(P, significance, self._strict_regions())
        return ConformalPrediction(
            P, self.classes_[index], conf, credibility, regions, significance
        )


class SplitConformalMixin(ConformalClassifierMixin):
    """:meth:`predict_p` of a split (inductive) conformal machine, through
    :func:`calibration_p_values`.

    A class that mixes this in defines ``test_scores(X) -> (m, n_classes)`` (which checks that
    it is fitted), the fitted ``classes_``, ``calibration_scores_`` and ``calibration_codes_``
    (the class index of each calibration example), and the parameters ``mondrian``,
    ``smoothing`` and ``smoothing_seed``; it may override :meth:`_include_new` (Hardoon's
    convention).
    """

    def _include_new(self) -> bool:
        """Whether the test example counts in its own bag (:func:`p_values`)."""
        return True

    def predict_p(self, X) -> np.ndarray:
        """p-values of every candidate label: each test score ranked among the calibration
        scores (of its label only, with ``mondrian``), smoothed with ``smoothing``.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
            Columns in ``classes_`` order.
        """
        scores = self.test_scores(X)
        return calibration_p_values(
            self.calibration_scores_,
            scores,
            self.calibration_codes_ if self.mondrian else None,
            include_new=self._include_new(),
            tau=self._smoothing_tau(scores.shape[0]),
            labels=self.classes_,
        )


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


class ClassLeftOut(ValueError):
    """The random split left a class out of the proper training set: another ``seed`` may not."""


def calibration_count(n: int, calibration_size) -> int:
    """Number of calibration examples out of ``n`` (the split conformal machines of
    :mod:`svmtrust.split_conformal` and :mod:`svmtrust.tcm_nn`).

    ``calibration_size`` is a fraction in (0, 1), an int count in ``[1, n - 2]``, or ``"hardoon"``
    for ``min(n / 5, 50)`` (:func:`default_validation_size`).
    """
    n = check_integer(n, "n", low=3)
    if isinstance(calibration_size, str) and calibration_size == "hardoon":
        return default_validation_size(n)
    if isinstance(calibration_size, (float, np.floating)):
        fraction = check_significance(calibration_size, "calibration_size")
        return check_integer(round(fraction * n), "calibration_size", low=1, high=n - 2)
    return check_integer(calibration_size, "calibration_size", low=1, high=n - 2)
