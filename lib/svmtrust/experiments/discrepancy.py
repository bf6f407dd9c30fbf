"""Protocol of the maximal-discrepancy chapter: Table 1 of Anguita, Ghio & Ridella (2010).

MNIST zeros against ones (the 1000 of :func:`svmtrust.datasets.load_mnist_01`). For each
training size ``l`` a task draws ``l`` examples at random, tests on the other ``1000 - l``, and
computes, for the bounded-w SVM (9) with radius ``w_max``, the bound of eq. (5) without its
delta term in two versions: "BL" (peeled estimates, Theorems 2-3) and "UL" (the soft loss of the
plain solution), and the test soft loss ``pi_hat``.

The paper does not say how ``w_max`` was chosen. Here it is chosen for each ``l`` by
minimising the mean BL bound over :data:`GRID`, on *selection* training sets drawn separately
from the replicates of the table (stage ``"select"``); the table (stage ``"table"``) then uses
that ``w_max``. As an extension each table replicate also chooses ``w_max`` by 10-fold
cross-validation of the soft loss over the same grid, and records the test soft loss of both
choices.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from scipy import stats

from .. import datasets
from ..discrepancy import (
    delta_term,
    discrepancy_runs,
    envelope_lower_bound,
    flipped_labels,
    peel,
    represent,
    soft_loss,
    solve_reduced,
    summarise_runs,
)
from ..validation import (
    check_array,
    check_binary_labels,
    check_bool,
    check_integer,
    check_rng,
    check_significance,
    check_table,
)
from . import check_n_jobs, check_scale, check_seed, parallel_map

__all__ = [
    "GRID",
    "SETTINGS",
    "PAPER_TABLE1",
    "bound_row",
    "cv_choice",
    "select_w_max",
    "select_tasks",
    "table_tasks",
    "run",
    "table1",
    "cv_comparison",
    "table1_text",
    "FINE_GRID",
    "FINE_SETTINGS",
    "md_floor",
    "certified_tasks",
    "fine_tasks",
    "certify",
    "certified_table",
    "fine_minimum",
    "summary",
    "main",
]

#: Radii searched for ``w_max`` (pixels in [0, 1]; an MNIST image has norm about 9).
GRID = (0.1, 0.2, 0.3, 0.45, 0.7, 1.0)

#: Per scale: training sizes, selection sets per ``l`` and their shuffles, table replicates
#: per ``l`` and their shuffles (the paper: 30 replicates, m = 30), and CV folds.
SETTINGS = {
    "book": {
        "sizes": (20, 50, 100),
        "n_select": 2,
        "m_select": 10,
        "n_rep": 6,
        "m": 10,
        "folds": 10,
    },
    "paper": {
        "sizes": (20, 50, 100, 200, 300),
        "n_select": 3,
        "m_select": 10,
        "n_rep": 30,
        "m": 30,
        "folds": 10,
    },
}

#: Table 1 of the paper (percentages, mean +- 95% half-width over 30 replicates).
PAPER_TABLE1 = pd.DataFrame(
    {
        "BL": [32.5, 22.2, 17.5, 14.5, 12.9],
        "BL_ci": [1.2, 0.5, 0.5, 0.3, 0.3],
        "UL": [34.1, 22.2, 17.3, 12.9, 10.5],
        "UL_ci": [1.4, 0.5, 0.6, 0.4, 0.3],
        "pi_hat": [13.0, 8.2, 6.1, 4.4, 4.0],
        "pi_hat_ci": [0.8, 0.5, 0.5, 0.5, 0.4],
    },
    index=pd.Index([20, 50, 100, 200, 300], name="l"),
)


def _split(l: int, rng: np.random.Generator):
    """A random training set of ``l`` MNIST 0/1 examples (both classes present) and the rest."""
    X, y, _ = datasets.load("mnist_01")
    y = y.astype(float)
    while True:
        order = rng.permutation(len(y))
        if np.unique(y[order[:l]]).size == 2:
            return X[order[:l]], y[order[:l]], X[order[l:]], y[order[l:]]


def _test_loss(result, X_test, y_test) -> float:
    """Test soft loss ``pi_hat`` of a result's linear classifier."""
    return float(np.mean(soft_loss(y_test * (X_test @ result.w + result.b))))


def bound_row(X, y, X_test, y_test, w_max, m, rng) -> dict:
    """BL and UL bounds, peeling counts and test soft losses at one ``w_max``."""
    m, rng = check_integer(m, "m"), check_rng(rng)
    X_test = check_array(X_test, "X_test", ndim=2)
    y_test = check_binary_labels(y_test, "y_test", n=X_test.shape[0])
    rep = represent(X)
    train, shuffles = discrepancy_runs(rep, y, w_max, m, rng)
    bl = summarise_runs(rep, train, shuffles, True, w_max)
    ul = summarise_runs(rep, train, shuffles, False, w_max)
    return {
        "w_max": w_max,
        "BL": bl.bound,
        "UL": ul.bound,
        "BL_train": bl.train_error,
        "UL_train": ul.train_error,
        "BL_md": float(np.mean(bl.md)),
        "UL_md": float(np.mean(ul.md)),
        "BL_md_min": float(np.min(bl.md)),
        "UL_md_negative": float(np.mean(ul.md < 0)),
        "n_peeled": bl.n_peeled,
        "n_peeled_shuffles": float(np.mean(bl.n_peeled_shuffles)),
        "pi_hat": _test_loss(bl, X_test, y_test),
        "pi_hat_plain": _test_loss(ul, X_test, y_test),
    }


def _plain_fit(rep, y, w_max):
    """Weights and bias of the bounded-w SVM (9) in reduced coordinates, without peeling."""
    z, b, _ = solve_reduced(rep, y, w_max)
    return rep.to_w @ z, b


def cv_choice(X, y, folds: int, rng) -> float:
    """The ``w_max`` of :data:`GRID` with the smallest ``folds``-fold CV soft loss."""
    X = check_array(X, "X", ndim=2)
    y = check_binary_labels(y, "y", n=X.shape[0])
    folds, rng = check_integer(folds, "folds", 2, len(y)), check_rng(rng)
    fold = rng.permutation(len(y)) % folds
    losses = np.zeros(len(GRID))
    for k in range(folds):
        train, held = fold != k, fold == k
        if np.unique(y[train]).size < 2:
            continue
        rep = represent(X[train])
        for g, w_max in enumerate(GRID):
            w, b = _plain_fit(rep, y[train], w_max)
            losses[g] += np.sum(soft_loss(y[held] * (X[held] @ w + b)))
    return GRID[int(np.argmin(losses))]


def _select_task(task, rng) -> list:
    """Stage "select": every radius of the grid on one selection training set."""
    l, index, m = task
    X, y, X_test, y_test = _split(l, rng)
    return [
        {
            "stage": "select",
            "l": l,
            "replicate": index,
            **bound_row(X, y, X_test, y_test, w_max, m, rng),
        }
        for w_max in GRID
    ]


def _table_task(task, rng) -> list:
    """Stage "table": one replicate at the selected radius, plus the CV choice."""
    l, index, m, w_max, folds = task
    X, y, X_test, y_test = _split(l, rng)
    row = bound_row(X, y, X_test, y_test, w_max, m, rng)
    w_cv = cv_choice(X, y, folds, rng)
    w, b = _plain_fit(represent(X), y, w_cv)
    return [
        {
            "stage": "table",
            "l": l,
            "replicate": index,
            **row,
            "w_max_cv": w_cv,
            "pi_hat_cv": float(np.mean(soft_loss(y_test * (X_test @ w + b)))),
        }
    ]


def select_w_max(select: pd.DataFrame) -> pd.Series:
    """For each ``l`` the radius with the smallest mean BL bound over the selection sets."""
    select = check_table(select, "select", ("l", "w_max", "BL"))
    means = select.groupby(["l", "w_max"])["BL"].mean().unstack()
    return means.idxmin(axis=1)


def select_tasks(scale: str = "book") -> list[tuple]:
    """The tasks of :func:`run`'s stage "select" (generators from ``seed``): ``(l, replicate,
    m_select)`` for every size ``l`` and selection set, in that order (:data:`SETTINGS`)."""
    cfg = SETTINGS[check_scale(scale)]
    return [(l, i, cfg["m_select"]) for l in cfg["sizes"] for i in range(cfg["n_select"])]


def table_tasks(scale: str, chosen) -> list[tuple]:
    """The tasks of :func:`run`'s stage "table" (generators from ``seed + 1``).

    Parameters
    ----------
    scale : {"book", "paper"}
    chosen : mapping or pandas.Series
        The radius selected for each size ``l`` (:func:`select_w_max` of the stage "select").

    Returns
    -------
    list of tuple
        ``(l, replicate, m, w_max, folds)``, the largest ``l`` first.
    """
    cfg = SETTINGS[check_scale(scale)]
    return [
        (l, i, cfg["m"], float(chosen[l]), cfg["folds"])
        for l in sorted(cfg["sizes"], reverse=True)
        for i in range(cfg["n_rep"])
    ]


def run(scale: str = "book", seed: int = 0, n_jobs: int = 1, progress: bool = True) -> pd.DataFrame:
    """Table 1 of Anguita et al. (2010) on MNIST 0 against 1.

    Parameters
    ----------
    scale : {"book", "paper"}
        See :data:`SETTINGS`.
    seed : int
        Seed; selection task ``i`` and table task ``i`` draw from
        :func:`~svmtrust.experiments.task_rng` with seeds ``seed`` and ``seed + 1``.
    n_jobs : int
        Worker processes.
    progress : bool
        Show progress bars.

    Returns
    -------
    pandas.DataFrame
        One row per (stage, l, replicate, w_max) with the columns of :func:`bound_row`
        (fractions, not percentages); table rows add ``w_max_cv`` and ``pi_hat_cv``.
    """
    scale = check_scale(scale)
    seed, n_jobs = check_seed(seed), check_n_jobs(n_jobs)
    select = pd.DataFrame(
        [
            r
            for rows in parallel_map(
                _select_task,
                select_tasks(scale),
                seed=seed,
                n_jobs=n_jobs,
                desc="select w_max",
                progress=progress,
            )
            for r in rows
        ]
    )
    table = pd.DataFrame(
        [
            r
            for rows in parallel_map(
                _table_task,
                table_tasks(scale, select_w_max(select)),
                seed=seed + 1,
                n_jobs=n_jobs,
                desc="Table 1",
                progress=progress,
            )
            for r in rows
        ]
    )
    return pd.concat([select, table], ignore_index=True)


def _mean_ci(values) -> tuple[float, float]:
    """Mean and half-width of the Student-t 95% confidence interval, in percent."""
    values = 100.0 * np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean()), float(half)


def table1(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1, this book beside the paper: BL, UL, pi_hat (% with 95% CI) per ``l``.

    Also the selected ``w_max``, the fraction of UL shuffles with a negative MD, the smallest
    BL MD, the mean number of points peeled, and the test soft loss with CV's ``w_max``.
    """
    results = check_table(results, "results", ("stage", "l"))
    rows = []
    for l, group in results[results["stage"] == "table"].groupby("l"):
        row = {"l": l, "w_max": group["w_max"].iloc[0]}
        for col in ("BL", "UL", "pi_hat", "pi_hat_cv"):
            row[col], row[f"{col}_ci"] = _mean_ci(group[col])
        row["UL_md_negative_%"] = 100.0 * group["UL_md_negative"].mean()
        row["BL_md_min"] = group["BL_md_min"].min()
        row["peeled_train"] = group["n_peeled"].mean()
        row["peeled_shuffle"] = group["n_peeled_shuffles"].mean()
        rows.append(row)
    ours = pd.DataFrame(rows).set_index("l")
    paper = PAPER_TABLE1.add_prefix("paper_")
    return ours.join(paper, how="left")


def cv_comparison(results: pd.DataFrame) -> pd.DataFrame:
    """The extension: ``w_max`` chosen by the bound against ``w_max`` chosen by CV, per ``l``.

    Columns: the bound's radius, the median CV radius over the replicates, and the mean test
    soft loss (percent) of the plain solution at each radius (``pi_bound``, ``pi_cv``).
    """
    results = check_table(results, "results", ("stage", "l"))
    table = results[results["stage"] == "table"]
    out = table.groupby("l").agg(
        w_max_bound=("w_max", "first"),
        w_max_cv_median=("w_max_cv", "median"),
        pi_bound=("pi_hat_plain", "mean"),
        pi_cv=("pi_hat_cv", "mean"),
    )
    out[["pi_bound", "pi_cv"]] *= 100
    return out


def table1_text(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1 for reading: ``mean ± half-width`` strings, the paper's columns beside ours.

    Columns: the radius, BL, UL and ``pi_hat`` (paper, then book), the percentage of UL shuffles
    with a negative MD and the smallest peeled MD (see :func:`table1`).
    """
    t1 = table1(results)
    out = pd.DataFrame({"w_max": t1["w_max"]})
    for col, name in (("BL", "BL"), ("UL", "UL"), ("pi_hat", "pi")):
        for who, prefix in (("paper", "paper_"), ("book", "")):
            out[f"{name} {who}"] = [
                "" if np.isnan(m) else f"{m:.1f} ± {h:.1f}"
                for m, h in zip(t1[prefix + col], t1[prefix + col + "_ci"])
            ]
    out["UL neg. %"] = t1["UL_md_negative_%"].round(1)
    out["BL min MD"] = t1["BL_md_min"].round(3)
    return out


# ---------------------------------------------------------------------------------------------
# The certified bound and the fine radius grid: a second, cheaper run on top of the first.
# ---------------------------------------------------------------------------------------------

#: The fine grid of radii of stage ``"fine"`` (0.1 to 0.5 by 0.025).
FINE_GRID = tuple(float(v) for v in np.round(np.arange(0.1, 0.5001, 0.025), 3))

#: Per scale: training sets per ``l`` in stage ``"fine"`` and their shuffles.
FINE_SETTINGS = {
    "book": {"n_sets": {20: 2, 50: 2, 100: 1}, "m": 10},
    "paper": {"n_sets": {20: 8, 50: 6, 100: 4, 200: 2, 300: 2}, "m": 10},
}


def md_floor(y_flipped) -> float:
    """``|n'_+ - n'_-| / l``: the MD that the constant rules alone reach on a flipped set.

    A constant rule ``f = +-1`` (``w = 0``, in every bounded-w class) has soft loss
    ``min(n'_+, n'_-) / l`` on ``D'``, so ``MD = 1 - 2 min nu' >= |n'_+ - n'_-| / l``.
    """
    y_flipped = check_array(y_flipped, "y_flipped", ndim=1)
    if not np.all(np.isin(y_flipped, (-1.0, 1.0))):
        raise ValueError("y_flipped: labels must be -1 or +1")
    return float(abs(np.sum(y_flipped))) / len(y_flipped)


def _certify_task(task, rng) -> list:
    """One table replicate of :func:`run`, rebuilt from its generator, with the certified bound.

    The generator is the one the replicate had in :func:`run`, and it is drawn in the same
    order (the split, then the ``m`` flipped label sets), so the training set, the test set
    and the shuffles are those of the recorded replicate. The replicate's ``pi_hat`` is
    recomputed as a check.
    """
    l, index, m, w_max = task
    X, y, X_test, y_test = _split(l, rng)
    rep = represent(X)
    train = peel(rep, y, w_max)
    flipped = [flipped_labels(y, rng) for _ in range(m)]
    lower = np.array([envelope_lower_bound(rep, yf, w_max) for yf in flipped])
    w, b = rep.to_w @ train.z_last, train.b_last
    nu_rule = float(np.mean(soft_loss(y * (X @ w + b))))
    cert_md = 1.0 - 2.0 * lower
    return [
        {
            "stage": "certified",
            "l": l,
            "replicate": index,
            "w_max": w_max,
            "nu_rule": nu_rule,
            "cert_md": float(np.mean(cert_md)),
            "cert_md_min": float(np.min(cert_md)),
            "cert_bound": nu_rule + float(np.mean(cert_md)),
            "md_floor": float(np.mean([md_floor(yf) for yf in flipped])),
            "pi_hat": float(np.mean(soft_loss(y_test * (X_test @ w + b)))),
        }
    ]


def _fine_task(task, rng) -> list:
    """Stage "fine": every radius of :data:`FINE_GRID` on one training set."""
    l, index, m = task
    X, y, X_test, y_test = _split(l, rng)
    return [
        {
            "stage": "fine",
            "l": l,
            "replicate": index,
            **bound_row(X, y, X_test, y_test, w_max, m, rng),
        }
        for w_max in FINE_GRID
    ]


def certified_tasks(results: pd.DataFrame, scale: str = "book") -> list[tuple]:
    """The tasks of :func:`certify`'s stage "certified" (generators from ``seed + 1``): one per
    ``"table"`` row of ``results`` (a table of :func:`run`), in their order, ``(l, replicate,
    m, w_max)``, so task ``i`` has the generator of table task ``i`` of the run."""
    results = check_table(results, "results", ("stage", "l", "replicate", "w_max"))
    table = results[results["stage"] == "table"]
    m = SETTINGS[check_scale(scale)]["m"]
    return [(int(r.l), int(r.replicate), m, float(r.w_max)) for r in table.itertuples()]


def fine_tasks(scale: str = "book") -> list[tuple]:
    """The tasks of :func:`certify`'s stage "fine" (generators from ``seed + 2``): ``(l,
    replicate, m)`` for the sets of :data:`FINE_SETTINGS`, the largest ``l`` first."""
    cfg = FINE_SETTINGS[check_scale(scale)]
    return [
        (l, i, cfg["m"])
        for l in sorted(cfg["n_sets"], reverse=True)
        for i in range(cfg["n_sets"][l])
    ]


def certify(
    results: pd.DataFrame,
    scale: str = "book",
    seed: int = 0,
    n_jobs: int = 1,
    progress: bool = True,
    stages=("certified", "fine"),
) -> pd.DataFrame:
    """The certified bound for every table replicate of a run, and BL over a fine radius grid.

    Stage ``"certified"`` rebuilds each table replicate of ``results`` (the output of
    :func:`run` with the same ``seed``) and bounds each flipped shuffle's minimum soft loss
    from below with :func:`~svmtrust.discrepancy.envelope_lower_bound`, which holds for every
    data set, so that ``1 - 2 x`` bounds its MD from above. ``cert_bound`` is the exact
    training soft loss ``nu_rule`` of the rule BL is about (the last peeled rule) plus the
    mean certified MD: eq. (5) without the delta term, with nothing left unproved. It also
    records the mean MD floor :func:`md_floor` of the shuffles. Stage ``"fine"`` computes the
    rows of :func:`bound_row` at every radius of :data:`FINE_GRID` on fresh training sets
    (:data:`FINE_SETTINGS`, generators from ``seed + 2``).

    Parameters
    ----------
    results : pandas.DataFrame
        The output of :func:`run` (its ``"table"`` rows, in their order, are the tasks).
    scale : {"book", "paper"}
        Scale of the fine stage; it should be the scale of ``results``.
    seed : int
        The seed ``results`` was run with.
    n_jobs : int
        Worker processes.
    progress : bool
        Show progress bars.
    stages : tuple of str
        The stages to run, among ``"certified"`` and ``"fine"``.

    Returns
    -------
    pandas.DataFrame
        The rows of the stages run.
    """
    scale = check_scale(scale)
    seed, n_jobs = check_seed(seed), check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    if isinstance(stages, str) or not set(stages) <= {"certified", "fine"}:
        raise ValueError(f"stages: expected a tuple of 'certified' and 'fine', got {stages!r}")
    results = check_table(results, "results", ("stage", "l", "replicate", "w_max"))
    certified = (
        []
        if "certified" not in stages
        else [
            r
            for rows in parallel_map(
                _certify_task,
                certified_tasks(results, scale),
                seed=seed + 1,
                n_jobs=n_jobs,
                desc="certified",
                progress=progress,
            )
            for r in rows
        ]
    )
    fine = (
        []
        if "fine" not in stages
        else [
            r
            for rows in parallel_map(
                _fine_task,
                fine_tasks(scale),
                seed=seed + 2,
                n_jobs=n_jobs,
                desc="fine grid",
                progress=progress,
            )
            for r in rows
        ]
    )
    return pd.DataFrame(certified + fine)


def certified_table(
    results: pd.DataFrame, certified: pd.DataFrame, delta: float = 0.05
) -> pd.DataFrame:
    """Per ``l``: BL, the certified bound, the test soft loss and the delta term, in percent.

    Columns: ``BL``, ``cert`` (means over the replicates), ``pi_hat``, ``BL/pi`` (the ratio of
    the means), ``delta_term`` (:func:`~svmtrust.discrepancy.delta_term`), ``BL+delta`` and
    ``cert+delta`` (the full bound of eq. (5)), ``md_floor`` (the mean MD floor) and
    ``pi_check``, the largest difference between the recomputed and the recorded ``pi_hat``
    (solver noise, below 1e-7, when the replicates were rebuilt exactly; another training set moves it by about 1e-2).
    """
    delta = check_significance(delta, "delta")
    results = check_table(results, "results", ("stage",))
    certified = check_table(certified, "certified", ("stage",))
    table = results[results["stage"] == "table"].reset_index(drop=True)
    cert = certified[certified["stage"] == "certified"].reset_index(drop=True)
    rows = []
    for l, group in table.groupby("l"):
        c = cert.loc[group.index]
        term = 100.0 * delta_term(int(l), delta)
        row = {
            "l": int(l),
            "BL": 100 * group["BL"].mean(),
            "cert": 100 * c["cert_bound"].mean(),
            "pi_hat": 100 * group["pi_hat"].mean(),
        }
        row["BL/pi"] = row["BL"] / row["pi_hat"]
        row["delta_term"] = term
        row["BL+delta"] = row["BL"] + term
        row["cert+delta"] = row["cert"] + term
        row["md_floor"] = 100 * c["md_floor"].mean()
        row["pi_check"] = float(np.max(np.abs(c["pi_hat"].to_numpy() - group["pi_hat"].to_numpy())))
        rows.append(row)
    return pd.DataFrame(rows).set_index("l")


def fine_minimum(certified: pd.DataFrame) -> pd.DataFrame:
    """Per ``l``, over :data:`FINE_GRID`: the radius with the smallest mean BL and that BL,
    beside the paper's BL; and the radius whose mean test soft loss is closest to the paper's
    ``pi_hat``, with its BL (percent)."""
    certified = check_table(certified, "certified", ("stage", "l", "w_max"))
    fine = certified[certified["stage"] == "fine"]
    means = fine.groupby(["l", "w_max"])[["BL", "pi_hat"]].mean() * 100
    rows = []
    for l, group in means.groupby(level="l"):
        group = group.droplevel("l")
        best = group["BL"].idxmin()
        row = {
            "l": int(l),
            "sets": int(fine[fine["l"] == l]["replicate"].nunique()),
            "w_min": best,
            "BL_min": group.loc[best, "BL"],
        }
        if l in PAPER_TABLE1.index:
            row["paper_BL"] = PAPER_TABLE1.loc[l, "BL"]
            match = (group["pi_hat"] - PAPER_TABLE1.loc[l, "pi_hat"]).abs().idxmin()
            row["w_pi_match"] = match
            row["pi_at_match"] = group.loc[match, "pi_hat"]
            row["paper_pi"] = PAPER_TABLE1.loc[l, "pi_hat"]
            row["BL_at_match"] = group.loc[match, "BL"]
        rows.append(row)
    return pd.DataFrame(rows).set_index("l")


def summary(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's Table 1, paper beside this book."""
    return {"Table 1 (%, paper | this book)": table1_text(results)}


def main(argv=None) -> int:
    """``python -m svmtrust.experiments.discrepancy INPUT.csv --scale paper --seed 0 --n-jobs 2
    --output OUT.csv``: the certified stage and the fine grid (:func:`certify`) of a run."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m svmtrust.experiments.discrepancy",
        description=certify.__doc__.splitlines()[0],
    )
    parser.add_argument(
        "input", help="CSV written by `python -m svmtrust.experiments discrepancy --output`"
    )
    parser.add_argument("--scale", default="book")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--output", required=True)
    args = parser.parse_args(argv)
    from .__main__ import check_output, write_table  # the command line's; it imports this package

    output = check_output(args.output)  # before the certified run, not after it
    if not os.path.isfile(args.input):
        raise ValueError(f"input: no such file {args.input!r}")
    out = certify(pd.read_csv(args.input), scale=args.scale, seed=args.seed, n_jobs=args.n_jobs)
    write_table(out, output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
