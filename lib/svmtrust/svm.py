"""The support vector machine as an exact quadratic program.

The dual of the soft-margin SVM (Cortes & Vapnik 1995; Vapnik 1998, Ch. 10) over n examples
with labels ``y_i`` in {-1, +1} and Gram matrix ``K`` is::

    maximise    W(alpha) = sum_i alpha_i - 1/2 sum_{i,j} alpha_i alpha_j y_i y_j K_ij
    subject to  0 <= alpha_i <= C,   sum_i y_i alpha_i = 0,

which is eqs. (8)-(11) of Saunders, Gammerman & Vovk (1999) when ``C = inf`` (hard margin).
:func:`fit_svm` solves it exactly with cvxpy and Clarabel, or with libsvm through scikit-learn for
bulk experiments (checked against the KKT conditions, with the exact solver as the fallback when
libsvm stops short), and returns an :class:`SVMSolution` only after its certificate
(:mod:`svmtrust.certificate`, computed from the problem and the answer alone) has passed: the
certificate decides whether the answer is exact and each multiplier's category (at 0, free, at
``C``), by one rule whichever solver ran. The bias comes from the Karush-Kuhn-Tucker conditions
(:func:`kkt_bias`), never from a dual variable of the solver.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import cvxpy as cp
import numpy as np
import scipy.linalg.lapack
from sklearn.svm import _libsvm

from . import qp
from .certificate import ACCURATE_TOL, Certificate, _at_bounds, _certify, _kkt_violation
from .optimal_face import (
    EXACT_TOL,
    FACE_TOL,
    ONE_POINT_RCOND,
    _bordered_matrix,
    _equality_multiplier,
    _gradient_scale_of,
    _identical_groups,
    _SignedGram,
    face_optimum,
    sparse_product,
)
from .qp import SolveError, _kernel_factor
from .ties import merged
from .validation import (
    check_array,
    check_binary_labels,
    check_bool,
    check_C,
    check_choice,
    check_indices,
    check_kernel_matrix,
    check_positive,
)

__all__ = [
    "SVMSolution",
    "fit_svm",
    "dual_objective",
    "kkt_bias",
    "categorise",
    "merge_multiplier_ties",
    "canonical_solution",
    "duplicate_groups",
    "check_solution",
    "SOLVERS",
    "InexactWarning",
    "SUPPORT_TOL",
    "OUTSIDE_MARGIN_TOL",
]

#: Relative tolerance of a solver's raw multipliers (:func:`categorise`): one at most
#: ``SUPPORT_TOL * max(alpha)`` is set to 0 and one at least ``(1 - SUPPORT_TOL) * C`` to C,
#: before the canonical step starts from them (interior-point and libsvm multipliers stop short
#: of their bounds by about 1e-7). The categories of the answer returned are the certificate's
#: (:mod:`svmtrust.certificate`: exactly at a bound, or more than
#: :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of the largest away from it).
SUPPORT_TOL = 1e-6

#: The full-transduction machines (:mod:`svmtrust.transduction`, :mod:`svmtrust.svm_distance`)
#: do not solve an augmented SVM when every test example satisfies ``y f(x) >= 1 +
#: OUTSIDE_MARGIN_TOL`` for the SVM ``f`` of the training set alone (with the same ``C``):
#: the training solution with zero multipliers for the test examples satisfies the KKT
#: conditions of the augmented dual, so it is optimal, and the test examples get p-value 1. The
#: margin is 1 and the solvers place free support vectors on it to within about 1e-5, so a
#: test example this far outside is outside for either solver, and one nearer is solved.
OUTSIDE_MARGIN_TOL = 1e-3

#: Stopping tolerance libsvm is asked for first (its ``eps``, the largest KKT violation allowed),
#: relative to ``max(1, C * s)`` with ``s`` the kernel's scale (:func:`_kernel_scale`): the
#: accurate solve that agrees with the exact QP to about 1e-9.
LIBSVM_TOL = 1e-9

#: Iterations per example allowed to the solve at :data:`LIBSVM_TOL`. The book's problems need
#: 1 to 5 (the SVM chapter's settings at n = 200 to 1000, measured). On degenerate problems a
#: tolerance this small cannot be met: libsvm caches kernel columns in single precision
#: (``Qfloat = float``), so its gradients carry rounding of order 1e-8 times
#: ``sum_j alpha_j |K_ij|``, and it cycles until the limit. It then solves again at
#: :data:`LIBSVM_REACHABLE_TOL`.
LIBSVM_ACCURATE_ITER = 100

#: Stopping tolerance of the second solve, relative as :data:`LIBSVM_TOL`. Measured on 20
#: degenerate problems (30 uniform points in 3-D, a third positive, linear kernel, C = 1, whose
#: optimum has ``w = 0`` and 20 free multipliers): every solve stops within 110 iterations at
#: 1e-6, while 12 of 20 run to the iteration limit at 1e-7, and 15 of 20 spend the whole
#: budget of :data:`LIBSVM_ACCURATE_ITER` at 1e-9 (about 1 ms each).
LIBSVM_REACHABLE_TOL = 1e-6

#: Largest KKT violation accepted from libsvm before the exact solver takes over:
#: :data:`svmtrust.certificate.ACCURATE_TOL` (the certificate's accurate level, relative to
#: ``max(1, max(alpha) * max_i sum_j |K_ij|)``). It leaves room for libsvm's stopping tolerance,
#: its single-precision cache (about 6e-8 of the bound) and the snapping of :func:`categorise`
#: (at most :data:`SUPPORT_TOL` of it); libsvm's answers on the test problems stay below 2e-7.
LIBSVM_KKT_TOL = ACCURATE_TOL

#: libsvm cannot take ``C = inf``. A hard margin is solved with growing boxes up to
#: ``HARD_MARGIN_C / s``, ``s`` the kernel's scale (the multipliers scale as 1 / K); if a
#: multiplier still reaches that box, the exact solver decides whether the data are separable.
#: At that box libsvm's reachable tolerance is ``LIBSVM_REACHABLE_TOL * HARD_MARGIN_C = 1e-2``
#: in margin units; at a box 1000 times larger it would stop before its first iteration.
HARD_MARGIN_C = 1e4

#: Iterations allowed to one libsvm run before it stops with status ``"max_iter_reached"``.
LIBSVM_MAX_ITER = 10_000_000

#: Accuracy asked of Clarabel for the dual, :data:`svmtrust.qp.TOL` (the comment there says why).
CLARABEL_TOL = qp.TOL

#: Above a box ``C`` of this many times ``1 / mean(diag(K))``, :func:`_solve_cvxpy` measures the
#: multipliers in units of ``C`` instead of ``1 / mean(diag(K))`` (its docstring says why).
LARGE_BOX = 1e3

SOLVERS = ("cvxpy", "libsvm")


@dataclass(frozen=True)
class SVMSolution:
    """An optimal solution of the SVM dual.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Lagrange multipliers, exactly 0 or C at the bounds; in an exact answer every other
        multiplier is more than :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of the largest
        away from them (the certificate's rule).
    b : float
        The bias, from the KKT conditions (:func:`kkt_bias`).
    y : ndarray of shape (n,)
        The labels, in {-1, +1}.
    C : float
        The box constraint (``numpy.inf`` for a hard margin).
    objective : float
        The dual value W(alpha) at the returned ``alpha``.
    status : str
        The solver's status (``"optimal"``).
    solver : str
        The solver whose multipliers these are: ``"cvxpy"`` or ``"libsvm"``. A call with
        ``solver="libsvm"`` returns ``"cvxpy"`` here when it fell back to the exact solver;
        ``"incremental"`` for an SVM reached by adding one example to a trained one
        (:mod:`svmtrust.incremental_svm`).
    support : ndarray of int
        Indices with ``alpha > 0``: the support vectors.
    free : ndarray of int
        Indices with ``0 < alpha < C``: support vectors of the first category, on the margin.
    bounded : ndarray of int
        Indices with ``alpha = C``: support vectors of the second category, inside the margin or
        misclassified (empty for a hard margin).
    n_iter : int
        libsvm only: SMO iterations of the solve (scikit-learn's ``SVC.n_iter_``), summed over
        libsvm's runs (the growing boxes of a hard margin, a second run at
        :data:`LIBSVM_REACHABLE_TOL`), a run stopped at its limit counting the limit; 0 for
        cvxpy. A measure of the solver's work that, unlike its time, does not depend on the
        machine or its load. After a fallback, the iterations libsvm spent before it. For
        ``solver="incremental"``, the segments of the path (events).
    fallback : str
        Why a call with ``solver="libsvm"`` returned the exact solution instead of libsvm's
        (see :func:`fit_svm`): ``"max_iter_reached"``, ``"kkt_violation"``, ``"unbounded"``,
        ``"small_box"`` (the closed form for a small box), ``"large_box"`` (the hard margin
        within a large box), ``"not_exact"`` (the other solver's answer, after the first one's
        failed its exact certificate), ``"twins"`` (the canonical step from the split that
        gives each group of near-copies' mass to its members of smallest margin:
        :func:`_twins_resolved`) or ``"uncertified"`` (a solver's own optimum, accurate but
        not exact). Empty when no
        fallback happened; count fallbacks with ``sol.fallback != ""``.
    on_margin : ndarray of int
        Indices of the examples on the margin, ``y_i f(x_i) = 1``, whatever their multiplier:
        the free support vectors and any example at 0 or C that lies exactly on the margin
        (a copy of a free support vector, say). Only these multipliers could differ between
        optima; :func:`fit_svm` returns the one of smallest norm (:mod:`svmtrust.optimal_face`).
    exact : bool
        True when the multipliers are the canonical optimum and their certificate
        (:mod:`svmtrust.certificate`, computed from ``K`` and the answer alone) passed at its
        exact level: in the box, ``y^T alpha = 0`` and every KKT condition to rounding, the
        rounding itself within :data:`svmtrust.certificate.MARGIN_TOL` margin units, the free
        multipliers fixed by the data and, along copies, the face's point of smallest norm
        (:func:`svmtrust.certificate._face_conditions`); so both solvers, and every row order,
        return the same numbers. False when the answer is only accurate (its
        ``certificate`` says to what).
    certificate : Certificate or None
        The certificate :func:`fit_svm` judged the answer by (``None`` for a solution built
        by another route, such as the incremental path, which certifies its own optima).
    """

    alpha: np.ndarray
    b: float
    y: np.ndarray
    C: float
    objective: float
    status: str
    solver: str
    support: np.ndarray
    free: np.ndarray
    bounded: np.ndarray
    n_iter: int = 0
    fallback: str = ""
    on_margin: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    exact: bool = False
    certificate: Certificate | None = None

    @property
    def coef(self) -> np.ndarray:
        """The expansion coefficients ``alpha_i y_i`` of ``w = sum_i alpha_i y_i phi(x_i)``."""
        return self.alpha * self.y

    @property
    def w_norm_squared(self) -> float:
        """``||w||^2 = alpha^T Q alpha``, read off the dual value as ``2 (sum(alpha) - W)``.

        The margin is ``1 / ||w||``; this is the quantity Vapnik's margin transduction
        minimises (eq. (16) of Saunders et al. 1999).
        """
        return 2.0 * (float(np.sum(self.alpha)) - self.objective)

    def decision_function(self, K_rows) -> np.ndarray:
        """Decision values ``f(x) = sum_i alpha_i y_i k(x_i, x) + b``.

        Parameters
        ----------
        K_rows : array_like of shape (m, n)
            Kernel values between m new points (rows) and the n training points (columns).

        Returns
        -------
        ndarray of shape (m,)
        """
        rows = check_array(K_rows, "K_rows", ndim=2)
        if rows.shape[1] != self.alpha.shape[0]:
            raise ValueError(
                f"K_rows: has {rows.shape[1]} columns, the SVM has {self.alpha.shape[0]} "
                "training points"
            )
        return rows @ self.coef + self.b


def fit_svm(
    K, y, C=np.inf, solver="cvxpy", check_kernel=True, tol=None, check_input=True, canonical=True
) -> SVMSolution:
    """Solve the SVM dual exactly for a given Gram matrix.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric positive semi-definite Gram matrix (within
        :data:`svmtrust.validation.PSD_TOL`).
    y : array_like of shape (n,)
        Labels in {-1, +1}, both present.
    C : float
        Box constraint; ``numpy.inf`` (the default) solves the hard-margin problem.
    solver : {"cvxpy", "libsvm"}
        ``"cvxpy"`` solves the QP with Clarabel at tolerance :data:`CLARABEL_TOL`;
        ``"libsvm"`` solves the same problem with ``sklearn.svm.SVC(kernel="precomputed")``,
        on ``K / s`` with box ``C s`` (``s`` the kernel's scale), and checks the KKT conditions
        of its answer. When libsvm stops at its iteration limit, or its answer violates the KKT
        conditions by more than :data:`LIBSVM_KKT_TOL` relative to the problem's scale, or its
        growing boxes for a hard margin reach :data:`HARD_MARGIN_C`, the exact solver takes
        over: the solution then has ``solver="cvxpy"`` and ``fallback`` names the reason.
    check_kernel : bool
        Test that ``K`` is symmetric and positive semi-definite (a Cholesky factorisation,
        which at n = 500 costs about twice the libsvm solve itself). Shape and finiteness are
        always checked. Pass ``False`` only for a matrix built by a kernel of
        :mod:`svmtrust.kernels`, which is symmetric and positive semi-definite by construction;
        bulk experiments do so.
    tol : float, optional
        libsvm only: its stopping tolerance ``eps`` as given (libsvm's ``-e``, an absolute
        bound on the largest KKT violation; libsvm's own default is 1e-3). ``None`` (the
        default) asks for :data:`LIBSVM_TOL` relative to ``max(1, C * s)``, the accurate
        solve that agrees with the exact QP, and for :data:`LIBSVM_REACHABLE_TOL` when that
        takes more than :data:`LIBSVM_ACCURATE_ITER` iterations per example (degenerate
        problems, where single precision cannot reach it). A looser ``tol`` is for bulk model
        selection, where libsvm's default is the setting the papers used; libsvm's answer is
        then returned as it is (no KKT check, no fallback), and its iteration limit raises.
    check_input : bool
        ``False`` trusts every argument as its caller checked it and skips all the checks above
        (``check_kernel`` included), as scikit-learn's ``check_input``: for the library's own
        estimators, which check their data once in ``fit`` and then solve many problems built
        from it (one per test example and label). Not for data from outside.
    canonical : bool
        ``True`` (the default) returns the canonical optimum, the minimum-norm point of the
        optimal face (:mod:`svmtrust.optimal_face`), a function of the bag. ``False`` returns
        it only when the optimum is unique (then both are the same point, made exact:
        :func:`_unique_optimum`), and otherwise the solver's own optimum, checked against the
        KKT conditions as above, with ``exact=False`` and no :class:`InexactWarning`: for
        machines whose guarantee needs one fitted SVM, not the canonical one (split and
        cross-conformal prediction; :mod:`svmtrust.split_conformal` says why its machines keep
        the canonical one). Its ``w``, and so its decision values, are those of every optimum
        to the solver's accuracy; its multipliers may be any point of the face, and exact ties
        between the scores of distinct examples may break.

    Returns
    -------
    SVMSolution

    Raises
    ------
    ValueError
        On bad input (the message names the argument).
    SolveError
        If the solver does not reach an accurate optimum, e.g. status ``"unbounded"`` for a hard
        margin on data that are not separable. When libsvm and its exact fallback both fail,
        the status is the exact solver's and the message gives both.
    """
    if check_bool(check_input, "check_input"):
        solver = check_choice(solver, "solver", SOLVERS)
        K = check_kernel_matrix(K, "K", full=check_bool(check_kernel, "check_kernel"))
        y = check_binary_labels(y, "y", n=K.shape[0])
        C = check_C(C)
        tol = _check_tol(tol, solver)
        canonical = check_bool(canonical, "canonical")
    if tol is not None:
        return _fit_libsvm(K, y, C, tol)
    sol = _small_box(K, y, C, solver) if _small_box_applies(K, C) else None
    if sol is None:
        sol = _fit_exact(K, y, C, solver, canonical)
        if (
            not (sol.exact and sol.bounded.size == 0)
            and C * _kernel_scale(K) > LARGE_BOX
            and not _inside_the_margin(K, sol)
        ):
            sol = _hard_margin_within(K, y, C, sol)
    if canonical and not sol.exact:
        warnings.warn(
            InexactWarning(
                f"fit_svm: the optimum (n = {y.size}, C = {C!r}) is not certified exact: "
                f"{sol.certificate.describe()}"
                + (
                    ""
                    if sol.fallback != "uncertified"
                    else "; the canonical step failed its "
                    "certificate, so these are the solver's own multipliers"
                )
            ),
            stacklevel=2,
        )
    return sol


class InexactWarning(UserWarning):
    """:func:`fit_svm` returned an optimum it could not certify exact (``SVMSolution.exact`` is
    False); the message prints its certificate (:meth:`svmtrust.certificate.Certificate.describe`):
    which condition holds to what accuracy. Causes: the multipliers keep the solver's accuracy;
    the optimal face's block of the kernel has an eigenvalue so close to rounding that whether
    the face extends along it is rounding's choice (an RBF kernel with gamma 2.5e-5 on
    standardised data); or the kernel is so ill-scaled that no margin can be computed to
    :data:`svmtrust.certificate.MARGIN_TOL`. p-values built on such an optimum may depend on the
    solver and the order of the examples. Not seen on the book's data; raised, not hidden."""


def _small_box_applies(K, C) -> bool:
    """Whether ``C max_i sum_j |K_ij| <= 1`` (:func:`_small_box`). For a positive semi-definite
    ``K`` the largest ``|K_ij|`` is on the diagonal, so the row sums lie between ``max K_ii`` and
    ``n max K_ii``; the row of the largest diagonal entry settles most other cases, all in O(n)."""
    diag = np.diag(K)
    top = int(np.argmax(diag))
    if C * diag[top] * K.shape[0] <= 1.0 or C * float(np.sum(np.abs(K[top]))) > 1.0:
        return C * diag[top] * K.shape[0] <= 1.0
    return C * float(np.max(np.sum(np.abs(K), axis=1))) <= 1.0


def canonical_solution(
    K, y, C, alpha, solver: str = "incremental", check_input: bool = True
) -> SVMSolution:
    """The canonical optimum of the SVM dual reached from an optimum ``alpha`` found elsewhere.

    The step :func:`fit_svm` applies to a solver's answer (:func:`_canonical`): the minimum-norm
    point of the optimal face through ``alpha`` (:func:`svmtrust.optimal_face.canonical_optimum`),
    with the bias from the KKT conditions: for an optimum found by any other means.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Gram matrix (shape and finiteness checked; positive semi-definite is the caller's).
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
    alpha : array_like of shape (n,)
        An optimum (or an approximate one) of the dual, in ``[0, C]``.
    solver : str
        Recorded as ``SVMSolution.solver``: who found ``alpha``.
    check_input : bool
        ``False`` trusts the arguments, as in :func:`fit_svm` (for a caller inside the library
        whose data were checked at its door).

    Returns
    -------
    SVMSolution
    """
    if check_bool(check_input, "check_input"):
        K, y, alpha = _check_problem(K, y, alpha)
        C = check_C(C)
        if np.any(alpha > C):
            raise ValueError(f"alpha: multipliers must lie in [0, C], found {np.max(alpha)!r}")
    return _judged(K, _canonical(K, _start(y, C, alpha, "optimal", str(solver))))


def _fit_exact(K, y, C, solver, canonical=True) -> SVMSolution:
    """The certified optimum through ``solver``, with the other solver as its fallback.

    Each solver's answer is made canonical (:func:`_canonical`; with ``canonical=False`` only
    where the optimum is unique) and judged by its certificate (:func:`_judged`). The first
    answer certified exact is returned; with ``canonical=False`` the first accurate one. When
    the first solver's is not exact, the other solver is tried (Clarabel after libsvm, libsvm
    after Clarabel), and its answer carries ``fallback``: libsvm's failure (``"max_iter_reached"``,
    ``"unbounded"``), ``"kkt_violation"`` (libsvm's answer not accurate) or ``"not_exact"``.
    When neither is exact, the canonical step is tried once more from each answer with its
    groups of near-copies refilled by margin (:func:`_twins_resolved`, ``fallback="twins"``).
    When nothing is exact, the first accurate answer is returned with ``exact=False``,
    preferring canonical points to the solvers' own (``fallback="uncertified"``: the canonical
    step's point failed its certificate); when none is accurate, :class:`SolveError` prints
    every certificate.
    """
    tried = []
    first, reason, n_iter = _first_answer(K, y, C, solver)
    if first is not None:
        sol = _judged(K, _canonical(K, first, canonical))
        if sol.exact or (not canonical and sol.certificate.accurate):
            return sol
        tried.append(sol)
        reason = reason or ("not_exact" if sol.certificate.accurate else "kkt_violation")
    second = _second_answer(K, y, C, solver, n_iter, reason)
    if second is not None:
        sol = _judged(K, _canonical(K, second, canonical))
        if sol.exact or (not canonical and sol.certificate.accurate):
            return sol
        tried.append(sol)
    if canonical:
        for sol in list(tried):
            twins = _twins_resolved(K, sol)
            if twins is not None and twins.exact:
                return twins
    own = [_judged(K, _with_alpha(K, t, t.alpha, False)) for t in (first, second) if t is not None]
    for sol in tried + [replace(o, fallback="uncertified") for o in own]:
        if sol.certificate.accurate:
            return sol
    raise SolveError(
        tried[-1].solver if tried else solver,
        "uncertified",
        "no answer could be certified: "
        + "; ".join(f"{t.solver}'s {t.certificate.describe()}" for t in tried),
    )


def _first_answer(K, y, C, solver):
    """The raw answer of ``solver`` (:func:`_start`), or ``None`` with libsvm's failure; and
    libsvm's iterations."""
    if solver == "cvxpy":
        return _start(y, C, *_solve_cvxpy(K, y, C), "cvxpy"), "", 0
    alpha, status, n_iter = _solve_libsvm(K, y, C)
    if alpha is None:
        return None, status, n_iter
    return _start(y, C, alpha, status, "libsvm", n_iter), "", n_iter


def _second_answer(K, y, C, solver, n_iter, reason):
    """The other solver's raw answer after the first one failed with ``reason``, with
    ``fallback=reason``; ``None`` when libsvm, as the second solver, fails. Clarabel as the
    fallback (carrying libsvm's ``n_iter``) raises :class:`SolveError` naming libsvm's failure
    when it fails too."""
    if solver == "libsvm":
        return _exact_fallback(K, y, C, reason, n_iter)
    alpha, status, n_iter = _solve_libsvm(K, y, C)
    if alpha is None:
        return None
    return replace(_start(y, C, alpha, status, "libsvm", n_iter), fallback=reason)


def _twins_resolved(K, sol: SVMSolution) -> SVMSolution | None:
    """The canonical step from ``sol`` with the mass of every group of near-copies moved to the
    members of smallest margin, judged; ``None`` when ``sol`` has no such group.

    Near-copies (rows 1e-12 to 1e-7 apart, one label) have columns of ``K`` that differ by far
    more than rounding while ``K_ii + K_jj - 2 K_ij`` is at rounding: the curvature between
    them is below what the stored matrix resolves, but their margins are not. The optimum then
    gives a group's mass to its members of smallest margin (along the group the objective is
    linear in the split, with the margins as its slopes), one member at most left free; a
    solver's answer splits it evenly instead, and the active set cannot repair the split
    through a block whose smallest eigenvalue is rounding (KKT violations of 1e-8 to 5e-7 that
    the incremental path does not leave). From the split filled in order of margin, lowest
    first (:func:`_filled_by_margin`), the canonical step ends at an optimum the certificate
    can judge. Tried only when no solver's answer certified exact (``fallback="twins"``).
    """
    groups = duplicate_groups(K, sol.y)
    sizes = np.bincount(groups)
    if np.all(sizes == 1):
        return None
    margins = sol.y * (sparse_product(K, sol.alpha * sol.y) + sol.b)
    alpha = _filled_by_margin(sol.alpha, margins, groups, sizes, sol.C)
    start = replace(sol, alpha=alpha, fallback="twins")
    return _judged(K, _canonical(K, _with_alpha(K, start, alpha, False)))


def _filled_by_margin(alpha, margins, groups, sizes, C) -> np.ndarray:
    """``alpha`` with each group of more than one member refilled: its total, in order of
    increasing margin, each member up to ``C`` (ties in order of index)."""
    alpha = alpha.copy()
    for group in np.flatnonzero(sizes > 1):
        members = np.flatnonzero(groups == group)
        members = members[np.lexsort((members, margins[members]))]
        left = float(np.sum(alpha[members]))
        for i in members:
            alpha[i] = min(left, C)
            left -= alpha[i]
    return alpha


def _judged(K, sol: SVMSolution) -> SVMSolution:
    """``sol`` with its certificate (:func:`svmtrust.certificate.certify`, from ``K`` and the
    answer alone) and ``exact`` only when the certificate passed at its exact level.

    Categories come from the certificate: when an answer claimed exact fails only by
    multipliers within :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of a bound, those are set
    to it (:func:`svmtrust.certificate._at_bounds`, bias and margins recomputed) and the result
    is kept if it certifies exact: such a multiplier was a bound's rounding. Otherwise the
    answer stays as it is, not exact."""
    cert = _certify(K, sol.y, sol.C, sol.alpha, sol.b)
    if sol.exact and cert.undecided and not cert.exact:
        bounded = _with_alpha(K, sol, _at_bounds(sol.alpha, sol.C), True)
        again = _certify(K, bounded.y, bounded.C, bounded.alpha, bounded.b)
        if again.exact:
            return replace(bounded, certificate=again)
    return replace(sol, exact=sol.exact and cert.exact, certificate=cert)


def _inside_the_margin(K, sol: SVMSolution) -> bool:
    """Whether the exact optimum ``sol`` leaves an example strictly inside its margin, so that no
    hard-margin optimum lies within the box (:func:`_hard_margin_within` need not be tried).

    The proof: the box problem's primal, ``min 1/2 ||w||^2 + C sum_i xi_i`` with ``xi_i =
    max(0, 1 - y_i f(x_i))``, has one optimal ``w`` and its optimal biases form an interval
    on which the objective is constant, so ``sum_i xi_i`` is the same at each of them. A
    hard-margin optimum with every multiplier at most ``C`` would meet the box problem's KKT
    conditions, so it would be an optimum of the box problem with ``sum_i xi_i = 0``. An exact
    optimum with an example at ``C`` whose margin ``y_i f(x_i)`` falls short of 1 by more than
    :data:`svmtrust.optimal_face.FACE_TOL` of the gradient's scale rules that out. (On the
    bupa grid of the nonconformity chapter, at ``C = 2^11``, 198 of 260 multipliers at ``C``:
    the hard-margin attempt took 30 s of Clarabel and the canonical step to find its multipliers
    above ``C``.)
    """
    if not sol.exact or sol.bounded.size == 0:
        return False
    rows = sol.bounded
    margins = sol.y[rows] * (K[rows] @ sol.coef + sol.b)
    scale = _gradient_scale_of(K.diagonal(), 1.0, sol.alpha)
    return bool(np.min(margins) < 1.0 - FACE_TOL * scale)


def _hard_margin_within(K, y, C, sol: SVMSolution) -> SVMSolution:
    """The hard-margin optimum when its multipliers stay within a large box ``C``, else ``sol``.

    Called for a box above :data:`LARGE_BOX` when ``sol`` is inexact or has multipliers at
    ``C``. A hard-margin optimum within the box is also the optimum for ``C`` (its KKT
    conditions are those of the box with no multiplier at the bound). On separable data a box
    far above the multipliers leaves the solvers nothing to measure them against: at ``C s =
    1e10`` Clarabel's multipliers are off by 2e-7, at 1e30 libsvm and Clarabel put two at ``C``.
    The hard margin is solved by Clarabel (whose certificate settles non-separable data at once)
    at the multipliers' own scale; the answer then carries ``solver="cvxpy"``, and
    ``fallback="large_box"`` when libsvm was asked for.
    """
    try:
        hard = _fit_exact(K, y, np.inf, "cvxpy")
    except SolveError:
        return sol
    if not hard.exact or np.max(hard.alpha) > C:
        return sol
    fallback = "large_box" if sol.solver == "libsvm" or sol.fallback else ""
    hard = replace(hard, C=C, fallback=fallback, n_iter=sol.n_iter)
    hard = _judged(K, _with_alpha(K, hard, hard.alpha, True))
    return hard if hard.exact else sol


def _canonical(K, sol: SVMSolution, canonical=True) -> SVMSolution:
    """The minimum-norm optimum of the optimal face through ``sol`` (:mod:`svmtrust.optimal_face`).

    The dual is problem (P) of that module with ``A = diag(y) K diag(y)`` (never formed:
    :class:`svmtrust.optimal_face._SignedGram`), ``c = -1``, ``a = y``, ``d = 0`` and ``u = C``;
    its reduced gradient is ``y_i f(x_i) - 1``, so the face's indices are the examples on the
    margin. Most optima are the only one, and :func:`_unique_optimum` returns them after one
    bordered solve; the face's minimum-norm point is computed only for the others, and only
    when ``canonical``: otherwise ``sol`` is kept as the solver left it (``exact=False``).
    """
    unique = _unique_optimum(K, sol)
    if unique is not None:
        return unique
    if not canonical:
        return _with_alpha(K, sol, sol.alpha, False)
    A = _SignedGram(K, sol.y)
    face = face_optimum(A, -np.ones(sol.y.size), sol.y, 0.0, sol.C, sol.alpha)
    return _with_alpha(K, sol, face.x, face.exact)


def _unique_optimum(K, sol: SVMSolution) -> SVMSolution | None:
    """``sol`` made exact when its optimum is the only one, else ``None``.

    ``w`` is the same at every optimum, so the decision values ``g = K (alpha * y)`` are too
    (fact 1 of :mod:`svmtrust.optimal_face`), and only multipliers of examples on the margin
    can differ between optima (fact 2). The free multipliers ``F`` are solved exactly from the
    bordered system ``[[Q_FF, y_F], [y_F^T, 0]] [alpha_F; b] = [1 - Q_FB alpha_B; -y_B^T
    alpha_B]`` (``Q = diag(y) K diag(y)``, the others held at 0 or C), the step of
    :func:`svmtrust.optimal_face._block_pivots` from the solver's split. The optimum is unique
    when (i) the result keeps every free multiplier strictly inside ``(0, C)`` and meets every
    KKT condition to :data:`svmtrust.optimal_face.EXACT_TOL` of the gradient's scale (so it
    is an exact optimum), (ii) no example at 0 or C lies on the margin (so the face is ``F``:
    fact 3), and (iii) the bordered matrix is non-singular, with reciprocal condition number
    above :data:`svmtrust.optimal_face.ONE_POINT_RCOND`: a direction ``d`` of the face, with
    ``Q_FF d = 0`` and ``y_F^T d = 0``, would be in its null space. Copies of a free example,
    conflicting copies and a kernel singular on ``F`` all fail (iii); an example at a bound on
    the margin fails (ii). Without free multipliers (i)-(ii) leave every multiplier at its
    bound, one point, and the bias is the midpoint of the KKT interval (:func:`kkt_bias`).
    These are the tests :func:`svmtrust.optimal_face.face_optimum` makes before its
    minimum-norm step (:func:`svmtrust.optimal_face._one_point`), so either way ends in the same
    point; here without an ``n x n`` matrix, with one product of ``K``, one of its rows ``F``
    and one factorisation of the ``(|F| + 1)``-square bordered matrix.
    """
    return _unique_given(
        sol,
        sparse_product(K, sol.alpha * sol.y),
        K.diagonal(),
        lambda rows: K[np.ix_(rows, rows)],
        lambda rows, coef: coef @ K[rows],  # K symmetric: its rows, not a pass over it
    )


def _unique_given(sol: SVMSolution, values, diagonal, block, product) -> SVMSolution | None:
    """`_unique_optimum` from the kernel values it reads, whatever holds them.

    Parameters
    ----------
    sol : SVMSolution
        A solver's answer (:func:`_start`).
    values : ndarray of shape (n,)
        ``K (alpha * y)`` at the solver's multipliers: the decision values without the bias.
    diagonal : ndarray of shape (n,)
        ``K``'s diagonal.
    block : callable
        ``block(rows)`` returns ``K[rows][:, rows]``, for the free multipliers' rows.
    product : callable
        ``product(rows, coef)`` returns ``K[:, rows] @ coef``, of shape (n,).

    Returns
    -------
    SVMSolution or None
        As :func:`_unique_optimum`. The fit of :mod:`svmtrust._kernel_columns` calls it with the
        kernel's columns of the support vectors only.
    """
    alpha, y, C = sol.alpha.copy(), sol.y, sol.C
    free = np.flatnonzero((alpha > 0) & (alpha < C))
    if free.size:
        step = _free_step(block(free), y, alpha, values, free)
        if step is None:
            return None
        alpha[free] += step
        if np.any(alpha[free] <= 0.0) or np.any(alpha[free] >= C):
            return None
        values = values + product(free, step * y[free])
        alpha = _snapped(alpha, C)
    scale = _gradient_scale_of(diagonal, 1.0, alpha)
    b, on_margin = _bias_and_margin(y, alpha, C, values, scale)
    if on_margin.size != free.size or _kkt_violation(y, C, alpha, values, b) > (EXACT_TOL * scale):
        return None
    return _assembled(sol, alpha, values, b, on_margin, True)


def _free_step(K_free, y, alpha, values, free):
    """The step of the free multipliers to the exact solution of :func:`_unique_optimum`'s
    bordered system, or ``None`` when that matrix is singular or ill-conditioned (reciprocal
    condition number at most :data:`svmtrust.optimal_face.ONE_POINT_RCOND`, LAPACK's estimate
    from the symmetric factorisation it is solved with). ``K_free`` is ``K[free][:, free]``."""
    block = K_free * (y[free, None] * y[None, free])
    system, sigma = _bordered_matrix(block, y[free])
    factor, pivots, info = scipy.linalg.lapack.dsytrf(system)
    if info != 0:
        return None
    rcond, info = scipy.linalg.lapack.dsycon(factor, pivots, np.linalg.norm(system, 1))
    if info != 0 or not rcond > ONE_POINT_RCOND:
        return None
    gradient = y[free] * values[free] - 1.0
    rhs = np.r_[-gradient, -sigma * float(y @ alpha)]
    solution, info = scipy.linalg.lapack.dsytrs(factor, pivots, rhs)
    return solution[:-1] if info == 0 else None


def _with_alpha(K, sol: SVMSolution, alpha, exact) -> SVMSolution:
    """``sol`` with the multipliers ``alpha`` (already exactly 0 or C at the bounds), its bias
    and margin set from :func:`_bias_and_margin`."""
    alpha = _snapped(alpha, sol.C)
    values = sparse_product(K, alpha * sol.y)
    scale = _gradient_scale_of(K.diagonal(), 1.0, alpha)
    b, on_margin = _bias_and_margin(sol.y, alpha, sol.C, values, scale, exact)
    return _assembled(sol, alpha, values, b, on_margin, exact)


def _assembled(sol: SVMSolution, alpha, values, b, on_margin, exact) -> SVMSolution:
    """``sol`` with the multipliers ``alpha``, their decision values without the bias
    ``values = K (alpha * y)``, the bias ``b`` and the margin set ``on_margin``; ``alpha``
    snapped (:func:`_snapped`) before ``b`` was computed."""
    support = np.flatnonzero(alpha > 0)
    bounded = np.flatnonzero(alpha == sol.C)
    return replace(
        sol,
        alpha=alpha,
        b=b,
        objective=float(np.sum(alpha) - 0.5 * (alpha * sol.y) @ values),
        support=support,
        free=np.flatnonzero((alpha > 0) & (alpha != sol.C)),
        bounded=bounded,
        on_margin=on_margin,
        exact=bool(exact),
    )


def _snapped(alpha, C) -> np.ndarray:
    """``alpha`` with the multipliers within :data:`svmtrust.optimal_face.EXACT_TOL` of a bound
    set to it: of the largest multiplier from 0 (every multiplier is tiny when the kernel is
    scaled by 1e100, and none of them is then 0), of ``C`` from ``C``.

    The one rule of a multiplier's category, applied by every route to an optimum before its
    bias is taken (:func:`_with_alpha`, :func:`_unique_given`, the incremental path of
    :mod:`svmtrust.incremental_svm`): such a multiplier is 0 or ``C`` to rounding (one of
    3.4e-17 at ``C = 1`` was left by the face step on a binary-feature problem, a free support
    vector on one processor and absent on another), and moving it changes every KKT condition
    and ``y^T alpha`` by rounding only."""
    alpha = np.where(alpha <= EXACT_TOL * float(np.max(alpha, initial=0.0)), 0.0, alpha)
    return np.where(alpha >= C * (1.0 - EXACT_TOL), C, alpha) if np.isfinite(C) else alpha


def _bias_and_margin(y, alpha, C, values, scale, exact=True):
    """The canonical bias and the examples on the margin of an optimum ``alpha``.

    The one rule both ways to an SVM's optimum end in (a solver's answer made canonical here,
    the path of :mod:`svmtrust.incremental_svm`): the bias of :func:`kkt_bias` (the mean over
    the free support vectors, or without them the midpoint of the interval the KKT conditions
    leave), and the margin set ``{i : y_i f(x_i) = 1}``: the free support vectors and every
    example whose margin ``y_i f(x_i) - 1`` is zero to :data:`svmtrust.optimal_face.EXACT_TOL`
    of ``scale`` (:data:`svmtrust.optimal_face.FACE_TOL` for an inexact optimum), both taken at
    the final bias.

    Parameters
    ----------
    y : ndarray of shape (n,)
    alpha : ndarray of shape (n,)
        Multipliers, exactly 0 or C at the bounds.
    C : float
    values : ndarray of shape (n,)
        ``sum_j alpha_j y_j K_ij``: the decision values without the bias.
    scale : float
        :func:`svmtrust.optimal_face._gradient_scale_of` at ``alpha``.
    exact : bool

    Returns
    -------
    b : float
    on_margin : ndarray of int
    """
    free = (alpha > 0) & (alpha < C)
    b = _equality_multiplier(y * values - 1.0, y, free, alpha == C)
    tol = (EXACT_TOL if exact else FACE_TOL) * scale
    on_margin = np.flatnonzero(free | (np.abs(y * (values + b) - 1.0) <= tol))
    return b, on_margin


def _small_box(K, y, C, solver) -> SVMSolution | None:
    """The optimum when ``C max_i sum_j |K_ij| <= 1``, from its closed form (SVM chapter), or
    ``None`` when its certificate (:func:`_judged`) is not even accurate (the general route
    then runs).

    Every ``|g_i| = |sum_j alpha_j y_j K_ij|`` is then at most 1, and the KKT conditions hold
    with every multiplier of the smaller class at ``C``; the larger class shares the same total,
    ``C`` times the smaller class's size, and its split minimises ``||w||^2``: with
    ``x = alpha / C`` on the larger class,

        minimise 1/2 x^T K_LL x - x^T K_LS 1   subject to  1^T x = |S|,  0 <= x <= 1,

    a problem free of the scale of ``C K`` (solved by Clarabel on ``K / s``, then made
    canonical). With classes of equal size every multiplier is ``C``. Solvers working at the
    scale of ``C K`` lose this split below their tolerances.
    """
    alpha = np.full(y.size, C)
    large = y == (1.0 if np.sum(y > 0) > np.sum(y < 0) else -1.0)
    exact = True
    if np.sum(large) != np.sum(~large):
        L, S = np.flatnonzero(large), np.flatnonzero(~large)
        scale = _kernel_scale(K)
        A = K[np.ix_(L, L)] / scale
        c = _linear_term(K[np.ix_(L, S)]) / scale
        face = face_optimum(A, c, np.ones(L.size), float(S.size), 1.0, _split_qp(A, c, S.size))
        alpha[L] = np.where(face.x == 1.0, C, C * face.x)
        exact = face.exact
    sol = SVMSolution(
        alpha=alpha,
        b=0.0,
        y=y,
        C=C,
        objective=0.0,
        status="optimal",
        solver="cvxpy",
        support=np.arange(y.size),
        free=np.zeros(0, dtype=int),
        bounded=np.arange(y.size),
        fallback="small_box" if solver == "libsvm" else "",
    )
    sol = _judged(K, _with_alpha(K, sol, alpha, exact))
    return sol if sol.certificate.accurate else None


def _linear_term(K_LS) -> np.ndarray:
    """``c = -K_LS 1``, the linear term of :func:`_small_box`'s split, with the entries that
    cancel to rounding set to 0.

    A sum of ``|S|`` terms is exact to ``|S| eps sum_j |K_ij|``; an entry below that bound has
    no correct digit. Left as it is, it would couple the directions of the optimal face to
    rounding noise (``c^T N = 0``, :func:`svmtrust.optimal_face.face_optimum`) and keep a point
    of the face that is not of minimum norm: mirrored examples of one class give ``w = 0`` and
    ``c`` of order 1e-16, and every multiplier of the larger class should then be equal.
    """
    c = -np.sum(K_LS, axis=1)
    noise = K_LS.shape[1] * np.finfo(float).eps * np.sum(np.abs(K_LS), axis=1)
    c[np.abs(c) <= noise] = 0.0
    return c


def _split_qp(A, c, total) -> np.ndarray:
    """``argmin 1/2 x^T A x + c^T x`` over ``1^T x = total``, ``0 <= x <= 1`` (Clarabel), snapped."""
    x = cp.Variable(A.shape[0], nonneg=True)
    objective = 0.5 * cp.sum_squares(_kernel_factor(A).T @ x) + c @ x
    problem = cp.Problem(cp.Minimize(objective), [cp.sum(x) == total, x <= 1.0])
    qp.solve(problem, "the split of a small box")
    return _categorise(x.value, 1.0)[0]


def _check_tol(tol, solver):
    """``None``, or a positive finite libsvm tolerance (a ``ValueError`` naming ``tol``)."""
    if tol is None:
        return None
    if solver != "libsvm":
        raise ValueError(f"tol: applies to solver='libsvm' only, got solver={solver!r}")
    return check_positive(tol, "tol")


def _check_problem(K, y, alpha):
    """A square finite ``K`` (not tested for PSD: callers pass the validated matrix), labels
    ``y`` and non-negative multipliers ``alpha``, all of one length."""
    K = check_kernel_matrix(K, "K", full=False)
    y = check_binary_labels(y, "y", n=K.shape[0])
    alpha = check_array(alpha, "alpha", ndim=1)
    if alpha.shape[0] != K.shape[0] or np.any(alpha < 0):
        raise ValueError(f"alpha: expected {K.shape[0]} non-negative multipliers")
    return K, y, alpha


def dual_objective(K, y, alpha) -> float:
    """The dual value ``W(alpha) = sum(alpha) - 1/2 (alpha y)^T K (alpha y)``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y, alpha : ndarray of shape (n,)

    Returns
    -------
    float
    """
    return _objective(*_check_problem(K, y, alpha))


def _objective(K, y, alpha) -> float:
    """:func:`dual_objective` of checked arguments, over the support vectors only."""
    support = np.flatnonzero(alpha)
    coef = alpha[support] * y[support]
    return float(np.sum(alpha) - 0.5 * coef @ (K[np.ix_(support, support)] @ coef))


def categorise(alpha, C):
    """Snap multipliers to 0 or C within :data:`SUPPORT_TOL` and split them into categories.

    Parameters
    ----------
    alpha : ndarray of shape (n,)
        Multipliers from a solver, possibly a little below 0 or above C.
    C : float
        The box constraint (``numpy.inf`` for a hard margin).

    Returns
    -------
    alpha : ndarray of shape (n,)
        The snapped multipliers, in [0, C].
    support, free, bounded : ndarray of int
        Indices with alpha > 0, with 0 < alpha < C, and with alpha = C.
    """
    return _categorise(check_array(alpha, "alpha", ndim=1), check_C(C))


def _categorise(alpha, C):
    """:func:`categorise` of checked arguments (a copy of ``alpha`` is snapped)."""
    alpha = np.clip(alpha, 0.0, C)
    largest = float(np.max(alpha))
    alpha[alpha <= SUPPORT_TOL * largest] = 0.0
    if np.isfinite(C):
        alpha[alpha >= (1.0 - SUPPORT_TOL) * C] = C
    support = np.flatnonzero(alpha > 0)
    bounded = np.flatnonzero(alpha == C)
    free = np.flatnonzero((alpha > 0) & (alpha != C))
    return alpha, support, free, bounded


def merge_multiplier_ties(alpha) -> np.ndarray:
    """Make multipliers that agree within the support tolerance exactly equal.

    :func:`svmtrust.ties.merged` (the library's one tie rule) with the tolerance :data:`SUPPORT_TOL`: a new group starts
    wherever two sorted neighbours differ by more than ``SUPPORT_TOL * max(alpha)``, and every
    multiplier is replaced by the largest of its group.
    Multipliers snapped to 0 or C by :func:`categorise` stay 0 and C (their
    neighbours lie more than the tolerance away). The result depends on the multiset of
    multipliers only, so p-values computed from it stay valid (Saunders et al. 1999, eq. (13));
    it can only make them larger. Multipliers are known only to a relative accuracy, and some
    ties are exact by construction (with two support vectors, one of each class, the equality
    constraint makes their multipliers equal): merging keeps rounding from breaking them.

    Parameters
    ----------
    alpha : array_like of shape (N,)
        Snapped multipliers (non-negative).

    Returns
    -------
    ndarray of shape (N,)

    Raises
    ------
    ValueError
        If ``alpha`` is not a finite non-empty 1-D array of non-negative numbers.
    """
    values = check_array(alpha, "alpha", ndim=1)
    if np.any(values < 0):
        raise ValueError(f"alpha: multipliers must be non-negative, found {values.min()!r}")
    return _merged_multipliers(values)


def _merged_multipliers(alpha: np.ndarray) -> np.ndarray:
    """:func:`merge_multiplier_ties` of multipliers the caller holds from a solution (finite,
    non-negative, 1-D): no check."""
    return merged(alpha, SUPPORT_TOL)


def kkt_bias(K, y, alpha, C, free, bounded) -> float:
    """The bias from the Karush-Kuhn-Tucker conditions.

    With ``g_i = sum_j alpha_j y_j K_ij``, a free support vector (0 < alpha_i < C) lies on the
    margin, ``y_i (g_i + b) = 1``, so ``b = y_i - g_i``; the bias is their average. Without free
    support vectors every example only bounds ``b``: ``b >= y_i - g_i`` when (y_i = +1,
    alpha_i = 0) or (y_i = -1, alpha_i = C), and ``b <= y_i - g_i`` in the two other cases; the
    bias is the midpoint of the feasible interval, as in libsvm (Chang & Lin 2011, Sec. 4.1.5).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
    alpha : ndarray of shape (n,)
        Snapped multipliers.
    C : float
    free, bounded : ndarray of int
        The categories of support vectors, from :func:`categorise`.

    Returns
    -------
    float
    """
    K, y, alpha = _check_problem(K, y, alpha)
    C = check_C(C)
    free = check_indices(free, "free", K.shape[0])
    return _bias(K, y, alpha, free, check_indices(bounded, "bounded", K.shape[0]))


def _bias(K, y, alpha, free, bounded) -> float:
    """:func:`kkt_bias` of checked arguments."""
    free_mask = np.zeros(K.shape[0], dtype=bool)
    free_mask[free] = True
    at_bound = np.zeros(K.shape[0], dtype=bool)
    at_bound[bounded] = True
    g = sparse_product(K, alpha * y)
    # The dual's gradient is y_i g_i - 1 and its equality y^T alpha = 0; the multiplier is b.
    return _equality_multiplier(y * g - 1.0, y, free_mask, at_bound)


def duplicate_groups(K, y, tol=1e-10) -> np.ndarray:
    """Group index of every example; examples share a group when they are the same point.

    Two examples are the same point when they carry the same label and their feature-space
    distance ``K_ii + K_jj - 2 K_ij`` is at most ``tol * max(diag(K))`` (rounding in a kernel
    leaves copies a hair apart, so an exact comparison would miss them). The dual does not
    decide how a group shares its multipliers (any split with the same sum is optimal), so
    solvers can only be compared group by group.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    y : ndarray of shape (n,)
    tol : float
        Relative tolerance on the squared feature-space distance.

    Returns
    -------
    ndarray of int, shape (n,)
        Group labels ``0, ..., n_groups - 1``, numbered in order of first appearance.
    """
    K = check_kernel_matrix(K, "K", full=False)
    y = check_binary_labels(y, "y", n=K.shape[0])
    return _identical_groups(K * np.outer(y, y), y, check_positive(tol, "tol"))


def _solution(K, y, C, alpha_raw, status, solver, n_iter=0) -> SVMSolution:
    """Assemble an :class:`SVMSolution` from a solver's raw multipliers, with its bias and dual
    value (:func:`kkt_bias`, :func:`dual_objective`)."""
    sol = _start(y, C, alpha_raw, status, solver, n_iter)
    return replace(
        sol,
        b=_bias(K, y, sol.alpha, sol.free, sol.bounded),
        objective=_objective(K, y, sol.alpha),
    )


def _start(y, C, alpha_raw, status, solver, n_iter=0) -> SVMSolution:
    """A solver's raw multipliers snapped (:func:`categorise`), bias and dual value not yet set
    (NaN): the start of the canonical step (:func:`_canonical`), which sets them."""
    alpha, support, free, bounded = _categorise(alpha_raw, C)
    return SVMSolution(
        alpha=alpha,
        b=np.nan,
        y=y,
        C=C,
        objective=np.nan,
        status=status,
        solver=solver,
        support=support,
        free=free,
        bounded=bounded,
        n_iter=int(n_iter),
    )


def _solve_cvxpy(K, y, C):
    """Solve the dual with cvxpy and Clarabel; return raw multipliers and the status.

    Clarabel's tolerances are partly absolute, so the problem is rescaled to have multipliers
    and objective of order one. With ``s = mean(diag(K))`` and ``alpha = t x``, the dual becomes
    ``max sum(x) - (t s / 2) x^T (Q / s) x`` over ``0 <= x <= C / t`` (divided by ``t``). Up to
    a box of :data:`LARGE_BOX` times ``1 / s`` the scale is ``t = 1 / s`` (box ``C s``): unscaled,
    a kernel with entries near 4e4 (the polynomial kernel of Saunders et al. on [-1, 1] pixels)
    left a multiplier of an example outside the margin at 5e-5 of the largest, above
    :data:`SUPPORT_TOL`. Beyond it ``t = C`` (box 1, quadratic term ``C s``, objective divided by
    ``C s`` as well): a box of 1e9 over ``1 / s`` made Clarabel report "unbounded".
    """
    scale = float(np.mean(np.diag(K)))
    scale = scale if scale > 0 else 1.0
    G = _kernel_factor(K / scale).T * y
    x = cp.Variable(K.shape[0], nonneg=True)
    constraints = [y @ x == 0]
    if np.isfinite(C) and C * scale > LARGE_BOX:
        unit, weight = C, 1.0 / (C * scale)
        constraints.append(x <= 1.0)
    else:
        unit, weight = 1.0 / scale, 1.0
        if np.isfinite(C):
            constraints.append(x <= C * scale)
    objective = weight * cp.sum(x) - 0.5 * cp.sum_squares(G @ x)
    problem = cp.Problem(cp.Maximize(objective), constraints)
    try:
        qp.solve(problem, "the SVM dual")
    except SolveError as err:
        if err.status != cp.UNBOUNDED:
            raise
        raise SolveError("cvxpy", err.status, "the data are not separable") from err
    return np.asarray(x.value, dtype=float) * unit, problem.status


def _kernel_scale(K) -> float:
    """The power of two nearest ``mean(diag(K))`` (1 for a zero diagonal): the kernel's scale.

    libsvm solves ``K / s`` with box ``C s``, whose multipliers are ``s`` times those of ``K``
    and whose gradients ``sum_j alpha_j y_j K_ij - 1`` are the same, so its stopping tolerance
    keeps its meaning. Scaled so, the single-precision kernel cache neither underflows (below
    about 1e-38) nor overflows (above about 3e38); and a power of two divides every entry
    exactly, so on a kernel already near 1 libsvm does the same arithmetic as on ``K`` itself.
    """
    mean_diag = float(np.mean(np.diag(K)))
    return 2.0 ** np.round(np.log2(mean_diag)) if mean_diag > 0 else 1.0


def _libsvm_box(K, y, box, tol, scale, kernel=None):
    """Solve the dual with libsvm for one finite box, at the tightest tolerance it reaches.

    Returns the raw multipliers (``None`` if libsvm stopped at its iteration limit), the
    status (``"optimal"`` or ``"max_iter_reached"``) and libsvm's iterations, summed over its
    runs. A given ``tol`` is used as it is; by default (``tol=None``) libsvm runs at
    :data:`LIBSVM_TOL`, and again at :data:`LIBSVM_REACHABLE_TOL` if the first run takes more
    than :data:`LIBSVM_ACCURATE_ITER` iterations per example. A default tolerance is relative
    to ``max(1, box * scale)``, since the gradient libsvm tests grows with ``box * K``.

    ``kernel`` (see :func:`_run_libsvm`) makes ``K`` the data of a kernel libsvm computes itself.
    """
    if tol is not None:
        return _run_libsvm(K, y, box, tol, scale, LIBSVM_MAX_ITER, kernel)
    size = max(1.0, box * scale)
    alpha, status, n_iter = _run_libsvm(
        K, y, box, LIBSVM_TOL * size, scale, LIBSVM_ACCURATE_ITER * K.shape[0], kernel
    )
    if alpha is not None:
        return alpha, status, n_iter
    alpha, status, more = _run_libsvm(
        K, y, box, LIBSVM_REACHABLE_TOL * size, scale, LIBSVM_MAX_ITER, kernel
    )
    return alpha, status, n_iter + more


#: The arguments scikit-learn's ``SVC(kernel="precomputed")`` (version pinned in
#: requirements.txt) passes to its libsvm wrapper, besides the data, the box, the tolerance and
#: the iteration limit: a C-SVC, unit class weights, no sample weights, libsvm's shrinking
#: heuristic, a 200 MB kernel cache and no probability estimates (the other fields are unused
#: with a precomputed kernel).
_LIBSVM_SETTINGS = {
    "svm_type": 0,
    "kernel": "precomputed",
    "degree": 3,
    "gamma": 0.0,
    "coef0": 0.0,
    "nu": 0.5,
    "epsilon": 0.0,
    "class_weight": np.ones(2),
    "sample_weight": np.empty(0),
    "shrinking": 1,
    "probability": 0,
    "cache_size": 200.0,
    "random_seed": 0,
}


def _run_libsvm(K, y, box, eps, scale, max_iter, kernel=None):
    """One run of libsvm, as ``SVC(kernel="precomputed")`` runs it, on ``K / scale`` with box
    ``box * scale``; with ``kernel``, a dict of libsvm's kernel settings (``{"kernel": "rbf",
    "gamma": 0.5}``), as ``SVC(kernel="rbf", gamma=0.5)`` runs it on the data ``K`` (scale 1).

    The wrapper ``SVC.fit`` calls (``sklearn.svm._libsvm.fit``) is called directly, with the
    arguments ``SVC.fit`` gives it (:data:`_LIBSVM_SETTINGS`; the labels as class indices
    0 and 1): the same multipliers to the last bit (a unit test compares them), without
    ``SVC.fit``'s validation of data the door of :func:`fit_svm` has checked (a pass over ``K``
    and, on small problems, more time than the solve).

    Returns the raw multipliers of ``K`` (``None`` if libsvm stopped at ``max_iter``), the
    status and the iterations (``SVC.n_iter_``, or ``max_iter`` for a stopped run). See
    :func:`_kernel_scale` for why the kernel is scaled.
    """
    matrix = np.ascontiguousarray(K if scale == 1.0 else K / scale)
    _libsvm.set_verbosity_wrap(0)
    support, _, _, dual_coef, _, _, _, status, n_iter = _libsvm.fit(
        matrix,
        np.where(y > 0, 1.0, 0.0),
        C=box * scale,
        tol=eps,
        max_iter=max_iter,
        **{**_LIBSVM_SETTINGS, **(kernel or {})},
    )
    if status == 1:
        return None, "max_iter_reached", max_iter
    alpha = np.zeros(K.shape[0])
    # libsvm's coefficients are +-alpha_i for the support vectors.
    alpha[support] = np.abs(dual_coef[0]) / scale
    return alpha, "optimal", int(np.sum(n_iter))


def _solve_libsvm(K, y, C, tol=None):
    """Solve the dual with libsvm; return raw multipliers (or ``None``), a status, iterations.

    The status is ``"optimal"``, ``"max_iter_reached"`` or ``"unbounded"``. A hard margin is
    solved as a sequence of soft margins with boxes growing tenfold from ``1 / s``, ``s`` the
    kernel's scale: as soon as no multiplier reaches the box, the box is inactive and the
    soft-margin solution is the hard-margin one. If the box passes ``HARD_MARGIN_C / s`` with
    multipliers still at the box, the status is ``"unbounded"``: the data are probably not
    separable. Iterations are summed over the boxes.
    """
    scale = _kernel_scale(K)
    if np.isfinite(C):
        return _libsvm_box(K, y, C, tol, scale)
    box, total = 1.0 / scale, 0
    while box <= HARD_MARGIN_C / scale:
        alpha, status, n_iter = _libsvm_box(K, y, box, tol, scale)
        total += n_iter
        if alpha is None or np.all(alpha < (1.0 - SUPPORT_TOL) * box):
            return alpha, status, total
        box *= 10.0
    return None, "unbounded", total


#: What a libsvm status means, for the messages of :func:`_fit_libsvm`.
_LIBSVM_CAUSES = {
    "max_iter_reached": f"libsvm stopped at its limit of {LIBSVM_MAX_ITER} iterations",
    "kkt_violation": "libsvm's answer is not accurate (svmtrust.certificate.ACCURATE_TOL)",
    "not_exact": "libsvm's answer could not be certified exact",
    "unbounded": (
        f"the hard-margin multipliers reach the largest box, {HARD_MARGIN_C:.0e} "
        "over the kernel's scale: the data are probably not separable"
    ),
}


def _fit_libsvm(K, y, C, tol):
    """libsvm with an explicit ``tol``: its answer as it is (bias and dual value from the KKT
    conditions), no certificate; a failure raises :class:`SolveError`."""
    alpha, status, n_iter = _solve_libsvm(K, y, C, tol)
    if alpha is None:
        raise SolveError("libsvm", status, _LIBSVM_CAUSES[status])
    return _solution(K, y, C, alpha, status, "libsvm", n_iter)


def _exact_fallback(K, y, C, reason, n_iter):
    """Solve with cvxpy after libsvm failed with status ``reason``; a failure names both.

    Returns the exact :class:`SVMSolution` with ``solver="cvxpy"``, ``fallback=reason`` and
    libsvm's ``n_iter``. If the exact solver fails too, its status is the real cause (e.g.
    ``"unbounded"``: the hard margin has no solution), and the :class:`SolveError` says so.
    """
    try:
        alpha, status = _solve_cvxpy(K, y, C)
    except SolveError as err:
        raise SolveError(
            "libsvm",
            err.status,
            f"{_LIBSVM_CAUSES[reason]}, and the exact solver (cvxpy) then failed with status "
            f"{err.status!r}" + (f": {err.detail}" if err.detail else ""),
        ) from err
    return replace(_start(y, C, alpha, status, "cvxpy", n_iter), fallback=reason)


#: Relative tolerance of :func:`check_solution`'s test that a solution belongs to a Gram matrix:
#: its stored dual value against the one recomputed on that matrix, relative to the size of
#: the terms, ``sum(alpha) + 1/2 |alpha y|^T |K| |alpha y|``. Rounding in the recomputation
#: stays near ``n * 1e-16`` of that size; another kernel moves the quadratic term by far more.
SOLUTION_TOL = 1e-8


def check_solution(sol, n: int, y=None, C=None, K=None, name: str = "sol"):
    """Return ``sol`` if it is an :class:`SVMSolution` on ``n`` points, trained
    (when given) on the labels ``y``, with the box constraint ``C`` and on the Gram matrix ``K``.

    A solution of another problem gives wrong spans and leave-one-out errors without any
    warning, so it is refused here. That ``sol`` was trained on ``K`` is tested through its
    stored dual value ``W(alpha) = sum(alpha) - 1/2 (alpha y)^T K (alpha y)``
    (:func:`dual_objective`), recomputed on ``K`` over the support vectors and
    compared within :data:`SOLUTION_TOL`: a cost of ``O(|SV|^2)``, next to the ``O(n^2)`` of
    checking ``K``.

    Raises
    ------
    ValueError
        Naming ``name``, if ``sol`` is not an SVMSolution, has another number of multipliers,
        no support vector, or was trained with other labels, another ``C`` or another kernel.
    """
    if not isinstance(sol, SVMSolution):
        raise ValueError(f"{name}: expected an SVMSolution, got {type(sol).__name__}")
    if sol.alpha.shape != (n,):
        raise ValueError(f"{name}: has {sol.alpha.shape[0]} multipliers for {n} points")
    if sol.support.size == 0:
        raise ValueError(f"{name}: has no support vectors")
    if y is not None and not np.array_equal(sol.y, y):
        raise ValueError(f"{name}: was trained on other labels than y")
    if C is not None and sol.C != C:
        raise ValueError(f"{name}: was trained with C = {sol.C!r}, not C = {C!r}")
    if K is not None:
        _check_trained_on(sol, K, name)
    return sol


def _check_trained_on(sol, K: np.ndarray, name: str) -> None:
    """Refuse ``sol`` unless its dual value recomputed on ``K`` equals the stored one
    (:func:`check_solution`)."""
    sv = sol.support
    block = K[np.ix_(sv, sv)]
    recomputed = dual_objective(block, sol.y[sv], sol.alpha[sv])
    size = float(np.sum(sol.alpha)) + 0.5 * float(sol.alpha[sv] @ np.abs(block) @ sol.alpha[sv])
    if not abs(recomputed - sol.objective) <= SOLUTION_TOL * size:
        raise ValueError(
            f"{name}: was trained on another kernel matrix than K (dual value {sol.objective:.6g}"
            f", {recomputed:.6g} on K)"
        )
