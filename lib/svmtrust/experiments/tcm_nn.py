"""Protocol of the chapter on transductive confidence machines (Proedrou et al. 2002).

Every data set of the paper's Tables 1-3 and Figures 1-2, with the stand-ins the book can
load (:mod:`svmtrust.datasets`), split as the paper splits them where that is possible:

=================  ==========================================  ===================================
data               split                                       paper
=================  ==========================================  ===================================
``satimage``       KEEL's first 4435 rows / last 2000          Statlog's 4435 / 2000
``segment``        stratified 10-fold cross-validation         10-fold cross-validation
``shuttle-*``      stratified 10-fold CV of each KEEL subset   Statlog's 43500 / 14500, 7 classes
``usps_like``      stratified random 4000 / 1000               USPS 7291 / 2007
``optdigits``      UCI's 3823 / 1797 (KEEL keeps that order)   (second USPS stand-in)
=================  ==========================================  ===================================

The digits are normalised image by image to mean 0 and standard deviation 1, the paper's
preprocessing of USPS; the other sets are used raw, as in the paper. On every split the task
fits TCM-NN (:class:`svmtrust.tcm_nn.TCMNearestNeighbours`, Euclidean distance), plain k-NN
(``KNeighborsClassifier(algorithm="brute")``, the same distance) and an SVM (:data:`SVM`), and
records the TCM-NN region predictions at every significance level of :data:`SIGNIFICANCE`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import euclidean_distances
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from .. import datasets
from ..conformal import predict_set
from ..tcm_nn import TCMNearestNeighbours
from ..validation import (
    check_array,
    check_bool,
    check_class_labels,
    check_indices,
    check_integer,
    check_numeric,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map

#: The protocol's functions (the constants below are data, read by the chapter).
__all__ = [
    "load",
    "splits",
    "region_counts",
    "evaluate_split",
    "tasks",
    "run",
    "error_table",
    "table1",
    "table2",
    "implied_error",
    "table3",
    "error_by_k",
    "calibration",
    "seed_spread",
    "random_split_errors",
    "affected_examples",
    "summary",
]

#: The SVM column: scikit-learn's ``SVC`` (libsvm) with an RBF kernel, ``gamma = 1 / (d Var)``
#: (scikit-learn's "scale"), C = 10, one-against-one for many classes. Its features are
#: standardised (mean 0, variance 1 on the training split) except on the digits, whose pixels
#: share one scale after the per-image normalisation.
SVM = {"kernel": "rbf", "C": 10.0, "gamma": "scale"}

#: Significance levels of the region predictions (Table 3 uses 0.01 and 0.05, Figure 2 all).
SIGNIFICANCE = tuple(np.round(np.arange(1, 100) / 100, 2))

#: Neighbour counts of Figure 1 (on ``usps_like`` and ``optdigits``) at each scale.
FIGURE1_K = {"book": (1, 2, 3, 5, 10, 15, 20), "paper": tuple(range(1, 21))}

#: Extra seeds of the ``usps_like`` split at each scale, as offsets from the run's seed: the
#: paper scale repeats that split (every k of Figure 1, the SVM) for the spread of Table 2 and
#: Figure 1 (:func:`seed_spread`); its rows have ``main`` False and their own ``split_seed``.
SPREAD_SEEDS = {"book": (), "paper": (1, 2)}

#: Folds of the cross-validated sets.
N_FOLDS = 10

DIGITS = ("usps_like", "optdigits")

#: Statlog results quoted in the paper's Table 1 (King et al. 1995), error in %; NaN where
#: the paper has no value. "TCM" is the paper's own TCM-NN column.
PAPER_TABLE1 = pd.DataFrame(
    {
        "C4.5": [15.1, 0.04, 4.0],
        "CART": [13.8, np.nan, 4.0],
        "NB": [30.7, 4.55, 26.0],
        "k-nn": [9.4, 0.44, 7.7],
        "CASTLE": [19.4, 3.77, 11.2],
        "Discrim": [17.1, 4.83, 11.6],
        "Neural": [13.9, 4.9, np.nan],
        "TCM": [10.6, 0.11, 3.68],
    },
    index=pd.Index(["Satellite", "Shuttle", "Segment"], name="data"),
)

#: The paper's Table 2 (USPS, error in %).
PAPER_TABLE2 = {"1-NN": 4.29, "TCM-NN": 4.29, "SVM": 4.04, "five-layer network": 5.1}

#: The paper's Table 3: (data, significance) -> % one class, >= 2 classes, no class, and the
#: % correct among the one-class predictions.
PAPER_TABLE3 = pd.DataFrame(
    [
        ("USPS", 0.01, 94.77, 5.23, 0.0, 97.9),
        ("USPS", 0.05, 92.38, 0.0, 7.62, 98.4),
        ("Satellite", 0.01, 64.4, 35.6, 0.0, 98.8),
        ("Satellite", 0.05, 86.5, 13.5, 0.0, 94.9),
        ("Shuttle", 0.01, 99.17, 0.0, 0.83, 99.9),
        ("Shuttle", 0.05, 94.99, 0.0, 5.01, 99.9),
        ("Segment", 0.01, 90.04, 9.96, 0.0, 100.0),
        ("Segment", 0.05, 97.36, 0.0, 2.64, 99.1),
    ],
    columns=["data", "significance", "one", "several", "none", "correct"],
)

#: Which of our data sets stands in for each of the paper's.
PAPER_NAME = {
    "satimage": "Satellite",
    "segment": "Segment",
    **{name: "Shuttle" for name in datasets.SHUTTLE_SUBSETS},
    "usps_like": "USPS",
    "optdigits": "USPS",
}


# --------------------------------------------------------------------------- data and splits


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of one data set, preprocessed as the protocol uses them.

    Digits are normalised per image (mean 0, standard deviation 1), the paper's USPS
    preprocessing; the others are returned raw.
    """
    if name in datasets.SHUTTLE_SUBSETS:
        X, y, _ = datasets.load_shuttle(name)
    else:
        X, y, _ = datasets.load(name)
    if name in DIGITS:
        X = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    return X, y


def splits(name: str, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of one data set (see the module table)."""
    seed = check_seed(seed)
    _, y = load(name)
    rows = np.arange(len(y))
    if name == "satimage":
        n = datasets.SATIMAGE_N_TRAIN
        return [(rows[:n], rows[n:])]
    if name == "optdigits":
        return [(rows[:3823], rows[3823:])]
    if name == "usps_like":
        train, test = train_test_split(rows, test_size=1000, stratify=y, random_state=seed)
        return [(np.sort(train), np.sort(test))]
    folds = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # the smallest shuttle subset has 6 < 10 positives
        warnings.simplefilter("ignore", UserWarning)
        return list(folds.split(rows, y))


# --------------------------------------------------------------------------- one split


def region_counts(P, true_index, significance: float) -> dict:
    """Table 3's counts for one significance level.

    Parameters
    ----------
    P : ndarray of shape (m, n_classes)
        p-values.
    true_index : ndarray of int, shape (m,)
        Column of each example's true label.
    significance : float

    Returns
    -------
    dict
        ``single``, ``multiple``, ``empty`` (how many regions hold one label, two or more,
        none), ``single_correct`` (one-label regions holding the true label) and ``errors``
        (regions missing the true label).
    """
    regions = predict_set(P, significance)
    true_index = check_indices(true_index, "true_index", regions.shape[1], size=len(regions))
    size = regions.sum(axis=1)
    covered = regions[np.arange(len(P)), true_index]
    return {
        "single": int(np.sum(size == 1)),
        "multiple": int(np.sum(size >= 2)),
        "empty": int(np.sum(size == 0)),
        "single_correct": int(np.sum((size == 1) & covered)),
        "errors": int(np.sum(~covered)),
    }


def _svm(name: str):
    """The SVM of :data:`SVM` for data set ``name``."""
    if name in DIGITS:
        return SVC(**SVM)
    return make_pipeline(StandardScaler(), SVC(**SVM))


def evaluate_split(name: str, fold: int, train, test, ks, svm: bool = True) -> list[dict]:
    """TCM-NN and k-NN for every ``k`` in ``ks``, the SVM, and TCM-NN's regions (k = 1).

    ``svm=False`` leaves the SVM out (:func:`run` gives it a task of its own).

    Returns
    -------
    list of dict
        One row per (method, k) with ``errors`` of the forced predictions, then one row per
        significance level (method ``"TCM-NN region"``) with :func:`region_counts`.
    """
    ks = [check_integer(k, "ks") for k in ks]
    if not ks and not svm:
        raise ValueError("ks: expected at least one number of neighbours (or svm=True)")
    X, y = load(name)
    X_train, y_train, X_test, y_test = X[train], y[train], X[test], y[test]
    base = {"data": name, "fold": fold, "n_test": len(test)}
    rows = []
    for k in ks:
        k = check_integer(k, "ks")
        model = TCMNearestNeighbours(k=k).fit(X_train, y_train)
        P = model.predict_p(X_test)
        predicted = model.classes_[np.argmax(P, axis=1)]
        rows.append(
            {**base, "method": "TCM-NN", "k": k, "errors": int(np.sum(predicted != y_test))}
        )
        if k == 1:
            true_index = np.searchsorted(model.classes_, y_test)
            rows += [
                {
                    **base,
                    "method": "TCM-NN region",
                    "k": 1,
                    "significance": eps,
                    **region_counts(P, true_index, eps),
                }
                for eps in SIGNIFICANCE
            ]
        knn = KNeighborsClassifier(n_neighbors=k, algorithm="brute").fit(X_train, y_train)
        rows.append(
            {**base, "method": "k-NN", "k": k, "errors": int(np.sum(knn.predict(X_test) != y_test))}
        )
    if svm:
        svm_errors = int(np.sum(_svm(name).fit(X_train, y_train).predict(X_test) != y_test))
        rows.append({**base, "method": "SVM", "k": 0, "errors": svm_errors})
    return rows


def _task(task, rng) -> list[dict]:
    """Run one split (the protocol draws no randomness inside a task).

    A task is ``(name, fold, train, test, ks)``, or the same with ``split_seed`` and ``main``
    appended, which are then added to every row, and optionally ``svm`` (default True) last.
    """
    rows = evaluate_split(*task[:5], svm=task[7] if len(task) > 7 else True)
    if len(task) > 5:
        rows = [{**row, "split_seed": task[5], "main": task[6]} for row in rows]
    return rows


def _check_results(results) -> pd.DataFrame:
    """The main rows of a :func:`run` table, or ``ValueError`` naming ``results``."""
    columns = {"data", "method", "k", "errors", "n_test"}
    if not isinstance(results, pd.DataFrame) or not columns <= set(results.columns):
        raise ValueError(
            f"results: expected the DataFrame of run(), with columns {sorted(columns)}"
        )
    return _main_rows(results)


def _check_data_name(results: pd.DataFrame, name) -> None:
    if name not in set(results["data"]):
        raise ValueError(f"name: no rows for data set {name!r} in results")


def _main_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the run's own splits (without the extra seeds of :data:`SPREAD_SEEDS`)."""
    results = check_table(results, "results", ("data", "method"))
    if "main" not in results.columns:
        return results
    return results[results["main"].astype(bool)]


def _split_tasks(split: tuple) -> list[tuple]:
    """One split cut into the tasks of the progress bar: one per ``k`` and one for the SVM.

    On the digits one split holds seven (book) or twenty (paper) values of ``k``, each a full
    TCM-NN fit on 4000 examples; as one task the bar would sit still through most of the run.
    Cut this way, the rows come out in the order of the uncut split.
    """
    name, fold, train, test, ks, split_seed, main = split
    if len(ks) == 1:
        return [(*split, True)]
    return [(name, fold, train, test, (k,), split_seed, main, False) for k in ks] + [
        (name, fold, train, test, (), split_seed, main, True)
    ]


def _cost(task: tuple) -> int:
    """Rough cost of a task: training examples times (test examples plus training examples)."""
    n_train, n_test = len(task[2]), len(task[3])
    return n_train * (n_train + n_test) * max(len(task[4]), 1)


def tasks(scale: str = "book", seed: int = 0) -> list[tuple]:
    """The tasks of :func:`run`, in the order of its rows (it runs them largest first).

    One task per split of every data set, the run's own splits first (``main`` True), then the
    extra ``usps_like`` splits of :data:`SPREAD_SEEDS`; a split of the digits is cut into one
    task per ``k`` and one for the SVM (:func:`_split_tasks`). A task draws nothing from its
    generator: :func:`_task` of a task gives its rows whatever its place in the list.

    Parameters
    ----------
    scale : {"book", "paper"}
    seed : int
        Seed of the cross-validation folds and of the ``usps_like`` split.

    Returns
    -------
    list of tuple
        ``(name, fold, train, test, ks, split_seed, main, svm)``.
    """
    scale, seed = check_scale(scale), check_seed(seed)
    names = ["satimage", "segment", *datasets.SHUTTLE_SUBSETS, *DIGITS]
    splits_run = [
        (name, fold, train, test, FIGURE1_K[scale] if name in DIGITS else (1,), seed, True)
        for name in names
        for fold, (train, test) in enumerate(splits(name, seed))
    ]
    splits_run += [
        ("usps_like", fold, train, test, FIGURE1_K[scale], seed + offset, False)
        for offset in SPREAD_SEEDS[scale]
        for fold, (train, test) in enumerate(splits("usps_like", seed + offset))
    ]
    return [task for split in splits_run for task in _split_tasks(split)]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Every split of every data set: errors and region counts.

    Parameters
    ----------
    scale : {"book", "paper"}
        The neighbour counts of Figure 1, :data:`FIGURE1_K` (the rest is the same).
    seed : int
        Seed of the cross-validation folds and of the ``usps_like`` split.
    n_jobs : int
        Worker processes (one split each).
    progress : bool
        Show a progress bar: one step per split and value of ``k`` (and per SVM on the
        digits), tasks of comparable cost on the large sets (:func:`_split_tasks`).

    Returns
    -------
    pandas.DataFrame
        Columns ``data``, ``fold``, ``method`` ("TCM-NN", "k-NN", "SVM", "TCM-NN region"),
        ``k`` (0 for the SVM), ``significance`` (region rows), ``n_test``, ``errors``, the
        counts of :func:`region_counts`, ``split_seed`` and ``main`` (False on the extra
        ``usps_like`` splits of :data:`SPREAD_SEEDS`, which the tables leave out); the same for
        every ``n_jobs``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    todo = tasks(scale, seed)
    # the largest tasks first, so that the workers finish together
    order = sorted(range(len(todo)), key=lambda i: -_cost(todo[i]))
    results = parallel_map(
        _task,
        [todo[i] for i in order],
        seed=seed,
        n_jobs=n_jobs,
        desc="TCM-NN tasks",
        progress=progress,
    )
    rows = [row for i in np.argsort(order) for row in results[i]]
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- tables


def _percent(errors, n) -> float:
    return 100.0 * errors / n


def error_table(results: pd.DataFrame, k: int = 1) -> pd.DataFrame:
    """Error (%) of TCM-NN, k-NN (with ``k``) and the SVM per data set, folds pooled."""
    results, k = _check_results(results), check_integer(k, "k")
    point = results[results["method"].isin(["TCM-NN", "k-NN", "SVM"])]
    point = point[(point["k"] == k) | (point["method"] == "SVM")]
    summed = point.groupby(["data", "method"], sort=False)[["errors", "n_test"]].sum()
    table = (100.0 * summed["errors"] / summed["n_test"]).unstack("method")
    return table[["TCM-NN", "k-NN", "SVM"]]


def table1(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1: the paper's Statlog columns and TCM beside our TCM-NN, 1-NN and SVM."""
    ours = error_table(results).drop(index=list(DIGITS))
    ours.columns = ["TCM-NN (book)", "1-NN (book)", "SVM (book)"]
    paper = PAPER_TABLE1.rename(columns={"TCM": "TCM (paper)"})
    quoted = paper.loc[[PAPER_NAME[name] for name in ours.index]]
    quoted.index = ours.index
    return pd.concat([quoted, ours], axis=1)


def table2(results: pd.DataFrame) -> pd.DataFrame:
    """Table 2: 1-NN, TCM-NN and SVM on the USPS stand-ins beside the paper's USPS."""
    ours = error_table(results).loc[list(DIGITS), ["k-NN", "TCM-NN", "SVM"]]
    ours.columns = ["1-NN", "TCM-NN", "SVM"]
    paper = pd.DataFrame([{key: PAPER_TABLE2[key] for key in ours.columns}], index=["USPS (paper)"])
    return pd.concat([paper, ours])


#: Rounding allowed in a sum of percentages of the same regions (:func:`implied_error`).
PERCENT_TOL = 1e-9


def _percentages(values, name: str) -> np.ndarray:
    """``values`` as a float array of percentages in [0, 100] (NaN let through), or a
    ValueError naming ``name``."""
    array = check_numeric(values, name)
    if np.any((array < 0) | (array > 100)):
        raise ValueError(f"{name}: percentages must lie in [0, 100]")
    return array


def implied_error(one, none, correct):
    """The smallest region error (%) that Table 3's percentages allow.

    A region misses the true label when it is empty, or when it holds one wrong label, or when
    it holds two or more labels none of which is the true one. The first two are fixed by the
    table: ``none`` percent of the regions are empty and a fraction ``1 - correct / 100`` of the
    ``one`` percent single-label regions are wrong; the third is at least 0. So

    ``error >= none + one * (100 - correct) / 100``,

    with equality when every region of two or more labels holds the true one.

    Parameters
    ----------
    one, none, correct : array_like
        Percent of single-label and empty regions, and percent correct among the single-label
        regions (the columns of :func:`table3` and of the paper's Table 3). ``correct`` may be
        NaN where ``one`` is 0 (no single-label region), nowhere else.

    Returns
    -------
    ndarray
        The lower bound, in percent.

    Raises
    ------
    ValueError
        Naming the argument, if a percentage lies outside [0, 100], ``one`` or ``none`` is NaN,
        ``correct`` is NaN where ``one > 0``, or ``one + none`` exceeds 100 (both are shares of
        the same regions).
    """
    one, none, correct = (
        _percentages(v, label) for v, label in ((one, "one"), (none, "none"), (correct, "correct"))
    )
    for value, label in ((one, "one"), (none, "none")):
        if np.any(np.isnan(value)):
            raise ValueError(f"{label}: contains NaN")
    if np.any(np.isnan(correct) & (one > 0)):
        raise ValueError("correct: NaN where there are single-label regions (one > 0)")
    if np.any(one + none > 100.0 + PERCENT_TOL):
        raise ValueError(f"none: one + none exceeds 100%, got {np.max(one + none):.6g}")
    # a row without single-label regions has no "correct" column: nothing is added
    wrong = np.where(one > 0, one * (100.0 - np.nan_to_num(correct, nan=100.0)) / 100.0, 0.0)
    return none + wrong


def table3(results: pd.DataFrame, levels=(0.01, 0.05)) -> pd.DataFrame:
    """Table 3: region predictions at the given levels, ours beside the paper's rows.

    Percentages of test examples whose region holds one label, two or more, none; and the
    percentage correct among the one-label regions. Folds are pooled. Two columns are added:
    ``error >=``, the smallest region error those percentages allow (:func:`implied_error`),
    for the paper's rows and ours; and ``error``, the region error measured (ours only; NaN
    for the paper, which does not report it).
    """
    levels = [check_significance(level, "levels") for level in np.atleast_1d(levels)]
    results = _check_results(results)
    regions = results[(results["method"] == "TCM-NN region") & results["significance"].isin(levels)]
    summed = regions.groupby(["data", "significance"], sort=False)[
        ["n_test", "single", "multiple", "empty", "single_correct"]
    ].sum()
    ours = pd.DataFrame(
        {
            "one": _percent(summed["single"], summed["n_test"]),
            "several": _percent(summed["multiple"], summed["n_test"]),
            "none": _percent(summed["empty"], summed["n_test"]),
            "correct": _percent(summed["single_correct"], summed["single"]),
        }
    ).reset_index()
    ours["error"] = _percent(
        regions.groupby(["data", "significance"], sort=False)["errors"].sum().to_numpy(),
        summed["n_test"].to_numpy(),
    )
    ours.insert(0, "source", "book")
    paper = PAPER_TABLE3.copy()
    paper.insert(0, "source", "paper")
    ours["paper data"] = ours["data"].map(PAPER_NAME)
    paper["paper data"] = paper["data"]
    both = pd.concat([paper, ours], ignore_index=True)
    both.insert(
        len(both.columns) - 2,
        "error >=",
        implied_error(both["one"], both["none"], both["correct"]),
    )
    order = {name: i for i, name in enumerate(["USPS", "Satellite", "Shuttle", "Segment"])}
    both["_order"] = both["paper data"].map(order)
    both["_source"] = (both["source"] == "book").astype(int)
    both = both.sort_values(["_order", "significance", "_source"], kind="stable")
    return both.drop(columns=["_order", "_source", "paper data"]).reset_index(drop=True)


def error_by_k(results: pd.DataFrame, name: str = "usps_like") -> pd.DataFrame:
    """Figure 1: error (%) of TCM-NN and k-NN against k on one data set."""
    results = _check_results(results)
    _check_data_name(results, name)
    point = results[(results["data"] == name) & results["method"].isin(["TCM-NN", "k-NN"])]
    summed = point.groupby(["k", "method"])[["errors", "n_test"]].sum()
    return (100.0 * summed["errors"] / summed["n_test"]).unstack("method")


def calibration(results: pd.DataFrame, name: str = "usps_like") -> pd.DataFrame:
    """Figure 2: % of regions holding the true label against the confidence level.

    Returns
    -------
    pandas.DataFrame
        Indexed by the confidence level ``1 - significance`` (%), columns ``correct`` (% of
        regions holding the true label) and ``n_test``.
    """
    results = _check_results(results)
    _check_data_name(results, name)
    regions = results[(results["data"] == name) & (results["method"] == "TCM-NN region")]
    summed = regions.groupby("significance")[["errors", "n_test"]].sum()
    table = pd.DataFrame(
        {
            "confidence": 100.0 * (1.0 - summed.index.to_numpy()),
            "correct": 100.0 - _percent(summed["errors"], summed["n_test"]).to_numpy(),
            "n_test": summed["n_test"].to_numpy(),
        }
    )
    return table.sort_values("confidence").set_index("confidence")


# --------------------------------------------------------------------------- spreads


def seed_spread(
    name: str = "usps_like", seeds=(0, 1, 2), ks=FIGURE1_K["book"], results=None, n_jobs: int = 1
) -> pd.DataFrame:
    """Errors (%) of TCM-NN, k-NN and the SVM on the random splits of several seeds.

    Table 2 and Figure 1 on ``usps_like`` rest on one random 4000 / 1000 split; this repeats
    the split for every seed of ``seeds`` (:func:`splits`, ``random_state = seed``) and runs
    :func:`evaluate_split` on each.

    Parameters
    ----------
    name : str
        A data set whose split depends on the seed (``usps_like``, or a cross-validated set,
        whose folds are then pooled).
    seeds : sequence of int
    ks : sequence of int
        Neighbour counts (TCM-NN and k-NN).
    results : pandas.DataFrame, optional
        Output of :func:`run` (for instance a recorded paper-scale run, whose ``usps_like``
        splits include the extra seeds of :data:`SPREAD_SEEDS`): every seed whose rows it holds
        (column ``split_seed``; without that column, the first seed of ``seeds``) is read from
        it instead of recomputed, and must hold every ``k`` of ``ks``.
    n_jobs : int
        Worker processes, one split each.

    Returns
    -------
    pandas.DataFrame
        Columns ``seed``, ``method`` ("TCM-NN", "k-NN", "SVM"), ``k`` (0 for the SVM) and
        ``error`` (%); the same for every ``n_jobs``.
    """
    if name == "optdigits" or name == "satimage":
        raise ValueError(f"name: {name!r} has one fixed split, no seed to vary")
    seeds = [check_seed(s, "seeds") for s in seeds]
    if len(set(seeds)) != len(seeds):
        raise ValueError("seeds: must be distinct")
    n_jobs = check_n_jobs(n_jobs)
    ks = tuple(int(k) for k in ks)
    frames, tasks, task_seeds = [], [], []
    for i, seed in enumerate(seeds):
        done = None
        if results is not None:
            done = results[results["data"] == name]
            if "split_seed" in done.columns:
                done = done[done["split_seed"] == seed]
            elif i > 0:
                done = None
        if done is not None and len(done):
            done = done.copy()
            missing = set(ks) - set(done.loc[done["method"] == "TCM-NN", "k"])
            if missing:
                raise ValueError(f"results: no rows for k = {sorted(missing)} on {name!r}")
            frames.append(done.assign(seed=seed))
            continue
        for fold, (train, test) in enumerate(splits(name, seed)):
            tasks.append((name, fold, train, test, ks))
            task_seeds.append(seed)
    computed = parallel_map(
        _task, tasks, seed=0, n_jobs=n_jobs, desc=f"{name} seeds", progress=False
    )
    for seed, rows in zip(task_seeds, computed):
        frames.append(pd.DataFrame(rows).assign(seed=seed))
    rows = pd.concat(frames, ignore_index=True)
    point = rows[
        rows["method"].isin(["TCM-NN", "k-NN", "SVM"])
        & (rows["k"].isin(ks) | (rows["method"] == "SVM"))
    ]
    summed = point.groupby(["seed", "method", "k"], sort=True)[["errors", "n_test"]].sum()
    out = (100.0 * summed["errors"] / summed["n_test"]).rename("error").reset_index()
    return out


def random_split_errors(
    name: str = "satimage", n_train: int = datasets.SATIMAGE_N_TRAIN, seeds=range(10)
) -> pd.DataFrame:
    """1-NN error (%) on random ``n_train`` / rest splits, one per seed.

    Plain 1-NN (``KNeighborsClassifier(n_neighbors=1, algorithm="brute")``, Euclidean), which
    on Satellite's first-4435 split makes the same 211 errors as TCM-NN with k = 1; each split
    is ``numpy.random.default_rng(seed).permutation`` of the rows.

    Returns
    -------
    pandas.DataFrame
        Columns ``seed``, ``n_test``, ``errors`` and ``error`` (%).
    """
    X, y = load(name)
    n_train = check_integer(n_train, "n_train")
    if not 0 < n_train < len(y):
        raise ValueError(f"n_train: must lie strictly between 0 and {len(y)}, got {n_train}")
    rows = []
    for seed in seeds:
        seed = check_seed(seed, "seeds")
        perm = np.random.default_rng(seed).permutation(len(y))
        train, test = perm[:n_train], perm[n_train:]
        knn = KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X[train], y[train])
        errors = int(np.sum(knn.predict(X[test]) != y[test]))
        rows.append(
            {
                "seed": seed,
                "n_test": len(test),
                "errors": errors,
                "error": 100.0 * errors / len(test),
            }
        )
    return pd.DataFrame(rows)


def affected_examples(X_train, y_train, X_test, k: int = 1) -> np.ndarray:
    """How many training strangeness values each test object can change (step 2.3).

    By the lemma of the chapter, a new object at distance ``d_i`` from training example ``i``
    changes its score under some candidate label only if ``d_i`` is below the larger of its
    ``k``-th same-class and ``k``-th other-class distances in the training bag, and then does
    whenever both sums of eq. (2) are positive (a duplicated point can make one of them 0, and
    its score cannot move). This counts those examples, an upper bound on the scores that move,
    with scikit-learn's exact neighbour search, independently of
    :class:`~svmtrust.tcm_nn.TCMNearestNeighbours`.

    Parameters
    ----------
    X_train : array_like of shape (n, d)
    y_train : array_like of shape (n,)
        At least two classes, each with at least ``k + 1`` examples.
    X_test : array_like of shape (m, d)
    k : int

    Returns
    -------
    ndarray of int, shape (m,)
    """
    k = check_integer(k, "k")
    X_train = check_array(X_train, "X_train", ndim=2)
    X_test = check_array(X_test, "X_test", ndim=2)
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test: has {X_test.shape[1]} features, X_train {X_train.shape[1]}")
    classes, index = check_class_labels(y_train, "y_train", n=X_train.shape[0])
    if np.bincount(index).min() < k + 1:
        raise ValueError(f"k: every class needs at least k + 1 = {k + 1} examples")
    radius = np.zeros(len(index))
    for c in range(len(classes)):
        own, rest = index == c, index != c
        same = NearestNeighbors(n_neighbors=k + 1).fit(X_train[own])
        radius[own] = same.kneighbors(X_train[own])[0][:, k]  # column 0 is the point itself
        other = NearestNeighbors(n_neighbors=k).fit(X_train[rest])
        radius[own] = np.maximum(radius[own], other.kneighbors(X_train[own])[0][:, k - 1])
    d = euclidean_distances(X_test, X_train)
    return np.sum(d < radius[None, :], axis=1)


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables, each beside the paper's: Tables 1, 2 and 3."""
    return {
        "Table 1 (error %)": table1(results),
        "Table 2 (error %)": table2(results),
        "Table 3 (regions %)": table3(results),
    }
