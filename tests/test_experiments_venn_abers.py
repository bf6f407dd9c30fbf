"""svmtrust.experiments.venn_abers: a tiny run of every stage (columns, n_jobs, probabilities)
and the tables on a hand-made frame, against numbers computed by hand."""

import numpy as np
import pandas as pd
import pytest
from svmtrust.experiments import CHAPTERS
from svmtrust.experiments import venn_abers as va

TINY = {
    "trials": {"pima": 2, "iris": 1},
    "n_train": 40,
    "n_test": 6,
    "C_sets": ("pima",),
    "C_values": (0.5,),
    "C_trials": 1,
    "width_sets": ("pima",),
    "width_proper": 40,
    "width_calibration": (20,),
    "width_tests": 5,
    "width_repeats": 1,
    "cost_sizes": (60,),
    "cost_tests": 2,
    "cost_repeats": 1,
}

TIMES = ["seconds", "svc_seconds"]


@pytest.fixture(scope="module")
def tiny_runs():
    """The tiny setting run with one and with two workers."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(va.SETTINGS, "book", TINY)
        return [va.run("book", seed=3, n_jobs=n, progress=False) for n in (1, 2)]


def test_a_tiny_run_has_every_stage_and_column(tiny_runs):
    rows = tiny_runs[0]
    assert "venn_abers" in CHAPTERS
    trial = rows[rows["stage"] == "trial"]
    assert len(trial) == len(va.MACHINES) * 3 * 6
    assert set(trial["machine"]) == set(va.MACHINES)
    expected = {"trial", "redraws", "true", "n_classes", "width", "split_retries"}
    expected |= {f"{k}{c}" for k in "qv" for c in range(7)}
    assert expected <= set(rows.columns)
    box = rows[rows["stage"] == "C"]
    assert sorted(set(box["machine"])) == sorted(va.PAIRED) and set(box["C"]) == {0.5}
    assert len(box) == len(va.PAIRED) * 6
    width = rows[rows["stage"] == "width"]
    assert len(width) == 2 and np.all(width["width"].between(0, 1))
    cost = rows[rows["stage"] == "cost"]
    assert list(cost["machine"]) == list(va.MACHINES) and np.all(cost["svc_seconds"] >= 0)


def test_n_jobs_does_not_change_the_rows(tiny_runs):
    one, two = (rows.drop(columns=TIMES) for rows in tiny_runs)
    pd.testing.assert_frame_equal(one, two)


def test_probabilities_sum_to_one_and_pairs_only_where_they_belong(tiny_runs):
    trial = tiny_runs[0][lambda r: r["stage"] == "trial"]
    Q = trial[[f"q{c}" for c in range(7)]].to_numpy()
    # each probability to 7 significant digits (va.SIGNIFICANT)
    np.testing.assert_allclose(np.nansum(Q, axis=1), 1.0, atol=1e-6)
    assert np.all(np.isnan(Q[trial["n_classes"] == 2][:, 2:]))
    paired = trial["machine"].isin(["IVAP", "Full VA"]).to_numpy()
    V = trial[["v0", "v1"]].to_numpy()
    assert np.all((V[paired] >= 0) & (V[paired] <= 1)) and np.all(np.isnan(V[~paired]))
    assert np.all(np.isnan(trial["width"].to_numpy()[~paired]))
    assert set(va.summary(tiny_runs[0])) and va.validity(tiny_runs[0])["trials"].min() >= 1


def _hand_rows() -> pd.DataFrame:
    """Two binary data sets, two trials of one test example each, Platt and IVAP."""
    rows = []
    for data, shift in (("a", 0.0), ("b", 0.1)):
        for trial, (q1, ivap, v1) in enumerate([(0.8, 0.9, 0.7), (0.6, 0.5, 0.4)]):
            for machine, p, v in (("Platt", q1 - shift, np.nan), ("IVAP", ivap, v1)):
                rows.append(
                    {
                        "stage": "trial",
                        "data": data,
                        "machine": machine,
                        "trial": trial,
                        "true": 1,
                        "n_classes": 2,
                        "q0": 1 - p,
                        "q1": p,
                        "v0": 1 - v,
                        "v1": v,
                    }
                )
    return pd.DataFrame(rows)


def test_scores_and_their_table_by_hand():
    rows = _hand_rows()
    scores = va.example_scores(rows)
    assert scores["log_loss"].iloc[0] == pytest.approx(-np.log(0.8))
    assert scores["brier"].iloc[0] == pytest.approx(2 * 0.2**2)
    table = va.score_table(rows)
    assert table.loc[("a", "Platt"), "brier"] == pytest.approx((0.08 + 0.32) / 2)
    assert table.loc[("a", "Platt"), "brier_se"] == pytest.approx(0.12)  # |0.08 - 0.32| / 2
    assert table.loc[("a", "IVAP"), "trials"] == 2


def test_differences_and_verdicts_by_hand():
    rows = _hand_rows()
    diff = va.differences(rows)
    # IVAP - Platt on set a, Brier: 2 (0.01 - 0.04) and 2 (0.25 - 0.16), trials 0 and 1
    a = diff.loc[("brier", "IVAP", "a")]
    assert a["mean"] == pytest.approx((-0.06 + 0.18) / 2)
    assert a["se"] == pytest.approx(0.12)
    assert a["z"] == pytest.approx(0.5)
    six = pd.concat([rows.assign(data=rows["data"] + str(k)) for k in range(3)])
    verdicts = va.verdicts(six)
    # Brier: IVAP better than Platt on the b sets (mean -0.08), worse on the a sets (0.06)
    assert verdicts.loc[("brier", "IVAP"), "negative"] == 3
    assert set(verdicts["verdict"]) == {"undecided"}


def test_validity_reliability_width_and_cost_by_hand():
    rows = _hand_rows()
    valid = va.validity(rows).loc[("a", "IVAP")]
    assert valid["mean"] == pytest.approx((0.3 + 0.6) / 2)
    assert valid["se"] == pytest.approx(0.15)
    assert valid["z"] == pytest.approx(3.0) and valid["trials"] == 2
    exact = rows.assign(v1=np.where(rows["machine"] == "IVAP", 1.0, np.nan))
    assert va.validity(exact).loc[("a", "IVAP"), "z"] == 0.0  # pairs (0, 1): no evidence
    decomposition = va.reliability(rows).loc[("a", "IVAP")]
    # forecasts 0.9 and 0.5 of two outcomes 1: PAV gives 1 and 1, climatology 1
    assert decomposition["mcb"] == pytest.approx((0.01 + 0.25) / 2)
    assert decomposition["unc"] == 0 and decomposition["dsc"] == 0
    width = pd.DataFrame(
        {
            "stage": "width",
            "data": "p",
            "trial": [0, 0, 1, 1],
            "calibration": 25.0,
            "class": [0, 1, 0, 1],
            "n_classes": 2,
            "width": [0.3, 0.2, 0.3, 0.4],
        }
    )
    table = va.width_table(width).loc[("p", 25)]
    assert table["width"] == pytest.approx(0.3) and table["se"] == pytest.approx(0.1)
    cost = pd.DataFrame(
        {"stage": "cost", "n_train": 50, "machine": ["IVAP"], "seconds": 0.5, "svc_seconds": 0.25}
    )
    assert va.cost_table(cost).loc[(50, "IVAP"), "svc_fits"] == 2.0


@pytest.mark.parametrize(
    "call,name",
    [
        (lambda: va.run(scale="huge"), "scale"),
        (lambda: va.run(n_jobs=0), "n_jobs"),
        (lambda: va.machines(-1.0, 10.0, 0), "gamma"),
        (lambda: va.fit_machine("svm", None, None), "model"),
        (lambda: va.trial_sizes("nope", 100, 50), "name"),
        (lambda: va.example_scores(pd.DataFrame()), "rows"),
        (lambda: va.differences(_hand_rows(), reference="Nope"), "reference"),
        (lambda: va.validity(_hand_rows(), paired="IVAP"), "paired"),
        (lambda: va.reliability(_hand_rows(), score="spherical"), "score"),
        (lambda: va.width_table(_hand_rows()), "rows"),
        (lambda: va.verdicts(_hand_rows(), level=2.0), "level"),
    ],
)
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=f"^{name}:"):
        call()
