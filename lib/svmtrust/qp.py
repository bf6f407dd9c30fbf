"""Exact quadratic and cone programs: the one call to Clarabel and the factor of a PSD matrix.

Every convex problem of the library (the SVM dual, the span and radius QPs, the bounded-w and
envelope cone programs of the maximal discrepancy) is solved by :func:`solve`, with one retry
policy and the tolerances below, and a failure raises :class:`SolveError` naming the status and
the problem. A positive semi-definite matrix enters a problem through :func:`kernel_factor`
(``x^T K x = ||F^T x||^2``), whose eigenvalue cut-off (:func:`psd_eigh`) is also the one the
kernel-PCA rescaling of :mod:`svmtrust.span` uses.
"""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np

from .validation import (
    PSD_TOL,
    check_integer,
    check_kernel_matrix,
    check_positive,
    check_symmetric,
)

__all__ = [
    "SolveError",
    "solve",
    "psd_eigh",
    "kernel_factor",
]

#: Accuracy asked of Clarabel (absolute and relative duality gap, feasibility, KKT ratio) for the
#: quadratic programs. At Clarabel's default 1e-8 a multiplier of the SVM dual whose example lies
#: 3e-4 inside the margin can come out 2e-4 below C; at 1e-12 the interior-point iterates reach
#: the bound within :data:`svmtrust.svm.SUPPORT_TOL` for one or two more iterations.
TOL = 1e-12

#: Accuracy asked of Clarabel for the second-order cone programs (a norm ball on the weights):
#: they stall near 1e-11, where Clarabel reports "AlmostSolved" (cvxpy "optimal_inaccurate"),
#: so they are asked for 1e-9.
CONE_TOL = 1e-9

#: Clarabel's own default accuracy, the tolerance of the one retry in :func:`solve`.
DEFAULT_TOL = 1e-8

#: Statuses that certify the problem itself (no solution exists): never retried.
CERTIFIED = (cp.INFEASIBLE, cp.UNBOUNDED)


class SolveError(RuntimeError):
    """A solver finished without an accurate optimum.

    Attributes
    ----------
    solver : str
        ``"cvxpy"`` or ``"libsvm"``.
    status : str
        The status the solver reported, e.g. ``"unbounded"`` for a hard margin on data that are
        not separable.
    detail : str
        What was solved, or why it failed.
    """

    def __init__(self, solver: str, status: str, detail: str = ""):
        self.solver = solver
        self.status = status
        self.detail = detail
        message = f"{solver} solve failed with status {status!r}"
        super().__init__(f"{message}: {detail}" if detail else message)

    def __reduce__(self):
        """Pickle by the constructor's arguments, so the error crosses process boundaries."""
        return (type(self), (self.solver, self.status, self.detail))


def _clarabel(problem: cp.Problem, tol: float) -> str:
    """One cold-started Clarabel solve at accuracy ``tol``; return cvxpy's status."""
    try:
        with warnings.catch_warnings():  # "solution may be inaccurate": the status says so
            warnings.simplefilter("ignore", UserWarning)
            problem.solve(
                solver=cp.CLARABEL,
                warm_start=False,
                tol_gap_abs=tol,
                tol_gap_rel=tol,
                tol_feas=tol,
                tol_ktratio=tol,
            )
    except cp.error.SolverError:
        return "solver_error"
    return problem.status


def solve(problem: cp.Problem, what: str, tol: float = TOL) -> float:
    """Solve ``problem`` with Clarabel to ``tol``; retry once at Clarabel's default accuracy.

    The policy: a solve that stalls short of ``tol`` (cvxpy status ``"optimal_inaccurate"``, or a
    solver error such as Clarabel's "insufficient progress" on a nearly degenerate problem) is
    repeated once at :data:`DEFAULT_TOL`; a certificate that the problem is infeasible or
    unbounded is final. Only the status ``"optimal"`` is accepted. Each solve starts afresh
    (``warm_start=False``), so a compiled problem solved many times with new parameter values
    returns the same point whatever was solved before.

    Parameters
    ----------
    problem : cvxpy.Problem
    what : str
        The problem's name, for the error message (e.g. ``"the SVM dual"``).
    tol : float
        :data:`TOL` for quadratic programs, :data:`CONE_TOL` for second-order cone programs.

    Returns
    -------
    float
        The accuracy reached: ``tol`` or :data:`DEFAULT_TOL`.

    Raises
    ------
    ValueError
        Naming ``problem``, if it is not a cvxpy Problem or not convex (DCP).
    SolveError
        With the last status, if neither solve is optimal.
    """
    if not isinstance(problem, cp.Problem):
        raise ValueError(f"problem: expected a cvxpy Problem, got {type(problem).__name__}")
    if not problem.is_dcp():  # cvxpy caches the answer: no cost on a problem solved again
        raise ValueError(
            "problem: is not convex by cvxpy's rules (not DCP), so Clarabel cannot solve it"
        )
    if not isinstance(what, str):
        raise ValueError(f"what: expected a description (str), got {what!r}")
    tol = check_positive(tol, "tol")
    status = "solver_error"
    for attempt in (tol, DEFAULT_TOL):
        status = _clarabel(problem, attempt)
        if status == cp.OPTIMAL:
            return attempt
        if status in CERTIFIED:
            break
    raise SolveError("cvxpy", status, what)


def psd_eigh(M, n: int | None = None):
    """Eigenvalues and unit eigenvectors of a symmetric PSD matrix, rounding-level ones dropped.

    An eigenvalue counts as zero when it is at most ``eps * n * lambda_max`` (``eps`` the machine
    epsilon), the size of the rounding error of a symmetric eigendecomposition of an
    ``n x n`` matrix; slightly negative eigenvalues that rounding made are dropped with them.

    Parameters
    ----------
    M : ndarray of shape (m, m)
        A symmetric positive semi-definite matrix: symmetric to a relative 1e-10, its smallest
        eigenvalue at least ``-delta`` (:func:`~svmtrust.validation.psd_shift`, the tolerance
        of :func:`~svmtrust.validation.check_kernel_matrix`) or within the rounding above.
    n : int, optional
        The order the rounding is counted for; ``m`` by default (the covariance matrix ``X^T X``
        of ``n`` points passes ``n``, so that it keeps the axes of the ``n x n`` Gram matrix).

    Returns
    -------
    eigvals : ndarray of shape (r,)
        The eigenvalues kept, ascending, all positive.
    eigvecs : ndarray of shape (m, r)

    Raises
    ------
    ValueError
        Naming ``M``, if it is not a finite symmetric matrix or has an eigenvalue below both
        tolerances; naming ``n`` if it is not a positive integer.
    """
    M = check_symmetric(M, "M")
    return _psd_eigh(M, M.shape[0] if n is None else check_integer(n, "n"))


def _psd_eigh(M, n: int):
    """:func:`psd_eigh` of a matrix its caller checked finite and symmetrised."""
    eigvals, eigvecs = np.linalg.eigh(M)
    rounding = np.finfo(float).eps * n * max(float(eigvals[-1]), 0.0)
    shift = PSD_TOL * max(float(np.mean(np.diag(M))), np.finfo(float).tiny)  # psd_shift
    if eigvals[0] < -max(shift, rounding):
        raise ValueError(
            f"M: is not positive semi-definite (an eigenvalue is {eigvals[0]:.3g}, below "
            f"-{max(shift, rounding):.3g})"
        )
    keep = eigvals > rounding
    return eigvals[keep], eigvecs[:, keep]


def kernel_factor(K) -> np.ndarray:
    """A matrix ``F`` with ``F @ F.T = K``, from the eigendecomposition of ``K``.

    ``F = U diag(sqrt(lambda))`` over the eigenvalues :func:`psd_eigh` keeps, so ``F`` has as
    many columns as ``K`` has numerical rank. Writing ``x^T K x = ||F^T x||^2`` keeps a cvxpy
    problem provably convex without ``psd_wrap`` (eq. (svm-factor) of the SVM chapter).

    The eigendecomposition reads one triangle of ``K`` and the cut-off drops negative
    eigenvalues, so an asymmetric or indefinite ``K`` would get a factor of another matrix:
    ``K`` is first checked symmetric and positive semi-definite within
    :data:`svmtrust.validation.PSD_TOL` (:func:`~svmtrust.validation.check_kernel_matrix`).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        A positive semi-definite matrix.

    Returns
    -------
    ndarray of shape (n, r)

    Raises
    ------
    ValueError
        Naming ``K``, if it is not symmetric positive semi-definite.
    """
    return _kernel_factor(check_kernel_matrix(K, "K"))


def _kernel_factor(K) -> np.ndarray:
    """:func:`kernel_factor` of a matrix the caller's door checked symmetric and positive
    semi-definite (:func:`~svmtrust.validation.check_kernel_matrix`): the library's solvers,
    which would otherwise prove a matrix PSD again before each cvxpy problem. ``K`` is
    symmetrised, ``(K + K^T) / 2``, as :func:`psd_eigh` does.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Checked finite, symmetric to a relative 1e-10 and PSD within the tolerance (trusted).

    Returns
    -------
    ndarray of shape (n, r)
    """
    eigvals, eigvecs = _psd_eigh((K + K.T) / 2.0, K.shape[0])
    return eigvecs * np.sqrt(eigvals)
