"""Protocol of the span chapter: model selection on postal digits and breast cancer.

Chapelle & Vapnik (1999, Section 5) choose the RBF width ``sigma`` of a hard-margin SVM on
postal digits (0-4 against 5-9, training subsets of 317 images) and the box constraint ``C`` on
the breast-cancer data (100 random splits of 200 / 77). For every training set and parameter
value :func:`evaluate` trains the SVM with libsvm and records the test error, the span-rule
estimate (6), exact leave-one-out (the decremental path from the full solution, retraining
where it cannot certify its end), the Jaakkola-Haussler rule, the radius-margin
functional (1) and its rescaled version (both enclosing boxes), Theorem 1's bound at paper scale
on the digits, with the time of each step. :func:`run` runs all training sets in parallel;
:func:`curves` and :func:`selection_table` summarise the results as the paper's figures and the
chapter's selection table.

Timings are taken with BLAS limited to one thread inside each task: on a shared two-core machine
a multi-threaded eigendecomposition of a 317 x 317 matrix can take 30 times longer than a
single-threaded one.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from .. import datasets
from ..kernels import rbf_kernel
from ..span import (
    _closed_form_coefficients,
    _jaakkola_haussler_errors,
    _kernel_pca,
    _leave_one_out,
    _radius_squared,
    _rescaled_radius_margin_bound,
    _span_rule_errors,
    span_bound,
)
from ..svm import fit_svm
from ..ties import TIE_TOL
from ..validation import (
    check_array,
    check_binary_labels,
    check_bool,
    check_C,
    check_integer,
    check_kernel_matrix,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map

__all__ = [
    "SUBSET_SIZE",
    "DIGITS_TEST_SIZE",
    "BREAST_SIGMA",
    "BREAST_TRAIN",
    "GRIDS",
    "CRITERIA",
    "evaluate",
    "digit_split",
    "breast_split",
    "tasks",
    "run",
    "curves",
    "selection_table",
    "summary",
]

#: Size of each postal training subset (the paper's 7291 / 23).
SUBSET_SIZE = 317

#: Postal test images held out before the training subsets are cut.
DIGITS_TEST_SIZE = 1000

#: RBF width of the breast-cancer runs; gamma = 1 / (2 sigma^2) = 1/8 on the one-hot features,
#: whose median squared distance between rows is 9.
BREAST_SIGMA = 2.0

#: Training-set size of the breast-cancer splits (the rest, 77, is the test set).
BREAST_TRAIN = 200

#: Per scale: number of digit subsets, sigma grid, number of breast splits, C grid, and whether
#: Theorem 1's bound (a constrained-span QP per support vector) is computed on the digits.
GRIDS = {
    "book": {
        "digits_trials": 7,
        "sigmas": tuple(2.0 ** np.arange(1.0, 4.01, 0.5)),
        "breast_trials": 8,
        "Cs": tuple(10.0 ** np.arange(-1.0, 1.51, 0.5)),
        "span_bound": False,
    },
    "paper": {
        "digits_trials": 12,
        "sigmas": tuple(2.0 ** np.arange(0.5, 4.51, 0.25)),
        "breast_trials": 100,
        "Cs": tuple(10.0 ** np.arange(-1.0, 2.01, 0.25)),
        "span_bound": True,
    },
}

#: The model-selection criteria, as columns of the results.
CRITERIA = (
    "test_error",
    "span_rule",
    "loo",
    "jaakkola",
    "radius_margin",
    "rescaled",
    "rescaled_range",
)

#: ``|y_p f(x_p) - alpha_p S_p^2|`` at or below the library's one tie tolerance
#: (:data:`svmtrust.ties.TIE_TOL`, times ``max(1, y_p f(x_p))``) is a tie of the span rule,
#: counted in the column ``ties``.


def _agreement(a, b, where):
    """Fraction of ``where`` on which the boolean arrays ``a`` and ``b`` agree (NaN if empty)."""
    return float(np.mean(a[where] == b[where])) if np.any(where) else float("nan")


def evaluate(K, y, K_test, y_test, C, R2=None, theorem1=False) -> dict:
    """Train one SVM and compute every criterion, timing training, span rule and leave-one-out.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Training Gram matrix from :mod:`svmtrust.kernels`.
    y : ndarray of shape (n,)
    K_test : ndarray of shape (m, n)
        Kernel between test and training points.
    y_test : ndarray of shape (m,)
    C : float
        Box constraint (``numpy.inf``: hard margin).
    R2 : float, optional
        ``R^2`` of ``K``, if known (it does not depend on ``C``).
    theorem1 : bool
        Also compute Theorem 1's bound ``S D ||w||^2 / l`` (hard margin only; NaN otherwise).

    Returns
    -------
    dict
        ``test_error``; ``span_rule`` (eq. (6) with the closed-form span); ``loo`` (exact
        leave-one-out, by the decremental path of :func:`svmtrust.span.leave_one_out`, which
        gives retraining's errors and categories);
        ``jaakkola`` (the Jaakkola-Haussler rule); ``radius_margin`` (``R^2 ||w||^2 / l``),
        ``rescaled`` (Section 4, the paper's box centred at the origin) and ``rescaled_range``
        (the tight box); ``span_bound`` (Theorem 1, or NaN); ``agreement`` (fraction of all
        points on which span rule and leave-one-out agree), ``agreement_sv`` (over the support
        vectors) and ``agreement_errors`` (over the points that either calls an error, NaN if
        none); ``ties`` (support vectors on which the span rule ties, see :data:`svmtrust.ties.TIE_TOL`);
        ``unchanged`` (fraction of support vectors whose removal keeps the categories,
        Theorem 2's assumption); ``n_sv``, ``n_free``, ``n_bounded``; ``loo_retrained`` (support
        vectors whose leave-one-out machine the path could not certify, retrained from
        scratch); ``time_train``, ``time_span`` and ``time_loo`` in seconds; ``R2`` and ``w2``
        (``||w||^2``).
    """
    theorem1 = check_bool(theorem1, "theorem1")
    K = check_kernel_matrix(K, "K")
    y = check_binary_labels(y, "y", n=K.shape[0])
    C = check_C(C)
    K_test = check_array(K_test, "K_test", ndim=2)
    if K_test.shape[1] != K.shape[0]:
        raise ValueError(f"K_test: has {K_test.shape[1]} columns for {K.shape[0]} training points")
    y_test = check_binary_labels(y_test, "y_test", n=K_test.shape[0])
    return _evaluate(K, y, K_test, y_test, C, R2, theorem1)


def _evaluate(K, y, K_test, y_test, C, R2=None, theorem1=False, kpca=None) -> dict:
    """:func:`evaluate` of checked arguments (the tasks build ``K`` with
    :func:`~svmtrust.kernels.rbf_kernel`); ``kpca``: the kernel-PCA eigendecomposition of ``K``
    (:func:`svmtrust.span._kernel_pca`) when the caller has it, for every ``C`` on one split.
    Leave-one-out takes the decremental path (:func:`svmtrust.span.leave_one_out`), which gives
    retraining's errors and categories."""
    start = time.perf_counter()
    sol = fit_svm(K, y, C, solver="libsvm", check_input=False)
    trained = time.perf_counter()
    spans = _closed_form_coefficients(K, sol)[0]
    predicted = _span_rule_errors(K, sol, spans)
    spanned = time.perf_counter()
    loo = _leave_one_out(K, y, C, "libsvm", sol, "decremental")
    finished = time.perf_counter()
    R2 = _radius_squared(K) if R2 is None else R2
    kpca = _kernel_pca(K) if kpca is None else kpca
    sv = sol.support
    margins = y[sv] * sol.decision_function(K[sv])
    gap = np.abs(margins - sol.alpha[sv] * spans[sv])
    in_sv = np.zeros(len(y), dtype=bool)
    in_sv[sv] = True
    bound = span_bound(K, sol) if theorem1 and not np.isfinite(C) else float("nan")
    return {
        "test_error": float(np.mean(np.where(sol.decision_function(K_test) > 0, 1, -1) != y_test)),
        "span_rule": float(np.mean(predicted)),
        "loo": float(np.mean(loo.errors)),
        "jaakkola": float(np.mean(_jaakkola_haussler_errors(K, sol))),
        "radius_margin": R2 * sol.w_norm_squared / len(y),
        "rescaled": _rescaled_radius_margin_bound(K, sol, "origin", kpca),
        "rescaled_range": _rescaled_radius_margin_bound(K, sol, "range", kpca),
        "span_bound": bound,
        "agreement": float(np.mean(predicted == loo.errors)),
        "agreement_sv": _agreement(predicted, loo.errors, in_sv),
        "agreement_errors": _agreement(predicted, loo.errors, predicted | loo.errors),
        "ties": int(np.sum(gap <= TIE_TOL * np.maximum(1.0, np.abs(margins)))),
        "unchanged": float(np.mean(loo.sets_unchanged[sol.support])),
        "n_sv": int(sol.support.size),
        "n_free": int(sol.free.size),
        "n_bounded": int(sol.bounded.size),
        "loo_retrained": loo.retrained,
        "time_train": trained - start,
        "time_span": spanned - trained,
        "time_loo": finished - spanned,
        "R2": R2,
        "w2": sol.w_norm_squared,
    }


def digit_split(n_trials: int, seed: int = 0):
    """Disjoint postal training subsets and the common test set.

    The 5000 ``usps_like`` images are permuted with ``seed``; the first
    :data:`DIGITS_TEST_SIZE` are the test set and the next ``n_trials`` blocks of
    :data:`SUBSET_SIZE` the training subsets. Digits 0-4 are +1, 5-9 are -1.

    Returns
    -------
    X : ndarray of shape (5000, 256)
    y : ndarray of shape (5000,)
    test : ndarray of int
    subsets : list of ndarray of int
    """
    n_trials = check_integer(n_trials, "n_trials")
    X, digits, _ = datasets.load("usps_like")
    y = np.where(digits <= 4, 1.0, -1.0)
    order = np.random.default_rng(check_seed(seed)).permutation(len(y))
    test, rest = order[:DIGITS_TEST_SIZE], order[DIGITS_TEST_SIZE:]
    if n_trials * SUBSET_SIZE > len(rest):
        raise ValueError(f"n_trials: at most {len(rest) // SUBSET_SIZE} disjoint subsets")
    return X, y, test, [rest[i * SUBSET_SIZE : (i + 1) * SUBSET_SIZE] for i in range(n_trials)]


def breast_split(trial: int, seed: int = 0):
    """Random 200 / 77 split number ``trial`` of the breast-cancer data.

    Returns
    -------
    X, y, train, test
    """
    trial = check_integer(trial, "trial", low=0)
    X, y, _ = datasets.load("breast")
    order = np.random.default_rng([check_seed(seed), trial]).permutation(len(y))
    return X, y.astype(float), order[:BREAST_TRAIN], order[BREAST_TRAIN:]


def _digit_data(trial, seed, n_trials):
    """``(X_train, y_train, X_test, y_test)`` of postal subset ``trial`` (:func:`digit_split`)."""
    X, y, test, subsets = digit_split(n_trials, seed)
    train = subsets[trial]
    return X[train], y[train], X[test], y[test]


def _digits_task(task, rng) -> list[dict]:
    """All sigmas on one postal subset (hard margin); the subset's images when the task
    carries them (:func:`run` reads them once for all workers), else from :func:`digit_split`."""
    trial, sigmas, seed, n_trials, theorem1, *data = task
    X_train, y_train, X_test, y_test = data[0] if data else _digit_data(trial, seed, n_trials)
    rows = []
    for sigma in sigmas:
        gamma = 1.0 / (2.0 * sigma**2)
        K = rbf_kernel(X_train, gamma=gamma)
        K_test = rbf_kernel(X_test, X_train, gamma=gamma)
        result = _evaluate(K, y_train, K_test, y_test, np.inf, theorem1=theorem1)
        rows.append({"data": "digits", "trial": trial, "param": "sigma", "value": sigma, **result})
    return rows


def _breast_task(task, rng) -> list[dict]:
    """All values of C on one breast-cancer split (RBF width :data:`BREAST_SIGMA`)."""
    trial, Cs, seed = task
    X, y, train, test = breast_split(trial, seed)
    gamma = 1.0 / (2.0 * BREAST_SIGMA**2)
    K = rbf_kernel(X[train], gamma=gamma)
    K_test = rbf_kernel(X[test], X[train], gamma=gamma)
    R2, kpca = _radius_squared(K), _kernel_pca(K)  # both the same for every C
    return [
        {
            "data": "breast",
            "trial": trial,
            "param": "C",
            "value": C,
            **_evaluate(K, y[train], K_test, y[test], C, R2=R2, kpca=kpca),
        }
        for C in Cs
    ]


def _task(task, rng) -> list[dict]:
    """Dispatch one task, single-threaded BLAS (see the module docstring)."""
    with threadpool_limits(limits=1):
        if task[0] == "digits":
            return _digits_task(task[1:], rng)
        return _breast_task(task[1:], rng)


def tasks(scale: str = "book", seed: int = 0) -> list[tuple]:
    """The tasks :func:`run` maps :func:`_task` over: one per postal subset, then one per
    breast-cancer split.

    A task is ``("digits", trial, sigmas, seed, n_trials, span_bound)`` or
    ``("breast", trial, Cs, seed)``; its rows are one per value of the grid it carries, and it
    draws nothing from its generator, so a task with a shorter grid gives the same rows for the
    values it keeps.

    Parameters
    ----------
    scale : {"book", "paper"}
        See :data:`GRIDS`.
    seed : int
        Seed of the postal partition and the breast splits.

    Returns
    -------
    list of tuple
    """
    grid = GRIDS[check_scale(scale)]
    seed = check_seed(seed)
    digits = [
        ("digits", t, grid["sigmas"], seed, grid["digits_trials"], grid["span_bound"])
        for t in range(grid["digits_trials"])
    ]
    return digits + [("breast", t, grid["Cs"], seed) for t in range(grid["breast_trials"])]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Every criterion on every training set and parameter value.

    Parameters
    ----------
    scale : {"book", "paper"}
        ``"book"``: 7 postal subsets x 7 sigmas and 8 breast splits x 6 values of C;
        ``"paper"``: 12 subsets (as many disjoint subsets of 317 as 4000 images hold) x 17
        sigmas, with Theorem 1's bound, and the paper's 100 splits x 13 values of C (see
        :data:`GRIDS`).
    seed : int
        Seed of the postal partition and the breast splits.
    n_jobs : int
        Worker processes (one task per training set).
    progress : bool
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (data, trial, value) with the columns of :func:`evaluate`; every column
        but the times is the same for every ``n_jobs``.
    """
    seed = check_seed(seed)
    # a digits task carries its images, read here once (about 4 s), not in every worker
    jobs = [
        (*task, _digit_data(task[1], task[3], task[4])) if task[0] == "digits" else task
        for task in tasks(scale, seed)
    ]
    chunks = parallel_map(
        _task,
        jobs,
        seed=seed,
        n_jobs=check_n_jobs(n_jobs),
        desc="span rule and leave-one-out",
        progress=progress,
    )
    return pd.DataFrame([row for chunk in chunks for row in chunk])


def curves(results: pd.DataFrame, data: str) -> pd.DataFrame:
    """Mean and standard deviation over trials of every criterion and time, by parameter value.

    Returns
    -------
    pandas.DataFrame
        Indexed by the parameter value, with a column MultiIndex (quantity, "mean" | "std").
    """
    results = check_table(results, "results", ("data", "value"))
    if data not in set(results["data"]):
        raise ValueError(f"data: no rows of {data!r} in results")
    columns = [
        *CRITERIA,
        "span_bound",
        "agreement",
        "agreement_sv",
        "agreement_errors",
        "unchanged",
        "ties",
        "n_sv",
        "R2",
        "w2",
        "time_train",
        "time_span",
        "time_loo",
    ]
    return results[results["data"] == data].groupby("value")[columns].agg(["mean", "std"])


def selection_table(results: pd.DataFrame) -> pd.DataFrame:
    """The parameter each criterion selects and the test error there, per data set.

    ``chosen`` is the minimiser of the criterion's mean curve and ``test error`` the mean test
    error at that value; ``per-trial test error`` selects on each training set separately (what
    a user with one training set gets) and averages the test errors of those choices. Ties go
    to the smallest value.

    Returns
    -------
    pandas.DataFrame
        Rows (data, criterion).
    """
    results = check_table(results, "results", ("data", "value", "trial", "param", "test_error"))
    rows = []
    for data, part in results.groupby("data", sort=False):
        means = part.groupby("value")[list(CRITERIA)].mean()
        for criterion in CRITERIA:
            chosen = means[criterion].idxmin()
            per_trial = part.loc[part.groupby("trial")[criterion].idxmin(), "test_error"]
            rows.append(
                {
                    "data": data,
                    "parameter": part["param"].iloc[0],
                    "criterion": criterion,
                    "chosen": chosen,
                    "test error": means.loc[chosen, "test_error"],
                    "per-trial test error": per_trial.mean(),
                }
            )
    return pd.DataFrame(rows).set_index(["data", "criterion"])


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's table: the value each criterion selects and its test error."""
    return {"Selection by each criterion": selection_table(results)}
