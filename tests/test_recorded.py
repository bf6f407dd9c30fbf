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


def test_tcm_nn_run_is_paper_scale():
    from svmtrust.experiments import tcm_nn

    rows = _load("tcm_nn")
    main = rows[rows["main"].astype(bool)]
    extra = rows[~rows["main"].astype(bool)]
    assert set(main["split_seed"]) == {0}
    assert set(extra["data"]) == {"usps_like"}
    assert set(extra["split_seed"]) == {s for s in tcm_nn.SPREAD_SEEDS["paper"]}
    for data in tcm_nn.DIGITS:
        ks = set(main.loc[(main["data"] == data) & (main["method"] == "TCM-NN"), "k"])
        assert ks == set(tcm_nn.FIGURE1_K["paper"])
    spread = tcm_nn.seed_spread("usps_like", seeds=(0, 1, 2), ks=tcm_nn.FIGURE1_K["paper"],
                                results=rows)
    assert set(spread["seed"]) == {0, 1, 2}
    assert len(spread) == 3 * (2 * len(tcm_nn.FIGURE1_K["paper"]) + 1)
