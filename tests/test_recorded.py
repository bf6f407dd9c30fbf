"""The paper-scale runs stored in book/recorded/ (quoted by the chapters) are complete runs of
the current protocols: every task at paper scale, nothing missing, and the columns the chapter
tables read."""

from pathlib import Path

import pandas as pd
import pytest
from svmtrust.experiments import (
    confidence_compared,
    discrepancy,
    nonconformity_selection,
    selection_compared,
    span,
    task_rng,
    tcm_nn,
    transduction,
)

RECORDED = Path(__file__).resolve().parents[1] / "book" / "recorded"


def _load(name: str) -> pd.DataFrame:
    path = RECORDED / f"{name}-paper.csv"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make reproduce CHAPTER={name}` and copy it there")
    return pd.read_csv(path)


def test_discrepancy_run_is_paper_scale():
    rows = _load("discrepancy")
    cfg = discrepancy.SETTINGS["paper"]
    table = rows[rows["stage"] == "table"]
    select = rows[rows["stage"] == "select"]
    assert sorted(table["l"].unique()) == list(cfg["sizes"])
    assert (table.groupby("l").size() == cfg["n_rep"]).all()
    assert (select.groupby("l").size() == cfg["n_select"] * len(discrepancy.GRID)).all()
    assert list(discrepancy.table1(rows).index) == list(cfg["sizes"])


def test_nonconformity_run_is_paper_scale():
    rows = _load("nonconformity_selection")
    assert set(rows["data"]) == set(
        nonconformity_selection.DATASETS + nonconformity_selection.VARIANTS
    )
    assert set(rows["method"]) == set(nonconformity_selection.METHODS)
    counts = rows.groupby(["data", "method"]).size()
    assert (counts == nonconformity_selection.N_FOLDS).all()
    assert (
        rows["n_models"] == len(nonconformity_selection.GAMMAS) * len(nonconformity_selection.CS)
    ).all()
    # the columns of the current protocol: deterministic work, eps_crit = 0 share, second criterion
    assert (rows["iterations"] > 0).all() and (rows["work"] > 0).all()
    nc = rows[rows["method"] == "Nonconformity"]
    assert nc["eps_zero"].between(0, 1).all() and nc["error_credibility"].between(0, 1).all()
    assert "Overall" in nonconformity_selection.side_by_side(rows).index
    assert len(nonconformity_selection.preprocessing_table(rows)) == 3


def test_discrepancy_certified_run_matches_recorded_replicates():
    """The certified stage rebuilt every recorded Table 1 replicate (same test soft loss) and
    the fine grid covers every paper size with the configured number of sets."""
    rows = _load("discrepancy")
    cert = _load("discrepancy_certified")
    table = rows[rows["stage"] == "table"]
    certified = cert[cert["stage"] == "certified"]
    assert len(certified) == len(table)
    summary = discrepancy.certified_table(rows, cert)
    assert (summary["pi_check"] < 1e-6).all()  # solver noise; another draw differs by ~1e-2
    assert (summary["cert"] >= summary["BL"]).all()
    fine = cert[cert["stage"] == "fine"]
    sets = fine.groupby("l")["replicate"].nunique().to_dict()
    assert sets == discrepancy.FINE_SETTINGS["paper"]["n_sets"]
    assert sorted(fine["w_max"].unique()) == list(discrepancy.FINE_GRID)


def test_tcm_nn_run_is_paper_scale():
    rows = _load("tcm_nn")
    main = rows[rows["main"].astype(bool)]
    extra = rows[~rows["main"].astype(bool)]
    assert set(main["split_seed"]) == {0}
    assert set(extra["data"]) == {"usps_like"}
    assert set(extra["split_seed"]) == {s for s in tcm_nn.SPREAD_SEEDS["paper"]}
    for data in tcm_nn.DIGITS:
        ks = set(main.loc[(main["data"] == data) & (main["method"] == "TCM-NN"), "k"])
        assert ks == set(tcm_nn.FIGURE1_K["paper"])
    spread = tcm_nn.seed_spread(
        "usps_like", seeds=(0, 1, 2), ks=tcm_nn.FIGURE1_K["paper"], results=rows
    )
    assert set(spread["seed"]) == {0, 1, 2}
    assert len(spread) == 3 * (2 * len(tcm_nn.FIGURE1_K["paper"]) + 1)


def test_span_run_is_paper_scale():
    rows = _load("span")
    grid = span.GRIDS["paper"]
    digits, breast = rows[rows["data"] == "digits"], rows[rows["data"] == "breast"]
    assert sorted(digits["trial"].unique()) == list(range(grid["digits_trials"]))
    assert sorted(breast["trial"].unique()) == list(range(grid["breast_trials"]))
    assert (digits.groupby("trial").size() == len(grid["sigmas"])).all()
    assert (breast.groupby("trial").size() == len(grid["Cs"])).all()
    assert digits["value"].min() < 2.0**1.5 < digits["value"].max()  # both sides of the minimum
    assert digits["span_bound"].notna().all()
    for column in (*span.CRITERIA, "agreement_sv", "agreement_errors", "ties", "w2"):
        assert column in rows.columns
    assert list(span.selection_table(rows).index.get_level_values(0).unique()) == [
        "digits",
        "breast",
    ]


def test_transduction_run_is_paper_scale():
    rows = _load("transduction")
    t2 = rows[rows["stage"] == "table2"]
    assert set(t2["data"]) == set(transduction.DATASETS)
    for (data, method), group in t2.groupby(["data", "method"]):
        assert method in transduction.METHODS + transduction.BASELINES
        assert sorted(group["n"].astype(int)) == list(transduction.SIZES)
        assert (group["runs"] == transduction.RUNS["paper"]).all(), (data, method)
        assert (group["errors"] <= group["runs"]).all()
    assert len(t2) == len(transduction.DATASETS) * len(transduction.SIZES) * (
        len(transduction.METHODS) + len(transduction.BASELINES)
    )
    # the summary is re-derivable: intervals contain the rates
    table = transduction.add_intervals(t2[["errors", "runs", "paper_errors"]])
    assert ((table["low"] <= table["rate"]) & (table["rate"] <= table["high"])).all()
    t1 = rows[rows["stage"] == "table1"]
    splits = t1.groupby("split").size()
    assert len(splits) == transduction.TABLE1_SEEDS["paper"]
    assert (splits == transduction.TABLE1_TESTS["paper"]).all()
    summary = transduction.credibility_summary(t1.assign(correct=t1["correct"].astype(bool)))
    assert summary["count"].sum() == len(t1)


def test_confidence_compared_run_is_paper_scale_and_recomputes():
    """Every trial and cost size of the paper scale, every machine; two trials (the first of
    Breast cancer and of Segment) recomputed from their task seeds give the recorded p-values,
    with and without smoothing."""
    rows = _load("confidence_compared")
    cfg = confidence_compared.SETTINGS["paper"]
    trials = rows[rows["stage"] == "trial"]
    assert trials.groupby("data")["trial"].nunique().to_dict() == cfg["trials"]
    counts = trials.groupby(["data", "machine"]).size()
    assert len(counts) == len(cfg["trials"]) * len(confidence_compared.MACHINES)
    assert all(counts[(name, machine)] == cfg["trials"][name] for name, machine in counts.index)
    cost = rows[rows["stage"] == "cost"]
    assert sorted(cost["n_train"].unique()) == list(cfg["cost_sizes"])
    p_columns = [f"{k}{c}" for k in "ps" for c in range(confidence_compared.MAX_CLASSES)]
    names = [name for name in confidence_compared.DATASETS if name in cfg["trials"]]
    for name in ("breast", "segment"):
        index = sum(cfg["trials"][other] for other in names[: names.index(name)])
        task = ("trial", name, 0, cfg["n_train"], 1, 1)
        again = pd.DataFrame(confidence_compared._task(task, task_rng(0, index)))
        stored = trials[(trials["data"] == name) & (trials["trial"] == 0)]
        pd.testing.assert_frame_equal(
            again[["machine", "true", *p_columns]].reset_index(drop=True),
            stored[["machine", "true", *p_columns]].reset_index(drop=True),
            check_dtype=False,
            check_exact=True,
        )
    tables = confidence_compared.summary(rows)
    assert len(tables) == 5


def test_selection_compared_run_is_paper_scale_and_recomputes():
    """Every split, protocol and criterion is there, and one recorded grid point is recomputed
    exactly from its split (rebuilt from the run's seed) with the library's functions."""
    rows = _load("selection_compared")
    cfg = selection_compared.SETTINGS["paper"]
    choice = rows[rows["table"] == "choice"]
    grid_rows = rows[rows["table"] == "grid"]
    assert (choice.groupby("data")["split"].nunique() == cfg["splits"]).all()
    assert set(choice["data"]) == set(cfg["datasets"]) and len(cfg["datasets"]) >= 10
    per_split = sum(len(c) + 1 for c in selection_compared.PROTOCOL_CRITERIA.values())
    assert (choice.groupby(["data", "split"]).size() == per_split).all()
    n_grid = len(cfg["log2_gamma_d"]) * len(cfg["log2_C"])
    assert (grid_rows.groupby(["data", "split"]).size() == n_grid).all()
    data = selection_compared.split_data("ionosphere", 1, seed=0, scale="paper")
    recorded = grid_rows[(grid_rows["data"] == "ionosphere") & (grid_rows["split"] == 1)]
    gammas, Cs = selection_compared.grid("paper", data["X_train"].shape[1])
    point = recorded.iloc[len(Cs) + 1]
    again = selection_compared._evaluate_grid(data, gammas[1:2], Cs[1:2]).iloc[0]
    assert point["gamma"] == pytest.approx(gammas[1]) and point["C"] == Cs[1]  # CSV round trip
    for column in ("test_error", "span", "loo", "l2_test_error", "l2_span"):
        assert again[column] == pytest.approx(point[column], abs=1e-12)  # counts / n
    for column in ("radius_margin", "rescaled", "md", "l2_radius_margin", "l2_rescaled"):
        assert again[column] == pytest.approx(point[column], rel=1e-6)
