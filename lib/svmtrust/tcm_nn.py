"""Transductive confidence machine with nearest neighbours (TCM-NN), Proedrou et al. (2002).

The strangeness of an example is eq. (2) of Proedrou, Nouretdinov, Vovk & Gammerman (2002): the
sum of the distances to its ``k`` nearest neighbours of the same class divided by the sum of the
distances to its ``k`` nearest neighbours of the other classes. For a new object and a candidate
label, every strangeness value is computed in the bag of the training examples *augmented by
the new example with that label*, and the p-value is eq. (3) (the new example counts in its own
bag, as in :func:`svmtrust.conformal.p_values`).

Recomputing every strangeness value for every test object and label costs ``O(n^2)`` per
p-value. The paper's pseudo-code needs only ``O(n)``: the new example changes the strangeness
of a training example only if it comes closer to it than its current ``k``-th same-class or
other-class neighbour. So :meth:`TCMNearestNeighbours.fit` stores, for each training example,
its ``k`` nearest same-class and other-class distances (:class:`_NeighbourLists`), and a
p-value needs the row of distances from the new object and a count.

Exactness
---------
The p-values are *exactly* (bit for bit) those of a brute-force recomputation with the same
distance: any deterministic and symmetric distance, used for every pair, gives the same scores
in both computations. The distance here is ``scipy.spatial.distance.cdist``'s Euclidean one,
``sqrt`` of the squared coordinate differences added from the first feature to the last
(:func:`paired_distances` writes that order out; the tests check that the two agree), and a
sum of ``k`` distances adds them from the smallest to the largest. The count of eq. (3) is the
library's tie rule (:mod:`svmtrust.ties`), as every p-value of the library: ratios within
``1e-9`` of the bag's largest are equal. Ratios equal in exact arithmetic can differ in their
bits: on standardised integer data the coordinate differences ``(2 - m)/s - (1 - m)/s`` and
``(1 - m)/s - (0 - m)/s`` are both ``1/s`` only to rounding, and which of them is larger changes
with the order of the feature columns. Merging keeps such ties whatever the order; it needs the
augmented bag only for the rare p-values whose new score has a value within ``1e-9`` of it that
is not bitwise equal (``_NeighbourLists._counts``), the others keep the ``O(n)`` count.

Scale
-----
Squared distances underflow for coordinates near ``1e-170`` (every distance would be 0 and
every p-value 1) and overflow near ``1e160``. When the largest training coordinate lies outside
``[2**-256, 2**256]`` the estimator multiplies every object by the power of two that brings it
into ``[0.5, 1)``: that multiplication is exact, it multiplies every distance and every sum by
the same power of two exactly, and leaves every ratio of eq. (2), hence every p-value,
unchanged. Test objects so far out that their squared distances would still overflow are
refused.

Zero distances
--------------
Duplicated points are separate examples at distance 0 from each other. The ratio of eq. (2)
is defined for every pair of sums (:func:`strangeness`): ``0 / 0 = 1`` (an example sitting on
copies of its own class and of another class is as close to one as to the other, the value
the ratio takes whenever the two sums are equal) and ``s / 0`` for ``s > 0`` is ``+inf``, as is
a ratio that overflows; the count of eq. (3) ranks ``+inf`` as the strangest score (and equal
to any other ``+inf``). No strangeness is ever NaN.

Backends
--------
``algorithm="exact"`` runs the code of this module, written to be read (:class:`_NeighbourLists`,
distances by ``cdist``). ``algorithm="fast"`` replaces its three distance methods by those of
the private module :mod:`svmtrust._tcm_nn_fast`, which select the neighbours with
single-precision matrix products under a rigorous rounding-error bound and recompute the
selected distances in this module's order: the same p-values, bit for bit. The default,
``algorithm="auto"``, runs the readable backend on fewer than :data:`AUTO_FAST_FROM` training
examples and the fast one from there on, so the choice changes the time and nothing else;
``make bench`` times both backends on either side of the threshold and against brute-force
1-NN on Satellite. :mod:`svmtrust._tcm_nn_fast` imports nothing from this module.

Split conformal with the same ratio
-----------------------------------
:class:`SplitConformalNearestNeighbours` measures eq. (2) against a fixed *proper training
set* only, for calibration and test examples alike, and ranks a test example's ratio among the
calibration examples' (split conformal prediction, Vovk, Gammerman & Shafer 2005, Sec. 4.1): no
strangeness is recomputed in an augmented bag. Beside :class:`TCMNearestNeighbours` it isolates
what transduction buys.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.metrics import accuracy_score

from . import conformal
from ._tcm_nn_fast import FastSelection, paired_squared
from .conformal import ClassLeftOut, calibration_count
from .memory import NEIGHBOUR_BLOCKS, check_fits
from .ties import TIE_TOL, bag_counts
from .validation import (
    NOT_FITTED,
    check_array,
    check_bool,
    check_estimator_X,
    check_estimator_y,
    check_integer,
    check_n_jobs,
    check_numeric,
    check_seed,
)

__all__ = [
    "TCMNearestNeighbours",
    "SplitConformalNearestNeighbours",
    "strangeness",
    "paired_distances",
]

#: The largest double; test objects are bounded so that squared distances cannot overflow.
FLOAT_MAX = float(np.finfo(np.float64).max)

#: Training coordinates whose largest magnitude lies in ``[2**-SAFE_EXPONENT,
#: 2**SAFE_EXPONENT]`` are used as they are; others are rescaled by a power of two.
SAFE_EXPONENT = 256

#: The backends of :class:`TCMNearestNeighbours`.
BACKENDS = ("exact", "fast")

#: Distances :class:`SplitConformalNearestNeighbours` computes at a time (32 MB), so that its
#: calibration and test rows never hold their whole block against the proper training set.
SCORE_BLOCK = 2**22

#: The values of its ``algorithm`` parameter: a backend, or ``"auto"`` to choose by size.
ALGORITHMS = ("auto",) + BACKENDS

#: The training-set size from which ``algorithm="auto"`` runs the fast backend (below it the
#: readable one is as fast or faster: ``tests/benchmarks/test_bench_tcm_nn.py`` times both).
AUTO_FAST_FROM = 500


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
    same, other = _check_sums(same, "same"), _check_sums(other, "other")
    try:
        np.broadcast_shapes(same.shape, other.shape)
    except ValueError:
        raise ValueError(
            f"other: shape {other.shape} does not broadcast with same's {same.shape}"
        ) from None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = same / other
    return np.where(other > 0, ratio, np.where(same > 0, np.inf, 1.0))


def _check_sums(values, name: str) -> np.ndarray:
    """Sums of distances as a float array: numbers (no strings, no booleans), none NaN or
    negative (``+inf`` allowed)."""
    values = check_numeric(values, name)
    if np.any(np.isnan(values)) or np.any(values < 0):
        raise ValueError(f"{name}: sums of distances must be non-negative, without NaN")
    return values


def _ordered_sum(values) -> np.ndarray:
    """Add the last axis from first to last, one addition after another (canonical order)."""
    total = values[..., 0].copy()
    for j in range(1, values.shape[-1]):
        total += values[..., j]
    return total


def paired_distances(A, B) -> np.ndarray:
    """Canonical Euclidean distances ``d(A[i], B[i])`` of paired rows.

    ``d(a, b) = sqrt(((a_1 - b_1)^2 + (a_2 - b_2)^2) + ...)``, the squares added from the first
    feature to the last: the order of ``scipy.spatial.distance.cdist``, the distance every
    strangeness value of this module is built on.

    Parameters
    ----------
    A, B : array_like of shape (p, d)

    Returns
    -------
    ndarray of shape (p,)

    Raises
    ------
    ValueError
        Naming ``A`` or ``B`` for coordinates so large that a squared distance would overflow
        (the estimators rescale by a power of two first; this function does not).
    """
    A = check_array(A, "A", ndim=2)
    B = check_array(B, "B", ndim=2)
    if A.shape != B.shape:
        raise ValueError(f"B: expected shape {A.shape}, got {B.shape}")
    if A.size:
        _check_finite_distances(A, "A")
        _check_finite_distances(B, "B")
    pairs = np.arange(len(A))
    return np.sqrt(paired_squared(A.T, pairs, B.T, pairs))


# --------------------------------------------------------------------------- the readable backend


def _k_smallest(D: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` smallest entries of each row of ``D``, sorted ascending: shape (rows, k)."""
    return np.sort(np.partition(D, k - 1, axis=1)[:, :k], axis=1)


def _nearest_elsewhere(near: np.ndarray, own) -> np.ndarray:
    """The ``k`` nearest distances (sorted) among the classes other than ``own``, row by row.

    ``near[r, c]`` holds row ``r``'s ``k`` nearest distances in class ``c`` (sorted); the ``k``
    nearest outside class ``own[r]`` are the ``k`` smallest of the other classes' lists.
    """
    b, n_classes, k = near.shape
    pooled = near.copy()
    pooled[np.arange(b), own, :] = np.inf
    return _k_smallest(pooled.reshape(b, n_classes * k), k)


def _label_strangeness(near: np.ndarray) -> np.ndarray:
    """Eq. (2) of each row under every candidate label, shape (rows, n_classes), from its ``k``
    nearest distances in every class ``near`` (rows, n_classes, k), sorted."""
    return np.column_stack(
        [
            strangeness(_ordered_sum(near[:, c]), _ordered_sum(_nearest_elsewhere(near, c)))
            for c in range(near.shape[1])
        ]
    )


def _insert(lists: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The ``k`` smallest of each sorted list with one more value inserted, still sorted."""
    return np.sort(np.column_stack([lists, new]), axis=1)[:, : lists.shape[1]]


class _NeighbourLists:
    """The readable backend: stored nearest distances and the ``O(n)`` update per p-value.

    The training examples are kept sorted by class, so that class ``c`` is the column range
    ``bounds[c]:bounds[c + 1]`` of a block of distances. Three methods compute distances and
    pick neighbours (:meth:`_distances`, :meth:`_nearest_by_class`, :meth:`_close_pairs`);
    the fast backend (:mod:`svmtrust._tcm_nn_fast`) replaces those three and nothing else.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Training objects (validated and rescaled by :class:`TCMNearestNeighbours`).
    index : ndarray of int, shape (n,)
        Class index of each example; every class has at least ``k + 1`` examples.
    k : int
    block : int
        Rows of distances computed together.
    n_jobs : int
        Threads.

    Attributes
    ----------
    same, other : ndarray of shape (n, k)
        Each example's ``k`` nearest same-class and other-class distances, sorted (in class
        order).
    strangeness : ndarray of shape (n,)
        Eq. (2) of each training example in the training bag, in the order of ``X``.
    """

    def __init__(self, X, index, k: int, block: int, n_jobs: int):
        order = np.argsort(index, kind="stable")
        self.X, self.index, self.k = X[order], index[order], k
        self.bounds = np.searchsorted(self.index, np.arange(index.max() + 2))
        n = len(X)
        self.same, self.other = np.empty((n, k)), np.empty((n, k))

        def one_block(rows: slice) -> None:
            itself = np.arange(rows.start, rows.stop)  # an example is not its own neighbour
            near = self._nearest_by_class(self._distances(self.X[rows], exclude=itself))
            own = self.index[rows]
            self.same[rows] = near[np.arange(len(own)), own]
            self.other[rows] = _nearest_elsewhere(near, own)

        self._map(one_block, n, block, n_jobs)
        self.same_sum, self.other_sum = _ordered_sum(self.same), _ordered_sum(self.other)
        self.alpha = strangeness(self.same_sum, self.other_sum)
        self.alpha_sorted = np.sort(self.alpha)
        # one past the run of equal sorted scores each sorted score belongs to
        self.run_end = np.searchsorted(self.alpha_sorted, self.alpha_sorted, side="right")
        self.alpha_size = float(np.max(np.abs(self.alpha[np.isfinite(self.alpha)]), initial=0.0))
        # the lemma: a new object farther than this from example i leaves its score alone
        self.reach = np.maximum(self.same[:, -1], self.other[:, -1])
        self.strangeness = np.empty(n)
        self.strangeness[order] = self.alpha

    # ------------------------------------------------------------------ distances

    def _distances(self, Q, exclude=None) -> np.ndarray:
        """Distances from each row of ``Q`` to every training object; ``exclude[r]`` set to inf."""
        D = cdist(Q, self.X)
        if exclude is not None:
            D[np.arange(len(Q)), exclude] = np.inf
        return D

    def _nearest_by_class(self, D) -> np.ndarray:
        """Each row's ``k`` nearest distances in every class, sorted: shape (b, n_classes, k)."""
        classes = zip(self.bounds[:-1], self.bounds[1:])
        return np.stack([_k_smallest(D[:, lo:hi], self.k) for lo, hi in classes], axis=1)

    def _close_pairs(self, D) -> tuple:
        """``(r, i, d)``: every pair with ``d = D[r, i]`` below ``reach[i]`` (possibly more)."""
        r, i = np.nonzero(D < self.reach)
        return r, i, D[r, i]

    def _map(self, func, n: int, block: int, n_jobs: int) -> list:
        return _map_blocks(func, n, block, n_jobs)

    # ------------------------------------------------------------------ p-values

    def p_values(self, Q, block: int, n_jobs: int, tau=None) -> np.ndarray:
        """p-values of every candidate label for each row of ``Q``: shape (m, n_classes),
        smoothed with ``tau`` (one draw per row) if given."""

        def one_block(rows: slice) -> np.ndarray:
            return self._block_p(Q[rows], None if tau is None else tau[rows])

        return np.vstack(self._map(one_block, len(Q), block, n_jobs))

    def _block_p(self, Q: np.ndarray, tau=None) -> np.ndarray:
        """Eq. (3) for a block of new objects, one at a time in its augmented bag.

        Under label ``c`` the new object's score is eq. (2) from its nearest distances in class
        ``c`` and elsewhere. The count ``#{i : alpha_i >= alpha_new}`` starts from the scores
        as they are, then corrects the training examples the new object comes close to: it
        joins their same-class list when ``c`` is their class, their other-class list if not.
        The count ``#{i : alpha_i > alpha_new}`` is corrected the same way, and the ties are the
        difference of the two. Those are the counts of the tie rule (:mod:`svmtrust.ties`)
        unless a value of the augmented bag may lie within the rule's gap of the new score without
        being equal to it (:meth:`_counts`); only then is the bag built and merged.
        """
        D = self._distances(Q)
        near = self._nearest_by_class(D)
        labels = np.arange(near.shape[1])
        new = _label_strangeness(near)
        r, i, d = self._close_pairs(D)
        as_same = strangeness(_ordered_sum(_insert(self.same[i], d)), self.other_sum[i])
        as_other = strangeness(self.same_sum[i], _ordered_sum(_insert(self.other[i], d)))
        updated = np.where(self.index[i, None] == labels, as_same[:, None], as_other[:, None])
        counts, greater, near_ties = self._counts(new, r, i, updated, tau is not None)
        for row, c in zip(*np.nonzero(near_ties)):
            bag = self.alpha.copy()
            bag[i[r == row]] = updated[r == row, c]
            above, tied = bag_counts(bag, new[row, c : c + 1])
            greater[row, c], counts[row, c] = above[0], above[0] + tied[0]
        tau = None if tau is None else np.broadcast_to(np.asarray(tau)[:, None], new.shape).ravel()
        p = conformal.counts_p_values(
            greater.ravel(), (counts - greater).ravel(), len(self.alpha), tau=tau
        )
        return p.reshape(new.shape)

    def _counts(self, new, r, i, updated, smoothed: bool):
        """``#{alpha >= new}`` and ``#{alpha > new}`` of every augmented bag on the bits (the
        latter only when ``smoothed``; else the former, the p-value's whole count), and
        whether the bag may hold a value within the tie rule's gap of the new score that is not
        equal to it, where merging could change them.

        The counts are the training scores', by one binary search, corrected for the examples
        ``i`` whose scores the new object ``r`` changed to ``updated``. A near value is looked for
        among the two training scores next to the new one (below it, and past the scores equal
        to it) and among the changed scores; the gap is taken at the largest finite ``|value|``
        of every bag of the block, at least each bag's own, so none is missed.
        """
        ordered, n = self.alpha_sorted, self.alpha.size
        left = np.searchsorted(ordered, new, side="left")
        at = np.minimum(left, n - 1)
        right = np.where((left < n) & (ordered[at] == new), self.run_end[at], left)
        centre, old = new[r], self.alpha[i, None]
        finite = [v[np.isfinite(v)] for v in (new, updated)]
        gap = TIE_TOL * max([self.alpha_size] + [float(np.max(v, initial=0.0)) for v in finite])
        with np.errstate(invalid="ignore"):  # inf - inf: equal infinite scores
            below = (left > 0) & (new - ordered[np.maximum(left - 1, 0)] <= gap)
            beyond = (right < n) & (ordered[np.minimum(right, n - 1)] - new <= gap)
            changed = (np.abs(updated - centre) <= gap) & (updated != centre)
        corrections = [(updated >= centre).astype(int) - (old >= centre), changed]
        if smoothed:
            corrections.append((updated > centre).astype(int) - (old > centre))
        sums = np.split(_row_sums(r, np.hstack(corrections), len(new)), len(corrections), axis=1)
        counts = n - left + sums[0]
        greater = n - right + sums[2] if smoothed else counts.copy()
        near_ties = (below | beyond) & np.isfinite(new) | (sums[1] > 0)
        return counts, greater, near_ties


def _row_sums(rows, values, m: int) -> np.ndarray:
    """``out[k] = values[rows == k].sum(axis=0)`` for ``k < m``: ``np.add.at`` by ``bincount``,
    column by column (``values`` of shape (len(rows), c))."""
    values = np.asarray(values, dtype=float)
    columns = [np.bincount(rows, weights=values[:, j], minlength=m) for j in range(values.shape[1])]
    return np.rint(np.column_stack(columns)).astype(np.int64) if columns else np.zeros((m, 0), int)


def _map_blocks(func, n: int, block: int, n_jobs: int) -> list:
    """``[func(slice) for each block of range(n)]``, in order, on ``n_jobs`` threads.

    NumPy and SciPy release the interpreter lock in the distance computations and sorts, so
    threads run the blocks in parallel; each block writes its own rows, so the results do not
    depend on the threads or the block size.
    """
    blocks = [slice(start, min(start + block, n)) for start in range(0, n, block)]
    if n_jobs == 1 or len(blocks) == 1:
        return [func(b) for b in blocks]
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        return list(pool.map(func, blocks))


class _FastNeighbourLists(FastSelection, _NeighbourLists):
    """The fast backend: :class:`_NeighbourLists` with the distance methods of
    :class:`svmtrust._tcm_nn_fast.FastSelection`; the same p-values, bit for bit."""


# --------------------------------------------------------------------------- input checks


def _power_of_two_scale(X: np.ndarray) -> float:
    """1, or the power of two that brings the largest ``|X|`` into ``[0.5, 1)`` (module notes)."""
    largest = float(np.max(np.abs(X)))
    if largest == 0.0 or 2.0**-SAFE_EXPONENT <= largest <= 2.0**SAFE_EXPONENT:
        return 1.0
    return float(np.ldexp(1.0, -np.frexp(largest)[1]))


def _check_finite_distances(X: np.ndarray, name: str) -> None:
    """Reject (rescaled) coordinates so large that squared distances would overflow."""
    if np.max(np.abs(X)) > np.sqrt(FLOAT_MAX / (4.0 * X.shape[1])):
        raise ValueError(f"{name}: coordinates too large: squared distances would overflow")


def _check_algorithm(algorithm) -> str:
    """Return ``algorithm`` if it names a backend of :data:`ALGORITHMS`, else ``ValueError``."""
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm: must be one of {ALGORITHMS}, got {algorithm!r}")
    return algorithm


def _threads(n_jobs) -> int:
    """:func:`~svmtrust.validation.check_n_jobs`, with -1 as the number of cores."""
    n_jobs = check_n_jobs(n_jobs)
    return (os.cpu_count() or 1) if n_jobs == -1 else n_jobs


# --------------------------------------------------------------------------- the estimator


class TCMNearestNeighbours(conformal.ConformalClassifierMixin, ClassifierMixin, BaseEstimator):
    """Transductive confidence machine with nearest neighbours (Proedrou et al. 2002).

    Strangeness eq. (2) with Euclidean distances, p-values eq. (3), every strangeness value
    computed in the bag augmented by the new example under each candidate label, exactly, at
    the cost of a nearest-neighbour search (see the module notes). ``predict``,
    ``predict_set`` and ``predict_confidence`` come from
    :class:`svmtrust.conformal.ConformalClassifierMixin`, built on :meth:`predict_p`.

    Parameters
    ----------
    k : int, default 1
        Number of nearest neighbours in eq. (2). Every class needs at least ``k + 1``
        training examples, so that each example has ``k`` same-class neighbours besides
        itself.
    block_size : int, default 256
        Test (and, during :meth:`fit`, training) examples processed together; memory is
        ``O(block_size * n_train)`` per thread, checked in :meth:`fit`
        (:func:`svmtrust.memory.check_fits`, :data:`svmtrust.memory.NEIGHBOUR_BLOCKS`). The
        results do not depend on it.
    n_jobs : int or None, default None
        Threads that process blocks in parallel: ``None`` or 1 for one, -1 for every core.
        The results do not depend on it.
    algorithm : {"auto", "exact", "fast"}, default "auto"
        The backend: :class:`_NeighbourLists` (``"exact"``, this module, written to be read),
        the private :mod:`svmtrust._tcm_nn_fast` (``"fast"``, single-precision selection), or
        ``"auto"``: the fast one from :data:`AUTO_FAST_FROM` training examples on. The
        p-values are the same, bit for bit.
    smoothing : bool, default False
        Smoothed p-values (:func:`svmtrust.conformal.p_values` with ``tau``; Vovk, Gammerman &
        Shafer 2005, Sec. 2.4): ties broken at random, one draw per test object shared by its
        labels; every test object gets its own draw (one per call, batches, a loop that refits,
        and with ``smoothing_seed=None`` a clone or new estimator per object), so that
        ``P{p <= eps} = eps`` exactly for every test object on exchangeable data. Both backends
        give the same smoothed p-values, bit for bit.
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked when p-values are computed.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; the columns of :meth:`predict_p` follow this order.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, one per feature
        The column names of a pandas ``DataFrame`` passed to :meth:`fit` (only then); later
        calls warn on data without names and refuse other names, as in scikit-learn.
    algorithm_ : {"exact", "fast"}
        The backend that ran.
    strangeness_ : ndarray of shape (n_train,)
        Eq. (2) of each training example in the training bag alone.

    Examples
    --------
    Two Gaussian classes of 20 points each; the p-values of a test object are multiples of
    1/41 (eq. (3), the object counted in its own bag):

    >>> import numpy as np
    >>> from svmtrust.tcm_nn import TCMNearestNeighbours
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    >>> y = np.repeat(["a", "b"], 20)
    >>> model = TCMNearestNeighbours(k=1).fit(X, y)
    >>> model.algorithm_  # "auto" on 40 examples: the readable backend
    'exact'
    >>> new = [[0.0, 0.0], [3.0, 3.0], [1.5, 1.5], [10.0, -10.0]]
    >>> model.predict_p(new).round(3)  # columns: model.classes_
    array([[0.683, 0.024],
           [0.024, 0.488],
           [0.073, 0.024],
           [0.024, 0.024]])

    ``predict_set`` takes a *significance level*: 0.05 gives the 95% regions, the labels whose
    p-value exceeds 0.05. The last object, far from both classes, gets an empty region, and
    its low credibility (the largest p-value) flags it:

    >>> model.predict_set(new, 0.05)
    array([[ True, False],
           [False,  True],
           [ True, False],
           [False, False]])
    >>> labels, confidence, credibility = model.predict_confidence(new)
    >>> labels.tolist(), credibility.round(3).tolist()
    (['a', 'b', 'a', 'a'], [0.683, 0.488, 0.073, 0.024])
    """

    def __init__(
        self,
        k=1,
        block_size=256,
        n_jobs=None,
        algorithm="auto",
        smoothing=False,
        smoothing_seed=None,
    ):
        self.k = k
        self.block_size = block_size
        self.n_jobs = n_jobs
        self.algorithm = algorithm
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

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
        self._backend = None  # a failed fit leaves the estimator unfitted
        k = check_integer(self.k, "k")
        block = check_integer(self.block_size, "block_size")
        n_jobs = _threads(self.n_jobs)
        algorithm = _check_algorithm(self.algorithm)
        X = check_estimator_X(self, X, reset=True)
        classes, index = check_estimator_y(y, X.shape[0])
        counts = np.bincount(index)
        if counts.min() < k + 1:
            raise ValueError(
                f"k: k = {k} needs at least k + 1 = {k + 1} examples in every class; "
                f"class {classes[np.argmin(counts)]!r} has {counts.min()}"
            )
        check_fits(
            X.shape[0],
            NEIGHBOUR_BLOCKS * n_jobs,
            "X",
            "a smaller block_size, or fewer n_jobs",
            columns=block,
        )
        self._scale = _power_of_two_scale(X)
        X = X * self._scale
        _check_finite_distances(X, "X")
        if algorithm == "auto":
            algorithm = "fast" if X.shape[0] >= AUTO_FAST_FROM else "exact"
        backend = _FastNeighbourLists if algorithm == "fast" else _NeighbourLists
        self._backend = backend(X, index, k, block, n_jobs)
        self.classes_, self.algorithm_ = classes, algorithm
        self.strangeness_ = self._backend.strangeness
        return self

    def predict_p(self, X) -> np.ndarray:
        """The p-value of every candidate label for each test object (eqs. (2) and (3)).

        Each test object is treated on its own (one at a time, as in the paper), in the bag of
        the training examples plus that object.

        Parameters
        ----------
        X : array_like of shape (m, d)
            With the columns of :meth:`fit`'s ``X`` (their names too, if it had names).

        Returns
        -------
        ndarray of shape (m, n_classes)
            Column ``j`` holds the p-values of the label ``classes_[j]``.
        """
        if getattr(self, "_backend", None) is None:
            raise NotFittedError(NOT_FITTED % {"name": type(self).__name__})
        X = check_estimator_X(self, X, reset=False) * self._scale
        _check_finite_distances(X, "X")
        block = check_integer(self.block_size, "block_size")
        tau = self._smoothing_tau(X.shape[0])
        return self._backend.p_values(X, block, _threads(self.n_jobs), tau)

    def score(self, X, y, sample_weight=None) -> float:
        """Accuracy of :meth:`predict` on ``(X, y)`` (scikit-learn's ``score``).

        ``y`` must hold one label per row of ``X`` (``ValueError`` naming ``y`` otherwise).
        """
        predicted = self.predict(X)
        y = np.asarray(y)
        if y.shape != predicted.shape:
            raise ValueError(
                f"y: expected {len(predicted)} labels in a 1-D array, got shape {y.shape}"
            )
        return float(accuracy_score(y, predicted, sample_weight=sample_weight))


class SplitConformalNearestNeighbours(
    conformal.SplitConformalMixin, ClassifierMixin, BaseEstimator
):
    """Split conformal predictor on the nearest-neighbour ratio of Proedrou et al. (2002).

    The training set is split at random (``seed``) into a proper training set and a
    calibration set (:func:`svmtrust.conformal.calibration_count`). The strangeness of an
    example ``(x, y)`` is eq. (2) measured against the proper training set only: the sum of the
    distances from ``x`` to its ``k`` nearest proper training examples of class ``y`` over the
    sum of those to its ``k`` nearest of the other classes (:func:`strangeness`). A test
    example's strangeness under each candidate label is ranked among the calibration
    examples':

    ``p(x, y) = (#{i in cal : a_i >= a(x, y)} + 1) / (q + 1)``,

    valid because the calibration and test examples are exchangeable given the proper training
    set; Mondrian p-values rank among the calibration examples of class ``y`` only.

    Parameters
    ----------
    k : int, default 1
        Neighbours in eq. (2); every class needs ``k`` examples in the proper training set.
    calibration_size : float, int or "hardoon", default 1/3
        As in :class:`svmtrust.split_conformal.SplitConformalSVM`.
    mondrian : bool, default False
        Label-conditional p-values.
    seed : int, default 0
        Seeds the split.
    smoothing : bool, default False
        Smoothed p-values (:func:`svmtrust.conformal.p_values` with ``tau``), one draw per
        test object shared by its labels; every test object gets its own draw (in any calling
        pattern with ``smoothing_seed=None``; see ``smoothing_seed`` for an integer), so that
        ``P{p <= eps} = eps`` exactly on exchangeable data.
    smoothing_seed : int or None, default None
        The draws' seed (:class:`svmtrust.conformal.SmoothingMixin`): ``None``, fresh entropy,
        clones drawing independently; an integer, reproducible draws. Checked at fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    proper_index_, calibration_index_ : ndarray of int
        Positions in the training set.
    calibration_codes_ : ndarray of int, shape (q,)
        Class index of each calibration example.
    calibration_scores_ : ndarray of shape (q,)
        Eq. (2) of the calibration examples under their own labels.

    Examples
    --------
    The data of :class:`TCMNearestNeighbours`' example; 13 of the 40 examples calibrate, so
    the p-values are multiples of 1/14:

    >>> import numpy as np
    >>> from svmtrust.tcm_nn import SplitConformalNearestNeighbours
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(3, 1, (20, 2))])
    >>> y = np.repeat(["a", "b"], 20)
    >>> model = SplitConformalNearestNeighbours(k=1, seed=0).fit(X, y)
    >>> new = [[0.0, 0.0], [3.0, 3.0], [1.5, 1.5], [10.0, -10.0]]
    >>> (model.predict_p(new) * 14).round().astype(int)  # columns: model.classes_
    array([[10,  1],
           [ 1,  6],
           [ 1,  1],
           [ 1,  1]])

    With 13 calibration examples no p-value lies below 1/14 = 0.071, so a region at
    significance 0.05 holds every label; at 0.1 it excludes the labels of p-value 1/14:

    >>> model.predict_set(new, 0.1)
    array([[ True, False],
           [False,  True],
           [False, False],
           [False, False]])
    """

    def __init__(
        self,
        k=1,
        calibration_size=1 / 3,
        mondrian=False,
        seed=0,
        smoothing=False,
        smoothing_seed=None,
    ):
        self.k = k
        self.calibration_size = calibration_size
        self.mondrian = mondrian
        self.seed = seed
        self.smoothing = smoothing
        self.smoothing_seed = smoothing_seed

    def fit(self, X, y):
        """Split, keep the proper training set, and score the calibration set.

        Parameters
        ----------
        X : array_like of shape (n, d)
        y : array_like of shape (n,)
            Any labels, at least two classes, each with ``k`` examples in the proper training
            set.

        Returns
        -------
        self
        """
        k = check_integer(self.k, "k")
        check_bool(self.mondrian, "mondrian")
        check_seed(self.seed)
        conformal.check_smoothing(self.smoothing, self.smoothing_seed)
        X = check_estimator_X(self, X, reset=True)
        self.classes_, codes = check_estimator_y(y, X.shape[0])
        q = calibration_count(X.shape[0], self.calibration_size)
        order = np.random.default_rng(self.seed).permutation(X.shape[0])
        self.calibration_index_, self.proper_index_ = order[:q], order[q:]
        counts = np.bincount(codes[self.proper_index_], minlength=self.classes_.size)
        if counts.min() < k:
            raise ClassLeftOut(
                f"y: every class needs k = {k} examples in the proper training set; the split "
                f"with seed {self.seed} leaves class {self.classes_[np.argmin(counts)]!r} "
                f"{counts.min()}"
            )
        self._scale = _power_of_two_scale(X)
        X = X * self._scale
        _check_finite_distances(X, "X")
        self.X_proper_, self.proper_codes_ = X[self.proper_index_], codes[self.proper_index_]
        self.calibration_codes_ = codes[self.calibration_index_]
        scores = self._scores(X[self.calibration_index_])
        self.calibration_scores_ = scores[np.arange(q), self.calibration_codes_]
        return self

    def _scores(self, X) -> np.ndarray:
        """Eq. (2) against the proper training set, every label: shape (m, n_classes), from
        :data:`SCORE_BLOCK` distances at a time (``cdist`` computes each distance alone, so
        the blocks do not change a bit)."""
        k = check_integer(self.k, "k")
        step = max(1, SCORE_BLOCK // max(self.X_proper_.shape[0], 1))
        classes = [self.proper_codes_ == c for c in range(self.classes_.size)]

        def block(rows):
            D = cdist(rows, self.X_proper_)
            return _label_strangeness(np.stack([_k_smallest(D[:, c], k) for c in classes], 1))

        parts = [block(X[i : i + step]) for i in range(0, X.shape[0], step)]
        return np.concatenate(parts) if parts else block(X)

    def test_scores(self, X) -> np.ndarray:
        """Eq. (2) of every test object under every candidate label, shape (m, n_classes)."""
        X = check_estimator_X(self, X, reset=False) * self._scale
        _check_finite_distances(X, "X")
        return self._scores(X)
