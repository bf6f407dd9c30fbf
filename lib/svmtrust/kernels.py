"""Gram matrices of the three kernels the papers use.

Each function takes a data matrix ``X`` of shape (n, d) and an optional second matrix ``Z`` of
shape (m, d) and returns the matrix of kernel values ``k(x_i, z_j)`` of shape (n, m); without
``Z`` it returns the (n, n) Gram matrix of ``X`` with itself, symmetric by construction.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array, check_positive


def _pair(X, Z):
    """Validate ``X`` and ``Z`` (``Z`` defaults to ``X``) and check their widths agree."""
    X = check_array(X, "X", ndim=2)
    if Z is None:
        return X, X
    Z = check_array(Z, "Z", ndim=2)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z: has {Z.shape[1]} features, X has {X.shape[1]}")
    return X, Z


def _symmetrise_if_square(K, same):
    """Remove rounding asymmetry of a Gram matrix of ``X`` with itself."""
    return (K + K.T) / 2.0 if same else K


def linear_kernel(X, Z=None):
    """Linear kernel ``k(x, z) = x . z``.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
        Defaults to ``X``.

    Returns
    -------
    ndarray of shape (n, m)
    """
    X, Zc = _pair(X, Z)
    return _symmetrise_if_square(X @ Zc.T, Z is None)


def polynomial_kernel(X, Z=None, degree=3, scale=1.0):
    """Homogeneous polynomial kernel ``k(x, z) = (x . z)^degree / scale``.

    This is the kernel of Saunders et al. (1999, Section 4), who use degree 3 and scale 256 on
    the USPS digits.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
        Defaults to ``X``.
    degree : int
        A positive integer.
    scale : float
        A positive divisor.

    Returns
    -------
    ndarray of shape (n, m)
    """
    if int(degree) != degree or degree < 1:
        raise ValueError(f"degree: must be a positive integer, got {degree!r}")
    scale = check_positive(scale, "scale")
    X, Zc = _pair(X, Z)
    K = (X @ Zc.T) ** int(degree) / float(scale)
    return _symmetrise_if_square(K, Z is None)


def rbf_kernel(X, Z=None, gamma=1.0):
    """Gaussian (RBF) kernel ``k(x, z) = exp(-gamma ||x - z||^2)``.

    With the width ``sigma`` of Chapelle & Vapnik (1999), ``k = exp(-||x - z||^2 / (2 sigma^2))``,
    so ``gamma = 1 / (2 sigma^2)``.

    Parameters
    ----------
    X : array_like of shape (n, d)
    Z : array_like of shape (m, d), optional
        Defaults to ``X``.
    gamma : float
        A positive inverse width.

    Returns
    -------
    ndarray of shape (n, m)
        Entries in (0, 1], with ones on the diagonal when ``Z`` is omitted.
    """
    gamma = check_positive(gamma, "gamma")
    X, Zc = _pair(X, Z)
    sq = (
        np.sum(X**2, axis=1)[:, None]
        + np.sum(Zc**2, axis=1)[None, :]
        - 2.0 * (X @ Zc.T)
    )
    K = np.exp(-gamma * np.maximum(sq, 0.0))
    if Z is None:
        K = _symmetrise_if_square(K, True)
        np.fill_diagonal(K, 1.0)
    return K
