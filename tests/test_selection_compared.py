"""The protocol of the chapter "Model selection compared": its statistics against independent
values (Demsar's table, the Friedman formula, hand-made rankings), the correspondence between the
C-SVM and the bounded-w family, and a small run whose numbers equal those of the individual
chapters' functions on the same split."""

from functools import partial

import numpy as np
import pandas as pd
import pytest
from svmtrust.discrepancy import delta_term, fit_bounded_w, soft_loss, soft_loss_lower_bound
from svmtrust.experiments import selection_compared as sc
from svmtrust.experiments import span as span_protocol
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from svmtrust.svm import fit_svm

#: Table 5(a) of Demsar (2006): q_0.05 and q_0.10 of the Nemenyi test for k = 2, ..., 10.
DEMSAR_Q05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)
DEMSAR_Q10 = (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920)

#: A tiny setting: the grid 2 x 2, one split per data set, two shuffles.
TINY = {"n_train": 60, "splits": 1, "log2_gamma_d": (0, 3), "log2_C": (0, 4), "shuffles": 2}


@pytest.mark.parametrize("k", range(2, 11))
def test_nemenyi_q_equals_demsar_table(k):
    assert sc.nemenyi_q(k, 0.05) == pytest.approx(DEMSAR_Q05[k - 2], abs=1e-3)
    assert sc.nemenyi_q(k, 0.10) == pytest.approx(DEMSAR_Q10[k - 2], abs=1e-3)


def test_critical_difference_formula():
    # Demsar (2006), Sec. 3.2.2: four classifiers on 14 data sets, CD = 2.569 sqrt(20 / 84) = 1.25
    assert sc.critical_difference(4, 14) == pytest.approx(1.25, abs=5e-3)


def test_friedman_statistic_and_ranks_by_hand():
    rng = np.random.default_rng(3)
    errors = pd.DataFrame(rng.random((12, 4)), columns=list("abcd"))  # no ties
    out = sc.friedman(errors)
    ranks = errors.rank(axis=1).mean()
    n, k = errors.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)  # Demsar eq. (1)
    assert out["statistic"] == pytest.approx(chi2)
    pd.testing.assert_series_equal(out["ranks"], ranks, check_names=False)
    assert out["n_blocks"] == 12 and out["cd"] == pytest.approx(sc.critical_difference(4, 12))


def test_friedman_rejects_incomplete_tables():
    with pytest.raises(ValueError, match="errors"):
        sc.friedman(pd.DataFrame({"a": [0.1, np.nan], "b": [0.2, 0.3], "c": [0.1, 0.1]}))


def test_cd_groups_joins_criteria_closer_than_cd():
    ranks = pd.Series({"a": 1.0, "b": 1.5, "c": 2.4, "d": 4.0})
    assert sc.cd_groups(ranks, 1.0) == [("a", "b"), ("b", "c")]
    assert sc.cd_groups(ranks, 5.0) == [("a", "b", "c", "d")]
    assert sc.cd_groups(ranks, 0.1) == []


def test_first_minimum_breaks_ties_in_grid_order_and_tau():
    assert sc._first_minimum([0.3, 0.1, 0.1, 0.2]) == 1
    assert sc._kendall_tau([1, 2, 3, 4], [0.1, 0.2, 0.3, 0.5]) == pytest.approx(1.0)
    assert sc._kendall_tau([4, 3, 2, 1], [0.1, 0.2, 0.3, 0.5]) == pytest.approx(-1.0)
    assert np.isnan(sc._kendall_tau([1, 1, 1], [0.1, 0.2, 0.3]))


def test_csvm_solves_the_bounded_w_problem_at_its_own_norm():
    """The correspondence the MD criterion uses: the C-SVM is problem (9) at w_max = ||w_C||."""
    data = sc.draw_split("ionosphere", 40, 1, np.random.default_rng(0))
    X, y, gamma = data["X_train"], data["y_train"], 0.1
    K = rbf_kernel(X, gamma=gamma)
    for C in (0.5, 4.0):
        sol = fit_svm(K, y, C, solver="libsvm", check_kernel=False)
        hinge = np.maximum(0.0, 1.0 - y * sol.decision_function(K)).sum()
        _, _, xi = fit_bounded_w(
            X, y, np.sqrt(sol.w_norm_squared), kernel=partial(rbf_kernel, gamma=gamma)
        )
        assert xi.sum() == pytest.approx(hinge, rel=1e-4, abs=1e-4)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="name"):
        sc.load("iris")
    with pytest.raises(ValueError, match="scale"):
        sc.grid("huge", 4)
    with pytest.raises(ValueError, match="split"):
        sc._task_index("pima", 99, "paper")
    with pytest.raises(ValueError, match="n_train"):
        sc.draw_split("bupa", 12, 1, np.random.default_rng(0))


@pytest.fixture(scope="module")
def tiny_run():
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sc.SETTINGS, "book", TINY)
        one = sc.run("book", seed=1, n_jobs=1, progress=False)
        two = sc.run("book", seed=1, n_jobs=2, progress=False)
        data = sc.split_data("ionosphere", 0, seed=1, scale="book")
        gammas, Cs = sc.grid("book", data["X_train"].shape[1])
    return one, two, data, gammas, Cs


def test_same_rows_for_one_and_two_jobs(tiny_run):
    one, two = tiny_run[:2]
    exact = [c for c in one.columns if c not in sc.TIME_COLUMNS]
    pd.testing.assert_frame_equal(one[exact], two[exact])


def test_run_has_every_criterion_on_every_split(tiny_run):
    one = tiny_run[0]
    choice = one[one["table"] == "choice"]
    assert set(choice["criterion"]) == set(sc.CRITERIA) | {"oracle"}
    assert len(choice) == len(sc.DATASETS) * (len(sc.CRITERIA) + 1)
    curve = choice[choice["criterion"].isin(sc.CURVES + ("oracle",))]
    assert (curve["regret"] >= 0).all()  # a single grid model cannot beat the best one
    assert (choice.loc[choice["criterion"] == "oracle", "regret"] == 0).all()
    assert len(one[one["table"] == "grid"]) == len(sc.DATASETS) * 4
    matrix = sc.error_matrix(one)
    assert matrix.shape == (len(sc.DATASETS), len(sc.CRITERIA))


def test_tiny_run_equals_the_chapters_functions(tiny_run):
    """Every number of one split, recomputed with the individual chapters' functions."""
    one, _, data, gammas, Cs = tiny_run
    X, y, X_test, y_test = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rows = one[(one["data"] == "ionosphere") & (one["split"] == 0)]
    grid_rows = rows[rows["table"] == "grid"].reset_index(drop=True)
    for k, (gamma, C) in enumerate((g, c) for g in gammas for c in Cs):
        K, K_test = rbf_kernel(X, gamma=gamma), rbf_kernel(X_test, X, gamma=gamma)
        ref = span_protocol.evaluate(K, y, K_test, y_test, C)
        row = grid_rows.iloc[k]
        assert (row["gamma"], row["C"]) == (gamma, C)
        assert row["test_error"] == ref["test_error"]
        assert row["span"] == ref["span_rule"] and row["loo"] == ref["loo"]
        assert row["radius_margin"] == pytest.approx(ref["radius_margin"], rel=1e-6)
        assert row["rescaled"] == pytest.approx(ref["rescaled"], rel=1e-6)  # BLAS threads
        sol = fit_svm(K, y, C, solver="libsvm", check_kernel=False)
        kernel, w_max = partial(rbf_kernel, gamma=gamma), np.sqrt(sol.w_norm_squared)
        md = np.mean([1 - 2 * soft_loss_lower_bound(X, f, w_max, kernel) for f in data["flips"]])
        nu = np.mean(soft_loss(y * sol.decision_function(K)))
        assert row["md"] == pytest.approx(nu + md, abs=1e-7)
    choice = rows[rows["table"] == "choice"].set_index("criterion")
    cv = CrossValidationSelector(gammas, Cs, folds=sc.CV_FOLDS, seed=data["seed"]).fit(X, y)
    assert (choice.loc["cv10", "gamma"], choice.loc["cv10", "C"]) == (cv.best_gamma_, cv.best_C_)
    assert choice.loc["cv10", "trainings"] == sc.CV_FOLDS * len(grid_rows) + 1
    nc = NonconformityModelSelector(gammas, Cs, seed=data["seed"]).fit(X, y)
    assert choice.loc["nonconformity", "error"] == np.mean(nc.predict(X_test) != y_test)
    linf = TestMarginSelector(gammas, Cs, seed=data["seed"]).fit(X, y)
    assert choice.loc["svm_linf", "error"] == np.mean(linf.predict(X_test) != y_test)
    assert choice.loc["oracle", "error"] == grid_rows["test_error"].min()
    assert choice.loc["loo", "trainings"] == len(grid_rows) + grid_rows["loo_retrained"].sum()


def test_tables_of_the_tiny_run(tiny_run):
    one = tiny_run[0]
    regret = sc.regret_table(one)
    assert list(regret.index) == [sc.CRITERION_NAMES[c] for c in sc.CRITERIA]
    assert regret["all"].to_numpy() == pytest.approx(
        one[(one["table"] == "choice") & one["criterion"].isin(sc.CRITERIA)]
        .groupby("criterion")["regret"]
        .mean()
        .reindex(list(sc.CRITERIA))
        .to_numpy()
    )
    costs = sc.cost_table(one)
    assert costs.loc["exact LOO", "trainings"] > costs.loc["10-fold CV", "trainings"] > 4
    guarantee = sc.md_guarantee(one)
    grid_rows = one[(one["table"] == "grid") & (one["data"] == "pima")]
    bound = grid_rows["md"].min() + delta_term(TINY["n_train"], sc.DELTA)
    assert guarantee.loc["Pima", "bound"] == pytest.approx(bound)
    assert guarantee.loc["Pima", "covered"] == float(
        bound >= grid_rows.loc[grid_rows["md"].idxmin(), "test_soft_loss"]
    )
    assert set(sc.summary(one)) >= {"Mean regret over the oracle", "Cost per split"}
