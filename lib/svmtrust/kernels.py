"""Gram matrices of the three kernels the papers use.

Each function takes a data matrix ``X`` of shape (n, d) and an optional second matrix ``Z`` of
shape (m, d) and returns the matrix of kernel values ``k(x_i, z_j)`` of shape (n, m); without
``Z`` it returns the (n, n) Gram matrix of ``X`` with itself, symmetric by construction.
"""

from __future__ import annotations

import functools

import numpy as np

from .validation import check_array, check_integer, check_positive, kernel_block

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "KERNEL_NAMES",
    "KERNEL_PARAMETERS",
    "named_kernel",
    "rows_alone",
]

#: Kernels an estimator can name by a string, as scikit-learn's ``SVC`` names them.
KERNEL_NAMES = ("linear", "poly", "rbf")


def _psd(kernel):
    """Mark a kernel of this module as positive semi-definite by construction
    (:func:`svmtrust.validation.psd_by_construction`): estimators then skip the proof."""
    kernel.psd_by_construction = True
    return kernel


def _pair(X, Z):
    """Validate ``X`` and ``Z`` (``Z`` defaults to ``X``) and check their widths agree."""
    X = check_array(X, "X", ndim=2)
    if Z is None:
        return X, X
    Z = check_array(Z, "Z", ndim=2)
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z: has {Z.shape[1]} features, X has {X.shape[1]}")
    return X, Z


def _finite(K, what):
    """Return the kernel values ``K``, or raise ``ValueError`` naming ``X`` if they overflowed."""
    if not np.all(np.isfinite(K)):
        raise ValueError(
            f"X: the {what} overflow float64 (largest |entry| of X or Z too "
            "large); scale the data down"
        )
    return K


def _squared_distances(X, Z):
    """``||x_i - z_j||^2``, free of spurious overflow and underflow.

    The data are divided by ``s``, the power of 2 next below their largest absolute entry,
    which is exact, so that the norms and products of the expansion ``|x|^2 + |z|^2 - 2 x.z``
    neither overflow nor underflow; the result is multiplied back by ``s^2``, exactly again.
    Where the true distance exceeds float64 the result is ``inf`` (kernel value 0), never NaN.
    """
    top = max(float(np.max(np.abs(X))), float(np.max(np.abs(Z))))
    return _scaled_squared_distances(X, Z, float(_power_of_two_below(top)), _products)


def _power_of_two_below(top):
    """The power of 2 next below ``top`` (1 for 0), elementwise."""
    with np.errstate(divide="ignore"):
        return np.where(top > 0, 2.0 ** np.floor(np.log2(top)), 1.0)


def _scaled_squared_distances(X, Z, s, products):
    """:func:`_squared_distances` with the scale ``s`` given, the products ``x . z`` taken by
    ``products`` (:func:`_products` or :func:`_row_products`)."""
    Xs = X / s
    Zs = Xs if Z is X else Z / s  # the same array keeps numpy's symmetric product
    # max(|x|^2 + |z|^2 - 2 x.z, 0) s s, operation by operation in place: the same bits as
    # the expression, in two n x m arrays instead of seven
    twice = products(Xs, Zs)
    twice *= 2.0
    sq = np.add.outer(np.sum(Xs**2, axis=1), np.sum(Zs**2, axis=1))
    sq -= twice
    np.maximum(sq, 0.0, out=sq)
    with np.errstate(over="ignore"):
        sq *= s
        sq *= s
    return sq


def _products(X, Z):
    """``X Z^T`` in one matrix product."""
    return X @ Z.T


def _row_products(X, Z):
    """``X Z^T`` one row at a time: numpy's matmul over the stack of ``1 x d`` rows runs, for
    each row, the BLAS call of ``X[i:i+1] @ Z.T``, so each row has the bits it has alone
    (a product of many rows sums in another order, and differs in the last bits)."""
    return np.matmul(X[:, None, :], Z.T)[:, 0, :]


def rows_alone(kernel, X, Z) -> np.ndarray:
    """``kernel(X[i:i + 1], Z)`` for every row ``i`` of ``X``, stacked: each row's kernel values
    with the same bits whatever the other rows.

    A kernel block of many rows comes from one matrix product, whose sums run in an order that
    depends on the number of rows, so a row's values in a batch differ from its values alone
    in the last bits, enough to flip a tie with an equal example scored alone. For the kernels
    of this module (and those :func:`named_kernel` returns) the rows are computed together,
    each through the product it would have alone (:func:`_row_products`), with the same
    elementwise arithmetic; any other callable is called one row at a time.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B)``.
    X : array_like of shape (m, d)
    Z : array_like of shape (n, d)

    Returns
    -------
    ndarray of shape (m, n)

    Raises
    ------
    ValueError
        Naming ``X`` or ``Z`` for bad data, ``kernel`` if another callable returns anything but
        a finite block of shape ``(1, n)`` for a row (:func:`svmtrust.validation.kernel_block`).
    """
    X, Z = _pair(X, Z)
    base, options = _base_and_options(kernel)
    if base is linear_kernel:
        return _finite(_row_products(X, Z), "inner products")
    if base is _inhomogeneous_polynomial:
        inner = _finite(_row_products(X, Z), "inner products")
        return _finite(_polynomial_of(inner, **options), "polynomial kernel values")
    if base is rbf_kernel:
        return _gaussian(_row_squared_distances(X, Z), options.get("gamma", 1.0))
    return np.vstack([kernel_block(kernel, X[i : i + 1], Z) for i in range(X.shape[0])])


def _base_and_options(kernel):
    """``(function, keywords)`` of a kernel: a ``functools.partial`` unwrapped (its positional
    arguments, if any, are the caller's to refuse), any other callable with no keywords."""
    if isinstance(kernel, functools.partial):
        return kernel.func, kernel.keywords
    return kernel, {}


def _row_squared_distances(X, Z):
    """:func:`_squared_distances` of each row of ``X`` alone with ``Z`` (the scale of each row
    from its own entries and ``Z``'s), computed together (:func:`_row_products`)."""
    tops = np.maximum(np.max(np.abs(X), axis=1), float(np.max(np.abs(Z))))
    scales = _power_of_two_below(tops)
    out = np.empty((X.shape[0], Z.shape[0]))
    for s in np.unique(scales):
        rows = scales == s
        out[rows] = _scaled_squared_distances(X[rows], Z, float(s), _row_products)
    return out


def _symmetrise_if_square(K, same):
    """Remove rounding asymmetry of a Gram matrix of ``X`` with itself: ``(K + K^T) / 2``."""
    if not same:
        return K
    out = np.add(K, K.T)
    out /= 2.0
    return out


@_psd
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
    with np.errstate(over="ignore", invalid="ignore"):
        K = X @ Zc.T
    return _symmetrise_if_square(_finite(K, "inner products"), Z is None)


@_psd
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
        A positive integer (not a float or a bool).
    scale : float
        A positive divisor.

    Returns
    -------
    ndarray of shape (n, m)
    """
    degree = check_integer(degree, "degree")
    scale = check_positive(scale, "scale")
    X, Zc = _pair(X, Z)
    with np.errstate(over="ignore", invalid="ignore"):
        K = (X @ Zc.T) ** degree / scale
    return _symmetrise_if_square(_finite(K, "kernel values"), Z is None)


@_psd
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
    K = _gaussian(_squared_distances(X, Zc), gamma)
    if Z is None:
        K = _symmetrise_if_square(K, True)
        np.fill_diagonal(K, 1.0)
    return K


def _gaussian(sq, gamma):
    """``exp(-gamma sq)`` of squared distances, in place."""
    sq *= -gamma
    return np.exp(sq, out=sq)


def _inhomogeneous_polynomial(X, Z=None, gamma=1.0, degree=3, coef0=0.0):
    """``(gamma x . z + coef0)^degree``, scikit-learn's ``"poly"`` kernel."""
    inner = linear_kernel(X, Z)
    return _finite(_polynomial_of(inner, gamma, degree, coef0), "polynomial kernel values")


def _polynomial_of(inner, gamma=1.0, degree=3, coef0=0.0):
    """``(gamma inner + coef0)^degree`` of inner products."""
    return (gamma * inner + coef0) ** degree


#: The parameters each kernel reads, beside its name; the others must keep their defaults.
KERNEL_PARAMETERS = {"linear": (), "rbf": ("gamma",), "poly": ("gamma", "degree", "coef0")}

#: The defaults of ``gamma``, ``degree`` and ``coef0``, as in scikit-learn's ``SVC``.
KERNEL_DEFAULTS = {"gamma": "scale", "degree": 3, "coef0": 0.0}


def named_kernel(kernel, X, gamma="scale", degree=3, coef0=0.0):
    """The kernel function ``k(X, Z)`` that an estimator's parameters describe.

    The conventions of scikit-learn's ``SVC``, so that a grid search over ``gamma`` needs no
    grid of functions: ``"linear"`` is ``x . z``; ``"rbf"`` is ``exp(-gamma ||x - z||^2)``;
    ``"poly"`` is ``(gamma x . z + coef0)^degree``; a callable ``kernel(X, Z)`` is returned as
    it is. Where ``SVC`` ignores a parameter the kernel does not read (``gamma`` of
    ``"linear"``, ``degree`` and ``coef0`` of ``"rbf"``, all three of a callable), this refuses
    it unless it keeps its default (:data:`KERNEL_PARAMETERS`): a value that changes nothing
    would otherwise be searched, scored and reported as a choice.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"} or callable
    X : array_like of shape (n, d)
        The training data, for ``gamma="scale"`` and ``"auto"``.
    gamma : {"scale", "auto"} or float
        ``"scale"`` is ``1 / (d Var(X))`` (``Var`` over all entries of ``X``), ``"auto"`` is
        ``1 / d``, a float is used as it is (positive).
    degree : int
        Degree of ``"poly"`` (at least 1).
    coef0 : float
        Constant of ``"poly"`` (at least 0, which keeps the kernel positive semi-definite).

    Returns
    -------
    callable
        ``k(X, Z=None)``.

    Raises
    ------
    ValueError
        Naming ``kernel``, ``gamma``, ``degree`` or ``coef0``: an unknown kernel, a value out
        of range, a parameter the kernel does not read set away from its default, or
        ``gamma="scale"`` on data whose variance is 0 to rounding or not finite.
    """
    named = kernel if isinstance(kernel, str) else None
    if not callable(kernel) and named not in KERNEL_NAMES:
        raise ValueError(
            f"kernel: must be one of {KERNEL_NAMES} or a callable kernel(X, Z), got {kernel!r}"
        )
    _check_unread(named or "callable", gamma=gamma, degree=degree, coef0=coef0)
    if callable(kernel):
        return kernel
    if kernel == "linear":
        return linear_kernel
    X = check_array(X, "X", ndim=2)
    gamma = check_positive(_gamma_value(gamma, X), "gamma")
    if kernel == "rbf":
        return _psd(functools.partial(rbf_kernel, gamma=gamma))
    degree = check_integer(degree, "degree")
    try:
        coef0 = float(coef0)
    except (TypeError, ValueError):
        raise ValueError(f"coef0: expected a number, got {coef0!r}") from None
    if not (np.isfinite(coef0) and coef0 >= 0):
        raise ValueError(f"coef0: must be finite and at least 0, got {coef0!r}")
    return _psd(
        functools.partial(_inhomogeneous_polynomial, gamma=gamma, degree=degree, coef0=coef0)
    )


def _check_unread(kernel: str, **values) -> None:
    """Refuse a parameter ``kernel`` does not read (:data:`KERNEL_PARAMETERS`; a callable reads
    none) unless it keeps its default, naming it."""
    read = KERNEL_PARAMETERS.get(kernel, ())
    for name, value in values.items():
        if name not in read and not _is_default(value, KERNEL_DEFAULTS[name]):
            where = "give it inside the callable" if kernel == "callable" else "omit it"
            raise ValueError(
                f"{name}: the {kernel} kernel does not read it, so {value!r} would change "
                f"nothing; {where}, or name a kernel that reads it "
                f"({', '.join(k for k, p in KERNEL_PARAMETERS.items() if name in p)})"
            )


def _is_default(value, default) -> bool:
    """Whether ``value`` is ``default`` (a string only equals a string, a number a number)."""
    if isinstance(default, str) or isinstance(value, str):
        return value == default
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _gamma_value(gamma, X) -> float:
    """``gamma`` as a number: ``"scale"`` is ``1 / (d Var(X))``, ``"auto"`` ``1 / d``.

    ``"scale"`` on data of variance 0 (one distinct value) gives 1, as ``SVC``; on data whose
    variance overflows, or whose ``1 / (d Var)`` underflows to 0, it raises rather than pass a
    ``gamma`` the caller never gave."""
    if not isinstance(gamma, str):
        return gamma
    if gamma not in ("scale", "auto"):
        raise ValueError(f"gamma: must be 'scale', 'auto' or a positive number, got {gamma!r}")
    d = X.shape[1]
    if gamma == "auto":
        return 1.0 / d
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(X.var())
    if spread == 0:
        return 1.0
    value = 1.0 / (d * spread)
    if not (np.isfinite(spread) and value > 0):
        raise ValueError(
            f"gamma: 'scale' is 1 / (d Var(X)), and Var(X) = {spread:.3g} over the {d} "
            "features gives no positive number; rescale X (StandardScaler) or give gamma "
            "as a number"
        )
    return value
