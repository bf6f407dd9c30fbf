"""Maximal discrepancy for the support vector machine (Anguita, Ghio & Ridella 2010).

The soft loss of eq. (2) is bounded in [0, 1] and satisfies ``L(f, y) = 1 - L(f, -y)`` (eq. (6)),
so the maximal discrepancy of eq. (4) equals ``1 - 2 min_f nu'(f)`` on the data set ``D'`` whose
first half has its labels flipped (eq. (7)). Minimising the soft loss is not convex; the paper
bounds the minimum by *peeling*: solve the bounded-w SVM (9), remove the critical support vector
(``y f(x) < -1``) with the smallest margin, and repeat until none is left. On the remaining set
``S_N`` the soft loss equals half the hinge loss, which gives the upper bound of Theorem 3 and the
value that Theorem 2 calls a lower bound. It is a lower bound when the peeled set is the
critical set of a soft-loss minimiser (an oracle that peeling does not have), but not for the
set peeling finds: :func:`exact_min_soft_loss` computes the exact minimum of small problems,
and finds counterexamples. :func:`soft_loss_lower_bound` gives a lower bound that holds for
every data set (a convex envelope of the soft loss), and :func:`maximal_discrepancy` assembles
the bound of eq. (5).

Every bounded-w problem is solved exactly with cvxpy and Clarabel in a reduced form: the training
points enter only through a factor ``Phi`` (``l x r``, ``r <= l``) of their Gram matrix, and the
problem is compiled once per size with cvxpy Parameters (the latest few sizes are kept), so that
the many solves of a peeling run or of the shuffles reuse the compiled problem.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from . import qp
from .validation import (
    MAX_KERNEL,
    check_array,
    check_binary_labels,
    check_bool,
    check_integer,
    check_kernel_gram,
    check_positive,
    check_rng,
    check_significance,
)

__all__ = [
    "soft_loss",
    "Representation",
    "represent",
    "BoundedWProblem",
    "solve_reduced",
    "fit_bounded_w",
    "PeelingRun",
    "peel",
    "peeled_soft_loss_bounds",
    "delta_term",
    "DiscrepancyResult",
    "flipped_labels",
    "discrepancy_runs",
    "maximal_discrepancy",
    "summarise_runs",
    "exact_min_soft_loss",
    "EnvelopeProblem",
    "envelope_lower_bound",
    "soft_loss_lower_bound",
    "optimal_set_widths",
]

#: A support vector is critical when ``y f(x) < -1 - CRITICAL_TOL``: the margins of an
#: interior-point solution carry errors far below this, and a point exactly at ``y f(x) = -1``
#: has ``xi = eta = 2``, so it needs no peeling.
CRITICAL_TOL = 1e-7

#: Confidence level of the default delta term of eq. (5).
DEFAULT_DELTA = 0.05


def soft_loss(margins) -> np.ndarray:
    """The soft loss of eq. (2) of Anguita et al. (2010) as a function of the margin ``y f(x)``.

    ``L_S = 1`` where ``y f(x) <= -1`` (the hard loss) and ``L_S = [1 - y f(x)]_+ / 2`` (half
    the hinge loss) where ``y f(x) >= -1``; the two pieces meet at ``y f(x) = -1``. It takes the
    value 1/2 on the separating surface and ``L_S(m) = 1 - L_S(-m)`` (eq. (6)).

    Parameters
    ----------
    margins : array_like
        Values ``y_i f(x_i)``.

    Returns
    -------
    ndarray
        Losses in [0, 1], of the shape of ``margins``.
    """
    try:
        m = np.asarray(margins, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"margins: expected numbers, got {margins!r}") from None
    if np.any(np.isnan(m)):
        raise ValueError("margins: contains NaN values")
    return np.where(m <= -1.0, 1.0, np.maximum(0.0, 1.0 - m) / 2.0)


@dataclass(frozen=True)
class Representation:
    """The training points in the reduced coordinates of the bounded-w problem.

    ``f(x_i) = Phi[i] @ z + b`` with ``||w|| = ||z||``: ``K = Phi Phi^T`` with
    ``Phi = E Lambda^(1/2)`` (:func:`~svmtrust.qp.kernel_factor` of the Gram matrix ``K``, for
    the linear machine ``K = X X^T``), and the representer coefficients
    ``beta = E Lambda^(-1/2) z`` give ``K beta = Phi z`` and ``beta^T K beta = ||z||^2``. The
    linear machine's weights are ``w = X^T beta``, in the span of the training points, which
    loses nothing: a component of ``w`` orthogonal to them changes no margin.

    Attributes
    ----------
    phi : ndarray of shape (l, r)
        The factor, ``r <= l``.
    to_w : ndarray of shape (p, r)
        Maps ``z`` to ``w`` (linear, ``p = d``) or to ``beta`` (kernel, ``p = l``).
    """

    phi: np.ndarray
    to_w: np.ndarray


def _linear_gram(X: np.ndarray) -> np.ndarray:
    """``X X^T``, refused with a ValueError naming ``X`` when its entries overflow
    (:data:`svmtrust.validation.MAX_KERNEL`)."""
    with np.errstate(over="ignore", invalid="ignore"):
        K = X @ X.T
    if not np.all(np.abs(K) <= MAX_KERNEL):
        raise ValueError(
            f"X: the linear kernel X X^T has entries above {MAX_KERNEL:.0e}, which overflow in "
            "its products; scale X down"
        )
    return K


def represent(X, kernel=None) -> Representation:
    """Reduced coordinates of the training points ``X`` for problem (9).

    Parameters
    ----------
    X : ndarray of shape (l, d)
        Training points.
    kernel : callable, optional
        ``kernel(X, Z) -> Gram matrix``; ``None`` for the linear machine of eq. (8).

    Returns
    -------
    Representation
    """
    X = check_array(X, "X", ndim=2)
    K = _linear_gram(X) if kernel is None else check_kernel_gram(kernel, X).matrix
    phi = qp.kernel_factor(K)
    beta = phi / np.sum(phi**2, axis=0)  # E Lambda^(-1/2): the eigenvalues kept are the norms
    return Representation(phi, beta if kernel is not None else X.T @ beta)


class BoundedWProblem:
    """Problem (9) over ``l`` points, compiled once, solved for any data, labels and mask.

    With ``A = diag(m y) Phi`` (``m`` the 0/1 mask of the points kept) the problem solved is

        min  sum(xi)   s.t.  ||u|| <= 1,  w_max A u + (m y) b >= m - xi,  xi >= 0,

    with ``z = w_max u``, so a removed point (``m_i = 0``) only meets ``xi_i >= 0`` and drops
    out; its slack is 0. Scaling ``z`` to the unit ball keeps Clarabel's partly absolute
    tolerances meaningful whatever ``w_max`` is. Each solve starts Clarabel afresh
    (:func:`~svmtrust.qp.solve`): cvxpy would otherwise update the previous solver in place, and
    where the optimum is not unique (separable data, a ball larger than needed) the point
    returned would depend on the order of earlier solves. Every datum (``w_max A``, ``m y``,
    ``m``) is a cvxpy Parameter and the problem is DPP, so cvxpy compiles it once.

    Parameters
    ----------
    l : int
        Number of points, and of reduced coordinates: a factor ``Phi`` has at most ``l``
        columns, and fewer are padded with zeros.
    """

    def __init__(self, l: int):
        self.l = l = check_integer(l, "l")
        self.A = cp.Parameter((l, l))
        self.my = cp.Parameter(l)
        self.mask = cp.Parameter(l, nonneg=True)
        self.z, self.b, self.xi = cp.Variable(l), cp.Variable(), cp.Variable(l, nonneg=True)
        constraints = [
            cp.norm(self.z, 2) <= 1.0,
            self.A @ self.z + cp.multiply(self.my, self.b) >= self.mask - self.xi,
        ]
        self.problem = cp.Problem(cp.Minimize(cp.sum(self.xi)), constraints)

    def solve(self, phi, y, w_max, mask):
        """Solve for factor ``phi`` (l x r with r <= l), labels ``y`` and 0/1 ``mask``.

        Returns
        -------
        z : ndarray of shape (r,)
        b : float

        Raises
        ------
        ValueError
            Naming the argument: ``phi`` not a finite (l, r) matrix with ``r <= l``, ``y`` not
            l labels in {-1, +1}, ``w_max`` not positive, ``mask`` not l values 0 or 1
            (booleans allowed).
        SolveError
            If Clarabel ends with a status other than optimal.
        """
        phi, y = _check_factor(phi, "phi", self.l), _check_signs(y, self.l)
        w_max = check_positive(w_max, "w_max")
        mask = np.asarray(mask)
        mask = _check_weights(mask.astype(float) if mask.dtype == bool else mask, "mask", self.l)
        if not np.all(np.isin(mask, (0.0, 1.0))):
            raise ValueError("mask: every value must be 0 or 1")
        self.A.value = (w_max * mask * y)[:, None] * _pad(phi, self.l)
        self.my.value = mask * y
        self.mask.value = mask.astype(float)
        qp.solve(self.problem, "bounded-w problem (9)", qp.CONE_TOL)
        return w_max * np.asarray(self.z.value[: phi.shape[1]], dtype=float), float(self.b.value)


def _check_factor(phi, name: str, l: int) -> np.ndarray:
    """A finite factor of ``l`` rows and at most ``l`` columns, else a ValueError naming
    ``name`` (the door of :meth:`BoundedWProblem.solve` and :meth:`EnvelopeProblem.solve`)."""
    phi = check_array(phi, name, ndim=2)
    if phi.shape[0] != l or phi.shape[1] > l:
        raise ValueError(f"{name}: expected shape ({l}, r) with r <= {l}, got {phi.shape}")
    return phi


def _check_signs(y, l: int) -> np.ndarray:
    """``l`` labels, each -1 or +1 (one class allowed, unlike
    :func:`~svmtrust.validation.check_binary_labels`: a subproblem may keep one)."""
    y = check_array(y, "y", ndim=1)
    if y.size != l or not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError(f"y: expected {l} labels, each -1 or +1")
    return y


def _check_weights(values, name: str, l: int) -> np.ndarray:
    """``l`` finite values, each at least 0, else a ValueError naming ``name``."""
    values = check_array(values, name, ndim=1)
    if values.size != l or np.any(values < 0):
        raise ValueError(f"{name}: expected {l} values, each at least 0")
    return values


def _pad(phi, l: int) -> np.ndarray:
    """``phi`` (l x r, r <= l) with zero columns appended up to l x l."""
    padded = np.zeros((l, l))
    padded[:, : phi.shape[1]] = phi
    return padded


@functools.lru_cache(maxsize=8)
def _compiled(kind, l: int):
    """``kind(l)``, compiled once and kept among the eight problems used last.

    ``kind`` is :class:`BoundedWProblem` or :class:`EnvelopeProblem`. A peeling run, the
    shuffles of :func:`maximal_discrepancy` and a protocol's grid solve one size many times,
    and compiling costs several solves (``tests/benchmarks/test_bench_discrepancy.py``).
    """
    return kind(l)


def solve_reduced(rep: Representation, y, w_max):
    """Solve (9) on every point in reduced coordinates; return ``(z, b, y f(x))``."""
    y, w_max = _check_rep(rep, y, w_max)
    return _margins(rep, y, w_max, np.ones(len(y)))


def _margins(rep: Representation, y, w_max, mask):
    """Solve (9) on the masked points; return ``(z, b, y f(x))`` for every point."""
    l = rep.phi.shape[0]
    z, b = _compiled(BoundedWProblem, l).solve(rep.phi, y, w_max, np.asarray(mask, dtype=float))
    return z, b, y * (rep.phi @ z + b)


def _require_rep(rep) -> None:
    if not isinstance(rep, Representation):
        raise ValueError(
            f"rep: expected a Representation (see represent), got {type(rep).__name__}"
        )


def _check_rep(rep, y, w_max):
    """Validate a :class:`Representation`, its labels and ``w_max``; return ``(y, w_max)``."""
    _require_rep(rep)
    return check_binary_labels(y, "y", n=rep.phi.shape[0]), check_positive(w_max, "w_max")


def _check_inputs(X, y, w_max):
    """Validate the training points, labels and ``w_max`` shared by the public functions."""
    X = check_array(X, "X", ndim=2)
    y = check_binary_labels(y, "y", n=X.shape[0])
    return X, y, check_positive(w_max, "w_max")


def fit_bounded_w(X, y, w_max, kernel=None):
    """Solve the bounded-w SVM, formulation (9) of Anguita et al. (2010), exactly.

    ``min_{w, b, xi} sum_i xi_i`` subject to ``||w||^2 <= w_max^2``,
    ``y_i (w^T x_i + b) >= 1 - xi_i`` and ``xi_i >= 0``. The problem is solved in the reduced
    coordinates of :func:`represent` (exact: the part of ``w`` orthogonal to the training
    points changes no margin and only costs norm).

    Parameters
    ----------
    X : array_like of shape (l, d)
        Training points.
    y : array_like of shape (l,)
        Labels in {-1, +1}, both present.
    w_max : float
        Radius of the ball of weight vectors, positive.
    kernel : callable, optional
        ``kernel(X, Z)`` returning a Gram matrix (e.g.
        ``functools.partial(rbf_kernel, gamma=0.5)``). Then ``w`` is the coefficient vector
        ``beta`` of ``f(x) = sum_i beta_i k(x_i, x) + b``, and ``||w||^2 = beta^T K beta``.

    Returns
    -------
    w : ndarray of shape (d,) (linear) or (l,) (``beta``, with a kernel)
    b : float
    xi : ndarray of shape (l,)
        The slacks ``[1 - y_i f(x_i)]_+`` (the hinge losses).

    Raises
    ------
    ValueError
        On bad input (the message names the argument).
    SolveError
        If the solver does not reach an accurate optimum.
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    rep = represent(X, kernel)
    z, b, margins = solve_reduced(rep, y, w_max)
    return rep.to_w @ z, b, np.maximum(0.0, 1.0 - margins)


@dataclass(frozen=True)
class PeelingRun:
    """The result of one peeling run (Section 3.1 of Anguita et al. 2010).

    Attributes
    ----------
    lower : float
        Theorem 2's value ``(1/l) sum_{S_N} xi_k / 2`` at the last solve.
    upper : float
        Theorem 3's bound ``lower + |S_C| / l``.
    n_peeled : int
        ``|S_C|``, the critical support vectors removed.
    unpeeled_loss : float
        The soft loss ``(1/l) sum_S L_S`` of the first solve (no point removed): the "UL"
        estimate of the paper's Table 1.
    kept : ndarray of bool
        The mask of ``S_N``.
    z_first, b_first, z_last, b_last
        Reduced weights and bias of the first and of the last solve.
    """

    lower: float
    upper: float
    n_peeled: int
    unpeeled_loss: float
    kept: np.ndarray
    z_first: np.ndarray
    b_first: float
    z_last: np.ndarray
    b_last: float


def peel(rep: Representation, y, w_max) -> PeelingRun:
    """Run the peeling procedure on points in reduced coordinates (no input checks).

    Solve (9), remove the critical support vector (``y f(x) < -1``) with the smallest
    ``y f(x)``, and repeat until no kept point is critical.

    Tie rules. The paper's procedure is defined only when every solve of (9) has a unique
    optimum: where it has several (a flat stretch of the hinge loss in ``b``, or a ball larger
    than needed), different optima can have different critical points. The library fixes the
    rule as follows: the optimum is the one Clarabel returns from a cold start at the
    tolerance :data:`~svmtrust.qp.CONE_TOL` (deterministic for given data, but not characterised
    mathematically), and among critical points with equal margins the one with the lowest
    index is removed. Statements about what peeling does should be checked on problems whose
    optima are unique (:func:`optimal_set_widths`).
    """
    y, w_max = _check_rep(rep, y, w_max)
    l = len(y)
    kept = np.ones(l, dtype=bool)
    z, b, margins = _margins(rep, y, w_max, kept)
    first = (z, b, float(np.mean(soft_loss(margins))))
    while True:
        critical = kept & (margins < -1.0 - CRITICAL_TOL)
        if not critical.any():
            break
        kept[np.flatnonzero(critical)[np.argmin(margins[critical])]] = False
        z, b, margins = _margins(rep, y, w_max, kept)
    lower = float(np.sum(np.maximum(0.0, 1.0 - margins[kept]))) / (2.0 * l)
    n_peeled = int(l - kept.sum())
    return PeelingRun(
        lower, lower + n_peeled / l, n_peeled, first[2], kept, first[0], first[1], z, b
    )


def peeled_soft_loss_bounds(X, y, w_max, kernel=None):
    """Bounds on the minimum soft loss over the bounded-w class, by peeling.

    Theorem 2 of Anguita et al. (2010), eq. (10), gives ``lower = min_f (1/l) sum_{S_N} xi/2``
    and Theorem 3, eq. (11), ``upper = lower + |S_C| / l``, where ``S_C`` are the critical
    support vectors removed by peeling and ``S_N`` the rest. ``upper`` is always an upper bound
    of ``min_f (1/l) sum_i L_S``, since the last classifier attains it. ``lower`` is *not*
    always a lower bound: the equality in eq. (10) can fail when a rule does better on ``S_N``
    by making one of its points critical (see :func:`exact_min_soft_loss` and the chapter).

    Parameters
    ----------
    X, y, w_max, kernel
        As in :func:`fit_bounded_w`.

    Returns
    -------
    lower : float
    upper : float
    n_peeled : int
        ``|S_C|``.
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    run = peel(represent(X, kernel), y, w_max)
    return run.lower, run.upper, run.n_peeled


def delta_term(l: int, delta: float = DEFAULT_DELTA, classes: int = 1) -> float:
    """The confidence term ``3 sqrt(-log(delta / (2 M)) / (2 l))`` of eq. (5), ``M = classes``.

    With ``classes = 1`` this is eq. (5) of Anguita et al. (2010), for one class of functions
    fixed before the data are seen. A rule chosen among ``M`` such classes (a model-selection
    grid fixed in advance) is covered by the union bound: Theorem 1 at ``delta / M`` for each
    class holds for all of them at once with probability ``1 - delta``.
    """
    l = check_integer(l, "l")
    delta = check_significance(delta, "delta")
    classes = check_integer(classes, "classes")
    return 3.0 * float(np.sqrt(-np.log(delta / (2.0 * classes)) / (2.0 * l)))


@dataclass(frozen=True)
class DiscrepancyResult:
    """The maximal-discrepancy bound of eq. (5) for one training set.

    Attributes
    ----------
    md : ndarray of shape (n_shuffles,)
        ``MD^(j) = 1 - 2 nu'_j`` (eq. (7)). With ``bounded=True`` ``nu'_j`` is the peeled
        estimate of Theorem 2 (a lower bound only in the oracle reading, see
        :func:`peeled_soft_loss_bounds`; :func:`soft_loss_lower_bound` certifies one), so
        ``MD^(j) >= 0`` (Theorem 5); with ``bounded=False`` it is the
        soft loss of the plain bounded-w solution (the paper's "UL"). That is at most 1/2 too
        (``L_S <= xi / 2`` and ``sum xi <= l``, the value of ``w = 0, b = 0``), so UL's MD is
        also non-negative for an exact solution, up to the solver's tolerance.
    train_error : float
        The estimate of ``nu(f)``: Theorem 3's upper bound (``bounded=True``) or the soft loss
        of the plain solution (``bounded=False``).
    bound : float
        ``train_error + mean(md)``, eq. (5) without the delta term.
    delta_term : float
        ``3 sqrt(-log(delta/2) / (2 l))``.
    n_peeled : int
        Points peeled from the training set itself.
    n_peeled_shuffles : ndarray of int
        Points peeled in each flipped shuffle.
    w, b
        The classifier the bound is about: the last peeled solution (``bounded=True``) or the
        plain solution, as in :func:`fit_bounded_w`.
    bounded : bool
    w_max : float
    """

    md: np.ndarray
    train_error: float
    bound: float
    delta_term: float
    n_peeled: int
    n_peeled_shuffles: np.ndarray
    w: np.ndarray
    b: float
    bounded: bool
    w_max: float


def flipped_labels(y, rng: np.random.Generator) -> np.ndarray:
    """Labels of ``D'`` for one random shuffle, eq. (7).

    The shuffle puts a random half of the points first and eq. (7) flips the labels of that
    first half. Problem (9) does not depend on the order of the points, so the points keep
    their order and the labels of a random subset of ``l / 2`` of them are flipped.
    """
    flipped = check_binary_labels(y, "y").copy()
    rng = check_rng(rng)
    flipped[rng.permutation(len(y))[: len(y) // 2]] *= -1.0
    return flipped


def discrepancy_runs(rep: Representation, y, w_max, n_shuffles, rng):
    """Peel the training set and ``n_shuffles`` flipped copies.

    Returns
    -------
    train : PeelingRun
    shuffles : list of PeelingRun
    """
    y, w_max = _check_rep(rep, y, w_max)
    n_shuffles, rng = check_integer(n_shuffles, "n_shuffles"), check_rng(rng)
    return peel(rep, y, w_max), [
        peel(rep, flipped_labels(y, rng), w_max) for _ in range(n_shuffles)
    ]


def _check_even(l: int) -> None:
    if l % 2:
        raise ValueError(
            f"X: the maximal discrepancy splits the l examples of each shuffle into its first "
            f"l/2 and last l/2 (eq. (3)), so l must be even; got l = {l} (drop one example)"
        )


def maximal_discrepancy(
    X, y, w_max, n_shuffles=30, seed=0, bounded=True, kernel=None, delta=DEFAULT_DELTA
) -> DiscrepancyResult:
    """The maximal-discrepancy bound of Theorem 1, eq. (5), for the bounded-w SVM.

    Each of ``n_shuffles`` shuffles flips the labels of its first half, and
    ``MD = 1 - 2 min_f nu'(f)`` (eq. (7)) with ``min nu'`` replaced by the peeled estimate
    (Theorem 2; ``bounded=True``, the paper's "BL"; not a certified bound, see
    :func:`soft_loss_lower_bound`) or by the soft loss of the plain bounded-w
    solution (``bounded=False``, "UL").

    Parameters
    ----------
    X, y, w_max, kernel
        As in :func:`fit_bounded_w`; ``l`` must be even (the halves are the first and last
        ``l/2`` points of each shuffle).
    n_shuffles : int
        ``m``, the number of shuffles.
    seed : int or numpy.random.Generator
        Source of the shuffles.
    bounded : bool
        Peeled bounds (True) or the unpeeled soft loss (False).
    delta : float
        Confidence parameter of the delta term, in (0, 1).

    Returns
    -------
    DiscrepancyResult
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    _check_even(len(y))
    check_integer(n_shuffles, "n_shuffles")
    rng = check_rng(seed, "seed", seed_ok=True)
    check_bool(bounded, "bounded")
    check_significance(delta, "delta")
    rep = represent(X, kernel)
    train, shuffles = discrepancy_runs(rep, y, w_max, n_shuffles, rng)
    return summarise_runs(rep, train, shuffles, bounded, w_max, delta)


def _check_runs(rep, train, shuffles):
    """Validate the arguments of :func:`summarise_runs` that come from :func:`discrepancy_runs`."""
    _require_rep(rep)
    if not isinstance(train, PeelingRun):
        raise ValueError(f"train: expected a PeelingRun, got {type(train).__name__}")
    if not shuffles or not all(isinstance(s, PeelingRun) for s in shuffles):
        raise ValueError("shuffles: expected a non-empty list of PeelingRun")


def summarise_runs(
    rep, train: PeelingRun, shuffles, bounded: bool, w_max: float, delta: float = DEFAULT_DELTA
) -> DiscrepancyResult:
    """Assemble eq. (5) from the peeling runs of :func:`discrepancy_runs`."""
    _check_runs(rep, train, shuffles)
    bounded, w_max = check_bool(bounded, "bounded"), check_positive(w_max, "w_max")
    if bounded:
        md = np.array([1.0 - 2.0 * s.lower for s in shuffles])
        train_error, z, b = train.upper, train.z_last, train.b_last
    else:
        md = np.array([1.0 - 2.0 * s.unpeeled_loss for s in shuffles])
        train_error, z, b = train.unpeeled_loss, train.z_first, train.b_first
    return DiscrepancyResult(
        md=md,
        train_error=train_error,
        bound=train_error + float(np.mean(md)),
        delta_term=delta_term(len(train.kept), delta),
        n_peeled=train.n_peeled,
        n_peeled_shuffles=np.array([s.n_peeled for s in shuffles]),
        w=rep.to_w @ z,
        b=b,
        bounded=bounded,
        w_max=w_max,
    )


#: Largest ``l`` that :func:`exact_min_soft_loss` accepts (it solves ``2^l`` problems).
EXACT_MAX_L = 12


def exact_min_soft_loss(X, y, w_max, kernel=None) -> float:
    """The exact ``min_f (1/l) sum_i L_S(f(x_i), y_i)`` over the bounded-w class, by enumeration.

    Since ``L_S = min(xi, 2) / 2`` with ``xi`` the hinge loss, the minimum over ``f`` equals the
    minimum over every set ``T`` of points "capped" at loss 1 of the convex problem
    ``|T| + min_f sum_{i not in T} xi_i / 2``: for the best ``T`` the capped points pay at least
    what the soft loss charges them, and the rest pay exactly. ``2^l`` convex problems, so
    ``l <= EXACT_MAX_L``.

    Parameters
    ----------
    X : array_like of shape (l, d), ``l <= EXACT_MAX_L``
    y : array_like of shape (l,), labels in {-1, +1}
    w_max : float
    kernel : callable, optional
        As in :func:`fit_bounded_w`.

    Returns
    -------
    float
        The minimum soft loss, averaged over the ``l`` points.
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    l = len(y)
    if l > EXACT_MAX_L:
        raise ValueError(f"X: enumeration needs l <= {EXACT_MAX_L}, got l = {l}")
    rep = represent(X, kernel)
    best = np.inf
    for code in range(2**l):
        kept = ((code >> np.arange(l)) & 1) == 0
        capped = l - int(kept.sum())
        if capped >= best:
            continue
        _, _, margins = _margins(rep, y, w_max, kept.astype(float))
        best = min(best, capped + float(np.sum(np.maximum(0.0, 1.0 - margins[kept]))) / 2.0)
    return best / l


class EnvelopeProblem:
    """The convex problem of :func:`soft_loss_lower_bound` over ``l`` points, compiled once.

    With ``A = diag(y) (Phi - mean(Phi))`` (centred reduced coordinates) the problem solved is::

        min  sum_i v_i xi_i   s.t.  ||u|| <= 1,  |b| <= B,  w_max A u + y b >= 1 - xi,  xi >= 0,

    with the weights ``v_i = 1 / (1 + M_i)`` of the envelope. Every datum is a cvxpy Parameter
    and the problem is DPP, so cvxpy compiles it once per size.

    Parameters
    ----------
    l : int
        Number of points, and of reduced coordinates (padded with zeros as in
        :class:`BoundedWProblem`).
    """

    def __init__(self, l: int):
        self.l = l = check_integer(l, "l")
        self.A = cp.Parameter((l, l))
        self.y = cp.Parameter(l)
        self.v = cp.Parameter(l, nonneg=True)
        self.B = cp.Parameter(nonneg=True)
        self.u, self.b, self.xi = cp.Variable(l), cp.Variable(), cp.Variable(l, nonneg=True)
        constraints = [
            cp.norm(self.u, 2) <= 1.0,
            cp.abs(self.b) <= self.B,
            self.A @ self.u + cp.multiply(self.y, self.b) >= 1.0 - self.xi,
        ]
        self.problem = cp.Problem(cp.Minimize(self.v @ self.xi), constraints)

    def solve(self, A, y, v, B) -> float:
        """Optimal value for the data ``A`` (already scaled by ``w_max``), ``y``, ``v``, ``B``.

        Returns
        -------
        value : float
            The optimal value ``sum_i v_i xi_i``.
        tol : float
            The solver tolerance reached (:data:`~svmtrust.qp.CONE_TOL`, or Clarabel's default
            after a retry, see :func:`~svmtrust.qp.solve`).

        Raises
        ------
        ValueError
            Naming the argument: ``A`` not a finite (l, r) matrix with ``r <= l``, ``y`` not
            l labels in {-1, +1}, ``v`` not l values at least 0, ``B`` not positive.
        SolveError
            If Clarabel ends with a status other than optimal.
        """
        A, y = _check_factor(A, "A", self.l), _check_signs(y, self.l)
        v, B = _check_weights(v, "v", self.l), check_positive(B, "B")
        self.A.value, self.y.value, self.v.value, self.B.value = _pad(A, self.l), y, v, float(B)
        tol = qp.solve(self.problem, "envelope problem", qp.CONE_TOL)
        return float(self.problem.value), tol


def envelope_lower_bound(rep: Representation, y, w_max) -> float:
    """:func:`soft_loss_lower_bound` on points in reduced coordinates."""
    y, w_max = _check_rep(rep, y, w_max)
    l = rep.phi.shape[0]
    centred = rep.phi - rep.phi.mean(axis=0)
    dist = np.sqrt(np.sum(centred**2, axis=1))  # ||phi(x_i) - c||, c the centroid
    B = w_max * dist.max() + 1.0  # the bias range that loses nothing
    M = w_max * dist + B  # |f(x_i)| <= M_i
    v = 1.0 / (1.0 + M)  # slope of the envelope on [-M_i, 1]
    value, tol = _compiled(EnvelopeProblem, l).solve(w_max * y[:, None] * centred, y, v, B)
    # The solver's value may exceed the true minimum by its gap tolerance: subtract a margin
    # of ten times that tolerance (absolute and relative) so that the result stays a bound.
    return max(0.0, (value - 10.0 * tol * (1.0 + abs(value))) / l)


def soft_loss_lower_bound(X, y, w_max, kernel=None) -> float:
    """A certified lower bound on ``min_f (1/l) sum_i L_S(y_i f(x_i))`` over the bounded-w class.

    Theorem 2 of Anguita et al. (2010), eq. (10), is not a bound for the set that peeling
    finds. This bound holds for every data set. Write ``f(x) = w.(x - c) + b'`` with ``c`` the
    centroid of the points (in feature space with a kernel), ``d_i = ||x_i - c||``,
    ``R = max_i d_i``, ``||w|| <= w_max``.

    1. *Bias range.* If ``|b'| > B = w_max R + 1``, every ``f(x_i)`` has the sign of ``b'`` and
       ``|f(x_i)| > 1``, so every margin is above 1 or below -1 and every soft loss is 0 or 1;
       moving ``b'`` to ``sign(b') B`` keeps all of them. So the minimum over ``|b'| <= B``
       equals the minimum over all ``b'``.
    2. *Margin range.* Then ``|y_i f(x_i)| <= M_i = w_max d_i + B`` (``>= 1``).
    3. *Envelope.* On ``[-M, M]`` with ``M >= 1`` the largest convex function below the soft
       loss of eq. (2) is ``[1 - m]_+ / (1 + M)``: the chord from ``(-M, 1)`` to ``(1, 0)``,
       which lies below the hinge piece ``(1 - m) / 2`` on ``[-1, 1]`` and below 1 on
       ``[-M, -1]``, then 0.

    Hence ``min_f (1/l) sum_i L_S >= min_{||w|| <= w_max, |b'| <= B} (1/l) sum_i
    [1 - y_i f(x_i)]_+ / (1 + M_i)``, a convex problem (a weighted bounded-w SVM, formulation
    (9) with weights), solved with cvxpy and Clarabel. The solver's gap tolerance is
    subtracted from its value, and the result is clipped at 0.

    Parameters
    ----------
    X, y, w_max, kernel
        As in :func:`fit_bounded_w`.

    Returns
    -------
    float
        A lower bound on the minimum soft loss (averaged over the ``l`` points).

    Raises
    ------
    ValueError
        On bad input (the message names the argument).
    SolveError
        If the solver does not reach an accurate optimum.
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    return envelope_lower_bound(represent(X, kernel), y, w_max)


def optimal_set_widths(X, y, w_max, slack=1e-7) -> np.ndarray:
    """How far the optima of the linear bounded-w SVM (9) spread, coordinate by coordinate.

    Solve (9) for its value ``p*``, then minimise and maximise ``b`` and each ``w_j`` over the
    near-optimal set ``{sum_i xi_i <= p* + slack (1 + p*)}``. Widths of order ``slack`` or
    ``sqrt(slack)`` (the ball is curved) mean a unique optimum; a width of order 1 means that
    (9) has several optima, and then the points peeling removes depend on which optimum the
    solver returns.

    Parameters
    ----------
    X, y, w_max
        As in :func:`fit_bounded_w` (linear machine, problem solved in the original
        coordinates, ``2 (d + 1) + 1`` solves: for small ``d``).
    slack : float
        Relative and absolute slack on the optimal value.

    Returns
    -------
    ndarray of shape (d + 1,)
        ``max - min`` of ``b``, ``w_1``, ..., ``w_d`` over the near-optimal set.
    """
    X, y, w_max = _check_inputs(X, y, w_max)
    slack = check_positive(slack, "slack")
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    xi = cp.Variable(len(y), nonneg=True)
    feasible = [cp.norm(w, 2) <= w_max, cp.multiply(y, X @ w + b) >= 1 - xi]

    def _solve(objective, constraints):
        problem = cp.Problem(objective, constraints)
        qp.solve(problem, "optimal_set_widths", qp.CONE_TOL)
        return float(problem.value)

    best = _solve(cp.Minimize(cp.sum(xi)), feasible)
    near = feasible + [cp.sum(xi) <= best + slack * (1.0 + best)]
    coords = [b] + [w[j] for j in range(X.shape[1])]
    return np.array([_solve(cp.Maximize(c), near) - _solve(cp.Minimize(c), near) for c in coords])
