"""The Venn-ABERS estimators against independent computations, on problems built to tie.

* The full predictor's incremental route against retraining (``method="retrain"``) and
  against a third computation written here: each augmented bag's SVM fitted from scratch
  (:func:`svmtrust.svm.fit_svm`), its KKT margins (:func:`svmtrust.svm_distance.kkt_margins`)
  as scores, and plain-Python pool-adjacent-violators on the bag, ties merged by the rule.
* The inductive predictor against the ``venn-abers`` package's ``VennAbers`` on the same
  calibration scores, and the cross predictor fold by fold against the same package, its
  folds' pairs merged by the geometric mean (the package's own cross predictor draws its folds
  with scikit-learn's ``StratifiedKFold``, so only the fold-wise computation can agree).
* Invariance: permuting the feature columns, and the rows of the training set, moves no pair.
* Validity (Vovk & Petej 2014): on exchangeable data the probability of the true label,
  ``P = p1`` if the label is 1 and ``p0`` if 0, satisfies ``E(Y - P) = 0``.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from svmtrust import ties
from svmtrust.kernels import rbf_kernel
from svmtrust.one_vs_rest import problem_signs, problems
from svmtrust.svm import fit_svm
from svmtrust.svm_distance import kkt_margins
from svmtrust.venn_abers_svm import VennAbersSVM
from venn_abers import VennAbers

from tests.test_venn_abers import _pava
from tests.tie_structures import binary, categorical, mirrored_grid, with_copies_of


def _structured():
    """Problems with conflicting copies, an integer grid with mirrored classes, near-copies
    and an ill-scaled column: 10 problems, 2 and 3 classes."""
    out = []
    for seed in range(3):
        out.append(with_copies_of(categorical(seed, 40), [0, 1, 2]))
        out.append(categorical(seed + 10, 45, n_classes=3))
    out.append(mirrored_grid(0, 2))
    out.append(binary(mirrored_grid(1, 2)))
    rng = np.random.default_rng(5)
    base = categorical(20, 40)
    near = base.X + rng.normal(scale=1e-9, size=base.X.shape)  # near-copies
    out.append(type(base)("near_copies", near, base.y, base.X_test))
    scaled = base.X * np.r_[1e2, 1.0, 1e-2]  # ill-scaled columns
    out.append(type(base)("ill_scaled", scaled, base.y, base.X_test * np.r_[1e2, 1.0, 1e-2]))
    return out


PROBLEMS = _structured()
GAMMA = 0.5


def _model(**kw):
    return VennAbersSVM(kernel="rbf", gamma=GAMMA, C=2.0, **kw)


def _oracle_pairs(problem):
    """The full predictor's pairs, shape (m, n_problems), by fitting every augmented bag from
    scratch and fitting the isotonic regression in plain Python (module notes)."""
    X, codes = problem.X, np.unique(problem.y, return_inverse=True)[1]
    n_classes = codes.max() + 1
    out = np.empty((2, problem.X_test.shape[0], len(problems(n_classes))))
    for i, x in enumerate(problem.X_test):
        bag = np.vstack([X, x])
        K = rbf_kernel(bag, gamma=GAMMA)
        for j, c in enumerate(problems(n_classes)):
            target = (codes == (1 if n_classes == 2 else c)).astype(float)
            for s, sign in enumerate((-1.0, 1.0)):
                signs = np.r_[problem_signs(codes, c, n_classes), sign]
                sol = fit_svm(K, signs, 2.0, check_input=False)
                scores = signs * kkt_margins(sol, K)
                if abs(sol.w_norm_squared) < 1e-9:
                    scores = np.zeros_like(scores)
                merged = ties.merged(scores)
                labels = np.r_[target, float(s)]
                levels = np.unique(merged)
                group = np.searchsorted(levels, merged)
                counts = np.bincount(group)
                fit = _pava(np.bincount(group, weights=labels) / counts, counts)
                out[s, i, j] = fit[group[-1]]
    return out


@pytest.mark.parametrize("problem", PROBLEMS, ids=lambda p: p.name)
def test_full_incremental_equals_retraining_and_an_oracle(problem):
    """The same pairs from the incremental route, from retraining and from the oracle."""
    pairs = {
        method: np.array(
            _model(predictor="full", method=method)
            .fit(problem.X, problem.y)
            .predict_pairs(problem.X_test)
        )
        for method in ("incremental", "retrain")
    }
    assert np.array_equal(pairs["incremental"], pairs["retrain"])
    oracle = _oracle_pairs(problem)
    n_classes = np.unique(problem.y).size
    got = pairs["incremental"][:, :, 1:] if n_classes == 2 else pairs["incremental"]
    np.testing.assert_allclose(got, oracle, rtol=0, atol=1e-12)


@pytest.mark.parametrize("predictor", ["inductive", "cross", "full"])
@pytest.mark.parametrize("problem", PROBLEMS[:4], ids=lambda p: p.name)
def test_reordering_columns_or_rows_moves_no_pair(problem, predictor):
    """Pairs are the same, bit for bit, with the feature columns permuted, and (full
    predictor) with the training rows permuted."""
    model = _model(predictor=predictor)
    pairs = np.array(model.fit(problem.X, problem.y).predict_pairs(problem.X_test))
    perm = np.random.default_rng(0).permutation(problem.X.shape[1])
    permuted = model.fit(problem.X[:, perm], problem.y).predict_pairs(problem.X_test[:, perm])
    assert np.array_equal(pairs, np.array(permuted))
    if predictor == "full":
        rows = np.random.default_rng(1).permutation(problem.X.shape[0])
        shuffled = model.fit(problem.X[rows], problem.y[rows]).predict_pairs(problem.X_test)
        assert np.array_equal(pairs, np.array(shuffled))


def _package_pair(cal, labels, test):
    """The venn-abers package's (p0, p1), its scores the calibration scores mapped monotonely
    into (0, 1) (it reads column 1 of a probability matrix)."""

    def squash(s):
        return 1.0 / (1.0 + np.exp(-s))

    va = VennAbers()
    va.fit(np.c_[1 - squash(cal), squash(cal)], labels)
    _, pair = va.predict_proba(np.c_[1 - squash(test), squash(test)])
    return pair[:, 0], pair[:, 1]


@pytest.mark.parametrize("seed", range(5))
def test_inductive_and_cross_match_the_venn_abers_package(seed):
    """Binary, untied continuous data: each fold's pairs equal the package's to 1e-12."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(90, 3))
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    test = rng.normal(size=(30, 3))
    for predictor in ("inductive", "cross"):
        folds = {"n_folds": 3} if predictor == "cross" else {}
        model = _model(predictor=predictor, **folds).fit(X, y)
        p0, p1 = model.predict_pairs(test)
        p0, p1 = (np.atleast_3d(p.T).T if predictor == "inductive" else p for p in (p0, p1))
        p0, p1 = (p.reshape(-1, test.shape[0], 2) for p in (p0, p1))
        for k, (scores, targets) in enumerate(model.calibration_):
            e0, e1 = _package_pair(scores[:, 0], targets[0], model.models_[k].distances(test)[:, 0])
            np.testing.assert_allclose(p0[k, :, 1], e0, rtol=0, atol=1e-12)
            np.testing.assert_allclose(p1[k, :, 1], e1, rtol=0, atol=1e-12)


def test_probabilities_sum_to_one_and_follow_the_merge():
    problem = PROBLEMS[1]  # three classes
    for predictor in ("inductive", "cross", "full"):
        for merge in ("log_loss", "brier"):
            P = _model(predictor=predictor, merge=merge).fit(problem.X, problem.y)
            proba = P.predict_proba(problem.X_test)
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
            assert np.all(proba > 0)


def _true_probability(model, X, y):
    p0, p1 = model.predict_pairs(X)
    return np.where(y == 1, p1[:, 1], p0[:, 1])


@pytest.mark.parametrize("predictor,trials,n", [("inductive", 1500, 40), ("full", 300, 24)])
def test_the_true_labels_probability_is_calibrated(predictor, trials, n):
    """Independent trials, each a fresh exchangeable sample of ``n + 1`` examples of a noisy
    two-class problem: under validity ``Y - P`` has mean 0 given ``P``, so
    ``z = sum(Y - P) / sqrt(sum P (1 - P))`` is about standard normal; |z| < 4 (two-sided level
    6e-5; seeded, so the test is deterministic)."""
    rng = np.random.default_rng(7)
    residual, variance = 0.0, 0.0
    for _ in range(trials):
        X = rng.normal(size=(n + 1, 2))
        y = (X[:, 0] + rng.normal(scale=1.0, size=n + 1) > 0).astype(int)
        if np.unique(y[:n]).size < 2:
            continue
        size = {"calibration_size": 0.5} if predictor == "inductive" else {}
        model = _model(predictor=predictor, **size).fit(X[:n], y[:n])
        P = _true_probability(model, X[n:], y[n:])[0]
        residual += y[n] - P
        variance += P * (1 - P)
    z = residual / np.sqrt(variance)
    assert abs(z) < 4, z


def test_string_labels_dataframes_pipelines_and_a_grid_search():
    import pandas as pd

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(80, 2)), columns=["a", "b"])
    y = np.where(X["a"] + rng.normal(scale=0.5, size=80) > 0, "up", "down")
    pipe = make_pipeline(StandardScaler(), VennAbersSVM(C=1.0, predictor="cross", n_folds=3))
    search = GridSearchCV(pipe, {"vennaberssvm__gamma": [0.1, 1.0]}, cv=3, scoring="neg_log_loss")
    search.fit(X, y)
    proba = search.predict_proba(X.iloc[:5])
    assert search.best_estimator_.classes_.tolist() == ["down", "up"]
    assert proba.shape == (5, 2)
    assert set(search.predict(X.iloc[:5])) <= {"down", "up"}
