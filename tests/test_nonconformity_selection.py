"""Nonconformity model selection (Hardoon, Hussain & Shawe-Taylor 2009): Figure 1, Algorithm 1
against brute force, tie-breaking, Proposition 4.2, the selectors against naive grid loops, and
bad input."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC
from svmtrust.experiments import nonconformity_selection as protocol
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import (
    CS,
    GAMMAS,
    SELECTION_TOL,
    CrossValidationSelector,
    NonconformityModelSelector,
    TestMarginSelector,
    critical,
    dkw_deviation,
    nonconformity_bound,
    nonconformity_p_values,
    point_keys,
    vc_deviation,
)
from svmtrust.svm import fit_svm

SMALL_GAMMAS = (0.5, 2.0)
SMALL_CS = (0.5, 8.0)


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.7 * X[:, 1] + rng.normal(scale=0.6, size=n) > 0, 1.0, -1.0)
    return X, y


# --------------------------------------------------------------------------- Figure 1


def test_figure1_toy_example():
    # six validation margins y_j f(x_j): two misclassified (< 0), four correct
    margins = np.array([[-1.3, -0.4, 0.5, 1.2, 1.8, 2.6]])
    f_test = np.array([[0.8]])  # a test point with a positive functional value
    P = nonconformity_p_values(margins, f_test)
    assert P[0, 0, 1] == pytest.approx(3 / 6)  # label +1: 0.8 is above three margins
    assert P[0, 0, 0] == pytest.approx(1 / 6)  # label -1: -0.8 is above one margin
    epsilon, k, y_crit = critical(P)
    assert epsilon[0] == pytest.approx(1 / 6) and k[0] == 0 and y_crit[0] == -1
    assert -y_crit[0] == 1  # Algorithm 1 predicts +1


# --------------------------------------------------------------------------- Algorithm 1


def _brute_epsilon(margins, values):
    """Eq. (2) by a double loop over models and labels, counts by a loop over j."""
    K, n = margins.shape
    out = []
    for i in range(values.shape[1]):
        best = math.inf
        for k in range(K):
            for label in (-1.0, 1.0):
                count = sum(1 for j in range(n) if margins[k, j] <= label * values[k, i])
                best = min(best, count / n)
        out.append(best)
    return np.array(out)


@pytest.mark.parametrize("seed", range(3))
def test_epsilon_crit_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    margins = rng.integers(-3, 4, size=(7, 12)).astype(float)  # many ties
    values = rng.integers(-4, 5, size=(7, 25)).astype(float)
    P = nonconformity_p_values(margins, values)
    epsilon, k, y_crit = critical(P, seed=seed)
    assert np.allclose(epsilon, _brute_epsilon(margins, values))
    # the chosen pair realises the minimum
    assert np.allclose(P[np.arange(25), k, (y_crit > 0).astype(int)], epsilon)


def test_estimator_epsilon_crit_against_brute_force():
    X, y = _data()
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, seed=1).fit(X[:60], y[:60])
    values = model.grid_.decision_values(X[60:])
    epsilon, _, y_crit = model.epsilon_crit_(X[60:])
    assert np.allclose(epsilon, _brute_epsilon(model.validation_margins_, values))
    assert np.array_equal(model.predict(X[60:]), -y_crit)


def test_tie_breaking_reproducible_with_seed():
    P = np.full((50, 6, 2), 0.5)  # every pair ties
    keys = np.arange(50.0)[:, None]  # 50 distinct points
    first, second = critical(P, seed=3, keys=keys), critical(P, seed=3, keys=keys)
    for a, b in zip(first, second):
        assert np.array_equal(a, b)
    other = critical(P, seed=4, keys=keys)
    assert not np.array_equal(first[1], other[1])  # another seed, other choices
    assert set(np.unique(first[2])) == {-1.0, 1.0}  # ties are broken at random
    X, y = _data()
    a = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, seed=5).fit(X, y)
    b = clone(a).fit(X, y)
    assert np.array_equal(a.predict(X), b.predict(X))
    assert np.array_equal(a.epsilon_crit_(X)[1], b.epsilon_crit_(X)[1])


# --------------------------------------------------------------------------- Proposition 4.2


def test_proposition_4_2_arithmetic():
    # Theorem 4.1 with m = 50, d = 1, delta = 0.05: 5.66 sqrt((ln(50 e) + ln(160)) / 50)
    assert vc_deviation(50, 1, 0.05) == pytest.approx(
        5.66 * math.sqrt((math.log(50 * math.e) + math.log(8 / 0.05)) / 50)
    )
    assert vc_deviation(50, 1, 0.05) == pytest.approx(2.5296, abs=1e-4)
    # Proposition 4.2 with n = 50, K = 110, delta = 0.05, epsilon_crit = 0.02
    hand = 0.02 + 5.66 * math.sqrt((1 + math.log(50) + math.log(8 * 110 / 0.05)) / 50)
    assert nonconformity_bound(0.02, 50, 110, 0.05) == pytest.approx(hand)
    assert nonconformity_bound(0.02, 50, 110, 0.05) == pytest.approx(3.0877, abs=1e-4)
    # d = 3, m = 1000, delta = 0.1
    assert vc_deviation(1000, 3, 0.1) == pytest.approx(
        5.66 * math.sqrt((3 * math.log(math.e * 1000 / 3) + math.log(80)) / 1000)
    )


def test_estimator_bound_is_epsilon_plus_constant():
    X, y = _data()
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=20).fit(X, y)
    epsilon = model.epsilon_crit_(X)[0]
    assert np.allclose(model.bound(X, 0.1), epsilon + vc_deviation(20, 1, 0.1 / 4))


# --------------------------------------------------------------------------- naive grid loops


def _naive_models(X, y, gammas, Cs, tol=SELECTION_TOL):
    """One kernel and one fit per model, no sharing."""
    return [
        (g, fit_svm(rbf_kernel(X, gamma=g), y, c, solver="libsvm", check_kernel=False, tol=tol))
        for g in gammas
        for c in Cs
    ]


def test_nonconformity_selector_agrees_with_naive_loop():
    X, y = _data(90, seed=2)
    X_test = _data(40, seed=3)[0]
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=18, seed=2)
    model.fit(X, y)
    tr, va = model.train_index_, model.validation_index_
    assert len(va) == 18 and len(np.intersect1d(tr, va)) == 0 and len(tr) + len(va) == 90
    models = _naive_models(X[tr], y[tr], SMALL_GAMMAS, SMALL_CS)
    margins = np.array(
        [y[va] * s.decision_function(rbf_kernel(X[va], X[tr], g)) for g, s in models]
    )
    values = np.array([s.decision_function(rbf_kernel(X_test, X[tr], g)) for g, s in models])
    assert np.allclose(margins, model.validation_margins_, atol=1e-10)
    # libsvm's default tolerance moves the margins only in the third decimal
    accurate = _naive_models(X[tr], y[tr], SMALL_GAMMAS, SMALL_CS, tol=None)
    exact = np.array(
        [y[va] * s.decision_function(rbf_kernel(X[va], X[tr], g)) for g, s in accurate]
    )
    assert np.max(np.abs(exact - model.validation_margins_)) <= 5e-3
    naive_eps = _brute_epsilon(margins, values)
    epsilon, _, y_crit = model.epsilon_crit_(X_test)
    assert np.allclose(epsilon, naive_eps)
    # wherever every minimising pair names the same label, the prediction is determined
    for i in range(len(X_test)):
        labels = {
            lab
            for k in range(len(models))
            for lab in (-1.0, 1.0)
            if np.mean(margins[k] <= lab * values[k, i]) == naive_eps[i]
        }
        if len(labels) == 1:
            assert model.predict(X_test[i : i + 1])[0] == -labels.pop()


def test_cross_validation_caps_the_folds_at_the_smaller_class():
    """folds=10 on a class of 4 runs 4 stratified folds, as folds=4 does (scikit-learn's
    estimator checks fit on classes of fewer than 10)."""
    X, y = _data(30, seed=2)
    y[np.flatnonzero(y < 0)[4:]] = 1.0  # the negative class keeps 4 members
    capped = CrossValidationSelector(SMALL_GAMMAS, SMALL_CS, folds=10, seed=3).fit(X, y)
    four = CrossValidationSelector(SMALL_GAMMAS, SMALL_CS, folds=4, seed=3).fit(X, y)
    assert capped.n_folds_ == four.n_folds_ == 4
    assert np.array_equal(capped.cv_errors_, four.cv_errors_)
    y[np.flatnonzero(y < 0)[1:]] = 1.0  # one member: no stratified split
    with pytest.raises(ValueError, match="^y: each class needs at least 2"):
        CrossValidationSelector(SMALL_GAMMAS, SMALL_CS).fit(X, y)


def test_cross_validation_agrees_with_naive_loop():
    X, y = _data(70, seed=4)
    cv = CrossValidationSelector(SMALL_GAMMAS, SMALL_CS, folds=5, seed=7).fit(X, y)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=7).split(X, y))
    errors = np.zeros((2, 2), dtype=int)
    for i, g in enumerate(SMALL_GAMMAS):
        for j, c in enumerate(SMALL_CS):
            for train, test in folds:
                s = fit_svm(
                    rbf_kernel(X[train], gamma=g),
                    y[train],
                    c,
                    solver="libsvm",
                    check_kernel=False,
                    tol=SELECTION_TOL,
                )
                f = s.decision_function(rbf_kernel(X[test], X[train], g))
                errors[i, j] += np.sum(np.where(f >= 0, 1.0, -1.0) != y[test])
    assert np.array_equal(cv.cv_errors_, errors)
    best = np.unravel_index(np.argmin(errors), errors.shape)
    assert (cv.best_gamma_, cv.best_C_) == (SMALL_GAMMAS[best[0]], SMALL_CS[best[1]])
    s = fit_svm(
        rbf_kernel(X, gamma=cv.best_gamma_), y, cv.best_C_, solver="libsvm", tol=SELECTION_TOL
    )
    X_test = _data(30, seed=5)[0]
    f = s.decision_function(rbf_kernel(X_test, X, cv.best_gamma_))
    assert np.array_equal(cv.predict(X_test), np.where(f >= 0, 1.0, -1.0))


@pytest.mark.parametrize("margin", ["functional", "geometric"])
def test_test_margin_agrees_with_naive_loop(margin):
    X, y = _data(60, seed=6)
    X_test = _data(30, seed=8)[0]
    rule = TestMarginSelector(SMALL_GAMMAS, SMALL_CS, margin=margin).fit(X, y)
    models = _naive_models(X, y, SMALL_GAMMAS, SMALL_CS)
    for x in X_test:
        f = [s.decision_function(rbf_kernel(x[None], X, g))[0] for g, s in models]
        scale = [np.sqrt(s.w_norm_squared) if margin == "geometric" else 1.0 for _, s in models]
        dist = np.abs(f) / np.array(scale)
        best = int(np.argmax(dist))
        if np.sum(np.isclose(dist, dist[best], rtol=1e-9)) == 1:
            assert rule.predict(x[None])[0] == (1.0 if f[best] >= 0 else -1.0)
            assert rule.chosen_model(x[None])[0] == best


def test_estimators_are_sklearn_compatible():
    for est in (NonconformityModelSelector(), CrossValidationSelector(), TestMarginSelector()):
        params = clone(est).get_params()
        assert params["gammas"] == GAMMAS and params["Cs"] == CS and params["seed"] == 0
        assert len(GAMMAS) * len(CS) == 110
    assert NonconformityModelSelector(validation_size=7).get_params()["validation_size"] == 7


def test_regions_and_confidence_of_the_chosen_model():
    X, y = _data()
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS).fit(X, y)
    P = model.predict_p(X)
    assert P.shape == (len(X), 2)
    assert np.array_equal(model.predict_set(X, 0.2), P >= 0.2)
    epsilon = model.epsilon_crit_(X)[0]
    assert np.allclose(P.min(axis=1), epsilon)


# --------------------------------------------------------------------------- bad input


def test_bad_input():
    X, y = _data(40)
    with pytest.raises(ValueError, match="^gammas"):
        NonconformityModelSelector(gammas=[], Cs=SMALL_CS).fit(X, y)
    with pytest.raises(ValueError, match="^Cs"):
        CrossValidationSelector(SMALL_GAMMAS, Cs=()).fit(X, y)
    with pytest.raises(ValueError, match="^gammas"):
        TestMarginSelector(gammas=[-1.0], Cs=SMALL_CS).fit(X, y)
    with pytest.raises(ValueError, match="^validation_size"):
        NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=41).fit(X, y)
    with pytest.raises(ValueError, match="^validation_size"):
        NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=0).fit(X, y)
    one_class = np.ones(40)
    for est in (
        NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS),
        CrossValidationSelector(SMALL_GAMMAS, SMALL_CS),
        TestMarginSelector(SMALL_GAMMAS, SMALL_CS),
    ):
        with pytest.raises(ValueError, match="^y"):
            est.fit(X, one_class)
        bad = X.copy()
        bad[3, 1] = np.nan
        with pytest.raises(ValueError, match="^X"):
            est.fit(bad, y)
    fitted = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS).fit(X, y)
    with pytest.raises(ValueError, match="^X"):
        fitted.predict(np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="^delta"):
        fitted.bound(X, delta=1.5)
    with pytest.raises(ValueError, match="^folds"):
        CrossValidationSelector(SMALL_GAMMAS, SMALL_CS, folds=1).fit(X, y)
    with pytest.raises(ValueError, match="^margin"):
        TestMarginSelector(SMALL_GAMMAS, SMALL_CS, margin="both").fit(X, y)


# --------------------------------------------------------------------------- protocol


def test_protocol_fold_and_same_results_for_n_jobs():
    from svmtrust.experiments import parallel_map

    tasks = [("votes", 0, *protocol.outer_folds("votes", 0)[0], SMALL_GAMMAS, SMALL_CS)]
    one = parallel_map(protocol._task, tasks, seed=0, n_jobs=1, progress=False)
    two = parallel_map(protocol._task, tasks * 2, seed=0, n_jobs=2, progress=False)
    a = pd.DataFrame(one[0]).drop(columns="seconds")
    b = pd.DataFrame(two[0]).drop(columns="seconds")
    pd.testing.assert_frame_equal(a, b)  # nan == nan here, unlike dict equality
    assert {row["method"] for row in one[0]} == set(protocol.METHODS)
    table = protocol.table3(pd.DataFrame(one[0]))
    assert "Overall" in table.index


# --------------------------------------------------------------------------- ties, batch-independent


def test_prediction_alone_equals_prediction_in_a_batch():
    X, y = _data(90, seed=9)
    X_test = _data(60, seed=10)[0]
    for est in (
        NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, seed=3),
        NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, seed=3, tie_break="credibility"),
        TestMarginSelector(SMALL_GAMMAS, SMALL_CS, seed=3),
    ):
        est.fit(X, y)
        batch = est.predict(X_test)
        alone = np.array([est.predict(X_test[i : i + 1])[0] for i in range(len(X_test))])
        assert np.array_equal(batch, alone)
        order = np.random.default_rng(0).permutation(len(X_test))
        assert np.array_equal(est.predict(X_test[order]), batch[order])
    # the test is not empty: many test points tie between models naming both labels
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, seed=3).fit(X, y)
    P = model.predict_p_all(X_test)
    flat = P.reshape(len(P), -1)
    tied = flat == flat.min(axis=1, keepdims=True)
    assert np.sum(tied.sum(axis=1) > 1) >= 10


def test_keyed_draw_is_uniform_and_depends_on_point_and_seed():
    P = np.zeros((4000, 3, 2))  # all six pairs tie
    keys = np.random.default_rng(1).normal(size=(4000, 2))
    _, k, y_crit = critical(P, seed=0, keys=keys)
    choice = 2 * k + (y_crit > 0)
    counts = np.bincount(choice, minlength=6)
    assert stats.chisquare(counts).pvalue > 1e-3  # uniform over the six pairs
    again = critical(P[:10], seed=0, keys=keys[:10])  # a sub-batch: same choices
    assert np.array_equal(again[1], k[:10]) and np.array_equal(again[2], y_crit[:10])
    assert not np.array_equal(critical(P, seed=1, keys=keys)[1], k)
    same = point_keys(np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 1.0 + 1e-16]]))
    assert np.array_equal(same[0], same[1]) and np.array_equal(same[0], same[2])
    assert not np.array_equal(point_keys(np.array([[0.0, 1.5]]))[0], same[0])


def test_credibility_tie_break_against_brute_force():
    rng = np.random.default_rng(4)
    P = rng.integers(0, 5, size=(300, 6, 2)) / 10.0  # many ties
    eps, k, y_crit = critical(P, seed=2, tie_break="credibility")
    for i in range(len(P)):
        pairs = [(kk, c) for kk in range(6) for c in range(2) if P[i, kk, c] == P[i].min()]
        best = max(P[i, kk, 1 - c] for kk, c in pairs)
        col = int(y_crit[i] > 0)
        assert eps[i] == P[i].min() and P[i, k[i], col] == eps[i]
        assert P[i, k[i], 1 - col] == best
    # a constructed case: two tied pairs, the second has the larger p-value of the other label
    Q = np.array([[[0.1, 0.3], [0.1, 0.9]]])  # (model 0: p(-1)=0.1, p(+1)=0.3), model 1
    for seed in range(20):
        e, kk, yy = critical(Q, seed=seed, tie_break="credibility")
        assert (e[0], kk[0], yy[0]) == (0.1, 1, -1.0)
    assert {critical(Q, seed=s)[1][0] for s in range(40)} == {0, 1}  # the paper's rule: random


# --------------------------------------------------------------------------- DKW deviation


def test_dkw_bound_arithmetic():
    assert dkw_deviation(50, 0.05 / 110) == pytest.approx(math.sqrt(math.log(2 * 110 / 0.05) / 100))
    assert nonconformity_bound(0.0, 50, 110, 0.05, kind="dkw") == pytest.approx(0.2896, abs=1e-4)
    assert nonconformity_bound(0.0, 50, 110, 0.05, kind="vc") == pytest.approx(3.0677, abs=1e-4)
    assert nonconformity_bound([0.1, 0.2], 50, 1, 0.1, kind="dkw") == pytest.approx(
        np.array([0.1, 0.2]) + math.sqrt(math.log(20) / 100)
    )


@pytest.mark.parametrize("n,delta", [(50, 0.05), (200, 0.2)])
def test_dkw_deviation_holds_at_its_level(n, delta):
    # Kolmogorov-Smirnov statistics (scipy) of uniform samples exceed the DKW deviation with
    # probability at most delta (Massart 1990)
    rng = np.random.default_rng(n)
    trials = 4000
    u = np.sort(rng.random((trials, n)), axis=1)  # sup |F_n - F| of uniform samples, exactly
    i = np.arange(1, n + 1)
    ks = np.maximum((i / n - u).max(axis=1), (u - (i - 1) / n).max(axis=1))
    assert np.allclose(ks[:20], [stats.kstest(row, "uniform").statistic for row in u[:20]])
    rate = np.mean(ks > dkw_deviation(n, delta))
    assert rate <= delta + 3 * math.sqrt(delta * (1 - delta) / trials)
    assert rate >= delta / 4  # and it is not vacuous: close to the level (DKW is nearly tight)
    # the p-values of Algorithm 1 are the empirical distribution functions of the margins
    margins = rng.normal(size=(1, n))
    grid = np.linspace(-3, 3, 61)
    P = nonconformity_p_values(margins, grid[None, :])
    assert np.allclose(P[:, 0, 1], [np.mean(margins <= t) for t in grid])


def test_estimator_dkw_bound():
    X, y = _data()
    model = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=20).fit(X, y)
    epsilon = model.epsilon_crit_(X)[0]
    assert np.allclose(
        model.bound(X, 0.1, kind="dkw"), epsilon + math.sqrt(math.log(2 * 4 / 0.1) / 40)
    )


def test_patch_counterexample_per_point_reading_fails_joint_statement_holds():
    out = protocol.patch_counterexample(n=5000, n_test=20000, seed=0)
    assert out["eps_patch"] < 0.02 and out["bound_vc"] < 0.35
    assert out["error_patch"] > out["bound_vc"] + 0.1  # per-point reading fails
    assert out["joint"] <= out["joint_bound_dkw"]  # the joint statement holds


# --------------------------------------------------------------------------- deterministic work


def test_libsvm_iterations_match_scikit_learn():
    X, y = _data(70, seed=11)
    K = rbf_kernel(X, gamma=0.5)
    for C in (0.5, 64.0):
        direct = SVC(C=C, kernel="precomputed", tol=SELECTION_TOL).fit(K, y)
        s = fit_svm(K, y, C, solver="libsvm", tol=SELECTION_TOL)
        assert s.n_iter == int(direct.n_iter_[0]) > 0
    assert fit_svm(K, y, 1.0, solver="cvxpy").n_iter == 0


def test_selector_work_against_naive_loops():
    X, y = _data(70, seed=4)
    nc = NonconformityModelSelector(SMALL_GAMMAS, SMALL_CS, validation_size=14, seed=1).fit(X, y)
    tr = nc.train_index_
    naive = [s.n_iter for _, s in _naive_models(X[tr], y[tr], SMALL_GAMMAS, SMALL_CS)]
    assert nc.n_iter_ == sum(naive) and nc.work_ == sum(naive) * len(tr)
    cv = CrossValidationSelector(SMALL_GAMMAS, SMALL_CS, folds=5, seed=7).fit(X, y)
    iters = work = 0
    for train, _ in StratifiedKFold(5, shuffle=True, random_state=7).split(X, y):
        for _, s in _naive_models(X[train], y[train], SMALL_GAMMAS, SMALL_CS):
            iters, work = iters + s.n_iter, work + s.n_iter * len(train)
    retrain = fit_svm(
        rbf_kernel(X, gamma=cv.best_gamma_), y, cv.best_C_, solver="libsvm", tol=SELECTION_TOL
    ).n_iter
    assert cv.n_iter_ == iters + retrain and cv.work_ == work + retrain * len(X)


# --------------------------------------------------------------------------- protocol helpers


def test_credit_integer_codes_match_one_hot_credit():
    from svmtrust import datasets

    X_int, y_int, scaled = protocol.load("credit-integer")
    X_hot, y_hot, _ = datasets.load("credit")
    assert scaled and X_int.shape == (653, 15) and np.array_equal(y_int, y_hot)
    # every integer-coded column is a code 0..L-1 or a numeric column of the one-hot matrix
    hot_columns = {tuple(col) for col in X_hot.T}
    for col in X_int.T:
        codes = np.unique(col)
        is_code = np.array_equal(codes, np.arange(len(codes)))
        assert is_code or tuple(col) in hot_columns
    # the number of one-hot columns is the number of levels (two-level columns give one)
    levels = [len(np.unique(c)) for c in X_int.T if tuple(c) not in hot_columns]
    numeric = sum(tuple(c) in hot_columns for c in X_int.T)
    assert numeric + sum(1 if L == 2 else L for L in levels) == X_hot.shape[1]
    assert not protocol.load("credit-unscaled")[2]


def test_validity_exact_rates_against_enumeration():
    n = 50
    valid = protocol.validity_check("pima", n_validation=n, n_draws=200, seed=0)
    for _, row in valid.iterrows():
        eps = row["significance"]
        c = np.arange(n + 1)  # the rank of the test margin, uniform on 0..n
        assert row["exact_paper"] == pytest.approx(np.mean(c / n < eps))
        assert row["exact_strict"] == pytest.approx(np.mean(c / n <= eps))
        assert row["exact_conformal"] == pytest.approx(np.mean((c + 1) / (n + 1) <= eps))
