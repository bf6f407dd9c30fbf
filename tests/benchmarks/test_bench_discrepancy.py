"""Timing of the bounded-w SVM and of peeling (``make bench``; not part of ``make test``).

Reports one bounded-w solve at l = 300, d = 784 (MNIST 0/1) in the library's reduced form
(rank <= l, compiled once with cvxpy Parameters) against problem (9) written directly over the
784 weights, the same reduced solve when the problem is built and compiled for each call (what
the cache of compiled problems saves), and the number of peeling rounds of typical runs on
flipped labels.
"""

from __future__ import annotations

import time

import cvxpy as cp
import numpy as np
from svmtrust import datasets, qp
from svmtrust.discrepancy import _compiled, flipped_labels, peel, represent, solve_reduced


def _direct(X, y, w_max):
    w, b, xi = cp.Variable(X.shape[1]), cp.Variable(), cp.Variable(len(y), nonneg=True)
    problem = cp.Problem(
        cp.Minimize(cp.sum(xi)), [cp.norm(w) <= w_max, cp.multiply(y, X @ w + b) >= 1 - xi]
    )
    qp.solve(problem, "bounded-w problem (9), direct", qp.CONE_TOL)
    return problem.value


def test_bounded_w_solve_at_300_and_peeling_rounds():
    X, y, _ = datasets.load("mnist_01")
    rows = np.random.default_rng(0).permutation(len(y))[:300]
    X, y = X[rows], y[rows].astype(float)
    rep = represent(X)
    solve_reduced(rep, y, 0.2)  # compile once
    times = {"reduced": [], "direct": [], "uncached": []}
    for _ in range(3):
        start = time.perf_counter()
        _, _, margins = solve_reduced(rep, y, 0.2)
        times["reduced"].append(time.perf_counter() - start)
        _compiled.cache_clear()
        start = time.perf_counter()
        solve_reduced(rep, y, 0.2)
        times["uncached"].append(time.perf_counter() - start)
        start = time.perf_counter()
        value = _direct(X, y, 0.2)
        times["direct"].append(time.perf_counter() - start)
    reduced, direct, uncached = (np.median(times[key]) for key in ("reduced", "direct", "uncached"))
    assert np.isclose(np.sum(np.maximum(0, 1 - margins)), value, rtol=1e-6)
    rng = np.random.default_rng(1)
    rounds = [1 + peel(rep, flipped_labels(y, rng), 0.2).n_peeled for _ in range(5)]
    print(
        f"\nbounded-w solve, l = 300, d = 784: reduced form {reduced:.2f} s, direct form "
        f"{direct:.2f} s; built and compiled per call {uncached:.2f} s "
        f"({uncached / reduced:.1f}x the cached solve); solves per peeling run on flipped "
        f"labels: {rounds}"
    )
    assert reduced <= 1.5 * direct
