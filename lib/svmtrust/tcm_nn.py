"""Transductive confidence machine with nearest neighbours (TCM-NN), Proedrou et al. (2002).

The strangeness of an example is eq. (2) of Proedrou, Nouretdinov, Vovk & Gammerman (2002): the
sum of the distances to its ``k`` nearest neighbours of the same class divided by the sum of the
distances to its ``k`` nearest neighbours of the other classes. For a new object and a candidate
label, every strangeness value is computed in the bag of the training examples *augmented by
the new example with that label*, and the p-value is eq. (3), computed by
:func:`svmtrust.conformal.p_values` (the new example counts in its own bag).

Recomputing every strangeness value for every test object and label costs ``O(n^2)`` per
p-value. The paper's pseudo-code, made fast here, needs only ``O(n)``: the new example changes
the strangeness of a training example only if it comes closer to it than its current ``k``-th
same-class (label equal to the example's) or other-class (label different) neighbour. So
:meth:`TCMNearestNeighbours.fit` stores, for each training example, its ``k`` nearest same-class
and other-class distances once, and a p-value needs the row of distances from the new object
and a count.

Exactness
---------
The p-values are *exactly* (bit for bit) those of a brute-force recomputation that uses the
same distance. The distance is defined canonically: ``d(a, b) = sqrt(s)`` where ``s`` adds the
squared coordinate differences ``(a_j - b_j)**2`` from the first feature to the last, one
addition after another, and a sum of ``k`` distances adds them from the smallest to the
largest. Both are deterministic functions of the two points (and symmetric), whoever computes
them. Fast matrix products (BLAS, in single precision) are used only to *select* which pairs
can matter, with a rigorous bound on their rounding error (:func:`_error_bound`); every value
that enters a strangeness score is then recomputed canonically in double precision, so the
results are the same for every block size and number of threads.

Zero distances
--------------
Duplicated points are separate examples at distance 0 from each other. The ratio of eq. (2)
is defined for every pair of sums (:func:`strangeness`): ``0 / 0 = 1`` (an example sitting on
copies of its own class and of another class is as close to one as to the other, the value
the ratio takes whenever the two sums are equal) and ``s / 0`` for ``s > 0`` is ``+inf``, as is
a ratio that overflows; :func:`~svmtrust.conformal.p_values` ranks ``+inf`` as the strangest
score (and equal to any other ``+inf``). No strangeness is ever NaN.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from threadpoolctl import threadpool_limits

from . import conformal
from .validation import check_array, check_class_labels, check_integer, check_n_jobs

__all__ = ["TCMNearestNeighbours", "strangeness", "paired_distances"]

#: The largest double; inputs are bounded so that squared distances cannot overflow.
FLOAT_MAX = float(np.finfo(np.float64).max)


# --------------------------------------------------------------------------- the score


def strangeness(same, other) -> np.ndarray:
    """The strangeness ratio of eq. (2) of Proedrou et al. (2002), defined everywhere.

    Parameters
    ----------
    same : array_like
        Sums of the ``k`` nearest same-class distances (non-negative).
    other : array_like
        Sums of the ``k`` nearest other-class distances (non-negative), broadcastable with
        ``same``.

    Returns
    -------
    ndarray
        ``same / other``; ``0 / 0`` is 1, and a positive sum over 0 (like a ratio that
        overflows) is ``+inf``.
    """
    same, other = np.asarray(same, dtype=np.float64), np.asarray(other, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = same / other
    return np.where(other > 0, ratio, np.where(same > 0, np.inf, 1.0))


def _ordered_sum(values) -> np.ndarray:
    """Add the last axis from first to last, one addition after another (canonical order)."""
    total = values[..., 0].copy()
    for j in range(1, values.shape[-1]):
        total += values[..., j]
    return total


def _paired_squared(AT, rows, BT, cols) -> np.ndarray:
    """Canonical squared distances of the pairs ``(A[rows[p]], B[cols[p]])``.

    ``AT`` and ``BT`` are the transposed point sets (features by points), so that each
    feature's coordinates are gathered contiguously; the squares are added from the first
    feature to the last.
    """
    total = np.zeros(len(rows))
    for a, b in zip(AT, BT):
        diff = a[rows] - b[cols]
        diff *= diff
        total += diff
    return total


def paired_distances(A, B) -> np.ndarray:
    """Canonical Euclidean distances ``d(A[i], B[i])`` of paired rows.

    ``d(a, b) = sqrt(((a_1 - b_1)^2 + (a_2 - b_2)^2) + ...)``, the squares added from the first
    feature to the last; the distance every strangeness value of this module is built on.

    Parameters
    ----------
    A, B : array_like of shape (p, d)

    Returns
    -------
    ndarray of shape (p,)
    """
    A = check_array(A, "A", ndim=2)
    B = check_array(B, "B", ndim=2)
    if A.shape != B.shape:
        raise ValueError(f"B: expected shape {A.shape}, got {B.shape}")
    pairs = np.arange(len(A))
    return np.sqrt(_paired_squared(A.T, pairs, B.T, pairs))


# --------------------------------------------------------------------------- fast selection


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


def _map_blocks(func, n: int, block: int, n_jobs: int) -> list:
    """``[func(slice) for each block of range(n)]``, in order, on ``n_jobs`` threads.

    NumPy and the BLAS release the interpreter lock, so threads run the blocks in parallel;
    the BLAS itself is held to one thread meanwhile, so that the cores are not oversubscribed
    (a multi-threaded BLAS slows down badly on a busy machine).
    """
    blocks = [slice(start, min(start + block, n)) for start in range(0, n, block)]
    with threadpool_limits(limits=1, user_api="blas"):
        if n_jobs == 1 or len(blocks) == 1:
            return [func(b) for b in blocks]
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            return list(pool.map(func, blocks))


# --------------------------------------------------------------------------- input checks


def _check_n_jobs(n_jobs) -> int:
    """Return the number of threads: ``None`` is 1, -1 every core; else ``ValueError``."""
    n_jobs = check_n_jobs(n_jobs)
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


def _check_finite_distances(X: np.ndarray, name: str) -> None:
    """Reject coordinates so large that squared distances would overflow."""
    if np.max(np.abs(X)) > np.sqrt(FLOAT_MAX / (4.0 * X.shape[1])):
        raise ValueError(f"{name}: coordinates too large: squared distances would overflow")


# --------------------------------------------------------------------------- the estimator


class TCMNearestNeighbours(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Transductive confidence machine with nearest neighbours (Proedrou et al. 2002).

    Strangeness eq. (2) with Euclidean distances, p-values eq. (3) through
    :mod:`svmtrust.conformal`, every strangeness value computed in the bag augmented by the
    new example under each candidate label, exactly, at the cost of a nearest-neighbour
    search (see the module notes).

    Parameters
    ----------
    k : int, default 1
        Number of nearest neighbours in eq. (2). Every class needs at least ``k + 1``
        training examples, so that each example has ``k`` same-class neighbours besides
        itself.
    block_size : int, default 256
        Test (and, during :meth:`fit`, training) examples processed together; memory is
        ``O(block_size * n_train)`` per thread. The results do not depend on it.
    n_jobs : int or None, default None
        Threads that process blocks in parallel: ``None`` or 1 for one, -1 for every core.
        The results do not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; the columns of :meth:`predict_p` follow this order.
    n_features_in_ : int
    strangeness_ : ndarray of shape (n_train,)
        Eq. (2) of each training example in the training bag alone.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [1.0], [1.1], [1.2]])
    >>> model = TCMNearestNeighbours(k=1).fit(X, ["a", "a", "a", "b", "b", "b"])
    >>> model.predict([[0.05], [1.15]]).tolist()
    ['a', 'b']
    """

    def __init__(self, k=1, block_size=256, n_jobs=None):
        self.k = k
        self.block_size = block_size
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fit

    def fit(self, X, y):
        """Store each training example's ``k`` nearest same-class and other-class distances.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            Any labels, at least two classes, each with at least ``k + 1`` examples.

        Returns
        -------
        self
        """
        k = check_integer(self.k, "k")
        block = check_integer(self.block_size, "block_size")
        X = check_array(X, "X", ndim=2)
        _check_finite_distances(X, "X")
        classes, index = check_class_labels(y, "y", n=X.shape[0])
        counts = np.bincount(index)
        if counts.min() < k + 1:
            raise ValueError(
                f"k: k = {k} needs at least k + 1 = {k + 1} examples in every class; "
                f"class {classes[np.argmin(counts)]!r} has {counts.min()}"
            )
        order = np.argsort(index, kind="stable")
        self.classes_, self.n_features_in_ = classes, X.shape[1]
        self._index = index[order]
        self._bounds = np.concatenate([[0], np.cumsum(counts)])
        self._geometry = _Geometry(X[order])
        same, other = self._training_neighbours(k, block, _check_n_jobs(self.n_jobs))
        self._same, self._other = same, other
        self._same_sum, self._other_sum = _sum_of_distances(same), _sum_of_distances(other)
        self._alpha = strangeness(self._same_sum, self._other_sum)
        self._alpha_sorted = np.sort(self._alpha)
        self._threshold = np.maximum(same[:, -1], other[:, -1])
        self.strangeness_ = np.empty_like(self._alpha)
        self.strangeness_[order] = self._alpha
        return self

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

        _map_blocks(one_block, n, block, n_jobs)
        return same, other

    # ------------------------------------------------------------------ p-values

    def _check_X(self, X) -> np.ndarray:
        """Validate test objects against the fitted model."""
        if not hasattr(self, "classes_"):
            raise ValueError("X: the model is not fitted; call fit(X, y) first")
        X = check_array(X, "X", ndim=2)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X: has {X.shape[1]} features, the model was fitted with {self.n_features_in_}"
            )
        _check_finite_distances(X, "X")
        return X

    def predict_p(self, X) -> np.ndarray:
        """The p-value of every candidate label for each test object (eqs. (2) and (3)).

        Each test object is treated on its own (one at a time, as in the paper), in the bag of
        the training examples plus that object.

        Parameters
        ----------
        X : array_like of shape (m, d)

        Returns
        -------
        ndarray of shape (m, n_classes)
            Column ``j`` holds the p-values of the label ``classes_[j]``.
        """
        X = self._check_X(X)
        block = check_integer(self.block_size, "block_size")
        n_jobs = _check_n_jobs(self.n_jobs)
        return np.vstack(_map_blocks(lambda rows: self._block_p(X[rows]), len(X), block, n_jobs))

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

    # ------------------------------------------------------------------ predictions


def _p_from_counts(counts: np.ndarray, n: int) -> np.ndarray:
    """Eq. (3) p-values from the counts ``#{i <= n : alpha_i >= a_new}`` of the old examples:
    ``(count + 1) / (n + 1)``, the new example counted in its own bag, as in
    :func:`svmtrust.conformal.p_values`."""
    return (counts + 1.0) / (n + 1.0)
