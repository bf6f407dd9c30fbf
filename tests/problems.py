"""Shared fixtures: random SVM problems of the kinds the oracle tests need."""

from __future__ import annotations

import numpy as np
from svmtrust.kernels import linear_kernel, polynomial_kernel, rbf_kernel

#: Kinds that are another kind with the kernel multiplied by a factor and C divided by it (the
#: same problem: multipliers divided by the factor, decision values unchanged), at scales where
#: a single-precision kernel underflows (below about 1e-38) or overflows (above about 3e38).
SCALED_KINDS = {"tiny_scale": ("soft", 1e-50), "huge_scale": ("soft", 1e40)}


def random_problem(kind: str, seed: int):
    """A random binary problem ``(K, y, C)`` of a named kind.

    Kinds: ``"soft"`` (overlapping Gaussian classes, RBF, finite C), ``"hard"`` (separated
    classes, linear kernel, C = inf), ``"unbalanced"`` (one class five times the other),
    ``"duplicates"`` (a fifth of the points repeated, labels kept), ``"poly"`` (polynomial
    kernel, finite C), ``"hard_rbf"`` (RBF hard margin on well separated classes),
    ``"degenerate"`` (:func:`degenerate_problem`), ``"low_rank"`` (a linear kernel of rank 2 on
    overlapping classes, finite C), ``"at_bound"`` (balanced classes and a box so small that
    every multiplier sits at C, so no example is free) and the :data:`SCALED_KINDS`.
    """
    if kind in SCALED_KINDS:
        base, factor = SCALED_KINDS[kind]
        K, y, C = random_problem(base, seed)
        return K * factor, y, C / factor
    if kind == "degenerate":
        return degenerate_problem(seed)
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 90))
    d = int(rng.integers(2, 6))
    if kind == "unbalanced":
        n_pos = max(n // 6, 3)
        y = np.r_[np.ones(n_pos), -np.ones(n - n_pos)]
    elif kind == "at_bound":
        y = np.tile([1.0, -1.0], n // 2)
    else:
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
        y[:2] = (1.0, -1.0)
    shift = {"hard": 3.0, "hard_rbf": 4.0}.get(kind, 1.0)
    X = rng.normal(size=(len(y), d)) + shift * y[:, None] / np.sqrt(d)
    if kind == "duplicates":
        repeat = rng.choice(n, size=n // 5, replace=False)
        X, y = np.vstack([X, X[repeat]]), np.r_[y, y[repeat]]
    if kind == "low_rank":
        X = X[:, :2] @ rng.normal(size=(2, d + 3))
    C = float(rng.choice([0.1, 1.0, 10.0]))
    if kind in ("hard", "hard_rbf"):
        C = np.inf
    if kind == "at_bound":
        C = 0.1 / len(y)  # |sum_j alpha_j y_j K_ij| <= C n < 1: every margin is violated
    if kind in ("hard", "low_rank"):
        K = linear_kernel(X)
    elif kind == "poly":
        K = polynomial_kernel(X, degree=2, scale=float(d))
    else:
        K = rbf_kernel(X, gamma=1.0 / d)
    return K, y, C


def degenerate_problem(seed: int, n: int = 30):
    """n uniform points in the unit cube of 3-D, a third of them positive, linear kernel, C = 1.

    The labels carry no signal, so the optimum is usually ``w = 0``: every positive multiplier
    at C = 1 and the negative ones sharing the same sum, many of them free and not unique. The
    gradient libsvm tests is then a sum of many terms that cancel, where its single-precision
    kernel cache leaves rounding of order 1e-7.
    """
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    y = -np.ones(n)
    y[rng.permutation(n)[: n // 3]] = 1.0
    return linear_kernel(X), y, 1.0
