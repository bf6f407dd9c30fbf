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
  :data:`svmtrust.optimal_face.MULTIPLIER_TOL` of the largest from 0, of ``C`` from ``C``):
  the margins are then right to ``MARGIN_TOL`` (in margin units, those the p-values and the
  span rule compare), every multiplier's category is decided by the data, and equal in exact
  arithmetic means equal to rounding. The canonical step adds its own condition: the system
  that fixes the multipliers on the face must be conditioned so that they are known to
  ``MULTIPLIER_TOL`` (:data:`svmtrust.optimal_face.ONE_POINT_RCOND`,
  :data:`svmtrust.optimal_face.RANK_AMBIGUITY`).
  A kernel so ill-scaled that its margins cannot be computed to ``MARGIN_TOL`` (entries of 1e12
  with multipliers of 100: ``tau`` near 1e-2) has no exact answer in double precision, whatever
  the solver: it is reported, not certified.
* **accurate**: (1), the balance within :data:`ACCURATE_TOL` of ``sum(alpha)``, and the KKT
  violation within ``ACCURATE_TOL`` of :func:`_kkt_scale` (a bound on every ``|m_i|`` term): what
  an iterative solver reaches; :func:`svmtrust.svm.fit_svm` returns it with ``exact=False`` and
  an :class:`svmtrust.svm.InexactWarning` that prints :meth:`Certificate.describe`.

An answer that is not even accurate is never returned as an optimum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .optimal_face import (
    EXACT_TOL,
    MULTIPLIER_TOL,
    SOLVE_TOL,
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
            f"{MULTIPLIER_TOL:.0e} of a bound (exact needs none)"
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
    return _certify_values(y, C, alpha, b, sparse_product(K, alpha * y), K.diagonal(), K)


def _certify_values(y, C, alpha, b, values, diagonal, K=None) -> Certificate:
    """:func:`certify` from the decision values without the bias, ``values = K (alpha * y)``,
    and ``K``'s diagonal (``K`` itself only for :func:`_kkt_scale`; without it the scale is
    bounded from the diagonal)."""
    upper = float(np.max(alpha, initial=0.0) - C) if np.isfinite(C) else 0.0
    box = max(-float(np.min(alpha, initial=0.0)), upper, 0.0)
    total = float(np.sum(alpha))
    balance = abs(float(y @ alpha)) / total if total > 0 else 0.0
    rounding = EXACT_TOL * (_gradient_scale_of(diagonal, 1.0, alpha) + abs(float(b)))
    return Certificate(
        box=box,
        balance=balance,
        kkt=_kkt_violation(y, C, alpha, values, b),
        nearest=_nearest_off_face(y, C, alpha, values, b, rounding),
        undecided=_undecided(alpha, C),
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


def _kkt_scale(alpha, diagonal, K=None) -> float:
    """``max(1, max(alpha) * max_i sum_j |K_ij|)``: a bound on every ``|sum_j alpha_j y_j K_ij|``,
    the unit of the accurate level. Without ``K`` the row sums are bounded by ``n max K_ii``."""
    top = float(np.max(alpha, initial=0.0))
    if K is None:
        rows = diagonal.size * float(np.max(diagonal, initial=0.0))
    else:
        rows = float(np.max(np.sum(np.abs(K), axis=1), initial=0.0))
    return max(1.0, top * rows)
