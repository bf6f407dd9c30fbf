"""Shared fixtures: random SVM problems of the kinds the oracle tests need."""

from __future__ import annotations

import numpy as np

from svmtrust.kernels import linear_kernel, polynomial_kernel, rbf_kernel


def random_problem(kind: str, seed: int):
    """A random binary problem ``(K, y, C)`` of a named kind.

    Kinds: ``"soft"`` (overlapping Gaussian classes, RBF, finite C), ``"hard"`` (separated
    classes, linear kernel, C = inf), ``"unbalanced"`` (one class five times the other),
    ``"duplicates"`` (a fifth of the points repeated, labels kept), ``"poly"`` (polynomial
    kernel, finite C), ``"hard_rbf"`` (RBF hard margin on well separated classes).
    """
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 90))
    d = int(rng.integers(2, 6))
    if kind == "unbalanced":
        n_pos = max(n // 6, 3)
        y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    else:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
    shift = {"hard": 3.0, "hard_rbf": 4.0}.get(kind, 1.0)
    X = rng.normal(size=(n, d)) + shift * y[:, None] / np.sqrt(d)
    if kind == "duplicates":
        repeat = rng.choice(n, size=n // 5, replace=False)
        X, y = np.vstack([X, X[repeat]]), np.r_[y, y[repeat]]
    C = float(rng.choice([0.1, 1.0, 10.0]))
    if kind in ("hard", "hard_rbf"):
        C = np.inf
    if kind == "hard":
        K = linear_kernel(X)
    elif kind == "poly":
        K = polynomial_kernel(X, degree=2, scale=float(d))
    else:
        K = rbf_kernel(X, gamma=1.0 / d)
    return K, y, C
