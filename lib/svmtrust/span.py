"""Span of support vectors, the span rule and the rescaled radius-margin bound.

Chapelle & Vapnik (1999) estimate the leave-one-out error of an SVM from one training run. For a
support vector ``x_p`` the *span* ``S_p`` is the distance in feature space from ``phi(x_p)`` to
the set ``Lambda_p`` of affine combinations of the other first-category support vectors whose
re-weighted multipliers stay feasible (their eqs. (4)-(5)). Under the assumption that the sets of
support vectors do not change when ``x_p`` is left out, removing ``x_p`` moves its decision value
by exactly ``alpha_p S_p^2`` (their Theorem 2), which gives the *span rule*, eq. (6).

:func:`span` solves the constrained problem (4)-(5) exactly with cvxpy, :func:`span_closed_form`
its unconstrained relaxation through the bordered Gram matrix, :func:`span_rule_loo` turns spans
into a leave-one-out estimate (with the early-stopping shortcut for the QP route), and
:func:`exact_loo` / :func:`leave_one_out` retrain to get the true leave-one-out error.
:func:`radius_squared`, :func:`radius_margin_bound` and :func:`rescaled_radius_margin_bound`
compute functional (1) and its kernel-PCA rescaling (Section 4), with the paper's box centred
at the origin or the tight one; :func:`linear_rescaled_bound` is the explicit input-space
rescaling of the linear case, against which the kernel version is checked. :func:`span_bound`
is Theorem 1's bound ``S D ||w||^2 / n`` and :func:`jaakkola_haussler_errors` the rule of
Jaakkola & Haussler (1999) that the paper compares the span with.

Second-category support vectors (``alpha_p = C``) are treated with the same set ``Lambda_p``,
built from all first-category support vectors: the proof of Theorem 2 goes through unchanged for
them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import cvxpy as cp
import numpy as np
import scipy.linalg
from scipy.optimize import brentq

from . import qp
from .optimal_face import (
    EXACT_TOL,
    IDENTICAL_TOL,
    _active_set_optimum,
    _gradient_scale_of,
    sparse_product,
)
from .svm import SOLVERS, _bias_and_margin, check_solution, fit_svm
from .ties import is_zero
from .validation import (
    check_array,
    check_binary_labels,
    check_bool,
    check_C,
    check_choice,
    check_kernel_matrix,
    check_positive,
)

__all__ = [
    "span",
    "closed_form_coefficients",
    "span_closed_form",
    "span_rule_errors",
    "span_rule_early_stopping",
    "span_rule_loo",
    "LeaveOneOut",
    "LOO_METHODS",
    "leave_one_out",
    "exact_loo",
    "radius_squared",
    "radius_margin_bound",
    "rescaled_radius_margin_bound",
    "l2_rescaled_radius_margin_bound",
    "linear_rescaled_bound",
    "span_bound",
    "jaakkola_haussler_errors",
    "l2_kernel",
    "fit_l2_svm",
]

#: Ridge added to the Gram matrix of the first-category support vectors in
#: :func:`span_closed_form`, relative to its mean diagonal entry, only when the bordered matrix
#: ``[[K_FF, 1], [1, 0]]`` is singular to working precision (support vectors that repeat, or more
#: affinely dependent ones than feature space has room for): there some spans are 0, and the
#: ridge biases a span upwards by at most ``SPAN_RIDGE * mean(diag) * ||lambda||^2``.
SPAN_RIDGE = 1e-10

#: In :func:`leave_one_out`, a hard margin is first solved with the finite box
#: ``HARD_BOX_FACTOR * max(alpha)``; if no multiplier reaches it, that solution is the
#: hard-margin one (the box is inactive), else the problem is re-solved with ``C = inf``.
HARD_BOX_FACTOR = 1e3

METHODS = ("closed_form", "qp")


# ----------------------------------------------------------------------------- validation


def _check_inputs(K, sol) -> np.ndarray:
    """Validate a Gram matrix (symmetric, positive semi-definite) and an :class:`SVMSolution`
    trained on it (its dual value recomputed on ``K``: :func:`check_solution`); return ``K``. A kernel that is not PSD gives spans and leave-one-out
    errors of no meaning, so it is refused rather than computed on."""
    K = check_kernel_matrix(K, "K")
    check_solution(sol, K.shape[0], K=K)
    return K


def _check_spans(spans, sol, n) -> np.ndarray:
    """Squared spans of shape ``(n,)``, finite or ``inf`` and non-negative on the support."""
    try:
        spans = np.asarray(spans, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"spans: expected {n} numbers, got {spans!r}") from None
    if spans.shape != (n,):
        raise ValueError(f"spans: expected shape ({n},), got {spans.shape}")
    on_support = spans[sol.support]
    if np.any(np.isnan(on_support)) or np.any(on_support < 0):
        raise ValueError("spans: expected a non-negative value for every support vector")
    return spans


# ----------------------------------------------------------------------------- the span


def _span_problem(G_free, alpha_free, C):
    """The cvxpy problem (4)-(5) for one support vector, with the vector as parameters.

    Variables ``lam`` over the first-category support vectors. Parameters: ``target`` (the
    factor row of ``x_p``), ``ratio = alpha_i / alpha_p``, ``sign = y_i y_p``, ``cap =
    C / alpha_p``, ``mask`` (1 where ``lam_i`` must be 0, i.e. at ``i = p``) and ``boxed``
    (1 to impose the box constraints, 0 to drop them).
    """
    m, r = G_free.shape
    lam = cp.Variable(m)
    par = {
        "target": cp.Parameter(r),
        "ratio": cp.Parameter(m),
        "sign": cp.Parameter(m),
        "mask": cp.Parameter(m, nonneg=True),
        "cap": cp.Parameter(nonneg=True),
    }
    moved = par["ratio"] + cp.multiply(par["sign"], lam)  # alpha_i(new) / alpha_p
    constraints = [cp.sum(lam) == 1, cp.multiply(par["mask"], lam) == 0, moved >= 0]
    if np.isfinite(C):
        constraints.append(moved <= par["cap"])
    objective = cp.Minimize(cp.sum_squares(par["target"] - G_free.T @ lam))
    return cp.Problem(objective, constraints), lam, par


def _span_qps(K, sol, constrained, points):
    """Yield ``(p, S_p^2)`` for every support vector ``p`` in ``points`` by the QP (4)-(5)."""
    support, free = sol.support, sol.free
    scale = float(np.mean(np.diag(K)[support]))
    G = qp._kernel_factor(K[np.ix_(support, support)] / scale)
    row = {int(i): k for k, i in enumerate(support)}
    G_free = G[[row[int(i)] for i in free]]
    problem, _, par = _span_problem(G_free, sol.alpha[free], sol.C if constrained else np.inf)
    for p in points:
        alpha_p = sol.alpha[p]
        par["target"].value = G[row[int(p)]]
        par["mask"].value = (free == p).astype(float)
        if constrained:
            par["ratio"].value = sol.alpha[free] / alpha_p
            par["sign"].value = sol.y[free] * sol.y[p]
            par["cap"].value = sol.C / alpha_p if np.isfinite(sol.C) else 0.0
        else:  # any lam satisfies 1 + 0 * lam >= 0: the box is switched off
            par["ratio"].value = np.ones(free.size)
            par["sign"].value = np.zeros(free.size)
            par["cap"].value = 1.0
        qp.solve(problem, f"the span QP (4)-(5) of support vector {p}")
        yield p, scale * max(float(problem.value), 0.0)


def span(K, sol, constrained=True) -> np.ndarray:
    """Squared span ``S_p^2`` of every support vector, by the QP of eqs. (4)-(5).

    ``S_p^2 = min ||phi(x_p) - sum_i lambda_i phi(x_i)||^2`` over the first-category support
    vectors ``i != p`` with ``sum_i lambda_i = 1`` and, if ``constrained``, the box
    ``0 <= alpha_i + y_i y_p alpha_p lambda_i <= C`` (eq. (4) of Chapelle & Vapnik 1999). The
    quadratic form is written with the factor of :func:`~svmtrust.qp.kernel_factor`, and
    Clarabel solves it to :data:`~svmtrust.qp.TOL` (:func:`~svmtrust.qp.solve`). With the box,
    the QP is solved only for support vectors where the minimiser of the relaxed problem
    (:func:`closed_form_coefficients`) violates it; elsewhere the relaxed minimum is the
    constrained one.

    Parameters
    ----------
    K : array_like of shape (n, n)
        The Gram matrix the SVM was trained on.
    sol : SVMSolution
        The SVM trained on ``K``.
    constrained : bool
        Keep the box constraints (the span of eq. (5)); ``False`` drops them, which gives the
        distance to the affine hull of the other first-category support vectors.

    Returns
    -------
    ndarray of shape (n,)
        ``S_p^2`` at support vectors, NaN elsewhere; ``inf`` where ``Lambda_p`` is empty (no
        other first-category support vector).

    Raises
    ------
    ValueError
        On bad input; :class:`~svmtrust.qp.SolveError` if a QP is not solved to optimality.
    """
    return _span(_check_inputs(K, sol), sol, check_bool(constrained, "constrained"))


def _span(K, sol, constrained) -> np.ndarray:
    """:func:`span` of checked arguments."""
    out = np.full(K.shape[0], np.nan)
    out[sol.support] = np.inf
    points = [p for p in sol.support if np.setdiff1d(sol.free, [p]).size]
    if constrained:
        points = _box_active(K, sol, points, out)
    if points:
        for p, value in _span_qps(K, sol, bool(constrained), points):
            out[p] = value
    return out


def _box_active(K, sol, points, out):
    """Fill ``out`` where the unconstrained minimiser satisfies the box; return the others.

    Where the minimiser of the relaxed problem is feasible (moved multipliers within
    ``[0, C]`` up to ``1e-9 * max(alpha)``) it also solves the constrained one, so the QP is
    needed only where the box is active. This also spares the QP its worst scaling: a tiny
    ``alpha_p`` makes the box ``alpha_i / alpha_p`` huge and inactive.
    """
    spans_free, lambdas = _closed_form_coefficients(K, sol)
    slack = 1e-9 * float(np.max(sol.alpha))
    active = []
    for p in points:
        moved = sol.alpha[sol.free] + sol.y[sol.free] * sol.y[p] * sol.alpha[p] * lambdas[:, p]
        if np.all(moved >= -slack) and np.all(moved <= sol.C + slack):
            out[p] = spans_free[p]
        else:
            active.append(p)
    return active


def _bordered_inverse(K_free, ridge):
    """Inverse of the bordered matrix ``[[K_FF, 1], [1^T, 0]]`` and the ridge it needed.

    The bordered matrix is symmetric and indefinite (one negative eigenvalue), and it is
    invertible whenever the first-category support vectors are affinely independent in feature
    space, even when ``K_FF`` itself is singular (three points in the plane with a linear
    kernel). It is factorised directly (``scipy.linalg.solve`` with ``assume_a="sym"``, a
    Bunch-Kaufman LDL^T factorisation), never through ``K_FF^{-1}``. Only if LAPACK reports it
    singular or its reciprocal condition number below machine epsilon is ``K_FF`` replaced by
    ``K_FF + eta I``, ``eta = ridge * mean(diag(K_FF))``.

    Returns
    -------
    inverse : ndarray of shape (m + 1, m + 1)
    eta : float
        0.0 when no ridge was needed.
    """
    m = K_free.shape[0]
    bordered = np.zeros((m + 1, m + 1))
    bordered[:m, :m] = K_free
    bordered[:m, m] = bordered[m, :m] = 1.0
    identity = np.eye(m + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
            return scipy.linalg.solve(bordered, identity, assume_a="sym"), 0.0
    except (scipy.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
        pass
    eta = ridge * max(float(np.mean(np.diag(K_free))), np.finfo(float).tiny)
    bordered[:m, :m] += eta * np.eye(m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        return scipy.linalg.solve(bordered, identity, assume_a="sym"), eta


def closed_form_coefficients(K, sol, ridge=SPAN_RIDGE):
    """Unconstrained spans and their minimisers ``lambda``, from the bordered Gram matrix.

    For a first-category support vector, ``S_p^2 = 1 / (Ktilde^{-1})_pp`` and
    ``lambda_i = -(Ktilde^{-1})_ip / (Ktilde^{-1})_pp``; for a second-category one,
    ``[lambda; mu] = Ktilde^{-1} [K_Fp; 1]`` and ``S_p^2 = K_pp - lambda^T K_Fp - mu``, with
    ``Ktilde = [[K_FF, 1], [1^T, 0]]`` over the first-category support vectors ``F`` (the closed
    form after Corollary 1 of Chapelle & Vapnik 1999; Chapelle et al. 2002, Sec. 5.2).
    ``Ktilde`` is inverted by a symmetric indefinite factorisation (:func:`_bordered_inverse`),
    which is exact whenever ``Ktilde`` is invertible, ``K_FF`` singular or not. Only when
    ``Ktilde`` itself is singular (repeated or too many affinely dependent support vectors)
    does ``K_FF`` get the ridge ``eta = ridge * mean(diag(K_FF))``, i.e. every ``phi(x_i)`` an
    extra orthogonal coordinate ``sqrt(eta)``, and ``eta`` is subtracted again from
    first-category spans: the result is then the distance with the penalty
    ``eta ||lambda||^2`` added, and finite.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
    ridge : float
        Relative ridge, :data:`SPAN_RIDGE` by default.

    Returns
    -------
    spans : ndarray of shape (n,)
        ``S_p^2`` at support vectors (``inf`` if ``Lambda_p`` is empty), NaN elsewhere.
    lambdas : ndarray of shape (len(sol.free), n)
        Column ``p`` holds the minimiser over ``sol.free`` (0 at ``p`` itself); NaN columns
        off the support.
    """
    return _closed_form_coefficients(_check_inputs(K, sol), sol, check_positive(ridge, "ridge"))


def _closed_form_coefficients(K, sol, ridge=SPAN_RIDGE):
    """:func:`closed_form_coefficients` of checked arguments."""
    n, free, bounded = K.shape[0], sol.free, sol.bounded
    spans, lambdas = np.full(n, np.nan), np.full((free.size, n), np.nan)
    if free.size < 2:
        spans[sol.support] = np.inf
        if free.size == 1:
            spans[bounded] = np.diag(K)[bounded] - 2 * K[free[0], bounded] + K[free[0], free[0]]
            lambdas[:, bounded] = 1.0
        return spans, lambdas
    inverse, eta = _bordered_inverse(K[np.ix_(free, free)], ridge)
    B = inverse[:-1, :-1]
    diag_B = np.diag(B)
    spans[free] = 1.0 / diag_B - eta
    lambdas[:, free] = -B / diag_B
    lambdas[np.arange(free.size), free] = 0.0
    if bounded.size:
        v = np.vstack([K[np.ix_(free, bounded)], np.ones((1, bounded.size))])
        solved = inverse @ v  # [lambda; mu] for every bounded point
        spans[bounded] = np.diag(K)[bounded] - np.sum(v * solved, axis=0)
        lambdas[:, bounded] = solved[:-1]
    spans[sol.support] = np.maximum(spans[sol.support], 0.0)
    return spans, lambdas


def span_closed_form(K, sol, ridge=SPAN_RIDGE) -> np.ndarray:
    """Squared span without the box constraints, in closed form.

    ``S_p^2 = 1 / (Ktilde_SV^{-1})_pp`` for first-category support vectors, the squared
    distance to the affine hull of the first-category support vectors for second-category ones
    (see :func:`closed_form_coefficients` for the formulas and the ridge).

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
    ridge : float
        Relative ridge on ``K_FF`` if the bordered matrix is singular (:data:`SPAN_RIDGE`).

    Returns
    -------
    ndarray of shape (n,)
        ``S_p^2`` at support vectors, NaN elsewhere.
    """
    return _closed_form_coefficients(_check_inputs(K, sol), sol, check_positive(ridge, "ridge"))[0]


# ----------------------------------------------------------------------------- the span rule


def _term_scale(K_rows, alpha, b, diagonal):
    """The size of the terms of the decision values ``f(x_i) = sum_j alpha_j y_j K_ij + b`` of
    the rows ``i`` of ``K_rows`` before they cancel, the scale at which a margin ``y_i f(x_i)``
    is compared with 0 (:func:`_is_error`): ``sum_j alpha_j |K_ij| + |b|``, plus the size of
    the terms ``b`` was itself computed from (``y_j - sum_k alpha_k y_k K_jk`` at training
    points, :func:`svmtrust.svm._bias_and_margin`), bounded by
    :func:`svmtrust.optimal_face._gradient_scale_of` of ``diagonal`` (the machine's
    ``diag(K)``). Without that term a point with ``K_ij = 0`` for every ``j`` (the origin
    under a linear kernel) would have ``f(x_i) = b`` compared with ``|b|`` itself, and an
    exact bias 0 that came out as ``1e-16`` would never count as 0.

    Columns of ``K_rows`` are the machine's training points (multipliers ``alpha``, bias
    ``b``)."""
    return np.abs(K_rows) @ alpha + (abs(b) + _gradient_scale_of(diagonal, 1.0, alpha))


def _is_error(margins, scale) -> np.ndarray:
    """``margin <= 0``, a margin that is 0 within :data:`svmtrust.ties.TIE_TOL` of ``scale``
    (:func:`svmtrust.ties.is_zero`: the size of its terms, :func:`_term_scale`) counting as 0.

    A margin that is 0 in exact arithmetic (a point whose leave-one-out machine is symmetric
    about it, copies with both labels) comes out of floating-point arithmetic a few units in the
    last place either side of 0, by solver, processor and order of the rows; compared bit for bit
    with 0, whether it is an error would be decided by rounding. Every comparison of a margin,
    or of the span rule's estimate of one, with 0 in this module goes through this rule. A NaN
    (a closed-form span the bordered system could not give) is no error, as ``NaN <= 0`` is
    not: the callers then decide by other means."""
    margins = np.asarray(margins, dtype=float)
    scale = np.asarray(scale, dtype=float)
    known = ~(np.isnan(margins) | np.isnan(scale))
    tie = is_zero(np.where(known, margins, 0.0), np.where(known, scale, 0.0)) & known
    return (margins <= 0) | tie


def _span_rule_error(margins, moves, scale) -> np.ndarray:
    """The span rule's ``y_p f(x_p) - alpha_p S_p^2 <= 0`` (``moves = alpha_p S_p^2``) by
    :func:`_is_error`, at the scale ``scale + moves`` of its terms (``scale``: those of
    ``f(x_p)``). Monotone in ``moves``: a lower bound on ``S_p^2`` that errs, and an upper bound
    that does not, decide the constrained span's answer (:func:`span_rule_early_stopping`)."""
    moves = np.asarray(moves, dtype=float)
    return _is_error(margins - moves, scale + moves)


def span_rule_errors(K, sol, spans) -> np.ndarray:
    """Leave-one-out errors predicted by the span rule, eq. (6) in its general form.

    Support vector ``p`` is predicted misclassified when ``y_p f(x_p) - alpha_p S_p^2 <= 0``
    (for a first-category one ``y_p f(x_p) = 1``, i.e. ``alpha_p S_p^2 >= 1``); every other
    point is predicted correct. A tie (equality) counts as an error, as leave-one-out counts
    ``y_p f^p(x_p) = 0`` as one; the paper's ``Psi(alpha_p S_p^2 - 1)`` with ``Psi(t) = 1``
    only for ``t > 0`` counts a tie as correct. The two differ only on exact ties. A tie is
    decided by the library's tie rule (:func:`svmtrust.ties.is_zero`): the estimate counts as 0
    when it is within :data:`svmtrust.ties.TIE_TOL` of the size of its terms,
    ``sum_j alpha_j |K_pj| + |b| + alpha_p S_p^2`` and those of ``b`` (:func:`_term_scale`).

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
    spans : array_like of shape (n,)
        ``S_p^2`` from :func:`span` or :func:`span_closed_form`.

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    K = _check_inputs(K, sol)
    return _span_rule_errors(K, sol, _check_spans(spans, sol, K.shape[0]))


def _span_rule_errors(K, sol, spans) -> np.ndarray:
    """:func:`span_rule_errors` of checked arguments."""
    errors = np.zeros(K.shape[0], dtype=bool)
    sv = sol.support
    margins = sol.y[sv] * sol.decision_function(K[sv])
    scale = _term_scale(K[sv], sol.alpha, sol.b, np.diag(K))
    errors[sv] = _span_rule_error(margins, sol.alpha[sv] * spans[sv], scale)
    return errors


def _project_feasible(lam, lower, upper):
    """Euclidean projection of ``lam`` onto ``{sum = 1, lower <= lam <= upper}``.

    ``sum(clip(lam - tau, lower, upper))`` decreases in ``tau``; the shift ``tau`` that makes it
    1 is bracketed by doubling and found by :func:`scipy.optimize.brentq`. Returns None if the
    set is empty.
    """

    def total(tau):
        return np.clip(lam - tau, lower, upper).sum() - 1.0

    lo, hi, step = float(np.min(lam)) - 1.0, float(np.max(lam)) + 1.0, 1.0
    for _ in range(200):
        if total(lo) >= 0 and total(hi) <= 0:
            break
        step *= 2.0
        lo, hi = (lo - step, hi) if total(lo) < 0 else (lo, hi + step)
    else:
        return None
    tau = brentq(total, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    return np.clip(lam - tau, lower, upper)


def _box(sol, p):
    """Bounds on ``lambda`` over ``sol.free`` from ``0 <= alpha_i + y_i y_p alpha_p lambda_i <= C``."""
    free = sol.free
    sign = sol.y[free] * sol.y[p]
    low, high = -sol.alpha[free] / sol.alpha[p], (sol.C - sol.alpha[free]) / sol.alpha[p]
    lower, upper = np.where(sign > 0, low, -high), np.where(sign > 0, high, -low)
    lower[free == p], upper[free == p] = 0.0, 0.0
    return lower, upper


def span_rule_early_stopping(K, sol):
    """Span-rule errors with the constrained span, deciding each point as cheaply as possible.

    Only the sign of ``y_p f(x_p) - alpha_p S_p^2`` matters. In order: a point misclassified
    in training is an error (``S_p^2 >= 0``); if the unconstrained span already reaches the
    threshold, so does the constrained one; if a feasible point of ``Lambda_p`` (the projection
    of the unconstrained minimiser) lies closer than the threshold, the point is correct (the
    paper's early stopping); only the undecided points get the QP.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution

    Returns
    -------
    errors : ndarray of bool, shape (n,)
        The same as :func:`span_rule_errors` with the spans of :func:`span`.
    n_qp : int
        Number of support vectors that needed the QP.
    """
    return _span_rule_early_stopping(_check_inputs(K, sol), sol)


def _span_rule_early_stopping(K, sol):
    """:func:`span_rule_early_stopping` of checked arguments."""
    margins = sol.y * sol.decision_function(K)
    scale = _term_scale(K, sol.alpha, sol.b, np.diag(K))
    spans_free, lambdas = _closed_form_coefficients(K, sol)
    errors = np.zeros(K.shape[0], dtype=bool)

    def erring(p, span2) -> bool:  # the rule of span_rule_errors at S_p^2 = span2
        return bool(_span_rule_error(margins[p], sol.alpha[p] * span2, scale[p]))

    undecided = []
    for p in sol.support:
        if erring(p, 0.0) or erring(p, spans_free[p]):
            errors[p] = True
            continue
        lower, upper = _box(sol, p)
        lam = _project_feasible(lambdas[:, p], lower, upper)
        if lam is None or erring(p, _distance(K, sol.free, lam, p)):
            undecided.append(p)
    if undecided:
        for p, value in _span_qps(K, sol, True, undecided):
            errors[p] = erring(p, value)
    return errors, len(undecided)


def _distance(K, free, lam, p):
    """``||phi(x_p) - sum_i lam_i phi(x_i)||^2`` over the first-category support vectors."""
    coef, idx = np.r_[-lam, 1.0], np.r_[free, p]
    return float(coef @ K[np.ix_(idx, idx)] @ coef)


def span_rule_loo(K, sol, method="closed_form", early_stopping=True) -> float:
    """The span-rule estimate of the leave-one-out error, eq. (6) of Chapelle & Vapnik (1999).

    ``T = (1 / n) #{p : y_p f(x_p) - alpha_p S_p^2 <= 0}`` over the support vectors (points
    that are not support vectors are classified correctly by leave-one-out), an estimate 0 to
    rounding counting as 0 (:func:`span_rule_errors`; so does a training margin below).

    **No first-category support vector.** Then every multiplier is 0 or ``C`` and the rule has
    nothing to stand on: removing a support vector ``p`` changes ``sum_i y_i alpha_i`` by
    ``-y_p C``, and restoring the equality constraint moves another multiplier off 0 or ``C``,
    so the sets of support vectors change for *every* ``p`` and Theorem 2's assumption never
    holds (``Lambda_p`` is empty, ``S_p = inf``). Two bounds remain, and this function returns
    the lower one, the training error ``(1 / n) #{p : y_p f(x_p) <= 0}``, as Chapelle and
    Vapnik's own code does. It is a lower bound of leave-one-out for any SVM: with ``F`` the
    objective without example ``p``, ``g`` the full optimum and ``g^p`` the one without ``p``,
    ``F(g) + C h_p(g) <= F(g^p) + C h_p(g^p)`` and ``F(g^p) <= F(g)`` give
    ``h_p(g) <= h_p(g^p)`` for the hinge loss ``h_p``; so ``y_p f(x_p) <= 0`` (``h_p(g) >= 1``)
    implies ``y_p f^p(x_p) <= y_p f(x_p) <= 0``. The upper bound is the fraction of support
    vectors (what infinite spans would count). Leave-one-out lies anywhere between: it equals
    the training error on some problems but not in general (a small ``C`` can give training
    error 0 and leave-one-out 1), so with no first-category support vector this value is a
    lower bound, not an estimate, and choosing ``C`` by minimising it favours such degenerate
    solutions.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
    method : {"closed_form", "qp"}
        ``"closed_form"`` uses :func:`span_closed_form` (box constraints dropped, as Theorem 2's
        assumption allows); ``"qp"`` the constrained span of :func:`span`.
    early_stopping : bool
        With ``"qp"``, decide each point without the QP when bounds suffice (the unconstrained
        span bounds the constrained one from below, any feasible point from above): the
        paper's early stopping. The answer is the same either way.

    Returns
    -------
    float
        The estimated leave-one-out error rate.
    """
    method = check_choice(method, "method", METHODS)
    early_stopping = check_bool(early_stopping, "early_stopping")
    K = _check_inputs(K, sol)
    if sol.free.size == 0:  # the rule does not apply: the training error (see above)
        margins = sol.y * sol.decision_function(K)
        return float(np.mean(_is_error(margins, _term_scale(K, sol.alpha, sol.b, np.diag(K)))))
    if method == "closed_form":
        spans = _closed_form_coefficients(K, sol)[0]
    elif early_stopping:
        return float(np.mean(_span_rule_early_stopping(K, sol)[0]))
    else:
        spans = _span(K, sol, True)
    return float(np.mean(_span_rule_errors(K, sol, spans)))


# ----------------------------------------------------------------------------- leave-one-out


@dataclass(frozen=True)
class LeaveOneOut:
    """Results of exact leave-one-out.

    Attributes
    ----------
    margins : ndarray of shape (n,)
        ``y_p f^p(x_p)``, the margin of ``x_p`` under the SVM trained without it (to rounding:
        the decremental path and retraining reach it by different arithmetic). A margin that
        is 0 within :data:`svmtrust.ties.TIE_TOL` of the size of its terms,
        ``sum_j alpha^p_j |K_pj| + |b^p|`` over that SVM and the size of the terms of ``b^p``
        (:func:`_term_scale`, :func:`svmtrust.ties.is_zero`), is stored as exactly 0.0: it is
        0 in exact arithmetic (copies with both labels, a point the other points are symmetric
        about), and its sign is rounding's, which differs by solver.
    sets_unchanged : ndarray of bool, shape (n,)
        Whether leaving ``x_p`` out kept every other point in its category (not a support
        vector, first or second category): the assumption of Theorem 2. True off the support.
    retrained : int
        Number of SVMs trained from scratch (support vectors the decremental path did not
        certify, or all of them with ``method="retrain"``).
    decremented : int
        Number of support vectors whose leave-one-out machine the decremental path reached.
    """

    margins: np.ndarray
    sets_unchanged: np.ndarray
    retrained: int
    decremented: int = 0

    @property
    def errors(self) -> np.ndarray:
        """Leave-one-out errors, ``y_p f^p(x_p) <= 0``: a margin 0 to rounding (stored as 0.0,
        see ``margins``) is an error."""
        return self.margins <= 0


def _category(alpha, C):
    """0 off the support, 1 for first-category, 2 for second-category support vectors."""
    return np.where(alpha == 0, 0, np.where(alpha == C, 2, 1))


#: How :func:`leave_one_out` reaches each leave-one-out machine: ``"decremental"`` removes the
#: support vector from the full optimum along an exact path and retrains only where that path
#: cannot certify its answer; ``"retrain"`` trains every leave-one-out machine from scratch.
LOO_METHODS = ("decremental", "retrain")

#: The decremental route's certificate (:class:`_Decremental`): every margin ``y_i f(x_i) - 1``
#: off the margin set, and the left-out point's ``y_p f^p(x_p)``, must clear zero by this
#: fraction of the gradient's scale (:func:`svmtrust.optimal_face._gradient_scale_of`, the size
#: of a decision value's terms before they cancel), beyond the distance to the exact optimum:
#: ten million times :data:`svmtrust.optimal_face.EXACT_TOL`, the rounding a retrained optimum
#: is made exact to.
LOO_MARGIN_GAP = 1e-8

#: ... and every free multiplier must lie inside ``(0, C)`` by this fraction of the largest
#: multiplier (of ``C`` at the upper end), beyond the same distance: libsvm's snapping to the
#: bounds (:data:`svmtrust.svm.SUPPORT_TOL`) never reaches such a multiplier.
LOO_ALPHA_GAP = 1e-6

#: Factor on the distance from the path's end to the exact optimum, as the Newton step of the
#: margin set's bordered system estimates it (that system's inverse is updated along the path,
#: not refactorised).
LOO_SAFETY = 10.0

#: A point joins the path's margin set only if the Schur complement of its bordered row exceeds
#: this fraction of ``mean(diag(K))`` (as :data:`svmtrust.incremental_svm.SCHUR_TOL`); below it
#: the margin set's matrix counts as singular and the support vector is retrained.
LOO_SCHUR_TOL = 1e-10


class _Decremental:
    """Leave-one-out machines of an exact optimum, each reached by removing one support vector.

    The path is the decremental one of Cauwenberghs & Poggio (2000), the incremental SVM run
    backwards (:mod:`svmtrust.incremental_svm` has the notation). With ``Q_ij = y_i y_j K_ij``,
    ``g_i = y_i f(x_i) - 1`` and the margin set ``S`` (free multipliers, one index per group of
    copies, whose variable is the group's total, shared equally), the multiplier of the left-out
    point ``p`` falls from ``alpha_p`` to 0 while the multipliers of ``S`` and the bias keep
    every ``g_i``, ``i`` in ``S``, at 0 and ``sum_i y_i alpha_i`` at 0::

        [ 0    y_S^T ] [ db      ]   [ y_p  ]
        [ y_S  Q_SS  ] [ dalpha_S ] = [ Q_Sp ] dt,      t = alpha_p(start) - alpha_p,

    the margins move as ``dg = y * d f``. A segment ends when ``alpha_p`` reaches 0, a free
    multiplier reaches 0 or ``C`` (it leaves ``S``), or a margin off ``S`` reaches 0 (the point
    joins ``S`` with its copies); ``B_S^{-1}`` is updated by bordering, in ``O(|S|^2)``, and a
    segment costs one product with ``K``. With ``S`` empty the bias alone moves (towards
    ``-y_p``) until a point joins.

    **The certificate.** At the end the decision values are recomputed from the multipliers,
    the bias is the canonical one (:func:`svmtrust.svm._bias_and_margin`, the rule every route
    ends in) and the Newton step of ``S``'s bordered system from the residuals bounds the
    distance to the exact optimum with these categories (times :data:`LOO_SAFETY`). The answer
    is kept only if every margin off ``S`` and the left-out point's margin clear zero by
    :data:`LOO_MARGIN_GAP` of the gradient's scale beyond that distance, and every free
    multiplier clears its bounds by :data:`LOO_ALPHA_GAP`: the optimum is then unique (up to
    the split among copies, equal as in the canonical optimum), strictly complementary, and
    retraining reaches the same categories and the same sign of ``y_p f^p(x_p)``. Otherwise, and
    when the full optimum is not exact, its margin set is singular, a join would make it
    singular (:data:`LOO_SCHUR_TOL`), no event ends a segment, or the point left out has copies
    that cannot simply take over its multiplier, :meth:`remove` returns None and the caller
    retrains.
    """

    def __init__(self, K, sol):
        y, alpha, C = sol.y, sol.alpha, sol.C
        self.K, self.y, self.C, self.n = K, y, C, K.shape[0]
        self.alpha = alpha
        self.diag = K.diagonal().copy()
        self.kmax = max(float(np.max(self.diag)), np.finfo(float).tiny)
        self.floor = LOO_SCHUR_TOL * max(float(np.mean(self.diag)), np.finfo(float).tiny)
        self.status = _category(alpha, C)
        g = y * (sparse_product(K, alpha * y) + sol.b) - 1.0
        g[self.status == 1] = 0.0
        g[self.status == 0] = np.maximum(g[self.status == 0], 0.0)
        g[self.status == 2] = np.minimum(g[self.status == 2], 0.0)
        self.g, self.b = g, sol.b
        # +1 off the support, -1 at C, 0 on the margin set: side * g >= 0 is the distance to it
        self.side = np.where(self.status == 0, 1.0, np.where(self.status == 2, -1.0, 0.0))
        # copies: the same point (IDENTICAL_TOL of the largest diagonal entry) with the same label
        close = self.diag[:, None] + self.diag[None, :] - 2.0 * K <= IDENTICAL_TOL * self.kmax
        close &= y[:, None] == y[None, :]
        np.fill_diagonal(close, False)
        self.close, self.has_copies = close, np.any(close, axis=1)
        # the margin set: one head per group of free copies, the group's total shared equally
        heads, self.groups = [], {}
        taken = np.zeros(self.n, dtype=bool)
        for i in sol.free:
            if taken[i]:
                continue
            heads.append(i)
            if self.has_copies[i]:
                group = np.flatnonzero(close[i] & (self.status == 1) & ~taken)
                group = np.sort(np.r_[i, group])
                taken[group] = True
                if group.size > 1:
                    self.groups[int(i)] = group
        self.heads = np.array(heads, dtype=int)
        self.mult = np.array([self._size(h) for h in self.heads], dtype=float)
        self.inverse = self._inverse(self.heads) if sol.exact else None

    def _size(self, head) -> int:
        """The number of copies the margin-set index ``head`` stands for."""
        group = self.groups.get(int(head))
        return 1 if group is None else group.size

    def _inverse(self, H):
        """``B_H^{-1}`` of the bordered matrix ``[[0, y_H^T], [y_H, Q_HH]]``, or None if singular."""
        if H.size == 0:
            return np.zeros((1, 1))
        y_H = self.y[H]
        B = np.empty((H.size + 1, H.size + 1))
        B[0, 0] = 0.0
        B[0, 1:] = B[1:, 0] = y_H
        B[1:, 1:] = self.K[np.ix_(H, H)] * np.outer(y_H, y_H)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
                return scipy.linalg.inv(B)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning):
            return None

    def remove(self, p):
        """``(y_p f^p(x_p), categories, scale)`` of the machine without ``p`` (``p``'s category
        -1; ``scale``: :func:`_term_scale` of ``f^p(x_p)``), or None: retrain."""
        if self.inverse is None:
            return None
        if self.has_copies[p]:
            return self._copy_left(p)
        return self._path(int(p))

    def _copy_left(self, p):
        """``p`` has copies: if they all share its free group and can hold its multiplier,
        nothing else moves; otherwise None."""
        if self.status[p] != 1:
            return None
        at = np.flatnonzero([p in self.groups.get(int(h), ()) for h in self.heads])
        copies = np.flatnonzero(self.close[p])
        if at.size != 1 or not np.array_equal(
            copies, np.setdiff1d(self.groups[self.heads[at[0]]], p)
        ):
            return None
        share = float(np.sum(self.alpha[copies]) + self.alpha[p]) / copies.size
        if not share < self.C:
            return None
        alpha, status = self.alpha.copy(), self.status.copy()
        alpha[copies], alpha[p], status[p] = share, 0.0, -1
        heads, mult = self.heads.copy(), self.mult.copy()
        heads[at[0]], mult[at[0]] = copies[0], copies.size
        return self._certify(p, alpha, status, heads, mult, self.inverse)

    def _path(self, p):
        """Lower ``alpha_p`` to 0 along the path (class notes), then :meth:`_certify`."""
        K, y, C, n = self.K, self.y, self.C, self.n
        yp = y[p]
        alpha, g, status, b = self.alpha.copy(), self.g.copy(), self.status.copy(), self.b
        side = self.side.copy()
        groups = dict(self.groups)
        # Until an event changes the margin set, B^{-1} is the full optimum's, shared and never
        # written; without p's row it is applied, not formed (_Eliminated, the last head in p's
        # place, as _MarginSet.remove leaves it); most paths end without an event. The first
        # event copies it into a _MarginSet.
        H, mult, inverse = self.heads, self.mult, self.inverse
        if status[p] == 1:
            q = int(np.flatnonzero(H == p)[0])
            H, mult = H.copy(), mult.copy()
            H[q], mult[q] = H[-1], mult[-1]
            H, mult = H[:-1], mult[:-1]
            inverse = _Eliminated(inverse, q + 1) if H.size else np.zeros((1, 1))
        shares = alpha[H]
        S = None
        status[p], side[p] = -1, 0.0
        left = float(alpha[p])
        weights = np.zeros(n)
        ratio, falling = np.empty(n), np.empty(n, dtype=bool)
        for _ in range(10 * (n + 1)):
            if S is not None:
                H, mult, shares, inverse = S.view()
            m = H.size
            if m:
                u = np.empty(m + 1)
                u[0] = yp
                u[1:] = yp * y[H] * K[H, p]
                beta = inverse @ u
                db, rate = beta[0], beta[1:] / mult
                weights[H] = y[H] * beta[1:]
                weights[p] = -yp
                dg = K @ weights
                dg += db
                dg *= y
                weights[H] = 0.0
                t, kind, who = left, 0, -1
            else:  # the bias alone moves, until a point joins
                db, rate = -yp, None
                dg = -yp * y
                t, kind, who = np.inf, 0, -1
            # off the margin set the distance side * g >= 0 falls at the rate side * dg
            speed = side * dg
            np.less(speed, 0.0, out=falling)
            ratio.fill(np.inf)
            np.divide(side * g, -speed, out=ratio, where=falling)
            i = int(np.argmin(ratio))
            if ratio[i] < t:
                t, kind, who = max(float(ratio[i]), 0.0), 1, i
            if m:
                with np.errstate(divide="ignore", invalid="ignore"):
                    room = np.where(
                        rate < 0, shares / -rate, np.where(rate > 0, (C - shares) / rate, np.inf)
                    )
                j = int(np.argmin(room))
                if room[j] < t:
                    t, kind, who = max(float(room[j]), 0.0), 2, j
            if not np.isfinite(t):
                return None
            g += t * dg
            b += t * db
            if m:
                shares += t * rate
                left -= t
            if kind == 0:  # alpha_p reached 0
                break
            if S is None:
                if isinstance(inverse, _Eliminated):
                    S = _MarginSet(self.heads, self.mult, alpha[self.heads], inverse.R)
                    S.remove(inverse.q - 1)
                    S.shares[: H.size] = shares
                else:
                    S = _MarginSet(H, mult, shares, inverse)
            if kind == 2:  # a margin index reaches a bound and leaves
                h = int(H[who])
                group = groups.pop(h, h)
                at_zero = rate[who] < 0
                alpha[group] = 0.0 if at_zero else C
                status[group], side[group] = (0, 1.0) if at_zero else (2, -1.0)
                g[group] = 0.0
                S.remove(who)
                continue
            # kind 1: an index reaches the margin and joins, with its copies off the margin set
            group = who
            if self.has_copies[who]:
                group = np.sort(np.r_[who, np.flatnonzero(self.close[who] & (side != 0))])
            if not self._grow(S, who, np.size(group), float(np.mean(alpha[group]))):
                return None
            if np.size(group) > 1:
                groups[who] = group
            status[group], side[group], g[group] = 1, 0.0, 0.0
        else:
            return None
        if S is not None:
            H, mult, shares, inverse = S.view()
        alpha[H] = shares
        for h, group in groups.items():
            alpha[group] = alpha[h]
        alpha[p] = 0.0
        return self._certify(p, alpha, status, H, mult, inverse)

    def _grow(self, S, i, size, share) -> bool:
        """Border index ``i`` (standing for ``size`` copies, each with multiplier ``share``) on
        the margin set ``S``; False (and no change) when its Schur complement is at most
        ``floor`` (the margin set would be singular)."""
        y, K = self.y, self.K
        H, _, _, inverse = S.view()
        if H.size == 0:
            S.grow(i, size, share, None, K[i, i], y[i])
            return True
        v = np.empty(H.size + 1)
        v[0] = y[i]
        v[1:] = y[i] * y[H] * K[H, i]
        w = -(inverse @ v)
        schur = K[i, i] + v @ w
        if not schur > self.floor:
            return False
        S.grow(i, size, share, w, schur, y[i])
        return True

    def _certify(self, p, alpha, status, H, mult, inverse):
        """The answer of :meth:`remove` if the class notes' certificate holds, else None."""
        K, y, C = self.K, self.y, self.C
        keep = status >= 0
        coef = alpha * y
        coef[p] = 0.0
        values = sparse_product(K, coef)
        a_k, y_k = alpha[keep], y[keep]
        scale = _gradient_scale_of(self.diag[keep], 1.0, a_k)
        b, _ = _bias_and_margin(y_k, a_k, C, values[keep], scale)
        g = y * (values + b) - 1.0
        residual = np.empty(H.size + 1)
        residual[0] = y_k @ a_k
        residual[1:] = g[H]
        rounding = 4.0 * y_k.size * np.finfo(float).eps * float(np.max(a_k))
        if H.size == 0 and abs(residual[0]) > rounding:
            return None  # every multiplier at a bound: the equality must hold to rounding
        step = LOO_SAFETY * np.abs(inverse @ residual)
        gap = LOO_MARGIN_GAP * scale + step[0] + self.kmax * float(np.sum(step[1:]))
        gap += EXACT_TOL * scale
        margin = float(y[p] * (values[p] + b))
        free = alpha[status == 1]
        room = LOO_ALPHA_GAP * float(np.max(a_k)) + np.max(step[1:] / mult, initial=0.0)
        if not (
            abs(margin) > gap
            and np.all(g[status == 0] > gap)
            and np.all(g[status == 2] < -gap)
            and np.all(free > room)
            and (not np.isfinite(C) or np.all(free < (1.0 - LOO_ALPHA_GAP) * C - room))
        ):
            return None
        return margin, status, float(np.abs(K[p, keep]) @ a_k) + (abs(b) + scale)


class _MarginSet:
    """The margin set along one path of :class:`_Decremental`: heads, copies per head, each
    copy's multiplier and ``B^{-1}``, in buffers that grow by doubling; a leaving head is
    replaced by the last, so that no event copies the set."""

    __slots__ = ("heads", "mult", "shares", "inverse", "m")

    def __init__(self, heads, mult, shares, inverse):
        m = heads.size
        cap = m + 16
        self.heads, self.mult, self.shares = np.empty(cap, dtype=int), np.empty(cap), np.empty(cap)
        self.heads[:m], self.mult[:m], self.shares[:m] = heads, mult, shares
        self.inverse = np.empty((cap + 1, cap + 1))
        self.inverse[: m + 1, : m + 1] = inverse
        self.m = m

    def view(self):
        """``(heads, mult, shares, B^{-1})`` as views of the buffers."""
        m = self.m
        return self.heads[:m], self.mult[:m], self.shares[:m], self.inverse[: m + 1, : m + 1]

    def remove(self, j):
        """Remove the head at position ``j``: ``B^{-1}`` without row and column ``q = j + 1`` is
        ``R - R_{:q} R_{q:} / R_qq`` on the others; the last head moves into ``j``."""
        m, q = self.m, j + 1
        if m == 1:
            self.m = 0
            self.inverse[0, 0] = 0.0
            return
        R = self.inverse[: m + 1, : m + 1]
        row = R[q] / R[q, q]
        R -= np.outer(R[:, q], row)
        if q != m:
            R[q, :] = R[m, :]
            R[:, q] = R[:, m]
            R[q, q] = R[m, m]
            self.heads[j], self.mult[j], self.shares[j] = (
                self.heads[m - 1],
                self.mult[m - 1],
                self.shares[m - 1],
            )
        self.m = m - 1

    def grow(self, i, size, share, w, schur, label):
        """Append head ``i`` (``size`` copies of multiplier ``share``, label ``label``),
        bordering ``B^{-1}`` with ``w = -B^{-1} v`` and the Schur complement ``schur`` of its
        row ``v`` (with ``w`` None and ``schur = K_ii`` for an empty set, whose new inverse is
        ``[[0, y_i], [y_i, K_ii]]^{-1} = [[-K_ii, y_i], [y_i, 0]]``)."""
        m = self.m
        if m + 2 > self.inverse.shape[0]:
            cap = 2 * self.heads.size
            self.heads = np.r_[self.heads, np.empty(cap - self.heads.size, dtype=int)]
            self.mult = np.r_[self.mult, np.empty(cap - self.mult.size)]
            self.shares = np.r_[self.shares, np.empty(cap - self.shares.size)]
            inverse = np.empty((cap + 1, cap + 1))
            inverse[: m + 1, : m + 1] = self.inverse[: m + 1, : m + 1]
            self.inverse = inverse
        R = self.inverse
        if w is None:
            R[:2, :2] = [[-schur, label], [label, 0.0]]
        else:
            R[: m + 1, : m + 1] += np.outer(w, w / schur)
            R[m + 1, : m + 1] = R[: m + 1, m + 1] = w / schur
            R[m + 1, m + 1] = 1.0 / schur
        self.heads[m], self.mult[m], self.shares[m] = i, size, share
        self.m = m + 1


class _Eliminated:
    """``B^{-1}`` of a bordered matrix without its row and column ``q``, the last row and column
    moved into ``q``'s place (the order :meth:`_MarginSet.remove` leaves), kept as the full
    inverse ``R``: ``(R_rr - R_rq R_qr / R_qq) v`` is computed from ``R`` and ``v`` padded, in
    ``O(m^2)`` and without forming the smaller inverse."""

    __slots__ = ("R", "q")

    def __init__(self, R, q):
        self.R, self.q = R, q

    def __matmul__(self, v):
        R, q = self.R, self.q
        last = v.size  # R is (last + 1) x (last + 1)
        padded = np.empty(last + 1)
        padded[:last] = v
        padded[last] = v[q] if q < last else 0.0
        padded[q] = 0.0
        full = R @ padded
        factor = full[q] / R[q, q]
        out = full[:last] - R[:last, q] * factor
        if q < last:
            out[q] = full[last] - R[last, q] * factor
        return out


def _refit(K, y, C, solver, alpha_max):
    """Train on a leave-one-out set; a hard margin first tries an inactive finite box."""
    if np.isfinite(C) or solver != "libsvm":
        return fit_svm(K, y, C, solver, check_input=False)
    sol = fit_svm(K, y, HARD_BOX_FACTOR * alpha_max, solver, check_input=False)
    if sol.bounded.size == 0:
        return sol
    return fit_svm(K, y, C, solver, check_input=False)


def leave_one_out(K, y, C, solver="libsvm", sol=None, method="retrain") -> LeaveOneOut:
    """Exact leave-one-out on the support vectors: by retraining, or by the decremental path.

    A point that is not a support vector leaves the solution unchanged when removed (the dual
    optimum stays feasible and optimal), so its leave-one-out margin is its training margin.
    A margin that is 0 to rounding (within :data:`svmtrust.ties.TIE_TOL` of the size of its
    terms, ``sum_j alpha^p_j |K_pj| + |b^p|`` and those of ``b^p``) is returned as exactly 0.0
    and counts as an error (:attr:`LeaveOneOut.errors`), whichever the solver and the route.
    Every support vector is removed in turn. With ``method="retrain"`` the SVM is retrained
    from scratch with :func:`~svmtrust.svm.fit_svm`. With ``method="decremental"`` the support
    vector's multiplier is lowered to 0 along the exact path of :class:`_Decremental`
    (Cauwenberghs & Poggio 2000: the paper's warm start, made exact), whose end is kept only
    when it certifies the categories of the leave-one-out machine and the sign of
    ``y_p f^p(x_p)`` with a margin far above rounding; elsewhere that support vector is
    retrained. Both give the same errors and categories (the canonical optimum is a function of
    the bag; ``tests/test_span_loo_route.py`` compares them on problems built to break the
    path); the margins agree to rounding. The path costs a few products with ``K`` per support
    vector, against a solve from scratch: 0.22 to 0.43 of the retraining time at n = 200 on one
    split each of Pima, Ionosphere and Breast cancer (RBF kernel, gamma = 1 / d, C = 1;
    processor time, 2026-12-02), a ratio that moves with the data, the box and the machine
    (selection_compared measures it beside its cost table).

    Parameters
    ----------
    K : array_like of shape (n, n)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
        Box constraint (``numpy.inf`` for a hard margin).
    solver : {"cvxpy", "libsvm"}
        Passed to :func:`~svmtrust.svm.fit_svm` (for ``sol`` when not given, and for every
        retraining).
    sol : SVMSolution, optional
        The solution on all points, if already computed (with the same ``solver``, on these
        ``y`` and ``C``).
    method : {"decremental", "retrain"}
        See above (:data:`LOO_METHODS`).

    Returns
    -------
    LeaveOneOut

    Raises
    ------
    ValueError
        If ``K`` is not symmetric positive semi-definite, or ``sol`` was trained on other
        labels, with another ``C``, on another number of points or on another kernel
        (:func:`~svmtrust.svm.check_solution`).
    """
    K = check_kernel_matrix(K, "K")
    y = check_binary_labels(y, "y", n=K.shape[0])
    C = check_C(C)
    solver = check_choice(solver, "solver", SOLVERS)
    method = check_choice(method, "method", LOO_METHODS)
    if sol is None:
        sol = fit_svm(K, y, C, solver, check_input=False)
    check_solution(sol, K.shape[0], y=y, C=C, K=K)
    return _leave_one_out(K, y, C, solver, sol, method)


def _leave_one_out(K, y, C, solver, sol, method) -> LeaveOneOut:
    """:func:`leave_one_out` of checked arguments."""
    margins = y * sol.decision_function(K)
    # off the support the machine without p is sol
    scales = _term_scale(K, sol.alpha, sol.b, np.diag(K))
    unchanged = np.ones(K.shape[0], dtype=bool)
    category = _category(sol.alpha, C)
    alpha_max = float(np.max(sol.alpha))
    path = _Decremental(K, sol) if method == "decremental" else None
    retrained = 0
    for p in sol.support:
        reached = path.remove(p) if path is not None else None
        keep = np.arange(K.shape[0]) != p
        if reached is not None:
            margins[p], scales[p] = reached[0], reached[2]
            unchanged[p] = np.array_equal(reached[1][keep], category[keep])
            continue
        keep = np.flatnonzero(keep)
        sub = _refit(K[np.ix_(keep, keep)], y[keep], C, solver, alpha_max)
        margins[p] = y[p] * sub.decision_function(K[p, keep][None, :])[0]
        scales[p] = _term_scale(K[p, keep], sub.alpha, sub.b, np.diag(K)[keep])
        unchanged[p] = np.array_equal(_category(sub.alpha, C), category[keep])
        retrained += 1
    margins[is_zero(margins, scales)] = 0.0  # 0 to rounding: exactly 0, an error (errors)
    return LeaveOneOut(margins, unchanged, retrained, int(sol.support.size) - retrained)


def exact_loo(K, y, C, solver="libsvm") -> float:
    """The leave-one-out error rate by retraining, only for support vectors.

    Parameters
    ----------
    K : array_like of shape (n, n)
    y : array_like of shape (n,)
    C : float
    solver : {"cvxpy", "libsvm"}

    Returns
    -------
    float
        The fraction of points misclassified by the SVM trained without them.
    """
    return float(np.mean(leave_one_out(K, y, C, solver=solver).errors))


# ----------------------------------------------------------------------------- radius-margin


def radius_squared(K) -> float:
    """Squared radius of the smallest sphere enclosing the points in feature space.

    Solves the dual ``R^2 = max_beta sum_i beta_i K_ii - beta^T K beta`` over the simplex
    (``beta >= 0``, ``sum_i beta_i = 1``) (Section 2 of Chapelle & Vapnik 1999; Vapnik 1998,
    Sec. 10.8) exactly: the active-set method of :mod:`svmtrust.optimal_face` from a
    Badoiu-Clarkson start (:data:`RADIUS_START_STEPS` Frank-Wolfe steps towards the farthest
    point), certified by the KKT conditions to rounding; when it does not certify its optimum,
    with cvxpy and Clarabel (to :data:`svmtrust.qp.TOL`, which the exact value matches to about
    1e-12 on the book's kernels, in a twentieth of the time).

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric positive semi-definite Gram matrix.

    Returns
    -------
    float
    """
    return _radius_squared(check_kernel_matrix(K, "K"))


#: Frank-Wolfe steps of the start of :func:`radius_squared`'s active-set method (each ``O(n)``):
#: enough to put most of the sphere's support in the start, so that few pivots remain.
RADIUS_START_STEPS = 100


def _radius_squared(K) -> float:
    """:func:`radius_squared` of a checked Gram matrix."""
    scale = float(np.mean(np.diag(K)))
    if not scale > 0:  # every point at the origin of the feature space
        return 0.0
    exact = _radius_active_set(K / scale)
    if exact is not None:
        return scale * exact
    F = qp._kernel_factor(K / scale)
    beta = cp.Variable(K.shape[0], nonneg=True)
    problem = cp.Problem(
        cp.Maximize(np.diag(K) / scale @ beta - cp.sum_squares(F.T @ beta)), [cp.sum(beta) == 1]
    )
    qp.solve(problem, "the radius QP")
    return scale * max(float(problem.value), 0.0)


def _radius_active_set(K):
    """``R^2`` of ``K`` (mean diagonal 1) by :func:`svmtrust.optimal_face._active_set_optimum`
    on (P) with ``A = 2K``, ``c = -diag(K)``, ``a = 1``, ``d = 1``, no upper bound, from
    :data:`RADIUS_START_STEPS` Frank-Wolfe steps; None when the method does not certify its
    optimum."""
    n = K.shape[0]
    diag = np.diag(K).copy()
    beta, first = np.zeros(n), int(np.argmax(diag))
    beta[first], towards = 1.0, K[first].copy()  # towards = K beta
    for k in range(RADIUS_START_STEPS):
        far = int(np.argmax(diag - 2.0 * towards))  # the farthest point from the centre
        step = 1.0 / (k + 2.0)
        beta *= 1.0 - step
        beta[far] += step
        towards *= 1.0 - step
        towards += step * K[far]
    x, exact = _active_set_optimum(2.0 * K, -diag, np.ones(n), 1.0, np.inf, beta)
    return max(float(diag @ x - x @ (K @ x)), 0.0) if exact else None


def radius_margin_bound(K, sol) -> float:
    """Functional (1) of Chapelle & Vapnik (1999): ``T = R^2 ||w||^2 / n``.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution

    Returns
    -------
    float
    """
    K = _check_inputs(K, sol)
    return _radius_squared(K) * sol.w_norm_squared / K.shape[0]


#: The two enclosing boxes of the rescaling: the paper's box centred at the origin (the mean of
#: the data), edge ``2 max_i |x_i . u_k|``, and the tight box, edge ``max_i - min_i``.
BOXES = ("origin", "range")


#: Eigenvalues closer than this many times ``n eps lambda_max`` (the rounding of a symmetric
#: eigendecomposition, as in :func:`svmtrust.qp.psd_eigh`) are one eigenvalue repeated, and share
#: an eigenspace in the rescaling: their eigenvectors are any orthonormal basis of it, so no edge
#: may depend on which basis LAPACK returns. Distinct eigenvalues further apart keep their own
#: axes (their eigenvectors are fixed to about ``1 / (EIGENSPACE_ROUNDINGS n)`` or better).
EIGENSPACE_ROUNDINGS = 64.0


def _eigenspaces(eigvals, n: int) -> list[np.ndarray]:
    """Indices of the axes of each eigenspace: runs of ascending ``eigvals`` whose neighbours are
    at most ``EIGENSPACE_ROUNDINGS * n * eps * max(eigvals)`` apart."""
    rounding = EIGENSPACE_ROUNDINGS * n * np.finfo(float).eps * float(np.max(eigvals))
    gaps = np.diff(eigvals) > rounding
    return np.split(np.arange(len(eigvals)), np.flatnonzero(gaps) + 1)


def _edge(coords, box) -> float:
    """The longest edge along any unit direction ``u`` of the space of ``coords``' columns.

    ``box="origin"``: ``max_u 2 max_i |x_i . u| = 2 max_i ||x_i||``; ``box="range"``:
    ``max_u (max_i x_i . u - min_i x_i . u) = max_{i,j} ||x_i - x_j||``, the diameter. With one
    column these are the paper's edge and the tight one.
    """
    if coords.shape[1] == 1:
        column = coords[:, 0]
        return float(2.0 * np.abs(column).max() if box == "origin" else np.ptp(column))
    squares = np.einsum("ij,ij->i", coords, coords)
    if box == "origin":
        return float(2.0 * np.sqrt(squares.max()))
    distances = squares[:, None] + squares[None, :] - 2.0 * coords @ coords.T
    return float(np.sqrt(max(distances.max(), 0.0)))


def _rescaled_norm(coords, coef_axes, spaces, box):
    """``sum_k mu_k^2 (w . u_k)^2`` with ``mu_k`` the edge of the enclosing box on axis ``k``.

    ``coords`` are centred coordinates on the axes ``u_k`` (eigenvectors), ``spaces`` the axes
    of each eigenspace (:func:`_eigenspaces`); ``box="origin"`` takes
    ``mu_k = 2 max_i |coords_ik|`` (the paper's box centred at the origin), ``box="range"``
    ``max_i - min_i``. An eigenspace of several axes has no preferred axes: it is rescaled as a
    whole by the longest edge along any of its directions (:func:`_edge`), which is the paper's
    edge when the eigenvalue is simple and otherwise the largest value any orthonormal basis of
    the eigenspace can give.
    """
    return float(
        sum(
            _edge(coords[:, axes], box) ** 2 * float(np.sum(coef_axes[axes] ** 2))
            for axes in spaces
        )
    )


def rescaled_radius_margin_bound(K, sol, box="origin") -> float:
    """Functional (1) after rescaling feature space by kernel PCA (Section 4).

    With ``U`` and ``lambda_k`` the unit eigenvectors and eigenvalues of the centred Gram
    matrix ``H K H`` (kernel PCA, Schoelkopf et al. 1997), point ``i`` has coordinate
    ``sqrt(lambda_k) U_ik`` on axis ``k`` and ``w . u_k = sqrt(lambda_k) sum_i alpha_i y_i
    U_ik`` (exact, because ``sum_i alpha_i y_i = 0``). Rescaling axis ``k`` by the edge
    ``mu_k`` of the enclosing box makes the data fill a box of side 1, so ``R^2`` becomes 1 and
    ``||w||^2`` becomes ``sum_k mu_k^2 (w . u_k)^2``; the result is that sum divided by ``n``.
    The paper's box is centred at the origin (the data are centred), ``mu_k = 2 sqrt(lambda_k)
    max_i |U_ik|``, giving
    ``sum_k 4 lambda_k^2 (max_i |U_ik|)^2 (sum_i alpha_i y_i U_ik)^2``; the tight box has
    ``mu_k = sqrt(lambda_k) (max_i U_ik - min_i U_ik)``, at most as long, so the ``"range"``
    value never exceeds the ``"origin"`` one. Axes with numerically zero eigenvalues are
    dropped. A repeated eigenvalue (``K + I / C`` of data with repeated rows has ``1 / C`` once
    per repeat) leaves its axes undetermined: any orthonormal basis of the eigenspace is one,
    and the per-axis edges would depend on the basis LAPACK returns. Such an eigenspace is
    rescaled as a whole, by the longest edge along any of its directions (``_edge``), so the
    value is a function of the data (the same for every order of the rows) and at least the
    value of every basis of the eigenspace; for simple eigenvalues it is the paper's. Being a
    worst case over bases, it jumps where an eigenvalue becomes repeated: on the span chapter's
    ten problems with repeated rows (section "Rescaling"), splitting the eigenvalue by adding
    1e-7 of an RBF kernel lowered it by a factor 1.10 to 1.99.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
    box : {"origin", "range"}
        The enclosing box (:data:`BOXES`): ``"origin"`` the paper's, ``"range"`` the tight one.

    Returns
    -------
    float
    """
    K = _check_inputs(K, sol)
    return _rescaled_radius_margin_bound(K, sol, check_choice(box, "box", BOXES))


def _kernel_pca(K):
    """Eigenvalues (ascending, :func:`svmtrust.qp.psd_eigh`) and unit eigenvectors of the
    centred Gram matrix ``H K H``: what :func:`rescaled_radius_margin_bound` needs of ``K``,
    the same for every SVM trained on it."""
    centred = K - K.mean(axis=0) - K.mean(axis=1)[:, None] + K.mean()
    return qp.psd_eigh((centred + centred.T) / 2.0)


def _rescaled_radius_margin_bound(K, sol, box, kpca=None) -> float:
    """:func:`rescaled_radius_margin_bound` of checked arguments; ``kpca``: :func:`_kernel_pca`
    of ``K`` when the caller has it (both boxes, every ``C``)."""
    eigvals, U = _kernel_pca(K) if kpca is None else kpca
    root, spaces = np.sqrt(eigvals), _eigenspaces(eigvals, K.shape[0])
    return _rescaled_norm(U * root, root * (sol.coef @ U), spaces, box) / K.shape[0]


def _centred_spectrum(K):
    """Every eigenvalue (ascending, none dropped) and unit eigenvector of the centred Gram matrix
    ``H K H`` on the complement of the all-ones vector, where the centred data live.

    The Householder reflection that swaps ``1 / sqrt(n)`` and ``e_1`` is symmetric and
    orthogonal; its other ``n - 1`` columns ``Q`` are an orthonormal basis of that complement,
    and ``Q^T K Q`` is ``H K H`` written in it (``H Q = Q``).
    """
    n = K.shape[0]
    v = np.full(n, 1.0 / np.sqrt(n))
    v[0] -= 1.0
    Q = np.eye(n)[:, 1:] - np.outer(v, v[1:]) * (2.0 / float(v @ v))
    M = Q.T @ K @ Q
    eigvals, V = np.linalg.eigh((M + M.T) / 2.0)
    return np.maximum(eigvals, 0.0), Q @ V  # K is PSD: a negative eigenvalue is rounding


def l2_rescaled_radius_margin_bound(K, sol, C, box="origin") -> float:
    """The rescaled functional of the L2-SVM: :func:`rescaled_radius_margin_bound` on
    ``K + I / C`` (:func:`l2_kernel`), its kernel PCA taken from that of ``K``.

    On the complement of the all-ones vector, where the centred data live,
    ``H (K + I / C) H = H K H + H / C`` has the eigenvectors of ``H K H`` and the eigenvalues
    ``lambda_k + 1 / C`` (:func:`_centred_spectrum`, all ``n - 1`` kept: none is zero). Computed
    from ``K``, the axes and the eigenspaces they are grouped in (:func:`_eigenspaces` of the
    ``lambda_k``, at the rounding of ``K``'s decomposition) are the same at every ``C``: the
    value depends on ``C`` through the machine alone, as in exact arithmetic. Decomposing
    ``K + I / C`` itself groups eigenvalues at a rounding level that grows with ``1 / C`` and
    rotates the axes of clustered small eigenvalues with ``C``: where every training point is a
    support vector, so that the value is the same for every ``C`` (the selection_compared chapter
    proves it), that route moved it by up to 2.7e-6 relative between grid points.

    Parameters
    ----------
    K : array_like of shape (n, n)
        The Gram matrix of the L2-SVM's kernel, without the ``I / C``.
    sol : SVMSolution
        From :func:`fit_l2_svm` ``(K, y, C)``.
    C : float
        Positive and finite.
    box : {"origin", "range"}

    Returns
    -------
    float
    """
    K_l2, C = l2_kernel(K, C), check_positive(C, "C")
    check_solution(sol, K_l2.shape[0], K=K_l2)
    box = check_choice(box, "box", BOXES)
    K = np.asarray(K, dtype=float)
    lambdas, U = _centred_spectrum(K)
    root = np.sqrt(lambdas + 1.0 / C)
    coef_axes = root * (sol.coef @ U)
    return _rescaled_norm(U * root, coef_axes, _eigenspaces(lambdas, K.shape[0]), box) / len(K)


def linear_rescaled_bound(X, sol, box="origin") -> float:
    """The explicit rescaling of the linear case (Section 4), for a linear-kernel SVM on ``X``.

    Centre ``X``; with ``u_k`` the unit eigenvectors of its covariance matrix, the box edges are
    ``mu_k = 2 max_i |x_i . u_k|`` (``box="origin"``, the paper's box centred at the origin) or
    ``mu_k = max_i x_i . u_k - min_i x_i . u_k`` (``box="range"``), and
    ``||w~||^2 = sum_k mu_k^2 (w . u_k)^2`` with ``w = sum_i alpha_i y_i x_i``. Returns
    ``||w~||^2 / n``, which must equal :func:`rescaled_radius_margin_bound` for ``K = X X^T``.

    Parameters
    ----------
    X : array_like of shape (n, d)
    sol : SVMSolution
        Trained on ``linear_kernel(X)``.
    box : {"origin", "range"}

    Returns
    -------
    float
    """
    X = check_array(X, "X", ndim=2)
    check_solution(sol, X.shape[0])
    box = check_choice(box, "box", BOXES)
    centred = X - X.mean(axis=0)
    eigvals, u = qp.psd_eigh(centred.T @ centred, n=X.shape[0])
    spaces = _eigenspaces(eigvals, X.shape[0])
    return _rescaled_norm(centred @ u, (sol.coef @ X) @ u, spaces, box) / X.shape[0]


# ----------------------------------------------------------------------------- other estimates


def span_bound(K, sol, spans=None) -> float:
    """Theorem 1's bound on the leave-one-out error rate, separable case: ``S D ||w||^2 / n``.

    Theorem 1 of Chapelle & Vapnik (1999), from Vapnik & Chapelle (2000): a first-category
    support vector misclassified by leave-one-out has ``alpha_p S_p D >= 1``, so with
    ``S = max_p S_p`` (the constrained span of :func:`span`) and ``sum_p alpha_p = ||w||^2``
    there are at most ``S D ||w||^2`` leave-one-out errors. Here ``D = 2 R_SV`` is the paper's
    diameter, that of the smallest sphere containing the support vectors of the machine
    trained on all ``n`` examples (:func:`radius_squared` on their Gram matrix). The span
    chapter proves the theorem with a ``D`` that also covers the support vectors of the
    leave-one-out machines (``2 R`` always does), which is at least this one, so the value
    returned is at most the proved bound. Since ``S <= D = 2 R_SV <= 2 R``, it is at most
    ``4 R^2 ||w||^2 / n``, four times functional (1), and it is below functional (1) only when
    ``S < R^2 / (2 R_SV)``.

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution
        A hard-margin solution (``sol.C`` infinite), with at least two support vectors.
    spans : array_like of shape (n,), optional
        Constrained spans from :func:`span`, if already computed.

    Returns
    -------
    float
        ``S D ||w||^2 / n``.
    """
    K = _check_inputs(K, sol)
    if np.isfinite(sol.C):
        raise ValueError("sol: Theorem 1's count S D / M^2 holds for the hard margin (C = inf)")
    spans = _span(K, sol, True) if spans is None else _check_spans(spans, sol, K.shape[0])
    sv = sol.support
    S = float(np.sqrt(np.max(spans[sv])))
    D = 2.0 * np.sqrt(_radius_squared(K[np.ix_(sv, sv)]))
    return S * D * sol.w_norm_squared / K.shape[0]


def jaakkola_haussler_errors(K, sol) -> np.ndarray:
    """Leave-one-out errors predicted by the Jaakkola-Haussler rule.

    Jaakkola & Haussler (1999) show, for an SVM without bias, ``y_p (f^0(x_p) - f^p(x_p)) <=
    alpha_p K(x_p, x_p)``; the rule counts ``x_p`` as an error when ``y_p f^0(x_p) - alpha_p
    K(x_p, x_p) <= 0``. For a machine without bias the span (to the linear hull) never exceeds
    ``K(x_p, x_p)`` (the distance to the origin), so that rule predicts at least as many errors
    as the span rule. With a bias, as here, the inequality is not a theorem; the rule is an
    approximation (Chapelle et al. 2002 use it so).

    Parameters
    ----------
    K : array_like of shape (n, n)
    sol : SVMSolution

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    return _jaakkola_haussler_errors(_check_inputs(K, sol), sol)


def _jaakkola_haussler_errors(K, sol) -> np.ndarray:
    """:func:`jaakkola_haussler_errors` of checked arguments."""
    return _span_rule_errors(K, sol, np.where(sol.alpha > 0, np.diag(K), np.nan))


# ----------------------------------------------------------------------------- L2-SVM


def l2_kernel(K, C) -> np.ndarray:
    """The Gram matrix ``K + I / C`` of the L2-SVM (Chapelle, Vapnik, Bousquet & Mukherjee 2002).

    The L2-SVM minimises ``1/2 ||w||^2 + C/2 sum_i xi_i^2`` subject to
    ``y_i (w . phi(x_i) + b) >= 1 - xi_i``. Its dual is the hard-margin dual on the kernel
    ``K~ = K + I / C`` (Section 2 of Chapelle et al. 2002, after their eq. (3)): the L2-SVM is
    the hard-margin SVM in the feature space ``phi~(x_i) = (phi(x_i), e_i / sqrt(C))``, with
    ``w~ = (w, sqrt(C) xi)`` and ``||w~||^2 = ||w||^2 + C sum_i xi_i^2``. The radius-margin
    functional and the span rule of the hard margin apply unchanged on ``K~``; on a test point
    the extra coordinates are zero, so test rows of the kernel are those of ``K``.

    Parameters
    ----------
    K : array_like of shape (n, n)
        Symmetric positive semi-definite Gram matrix of the training points.
    C : float
        Positive and finite.

    Returns
    -------
    ndarray of shape (n, n)
    """
    K = check_kernel_matrix(K, "K", full=False)
    C = check_positive(C, "C")  # finite: C = inf is the hard margin itself
    return K + np.eye(K.shape[0]) / C


def fit_l2_svm(K, y, C, solver="libsvm"):
    """Train the L2-SVM: the hard-margin SVM (``C = inf``) on :func:`l2_kernel` ``(K, C)``.

    ``K + I / C`` is positive definite, so the hard-margin problem on it is always feasible.

    Parameters
    ----------
    K : array_like of shape (n, n)
    y : array_like of shape (n,)
        Labels in {-1, +1}.
    C : float
    solver : {"cvxpy", "libsvm"}
        Passed to :func:`~svmtrust.svm.fit_svm`.

    Returns
    -------
    SVMSolution
        Trained on ``K + I / C`` with ``C = inf``: its ``w_norm_squared`` is ``||w~||^2`` and its
        ``decision_function`` takes test rows of ``K``.
    """
    return fit_svm(l2_kernel(K, C), y, np.inf, solver=solver, check_kernel=False)
