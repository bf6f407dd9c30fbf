"""Smoothed conformal p-values (Vovk, Gammerman & Shafer 2005, Sec. 2.4) in every estimator.

The formula is checked against its definition, its bounds, and its exact validity on
exchangeable scores with heavy ties; every conformal estimator's smoothed p-values are checked
for validity on a small sample of exchangeable data with tied scores; TCM-NN's two backends
agree with each other and with a brute-force recomputation.

Tolerances. A rate of ``p <= eps`` over ``N`` independent draws has standard deviation at most
``sqrt(eps (1 - eps) / N)``; the checks allow 4 of them (a false alarm about once in 16,000
runs per check). Over an estimator's trials, the test objects of one trial share a training
set and are not independent, so the standard deviation is taken with ``N`` the number of
trials (the rate within a trial is a mean of Bernoulli(eps) variables, whose variance is at
most ``eps (1 - eps)`` however they are correlated).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from sklearn.base import clone
from svmtrust import conformal
from svmtrust.kernels import rbf_kernel
from svmtrust.nonconformity_selection import NonconformityModelSelector, nonconformity_p_values
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM

from tests.test_tcm_nn import brute_force_p

KERNEL = functools.partial(rbf_kernel, gamma=0.5)
EPS = np.array([0.1, 0.2, 0.3])


def _band(eps, n):
    """Four binomial standard deviations of a rate over ``n`` independent draws."""
    return 4.0 * np.sqrt(eps * (1.0 - eps) / n)


# --------------------------------------------------------------------------- the formula


def _counts(old, new):
    old = np.asarray(old)
    return np.array([np.sum(old > a) for a in new]), np.array([np.sum(old == a) for a in new])


@pytest.mark.parametrize("include_new", [True, False])
def test_smoothed_p_values_by_definition_and_bounds(include_new):
    rng = np.random.default_rng(0)
    old = rng.integers(0, 4, 15).astype(float)
    new = np.r_[rng.integers(-1, 5, 20).astype(float), np.inf]
    old[0] = np.inf
    tau = rng.random(new.size)
    greater, ties = _counts(old, new)
    extra = 1.0 if include_new else 0.0
    plain = conformal.p_values(old, new, include_new=include_new)
    smooth = conformal.p_values(old, new, include_new=include_new, tau=tau)
    np.testing.assert_allclose(smooth, (greater + tau * (ties + extra)) / (old.size + extra))
    assert np.all(smooth <= plain)
    assert np.all(smooth >= plain - (ties + extra) / (old.size + extra) - 1e-15)
    assert np.array_equal(conformal.p_values(old, new, include_new=include_new, tau=1.0), plain)
    assert np.array_equal(
        conformal.p_values(old, new, include_new=include_new, tau=0.0),
        greater / (old.size + extra),
    )
    assert conformal.p_values(old, 2.0, include_new=include_new, tau=0.5) == pytest.approx(
        (np.sum(old > 2) + 0.5 * (np.sum(old == 2) + extra)) / (old.size + extra)
    )


def test_rank_counts_and_counts_p_values():
    greater, ties = conformal.rank_counts([1.0, 2.0, 2.0, np.inf], [2.0, np.inf, 0.0])
    assert greater.tolist() == [1, 0, 4] and ties.tolist() == [2, 1, 0]
    assert np.array_equal(
        conformal.counts_p_values(greater, ties, 4),
        conformal.p_values([1, 2, 2, np.inf], [2, np.inf, 0]),
    )


def test_smoothing_draws_one_per_object_and_reproducible():
    tau = conformal.smoothing_draws(7, 5)
    assert tau.shape == (5,) and np.all((tau >= 0) & (tau < 1))
    assert np.array_equal(tau, np.random.default_rng(7).random(5))
    assert np.array_equal(conformal.smoothing_tau(True, 7, 5), tau)
    assert conformal.smoothing_tau(False, 7, 5) is None
    assert conformal.smoothing_draws(0, 0).shape == (0,)


@pytest.mark.parametrize(
    "tau", [-0.1, 1.5, np.nan, "half", [0.5, 0.5], np.ones((3, 1)), True, None]
)
def test_bad_tau_is_refused(tau):
    if tau is None:  # the default: no smoothing
        assert conformal.p_values([1.0, 2.0], [1.0, 2.0, 3.0], tau=tau).shape == (3,)
        return
    with pytest.raises(ValueError, match="^tau:"):
        conformal.p_values([1.0, 2.0], [1.0, 2.0, 3.0], tau=tau)


def test_smoothed_p_values_exactly_valid_with_heavy_ties():
    """Exchangeable integer scores in {0, 1, 2} (ties in almost every bag): the smoothed
    p-value is uniform, ``P{p <= eps} = eps`` (measured 0.0512, 0.1015, 0.2533, 0.5024 at
    eps = 0.05, 0.1, 0.25, 0.5, within 0.006-0.014); without smoothing it is far below eps
    (0.0, 0.0084, 0.0478, 0.3376)."""
    rng = np.random.default_rng(1)
    draws, n = 20000, 9
    bags = rng.integers(0, 3, size=(draws, n + 1)).astype(float)
    tau = conformal.smoothing_draws(2, draws)
    smooth = np.array([conformal.p_values(b[:n], b[n], tau=t) for b, t in zip(bags, tau)])
    plain = np.array([conformal.p_values(b[:n], b[n]) for b in bags])
    for eps in (0.05, 0.1, 0.25, 0.5):
        assert abs(np.mean(smooth <= eps) - eps) <= _band(eps, draws)
    # the check has power: ties make the plain p-value conservative
    assert np.mean(plain <= 0.25) < 0.25 - 2 * _band(0.25, draws)


# --------------------------------------------------------------------------- the estimators


def _tied_problem(rng, n, m):
    """Exchangeable examples on the integer grid {0, 1, 2}^2 (copies and tied scores), two
    noisy classes; each class has at least 5 of the n training examples."""
    while True:
        X = rng.integers(0, 3, size=(n + m, 2)).astype(float)
        y = (rng.random(n + m) < 0.25 + 0.5 * (X[:, 0] >= 1)).astype(int)
        if np.bincount(y[:n], minlength=2).min() >= 5:
            return X[:n], y[:n], X[n:], y[n:]


#: Each conformal estimator, smoothed, given the trial number (seeds of split and draws).
MACHINES = {
    "TransductiveSVM": lambda t: TransductiveSVM(
        kernel=KERNEL, C=2.0, smoothing=True, smoothing_seed=t
    ),
    "TransductiveSVM-Mondrian": lambda t: TransductiveSVM(
        kernel=KERNEL, C=2.0, mondrian=True, smoothing=True, smoothing_seed=t
    ),
    "DistanceTCM": lambda t: DistanceTCM(kernel=KERNEL, C=2.0, smoothing=True, smoothing_seed=t),
    "SplitConformalSVM": lambda t: SplitConformalSVM(
        kernel=KERNEL, C=2.0, seed=t, smoothing=True, smoothing_seed=t
    ),
    "TCMNearestNeighbours": lambda t: TCMNearestNeighbours(smoothing=True, smoothing_seed=t),
    "SplitConformalNearestNeighbours": lambda t: SplitConformalNearestNeighbours(
        seed=t, smoothing=True, smoothing_seed=t
    ),
}


@pytest.mark.parametrize("name", list(MACHINES))
def test_smoothed_estimators_valid_on_exchangeable_tied_data(name):
    """200 trials of 24 training and 4 test examples: the rate of ``p(true label) <= eps``
    lies within 4 trial-level binomial deviations of eps (0.085 at eps = 0.2; measured rates
    0.10-0.12, 0.21-0.22, 0.30-0.32 at eps = 0.1, 0.2, 0.3, where the unsmoothed machines give
    0.00-0.03, 0.02-0.18, 0.10-0.27)."""
    trials, m = 200, 4
    hits = np.zeros((trials, EPS.size))
    for t in range(trials):
        X, y, X_test, y_test = _tied_problem(np.random.default_rng(1000 + t), 24, m)
        p = MACHINES[name](t).fit(X, y).predict_p(X_test)[np.arange(m), y_test]
        hits[t] = (p[:, None] <= EPS).mean(axis=0)
    assert np.all(np.abs(hits.mean(axis=0) - EPS) <= _band(EPS, trials))


def _fitted_pair(make, X, y):
    """The estimator without and with smoothing, fitted on the same data."""
    plain = make().fit(X, y)
    return plain, clone(plain).set_params(smoothing=True, smoothing_seed=3).fit(X, y)


ALL = {
    **{name: functools.partial(make, 0) for name, make in MACHINES.items()},
    "CrossConformalSVM": lambda t=0: CrossConformalSVM(kernel=KERNEL, C=2.0),
    "NonconformityModelSelector": lambda t=0: NonconformityModelSelector(
        gammas=(0.5, 2.0), Cs=(1.0, 10.0)
    ),
}


@pytest.mark.parametrize("name", list(ALL))
def test_smoothing_lowers_p_by_at_most_the_ties_and_is_reproducible(name):
    X, y, X_test, _ = _tied_problem(np.random.default_rng(5), 30, 6)
    make = lambda: clone(ALL[name]()).set_params(smoothing=False)  # noqa: E731
    plain, smooth = _fitted_pair(make, X, y)
    assert plain.get_params()["smoothing"] is False and smooth.get_params()["smoothing"] is True
    cloned = clone(smooth).get_params()
    assert (cloned["smoothing"], cloned["smoothing_seed"]) == (True, 3)
    P, S = plain.predict_p(X_test), smooth.predict_p(X_test)
    assert np.all(S <= P) and np.all(S >= 0)
    assert np.any(S < P)
    assert np.array_equal(S, smooth.predict_p(X_test))  # the same draws on every call


def test_selector_smooths_the_p_values_of_its_chosen_model():
    X, y, X_test, _ = _tied_problem(np.random.default_rng(6), 40, 5)
    plain, smooth = _fitted_pair(ALL["NonconformityModelSelector"], X, y)
    tau = conformal.smoothing_draws(3, len(X_test))
    expected = nonconformity_p_values(
        smooth.validation_margins_, smooth.grid_.decision_values(X_test), tau
    )
    assert np.array_equal(smooth.predict_p_all(X_test), expected)
    k = smooth.epsilon_crit_(X_test)[1]
    assert np.array_equal(k, plain.epsilon_crit_(X_test)[1])  # the choice is the paper's
    position = np.searchsorted(smooth.grid_.usable, k)
    assert np.array_equal(smooth.predict_p(X_test), expected[np.arange(len(X_test)), position])


# --------------------------------------------------------------------------- TCM-NN backends


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_tcm_nn_backends_agree_with_smoothing_and_with_brute_force(k, n_classes):
    rng = np.random.default_rng(10 * k + n_classes)
    n = 40
    X = rng.integers(0, 3, size=(n, 2)).astype(float)
    y = rng.integers(0, n_classes, n)
    y[: n_classes * (k + 1)] = np.repeat(np.arange(n_classes), k + 1)
    X_test = np.vstack([rng.integers(0, 3, size=(6, 2)).astype(float), X[:3], [[0.5, 1.5]]])
    P = {
        algorithm: TCMNearestNeighbours(
            k=k, algorithm=algorithm, block_size=4, smoothing=True, smoothing_seed=9
        )
        .fit(X, y)
        .predict_p(X_test)
        for algorithm in ("exact", "fast")
    }
    assert np.array_equal(P["exact"], P["fast"])
    tau = conformal.smoothing_draws(9, len(X_test))
    assert np.array_equal(P["exact"], brute_force_p(X, y, X_test, k, tau))


# --------------------------------------------------------------------------- bad values


@pytest.mark.parametrize("name", list(ALL))
@pytest.mark.parametrize(
    "params, argname",
    [
        ({"smoothing": "yes"}, "smoothing"),
        ({"smoothing": 1}, "smoothing"),
        ({"smoothing": True, "smoothing_seed": -1}, "smoothing_seed"),
        ({"smoothing": True, "smoothing_seed": 0.5}, "smoothing_seed"),
    ],
)
def test_bad_smoothing_parameters_are_refused(name, params, argname):
    X, y, X_test, _ = _tied_problem(np.random.default_rng(7), 30, 2)
    model = ALL[name]()
    try:
        model.set_params(**params).fit(X, y)
    except ValueError as err:  # the new estimators check at fit
        assert str(err).startswith(f"{argname}:")
        return
    with pytest.raises(ValueError, match=f"^{argname}:"):
        model.predict_p(X_test)
