"""Leave-one-out at an exact zero margin (issue 49, item 5).

On data with few distinct rows (binary features, integer grids) and copies carrying both
labels, many left-out points have ``y_p f^p(x_p) = 0`` in exact arithmetic: the SVM trained
without ``x_p`` is symmetric about it (the origin under a linear kernel with bias 0, a copy
with the other label left in, a mirror-symmetric remainder). Floating point computes those
margins a few units in the last place either side of 0, by solver and processor, and
:attr:`svmtrust.span.LeaveOneOut.errors` documents ``y f <= 0`` as an error. Compared bit for
bit with 0 the error count was rounding's: on :data:`EIGHTEEN` libsvm counted 12 errors and
cvxpy 15, the rational value. :func:`svmtrust.span.leave_one_out` now decides the sign with
the library's tie rule (:func:`svmtrust.ties.is_zero`, at the size of the decision value's
terms) and stores a margin that is 0 to rounding as exactly 0.0.

The independent computation: every leave-one-out SVM solved by ``tests/reference_svm.py``
(numpy and Clarabel), its optimum then made *exact* in rational arithmetic
(:func:`exact_svm`: the reference's partition into multipliers at 0, at C and free fixes a
linear system with integer coefficients, solved with :class:`fractions.Fraction`; the
reference's free multipliers projected exactly onto its solutions and every KKT condition
checked exactly), so that its margins are exact rationals and a zero is a zero.

Run ``pytest tests/test_span_ties.py -s`` for the number of problems, left-out machines and
exact zero margins compared.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
from svmtrust.span import leave_one_out, span, span_rule_early_stopping, span_rule_errors
from svmtrust.svm import InexactWarning, fit_svm
from threadpoolctl import threadpool_limits

from tests.reference_svm import canonical_svm


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """Small dense problems run faster on one BLAS thread."""
    with threadpool_limits(limits=1):
        yield


# ----------------------------------------------------------------------------- exact reference


def _solve_exact(A, rhs):
    """A particular solution and a basis of the null space of ``A x = rhs`` (lists of
    Fractions), or None if inconsistent: Gauss-Jordan elimination in rational arithmetic."""
    rows, cols = len(A), len(A[0]) if A else 0
    M = [list(A[i]) + [rhs[i]] for i in range(rows)]
    pivots, r = [], 0
    for c in range(cols):
        pivot = next((i for i in range(r, rows) if M[i][c] != 0), None)
        if pivot is None:
            continue
        M[r], M[pivot] = M[pivot], M[r]
        inv = 1 / M[r][c]
        M[r] = [v * inv for v in M[r]]
        for i in range(rows):
            if i != r and M[i][c] != 0:
                f = M[i][c]
                M[i] = [a - f * b for a, b in zip(M[i], M[r])]
        pivots.append(c)
        r += 1
    if any(M[i][cols] != 0 for i in range(r, rows)):
        return None
    x0 = [Fraction(0)] * cols
    for i, c in enumerate(pivots):
        x0[c] = M[i][cols]
    basis = []
    for c in (c for c in range(cols) if c not in pivots):
        v = [Fraction(0)] * cols
        v[c] = Fraction(1)
        for i, pc in enumerate(pivots):
            v[pc] = -M[i][c]
        basis.append(v)
    return x0, basis


def _project(x0, basis, target):
    """The point of ``x0 + span(basis)`` closest to ``target``, exactly."""
    if not basis:
        return list(x0)
    k = len(basis)
    gram = [[sum(a * b for a, b in zip(basis[i], basis[j])) for j in range(k)] for i in range(k)]
    diff = [t - a for t, a in zip(target, x0)]
    rhs = [sum(a * b for a, b in zip(basis[i], diff)) for i in range(k)]
    coef, _ = _solve_exact(gram, rhs)
    return [a + sum(coef[i] * basis[i][j] for i in range(k)) for j, a in enumerate(x0)]


def _bias_interval_midpoint(alpha, y, C, F):
    """The canonical bias with no free multiplier: the midpoint of the interval of biases
    that meet the KKT conditions (its finite end if it is a half-line), in Fractions."""
    lo = hi = None
    for i in range(len(y)):
        r = y[i] - F[i]  # y_i (F_i + b) = 1 at b = r
        needs_above = alpha[i] < C  # y_i (F_i + b) >= 1
        needs_below = alpha[i] > 0  # y_i (F_i + b) <= 1
        for needed, positive in ((needs_above, y[i] > 0), (needs_below, y[i] < 0)):
            if needed and positive:
                lo = r if lo is None else max(lo, r)
            elif needed:
                hi = r if hi is None else min(hi, r)
    if lo is not None and hi is not None:
        return (lo + hi) / 2
    return lo if lo is not None else hi


def exact_svm(K, y, C, alpha_float):
    """An exact optimum of the SVM dual on an integer Gram matrix, from a floating one.

    The floating multipliers fix the partition: within ``snap * C`` of 0 or of ``C`` at that
    bound, the others free. The free multipliers and the bias solve the linear system of the
    free margins ``y_i f(x_i) = 1`` and ``sum_i y_i alpha_i = 0`` (integer coefficients), in
    Fractions; the floating free multipliers are projected exactly onto its solutions (``w``
    and ``b`` are the same for all of them), and the result is kept if it is in the box and
    meets every KKT condition exactly. Several snapping tolerances are tried.

    Returns
    -------
    alpha, b : list of Fraction, Fraction
        An exact optimum and the canonical bias (unique when a multiplier is free, else the
        midpoint of the KKT interval, the library's rule).
    """
    n = len(y)
    K = [[int(v) for v in row] for row in np.asarray(K)]
    y = [int(v) for v in y]
    C = Fraction(C)
    for snap in (1e-9, 1e-7, 1e-11, 1e-5):
        a = [Fraction(0)] * n
        free = []
        for i, v in enumerate(alpha_float):
            if v <= snap * C:
                continue
            if v >= (1 - snap) * C:
                a[i] = C
            else:
                free.append(i)
        bound = [i for i in range(n) if a[i] == C]
        if free:
            # unknowns: a_F, then b
            A = [[y[i] * y[j] * K[i][j] for j in free] + [y[i]] for i in free]
            rhs = [1 - C * sum(y[i] * y[j] * K[i][j] for j in bound) for i in free]
            A.append([y[j] for j in free] + [0])
            rhs.append(-C * sum(y[j] for j in bound))
            A = [[Fraction(v) for v in row] for row in A]
            solved = _solve_exact(A, [Fraction(v) for v in rhs])
            if solved is None:
                continue
            x0, basis = solved
            target = [Fraction(float(alpha_float[j])) for j in free] + [x0[-1]]
            x = _project(x0, basis, target)
            for j, v in zip(free, x[:-1]):
                a[j] = v
            b = x[-1]
        if sum(y[i] * a[i] for i in range(n)) != 0 or any(not 0 <= v <= C for v in a):
            continue
        F = [sum(a[j] * y[j] * K[i][j] for j in range(n)) for i in range(n)]
        if not free:
            b = _bias_interval_midpoint(a, y, C, F)
            if b is None:
                continue
        margins = [y[i] * (F[i] + b) for i in range(n)]
        if all((a[i] == C or m >= 1) and (a[i] == 0 or m <= 1) for i, m in enumerate(margins)):
            return a, b
    raise AssertionError("no exact optimum found from the reference's multipliers")


def exact_loo_margins(X, y, C):
    """``y_p f^p(x_p)`` for every ``p``, exact (Fractions), and the number of SVMs solved.

    A point with multiplier 0 in the full (exact) optimum leaves it optimal when removed: its
    margin is its training margin. Every other point is left out and the reference solves the
    rest (:func:`tests.reference_svm.canonical_svm`), made exact by :func:`exact_svm`."""
    Xi = np.asarray(X, dtype=np.int64)
    K = Xi @ Xi.T
    n = len(y)
    full = canonical_svm(K.astype(float), y, C)
    a, b = exact_svm(K, y, C, full.alpha)
    yi = [int(v) for v in y]
    out = [yi[p] * (sum(a[j] * yi[j] * int(K[p, j]) for j in range(n)) + b) for p in range(n)]
    solved = 1
    for p in range(n):
        if a[p] == 0:
            continue
        keep = np.arange(n) != p
        K_rest, y_rest = K[np.ix_(keep, keep)], y[keep]
        ref = canonical_svm(K_rest.astype(float), y_rest, C)
        a_p, b_p = exact_svm(K_rest, y_rest, C, ref.alpha)
        rows = K[p, keep]
        f = sum(a_p[j] * int(y_rest[j]) * int(rows[j]) for j in range(n - 1)) + b_p
        out[p] = yi[p] * f
        solved += 1
    return out, solved


# ----------------------------------------------------------------------------- problems


def gen_binary(rng):
    """Rows of ``{0, 1}^d`` drawn from a few distinct vectors, repeated, some copies with the
    other label; linear kernel, ``C`` in {1, 10}."""
    n = int(rng.integers(10, 19))
    d = int(rng.integers(2, 5))
    k = int(rng.integers(3, 9))
    base = rng.integers(0, 2, size=(k, d))
    labels = rng.choice([-1.0, 1.0], k)
    rows = rng.integers(0, k, n)
    X, y = base[rows], labels[rows].copy()
    y[rng.random(n) < 0.25] *= -1.0
    return _balanced(rng, X, y), float(rng.choice([1.0, 10.0]))


def gen_grid(rng):
    """Rows of the integer grid ``{0..3}^2``, repeated, some copies with the other label."""
    n = int(rng.integers(10, 19))
    X = rng.integers(0, 4, size=(n, 2))
    y = np.where(X[:, 0] + X[:, 1] + rng.integers(-1, 2, n) > 3, 1.0, -1.0)
    dup = rng.choice(n, size=int(rng.integers(1, 5)))
    X, y = np.vstack([X, X[dup]]), np.r_[y, -y[dup]]
    return _balanced(rng, X, y), float(rng.choice([1.0, 10.0]))


def _balanced(rng, X, y):
    """At least two points of each class, so that every leave-one-out set has both."""
    for label in (1.0, -1.0):
        while np.sum(y == label) < 2:
            y[int(rng.integers(len(y)))] = label
    return X, y


#: A problem of the issue's kind, the first of a seeded search over 18 rows of {0, 1}^3 with
#: copies of a few rows and labels flipped (seed 203 of ``tests/test_span_ties.py``'s search, C
#: = 1) on which five left-out points have margin 0 exactly and the code before the fix counted
#: libsvm's errors differently from cvxpy's: 3 against 8, the rational count 8 (libsvm's five
#: zero margins came out positive, ``+1e-16`` to ``+1e-15``).
EIGHTEEN = (
    np.array(
        [
            [int(bit) for bit in row]
            for row in (
                "010 011 011 011 110 100 110 100 010 010 011 100 110 110 011 100 100 100"
            ).split()
        ]
    ),
    np.array([-1, -1, -1, 1, 1, 1, 1, 1, 1, -1, 1, 1, 1, 1, -1, 1, 1, 1], dtype=float),
    1.0,
)

#: Every solver and route of :func:`svmtrust.span.leave_one_out`.
ROUTES = [(s, m) for s in ("libsvm", "cvxpy") for m in ("retrain", "decremental")]

#: The routes of the differential test (cvxpy's retraining is 5 times libsvm's time; the
#: decremental route retrains every support vector whose margin is near 0, so cvxpy's
#: retraining decides every tie there too).
DIFFERENTIAL_ROUTES = [("libsvm", "retrain"), ("libsvm", "decremental"), ("cvxpy", "decremental")]


def _library_loo(X, y, C, routes=ROUTES):
    """:class:`svmtrust.span.LeaveOneOut` of each ``(solver, method)`` on the linear kernel."""
    X = np.asarray(X, dtype=float)
    K = X @ X.T
    out, sols = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactWarning)
        for solver, method in routes:
            if solver not in sols:
                sols[solver] = fit_svm(K, y, C, solver=solver)
            out[solver, method] = leave_one_out(K, y, C, solver, sol=sols[solver], method=method)
    return out


def _check_against_exact(X, y, C, routes=ROUTES):
    """Compare every route with the exact margins; return (exact zeros, SVMs the reference
    solved, mismatching routes)."""
    exact, solved = exact_loo_margins(X, y, C)
    expected = np.array([m <= 0 for m in exact])
    zero = np.array([m == 0 for m in exact])
    bad = []
    for route, loo in _library_loo(X, y, C, routes).items():
        # an exact zero is returned as exactly 0.0 and counts as an error
        if not (np.array_equal(loo.errors, expected) and np.all(loo.margins[zero] == 0.0)):
            bad.append((route, int(loo.errors.sum()), int(expected.sum())))
    return int(zero.sum()), solved, bad


# ----------------------------------------------------------------------------- tests


def test_exact_reference_on_a_hand_solved_problem():
    """The exact reference on two copies of one point with opposite labels and one other point
    of each class, on a line: each copy, left out, is misclassified with margin exactly -1."""
    X = np.array([[1, 0], [1, 0], [0, 0], [2, 0]])
    y = np.array([1.0, -1.0, -1.0, 1.0])
    margins, _ = exact_loo_margins(X, y, 10.0)
    # without (1, 0)+: (1, 0)-, (0, 0)- and (2, 0)+; w = (2, 0), b = -3 separates them
    # with margin 1, so y f(1, 0) = 2 - 3 = -1; without (1, 0)-, w = (2, 0) and b = -1
    assert margins[0] == -1 and margins[1] == -1
    assert all(isinstance(m, Fraction) for m in margins)


def test_zero_margin_by_symmetry():
    """A point about which the rest is mirror-symmetric, labels exchanged: swapping the two
    coordinates maps (1, 0)+ to (0, 1)- and the copies at (0, 0) with both labels to each other,
    so the machine without (1, 1) has ``w_1 = -w_2`` and ``b = 0``, and ``f(1, 1) = 0``."""
    X = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0], [0, 0], [1, 1]])
    y = np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0, 1.0])
    margins, _ = exact_loo_margins(X, y, 1.0)
    assert margins[6] == 0
    for route, loo in _library_loo(X, y, 1.0).items():
        assert loo.margins[6] == 0.0 and loo.errors[6], route
        np.testing.assert_array_equal(loo.errors, [m <= 0 for m in margins], err_msg=str(route))


def test_eighteen_points_with_five_exact_zero_margins():
    """Issue 49, item 5: both solvers and both routes count the rational number of errors."""
    X, y, C = EIGHTEEN
    zeros, _, bad = _check_against_exact(X, y, C)
    assert zeros == 5
    assert not bad
    counts = {loo.errors.sum() for loo in _library_loo(X, y, C).values()}
    assert counts == {8}


#: structure -> (generator, number of problems)
STRUCTURES = {"binary": (gen_binary, 25), "grid": (gen_grid, 25)}


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_leave_one_out_at_exact_zero_margins_differential(structure):
    """libsvm and cvxpy, retraining and the decremental path, against the exact reference on
    seeded problems with copies carrying both labels (linear kernel, C in {1, 10}): the same
    errors at every point, and every exact zero margin returned as 0.0. The code that compared
    the margins with 0 bit for bit (before issue 49) got the errors wrong on 14 of these 50
    problems (on 9 libsvm's count differed from cvxpy's) and failed this test on 19."""
    generator, count = STRUCTURES[structure]
    zeros = solved = 0
    failed = []
    for seed in range(count):
        (X, y), C = generator(np.random.default_rng([seed, len(structure)]))
        z, s, bad = _check_against_exact(X, y, C, DIFFERENTIAL_ROUTES)
        zeros, solved = zeros + z, solved + s
        if bad:
            failed.append((seed, bad))
    print(
        f"\n{structure}: {count} problems, {solved} SVMs solved exactly by the reference, "
        f"{zeros} exact zero margins; {len(failed)} problems differ",
        end="",
    )
    assert not failed
    assert zeros >= 10  # not vacuous: the structures make exact zeros (16 and 23)


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_span_rule_early_stopping_agrees_at_ties(structure):
    """The span rule decides its ties by the same rule whether it reads the constrained span
    from the QP or brackets it (early stopping): on tie-heavy problems, where estimates
    ``y_p f(x_p) - alpha_p S_p^2`` are 0 in exact arithmetic (free copies, spans 0 or ``1 /
    alpha_p``), the two give the same errors for both solvers. One problem (binary, seed 15:
    every free support vector a copy of the origin) has no closed-form span (NaN), which the
    early stopping must pass over."""
    generator, count = STRUCTURES[structure]
    near = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InexactWarning)
        for seed in range(count):
            (X, y), C = generator(np.random.default_rng([seed, len(structure)]))
            X = X.astype(float)
            K = X @ X.T
            for solver in ("libsvm", "cvxpy"):
                sol = fit_svm(K, y, C, solver=solver)
                spans = span(K, sol)
                expected = span_rule_errors(K, sol, spans)
                np.testing.assert_array_equal(span_rule_early_stopping(K, sol)[0], expected)
                margins = y * sol.decision_function(K)
                estimate = (margins - sol.alpha * spans)[sol.support]
                near += int(np.sum(np.abs(estimate) <= 1e-6))
    print(f"\n{structure}: {near} span-rule estimates within 1e-6 of 0", end="")
