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


def test_span_run_is_paper_scale():
    from svmtrust.experiments import span

    rows = _load("span")
    grid = span.GRIDS["paper"]
    digits, breast = rows[rows["data"] == "digits"], rows[rows["data"] == "breast"]
    assert sorted(digits["trial"].unique()) == list(range(grid["digits_trials"]))
    assert sorted(breast["trial"].unique()) == list(range(grid["breast_trials"]))
    assert (digits.groupby("trial").size() == len(grid["sigmas"])).all()
    assert (breast.groupby("trial").size() == len(grid["Cs"])).all()
    assert digits["value"].min() < 2.0**1.5 < digits["value"].max()   # both sides of the minimum
    assert digits["span_bound"].notna().all()
    for column in (*span.CRITERIA, "agreement_sv", "agreement_errors", "ties", "w2"):
        assert column in rows.columns
    assert list(span.selection_table(rows).index.get_level_values(0).unique()) == ["digits", "breast"]
