"""Conformal p-values, regions, confidence and credibility."""

import numpy as np
import pytest
from crepes.base import p_values_batch
from hypothesis import given, settings
from hypothesis import strategies as st
from svmtrust import conformal, ties
from svmtrust.conformal import confidence_credibility, error_rate, p_values, predict_set
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import SplitConformalNearestNeighbours, TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM


def test_hand_computed_cases():
    scores = [0.0, 0.0, 1.0, 2.0]
    # new score 0: all 4 old scores >= 0, plus itself -> 5/5
    assert p_values(scores, 0.0) == pytest.approx(1.0)
    # new score 1: 1.0 and 2.0 -> (2 + 1) / 5
    assert p_values(scores, 1.0) == pytest.approx(3 / 5)
    # new score 1.5: only 2.0 -> 2/5
    assert p_values(scores, 1.5) == pytest.approx(2 / 5)
    # the strangest: only itself -> 1/5
    assert p_values(scores, 7.0) == pytest.approx(1 / 5)
    assert np.allclose(p_values(scores, [0.0, 1.0, 7.0]), [1.0, 0.6, 0.2])


def test_saunders_eq13_ties_count_as_stranger():
    # eq. (13) of Saunders et al. (1999) counts i with alpha_i >= alpha_new, the new one included
    alphas_old = np.array([0.0, 0.0, 0.0, 0.3, 0.3, 1.0])
    assert p_values(alphas_old, 0.3) == pytest.approx(4 / 7)  # 0.3, 0.3, 1.0 and itself


@pytest.mark.parametrize("seed", range(5))
def test_equals_crepes_exactly_with_ties(seed):
    rng = np.random.default_rng(seed)
    cal = rng.integers(0, 6, size=50).astype(float)  # many ties
    test = rng.integers(-1, 8, size=40).astype(float)
    expected = p_values_batch(cal, test, smoothing=False)
    assert np.array_equal(p_values(cal, test), expected)


def test_equals_crepes_continuous():
    rng = np.random.default_rng(9)
    cal, test = rng.normal(size=200), rng.normal(size=100)
    assert np.array_equal(p_values(cal, test), p_values_batch(cal, test, smoothing=False))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40),
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=10),
)
def test_property_range_and_monotone(old, new):
    p = p_values(old, new)
    n = len(old)
    assert np.all(p >= 1 / (n + 1)) and np.all(p <= 1)
    order = np.argsort(new, kind="stable")
    # stranger (larger) new scores never get larger p-values
    assert np.all(np.diff(p[order]) <= 0)


def test_predict_set_is_strict():
    P = np.array([[0.05, 0.5], [0.2, 0.04]])
    assert predict_set(P, 0.05).tolist() == [[False, True], [True, False]]


def test_confidence_and_credibility():
    P = np.array([[0.9, 0.1, 0.3], [0.2, 0.6, 0.6]])
    labels, conf, cred = confidence_credibility(P)
    assert labels.tolist() == [0, 1]
    assert np.allclose(conf, [0.7, 0.4])
    assert np.allclose(cred, [0.9, 0.6])


def test_error_rate():
    P = np.array([[0.5, 0.01], [0.01, 0.5], [0.3, 0.3]])
    assert error_rate(P, np.array([0, 0, 1]), 0.05) == pytest.approx(1 / 3)


def test_validity_on_exchangeable_scores():
    """One test point per split, so the errors are independent Bernoulli(<= eps) draws.

    The conformal p-value of a new score exchangeable with the n old ones is uniform on
    {1/(n+1), ..., 1}, so P(p <= eps) = floor(eps (n+1)) / (n+1) <= eps. Over 2000 independent
    splits the number of errors is Binomial(2000, q) with q <= eps = 0.1; the test accepts up to
    the 1 - 1e-6 quantile of Binomial(2000, 0.1), so a valid method fails it once in a million
    runs, while a method whose error rate were 0.13 would fail it almost surely.
    """
    from scipy.stats import binom

    rng = np.random.default_rng(2026)
    trials, eps, n = 2000, 0.1, 19
    errors = 0
    for _ in range(trials):
        scores = rng.exponential(size=n + 1)
        errors += p_values(scores[:n], scores[n]) <= eps
    assert errors <= binom.ppf(1 - 1e-6, trials, eps)
    assert errors >= binom.ppf(1e-6, trials, eps)  # exactly eps here: n + 1 = 20


def test_infinite_scores_are_the_strangest():
    # +inf is a legitimate strangeness (a positive distance over a zero one): it ties with
    # other +inf scores and is stranger than every finite score.
    scores = [0.5, np.inf, 2.0]
    assert p_values(scores, np.inf) == pytest.approx(2 / 4)
    assert p_values(scores, 1e308) == pytest.approx(2 / 4)
    assert p_values(scores, 0.0) == pytest.approx(1.0)
    assert np.array_equal(
        p_values(scores, [np.inf, 3.0]),
        p_values_batch(np.array(scores), np.array([np.inf, 3.0]), smoothing=False),
    )


def test_include_new_false_is_hardoon_convention():
    # Hardoon et al. (2009, Sec. 3): #{i : a_i >= a_new} / n, the new example left out
    scores = [0.0, 0.0, 1.0, 2.0]
    assert p_values(scores, 1.0, include_new=False) == pytest.approx(2 / 4)
    assert p_values(scores, 7.0, include_new=False) == 0.0
    assert np.allclose(p_values(scores, [0.0, 1.5], include_new=False), [1.0, 0.25])
    # the default is unchanged
    assert p_values(scores, 1.0) == p_values(scores, 1.0, include_new=True) == pytest.approx(3 / 5)


def test_include_new_false_relation_to_conformal():
    # p_conformal = (n p_hardoon + 1) / (n + 1), exactly, for every score
    rng = np.random.default_rng(3)
    old, new = rng.integers(0, 5, size=30).astype(float), rng.integers(-1, 7, size=20).astype(float)
    n = old.size
    assert np.allclose(
        p_values(old, new), (n * p_values(old, new, include_new=False) + 1) / (n + 1)
    )


def test_non_strict_regions():
    P = np.array([[0.05, 0.5], [0.04, 0.06]])
    assert np.array_equal(predict_set(P, 0.05, strict=False), [[True, True], [False, True]])
    assert np.array_equal(predict_set(P, 0.05), [[False, True], [False, True]])
    assert error_rate(P, np.array([0, 0]), 0.05, strict=False) == pytest.approx(0.5)


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_convention_flags_must_be_boolean(bad):
    with pytest.raises(ValueError, match="^include_new"):
        p_values([0.0, 1.0], 0.5, include_new=bad)
    with pytest.raises(ValueError, match="^strict"):
        predict_set([[0.1, 0.2]], 0.1, strict=bad)


def test_region_level_as_significance_or_confidence():
    """predict_set takes eps by position or 1 - eps by keyword, with the same region; a
    confidence passed by position (0.9) is refused with a message naming confidence."""
    from svmtrust.conformal import region_significance
    from svmtrust.tcm_nn import TCMNearestNeighbours

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    model = TCMNearestNeighbours().fit(X[:30], y[:30])
    P = model.predict_p(X[30:])
    np.testing.assert_array_equal(model.predict_set(X[30:], 0.1), P > 0.1)
    np.testing.assert_array_equal(model.predict_set(X[30:], confidence=0.9), P > 1.0 - 0.9)
    assert region_significance(0.5) == 0.5 and region_significance(confidence=0.75) == 0.25
    with pytest.raises(ValueError, match=r"^significance: 0.9 is above 0.5.*confidence=0.9"):
        model.predict_set(X[30:], 0.9)


def test_every_estimator_reads_the_region_level_alike():
    """The estimators that compute their own regions (split conformal, the selector) take the
    level as the mixin does: a confidence passed by position is refused, confidence= works."""
    from svmtrust.nonconformity_selection import NonconformityModelSelector
    from svmtrust.split_conformal import SplitConformalSVM

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    for model in (SplitConformalSVM(C=1.0), NonconformityModelSelector()):
        model.fit(X[:50], y[:50])
        np.testing.assert_array_equal(
            model.predict_set(X[50:], 0.2), model.predict_set(X[50:], confidence=0.8)
        )
        with pytest.raises(ValueError, match=r"^significance: 0.8 is above 0.5"):
            model.predict_set(X[50:], 0.8)


def test_trusted_p_value_and_merge_are_the_public_ones_bit_for_bit():
    """The estimators rank their own multipliers with ``conformal._p_value`` and merge ties
    with ``ties.merged`` (no checks: their inputs are valid by construction). On 2000
    drawn bags with many ties, copies of the new score and infinite scores, both give the
    public functions' bits, with and without smoothing: ``_p_value`` on the bits that
    ``p_values`` with ``tie_tol=0`` ranks, and on the merged bag what ``p_values`` gives."""
    rng = np.random.default_rng(41)
    for _ in range(2000):
        n = int(rng.integers(1, 30))
        scores = rng.choice([0.0, 0.5, 1.0, 2.5, np.inf], size=n) + rng.choice(
            [0.0, 1e-15, 0.3], size=n
        )
        new = float(rng.choice(np.r_[scores, 0.7, np.inf]))
        tau = None if rng.random() < 0.5 else float(rng.random())
        public = conformal.p_values(scores, new, tau=tau, tie_tol=0)
        assert conformal._p_value(scores, new, tau) == public
        bag = ties.merged(np.r_[scores, new])
        assert conformal._p_value(bag[:-1], bag[-1], tau) == conformal.p_values(
            scores, new, tau=tau
        )
        tol = float(rng.choice([1e-12, 1e-3, 0.2]))
        assert np.array_equal(ties.merged(scores, tol), conformal.merge_ties(scores, tol))


ALL_MACHINES = {
    "TransductiveSVM": lambda: TransductiveSVM(),
    "TransductiveSVM Mondrian": lambda: TransductiveSVM(mondrian=True, tie_break="first"),
    "DistanceTCM": lambda: DistanceTCM(),
    "SplitConformalSVM Hardoon": lambda: SplitConformalSVM(convention="hardoon"),
    "CrossConformalSVM": lambda: CrossConformalSVM(),
    "TCMNearestNeighbours": lambda: TCMNearestNeighbours(),
    "SplitConformalNearestNeighbours": lambda: SplitConformalNearestNeighbours(),
}


@pytest.mark.parametrize("name", ALL_MACHINES)
def test_predict_all_is_every_answer_from_one_computation(name, monkeypatch):
    """``predict_all`` gives what ``predict_p``, ``predict_confidence`` and ``predict_set`` give,
    with each machine's own tie and region rules, computing the p-values once (counted: the
    transductive SVM's tie rule reads its hypotheses, the others' ``predict_p``)."""
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(-1, 1, (20, 2)), rng.normal(1, 1, (20, 2))])
    y = np.repeat(["a", "b"], 20)
    test = np.vstack([X[:4], rng.normal(0, 1, (4, 2))])
    model = ALL_MACHINES[name]().fit(X, y)
    every = model.predict_all(test, 0.2)
    labels, confidence, credibility = model.predict_confidence(test)
    np.testing.assert_array_equal(every.p_values, model.predict_p(test))
    np.testing.assert_array_equal(every.labels, labels)
    np.testing.assert_array_equal(every.labels, model.predict(test))
    np.testing.assert_array_equal(every.confidence, confidence)
    np.testing.assert_array_equal(every.credibility, credibility)
    np.testing.assert_array_equal(every.regions, model.predict_set(test, confidence=0.8))
    computed = "predict_p"
    if isinstance(model, TransductiveSVM):
        computed = "_mondrian" if model.mondrian else "solve_hypotheses"
    calls, original = [], getattr(type(model), computed)

    def counted(self, *args):
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(type(model), computed, counted)
    model.predict_all(test, 0.2)
    assert calls == [1]


@pytest.mark.parametrize("trials", [1, 7, 308, 600, 5000])
@pytest.mark.parametrize("eps", [0.01, 0.05, 0.1, 0.3])
@pytest.mark.parametrize("level", [0.9, 0.99, 0.999])
def test_error_band_holds_the_error_count_with_the_level_asked(trials, eps, level):
    """A Binomial(trials, eps) count falls outside [low, high] with probability at most
    1 - level, and each end is the quantile scipy's binomial distribution gives; arrays give the
    scalars' bands element by element."""
    from scipy.stats import binom

    low, high = conformal.error_band(trials, eps, level)
    outside = binom.cdf(low - 1, trials, eps) + binom.sf(high, trials, eps)
    assert outside <= 1 - level + 1e-12
    assert binom.cdf(low - 1, trials, eps) <= (1 - level) / 2 + 1e-12
    assert binom.sf(high, trials, eps) <= (1 - level) / 2 + 1e-12
    lows, highs = conformal.error_band([trials, trials], [eps, eps], level)
    assert lows.tolist() == [low, low] and highs.tolist() == [high, high]
