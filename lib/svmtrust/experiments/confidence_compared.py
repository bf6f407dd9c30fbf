"""Protocol of the chapter "Confidence machines compared": every confidence machine of the book
on the same training sets.

Machines (:data:`MACHINES`), all around an RBF kernel with the same ``gamma`` and ``C`` on a
data set (:func:`svm_params`), except TCM-NN:

- ``TSVM``: Saunders et al. (1999): Lagrange multipliers, full transduction
- ``TSVM Mondrian``: the same, label-conditional
- ``TCM-NN``: Proedrou et al. (2002): nearest-neighbour ratio, k = 1
- ``Distance TCM``: strangeness = minus the distance to the hyperplane, full transduction
- ``Distance TCM Mondrian``: the same, label-conditional
- ``Hardoon``: one fixed SVM, validation set of min(l/5, 50), Hardoon et al.'s p-value
- ``Split``: split conformal, 1/3 calibration, the distance score (as crepes)
- ``Split Mondrian``: the same, label-conditional

Stage ``"trial"`` (validity and efficiency): for each data set of :data:`DATASETS`, many trials;
each draws ``n_train + 1`` distinct examples at random from the whole (min-max scaled) data set,
the first ``n_train`` for training and the last as the one test example, so errors of different
trials are independent and the training and test examples are exchangeable. A draw whose
training part has fewer than :data:`MIN_PER_CLASS` examples of some class is drawn again (TCM-NN
needs two per class); the split machines retry their split seed until the proper training and
calibration sets hold every class. Both are rare at these sizes and counted (``redraws``,
``split_retries``).

Stage ``"cost"``: on Satimage, for each training size of ``cost_sizes``, one training set and
``cost_tests`` test examples; every machine's wall-clock time per test example (fit and
prediction together, divided by the number of test examples) and its p-values, for the cost of
transduction and the efficiency split conformal gives up for its speed.

Every row holds the p-values of one test example under one machine (``p0`` ... ``p6``, NaN
beyond the data set's classes) and the column of its true label (``true``).
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pandas as pd
from scipy.stats import binom
from threadpoolctl import threadpool_limits

from .. import conformal, datasets
from ..efficiency import observed_fuzziness, region_summary
from ..kernels import rbf_kernel
from ..split_conformal import ClassLeftOut, SplitConformalSVM
from ..svm_distance import DistanceTCM
from ..tcm_nn import TCMNearestNeighbours
from ..transduction import TransductiveSVM
from ..validation import (
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

#: The data sets: two with two classes, two with six and seven (names of :func:`datasets.load`).
DATASETS = ("breast", "pima", "segment", "satimage")

#: How the chapter names them.
NAMES = {"breast": "Breast cancer", "pima": "Pima", "segment": "Segment", "satimage": "Satellite"}

MACHINES = (
    "TSVM",
    "TSVM Mondrian",
    "TCM-NN",
    "Distance TCM",
    "Distance TCM Mondrian",
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

#: Fewest training examples of each class a draw must have.
MIN_PER_CLASS = 2

#: Largest number of classes (columns ``p0`` ... ``p6``).
MAX_CLASSES = 7

#: Two-sided level of the binomial band of the validity table.
BAND_LEVEL = 1e-3

#: Training size, trials per data set, and the cost stage's sizes and test examples.
SETTINGS = {
    "book": {
        "n_train": 100,
        "trials": {"breast": 80, "pima": 80, "segment": 30, "satimage": 30},
        "cost_sizes": (50, 100, 200),
        "cost_tests": 2,
    },
    "paper": {
        "n_train": 100,
        "trials": {"breast": 1000, "pima": 1000, "segment": 600, "satimage": 600},
        "cost_sizes": (100, 200, 400, 800, 1600),
        "cost_tests": 3,
    },
}


# --------------------------------------------------------------------------- data and machines


@functools.cache
def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features min-max scaled to [0, 1] over the whole data set (a map that ignores the labels
    and the draw, so exchangeability is kept), and labels."""
    if name not in DATASETS:
        raise ValueError(f"name: must be one of {DATASETS}, got {name!r}")
    X, y, _ = datasets.load(name)
    low, high = X.min(axis=0), X.max(axis=0)
    return (X - low) / np.where(high > low, high - low, 1.0), y


def svm_params(name: str) -> dict:
    """``gamma = 1 / (d Var(X))`` of the scaled data (scikit-learn's "scale") and :data:`C`."""
    X, _ = load(name)
    return {"gamma": float(1.0 / (X.shape[1] * X.var())), "C": C}


def machines(gamma: float, C: float, seed: int) -> dict:
    """Unfitted machines of :data:`MACHINES`; ``seed`` seeds the split machines' splits."""
    gamma, C, seed = check_positive(gamma, "gamma"), check_C(C), check_seed(seed)
    kernel = functools.partial(rbf_kernel, gamma=gamma)
    return {
        "TSVM": TransductiveSVM(kernel=kernel, C=C),
        "TSVM Mondrian": TransductiveSVM(kernel=kernel, C=C, mondrian=True),
        "TCM-NN": TCMNearestNeighbours(k=1),
        "Distance TCM": DistanceTCM(kernel=kernel, C=C),
        "Distance TCM Mondrian": DistanceTCM(kernel=kernel, C=C, mondrian=True),
        "Hardoon": SplitConformalSVM(
            kernel=kernel, C=C, calibration_size="hardoon", convention="hardoon", seed=seed
        ),
        "Split": SplitConformalSVM(kernel=kernel, C=C, seed=seed),
        "Split Mondrian": SplitConformalSVM(kernel=kernel, C=C, mondrian=True, seed=seed),
    }


def draw(name: str, n_train: int, n_test: int, rng: np.random.Generator):
    """``(train, test, redraws)``: distinct random positions, each class at least
    :data:`MIN_PER_CLASS` times in ``train``."""
    _, y = load(name)
    n_train = check_integer(n_train, "n_train", low=MIN_PER_CLASS)
    check_integer(n_test, "n_test", high=y.size - n_train)
    rng = check_rng(rng)
    classes = np.unique(y)
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


def fit_split(model: SplitConformalSVM, X, y) -> int:
    """Fit a split machine, moving its seed on until the proper training and calibration sets
    hold every class; return the number of retries."""
    if not isinstance(model, SplitConformalSVM):
        raise ValueError(f"model: expected a SplitConformalSVM, got {type(model).__name__}")
    for retry in range(1000):
        try:
            model.fit(X, y)
        except ClassLeftOut:
            model.set_params(seed=model.seed + 1)
            continue
        if not model.mondrian or np.unique(model.calibration_codes_).size == model.classes_.size:
            return retry
        model.set_params(seed=model.seed + 1)
    raise ValueError("y: no split of 1000 tries holds every class in both parts")


def evaluate(name: str, train, test, seed: int) -> list[dict]:
    """Every machine on one training set and its test examples: one row per (machine, test)."""
    X, y = load(name)
    train = check_indices(train, "train", y.size)
    test = check_indices(test, "test", y.size)
    seed = check_seed(seed)
    classes = np.unique(y)
    true = np.searchsorted(classes, y[test])
    rows = []
    for machine, model in machines(**svm_params(name), seed=seed).items():
        start = time.perf_counter()
        if isinstance(model, SplitConformalSVM):
            retries = fit_split(model, X[train], y[train])
        else:
            retries = 0
            model.fit(X[train], y[train])
        P, solves = (
            model.solve(X[test])
            if isinstance(model, DistanceTCM)
            else (model.predict_p(X[test]), np.nan)
        )
        seconds = (time.perf_counter() - start) / len(test)
        for j in range(len(test)):
            p = {f"p{c}": (P[j, c] if c < classes.size else np.nan) for c in range(MAX_CLASSES)}
            rows.append(
                {
                    "data": name,
                    "machine": machine,
                    "n_train": len(train),
                    "test": j,
                    "true": int(true[j]),
                    "n_classes": classes.size,
                    **p,
                    "seconds": seconds,
                    "solves": solves / len(test),
                    "split_retries": retries,
                }
            )
    return rows


def _task(task, rng) -> list[dict]:
    """One trial (stage, data, index, n_train, n_test): draw, evaluate, label the rows."""
    stage, name, index, n_train, n_test = task
    train, test, redraws = draw(name, n_train, n_test, rng)
    with threadpool_limits(1):  # one BLAS thread: small matrices, and honest per-task times
        rows = evaluate(name, train, test, seed=int(rng.integers(2**31 - 1)))
    return [{"stage": stage, "trial": index, "redraws": redraws, **row} for row in rows]


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
        ``p0`` ... ``p6``, ``seconds`` (per test example, wall-clock), ``solves`` (augmented
        SVMs solved per test example by the distance TCMs, NaN for the others),
        ``split_retries``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    cfg = SETTINGS[scale]
    tasks = [
        ("trial", name, t, cfg["n_train"], 1)
        for name in DATASETS
        for t in range(cfg["trials"][name])
    ]
    tasks += [
        ("cost", "satimage", i, n, cfg["cost_tests"]) for i, n in enumerate(cfg["cost_sizes"])
    ]
    results = parallel_map(
        _task, tasks, seed=seed, n_jobs=n_jobs, desc="confidence machines", progress=progress
    )
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


#: Columns every table function reads from the rows of :func:`run`.
COLUMNS = ("stage", "data", "machine", "trial", "n_train", "true", "n_classes", "seconds")


def _rows(rows) -> pd.DataFrame:
    """Check that ``rows`` is a non-empty table of :func:`run` (its :data:`COLUMNS`)."""
    return check_table(rows, "rows", COLUMNS)


def _p_matrix(rows: pd.DataFrame) -> np.ndarray:
    """The p-values of rows that share one data set, shape (len(rows), n_classes)."""
    n_classes = int(rows["n_classes"].iloc[0])
    return rows[[f"p{c}" for c in range(n_classes)]].to_numpy()


def _trial_rows(rows) -> pd.DataFrame:
    """The trial stage of the rows of :func:`run` (checked)."""
    rows = _rows(rows)
    trials = rows[rows["stage"] == "trial"]
    if trials.empty:
        raise ValueError("rows: has no row of the trial stage")
    return trials


def _strict(machine: str) -> bool:
    """The region rule of ``machine``: ``p > eps`` (True) or ``p >= eps`` (:data:`NON_STRICT`)."""
    return machine not in NON_STRICT


def validity(rows: pd.DataFrame) -> pd.DataFrame:
    """Error counts of the trial stage at every significance, with the binomial band.

    Returns
    -------
    pandas.DataFrame
        Index (data, machine); for each ``eps`` of :data:`SIGNIFICANCES` the columns
        ``errors@eps`` and ``within@eps`` (the count is at most the upper end of the
        two-sided :data:`BAND_LEVEL` binomial band for ``trials`` draws at rate ``eps``),
        and ``trials``.
    """
    trials = _trial_rows(rows)
    out = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        P, true = _p_matrix(group), group["true"].to_numpy()
        record = {"data": name, "machine": machine, "trials": len(group)}
        for eps in SIGNIFICANCES:
            errors = round(len(group) * conformal.error_rate(P, true, eps, _strict(machine)))
            record[f"errors@{eps}"] = errors
            record[f"within@{eps}"] = errors <= band(len(group), eps)[1]
        out.append(record)
    return pd.DataFrame(out).set_index(["data", "machine"])


def band(trials: int, eps: float) -> tuple[int, int]:
    """Two-sided :data:`BAND_LEVEL` band of a Binomial(``trials``, ``eps``) error count."""
    trials, eps = check_integer(trials, "trials"), check_significance(eps, "eps")
    low, high = binom.interval(1 - BAND_LEVEL, trials, eps)
    return int(low), int(high)


def efficiency(rows: pd.DataFrame, stage: str = "trial", significance: float = 0.1) -> pd.DataFrame:
    """Efficiency of every machine on every data set (and training size).

    Columns: ``size``, ``empty``, ``single``, ``multiple`` of the regions at ``significance``;
    ``OF`` (observed fuzziness, :func:`svmtrust.efficiency.observed_fuzziness`); ``accuracy``
    of the forced prediction; mean ``confidence`` and ``credibility``; ``seconds`` per test
    example (mean).
    """
    stage = check_choice(stage, "stage", ("trial", "cost"))
    significance = check_significance(significance)
    rows = _rows(rows)
    part = rows[rows["stage"] == stage]
    if part.empty:
        raise ValueError(f"rows: has no row of stage {stage!r}")
    out = []
    for (name, n, machine), group in part.groupby(["data", "n_train", "machine"], sort=False):
        P, true = _p_matrix(group), group["true"].to_numpy()
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


def summary(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables: validity, efficiency at eps = 0.1, cost against training size."""
    return {
        "Validity (errors of one test example per training set)": validity(rows),
        "Efficiency at eps = 0.1": efficiency(rows).round(3),
        "Cost per test example and efficiency, Satellite": efficiency(rows, "cost").round(3),
    }


def curves(rows: pd.DataFrame, significances) -> pd.DataFrame:
    """Error rate and mean region size of every machine over a grid of significance levels.

    Trial stage only. Returns one row per (data, machine, significance): ``error``, ``size``,
    and ``trials``.
    """
    significances = [check_significance(eps, "significances") for eps in significances]
    trials = _trial_rows(rows)
    out = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        P, true = _p_matrix(group), group["true"].to_numpy()
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


def forced(rows: pd.DataFrame) -> pd.DataFrame:
    """Each row's forced prediction: ``correct``, ``confidence`` and ``credibility``, with ``data``
    and ``machine`` (trial stage)."""
    trials = _trial_rows(rows)
    parts = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        label, confidence, credibility = conformal.confidence_credibility(_p_matrix(group))
        parts.append(
            pd.DataFrame(
                {
                    "data": name,
                    "machine": machine,
                    "correct": label == group["true"].to_numpy(),
                    "confidence": confidence,
                    "credibility": credibility,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def fuzziness_differences(rows: pd.DataFrame, pairs) -> pd.DataFrame:
    """Paired differences of the observed fuzziness (OF) of two machines on the same trials.

    Every trial gives both machines the same training set and test example, so the difference of
    their OF (the sum of the test example's false-label p-values) is paired. Returns, per pair
    ``(a, b)`` and data set, the mean of ``OF_a - OF_b``, its standard error and ``z`` (their
    ratio).
    """
    trials = _trial_rows(rows)
    present = set(trials["machine"])
    pairs = list(pairs)
    if not pairs or any(
        not isinstance(pair, (tuple, list)) or len(pair) != 2 or not set(pair) <= present
        for pair in pairs
    ):
        raise ValueError(
            f"pairs: expected pairs of machines among {sorted(present)}, got {pairs!r}"
        )
    parts = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        P, true = _p_matrix(group), group["true"].to_numpy()
        parts.append(
            pd.DataFrame(
                {
                    "data": name,
                    "machine": machine,
                    "trial": group["trial"].to_numpy(),
                    "of": P.sum(axis=1) - P[np.arange(true.size), true],
                }
            )
        )
    wide = pd.concat(parts).pivot_table(index=["data", "trial"], columns="machine", values="of")
    out = []
    for a, b in pairs:
        diff = (wide[a] - wide[b]).groupby("data", sort=False)
        stats = pd.DataFrame({"mean": diff.mean(), "se": diff.std() / np.sqrt(diff.count())})
        stats["z"] = stats["mean"] / stats["se"]
        out.append(stats.assign(pair=f"{a} - {b}").set_index("pair", append=True))
    return pd.concat(out).reorder_levels(["pair", "data"])
