"""The protocol of the chapter "Model selection compared": its statistics against independent
values (Demsar's table, the Friedman formula, hand-made rankings, data sets as blocks), the
correspondence between the C-SVM and the bounded-w family, the L2-SVM against an independent
cvxpy solve of its primal, the union bound of the MD guarantee, and a small run whose numbers
equal those of the individual chapters' functions on the same split."""

from functools import partial

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold
from svmtrust import ties
from svmtrust.discrepancy import delta_term, fit_bounded_w, soft_loss, soft_loss_lower_bound
from svmtrust.experiments import selection_compared as sc
from svmtrust.experiments import span as span_protocol
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import (
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
)
from svmtrust.span import fit_l2_svm, l2_kernel, radius_squared, span_rule_loo
from svmtrust.svm import fit_svm

#: Table 5(a) of Demsar (2006): q_0.05 and q_0.10 of the Nemenyi test for k = 2, ..., 10.
DEMSAR_Q05 = (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164)
DEMSAR_Q10 = (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920)

#: A tiny setting: three data sets, the grid 2 x 2, one split per data set, two shuffles.
TINY = {
    "datasets": ("pima", "ionosphere", "heart"),
    "n_train": 60,
    "splits": 1,
    "log2_gamma_d": (0, 3),
    "log2_C": (0, 4),
    "shuffles": 2,
}


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


def test_friedman_when_every_block_ties_is_no_evidence():
    """scipy's tie correction is 0 / 0 when every block ties: statistic 0, p-value 1."""
    errors = pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [0.1, 0.2, 0.3], "c": [0.1, 0.2, 0.3]})
    out = sc.friedman(errors)
    assert out["statistic"] == 0.0 and out["p_value"] == 1.0
    assert out["ranks"].tolist() == [2.0, 2.0, 2.0]
    one_untied = errors.assign(c=[0.1, 0.2, 0.4])  # one block unties: scipy's own value
    assert np.isfinite(sc.friedman(one_untied)["statistic"])


def test_iman_davenport_by_hand():
    """Four blocks, three criteria, no ties: rank sums 5, 8, 11, so chi2_F = 4 (23.125 - 12) = 4.5
    and F_F = 3 * 4.5 / (8 - 4.5) = 27 / 7 on (2, 6) degrees of freedom; with two numerator
    degrees of freedom the F tail is (1 + 2F / 6)^(-3) = (16 / 7)^(-3) = 343 / 4096."""
    errors = pd.DataFrame(
        [[0.1, 0.2, 0.3], [0.1, 0.3, 0.2], [0.2, 0.1, 0.3], [0.1, 0.2, 0.3]], columns=list("abc")
    )
    out = sc.friedman(errors)
    assert out["statistic"] == pytest.approx(4.5)
    assert out["f_statistic"] == pytest.approx(27 / 7)
    assert out["f_df"] == (2, 6)
    assert out["f_p_value"] == pytest.approx(343 / 4096)
    assert out["f_p_value"] < out["p_value"]  # Demsar: Friedman's chi2 is the more conservative


def test_iman_davenport_at_the_extremes():
    """Every block ties: no evidence (F 0, p 1); every block ranks alike: F infinite, p 0."""
    ties = sc.friedman(pd.DataFrame({"a": [0.1, 0.2], "b": [0.1, 0.2], "c": [0.1, 0.2]}))
    assert ties["f_statistic"] == 0.0 and ties["f_p_value"] == 1.0
    alike = sc.friedman(pd.DataFrame({"a": [0.1, 0.2, 0.0], "b": [0.2, 0.3, 0.1], "c": [0.4] * 3}))
    assert alike["statistic"] == pytest.approx(3 * 2)
    assert alike["f_statistic"] == np.inf and alike["f_p_value"] == 0.0


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
    n_sets = len(TINY["datasets"])
    for protocol in sc.PROTOCOLS:
        rows = choice[choice["protocol"] == protocol]
        assert set(rows["criterion"]) == {*sc.PROTOCOL_CRITERIA[protocol], "oracle"}
        assert len(rows) == n_sets * (len(sc.PROTOCOL_CRITERIA[protocol]) + 1)
        curve = rows[rows["criterion"].isin(sc.PROTOCOL_CURVES[protocol] + ("oracle",))]
        assert (curve["regret"] >= 0).all()  # a single grid model cannot beat the best one
        assert (rows.loc[rows["criterion"] == "oracle", "regret"] == 0).all()
        matrix = sc.error_matrix(one, protocol)
        assert matrix.shape == (n_sets, len(sc.PROTOCOL_CRITERIA[protocol]))
    assert len(one[one["table"] == "grid"]) == n_sets * 4


def test_tiny_run_equals_the_chapters_functions(tiny_run):
    """Every number of one split, recomputed with the individual chapters' functions."""
    one, _, data, gammas, Cs = tiny_run
    X, y, X_test, y_test = data["X_train"], data["y_train"], data["X_test"], data["y_test"]
    rows = one[(one["data"] == "ionosphere") & (one["split"] == 0)]
    grid_rows = rows[rows["table"] == "grid"].reset_index(drop=True)
    rungs = sc.ladder(len(y), max(Cs))
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
        w_norm = np.sqrt(sol.w_norm_squared)
        w_max = rungs[rungs >= w_norm].min()  # the rung, a class fixed before the data
        assert row["md_radius"] == w_max and w_max / 2 < w_norm <= w_max
        kernel = partial(rbf_kernel, gamma=gamma)
        md = np.mean([1 - 2 * soft_loss_lower_bound(X, f, w_max, kernel) for f in data["flips"]])
        nu = np.mean(soft_loss(y * sol.decision_function(K)))
        assert row["md"] == pytest.approx(nu + md, abs=1e-7)
        l2 = fit_l2_svm(K, y, C)
        K_l2 = K + np.eye(len(y)) / C
        assert row["l2_test_error"] == np.mean(
            np.where(l2.decision_function(K_test) > 0, 1, -1) != y_test
        )
        assert row["l2_radius_margin"] == pytest.approx(
            radius_squared(K_l2) * l2.w_norm_squared / len(y), rel=1e-6
        )
        assert row["l2_span"] == span_rule_loo(K_l2, l2)
    choice = rows[(rows["table"] == "choice") & (rows["protocol"] == "grid")]
    choice = choice.set_index("criterion")
    cv = CrossValidationSelector(gammas, Cs, folds=sc.CV_FOLDS, seed=data["seed"]).fit(X, y)
    assert (choice.loc["cv10", "gamma"], choice.loc["cv10", "C"]) == (cv.best_gamma_, cv.best_C_)
    assert choice.loc["cv10", "trainings"] == sc.CV_FOLDS * len(grid_rows) + 1
    nc = NonconformityModelSelector(gammas, Cs, seed=data["seed"]).fit(X, y)
    assert choice.loc["nonconformity", "error"] == np.mean(nc.predict(X_test) != y_test)
    linf = TestMarginSelector(gammas, Cs, seed=data["seed"]).fit(X, y)
    assert choice.loc["svm_linf", "error"] == np.mean(linf.predict(X_test) != y_test)
    assert choice.loc["oracle", "error"] == grid_rows["test_error"].min()
    assert choice.loc["loo", "trainings"] == len(grid_rows) + grid_rows["loo_retrained"].sum()
    # the width alone: every criterion with a curve reads the largest C's column
    width = rows[(rows["table"] == "choice") & (rows["protocol"] == "width")]
    width = width.set_index("criterion")
    column = grid_rows[grid_rows["C"] == max(Cs)].reset_index(drop=True)
    for name in ("span", "radius_margin", "rescaled", "md", "loo"):
        k = int(np.argmin(column[name].to_numpy()))
        assert width.loc[name, "gamma"] == column["gamma"].iloc[k]
        assert width.loc[name, "error"] == column["test_error"].iloc[k]
    assert (width["C"].dropna() == max(Cs)).all()
    cv_width = CrossValidationSelector(gammas, (max(Cs),), seed=data["seed"]).fit(X, y)
    assert width.loc["cv10", "gamma"] == cv_width.best_gamma_
    # the L2-SVM: its own cross-validation, fold by fold
    l2 = rows[(rows["table"] == "choice") & (rows["protocol"] == "l2")].set_index("criterion")
    assert l2.loc["oracle", "error"] == grid_rows["l2_test_error"].min()
    k = int(np.argmin(grid_rows["l2_cv10"].to_numpy()))
    assert l2.loc["cv10", "error"] == grid_rows["l2_test_error"].iloc[k]


def test_l2_cross_validation_counts_fold_errors():
    data = sc.draw_split("heart", 40, 1, np.random.default_rng(2))
    X, y = data["X_train"], data["y_train"]
    errors = sc._l2_cross_validation(data, (0.5,), (1.0,))
    folds = StratifiedKFold(sc.CV_FOLDS, shuffle=True, random_state=data["seed"]).split(X, y)
    K, wrong = rbf_kernel(X, gamma=0.5), 0
    for train, test in folds:
        sol = fit_l2_svm(K[np.ix_(train, train)], y[train], 1.0)
        values = sol.decision_function(K[np.ix_(test, train)])
        wrong += np.sum(np.where(values >= 0, 1, -1) != y[test])
    assert errors[0] == pytest.approx(wrong / len(y))


def test_l2_svm_equals_an_independent_primal_solve():
    """fit_l2_svm against the primal 1/2 ||w||^2 + C/2 sum xi^2 solved with cvxpy on features.

    With explicit features (a linear kernel) the primal has w, b, xi as variables; the L2-SVM
    on K + I/C must give the same decision values and ||w~||^2 = ||w||^2 + C sum xi^2.
    """
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=40) > 0, 1.0, -1.0)
    K = X @ X.T
    for C in (0.3, 4.0):
        w, b, xi = cp.Variable(3), cp.Variable(), cp.Variable(40)
        problem = cp.Problem(
            cp.Minimize(0.5 * cp.sum_squares(w) + C / 2 * cp.sum_squares(xi)),
            [cp.multiply(y, X @ w + b) >= 1 - xi],
        )
        problem.solve(solver=cp.CLARABEL)
        for solver in ("libsvm", "cvxpy"):
            sol = fit_l2_svm(K, y, C, solver=solver)
            assert sol.decision_function(K) == pytest.approx(X @ w.value + b.value, abs=1e-5)
            norm = np.sum(w.value**2) + C * np.sum(xi.value**2)
            assert sol.w_norm_squared == pytest.approx(norm, rel=1e-5)
        assert l2_kernel(K, C) == pytest.approx(K + np.eye(40) / C)


def test_l2_span_is_the_bordered_inverse_on_k_plus_i_over_c():
    """Chapelle et al. (2002): for the L2-SVM every support vector is of the first category and
    S_p^2 = 1 / (K~_SV^{-1})_pp with the bordered matrix of K + I / C."""
    data = sc.draw_split("pima", 40, 1, np.random.default_rng(1))
    K = rbf_kernel(data["X_train"], gamma=0.5)
    y, C = data["y_train"], 2.0
    sol = fit_l2_svm(K, y, C)
    sv = sol.support
    K_l2 = l2_kernel(K, C)[np.ix_(sv, sv)]
    bordered = np.block([[K_l2, np.ones((len(sv), 1))], [np.ones((1, len(sv))), np.zeros((1, 1))]])
    spans = 1.0 / np.diag(np.linalg.inv(bordered))[: len(sv)]
    margins = y[sv] * sol.decision_function(l2_kernel(K, C)[sv])  # 1: all on the margin
    assert margins == pytest.approx(1.0, abs=1e-6)
    expected = np.mean(margins - sol.alpha[sv] * spans <= 0) * len(sv) / len(y)
    assert span_rule_loo(l2_kernel(K, C), sol) == pytest.approx(expected)


def test_delta_term_union_bound():
    # eq. (5) at delta / M: the review's figures for l = 200 and the 16 points of the grid
    assert delta_term(200, 0.05) == pytest.approx(0.288, abs=5e-4)
    assert delta_term(200, 0.05, 16) == pytest.approx(0.381, abs=5e-4)
    assert delta_term(200, 0.05, 16) == pytest.approx(delta_term(200, 0.05 / 16))
    assert delta_term(200, 0.05, 1) == delta_term(200, 0.05)


def test_ladder_covers_every_c_svm_norm():
    rungs = sc.ladder(200, 256.0)
    assert rungs[0] == 2.0**sc.LADDER_LOW and rungs[-1] ** 2 >= 2 * 256 * 200
    assert np.all(rungs[1:] == 2 * rungs[:-1])
    assert sc._rung(0.01, rungs) == rungs[0] and sc._rung(3.0, rungs) == 4.0
    assert sc._rung(4.0, rungs) == 4.0
    assert sc.md_classes("paper", 8) == 4 * len(rungs)
    data = sc.draw_split("pima", 40, 1, np.random.default_rng(0))
    K = rbf_kernel(data["X_train"], gamma=8.0)  # a narrow kernel: the largest norms
    sol = fit_svm(K, data["y_train"], 256.0, solver="libsvm", check_kernel=False)
    assert sol.w_norm_squared <= 2 * 256.0 * 40


def test_friedman_with_data_sets_as_blocks():
    """Demsar (2006): one block per data set, its errors averaged over the splits."""
    rows = []
    rng = np.random.default_rng(4)
    for data in ("pima", "bupa", "heart", "wdbc"):
        for split in range(3):
            for criterion in (*sc.L2_CRITERIA, "oracle"):
                rows.append(
                    {
                        "table": "choice",
                        "protocol": "l2",
                        "data": data,
                        "split": split,
                        "criterion": criterion,
                        "error": rng.random(),
                    }
                )
    results = pd.DataFrame(rows)
    matrix = sc.error_matrix(results, "l2")
    assert list(matrix.index) == sorted(["pima", "bupa", "heart", "wdbc"])
    choice = results[results["criterion"] != "oracle"]
    means = choice.groupby(["data", "criterion"])["error"].mean().unstack()[list(sc.L2_CRITERIA)]
    pd.testing.assert_frame_equal(matrix, means, check_names=False)
    test = sc.friedman(matrix)
    ranks = means.rank(axis=1).mean()
    n, k = means.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)
    assert test["statistic"] == pytest.approx(chi2) and test["n_blocks"] == 4
    assert sc.error_matrix(results, "l2", blocks="split").shape == (12, 4)


def test_monotone_steps_counts_decreases():
    base = {"table": "grid", "data": "pima", "split": 0, "gamma": 1.0}
    values = {
        "radius_margin": (1, 2, 3),
        "rescaled": (3, 2, 2),
        "md": (1, 0.5, 2),
        "l2_radius_margin": (1, 1, 1),
        "l2_rescaled": (2, 1, 0),
    }
    results = pd.DataFrame(
        [{**base, "C": C, **{k: v[i] for k, v in values.items()}} for i, C in enumerate((1, 2, 4))]
    )
    table = sc.monotone_steps(results)
    assert table["steps"].tolist() == [2] * 5
    assert table["decreasing"].tolist() == [0, 1, 1, 0, 2]


def test_tables_of_the_tiny_run(tiny_run):
    one = tiny_run[0]
    for protocol in sc.PROTOCOLS:
        regret = sc.regret_table(one, protocol)
        names = [sc.CRITERION_NAMES[c] for c in sc.PROTOCOL_CRITERIA[protocol]]
        assert list(regret.index) == names
        rows = one[(one["table"] == "choice") & (one["protocol"] == protocol)]
        per_data = rows.groupby(["criterion", "data"])["regret"].mean().unstack()
        expected = per_data.mean(axis=1).reindex(list(sc.PROTOCOL_CRITERIA[protocol]))
        assert regret["all"].to_numpy() == pytest.approx(expected.to_numpy())
    costs = sc.cost_table(one)
    assert costs.loc["exact LOO", "trainings"] > costs.loc["10-fold CV", "trainings"] > 4
    guarantee = sc.md_guarantee(one).set_index("data")
    grid_rows = one[(one["table"] == "grid") & (one["data"] == "pima")]
    classes = 2 * len(sc.ladder(TINY["n_train"], 16.0))
    bound = grid_rows["md"].min() + delta_term(TINY["n_train"], sc.DELTA, classes)
    assert guarantee.loc["pima", "bound"] == pytest.approx(bound)
    assert guarantee.loc["pima", "covered"] == float(
        bound >= grid_rows.loc[grid_rows["md"].idxmin(), "test_soft_loss"]
    )
    width = sc.md_guarantee(one, "width").set_index("data")
    column = grid_rows[grid_rows["C"] == 16.0]
    assert width.loc["pima", "md"] == column["md"].min()
    assert len(sc.protocol_table(one)) == len(sc.CRITERIA) + 1
    assert set(sc.below_loo(one).index) == {"radius_margin", "rescaled"}
    assert set(sc.summary(one)) >= {"Cost per split, C-SVM grid"}


def test_below_loo_scales_the_functionals():
    rows = pd.DataFrame(
        {
            "table": "grid",
            "data": "pima",
            "loo": [0.2, 0.2, 0.2, 0.2],
            "radius_margin": [0.01, 0.06, 0.3, 0.1],
            "rescaled": [0.04, 0.04, 0.04, 0.04],
        }
    )
    assert sc.below_loo(rows).tolist() == [0.75, 1.0]
    assert sc.below_loo(rows, factor=4.0).tolist() == [0.25, 1.0]
    with pytest.raises(ValueError, match="factor"):
        sc.below_loo(rows, factor=0.0)


def test_edge_choices_shares_of_splits():
    grid = [
        {"table": "grid", "data": "pima", "split": s, "gamma": g, "C": C}
        for s in (0, 1)
        for g in (1.0, 2.0, 4.0)
        for C in (0.5, 8.0)
    ]
    picks = {
        "span": [(1.0, 0.5), (2.0, 8.0)],
        "radius_margin": [(1.0, 0.5), (1.0, 0.5)],
        "rescaled": [(4.0, 0.5), (2.0, 0.5)],
        "cv10": [(2.0, 8.0), (4.0, 8.0)],
        "oracle": [(2.0, 0.5), (2.0, 8.0)],
    }
    choice = [
        {
            "table": "choice",
            "protocol": "l2",
            "data": "pima",
            "split": s,
            "criterion": c,
            "gamma": g,
            "C": C,
        }
        for c, points in picks.items()
        for s, (g, C) in enumerate(points)
    ]
    table = sc.edge_choices(pd.DataFrame(grid + choice), "l2")
    assert list(table.index) == [
        "span rule",
        "radius-margin",
        "rescaled R-M",
        "10-fold CV",
        "oracle",
    ]
    assert table.loc["radius-margin"].tolist() == [1.0, 0.0, 1.0, 0.0]
    assert table.loc["span rule"].tolist() == [0.5, 0.5, 0.5, 0.0]
    assert table.loc["rescaled R-M"].tolist() == [1.0, 0.0, 0.0, 0.5]
    assert table.loc["10-fold CV"].tolist() == [0.0, 1.0, 0.0, 0.5]
    assert table.loc["oracle"].tolist() == [0.5, 0.5, 0.0, 0.0]


def test_l2_rescaled_functional_is_constant_in_C_once_every_point_is_a_support_vector():
    """With every training point a support vector of the hard margin on K + I/C, the margins
    are all 1: (K + I/C) c + b 1 = y with c = Y alpha, 1'c = 0. Each kernel-PCA axis u_k of
    H K H (eigenvalue lambda_k; of H (K + I/C) H, lambda_k + 1/C) then has
    u_k'c = u_k'y / (lambda_k + 1/C), and the rescaled term 4 (lambda_k + 1/C)^2
    (max_i |U_ik|)^2 (u_k'c)^2 = 4 (max_i |U_ik|)^2 (u_k'y)^2 loses C. Checked against that
    closed form on three generated problems, at C where all points are support vectors."""
    from svmtrust.span import l2_rescaled_radius_margin_bound

    for seed in range(3):
        data = sc.draw_split("pima", 60, 1, np.random.default_rng(seed))
        X, y = data["X_train"], data["y_train"]
        K = rbf_kernel(X, gamma=2.0**seed / X.shape[1])
        H = np.eye(len(y)) - 1.0 / len(y)
        eigvals, U = np.linalg.eigh(H @ K @ H)
        U = U[:, eigvals > 1e-10 * eigvals.max()]  # simple eigenvalues on these data
        closed = float(np.sum(4.0 * np.max(np.abs(U), axis=0) ** 2 * (y @ U) ** 2)) / len(y)
        values = []
        for C in (2.0**-8, 2.0**-6, 2.0**-4):
            sol = fit_l2_svm(K, y, C, solver="libsvm")
            assert sol.support.size == len(y)
            values.append(l2_rescaled_radius_margin_bound(K, sol, C))
        assert values == pytest.approx([closed] * 3, rel=1e-7)  # two eigendecompositions
        assert np.ptp(values) <= 1e-3 * ties.TIE_TOL * max(values)  # one: flat to rounding
        assert len(set(ties.merged(values))) == 1


def test_l2_wide_run_repeats_the_common_grid_and_counts_its_limits():
    """The wider grid holds the common one: its rows there are those of the main protocol;
    as C -> 0 the radius-margin functional tends to 4 p (1 - p) (1 - 1/n)."""
    task = sc.tasks("book")[0]
    from svmtrust.experiments import task_rng

    wide = pd.DataFrame(sc._l2_wide_task(task, task_rng(0, 0)))
    data = sc.split_data(task[0], task[1], 0, "book")
    gammas, Cs = sc.grid("book", data["X_train"].shape[1])
    common = sc._evaluate_grid(data, gammas[:1], Cs)
    rows = wide[(wide["table"] == "grid") & (wide["gamma"] == gammas[0])]
    rows = rows.set_index("C").loc[list(Cs)]
    for column in ("l2_test_error", "l2_span", "l2_radius_margin", "l2_rescaled", "l2_n_sv"):
        np.testing.assert_allclose(rows[column].to_numpy(), common[column].to_numpy(), rtol=1e-9)
    y = data["y_train"]
    p = np.mean(y > 0)
    assert (wide.loc[wide["table"] == "grid", "positive_share"] == p).all()
    smallest = wide[(wide["table"] == "grid") & (wide["C"] == wide["C"].min())]
    limit = 4 * p * (1 - p) * (1 - 1 / len(y))
    assert smallest["l2_radius_margin"].to_numpy() == pytest.approx(limit, rel=0.05)
    table = sc.plateau_choices(wide)
    assert list(table.index) == [sc.CRITERION_NAMES[c] for c in (*sc.L2_CRITERIA, "oracle")]
    assert ((table[["tied", "constant"]] >= 0) & (table[["tied", "constant"]] <= 1)).all().all()
    assert (table["best"] <= table["regret"]).all() and (table["regret"] <= table["worst"]).all()
    assert (table["points"] >= 1).all()
    assert table.loc["oracle", ["regret", "best", "worst"]].tolist() == [0.0, 0.0, 0.0]


def test_subgrid_regret_remakes_the_choices_on_a_smaller_grid():
    """On the whole wider grid the choices made again give regret_table's pooled regret; on a
    grid of one point every criterion chooses the oracle's point (regret 0) and the oracle's
    error is that point's; on the common grid each regret lies between 0 and 1."""
    from svmtrust.experiments import task_rng

    wide = pd.DataFrame(sc._l2_wide_task(sc.tasks("book")[0], task_rng(0, 0)))
    cfg = sc.SETTINGS["book"]
    whole = sc.subgrid_regret(wide, cfg["l2_wide"])
    expected = sc.regret_table(wide, "l2_wide")["all"]
    assert whole[expected.index].to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-12)
    one = sc.subgrid_regret(wide, {"log2_gamma_d": (1,), "log2_C": (2,)})
    names = [sc.CRITERION_NAMES[c] for c in (*sc.L2_CRITERIA, "oracle")]
    assert (one[names] == 0.0).all()
    d = sc.load(wide["data"].iloc[0])[0].shape[1]
    point = wide[(wide["table"] == "grid") & (wide["C"] == 4.0)]
    point = point[np.isclose(point["gamma"], 2.0 / d, rtol=1e-12)]
    assert one["oracle test error"] == pytest.approx(point["l2_test_error"].iloc[0])
    common = sc.subgrid_regret(wide, {k: cfg[k] for k in ("log2_gamma_d", "log2_C")})
    assert ((common[names] >= 0) & (common[names] <= 1)).all()


def test_a_curve_flat_up_to_rounding_is_chosen_by_the_grid_not_by_its_bits(monkeypatch):
    """A criterion equal in exact arithmetic at every grid point, perturbed by rounding-sized
    noise (argmin would follow the noise): the choice is the first grid point (smallest gamma,
    smallest C), every point is tied, and plateau_choices bounds the regret of any other
    choice by the best and worst test error over the grid."""
    point, noise = sc._l2_point, iter(np.random.default_rng(3).uniform(-1, 1, 1000))

    def flat(*args):
        return {**point(*args), "l2_rescaled": 0.25 * (1 + 1e-14 * next(noise))}

    monkeypatch.setattr(sc, "_l2_point", flat)
    from svmtrust.experiments import task_rng

    wide = pd.DataFrame(sc._l2_wide_task(sc.tasks("book")[0], task_rng(0, 0)))
    grid = wide[wide["table"] == "grid"]
    assert grid["l2_rescaled"].nunique() > 1  # the bits differ
    chosen = wide[(wide["table"] == "choice") & (wide["criterion"] == "rescaled")].iloc[0]
    assert (chosen["gamma"], chosen["C"]) == (grid["gamma"].min(), grid["C"].min())
    table = sc.plateau_choices(wide)
    oracle = grid["l2_test_error"].min()
    assert table.loc["rescaled R-M", "points"] == len(grid)
    assert table.loc["rescaled R-M", "best"] == 0.0
    assert table.loc["rescaled R-M", "worst"] == pytest.approx(grid["l2_test_error"].max() - oracle)
    assert table.loc["rescaled R-M", "tied"] == 1.0
