"""The optimal face of a box-constrained quadratic program, and its minimum-norm point.

The SVM dual is one instance of the quadratic program

    minimise    q(x) = 1/2 x^T A x + c^T x
    subject to  a^T x = d,   0 <= x_i <= u,                                    (P)

with ``A`` symmetric positive semi-definite, ``a`` in {-1, +1}^n and a common bound ``u``
(``numpy.inf`` for none). Its objective is convex but not strictly, so (P) can have a whole face
of optima: the SVM with duplicated examples, or with optimum ``w = 0``. Three facts (Mangasarian
1988; proved in the SVM chapter, Theorem "One optimum per bag"):

1. ``A x`` and ``c^T x`` take the same value at every optimum ``x``.
2. With one optimum ``x*`` and a multiplier ``nu`` of the equality constraint, the reduced
   gradient ``r = A x* + c + nu a`` is the same at every optimum; every optimum has ``x_i = 0``
   where ``r_i > 0`` and ``x_i = u`` where ``r_i < 0``. Only the set ``M = {i : r_i = 0}`` (for
   the SVM: the examples on the margin) can move.
3. The optimal set is ``F = {x feasible : x = x* off M, A_MM (x - x*)_M = 0, a_M^T (x - x*)_M = 0}``.

The canonical optimum is the point of ``F`` of smallest Euclidean norm (:func:`canonical_optimum`).
It is unique (a strictly convex function on a non-empty compact convex set), it depends on the
problem only (not on the optimum a solver happened to return), it is equivariant under
permutations of the indices, and two identical indices (equal columns of ``A`` and equal ``c_i``
and ``a_i``) get equal values, since swapping them maps ``F`` to itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
import scipy.linalg.lapack
import scipy.optimize
import scipy.sparse
import scipy.sparse.csgraph

from . import qp
from .validation import check_array, check_C, check_kernel_matrix, check_positive

__all__ = [
    "FaceOptimum",
    "canonical_optimum",
    "equality_multiplier",
    "identical_groups",
]

#: Reduced gradients within this fraction of the gradient's scale (``max_i sum_j |A_ij x_j|``,
#: before terms cancel) count as zero: the rounding of a gradient, a few thousand times the
#: machine epsilon, so that an exact optimum passes and a KKT violation a solver leaves does not.
EXACT_TOL = 64 * np.finfo(float).eps

#: Singular values of a bordered system below this fraction of the largest count as zero. Copies
#: of one example make the system exactly singular, but rounding leaves singular values near
#: 1e-16 that a smaller cut-off would divide by, sending the step along the copies' difference.
RANK_TOL = 1e-12

#: Rounds of :func:`_block_pivots` before the active-set method moves one index at a time.
BLOCK_ROUNDS = 20

#: A linear system counts as solved when its residual is within this fraction of its scale;
#: an inconsistent one (a singular block with its right-hand side outside the range) misses
#: by a fraction of order one.
SOLVE_TOL = 1e-9

#: Smallest tolerance of :func:`canonical_optimum` for a zero reduced gradient (relative to the
#: gradient's scale): what Clarabel and libsvm's accurate solves reach on the book's problems.
FACE_TOL = 1e-8

#: Relative accuracy, to the largest multiplier, that an exact optimum's multipliers must have.
#: A multiplier solved from a system of condition number ``kappa`` carries the margins' rounding
#: (:data:`EXACT_TOL` of their terms) times ``kappa``: on an RBF kernel with gamma 2^-15 on
#: eight binary vectors at C = 8192, ``kappa`` near 1e9 left multipliers that moved by 1e-5 of
#: the largest when the rows were reordered, every KKT condition holding to 1e-9.
MULTIPLIER_TOL = 1e-8

#: A face counts as one point, and its multipliers as decided, when its bordered matrix has a
#: reciprocal condition number above this, ``EXACT_TOL / MULTIPLIER_TOL`` (:func:`_one_point`:
#: the margins' rounding times the condition number stays within ``MULTIPLIER_TOL``); below it
#: the face's directions are computed (:func:`_rank_ambiguous` judges them).
ONE_POINT_RCOND = EXACT_TOL / MULTIPLIER_TOL

#: Relative tolerance on the squared distance ``A_ii + A_jj - 2 A_ij`` under which two indices
#: are identical (:func:`identical_groups`): copies of one example differ only by rounding.
IDENTICAL_TOL = 1e-10

#: An eigenvalue of a face's block above the rounding cut-off of :func:`_null_directions` but
#: within this factor of it may be a zero that rounding lifted, or a true curvature that
#: rounding nearly erased: the face's extent, and so the canonical point, is then not decided
#: by the stored matrix to ``MULTIPLIER_TOL`` (the face's directions carry an error of the cut
#: over the smallest eigenvalue kept), and the answer is not exact (:func:`_rank_ambiguous`).
RANK_AMBIGUITY = 1.0 / MULTIPLIER_TOL


class _SignedGram:
    """``A = diag(s) K diag(s)`` of (P) without forming it: the SVM dual's matrix (``s = y``).

    Holds ``K`` and the signs ``s`` and offers what the methods here ask of ``A``: the product
    ``A @ x = s * (K (s * x))`` (:func:`sparse_product`, over the columns where ``x`` is not
    zero), the diagonal (that of ``K``, as ``s_i^2 = 1``) and blocks ``A[np.ix_(I, J)]``, each
    entry ``K_ij s_i s_j`` as a formed ``A`` would hold it. So an SVM's canonical step adds no
    ``n x n`` matrix to the kernel's.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A checked Gram matrix (trusted: private callers pass the one their door checked).
    s : ndarray of shape (n,)
        Signs, -1 or +1.
    """

    __slots__ = ("K", "s")

    def __init__(self, K, s):
        self.K, self.s = K, s

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, n)``."""
        return self.K.shape

    def diagonal(self) -> np.ndarray:
        """``diag(A) = diag(K)``."""
        return self.K.diagonal()

    def __matmul__(self, x) -> np.ndarray:
        return self.s * sparse_product(self.K, self.s * x)

    def __getitem__(self, index) -> np.ndarray:
        rows, columns = index
        return self.K[rows, columns] * (self.s[rows] * self.s[columns])


class FaceOptimum:
    """The canonical optimum of (P) and the indices of its face.

    Attributes
    ----------
    x : ndarray of shape (n,)
        The minimum-norm optimum.
    multiplier : float
        ``nu``, the multiplier of ``a^T x = d`` (for the SVM, the bias ``b``).
    on_face : ndarray of int
        ``M``: the indices with zero reduced gradient (for the SVM, the examples on the margin),
        whatever their value, and any index at a bound whose reduced gradient has the other
        sign (:func:`_held`).
    exact : bool
        True when ``x`` solves the optimality conditions to rounding (a bordered linear solve);
        False when it keeps the accuracy of the optimum it started from.
    """

    __slots__ = ("x", "multiplier", "on_face", "exact")

    def __init__(self, x, multiplier, on_face, exact):
        self.x, self.multiplier, self.on_face, self.exact = x, multiplier, on_face, exact


def equality_multiplier(gradient, a, free, at_upper) -> float:
    """The multiplier ``nu`` of ``a^T x = d`` from the KKT conditions of (P).

    With ``r = gradient + nu a``: a free index (``0 < x_i < u``) needs ``r_i = 0``, so
    ``nu = -a_i gradient_i`` (``a_i`` is +-1), and ``nu`` is their mean; without free indices
    each index only bounds ``nu`` (``r_i >= 0`` at 0, ``r_i <= 0`` at ``u``) and ``nu`` is the
    midpoint of the feasible interval (for the SVM, Chang & Lin 2011, Sec. 4.1.5).

    Parameters
    ----------
    gradient : ndarray of shape (n,)
        ``A x + c``.
    a : ndarray of shape (n,)
        The equality's coefficients, each -1 or +1.
    free, at_upper : ndarray of bool, shape (n,)
        The indices strictly inside the box, and those at ``u``; the others are at 0.

    Returns
    -------
    float
    """
    gradient = check_array(gradient, "gradient", ndim=1)
    a = _check_signs(a, gradient.size)
    free, at_upper = _check_mask(free, "free", a.size), _check_mask(at_upper, "at_upper", a.size)
    return _equality_multiplier(gradient, a, free, at_upper)


def _equality_multiplier(gradient, a, free, at_upper) -> float:
    """:func:`equality_multiplier` of checked arguments (the library's solvers call this one)."""
    value = -a * gradient
    if np.any(free):
        return float(np.mean(value[free]))
    lower = value[~free & ((a > 0) != at_upper)]  # r_i >= 0 at 0 with a_i = +1, ...
    upper = value[~free & ((a > 0) == at_upper)]
    if lower.size and upper.size:
        return float((np.max(lower) + np.min(upper)) / 2.0)
    return float(np.max(lower) if lower.size else np.min(upper))


def identical_groups(A, a, tol: float = IDENTICAL_TOL) -> np.ndarray:
    """Group label of every index; indices share a group when they are the same point.

    Indices ``i`` and ``j`` are the same point when ``a_i = a_j`` and the squared distance of
    their feature vectors, ``A_ii + A_jj - 2 a_i a_j A_ij`` for ``A = diag(a) K diag(a)``, is at
    most ``tol * max(diag(A))``.

    Parameters
    ----------
    A : ndarray of shape (m, m)
        Positive semi-definite.
    a : ndarray of shape (m,)
        Signs, -1 or +1.
    tol : float

    Returns
    -------
    ndarray of int, shape (m,)
        Group labels ``0, ..., n_groups - 1``, numbered in order of first appearance.
    """
    A = check_kernel_matrix(A, "A", full=False)
    return _identical_groups(A, _check_signs(a, A.shape[0]), check_positive(tol, "tol"))


def _identical_groups(A, a, tol: float = IDENTICAL_TOL) -> np.ndarray:
    """:func:`identical_groups` of checked arguments."""
    diag = np.diag(A)
    same_sign = a[:, None] == a[None, :]
    distance = diag[:, None] + diag[None, :] - 2.0 * A * (a[:, None] * a[None, :])
    same = same_sign & (
        distance <= tol * max(float(np.max(diag, initial=0.0)), np.finfo(float).tiny)
    )
    _, labels = scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(same))
    _, first, order = np.unique(labels, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[order]


def _active_set_optimum(A, c, a, d, u, x, max_iter: int | None = None):
    """An optimum of (P) exact to rounding, by a primal active-set method from the approximate ``x``.

    The indices at a bound form the working set; the others are free. Each iteration takes the
    Newton step of the free values for the equality-constrained problem (the bordered system of
    :func:`_step`), shortened at the first bound it meets (which joins the working set); when the
    free values are optimal, the index of the working set whose reduced gradient has the wrong
    sign the most leaves it; when none has, the point meets every KKT condition and is returned.
    Where the free block of ``A`` is singular and the Newton system has no solution, the step
    follows a direction of descent along the null space until a bound stops it (Nocedal & Wright
    2006, Algorithm 16.3). From a solver's answer the working set is nearly right and a few
    iterations reach the optimum exactly; the linear algebra, not the solver, then sets the
    digits, at any scale of the problem.

    Parameters
    ----------
    A, c, a, d, u
        Problem (P).
    x : ndarray of shape (n,)
        An approximate optimum.
    max_iter : int, optional
        Iterations allowed (default ``10 n + 10``).

    Returns
    -------
    x : ndarray of shape (n,)
        The optimum, or the last iterate when the method did not end; when it ran out of
        iterations (cycling on a degenerate face) at a point that fails the KKT conditions, the
        point one round of :func:`_block_pivots` reaches from there if that one meets them.
    exact : bool
        Whether ``x`` meets every KKT condition to :data:`EXACT_TOL` of the gradient's scale
        at ``x`` (:func:`_gradient_scale`, computed afresh at every test: a scale taken at a
        poor start, whose terms can be many orders larger than the optimum's, would let a
        point far from optimal pass).
    """
    x = np.clip(np.asarray(x, dtype=float), 0.0, u)
    lower, upper = x <= 0.0, x >= u
    x[lower], x[upper] = 0.0, u
    x, lower, upper, exact = _block_pivots(A, c, a, d, u, x, lower, upper)
    if exact:
        return x, True
    lost = 0
    for _ in range(10 * x.size + 10 if max_iter is None else max_iter):
        free = ~(lower | upper)
        gradient = A @ x + c
        step = _step(A, a, gradient, d - a @ x, free, upper)
        if step is None:  # the free block's system is too ill-conditioned for a step; the
            return x, _meets_kkt_exactly(A, c, a, u, x, gradient)  # point may be optimal already
        p, nu, descent = step
        # a step below SOLVE_TOL of x is the noise of an ill-conditioned free block (copies):
        # the conditions below decide, and apply it if the free indices still need it
        if descent or np.max(np.abs(p), initial=0.0) > SOLVE_TOL * max(np.max(x), 1e-300):
            x, block = _advance(x, p, free, u, np.inf if descent else 1.0)
            if block is None and descent:
                return x, False  # unbounded below: no finite optimum
            if block is not None:
                lower[block], upper[block] = x[block] == 0.0, x[block] == u
            continue
        r = gradient + nu * a
        wrong = np.where(lower, -r, np.where(upper, r, 0.0))
        worst = int(np.argmax(wrong))
        tol = EXACT_TOL * _gradient_scale(A, c, x)
        if np.any(np.abs(r[free]) > tol):  # the step lost the digits that matter: again
            x = x.copy()
            x[free] += p
            x = np.clip(x, 0.0, u)
            lost += 1
            if lost > 3:
                return x, False
            continue
        if wrong[worst] <= tol:
            return x, True
        lower[worst] = upper[worst] = False
    # out of iterations (cycling on a near-singular kernel): the point may be optimal anyway;
    # if not, the block moves of _block_pivots from it (collinear points under a linear kernel
    # cycled here with another BLAS's last bits, 2.7 EXACT_TOL from optimal, and one block
    # move from that point met every KKT condition)
    if _meets_kkt_exactly(A, c, a, u, x, A @ x + c):
        return x, True
    moved, _, _, exact = _block_pivots(A, c, a, d, u, x, x <= 0.0, x >= u)
    return (moved, True) if exact else (x, False)


def _meets_kkt_exactly(A, c, a, u, x, gradient) -> bool:
    """Whether ``x`` meets every KKT condition of (P) to :data:`EXACT_TOL` of the gradient's
    scale at ``x``, with the multiplier of :func:`equality_multiplier`."""
    inside = (x > 0) & (x < u)
    r = gradient + _equality_multiplier(gradient, a, inside, x >= u) * a
    violation = np.where(inside, np.abs(r), np.where(x <= 0, -r, r))
    return bool(np.max(violation, initial=0.0) <= EXACT_TOL * _gradient_scale(A, c, x))


def _block_pivots(A, c, a, d, u, x, lower, upper, rounds: int = BLOCK_ROUNDS):
    """Moves of many indices at once (a primal-dual active-set method), from a solver's split.

    Each round solves the free values exactly; every free value outside the box goes to the
    bound it crossed, and every index at a bound whose reduced gradient has the wrong sign
    becomes free. From a solver's answer the split is nearly right and a few rounds end with every
    KKT condition met; this method can cycle, so it stops after ``rounds`` rounds and
    :func:`_active_set_optimum` continues one move at a time. Returns the point, the two sets and
    whether the point is exact.
    """
    lower, upper = lower.copy(), upper.copy()
    for _ in range(rounds):
        free = ~(lower | upper)
        gradient = A @ x + c
        step = _step(A, a, gradient, d - a @ x, free, upper)
        if step is None or step[2]:
            break
        p, nu, _ = step
        trial = x.copy()
        trial[free] += p
        below, above = free & (trial < 0.0), free & (trial > u)
        r = A @ trial + c + nu * a
        tol = EXACT_TOL * _gradient_scale(A, c, np.clip(trial, 0.0, u))
        wrong = (lower & (r < -tol)) | (upper & (r > tol))
        # a step from far away can lose the optimum's own digits (a gradient of 1e16 cancelled
        # to reach one of 1): the free indices' conditions are checked, not assumed
        unsolved = np.any(np.abs(r[free]) > tol)
        if not (below.any() or above.any() or wrong.any() or unsolved):
            return np.clip(trial, 0.0, u), lower, upper, True
        if below.any() or above.any():  # keep x feasible: only the bounds move this round
            lower |= below
            upper |= above
            x = np.clip(trial, 0.0, u)
            x[lower], x[upper] = 0.0, u
        else:
            x = trial
        lower &= ~wrong
        upper &= ~wrong
    return x, lower, upper, False


def sparse_product(A, x) -> np.ndarray:
    """``A @ x`` of a symmetric ``A`` (every matrix here is) from the rows where ``x`` is not
    zero (the support vectors), ``x_S^T A_S``, or from all of ``A`` when they are more than an
    eighth. A copy of a few rows, contiguous in memory, is cheaper than reading the whole
    matrix; a copy of columns is not (at n = 6400 and 1413 support vectors: rows 55 ms,
    columns 256 ms, the whole matrix 35 ms; at 400 support vectors 5, 53 and 36 ms)."""
    nonzero = np.flatnonzero(x)
    if 8 * nonzero.size >= x.size:
        return A @ x
    return x[nonzero] @ A[nonzero]


def _gradient_scale(A, c, x) -> float:
    """:func:`_gradient_scale_of` of ``A``'s diagonal, ``max |c|`` and ``x``."""
    return _gradient_scale_of(A.diagonal(), float(np.max(np.abs(c), initial=0.0)), x)


def _gradient_scale_of(diagonal, c_max: float, x) -> float:
    """``max(sqrt(max diag A) (sqrt(diag A)^T |x|), max |c|)``: a bound on the size of the
    gradient's terms ``|A| |x|`` before they cancel (``|A_ij| <= sqrt(A_ii A_jj)`` for a
    positive semi-definite ``A``), the unit of every tolerance, in O(n) rather than a pass over
    ``A``. Taken at the point being judged, never at a start far from it.

    Parameters
    ----------
    diagonal : ndarray of shape (n,)
        ``diag(A)`` (for the SVM, ``diag(K)``).
    c_max : float
        ``max_i |c_i|`` (1 for the SVM).
    x : ndarray of shape (n,)

    Returns
    -------
    float
    """
    root = np.sqrt(np.maximum(diagonal, 0.0))
    terms = float(np.max(root, initial=0.0)) * float(root @ np.abs(x))
    return max(terms, c_max, np.finfo(float).tiny)


def _step(A, a, gradient, residual, free, upper):
    """The step of the free values: ``(p, nu, descent)``, or ``None`` on numerical failure.

    The Newton step solves ``[[A_FF, a_F], [a_F^T, 0]] [p; nu] = [-gradient_F; residual]``
    (``residual = d - a^T x`` restores the equality), in the least-squares sense of smallest
    norm. When that system has no solution, ``A_FF`` is singular and the objective falls
    linearly along its null space: the step is then the steepest such direction
    (``descent=True``). With no free index the step is empty and ``nu`` is
    :func:`equality_multiplier`'s.
    """
    F = np.flatnonzero(free)
    if F.size == 0:
        return np.zeros(0), _equality_multiplier(gradient, a, free, upper), False
    solved = _bordered_solve(A[np.ix_(F, F)], a[F], -gradient[F], residual)
    if solved is not None:
        return solved[0], solved[1], False
    N = _null_directions(A[np.ix_(F, F)], a[F])
    p = -N @ (N.T @ gradient[F])
    if N.shape[1] == 0 or np.max(np.abs(p)) <= SOLVE_TOL * np.max(np.abs(gradient[F])):
        return None
    return p, 0.0, True


def _bordered_solve(A_FF, a_F, rhs_top, rhs_last):
    """Least-squares solution of smallest norm of ``[[A_FF, a_F], [a_F^T, 0]] [p; nu] =
    [rhs_top; rhs_last]``; ``None`` when the residual exceeds :data:`SOLVE_TOL` of the scale.

    ``nu`` is the same at every solution when there is one (the chapter's proof), so the
    solution of smallest norm is the one of smallest ``||p||``.
    """
    # The border is scaled like A_FF (unknown nu / sigma), so that the least-squares cut-off of
    # small singular values does not drop it when A_FF is far from 1 in size. A zero block
    # (every index of F at the origin of the feature space) keeps the border as it is: scaled
    # to nothing, the equality's residual would pass any test.
    system, sigma = _bordered_matrix(A_FF, a_F)
    rhs = np.r_[rhs_top, sigma * rhs_last]
    try:  # a non-singular system (the usual case) by a symmetric factorisation, cheaply
        with warnings.catch_warnings():
            warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
            solution = scipy.linalg.solve(system, rhs, assume_a="sym")
    except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
        solution, *_ = scipy.linalg.lstsq(system, rhs, cond=RANK_TOL, lapack_driver="gelsd")
    size = max(float(np.max(np.abs(rhs))), float(np.max(np.abs(system) @ np.abs(solution))), 1e-300)
    if np.max(np.abs(system @ solution - rhs)) > SOLVE_TOL * size:
        return None
    return solution[:-1], sigma * float(solution[-1])


def _bordered_matrix(A_FF, a_F):
    """``[[A_FF, sigma a_F], [sigma a_F^T, 0]]`` and ``sigma``: the border scaled like
    ``A_FF`` (its largest entry, or 1 for a zero block; see :func:`_bordered_solve`)."""
    sigma = float(np.max(np.abs(A_FF)))
    sigma = sigma if sigma > 0 else 1.0
    system = np.block([[A_FF, sigma * a_F[:, None]], [sigma * a_F[None, :], np.zeros((1, 1))]])
    return system, sigma


def _advance(x, p, free, u, limit):
    """Move the free values along ``p`` by the largest step ``<= limit`` that keeps the box;
    return the new point and the index that stopped it (set exactly on its bound), or ``None``."""
    F = np.flatnonzero(free)
    move = p[: F.size]
    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(move < 0, x[F] / -move, np.where(move > 0, (u - x[F]) / move, np.inf))
    room = np.maximum(room, 0.0)
    first = int(np.argmin(room)) if F.size else 0
    t = min(limit, float(room[first])) if F.size else limit
    x = x.copy()
    if not np.isfinite(t):
        return x, None
    x[F] = x[F] + t * move
    if t < limit:
        block = int(F[first])
        x[block] = 0.0 if move[first] < 0 else u
        return np.clip(x, 0.0, u), block
    return np.clip(x, 0.0, u), None


def _null_directions(A_FF, a_F, eig=None) -> np.ndarray:
    """Orthonormal basis of ``{v : A_FF v = 0, a_F^T v = 0}`` (eigenvalues of ``A_FF`` up to the
    rounding of an eigendecomposition count as zero); ``eig``: ``A_FF``'s eigendecomposition
    when the caller has it."""
    eigvals, eigvecs = np.linalg.eigh(A_FF) if eig is None else eig
    null = eigvecs[:, eigvals <= _rounding_cut(eigvals)]
    if null.shape[1] == 0:
        return null
    coupling = a_F @ null
    if np.max(np.abs(coupling)) <= _coupling_tol(a_F, eigvals, 1e-12):
        return null
    # The complement of the one direction of the null space that changes a^T v.
    _, _, vt = np.linalg.svd(coupling[None, :])
    return null @ vt[1:].T


def _check_signs(a, n: int) -> np.ndarray:
    """``a`` as n signs -1 or +1 (a ``ValueError`` naming ``a``)."""
    a = check_array(a, "a", ndim=1)
    if a.size != n or not np.all(np.abs(a) == 1.0):
        raise ValueError(f"a: expected {n} signs, each -1 or +1")
    return a


def _check_mask(mask, name: str, n: int) -> np.ndarray:
    """``mask`` as a boolean vector of length ``n`` (a ``ValueError`` naming it)."""
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != (n,):
        raise ValueError(f"{name}: expected a boolean array of shape ({n},)")
    return mask


def _check_problem(A, c, a, d, u, x):
    """Problem (P) and a point of it, checked: shapes, finite values, signs, ``u > 0``."""
    A = check_kernel_matrix(A, "A", full=False)
    n = A.shape[0]
    c = check_array(c, "c", ndim=1)
    if c.size != n:
        raise ValueError(f"c: has {c.size} entries for a {n} x {n} matrix A")
    a = _check_signs(a, n)
    d = float(check_array([d], "d", ndim=1)[0])
    try:
        u = check_C(u)
    except ValueError:
        raise ValueError(f"u: must be positive (numpy.inf for no bound), got {u!r}") from None
    x = check_array(x, "x", ndim=1)
    if x.size != n:
        raise ValueError(f"x: has {x.size} entries for a {n} x {n} matrix A")
    if np.any(x < 0) or np.any(x > u):
        raise ValueError("x: must lie in the box 0 <= x_i <= u")
    if abs(a @ x - d) > SOLVE_TOL * max(abs(d), float(np.sum(x)), 1.0):
        raise ValueError(
            f"x: must meet a^T x = d (a feasible start), a^T x - d = {float(a @ x - d)!r}"
        )
    return A, c, a, d, u, x


def canonical_optimum(A, c, a, d, u, x, tol: float = FACE_TOL) -> FaceOptimum:
    """The minimum-norm point of the optimal face of (P), from any approximate optimum ``x``.

    Steps: (i) an exact optimum by :func:`_active_set_optimum`; (ii) the face ``M``: every index
    but those a reduced gradient of their bound's sign holds at it, read at the optimum refined
    by one more Newton step (:func:`_polished_optimum`, :func:`_held`: beyond
    :data:`EXACT_TOL`, or, when (i) did not end, beyond ``tol`` or ten times the KKT violation
    of ``x``, whichever is larger); (iii) the point of smallest
    norm among the optima, computed on the face alone (:func:`_minimum_norm_on_face`: the face's
    directions, an exact active-set projection from ``x``, the bounds it reaches then held
    exactly). Finally identical indices of ``M`` get their group's mean, equal to the last bit.

    Parameters
    ----------
    A : ndarray of shape (n, n)
    c, a : ndarray of shape (n,)
    d, u : float
    x : ndarray of shape (n,)
        An approximate optimum, feasible: in the box and meeting ``a^T x = d`` to
        :data:`SOLVE_TOL` of its size (a ``ValueError`` naming ``x`` otherwise; a problem with no
        feasible point has no such start, so it is refused too).
    tol : float
        Smallest relative tolerance of step (ii) when step (i) does not end.

    Returns
    -------
    FaceOptimum
    """
    return face_optimum(*_check_problem(A, c, a, d, u, x), tol=check_positive(tol, "tol"))


def face_optimum(A, c, a, d, u, x, tol: float = FACE_TOL) -> FaceOptimum:
    """:func:`canonical_optimum` for a problem already checked (the SVM's fits call it on the
    matrix they validated; every step reads ``A`` a few times, so a second check would cost as
    much as the step)."""
    x = np.clip(x, 0.0, u)
    x, exact = _active_set_optimum(A, c, a, d, u, x)
    scale = _gradient_scale(A, c, x)
    # the face is read from the gradient of the optimum refined (_polished_optimum); the
    # minimum-norm step starts from the optimum as found, so a face that the refinement leaves
    # as it was gives the same bits
    gradient = A @ (_polished_optimum(A, c, a, d, u, x) if exact else x) + c
    inside = (x > 0) & (x < u)
    r = gradient + _equality_multiplier(gradient, a, inside, x >= u) * a
    if exact:
        tol = EXACT_TOL
    else:
        violation = np.where(inside, np.abs(r), np.where(x == 0, -r, r))
        tol = max(tol, 10.0 * float(np.max(violation, initial=0.0)) / scale)
    face = np.flatnonzero(~_held(x, r, u, tol * scale))
    base = x.copy()
    if face.size >= 2:
        values, moved_exact = _minimum_norm_on_face(
            A[np.ix_(face, face)], c[face], a[face], base[face], u, scale, exact
        )
        if values is None:  # the face was wider than the rounding allows: keep the optimum,
            # an optimum but not the face's point of smallest norm, so not exact
            face, exact = np.flatnonzero(inside), False
        else:
            base[face], exact = values, moved_exact
    nu = _equality_multiplier(A @ base + c, a, (base > 0) & (base < u), base >= u)
    return FaceOptimum(base, nu, face, exact)


def _polished_optimum(A, c, a, d, u, x) -> np.ndarray:
    """An exact optimum ``x`` after one more Newton step of its free values (iterative
    refinement, clipped to the box), kept when the point stays exact: the point whose gradient
    :func:`face_optimum` reads the face from.

    The face is read from the reduced gradient, to :data:`EXACT_TOL`; the active-set method's
    last step through a singular free block can leave that gradient a few times EXACT_TOL away
    from zero at indices of the face, which then fell off it, and the minimum-norm step missed
    their directions (a small box of 16 examples on an integer grid: two of nine multipliers held
    at their bounds by reduced gradients of 2.2 and 1.3 times EXACT_TOL, an optimum of larger
    norm than the canonical one; ``tests/test_optimal_face.py``). One step on the same bordered
    system removes that rounding (the gradient there came out exactly 0).

    Only the face is read from it: its values differ from ``x`` in the last bits, and scores
    compared exactly (the split and cross-conformal machines' on ``votes``, whose calibration
    scores tie with a test score to 1e-16 only) would move with them.
    """
    free = (x > 0) & (x < u)
    step = _step(A, a, A @ x + c, d - a @ x, free, x >= u)
    if step is None or step[2]:
        return x
    trial = x.copy()
    trial[free] = np.clip(trial[free] + step[0], 0.0, u)  # a value a rounding from its bound
    return trial if _meets_kkt_exactly(A, c, a, u, trial, A @ trial + c) else x


def _held(x, r, u: float, tol: float) -> np.ndarray:
    """The indices off the optimal face: at a bound, held there by a reduced gradient ``r`` of
    the bound's sign beyond ``tol`` (``r > tol`` at 0, ``r < -tol`` at ``u``).

    Every other index is on the face: free, at a bound with ``|r| <= tol``, or at a bound with
    ``r`` of the other sign, a violation of the KKT conditions that the optimum's certificate
    took for rounding. Such an index keeps its value and stays free to move on the face; sent to
    the bound its sign asks for (as this step once did) it broke ``a^T x = d``: an index at
    ``C`` with ``r`` 1.1 times :data:`EXACT_TOL` moved to 0 (a small box, issue 33's
    counterexample in ``tests/test_optimal_face.py``). No index off the face can move among the
    optima anyway: along a direction ``v`` of the optimal face ``r^T v = 0``, and each held
    index's term ``r_i v_i`` is at least 0 when ``v`` keeps it in the box.
    """
    return ((x <= 0.0) & (r > tol)) | ((x >= u) & (r < -tol))


def _minimum_norm_on_face(A_MM, c_M, a_M, x_M, u, scale, exact=True):
    """Steps (iii)-(iv) of :func:`canonical_optimum` on the face ``M`` alone: the values of
    smallest norm that the optimum's face allows, and whether they are exact.

    The face's directions are ``N`` (:func:`_face_directions`: ``A_MM N = 0``, ``a_M^T N = 0``,
    ``c_M^T N = 0``), and everything the step needs lives on the face: moving ``x_M`` by
    ``v = N s`` leaves ``A x`` unchanged everywhere (``v^T A_MM v = 0`` and ``A`` positive
    semi-definite give ``A_{:M} v = 0``), so no condition off the face moves. The point of
    smallest norm of ``{x_M + N s} intersected with the box`` is found by :func:`_box_qp` and
    made exact by :func:`_refined` (the bounds it reaches held exactly, the rest a projection).
    Both ways the library reaches an SVM's optimum (a solver's answer made exact, and the path of
    :mod:`svmtrust.incremental_svm`) end here, with the face decided by the same rule.

    Parameters
    ----------
    A_MM : ndarray of shape (m, m)
        The face's block of ``A``.
    c_M, a_M, x_M : ndarray of shape (m,)
        The face's entries of ``c``, ``a`` and of the optimum.
    u : float
    scale : float
        The gradient's scale (:func:`_gradient_scale_of`); the move must keep ``A_MM x_M`` to
        :data:`SOLVE_TOL` of it.
    exact : bool
        Whether ``x`` is an exact optimum; the answer is exact when it is and the step is.

    Returns
    -------
    values : ndarray of shape (m,) or None
        ``None`` when the move would change ``A_MM x_M`` (the face was taken too wide).
    exact : bool
        False also when the face's extent is decided by rounding (:func:`_rank_ambiguous`):
        the point is then the canonical one of the matrix as rounded, not of the data.
    """
    if _one_point(A_MM, a_M):
        return x_M, exact
    N, ambiguous = _face_directions(A_MM, c_M, a_M)
    exact = exact and not ambiguous
    if N.shape[1] == 0:
        return _equalise(A_MM, a_M, x_M), exact
    values = _box_qp(x_M, N, u)
    refined = _refined(x_M, N, u, values)
    if refined is None:
        exact = False
    else:
        values = refined
    change = values - x_M
    if np.max(np.abs(A_MM @ change), initial=0.0) > SOLVE_TOL * scale or abs(
        c_M @ change
    ) > SOLVE_TOL * max(float(np.abs(c_M) @ np.abs(x_M)), 1e-300):
        return None, False
    return _equalise(A_MM, a_M, values), exact


def _one_point(A_MM, a_M) -> bool:
    """Whether the face is one point: the bordered matrix ``[[A_MM, a_M], [a_M^T, 0]]`` is
    non-singular (a direction ``d`` of the face gives it ``[d; 0]`` in its null space), and far
    from singular: its reciprocal condition number (LAPACK's estimate from a symmetric
    factorisation) above :data:`ONE_POINT_RCOND`. Copies of one point make the matrix singular
    up to rounding, and a kernel computed for a batch of test objects differs from one computed
    for one object in the last bits, so a test at the machine epsilon would call such a face a
    point for one batch and not for another. About ten times cheaper than the eigendecomposition
    of :func:`_face_directions`, which runs when this test fails."""
    system, _ = _bordered_matrix(A_MM, a_M)
    factor, pivots, info = scipy.linalg.lapack.dsytrf(system)
    if info != 0:
        return False
    rcond, info = scipy.linalg.lapack.dsycon(factor, pivots, np.linalg.norm(system, 1))
    return info == 0 and rcond > ONE_POINT_RCOND


def _refined(x_M, N, u, values):
    """The point of :func:`_minimum_norm_on_face` without the slack of :func:`_box_qp`: the
    entries of ``values`` at a bound (to :data:`SOLVE_TOL`) held there exactly, the others the
    projection of the origin onto what the face's directions leave; ``None`` when that point
    leaves the box, the bounds cannot be held, or a bound held has a multiplier of the wrong sign
    (the projection's KKT conditions: then the point would not be the one of smallest norm)."""
    # the slack of _box_qp moves values by a few times SOLVE_TOL of the box: held below 100 times
    near = 100.0 * SOLVE_TOL * max(float(np.max(values)), u if np.isfinite(u) else 0.0)
    at_zero = values <= near
    at_upper = values >= u - near if np.isfinite(u) else np.zeros_like(at_zero)
    # an index whose row of N is rounding (N is orthonormal, rows of norm <= 1) cannot move:
    # holding it adds nothing, and its tiny row would pose as a constraint
    movable = np.sqrt(np.sum(N**2, axis=1)) > RANK_TOL**0.5
    at_zero &= movable
    at_upper &= movable
    held = at_zero | at_upper
    target = -(N.T @ x_M)  # the unconstrained minimiser of ||x_M + N s||
    size = max(float(np.max(x_M)), 1e-300)
    if not np.any(held):
        s = target
    else:
        rows = N[held]
        goal = np.where(at_zero, 0.0, u)[held] - x_M[held]
        particular, *_ = np.linalg.lstsq(rows, goal, rcond=None)
        if np.max(np.abs(rows @ particular - goal)) > SOLVE_TOL * size:
            return None
        _, sigma, vt = np.linalg.svd(rows)
        rank = int(np.sum(sigma > RANK_TOL**0.5))
        Z = vt[rank:].T
        s = particular + Z @ (Z.T @ (target - particular))
        # the certificate of the projection: s - target = rows^T mu with mu >= 0 on the bounds
        # at zero (they push s up the direction N_i) and mu <= 0 on those at u; with more bounds
        # than directions mu is not unique, so a non-negative one is sought (NNLS)
        sign = np.where(at_zero[held], 1.0, -1.0)
        _, residual = scipy.optimize.nnls(rows.T * sign, s - target)
        if residual > SOLVE_TOL * size:
            return None
    point = x_M + N @ s
    slack = SOLVE_TOL * size
    if np.any(point < -slack) or np.any(point > u + slack):
        return None
    return np.clip(point, 0.0, u)


def _rounding_cut(eigvals) -> float:
    """Eigenvalues at or below this are zeros of the matrix, up to its eigendecomposition's
    rounding (``n`` machine epsilons of the largest)."""
    return max(np.finfo(float).eps * eigvals.size * max(float(eigvals[-1]), 0.0), 0.0)


def _rank_ambiguous(eigvals) -> bool:
    """Whether an eigenvalue lies above the rounding cut-off but within :data:`RANK_AMBIGUITY`
    of it: a matrix whose numerical rank rounding decides (an RBF kernel with gamma 1e-5 on
    standardised data has eigenvalues falling steadily from 1 to 1e-17 of the largest)."""
    cut = _rounding_cut(eigvals)
    return bool(np.any((eigvals > cut) & (eigvals <= RANK_AMBIGUITY * cut)))


def _coupling_tol(vector, eigvals, floor: float) -> float:
    """How far ``vector^T v`` may be from 0, for the null directions ``v`` of a matrix with
    eigenvalues ``eigvals``, and still be 0 up to rounding: at least ``floor``.

    The null directions of an eigendecomposition carry an error of about ``eps lambda_max /
    lambda_min`` (``lambda_min`` the smallest eigenvalue kept), so a vector in the matrix's
    range (the SVM's ``y``, or ``1``, when the points lie on a line off the origin under a
    linear kernel) has products with them of ``eps ||vector|| lambda_max / lambda_min``, not 0:
    1e-10 on eight collinear points whose second eigenvalue is 6e-6 of the first. Read as a
    coupling, that product removes a direction the face has, and its point of smallest norm is
    missed. The bound is capped at ``1e-8 ||vector||``: a larger product is a coupling.
    """
    kept = eigvals[eigvals > _rounding_cut(eigvals)]
    if kept.size == 0:
        return floor
    norm = float(np.linalg.norm(vector))
    spread = float(kept[-1]) / float(kept[0])
    return max(floor, min(1e-8 * norm, 64.0 * np.finfo(float).eps * norm * spread))


def _face_directions(A_MM, c_M, a_M):
    """Orthonormal directions along which the optimal face extends: ``N`` with ``A_MM N = 0``,
    ``a_M^T N = 0`` and ``c_M^T N = 0`` (the last keeps the objective); and whether the
    face's extent is decided by rounding (:func:`_rank_ambiguous`)."""
    eig = np.linalg.eigh(A_MM)
    ambiguous = _rank_ambiguous(eig[0])
    N = _null_directions(A_MM, a_M, eig)
    if N.shape[1] == 0:
        return N, ambiguous
    coupling = c_M @ N
    floor = 1e-12 * max(float(np.max(np.abs(c_M))), 1e-300)
    if np.max(np.abs(coupling)) <= _coupling_tol(c_M, eig[0], floor):
        return N, ambiguous
    _, _, vt = np.linalg.svd(coupling[None, :])
    return N @ vt[1:].T, ambiguous


def _box_qp(point, N, u) -> np.ndarray:
    """``argmin ||z||`` over ``z = point + N s`` with ``0 <= z <= u``: the point of smallest norm
    of the optimal face, whose directions are the orthonormal columns of ``N``.

    A primal active-set method (Nocedal & Wright 2006, Algorithm 16.3) in ``s``, where the
    objective is ``||s + N^T point||^2`` up to a constant (``N^T N = I``): from the feasible
    ``s = 0`` (``point`` is an optimum, so in the box) each iteration steps towards the
    unconstrained minimum within the bounds held so far, stops at the first bound it meets
    (which is then held), and, once no step is left, releases the held bound whose multiplier
    has the wrong sign. Each step keeps the box, so the method cannot report a feasible problem
    infeasible, as an interior-point solver can on a face this thin (many bounds meeting at one
    point). The bounds held stay linearly independent (a bound that blocks a step is not in
    the span of those held), so the multipliers are unique. The box is widened by
    :data:`SOLVE_TOL` of its size, so that the start is strictly inside it: at a start where
    more bounds meet than there are directions (95 bounds in 28 directions on a data set with
    conflicting copies) the method would otherwise cycle through steps of length zero. The
    answer is within that slack of the minimum-norm point; :func:`_refined` then makes it exact.

    Raises
    ------
    SolveError
        When the method has not ended after ``20 (n + k)`` iterations (cycling; not seen).
    """
    n, k = N.shape
    # constraints G s >= h: N s >= -point - slack (lower bounds) and, for finite u,
    # -N s >= point - u - slack; the slack makes s = 0 strictly feasible (module note below)
    slack = SOLVE_TOL * max(float(np.max(point, initial=0.0)), u if np.isfinite(u) else 0.0)
    G = np.vstack([N, -N]) if np.isfinite(u) else N
    h = (np.r_[-point, point - u] if np.isfinite(u) else -point) - slack
    target = -(N.T @ point)
    s = np.zeros(k)
    held: list[int] = []
    tol = SOLVE_TOL * max(float(np.max(np.abs(point), initial=0.0)), np.finfo(float).tiny)
    for _ in range(20 * (n + k)):
        basis = _row_basis(G[held]) if held else np.zeros((0, k))
        p = target - s
        p -= basis.T @ (basis @ p)
        if np.max(np.abs(p), initial=0.0) > tol:
            rate = G @ p
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(rate < -tol * 1e-3, (h - G @ s) / rate, np.inf)
            room[held] = np.inf
            room = np.maximum(room, 0.0)
            first = int(np.argmin(room))
            if room[first] >= 1.0:
                s = s + p
                continue
            s = s + room[first] * p
            held.append(first)
            continue
        if not held:
            break
        # s - target = G_W^T lambda: the multipliers of the bounds held (>= 0 at an optimum)
        lam, *_ = np.linalg.lstsq(G[held].T, s - target, rcond=None)
        worst = int(np.argmin(lam))
        if lam[worst] >= -tol:
            break
        held.pop(worst)
    else:
        raise qp.SolveError(
            "active-set", "max_iter_reached", "the minimum-norm optimum of the SVM's optimal face"
        )
    return np.clip(point + N @ s, 0.0, u)


def _row_basis(rows) -> np.ndarray:
    """Orthonormal basis (as rows) of the span of ``rows``, which are linearly independent."""
    q, _ = np.linalg.qr(rows.T)
    return q.T


def _equalise(A_face, a_face, values) -> np.ndarray:
    """Identical indices get their group's mean (the minimum-norm point already splits a
    group equally, up to rounding; the mean makes the values equal to the last bit), kept
    within the group's own values: the mean of equal values can round off them, and three
    copies at ``C = 0.1`` got 0.1 + 2.8e-17, above the box, neither free nor at the bound
    (``tests/test_optimal_face.py``)."""
    groups = _identical_groups(A_face, a_face)
    mean = np.bincount(groups, weights=values) / np.bincount(groups)
    low, high = np.full(mean.size, np.inf), np.full(mean.size, -np.inf)
    np.minimum.at(low, groups, values)
    np.maximum.at(high, groups, values)
    return np.clip(mean, low, high)[groups]
