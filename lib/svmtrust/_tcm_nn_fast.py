"""Fast backend of :class:`svmtrust.tcm_nn.TCMNearestNeighbours` (``algorithm="fast"``).

The same p-values as the readable backend of :mod:`svmtrust.tcm_nn`, bit for bit, faster.
:class:`FastSelection` holds the readable backend's three distance methods written again: the
nearest neighbours and the close pairs are *selected* with single-precision matrix products
(BLAS) whose rounding error is bounded rigorously (:func:`_error_bound`), or with an exact
product on integer coordinates, and every distance that enters a strangeness score is then
recomputed canonically in double precision (:func:`paired_squared`, the order of
``scipy.spatial.distance.cdist``). Blocks run on threads with the BLAS held to one thread.

This module is the lower of the two: it imports nothing from :mod:`svmtrust.tcm_nn`, which
imports from it the canonical squared distance and the mixin, and puts the mixin before its
readable class. The module is private: it is reached through
``TCMNearestNeighbours(algorithm="fast")`` (or ``"auto"`` on large training sets).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from threadpoolctl import ThreadpoolController


def paired_squared(AT, rows, BT, cols) -> np.ndarray:
    """Canonical squared distances of the pairs ``(A[rows[p]], B[cols[p]])``.

    ``AT`` and ``BT`` are the transposed point sets (features by points), so that each
    feature's coordinates are gathered contiguously; the squares are added from the first
    feature to the last, the order of ``scipy.spatial.distance.cdist``, which the readable
    backend calls. This backend recomputes every selected distance with it;
    :func:`svmtrust.tcm_nn.paired_distances` is its public form, checked against ``cdist``.
    """
    total = np.zeros(len(rows))
    for a, b in zip(AT, BT):
        diff = a[rows] - b[cols]
        diff *= diff
        total += diff
    return total


class _Geometry:
    """Training points prepared for approximate squared distances by one matrix product.

    With ``z = s (x - mean)`` and ``q = |z|^2``, the product of ``[z, q, 1]`` (a query row)
    with ``[-2 z', 1, q']`` (a training row) is ``|z - z'|^2``, so one BLAS call gives a whole
    block of approximate squared distances. The product runs in single precision, twice as
    fast as double and half the memory; the scale ``s``, a power of two, brings every
    training norm below 1, so nothing overflows and scaling loses nothing. Approximate values
    are in these scaled units.
    """

    def __init__(self, X: np.ndarray):
        self.X = X
        self.XT = np.ascontiguousarray(X.T)
        self.mean = X.mean(axis=0)
        Z = X - self.mean
        largest = float(np.sqrt(np.einsum("ij,ij->i", Z, Z).max()))
        self.scale = float(np.ldexp(1.0, -np.frexp(largest)[1]))
        Z *= self.scale
        norms = np.einsum("ij,ij->i", Z, Z)
        self.right = np.hstack([-2.0 * Z, np.ones((len(X), 1)), norms[:, None]])
        self.right32 = self.right.astype(np.float32)
        self.max_norm = float(norms.max())
        self.centre = np.round(self.mean)
        self.right_int = _integer_rows(X - self.centre, right=True)
        self.right_int32 = None if self.right_int is None else self.right_int.astype(np.float32)

    def approx(self, Q: np.ndarray) -> tuple:
        """Approximate scaled squared distances of the rows of ``Q`` to every training point.

        A query far outside the training points (a scaled norm beyond ``1e30``) would overflow
        single precision; such a block is computed in double precision. When the training and
        query coordinates are all integers of moderate size the product is computed in double
        precision on integers, where every operation is exact: the values *are* the canonical
        squared distances.

        Returns
        -------
        A : ndarray of float32 (or float64), shape (len(Q), n)
        bound : ndarray of shape (len(Q),)
            :func:`_error_bound` of each row: ``|A - factor * canonical| <= bound`` entrywise.
        factor : float
            The units of ``A``: ``factor`` times a canonical squared distance.
        exact : bool
            ``A`` holds the canonical squared distances themselves (``bound`` is 0).
        """
        if self.right_int is not None:
            left = _integer_rows(Q - self.centre, right=False)
            dtype = None if left is None else _exact_dtype(left, self.right_int)
            if dtype is not None:
                right = self.right_int32 if dtype is np.float32 else self.right_int
                A = left.astype(dtype) @ right.T
                return A, np.zeros(len(Q)), 1.0, True
        Z = (Q - self.mean) * self.scale
        norms = np.einsum("ij,ij->i", Z, Z)
        left = np.hstack([Z, norms[:, None], np.ones((len(Q), 1))])
        if norms.max() < 1e30:
            left, right = left.astype(np.float32), self.right32
        else:
            right = self.right
        bound = _error_bound(norms, self.max_norm, Q.shape[1], left.dtype)
        return left @ right.T, bound, self.scale**2, False


def _integer_rows(Z: np.ndarray, right: bool):
    """``[z, |z|^2, 1]`` (or ``[-2 z, 1, |z|^2]`` with ``right``) if ``Z`` is integral, else None."""
    if not np.array_equal(Z, np.round(Z)) or np.max(np.abs(Z)) > 2.0**20:
        return None
    norms = np.einsum("ij,ij->i", Z, Z)[:, None]
    ones = np.ones((len(Z), 1))
    return np.hstack([-2.0 * Z, ones, norms] if right else [Z, norms, ones])


def _exact_dtype(left: np.ndarray, right: np.ndarray):
    """The narrowest float type in which ``left @ right.T`` of integer rows is exact, or None.

    Every partial sum of a row product is at most ``4 d M^2`` in absolute value, ``M`` the
    largest coordinate; single precision holds integers exactly up to ``2**24``, double up to
    ``2**53``.
    """
    d = left.shape[1] - 2
    largest = max(np.max(np.abs(left[:, :d])), np.max(np.abs(right[:, :d])) / 2)
    total = 4.0 * (d + 1) * float(largest) ** 2
    if total < 2.0**23:
        return np.float32
    return np.float64 if total < 2.0**52 else None


def _error_bound(norms, max_norm, d, dtype=np.float32) -> np.ndarray:
    """Bound on |approximate - canonical| scaled squared distance (see :class:`_Geometry`).

    With ``u`` the unit round-off of ``dtype`` (single precision, or double for far queries)
    and ``gamma_j = j u / (1 - j u)``, the
    product errs by at most ``gamma_{d+2} (2 |z||z'| + q + q') <= 2 gamma_{d+2} (q + q')``
    whatever order the BLAS adds in; rounding the norms, the centred and scaled coordinates to
    single precision adds at most ``6 u (q + q')``, and the canonical double-precision sum
    differs from the true distance by far less (``2 gamma_{d+2}`` in double precision). That
    is below ``(2 d + 11) u (q + q')``; the bound takes ``8 (d + 3) u (q + max q')``, plus a
    few smallest normal numbers for underflow.
    """
    info = np.finfo(dtype)
    return 8.0 * (d + 3) * (info.eps / 2) * (norms + max_norm) + 8.0 * (d + 3) * info.tiny


def _at_least(limit, dtype) -> np.ndarray:
    """``limit`` in ``dtype``, rounded up, so comparing ``dtype`` values with it loses nothing."""
    return np.nextafter(np.asarray(limit).astype(dtype), dtype.type(np.inf))


def _nonzero(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the true entries of a C-ordered 2-D mask, row by row.

    Same as ``numpy.nonzero``, many times faster on a wide mask with few true entries.
    """
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def _kth_smallest(A: np.ndarray, k: int) -> np.ndarray:
    """The ``k``-th smallest entry of each row of ``A``."""
    if k == 1:
        return A.min(axis=1)
    return np.partition(A, k - 1, axis=1)[:, k - 1]


def _k_smallest_by_group(values, groups, n_groups: int, k: int) -> np.ndarray:
    """The ``k`` smallest ``values`` of each group, sorted: shape ``(n_groups, k)``.

    Every group ``0 .. n_groups - 1`` must hold at least ``k`` values.
    """
    order = np.lexsort((values, groups))
    starts = np.searchsorted(groups[order], np.arange(n_groups))
    return values[order][starts[:, None] + np.arange(k)]


class _Approximate:
    """A block's approximate squared distances (:meth:`_Geometry.approx`) and its queries."""

    def __init__(self, geometry: _Geometry, Q: np.ndarray, exclude=None):
        self.A, self.bound, self.factor, self.exact = geometry.approx(Q)
        if exclude is not None:
            self.A[np.arange(len(Q)), exclude] = np.inf
        self.QT, self.XT = np.ascontiguousarray(Q.T), geometry.XT

    def canonical(self, rows, cols) -> np.ndarray:
        """Canonical squared distances of the pairs: read off ``A`` if exact, else recomputed."""
        if self.exact:
            return self.A[rows, cols].astype(np.float64)
        return paired_squared(self.QT, rows, self.XT, cols)

    def candidates(self, limit: np.ndarray) -> tuple:
        """Pairs ``(r, i)`` whose canonical squared distance may lie below ``limit[i]``.

        The approximate value must lie within twice the largest error bound of
        ``factor * limit[i]``.
        """
        margin = self.factor * limit + 2.0 * self.bound.max()
        return _nonzero(self.A <= _at_least(margin, self.A.dtype)[None, :])


class FastSelection:
    """The three distance methods of the readable backend, fast and with the same results.

    A mixin: :class:`svmtrust.tcm_nn._NeighbourLists` keeps the training examples sorted by
    class (``bounds``, ``k``, ``reach``) and computes everything else; a class with this mixin
    before it in its bases (``svmtrust.tcm_nn._FastNeighbourLists``) replaces
    ``_distances``, ``_nearest_by_class`` and ``_close_pairs``, and runs the blocks with the
    BLAS held to one thread. A block's distances are an :class:`_Approximate` (one
    single-precision product, or an exact integer one); the neighbours and close pairs are
    selected on it with a margin of twice the error bound, and their distances recomputed
    canonically, so the p-values are those of the readable backend.
    """

    def __init__(self, X, index, k: int, block: int, n_jobs: int):
        order = np.argsort(index, kind="stable")
        self._geometry = _Geometry(X[order])
        super().__init__(X, index, k, block, n_jobs)

    def _distances(self, Q, exclude=None) -> _Approximate:
        return _Approximate(self._geometry, Q, exclude)

    def _nearest_by_class(self, D: _Approximate) -> np.ndarray:
        """Each row's ``k`` nearest distances in every class, sorted: shape (b, n_classes, k).

        A pair is a candidate when its approximate value is within twice the error bound of
        the row's ``k``-th smallest approximate value in the class: every pair whose canonical
        value is among the ``k`` smallest passes, so recomputing the candidates canonically and
        keeping the ``k`` smallest gives the exact answer.
        """
        b = len(D.A)
        near = np.empty((b, len(self.bounds) - 1, self.k))
        for c, (lo, hi) in enumerate(zip(self.bounds[:-1], self.bounds[1:])):
            segment = D.A[:, lo:hi]
            limit = _at_least(_kth_smallest(segment, self.k) + 2.0 * D.bound, D.A.dtype)
            r, j = _nonzero(segment <= limit[:, None])
            squared = D.canonical(r, lo + j)
            near[:, c, :] = np.sqrt(_k_smallest_by_group(squared, r, b, self.k))
        return near

    def _close_pairs(self, D: _Approximate) -> tuple:
        """``(r, i, d)`` for every pair closer than ``reach[i]`` (and a few more).

        ``reach**2`` is enlarged by 8 units of round-off, so that a pair whose canonical
        distance (the rounded square root) lies below ``reach`` cannot be missed.
        """
        limit = self.reach**2 * (1.0 + 8.0 * np.finfo(np.float64).eps)
        r, i = D.candidates(limit)
        return r, i, np.sqrt(D.canonical(r, i))

    def _map(self, func, n: int, block: int, n_jobs: int) -> list:
        """The readable backend's blocks on threads, with the BLAS held to one thread meanwhile.

        The threads already use the cores; a multi-threaded BLAS inside each would
        oversubscribe them (and slows down badly on a busy machine).
        """
        with _blas_controller().limit(limits=1, user_api="blas"):
            return super()._map(func, n, block, n_jobs)


@cache
def _blas_controller() -> ThreadpoolController:
    """The thread pools loaded at the first fast fit, found once.

    ``threadpoolctl.threadpool_limits`` searches the loaded libraries on every call, which
    takes milliseconds, twice per ``fit`` and ``predict_p``; the matrix products here are
    NumPy's, whose BLAS is loaded with NumPy, before any fit.
    """
    return ThreadpoolController()
