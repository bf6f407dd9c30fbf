"""Protocol of the chapter "Probabilities you can trust: Venn-ABERS predictors for the SVM".

Machines (:data:`MACHINES`), all around an RBF kernel with the ``gamma`` and ``C`` of the
chapter "Confidence machines compared" (:func:`~svmtrust.experiments.confidence_compared.svm_params`),
on its data sets, loaded and drawn by the same functions
(:func:`~svmtrust.experiments.confidence_compared.load`,
:func:`~svmtrust.experiments.confidence_compared.draw`):

- ``Platt``: scikit-learn's ``SVC(probability=True)``: libsvm's sigmoid fitted to the decision
  values of an internal 5-fold cross-validation (Platt 1999, in the form of Lin, Lin & Weng
  2007), several classes by pairwise coupling (Wu, Lin & Weng 2004);
- ``Sigmoid CV`` and ``Isotonic CV``: ``CalibratedClassifierCV`` of an ``SVC`` with
  ``method="sigmoid"`` or ``"isotonic"`` on 5 stratified shuffled folds, one calibrated copy per
  fold and their probabilities averaged (scikit-learn's ``ensemble=True``), several classes one
  against the rest, normalised;
- ``IVAP``, ``CVAP``, ``Full VA``: :class:`svmtrust.venn_abers_svm.VennAbersSVM` with
  ``predictor="inductive"`` (1/3 calibration), ``"cross"`` (5 folds) and ``"full"``, every pair
  merged by the log-loss merge (Vovk, Petej & Fedorova 2015, eq. (p_log)).

The three scikit-learn machines use libsvm's own SVM; the Venn-ABERS machines the library's
(:mod:`svmtrust.svm`) with the kernel passed as
``functools.partial(svmtrust.kernels.rbf_kernel, gamma=gamma)``, as the confidence chapter's
machines are built.

Stage ``"trial"``: for each data set, ``trials`` independent trials; each draws a training set
and a test set (distinct positions, every class at least :data:`FOLDS` times in the training set, so that
every fold of the CV calibrations holds it: :func:`draw_sets`; sizes :func:`trial_sizes`), fits every machine and records, for every test example, the
probability vector ``q0 ... q6`` (NaN beyond the classes) and the true class; for ``IVAP``
and ``Full VA`` also ``v0 ... v6``, the probability the pair gives the *true* outcome of each
class's indicator (``p1`` of class ``c``'s pair if the example is of class ``c``, else
``p0``), and ``width``, ``p1 - p0`` of the predicted class (NaN for the other machines). A
split machine whose proper training set misses a class moves its seed on
(:func:`fit_machine`; ``split_retries`` counts the moves).

Stage ``"C"``: on :data:`C_SETS`, the trials of ``IVAP`` and ``Full VA`` alone at each box
constraint of :data:`C_VALUES` (column ``C``): the full predictor trains its SVM on the test
object too, and a box that lets the SVM fit one example's label makes its pairs wide.

Stage ``"width"``: on :data:`WIDTH_SETS`, the IVAP with a proper training set of
``width_proper`` examples and ``calibration`` more for calibration, for each calibration size;
each row one (repeat, class) and the mean width ``p1 - p0`` over the test examples.

Stage ``"cost"``: on Satimage, for each training size, processor time (``time.process_time``,
one BLAS thread) per test object of ``fit`` and ``predict_proba`` of ``cost_tests`` objects for
every machine, and of one ``SVC`` fit on the same rows: one warm-up, then the median of
``cost_repeats`` timed calls.

Scores: the log loss ``-log q_y`` (natural log; every probability clipped to
``[LOG_EPS, 1 - LOG_EPS]``, :data:`svmtrust.reliability.LOG_EPS` = 2^-50, about 8.9e-16) and
the multi-class Brier score ``sum_c (q_c - [y = c])^2`` of each test example
(:func:`example_scores`).
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from ..kernels import rbf_kernel
from ..one_vs_rest import problems
from ..reliability import LOG_EPS, score_decomposition
from ..split_conformal import ClassLeftOut
from ..validation import (
    check_C,
    check_choice,
    check_indices,
    check_integer,
    check_positive,
    check_table,
)
from ..venn_abers_svm import VennAbersSVM
from . import check_n_jobs, check_scale, check_seed, parallel_map
from .confidence_compared import (
    DATASETS,
    MAX_CLASSES,
    NAMES,
    blocked_verdicts,
    draw,
    load,
    svm_params,
)

__all__ = [
    "DATASETS",
    "NAMES",
    "MACHINES",
    "VENN_ABERS",
    "PAIRED",
    "REFERENCE",
    "FOLDS",
    "WIDTH_SETS",
    "C_SETS",
    "C_VALUES",
    "SIGNIFICANT",
    "SCORES",
    "SETTINGS",
    "machines",
    "fit_machine",
    "trial_sizes",
    "draw_sets",
    "evaluate",
    "widths",
    "costs",
    "tasks",
    "run",
    "COLUMNS",
    "example_scores",
    "box_table",
    "score_table",
    "differences",
    "verdicts",
    "validity",
    "reliability",
    "width_table",
    "cost_table",
    "summary",
]

#: The machines, in the order of the tables.
MACHINES = ("Platt", "Sigmoid CV", "Isotonic CV", "IVAP", "CVAP", "Full VA")

#: The Venn-ABERS machines and their predictor.
VENN_ABERS = {"IVAP": "inductive", "CVAP": "cross", "Full VA": "full"}

#: The machines whose pairs the validity check reads (one pair per class, not a fold's).
PAIRED = ("IVAP", "Full VA")

#: The machine every other is compared with.
REFERENCE = "Platt"

#: Folds of the cross-validated calibrations and of the CVAP.
FOLDS = 5

#: The data sets of the width stage.
WIDTH_SETS = ("satimage", "pima")

#: The data sets and box constraints of the stage "C" (the pairs of IVAP and Full VA at other
#: boxes than the shared :data:`~svmtrust.experiments.confidence_compared.C`).
C_SETS = ("pima", "breastw")
C_VALUES = (0.1, 1.0, 10.0)

#: Significant digits of the recorded probabilities (:func:`_significant`).
SIGNIFICANT = 7

#: The per-example scores of :func:`example_scores`.
SCORES = ("log_loss", "brier")

#: Trials per data set (the sets of a scale are the keys), the largest training and test sizes
#: of a trial (:func:`trial_sizes`), the width stage's proper training size, calibration sizes,
#: test examples and repeats, and the cost stage's training sizes, test objects and repeats.
SETTINGS = {
    "book": {
        "trials": {"breast": 4, "pima": 4, "iris": 4, "segment": 3},
        "n_train": 100,
        "n_test": 50,
        "C_sets": ("pima",),
        "C_values": (0.1, 10.0),
        "C_trials": 2,
        "width_sets": ("pima",),
        "width_proper": 100,
        "width_calibration": (25, 50, 100),
        "width_tests": 50,
        "width_repeats": 2,
        "cost_sizes": (50, 100),
        "cost_tests": 5,
        "cost_repeats": 2,
    },
    "paper": {
        "trials": dict.fromkeys(DATASETS, 40),
        "n_train": 200,
        "n_test": 100,
        "C_sets": C_SETS,
        "C_values": C_VALUES,
        "C_trials": 20,
        "width_sets": WIDTH_SETS,
        "width_proper": 200,
        "width_calibration": (25, 50, 100, 200, 400),
        "width_tests": 100,
        "width_repeats": 5,
        "cost_sizes": (100, 200, 400),
        "cost_tests": 10,
        "cost_repeats": 3,
    },
}


# --------------------------------------------------------------------------- machines


def machines(gamma: float, C: float, seed: int) -> dict:
    """Unfitted machines of :data:`MACHINES` (module notes); ``seed`` seeds libsvm's internal
    cross-validation, the folds of the CV calibrations and the Venn-ABERS splits."""
    gamma, C, seed = check_positive(gamma, "gamma"), check_C(C), check_seed(seed)
    kernel = functools.partial(rbf_kernel, gamma=gamma)
    svc = SVC(kernel="rbf", gamma=gamma, C=C)
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=seed)
    out = {
        "Platt": SVC(kernel="rbf", gamma=gamma, C=C, probability=True, random_state=seed),
        "Sigmoid CV": CalibratedClassifierCV(svc, method="sigmoid", cv=folds),
        "Isotonic CV": CalibratedClassifierCV(svc, method="isotonic", cv=folds),
    }
    for machine, predictor in VENN_ABERS.items():
        out[machine] = VennAbersSVM(
            kernel=kernel, C=C, predictor=predictor, n_folds=FOLDS, merge="log_loss", seed=seed
        )
    return out


def fit_machine(model, X, y) -> int:
    """Fit a machine of :func:`machines`; a Venn-ABERS machine whose proper training set misses
    a class (:class:`~svmtrust.split_conformal.ClassLeftOut`) moves its seed on by one until
    none does. Returns the number of such retries (0 for the others).

    Raises
    ------
    ValueError
        Naming ``model`` if it is not a machine of :func:`machines`, ``y`` if 1000 seeds fail.
    """
    if not isinstance(model, (SVC, CalibratedClassifierCV, VennAbersSVM)):
        raise ValueError(f"model: expected a machine of machines(), got {type(model).__name__}")
    with warnings.catch_warnings():
        # scikit-learn 1.9 deprecates SVC(probability=True), the Platt machine itself
        warnings.filterwarnings("ignore", "The `probability` parameter", FutureWarning)
        for retry in range(1000):
            try:
                model.fit(X, y)
                return retry
            except ClassLeftOut:
                model.set_params(seed=model.seed + 1)
    raise ValueError("y: no split of 1000 tries holds every class in every proper set")


# --------------------------------------------------------------------------- the stages


def trial_sizes(name: str, n_train: int, n_test: int) -> tuple[int, int]:
    """The training and test sizes of a trial on ``name``: at most ``n_train`` and at most
    two thirds of the data set for training, at most ``n_test`` and at most the rest for test
    (Iris, 150 examples: 100 and 50 at the paper's 200 and 100)."""
    _, y = load(name)
    n_train = min(check_integer(n_train, "n_train"), 2 * y.size // 3)
    return n_train, min(check_integer(n_test, "n_test"), y.size - n_train)


def draw_sets(name: str, n_train: int, n_test: int, rng) -> tuple[np.ndarray, np.ndarray, int]:
    """``(train, test, redraws)`` of :func:`~svmtrust.experiments.confidence_compared.draw`,
    drawn again until every class has at least :data:`FOLDS` training examples (the
    CV calibrations need one in every fold); ``redraws`` counts the draws of both rules.

    Raises
    ------
    ValueError
        Naming ``n_train`` if it is below :data:`FOLDS` times the number of classes, and as
        :func:`~svmtrust.experiments.confidence_compared.draw`.
    """
    _, y = load(name)
    n_classes = np.unique(y).size
    check_integer(n_train, "n_train", low=FOLDS * n_classes)
    redraws = 0
    while True:
        train, test, more = draw(name, n_train, n_test, rng)
        redraws += more
        if np.unique(y[train], return_counts=True)[1].min() >= FOLDS:
            return train, test, redraws
        redraws += 1


def _one_hot(true: np.ndarray, n_classes: int) -> np.ndarray:
    """The class indicators ``[y = c]``, shape (m, n_classes)."""
    return (true[:, None] == np.arange(n_classes)).astype(float)


def _padded(prefix: str, M: np.ndarray | None, j: int, n_classes: int) -> dict:
    """Columns ``prefix0 ... prefix6`` of row ``j`` of ``M`` (all NaN if ``M`` is None)."""
    return {
        f"{prefix}{c}": float(M[j, c]) if M is not None and c < n_classes else np.nan
        for c in range(MAX_CLASSES)
    }


def _pair_columns(model, machine, X_test, true, Q):
    """``(V, width)`` of a machine of :data:`PAIRED`: the probability of the true outcome of
    every class indicator, shape (m, n_classes), and ``p1 - p0`` of the predicted class (the
    largest of ``Q``, the first of equal ones); None and NaN for the other machines."""
    if machine not in PAIRED:
        return None, np.full(true.size, np.nan)
    p0, p1 = model.predict_pairs(X_test)
    V = np.where(_one_hot(true, Q.shape[1]) == 1, p1, p0)
    return V, (p1 - p0)[np.arange(true.size), np.argmax(Q, axis=1)]


def _significant(M: np.ndarray) -> np.ndarray:
    """``M`` with every value rounded to :data:`SIGNIFICANT` significant digits (the recorded
    run's precision: a probability of 3e-7 keeps its size, which decimals would round to 0 and
    the log loss clip to 2^-50)."""
    return np.vectorize(lambda v: float(f"{v:.{SIGNIFICANT}g}"), otypes=[float])(M)


def evaluate(name: str, train, test, seed: int, C: float | None = None, only=MACHINES):
    """The machines ``only`` of :func:`machines` on one training set and its test examples:
    one row per (machine, test example), the columns of the trial stage (module notes), the
    probabilities to :data:`SIGNIFICANT` significant digits. ``C`` replaces the data set's box
    constraint (:func:`~svmtrust.experiments.confidence_compared.svm_params`) when given."""
    X, y = load(name)
    train = check_indices(train, "train", y.size)
    test = check_indices(test, "test", y.size)
    for machine in only:
        check_choice(machine, "only", MACHINES)
    params = svm_params(name)
    if C is not None:
        params["C"] = check_C(C)
    classes = np.unique(y)
    true = np.searchsorted(classes, y[test])
    rows = []
    for machine, model in machines(**params, seed=check_seed(seed)).items():
        if machine not in only:
            continue
        retries = fit_machine(model, X[train], y[train])
        Q = model.predict_proba(X[test])
        V, width = _pair_columns(model, machine, X[test], true, Q)
        Q, width = _significant(Q), _significant(width)
        V = None if V is None else _significant(V)
        for j in range(test.size):
            rows.append(
                {
                    "data": name,
                    "machine": machine,
                    "n_train": train.size,
                    "test": j,
                    "true": int(true[j]),
                    "n_classes": classes.size,
                    **_padded("q", Q, j, classes.size),
                    **_padded("v", V, j, classes.size),
                    "width": float(width[j]),
                    "split_retries": retries,
                    **({} if C is None else {"C": params["C"]}),
                }
            )
    return rows


def widths(name: str, proper: int, calibration: int, n_test: int, rng) -> list[dict]:
    """The IVAP on ``proper + calibration`` training examples drawn from ``name``, of which
    ``calibration`` calibrate: one row per class of the mean width ``p1 - p0`` over ``n_test``
    test examples."""
    calibration = check_integer(calibration, "calibration")
    train, test, _ = draw_sets(name, check_integer(proper, "proper") + calibration, n_test, rng)
    X, y = load(name)
    params = svm_params(name)
    seed = int(rng.integers(2**31 - 1))
    model = VennAbersSVM(
        kernel=functools.partial(rbf_kernel, gamma=params["gamma"]),
        C=params["C"],
        predictor="inductive",
        calibration_size=calibration,
        seed=seed,
    )
    retries = fit_machine(model, X[train], y[train])
    p0, p1 = model.predict_pairs(X[test])
    return [
        {
            "data": name,
            "machine": "IVAP",
            "n_train": train.size,
            "calibration": calibration,
            "class": c,
            "n_classes": p0.shape[1],
            "width": float(np.mean(p1[:, c] - p0[:, c])),
            "split_retries": retries,
        }
        for c in range(p0.shape[1])
    ]


def _median_time(call, repeats: int) -> float:
    """Processor seconds of ``call()``: one warm-up, then the median of ``repeats`` calls."""
    times = []
    for _ in range(repeats + 1):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return float(np.median(times[1:]))


def costs(name: str, n_train: int, n_test: int, repeats: int, rng) -> list[dict]:
    """Processor seconds per test object of ``fit`` and ``predict_proba`` of every machine on
    one draw, and of one ``SVC`` fit on the same rows (``svc_seconds``), with the caller's
    BLAS threads (:func:`run` sets one)."""
    repeats = check_integer(repeats, "repeats")
    train, test, _ = draw_sets(name, n_train, n_test, rng)
    X, y = load(name)
    params = svm_params(name)
    seed = int(rng.integers(2**31 - 1))
    svc = SVC(kernel="rbf", **params)
    svc_seconds = _median_time(lambda: clone(svc).fit(X[train], y[train]), repeats)
    rows = []
    for machine, model in machines(**params, seed=seed).items():

        def call(model=model):
            fresh = clone(model)
            fit_machine(fresh, X[train], y[train])
            fresh.predict_proba(X[test])

        rows.append(
            {
                "data": name,
                "machine": machine,
                "n_train": train.size,
                "n_test": test.size,
                "seconds": _median_time(call, repeats) / test.size,
                "svc_seconds": svc_seconds,
            }
        )
    return rows


def _task(task, rng) -> list[dict]:
    """One task ``(stage, data, index, *sizes)`` of :func:`tasks`, with one BLAS thread."""
    stage, name, index, *sizes = task
    with threadpool_limits(1):
        if stage == "trial":
            train, test, redraws = draw_sets(name, *sizes, rng)
            rows = evaluate(name, train, test, int(rng.integers(2**31 - 1)))
            rows = [{"redraws": redraws, **row} for row in rows]
        elif stage == "C":
            C, n_train, n_test = sizes
            train, test, redraws = draw_sets(name, n_train, n_test, rng)
            seed = int(rng.integers(2**31 - 1))
            rows = evaluate(name, train, test, seed, C=C, only=PAIRED)
        elif stage == "width":
            rows = widths(name, *sizes, rng)
        else:
            rows = costs(name, *sizes, rng)
    return [{"stage": stage, "trial": index, **row} for row in rows]


def tasks(scale: str = "book") -> list[tuple]:
    """The tasks of :func:`run`: ``("trial", data, t, n_train, n_test)`` for every trial of
    every data set, ``("width", data, r, proper, calibration, n_test)`` for every repeat and
    calibration size, ``("cost", "satimage", i, n_train, n_test, repeats)`` for every cost
    size; task ``i`` draws from :func:`~svmtrust.experiments.task_rng` ``(seed, i)``."""
    cfg = SETTINGS[check_scale(scale)]
    trials = [
        ("trial", name, t, *trial_sizes(name, cfg["n_train"], cfg["n_test"]))
        for name in DATASETS
        for t in range(cfg["trials"].get(name, 0))
    ]
    width = [
        ("width", name, r, cfg["width_proper"], q, cfg["width_tests"])
        for name in cfg["width_sets"]
        for q in cfg["width_calibration"]
        for r in range(cfg["width_repeats"])
    ]
    box = [
        ("C", name, t, C, *trial_sizes(name, cfg["n_train"], cfg["n_test"]))
        for name in cfg["C_sets"]
        for C in cfg["C_values"]
        for t in range(cfg["C_trials"])
    ]
    cost = [
        ("cost", "satimage", i, n, cfg["cost_tests"], cfg["cost_repeats"])
        for i, n in enumerate(cfg["cost_sizes"])
    ]
    return trials + box + width + cost


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """The three stages at ``scale`` (:data:`SETTINGS`).

    Parameters
    ----------
    scale : {"book", "paper"}
    seed : int
        Seeds every draw, through :func:`svmtrust.experiments.task_rng` (task ``i``, whatever
        ``n_jobs``).
    n_jobs : int
        Worker processes, one task each.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        One row per (machine, test example) of the trial stage: ``stage``, ``trial``,
        ``redraws``, ``data``, ``machine``, ``n_train``, ``test``, ``true``, ``n_classes``,
        ``q0 ... q6`` (the probabilities), ``v0 ... v6`` and ``width`` (module notes),
        ``split_retries``; one per (repeat, calibration size, class) of the width stage
        (``calibration``, ``class``, ``width``); one per (training size, machine) of the cost
        stage (``n_test``, ``seconds`` per test object, ``svc_seconds``). Identical for every
        ``n_jobs`` except the cost stage's times.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    results = parallel_map(
        _task, tasks(scale), seed=seed, n_jobs=n_jobs, desc="venn-abers", progress=progress
    )
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


#: Columns the trial-stage tables read.
COLUMNS = ("stage", "data", "machine", "trial", "true", "n_classes")


def _stage(rows, stage: str, columns=()) -> pd.DataFrame:
    """The rows of ``stage`` (checked: a table with :data:`COLUMNS` and ``columns``)."""
    rows = check_table(rows, "rows", ("stage", *columns))
    part = rows[rows["stage"] == stage]
    if part.empty:
        raise ValueError(f"rows: has no row of the {stage} stage")
    return part


def _matrix(group: pd.DataFrame, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    """Columns ``prefix0 ...`` of rows that share one data set, and their true classes (checked
    class indices)."""
    n_classes = int(group["n_classes"].iloc[0])
    M = group[[f"{prefix}{c}" for c in range(n_classes)]].to_numpy(dtype=float)
    true = group["true"].to_numpy()
    if not np.all(np.isin(true, np.arange(n_classes))):
        raise ValueError(f"rows: the column true must hold class indices 0 ... {n_classes - 1}")
    return M, true.astype(np.int64)


def example_scores(rows: pd.DataFrame, stage: str = "trial") -> pd.DataFrame:
    """Each row's log loss ``-log q_y`` (natural log, ``q_y`` clipped to
    ``[LOG_EPS, 1 - LOG_EPS]``) and Brier score ``sum_c (q_c - [y = c])^2``, for the rows of
    the stage ``stage`` (``"trial"`` or ``"C"``).

    Returns
    -------
    pandas.DataFrame
        ``data``, ``machine``, ``trial``, ``log_loss``, ``brier``, in the rows' order.

    Raises
    ------
    ValueError
        Naming ``rows`` if it is not a table of :func:`run` with trial rows, or a true class is
        not a class index; naming ``stage`` if it is neither stage.
    """
    trials = _stage(rows, check_choice(stage, "stage", ("trial", "C")), COLUMNS + ("q0",))
    parts = []
    for _, group in trials.groupby(["data", "machine"], sort=False):
        Q, true = _matrix(group, "q")
        q_true = np.clip(Q[np.arange(true.size), true], LOG_EPS, 1 - LOG_EPS)
        brier = np.sum((Q - _one_hot(true, Q.shape[1])) ** 2, axis=1)
        parts.append(
            group[["data", "machine", "trial"]].assign(log_loss=-np.log(q_true), brier=brier)
        )
    return pd.concat(parts).loc[trials.index]


def _trial_means(rows) -> pd.DataFrame:
    """Per-trial means of the scores: index (data, machine, trial), columns :data:`SCORES`."""
    return (
        example_scores(rows).groupby(["data", "machine", "trial"], sort=False)[list(SCORES)].mean()
    )


def box_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The stage ``"C"``: mean log loss, Brier score and width ``p1 - p0`` of the predicted
    class over all test examples, by data set, box constraint and machine."""
    box = _stage(rows, "C", COLUMNS + ("C", "width"))
    keys = ["data", "C", "machine"]
    scores = example_scores(rows, stage="C").assign(C=box["C"])
    return scores.groupby(keys)[list(SCORES)].mean().join(box.groupby(keys)["width"].mean())


def score_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean log loss and Brier score of every machine on every data set, with their standard
    errors over the trials (the trials' means are independent; the examples of one trial share
    its training set).

    Returns
    -------
    pandas.DataFrame
        Index (data, machine); ``log_loss``, ``log_loss_se``, ``brier``, ``brier_se``,
        ``trials``.
    """
    by = _trial_means(rows).groupby(level=["data", "machine"], sort=False)
    out = pd.DataFrame(index=by.size().index)
    for score in SCORES:
        out[score] = by[score].mean()
        out[f"{score}_se"] = by[score].std() / np.sqrt(by[score].count())
    out["trials"] = by.size()
    return out


def differences(rows: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Paired differences ``machine - reference`` of the per-trial mean scores.

    Every machine of a trial sees the same training and test sets, so the difference of their
    trial means is paired; per (score, machine, data set) the mean difference over the trials,
    its standard error and ``z``, their ratio.

    Returns
    -------
    pandas.DataFrame
        Index (score, machine, data), columns ``mean``, ``se``, ``z``: the rows
        :func:`svmtrust.experiments.confidence_compared.blocked_verdicts` reads.

    Raises
    ------
    ValueError
        Naming ``reference`` if no trial row holds it or no other machine is there.
    """
    means = _trial_means(rows)
    present = means.index.get_level_values("machine")
    if reference not in set(present) or present.nunique() < 2:
        raise ValueError(f"reference: expected one of {sorted(set(present))} and another machine")
    parts = {}
    for score in SCORES:
        wide = means[score].unstack("machine")
        for machine in [m for m in wide.columns if m != reference]:
            diff = (wide[machine] - wide[reference]).dropna().groupby(level="data", sort=False)
            stats = pd.DataFrame({"mean": diff.mean(), "se": diff.std() / np.sqrt(diff.count())})
            stats["z"] = stats["mean"] / stats["se"]
            parts[(score, machine)] = stats
    return pd.concat(parts, names=["score", "machine", "data"])


def verdicts(rows: pd.DataFrame, reference: str = REFERENCE, level: float = 0.05):
    """Each machine against ``reference`` on each score over the data sets as blocks:
    Wilcoxon's signed-rank test of the sets' mean differences, Holm over the family of every
    (score, machine) (:func:`~svmtrust.experiments.confidence_compared.blocked_verdicts`;
    "holds": the machine's score is lower, i.e. better)."""
    return blocked_verdicts(differences(rows, reference), level)


def _ratio(mean: float, se: float) -> float:
    """``mean / se``; 0 when both are 0 (every ``Y - P`` is 0: pairs ``(0, 1)`` throughout),
    an infinity of the mean's sign when only ``se`` is."""
    if se == 0:
        return 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    return mean / se


def validity(rows: pd.DataFrame, paired=PAIRED) -> pd.DataFrame:
    """The calibration of the true outcome's probability: ``mean(Y_c - P_c)``.

    One of the two probabilities of a Venn predictor, the one of the outcome that happens, is
    calibrated: ``E[Y_c - P_c] = 0``, with ``Y_c = [y = c]`` and ``P_c`` the pair's ``p1`` if
    ``Y_c = 1`` else ``p0`` (columns ``v``). The mean runs over every test example and every
    one-vs-rest problem (class 1 with two classes, whose class 0 is its mirror image and would
    cancel it exactly; every class otherwise). Its ``z`` divides it by the standard error of
    the trials' means, the independent units.

    Parameters
    ----------
    rows : pandas.DataFrame
        Rows of :func:`run`.
    paired : sequence of str
        The machines whose pairs the rows hold (:data:`PAIRED`).

    Returns
    -------
    pandas.DataFrame
        Index (data, machine): ``mean``, ``se``, ``z`` (0 when every difference is 0),
        ``p`` (two-sided normal), ``trials``.

    Raises
    ------
    ValueError
        Naming ``rows`` if it lacks the columns or a trial row of those machines, ``paired`` if
        it is empty or a string.
    """
    if isinstance(paired, str) or not list(paired):
        raise ValueError(f"paired: expected a sequence of machines, got {paired!r}")
    trials = _stage(rows, "trial", COLUMNS + ("v0",))
    trials = trials[trials["machine"].isin(list(paired))]
    if trials.empty:
        raise ValueError(f"rows: no trial row of the machines {list(paired)}")
    out = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        V, true = _matrix(group, "v")
        cols = list(problems(V.shape[1]))
        excess = (_one_hot(true, V.shape[1]) - V)[:, cols].mean(axis=1)
        by_trial = pd.Series(excess).groupby(group["trial"].to_numpy()).mean()
        se = by_trial.std() / np.sqrt(by_trial.size)
        z = _ratio(by_trial.mean(), se)
        record = {"data": name, "machine": machine, "mean": by_trial.mean(), "se": se, "z": z}
        out.append({**record, "p": 2 * norm.sf(abs(z)), "trials": by_trial.size})
    return pd.DataFrame(out).set_index(["data", "machine"])


def reliability(rows: pd.DataFrame, score: str = "brier") -> pd.DataFrame:
    """The CORP decomposition (:func:`svmtrust.reliability.score_decomposition`) of every
    machine's one-vs-rest forecasts on every data set, pooled over trials and test examples:
    the forecasts ``q_c`` of the outcomes ``[y = c]`` of every problem (class 1 with two
    classes, every class otherwise).

    Returns
    -------
    pandas.DataFrame
        Index (data, machine): ``score``, ``mcb`` (miscalibration), ``dsc`` (discrimination),
        ``unc`` (uncertainty), with ``score = mcb - dsc + unc``.
    """
    score = check_choice(score, "score", ("brier", "log"))
    trials = _stage(rows, "trial", COLUMNS + ("q0",))
    out = []
    for (name, machine), group in trials.groupby(["data", "machine"], sort=False):
        Q, true = _matrix(group, "q")
        cols = list(problems(Q.shape[1]))
        forecasts = np.clip(Q[:, cols], 0.0, 1.0).ravel()
        outcomes = _one_hot(true, Q.shape[1])[:, cols].ravel()
        parts = score_decomposition(forecasts, outcomes, score=score)
        out.append({"data": name, "machine": machine, **parts})
    return pd.DataFrame(out).set_index(["data", "machine"])


def width_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The IVAP's mean width ``p1 - p0`` against the calibration size (width stage), averaged
    over the problems (class 1 with two classes, every class otherwise) and then the repeats.

    Returns
    -------
    pandas.DataFrame
        Index (data, calibration): ``width``, ``se`` (over the repeats), ``repeats``.
    """
    part = _stage(rows, "width", ("data", "trial", "calibration", "class", "n_classes", "width"))
    keep = [c in problems(int(n)) for c, n in zip(part["class"], part["n_classes"])]
    part = part[keep].astype({"calibration": int})
    per_repeat = part.groupby(["data", "calibration", "trial"], sort=False)["width"].mean()
    by = per_repeat.groupby(level=["data", "calibration"], sort=False)
    return pd.DataFrame(
        {"width": by.mean(), "se": by.std() / np.sqrt(by.count()), "repeats": by.count()}
    )


def cost_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Processor seconds per test object of every machine (cost stage), and the same in units
    of one SVC fit on the same rows (``svc_fits``).

    Returns
    -------
    pandas.DataFrame
        Index (n_train, machine): ``seconds``, ``svc_seconds``, ``svc_fits``.
    """
    part = _stage(rows, "cost", ("n_train", "machine", "seconds", "svc_seconds"))
    out = part.set_index(["n_train", "machine"])[["seconds", "svc_seconds"]].copy()
    out["svc_fits"] = out["seconds"] / out["svc_seconds"]
    return out


def summary(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables, by title."""
    return {
        "Log loss and Brier score (mean over trials, standard errors)": score_table(rows),
        f"Against {REFERENCE}, data sets as blocks (Wilcoxon, Holm)": verdicts(rows),
        "Validity: mean(Y - P) of the true outcome's probability": validity(rows),
        "Reliability (CORP, Brier): miscalibration MCB": reliability(rows),
        "IVAP width p1 - p0 against the calibration size": width_table(rows),
        "Cost per test object (seconds, and in SVC fits)": cost_table(rows),
    }
