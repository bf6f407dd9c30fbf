"""Several classes as SVMs of one class against the rest.

An SVM separates two classes. With ``c > 2`` classes the book's machines train ``c`` SVMs, each
of one class (labelled +1) against the others (-1), and score an example of class ``j`` with
the SVM of its own class; with two classes they train one SVM, class index 1 against class
index 0, and an example of class 0 takes the score of class 1 with the opposite sign. This
module holds that bookkeeping, shared by the full-transduction machines
(:mod:`svmtrust.transduction`, :mod:`svmtrust.svm_distance`) and split conformal prediction
(:mod:`svmtrust.split_conformal`): which SVMs there are (:func:`problems`), their labels
(:func:`problem_signs`), their training (:func:`fit_one_vs_rest`), the signed distances of new
examples to their hyperplanes (:func:`scaled_decisions`) and the strangeness of each example
under the SVM of its own class (:func:`own_class_strangeness`, eq. (D) of
:mod:`svmtrust.svm_distance`).
"""

from __future__ import annotations

import numpy as np

from .svm import SOLVERS, SVMSolution, check_solution, fit_svm
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


def scaled_decisions(solutions, K_rows, alone=False, columns=None) -> np.ndarray:
    """``f_j(x) / ||w_j||`` of new examples under each SVM: shape (m, n_problems).

    A hyperplane with ``w = 0`` gives ``f / max(||w||, tiny)``.

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
    rows = K_rows[:, None, :] if check_bool(alone, "alone") else K_rows
    return np.column_stack(
        [
            (np.matmul(rows, s.coef[columns]).reshape(-1) + s.b)
            / max(np.sqrt(max(s.w_norm_squared, 0.0)), np.finfo(float).tiny)
            for s in solutions
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
