"""Fast backend of :class:`svmtrust.tcm_nn.TCMNearestNeighbours` (``algorithm="fast"``).

The same p-values as the readable backend of :mod:`svmtrust.tcm_nn`, bit for bit, faster: the
nearest neighbours are *selected* with single-precision matrix products (BLAS) whose rounding
error is bounded rigorously (:func:`_error_bound`), or with an exact product on integer
coordinates, and every distance that enters a strangeness score is then recomputed
canonically in double precision (:func:`svmtrust.tcm_nn.paired_distances`' order). The
training points are sorted by class, blocks run on threads with the BLAS held to one thread.

This module is private: it is reached through ``TCMNearestNeighbours(algorithm="fast")``.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from .tcm_nn import _map_blocks, _ordered_sum, _paired_squared, strangeness

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


def _class_nearest(geometry: _Geometry, Q, bounds, k: int, exclude=None) -> tuple:
    """Canonical squared distances from each row of ``Q`` to its ``k`` nearest in every class.

    Parameters
    ----------
    geometry : _Geometry
        The training points, sorted by class.
    Q : ndarray of shape (b, d)
        Query points.
    bounds : ndarray of shape (n_classes + 1,)
        Class ``c`` occupies training rows ``bounds[c]:bounds[c + 1]``.
    k : int
    exclude : ndarray of shape (b,), optional
        Training row each query must not count (itself, during :meth:`fit`).

    Returns
    -------
    near : ndarray of shape (b, n_classes, k)
        Sorted ascending.
    approx : tuple
        ``(A, bound, factor, exact)`` of :meth:`_Geometry.approx`.
    QT : ndarray of shape (d, b)
        ``Q`` transposed, for :func:`_paired_squared`.

    Notes
    -----
    A pair is a candidate when its approximate value is within twice the error bound of the
    row's ``k``-th smallest approximate value in the class: every pair whose canonical value
    is among the ``k`` smallest passes, so recomputing the candidates canonically and keeping
    the ``k`` smallest gives the exact answer.
    """
    A, bound, factor, exact = geometry.approx(Q)
    QT = np.ascontiguousarray(Q.T)
    rows = np.arange(len(Q))
    if exclude is not None:
        A[rows, exclude] = np.inf
    n_classes = len(bounds) - 1
    near = np.empty((len(Q), n_classes, k))
    for c in range(n_classes):
        segment = A[:, bounds[c] : bounds[c + 1]]
        limit = _at_least(_kth_smallest(segment, k) + 2.0 * bound, A.dtype)
        r, j = _nonzero(segment <= limit[:, None])
        squared = _pair_values(A, exact, QT, r, geometry.XT, bounds[c] + j)
        near[:, c, :] = _k_smallest_by_group(squared, r, len(Q), k)
    return near, (A, bound, factor, exact), QT


def _pair_values(A, exact: bool, QT, rows, XT, cols) -> np.ndarray:
    """Canonical squared distances of the pairs: read off ``A`` if exact, else recomputed."""
    if exact:
        return A[rows, cols]
    return _paired_squared(QT, rows, XT, cols)


def _nearest_elsewhere(near: np.ndarray, own) -> np.ndarray:
    """The ``k`` nearest (squared, sorted) among the classes other than ``own`` of each row.

    Parameters
    ----------
    near : ndarray of shape (b, n_classes, k)
        From :func:`_class_nearest`.
    own : ndarray of int, shape (b,)
        Each row's own class.
    """
    b, n_classes, k = near.shape
    pooled = near.copy()
    pooled[np.arange(b), own, :] = np.inf
    pooled = pooled.reshape(b, n_classes * k)
    if k == 1:
        return pooled.min(axis=1, keepdims=True)
    return np.sort(pooled, axis=1)[:, :k]


def _sum_of_distances(squared) -> np.ndarray:
    """Eq. (2)'s sum of the ``k`` nearest distances, from sorted squared distances (last axis)."""
    return _ordered_sum(np.sqrt(squared))


def _insert(squared_lists, new_squared) -> np.ndarray:
    """The ``k`` smallest of each sorted list with one more value inserted, still sorted."""
    k = squared_lists.shape[1]
    if k == 1:
        return np.minimum(squared_lists, new_squared[:, None])
    return np.sort(np.column_stack([squared_lists, new_squared]), axis=1)[:, :k]


def _sum_by_row(values: np.ndarray, rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Sum the rows of the integer matrix ``values`` by the sorted row index ``rows``."""
    cumulative = np.zeros((len(values) + 1, values.shape[1]), dtype=values.dtype)
    np.cumsum(values, axis=0, out=cumulative[1:])
    ends = np.searchsorted(rows, np.arange(n_rows + 1))
    return cumulative[ends[1:]] - cumulative[ends[:-1]]


def _map_blocks_one_blas_thread(func, n: int, block: int, n_jobs: int) -> list:
    """:func:`svmtrust.tcm_nn._map_blocks` with the BLAS held to one thread meanwhile.

    The threads already use the cores; a multi-threaded BLAS inside each would oversubscribe
    them (and slows down badly on a busy machine).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _map_blocks(func, n, block, n_jobs)


class FastNeighbours:
    """The training bag prepared for fast exact p-values.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training objects (already validated and rescaled by the estimator).
    index : ndarray of int, shape (n,)
        Class index of each example; every class has at least ``k + 1`` examples.
    k : int
    block : int
        Training examples processed together.
    n_jobs : int
        Threads.

    Attributes
    ----------
    strangeness : ndarray of shape (n,)
        Eq. (2) of each training example in the training bag, in the order of ``X``.
    """

    def __init__(self, X, index, k: int, block: int, n_jobs: int):
        counts = np.bincount(index)
        order = np.argsort(index, kind="stable")
        self.k = k
        self._index = index[order]
        self._bounds = np.concatenate([[0], np.cumsum(counts)])
        self._geometry = _Geometry(X[order])
        same, other = self._training_neighbours(k, block, n_jobs)
        self._same, self._other = same, other
        self._same_sum, self._other_sum = _sum_of_distances(same), _sum_of_distances(other)
        self._alpha = strangeness(self._same_sum, self._other_sum)
        self._alpha_sorted = np.sort(self._alpha)
        self._threshold = np.maximum(same[:, -1], other[:, -1])
        self.strangeness = np.empty_like(self._alpha)
        self.strangeness[order] = self._alpha

    def p_values(self, Q, block: int, n_jobs: int) -> np.ndarray:
        """p-values of every candidate label for each row of ``Q`` (eqs. (2) and (3))."""
        blocks = _map_blocks_one_blas_thread(lambda rows: self._block_p(Q[rows]), len(Q), block, n_jobs)
        return np.vstack(blocks)

    def _training_neighbours(self, k: int, block: int, n_jobs: int):
        """Sorted squared ``k`` nearest same-class and other-class distances of each example."""
        X, n = self._geometry.X, len(self._index)
        same, other = np.empty((n, k)), np.empty((n, k))

        def one_block(rows: slice) -> None:
            ids = np.arange(rows.start, rows.stop)
            near, _, _ = _class_nearest(self._geometry, X[rows], self._bounds, k, exclude=ids)
            own = self._index[rows]
            same[rows] = near[np.arange(len(ids)), own]
            other[rows] = _nearest_elsewhere(near, own)

        _map_blocks_one_blas_thread(one_block, n, block, n_jobs)
        return same, other

    def _block_p(self, Q: np.ndarray) -> np.ndarray:
        """p-values of a block of test objects (see :meth:`predict_p`)."""
        near, (A, bound, factor, exact), QT = _class_nearest(
            self._geometry, Q, self._bounds, self.k
        )
        new_alpha = self._new_strangeness(near)
        counts = self._base_counts(new_alpha)
        limit = _at_least(factor * self._threshold + 2.0 * bound.max(), A.dtype)
        r, i = _nonzero(A <= limit[None, :])
        if r.size:
            squared = _pair_values(A, exact, QT, r, self._geometry.XT, i)
            counts += self._count_changes(r, i, squared, new_alpha, len(Q))
        return _p_from_counts(counts, len(self._alpha))

    def _new_strangeness(self, near: np.ndarray) -> np.ndarray:
        """Eq. (2) of the new example under every candidate label: shape (b, n_classes)."""
        b, n_classes, _ = near.shape
        same = _sum_of_distances(near)
        other = np.column_stack(
            [
                _sum_of_distances(_nearest_elsewhere(near, np.full(b, c)))
                for c in range(n_classes)
            ]
        )
        return strangeness(same, other)

    def _base_counts(self, new_alpha: np.ndarray) -> np.ndarray:
        """``#{i : alpha_i >= a}`` over the training scores as they are before the new example."""
        n = len(self._alpha_sorted)
        return n - np.searchsorted(self._alpha_sorted, new_alpha, side="left")

    def _count_changes(self, r, i, squared, new_alpha, b: int) -> np.ndarray:
        """How the counts change when training example ``i`` sees test object ``r``.

        A candidate pair's example gets the new object as a same-class neighbour when the
        label is its own and as an other-class neighbour otherwise; its updated score replaces
        its old one in the count of ``#{alpha_i >= a_new}``.
        """
        as_same = strangeness(
            _sum_of_distances(_insert(self._same[i], squared)), self._other_sum[i]
        )
        as_other = strangeness(
            self._same_sum[i], _sum_of_distances(_insert(self._other[i], squared))
        )
        own = self._index[i]
        labels = np.arange(new_alpha.shape[1])
        updated = np.where(own[:, None] == labels, as_same[:, None], as_other[:, None])
        threshold = new_alpha[r]
        change = (updated >= threshold).astype(np.int64)
        change -= self._alpha[i][:, None] >= threshold
        return _sum_by_row(change, r, b)


def _p_from_counts(counts: np.ndarray, n: int) -> np.ndarray:
    """Eq. (3) p-values from the counts ``#{i <= n : alpha_i >= a_new}`` of the old examples:
    ``(count + 1) / (n + 1)``, the new example counted in its own bag, as in
    :func:`svmtrust.conformal.p_values`."""
    return (counts + 1.0) / (n + 1.0)
