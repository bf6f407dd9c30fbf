"""How well probability forecasts are calibrated: the CORP reliability curve and decomposition.

Dimitriadis, Gneiting & Jordan (2021, "Stable reliability diagrams for probabilistic
classifiers", PNAS 118) replace the binned reliability diagram, whose picture changes with the
choice of bins, by CORP: a Consistent, Optimally binned, Reproducible one, with the PAV
algorithm as the way to get there. For forecasts ``x_1, ..., x_n`` in ``[0, 1]`` of binary
outcomes ``y_1, ..., y_n`` in ``{0, 1}``:

* **The curve.** The recalibrated probability ``r(x)`` is the isotonic (non-decreasing)
  regression of the outcomes on the forecasts, computed by pool-adjacent-violators, equal
  forecasts pooled into one point weighted by their number (:func:`corp_curve`)::

      r = argmin { sum_i (g(x_i) - y_i)^2 : g non-decreasing }                          (R)

  Its value on each block of pooled forecasts is the frequency of outcome 1 in the block. The
  diagram plots ``r`` against ``x``; a calibrated forecast lies on the diagonal.
* **The decomposition.** For a mean score ``S`` (:func:`brier_score`, :func:`log_loss`),
  with ``S(x)`` the score of the forecasts, ``S(r)`` that of the recalibrated forecasts
  ``r(x_i)`` and ``S(c)`` that of climatology, the constant forecast ``c`` equal to the mean
  outcome::

      S(x) = MCB - DSC + UNC,   MCB = S(x) - S(r),   DSC = S(c) - S(r),   UNC = S(c)     (D)

  miscalibration, discrimination and uncertainty (:func:`score_decomposition`). (D) holds for
  any numbers; what makes it a decomposition is that MCB and DSC are never negative.
* **The consistency band.** Where would the curve of *calibrated* forecasts lie? Drawing the
  outcomes anew as ``y*_i ~ Bernoulli(x_i)`` makes the forecasts calibrated by construction;
  the pointwise quantiles of the curves (R) of many such draws give a band around the diagonal,
  and an observed curve that leaves it is evidence of miscalibration there
  (:func:`consistency_band`).

Equal forecasts are pooled when they are equal as floats: forecasts are probabilities, not the
computed scores that :mod:`svmtrust.ties` compares, so the library's tie rule is not applied.
The labels (R) and (D) are this module's.

Why MCB >= 0 and DSC >= 0
-------------------------
Both scores are proper scores of Bregman form, ``S(p, y) = -phi(p) - phi'(p) (y - p)`` with
``phi`` convex (the negative of the score's entropy): ``phi(p) = -p (1 - p)`` gives the Brier score
``(p - y)^2``, ``phi(p) = p log p + (1 - p) log(1 - p)`` the log score
``-y log p - (1 - y) log(1 - p)``. For any forecast ``g_i`` and the PAV fit ``r_i``::

    S(g_i, y_i) - S(r_i, y_i) = D_phi(r_i, g_i) + (phi'(r_i) - phi'(g_i)) (y_i - r_i),

with the Bregman divergence ``D_phi(r, g) = phi(r) - phi(g) - phi'(g) (r - g) >= 0``. On a
PAV block ``r`` is constant, the block's mean outcome, so ``phi'(r_i) (y_i - r_i)`` sums to 0
over it. Let ``g`` be a non-decreasing function of the forecast; then ``h = phi'(g)`` is one
too (``phi'`` is non-decreasing), constant on each group of equal forecasts, ``H_k`` on the
``k``-th of ``G`` groups in ascending order. With ``C_k`` the sum of ``y_i - r_i`` over the
groups ``1 .. k``, summation by parts gives::

    sum_i h_i (y_i - r_i) = sum_{k < G} (H_k - H_{k+1}) C_k + H_G C_G.

``C_k`` is 0 at the end of every block (so ``C_G = 0``) and at least 0 inside one: it is the
size of the block's first groups times their mean outcome less the block's, and a first part
of a PAV block never has a smaller mean than the block (the block could otherwise be split,
lowering the squared error and staying non-decreasing). Every term is ``<= 0``, so the sum of
``S(g_i, y_i) - S(r_i, y_i)`` is at least ``sum_i D_phi(r_i, g_i) >= 0``: the PAV fit scores
best among all non-decreasing recalibrations, for the Brier and the log score at once (a
classical property of isotonic regression; Barlow, Bartholomew, Bremner & Brunk 1972, ch. 1).
The forecasts themselves (``g(x) = x``) and climatology (``g(x) = c``) are non-decreasing
functions of the forecast, hence ``MCB >= 0`` and ``DSC >= 0``, with ``MCB = 0`` exactly when
the forecasts equal their PAV fit (``D_phi`` vanishes only there) and ``DSC = 0`` exactly when
the fit is constant.

The log score of a forecast 0 or 1 against the outcome it excluded is infinite; every
probability is clipped to ``[eps, 1 - eps]`` first (:data:`LOG_EPS`). The argument survives
the clipping: the clipped fit ``clip(r)`` scores best among the non-decreasing recalibrations
with values in ``[eps, 1 - eps]`` (where ``r < eps``, every such ``g`` has
``phi'(g) >= phi'(eps)``, and symmetrically above ``1 - eps``, so the term
``(phi'(clip r) - phi'(g)) (r - clip r)`` that writing ``y - clip r = (y - r) + (r - clip r)``
adds is at least 0), and the clipped forecasts and the
clipped climatology are two of them.

Each recalibrated value is computed as the correctly rounded ratio of two integers, the number
of outcomes 1 in its PAV block over the block's size, so a forecast equal to its group's
frequency (``k / m`` computed in floating point) equals its recalibrated value bit for bit.
"""

from __future__ import annotations

import numpy as np
from sklearn.isotonic import isotonic_regression

from .validation import (
    check_array,
    check_choice,
    check_integer,
    check_rng,
    check_significance,
)

__all__ = [
    "LOG_EPS",
    "corp_curve",
    "brier_score",
    "log_loss",
    "score_decomposition",
    "consistency_band",
]

#: Probabilities are clipped to ``[LOG_EPS, 1 - LOG_EPS]`` before their log score is taken, so
#: that a forecast 0 or 1 against the outcome it excluded costs ``-log(LOG_EPS) = 50 log 2``,
#: about 34.7, instead of infinity. ``2^-50`` (about 8.9e-16) is a power of 2, so that
#: ``1 - LOG_EPS`` is exact in float64 and the clipping symmetric.
LOG_EPS = 2.0**-50


def _check_forecasts(forecasts) -> np.ndarray:
    """Forecasts as a finite 1-D float array in ``[0, 1]``, or ``ValueError`` naming them."""
    values = check_array(forecasts, "forecasts", ndim=1)
    if np.any((values < 0) | (values > 1)):
        raise ValueError("forecasts: probabilities must lie in [0, 1]")
    return values


def _check_outcomes(outcomes, n: int) -> np.ndarray:
    """Outcomes as a float array of ``n`` zeros and ones, or ``ValueError`` naming them."""
    values = check_array(outcomes, "outcomes", ndim=1)
    if values.shape != (n,):
        raise ValueError(f"outcomes: expected {n} outcomes, one per forecast, got {values.size}")
    if not np.all((values == 0) | (values == 1)):
        raise ValueError("outcomes: expected outcomes 0 and 1")
    return values


def _check_pairs(forecasts, outcomes) -> tuple[np.ndarray, np.ndarray]:
    """The door of every function of forecasts and outcomes."""
    x = _check_forecasts(forecasts)
    return x, _check_outcomes(outcomes, x.size)


def _check_eps(eps) -> float:
    """``eps`` as a float in ``(0, 1/2)``, or ``ValueError`` naming ``eps``."""
    value = check_significance(eps, "eps")
    if not value < 0.5:
        raise ValueError(f"eps: must lie in (0, 0.5), got {eps!r}")
    return value


def _groups(x: np.ndarray, y: np.ndarray):
    """The distinct forecasts (ascending), each forecast's group, and the groups' sizes and
    numbers of outcomes 1 (integer-valued floats)."""
    levels, group = np.unique(x, return_inverse=True)
    return levels, group, np.bincount(group).astype(float), np.bincount(group, weights=y)


def _pav(ones: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The fit (R) at each group, from its number of outcomes 1 and its size.

    scikit-learn's PAV finds the blocks (runs of equal fitted values); each block's value is
    then recomputed as its count of ones over its size, so that no rounding of the pooled means
    enters. Adjacent blocks have strictly increasing means, ratios of integers with
    denominators at most ``n``, so they differ by at least ``1 / n^2`` (1e-12 at a million
    examples), far above the rounding of the pooled means: no rounding merges two blocks into
    one run.
    """
    fit = isotonic_regression(ones / counts, sample_weight=counts)
    starts = np.flatnonzero(np.r_[True, fit[1:] != fit[:-1]])
    sizes = np.diff(np.r_[starts, fit.size])
    return np.repeat(np.add.reduceat(ones, starts) / np.add.reduceat(counts, starts), sizes)


def corp_curve(forecasts, outcomes) -> tuple[np.ndarray, np.ndarray]:
    """The CORP reliability curve: the PAV recalibration (R) at every distinct forecast.

    Parameters
    ----------
    forecasts : array_like of shape (n,)
        Probabilities of outcome 1, in ``[0, 1]``.
    outcomes : array_like of shape (n,)
        The outcomes, 0 or 1.

    Returns
    -------
    levels : ndarray of shape (G,)
        The ``G`` distinct forecasts, ascending.
    recalibrated : ndarray of shape (G,)
        The isotonic regression of the outcomes on the forecasts at each level (equal forecasts
        pooled, eq. (R) of the module notes): non-decreasing, in ``[0, 1]``, each value the
        frequency of outcome 1 in its PAV block.

    Raises
    ------
    ValueError
        Naming the argument: not 1-D, empty, NaN or infinite, a forecast outside ``[0, 1]``, an
        outcome other than 0 and 1, or lengths that differ.
    """
    x, y = _check_pairs(forecasts, outcomes)
    levels, _, counts, ones = _groups(x, y)
    return levels, _pav(ones, counts)


def _recalibrated(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each example's recalibrated forecast ``r(x_i)`` (checked input)."""
    _, group, counts, ones = _groups(x, y)
    return _pav(ones, counts)[group]


def _brier(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The Brier score ``(p - y)^2`` of each example."""
    return (p - y) ** 2


def _log(p: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """The log score ``-log p`` (outcome 1) or ``-log(1 - p)`` (outcome 0) of each example,
    ``p`` clipped to ``[eps, 1 - eps]``."""
    p = np.clip(p, eps, 1.0 - eps)
    return np.where(y == 1, -np.log(p), -np.log1p(-p))


def brier_score(forecasts, outcomes) -> float:
    """The mean Brier score ``(1/n) sum_i (x_i - y_i)^2``, in ``[0, 1]``; smaller is better.

    Parameters
    ----------
    forecasts, outcomes
        As :func:`corp_curve`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As :func:`corp_curve`.
    """
    x, y = _check_pairs(forecasts, outcomes)
    return float(np.mean(_brier(x, y)))


def log_loss(forecasts, outcomes, eps: float = LOG_EPS) -> float:
    """The mean log score ``-(1/n) sum_i [y_i log x_i + (1 - y_i) log(1 - x_i)]``.

    Parameters
    ----------
    forecasts, outcomes
        As :func:`corp_curve`.
    eps : float
        Every forecast is clipped to ``[eps, 1 - eps]`` first, so that a forecast 0 or 1 against
        the outcome it excluded costs ``-log(eps)`` instead of infinity (``1 - eps`` as rounded
        in float64, exact for :data:`LOG_EPS`); in ``(0, 0.5)``, :data:`LOG_EPS` by default.
        Forecasts inside the interval are untouched.

    Returns
    -------
    float
        At least 0 and at most ``-log(eps)``; smaller is better.

    Raises
    ------
    ValueError
        As :func:`corp_curve`, and naming ``eps`` outside ``(0, 0.5)``.
    """
    x, y = _check_pairs(forecasts, outcomes)
    return float(np.mean(_log(x, y, _check_eps(eps))))


def score_decomposition(forecasts, outcomes, score: str = "brier", eps: float = LOG_EPS) -> dict:
    """The CORP decomposition (D) of a mean score into miscalibration, discrimination and
    uncertainty.

    Parameters
    ----------
    forecasts, outcomes
        As :func:`corp_curve`.
    score : {"brier", "log"}
        The mean Brier score (:func:`brier_score`) or log score (:func:`log_loss`).
    eps : float
        The clipping of the log score (:func:`log_loss`); unused by the Brier score.

    Returns
    -------
    dict
        ``score``, the forecasts' mean score ``S(x)``; ``mcb = S(x) - S(r)``, the
        miscalibration, with ``r`` the PAV recalibration (:func:`corp_curve`);
        ``dsc = S(c) - S(r)``, the discrimination, with ``c`` the mean outcome (climatology);
        ``unc = S(c)``, the uncertainty. ``score == mcb - dsc + unc`` to rounding, and
        ``mcb >= 0``, ``dsc >= 0`` (the module notes prove both), ``mcb == 0`` exactly when
        every forecast equals its recalibrated value.

    Raises
    ------
    ValueError
        As :func:`log_loss`, and naming ``score`` if it is neither ``"brier"`` nor ``"log"``.
    """
    x, y = _check_pairs(forecasts, outcomes)
    check_choice(score, "score", ("brier", "log"))
    eps = _check_eps(eps)

    def mean_score(p):
        return _brier(p, y) if score == "brier" else _log(p, y, eps)

    given, recalibrated = mean_score(x), mean_score(_recalibrated(x, y))
    climatology = mean_score(np.full(y.size, np.sum(y) / y.size))
    return {
        "score": float(np.mean(given)),
        "mcb": float(np.mean(given - recalibrated)),
        "dsc": float(np.mean(climatology - recalibrated)),
        "unc": float(np.mean(climatology)),
    }


def consistency_band(
    forecasts, n_resamples: int = 1000, level: float = 0.9, seed=0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The CORP consistency band: where the curve (R) of calibrated forecasts lies.

    Each resample draws outcomes ``y*_i ~ Bernoulli(x_i)``, under which the forecasts are
    calibrated, and fits the curve (R) to ``(x_i, y*_i)``; the band is the pointwise
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the fitted values at each distinct
    forecast (linear interpolation between order statistics, :func:`numpy.quantile`). An
    observed curve (:func:`corp_curve`) outside the band at a forecast is evidence, at that
    forecast, against calibration. The outcomes of a group of ``m`` equal forecasts ``x`` enter
    the fit only through their number of ones, so each group draws that number from
    ``Binomial(m, x)``, the law of the sum of its ``m`` Bernoulli draws.

    Parameters
    ----------
    forecasts : array_like of shape (n,)
        Probabilities in ``[0, 1]``.
    n_resamples : int
        The number of resampled outcome vectors, at least 1.
    level : float
        The pointwise coverage of the band, in ``(0, 1)``.
    seed : int or numpy.random.Generator
        The only source of randomness: a seed in ``[0, MAX_SEED]`` or a Generator, which is
        advanced (:func:`svmtrust.validation.check_rng`).

    Returns
    -------
    levels : ndarray of shape (G,)
        The distinct forecasts, ascending (the levels of :func:`corp_curve`).
    lower, upper : ndarray of shape (G,)
        The band at each level, ``lower <= upper``.

    Raises
    ------
    ValueError
        Naming the argument: forecasts as :func:`corp_curve`, ``n_resamples`` not a positive
        integer, ``level`` outside ``(0, 1)``, ``seed`` neither a valid seed nor a Generator.
    """
    x = _check_forecasts(forecasts)
    n_resamples = check_integer(n_resamples, "n_resamples", low=1)
    level = check_significance(level, "level")
    rng = check_rng(seed, "seed", seed_ok=True)
    levels, _, counts, _ = _groups(x, np.zeros(x.size))
    ones = rng.binomial(counts.astype(np.int64), levels, size=(n_resamples, levels.size))
    curves = np.array([_pav(row.astype(float), counts) for row in ones])
    lower, upper = np.quantile(curves, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return levels, lower, upper
