"""Bad input to svmtrust.experiments.selection_compared: data set names, splits, scales,
seeds, generators, results tables that are not the protocol's, and the Friedman/Nemenyi
arguments (``k``, ``n``, ``alpha``, error matrices, ranks, critical differences)."""

import numpy as np
import pandas as pd
from svmtrust.experiments import selection_compared as sc

M = "svmtrust.experiments.selection_compared."
RNG = np.random.default_rng(0)

#: A results table of :func:`run` in miniature: one grid row and one choice row per criterion
#: and the oracle (values made up).
_GRID = {
    "table": "grid",
    "data": "pima",
    "split": 0,
    "n_train": 80,
    "gamma": 0.5,
    "C": 1.0,
    "test_error": 0.2,
    "test_soft_loss": 0.5,
    "md_sd": 0.0,
    **{c: 0.3 for c in sc.CURVES},
    "radius_margin": 0.3,
    "l2_test_error": 0.2,
    **{f"l2_{c}": 0.3 for c in sc.L2_CRITERIA},
}
_CHOICE = {
    "table": "choice",
    "data": "pima",
    "split": 0,
    "error": 0.2,
    "regret": 0.0,
    "tau": 0.5,
    "hit": 1.0,
    "trainings": 9,
    "other_solves": 0,
    "seconds": 1.0,
    "relative_time": 9.0,
}
RESULTS = pd.DataFrame(
    [_GRID]
    + [
        {**_CHOICE, "protocol": p, "criterion": c}
        for p in sc.PROTOCOLS
        for c in (*sc.PROTOCOL_CRITERIA[p], "oracle")
    ]
)
#: Tables that are not a results table of :func:`run`: not a table, empty, of another chapter,
#: without choice rows, missing a criterion, naming an unknown criterion or data set.
_BAD_RESULTS = {
    "results None": None,
    "results a dict": {"table": ["choice"]},
    "results empty": RESULTS.iloc[:0],
    "results of another chapter": pd.DataFrame({"data": ["pima"], "method": ["x"]}),
    "results without choice rows": RESULTS.iloc[:1],
    "results missing a criterion": RESULTS[RESULTS["criterion"] != "loo"],
    "results with an unknown criterion": RESULTS.replace({"span": "magic"}),
    "results with an unknown data set": RESULTS.replace({"pima": "iris"}),
}
_TABLES = {
    name: getattr(sc, name)
    for name in (
        "regret_table",
        "error_table",
        "tracking_table",
        "cost_table",
        "error_matrix",
        "protocol_table",
        "summary",
    )
}
_ERRORS = pd.DataFrame(np.arange(12.0).reshape(4, 3) % 5, columns=["a", "b", "c"])
_RANKS = pd.Series([1.0, 2.0, 3.0], index=["a", "b", "c"])


def _nan_errors():
    errors = _ERRORS.copy()
    errors.iloc[1, 1] = np.nan
    return errors


CASES = [
    (M + "load", "name unknown", lambda: sc.load("iris"), "name"),
    (M + "load", "name a list", lambda: sc.load(["pima"]), "name"),
    (M + "load", "name None", lambda: sc.load(None), "name"),
    (M + "grid", "scale unknown", lambda: sc.grid("huge", 4), "scale"),
    (M + "grid", "n_features zero", lambda: sc.grid("book", 0), "n_features"),
    (M + "grid", "n_features a float", lambda: sc.grid("book", 2.5), "n_features"),
    (M + "draw_split", "name unknown", lambda: sc.draw_split("iris", 80, 2, RNG), "name"),
    (M + "draw_split", "n_train a float", lambda: sc.draw_split("pima", 80.0, 2, RNG), "n_train"),
    (M + "draw_split", "n_train odd", lambda: sc.draw_split("pima", 81, 2, RNG), "n_train"),
    (
        M + "draw_split",
        "n_train whole data",
        lambda: sc.draw_split("pima", 10**6, 2, RNG),
        "n_train",
    ),
    (M + "draw_split", "shuffles zero", lambda: sc.draw_split("pima", 80, 0, RNG), "shuffles"),
    (M + "draw_split", "rng a seed", lambda: sc.draw_split("pima", 80, 2, 0), "rng"),
    (M + "draw_split", "rng None", lambda: sc.draw_split("pima", 80, 2, None), "rng"),
    (M + "split_data", "name unknown", lambda: sc.split_data("iris", 0), "name"),
    (M + "split_data", "split out of range", lambda: sc.split_data("pima", 20), "split"),
    (M + "split_data", "split negative", lambda: sc.split_data("pima", -1), "split"),
    (M + "split_data", "split a float", lambda: sc.split_data("pima", 1.0), "split"),
    (M + "split_data", "seed negative", lambda: sc.split_data("pima", 0, seed=-1), "seed"),
    (M + "split_data", "seed a string", lambda: sc.split_data("pima", 0, seed="0"), "seed"),
    (M + "split_data", "scale unknown", lambda: sc.split_data("pima", 0, scale="huge"), "scale"),
    (M + "run", "scale unknown", lambda: sc.run(scale="huge"), "scale"),
    (M + "run", "seed negative", lambda: sc.run(seed=-1), "seed"),
    (M + "run", "seed a float", lambda: sc.run(seed=0.5), "seed"),
    (M + "run", "n_jobs zero", lambda: sc.run(n_jobs=0), "n_jobs"),
    (M + "run", "progress a string", lambda: sc.run(progress="no"), "progress"),
    (M + "nemenyi_q", "k one", lambda: sc.nemenyi_q(1), "k"),
    (M + "nemenyi_q", "k a float", lambda: sc.nemenyi_q(3.0), "k"),
    (M + "nemenyi_q", "alpha zero", lambda: sc.nemenyi_q(3, 0.0), "alpha"),
    (M + "nemenyi_q", "alpha above 1", lambda: sc.nemenyi_q(3, 1.5), "alpha"),
    (M + "nemenyi_q", "alpha a string", lambda: sc.nemenyi_q(3, "0.05"), "alpha"),
    (M + "critical_difference", "n zero", lambda: sc.critical_difference(3, 0), "n"),
    (M + "critical_difference", "n a float", lambda: sc.critical_difference(3, 10.0), "n"),
    (M + "critical_difference", "k one", lambda: sc.critical_difference(1, 10), "k"),
    (
        M + "critical_difference",
        "alpha NaN",
        lambda: sc.critical_difference(3, 10, np.nan),
        "alpha",
    ),
    (M + "friedman", "errors an array", lambda: sc.friedman(_ERRORS.to_numpy()), "errors"),
    (M + "friedman", "errors empty", lambda: sc.friedman(_ERRORS.iloc[:0]), "errors"),
    (M + "friedman", "errors with NaN", lambda: sc.friedman(_nan_errors()), "errors"),
    (M + "friedman", "two criteria", lambda: sc.friedman(_ERRORS[["a", "b"]]), "errors"),
    (M + "friedman", "one block", lambda: sc.friedman(_ERRORS.iloc[:1]), "errors"),
    (M + "friedman", "errors strings", lambda: sc.friedman(_ERRORS.astype(str) + "x"), "errors"),
    (M + "friedman", "alpha one", lambda: sc.friedman(_ERRORS, 1.0), "alpha"),
    (M + "cd_groups", "ranks a list", lambda: sc.cd_groups([1.0, 2.0], 1.0), "ranks"),
    (
        M + "cd_groups",
        "ranks with NaN",
        lambda: sc.cd_groups(_RANKS.replace({2.0: np.nan}), 1.0),
        "ranks",
    ),
    (M + "cd_groups", "cd negative", lambda: sc.cd_groups(_RANKS, -1.0), "cd"),
    (M + "cd_groups", "cd NaN", lambda: sc.cd_groups(_RANKS, np.nan), "cd"),
    (M + "cd_groups", "cd a string", lambda: sc.cd_groups(_RANKS, "1"), "cd"),
    (M + "curves_by_grid", "name unknown", lambda: sc.curves_by_grid(RESULTS, "iris"), "name"),
    (M + "curves_by_grid", "results None", lambda: sc.curves_by_grid(None, "pima"), "results"),
    (
        M + "curves_by_grid",
        "results of another chapter",
        lambda: sc.curves_by_grid(_BAD_RESULTS["results of another chapter"], "pima"),
        "results",
    ),
    (
        M + "curves_by_grid",
        "results without grid rows",
        lambda: sc.curves_by_grid(RESULTS.iloc[1:], "pima"),
        "results",
    ),
    (M + "ladder", "n_train zero", lambda: sc.ladder(0, 1.0), "n_train"),
    (M + "ladder", "C_max infinite", lambda: sc.ladder(80, np.inf), "C_max"),
    (M + "ladder", "C_max negative", lambda: sc.ladder(80, -1.0), "C_max"),
    (M + "md_classes", "scale unknown", lambda: sc.md_classes("huge", 4), "scale"),
    (M + "md_classes", "n_features zero", lambda: sc.md_classes("book", 0), "n_features"),
    (
        M + "regret_table",
        "protocol unknown",
        lambda: sc.regret_table(RESULTS, "hard"),
        "protocol",
    ),
    (
        M + "tracking_table",
        "protocol a number",
        lambda: sc.tracking_table(RESULTS, 1),
        "protocol",
    ),
    (
        M + "error_matrix",
        "blocks unknown",
        lambda: sc.error_matrix(RESULTS, "grid", "fold"),
        "blocks",
    ),
    (
        M + "error_matrix",
        "results without the protocol",
        lambda: sc.error_matrix(RESULTS[RESULTS["protocol"] != "l2"], "l2"),
        "results",
    ),
    (M + "md_guarantee", "protocol l2", lambda: sc.md_guarantee(RESULTS, "l2"), "protocol"),
    (M + "monotone_steps", "results None", lambda: sc.monotone_steps(None), "results"),
    (
        M + "monotone_steps",
        "results without grid rows",
        lambda: sc.monotone_steps(RESULTS.iloc[1:]),
        "results",
    ),
    (M + "below_loo", "results None", lambda: sc.below_loo(None), "results"),
    (
        M + "below_loo",
        "results of another chapter",
        lambda: sc.below_loo(_BAD_RESULTS["results of another chapter"]),
        "results",
    ),
    (M + "md_guarantee", "results None", lambda: sc.md_guarantee(None), "results"),
    (M + "md_guarantee", "results empty", lambda: sc.md_guarantee(RESULTS.iloc[:0]), "results"),
    (
        M + "md_guarantee",
        "results of another chapter",
        lambda: sc.md_guarantee(_BAD_RESULTS["results of another chapter"]),
        "results",
    ),
    (
        M + "md_guarantee",
        "results without grid rows",
        lambda: sc.md_guarantee(RESULTS.iloc[1:]),
        "results",
    ),
    (
        M + "md_guarantee",
        "results with an unknown data set",
        lambda: sc.md_guarantee(_BAD_RESULTS["results with an unknown data set"]),
        "results",
    ),
] + [
    (M + name, description, lambda f=func, r=bad: f(r), "results")
    for name, func in _TABLES.items()
    for description, bad in _BAD_RESULTS.items()
]
CASES += [
    (M + "edge_choices", "results not a table", lambda: sc.edge_choices("results"), "results"),
    (M + "edge_choices", "protocol unknown", lambda: sc.edge_choices(RESULTS, "hard"), "protocol"),
    (
        M + "edge_choices",
        "results without choice rows",
        lambda: sc.edge_choices(RESULTS.iloc[:1]),
        "results",
    ),
]
CASES += [
    (M + "l2_wide_run", "scale unknown", lambda: sc.l2_wide_run("huge"), "scale"),
    (M + "l2_wide_run", "seed negative", lambda: sc.l2_wide_run(seed=-1), "seed"),
    (M + "l2_wide_run", "n_jobs zero", lambda: sc.l2_wide_run(n_jobs=0), "n_jobs"),
    (M + "plateau_choices", "results not a table", lambda: sc.plateau_choices("x"), "results"),
    (
        M + "subgrid_regret",
        "grid holding no point of the results",
        lambda: sc.subgrid_regret(RESULTS, {"log2_gamma_d": (40,), "log2_C": (40,)}),
        "grid",
    ),
    (
        M + "protocol_table",
        "protocols naming an unknown protocol",
        lambda: sc.protocol_table(RESULTS, ("grid", "l3")),
        "protocols",
    ),
    (
        M + "plateau_choices",
        "results of the main run (no wider-grid rows)",
        lambda: sc.plateau_choices(RESULTS),
        "results",
    ),
    (
        M + "main",
        "output in a missing folder, checked before the run",
        lambda: sc.main(["--output", "/no/such/folder/x.csv"]),
        "output",
    ),
]
