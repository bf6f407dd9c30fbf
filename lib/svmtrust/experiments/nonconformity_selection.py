"""Protocol of Hardoon, Hussain & Shawe-Taylor (2009), Section 5: Table 3 and Figure 2.

For each of the eight UCI data sets, a stratified 10-fold outer cross-validation (seeded). In
each outer fold the training part is scaled to [0, 1] per feature (min-max, fitted on that part
only, as libsvm's ``svm-scale`` does; the test part gets the same map) and then:

- the nonconformity selector (Algorithm 1) splits it once into a training set and a validation
  set of ``min(l / 5, 50)`` and trains the whole grid on the training set;
- SVM-L_inf (the test-point-margin rule) trains the whole grid on that same training set;
- cross-validation (10 folds) runs on that same training set only and retrains its choice.

So all three methods learn from the same examples, as in the paper. Each method's wall-clock
time (training and prediction) is recorded, and beside it its deterministic work: libsvm's
iterations summed over every fit, and iterations times the size of each fit's training set.
For the nonconformity selector each fold also records the share of test points with
``epsilon_crit = 0`` and the error of the deterministic second criterion (``tie_break =
"credibility"``, beyond the paper). ``scale="paper"`` is the full protocol: 10 outer folds,
the 110 models of Table 2, and two preprocessing variants of Credit (:data:`VARIANTS`).
``scale="book"`` keeps the 10-fold split and the 10-fold inner CV but runs only
:data:`BOOK_FOLDS` of the outer folds of the eight data sets, on the coarser grid
:data:`BOOK_GAMMAS` x :data:`BOOK_CS` (every other value of Table 2: 30 models).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from .. import conformal, datasets, keel
from ..kernels import rbf_kernel
from ..nonconformity_selection import (
    BOUND_KINDS,
    CS,
    GAMMAS,
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
    critical,
    nonconformity_bound,
    nonconformity_p_values,
)
from ..svm import fit_svm
from ..validation import (
    check_array,
    check_bool,
    check_C,
    check_choice,
    check_indices,
    check_integer,
    check_positive,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map, task_rng

__all__ = [
    "DATASETS",
    "VARIANTS",
    "PAPER_NAME",
    "METHODS",
    "N_FOLDS",
    "CV_FOLDS",
    "BOOK_FOLDS",
    "BOOK_GAMMAS",
    "BOOK_CS",
    "PAPER_TABLE3",
    "PAPER_OVERALL",
    "PAPER_SPEEDUP",
    "minmax_scale",
    "load",
    "outer_folds",
    "fold_data",
    "grid",
    "evaluate_fold",
    "tasks",
    "run",
    "table3",
    "paper_overall_recomputed",
    "side_by_side",
    "nonconformity_summary",
    "work_ratios",
    "preprocessing_table",
    "sd_comparison",
    "fold_seed",
    "tie_spread",
    "patch_counterexample",
    "bound_curve",
    "validity_check",
    "time_ratio",
    "summary",
]

#: The data sets of Table 1, in the paper's order (names of :func:`svmtrust.datasets.load`).
DATASETS = ("votes", "glass", "haberman", "bupa", "credit", "pima", "breastw", "ionosphere")

#: Preprocessing variants of Credit run at paper scale: ``"credit"`` itself is one-hot encoded
#: (42 columns) and min-max scaled; ``"credit-integer"`` codes each categorical attribute by
#: the rank of its level in alphabetical order (15 columns, as the paper's Table 1 lists), then
#: scales; ``"credit-unscaled"`` is one-hot encoded and not scaled.
VARIANTS = ("credit-integer", "credit-unscaled")

#: How the paper names them.
PAPER_NAME = (
    {name: name.capitalize() for name in DATASETS}
    | {"breastw": "BreastW"}
    | {"credit-integer": "Credit, integer codes", "credit-unscaled": "Credit, unscaled"}
)

METHODS = ("Nonconformity", "Cross-Validation", "SVM-L_inf")

#: Outer folds of the 10-fold split.
N_FOLDS = 10

#: Folds of the inner cross-validation (the CV baseline).
CV_FOLDS = 10

#: Book scale: the outer folds run (of :data:`N_FOLDS`) and the coarser grid.
BOOK_FOLDS = 1
BOOK_GAMMAS = GAMMAS[::2]
BOOK_CS = CS[::2]

#: Table 3 of Hardoon et al. (2009): (data, method) -> mean error, sd, run time (s).
PAPER_TABLE3 = pd.DataFrame(
    [
        ("Votes", 0.0700, 0.1201, 0.72, 0.0833, 0.2115, 5.74, 0.0933, 0.0991, 0.43),
        ("Glass", 0.2167, 0.0932, 5.25, 0.2085, 0.1291, 32.58, 0.2328, 0.1263, 3.08),
        ("Haberman", 0.3133, 0.0680, 58.23, 0.2518, 0.0397, 455.77, 0.3300, 0.0524, 49.23),
        ("Bupa", 0.2753, 0.0620, 44.85, 0.2840, 0.0604, 329.96, 0.3192, 0.1085, 38.81),
        ("Credit", 0.2990, 0.0468, 86.85, 0.2745, 0.1111, 592.42, 0.2914, 0.0850, 72.31),
        ("Pima", 0.2562, 0.0554, 169.05, 0.2473, 0.0361, 1305.29, 0.3019, 0.0516, 155.65),
        ("BreastW", 0.0378, 0.0350, 24.80, 0.0335, 0.0282, 150.36, 0.0408, 0.0367, 18.29),
        ("Ionosphere", 0.0562, 0.0493, 17.63, 0.0479, 0.0440, 103.45, 0.1158, 0.0565, 11.85),
    ],
    columns=[
        "data",
        "nc_error",
        "nc_sd",
        "nc_time",
        "cv_error",
        "cv_sd",
        "cv_time",
        "linf_error",
        "linf_sd",
        "linf_time",
    ],
).set_index("data")

#: Table 3's two overall rows as the paper prints them (the means of its eight rows differ in
#: the fourth decimal).
PAPER_OVERALL = pd.DataFrame(
    [
        ("Overall", 0.1905, 0.0662, 50.92, 0.1788, 0.0825, 371.94, 0.2156, 0.0770, 43.71),
        (
            "Overall ex. Haberman",
            0.1730,
            0.0659,
            49.87,
            0.1686,
            0.0886,
            359.97,
            0.1993,
            0.0805,
            42.91,
        ),
    ],
    columns=PAPER_TABLE3.columns.insert(0, "data"),
).set_index("data")

#: The paper's average speed-up of nonconformity over CV.
PAPER_SPEEDUP = 7.3


# --------------------------------------------------------------------------- data and folds


def minmax_scale(train, test) -> tuple[np.ndarray, np.ndarray]:
    """Scale every feature to [0, 1] on ``train`` and apply the same map to ``test``:
    ``(x - min) / (max - min)``.

    A constant feature (zero range) is mapped to 0. scikit-learn's ``MinMaxScaler`` computes
    ``x * scale + offset`` instead, which differs in the last bits; the protocol's selections
    break ties between models, and those bits move some of them (the chapter's recorded numbers
    were computed with this formula), so the formula stays.
    """
    train, test = check_array(train, "train", ndim=2), check_array(test, "test", ndim=2)
    if test.shape[1] != train.shape[1]:
        raise ValueError(f"test: has {test.shape[1]} features, train has {train.shape[1]}")
    low, high = train.min(axis=0), train.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return (train - low) / span, (test - low) / span


def load(name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """Features, labels and whether to min-max scale, for a data set or a :data:`VARIANTS` entry."""
    check_choice(name, "name", DATASETS + VARIANTS)
    if name == "credit-unscaled":
        X, y, _ = datasets.load("credit")
        return X, y, False
    if name == "credit-integer":
        return *_credit_integer_codes(), True
    X, y, _ = datasets.load(name)
    return X, y, True


def _credit_integer_codes() -> tuple[np.ndarray, np.ndarray]:
    """KEEL ``crx`` with each categorical attribute coded 0, 1, ... in alphabetical order.

    The same 653 complete rows and labels as :func:`svmtrust.datasets.load_credit`, 15 columns.
    """
    frame, _ = keel.drop_missing(keel.read_table("crx"))
    columns = []
    for column in frame.columns[:-1]:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values):
            columns.append(values.to_numpy(dtype=np.float64))
        else:
            levels = sorted(values.unique())
            columns.append(values.map({v: i for i, v in enumerate(levels)}).to_numpy(np.float64))
    labels = frame.iloc[:, -1].astype(str).to_numpy()
    return np.column_stack(columns), keel.plus_minus(labels, "positive").astype(np.float64)


def outer_folds(name: str, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The stratified, shuffled 10-fold outer split of one data set (variants share Credit's)."""
    seed = check_seed(seed)
    X, y, _ = load(name)
    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(X, y))


def fold_data(name: str, train, test):
    """``(X_train, X_test, y_train, y_test)`` of one outer fold, scaled on ``train`` if required."""
    X, y, scale = load(name)
    train, test = check_indices(train, "train", len(y)), check_indices(test, "test", len(y))
    X_train, X_test = minmax_scale(X[train], X[test]) if scale else (X[train], X[test])
    return X_train, X_test, y[train], y[test]


def grid(scale: str) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of a scale."""
    return (GAMMAS, CS) if check_scale(scale) == "paper" else (BOOK_GAMMAS, BOOK_CS)


def _timed(func):
    """Run ``func()``; return its result and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = func()
    return result, time.perf_counter() - start


# --------------------------------------------------------------------------- one fold


def evaluate_fold(
    name: str, fold: int, train, test, gammas, Cs, seed: int, baselines: bool = True
) -> list[dict]:
    """The three methods on one outer fold.

    ``baselines=False`` runs the nonconformity selector alone and returns its row only (the
    same row: the baselines draw nothing it uses; tests/test_recorded.py recomputes it).

    Returns
    -------
    list of dict
        One row per method: ``data``, ``fold``, ``method``, ``errors``, ``n_test``, ``error``,
        ``seconds``, ``n_models``, ``n_train`` (examples the models learn from),
        ``n_validation``, ``iterations`` (libsvm iterations, summed over every fit), ``work``
        (iterations times each fit's training size, summed), and for the nonconformity row
        only (``nan`` elsewhere) ``eps_zero`` (share of test points with ``epsilon_crit = 0``)
        and ``error_credibility`` (test error with ``tie_break="credibility"``).
    """
    seed, baselines = check_seed(seed), check_bool(baselines, "baselines")
    X_train, X_test, y_train, y_test = fold_data(name, train, test)
    nc = NonconformityModelSelector(gammas, Cs, seed=seed)
    nc_pred, nc_time = _timed(lambda: nc.fit(X_train, y_train).predict(X_test))
    part = nc.train_index_
    linf = cv = linf_pred = cv_pred = linf_time = cv_time = None
    if baselines:
        linf = TestMarginSelector(gammas, Cs, seed=seed)
        linf_pred, linf_time = _timed(
            lambda: linf.fit(X_train[part], y_train[part]).predict(X_test)
        )
        cv = CrossValidationSelector(gammas, Cs, folds=CV_FOLDS, seed=seed)
        cv_pred, cv_time = _timed(lambda: cv.fit(X_train[part], y_train[part]).predict(X_test))
    P = nc.predict_p_all(X_test)
    epsilon = critical(P, nc.seed, X_test)[0]
    credible = -critical(P, nc.seed, X_test, tie_break="credibility")[2]
    extra = {
        "eps_zero": float(np.mean(epsilon == 0)),
        "error_credibility": float(np.mean(credible != y_test)),
    }
    none = dict.fromkeys(extra, np.nan)
    base = {
        "data": name,
        "fold": fold,
        "n_test": len(test),
        "n_models": len(gammas) * len(Cs),
        "n_train": len(part),
        "n_validation": len(nc.validation_index_),
    }
    return [
        {
            **base,
            "method": method,
            "errors": int(np.sum(pred != y_test)),
            "error": float(np.mean(pred != y_test)),
            "seconds": seconds,
            "iterations": model.n_iter_,
            "work": model.work_,
            **more,
        }
        for method, pred, seconds, model, more in zip(
            METHODS if baselines else METHODS[:1],
            (nc_pred, cv_pred, linf_pred),
            (nc_time, cv_time, linf_time),
            (nc, cv, linf),
            (extra, none, none),
        )
    ]


def _task(task, rng) -> list[dict]:
    """One outer fold; the selectors' seed comes from the task's generator."""
    return evaluate_fold(*task, seed=int(rng.integers(2**31 - 1)))


def tasks(scale: str = "book", seed: int = 0) -> list[tuple]:
    """The tasks of :func:`run`: ``(name, fold, train, test, gammas, Cs)`` for every outer
    fold of every data set of the scale, data set by data set (see :func:`fold_seed`).

    Parameters
    ----------
    scale : {"book", "paper"}
    seed : int
        Seed of the outer folds.

    Returns
    -------
    list of tuple
    """
    scale, seed = check_scale(scale), check_seed(seed)
    gammas, Cs = grid(scale)
    n_outer = N_FOLDS if scale == "paper" else BOOK_FOLDS
    names = DATASETS + VARIANTS if scale == "paper" else DATASETS
    return [
        (name, fold, train, test, gammas, Cs)
        for name in names
        for fold, (train, test) in enumerate(outer_folds(name, seed)[:n_outer])
    ]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Table 3's protocol: every outer fold of every data set, three methods.

    Parameters
    ----------
    scale : {"book", "paper"}
        ``"paper"``: 10 outer folds, 110 models, the eight data sets and the Credit
        :data:`VARIANTS`. ``"book"``: :data:`BOOK_FOLDS` outer fold(s) of the eight data sets
        and the 30 models of :data:`BOOK_GAMMAS` x :data:`BOOK_CS`.
    seed : int
        Seeds the outer folds and, through :func:`svmtrust.experiments.task_rng`, each fold's
        selectors.
    n_jobs : int
        Worker processes (one outer fold each). The errors are the same for every ``n_jobs``;
        the times are wall-clock and share the machine.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`evaluate_fold`.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    results = parallel_map(
        _task,
        tasks(scale, seed),
        seed=seed,
        n_jobs=n_jobs,
        desc="Hardoon et al. folds",
        progress=progress,
    )
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


def table3(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3: mean and standard deviation (over folds) of the error, mean time per fold.

    Rows are the data sets (the eight of :data:`DATASETS`; variants are left out), then
    "Overall" and "Overall ex. Haberman", which average the per-data-set means, standard
    deviations and times, as the paper's overall rows do. The standard deviation is ``nan``
    with a single fold.
    """
    results = check_table(results, "results", ("data", "method", "error", "seconds"))
    results = results[results["data"].isin(DATASETS)]
    stats = (
        results.groupby(["data", "method"], sort=False)
        .agg(error=("error", "mean"), sd=("error", "std"), seconds=("seconds", "mean"))
        .unstack("method")
    )
    stats.columns = [f"{m}|{s}" for s, m in stats.columns]
    stats.index = [PAPER_NAME[name] for name in stats.index]
    overall = stats.mean().rename("Overall")
    ex = stats.drop(index="Haberman", errors="ignore").mean().rename("Overall ex. Haberman")
    return pd.concat([stats, overall.to_frame().T, ex.to_frame().T])


def _paper_overall() -> pd.DataFrame:
    """The paper's Table 3 with its two overall rows as printed (:data:`PAPER_OVERALL`)."""
    return pd.concat([PAPER_TABLE3, PAPER_OVERALL])


def paper_overall_recomputed() -> pd.DataFrame:
    """The paper's overall rows as printed beside the means of its eight (or seven) rows."""
    paper = PAPER_TABLE3
    mean = pd.concat(
        [
            paper.mean().rename("Overall"),
            paper.drop(index="Haberman").mean().rename("Overall ex. Haberman"),
        ],
        axis=1,
    ).T
    return pd.concat({"printed": PAPER_OVERALL, "mean of rows": mean}, axis=0)


def side_by_side(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3, the paper's numbers beside ours, with the CV/nonconformity speed-ups.

    Errors are formatted ``mean +- sd``; times are seconds per outer fold. The paper's overall
    rows are those it prints; ours average our per-data-set rows.
    """
    ours = table3(results)
    paper = _paper_overall().reindex(ours.index)
    keys = {"Nonconformity": "nc", "Cross-Validation": "cv", "SVM-L_inf": "linf"}
    out = pd.DataFrame(index=ours.index)
    for method, key in keys.items():
        out[f"{key} paper"] = [_pm(e, s) for e, s in zip(paper[f"{key}_error"], paper[f"{key}_sd"])]
        out[f"{key} book"] = [
            _pm(e, s) for e, s in zip(ours[f"{method}|error"], ours[f"{method}|sd"])
        ]
    for method, key in keys.items():
        out[f"{key} s paper"] = paper[f"{key}_time"].round(2).to_numpy()
        out[f"{key} s book"] = ours[f"{method}|seconds"].round(2).to_numpy()
    out["speed-up paper"] = (paper["cv_time"] / paper["nc_time"]).round(1).to_numpy()
    out["speed-up book"] = (ours["Cross-Validation|seconds"] / ours["Nonconformity|seconds"]).round(
        1
    )
    return out


def _pm(mean: float, sd: float) -> str:
    """``"0.1234 +- 0.0567"`` (sd omitted when it is not defined)."""
    return f"{mean:.4f}" if np.isnan(sd) else f"{mean:.4f} +- {sd:.4f}"


def nonconformity_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per data set: share of test points with ``epsilon_crit = 0``, errors of both tie rules.

    Columns ``eps_zero`` (mean over folds of the per-fold share), ``error_random`` (the paper's
    random tie-breaking, the Table 3 error) and ``error_credibility`` (the second criterion),
    over the rows of :data:`DATASETS` and :data:`VARIANTS` present.
    """
    results = check_table(results, "results", ("data", "method"))
    nc = results[results["method"] == "Nonconformity"]
    out = nc.groupby("data", sort=False).agg(
        eps_zero=("eps_zero", "mean"),
        error_random=("error", "mean"),
        error_credibility=("error_credibility", "mean"),
    )
    out.index = [PAPER_NAME[name] for name in out.index]
    return out


def work_ratios(results: pd.DataFrame, name: str = "pima") -> pd.DataFrame:
    """CV over nonconformity per outer fold of ``name``: time, iterations and work ratios."""
    results = check_table(results, "results", ("data", "fold", "method", "seconds"))
    rows = results[results["data"] == name].set_index(["fold", "method"])
    cv, nc = rows.xs("Cross-Validation", level="method"), rows.xs("Nonconformity", level="method")
    return pd.DataFrame(
        {
            "time": cv["seconds"] / nc["seconds"],
            "iterations": cv["iterations"] / nc["iterations"],
            "work": cv["work"] / nc["work"],
        }
    )


def preprocessing_table(results: pd.DataFrame) -> pd.DataFrame:
    """Credit's three preprocessings: mean test error (and sd) of each method over the folds."""
    results = check_table(results, "results", ("data", "method", "error"))
    names = ["credit", *VARIANTS]
    rows = results[results["data"].isin(names)]
    stats = rows.groupby(["data", "method"]).agg(error=("error", "mean"), sd=("error", "std"))
    out = stats["error"].unstack("method")[list(METHODS)].reindex(names)
    out.index = ["one-hot, scaled", "integer codes, scaled", "one-hot, unscaled"]
    return out


def sd_comparison(results: pd.DataFrame) -> pd.DataFrame:
    """Standard deviation over folds of the NC and CV errors, ours and the paper's."""
    ours = table3(results).loc[[PAPER_NAME[n] for n in DATASETS]]
    return pd.DataFrame(
        {
            "nc sd": ours["Nonconformity|sd"],
            "cv sd": ours["Cross-Validation|sd"],
            "nc sd paper": PAPER_TABLE3["nc_sd"],
            "cv sd paper": PAPER_TABLE3["cv_sd"],
        }
    )


def fold_seed(name: str, fold: int, seed: int = 0, scale: str = "paper") -> int:
    """The selectors' seed in fold ``fold`` of ``name`` in a :func:`run` seeded with ``seed``.

    A run at ``scale`` has :data:`N_FOLDS` outer folds (paper) or :data:`BOOK_FOLDS` (book);
    a ``fold`` the run does not have raises ``ValueError``.
    """
    scale = check_scale(scale)
    names = DATASETS + VARIANTS if scale == "paper" else DATASETS
    check_choice(name, "name", names)
    n_outer = N_FOLDS if scale == "paper" else BOOK_FOLDS
    fold = check_integer(fold, "fold", 0, n_outer - 1)
    seed = check_seed(seed)
    index = names.index(name) * n_outer + fold
    return int(task_rng(seed, index).integers(2**31 - 1))


def tie_spread(
    name: str = "glass", fold: int = 0, seed: int = 0, n_seeds: int = 20, scale: str = "paper"
) -> pd.DataFrame:
    """Test error of Algorithm 1 on one outer fold for ``n_seeds`` tie-breaking seeds.

    The split and the grid are those of the protocol's fold (the selector is fitted with the
    fold's own seed, :func:`fold_seed`); only the seed of :func:`critical`'s draws varies,
    ``0, ..., n_seeds - 1``.

    Returns
    -------
    pandas.DataFrame
        One row per tie seed: ``tie_seed``, ``error``; plus the fold's ``eps_zero`` and the
        error of ``tie_break="credibility"`` (the same on every row, as it is deterministic
        up to ties it leaves, broken with the fold's seed).
    """
    fold = check_integer(fold, "fold", 0, N_FOLDS - 1)
    n_seeds = check_integer(n_seeds, "n_seeds")
    train, test = outer_folds(name, check_seed(seed))[fold]
    X_train, X_test, y_train, y_test = fold_data(name, train, test)
    model = NonconformityModelSelector(*grid(scale), seed=fold_seed(name, fold, seed, scale))
    P = model.fit(X_train, y_train).predict_p_all(X_test)
    errors = [float(np.mean(-critical(P, s, X_test)[2] != y_test)) for s in range(n_seeds)]
    epsilon = critical(P, 0, X_test)[0]
    credible = -critical(P, model.seed, X_test, tie_break="credibility")[2]
    return pd.DataFrame(
        {
            "tie_seed": range(n_seeds),
            "error": errors,
            "eps_zero": float(np.mean(epsilon == 0)),
            "error_credibility": float(np.mean(credible != y_test)),
        }
    )


# --------------------------------------------------------------------------- Proposition 4.2


def patch_counterexample(
    n: int = 5000, n_test: int = 20_000, patch: float = 0.02, delta: float = 0.05, seed: int = 0
) -> dict:
    """A fixed model that is confidently wrong on a patch: the per-point reading of Prop. 4.2 fails.

    ``x`` is uniform on [0, 1]; outside the patch ``[1 - patch, 1]`` the label is
    ``sign(x - 1/2)`` and the one model (K = 1) is ``f(x) = 2x - 1``, always right; on the patch
    the label is +1 or -1 with probability 1/2 each and ``f = 3``. A validation set of ``n``
    and ``n_test`` fresh test examples are drawn; Algorithm 1 runs on the test points.

    Returns
    -------
    dict
        ``eps_patch`` (median ``epsilon_crit`` on the patch), ``bound_vc`` and ``bound_dkw``
        (:func:`svmtrust.nonconformity_selection.nonconformity_bound` there),
        ``error_patch`` (error rate of the test points on the patch), ``n_patch``,
        ``error_all`` (overall test error), and the joint check at ``eps = eps_patch``:
        ``joint`` (share of test examples that are errors with ``epsilon_crit <= eps``) and
        ``joint_bound_dkw`` (``K (eps + Delta_dkw)``).
    """
    n, n_test = check_integer(n, "n"), check_integer(n_test, "n_test")
    patch, delta = check_significance(patch, "patch"), check_significance(delta, "delta")
    rng = np.random.default_rng(check_seed(seed))

    def draw(size):
        x = rng.random(size)
        inside = x >= 1 - patch
        y = np.where(inside, rng.choice([-1.0, 1.0], size), np.where(x >= 0.5, 1.0, -1.0))
        f = np.where(inside, 3.0, 2 * x - 1)
        return x, y, f, inside

    _, y_val, f_val, _ = draw(n)
    x, y, f, inside = draw(n_test)
    P = nonconformity_p_values((y_val * f_val)[None, :], f[None, :])
    epsilon, _, y_crit = critical(P, seed, x[:, None])
    wrong = -y_crit != y
    eps_patch = float(np.median(epsilon[inside]))
    dkw = float(nonconformity_bound(eps_patch, n, 1, delta, "dkw"))
    return {
        "eps_patch": eps_patch,
        "bound_vc": float(nonconformity_bound(eps_patch, n, 1, delta, "vc")),
        "bound_dkw": dkw,
        "error_patch": float(np.mean(wrong[inside])),
        "n_patch": int(np.sum(inside)),
        "error_all": float(np.mean(wrong)),
        "joint": float(np.mean(wrong & (epsilon <= eps_patch))),
        "joint_bound_dkw": dkw,
    }


# --------------------------------------------------------------------------- Figure 2


def bound_curve(
    name: str = "bupa",
    fold: int = 0,
    seed: int = 0,
    scale: str = "book",
    delta: float = 0.05,
    kind: str = "vc",
) -> pd.DataFrame:
    """Figure 2: error rate of the test points whose bound is at most each bound value.

    One outer fold of ``name`` (the split of :func:`outer_folds`) and the nonconformity
    selector of that fold in a :func:`run` at ``scale`` seeded with ``seed`` (seeded by
    :func:`fold_seed`, so its training and validation split and its tie draws are those of the
    run's row); for every distinct value ``b`` of Proposition 4.2's quantity
    ``epsilon_crit + Delta`` over the test points (``kind`` ``"vc"`` or ``"dkw"``, see
    :func:`svmtrust.nonconformity_selection.nonconformity_bound`), the error rate of the test
    points with a value ``<= b``.

    Returns
    -------
    pandas.DataFrame
        Columns ``bound``, ``error`` (cumulative error rate), ``count`` (test points with bound
        ``<= b``); the last row's ``error`` is the fold's test error.
    """
    fold = check_integer(fold, "fold", 0, N_FOLDS - 1)
    kind = check_choice(kind, "kind", BOUND_KINDS)
    delta = check_significance(delta, "delta")
    train, test = outer_folds(name, check_seed(seed))[fold]
    X_train, X_test, y_train, y_test = fold_data(name, train, test)
    model = NonconformityModelSelector(*grid(scale), seed=fold_seed(name, fold, seed, scale))
    bounds = model.fit(X_train, y_train).bound(X_test, delta, kind)
    wrong = model.predict(X_test) != y_test
    values = np.unique(bounds)
    count = np.array([np.sum(bounds <= b) for b in values])
    errors = np.array([np.sum(wrong[bounds <= b]) for b in values])
    return pd.DataFrame({"bound": values, "error": errors / count, "count": count})


# --------------------------------------------------------------------------- validity


def validity_check(
    name: str = "pima",
    gamma: float = 2.0**-3,
    C: float = 2.0,
    n_validation: int = 50,
    n_draws: int = 20000,
    significances=(0.03, 0.05, 0.1, 0.2),
    seed: int = 0,
) -> pd.DataFrame:
    """Empirical error of the region predictor Gamma^eps of one fixed model (Proposition 3.2).

    One SVM ``(gamma, C)`` is trained on a random half of the (scaled) data. From the other
    half, ``n_draws`` times, ``n_validation + 1`` examples are drawn at random without
    replacement: the first ``n_validation`` are the validation set, the last the test example.
    Given the trained model these are exchangeable. The region errs when the test example's
    true label is outside it. Three rules are counted: the paper's p-value (no ``+1``) with
    Definition 3.1's ``p >= eps``, the same p-value with Section 3's strict ``p > eps``, and
    the conformal p-value (``+1``) with ``p > eps``.

    Returns
    -------
    pandas.DataFrame
        One row per significance: ``significance``, ``error_paper``, ``error_strict``,
        ``error_conformal`` (the empirical rates), ``exact_paper``, ``exact_strict`` and
        ``exact_conformal`` (the rates under exact exchangeability without ties,
        ``ceil(n eps) / (n + 1)``, ``(floor(n eps) + 1) / (n + 1)`` and
        ``floor(eps (n + 1)) / (n + 1)``), ``n_draws``.
    """
    gamma, C = check_positive(gamma, "gamma"), check_C(C)
    n_validation = check_integer(n_validation, "n_validation")
    n_draws = check_integer(n_draws, "n_draws")
    significances = [check_significance(eps, "significances") for eps in significances]
    X, y, _ = datasets.load(name)
    rng = np.random.default_rng(check_seed(seed))
    order = rng.permutation(len(y))
    half = len(y) // 2
    train, pool = order[:half], order[half:]
    X_train, X_pool = minmax_scale(X[train], X[pool])
    model = fit_svm(
        rbf_kernel(X_train, gamma=gamma), y[train], C, solver="libsvm", check_kernel=False
    )
    margins = y[pool] * model.decision_function(rbf_kernel(X_pool, X_train, gamma))
    picks = np.argsort(rng.random((n_draws, len(pool))), axis=1)[:, : n_validation + 1]
    p_paper, p_conf = np.empty(n_draws), np.empty(n_draws)
    for r, pick in enumerate(picks):
        old, new = -margins[pick[:-1]], -margins[pick[-1]]
        p_paper[r] = conformal.p_values(old, new, include_new=False)
        p_conf[r] = conformal.p_values(old, new)
    n = n_validation
    rows = []
    for eps in significances:
        rows.append(
            {
                "significance": eps,
                "error_paper": float(np.mean(p_paper < eps)),
                "error_strict": float(np.mean(p_paper <= eps)),
                "error_conformal": float(np.mean(p_conf <= eps)),
                "exact_paper": float(np.ceil(n * eps - 1e-12) / (n + 1)),
                "exact_strict": float((np.floor(n * eps + 1e-12) + 1) / (n + 1)),
                "exact_conformal": float(np.floor(eps * (n + 1) + 1e-12) / (n + 1)),
                "n_draws": n_draws,
            }
        )
    return pd.DataFrame(rows)


def time_ratio(name: str = "pima", fold: int = 0, seed: int = 0, gammas=GAMMAS, Cs=CS) -> dict:
    """Wall-clock time and work of CV and of the nonconformity selector on one outer fold.

    The fold, the selectors' seed (:func:`fold_seed`) and hence the libsvm work are those of the
    paper-scale :func:`run` with the same ``seed`` when the grid is the paper's.

    Returns
    -------
    dict
        ``nc_seconds``, ``cv_seconds``, ``ratio`` (of times), ``nc_work``, ``cv_work``,
        ``work_ratio`` (of libsvm iterations times training size, deterministic),
        ``nc_iterations``, ``cv_iterations``, ``nc_error``, ``cv_error``.
    """
    fold = check_integer(fold, "fold", 0, N_FOLDS - 1)
    seed = check_seed(seed)
    rows = evaluate_fold(
        name, fold, *outer_folds(name, seed)[fold], gammas, Cs, fold_seed(name, fold, seed, "paper")
    )
    by = {row["method"]: row for row in rows}
    nc, cv = by["Nonconformity"], by["Cross-Validation"]
    return {
        "nc_seconds": nc["seconds"],
        "cv_seconds": cv["seconds"],
        "ratio": cv["seconds"] / nc["seconds"],
        "nc_work": nc["work"],
        "cv_work": cv["work"],
        "work_ratio": cv["work"] / nc["work"],
        "nc_iterations": nc["iterations"],
        "cv_iterations": cv["iterations"],
        "nc_error": nc["error"],
        "cv_error": cv["error"],
    }


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's Table 3, paper beside this book, and the Credit preprocessing rows."""
    return {
        "Table 3 (test error, paper | this book)": side_by_side(results),
        "Credit preprocessing": preprocessing_table(results),
    }
