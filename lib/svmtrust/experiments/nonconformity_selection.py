"""Protocol of Hardoon, Hussain & Shawe-Taylor (2009), Section 5: Table 3 and Figure 2.

For each of the eight UCI data sets, a stratified 10-fold outer cross-validation (seeded). In
each outer fold the training part is scaled to [0, 1] per feature (min-max, fitted on that part
only, as libsvm's ``svm-scale`` does; the test part gets the same map) and then:

- the nonconformity selector (Algorithm 1) splits it once into a training set and a validation
  set of ``min(l / 5, 50)`` and trains the whole grid on the training set;
- SVM-L_inf (the test-point-margin rule) trains the whole grid on that same training set;
- cross-validation (10 folds) runs on that same training set only and retrains its choice.

So all three methods learn from the same examples, as in the paper. Each method's wall-clock
time (training and prediction) is recorded. ``scale="paper"`` is the full protocol: 10 outer
folds, the 110 models of Table 2. ``scale="book"`` keeps the 10-fold split and the 10-fold
inner CV but runs only :data:`BOOK_FOLDS` of the outer folds, on the coarser grid
:data:`BOOK_GAMMAS` x :data:`BOOK_CS` (every other value of Table 2: 30 models).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from .. import conformal, datasets
from ..kernels import rbf_kernel
from ..nonconformity_selection import (
    CS,
    GAMMAS,
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
    default_validation_size,
)
from ..svm import fit_svm
from . import check_n_jobs, check_scale, check_seed, parallel_map

#: The data sets of Table 1, in the paper's order (names of :func:`svmtrust.datasets.load`).
DATASETS = ("votes", "glass", "haberman", "bupa", "credit", "pima", "breastw", "ionosphere")

#: How the paper names them.
PAPER_NAME = {name: name.capitalize() for name in DATASETS} | {"breastw": "BreastW"}

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
    columns=["data", "nc_error", "nc_sd", "nc_time", "cv_error", "cv_sd", "cv_time",
             "linf_error", "linf_sd", "linf_time"],
).set_index("data")

#: The paper's average speed-up of nonconformity over CV.
PAPER_SPEEDUP = 7.3


# --------------------------------------------------------------------------- data and folds


def minmax_scale(train, test) -> tuple[np.ndarray, np.ndarray]:
    """Scale every feature to [0, 1] on ``train`` and apply the same map to ``test``.

    A constant feature (zero range) is mapped to 0.
    """
    low, high = train.min(axis=0), train.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    return (train - low) / span, (test - low) / span


def outer_folds(name: str, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The stratified, shuffled 10-fold outer split of one data set."""
    X, y, _ = datasets.load(name)
    return list(StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(X, y))


def grid(scale: str) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of a scale."""
    return (GAMMAS, CS) if check_scale(scale) == "paper" else (BOOK_GAMMAS, BOOK_CS)


def _timed(func):
    """Run ``func()``; return its result and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = func()
    return result, time.perf_counter() - start


# --------------------------------------------------------------------------- one fold


def evaluate_fold(name: str, fold: int, train, test, gammas, Cs, seed: int) -> list[dict]:
    """The three methods on one outer fold.

    Returns
    -------
    list of dict
        One row per method: ``data``, ``fold``, ``method``, ``errors``, ``n_test``, ``error``,
        ``seconds``, ``n_models``, ``n_train`` (examples the models learn from) and
        ``n_validation``.
    """
    X, y, _ = datasets.load(name)
    X_train, X_test = minmax_scale(X[train], X[test])
    y_train, y_test = y[train], y[test]
    nc = NonconformityModelSelector(gammas, Cs, seed=seed)
    nc_pred, nc_time = _timed(lambda: nc.fit(X_train, y_train).predict(X_test))
    part = nc.train_index_
    linf = TestMarginSelector(gammas, Cs, seed=seed)
    linf_pred, linf_time = _timed(lambda: linf.fit(X_train[part], y_train[part]).predict(X_test))
    cv = CrossValidationSelector(gammas, Cs, folds=CV_FOLDS, seed=seed)
    cv_pred, cv_time = _timed(lambda: cv.fit(X_train[part], y_train[part]).predict(X_test))
    base = {"data": name, "fold": fold, "n_test": len(test), "n_models": len(gammas) * len(Cs),
            "n_train": len(part), "n_validation": len(nc.validation_index_)}
    return [
        {**base, "method": method, "errors": int(np.sum(pred != y_test)),
         "error": float(np.mean(pred != y_test)), "seconds": seconds}
        for method, pred, seconds in zip(
            METHODS, (nc_pred, cv_pred, linf_pred), (nc_time, cv_time, linf_time)
        )
    ]


def _task(task, rng) -> list[dict]:
    """One outer fold; the selectors' seed comes from the task's generator."""
    return evaluate_fold(*task, seed=int(rng.integers(2**31 - 1)))


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Table 3's protocol: every outer fold of every data set, three methods.

    Parameters
    ----------
    scale : {"book", "paper"}
        ``"paper"``: 10 outer folds, 110 models. ``"book"``: :data:`BOOK_FOLDS` outer fold(s)
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
    gammas, Cs = grid(scale)
    n_outer = N_FOLDS if scale == "paper" else BOOK_FOLDS
    tasks = [
        (name, fold, train, test, gammas, Cs)
        for name in DATASETS
        for fold, (train, test) in enumerate(outer_folds(name, seed)[:n_outer])
    ]
    results = parallel_map(_task, tasks, seed=seed, n_jobs=n_jobs,
                           desc="Hardoon et al. folds", progress=progress)
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


def table3(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3: mean and standard deviation (over folds) of the error, mean time per fold.

    Rows are the data sets, then "Overall" and "Overall ex. Haberman", which average the
    per-data-set means, standard deviations and times, as the paper's overall rows do. The
    standard deviation is ``nan`` with a single fold.
    """
    stats = results.groupby(["data", "method"], sort=False).agg(
        error=("error", "mean"), sd=("error", "std"), seconds=("seconds", "mean")
    ).unstack("method")
    stats.columns = [f"{m}|{s}" for s, m in stats.columns]
    stats.index = [PAPER_NAME[name] for name in stats.index]
    overall = stats.mean().rename("Overall")
    ex = stats.drop(index="Haberman", errors="ignore").mean().rename("Overall ex. Haberman")
    return pd.concat([stats, overall.to_frame().T, ex.to_frame().T])


def _paper_overall() -> pd.DataFrame:
    """The paper's Table 3 with its two overall rows recomputed from its data-set rows."""
    paper = PAPER_TABLE3
    overall = paper.mean().rename("Overall")
    ex = paper.drop(index="Haberman").mean().rename("Overall ex. Haberman")
    return pd.concat([paper, overall.to_frame().T, ex.to_frame().T])


def side_by_side(results: pd.DataFrame) -> pd.DataFrame:
    """Table 3, the paper's numbers beside ours, with the CV/nonconformity speed-ups.

    Errors are formatted ``mean +- sd``; times are seconds per outer fold.
    """
    ours = table3(results)
    paper = _paper_overall().reindex(ours.index)
    keys = {"Nonconformity": "nc", "Cross-Validation": "cv", "SVM-L_inf": "linf"}
    out = pd.DataFrame(index=ours.index)
    for method, key in keys.items():
        out[f"{key} paper"] = [_pm(e, s) for e, s in zip(paper[f"{key}_error"], paper[f"{key}_sd"])]
        out[f"{key} book"] = [_pm(e, s) for e, s in zip(ours[f"{method}|error"], ours[f"{method}|sd"])]
    for method, key in keys.items():
        out[f"{key} s paper"] = paper[f"{key}_time"].round(2).to_numpy()
        out[f"{key} s book"] = ours[f"{method}|seconds"].round(2).to_numpy()
    out["speed-up paper"] = (paper["cv_time"] / paper["nc_time"]).round(1).to_numpy()
    out["speed-up book"] = (ours["Cross-Validation|seconds"] / ours["Nonconformity|seconds"]).round(1)
    return out


def _pm(mean: float, sd: float) -> str:
    """``"0.1234 +- 0.0567"`` (sd omitted when it is not defined)."""
    return f"{mean:.4f}" if np.isnan(sd) else f"{mean:.4f} +- {sd:.4f}"


# --------------------------------------------------------------------------- Figure 2


def bound_curve(name: str = "bupa", fold: int = 0, seed: int = 0, scale: str = "book",
                delta: float = 0.05) -> pd.DataFrame:
    """Figure 2: error rate of the test points whose bound is at most each bound value.

    One outer fold of ``name`` (the split of :func:`outer_folds`), the nonconformity selector
    on the grid of ``scale``; for every distinct value ``b`` of Proposition 4.2's bound over
    the test points, the error rate of the test points with bound ``<= b``.

    Returns
    -------
    pandas.DataFrame
        Columns ``bound``, ``error`` (cumulative error rate), ``count`` (test points with bound
        ``<= b``); the last row's ``error`` is the fold's test error.
    """
    X, y, _ = datasets.load(name)
    train, test = outer_folds(name, check_seed(seed))[fold]
    X_train, X_test = minmax_scale(X[train], X[test])
    model = NonconformityModelSelector(*grid(scale), seed=seed).fit(X_train, y[train])
    bounds = model.bound(X_test, delta)
    wrong = model.predict(X_test) != y[test]
    values = np.unique(bounds)
    count = np.array([np.sum(bounds <= b) for b in values])
    errors = np.array([np.sum(wrong[bounds <= b]) for b in values])
    return pd.DataFrame({"bound": values, "error": errors / count, "count": count})


# --------------------------------------------------------------------------- validity


def validity_check(name: str = "pima", gamma: float = 2.0**-3, C: float = 2.0, n_validation: int = 50,
                   n_draws: int = 20000, significances=(0.03, 0.05, 0.1, 0.2),
                   seed: int = 0) -> pd.DataFrame:
    """Empirical error of the region predictor Gamma^eps of one fixed model (Proposition 3.2).

    One SVM ``(gamma, C)`` is trained on a random half of the (scaled) data. From the other
    half, ``n_draws`` times, ``n_validation + 1`` examples are drawn at random without
    replacement: the first ``n_validation`` are the validation set, the last the test example.
    Given the trained model these are exchangeable. The region errs when the test example's
    true label is outside it. Two conventions are counted: the paper's p-value (no ``+1``)
    with Definition 3.1's ``p >= eps``, and the conformal p-value (``+1``) with ``p > eps``.

    Returns
    -------
    pandas.DataFrame
        One row per significance: ``significance``, ``error_paper``, ``error_conformal`` (the
        empirical rates), ``exact_paper`` and ``exact_conformal`` (the rates under exact
        exchangeability without ties, ``ceil(n eps) / (n + 1)`` and
        ``floor(eps (n + 1)) / (n + 1)``), ``n_draws``.
    """
    X, y, _ = datasets.load(name)
    rng = np.random.default_rng(check_seed(seed))
    order = rng.permutation(len(y))
    half = len(y) // 2
    train, pool = order[:half], order[half:]
    X_train, X_pool = minmax_scale(X[train], X[pool])
    model = fit_svm(rbf_kernel(X_train, gamma=gamma), y[train], C, solver="libsvm",
                    check_kernel=False)
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
        rows.append({
            "significance": eps,
            "error_paper": float(np.mean(p_paper < eps)),
            "error_conformal": float(np.mean(p_conf <= eps)),
            "exact_paper": float(np.ceil(n * eps - 1e-12) / (n + 1)),
            "exact_conformal": float(np.floor(eps * (n + 1) + 1e-12) / (n + 1)),
            "n_draws": n_draws,
        })
    return pd.DataFrame(rows)


def time_ratio(name: str = "pima", fold: int = 0, seed: int = 0, gammas=GAMMAS, Cs=CS) -> dict:
    """Wall-clock time of CV and of the nonconformity selector on one outer fold, same grid.

    Returns
    -------
    dict
        ``nc_seconds``, ``cv_seconds``, ``ratio``, ``nc_error``, ``cv_error``.
    """
    rows = evaluate_fold(name, fold, *outer_folds(name, seed)[fold], gammas, Cs, seed)
    by = {row["method"]: row for row in rows}
    nc, cv = by["Nonconformity"], by["Cross-Validation"]
    return {"nc_seconds": nc["seconds"], "cv_seconds": cv["seconds"],
            "ratio": cv["seconds"] / nc["seconds"], "nc_error": nc["error"], "cv_error": cv["error"]}
