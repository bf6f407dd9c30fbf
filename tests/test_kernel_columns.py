"""Differential test of the split and cross-conformal machines' fit from the data
(``svmtrust._kernel_columns.fit_from_data``): libsvm on its own RBF kernel, made exact on the
support vectors' columns, against ``fit_svm`` on the whole Gram matrix (itself checked against
Clarabel in test_svm.py), and against ``fit_svm`` with Clarabel directly.

The problems are generated to hold the structures where a fit can go wrong: copies of an
example with its label and with the other label, points of an integer grid (equal distances
everywhere, margin sets that are not affinely independent), features in {-1, 0, 1} with many
repeats (the votes data), a box so small that no multiplier is free, boxes from 1 to 1e4 (past
``LARGE_BOX``, where the Gram matrix is always used), widths from near-diagonal kernels to
near-constant ones, and three or four classes (one SVM per class, sharing the columns).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from svmtrust import _kernel_columns, split_conformal
from svmtrust.kernels import rbf_kernel
from svmtrust.one_vs_rest import problem_signs, problems
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm import fit_svm

STRUCTURES = ("gaussian", "copies", "conflicting", "grid", "votes", "no_free", "large_C", "classes")
SEEDS = range(12)


def generated(structure: str, seed: int):
    """``(X, codes, n_classes, C, gamma)`` of one generated problem of ``structure``."""
    rng = np.random.default_rng([seed, STRUCTURES.index(structure)])
    n, d = int(rng.integers(30, 110)), int(rng.integers(2, 6))
    n_classes = int(rng.integers(3, 5)) if structure == "classes" else 2
    codes = rng.integers(n_classes, size=n)
    codes[:n_classes] = np.arange(n_classes)
    X = rng.normal(size=(n, d)) + 1.5 * codes[:, None] * (np.arange(d) == 0)
    if structure == "grid":
        X = rng.integers(0, 3, size=(n, d)).astype(float)
    if structure == "votes":
        X = rng.choice([-1.0, 0.0, 1.0], size=(n, d + 6), p=[0.45, 0.1, 0.45])
        X[codes == 1, :2] = np.abs(X[codes == 1, :2])
    if structure in ("copies", "conflicting", "votes"):
        rows = rng.choice(n, n // 4, replace=False)
        X = np.vstack([X, X[rows]])
        flip = (1 - codes[rows]) if structure == "conflicting" else codes[rows]
        codes = np.r_[codes, flip]
    C = float(10.0 ** rng.uniform(0, 2))
    if structure == "no_free":
        C = 1.5 / len(codes)
    if structure == "large_C":
        C = float(rng.choice([1e2, 1e3, 1e4]))
    gamma = float(10.0 ** rng.uniform(-2, 1)) / d
    return X, codes, n_classes, C, gamma


def _problem_labels(codes, n_classes):
    return [problem_signs(codes, c, n_classes) for c in problems(n_classes)]


@pytest.fixture(scope="module")
def compared():
    """Every generated problem's SVMs both ways, and for each SVM whether the fit from the data
    took the whole Gram matrix (``_kernel_columns._with_gram``, spied on)."""
    results = []
    with pytest.MonkeyPatch.context() as patch:
        original, gram_route = _kernel_columns._with_gram, []

        def spy(gram, y, C):
            gram_route.append(y)
            return original(gram, y, C)

        patch.setattr(_kernel_columns, "_with_gram", spy)
        for structure in STRUCTURES:
            for seed in SEEDS:
                X, codes, n_classes, C, gamma = generated(structure, seed)
                kernel = functools.partial(rbf_kernel, gamma=gamma)
                labels = _problem_labels(codes, n_classes)
                gram_route.clear()
                fast = _kernel_columns.fit_from_data(
                    X, labels, C, kernel, functools.cache(lambda X=X, k=kernel: k(X))
                )
                took_gram = [any(y is other for other in gram_route) for y in labels]
                reference = [fit_svm(kernel(X), y, C, "libsvm") for y in labels]
                results.append((structure, seed, X, labels, C, kernel, fast, reference, took_gram))
    return results


def test_same_optimum_as_fit_svm_on_the_gram_matrix(compared):
    svms, routes = 0, {"columns": 0, "gram": 0}
    for structure, seed, *_, fast, reference, took_gram in compared:
        for got, want, gram in zip(fast, reference, took_gram, strict=True):
            where = (structure, seed)
            assert got.exact == want.exact, where
            for field in ("support", "free", "bounded", "on_margin"):
                np.testing.assert_array_equal(getattr(got, field), getattr(want, field), where)
            scale = max(1.0, float(np.max(want.alpha)))
            np.testing.assert_allclose(got.alpha, want.alpha, rtol=0, atol=1e-9 * scale)
            assert got.b == pytest.approx(want.b, abs=1e-9), where
            assert got.objective == pytest.approx(want.objective, rel=1e-10, abs=1e-12), where
            if gram:  # not settled on the columns: fit_svm itself, the same bits
                np.testing.assert_array_equal(got.alpha, want.alpha)
            svms += 1
            routes["gram" if gram else "columns"] += 1
    # 96 problems, 128 SVMs: 92 settled on the columns, 36 on the Gram matrix (fixed seeds)
    assert len(compared) == len(STRUCTURES) * len(SEEDS) and svms > len(compared)
    assert routes["columns"] >= 40 and routes["gram"] >= 15, routes


def test_same_optimum_as_clarabel(compared):
    """Against the other solver, on a third of the problems (Clarabel takes longer)."""
    for structure, seed, X, labels, C, kernel, fast, *_ in compared[::3]:
        for y, got in zip(labels, fast):
            exact = fit_svm(kernel(X), y, C, "cvxpy")
            scale = max(1.0, float(np.max(exact.alpha)))
            np.testing.assert_allclose(
                got.alpha, exact.alpha, rtol=0, atol=1e-6 * scale, err_msg=str((structure, seed))
            )


def _two_ways(structure, seed, make):
    """A machine fitted with the RBF kernel libsvm computes and with the same kernel as a
    callable it does not know (the Gram matrix's route), and test examples: five copies of
    training examples, then five new ones."""
    X, codes, n_classes, C, gamma = generated(structure, seed)
    known = functools.partial(rbf_kernel, gamma=gamma)

    def unknown(A, B=None):
        return rbf_kernel(A, B, gamma=gamma)

    test = np.vstack([X[:5], np.random.default_rng(seed).normal(size=(5, X.shape[1]))])
    return make(known, C, seed).fit(X, codes), make(unknown, C, seed).fit(X, codes), test


@pytest.mark.parametrize("structure", ["copies", "conflicting", "classes", "gaussian"])
def test_split_conformal_p_values_of_the_gram_route(structure):
    """The same calibration scores to rounding, and the same p-values, bit for bit: a test
    example that copies a training example on the margin scores ``-1 / ||w||`` exactly, as does
    a calibration example copying another one, and the two routes round them differently, but
    the tie rule (:mod:`svmtrust.ties`) merges them before they are counted."""
    for seed in range(4):
        fast, slow, test = _two_ways(
            structure,
            seed,
            lambda k, C, seed: SplitConformalSVM(kernel=k, C=C, seed=seed, calibration_size=0.4),
        )
        np.testing.assert_allclose(
            fast.calibration_scores_, slow.calibration_scores_, rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal(fast.predict_p(test), slow.predict_p(test))


@pytest.mark.parametrize("structure", ["copies", "conflicting", "classes", "gaussian"])
def test_cross_conformal_p_values_of_the_gram_route(structure):
    """As for split conformal: calibration scores to rounding, every p-value equal."""
    for seed in range(4):
        fast, slow, test = _two_ways(
            structure,
            seed,
            lambda k, C, seed: CrossConformalSVM(kernel=k, C=C, seed=seed, n_folds=3),
        )
        np.testing.assert_allclose(
            fast.calibration_scores_, slow.calibration_scores_, rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal(fast.predict_p(test), slow.predict_p(test))


def test_only_the_rbf_kernel_goes_to_libsvm():
    assert _kernel_columns.libsvm_computes(rbf_kernel)
    assert _kernel_columns.libsvm_computes(functools.partial(rbf_kernel, gamma=0.3))
    assert not _kernel_columns.libsvm_computes(functools.partial(rbf_kernel, None, gamma=0.3))
    assert not _kernel_columns.libsvm_computes(lambda A, B=None: rbf_kernel(A, B))


def test_every_libsvm_run_failing_goes_to_the_gram_matrix(monkeypatch):
    """With no support vector from libsvm (every run stopped at its limit) there are no
    columns to compute: every problem is fitted on the Gram matrix, as fit_svm fits it."""
    X, codes, n_classes, C, gamma = generated("classes", 0)
    kernel = functools.partial(rbf_kernel, gamma=gamma)
    labels = _problem_labels(codes, n_classes)
    monkeypatch.setattr(
        _kernel_columns.svm, "_libsvm_box", lambda *args: (None, "max_iter_reached", 7)
    )
    got = _kernel_columns.fit_from_data(X, labels, C, kernel, functools.cache(lambda: kernel(X)))
    for y, sol in zip(labels, got, strict=True):  # fit_svm under the same failing libsvm
        want = fit_svm(kernel(X), y, C, "libsvm")
        assert sol.fallback == want.fallback == "max_iter_reached"
        np.testing.assert_array_equal(sol.alpha, want.alpha)


def test_columns_computed_in_blocks_give_the_kept_columns_answers(compared, monkeypatch):
    """Beyond :data:`~svmtrust._kernel_columns.KEPT_ENTRIES` the support vectors' columns are
    computed again, a block of rows at a time, at every product: forced here on every generated
    problem (nothing kept, blocks of 64 values), the same optima as with the columns kept; and
    split conformal prediction scoring its calibration and test rows in blocks of a few rows
    gives the same p-values."""
    monkeypatch.setattr(_kernel_columns, "KEPT_ENTRIES", 0)
    monkeypatch.setattr(_kernel_columns, "BLOCK_ENTRIES", 64)
    svms = 0
    for structure, seed, X, labels, C, kernel, fast, *_ in compared:
        blocked = _kernel_columns.fit_from_data(
            X, labels, C, kernel, functools.cache(lambda X=X, k=kernel: k(X))
        )
        for got, want in zip(blocked, fast, strict=True):
            assert got.exact == want.exact, (structure, seed)
            scale = max(1.0, float(np.max(want.alpha)))
            np.testing.assert_allclose(got.alpha, want.alpha, rtol=0, atol=1e-9 * scale)
            svms += 1
    assert svms >= len(compared)
    for structure in ("copies", "conflicting", "classes"):
        for seed in range(3):
            X, codes, _, C, gamma = generated(structure, seed)
            test = np.vstack([X[:5], np.random.default_rng(seed).normal(size=(5, X.shape[1]))])
            p = {}
            for entries in (64, 2**22):
                monkeypatch.setattr(split_conformal, "BLOCK_ENTRIES", entries)
                model = SplitConformalSVM(gamma=gamma, C=C, seed=seed, calibration_size=0.4)
                p[entries] = model.fit(X, codes).predict_p(test)
            np.testing.assert_array_equal(p[64], p[2**22])
