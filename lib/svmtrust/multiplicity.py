"""Many tests at once: Holm's step-down adjustment of p-values (Holm 1979).

A chapter that runs ``m`` tests and reads each at level ``alpha`` rejects a true null hypothesis
somewhere with probability up to ``m * alpha``. Holm's procedure controls that family-wise error
rate at ``alpha`` under any dependence between the tests: sort the p-values,
``p_(1) <= ... <= p_(m)``, and reject ``H_(1), ..., H_(j)`` while ``p_(i) <= alpha / (m - i + 1)``
for every ``i <= j``. It rejects everything Bonferroni's ``p <= alpha / m`` rejects, and more.

The adjusted p-value of ``H_(i)`` is the smallest ``alpha`` at which the procedure rejects it,

.. math:: \\tilde p_{(i)} = \\min\\Big(1, \\max_{j \\le i} (m - j + 1)\\, p_{(j)}\\Big),

so that "reject when the adjusted p-value is at most ``alpha``" is Holm's procedure.

Examples
--------
>>> from svmtrust.multiplicity import holm
>>> holm([0.01, 0.04, 0.03, 0.5]).round(3).tolist()
[0.04, 0.09, 0.09, 0.5]
"""

from __future__ import annotations

import numpy as np

from .validation import check_array

__all__ = ["holm"]


def holm(p_values) -> np.ndarray:
    """Holm's adjusted p-values, in the order of ``p_values`` (the module's equation).

    Parameters
    ----------
    p_values : array-like of shape (m,)
        The p-values of the ``m`` tests of one family, each in ``[0, 1]``.

    Returns
    -------
    ndarray of shape (m,)
        The adjusted p-values: test ``i`` is rejected at family-wise level ``alpha`` by Holm's
        procedure exactly when entry ``i`` is at most ``alpha``.

    Raises
    ------
    ValueError
        If ``p_values`` is empty, not one-dimensional, or has an entry outside ``[0, 1]``.
    """
    p = check_array(p_values, "p_values", ndim=1)
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"p_values: must lie in [0, 1], got {p.min():.3g} to {p.max():.3g}")
    order = np.argsort(p, kind="stable")
    factors = p.size - np.arange(p.size)
    adjusted = np.minimum(1.0, np.maximum.accumulate(factors * p[order]))
    out = np.empty_like(adjusted)
    out[order] = adjusted
    return out
