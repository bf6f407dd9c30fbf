"""One example added to a trained SVM, exactly: the incremental SVM of Cauwenberghs & Poggio (2000).

Full conformal prediction with an SVM trains, for every test object and candidate label, the SVM
of the training bag plus that labelled object. That SVM differs from the training set's SVM by
one example; this module reaches its optimum from the training optimum along the path of
Cauwenberghs & Poggio (NIPS 2000), then shows that the point reached is the library's canonical
optimum (:mod:`svmtrust.optimal_face`), so that every multiplier, and every p-value built on
them, is the one retraining from scratch gives.

**The conditions kept.** With ``Q_ij = y_i y_j K_ij`` and the margin function
``g_i = y_i f(x_i) - 1 = sum_j Q_ij alpha_j + y_i b - 1``, an optimum of the dual satisfies,
besides ``sum_i y_i alpha_i = 0``::

    g_i >= 0 where alpha_i = 0,   g_i = 0 where 0 < alpha_i < C,   g_i <= 0 where alpha_i = C.  (K)

The examples split into the margin set ``S`` (``0 < alpha_i < C``), the rest ``R``
(``alpha_i = 0``) and the bounded set ``E`` (``alpha_i = C``).

**The path.** The new example ``c`` enters with ``alpha_c = 0``; if ``g_c >= 0``, (K) already
holds and nothing moves. Otherwise ``alpha_c`` grows while the multipliers of ``S`` and the bias
move so that every ``g_i``, ``i`` in ``S``, stays 0 and the equality stays met::

    [ 0    y_S^T ] [ db      ]      [ y_c  ]
    [ y_S  Q_SS  ] [ dalpha_S ] = - [ Q_Sc ] dalpha_c,                            (B)

so ``db = beta_b dalpha_c`` and ``dalpha_S = beta_S dalpha_c`` with ``beta = -B_S^{-1} u_c``,
and every margin moves as ``dg_i = gamma_i dalpha_c``, ``gamma_i = Q_ic + Q_iS beta_S +
y_i beta_b`` (0 on ``S``; ``gamma_c`` is the Schur complement of ``Q_cc`` in (B), so it is
non-negative). Along a segment everything is linear in ``alpha_c``; the segment ends at the
first of these events:

1. ``g_c`` reaches 0: ``c`` joins ``S``; the path ends.
2. ``alpha_c`` reaches ``C``: ``c`` joins ``E``; the path ends.
3. a multiplier of ``S`` reaches 0 or ``C``: it leaves ``S`` for ``R`` or ``E``.
4. ``g_i`` of an example of ``R`` (falling) or ``E`` (rising) reaches 0: it joins ``S``.

``B_S^{-1}`` is updated by a bordered (rank-one) formula at each event, in ``O(|S|^2)``; the
rates ``gamma`` cost one product of ``|S|`` kernel rows with a vector, ``O(n |S|)``. Copies of
one example (same label, same point) have equal columns, so two of them in ``S`` would make
``B_S`` singular: a group of copies enters ``S`` as one index whose variable is the group's
total, shared equally by the copies (the split of smallest norm, the canonical one). When
``S`` is empty, (B) only allows ``dalpha_c = 0``: the bias alone moves, towards ``y_c``, until
the first ``g_i`` of ``R`` or ``E`` (or ``g_c`` itself) reaches 0; that example joins ``S``,
and ``[[0, y_i], [y_i, Q_ii]]`` is invertible. With ``C = inf`` (hard margin) ``E`` stays empty
and events 2 and 3 at ``C`` do not occur; a segment that no event ends means that no separating
hyperplane exists.

**Exactness.** The path needs a start that meets (K) exactly; :func:`svmtrust.svm.fit_svm`
returns one (the canonical optimum, a bordered solve on the margin). At the end the margin set's
bordered system is solved once more (the polish, removing the rounding the updates gathered):
from the path's ``B_S^{-1}`` and one step of iterative refinement, ``O(|S|^2)``, kept when its
residual is at the rounding of a direct solve, which runs otherwise; and (K) is checked on
every example. The point is then an optimum of the augmented dual. The
canonical optimum is the point of smallest norm of the optimal face, which leaves every index
off the face ``M = {i : g_i = 0}`` where it is and moves ``alpha_M`` along ``{d : Q_MM d = 0,
y_M^T d = 0}``. That set is ``{0}`` exactly when the bordered matrix of ``M`` is non-singular
(a ``d`` in it gives ``B_M [0; d] = 0``; conversely ``B_M [e; d] = 0`` gives ``d^T Q_MM d = 0``,
so ``Q_MM d = 0``, so ``e = 0``). The margin set ``S`` is part of ``M`` and its matrix is
invertible by construction; for the indices of ``M`` at a bound the Schur complement of
``B_S`` decides. When it is positive definite, the face is one point (up to the splits among
copies, which are equal) and the optimum reached is the canonical optimum. When it is not (a
test object equal to a margin example, say), the canonical step of
:func:`svmtrust.svm.canonical_solution` runs from the optimum reached (the minimum-norm point
of the face, found here in the face's dual, :func:`_face_minimum_norm`, and made exact by the
same projection as retraining's). When the start is not exact or its margin set is singular
beyond copies (and ``w`` is not 0), when a step of the path meets a singular system, or when
rounding breaks (K), the augmented SVM is retrained with :func:`svmtrust.svm.fit_svm`; every
addition says which way it went (:attr:`Addition.route`).

**A constant SVM.** When the training optimum has ``w = sum_i alpha_i y_i phi(x_i) = 0`` (a
linear kernel on a set that is its own mirror image, a one-against-the-rest problem whose class
lies in the middle of the others), ``f = b`` and ``g_i = y_i b - 1``: with both classes present
``|b| <= 1``, the examples of the class ``y_i = b`` (the margin class ``M``, when ``|b| = 1``)
lie on the margin and those of the other class are at ``C``. The margin set's bordered matrix
is singular as soon as ``M`` has more points than the feature space's affine dimension, so the
path cannot start; it is not needed:

* ``y_c b = 1`` (``c`` joins the margin class), or ``|b| < 1`` (every multiplier at ``C``):
  ``alpha_c = 0`` meets (K), with the bias ``y_c`` in the second case; the optimum is the
  training one, and only its face changes (the canonical step, as for any addition).
* ``y_c b = -1``: ``g_c = -2`` at ``w = 0``. If the augmented ``w`` is 0 as well, (K) puts
  ``alpha_c = C`` and every other multiplier where it is except on ``M``, whose multipliers must
  balance ``c`` in ``sum_i alpha_i y_i (1, phi(x_i)) = 0`` (``w = 0`` and the equality
  constraint): ``sum_{j in M} y_j alpha_j (1, phi(x_j)) = r - y_c C (1, phi(x_c))``, ``r`` the
  training value. This needs ``phi(x_c)`` in the affine hull of ``phi(M)`` (a Schur complement,
  the squared distance to it, at most :data:`SCHUR_TOL` of ``mean(diag K)``); then, in the inner
  products with ``(1, phi(x_k))`` over a basis ``k`` of that hull (:func:`_affine_basis`), the
  smallest-norm such ``alpha_M`` in ``[0, C]`` is a projection with as many constraints as the
  hull has dimensions (:func:`_clipped_projection`, ``alpha_j = clip(y_j h(x_j), 0, C)`` for an
  affine function ``h`` of the feature space). Any solution is an optimum (it meets (K) with the
  same ``b``), and ``w`` is unique, so when none exists the augmented ``w`` is not 0 and the
  SVM is retrained (route ``"retrain"``; measured faster than the path, which would walk
  hundreds of events along the degenerate face first).

Either way the answer goes through the same certificate and canonical step as the path's
(:meth:`_Addition._end`), whose face is then the whole margin class.
"""

from __future__ import annotations

import collections
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .certificate import _at_bounds, _certify_values
from .optimal_face import (
    EXACT_TOL,
    IDENTICAL_TOL,
    ONE_POINT_RCOND,
    SOLVE_TOL,
    _equalise,
    _face_directions,
    _gradient_scale_of,
    _minimum_norm_on_face,
    _one_point,
    _refined,
)
from .svm import SOLVERS, SVMSolution, _bias_and_margin, _snapped, check_solution, fit_svm
from .validation import (
    check_array,
    check_choice,
    check_integer,
    check_kernel_matrix,
    check_numeric,
)

__all__ = ["Addition", "Additions", "IncrementalSVM", "METHODS", "ROUTES"]

#: How the conformal machines (:class:`svmtrust.transduction.TransductiveSVM`,
#: :class:`svmtrust.svm_distance.DistanceTCM`) get the SVM of a training set plus one test
#: example: ``"incremental"`` adds the example to the training SVM (:class:`IncrementalSVM`),
#: ``"retrain"`` solves the augmented dual from scratch; both give the same canonical optimum.
METHODS = ("incremental", "retrain")

#: How an addition was computed (:attr:`Addition.route`): the new example outside the margin
#: (nothing moves), the path with a face of one point, the one step of a constant training SVM
#: (``w = 0``) with a face of one point, either followed by the canonical step (a face of many
#: points), or a solve from scratch (the path met a singular system, or a constant SVM's ``w``
#: leaves 0).
ROUTES = ("outside", "path", "constant", "canonical", "retrain")

#: A margin multiplier within this fraction of the largest multiplier of its bound has reached
#: it in a tie of events (:meth:`_Addition._polish`): rounding of the path's updates.
EVENT_TIE_TOL = 1e-12

#: An example joins the margin set only if the Schur complement of its bordered row exceeds
#: this fraction of ``mean(diag(K))``; below it the margin set's matrix counts as
#: singular (a copy of a margin example, or ``w = 0``).
SCHUR_TOL = 1e-10


#: Faces of at least this many examples find their minimum-norm point in the dual
#: (:func:`_face_minimum_norm`); smaller ones by the primal active-set method of
#: :func:`svmtrust.optimal_face._box_qp`, cheaper there (27 examples, 25 directions: 0.5 ms
#: against 1.7 ms; 204 examples, 201 directions: 155 ms against 5 ms).
DUAL_FACE = 64


@dataclass(frozen=True)
class Addition:
    """The SVM of a training set plus one new example, and how it was reached.

    Attributes
    ----------
    solution : SVMSolution
        The canonical optimum of the augmented dual, the new example last (index ``n``): the
        multipliers :func:`svmtrust.svm.fit_svm` returns on the augmented Gram matrix.
    decision : ndarray of shape (n + 1,)
        ``f(x_i) = sum_j alpha_j y_j K_ij + b`` of every example of the augmented set.
    route : str
        One of :data:`ROUTES`.
    events : int
        Segments of the path (0 when the example lies outside the margin).
    """

    solution: SVMSolution
    decision: np.ndarray
    route: str
    events: int


class IncrementalSVM:
    """A trained SVM that adds one example at a time, exactly (Cauwenberghs & Poggio 2000).

    Parameters
    ----------
    K : array_like of shape (n, n)
        The training Gram matrix (shape and finiteness are checked; positive semi-definiteness
        is the caller's, as for ``fit_svm(check_kernel=False)``).
    solution : SVMSolution
        :func:`svmtrust.svm.fit_svm` on ``K``. Its optimum must be exact (``solution.exact``)
        for the path to start from it; otherwise every addition whose example is not well
        outside the margin is retrained.
    solver : {"libsvm", "cvxpy"}
        The solver of the additions that are retrained.

    Attributes
    ----------
    exact : bool
        Whether additions can start from ``solution``: it is exact, meets (K) to
        :data:`svmtrust.optimal_face.FACE_TOL`, and the bordered matrix of its margin set
        (copies counted once) is invertible or ``w`` is 0. When False every addition that
        moves anything is retrained.
    constant : bool
        Whether ``w`` is 0 (``f = b``, to the rounding of ``f``): additions then take the one
        step of the module notes ("A constant SVM") instead of the path.
    free : ndarray of int
        The margin set, one index per group of copies (the first); ``groups`` maps such an
        index to the group's members when it has more than one.
    decision : ndarray of shape (n,)
        ``f(x_i)`` of the training examples.
    values : ndarray of shape (n,)
        ``f(x_i) - b``, from which every addition's decision values start
        (:meth:`_Addition._values`).
    routes : collections.Counter
        How many additions took each route of :data:`ROUTES` (``routes["retrain"]`` counts the
        fallback to :func:`svmtrust.svm.fit_svm` when the path could not certify its optimum),
        counted by this object in this process: the only state :meth:`add` changes.

    Notes
    -----
    Built once (``O(n^2)``: the decision values, and ``O(|S|^3)`` for ``B_S^{-1}``), it serves
    any number of additions: :meth:`add` changes nothing but the counts of ``routes``. An
    addition costs ``O(n |S| + |S|^2)`` per event and ``O(n |S|)`` at the end (the polish and
    the face test, from the path's ``B_S^{-1}``), ``|S|`` the margin set; the Gram matrix of
    the augmented set is never formed, except by the canonical step and by retraining.
    """

    def __init__(self, K, solution, solver: str = "libsvm"):
        self.K = check_kernel_matrix(K, "K", full=False)
        n = self.K.shape[0]
        self.solution = check_solution(solution, n, name="solution")
        self.solver = check_choice(solver, "solver", SOLVERS)
        self._prepare(_identical_pairs(self.K))

    @classmethod
    def of_solutions(cls, K, solutions, solver: str = "libsvm") -> list[IncrementalSVM]:
        """One :class:`IncrementalSVM` per solution, all on the same ``K`` (checked once).

        Parameters
        ----------
        K : array_like of shape (n, n)
        solutions : sequence of SVMSolution
            SVMs of the same training examples (e.g. one per class, one against the rest).
        solver : {"libsvm", "cvxpy"}

        Returns
        -------
        list of IncrementalSVM
        """
        K = check_kernel_matrix(K, "K", full=False)
        solutions = list(solutions)
        if not solutions:
            raise ValueError("solutions: expected at least one SVMSolution")
        solutions = [check_solution(s, K.shape[0], name="solutions") for s in solutions]
        solver = check_choice(solver, "solver", SOLVERS)
        pairs = _identical_pairs(K)
        machines = []
        for solution in solutions:
            machine = cls.__new__(cls)
            machine.K, machine.solution, machine.solver = K, solution, solver
            machine._prepare(pairs)
            machines.append(machine)
        return machines

    def _prepare(self, pairs):
        """The state every addition starts from (module notes), from the pairs of identical
        points (:func:`_identical_pairs`)."""
        solution, n = self.solution, self.K.shape[0]
        y, alpha = solution.y, solution.alpha
        self.routes = collections.Counter()
        self.values = self.K @ solution.coef  # f without the bias
        self.decision = self.values + solution.b
        # copies (same point, same label) exist: joins must look for them
        self.has_copies = bool(np.any(y[pairs[:, 0]] == y[pairs[:, 1]]))
        self.status = np.zeros(n, dtype=np.int8)  # 0: R, 1: S, 2: E
        self.status[solution.free] = 1
        self.status[solution.bounded] = 2
        margin = y * self.decision - 1.0
        self.diagonal = np.diag(self.K).copy()
        self.tol = EXACT_TOL * _gradient_scale_of(self.diagonal, 1.0, alpha)
        self.unit = max(float(np.mean(self.diagonal)), np.finfo(float).tiny)
        self.copy_tol = IDENTICAL_TOL * max(float(np.max(self.diagonal)), np.finfo(float).tiny)
        self.free, self.groups = self._copy_groups(solution.free)
        self.mult = np.array([len(self.groups.get(int(i), (i,))) for i in self.free], float)
        # w = 0: f is the constant b; additions take one step (_Addition._constant), no path
        self.constant = bool(
            solution.exact
            and np.isfinite(solution.C)
            and np.max(np.abs(self.values)) <= self.tol
            and _meets_kkt(margin, self.status, self.tol)
        )
        self.inverse = None if self.constant else _bordered_inverse(self.K, y, self.free, self.unit)
        self.exact = bool(
            solution.exact
            and (self.constant or self.inverse is not None)
            and _meets_kkt(margin, self.status, self.tol)
        )
        margin[solution.free] = 0.0
        self.margin = margin
        # +1 on R, -1 on E, 0 on S, and the distance side * g >= 0 to the margin (_path)
        self.side = np.where(self.status == 0, 1.0, np.where(self.status == 2, -1.0, 0.0))
        self.distance = np.maximum(self.side * margin, 0.0)
        self.rows = self.K[self.free]
        # the face test of "outside" additions, by margin set and scale (_Addition._face)
        self._faces: dict = {}
        # w = 0: an example of the class at C moves the margin class alone (_constant)
        self.margin_class = solution.on_margin if self.constant else solution.on_margin[:0]
        if self.margin_class.size:
            M = self.margin_class
            basis = _affine_basis(self.K, M, SCHUR_TOL * self.unit)
            self.hull_basis = basis
            self.hull_inverse = scipy.linalg.inv(
                _bordered(self.K[np.ix_(basis, basis)], np.ones(basis.size))
            )
            self.hull_rows = (1.0 + self.K[np.ix_(basis, M)]) * y[M]
            self.hull_start = _dual_start(self.hull_rows, alpha[M], solution.C)

    def _copy_groups(self, index):
        """The first example of each group of copies in ``index`` (same label, feature-space
        distance within :data:`svmtrust.optimal_face.IDENTICAL_TOL`), and the groups of more
        than one, ``{first: members}``."""
        if index.size == 0:
            return index, {}
        d = self.diagonal[index]
        y = self.solution.y[index]
        same = (d[:, None] + d[None, :] - 2.0 * self.K[np.ix_(index, index)] <= self.copy_tol) & (
            y[:, None] == y[None, :]
        )
        first = np.argmax(same, axis=1)
        heads = np.flatnonzero(first == np.arange(index.size))
        groups = {int(index[h]): index[first == h] for h in heads if np.sum(first == h) > 1}
        return index[heads], groups

    def copies_of(self, i: int, status) -> np.ndarray:
        """Example ``i`` and its copies off the margin set (``status != 1``), by the test of
        :meth:`_copy_groups`."""
        d = self.diagonal + self.diagonal[i] - 2.0 * self.K[i]
        y = self.solution.y
        return np.flatnonzero((d <= self.copy_tol) & (y == y[i]) & (status != 1))

    @property
    def n(self) -> int:
        """The number of training examples."""
        return self.K.shape[0]

    def add(self, column, diagonal, label) -> Addition:
        """The SVM of the training set plus one example ``c``: its canonical optimum.

        Parameters
        ----------
        column : array_like of shape (n,)
            ``k(x_i, x_c)`` for the training examples.
        diagonal : float
            ``k(x_c, x_c)``.
        label : {-1, +1}
            ``y_c``.

        Returns
        -------
        Addition

        Raises
        ------
        ValueError
            On bad input (the message names the argument).
        SolveError
            When retraining fails (e.g. a hard margin on data that are not separable).
        """
        column = check_array(column, "column", ndim=1)
        if column.size != self.n:
            raise ValueError(f"column: expected {self.n} kernel values, got {column.size}")
        return self._add(column, _check_diagonal(diagonal), _check_label(label))

    def _add(self, column, diagonal: float, label: float) -> Addition:
        """:meth:`add` on checked input."""
        added = _Addition(self, column, diagonal, label).run()
        self.routes[added.route] += 1
        return added


class Additions:
    """One new example added to several SVMs of the same training set, each label once.

    A multi-class machine with ``c`` classes asks, for one test example, for ``c^2`` augmented
    SVMs (``c`` candidate labels, ``c`` one-against-the-rest problems), but problem ``j`` sees
    only whether the candidate is class ``j`` or not: ``2c`` distinct additions. They are
    computed when first asked for and kept.

    Parameters
    ----------
    machines : sequence of IncrementalSVM
        The SVMs of one training set (one per problem).
    column : array_like of shape (n,)
        ``k(x_i, x_c)`` for the training examples.
    diagonal : float
        ``k(x_c, x_c)``.

    Attributes
    ----------
    diagonals : ndarray of shape (n + 1,)
        The diagonal of the augmented Gram matrix.
    """

    def __init__(self, machines, column, diagonal):
        machines = list(machines)
        if not machines or not all(isinstance(m, IncrementalSVM) for m in machines):
            raise ValueError("machines: expected a non-empty list of IncrementalSVM")
        if len({m.n for m in machines}) > 1:
            raise ValueError("machines: must share one training set (the same n)")
        self.machines = machines
        self.column = check_array(column, "column", ndim=1)
        if self.column.size != machines[0].n:
            raise ValueError(f"column: expected {machines[0].n} kernel values")
        self.diagonal = _check_diagonal(diagonal)
        self.diagonals = _append(machines[0].diagonal, self.diagonal)
        self._done: dict = {}

    def get(self, problem: int, label) -> Addition:
        """The SVM of problem ``problem`` with the new example labelled ``label`` (-1 or +1).

        Raises
        ------
        ValueError
            On a problem index outside ``range(len(machines))`` or a label other than -1, +1.
        """
        problem = check_integer(problem, "problem", low=0, high=len(self.machines) - 1)
        key = (problem, _check_label(label))
        if key not in self._done:
            self._done[key] = self.machines[problem]._add(self.column, self.diagonal, key[1])
        return self._done[key]


def _check_diagonal(diagonal) -> float:
    """``k(x_c, x_c)`` as a finite non-negative float (a ``ValueError`` naming ``diagonal``)."""
    value = check_numeric(diagonal, "diagonal")
    if value.size != 1 or not np.isfinite(value).all() or value.flat[0] < 0:
        raise ValueError(f"diagonal: expected one non-negative kernel value, got {diagonal!r}")
    return float(value.flat[0])


def _check_label(label) -> float:
    """``label`` as -1.0 or +1.0 (a ``ValueError`` naming ``label``)."""
    if isinstance(label, (bool, np.bool_)) or not isinstance(label, (int, float, np.number)):
        raise ValueError(f"label: must be -1 or +1, got {label!r}")
    if label not in (-1, 1):
        raise ValueError(f"label: must be -1 or +1, got {label!r}")
    return float(label)


def _identical_pairs(K, block: int = 256) -> np.ndarray:
    """Pairs ``(i, j)``, ``i < j``, of training points at feature-space distance
    ``K_ii + K_jj - 2 K_ij`` within :data:`svmtrust.optimal_face.IDENTICAL_TOL` of
    ``max(diag(K))``, shape (pairs, 2); computed by blocks of rows."""
    diagonal = np.diag(K)
    tol = IDENTICAL_TOL * max(float(np.max(diagonal)), np.finfo(float).tiny)
    found = []
    for start in range(0, K.shape[0], block):
        rows = slice(start, start + block)
        close = diagonal[rows, None] + diagonal[None, :] - 2.0 * K[rows] <= tol
        i, j = np.nonzero(close)
        i += start
        found.append(np.column_stack([i[i < j], j[i < j]]))
    return np.concatenate(found) if found else np.zeros((0, 2), dtype=int)


def _append(values, last) -> np.ndarray:
    """``values`` with one more entry ``last`` (the new example's), as a new array."""
    out = np.empty(values.size + 1, dtype=np.result_type(values, last))
    out[:-1], out[-1] = values, last
    return out


def _meets_kkt(margin, status, tol) -> bool:
    """Conditions (K) of the module notes, to ``tol``: ``g >= 0`` on R, ``g = 0`` on S,
    ``g <= 0`` on E."""
    return bool(
        np.all(margin[status == 0] >= -tol)
        and np.all(np.abs(margin[status == 1]) <= tol)
        and np.all(margin[status == 2] <= tol)
    )


def _bordered(K_SS, y_S) -> np.ndarray:
    """``B_S = [[0, y_S^T], [y_S, Q_SS]]``, system (B)."""
    m = y_S.size
    B = np.empty((m + 1, m + 1))
    B[0, 0] = 0.0
    B[0, 1:] = B[1:, 0] = y_S
    B[1:, 1:] = K_SS * np.outer(y_S, y_S)
    return B


def _affine_basis(K, heads, floor) -> np.ndarray:
    """A basis of the margin set ``heads``: a largest subset whose points are affinely
    independent in feature space, so that its bordered matrix ``B`` is invertible.

    The Schur complement of ``Q_ii`` in the bordered matrix of a set ``T`` plus ``i`` is the
    squared distance of ``phi(x_i)`` to the affine hull of ``phi(T)``, whatever the labels
    (``B_T = diag(1, y_T) [[0, 1^T], [1, K_TT]] diag(1, y_T)``): a pivoted Cholesky
    factorisation of the Gram matrix of ``phi(x_i) - phi(x_p)`` (``p`` the point of largest
    ``K_pp``) adds, one at a time, the point farthest from the hull of those chosen, until
    every distance left is at most ``floor``. Sorted indices."""
    p = heads[int(np.argmax(np.diag(K)[heads]))]
    rows = K[np.ix_(heads, heads)]
    centred = rows - K[p, heads][:, None] - K[p, heads][None, :] + K[p, p]
    residual = np.diag(centred).copy()
    factor = np.zeros((heads.size, heads.size))
    chosen = [int(np.flatnonzero(heads == p)[0])]
    for t in range(heads.size - 1):
        j = int(np.argmax(residual))
        if residual[j] <= floor:
            break
        factor[:, t] = (centred[:, j] - factor[:, :t] @ factor[j, :t]) / np.sqrt(residual[j])
        residual -= factor[:, t] ** 2
        residual[j] = 0.0
        chosen.append(j)
    return np.sort(heads[chosen])


def _bordered_inverse(K, y, free, unit):
    """``B_S^{-1}`` (empty for an empty ``S``; ``None`` when ``B_S`` is singular: ``Q_SS`` has an
    eigenvalue at most :data:`SCHUR_TOL` times ``unit`` on ``{d : y_S^T d = 0}``)."""
    if free.size == 0:
        return np.zeros((0, 0))
    Q = K[np.ix_(free, free)] * np.outer(y[free], y[free])
    if not _definite_on(Q, y[free][None, :], SCHUR_TOL * unit):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
            return scipy.linalg.inv(_bordered(K[np.ix_(free, free)], y[free]))
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
        return None


class _MarginSet:
    """The margin set ``S`` along a path: its indices, their kernel rows (``|S| x n``), their
    labels and ``B_S^{-1}``, kept in buffers that grow by doubling; a leaving index is replaced
    by the last one, so that no event copies the set.

    Copies of one example (:meth:`IncrementalSVM._copy_groups`) make ``B_S`` singular; a group
    of copies enters ``S`` as one index, its first, whose variable in system (B) is the group's
    total multiplier (the copies have equal columns), and the copies share it equally, which is
    the split of smallest norm. ``mult`` holds each index's group size and ``groups`` the
    members of groups of more than one.
    """

    def __init__(self, base: IncrementalSVM):
        m, n = base.free.size, base.n
        cap = max(2 * m, 16)
        self.K, self.m = base.K, m
        self.index = np.empty(cap, dtype=int)
        self.index[:m] = base.free
        self.mult = np.empty(cap)
        self.mult[:m] = base.mult
        self.groups = dict(base.groups)
        self.labels = np.empty(cap)
        self.labels[:m] = base.solution.y[base.free]
        self.rows = np.empty((cap, n))
        self.rows[:m] = base.rows
        self.inverse = np.empty((cap + 1, cap + 1))
        self.inverse[: m + 1, : m + 1] = base.inverse if m else 0.0
        self.position = np.full(n, -1)  # position of each example in S, -1 off S
        self.position[base.free] = np.arange(m)

    def __len__(self) -> int:
        return self.m

    def _reserve(self):
        """Double the buffers when they are full."""
        cap = self.index.size
        if self.m < cap:
            return
        self.index = np.r_[self.index, np.empty(cap, dtype=int)]
        self.mult = np.r_[self.mult, np.empty(cap)]
        self.labels = np.r_[self.labels, np.empty(cap)]
        self.rows = np.vstack([self.rows, np.empty_like(self.rows)])
        inverse = np.empty((2 * cap + 1, 2 * cap + 1))
        inverse[: cap + 1, : cap + 1] = self.inverse[: cap + 1, : cap + 1]
        self.inverse = inverse

    def grow(self, i: int, label: float, floor: float, members) -> bool:
        """Add example ``i`` (and its copies ``members``, ``i`` among them, or ``i`` alone) by bordering
        ``B_S^{-1}``; ``False`` (and no change) when the Schur complement of ``Q_ii`` is at most
        ``floor`` (the margin set would be singular)."""
        m, K_ii = self.m, self.K[i, i]
        if m == 0:  # [[0, y_i], [y_i, Q_ii]]^{-1}
            block = np.array([[-K_ii, label], [label, 0.0]])
        else:
            v = np.empty(m + 1)
            v[0] = label
            v[1:] = label * self.labels[:m] * self.rows[:m, i]
            R = self.inverse[: m + 1, : m + 1]
            w = -(R @ v)
            schur = K_ii + v @ w
            if schur <= floor:
                return False
        self._reserve()
        if m == 0:
            self.inverse[:2, :2] = block
        else:
            R = self.inverse[: m + 1, : m + 1]
            R += np.outer(w, w / schur)
            self.inverse[m + 1, : m + 1] = self.inverse[: m + 1, m + 1] = w / schur
            self.inverse[m + 1, m + 1] = 1.0 / schur
        self.index[m], self.labels[m], self.position[i] = i, label, m
        self.mult[m] = np.size(members)
        if np.size(members) > 1:
            self.groups[i] = members
        self.rows[m] = self.K[i]
        self.m = m + 1
        return True

    def remove(self, p: int):
        """Remove the example at position ``p``: ``B^{-1}`` without row and column ``q = p + 1``
        is ``R - R_{:q} R_{q:} / R_qq`` on the others; the last position moves into ``p``."""
        m, q = self.m, p + 1
        R = self.inverse[: m + 1, : m + 1]
        self.position[self.index[p]] = -1
        if m == 1:
            self.m = 0
            return
        R -= np.outer(R[:, q], R[q, :] / R[q, q])
        last = m  # the row of B of the last position
        if q != last:
            R[q, :] = R[last, :]
            R[:, q] = R[:, last]
            R[q, q] = R[last, last]
            self.index[p], self.labels[p] = self.index[m - 1], self.labels[m - 1]
            self.mult[p] = self.mult[m - 1]
            self.rows[p] = self.rows[m - 1]
            self.position[self.index[p]] = p
        self.m = m - 1


class _Addition:
    """The state of one addition (private: :meth:`IncrementalSVM.add` checked its input)."""

    def __init__(self, base: IncrementalSVM, column, diagonal, label):
        self.base, self.k, self.kcc, self.yc = base, column, diagonal, label
        sol = base.solution
        self.y, self.C = sol.y, sol.C
        self.f0 = float(column @ sol.coef)  # f(x_c) without the bias
        self.gc = label * (self.f0 + sol.b) - 1.0
        self.labels = _append(self.y, label)
        self.diagonal = _append(base.diagonal, diagonal)
        # rounding of a margin at the training optimum (alpha_c = 0): the skip and the path's
        # end test g_c against it, and nothing larger (a tolerance that grows with C hid a
        # KKT violation of 4e-4 at C = 1e4)
        self.tol = EXACT_TOL * _gradient_scale_of(self.diagonal, 1.0, _append(sol.alpha, 0.0))
        # the polish's system (its indices, B, B^{-1}) when solved from the path's inverse
        self.system = None

    # -- the routes --------------------------------------------------------------------

    def run(self) -> Addition:
        """Follow the route the new example needs (module notes)."""
        if not self.base.exact:
            return self._retrain()
        if self.gc > self.tol:
            return self._outside()
        if self.base.constant:
            return self._constant()
        return self._path()

    def _outside(self) -> Addition:
        """``g_c > 0``: the training optimum with ``alpha_c = 0`` meets (K), and ``c`` is off
        the face; :meth:`_end` sets the bias (which ``c`` bounds when no multiplier is free)
        and the margin set by the rule every route shares."""
        sol = self.base.solution
        values = _append(self.base.values, self.f0)
        return self._end(_append(sol.alpha, 0.0), values, "outside", 0)

    def _constant(self) -> Addition:
        """The training SVM is constant (``w = 0``, ``f = b``): the augmented optimum in one
        step (module notes, "A constant SVM"), or retraining when its ``w`` is not 0."""
        base, sol, n = self.base, self.base.solution, self.base.n
        alpha, C, y = _append(sol.alpha, 0.0), self.C, self.y
        M = base.margin_class
        if self.gc >= -self.tol or M.size == 0:  # alpha_c = 0 meets (K), b in its interval
            return self._end(alpha, _append(base.values, self.f0), "constant", 0)
        k_B = self.k[base.hull_basis]
        border = np.r_[1.0, k_B]
        if self.kcc - border @ base.hull_inverse @ border > SCHUR_TOL * base.unit:
            return self._retrain()  # phi(x_c) off the margin class's affine hull: w != 0
        rhs = base.hull_rows @ sol.alpha[M] - self.yc * C * (1.0 + k_B)
        z = _clipped_projection(base.hull_rows, rhs, C, base.hull_start)
        if z is None:  # the margin class cannot balance c at C: w != 0
            return self._retrain()
        alpha[M], alpha[n] = z, C
        values = np.empty(n + 1)
        # from scratch: w is 0, and the training values' rounding plus the change's would
        # stand out against the rounding of the KKT test (EXACT_TOL of a small scale)
        values[:n] = base.K @ (alpha[:n] * y) + C * self.yc * self.k
        values[n] = self.k @ (alpha[:n] * y) + C * self.yc * self.kcc
        return self._end(alpha, values, "constant", 0)

    def _retrain(self) -> Addition:
        """:func:`svmtrust.svm.fit_svm` on the augmented Gram matrix, as retraining does."""
        gram = self._gram()
        sol = fit_svm(gram, self.labels, self.C, self.base.solver, check_input=False)
        return Addition(sol, gram @ sol.coef + sol.b, "retrain", 0)

    def _gram(self) -> np.ndarray:
        """The augmented Gram matrix (only the canonical step and retraining need it)."""
        K = self.base.K
        return np.block([[K, self.k[:, None]], [self.k[None, :], np.array([[self.kcc]])]])

    # -- the path ----------------------------------------------------------------------

    def _path(self) -> Addition:
        """Raise ``alpha_c`` from 0 through events 1-4 of the module notes, then
        :meth:`_finish`; retrain when the path cannot go on exactly (a singular margin set, a
        segment no event ends, more than ``10 (n + 1)`` events).

        Off ``S`` an example is followed by its distance to the margin, ``side_i g_i >= 0``
        (``side`` +1 on R, -1 on E, 0 on S), which falls at the rate ``q_i = side_i gamma_i``:
        it reaches the margin after ``distance_i / -q_i`` where ``q_i < 0`` (event 4).
        """
        base, y, C, k, yc = self.base, self.y, self.C, self.k, self.yc
        n, finite = base.n, np.isfinite(C)
        alpha, b, ac, gc = base.solution.alpha.copy(), base.solution.b, 0.0, self.gc
        status, side = base.status.copy(), base.side.copy()
        distance, signed = base.distance.copy(), base.side * y  # signed: side_i y_i
        S = _MarginSet(base)
        qc, yck = yc * y * k, yc * k
        floor = SCHUR_TOL * base.unit
        ratio, falling = np.empty(n), np.empty(n, dtype=bool)
        events = 0
        while True:
            if gc >= -self.tol:  # on the margin (a training event took it there, to rounding)
                c_status = 1 if ac > 0 else 0
                break
            events += 1
            if events > 10 * (n + 1):
                return self._retrain()
            m = len(S)
            index = S.index[:m]
            if m:
                u = np.empty(m + 1)
                u[0] = yc
                u[1:] = qc[index]
                beta = -(S.inverse[: m + 1, : m + 1] @ u)
                beta_b, beta_S = beta[0], beta[1:]  # rates of the groups' totals
                rate_S = beta_S / S.mult[:m]  # rates of each copy's multiplier
                q = (S.labels[:m] * beta_S) @ S.rows[:m]  # rate of f - b from S
                q += yck + beta_b  # rate of f (eq. B): q_i = side_i y_i d f_i / d alpha_c
                q *= signed
                gamma_c = self.kcc + u[1:] @ beta_S + yc * beta_b  # y_c Q_cS = u[1:]
                rate_c = 1.0
            else:  # the bias alone moves, towards y_c
                beta_b, rate_S = yc, np.zeros(0)
                q = yc * signed
                gamma_c, rate_c = 1.0, 0.0
            first, t_train = self._first_event(q, distance, ratio, falling, alpha, rate_S, S)
            t_margin = -gc / gamma_c if gamma_c > 0 else np.inf
            t_bound = C - ac if rate_c > 0 and finite else np.inf
            t = min(t_train, t_margin, t_bound)
            if not np.isfinite(t):
                return self._retrain()  # no event: with C = inf, the data are not separable
            alpha[index] += t * rate_S
            ac += t * rate_c
            b += t * beta_b
            q *= t
            distance += q
            np.maximum(distance, 0.0, out=distance)  # rounding below the margin: on it
            gc += t * gamma_c
            if t_margin <= t_train and t_margin <= t_bound:  # event 1
                gc, c_status = 0.0, 1 if ac > 0 else 0
                break
            if t_bound <= t_train:  # event 2
                ac, c_status = C, 2
                break
            if status[first] == 1:  # event 3: leaves the margin set
                p = S.position[first]
                up = rate_S[p] > 0
                members = S.groups.pop(first, first)
                alpha[members], distance[members] = (C if up else 0.0), 0.0
                status[members], side[members] = (2, -1.0) if up else (0, 1.0)
                signed[members] = side[members] * y[members]
                S.remove(p)
            else:  # event 4: joins the margin set, with its copies
                members = base.copies_of(first, status) if base.has_copies else first
                distance[members] = 0.0
                if not S.grow(first, y[first], floor, members):
                    return self._retrain()
                if base.has_copies and members.size > 1:  # copies share their total equally
                    alpha[members] = np.mean(alpha[members])
                status[members], side[members], signed[members] = 1, 0.0, 0.0
        return self._finish(events, alpha, ac, b, status, c_status, S)

    def _first_event(self, q, distance, ratio, falling, alpha, rate_S, S):
        """The first training event of a segment (events 3 and 4) and its length in
        ``alpha_c``, ``(index, t)``, ``t = inf`` when none: the smallest of ``distance_i /
        -q_i`` off ``S`` (``q_i < 0``) and of the room of each margin multiplier to its bound
        at its rate ``rate_S``; lengths below 0 (rounding) count as 0, and a tie goes to the
        smallest index. ``ratio`` and ``falling`` are work arrays of size ``n``."""
        np.less(q, 0.0, out=falling)
        ratio.fill(-np.inf)
        np.divide(distance, q, out=ratio, where=falling)  # -(length) where falling
        first = int(np.argmax(ratio))
        t_train = max(-float(ratio[first]), 0.0)
        m = len(S)
        if m:
            a_S = alpha[S.index[:m]]
            room_S = np.divide(a_S, -rate_S, out=np.full(m, np.inf), where=rate_S < 0)
            if np.isfinite(self.C):
                np.divide(self.C - a_S, rate_S, out=room_S, where=rate_S > 0)
            p = int(np.argmin(room_S))
            t_S, i_S = max(float(room_S[p]), 0.0), int(S.index[p])
            if t_S < t_train or (t_S == t_train and i_S < first):
                first, t_train = i_S, t_S
        return first, t_train

    # -- the end -----------------------------------------------------------------------

    def _finish(self, events, alpha, ac, b, status, c_status, S) -> Addition:
        """Polish the margin set's system, then :meth:`_end` (certificate and canonical step)."""
        status = _append(status, c_status).astype(np.int8)
        alpha = _append(alpha, ac)
        alpha[status == 0] = 0.0
        if np.isfinite(self.C):
            alpha[status == 2] = self.C
        for head, members in S.groups.items():  # copies share their group's multiplier
            alpha[members] = alpha[head]
        polished = self._polish(alpha, b, status, S)
        if polished is None:
            return self._retrain()
        alpha = polished[0]
        return self._end(alpha, self._values(alpha, S), "path", events, S)

    def _values(self, alpha, S) -> np.ndarray:
        """``f(x_i) - b = sum_j alpha_j y_j K_ij`` of the augmented set at ``alpha``, not
        accumulated along the path: the training optimum's (:attr:`IncrementalSVM.values`)
        plus the change of the multipliers that moved, the kernel rows of those in the margin
        set ``S`` taken from its buffer, the others gathered."""
        base, n = self.base, self.base.n
        moved = np.flatnonzero(alpha[:n] != base.solution.alpha)
        change = (alpha[moved] - base.solution.alpha[moved]) * self.y[moved]
        held = S.position[moved]
        in_S = held >= 0
        values = np.empty(n + 1)
        values[:n] = base.values
        if np.any(in_S):
            weights = np.zeros(len(S))
            weights[held[in_S]] = change[in_S]
            values[:n] += weights @ S.rows[: len(S)]
        if not np.all(in_S):
            values[:n] += change[~in_S] @ base.K[moved[~in_S]]
        coef_c = alpha[n] * self.yc
        values[:n] += coef_c * self.k
        values[n] = self.k @ (alpha[:n] * self.y) + coef_c * self.kcc
        return values

    def _end(self, alpha, values, route: str, events: int, S=None) -> Addition:
        """Certify the optimum ``alpha`` and make it canonical, as :func:`svmtrust.svm.fit_svm`
        does with a solver's answer: the same face rule, the same minimum-norm step
        (:func:`svmtrust.optimal_face._minimum_norm_on_face`), the same bias and margin set
        (:func:`svmtrust.svm._bias_and_margin`).

        ``values`` are the decision values without bias, computed from ``alpha``. The
        certificate is :func:`svmtrust.certificate._certify_values` at its exact level (the box,
        ``y^T alpha = 0`` and the KKT conditions (K) at the canonical bias to the margins'
        rounding, :data:`~svmtrust.optimal_face.EXACT_TOL` of the gradient's scale at
        ``alpha``, which does not grow with ``C``), the rule :func:`svmtrust.svm.fit_svm`
        judges its answers by, before and after the face step, after multipliers within
        :data:`~svmtrust.optimal_face.MULTIPLIER_TOL` of a bound are set to it (as
        :func:`svmtrust.svm.fit_svm` decides them); the second time with the face conditions
        (:func:`svmtrust.certificate._face_conditions`: multipliers fixed by the data, the
        face's point of smallest norm). An optimum that fails it is retrained. The route becomes
        ``"canonical"`` when the face moved the multipliers.
        ``S``, the path's margin set, holds kernel rows the face's block may take.
        """
        y, C = self.labels, self.C
        alpha, values = self._decided(_snapped(alpha, C), values)
        scale = _gradient_scale_of(self.diagonal, 1.0, alpha)
        b, on_margin = _bias_and_margin(y, alpha, C, values, scale)
        if not _certify_values(y, C, alpha, b, values, self.diagonal).exact:
            return self._retrain()
        if on_margin.size >= 2:
            y_M, alpha_M = y[on_margin], alpha[on_margin]
            moved, exact = self._face(on_margin, alpha_M, scale, route, S)
            if moved is None or not exact:
                return self._retrain()
            change = moved - alpha_M
            # a re-solve of the face's system alone moves the multipliers by rounding: kept
            if np.max(np.abs(change)) > SOLVE_TOL * max(float(np.max(alpha_M)), 1e-300):
                alpha = alpha.copy()
                alpha[on_margin] = moved
                values = values + self._rows(on_margin).T @ (change * y_M)
                alpha, values = self._decided(alpha, values)
                b, on_margin = _bias_and_margin(y, alpha, C, values, scale)
                route = "canonical"
        if not _certify_values(y, C, alpha, b, values, self.diagonal, columns=self._columns).exact:
            return self._retrain()
        solution = SVMSolution(
            alpha=alpha,
            b=b,
            y=y,
            C=C,
            objective=float(np.sum(alpha) - 0.5 * (alpha * y) @ values),
            status="optimal",
            solver="incremental",
            support=np.flatnonzero(alpha > 0),
            free=np.flatnonzero((alpha > 0) & (alpha < C)),
            bounded=np.flatnonzero(alpha == C),
            n_iter=events,
            on_margin=on_margin,
            exact=True,
        )
        return Addition(solution, values + b, route, events)

    def _decided(self, alpha, values):
        """``alpha`` with the multipliers within :data:`~svmtrust.optimal_face.MULTIPLIER_TOL`
        of a bound set to it, as :func:`svmtrust.svm.fit_svm`'s certificate decides them
        (:func:`svmtrust.certificate._at_bounds`), and the decision values moved with them."""
        decided = _at_bounds(alpha, self.C)
        changed = np.flatnonzero(decided != alpha)
        if changed.size == 0:
            return alpha, values
        step = (decided - alpha)[changed] * self.labels[changed]
        return decided, values + self._rows(changed).T @ step

    def _face(self, M, alpha_M, scale: float, route: str, S=None):
        """:func:`svmtrust.optimal_face._minimum_norm_on_face` on the face ``M``: ``(values,
        exact)``. An ``"outside"`` addition keeps the training multipliers, so its answer
        depends only on ``M`` and ``scale`` when the new example is off ``M``: it is kept in
        :attr:`IncrementalSVM.faces` and computed once."""
        faces = self.base._faces
        key = (M.tobytes(), scale) if route == "outside" and M[-1] < self.base.n else None
        if key in faces:
            return faces[key]
        if self._one_point(M):
            return alpha_M, True
        answer = _face_minimum_norm(
            self._block(M, S), self.labels[M], alpha_M, self.C, scale, self.base.unit
        )
        if key is not None:
            faces[key] = answer
        return answer

    def _one_point(self, M) -> bool:
        """The test :func:`svmtrust.optimal_face._one_point` passes, read from the inverse of
        the polish's system when ``M`` is its index set, in ``O(|M|^2)``: the face is one point
        when that test's matrix, ``B_M`` with its border scaled by ``sigma = max |A_MM|`` and
        last, has a reciprocal condition number above :data:`ONE_POINT_RCOND`. LAPACK's
        estimate there, from a lower bound of ``||B^{-1}||_1``, is never below the exact value
        computed here from ``B_M^{-1}`` (of ``[[0, y^T], [y, A]]``; scaling the border by
        ``sigma`` divides its row and column of the inverse by ``sigma``), which is taken with
        a factor of 2 to spare for the rounding of the path's inverse. ``False`` means: run the
        plain test."""
        if self.system is None:
            return False
        on, B, inverse = self.system
        if on.size != M.size or not np.array_equal(np.sort(on), M):
            return False
        sigma = float(np.max(np.abs(B[1:, 1:])))
        if not sigma > 0:
            return False
        scaled, scaled_inverse = B.copy(), inverse.copy()
        scaled[0, :] *= sigma
        scaled[:, 0] *= sigma
        scaled_inverse[0, :] /= sigma
        scaled_inverse[:, 0] /= sigma
        norm = float(np.max(np.sum(np.abs(scaled), axis=0)))
        norm_inverse = float(np.max(np.sum(np.abs(scaled_inverse), axis=0)))
        return 1.0 / (norm * norm_inverse) > 2.0 * ONE_POINT_RCOND

    def _block(self, index, S=None) -> np.ndarray:
        """The block ``index x index`` of the augmented Gram matrix, ``index`` increasing; its
        rows from the buffer of the margin set ``S`` when it holds them all (the same values,
        read from memory the path has just used)."""
        n = self.base.n
        t = int(np.searchsorted(index, n))  # the training examples come first
        train = index[:t]
        out = np.empty((index.size, index.size))
        held = S.position[train] if S is not None else None
        if held is not None and np.all(held >= 0):
            out[:t, :t] = S.rows[held[:, None], train[None, :]]
        else:
            out[:t, :t] = self.base.K[np.ix_(train, train)]
        if t < index.size:
            out[:t, t] = out[t, :t] = self.k[train]
            out[t, t] = self.kcc
        return out

    def _polish(self, alpha, b, status, S):
        """Solve system (B) of the final margin set from scratch: ``(alpha, b)``, or ``None``
        when it is singular or puts a margin multiplier outside ``[0, C]``.

        The unknowns are the totals of the groups of copies in ``S`` (and the new example's
        multiplier when it joined); each copy gets its share. Events that tie end a path with a
        margin multiplier at its bound up to rounding (it reached 0 at the step ``alpha_c``
        reached ``C``, say); such a group is set on its bound and leaves the margin set
        (``status`` is updated in place), and the system is solved again.
        """
        n, y, alpha = self.base.n, self.labels, alpha.copy()
        m = len(S)
        heads, mult = _append(S.index[:m], n), _append(S.mult[:m], 1.0)
        members = [S.groups.get(int(h), h) for h in heads[:m]] + [n]
        # the kernel block of the heads and the new example, (m + 1) x (m + 1)
        block = np.empty((m + 1, m + 1))
        block[:m, :m], block[:m, m] = S.rows[:m][:, heads[:m]], self.k[heads[:m]]
        block[m, :m], block[m, m] = self.k[heads[:m]], self.kcc
        keep = status[heads] == 1
        inverse = self._system_inverse(S, keep[m])  # B^{-1} of the first system, from the path's
        for _ in range(heads.size + 1):
            if not np.any(keep):
                return alpha, b
            on = heads[keep]
            fixed = alpha * y
            fixed[status == 1] = 0.0
            # f of the heads and the new example from the multipliers that stay fixed
            known = np.empty(m + 1)
            known[:m] = S.rows[:m] @ fixed[:n] + self.k[heads[:m]] * fixed[n]
            known[m] = self.k @ fixed[:n] + self.kcc * fixed[n]
            B = _bordered(block[np.ix_(keep, keep)], y[on])
            rhs = np.empty(on.size + 1)
            rhs[0], rhs[1:] = -np.sum(fixed), 1.0 - y[on] * known[keep]
            solved = None if inverse is None else _refined_solve(B, inverse, rhs)
            if solved is None:
                try:
                    solved = np.linalg.solve(B, rhs)
                except np.linalg.LinAlgError:
                    return None
            elif not S.groups:  # the face test of _end may read the system's inverse
                self.system = (on, B, inverse)
            inverse = None  # a tie changed the system: solved from scratch
            values = solved[1:] / mult[keep]  # each copy's share
            slack = EVENT_TIE_TOL * max(float(np.max(values)), float(np.max(alpha)))
            if np.any(values < -slack) or np.any(values > self.C + slack):
                return None
            values = np.clip(values, 0.0, self.C)
            done = True
            for h, value in zip(np.flatnonzero(keep), values):
                group = members[h]
                if value <= slack or value >= self.C - slack:  # reached its bound in a tie
                    alpha[group] = 0.0 if value <= slack else self.C
                    status[group] = 0 if value <= slack else 2
                    keep[h], done = False, False
                else:
                    alpha[group] = value
            if done:
                return alpha, float(solved[0])
            self.system = None
        return None

    def _system_inverse(self, S, joined: bool):
        """``B^{-1}`` of the polish's first system from the path's ``B_S^{-1}`` (bordered by
        the new example when it ``joined`` the margin set: the update of
        :meth:`_MarginSet.grow`, ``O(|S|^2)``), or ``None`` when that border is singular."""
        m = len(S)
        R = S.inverse[: m + 1, : m + 1]
        if not joined:
            return R
        v = np.empty(m + 1)
        v[0], v[1:] = self.yc, self.yc * S.labels[:m] * self.k[S.index[:m]]
        w = -(R @ v)
        schur = self.kcc + v @ w
        if not schur > SCHUR_TOL * self.base.unit:
            return None
        out = np.empty((m + 2, m + 2))
        out[: m + 1, : m + 1] = R + np.outer(w, w / schur)
        out[m + 1, : m + 1] = out[: m + 1, m + 1] = w / schur
        out[m + 1, m + 1] = 1.0 / schur
        return out

    def _columns(self, index) -> np.ndarray:
        """Columns ``index`` of the augmented Gram matrix, shape (n + 1, len(index)), as the
        certificate's face conditions read them."""
        return self._rows(index).T

    def _rows(self, index) -> np.ndarray:
        """Rows ``index`` of the augmented Gram matrix, shape (len(index), n + 1)."""
        n = self.base.n
        out = np.empty((index.size, n + 1))
        is_new = index == n
        out[~is_new, :n] = self.base.K[index[~is_new]]
        out[~is_new, n] = self.k[index[~is_new]]
        out[is_new, :n] = self.k
        out[is_new, n] = self.kcc
        return out


def _face_minimum_norm(K_MM, y_M, x_M, u, scale, unit):
    """:func:`svmtrust.optimal_face._minimum_norm_on_face` of the SVM's face ``M`` (``A_MM =
    diag(y_M) K_MM diag(y_M)``, ``c_M = -1``), with the point of smallest norm found in the
    dual (:func:`_clipped_projection`, in as many unknowns as the face has constraints)
    instead of by :func:`svmtrust.optimal_face._box_qp` (in as many as it has directions:
    about 200 on a linear kernel's ``w = 0`` face of 200 examples, 3 constraints), for a face
    of at least :data:`DUAL_FACE` examples (smaller ones take the plain function). The point
    found goes to :func:`svmtrust.optimal_face._refined`, as ``_box_qp``'s does, which holds
    the same bounds and makes it exact by the same projection; when it cannot, the plain
    function runs. Same tests, same answer, as retraining's canonical step."""
    A_MM = K_MM * np.outer(y_M, y_M)
    c_M = -np.ones(y_M.size)
    if y_M.size < DUAL_FACE:
        return _minimum_norm_on_face(A_MM, c_M, y_M, x_M, u, scale)
    if _one_point(A_MM, y_M):
        return x_M, True
    N, ambiguous = _face_directions(A_MM, c_M, y_M)
    if N.shape[1] == 0:
        return _equalise(A_MM, y_M, x_M), not ambiguous
    basis = _affine_basis(K_MM, np.arange(y_M.size), SCHUR_TOL * unit)
    A = (1.0 + K_MM[basis]) * y_M  # <(1, phi_k), sum_j y_j z_j (1, phi_j)> = (A z)_k
    point = _clipped_projection(A, A @ x_M, u, _dual_start(A, x_M, u))
    refined = None if point is None else _refined(x_M, N, u, point)
    if refined is None:
        return _minimum_norm_on_face(A_MM, c_M, y_M, x_M, u, scale)
    change = refined - x_M
    if np.max(np.abs(A_MM @ change), initial=0.0) > SOLVE_TOL * scale or abs(
        np.sum(change)
    ) > SOLVE_TOL * max(float(np.sum(np.abs(x_M))), 1e-300):
        return None, False
    return _equalise(A_MM, y_M, refined), not ambiguous


def _dual_start(A, x, u) -> np.ndarray:
    """Multipliers ``lam`` with ``A^T lam = x`` on the entries of ``x`` strictly inside
    ``(0, u)`` (least squares): where :func:`_clipped_projection` starts when ``x`` is near the
    point it seeks."""
    inside = (x > 0.0) & (x < u)
    if not np.any(inside):
        return np.zeros(A.shape[0])
    return np.linalg.lstsq(A[:, inside].T, x[inside], rcond=None)[0]


def _clipped_projection(A, rhs, u, lam, max_iter: int = 100):
    """The point of smallest norm of ``{z : A z = rhs, 0 <= z <= u}``, or ``None`` (empty, or
    not found in ``max_iter`` steps).

    Its optimality conditions make it ``z = clip(A^T lam, 0, u)`` for multipliers ``lam`` that
    minimise the convex, piecewise quadratic dual ``D(lam) = sum_j psi((A^T lam)_j) - lam^T
    rhs`` (``psi' = clip``). Each step goes to the minimiser of the piece of ``D`` at ``lam``
    (the entries ``F`` strictly inside the box free, the others held where they are: a Newton
    step, taken here as the least-norm solution of ``A_F z_F = rhs - u A_U 1``, ``U`` the
    entries at ``u``, which keeps the accuracy that the normal equations ``A_F A_F^T`` would
    square away), with a backtracking line search; on such a function this ends in finitely
    many steps. The answer is returned when the piece's minimiser lies in its own piece (to
    1e-12 of the box: entries on the border of two pieces, at 0 or ``u`` in both, are common on
    a face): then ``z`` meets ``A z = rhs`` to rounding, and its entries off ``F`` are 0 or
    ``u`` exactly. Callers certify it (the KKT conditions of the SVM, the face's projection)."""
    upper = u if np.isfinite(u) else np.inf

    def dual(lam):
        v = A.T @ lam
        z = np.clip(v, 0.0, upper)
        return float(z @ (v - 0.5 * z) - lam @ rhs), v, z

    value, v, z = dual(lam)
    size = max(float(np.max(np.abs(rhs))), float(np.max(np.abs(A) @ z)), 1e-300)
    for _ in range(max_iter):
        inside, at_upper = (v > 0.0) & (v < upper), v >= upper
        target = rhs - (u * np.sum(A[:, at_upper], axis=1) if np.any(at_upper) else 0.0)
        A_F = A[:, inside]
        z_F = scipy.linalg.lstsq(A_F, target, cond=1e-13)[0] if np.any(inside) else z[inside]
        goal = scipy.linalg.lstsq(A_F.T, z_F, cond=1e-13)[0] if np.any(inside) else lam
        reached = A.T @ goal
        met = np.max(np.abs(A_F @ z_F - target), initial=0.0) <= 1e-12 * size
        slack = 1e-12 * max(float(np.max(np.abs(z_F), initial=0.0)), u if np.isfinite(u) else 0.0)
        if (
            met
            and np.all((z_F >= -slack) & (z_F <= upper + slack))
            and np.all(reached[~inside & ~at_upper] <= slack)
            and np.all(reached[at_upper] >= upper - slack)
        ):  # the piece's minimiser is in its piece (entries on its border to rounding)
            z = np.where(at_upper, upper, 0.0)
            z[inside] = np.clip(z_F, 0.0, upper)
            return z
        step = goal - lam
        gradient = A @ z - rhs
        slope = float(gradient @ step)
        if not slope < 0.0:
            return None
        t = 1.0
        while True:
            trial = dual(lam + t * step)
            if trial[0] <= value + 1e-4 * t * slope or t < 1e-12:
                break
            t *= 0.5
        if not trial[0] < value:
            return None
        lam = lam + t * step
        value, v, z = trial
    return None


def _refined_solve(B, inverse, rhs):
    """``B^{-1} rhs`` from an approximate inverse (the path's, updated at each event): its
    product and one step of iterative refinement, ``O(m^2)``; ``None`` when the residual is
    not then at the rounding of a direct solve (64 machine epsilons of ``|B| |x| + |rhs|``)."""
    x = inverse @ rhs
    x += inverse @ (rhs - B @ x)
    size = float(np.max(np.abs(B) @ np.abs(x))) + float(np.max(np.abs(rhs)))
    if np.max(np.abs(B @ x - rhs)) > 64 * np.finfo(float).eps * size:
        return None
    return x


def _definite_on(Q, border, floor) -> bool:
    """Whether ``Q`` is positive definite on ``{d : border d = 0}`` (eigenvalues above ``floor``)."""
    _, _, vt = np.linalg.svd(border)
    basis = vt[np.linalg.matrix_rank(border) :].T
    if basis.shape[1] == 0:
        return True
    reduced = basis.T @ Q @ basis
    return bool(np.min(np.linalg.eigvalsh((reduced + reduced.T) / 2.0)) > floor)
