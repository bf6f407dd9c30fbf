"""The cost of one optimum per bag (``make bench``; not part of ``make test``).

Issue 22 asks that the canonical optimum stay cheap. For RBF problems (C = 1, gamma = 1/d) of
the Pima data at n = 200, 400 and 768 (all of it) and of Satimage (one class against the rest,
min-max scaled) at n = 1600 and 3200, this times ``fit_svm(solver="libsvm")`` (libsvm, the
active-set polish and the minimum-norm step) against the bare libsvm run underneath it
(``svmtrust.svm._solve_libsvm``), fastest of repeated runs timed in alternation, and prints the
ratio. The canonical step is a few bordered solves on the free support vectors, O(n_free^3),
and a few products with the columns of the support vectors, O(n n_SV), next to libsvm's
O(n^2) per pass.
"""

from __future__ import annotations

import numpy as np
from svmtrust import datasets
from svmtrust.kernels import rbf_kernel
from svmtrust.svm import _solve_libsvm, fit_svm

from .timing import fastest

REPEATS = 5


def _problems():
    """(name, X, y) of the timed problems."""
    X, y, _ = datasets.load("pima")
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.where(y == y[0], 1.0, -1.0)
    for n in (200, 400, 768):
        yield "pima", X[:n], y[:n]
    X, y, _ = datasets.load("satimage")
    X = (X - X.min(axis=0)) / np.ptp(X, axis=0)
    y = np.where(y == y[0], 1.0, -1.0)
    for n in (1600, 3200):
        yield "satimage", X[:n], y[:n]


def test_canonical_overhead_over_bare_libsvm():
    ratios = []
    for name, X, y in _problems():
        n = y.size
        K = rbf_kernel(X, gamma=1.0 / X.shape[1])
        bare, full = fastest(
            lambda: _solve_libsvm(K, y, 1.0),
            lambda: fit_svm(K, y, 1.0, solver="libsvm", check_kernel=False),
            repeats=REPEATS,
        )
        sol = fit_svm(K, y, 1.0, solver="libsvm", check_kernel=False)
        ratios.append(full / bare)
        print(
            f"\n{name} n = {n}: bare libsvm {bare * 1e3:.1f} ms, fit_svm {full * 1e3:.1f} ms "
            f"(ratio {full / bare:.2f}x), {sol.free.size} free SVs, exact {sol.exact}",
            end="",
        )
    print(f"\ncanonical optimum: overhead ratios {', '.join(f'{r:.2f}x' for r in ratios)}")
    assert all(np.isfinite(ratios))
