"""Cross-conformal prediction around the SVM (Vovk 2015) and split conformal prediction with
the nearest-neighbour ratio: each against a computation written out here, and their error
rates on exchangeable data.

Tolerances as in ``tests/test_smoothing.py``: 4 binomial standard deviations of a rate, with
the number of trials as the number of independent draws.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from svmtrust.conformal import ClassLeftOut, p_values, smoothing_draws
from svmtrust.kernels import rbf_kernel
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm import fit_svm
from svmtrust.tcm_nn import SplitConformalNearestNeighbours

KERNEL = functools.partial(rbf_kernel, gamma=0.5)


def _gaussian(rng, n, n_classes=2, d=2):
    y = rng.integers(0, n_classes, n)
    y[: 3 * n_classes] = np.repeat(np.arange(n_classes), 3)
    return rng.normal(size=(n, d)) + 1.2 * y[:, None], y


# --------------------------------------------------------------------------- cross-conformal


def _cross_by_hand(model, X, y, X_test, C, smooth_tau=None):
    """Eq. (2) of Vovk (2015) for two classes: per fold, a binary SVM (classes_[1] = +1)
    trained on the other folds; strangeness ``-y f(x) / ||w||``; counts added over folds."""
    signs = np.where(y == model.classes_[1], 1.0, -1.0)
    n, m = len(y), len(X_test)
    greater, ties = np.zeros((m, 2)), np.zeros((m, 2))
    for k in range(model.n_folds):
        inside, outside = model.fold_ == k, model.fold_ != k
        svm = fit_svm(KERNEL(X[outside], X[outside]), signs[outside], C, solver="libsvm")
        norm = np.sqrt(svm.w_norm_squared)
        a_fold = -signs[inside] * svm.decision_function(KERNEL(X[inside], X[outside])) / norm
        f_test = svm.decision_function(KERNEL(X_test, X[outside])) / norm
        for c, sign in enumerate((-1.0, 1.0)):
            a_new = -sign * f_test
            greater[:, c] += (a_fold[None, :] > a_new[:, None]).sum(axis=1)
            ties[:, c] += (a_fold[None, :] == a_new[:, None]).sum(axis=1)
    if smooth_tau is None:
        return (greater + ties + 1) / (n + 1)
    return (greater + smooth_tau[:, None] * (ties + 1)) / (n + 1)


@pytest.mark.parametrize("n_folds", [2, 5])
def test_cross_conformal_equals_eq_2_of_vovk_2015(n_folds):
    rng = np.random.default_rng(n_folds)
    X, y = _gaussian(rng, 40)
    X_test = rng.normal(size=(7, 2)) + 0.6
    model = CrossConformalSVM(kernel=KERNEL, C=2.0, n_folds=n_folds, seed=3).fit(X, y)
    expected = _cross_by_hand(model, X, y, X_test, 2.0)
    assert np.array_equal(model.predict_p(X_test), expected)
    smooth = CrossConformalSVM(
        kernel=KERNEL, C=2.0, n_folds=n_folds, seed=3, smoothing=True, smoothing_seed=4
    ).fit(X, y)
    tau = smoothing_draws(4, len(X_test))
    np.testing.assert_allclose(
        smooth.predict_p(X_test), _cross_by_hand(model, X, y, X_test, 2.0, tau), rtol=1e-14
    )


def test_folds_are_seeded_and_stratified():
    rng = np.random.default_rng(0)
    X, y = _gaussian(rng, 53, n_classes=3)
    a = CrossConformalSVM(kernel=KERNEL, n_folds=4, seed=1).fit(X, y)
    b = CrossConformalSVM(kernel=KERNEL, n_folds=4, seed=1).fit(X, y)
    c = CrossConformalSVM(kernel=KERNEL, n_folds=4, seed=2).fit(X, y)
    assert np.array_equal(a.fold_, b.fold_) and not np.array_equal(a.fold_, c.fold_)
    for code in range(3):
        per_fold = np.bincount(a.fold_[y == code], minlength=4)
        assert per_fold.max() - per_fold.min() <= 1
    assert np.bincount(a.fold_).max() - np.bincount(a.fold_).min() <= 1


def test_one_fold_equals_a_split_conformal_count():
    """Fold k's contribution is a split conformal count: the model trained on the other folds
    ranks the test example among fold k's scores (checked through the calibration scores)."""
    rng = np.random.default_rng(2)
    X, y = _gaussian(rng, 30, n_classes=3)
    model = CrossConformalSVM(kernel=KERNEL, C=1.0, n_folds=3, seed=0).fit(X, y)
    for k, fold_model in enumerate(model.models_):
        inside = model.fold_ == k
        np.testing.assert_array_equal(
            fold_model.own_scores(X[inside], model.codes_[inside]),
            model.calibration_scores_[inside],
        )


def test_mondrian_counts_each_class_over_its_own_examples():
    rng = np.random.default_rng(3)
    X, y = _gaussian(rng, 36, n_classes=3)
    X_test = rng.normal(size=(5, 2)) + 1.0
    model = CrossConformalSVM(kernel=KERNEL, n_folds=3, mondrian=True).fit(X, y)
    P = model.predict_p(X_test)
    expected = np.zeros_like(P)
    for k, fold_model in enumerate(model.models_):
        new = fold_model.all_scores(X_test)
        for c in range(3):
            old = model.calibration_scores_[(model.fold_ == k) & (y == c)]
            expected[:, c] += (old[None, :] >= new[:, c, None]).sum(axis=1)
    counts = np.bincount(y)
    assert np.array_equal(P, (expected + 1) / (counts + 1))


def test_class_left_out_of_a_fold_complement():
    X = np.arange(12.0)[:, None]
    y = np.r_[np.zeros(11, int), 1]
    with pytest.raises(ClassLeftOut, match="^y:"):
        CrossConformalSVM(kernel=KERNEL, n_folds=3).fit(X, y)


@pytest.mark.parametrize("n_folds", [1, 0, 41, 2.5, True])
def test_bad_n_folds(n_folds):
    X, y = _gaussian(np.random.default_rng(0), 40)
    with pytest.raises(ValueError, match="^n_folds:"):
        CrossConformalSVM(n_folds=n_folds).fit(X, y)


def test_cross_conformal_error_rate_near_eps_on_exchangeable_data():
    """Not guaranteed valid (the guarantee is only about 2 eps): on 150 trials of 30
    Gaussian training and 4 test examples, the error rate at eps = 0.1, 0.2 stays within 4
    trial-level binomial deviations (0.098, 0.131) above eps: measured 0.075 and 0.195, and
    0.072 and 0.187 without smoothing; split conformal on the same trials, which is valid,
    gives 0.073 and 0.160 (within its band of eps)."""
    eps = np.array([0.1, 0.2])
    trials, m = 150, 4
    rates = {"cross": np.zeros((trials, 2)), "split": np.zeros((trials, 2))}
    for t in range(trials):
        rng = np.random.default_rng(500 + t)
        X, y = _gaussian(rng, 30 + m)
        X, y, X_test, y_test = X[m:], y[m:], X[:m], y[:m]
        for name, cls in (("cross", CrossConformalSVM), ("split", SplitConformalSVM)):
            model = cls(kernel=KERNEL, seed=t, smoothing=True, smoothing_seed=t).fit(X, y)
            p = model.predict_p(X_test)[np.arange(m), y_test]
            rates[name][t] = (p[:, None] <= eps).mean(axis=0)
    band = 4.0 * np.sqrt(eps * (1 - eps) / trials)
    assert np.all(rates["cross"].mean(axis=0) <= eps + band)
    assert np.all(np.abs(rates["split"].mean(axis=0) - eps) <= band)


# --------------------------------------------------------------------------- split NN ratio


def _split_nn_by_hand(model, X, y, X_test, k):
    """The ratio of Proedrou et al. against the proper training set, written out."""
    classes = np.unique(y)
    proper, cal = model.proper_index_, model.calibration_index_

    def ratio(x, label):
        d = np.linalg.norm(X[proper] - x, axis=1)
        same = np.sort(d[y[proper] == label])[:k].sum()
        other = np.sort(d[y[proper] != label])[:k].sum()
        return same / other

    cal_scores = np.array([ratio(X[i], y[i]) for i in cal])
    P = np.empty((len(X_test), classes.size))
    for t, x in enumerate(X_test):
        for c, label in enumerate(classes):
            P[t, c] = p_values(cal_scores, ratio(x, label))
    return P


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_split_nn_equals_a_computation_by_hand(k, n_classes):
    rng = np.random.default_rng(10 * k + n_classes)
    X, y = _gaussian(rng, 45, n_classes=n_classes, d=3)
    X_test = rng.normal(size=(6, 3)) + 1.0
    model = SplitConformalNearestNeighbours(k=k, seed=2).fit(X, y)
    assert np.array_equal(model.predict_p(X_test), _split_nn_by_hand(model, X, y, X_test, k))
    q = len(model.calibration_index_)
    assert q == 15 and len(model.proper_index_) == 30


def test_split_nn_ties_and_duplicates_give_finite_or_infinite_scores_never_nan():
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [3.0], [3.0], [3.0], [2.0], [1.0]])
    y = np.array([0, 0, 1, 1, 1, 0, 1, 1, 0, 1])
    model = SplitConformalNearestNeighbours(calibration_size=3, seed=1).fit(X, y)
    P = model.predict_p(np.array([[0.0], [1.0], [3.0], [2.0]]))
    assert not np.any(np.isnan(P)) and not np.any(np.isnan(model.calibration_scores_))


def test_split_nn_mondrian_and_class_left_out():
    rng = np.random.default_rng(4)
    X, y = _gaussian(rng, 30)
    model = SplitConformalNearestNeighbours(mondrian=True).fit(X, y)
    X_test = rng.normal(size=(4, 2))
    scores = model.test_scores(X_test)
    for c in range(2):
        old = model.calibration_scores_[model.calibration_codes_ == c]
        assert np.array_equal(model.predict_p(X_test)[:, c], p_values(old, scores[:, c]))
    y_rare = np.r_[np.ones(29, int), 0]
    with pytest.raises(ClassLeftOut, match="^y:"):
        # some seed puts the one example of class 0 in the calibration set
        for seed in range(20):
            SplitConformalNearestNeighbours(seed=seed).fit(X, y_rare)


def test_split_nn_error_rate_equals_eps_with_smoothing():
    """Valid and, smoothed, exactly so: 400 trials of 30 Gaussian training and 4 test
    examples, rate within 4 trial-level binomial deviations of eps (measured 0.092, 0.199,
    0.309 at eps = 0.1, 0.2, 0.3; bands 0.060, 0.080, 0.092)."""
    eps = np.array([0.1, 0.2, 0.3])
    trials, m = 400, 4
    hits = np.zeros((trials, eps.size))
    for t in range(trials):
        X, y = _gaussian(np.random.default_rng(900 + t), 30 + m)
        model = SplitConformalNearestNeighbours(seed=t, smoothing=True, smoothing_seed=t)
        p = model.fit(X[m:], y[m:]).predict_p(X[:m])[np.arange(m), y[:m]]
        hits[t] = (p[:, None] <= eps).mean(axis=0)
    band = 4.0 * np.sqrt(eps * (1 - eps) / trials)
    assert np.all(np.abs(hits.mean(axis=0) - eps) <= band)


@pytest.mark.parametrize(
    "params, argname",
    [
        ({"k": 0}, "k"),
        ({"calibration_size": 1.5}, "calibration_size"),
        ({"mondrian": "no"}, "mondrian"),
        ({"seed": -1}, "seed"),
        ({"smoothing": 1}, "smoothing"),
        ({"smoothing_seed": "0"}, "smoothing_seed"),
    ],
)
def test_split_nn_bad_parameters(params, argname):
    X, y = _gaussian(np.random.default_rng(0), 30)
    with pytest.raises(ValueError, match=f"^{argname}:"):
        SplitConformalNearestNeighbours(**params).fit(X, y)


@pytest.mark.parametrize(
    "model",
    [
        SplitConformalSVM(kernel="rbf", gamma=0.7),
        SplitConformalSVM(mondrian=True, calibration_size=0.5),
        CrossConformalSVM(n_folds=3),
    ],
    ids=["split", "split-mondrian", "cross"],
)
def test_p_values_do_not_move_with_the_batch(model):
    """A test object equal to a calibration object ties with it whatever the batch: BLAS sums
    the kernel rows of 3 and of 6 test objects in other orders (1.8e-15 apart), which flipped
    that tie. The same p-values alone, in any batch, at any position."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    model.fit(X, y)
    T = np.vstack([X[:20], rng.normal(size=(5, 3))])  # 20 training (calibration) objects
    every = model.predict_p(T)
    alone = np.vstack([model.predict_p(T[i : i + 1]) for i in range(len(T))])
    assert np.array_equal(alone, every)
    for size in (2, 3, 6, 7):
        for start in range(0, len(T) - size + 1, size):
            assert np.array_equal(
                model.predict_p(T[start : start + size]), every[start : start + size]
            )
    reversed_order = model.predict_p(T[::-1])[::-1]
    assert np.array_equal(reversed_order, every)
