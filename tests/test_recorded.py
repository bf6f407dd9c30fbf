"""The paper-scale runs stored in book/recorded/ (quoted by the chapters) are complete runs of
the current protocols: every task at paper scale, nothing missing, and the columns the chapter
tables read."""

from pathlib import Path

import pandas as pd
import pytest

from svmtrust.experiments import discrepancy, nonconformity_selection

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
    assert set(rows["data"]) == set(nonconformity_selection.DATASETS)
    assert set(rows["method"]) == set(nonconformity_selection.METHODS)
    counts = rows.groupby(["data", "method"]).size()
    assert (counts == nonconformity_selection.N_FOLDS).all()
    assert (rows["n_models"] == len(nonconformity_selection.GAMMAS) * len(nonconformity_selection.CS)).all()
    assert "Overall" in nonconformity_selection.side_by_side(rows).index


def test_transduction_run_is_paper_scale():
    from svmtrust.experiments import transduction

    rows = _load("transduction")
    t2 = rows[rows["stage"] == "table2"]
    expected_runs = {"usps_like": transduction.RUNS["paper"],
                     "optdigits": transduction.BRACKET_RUNS["paper"]}
    assert set(t2["data"]) == set(transduction.DATASETS)
    for (data, method), group in t2.groupby(["data", "method"]):
        assert method in transduction.METHODS + transduction.BASELINES
        assert sorted(group["n"].astype(int)) == list(transduction.SIZES)
        assert (group["runs"] == expected_runs[data]).all(), (data, method)
        assert (group["errors"] <= group["runs"]).all()
    assert len(t2) == len(transduction.DATASETS) * len(transduction.SIZES) * (
        len(transduction.METHODS) + len(transduction.BASELINES))
    # the summary is re-derivable: intervals contain the rates
    table = transduction.add_intervals(t2[["errors", "runs", "paper_errors"]])
    assert ((table["low"] <= table["rate"]) & (table["rate"] <= table["high"])).all()
    t1 = rows[rows["stage"] == "table1"]
    splits = t1.groupby("split").size()
    assert len(splits) == transduction.TABLE1_SEEDS["paper"]
    assert (splits == transduction.TABLE1_TESTS["paper"]).all()
    summary = transduction.credibility_summary(t1.assign(correct=t1["correct"].astype(bool)))
    assert summary["count"].sum() == len(t1)
