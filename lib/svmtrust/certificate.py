"""The certificate of an SVM optimum: what :func:`svmtrust.svm.fit_svm` checks before it returns.

Whatever route found the multipliers (Clarabel, libsvm, the face step of
:mod:`svmtrust.optimal_face`, a fallback), the answer is judged here from the problem and the
answer alone: ``K``, ``y``, ``C``, the multipliers ``alpha`` and the bias ``b``. Three
conditions make ``alpha`` an optimum of the dual and ``b`` a bias of the primal optimum
(Cortes & Vapnik 1995, eq. (19); the SVM chapter, "The KKT conditions"):

1. **Box.** ``0 <= alpha_i <= C`` for every ``i`` (tested exactly: the routes snap their
   multipliers to the bounds before they are judged).
2. **Balance.** ``y^T alpha = 0``: ``|y^T alpha|`` at most :data:`BALANCE_TOL` of
   ``sum(alpha)``, the accuracy the face step's projection keeps
   (:data:`svmtrust.optimal_face.SOLVE_TOL`); the infeasible points the fourth review found
   had ``|y^T alpha|`` of 0.15 to 1 of it.
3. **Complementary slackness.** With the margins ``m_i = y_i (sum_j alpha_j y_j K_ij + b)``,
   ``m_i >= 1`` where ``alpha_i = 0``, ``m_i = 1`` where ``0 < alpha_i < C`` and ``m_i <= 1``
   where ``alpha_i = C``. The largest shortfall, in margin units, is the answer's *KKT
   violation*. A bias in the interval the conditions leave is the solution's own: the
   conditions are judged at the ``b`` the solution carries.

These make a duality-gap bound too: with (1) and (2), the primal objective at ``(w, b)`` exceeds
the dual value by ``sum_i alpha_i (m_i - 1) + C sum_i max(0, 1 - m_i)``, at most ``n C`` times
the KKT violation.

The tolerance policy
--------------------
A margin computed in floating point carries rounding of the size of its terms: the *margin
rounding* ``tau = EXACT_TOL * s``, with ``s`` the gradient's scale of
:func:`svmtrust.optimal_face._gradient_scale_of` (a bound on ``sum_j alpha_j |K_ij|``) plus
``|b|``. The certificate has two levels:

* **exact**: (1), (2), the KKT violation at most ``tau``, ``tau`` itself at most
  :data:`MARGIN_TOL`, every example at a bound on the margin (to ``tau``) or clearly off it
  (beyond :data:`FACE_BAND` times the answer's own accuracy), and every multiplier at its
  bound or clearly away
  from it (beyond
  :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of the largest from 0, of ``C`` from ``C``),
  and the face conditions (:func:`_face_conditions`): the free multipliers fixed by the data
  to ``MULTIPLIER_TOL`` (no direction that keeps ``y^T alpha`` moves the margins, over every
  row, by less than their rounding without being an exact zero), and along the exact
  directions (copies) the face's point of smallest norm, to ``MULTIPLIER_TOL``. The margins
  are then right to ``MARGIN_TOL`` (in margin units, those the p-values and the span rule
  compare), every multiplier's value and category is decided by the data or by the
  canonical rule, and equal in exact arithmetic means equal to rounding.
  A kernel so ill-scaled that its margins cannot be computed to ``MARGIN_TOL`` (entries of 1e12
  with multipliers of 100: ``tau`` near 1e-2) has no exact answer in double precision, whatever
  the solver: it is reported, not certified.
* **accurate**: (1), the balance within :data:`ACCURATE_TOL` of ``sum(alpha)``, and the KKT
  violation within ``ACCURATE_TOL`` of :func:`_kkt_scale` (a bound on every ``|m_i|`` term): what
  an iterative solver reaches; :func:`svmtrust.svm.fit_svm` returns it with ``exact=False`` and
  an :class:`svmtrust.svm.InexactWarning` that prints :meth:`Certificate.describe`.

An answer that is not even accurate is never returned as an optimum.

Every threshold, and what it decides
------------------------------------
The certificate is the only judge of what :func:`svmtrust.svm.fit_svm` and the incremental path
of :mod:`svmtrust.incremental_svm` return as exact: its constants are the policy. Every other
threshold of the library steers a route (which step to try, when to stop, what to start from),
and a wrong call there costs a fallback or a warning, never a wrong answer called exact; or it
decides something else, once, in the module named. ``tests/test_certificate.py`` checks that
every module-level threshold of the library is listed here.

*The judge* (this module and :mod:`svmtrust.optimal_face`):

- ``EXACT_TOL`` (64 machine epsilons): the rounding of a sum, relative to its terms; the margin
  rounding ``tau`` is ``EXACT_TOL`` times the margins' terms.
- ``MULTIPLIER_TOL`` (1e-8 of the largest multiplier): the accuracy an exact answer's
  multipliers have; a multiplier nearer a bound than this is undecided, and a direction of the
  face that moves the margins by less than ``tau`` over this distance is unfixed.
- ``MARGIN_TOL`` (1e-4): the largest ``tau`` of an exact answer.
- ``FACE_BAND`` (100): how far beyond the answer's own accuracy an example off the face must be.
- ``BALANCE_TOL`` (``SOLVE_TOL``, 1e-9): ``|y^T alpha|`` of an exact answer, relative to
  ``sum(alpha)``.
- ``ACCURATE_TOL`` (1e-5): the accurate level, the least an answer returned at all must meet
  (and ``LIBSVM_KKT_TOL`` of :mod:`svmtrust.svm`, the same number: when libsvm's answer is
  handed to the exact solver).

*The routes* (each derived from the judge's constants where it mirrors one of its conditions):

- :mod:`svmtrust.optimal_face`: ``ONE_POINT_RCOND`` (``EXACT_TOL / MULTIPLIER_TOL``, a face
  taken as one point) and ``RANK_AMBIGUITY`` (``1 / MULTIPLIER_TOL``, a face whose extent
  rounding decides), the canonical step's own versions of the unfixed test, read from the
  face's block where the certificate reads every row; ``RANK_TOL`` (singular values a bordered
  solve ignores), ``SOLVE_TOL`` (a linear system counts as solved), ``FACE_TOL`` (the face of
  an inexact optimum), ``IDENTICAL_TOL`` (copies, whose values are equalised).
- :mod:`svmtrust.incremental_svm`: ``SCHUR_TOL`` (an example joins the path's margin set) and
  ``EVENT_TIE_TOL`` (two events of the path at once); :mod:`svmtrust.span`: ``LOO_SCHUR_TOL``
  (the same test on the leave-one-out path), ``LOO_MARGIN_GAP``, ``LOO_ALPHA_GAP`` and
  ``LOO_SAFETY`` (when the decremental route's answer is kept rather than retrained),
  ``HARD_BOX_FACTOR`` (the finite box a hard margin is first tried in), ``SPAN_RIDGE`` (the
  ridge of a singular span system) and ``EIGENSPACE_ROUNDINGS`` (eigenvalues taken as one in
  the rescaling).
- :mod:`svmtrust.svm`: ``SUPPORT_TOL`` (1e-6: a solver's raw multipliers snapped to their bounds
  before the canonical step starts from them; the categories returned are the certificate's),
  ``OUTSIDE_MARGIN_TOL`` (a test example so far outside the training margin that no augmented
  SVM is solved), ``LARGE_BOX`` (Clarabel's multipliers measured in units of ``C``) and
  ``HARD_MARGIN_C`` (the largest box libsvm is given for a hard margin).

*The solvers' settings*: ``LIBSVM_TOL`` and ``LIBSVM_REACHABLE_TOL`` (libsvm's ``eps``),
``CLARABEL_TOL`` (:data:`svmtrust.qp.TOL`), and in :mod:`svmtrust.qp` ``TOL``, ``CONE_TOL`` and
``DEFAULT_TOL``; ``SELECTION_TOL`` of :mod:`svmtrust.nonconformity_selection` (the paper's
libsvm setting, inexact by design).

*Other decisions, each written once*: ``TIE_TOL`` of :mod:`svmtrust.ties` (the one tie rule of
every score the library ranks), ``PSD_TOL`` of :mod:`svmtrust.validation` (a kernel matrix's
check), ``SOLUTION_TOL`` of :mod:`svmtrust.svm` (a solution belongs to a Gram matrix),
``CRITICAL_TOL`` of :mod:`svmtrust.discrepancy` (a critical support vector), and in the
experiments ``BAND_LEVEL`` and ``FAMILY_LEVEL`` (:mod:`svmtrust.experiments.confidence_compared`,
statistical levels) and ``PERCENT_TOL`` (:mod:`svmtrust.experiments.tcm_nn`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .optimal_face import (
    EXACT_TOL,
    MULTIPLIER_TOL,
    SOLVE_TOL,
    _bordered_matrix,
    _gradient_scale_of,
    sparse_product,
)
from .validation import (
    check_array,
    check_binary_labels,
    check_C,
    check_kernel_matrix,
    check_numeric,
)

__all__ = ["ACCURATE_TOL", "BALANCE_TOL", "FACE_BAND", "MARGIN_TOL", "Certificate", "certify"]

#: Largest ``|y^T alpha| / sum(alpha)`` of an exact answer: the relative slack
#: (:data:`svmtrust.optimal_face.SOLVE_TOL`) within which the face step's projection keeps its
#: point in the box before clipping it there (2e-11 measured at C = 2^15).
BALANCE_TOL = SOLVE_TOL

#: Largest margin rounding (``EXACT_TOL`` times the terms' size, in margin units) under which an
#: optimum can be certified exact: margins known to a ten-thousandth of the margin's width. On
#: the book's problems the rounding stays below 1e-7 (C up to 2^15 with RBF kernels on a few
#: hundred examples); the ill-scaled polynomial kernel of the fourth review, (100 x.z +
#: 1000)^3 at C = 100, has about 1e-2, and a linear kernel on 30 noisy points 5e-3 at C = 1e10.
MARGIN_TOL = 1e-4

#: An example at 0 or ``C`` whose margin misses 1 by at most this many times the accuracy the
#: answer's margins have (its own KKT violation, or one machine epsilon of the terms, whichever
#: is larger) may lie on the true optimum's face: whether the face, and so the minimum-norm
#: point, includes it is then the bits' choice. With near-copies under an RBF kernel
#: (gamma 2^-9, C = 512) three row orders gave three answers, each meeting every KKT condition
#: to ``tau``, whose multipliers differed by up to 0.4 of the largest: the nearest margin off
#: the face was 17 times their KKT violation. A small box at C = 1e-12, whose margins all lie
#: within 1e-12 of 1, has its nearest at 600 epsilons of the terms, and is decided.
FACE_BAND = 100.0

#: Relative accuracy of an answer returned as inexact: the KKT violation relative to
#: :func:`_kkt_scale` and ``|y^T alpha|`` relative to ``sum(alpha)``. libsvm's accurate solves
#: stay below 2e-7 on the test problems; an infeasible point (``y^T alpha = 2C``) is far above.
ACCURATE_TOL = 1e-5


@dataclass(frozen=True)
class Certificate:
    """How well an answer meets the conditions of an SVM optimum (module notes).

    Attributes
    ----------
    box : float
        Largest distance of a multiplier outside ``[0, C]`` (0 when every one is inside).
    balance : float
        ``|y^T alpha| / sum(alpha)`` (0 without support vectors).
    kkt : float
        Largest KKT violation at the solution's bias, in margin units.
    nearest : float
        The smallest ``|m_i - 1|`` beyond ``rounding`` over the examples at 0 or ``C``.
    undecided : int
        Multipliers within :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of a bound and not at
        it.
    unfixed : int
        Directions of the face along which the margins' rounding leaves the multipliers
        unknown to ``MULTIPLIER_TOL`` (:func:`_face_conditions`); 0 when the certificate was
        computed without the kernel's columns.
    off_canonical : float
        Distance, relative to the largest multiplier, from ``alpha`` to the face's point of
        smallest norm along the face's exact directions (:func:`_face_conditions`).
    rounding : float
        The margin rounding ``tau`` of the answer, in margin units.
    scale : float
        :func:`_kkt_scale` of the answer, the unit of the accurate level.
    n : int
        Number of examples.
    """

    box: float
    balance: float
    kkt: float
    nearest: float
    undecided: int
    unfixed: int
    off_canonical: float
    rounding: float
    scale: float
    n: int

    @property
    def exact(self) -> bool:
        """Conditions (1)-(3) to rounding, and the rounding at most :data:`MARGIN_TOL`."""
        return (
            self.box == 0.0
            and self.balance <= BALANCE_TOL
            and self.kkt <= self.rounding
            and self.rounding <= MARGIN_TOL
            and self.nearest > FACE_BAND * max(self.kkt, self.rounding / 64.0)
            and self.undecided == 0
            and self.unfixed == 0
            and self.off_canonical <= MULTIPLIER_TOL
        )

    @property
    def accurate(self) -> bool:
        """Conditions (1)-(3) to :data:`ACCURATE_TOL` (module notes)."""
        return (
            self.box == 0.0
            and self.balance <= ACCURATE_TOL
            and self.kkt <= ACCURATE_TOL * self.scale
        )

    def describe(self) -> str:
        """Which condition holds to what accuracy, in a sentence for a warning or an error."""
        box = (
            "every multiplier in [0, C]"
            if self.box == 0.0
            else f"a multiplier {self.box:.2e} outside [0, C]"
        )
        return (
            f"{box}; |y'alpha| = {self.balance:.2e} of sum(alpha) (exact needs at most {BALANCE_TOL:.0e}); "
            f"KKT violation {self.kkt:.2e} in margin units (rounding {self.rounding:.1e}, "
            f"exact needs at most {MARGIN_TOL:.0e}; accurate {ACCURATE_TOL * self.scale:.1e}); "
            f"nearest margin off the face {self.nearest:.1e} from 1 (exact needs more than "
            f"{FACE_BAND:.0f} times the KKT violation or the terms' epsilon); "
            f"{self.undecided} multipliers within "
            f"{MULTIPLIER_TOL:.0e} of a bound (exact needs none); {self.unfixed} directions "
            f"of the face that the margins' rounding leaves unfixed (exact needs none); "
            f"{self.off_canonical:.1e} from the face's point of smallest norm (exact needs at "
            f"most {MULTIPLIER_TOL:.0e})"
        )


def certify(K, y, C, alpha, b) -> Certificate:
    """The certificate of the multipliers ``alpha`` with bias ``b`` for the SVM on ``K, y, C``.

    Computed from the problem and the answer alone, with one product of ``K`` over the support
    vectors (:func:`svmtrust.optimal_face.sparse_product`): for a solution found elsewhere, or
    to re-judge an :class:`svmtrust.svm.SVMSolution` (``certify(K, sol.y, sol.C, sol.alpha,
    sol.b)``).

    Parameters
    ----------
    K : array_like of shape (n, n)
        The Gram matrix (square and finite; positive semi-definite is the caller's).
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float
        The box (``numpy.inf`` for a hard margin).
    alpha : ndarray of shape (n,)
        The multipliers to judge.
    b : float
        Their bias.

    Returns
    -------
    Certificate

    Raises
    ------
    ValueError
        Naming the argument: ``K`` not square or not finite, ``y`` not in {-1, +1} or of
        another length, a bad ``C``, ``alpha`` not finite or of another length, ``b`` not a
        finite number.
    """
    K = check_kernel_matrix(K, "K", full=False)
    y = check_binary_labels(y, "y", n=K.shape[0])
    C = check_C(C)
    alpha = check_array(alpha, "alpha", ndim=1)
    if alpha.shape[0] != K.shape[0]:
        raise ValueError(f"alpha: expected {K.shape[0]} multipliers, got {alpha.shape[0]}")
    bias = check_numeric(b, "b")
    if bias.ndim != 0 or not np.isfinite(bias):
        raise ValueError(f"b: expected a finite number, got {b!r}")
    return _certify(K, y, C, alpha, float(bias))


def _certify(K, y, C, alpha, b) -> Certificate:
    """:func:`certify` of checked arguments (the fits of :mod:`svmtrust.svm`)."""
    values = sparse_product(K, alpha * y)
    return _certify_values(y, C, alpha, b, values, K.diagonal(), K, lambda face: K[:, face])


def _certify_values(y, C, alpha, b, values, diagonal, K=None, columns=None) -> Certificate:
    """:func:`certify` from the decision values without the bias, ``values = K (alpha * y)``,
    and ``K``'s diagonal (``K`` itself only for :func:`_kkt_scale`; without it the scale is
    bounded from the diagonal). ``columns(face)`` returns ``K[:, face]`` for the face
    conditions (:func:`_face_conditions`); without it they are not judged (``unfixed = 0``,
    ``off_canonical = 0``): the incremental path's check before its face step."""
    upper = float(np.max(alpha, initial=0.0) - C) if np.isfinite(C) else 0.0
    box = max(0.0, -float(np.min(alpha, initial=0.0)), upper)
    total = float(np.sum(alpha))
    balance = abs(float(y @ alpha)) / total if total > 0 else 0.0
    terms = _gradient_scale_of(diagonal, 0.0, alpha)  # the multipliers' terms alone
    rounding = EXACT_TOL * (max(terms, 1.0) + abs(float(b)))
    unfixed, off_canonical = 0, 0.0
    if columns is not None and box == 0.0:
        unfixed, off_canonical = _face_conditions(columns, y, C, alpha, values + b, rounding, terms)
    return Certificate(
        box=box,
        balance=balance,
        kkt=_kkt_violation(y, C, alpha, values, b),
        nearest=_nearest_off_face(y, C, alpha, values, b, rounding),
        undecided=_undecided(alpha, C),
        unfixed=unfixed,
        off_canonical=off_canonical,
        rounding=float(rounding),
        scale=_kkt_scale(alpha, diagonal, K),
        n=int(y.size),
    )


def _kkt_violation(y, C, alpha, values, b) -> float:
    """The largest shortfall of condition (3) of the module notes, in margin units: ``1 - m_i``
    where ``alpha_i < C``, ``m_i - 1`` where ``alpha_i > 0`` (both where ``alpha_i`` is free),
    with ``m_i = y_i (values_i + b)``; 0 at an optimum."""
    margins = y * (values + b)
    shortfall = np.where(alpha < C, np.maximum(1.0 - margins, 0.0), 0.0)
    shortfall = np.maximum(shortfall, np.where(alpha > 0, margins - 1.0, 0.0))
    return float(np.max(shortfall, initial=0.0))


def _undecided(alpha, C) -> int:
    """The multipliers whose category rounding decides (:attr:`Certificate.undecided`)."""
    return int(np.sum(alpha != _at_bounds(alpha, C)))


def _at_bounds(alpha, C) -> np.ndarray:
    """``alpha`` with every multiplier within :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of a
    bound (of the largest from 0, of ``C`` from ``C``) set to it: the candidate
    :func:`svmtrust.svm.fit_svm` certifies when an answer's only failing is undecided
    multipliers (a multiplier of 4e-16 left by a small box's split, with every KKT condition
    holding to rounding at 0)."""
    band = MULTIPLIER_TOL * float(np.max(alpha, initial=0.0))
    alpha = np.where((alpha > 0.0) & (alpha < band), 0.0, alpha)
    if np.isfinite(C):
        alpha = np.where((alpha < C) & (alpha > C * (1.0 - MULTIPLIER_TOL)), C, alpha)
    return alpha


def _nearest_off_face(y, C, alpha, values, b, rounding) -> float:
    """The smallest ``|m_i - 1|`` above ``rounding`` over the examples at 0 or ``C``
    (:attr:`Certificate.nearest`)."""
    residual = np.abs(y * (values + b) - 1.0)
    off = ((alpha == 0.0) | (alpha == C)) & (residual > rounding)
    return float(np.min(residual[off], initial=np.inf))


def _face_conditions(columns, y, C, alpha, decision, rounding, terms):
    """Whether the face's multipliers are fixed by the data, and how far ``alpha`` is from the
    face's point of smallest norm: ``(unfixed, off_canonical)`` of :class:`Certificate`.

    The face ``I`` is every free example and every example at a bound whose margin is 1 to
    ``rounding`` (a bound a direction may leave). A change ``delta`` of its multipliers that
    keeps ``y^T alpha`` (``delta = Z t``, ``Z`` an orthonormal basis of ``y_I^T delta = 0``),
    with the bias's best change, moves the margins by ``P Q_{:I} Z t`` (``Q = diag(y) K
    diag(y)``, ``P = I - y y^T / n`` the bias's share projected out), over every row, not only
    the face's: a near-copy's column differs from its twin's by 1e-11 in rows off the face
    while their squared distance ``K_ii + K_jj - 2 K_ij`` is exactly 0, so the face's own
    block hides it. With ``sigma`` the singular values of ``G = P Q_{:I} Z`` and the rounding
    cut of :func:`_face_spectrum`:

    * *unfixed*: ``sigma`` above the cut but at most ``EXACT_TOL terms / (MULTIPLIER_TOL
      max(alpha))``. A move of ``MULTIPLIER_TOL`` of the largest multiplier along it changes
      the margins by less than the rounding of their terms (``terms``, the gradient's scale
      without the margin's constant 1 and the bias, which the projection removes), so the data
      do not decide the multipliers to that accuracy, and the canonical rule does not apply
      (the direction is not exact). Near-copies under an RBF kernel (gamma 2^-9, C = 2^15):
      two row orders gave two answers meeting every KKT condition to 5e-9, whose multipliers
      were 0.10 of the largest apart. A direction that bounds block both ways is counted too:
      the test is sufficient, not necessary, and an answer it refuses is returned as accurate.
    * ``off_canonical``: ``sigma`` at most the cut is an exact direction of the face (copies of
      an example, conflicting copies, ``w = 0``), along which the canonical rule decides.
      ``alpha`` is the point of smallest norm of ``alpha_I + span N`` within the box (``N``
      those directions) when ``N^T alpha_I`` lies in the cone of the bounds ``alpha_I``
      touches (the KKT conditions of that projection); ``off_canonical`` is the residual of
      that non-negative least squares problem, over the largest multiplier.
    """
    top = float(np.max(alpha, initial=0.0))
    if top == 0.0:
        return 0, 0.0
    face = np.flatnonzero(((alpha > 0) & (alpha < C)) | (np.abs(y * decision - 1.0) <= rounding))
    band = EXACT_TOL * terms / (MULTIPLIER_TOL * top)
    sigma, directions, cut = _face_spectrum(columns, y, face, band)
    unfixed = int(np.sum((sigma > cut) & (sigma <= band)))
    N = directions[:, sigma <= cut]
    if N.shape[1] == 0:
        return unfixed, 0.0
    x = alpha[face]
    touching = np.flatnonzero((x == 0.0) | (x == C))
    if touching.size == 0:
        return unfixed, float(np.linalg.norm(N.T @ x)) / top
    cone = N[touching].T * np.where(x[touching] == 0.0, 1.0, -1.0)
    _, residual = scipy.optimize.nnls(cone, N.T @ x)
    return unfixed, float(residual) / top


def _face_spectrum(columns, y, index, limit):
    """The singular values of ``G = P Q_{:I} Z`` of :func:`_face_conditions` on the indices
    ``I = index``, in descending order; the directions of ``delta`` they belong to (the
    columns of ``Z V``, one per singular value); and the rounding cut, ``EXACT_TOL`` times the
    Frobenius norm of ``Q_{:I}``: the size a direction's image has when the columns it combines
    agree up to the rounding of their entries (copies, computed in another batch or order).

    Only singular values at most ``limit`` (or the cut, if larger) are asked for, and most faces
    have none: the smallest ``|eigenvalue|`` of the bordered block ``[[Q_II, t y_I], [t y_I^T,
    0]]`` (:func:`svmtrust.optimal_face._bordered_matrix`, any ``t > 0``) bounds every ``sigma``
    from below (for ``y_I^T v =
    0`` and the best bias change ``beta``, ``||G v|| = ||Q_{:I} v + y beta|| >= ||Q_II v + y_I
    beta||``, the norm of the block times ``(v, beta / t)``), and when it exceeds ``limit`` the
    ``n x |I|`` factorisation is skipped and no singular value is returned. All empty, and the
    cut 0, for fewer than two indices."""
    if index.size < 2:
        return np.zeros(0), np.zeros((index.size, 0)), 0.0
    y_I = y[index]
    S = columns(index) * (y[:, None] * y_I[None, :])
    cut = EXACT_TOL * float(np.linalg.norm(S))
    bordered, _ = _bordered_matrix(S[index], y_I)
    if float(np.min(np.abs(np.linalg.eigvalsh(bordered)))) > max(cut, limit):
        return np.zeros(0), np.zeros((index.size, 0)), cut
    S -= np.outer(y, (y @ S) / y.size)
    w, c = _reflection(y_I)
    R = np.linalg.qr((S - c * np.outer(S @ w, w))[:, 1:], mode="r")  # the R of S Z
    sigma = np.linalg.svd(R, compute_uv=False)
    if not np.any(sigma <= cut):  # no exact direction: its vectors are not needed
        return sigma, np.zeros((index.size, sigma.size)), cut
    _, sigma, vt = np.linalg.svd(R)
    Z = (np.eye(index.size) - c * np.outer(w, w))[:, 1:]
    return sigma, Z @ vt.T, cut


def _reflection(y_I):
    """``(w, 2 / w^T w)`` of the Householder reflection ``I - 2 w w^T / w^T w`` that maps
    ``y_I / sqrt(m)`` to the first axis: its other columns, ``Z``, are an orthonormal basis of
    ``{delta : y_I^T delta = 0}``, and ``S Z`` is ``S`` less a rank-one term, without the
    ``O(n m^2)`` product."""
    w = y_I / np.sqrt(y_I.size)
    w[0] += np.sign(w[0])  # y_I is +-1: w[0] is not 0, and the sign avoids cancellation
    return w, 2.0 / float(w @ w)


def _kkt_scale(alpha, diagonal, K=None) -> float:
    """``max(1, max(alpha) * max_i sum_j |K_ij|)``: a bound on every ``|sum_j alpha_j y_j K_ij|``,
    the unit of the accurate level. Without ``K`` the row sums are bounded by ``n max K_ii``."""
    top = float(np.max(alpha, initial=0.0))
    if K is None:
        rows = diagonal.size * float(np.max(diagonal, initial=0.0))
    else:
        rows = float(np.max(np.sum(np.abs(K), axis=1), initial=0.0))
    return max(1.0, top * rows)
