"""The incremental SVM when the training SVM is constant (``w = 0``; issue 32), against
retraining.

A linear kernel on a set that is its own mirror image (every ``x`` with ``-x``, same label) has
``w = 0`` by symmetry (``w`` is unique); so has an RBF kernel on points that each carry both
labels, one positive copy to one or two negative ones (the negative copies share the positive's
multiplier), with more points of the larger class. Generated here with repeated rows (some with
both labels), rounding to a coarse grid, ``C`` from 0.01 to 100 (the small box included), and
test objects that copy training rows, their mirror images, the origin and fresh points. Every
addition (both labels, every one-vs-rest problem) is compared with :func:`svmtrust.svm.fit_svm`
on the augmented Gram matrix (multipliers to 1e-9 of ``max(1, max(alpha))``, the bias), and both
conformal machines' p-values (plain or Mondrian, alternately) with those of
``method="retrain"``, exactly.
(The free sets are not compared, nor the bias when they differ: a multiplier can be ``C`` in
one and ``C`` less 2e-18 in the other, free, as before issue 32, see
``tests/test_incremental_shortcuts.py``; with no other free multiplier the bias then comes from
it instead of the middle of its interval. The p-values stay the same.)

The routes: an example of the margin class (``y_c b = 1``) leaves the optimum where it is, and
one of the class at ``C`` is placed by one projection onto the margin class's affine hull
(:meth:`_Addition._constant`, route ``"constant"``, or ``"canonical"`` when the face's
minimum-norm step then moves it), or retrained when ``phi(x_c)`` lies off that hull (the
augmented ``w`` is not 0). An addition whose retrained SVM is constant too is retrained only
where the route's own solves miss the certificate's rounding (:data:`ROUTE_MISSES`).
Every other problem finds its faces' minimum-norm points in the dual
(:data:`svmtrust.incremental_svm.DUAL_FACE` lowered to 2), the others by the plain function.
Run ``pytest tests/test_incremental_constant.py -s`` for the counts.
"""

from __future__ import annotations

import functools
import warnings
from collections import Counter

import numpy as np
import pytest
from svmtrust import incremental_svm
from svmtrust.incremental_svm import IncrementalSVM
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.svm import InexactWarning, fit_svm
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM

#: Multipliers of the two routes agree to this fraction of max(1, max(alpha)).
ALPHA_TOL = 1e-9
#: Generated problems per family (the issue asks for at least 60 with w = 0 in all).
PROBLEMS = 21
CS = (0.01, 0.1, 1.0, 10.0, 100.0)
#: Largest fraction of the additions whose retrained SVM is constant and certified exact that
#: the incremental route may still retrain. Its projection and face step solve to about 1e-12
#: of the multipliers, and the certificate asks the margins to 64 machine epsilons of their
#: terms, so on a face whose margins sit at 1 in exact arithmetic the processor's BLAS bits
#: decide: measured 2 of 759 with OpenBLAS's AVX-512 (SkylakeX) kernels (conflicting: a
#: projection 1.5e-10 off at C = 100; rings: a face step 2.8e-11 off), 0 with its Haswell
#: kernels. The answer is then retraining's, which the comparisons above check either way.
ROUTE_MISSES = 0.02

COUNTS: Counter = Counter()


def _mirrored(rng):
    """Linear kernel: points and their mirror images, labels random, some rows repeated (one
    with the other label, mirrored too), on a grid of 0.1 half the time."""
    d = int(rng.integers(1, 4))
    m = int(rng.integers(4, 14))
    X = rng.normal(size=(m, d)) * rng.choice([0.5, 1.0, 3.0])
    if rng.random() < 0.5:
        X = np.round(X, 1)
    y = rng.integers(0, 2, size=m)
    y[:2] = (0, 1)
    repeat = rng.choice(m, size=int(rng.integers(0, 4)))
    X, y = np.r_[X, X[repeat]], np.r_[y, y[repeat]]
    if rng.random() < 0.5:  # a row with both labels
        X, y = np.r_[X, X[:1]], np.r_[y, 1 - y[:1]]
    X, y = np.r_[X, -X], np.r_[y, y]
    tests = np.r_[X[rng.choice(len(X), 3)], -X[rng.choice(len(X), 1)], np.zeros((1, d))]
    tests = np.r_[tests, rng.normal(size=(2, d))]
    return X, y, tests, linear_kernel


def _conflicting(rng):
    """RBF kernel: each point once in the smaller class and once or twice in the larger, and
    a few more points of the larger class."""
    k = int(rng.integers(3, 10))
    Z = rng.normal(size=(k, 2))
    small, large = (0, 1) if rng.random() < 0.5 else (1, 0)
    twice = rng.random(k) < 0.5
    X = np.r_[Z, Z, Z[twice], rng.normal(size=(int(rng.integers(0, 4)), 2))]
    y = np.r_[np.full(k, small), np.full(len(X) - k, large)]
    tests = np.r_[X[rng.choice(len(X), 3)], rng.normal(size=(2, 2))]
    gamma = float(rng.choice([0.1, 1.0, 5.0]))
    return X, y, tests, functools.partial(rbf_kernel, gamma=gamma)


def _rings(rng):
    """Linear kernel, two classes by radius (one inside the other), mirrored: three classes
    half the time (one-vs-rest problems with w = 0)."""
    m = int(rng.integers(6, 20))
    angle = rng.uniform(0, 2 * np.pi, m)
    classes = int(rng.choice([2, 3]))
    y = np.resize(np.arange(classes), m)
    radius = 1.0 + y + 0.1 * rng.normal(size=m)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    X, y = np.r_[X, -X], np.r_[y, y]
    tests = np.r_[X[rng.choice(len(X), 2)], rng.normal(size=(2, 2)) * 2.0]
    return X, y, tests, linear_kernel


FAMILIES = {"mirrored": _mirrored, "conflicting": _conflicting, "rings": _rings}


def _compare_additions(X, y, tests, kernel, C, counts):
    """Every addition against retraining; whether the training SVMs were constant."""
    model = TransductiveSVM(kernel=kernel, C=C).fit(X, y)
    cross = model.kernel_(model.X_train_, tests)
    constant = False
    for machine in model.incremental_:
        constant |= machine.constant
        counts["constant SVMs" if machine.constant else "other SVMs"] += 1
        for t in range(tests.shape[0]):
            x = tests[t : t + 1]
            kcc = float(model.kernel_(x, x)[0, 0])
            column = cross[:, t : t + 1]
            gram = np.block([[machine.K, column], [column.T, np.array([[kcc]])]])
            for label in (-1.0, 1.0):
                added = machine.add(cross[:, t], kcc, label)
                ref = fit_svm(gram, np.r_[machine.solution.y, label], C, "libsvm")
                sol = added.solution
                size = max(1.0, float(np.max(ref.alpha)))
                assert np.max(np.abs(sol.alpha - ref.alpha)) <= ALPHA_TOL * size
                if np.array_equal(sol.free, ref.free):
                    assert abs(sol.b - ref.b) <= 1e-8 * size
                else:  # a multiplier C less 2e-18 is free: the bias then comes from it
                    counts["free sets apart by rounding"] += 1
                counts["additions"] += 1
                if machine.constant:
                    constant_after = np.max(np.abs(gram @ ref.coef)) <= 1e-9 * size
                    after = "w = 0 after" if constant_after else "w != 0 after"
                    counts[f"additions to a constant SVM, {after}: {added.route}"] += 1
                    if constant_after and ref.exact:
                        counts["constant after, exact"] += 1
                        counts["constant after, exact, retrained"] += added.route == "retrain"
    return constant


def _compare_p_values(X, y, tests, kernel, C, mondrian, counts):
    for machine in (TransductiveSVM, DistanceTCM):
        p = {
            method: machine(kernel=kernel, C=C, method=method, mondrian=mondrian)
            .fit(X, y)
            .predict_p(tests)
            for method in ("incremental", "retrain")
        }
        assert np.array_equal(p["incremental"], p["retrain"])
        counts["p-values"] += p["retrain"].size


@pytest.fixture(scope="module", autouse=True)
def summary():
    yield
    if COUNTS:
        print("\nw = 0 additions compared: " + ", ".join(f"{k} {v}" for k, v in COUNTS.items()))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_constant_svm_additions_equal_retraining(family, monkeypatch):
    counts = Counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InexactWarning)
        for k in range(PROBLEMS):
            rng = np.random.default_rng(32_000 + 100 * list(FAMILIES).index(family) + k)
            X, y, tests, kernel = FAMILIES[family](rng)
            C = float(CS[k % len(CS)])
            # every other problem finds its faces' minimum-norm points in the dual, as faces
            # of DUAL_FACE examples or more do (these faces are smaller)
            monkeypatch.setattr(incremental_svm, "DUAL_FACE", 2 if k % 2 else 64)
            counts["problems"] += 1
            counts["w = 0 problems"] += _compare_additions(X, y, tests, kernel, C, counts)
            _compare_p_values(X, y, tests, kernel, C, k % 2 == 1, counts)
    counts["fits not certified exact"] = sum(issubclass(w.category, InexactWarning) for w in caught)
    COUNTS.update(counts)
    assert counts["w = 0 problems"] == PROBLEMS
    # the certificate withholds "exact" on a few borderline faces (rings: a margin 1.07 times
    # the rounding off the face); never on most
    assert counts["fits not certified exact"] <= counts["additions"] // 20
    # an addition whose retrained SVM is constant and exact is placed without retraining,
    # except where the route's own solves miss the certificate's rounding (ROUTE_MISSES)
    assert (
        counts["constant after, exact, retrained"] <= ROUTE_MISSES * counts["constant after, exact"]
    )


def test_constant_route_taken():
    """An example of the class at ``C`` added to a constant SVM: one projection, no path."""
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(30, 2))
    X = np.r_[Z, -Z]
    y = np.r_[np.ones(10), -np.ones(20), np.ones(10), -np.ones(20)]
    K = linear_kernel(X, X)
    machine = IncrementalSVM(K, fit_svm(K, y, 1.0, "libsvm"))
    assert machine.constant and machine.solution.b == pytest.approx(-1.0)
    called = Counter()
    original = incremental_svm._Addition._constant

    def counted(self):
        called["constant"] += 1
        return original(self)

    incremental_svm._Addition._constant = counted
    try:
        x = 0.1 * Z[:1]
        added = machine.add(linear_kernel(X, x)[:, 0], float(linear_kernel(x, x)[0, 0]), 1.0)
    finally:
        incremental_svm._Addition._constant = original
    assert called["constant"] == 1 and added.route in ("constant", "canonical")
    assert added.solution.alpha[-1] == 1.0
