"""Protocol of the chapter "Transduction with confidence and credibility".

Saunders, Gammerman & Vovk (1999), Section 4, on the USPS-like digits (MNIST resampled to
16 x 16, grey levels in [-1, 1] as in USPS) with the paper's kernel ``(x . z)^3 / 256`` and a hard
margin:

* :func:`table1`: digit 8 against the rest, 49 eights and 451 other digits in training, test
  digits drawn from the remaining images; p-values, confidence and credibility of each test digit
  beside a standard SVM's prediction (the paper's Table 1 lists the misclassified ones).
* :func:`table2_runs` and :func:`table2`: digits 2 against 7, ``n`` training digits and one test
  digit per run, errors of p-value transduction, margin transduction and a standard SVM (the
  paper's Table 2, 20000 runs per ``n``), with a nearest-neighbour baseline on the same draws;
  the same protocol on the UCI optical digits (:data:`DATASETS`) brackets the difference between
  our data and USPS; :func:`calibration` reads the validity of the prediction regions off the
  same runs.
* :func:`joint_study`: several test examples labelled jointly (Section 3.2), the exact rank-sum
  p-values against Monte Carlo, and joint against one-at-a-time prediction.

:func:`run` is the command line's entry point: Table 2 (summary counts, both data sets at
paper scale) and Table 1 (one row per test digit, :data:`TABLE1_SEEDS` splits at paper scale).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from threadpoolctl import ThreadpoolController

from .. import conformal, datasets
from ..kernels import polynomial_kernel
from ..rank_sum import rank_sum_p_value_mc
from ..svm import SOLVERS
from ..transduction import TransductiveSVM
from ..validation import (
    check_array,
    check_choice,
    check_integer,
    check_numeric,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map, task_rng

__all__ = [
    "KERNEL",
    "SIZES",
    "RUNS",
    "METHODS",
    "TIE_BROKEN",
    "BASELINES",
    "DATASETS",
    "TABLE1_SEEDS",
    "TABLE1_TESTS",
    "PAPER_RUNS",
    "PAPER_TABLE2",
    "PAPER_TABLE1",
    "two_against_seven",
    "standard_svm_predict",
    "table1_many",
    "credibility_summary",
    "table1_split",
    "table1_tasks",
    "table1",
    "nearest_neighbour_predict",
    "table2_runs",
    "clopper_pearson",
    "table2",
    "add_intervals",
    "calibration",
    "joint_study",
    "run",
    "summary",
]

#: The paper's kernel, ``(x . z)^3 / 256`` (Section 4).
KERNEL = functools.partial(polynomial_kernel, degree=3, scale=256.0)

#: Training sizes of Table 2.
SIZES = (20, 40, 100, 200)

#: Runs per training size of Table 2 at each scale, on each of the :data:`DATASETS`.
RUNS = {"book": 2000, "paper": 20000}

#: The three methods of Table 2, in the paper's order. Table 2's p-value transduction is eq. (14)
#: with the first class on a tie (``TransductiveSVM(tie_break="first")``); the library's default
#: rule is recorded beside it as :data:`TIE_BROKEN`.
METHODS = ("p-value transduction", "margin transduction", "standard SVM")

#: p-value transduction with ties of the two p-values broken by the smaller optimal value
#: (``TransductiveSVM(tie_break="objective")``, the default): a column of :func:`table2_runs`.
TIE_BROKEN = "p-value transduction, ties by objective"

#: A baseline on the same draws that is not in the paper: the nearest training digit (Euclidean).
BASELINES = ("1-NN",)

#: The two data sets of Table 2: the MNIST sample at 16 x 16 and the UCI optical digits at 8 x 8.
DATASETS = ("usps_like", "optdigits")

#: Table 1's splits and test digits per split at each scale (split ``s`` is
#: :func:`table1_split` ``(seed + s)``).
TABLE1_SEEDS = {"book": 1, "paper": 5}
TABLE1_TESTS = {"book": 100, "paper": 400}

#: Runs per training size in the paper's Table 2.
PAPER_RUNS = 20000

#: The paper's Table 2: incorrect classifications over 20000 runs, for n = 20, 40, 100, 200.
PAPER_TABLE2 = {
    "p-value transduction": (640, 390, 262, 186),
    "margin transduction": (526, 355, 268, 180),
    "standard SVM": (522, 355, 272, 191),
}

#: The paper's Table 1: the three misclassified eights.
PAPER_TABLE1 = pd.DataFrame(
    {
        "example": [1, 2, 3],
        "true class": [8, 8, 8],
        "confidence": [0.95, 0.96, 0.99],
        "credibility": [0.046, 0.045, 0.008],
    }
)

#: Table 1's training set: eights and other digits; and its number of test digits.
TABLE1_EIGHTS, TABLE1_OTHERS, TABLE1_TEST = 49, 451, 100

#: Table 1's test digits are shared out among the workers in this many chunks.
_CHUNKS = 16

#: Table 2's runs are shared out among the workers in tasks of this many consecutive runs.
_RUNS_PER_TASK = 25


def _read_only(*arrays):
    """Mark arrays read-only (they are cached and shared) and return them."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


@functools.lru_cache(maxsize=1)
def _digits():
    """The USPS-like digits (read once per process): ``X`` in [-1, 1] and the digit labels."""
    X, digits, _ = datasets.load("usps_like")
    return _read_only(X, digits)


@functools.lru_cache(maxsize=2)
def two_against_seven(data: str = "usps_like"):
    """The twos (+1) and sevens (-1) of one of the :data:`DATASETS`.

    ``"usps_like"``: 500 of each, 16 x 16 in [-1, 1] (the paper's USPS: 1721 in all).
    ``"optdigits"``: the UCI optical digits' 557 twos and 566 sevens, 8 x 8 ink counts 0-16 mapped
    to [-1, 1] (``x / 8 - 1``, -1 the background) as the USPS-like pixels are.

    Returns read-only arrays ``X`` and ``y``, cached per process.
    """
    if data == "usps_like":
        X, digits = _digits()
    elif data == "optdigits":
        X, digits, _ = datasets.load("optdigits")
        X = X / 8.0 - 1.0
    else:
        raise ValueError(f"data: must be one of {DATASETS}, got {data!r}")
    keep = (digits == 2) | (digits == 7)
    return _read_only(np.ascontiguousarray(X[keep]), np.where(digits[keep] == 2, 1, -1))


def standard_svm_predict(model: TransductiveSVM, X) -> np.ndarray:
    """The inductive SVM of the model's training set: the sign of its decision function.

    The baseline of Table 2; the model solved it when it was fitted
    (:meth:`~svmtrust.transduction.TransductiveSVM.inductive_decision_function`).

    Returns
    -------
    ndarray of shape (m,)
        Labels from ``model.classes_`` (``classes_[1]`` where the decision value is >= 0).
    """
    if not isinstance(model, TransductiveSVM) or not hasattr(model, "gram_"):
        raise ValueError(f"model: expected a fitted TransductiveSVM, got {model!r}")
    return _sign_labels(model, model.inductive_decision_function(X))


def _sign_labels(model: TransductiveSVM, decision: np.ndarray) -> np.ndarray:
    """The labels of decision values: ``classes_[1]`` where ``decision >= 0``."""
    return model.classes_[(decision >= 0).astype(int)]


@functools.lru_cache(maxsize=1)
def _threadpools() -> ThreadpoolController:
    """The process's BLAS and OpenMP thread pools, inspected once (a scan costs ~6 ms)."""
    return ThreadpoolController()


def _one_thread(func):
    """Run ``func`` with BLAS on one thread.

    The matrices here are small (at most 501 x 501); on a shared machine a multithreaded
    OpenBLAS spins on them, and a 200 x 200 Cholesky factorisation was measured at 126 ms
    with two threads against 0.5 ms with one.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _threadpools().limit(limits=1):
            return func(*args, **kwargs)

    return wrapper


@_one_thread
def _hypotheses_task(task, rng) -> dict:
    """p-values and related quantities of a chunk of test examples (``rng`` is not used)."""
    model, X = task
    hyp = model.solve_hypotheses(X)
    return {"p": hyp.p_values, "alpha": hyp.alpha_new, "w2": hyp.w_norm_squared}


def table1_many(
    seeds: int, n_test: int, seed: int = 0, n_jobs: int = 1, progress: bool = True
) -> pd.DataFrame:
    """:func:`table1` on ``seeds`` splits, ``table1_split(seed + s)`` for ``s < seeds``.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`table1` with a column ``split`` (``seed + s``).
    """
    n_test = check_integer(n_test, "n_test")
    parts = [
        table1(seed=seed + s, n_test=n_test, n_jobs=n_jobs, progress=progress).assign(
            split=seed + s
        )
        for s in range(check_integer(seeds, "seeds"))
    ]
    return pd.concat(parts, ignore_index=True)


def credibility_summary(table: pd.DataFrame, thresholds=(0.05, 0.1)) -> pd.DataFrame:
    """How credibility is spread among the errors and the correct predictions of Table 1.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows of :func:`table1` or :func:`table1_many`.
    thresholds : sequence of float

    Returns
    -------
    pandas.DataFrame
        One row for the wrong and one for the correct predictions: ``count``, the share with
        credibility at most each threshold (``cred<=0.05`` ...), the share with credibility 1
        and the median credibility.
    """
    table = check_table(table, "table", ("correct", "credibility"))
    thresholds = [check_significance(t, "thresholds") for t in thresholds]
    rows = []
    for name, group in (("wrong", table[~table["correct"]]), ("correct", table[table["correct"]])):
        row = {"predictions": name, "count": len(group)}
        for t in thresholds:
            row[f"cred<={t:g}"] = (
                float(np.mean(group["credibility"] <= t)) if len(group) else np.nan
            )
        row["cred=1"] = float(np.mean(group["credibility"] == 1.0)) if len(group) else np.nan
        row["median"] = float(group["credibility"].median()) if len(group) else np.nan
        rows.append(row)
    return pd.DataFrame(rows).set_index("predictions")


def table1_split(seed: int = 0):
    """Training and test rows of Table 1 in the USPS-like digits.

    49 eights and 451 other digits drawn at random for training; ``TABLE1_TEST`` test digits
    drawn at random from the remaining images, followed by the rest of the remaining images in
    random order (so a longer test set extends the first one).

    Returns
    -------
    train : ndarray of int, shape (500,)
    test : ndarray of int, shape (4500,)
        Rows of :func:`svmtrust.datasets.load_usps_like`, in order of use.
    """
    rng = np.random.default_rng(check_seed(seed))
    _, digits = _digits()
    eights, others = np.flatnonzero(digits == 8), np.flatnonzero(digits != 8)
    train = np.r_[
        rng.choice(eights, TABLE1_EIGHTS, replace=False),
        rng.choice(others, TABLE1_OTHERS, replace=False),
    ]
    return train, rng.permutation(np.setdiff1d(np.arange(digits.size), train))


def table1_tasks(
    seed: int = 0, n_test: int = TABLE1_TEST, solver: str = "libsvm"
) -> tuple[np.ndarray, list[tuple]]:
    """The test digits of :func:`table1`'s split ``seed`` and the tasks that predict them.

    Parameters
    ----------
    seed : int
        Seed of the split (:func:`table1_split`); the tasks' generators come from it too.
    n_test : int
        Test digits.
    solver : {"libsvm", "cvxpy"}

    Returns
    -------
    test : ndarray of int
        Rows of the test digits, in the order of the table.
    tasks : list of tuple
        ``(model, X_chunk)`` for :func:`_hypotheses_task`: the transductive SVM trained on the
        split, shared by every task, and consecutive chunks of the test digits.
    """
    seed, n_test = check_seed(seed), check_integer(n_test, "n_test")
    solver = check_choice(solver, "solver", SOLVERS)
    X, digits = _digits()
    train, rest = table1_split(seed)
    test = rest[:n_test]
    y = np.where(digits == 8, 1, -1)
    model = TransductiveSVM(KERNEL, C=np.inf, solver=solver).fit(X[train], y[train])
    chunks = np.array_split(test, min(len(test), _CHUNKS))
    return test, [(model, X[c]) for c in chunks]


@_one_thread
def table1(
    seed: int = 0,
    n_test: int = TABLE1_TEST,
    solver: str = "libsvm",
    n_jobs: int = 1,
    progress: bool = True,
) -> pd.DataFrame:
    """Digit 8 against the rest: p-values, confidence and credibility of every test digit.

    Parameters
    ----------
    seed : int
        Seed of the split (:func:`table1_split`).
    n_test : int
        Test digits (the paper: 100).
    solver : {"libsvm", "cvxpy"}
    n_jobs : int
        Worker processes; the test digits are shared out in chunks.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        One row per test digit: ``row`` (in the data set), ``digit``, ``true`` (+1 for an
        eight), ``p_other``, ``p_eight``, ``alpha_other``, ``alpha_eight`` (the test digit's
        multiplier under each label), ``predicted``, ``confidence``, ``credibility``, ``svm``
        (the standard SVM's label) and ``correct``.
    """
    seed = check_seed(seed)
    X, digits = _digits()
    y = np.where(digits == 8, 1, -1)
    test, tasks = table1_tasks(seed, n_test, solver)
    model = tasks[0][0]
    parts = parallel_map(
        _hypotheses_task,
        tasks,
        seed=seed,
        n_jobs=n_jobs,
        desc="Table 1 test digits",
        progress=progress,
    )
    P = np.vstack([part["p"] for part in parts])
    alpha = np.vstack([part["alpha"] for part in parts])
    index, confidence, credibility = conformal.confidence_credibility(P)
    table = pd.DataFrame(
        {
            "row": test,
            "digit": digits[test],
            "true": y[test],
            "p_other": P[:, 0],
            "p_eight": P[:, 1],
            "alpha_other": alpha[:, 0],
            "alpha_eight": alpha[:, 1],
            "predicted": model.classes_[index],
            "confidence": confidence,
            "credibility": credibility,
            "svm": standard_svm_predict(model, X[test]),
        }
    )
    table["correct"] = table["predicted"] == table["true"]
    return table


def _draw_run(n: int, y, rng: np.random.Generator):
    """``n`` training rows holding both classes and one test row, drawn without replacement."""
    while True:
        picked = rng.choice(y.size, size=n + 1, replace=False)
        if np.unique(y[picked[:n]]).size == 2:
            return picked[:n], picked[n]


def nearest_neighbour_predict(X_train, y_train, X) -> np.ndarray:
    """Label of the nearest training example (Euclidean distance; the first on a tie)."""
    X_train, X = check_array(X_train, "X_train", ndim=2), check_array(X, "X", ndim=2)
    if X.shape[1] != X_train.shape[1]:
        raise ValueError(f"X: has {X.shape[1]} features, X_train has {X_train.shape[1]}")
    if np.shape(y_train) != (X_train.shape[0],):
        raise ValueError(
            f"y_train: expected {X_train.shape[0]} labels, got shape {np.shape(y_train)}"
        )
    d2 = np.sum(X**2, axis=1)[:, None] - 2.0 * X @ X_train.T + np.sum(X_train**2, axis=1)[None, :]
    return np.asarray(y_train)[np.argmin(d2, axis=1)]


@_one_thread
def _table2_chunk(chunk, rng) -> list[dict]:
    """Consecutive runs of Table 2, run ``i`` drawn from ``task_rng(seed, i)``, whatever the
    chunk (``rng``, the chunk's own generator, is not used).

    A run takes milliseconds: one task per run spent a tenth of that again on passing its
    generator to a worker (a pickled ``numpy.random.Generator`` costs ~0.2 ms) and on the
    thread limit, which a chunk pays once.
    """
    seed, first, runs = chunk
    return [
        _table2_run(n, solver, data, task_rng(seed, first + k))
        for k, (n, solver, data) in enumerate(runs)
    ]


def _table2_run(n: int, solver: str, data: str, rng: np.random.Generator) -> dict:
    """One run of Table 2: n training digits, one test digit, the three methods and 1-NN.

    The two augmented SVMs are solved again (``method="retrain"``), not reached from the
    training SVM by the incremental route: with one test digit per training set, preparing the
    incremental route costs more than it saves (6.4 against 4.2 ms a run at n = 20, 11.0 against
    10.7 at n = 200, 2026-11-29). Every column of a run is the same either way but the test
    multipliers, which may differ in the last bits (``tests/test_transduction.py``, on these
    draws; ``tests/test_incremental_svm.py``, on generated hard structures).
    """
    X, y = two_against_seven(data)
    train, test = _draw_run(n, y, rng)
    model = TransductiveSVM(KERNEL, C=np.inf, solver=solver, method="retrain")
    model.fit(X[train], y[train])
    hyp = model.solve_hypotheses(X[test : test + 1])
    decision = model.inductive_decision_function(X[test : test + 1])
    _, confidence, credibility = conformal.confidence_credibility(hyp.p_values)
    p, w2 = hyp.p_values[0], hyp.w_norm_squared[0]
    return {
        "data": data,
        "n": n,
        "true": int(y[test]),
        "p_seven": p[0],
        "p_two": p[1],
        "alpha_seven": hyp.alpha_new[0, 0],
        "alpha_two": hyp.alpha_new[0, 1],
        "p-value transduction": int(model.classes_[hyp.predicted_index("first")[0]]),
        TIE_BROKEN: int(model.classes_[hyp.predicted_index("objective")[0]]),
        "margin transduction": int(model.classes_[hyp.margin_index[0]]),
        "standard SVM": int(_sign_labels(model, decision)[0]),
        "1-NN": int(nearest_neighbour_predict(X[train], y[train], X[test : test + 1])[0]),
        "svm_decision": float(decision[0]),
        "confidence": confidence[0],
        "credibility": credibility[0],
        "p_tie": bool(p[0] == p[1]),
        "w2_tie": bool(w2[0] == w2[1]),
    }


def table2_runs(
    scale: str = "book",
    seed: int = 0,
    n_jobs: int = 1,
    solver: str = "libsvm",
    runs: int | None = None,
    sizes=SIZES,
    progress: bool = True,
    data=("usps_like",),
    only: str | None = None,
) -> pd.DataFrame:
    """Every run of the Table 2 protocol: digits 2 against 7, one test digit per run.

    Parameters
    ----------
    scale : {"book", "paper"}
        ``RUNS[scale]`` runs per training size (2000 or 20000) on each data set.
    seed : int
        Run ``i`` draws its digits from :func:`~svmtrust.experiments.task_rng` ``(seed, i)``.
    n_jobs : int
    solver : {"libsvm", "cvxpy"}
    runs : int, optional
        Overrides ``RUNS[scale]`` (the tests use a few runs).
    sizes : sequence of int
        Training sizes.
    progress : bool
    data : sequence of str
        Data sets from :data:`DATASETS`; the tasks of the first come first, so adding a data
        set leaves the draws of the others unchanged.
    only : str, optional
        One of ``data``: only its runs, with the draws they have among the runs of all of
        ``data`` (the chapter runs its two data sets in two cells). The runs of every data set
        of ``data``, concatenated in order, are the rows of ``only=None``.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``data``, ``n``, ``true`` (+1 for a two), the p-values and multipliers
        of the test digit as a seven and as a two, the label each method predicts (one column per
        method of :data:`METHODS` and :data:`BASELINES`, and :data:`TIE_BROKEN`), ``svm_decision`` (the standard SVM's
        decision value ``f(x)`` at the test digit), ``confidence``, ``credibility``, and
        whether the two p-values (``p_tie``) or the two values of ``||w||^2`` (``w2_tie``) were
        equal.
    """
    seed = check_seed(seed)
    solver = check_choice(solver, "solver", SOLVERS)
    runs = None if runs is None else check_integer(runs, "runs")
    sizes = [check_integer(n, "sizes", low=2) for n in sizes]
    scale = check_scale(scale)
    count = RUNS[scale] if runs is None else int(runs)
    for name in data:
        if name not in DATASETS:
            raise ValueError(f"data: must be among {DATASETS}, got {name!r}")
    plan = [(n, solver, name) for name in data for n in sizes for _ in range(count)]
    start, stop = 0, len(plan)
    if only is not None:
        start = list(data).index(check_choice(only, "only", tuple(data))) * len(sizes) * count
        stop = start + len(sizes) * count
    chunks = [
        (seed, first, plan[first : min(first + _RUNS_PER_TASK, stop)])
        for first in range(start, stop, _RUNS_PER_TASK)
    ]
    parts = parallel_map(
        _table2_chunk,
        chunks,
        seed=seed,
        n_jobs=check_n_jobs(n_jobs),
        desc=f"Table 2 runs (by {_RUNS_PER_TASK})",
        progress=progress,
    )
    return pd.DataFrame([row for part in parts for row in part])


def _counts(values, name: str) -> np.ndarray:
    """``values`` as a float array of whole numbers up to ``2**53`` (every one exact in
    float64), or a ValueError naming ``name``."""
    counts = check_numeric(values, name)
    if not np.all(np.isfinite(counts) & (counts == np.round(counts)) & (counts <= 2.0**53)):
        raise ValueError(f"{name}: counts must be whole numbers up to 2**53, got {values!r}")
    return counts


def clopper_pearson(errors, trials, level: float = 0.95):
    """Exact (Clopper-Pearson) binomial confidence interval of an error rate, element by element
    (``scipy.stats.binomtest(...).proportion_ci(method="exact")``).

    Parameters
    ----------
    errors, trials : array_like of int
        Counts (whole numbers up to ``2**53``, possibly stored as floats), ``1 <= trials``
        and ``0 <= errors <= trials``, of shapes that broadcast together.
    level : float
        Confidence level, in (0, 1).

    Returns
    -------
    low, high : ndarray

    Raises
    ------
    ValueError
        Naming ``errors`` or ``trials``, if a count is not a whole number (NaN and inf are not)
        or lies outside its range.
    """
    level = check_significance(level, "level")
    errors, trials = _counts(errors, "errors"), _counts(trials, "trials")
    try:
        errors, trials = np.broadcast_arrays(errors, trials)
    except ValueError:
        raise ValueError(
            f"trials: shape {np.shape(trials)} does not broadcast with errors' {np.shape(errors)}"
        ) from None
    if not np.all(trials >= 1):
        raise ValueError("trials: every count of trials must be at least 1")
    if not np.all((errors >= 0) & (errors <= trials)):
        raise ValueError("errors: every count of errors must lie in [0, trials]")
    intervals = [
        binomtest(int(k), int(m)).proportion_ci(level, method="exact")
        for k, m in zip(errors.ravel(), trials.ravel(), strict=True)
    ]
    low = np.array([ci.low for ci in intervals]).reshape(errors.shape)
    high = np.array([ci.high for ci in intervals]).reshape(errors.shape)
    return low, high


def table2(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 2: error rates of the three methods with 95% intervals, beside the paper's.

    Parameters
    ----------
    runs : pandas.DataFrame
        From :func:`table2_runs`.

    Returns
    -------
    pandas.DataFrame
        One row per (data, method, n), the methods of :data:`METHODS` then :data:`BASELINES`:
        ``errors``, ``runs``, ``disagree_svm`` (runs in which the method's label differs from the
        standard SVM's), ``p_ties`` (runs whose two p-values were equal), ``inside_margin``
        (runs whose test digit has ``|f(x)| < 1`` for the standard SVM ``f``), ``rate``, ``low``,
        ``high`` (the Clopper-Pearson 95% interval), ``paper_errors`` (per 20000 runs; NaN for a
        baseline), ``paper_rate``, ``paper_low``, ``paper_high`` and ``overlap`` (whether the
        two intervals meet).
    """
    runs = check_table(runs, "runs", ("n",))
    if "data" not in runs:
        runs = runs.assign(data="usps_like")
    methods = [m for m in METHODS + BASELINES if m in runs]
    rows = []
    for data in [d for d in DATASETS if d in set(runs["data"])]:
        for method in methods:
            for n, group in runs[runs["data"] == data].groupby("n"):
                errors = int(np.sum(group[method] != group["true"]))
                paper = (
                    PAPER_TABLE2[method][SIZES.index(n)]
                    if n in SIZES and method in PAPER_TABLE2
                    else np.nan
                )
                rows.append(
                    {
                        "data": data,
                        "method": method,
                        "n": int(n),
                        "errors": errors,
                        "runs": len(group),
                        "disagree_svm": int(np.sum(group[method] != group["standard SVM"])),
                        "p_ties": int(group["p_tie"].sum()),
                        "inside_margin": int(np.sum(np.abs(group["svm_decision"]) < 1.0))
                        if "svm_decision" in group
                        else -1,
                        "paper_errors": paper,
                    }
                )
    table = pd.DataFrame(rows)
    return add_intervals(table)


def add_intervals(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``rate``, ``low``, ``high``, the paper's rate and interval, and ``overlap``.

    Parameters
    ----------
    table : pandas.DataFrame
        With columns ``errors``, ``runs`` and ``paper_errors`` (e.g. the Table 2 rows of a
        recorded run).

    Returns
    -------
    pandas.DataFrame
        A copy with the columns of :func:`table2`.
    """
    table = check_table(table, "table", ("errors", "runs"))
    table = table.copy()
    table["rate"] = table["errors"] / table["runs"]
    table["low"], table["high"] = clopper_pearson(table["errors"], table["runs"])
    table["paper_rate"] = table["paper_errors"] / PAPER_RUNS
    low, high = clopper_pearson(table["paper_errors"].fillna(0), PAPER_RUNS)
    known = table["paper_errors"].notna().to_numpy()
    table["paper_low"], table["paper_high"] = (
        np.where(known, low, np.nan),
        np.where(known, high, np.nan),
    )
    table["overlap"] = (table["low"] <= table["paper_high"]) & (table["paper_low"] <= table["high"])
    return table


def calibration(runs: pd.DataFrame, levels, band: float = 0.99) -> pd.DataFrame:
    """Validity of the prediction regions across the runs of :func:`table2_runs`.

    With one test digit per run the errors are independent, so the number of regions that miss
    the true label at significance ``eps`` is binomial with rate at most ``eps``.

    Parameters
    ----------
    runs : pandas.DataFrame
    levels : sequence of float
        Significance levels in (0, 1).
    band : float
        Probability of the central binomial band around ``eps``.

    Returns
    -------
    pandas.DataFrame
        One row per (n, eps): ``error`` (fraction of regions without the true label, by
        :func:`svmtrust.conformal.error_rate`), ``runs``, ``band_low`` and ``band_high``
        (quantiles of Binomial(runs, eps) / runs).
    """
    band = check_significance(band, "band")
    runs = check_table(runs, "runs", ("n", "p_seven", "p_two", "true"))
    levels = [check_significance(level, "levels") for level in levels]
    rows = []
    for n, group in runs.groupby("n"):
        P = group[["p_seven", "p_two"]].to_numpy()
        truth = (group["true"].to_numpy() > 0).astype(int)
        for eps in levels:
            rows.append(
                {
                    "n": int(n),
                    "eps": float(eps),
                    "runs": len(group),
                    "error": conformal.error_rate(P, truth, eps),
                }
            )
    table = pd.DataFrame(rows)
    low, high = conformal.error_band(table["runs"].to_numpy(), table["eps"].to_numpy(), band)
    table["band_low"], table["band_high"] = low / table["runs"], high / table["runs"]
    return table


@_one_thread
def _joint_task(task, rng) -> dict:
    """k test digits labelled jointly and one at a time; exact and Monte Carlo p-values."""
    k, n, n_draws, solver = task
    X, y = two_against_seven()
    picked = rng.choice(y.size, size=n + k, replace=False)
    while np.unique(y[picked[:n]]).size < 2:
        picked = rng.choice(y.size, size=n + k, replace=False)
    train, test = picked[:n], picked[n:]
    model = TransductiveSVM(KERNEL, C=np.inf, solver=solver).fit(X[train], y[train])
    joint = model.solve_joint(X[test])
    mc = np.array([rank_sum_p_value_mc(a, np.arange(n, n + k), n_draws, rng) for a in joint.alphas])
    best, true = (
        int(np.argmax(joint.p_values)),
        np.flatnonzero((joint.labellings == y[test]).all(axis=1))[0],
    )
    _, joint_conf, joint_cred = conformal.confidence_credibility(joint.p_values[None, :])
    single, conf, _ = model.predict_confidence(X[test])
    return {
        "k": k,
        "exact": joint.p_values,
        "mc": mc,
        "joint_errors": int(np.sum(joint.labellings[best] != y[test])),
        "single_errors": int(np.sum(single != y[test])),
        "joint_confidence": joint_conf[0],
        "joint_credibility": joint_cred[0],
        "single_min_confidence": float(conf.min()),
        "p_true_labelling": joint.p_values[true],
    }


def joint_study(
    ks=(2, 3, 4, 5),
    repeats: int = 20,
    n: int = 100,
    n_draws: int = 20000,
    seed: int = 0,
    n_jobs: int = 1,
    solver: str = "libsvm",
    progress: bool = True,
) -> pd.DataFrame:
    """Several test digits at once (Section 3.2): exact against Monte Carlo p-values.

    Each repeat draws ``n`` training and ``k`` test digits (2 against 7), solves the ``2^k``
    augmented SVMs, and computes every labelling's p-value exactly
    (:func:`~svmtrust.rank_sum.rank_sum_p_value`) and by ``n_draws`` Monte Carlo draws.

    Returns
    -------
    pandas.DataFrame
        One row per repeat: ``k``, ``exact`` and ``mc`` (arrays over the labellings),
        ``joint_errors`` (wrong labels in the labelling with the largest p-value),
        ``single_errors`` (wrong labels predicted one at a time), ``joint_confidence``,
        ``joint_credibility``, ``single_min_confidence`` (the smallest confidence of the
        one-at-a-time predictions) and ``p_true_labelling``.
    """
    ks = [check_integer(k, "ks", low=2) for k in ks]
    repeats, n = check_integer(repeats, "repeats"), check_integer(n, "n")
    n_draws = check_integer(n_draws, "n_draws")
    solver = check_choice(solver, "solver", SOLVERS)
    tasks = [(k, n, n_draws, solver) for k in ks for _ in range(repeats)]
    rows = parallel_map(
        _joint_task,
        tasks,
        seed=check_seed(seed),
        n_jobs=check_n_jobs(n_jobs),
        desc="joint labellings",
        progress=progress,
    )
    return pd.DataFrame(rows)


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Table 2 and Table 1 at book or paper scale.

    Table 2: ``RUNS[scale]`` runs per ``n`` (2000 or 20000), on the USPS-like digits at book
    scale and on both :data:`DATASETS` at paper scale. Table 1: ``TABLE1_SEEDS[scale]`` splits
    (1 or 5) of ``TABLE1_TESTS[scale]`` test digits (100 or 400).

    Returns
    -------
    pandas.DataFrame
        Rows with ``stage == "table2"``: :func:`table2` of :func:`table2_runs` (one row per data
        set, method and ``n``); rows with ``stage == "table1"``: :func:`table1_many`, one row
        per test digit. Columns that do not apply to a stage are empty.
    """
    scale = check_scale(scale)
    data = DATASETS if scale == "paper" else ("usps_like",)
    t2 = table2(table2_runs(scale=scale, seed=seed, n_jobs=n_jobs, progress=progress, data=data))
    t1 = table1_many(
        TABLE1_SEEDS[scale], TABLE1_TESTS[scale], seed=seed, n_jobs=n_jobs, progress=progress
    )
    return pd.concat([t2.assign(stage="table2"), t1.assign(stage="table1")], ignore_index=True)


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables: Table 2 with intervals beside the paper, and how credibility is
    spread among errors and correct predictions (Table 1)."""
    results = check_table(results, "results", ("stage",))
    t2 = results[results["stage"] == "table2"].dropna(axis=1, how="all")
    t1 = results[results["stage"] == "table1"].dropna(axis=1, how="all")
    return {
        "Table 2 (errors, 95% Clopper-Pearson interval, paper)": add_intervals(
            t2.set_index(["data", "method", "n"])
        )[["errors", "runs", "rate", "low", "high", "paper_rate"]],
        "Table 1 (credibility of errors and of correct predictions)": credibility_summary(
            t1.assign(correct=t1["correct"].astype(bool))
        ),
    }
