"""Differential tests: the transductive machines against an independent reference.

``tests/reference_svm.py`` recomputes the canonical SVM and both machines' p-values from the
definitions (numpy and Clarabel, no library code). Seeded generators build, on purpose, the
structures that broke canonical or incremental routes before (pitfalls.md, "Adding one example
to a trained SVM"; review.md, "Library: reproducers"), at n = 6 to 25 so that one comparison
costs milliseconds:

1. ``duplicates``: repeated rows, some of them carrying both labels;
2. ``test_copies``: test objects equal to training rows (support vectors especially);
3. ``no_free``: no free support vector (one feature, linear kernel, small C);
4. ``w_zero``: three or four classes on a line, a one-vs-rest problem whose w is 0;
5. ``C_range``: C from 1e-4 to 1e4, test objects near the margin;
6. ``kernels``: RBF gamma from 1e-5 to 1e2 on standardised data, linear and polynomial;
7. ``collinear``: points on a line in two or three dimensions.

For each problem the library's p-values (TransductiveSVM and DistanceTCM; plain, Mondrian and
smoothed; incremental and retrain) are compared with the reference's. A p-value whose reference
comparison is ambiguous (a gap between 1e-6 and 1e-4 of the scores' scale) is skipped and
counted. A candidate disagreement (|p_lib - p_ref| > 1e-9) is confirmed by a second reference
route (stage 2 without the polish, and brute force over active sets when the bag has at most
9 examples); if the routes differ, the p-value counts as skipped, not as a disagreement.
The library alone must also give the same p-values for every training order, in one batch or
one test object per call, and with either method.

A seeded run of every structure is followed by more problems whose seeds hypothesis draws
(derandomised: the same on every run), the stress cases that once disagreed, and the review's
reproducers. Run ``pytest tests/test_differential.py -s`` to see the summary table, with the
routes (``Addition.route``) the incremental additions took.
"""

from __future__ import annotations

import contextlib
import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from svmtrust import incremental_svm
from svmtrust.svm import InexactWarning
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM

from tests.reference_svm import (
    brute_force_svm,
    canonical_svm,
    kernel_matrix,
    reference_p_values,
)

P_TOL = 1e-9  # a disagreement is |p_lib - p_ref| above this
SMOOTH_SEED = 7
MACHINES = {"tsvm": TransductiveSVM, "dist": DistanceTCM}
VARIANTS = {
    "plain": {},
    "mondrian": {"mondrian": True},
    "smooth": {"smoothing": True, "smoothing_seed": SMOOTH_SEED},
}
METHODS = ("incremental", "retrain")


# ---------------------------------------------------------------- generators


def _labels(rng, n, n_classes=2):
    codes = np.r_[np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)]
    return rng.permutation(codes)


def _spec(rng, kind=None, d=2):
    kind = kind or rng.choice(["linear", "rbf", "poly"])
    if kind == "linear":
        return {"kernel": "linear"}
    if kind == "rbf":
        return {"kernel": "rbf", "gamma": float(10 ** rng.uniform(-1, 0.5)) / d}
    return {
        "kernel": "poly",
        "gamma": 1.0 / d,
        "degree": int(rng.integers(2, 4)),
        "coef0": float(rng.choice([0.0, 1.0])),
    }


def gen_duplicates(rng):
    """A few distinct points repeated; some feature vectors carry both labels."""
    k = int(rng.integers(3, 7))
    base = np.round(rng.normal(size=(k, 2)), 1)
    base_y = _labels(rng, k)
    counts = rng.integers(1, 5, k)
    X = np.repeat(base, counts, axis=0)
    y = np.repeat(base_y, counts)
    flip = rng.random(len(y)) < 0.25  # conflicting copies
    y = np.where(flip, 1 - y, y)
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    X_test = np.vstack([base[rng.integers(k)], np.round(rng.normal(size=2), 1)])
    return X, y, X_test, _spec(rng, rng.choice(["linear", "rbf"])), float(rng.choice([0.1, 1, 10]))


def gen_test_copies(rng):
    """Test objects equal to training rows, support vectors first (free ones when any)."""
    n = int(rng.integers(8, 16))
    y = _labels(rng, n, int(rng.choice([2, 2, 3])))
    X = rng.normal(size=(n, 2)) + 0.8 * y[:, None]
    spec = _spec(rng, rng.choice(["linear", "rbf"]))
    C = float(rng.choice([0.3, 1, 10]))
    yy = np.where(y == y.max(), 1.0, -1.0)
    sol = canonical_svm(kernel_matrix(spec, X), yy, C)
    free = np.flatnonzero((sol.alpha > 1e-6 * C) & (sol.alpha < C * (1 - 1e-6)))
    sv = np.flatnonzero(sol.alpha > 1e-6 * C)
    picks = [rng.choice(free) if len(free) else rng.choice(sv), rng.choice(sv)]
    return X, y, X[picks], spec, C


def gen_no_free(rng):
    """One feature, linear kernel, a box so small that every support vector is at C."""
    n = int(rng.integers(3, 9))
    y = _labels(rng, n)
    X = np.round(rng.normal(-1, 2.5, size=(n, 1)), 1)
    C = float(rng.choice([0.01, 0.05, 0.1, 0.2]))
    X_test = np.round(rng.normal(-1, 2.5, size=(2, 1)), 2)
    return X, y, X_test, {"kernel": "linear"}, C


def gen_w_zero(rng):
    """Three or four classes on a line, one of them in the middle: its one-vs-rest w is 0."""
    c = int(rng.choice([3, 4]))
    n_each = int(rng.integers(2, 5))
    centres = np.arange(c, dtype=float)
    rng.shuffle(centres)
    codes = np.repeat(np.arange(c), n_each)
    t = centres[codes] + rng.uniform(-0.3, 0.3, len(codes))
    if rng.random() < 0.5:  # symmetric: a middle class exactly centred
        t = np.round(t, 1)
    X = t[:, None] if rng.random() < 0.5 else np.c_[t, 0.5 * t]
    X_test = X[rng.integers(len(X), size=1)] + 0.05
    return X, codes, X_test, {"kernel": "linear"}, float(rng.choice([0.1, 1.0, 10.0]))


def gen_C_range(rng):
    """C from 1e-4 to 1e4; test objects near the training SVM's margin."""
    n = int(rng.integers(8, 20))
    y = _labels(rng, n)
    X = rng.normal(size=(n, 2)) + 1.5 * (y[:, None] - 0.5)
    C = float(10 ** rng.uniform(-4, 4))
    spec = _spec(rng, rng.choice(["linear", "rbf"]))
    # near-margin test objects: points between the classes, and one training row nudged
    X_test = np.vstack([rng.normal(size=(1, 2)) * 0.3, X[rng.integers(n)] + 1e-3])
    return X, y, X_test, spec, C


def gen_kernels(rng):
    """Standardised data; RBF gamma from 1e-5 to 1e2, linear and polynomial kernels."""
    n = int(rng.integers(8, 20))
    d = int(rng.integers(1, 4))
    y = _labels(rng, n, int(rng.choice([2, 2, 3])))
    X = rng.normal(size=(n, d)) + 0.7 * y[:, None]
    mu, sd = X.mean(0), X.std(0)
    X = (X - mu) / sd
    X_test = (rng.normal(size=(2, d)) + 0.5 - mu) / sd
    kind = rng.choice(["rbf", "rbf", "linear", "poly"])
    if kind == "rbf":
        spec = {"kernel": "rbf", "gamma": float(10 ** rng.uniform(-5, 2))}
    else:
        spec = _spec(rng, kind, d)
    return X, y, X_test, spec, float(10 ** rng.uniform(-1, 2))


def gen_collinear(rng):
    """Points on one line in 2 or 3 dimensions, any kernel."""
    n = int(rng.integers(6, 16))
    d = int(rng.integers(2, 4))
    y = _labels(rng, n, int(rng.choice([2, 3])))
    v = rng.normal(size=d)
    c0 = rng.normal(size=d)
    t = np.round(rng.normal(size=n) + 0.6 * y, 2)
    X = c0 + t[:, None] * v
    X_test = c0 + np.array([[rng.normal()], [t[0]]]) * v
    return X, y, X_test, _spec(rng, None, d), float(rng.choice([0.05, 0.5, 5.0]))


#: structure -> (generator, number of problems)
STRUCTURES = {
    "duplicates": (gen_duplicates, 8),
    "test_copies": (gen_test_copies, 6),
    "no_free": (gen_no_free, 12),
    "w_zero": (gen_w_zero, 4),
    "C_range": (gen_C_range, 8),
    "kernels": (gen_kernels, 8),
    "collinear": (gen_collinear, 6),
}


# ---------------------------------------------------------------- the comparison


def library_params(spec, C):
    params = {"kernel": spec["kernel"], "C": C}
    for key in ("gamma", "degree", "coef0"):
        if key in spec:
            params[key] = spec[key]
    return params


def library_p(machine, variant, method, params, X, y, X_test):
    model = MACHINES[machine](method=method, **VARIANTS[variant], **params)
    return model.fit(X, y).predict_p(X_test)


class Stats:
    """Counts of one structure."""

    def __init__(self):
        self.problems = 0
        self.p_compared = 0
        self.skipped = 0
        self.unsure = 0  # the two reference routes differed
        self.disagreements = []  # (seed, machine, variant, method, t, label, p_lib, p_ref)
        self.invariance = []  # library-only failures: (seed, what)
        self.errors = []  # library exceptions: (seed, machine, variant, method, message)
        self.warned = 0  # problems on which the library said it could not be exact
        self.routes = Counter()  # additions of the incremental route, by Addition.route
        self.polished = 0
        self.svms = 0
        self.worst_gap = 0.0
        self.worst_kkt = 0.0


def confirm(problem, taus, key, t, lab, p_ref, cache):
    """Whether the second reference routes give the same p-value (``cache``: their answers)."""
    X, y, X_test, spec, C = problem
    routes = ["stage2"] + (["brute"] if len(X) + 1 <= 7 else [])
    for route in routes:
        if (route, t) not in cache:
            cache[(route, t)] = reference_p_values(
                X, y, X_test[t : t + 1], spec, C, taus[t : t + 1], route
            )
        q = cache[(route, t)].p[key][0, lab]
        if not (np.isfinite(q) and abs(q - p_ref) <= P_TOL):
            return False
    return True


def run_problem(problem, seed, stats):
    X, y, X_test, spec, C = problem
    m = len(X_test)
    taus = np.random.default_rng(SMOOTH_SEED).random(m)
    ref = reference_p_values(X, y, X_test, spec, C, taus)
    stats.problems += 1
    for sol in ref.solutions:
        stats.svms += 1
        stats.polished += sol.polished
        stats.worst_gap = max(stats.worst_gap, sol.stage2_gap)
        stats.worst_kkt = max(stats.worst_kkt, sol.kkt_violation)
    params = library_params(spec, C)
    cache = {}
    for machine in MACHINES:
        for variant in VARIANTS:
            got = {}
            # smoothed p-values use the same strangeness as plain ones: one method a problem,
            # alternating, keeps the suite's time down
            methods = METHODS if variant != "smooth" else (METHODS[seed % 2],)
            for method in methods:
                try:
                    got[method] = library_p(machine, variant, method, params, X, y, X_test)
                except Exception as exc:  # a library failure on a valid problem is a finding
                    stats.errors.append((seed, machine, variant, method, repr(exc)[:200]))
                    continue
                p_ref = ref.p[(machine, variant)]
                for t in range(m):
                    for lab in range(p_ref.shape[1]):
                        if not np.isfinite(p_ref[t, lab]):
                            stats.skipped += 1
                            continue
                        stats.p_compared += 1
                        p_lib = got[method][t, lab]
                        if abs(p_lib - p_ref[t, lab]) > P_TOL:
                            key = (machine, variant)
                            if confirm(problem, taus, key, t, lab, p_ref[t, lab], cache):
                                stats.disagreements.append(
                                    (seed, machine, variant, method, t, lab, p_lib, p_ref[t, lab])
                                )
                            else:
                                stats.p_compared -= 1
                                stats.unsure += 1
            if len(got) == 2 and not np.array_equal(got["incremental"], got["retrain"]):
                stats.invariance.append((seed, f"{machine} {variant}: incremental != retrain"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InexactWarning)
        library_invariance(problem, seed, stats)
    if any(issubclass(w.category, InexactWarning) for w in caught):
        stats.warned += 1  # the library said its optimum is not exact: no invariance promised
        stats.invariance = [v for v in stats.invariance if v[0] != seed]


def library_invariance(problem, seed, stats):
    """Training order and batching must not move any p-value (library alone), unless the
    library warns that an optimum could not be made exact (``InexactWarning``)."""
    X, y, X_test, spec, C = problem
    params = library_params(spec, C)
    order = np.random.default_rng(seed + 1000).permutation(len(y))
    for machine in MACHINES:
        for variant in ("plain", "mondrian")[: 1 + seed % 2]:
            try:
                base = library_p(machine, variant, "incremental", params, X, y, X_test)
                perm = library_p(
                    machine, variant, "incremental", params, X[order], y[order], X_test
                )
            except Exception:
                continue  # already counted as an error
            if np.abs(base - perm).max() > 1e-12:
                stats.invariance.append((seed, f"{machine} {variant}: training order"))
            if variant == "plain":
                model = MACHINES[machine](**params).fit(X, y)
                one = np.vstack([model.predict_p(X_test[t : t + 1]) for t in range(len(X_test))])
                if np.abs(base - one).max() > 1e-12:
                    stats.invariance.append((seed, f"{machine}: batch != one per call"))


SUMMARY = {}


@contextlib.contextmanager
def counting_routes(counter: Counter):
    """Count the routes (``Addition.route``) of every incremental addition made inside."""
    original = incremental_svm._Addition.run

    def run(self):
        addition = original(self)
        counter[addition.route] += 1
        return addition

    incremental_svm._Addition.run = run
    try:
        yield
    finally:
        incremental_svm._Addition.run = original


@pytest.fixture(scope="module", autouse=True)
def summary_table():
    yield
    if not SUMMARY:
        return
    head = (
        f"{'structure':<12} {'problems':>8} {'p cmp':>6} {'skip':>5} {'unsure':>6} "
        f"{'disagree':>8} {'invar':>5} {'errors':>6} {'warned':>6} {'polish':>9} {'stage2':>8} "
        f"{'kkt':>8}  routes"
    )
    print("\n" + head)
    for name, s in SUMMARY.items():
        print(
            f"{name:<12} {s.problems:>8} {s.p_compared:>6} {s.skipped:>5} {s.unsure:>6} "
            f"{len(s.disagreements):>8} {len(s.invariance):>5} {len(s.errors):>6} {s.warned:>6} "
            f"{s.polished:>4}/{s.svms:<4} {s.worst_gap:>8.1e} {s.worst_kkt:>8.1e}  "
            + " ".join(f"{route} {s.routes[route]}" for route in incremental_svm.ROUTES)
        )


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_differential(structure):
    generator, count = STRUCTURES[structure]
    stats = Stats()
    with counting_routes(stats.routes):
        for k in range(count):
            seed = 1000 * (list(STRUCTURES).index(structure) + 1) + k
            problem = generator(np.random.default_rng(seed))
            run_problem(problem, seed, stats)
    SUMMARY[structure] = stats
    lines = [
        f"{structure}: {stats.problems} problems, {stats.p_compared} p-values compared, "
        f"{stats.skipped} skipped (ambiguous), {stats.unsure} unsure (routes differ)"
    ]
    lines += [
        f"  disagreement seed {d[0]} {d[1]} {d[2]} {d[3]} test {d[4]} label {d[5]}: "
        f"library {d[6]:.6f} reference {d[7]:.6f}"
        for d in stats.disagreements
    ]
    lines += [f"  invariance seed {s}: {what}" for s, what in stats.invariance]
    lines += [f"  error seed {e[0]} {e[1]} {e[2]} {e[3]}: {e[4]}" for e in stats.errors]
    print("\n".join(lines))
    assert stats.skipped + stats.unsure <= 0.05 * (stats.p_compared + stats.skipped + stats.unsure)
    assert not stats.disagreements and not stats.invariance and not stats.errors, "\n".join(lines)


#: Problems of a 4x stress run (seeds past the suite's) that once disagreed: C = 1e-4, where
#: Clarabel stops short (the reference declines the bags); RBF gamma 2.8e-5 and 2.5e-5 on
#: standardised data, kernels whose eigenvalues fall steadily to 1e-17 of the largest: the
#: reference's polish fails (its tie band widens to Clarabel's accuracy), and on 106031 the
#: optimum's face is decided by rounding (the library warns).
STRESS_SEEDS = {"C_range": [105013], "kernels": [106029, 106031]}


@pytest.mark.parametrize("structure", list(STRESS_SEEDS))
def test_stress_regressions(structure):
    stats = Stats()
    for seed in STRESS_SEEDS[structure]:
        run_problem(STRUCTURES[structure][0](np.random.default_rng(seed)), seed, stats)
    assert not stats.disagreements and not stats.invariance and not stats.errors


@settings(max_examples=14, deadline=None, derandomize=True)
@given(structure=st.sampled_from(list(STRUCTURES)), seed=st.integers(200_000, 2**31 - 1))
def test_differential_drawn_by_hypothesis(structure, seed):
    """More problems of every structure, their seeds drawn by hypothesis (derandomised, so the
    same ones on every run): the same comparison, no disagreement, invariance failure or error."""
    stats = Stats()
    run_problem(STRUCTURES[structure][0](np.random.default_rng(seed)), seed, stats)
    assert not stats.disagreements and not stats.invariance and not stats.errors


def test_rank_decided_by_rounding_warns():
    """Seed 106031's bag: the optimum's face depends on the kernel's numerical rank, which
    rounding decides; the library says so rather than return one choice as exact."""
    X, y, X_test, spec, C = gen_kernels(np.random.default_rng(106031))
    model = TransductiveSVM(**library_params(spec, C)).fit(X, y)
    with pytest.warns(InexactWarning):
        model.predict_p(X_test)


# ---------------------------------------------------------------- the review's reproducers

#: DistanceTCM with no free support vector (review.md, "Library: reproducers"): linear kernel,
#: one feature; X, labels, C, test object and the correct p-values (the reference's three
#: routes agree with the review's independent computation).
NO_FREE_CASES = [
    ([3.6, -5.1, -0.3, 2.0, 2.7], [0, 1, 1, 0, 0], 0.2, -2.15, [1 / 3, 2 / 3]),
    ([-2.0, -3.1, -5.8], [0, 1, 1], 0.05, -1.76, [1.0, 1.0]),
    ([0.7, -1.1, -2.5, -3.8, 0.0, -1.6, -1.7], [0, 1, 0, 1, 0, 0, 1], 0.05, -4.05, [1.0, 1.0]),
]


@pytest.mark.parametrize("case", range(len(NO_FREE_CASES)))
@pytest.mark.parametrize("method", METHODS)
def test_review_no_free_support_vector(case, method):
    X, y, C, x_new, expected = NO_FREE_CASES[case]
    X = np.array(X)[:, None]
    y = np.array(y)
    X_test = np.array([[x_new]])
    for route in ("clarabel", "stage2", "brute"):
        ref = reference_p_values(X, y, X_test, {"kernel": "linear"}, C, route=route)
        np.testing.assert_allclose(ref.p[("dist", "plain")][0], expected, atol=1e-12)
    got = DistanceTCM(kernel="linear", C=C, method=method).fit(X, y).predict_p(X_test)
    np.testing.assert_allclose(got[0], expected, atol=P_TOL)


# ---------------------------------------------------------------- the reference's own accuracy


def closed_form_problems():
    """(K, y, C, alpha, bias) with the canonical optimum known exactly."""
    out = []
    # two points and k copies of the positive one (hard margin): the copies share 1/2 equally
    for k in (1, 2, 3, 6):
        X = np.r_[0.0, [2.0] * k][:, None]
        y = np.r_[-1.0, [1.0] * k]
        out.append((X @ X.T, y, np.inf, np.r_[0.5, [0.5 / k] * k], -1.0))
    # every point the same (w = 0): p positives at C, q > p negatives share p C equally, b = -1
    for p, q, C in ((2, 5, 1.0), (3, 4, 1e-4), (1, 6, 1e4), (4, 9, 0.3)):
        X = np.ones((p + q, 1))
        y = np.r_[[1.0] * p, [-1.0] * q]
        out.append((X @ X.T, y, C, np.r_[[C] * p, [p * C / q] * q], -1.0))
    # balanced classes, a box so small that every multiplier is C: b is the interval's midpoint
    X = np.array([[-1.0], [-0.5], [0.5], [1.0]])
    y = np.array([-1.0, 1.0, -1.0, 1.0])
    C = 0.01
    F = (X @ X.T) @ (C * y)
    lo = max(1 - F[y > 0].max(), -1 - F[y < 0].max())
    hi = min(1 - F[y > 0].min(), -1 - F[y < 0].min())
    out.append((X @ X.T, y, C, np.full(4, C), (lo + hi) / 2))
    return out


def test_reference_accuracy():
    """The reference against closed forms and against brute force over active sets."""
    worst_closed = 0.0
    for K, y, C, alpha, bias in closed_form_problems():
        sol = canonical_svm(K, y, C)
        scale = C if np.isfinite(C) else alpha.max()
        worst_closed = max(worst_closed, np.abs(sol.alpha - alpha).max() / scale)
        assert abs(sol.bias - bias) <= 1e-9 * max(1.0, abs(bias))
    worst_brute = worst_stage2 = 0.0
    rng = np.random.default_rng(5)
    for _ in range(40):
        X, y, _, spec, C = gen_duplicates(rng) if rng.random() < 0.5 else gen_no_free(rng)
        X, y = X[:8], np.where(y[:8] == y[0], 1.0, -1.0)
        if len(np.unique(y)) < 2:
            continue
        K = kernel_matrix(spec, X)
        sol = canonical_svm(K, y, C)
        brute = brute_force_svm(K, y, C)
        stage2 = canonical_svm(K, y, C, polish=False)
        worst_brute = max(worst_brute, np.abs(sol.alpha - brute.alpha).max() / C)
        worst_stage2 = max(worst_stage2, np.abs(stage2.alpha - brute.alpha).max() / C)
    print(
        f"\nreference accuracy (max |alpha - exact| / C): closed forms {worst_closed:.1e}, "
        f"vs brute force {worst_brute:.1e} (polished), {worst_stage2:.1e} (stage 2 alone)"
    )
    assert worst_closed <= 1e-9 and worst_brute <= 1e-9 and worst_stage2 <= 1e-6
