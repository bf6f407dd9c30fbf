"""How useful valid p-values are: criteria of efficiency for conformal classifiers.

Every valid conformal predictor errs at most at rate ``eps``; they differ in how small their
regions are. Vovk, Fedorova, Nouretdinov & Gammerman (2016) list criteria of efficiency; two
kinds are used here.

* Criteria of the regions at one significance level ``eps``: the mean number of labels in a
  region, and the shares of empty, single-label and multi-label regions
  (:func:`region_summary`).
* The *observed fuzziness* (their criterion OF), which needs no ``eps``: the sum of the p-values
  of the false labels of a test example, averaged over the ``m`` test examples, that is the mean
  over ``i`` of the sum of ``p_i(y)`` over every label ``y`` other than the true ``y_i``.
  A small value means that the false labels get small p-values, so they leave the region early
  as ``eps`` grows; it is the integral over ``eps`` in (0, 1) of the
  number of false labels in the region (:func:`observed_fuzziness`). Vovk et al. show that OF is a
  *proper* criterion: the p-values built from the true conditional probability of the label
  minimise it.
"""

from __future__ import annotations

import numpy as np

from . import conformal

__all__ = [
    "observed_fuzziness",
    "region_summary",
]


def _check_truth(P: np.ndarray, true_index) -> np.ndarray:
    """Validate column indices of the true labels against a p-value matrix."""
    idx = np.asarray(true_index)
    if idx.shape != (P.shape[0],) or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"true_index: expected {P.shape[0]} integer column indices")
    if np.any((idx < 0) | (idx >= P.shape[1])):
        raise ValueError(f"true_index: indices must lie in [0, {P.shape[1]})")
    return idx


def observed_fuzziness(P, true_index) -> float:
    """Criterion (OF): mean over test examples of the sum of the false labels' p-values.

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
        p-values.
    true_index : array_like of int, shape (m,)
        Column of each example's true label.

    Returns
    -------
    float
        In ``[0, n_labels - 1]``.
    """
    P = conformal._check_p_matrix(P)
    idx = _check_truth(P, true_index)
    return float(np.mean(P.sum(axis=1) - P[np.arange(idx.size), idx]))


def region_summary(P, true_index, significance, strict=True) -> dict:
    """Error rate and size of the regions at one significance level.

    Parameters
    ----------
    P : array_like of shape (m, n_labels)
    true_index : array_like of int, shape (m,)
    significance : float in (0, 1)
    strict : bool
        Region rule, ``p > eps`` (default) or ``p >= eps`` (:func:`svmtrust.conformal.predict_set`).

    Returns
    -------
    dict
        ``error`` (true label outside), ``size`` (mean number of labels), ``empty``, ``single``
        and ``multiple`` (shares of regions with 0, 1 and more labels).
    """
    regions = conformal.predict_set(P, significance, strict=strict)
    idx = _check_truth(regions, true_index)
    size = regions.sum(axis=1)
    return {
        "error": float(np.mean(~regions[np.arange(idx.size), idx])),
        "size": float(np.mean(size)),
        "empty": float(np.mean(size == 0)),
        "single": float(np.mean(size == 1)),
        "multiple": float(np.mean(size > 1)),
    }
