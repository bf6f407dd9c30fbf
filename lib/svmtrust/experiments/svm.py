"""Protocol of the opening chapter: the exact QP against libsvm on real data.

For each data set, box constraint and sample size, a task draws a random subsample, builds the
RBF Gram matrix of its standardised features, solves the dual once with cvxpy (Clarabel) and
once with libsvm, and records how far the two solutions are apart. :func:`timing_table` times
the two solvers on growing samples of one data set.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .. import datasets
from ..kernels import linear_kernel, rbf_kernel
from ..svm import SUPPORT_TOL, duplicate_groups, fit_svm
from ..validation import check_array, check_C, check_choice, check_integer, check_table
from . import check_n_jobs, check_scale, check_seed, parallel_map, task_rng

__all__ = [
    "SETTINGS",
    "SIZES",
    "standardised_gram",
    "compare_solvers",
    "run",
    "timing_table",
    "summary",
]

#: (data set, kernel, C) triples of the agreement study; the MNIST zeros and ones are linearly
#: separable, so they also test the hard margin (C = inf).
SETTINGS = (
    ("ionosphere", "rbf", 1.0),
    ("ionosphere", "rbf", 10.0),
    ("pima", "rbf", 1.0),
    ("breastw", "rbf", 1.0),
    ("breast", "rbf", 1.0),
    ("mnist_01", "linear", np.inf),
)

#: Subsample sizes of each setting at each scale.
SIZES = {"book": (200,), "paper": (200, 500, 1000)}


def standardised_gram(X, kernel: str) -> np.ndarray:
    """Gram matrix of the standardised features ``X``.

    Features are centred and scaled to unit variance (constant features are left at zero).
    The RBF kernel takes ``gamma = 1 / d``, so that ``gamma ||x - z||^2`` averages 2 over
    pairs of points; the linear kernel is divided by ``d`` for the same reason.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    kernel : {"rbf", "linear"}

    Returns
    -------
    ndarray of shape (n, n)
    """
    check_choice(kernel, "kernel", ("rbf", "linear"))
    X = check_array(X, "X", ndim=2)
    std = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)
    d = Z.shape[1]
    if kernel == "rbf":
        return rbf_kernel(Z, gamma=1.0 / d)
    return linear_kernel(Z) / d


def compare_solvers(K, y, C) -> dict:
    """Solve one dual with both solvers and measure their agreement and times.

    Repeated points share their multipliers in no fixed way, so the categories are compared
    over distinct points (:func:`~svmtrust.svm.duplicate_groups`): a point is a support vector
    when its pooled multiplier is positive and bounded when every copy sits at C.

    Returns
    -------
    dict
        ``n_sv`` (support vectors found by cvxpy), ``support_equal`` and ``bounded_equal``
        (same categories of distinct points), ``support_mismatch`` and ``bounded_mismatch``
        (how many distinct points the two solvers put in different categories),
        ``objective`` and ``objective_libsvm`` (the dual values W(alpha) of eq. (svm-dual)
        reached by each solver), ``alpha_diff`` (largest difference of pooled
        multipliers, relative to the largest multiplier), ``objective_gap`` (relative
        difference of the dual values), ``max_decision_diff`` (largest difference of the
        decision values on the training points), ``bias_diff``, ``time_cvxpy`` and
        ``time_libsvm`` (seconds).
    """
    start = time.perf_counter()
    exact = fit_svm(K, y, C, solver="cvxpy")
    middle = time.perf_counter()
    fast = fit_svm(K, y, C, solver="libsvm")
    end = time.perf_counter()
    groups = duplicate_groups(K, y)
    copies = np.bincount(groups)
    pooled = [np.bincount(groups, weights=sol.alpha) for sol in (exact, fast)]
    scale = max(np.max(exact.alpha), np.max(fast.alpha))
    support = [p > 0 for p in pooled]
    bounded = [np.isclose(p, copies * C, rtol=SUPPORT_TOL, atol=0) for p in pooled]
    return {
        "n_sv": exact.support.size,
        "support_equal": np.array_equal(*support),
        "bounded_equal": np.array_equal(*bounded),
        "support_mismatch": int(np.sum(support[0] != support[1])),
        "bounded_mismatch": int(np.sum(bounded[0] != bounded[1])),
        "objective": exact.objective,
        "objective_libsvm": fast.objective,
        "alpha_diff": float(np.max(np.abs(pooled[0] - pooled[1])) / scale),
        "objective_gap": abs(exact.objective - fast.objective) / abs(fast.objective),
        "max_decision_diff": float(
            np.max(np.abs(exact.decision_function(K) - fast.decision_function(K)))
        ),
        "bias_diff": abs(exact.b - fast.b),
        "time_cvxpy": middle - start,
        "time_libsvm": end - middle,
    }


def _subsample(name: str, n: int, rng: np.random.Generator):
    """A random subsample of ``n`` rows (all rows if the set is smaller) of a binary set."""
    X, y, _ = datasets.load(name)
    rows = rng.permutation(len(y))[:n]
    return X[rows], y[rows].astype(float)


def _agreement_task(task, rng) -> dict:
    """One row of the agreement table."""
    name, kernel, C, n = task
    X, y = _subsample(name, n, rng)
    K = standardised_gram(X, kernel)
    return {"data": name, "kernel": kernel, "C": C, "n": len(y), **compare_solvers(K, y, C)}


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1) -> pd.DataFrame:
    """The agreement table of the exact QP and libsvm.

    Parameters
    ----------
    scale : {"book", "paper"}
        ``"book"`` solves samples of 200 points; ``"paper"`` adds 500 and 1000.
    seed : int
        Seed of the subsamples (task ``i`` uses :func:`~svmtrust.experiments.task_rng`).
    n_jobs : int
        Worker processes.

    Returns
    -------
    pandas.DataFrame
        One row per (data set, kernel, C, n), with the columns of :func:`compare_solvers`.
        Every column but the two times is the same for every ``n_jobs``.
    """
    scale = check_scale(scale)
    tasks = [(*setting, n) for setting in SETTINGS for n in SIZES[scale]]
    rows = parallel_map(
        _agreement_task,
        tasks,
        seed=check_seed(seed),
        n_jobs=check_n_jobs(n_jobs),
        desc="exact QP vs libsvm",
    )
    return pd.DataFrame(rows)


def timing_table(sizes=(100, 300, 1000), name: str = "usps_like", C: float = 1.0, seed: int = 0):
    """Wall-clock time of the two solvers on growing samples of one data set.

    The USPS-like digits are split into even against odd digits; the kernel is the RBF of
    :func:`standardised_gram`. Runs in this process, one size after another, so the timings
    are not disturbed by other workers.

    Returns
    -------
    pandas.DataFrame
        Columns ``n``, ``time_cvxpy``, ``time_libsvm``, ``ratio`` (cvxpy / libsvm),
        ``objective_gap``, ``objective`` and ``objective_libsvm`` (the two dual values),
        ``support_mismatch`` (distinct points in different categories) and ``n_sv``.
    """
    sizes = [check_integer(n, "sizes", low=2) for n in sizes]
    check_choice(name, "name", ("usps_like", "optdigits"))
    C, seed = check_C(C), check_seed(seed)
    X, digits, _ = datasets.load(name)
    y_all = np.where(digits % 2 == 0, 1.0, -1.0)
    rows = []
    for i, n in enumerate(sizes):
        picked = task_rng(seed, i).permutation(len(y_all))[:n]
        K = standardised_gram(X[picked], "rbf")
        result = compare_solvers(K, y_all[picked], C)
        rows.append(
            {
                "n": n,
                "time_cvxpy": result["time_cvxpy"],
                "time_libsvm": result["time_libsvm"],
                "ratio": result["time_cvxpy"] / result["time_libsvm"],
                "objective_gap": result["objective_gap"],
                "objective": result["objective"],
                "objective_libsvm": result["objective_libsvm"],
                "support_mismatch": result["support_mismatch"],
                "n_sv": result["n_sv"],
            }
        )
    return pd.DataFrame(rows)


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's table: exact QP against libsvm on every setting (timings left out)."""
    results = check_table(results, "results", ("time_cvxpy", "time_libsvm"))
    return {"Exact QP against libsvm": results.drop(columns=["time_cvxpy", "time_libsvm"])}
