"""Differential test: leave-one-out by the decremental path against retraining from scratch.

:func:`svmtrust.span.leave_one_out` removes each support vector from the full optimum along an
exact path (``method="decremental"``) and retrains only where the path cannot certify its end.
Its answer must be retraining's (``method="retrain"``): the same errors and the same
``sets_unchanged`` at every point, margins equal to rounding. Seeded generators build on purpose
the structures that break exact routes (pitfalls.md, "Adding one example to a trained SVM"):

1. ``copies``: rows repeated with their label (copies on the margin, at C and off the support);
2. ``conflicting``: rows repeated with both labels;
3. ``on_margin``: integer points and a linear kernel, so that points at a bound lie exactly on
   the margin (a face of many optima, ties of events);
4. ``no_free``: balanced classes and a box so small that every multiplier is at C;
5. ``hard``: separable data, ``C = inf`` (linear and RBF kernels);
6. ``large_C``: overlapping classes with ``C`` from 1e2 to 1e6;
7. ``library``: the kinds of ``tests/problems.py`` (soft, unbalanced, duplicates, polynomial,
   degenerate ``w = 0``, low rank, at bound), as the other oracle tests draw them.

Run ``pytest tests/test_span_loo_route.py -s`` for the number of problems and retrainings
compared and how many leave-one-out machines the path reached.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.span import leave_one_out
from svmtrust.svm import InexactWarning, fit_svm

from tests.problems import random_problem


def gen_copies(rng):
    """Distinct points, some repeated up to four times with their label, RBF or linear."""
    k = int(rng.integers(8, 16))
    X = rng.normal(size=(k, 2))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=k) > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    counts = rng.integers(1, 5, k)
    X, y = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    K = rbf_kernel(X, gamma=float(rng.choice([0.3, 1.0]))) if rng.random() < 0.6 else X @ X.T
    return K, y, float(rng.choice([0.3, 1.0, 10.0, np.inf if rng.random() < 0.2 else 3.0]))


def gen_conflicting(rng):
    """Points repeated with both labels, and copies with one label, soft margin."""
    n = int(rng.integers(10, 20))
    X = np.round(rng.normal(size=(n, 2)), 1)
    y = np.where(X[:, 1] > 0, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    flip = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    same = rng.choice(n, size=int(rng.integers(1, 4)), replace=False)
    X = np.vstack([X, X[flip], X[same]])
    y = np.r_[y, -y[flip], y[same]]
    K = rbf_kernel(X, gamma=float(rng.choice([0.5, 2.0]))) if rng.random() < 0.5 else X @ X.T
    return K, y, float(rng.choice([0.1, 1.0, 10.0]))


def gen_on_margin(rng):
    """Integer points and a linear kernel: bounded points exactly on the margin, exact ties."""
    n = int(rng.integers(8, 18))
    X = rng.integers(-3, 4, size=(n, 2)).astype(float)
    y = np.where(X[:, 0] > 0, 1.0, np.where(X[:, 0] < 0, -1.0, rng.choice([-1.0, 1.0], n)))
    y[:2] = (1.0, -1.0)
    X[:2, 0] = (1.0, -1.0)
    separable = np.all(y * X[:, 0] > 0)
    C = float(rng.choice([0.5, 1.0, 2.0] + ([np.inf] if separable else [])))
    return X @ X.T, y, C


def gen_no_free(rng):
    """Balanced classes, overlapping, and ``C n max K < 1``: every multiplier at C."""
    n = 2 * int(rng.integers(5, 12))
    y = np.tile([1.0, -1.0], n // 2)
    X = rng.normal(size=(n, 2)) + 0.5 * y[:, None]
    K = rbf_kernel(X, gamma=0.5) if rng.random() < 0.5 else X @ X.T
    return K, y, float(0.5 / (n * np.max(np.diag(K))))


def gen_hard(rng):
    """Separated classes, hard margin, linear or RBF kernel."""
    n = int(rng.integers(10, 30))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    X = rng.normal(size=(n, 3)) + 2.5 * y[:, None]
    if rng.random() < 0.5:
        return linear_kernel(X), y, np.inf
    return rbf_kernel(X, gamma=float(rng.choice([0.05, 0.2, 1.0]))), y, np.inf


def gen_large_C(rng):
    """Overlapping classes and ``C`` from 1e2 to 1e6."""
    n = int(rng.integers(10, 30))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = (1.0, -1.0)
    X = rng.normal(size=(n, 2)) + 0.7 * y[:, None]
    K = rbf_kernel(X, gamma=float(rng.choice([0.5, 2.0]))) if rng.random() < 0.7 else X @ X.T
    return K, y, float(10 ** rng.uniform(2, 6))


LIBRARY_KINDS = ("soft", "unbalanced", "duplicates", "poly", "degenerate", "low_rank", "at_bound")


def gen_library(rng):
    """A problem of ``tests/problems.py``, of a kind drawn in turn."""
    kind = LIBRARY_KINDS[int(rng.integers(len(LIBRARY_KINDS)))]
    return random_problem(kind, int(rng.integers(1_000_000)))


#: structure -> (generator, number of problems)
STRUCTURES = {
    "copies": (gen_copies, 10),
    "conflicting": (gen_conflicting, 10),
    "on_margin": (gen_on_margin, 12),
    "no_free": (gen_no_free, 6),
    "hard": (gen_hard, 8),
    "large_C": (gen_large_C, 8),
    "library": (gen_library, 14),
}


def _compare(K, y, C):
    """Both methods on one problem; returns (support vectors, retrained by the decremental
    route); fails on any difference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactWarning)
        sol = fit_svm(K, y, C, solver="libsvm")
        fast = leave_one_out(K, y, C, sol=sol, method="decremental")
        slow = leave_one_out(K, y, C, sol=sol, method="retrain")
    assert slow.retrained == sol.support.size and slow.decremented == 0
    assert fast.retrained + fast.decremented == sol.support.size
    np.testing.assert_array_equal(fast.errors, slow.errors)
    np.testing.assert_array_equal(fast.sets_unchanged, slow.sets_unchanged)
    np.testing.assert_allclose(fast.margins, slow.margins, rtol=1e-6, atol=1e-6)
    return int(sol.support.size), int(fast.retrained)


@pytest.mark.parametrize(
    "structure, seed",
    [(name, seed) for name, (_, count) in STRUCTURES.items() for seed in range(count)],
)
def test_decremental_leave_one_out_equals_retraining(structure, seed):
    generator = STRUCTURES[structure][0]
    K, y, C = generator(np.random.default_rng([seed, len(structure)]))
    _compare(K, y, C)


def test_the_path_is_taken_and_certifies_most_machines():
    """Over problems of every structure the path, not retraining, reaches most machines (the
    comparison above would pass vacuously if every support vector were retrained)."""
    total = retrained = 0
    for structure, (generator, count) in STRUCTURES.items():
        rows = [
            _compare(*generator(np.random.default_rng([seed, len(structure)])))
            for seed in range(count)
        ]
        n_sv, n_retrained = np.sum(rows, axis=0)
        print(
            f"\n{structure}: {len(rows)} problems, {n_sv} leave-one-out machines, "
            f"{n_sv - n_retrained} by the path, {n_retrained} retrained",
            end="",
        )
        total, retrained = total + n_sv, retrained + n_retrained
    print(f"\nall: {total} machines compared with retraining, {total - retrained} by the path")
    assert total - retrained >= 0.6 * total
