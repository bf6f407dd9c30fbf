"""Protocol of the chapter "Model selection compared": every criterion of the book on one grid.

Eight ways of choosing the RBF width and the box constraint of a C-SVM are run on the same
random train/test splits of five data sets (:data:`DATASETS`) and the same grid of
``(gamma, C)`` (:func:`grid`): the span rule (closed form), the radius-margin functional
``R^2 ||w||^2 / l`` and its rescaled version (Chapelle & Vapnik 1999), exact leave-one-out
(:mod:`svmtrust.span`), the certified maximal-discrepancy bound (Anguita et al. 2010,
:mod:`svmtrust.discrepancy`), nonconformity selection and the test-margin rule SVM-L_inf
(Hardoon et al. 2009) and 10-fold cross-validation (:mod:`svmtrust.nonconformity_selection`).
The oracle, the grid point with the lowest test error, is the floor.

*The MD bound on the C-SVM grid.* The C-SVM at ``(gamma, C)`` with weight norm ``||w_C||``
solves the bounded-w problem (9) of Anguita et al. with ``w_max = ||w_C||``: a rule with
``||w|| <= ||w_C||`` and a smaller hinge sum would have a smaller C-SVM objective. So grid
point ``(gamma, C)`` is given the bound of the class ``{||w|| <= ||w_C||}`` in the RBF feature
space of ``gamma``: the training soft loss of the C-SVM rule itself (a member of the class)
plus the mean over the shuffles of the certified discrepancy ``1 - 2 x``, with ``x`` the
lower bound :func:`svmtrust.discrepancy.envelope_lower_bound` of each flipped set's minimum
soft loss. Every grid point of a split uses the same flipped label sets.

*Choices.* A criterion with a value at every grid point chooses its minimum, the first in
gamma-major order (smallest gamma, then smallest C) on a tie. Nonconformity selection and
SVM-L_inf choose a model per test point, so they have no curve and no single choice; their
test error is that of their own predictions. Cross-validation's curve is its error count;
its choice is scored, like every grid criterion's, by the test error of the accurately
trained grid model at that point.

*Costs.* Each choice row counts the SVM trainings the criterion needs (one per grid point for
the criteria read off a trained SVM, plus one retraining per support vector for leave-one-out,
``10 x`` the grid plus one for cross-validation) and its other convex solves (the radius QP
per gamma, the MD bound's envelope problems), and its wall-clock time, also relative to the
mean time of one training of the grid. BLAS is limited to one thread inside each task.
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits

from .. import datasets
from ..discrepancy import delta_term, envelope_lower_bound, flipped_labels, represent, soft_loss
from ..kernels import rbf_kernel
from ..nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from ..span import leave_one_out, radius_squared, rescaled_radius_margin_bound, span_rule_loo
from ..svm import fit_svm
from ..validation import (
    check_array,
    check_choice,
    check_integer,
    check_positive,
    check_rng,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map, task_rng
from .nonconformity_selection import minmax_scale

#: The data sets (``"postal"`` is :func:`svmtrust.datasets.load_usps_like`, digits 0-4 = +1).
DATASETS = ("breast", "postal", "pima", "ionosphere", "bupa")

#: How the chapter names them.
DATA_NAMES = {
    "breast": "Breast cancer",
    "postal": "Postal 0-4 vs 5-9",
    "pima": "Pima",
    "ionosphere": "Ionosphere",
    "bupa": "Bupa",
}

#: Criteria with a value at every grid point (their curve), as columns of the grid rows.
CURVES = ("span", "radius_margin", "rescaled", "md", "cv10", "loo")

#: Every criterion compared, in the chapter's order; the oracle is the floor, not a criterion.
CRITERIA = ("span", "radius_margin", "rescaled", "md", "nonconformity", "svm_linf", "cv10", "loo")

#: How the chapter names them.
CRITERION_NAMES = {
    "span": "span rule",
    "radius_margin": "radius-margin",
    "rescaled": "rescaled R-M",
    "md": "MD bound",
    "nonconformity": "nonconformity",
    "svm_linf": "SVM-L_inf",
    "cv10": "10-fold CV",
    "loo": "exact LOO",
    "oracle": "oracle",
}

#: Folds of the cross-validation criterion.
CV_FOLDS = 10

#: Confidence parameter of the MD bound's delta term (eq. (5) of Anguita et al. 2010).
DELTA = 0.05

#: Per scale: training-set size (even, as the MD bound needs), splits per data set, the grid
#: (``gamma = 2^k / d`` for ``k`` in ``log2_gamma_d`` with ``d`` features scaled to [0, 1];
#: ``C = 2^c`` for ``c`` in ``log2_C``) and the MD shuffles.
SETTINGS = {
    "book": {
        "n_train": 80,
        "splits": 2,
        "log2_gamma_d": (-1, 1, 3),
        "log2_C": (-1, 2, 5),
        "shuffles": 2,
    },
    "paper": {
        "n_train": 200,
        "splits": 20,
        "log2_gamma_d": (-1, 1, 3, 5),
        "log2_C": (-1, 2, 5, 8),
        "shuffles": 3,
    },
}

#: Columns that hold wall-clock times (they differ between runs; everything else is exact).
TIME_COLUMNS = (
    "seconds",
    "relative_time",
    "time_train",
    "time_span",
    "time_loo",
    "time_radius",
    "time_rescaled",
    "time_md",
)


# --------------------------------------------------------------------------- data and splits


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels in {-1, +1} of one of :data:`DATASETS`."""
    if check_choice(name, "name", DATASETS) == "postal":
        X, digits, _ = datasets.load("usps_like")
        return X, np.where(digits <= 4, 1.0, -1.0)
    X, y, _ = datasets.load(name)
    return X, y.astype(np.float64)


def grid(scale: str, n_features: int) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of a scale for data with ``n_features`` features."""
    return _grid(SETTINGS[check_scale(scale)], check_integer(n_features, "n_features"))


def _grid(cfg: dict, n_features: int) -> tuple[tuple, tuple]:
    """``(gammas, Cs)`` of the settings ``cfg`` (an entry of :data:`SETTINGS`)."""
    return (
        tuple(2.0**k / n_features for k in cfg["log2_gamma_d"]),
        tuple(2.0**c for c in cfg["log2_C"]),
    )


def _task_index(name: str, split: int, scale: str) -> int:
    """Position of split ``split`` of data set ``name`` in the task list of :func:`run`."""
    splits = SETTINGS[check_scale(scale)]["splits"]
    position = DATASETS.index(check_choice(name, "name", DATASETS))
    return position * splits + check_integer(split, "split", 0, splits - 1)


def draw_split(name: str, n_train: int, shuffles: int, rng: np.random.Generator) -> dict:
    """One random split, scaled, and the flipped label sets of the MD bound, drawn from ``rng``.

    The draws come in a fixed order (the permutation of the data, the ``shuffles`` flipped
    label sets, the selectors' seed), so a split is rebuilt from its generator alone.

    Returns
    -------
    dict
        ``X_train``, ``y_train``, ``X_test``, ``y_test`` (features min-max scaled on the
        training part), ``flips`` (list of label arrays) and ``seed`` (of the selectors).
    """
    X, y = load(name)
    n_train = check_integer(n_train, "n_train", 2, len(y) - 1)
    if n_train % 2:
        raise ValueError(
            f"n_train: must be even (the MD bound flips half the labels), got {n_train}"
        )
    shuffles, rng = check_integer(shuffles, "shuffles"), check_rng(rng)
    order = rng.permutation(len(y))
    train, test = order[:n_train], order[n_train:]
    if min(np.sum(y[train] > 0), np.sum(y[train] < 0)) < CV_FOLDS:
        raise ValueError(f"n_train: each class needs {CV_FOLDS} training examples")
    X_train, X_test = minmax_scale(X[train], X[test])
    flips = [flipped_labels(y[train], rng) for _ in range(shuffles)]
    return {
        "X_train": X_train,
        "y_train": y[train],
        "X_test": X_test,
        "y_test": y[test],
        "flips": flips,
        "seed": int(rng.integers(2**31 - 1)),
    }


def split_data(name: str, split: int, seed: int = 0, scale: str = "paper") -> dict:
    """The split ``split`` of ``name`` in a :func:`run` with ``seed`` and ``scale``."""
    cfg = SETTINGS[check_scale(scale)]
    rng = task_rng(check_seed(seed), _task_index(name, split, scale))
    return draw_split(name, cfg["n_train"], cfg["shuffles"], rng)


# --------------------------------------------------------------------------- one split


def _timed(func, *args):
    """Run ``func(*args)``; return its result and its wall-clock time in seconds."""
    start = time.perf_counter()
    result = func(*args)
    return result, time.perf_counter() - start


def _fit_predict(selector, X, y, X_test) -> np.ndarray:
    """``selector.fit(X, y).predict(X_test)``."""
    return selector.fit(X, y).predict(X_test)


def _md_bound(rep, y, flips, sol, K) -> tuple[float, float]:
    """The certified MD bound (without delta term) of the class ``||w|| <= ||w_C||``.

    ``nu(f_C) + mean_j (1 - 2 x_j)``: the training soft loss (eq. (2) of Anguita et al. 2010)
    of the C-SVM rule ``sol`` and the certified discrepancies of the flipped sets, ``x_j`` from
    :func:`svmtrust.discrepancy.envelope_lower_bound` with ``w_max = ||w_C||``.

    Returns
    -------
    bound : float
    sd : float
        Standard deviation of ``1 - 2 x_j`` over the shuffles.
    """
    w_max = float(np.sqrt(max(sol.w_norm_squared, np.finfo(float).tiny)))
    md = np.array([1.0 - 2.0 * envelope_lower_bound(rep, flip, w_max) for flip in flips])
    nu = float(np.mean(soft_loss(y * sol.decision_function(K))))
    return nu + float(md.mean()), float(md.std(ddof=1)) if len(md) > 1 else 0.0


def _grid_point(K, y, K_test, y_test, C, R2, rep, flips) -> dict:
    """Every curve criterion but cross-validation at one grid point, each step timed."""
    sol, t_train = _timed(lambda: fit_svm(K, y, C, solver="libsvm", check_kernel=False))
    span, t_span = _timed(lambda: span_rule_loo(K, sol))
    loo, t_loo = _timed(lambda: leave_one_out(K, y, C, solver="libsvm", sol=sol))
    rescaled, t_rescaled = _timed(lambda: rescaled_radius_margin_bound(K, sol))
    (md, md_sd), t_md = _timed(lambda: _md_bound(rep, y, flips, sol, K))
    values = sol.decision_function(K_test)
    return {
        "C": C,
        "test_error": float(np.mean(np.where(values > 0, 1, -1) != y_test)),
        "test_soft_loss": float(np.mean(soft_loss(y_test * values))),
        "span": span,
        "loo": float(np.mean(loo.errors)),
        "radius_margin": R2 * sol.w_norm_squared / len(y),
        "rescaled": rescaled,
        "md": md,
        "md_sd": md_sd,
        "n_sv": int(sol.support.size),
        "loo_retrained": loo.retrained,
        "time_train": t_train,
        "time_span": t_span,
        "time_loo": t_loo,
        "time_rescaled": t_rescaled,
        "time_md": t_md,
    }


def _evaluate_grid(data: dict, gammas, Cs) -> pd.DataFrame:
    """The curve criteria (all but cross-validation) at every grid point of one split.

    Each gamma's Gram matrix, radius ``R^2`` (:func:`svmtrust.span.radius_squared`, one QP)
    and reduced coordinates for the MD bound (:func:`svmtrust.discrepancy.represent`) are
    computed once and shared by every C; their times are split evenly over the C's.

    Returns
    -------
    pandas.DataFrame
        One row per ``(gamma, C)`` in gamma-major order: ``gamma``, ``C``, ``test_error``,
        ``test_soft_loss``, the criteria ``span``, ``loo``, ``radius_margin``, ``rescaled``,
        ``md`` (and ``md_sd``), ``n_sv``, ``loo_retrained`` and the times ``time_*``.
    """
    X, y, X_test, y_test = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rows = []
    for gamma in gammas:
        kernel = partial(rbf_kernel, gamma=gamma)
        K, K_test = kernel(X, X), kernel(X_test, X)
        R2, t_radius = _timed(radius_squared, K)
        rep, t_rep = _timed(represent, X, kernel)
        for C in Cs:
            row = _grid_point(K, y, K_test, y_test, C, R2, rep, data["flips"])
            row["time_radius"] = t_radius / len(Cs)
            row["time_md"] += t_rep / len(Cs)
            rows.append({"gamma": gamma, **row})
    return pd.DataFrame(rows)


def _evaluate_selectors(data: dict, gammas, Cs) -> dict:
    """Cross-validation, nonconformity selection and SVM-L_inf on one split, timed.

    All three learn from the whole training set (nonconformity selection splits it into its
    own training and validation parts) with the selectors' seed of the split.

    Returns
    -------
    dict
        ``cv_errors`` (array, gamma-major, the CV error counts), ``cv_choice`` (grid index),
        ``cv_seconds``; ``nonconformity_error``, ``nonconformity_seconds``, ``svm_linf_error``,
        ``svm_linf_seconds``.
    """
    X, y, X_test, y_test, seed = (
        data[k] for k in ("X_train", "y_train", "X_test", "y_test", "seed")
    )
    cv, t_cv = _timed(
        lambda: CrossValidationSelector(gammas, Cs, folds=CV_FOLDS, seed=seed).fit(X, y)
    )
    choice = gammas.index(cv.best_gamma_) * len(Cs) + Cs.index(cv.best_C_)
    out = {"cv_errors": cv.cv_errors_.ravel() / len(y), "cv_choice": choice, "cv_seconds": t_cv}
    for name, selector in (
        ("nonconformity", NonconformityModelSelector(gammas, Cs, seed=seed)),
        ("svm_linf", TestMarginSelector(gammas, Cs, seed=seed)),
    ):
        pred, seconds = _timed(_fit_predict, selector, X, y, X_test)
        out[f"{name}_error"], out[f"{name}_seconds"] = float(np.mean(pred != y_test)), seconds
    return out


def _first_minimum(values) -> int:
    """Index of the smallest value, the first one on a tie (gamma-major grid order)."""
    return int(np.argmin(np.asarray(values, dtype=np.float64)))


def _kendall_tau(values, errors) -> float:
    """Kendall's tau-b between a criterion's curve and the test-error curve (NaN if constant)."""
    values, errors = np.asarray(values, float), np.asarray(errors, float)
    if np.ptp(values) == 0 or np.ptp(errors) == 0:
        return float("nan")
    return float(stats.kendalltau(values, errors).statistic)


def _costs(curve: pd.DataFrame, sel: dict, n_gammas: int, shuffles: int) -> dict:
    """``(trainings, other solves, seconds)`` of every criterion on one split."""
    G, train = len(curve), curve["time_train"].sum()
    return {
        "span": (G, 0, train + curve["time_span"].sum()),
        "radius_margin": (G, n_gammas, train + curve["time_radius"].sum()),
        "rescaled": (G, 0, train + curve["time_rescaled"].sum()),
        "md": (G, G * shuffles, train + curve["time_md"].sum()),
        "loo": (G + int(curve["loo_retrained"].sum()), 0, train + curve["time_loo"].sum()),
        "cv10": (CV_FOLDS * G + 1, 0, sel["cv_seconds"]),
        "nonconformity": (G, 0, sel["nonconformity_seconds"]),
        "svm_linf": (G, 0, sel["svm_linf_seconds"]),
        "oracle": (G, 0, train),
    }


def _choices(curve: pd.DataFrame, sel: dict, n_gammas: int, shuffles: int) -> list[dict]:
    """One row per criterion and the oracle: what it chose, its test error, regret, cost.

    Columns: ``criterion``, ``gamma`` and ``C`` of the choice (NaN for the per-point rules),
    ``error`` (test error), ``oracle_error``, ``regret`` (``error - oracle_error``), ``tau``
    (:func:`_kendall_tau`, NaN without a curve), ``hit`` (1 when the choice has the oracle's
    test error, NaN without a curve), ``trainings``, ``other_solves``, ``seconds`` and
    ``relative_time`` (seconds over the mean time of one training of the grid).
    """
    errors = curve["test_error"].to_numpy()
    oracle = float(errors.min())
    one_training = curve["time_train"].mean()
    picks = {name: _first_minimum(curve[name]) for name in CURVES if name != "cv10"}
    picks |= {"cv10": sel["cv_choice"], "oracle": _first_minimum(errors)}
    curves = {name: curve[name].to_numpy() for name in CURVES if name != "cv10"}
    curves["cv10"] = sel["cv_errors"]
    rows = []
    for name, (trainings, other, seconds) in _costs(curve, sel, n_gammas, shuffles).items():
        row = {"criterion": name, "gamma": np.nan, "C": np.nan, "tau": np.nan, "hit": np.nan}
        if name in picks:
            k = picks[name]
            row.update(
                gamma=curve["gamma"].iloc[k],
                C=curve["C"].iloc[k],
                error=errors[k],
                hit=float(errors[k] == oracle),
            )
            if name in curves:
                row["tau"] = _kendall_tau(curves[name], errors)
        else:
            row["error"] = sel[f"{name}_error"]
        rows.append(
            {
                **row,
                "oracle_error": oracle,
                "regret": row["error"] - oracle,
                "trainings": trainings,
                "other_solves": other,
                "seconds": seconds,
                "relative_time": seconds / one_training,
            }
        )
    return rows


def _evaluate_split(data: dict, gammas, Cs) -> tuple[pd.DataFrame, list[dict]]:
    """The grid rows and the choice rows of one split (BLAS limited to one thread)."""
    with threadpool_limits(1):
        curve = _evaluate_grid(data, gammas, Cs)
        sel = _evaluate_selectors(data, gammas, Cs)
    curve["cv10"] = sel["cv_errors"]
    return curve, _choices(curve, sel, len(gammas), len(data["flips"]))


def _task(task, rng) -> list[dict]:
    """One split of one data set: its grid rows then its choice rows."""
    name, split, cfg = task
    data = draw_split(name, cfg["n_train"], cfg["shuffles"], rng)
    curve, picks = _evaluate_split(data, *_grid(cfg, data["X_train"].shape[1]))
    base = {
        "data": name,
        "split": split,
        "n_train": len(data["y_train"]),
        "n_test": len(data["y_test"]),
    }
    return [{"table": "grid", **base, **row} for row in curve.to_dict("records")] + [
        {"table": "choice", **base, **row} for row in picks
    ]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Every criterion on every split of every data set of :data:`DATASETS`.

    Parameters
    ----------
    scale : {"book", "paper"}
        See :data:`SETTINGS`.
    seed : int
        Split ``i`` of data set ``j`` draws from :func:`~svmtrust.experiments.task_rng` with
        index ``j * splits + i`` (:func:`split_data` rebuilds one split).
    n_jobs : int
        Worker processes (one split each). Everything but the times is the same for every
        ``n_jobs``.
    progress : bool

    Returns
    -------
    pandas.DataFrame
        Rows with ``table == "grid"`` (one per split and grid point, the columns of
        :func:`_evaluate_grid` and ``cv10``) and ``table == "choice"`` (one per split and
        criterion, the columns of :func:`_choices`), both with ``data``, ``split``,
        ``n_train``, ``n_test``.
    """
    scale, seed, n_jobs = check_scale(scale), check_seed(seed), check_n_jobs(n_jobs)
    cfg = SETTINGS[scale]
    tasks = [(name, split, cfg) for name in DATASETS for split in range(cfg["splits"])]
    results = parallel_map(_task, tasks, seed=seed, n_jobs=n_jobs, desc="splits", progress=progress)
    return pd.DataFrame([row for rows in results for row in rows])


# --------------------------------------------------------------------------- tables


def _rows(results: pd.DataFrame, table: str, columns: tuple) -> pd.DataFrame:
    """The rows of ``results`` (a table of :func:`run`) with ``table == table``.

    Raises
    ------
    ValueError
        Naming ``results``, if it is not a non-empty table with ``table``, ``data`` and
        ``columns``, has no such rows, or names a data set not in :data:`DATASETS`.
    """
    results = check_table(results, "results", ("table", "data", *columns))
    rows = results[results["table"] == table]
    if rows.empty:
        raise ValueError(f"results: has no {table!r} rows (expected a table of run)")
    unknown = set(rows["data"]) - set(DATASETS)
    if unknown:
        raise ValueError(f"results: unknown data sets {sorted(unknown)}")
    return rows


def _choice_rows(results: pd.DataFrame, columns: tuple = ()) -> pd.DataFrame:
    """The choice rows of ``results``: every criterion and the oracle, no other name."""
    rows = _rows(results, "choice", ("criterion", "split", *columns))
    named = set(rows["criterion"])
    if named - set(CRITERION_NAMES):
        raise ValueError(f"results: unknown criteria {sorted(named - set(CRITERION_NAMES))}")
    if set(CRITERION_NAMES) - named:
        raise ValueError(f"results: lacks the criteria {sorted(set(CRITERION_NAMES) - named)}")
    return rows


def _by_data(results: pd.DataFrame, column: str, how: str = "mean") -> pd.DataFrame:
    """``column`` aggregated per criterion (rows) and data set (columns), with an overall mean."""
    rows = _choice_rows(results, (column,))
    table = rows.pivot_table(index="criterion", columns="data", values=column, aggfunc=how)
    table = table.reindex(index=[*CRITERIA, "oracle"], columns=list(DATASETS)).dropna(how="all")
    table["all"] = rows.groupby("criterion")[column].agg(how).reindex(table.index)
    table.index = [CRITERION_NAMES[c] for c in table.index]
    table.columns = [DATA_NAMES.get(c, c) for c in table.columns]
    return table


def regret_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean regret (test error minus the oracle's) per criterion and data set."""
    return _by_data(results, "regret").drop(index=CRITERION_NAMES["oracle"])


def error_table(results: pd.DataFrame) -> pd.DataFrame:
    """Test error of each criterion's choice, ``mean +- sd`` over the splits, per data set."""
    mean, sd = _by_data(results, "error"), _by_data(results, "error", "std")
    text = mean.map(lambda m: f"{m:.3f}") + sd.map(lambda s: f" +- {s:.3f}")
    return text.drop(columns="all")


def tracking_table(results: pd.DataFrame) -> pd.DataFrame:
    """How each curve follows the test error: mean Kendall tau per data set and hit rate.

    Columns: the data sets (mean tau over the splits), ``tau`` (over all splits) and ``hit``
    (share of splits whose choice has the oracle's test error).
    """
    tau = _by_data(results, "tau").drop(columns="all")
    rows = _choice_rows(results, ("tau", "hit"))
    overall = rows.groupby("criterion")[["tau", "hit"]].mean()
    overall.index = [CRITERION_NAMES[c] for c in overall.index]
    return tau.join(overall).loc[[CRITERION_NAMES[c] for c in CURVES]]


def cost_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean cost per split of each criterion: trainings, other solves, seconds, relative time."""
    columns = ["trainings", "other_solves", "seconds", "relative_time"]
    table = _choice_rows(results, columns).groupby("criterion")[columns].mean()
    table = table.reindex([*CRITERIA, "oracle"])
    table.index = [CRITERION_NAMES[c] for c in table.index]
    return table


def error_matrix(results: pd.DataFrame) -> pd.DataFrame:
    """Test errors as blocks (data set, split) by criteria: the input of :func:`friedman`."""
    rows = _choice_rows(results, ("error",))
    rows = rows[rows["criterion"].isin(CRITERIA)]
    return rows.pivot_table(index=["data", "split"], columns="criterion", values="error")[
        list(CRITERIA)
    ]


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """``q_alpha`` of the Nemenyi test for ``k`` classifiers (Demsar 2006, Table 5(a)).

    The studentised range quantile with infinite degrees of freedom divided by ``sqrt(2)``.
    """
    k = check_integer(k, "k", 2)
    alpha = check_significance(alpha, "alpha")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def critical_difference(k: int, n: int, alpha: float = 0.05) -> float:
    """Nemenyi's critical difference of average ranks, ``q_alpha sqrt(k (k + 1) / (6 N))``.

    Eq. in Section 3.2.2 of Demsar (2006): two of ``k`` classifiers compared on ``n`` blocks
    differ significantly when their average ranks differ by at least this.
    """
    n = check_integer(n, "n")
    return nemenyi_q(k, alpha) * float(np.sqrt(k * (k + 1) / (6.0 * n)))


def friedman(errors: pd.DataFrame, alpha: float = 0.05) -> dict:
    """Friedman's test over the blocks of ``errors`` and the Nemenyi critical difference.

    Ranks are taken within each block (1 = lowest test error, ties get their mean rank).

    Returns
    -------
    dict
        ``statistic`` and ``p_value`` (:func:`scipy.stats.friedmanchisquare`, with its tie
        correction), ``ranks`` (Series of average ranks by criterion), ``cd``
        (:func:`critical_difference`), ``n_blocks``.
    """
    values = check_array(check_table(errors, "errors"), "errors", 2)
    if values.shape[1] < 3:
        raise ValueError(f"errors: expected 3 criteria (columns) or more, got {values.shape[1]}")
    alpha = check_significance(alpha, "alpha")
    test = stats.friedmanchisquare(*values.T)
    ranks = pd.Series(stats.rankdata(values, axis=1).mean(axis=0), index=errors.columns)
    return {
        "statistic": float(test.statistic),
        "p_value": float(test.pvalue),
        "ranks": ranks,
        "cd": critical_difference(values.shape[1], values.shape[0], alpha),
        "n_blocks": values.shape[0],
    }


def cd_groups(ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """The maximal runs of criteria (sorted by average rank) that span less than ``cd``.

    These are the bars of a critical-difference diagram (Demsar 2006, Fig. 1): criteria joined
    by a bar are not significantly different by the Nemenyi test. Runs contained in another
    are dropped.
    """
    if not isinstance(ranks, pd.Series):
        raise ValueError(f"ranks: expected a pandas.Series, got {type(ranks).__name__}")
    check_array(ranks, "ranks", 1)
    cd = check_positive(cd, "cd")
    order = ranks.sort_values()
    names, values = list(order.index), order.to_numpy()
    groups = []
    for i in range(len(values)):
        j = int(np.searchsorted(values, values[i] + cd, side="left"))
        if j - i > 1 and (not groups or j > groups[-1][1]):
            groups.append((i, j))
    return [tuple(names[i:j]) for i, j in groups]


def curves_by_grid(results: pd.DataFrame, name: str) -> pd.DataFrame:
    """Mean over the splits of ``name`` of the test error and every curve, per grid point.

    The grid is the same on every split (it depends on the number of features only).
    """
    name = check_choice(name, "name", DATASETS)
    rows = _rows(results, "grid", ("gamma", "C", "test_error", *CURVES))
    rows = rows[rows["data"] == name]
    return rows.groupby(["gamma", "C"], sort=True)[["test_error", *CURVES]].mean()


def md_guarantee(results: pd.DataFrame) -> pd.DataFrame:
    """The MD bound at its own choice against the test soft loss of that choice, per data set.

    Columns: ``bound`` (with the delta term of eq. (5), ``delta = DELTA``), ``test_soft_loss``,
    ``test_error``, ``covered`` (share of splits where the bound exceeds the test soft loss).
    """
    grid_rows = _rows(results, "grid", ("split", "md", "n_train", "test_soft_loss", "test_error"))
    out = []
    for (name, _), rows in grid_rows.groupby(["data", "split"], sort=False):
        k = _first_minimum(rows["md"])
        best = rows.iloc[k]
        bound = best["md"] + delta_term(int(best["n_train"]), DELTA)
        out.append(
            {
                "data": name,
                "bound": bound,
                "test_soft_loss": best["test_soft_loss"],
                "test_error": best["test_error"],
                "covered": float(bound >= best["test_soft_loss"]),
            }
        )
    table = pd.DataFrame(out).groupby("data", sort=False).mean()
    table.index = [DATA_NAMES[n] for n in table.index]
    return table


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables: mean regret, test error, tracking and cost."""
    return {
        "Mean regret over the oracle": regret_table(results),
        "Test error of the choice (mean +- sd)": error_table(results),
        "Kendall tau with the test error, hit rate": tracking_table(results),
        "Cost per split": cost_table(results),
    }
