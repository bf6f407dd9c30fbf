"""Exact ties: every machine's p-values are a function of the bag, whatever the rounding.

A conformal p-value counts the old scores at least as strange as the new one, so it depends
on which scores are *equal*. On tie-heavy data many scores are equal in exact arithmetic:
copies of a free support vector all score ``-1/||w||``, copies of a calibration object score
alike, a test object equal to a validation row ties with it, and two one-vs-rest SVMs with
equal ``||w||`` give equal values across classes. Floating point computes those equal scores
a few units in the last place apart, and which bits come out depends on the processor
(OpenBLAS picks another kernel on AVX-512 machines), on the batch a test object is computed
in, and on the order of the rows and of the feature columns. Code that decides such a tie by
its bits gives other p-values on another machine (issue 49; ``../shared/review.md``).

This module computes ``predict_p`` of every public estimator with p-values on seeded,
tie-heavy problems (:mod:`tests.tie_structures`: categorical rows with few distinct vectors
carrying both labels, mirror-symmetric integer grids with three classes, test objects that are
copies of training, calibration and free support-vector rows) and requires the *identical*
p-values (``np.array_equal``, no tolerance), regions, forced predictions and counts under
three perturbations that leave the bag, and so every p-value in exact arithmetic, unchanged:

1. ``columns``: the feature columns permuted, the same permutation for training and test
   rows. The data are standardised, so every kernel entry and distance is rounded, and its
   sum runs in another order: a cheap, deterministic stand-in for another BLAS kernel or
   processor (``../shared/pitfalls.md``, "The same numbers on another machine"). Setting
   ``OPENBLAS_CORETYPE`` would show the same, but never in tests.
2. ``rows``: the rows reordered inside the bags. A split or cross-conformal machine keeps its
   proper-training and calibration bags (or its folds): the split depends only on positions,
   the seed and the labels, so the rows are permuted among the proper positions and among the
   calibration positions (within each fold and class for the folds), and the test checks that
   the fitted split is the same and the bags the same multisets. The full transductive
   machines permute every training row.
3. ``batches``: all test objects in one call, one object per call, and two chunks of
   different sizes.

The comparisons must fail on code that decides ties by their floating-point bits: main
before issue 49 (commit d19bd1c) fails 66 of the 115 comparisons, p-values moving by up to
0.82. Only three things are left out, each for a reason that is not a tie:

* smoothed p-values: their draws depend on the calling pattern by design (one fresh draw per
  call), so ``smoothing=False`` (the default) throughout;
* the selector's choice of ``k_crit`` among tied (model, label) pairs under permuted columns:
  the draw is keyed by the bytes of the test row (:data:`KEYED`), so there the p-values of
  every model and ``epsilon_crit`` are compared instead;
* the selector's training part keeps its order: its models are libsvm's answers at the
  paper's stopping tolerance, not canonical optima (:func:`reordered`); its validation rows
  are reordered.

The last test checks that the generators build the ties the comparisons rely on.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pytest
from svmtrust.nonconformity_selection import NonconformityModelSelector
from svmtrust.split_conformal import CrossConformalSVM, SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.tcm_nn import TCMNearestNeighbours
from svmtrust.transduction import TransductiveSVM

from tests.tie_structures import Problem, binary, categorical, mirrored_grid, with_copies_of

#: Significance levels of the regions compared.
LEVELS = (0.05, 0.1, 0.2)

#: Seed of every permutation the perturbations draw.
PERMUTATION_SEED = 49


# --------------------------------------------------------------------------- the problems


@functools.cache
def problem(name: str) -> Problem:
    """The named problem (cached: every estimator of a structure sees the same rows).

    ``cat2``: 60 categorical rows (3 attributes with 3 values, 16 distinct vectors, half of
    them carrying both labels), two classes; ``cat3``: 45 rows of the same kind, 15 distinct
    vectors, 60% of them with two labels, three classes; ``cat150``: 150 rows of 3 attributes
    with 4 values, 40 distinct vectors (the selector's ties of review.md); ``grid1`` to
    ``grid3``: mirror-symmetric grids ``{0..3}^d`` with three classes (40 rows for d = 1, 60
    otherwise); ``grid2_bin``: ``grid2`` as class 1 against the others.
    """
    if name == "cat2":
        return categorical(seed=3, n=60)
    if name == "cat3":
        return categorical(seed=8, n=45, n_distinct=15, both=0.6, n_classes=3)
    if name == "cat150":
        return categorical(seed=11, n=150, n_values=4, n_distinct=40, both=0.5)
    if name.startswith("grid") and name.endswith("_bin"):
        return binary(problem(name[:-4]))
    if name.startswith("grid"):
        d = int(name[4:])
        return mirrored_grid(seed=7 + d, d=d, n=40 if d == 1 else 60)
    raise KeyError(name)


# --------------------------------------------------------------------------- the estimators


@dataclass(frozen=True)
class Machine:
    """An estimator configuration, how its training rows may be reordered, and which
    training rows its test objects copy.

    ``bags`` is ``"split"`` (proper and calibration positions), ``"folds"`` (each fold's
    positions of each class), ``"selector"`` (training and validation positions) or ``"full"``
    (every row). ``copies`` is ``"split"`` (calibration rows and the proper SVMs' free support
    vectors), ``"validation"`` (validation rows), ``"free"`` (the training SVMs' free support
    vectors) or ``"rows"`` (every sixth training row).
    """

    make: object
    bags: str
    copies: str


def _machine(cls, bags, copies, **params):
    return Machine(functools.partial(cls, **params), bags, copies)


RBF = {"kernel": "rbf", "gamma": 0.5, "C": 10.0}
LINEAR = {"kernel": "linear", "C": 1.0}

MACHINES = {
    "split_rbf": _machine(SplitConformalSVM, "split", "split", seed=0, **RBF),
    "split_linear": _machine(SplitConformalSVM, "split", "split", seed=0, **LINEAR),
    "split_mondrian_rbf": _machine(
        SplitConformalSVM, "split", "split", seed=0, mondrian=True, **RBF
    ),
    "split_mondrian_linear": _machine(
        SplitConformalSVM, "split", "split", seed=0, mondrian=True, **LINEAR
    ),
    "split_hardoon_rbf": _machine(
        SplitConformalSVM, "split", "split", seed=0, convention="hardoon", **RBF
    ),
    "split_hardoon_linear": _machine(
        SplitConformalSVM, "split", "split", seed=0, convention="hardoon", **LINEAR
    ),
    "cross_rbf": _machine(CrossConformalSVM, "folds", "rows", n_folds=4, seed=0, **RBF),
    "cross_linear": _machine(CrossConformalSVM, "folds", "rows", n_folds=4, seed=0, **LINEAR),
    "cross_mondrian_linear": _machine(
        CrossConformalSVM, "folds", "rows", n_folds=4, seed=0, mondrian=True, **LINEAR
    ),
    "selector": _machine(
        NonconformityModelSelector,
        "selector",
        "validation",
        gammas=(0.1, 0.5, 2.0),
        Cs=(0.5, 4.0),
        validation_size=50,
    ),
    "distance_linear": _machine(DistanceTCM, "full", "free", **LINEAR),
    "distance_rbf": _machine(DistanceTCM, "full", "free", **RBF),
    "distance_mondrian_linear": _machine(DistanceTCM, "full", "free", mondrian=True, **LINEAR),
    "distance_mondrian_rbf": _machine(DistanceTCM, "full", "free", mondrian=True, **RBF),
    "tsvm_linear": _machine(TransductiveSVM, "full", "free", **LINEAR),
    "tsvm_rbf": _machine(TransductiveSVM, "full", "free", **RBF),
    "tsvm_mondrian_linear": _machine(TransductiveSVM, "full", "free", mondrian=True, **LINEAR),
    "tcm_nn_k1": _machine(TCMNearestNeighbours, "full", "rows", k=1),
    "tcm_nn_k3": _machine(TCMNearestNeighbours, "full", "rows", k=3),
    "tcm_nn_fast": _machine(TCMNearestNeighbours, "full", "rows", k=1, algorithm="fast"),
}

#: (machine, structure) pairs: each estimator on one to three hard structures (the selector,
#: two classes only, on the binary ones). Few and small: the full transductive machines solve
#: an SVM per test object and label.
CASES = [
    *[(m, s) for m in MACHINES if m.startswith(("split", "cross")) for s in ("cat2", "grid2")],
    ("split_linear", "grid1"),
    ("split_rbf", "cat3"),
    ("split_mondrian_linear", "grid3"),
    ("cross_linear", "grid3"),
    ("cross_mondrian_linear", "cat3"),
    ("selector", "cat150"),
    ("selector", "grid2_bin"),
    ("distance_linear", "cat2"),
    ("distance_linear", "cat3"),
    ("distance_linear", "grid2"),
    ("distance_rbf", "grid1"),
    ("distance_rbf", "grid2"),
    ("distance_mondrian_linear", "grid2"),
    ("distance_mondrian_rbf", "cat2"),
    ("tsvm_linear", "cat2"),
    ("tsvm_rbf", "cat2"),
    ("tsvm_mondrian_linear", "cat3"),
    ("tcm_nn_k1", "cat2"),
    ("tcm_nn_k1", "grid3"),
    ("tcm_nn_k3", "cat3"),
    ("tcm_nn_fast", "cat150"),
]

PERTURBATIONS = ("columns", "rows", "batches")

#: What the selector's keyed tie-break makes depend on the bytes of a test row
#: (:func:`svmtrust.nonconformity_selection.point_keys`): with the columns permuted the keys,
#: hence the draws among tied (model, label) pairs, differ by design, so those outputs are
#: compared for rows and batches only; with the columns permuted the p-values of every model
#: (``p_all``) and ``epsilon_crit`` are compared.
KEYED = ("p", "regions", "labels", "confidence", "credibility", "k_crit", "predict")


def _params():
    for m, s in CASES:
        for how in PERTURBATIONS:
            if how == "columns" and problem(s).X.shape[1] == 1:
                continue  # one feature: nothing to permute
            yield pytest.param(m, s, how, id=f"{m}-{s}-{how}")


# --------------------------------------------------------------------------- the outcome


def outcome(model, X_test, chunks) -> dict:
    """Everything compared, the test objects given to the estimator in ``chunks`` (a list of
    index arrays that together cover ``X_test`` in order).

    Returns
    -------
    dict of ndarray
        ``p`` (``predict_p``), ``regions`` (``predict_set`` at :data:`LEVELS`), ``labels``,
        ``confidence``, ``credibility`` (``predict_confidence``); the selector's ``p_all``,
        ``epsilon_crit``, ``k_crit`` and ``predict``; DistanceTCM's ``solves`` (summed over
        the calls).
    """
    parts = [X_test[c] for c in chunks]

    def each(method, *args):
        return [method(x, *args) for x in parts]

    def stack(arrays):
        return np.concatenate(arrays, axis=0)

    got = {}
    if isinstance(model, DistanceTCM):
        solved = each(model.solve)
        got["p"] = stack([s[0] for s in solved])
        got["solves"] = np.array(sum(s[1] for s in solved))
    else:
        got["p"] = stack(each(model.predict_p))
    forced = each(model.predict_confidence)
    for i, name in enumerate(("labels", "confidence", "credibility")):
        got[name] = stack([f[i] for f in forced])
    if isinstance(model, (DistanceTCM, TransductiveSVM)):
        # their predict_set is conformal.predict_set of predict_p (p > eps); another round of
        # augmented solves would only repeat predict_p
        got["regions"] = np.stack([got["p"] > e for e in LEVELS])
    else:
        got["regions"] = np.stack([stack(each(model.predict_set, e)) for e in LEVELS])
    if isinstance(model, NonconformityModelSelector):
        got["p_all"] = stack(each(model.predict_p_all))
        crit = each(model.epsilon_crit_)
        got["epsilon_crit"] = stack([c[0] for c in crit])
        got["k_crit"] = stack([c[1] for c in crit])
        got["predict"] = stack(each(model.predict))
    return got


def differences(name: str, a, b) -> str | None:
    """None if ``a`` and ``b`` are identical; else how many entries differ and by how much."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return f"{name}: shapes {a.shape} and {b.shape}"
    if np.array_equal(a, b):
        return None
    text = f"{name}: {np.count_nonzero(a != b)} of {a.size} differ"
    if a.dtype.kind == "f":
        text += f", largest difference {np.max(np.abs(a.astype(float) - b)):.6g}"
    return text


def assert_identical(base: dict, other: dict, what: str, skip=()) -> None:
    """Every output but ``skip`` bitwise equal; the message counts the differences."""
    assert base.keys() == other.keys()
    found = [differences(k, base[k], other[k]) for k in base if k not in skip]
    found = [f for f in found if f is not None]
    assert not found, f"{what}: " + "; ".join(found)


# --------------------------------------------------------------------------- the perturbations


def _test_rows(machine: str, structure: str, model) -> np.ndarray:
    """The structure's test rows, with bitwise copies of training rows appended: calibration
    (or validation) rows and free support vectors where the machine has them."""
    prob = problem(structure)
    copies = MACHINES[machine].copies
    if copies == "split":
        free = [model.proper_index_[s.free] for s in model.svms_]
        rows = np.r_[model.calibration_index_[:6], np.unique(np.concatenate(free))[:6]]
    elif copies == "validation":
        rows = model.validation_index_[:6]
    elif copies == "free":
        rows = np.unique(np.concatenate([s.free for s in model.base_]))[:6]
    else:
        rows = np.arange(0, len(prob.y), len(prob.y) // 6)
    return with_copies_of(prob, rows).X_test


@functools.cache
def _base(machine: str, structure: str):
    """The estimator fitted on the structure as generated, its test rows and its outcome."""
    prob = problem(structure)
    model = MACHINES[machine].make().fit(prob.X, prob.y)
    tests = _test_rows(machine, structure, model)
    return model, tests, outcome(model, tests, [np.arange(len(tests))])


def _within(groups, rng) -> np.ndarray:
    """A permutation of positions that moves each position only inside its group."""
    source = np.arange(groups.size)
    for g in np.unique(groups):
        at = np.flatnonzero(groups == g)
        source[at] = at[rng.permutation(at.size)]
    return source


def _bags(machine: str, model) -> list:
    """The bags of a fitted estimator, as arrays of positions (or boolean masks)."""
    bags = MACHINES[machine].bags
    if bags == "split":
        return [model.proper_index_, model.calibration_index_]
    if bags == "selector":
        return [model.train_index_, model.validation_index_]
    if bags == "folds":
        return [model.fold_ == k for k in range(model.n_folds)]
    return [slice(None)]


def reordered(machine: str, model, prob: Problem) -> np.ndarray:
    """The source position of every row of the training set reordered inside its bags.

    Folds are drawn from the labels at each position, so rows move within their fold and
    class; proper, calibration, training and validation positions depend on the seed and the
    number of rows only. The selector's rows move inside its validation part only: its models
    are libsvm's answers at libsvm's own stopping tolerance
    (:data:`svmtrust.nonconformity_selection.SELECTION_TOL` = 1e-3, the paper's setting), not
    canonical optima, so the order of the training part moves their decision values by up to
    3e-3 (measured on ``cat150``): a dependence on the solver's path, not a tie.
    """
    groups = np.zeros(len(prob.y), dtype=int)
    for g, bag in enumerate(_bags(machine, model)):
        groups[bag] = g
    if MACHINES[machine].bags == "folds":
        groups = groups * 10 + prob.y
    if MACHINES[machine].bags == "selector":
        groups[model.train_index_] = 2 + np.arange(model.train_index_.size)  # rows stay
    source = _within(groups, np.random.default_rng(PERMUTATION_SEED))
    assert not np.array_equal(source, np.arange(source.size))
    return source


def check_same_bags(machine: str, model, moved, prob: Problem, source) -> None:
    """The reordered fit has the same split, and each of its bags is the same multiset of
    labelled rows as before."""
    for name in ("proper_index_", "calibration_index_", "train_index_", "validation_index_"):
        if hasattr(model, name):
            assert np.array_equal(getattr(model, name), getattr(moved, name)), name
    if hasattr(model, "fold_"):
        assert np.array_equal(model.fold_, moved.fold_), "fold_"
    rows = np.column_stack([prob.X, prob.y])
    for bag in _bags(machine, model):
        before = np.unique(rows[bag], axis=0, return_counts=True)
        after = np.unique(rows[source][bag], axis=0, return_counts=True)
        assert all(np.array_equal(b, a) for b, a in zip(before, after)), "a bag changed"


@pytest.mark.parametrize(("machine", "structure", "how"), list(_params()))
def test_p_values_do_not_depend_on_rounding(machine, structure, how):
    """p-values, regions, forced predictions and counts identical under one perturbation."""
    prob = problem(structure)
    model, tests, base = _base(machine, structure)
    make = MACHINES[machine].make
    everything = [np.arange(len(tests))]
    if how == "columns":
        perm = np.random.default_rng(PERMUTATION_SEED).permutation(prob.X.shape[1])
        if np.array_equal(perm, np.arange(perm.size)):
            perm = perm[::-1]
        other = make().fit(prob.X[:, perm], prob.y)
        skip = KEYED if machine == "selector" else ()
        assert_identical(base, outcome(other, tests[:, perm], everything), how, skip)
    elif how == "rows":
        source = reordered(machine, model, prob)
        other = make().fit(prob.X[source], prob.y[source])
        check_same_bags(machine, model, other, prob, source)
        assert_identical(base, outcome(other, tests, everything), how)
    else:
        m = len(tests)
        alone = [np.array([i]) for i in range(m)]
        assert_identical(base, outcome(model, tests, alone), "one test object per call")
        two = [np.arange(m // 3), np.arange(m // 3, m)]
        assert_identical(base, outcome(model, tests, two), "two chunks")


@pytest.mark.parametrize("structure", ["cat2", "cat3", "cat150", "grid1", "grid2", "grid3"])
def test_the_structures_hold_their_ties(structure):
    """The generators build what the comparisons rely on: categorical rows with few distinct
    vectors (at most half as many as rows), 30-60% of them carrying two labels; grids whose multiset is mirror-symmetric bit
    for bit (``x_1 -> -x_1`` once standardised, classes 0 and 2 exchanged); test rows that
    are mostly bitwise copies of training rows."""
    prob = problem(structure)
    rows, which = np.unique(prob.X, axis=0, return_inverse=True)
    which = which.ravel()
    if structure.startswith("cat"):
        assert len(rows) <= len(prob.y) // 2
        labels = [np.unique(prob.y[which == i]).size for i in range(len(rows))]
        assert 0.3 <= np.mean(np.array(labels) > 1) <= 0.6
    else:
        mirror = prob.X.copy()
        mirror[:, 0] = -mirror[:, 0]
        before = np.unique(np.column_stack([prob.X, prob.y]), axis=0, return_counts=True)
        after = np.unique(np.column_stack([mirror, 2 - prob.y]), axis=0, return_counts=True)
        assert all(np.array_equal(b, a) for b, a in zip(before, after))
    copies = (prob.X_test[:, None, :] == prob.X[None, :, :]).all(axis=2).any(axis=1)
    assert np.mean(copies) >= 0.5
