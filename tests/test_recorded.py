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
    assert set(rows["data"]) == set(nonconformity_selection.DATASETS + nonconformity_selection.VARIANTS)
    assert set(rows["method"]) == set(nonconformity_selection.METHODS)
    counts = rows.groupby(["data", "method"]).size()
    assert (counts == nonconformity_selection.N_FOLDS).all()
    assert (rows["n_models"] == len(nonconformity_selection.GAMMAS) * len(nonconformity_selection.CS)).all()
    # the columns of the current protocol: deterministic work, eps_crit = 0 share, second criterion
    assert (rows["iterations"] > 0).all() and (rows["work"] > 0).all()
    nc = rows[rows["method"] == "Nonconformity"]
    assert nc["eps_zero"].between(0, 1).all() and nc["error_credibility"].between(0, 1).all()
    assert "Overall" in nonconformity_selection.side_by_side(rows).index
    assert len(nonconformity_selection.preprocessing_table(rows)) == 3
