"""The one Clarabel call, its retry policy, and the PSD helpers (svmtrust.qp, validation)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from svmtrust import discrepancy, qp
from svmtrust.validation import PSD_TOL, psd_shift


def _count_solves(monkeypatch):
    """Record the tolerance of every Clarabel solve that :func:`qp.solve` makes."""
    tolerances = []
    clarabel = qp._clarabel

    def counted(problem, tol):
        tolerances.append(tol)
        return clarabel(problem, tol)

    monkeypatch.setattr(qp, "_clarabel", counted)
    return tolerances


def test_solve_returns_the_tolerance_reached_and_the_optimum(monkeypatch):
    tolerances = _count_solves(monkeypatch)
    x = cp.Variable(2)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, -2.0]))), [x[0] <= 0.5])
    assert qp.solve(problem, "a projection") == qp.TOL
    assert tolerances == [qp.TOL]
    assert np.allclose(x.value, [0.5, -2.0], atol=1e-9)


def test_a_certificate_is_final_and_named(monkeypatch):
    tolerances = _count_solves(monkeypatch)
    x = cp.Variable()
    problem = cp.Problem(cp.Minimize(x), [x >= 1, x <= 0])
    with pytest.raises(qp.SolveError, match="infeasible.*: an empty interval") as info:
        qp.solve(problem, "an empty interval")
    assert (info.value.solver, info.value.status) == ("cvxpy", "infeasible")
    assert tolerances == [qp.TOL]  # no retry of a certificate


def test_a_stalled_solve_is_retried_once_at_clarabel_default(monkeypatch):
    """The bounded-w cone program cannot reach 1e-15: the retry at 1e-8 gives the optimum."""
    tolerances = _count_solves(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 5))
    y = np.where(X[:, 0] + rng.normal(size=30) > 0, 1.0, -1.0)
    rep = discrepancy.represent(X)
    problem = discrepancy.BoundedWProblem(30)
    problem.A.value = (0.5 * y)[:, None] * discrepancy._pad(rep.phi, 30)
    problem.my.value, problem.mask.value = y, np.ones(30)
    assert qp.solve(problem.problem, "bounded-w problem (9)", tol=1e-15) == qp.DEFAULT_TOL
    assert tolerances == [1e-15, qp.DEFAULT_TOL]
    assert problem.problem.status == cp.OPTIMAL


def test_both_attempts_failing_raise_with_the_last_status(monkeypatch):
    monkeypatch.setattr(qp, "_clarabel", lambda problem, tol: "optimal_inaccurate")
    with pytest.raises(qp.SolveError, match="'optimal_inaccurate': the SVM dual"):
        qp.solve(cp.Problem(cp.Minimize(cp.Variable() ** 2)), "the SVM dual")


def test_psd_eigh_keeps_the_numerical_rank():
    X = np.random.default_rng(1).normal(size=(12, 3))
    eigvals, eigvecs = qp.psd_eigh(X @ X.T)  # rank 3; nine eigenvalues at rounding
    assert eigvals.shape == (3,) and eigvecs.shape == (12, 3) and np.all(eigvals > 0)
    F = qp.kernel_factor(X @ X.T)
    assert F.shape == (12, 3) and np.allclose(F @ F.T, X @ X.T, atol=1e-12)
    # the covariance of the centred points has the nonzero eigenvalues of their Gram matrix
    centred = X - X.mean(axis=0)
    assert np.allclose(
        qp.psd_eigh(centred.T @ centred, n=12)[0], qp.psd_eigh(centred @ centred.T)[0], rtol=1e-12
    )
    # an eigenvalue that rounding made slightly negative is dropped with the zeros
    U = np.linalg.qr(np.random.default_rng(3).normal(size=(4, 4)))[0]
    eigvals, _ = qp.psd_eigh(U @ np.diag([-1e-17, 0.0, 1.0, 2.0]) @ U.T)
    assert np.allclose(eigvals, [1.0, 2.0], rtol=1e-12)


def test_psd_shift_is_the_tolerance_of_the_kernel_check():
    K = np.diag([2.0, 4.0])
    assert psd_shift(K) == pytest.approx(3.0 * PSD_TOL)
    assert psd_shift(np.zeros((2, 2))) == PSD_TOL * np.finfo(float).tiny > 0.0


def test_kernel_factor_refuses_what_the_kernel_check_refuses():
    """Issue 22: kernel_factor of an indefinite or asymmetric matrix returned the factor of
    another matrix (the negative eigenvalues dropped, one triangle read). Now it accepts an
    eigenvalue down to -psd_shift, as check_kernel_matrix does, and refuses below."""
    X = np.random.default_rng(4).normal(size=(6, 2))
    K = X @ X.T  # rank 2: four zero eigenvalues
    delta = psd_shift(K)
    F = qp.kernel_factor(K - 0.5 * delta * np.eye(6))
    assert np.allclose(F @ F.T, K, atol=1e-7 * np.mean(np.diag(K)))
    for bad in (
        K - 2.0 * delta * np.eye(6),
        np.array([[1.0, 2.0], [2.0, 1.0]]),
        K + np.tril(K, -1),
    ):
        with pytest.raises(ValueError, match="^K: kernel matrix"):
            qp.kernel_factor(bad)


def test_compiled_problems_are_cached_boundedly_and_do_not_remember_earlier_solves():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    rep = discrepancy.represent(X)
    discrepancy._compiled.cache_clear()
    first = discrepancy.solve_reduced(rep, y, 0.7)
    discrepancy.solve_reduced(rep, -y, 3.0)  # another solve of the same problem
    again = discrepancy.solve_reduced(rep, y, 0.7)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    info = discrepancy._compiled.cache_info()
    assert (info.maxsize, info.currsize, info.hits) == (8, 1, 2)
