"""Several classes as SVMs of one class against the rest.

An SVM separates two classes. With ``c > 2`` classes the book's machines train ``c`` SVMs, each
of one class (labelled +1) against the others (-1), and score an example of class ``j`` with
the SVM of its own class; with two classes they train one SVM, class index 1 against class
index 0, and an example of class 0 takes the score of class 1 with the opposite sign. This
module holds that bookkeeping, shared by the full-transduction machines
(:mod:`svmtrust.transduction`, :mod:`svmtrust.svm_distance`) and split conformal prediction
(:mod:`svmtrust.split_conformal`): which SVMs there are (:func:`problems`), their labels
(:func:`problem_signs`), their training (:func:`fit_one_vs_rest`), whether an SVM has a
hyperplane at all (:func:`w_is_zero`), the signed distances of new examples to their
hyperplanes (:func:`scaled_decisions`) and the strangeness of each example under the SVM of
its own class (:func:`own_class_strangeness`, eq. (D) of
:mod:`svmtrust.svm_distance`).
"""

from __future__ import annotations

import numpy as np

from .optimal_face import EXACT_TOL, FACE_TOL, _gradient_scale_of
from .svm import SOLVERS, SVMSolution, check_solution, fit_svm
from .ties import is_zero
from .validation import (
    check_array,
    check_bool,
    check_C,
    check_choice,
    check_indices,
    check_integer,
    check_kernel_matrix,
)

__all__ = [
    "problems",
    "problem_signs",
    "fit_one_vs_rest",
    "w_is_zero",
    "scaled_decisions",
    "own_class_strangeness",
]


def problems(n_classes: int) -> range:
    """Class indices of the SVMs: one binary SVM (class 1 against 0), or one per class against
    the rest."""
    n_classes = check_integer(n_classes, "n_classes", low=2)
    return range(1, 2) if n_classes == 2 else range(n_classes)


def problem_signs(codes, c: int, n_classes: int) -> np.ndarray:
    """Labels in {-1, +1} of the SVM of class ``c`` against the rest, for examples of the class
    indices ``codes`` (trusted: the machines pass their own).

    With two classes there is one SVM, class index 1 against class index 0 (``c`` is ignored).
    """
    if n_classes != 2 and check_integer(c, "c", low=0) not in problems(n_classes):
        raise ValueError(f"c: must be a class index below n_classes = {n_classes}, got {c!r}")
    target = 1 if n_classes == 2 else c
    return np.where(np.asarray(codes) == target, 1.0, -1.0)


def fit_one_vs_rest(
    K, codes, n_classes: int, C, solver: str = "libsvm", canonical: bool = True
) -> list[SVMSolution]:
    """The SVMs of the strangeness (D): the binary SVM, or one per class against the rest.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Gram matrix: checked square and finite; positive semi-definite by construction (not
        checked again).
    codes : ndarray of int, shape (n,)
        Class index of each example, in ``0 .. n_classes - 1``.
    n_classes : int
    C : float
    solver : {"libsvm", "cvxpy"}
    canonical : bool
        Passed to :func:`svmtrust.svm.fit_svm`: ``False`` for machines that need one optimum of
        each problem, not the canonical one.

    Returns
    -------
    list of SVMSolution
        The binary SVM (class index 1 against 0), or one per class against the rest.
    """
    K = check_kernel_matrix(K, "K", full=False)
    n_classes = check_integer(n_classes, "n_classes", low=2)
    codes = check_indices(codes, "codes", n_classes, size=K.shape[0])
    if np.unique(codes).size != n_classes:
        raise ValueError(f"codes: every class index below n_classes = {n_classes} needs an example")
    C, solver = check_C(C), check_choice(solver, "solver", SOLVERS)
    canonical = check_bool(canonical, "canonical")
    return [
        fit_svm(
            K, problem_signs(codes, c, n_classes), C, solver, check_input=False, canonical=canonical
        )
        for c in problems(n_classes)
    ]


def w_is_zero(solution, values, diagonal, rows=None) -> bool:
    """Whether an SVM's ``w`` is 0, so that it has no hyperplane and scores every example 0.

    ``||w||^2`` of an SVM whose ``w`` is 0 in exact arithmetic is rounding of either sign, and
    the rounding of ``||w||^2 = alpha^T Q alpha`` grows as ``sum(alpha)^2`` (at a large box the
    multipliers are large while ``w`` is not: a linear kernel, n = 40, C = 1e6, ``||w||^2 =
    1.678`` against a rounding bound of 20.6). So ``w = 0`` is decided where it is exact:
    ``w = 0`` exactly when every ``g_i = sum_j alpha_j y_j K_ij = f(x_i) - b`` is 0, and it is
    enough to look at the support vectors (``||w||^2 = sum_{i in S} alpha_i y_i g_i``). Each
    ``g_i`` is compared with 0 at the solution's accuracy (:func:`svmtrust.ties.is_zero`, times
    the size of the terms of ``f``: :func:`svmtrust.optimal_face._gradient_scale_of` of
    ``diagonal`` and ``|b|``): for an exact solution :data:`svmtrust.optimal_face.EXACT_TOL`
    times the number of terms of the sums that give ``g`` (the rounding of a sum of ``r``
    terms grows as ``r`` machine epsilons; a constant SVM on conflicting copies, exact to its
    KKT conditions, gave ``|g|`` up to 4 ``EXACT_TOL`` of the scale on 40 examples), for one
    flagged inexact :data:`svmtrust.optimal_face.FACE_TOL`. At the large box above ``|g|`` reaches
    5.0e-8 of the scale (C = 1e6; 5.0e-6 at C = 1e4). A computed ``||w||^2 <= 0`` counts as 0.

    Parameters
    ----------
    solution : SVMSolution
    values : array_like of shape (r,)
        ``g_i`` at the training examples ``rows``.
    diagonal : array_like of shape (r,)
        ``K_ii`` at the same examples.
    rows : array_like of int, optional
        The examples, every support vector among them (all ``n`` by default).

    Returns
    -------
    bool
    """
    if not isinstance(solution, SVMSolution):
        raise ValueError(f"solution: expected an SVMSolution, got {solution!r}")
    n = solution.alpha.size
    rows = np.arange(n) if rows is None else check_indices(rows, "rows", n)
    values = check_array(values, "values", ndim=1)
    diagonal = check_array(diagonal, "diagonal", ndim=1)
    for name, array in (("values", values), ("diagonal", diagonal)):
        if array.size != rows.size:
            raise ValueError(f"{name}: expected {rows.size} values, one per row, got {array.size}")
    held = np.zeros(n, dtype=bool)
    held[rows] = True
    if not np.all(held[solution.support]):
        raise ValueError("rows: must hold every support vector")
    if solution.w_norm_squared <= 0.0:
        return True
    scale = _gradient_scale_of(diagonal, abs(solution.b), solution.alpha[rows])
    tol = EXACT_TOL * max(rows.size, 1) if solution.exact else FACE_TOL
    return bool(np.all(is_zero(values, scale, tol)))


def scaled_decisions(solutions, K_rows, alone=False, columns=None, flat=None) -> np.ndarray:
    """``f_j(x) / ||w_j||`` of new examples under each SVM: shape (m, n_problems).

    An SVM marked ``flat`` (``w = 0``, :func:`w_is_zero`) has no hyperplane and gives every
    example 0, the convention of :mod:`svmtrust.svm_distance`.

    Parameters
    ----------
    solutions : list of SVMSolution
        The SVMs of :func:`fit_one_vs_rest`, all on the same ``n`` training examples.
    K_rows : ndarray of shape (m, n), or (m, len(columns))
        Kernel values between the new examples and those training examples.
    alone : bool
        Give each row the bits it has alone (``scaled_decisions(solutions, K_rows[i:i + 1])``):
        the products ``K_rows alpha y`` are taken row by row (numpy's matmul over a stack of
        rows), not as one matrix-vector product, whose sums run in an order that depends on
        the number of rows (:func:`svmtrust.kernels.rows_alone` says why that matters).
    columns : array_like of int, optional
        The training examples ``K_rows``'s columns belong to, when it holds only some of them:
        every support vector of every SVM (the others have no weight in ``f``). All ``n`` by
        default.
    flat : array_like of bool, shape (n_problems,), optional
        Which SVMs have ``w = 0``. None by default.
    """
    K_rows = check_array(K_rows, "K_rows", ndim=2)
    if not isinstance(solutions, (list, tuple)) or not solutions:
        raise ValueError(f"solutions: expected a non-empty list of SVMSolution, got {solutions!r}")
    if columns is None:
        n = K_rows.shape[1]
    else:  # the training examples are the first SVM's (checked below like every other)
        n = solutions[0].alpha.shape[0] if isinstance(solutions[0], SVMSolution) else 0
    solutions = [check_solution(s, n, name="solutions") for s in solutions]
    if columns is None:
        columns = slice(None)
    else:
        columns = check_indices(columns, "columns", n, size=K_rows.shape[1])
        held = np.zeros(n, dtype=bool)
        held[columns] = True
        if not all(np.all(held[s.support]) for s in solutions):
            raise ValueError("columns: must hold every support vector of every SVM")
    flat = np.zeros(len(solutions), dtype=bool) if flat is None else np.asarray(flat)
    if flat.dtype != bool or flat.shape != (len(solutions),):
        raise ValueError(f"flat: expected {len(solutions)} booleans, one per SVM, got {flat!r}")
    rows = K_rows[:, None, :] if check_bool(alone, "alone") else K_rows
    return np.column_stack(
        [
            np.zeros(K_rows.shape[0])
            if zero
            else (np.matmul(rows, s.coef[columns]).reshape(-1) + s.b)
            / max(np.sqrt(max(s.w_norm_squared, 0.0)), np.finfo(float).tiny)
            for s, zero in zip(solutions, flat)
        ]
    )


def own_class_strangeness(values, codes, n_classes: int) -> np.ndarray:
    """Strangeness (D) from the signed distances of every example under every SVM.

    Parameters
    ----------
    values : ndarray of shape (m, n_problems)
        ``f_j(x) / ||w_j||`` of each example under each SVM of :func:`fit_one_vs_rest`.
    codes : ndarray of int, shape (m,)
        The class index each example is labelled with.
    n_classes : int

    Returns
    -------
    ndarray of shape (m,)
        ``-f(x) / ||w||`` for class index 1 and ``+f(x) / ||w||`` for class index 0 with two
        classes; ``-f_c(x) / ||w_c||`` for class ``c`` otherwise.
    """
    values = check_array(values, "values", ndim=2)
    n_classes = check_integer(n_classes, "n_classes", low=2)
    width = len(problems(n_classes))
    if values.shape[1] != width:
        raise ValueError(
            f"values: expected {width} columns for {n_classes} classes, got {values.shape[1]}"
        )
    codes = check_indices(codes, "codes", n_classes, size=values.shape[0])
    if n_classes == 2:
        return np.where(codes == 1, -values[:, 0], values[:, 0])
    return -values[np.arange(codes.size), codes]
