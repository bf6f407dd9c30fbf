"""Seeded generators of the tie-heavy problems of ``tests/test_exact_ties.py``.

Every problem is a :class:`Problem`: standardised training rows (the mean subtracted and
divided by the standard deviation of the training set, column by column, so that kernel
entries and distances are inexact in floating point), their labels, and test rows standardised
the same way. The structures are those of the review (``../shared/review.md``, "Structures to
build in your tests"):

* :func:`categorical`: a few attributes with two or three values, rows drawn from a few dozen
  distinct vectors, many of which carry both labels;
* :func:`mirrored_grid`: rows of the integer grid ``{0..3}^d`` with three classes, the multiset
  symmetric under ``x_1 -> 3 - x_1`` with classes 0 and 2 exchanged, so that the one-vs-rest
  SVMs of classes 0 and 2 have equal ``||w||`` and their values are equal across classes in
  exact arithmetic.

Test rows are the distinct vectors of the domain (every one a bitwise copy of a training row
unless the domain has vectors the sample missed), in a seeded order; :func:`with_copies_of`
appends bitwise copies of chosen training rows (calibration rows, free support vectors).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Problem:
    """A training set and test objects, standardised with the training set's statistics.

    Attributes
    ----------
    name : str
        Short, for test ids.
    X, y : ndarray of shape (n, d) and (n,)
        Training rows (standardised) and integer labels.
    X_test : ndarray of shape (m, d)
        Test rows, standardised with the training set's mean and deviation.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray


def standardise(train, test):
    """Subtract the training mean and divide by the training standard deviation, per column.

    Parameters
    ----------
    train : ndarray of shape (n, d)
        Raw training rows; every column must vary.
    test : ndarray of shape (m, d)
        Raw test rows.

    Returns
    -------
    train, test : ndarray
        The same arithmetic on every row, so a raw test row equal to a raw training row stays
        its bitwise copy.
    """
    train = np.asarray(train, dtype=float)
    test = np.asarray(test, dtype=float)
    mean, std = train.mean(axis=0), train.std(axis=0)
    assert np.all(std > 0), "every column must vary"
    return (train - mean) / std, (test - mean) / std


def categorical(
    seed: int,
    n: int,
    n_attributes: int = 3,
    n_values: int = 3,
    n_distinct: int = 16,
    both: float = 0.5,
    n_classes: int = 2,
) -> Problem:
    """Categorical rows: few distinct vectors, a fraction of them carrying both labels.

    ``n_distinct`` vectors of ``{0, ..., n_values - 1}^n_attributes`` are drawn (without
    replacement); each training row is one of them (every vector at least twice, the rest at
    random). A fraction ``both`` of the vectors carry two labels, the others one, so that
    copies of one row are both free support vectors of the same class and conflicting
    examples at the bound.

    Parameters
    ----------
    seed : int
    n : int
        Training rows, at least ``2 * n_distinct``.
    n_attributes, n_values : int
        The domain ``{0..n_values - 1}^n_attributes`` (3 to 4 attributes, 2 to 3 values).
    n_distinct : int
        Distinct training vectors, at most the size of the domain.
    both : float
        Fraction of the distinct vectors that carry two labels (0.3 to 0.6).
    n_classes : int
        2 or 3; the label of a single-label vector follows its attribute sum, so the labels
        carry signal.

    Returns
    -------
    Problem
        The test rows are every vector of the domain, in a seeded order.
    """
    rng = np.random.default_rng(seed)
    domain = np.array(list(itertools.product(range(n_values), repeat=n_attributes)))
    assert n_distinct <= len(domain) and n >= 2 * n_distinct
    vectors = domain[rng.choice(len(domain), n_distinct, replace=False)]
    sums = vectors.sum(axis=1)
    cut = np.quantile(sums, np.linspace(0, 1, n_classes + 1)[1:-1])
    main = np.searchsorted(cut, sums, side="right")  # the label the attributes suggest
    second = (main + 1 + rng.integers(0, n_classes - 1, n_distinct)) % n_classes
    two = rng.permutation(n_distinct) < round(both * n_distinct)
    which = np.r_[
        np.repeat(np.arange(n_distinct), 2), rng.integers(0, n_distinct, n - 2 * n_distinct)
    ]
    # a two-label vector's first copy carries the label its attributes suggest, its second
    # copy the other label, further copies either at random
    second_label = np.r_[np.tile([False, True], n_distinct), rng.random(n - 2 * n_distinct) < 0.5]
    y = np.where(two[which] & second_label, second[which], main[which])
    order = rng.permutation(n)
    X, y = vectors[which][order], y[order]
    assert np.unique(y).size == n_classes, "every class must be present"
    X, X_test = standardise(X, domain[rng.permutation(len(domain))])
    name = f"cat{n_attributes}x{n_values}_n{n}_{n_classes}cl_s{seed}"
    return Problem(name, X, y.astype(int), X_test)


def mirrored_grid(seed: int, d: int, n: int = 40, noise: float = 0.1) -> Problem:
    """Rows of ``{0..3}^d``, three classes in bands of ``x_1``, symmetric under a mirror.

    Half the rows are drawn at random; class 0 where ``x_1 = 0``, class 2 where ``x_1 = 3``,
    class 1 between, and a fraction ``noise`` of labels moved to another class. The other
    half is their mirror image ``x_1 -> 3 - x_1`` with classes 0 and 2 exchanged. In exact
    arithmetic the SVMs of class 0 and of class 2 against the rest are then mirror images:
    equal ``||w||``, and a row and its mirror get equal values from the two SVMs (the review's
    ``-0.49999999999999989`` against ``-0.5000000000000009``). Standardising keeps the
    symmetry bit for bit (the mean of ``x_1`` is 1.5, and ``(0 - 1.5) / s = -(3 - 1.5) / s``).

    Parameters
    ----------
    seed : int
    d : int
        1 to 3.
    n : int
        Training rows, even.
    noise : float
        Fraction of the drawn half whose label is moved.

    Returns
    -------
    Problem
        The test rows are every grid point (at most 24 of them, for d = 3, drawn at random),
        in a seeded order.
    """
    rng = np.random.default_rng(seed)
    half = rng.integers(0, 4, (n // 2, d))
    half[:4, 0] = np.arange(4)  # every band present
    y = np.where(half[:, 0] == 0, 0, np.where(half[:, 0] == 3, 2, 1))
    moved = rng.random(n // 2) < noise
    y[moved] = (y[moved] + rng.integers(1, 3, moved.sum())) % 3
    mirror = half.copy()
    mirror[:, 0] = 3 - mirror[:, 0]
    X = np.vstack([half, mirror])
    y = np.r_[y, 2 - y]
    order = rng.permutation(n)
    X, y = X[order], y[order]
    domain = np.array(list(itertools.product(range(4), repeat=d)))
    domain = domain[rng.permutation(len(domain))[:24]]
    X, X_test = standardise(X, domain)
    return Problem(f"grid{d}_n{n}_s{seed}", X, y.astype(int), X_test)


def with_copies_of(problem: Problem, rows) -> Problem:
    """The problem with bitwise copies of the training rows ``rows`` appended to its tests."""
    rows = np.asarray(rows, dtype=int)
    return Problem(problem.name, problem.X, problem.y, np.vstack([problem.X_test, problem.X[rows]]))


def binary(problem: Problem) -> Problem:
    """A three-class problem as two classes: class 1 against the others (labels 0 and 1)."""
    return Problem(problem.name + "_bin", problem.X, (problem.y == 1).astype(int), problem.X_test)
