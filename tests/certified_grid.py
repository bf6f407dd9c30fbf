"""Problems of the LIBSVM guide's grid and an independent judge of fit_svm's answers (issue 50).

The structures are those the fourth review found the canonical step failing on
(``../shared/review.md``, "Structures to build in your tests"), each a seeded generator of raw
rows and labels in {-1, +1}:

* :func:`binary`: three binary attributes (eight distinct rows), min-max scaled as the LIBSVM
  guide asks, half the rows' vectors carrying both labels;
* :func:`one_hot`: four three-valued attributes, one-hot coded, from a few dozen vectors;
* :func:`integer_grid`: rows of ``{0..3}^2`` with labels that conflict on a third of them;
* :func:`binary_linear`: five binary attributes under the linear kernel, with copies;
* :func:`near_copies`: the binary rows, each distinct vector followed by copies moved by
  1e-12 to 1e-7;
* :func:`ill_scaled`: standardised Gaussian rows whose kernel is the review's polynomial
  ``(100 x.z + 1000)^3``, entries near 1e9 to 1e10, eigenvalues to 1e12.

The judge (:func:`judge`) shares no code with ``svmtrust``: the box and ``y^T alpha`` from the
answer, the margins in extended precision (``numpy.longdouble``), the dual value against the
best of two feasible reference points (Clarabel through ``tests/reference_svm.py`` and
scikit-learn's ``SVC`` at tolerance 1e-10, each made to meet ``y^T alpha = 0`` by scaling the
heavier class), which bound the optimum from below; and an answer claimed exact must come
back, multipliers and dual value, when the rows are given in another order
(:func:`same_after_permutation`): a number that moves with the row order is not exact.

``python -m tests.certified_grid SEEDS`` runs the exploration profile by hand (every structure
with ``SEEDS`` seeds) and prints the tallies; the unit test runs two seeds.
"""

from __future__ import annotations

import itertools
import sys
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.svm import SVC

from tests import reference_svm

#: The LIBSVM guide's grid (Hsu, Chang & Lin 2003, Sec. 3.2): gamma 2^-15 .. 2^3, C 2^-5 .. 2^15,
#: every other power of two.
GAMMAS = 2.0 ** np.arange(-15, 4, 2)
CS = 2.0 ** np.arange(-5, 16, 2)

#: An answer's margins may miss the KKT conditions by this many machine epsilons of their terms'
#: size (``sum_j alpha_j |K_ij| + |b|``) when it claims to be exact: rounding of the solve and
#: of the product, and nothing a solver's tolerance leaves.
EXACT_EPS = 1000

#: A returned answer's dual value may fall short of the best reference by this fraction of its
#: terms' size (``sum(alpha) + 1/2 |alpha y|^T |K| |alpha y|``); exact answers by 1e-12.
DUAL_REL = 1e-6


def _labels(rng, vectors, n, both):
    """``n`` rows drawn from ``vectors``; a fraction ``both`` of the vectors carry both labels,
    the others one label each."""
    index = np.r_[np.arange(len(vectors)), rng.integers(0, len(vectors), n - len(vectors))]
    rng.shuffle(index)
    conflicted = rng.random(len(vectors)) < both
    own = rng.choice([-1.0, 1.0], len(vectors))
    y = np.where(conflicted[index], rng.choice([-1.0, 1.0], n), own[index])
    y[:2] = [-1.0, 1.0] if np.all(y == y[0]) else y[:2]
    return vectors[index], y


def binary(seed, n):
    """Three binary attributes, min-max scaled (they are 0 and 1 already)."""
    rng = np.random.default_rng(seed)
    vectors = np.array(list(itertools.product([0.0, 1.0], repeat=3)))
    return _labels(rng, vectors, n, 0.5)


def one_hot(seed, n):
    """Four three-valued attributes, one-hot coded (12 columns), from 20 distinct vectors."""
    rng = np.random.default_rng(seed)
    codes = np.unique(rng.integers(0, 3, (40, 4)), axis=0)[:20]
    vectors = np.hstack([(codes[:, [j]] == np.arange(3)).astype(float) for j in range(4)])
    return _labels(rng, vectors, n, 0.4)


def integer_grid(seed, n):
    """Rows of the integer grid ``{0..3}^2`` (16 vectors), a third carrying both labels."""
    rng = np.random.default_rng(seed)
    vectors = np.array(list(itertools.product(range(4), repeat=2)), dtype=float)
    return _labels(rng, vectors, n, 1 / 3)


def binary_linear(seed, n):
    """Five binary attributes (32 vectors, a third carrying both labels): the linear kernel's
    copies and rounding-size multipliers of the review."""
    rng = np.random.default_rng(seed)
    vectors = np.array(list(itertools.product([0.0, 1.0], repeat=5)))[rng.permutation(32)[:12]]
    return _labels(rng, vectors, n, 1 / 3)


def near_copies(seed, n):
    """The binary rows with copies moved by 1e-12 to 1e-7 in a random direction."""
    X, y = binary(seed, n)
    rng = np.random.default_rng(seed + 1000)
    moved = rng.random(n) < 0.5
    size = 10.0 ** rng.uniform(-12, -7, n)
    X = X + (moved * size)[:, None] * rng.standard_normal(X.shape)
    return X, y


def ill_scaled(seed, n):
    """Standardised Gaussian rows in 2 dimensions, classes 0.5 apart, so that the cubic kernel
    of :func:`gram` does not separate them and multipliers reach ``C``."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.standard_normal((n, 2)) + 0.25 * y[:, None]
    return (X - X.mean(0)) / X.std(0), y


#: Name -> (generator, sizes, kernels): "rbf" runs the gamma grid, "linear" one Gram matrix,
#: "poly" the review's ill-scaled polynomial.
STRUCTURES = {
    "binary": (binary, (33, 60, 150), ("rbf",)),
    "one-hot": (one_hot, (60,), ("rbf",)),
    "integer grid": (integer_grid, (40,), ("rbf", "linear")),
    "binary linear": (binary_linear, (18, 28), ("linear",)),
    "near-copies": (near_copies, (30, 60), ("rbf",)),
    "ill-scaled": (ill_scaled, (21,), ("poly",)),
}


def gram(X, kernel, gamma=None):
    """The Gram matrix of ``X``: RBF ``exp(-gamma |x - z|^2)``, linear, or ``(100 x.z + 1000)^3``."""
    if kernel == "linear":
        return X @ X.T
    if kernel == "poly":
        return (100.0 * (X @ X.T) + 1000.0) ** 3
    sq = np.sum(X**2, axis=1)
    return np.exp(-gamma * np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0))


def problems(structure, seeds):
    """Every ``(name, K, y, C)`` of ``structure`` over ``seeds`` and the grid."""
    generate, sizes, kernels = STRUCTURES[structure]
    for seed, n, kernel in itertools.product(seeds, sizes, kernels):
        X, y = generate(seed, n)
        widths = GAMMAS if kernel == "rbf" else (None,)
        for gamma, C in itertools.product(widths, CS):
            name = f"{structure} seed={seed} n={n} {kernel} gamma={gamma} C={C}"
            yield name, gram(X, kernel, gamma), y, float(C)


@dataclass
class Verdict:
    """What the judge found: the answer's box violation, ``|y^T alpha| / sum(alpha)``, the count
    of multipliers of rounding size (within 1e-9 of the largest from 0, or of C from C), its KKT
    violation in margin units, the margins' rounding scale, its dual value and the reference's,
    and the terms' size of the dual value."""

    box: float
    balance: float
    tiny: int
    kkt: float
    terms: float
    dual: float
    reference: float
    size: float

    def exact_holds(self) -> bool:
        """An exact claim: in the box, no multiplier of rounding size, ``y^T alpha = 0`` to
        1e-9, margins to rounding, and the dual value not below the reference beyond rounding."""
        eps = np.finfo(float).eps
        return (
            self.box == 0.0
            and self.tiny == 0
            and self.balance <= 1e-9
            and self.kkt <= EXACT_EPS * eps * self.terms
            and self.dual >= self.reference - 1e-12 * self.size
        )

    def accurate_holds(self) -> bool:
        """An answer returned as inexact: in the box, ``y^T alpha = 0`` to 1e-5 and its dual
        value within :data:`DUAL_REL` of the reference's."""
        return (
            self.box == 0.0
            and self.balance <= 1e-5
            and self.dual >= self.reference - DUAL_REL * self.size
        )


def _dual(K, y, alpha):
    """The dual value in extended precision, and the size of its terms."""
    coef = (alpha * y).astype(np.longdouble)
    quad = coef @ K.astype(np.longdouble) @ coef
    size = np.sum(alpha) + 0.5 * np.abs(alpha) @ np.abs(K) @ np.abs(alpha)
    return float(np.sum(alpha, dtype=np.longdouble) - quad / 2), float(size)


def _feasible(y, C, alpha):
    """``alpha`` clipped to the box and scaled on its heavier class to meet ``y^T alpha = 0``."""
    alpha = np.clip(alpha, 0.0, C)
    pos, neg = alpha[y > 0].sum(), alpha[y < 0].sum()
    if pos > neg:
        alpha[y > 0] *= neg / pos
    elif neg > 0:
        alpha[y < 0] *= pos / neg
    return alpha


def reference_dual(K, y, C):
    """The best dual value of two feasible reference points: a lower bound of the optimum."""
    values = []
    scale = float(np.mean(np.diag(K)))
    try:
        L = reference_svm._factor(K / scale)
        alpha = reference_svm._stage1(L, y, C * scale) / scale
        values.append(_dual(K, y, _feasible(y, C, alpha))[0])
    except reference_svm.ReferenceError:
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # libsvm's iteration limit on the flattest kernels
        svc = SVC(kernel="precomputed", C=C, tol=1e-10, max_iter=10**6).fit(K, y)
    alpha = np.zeros(y.size)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    values.append(_dual(K, y, _feasible(y, C, alpha))[0])
    return max(values)


def judge(K, y, C, alpha, b, reference) -> Verdict:
    """The answer ``(alpha, b)`` judged from ``K, y, C`` alone (module notes)."""
    box = max(0.0, -float(alpha.min()), float(alpha.max()) - C)
    top = float(alpha.max())
    tiny = int(
        np.sum((alpha > 0) & (alpha < 1e-9 * top)) + np.sum((alpha < C) & (alpha > C * (1 - 1e-9)))
    )
    total = float(alpha.sum())
    balance = abs(float(y @ alpha)) / total if total > 0 else 0.0
    values = K.astype(np.longdouble) @ (alpha * y).astype(np.longdouble)
    margins = y * (values + b)
    short = np.where(alpha < C, np.maximum(1 - margins, 0), 0)
    over = np.where(alpha > 0, np.maximum(margins - 1, 0), 0)
    terms = float(np.max(np.abs(K) @ alpha)) + abs(b) + 1.0
    dual, size = _dual(K, y, alpha)
    kkt = float(np.max(np.maximum(short, over)))
    return Verdict(box, balance, tiny, kkt, terms, dual, reference, size)


def same_after_permutation(fit, K, y, C, solver, sol, seed) -> str:
    """``fit`` on the rows in a seeded random order, against ``sol`` (claimed exact):
    ``"same"`` when it is claimed exact too with the same multipliers (to 1e-7 of the largest)
    and dual value (to 1e-9 of ``|W| + sum(alpha)``), ``"inexact"`` when it is returned as
    inexact (exactness that depends on the row order: counted, not wrong), ``"moved"``
    otherwise (wrong)."""
    order = np.random.default_rng(seed).permutation(y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = fit(K[np.ix_(order, order)], y[order], C, solver)
    alpha = np.empty(y.size)
    alpha[order] = other.alpha
    top = float(np.max(sol.alpha, initial=0.0))
    first, _ = _dual(K, y, sol.alpha)
    second, _ = _dual(K, y, alpha)
    if not other.exact:
        return "inexact"
    same = float(np.max(np.abs(alpha - sol.alpha))) <= 1e-7 * top and abs(
        first - second
    ) <= 1e-9 * (abs(first) + float(np.sum(sol.alpha)))
    return "same" if same else "moved"


def tally(fit, structure, seeds, solvers=("cvxpy", "libsvm")):
    """Fit every problem of ``structure`` with each solver; return the counts (``"inexact
    reordered"``: exact answers whose reordered twin came back inexact), the fallbacks and the
    wrong answers. ``fit(K, y, C, solver)`` returns a solution with ``alpha``, ``b``, ``exact`` and
    ``fallback``, or raises (a refusal, counted)."""
    counts = {"problems": 0, "exact": 0, "inexact": 0, "refused": 0, "inexact reordered": 0}
    fallbacks: dict[str, int] = {}
    wrong = []
    for name, K, y, C in problems(structure, seeds):
        reference = reference_dual(K, y, C)
        for solver in solvers:
            counts["problems"] += 1
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    sol = fit(K, y, C, solver)
                except Exception as err:  # noqa: BLE001 - a refusal is counted, with its kind
                    counts["refused"] += 1
                    if type(err).__name__ != "SolveError":
                        wrong.append((name, solver, f"raised {type(err).__name__}: {err}"))
                    continue
            fallbacks[sol.fallback] = fallbacks.get(sol.fallback, 0) + 1
            verdict = judge(K, y, C, sol.alpha, sol.b, reference)
            if sol.exact:
                counts["exact"] += 1
                if not verdict.exact_holds():
                    wrong.append((name, solver, "claimed exact", verdict))
                else:
                    again = same_after_permutation(fit, K, y, C, solver, sol, counts["problems"])
                    if again == "moved":
                        wrong.append((name, solver, "claimed exact, moves with the row order"))
                    counts["inexact reordered"] += again == "inexact"
            else:
                counts["inexact"] += 1
                if not caught or not verdict.accurate_holds():
                    wrong.append((name, solver, f"inexact, {len(caught)} warnings", verdict))
    return counts, fallbacks, wrong


if __name__ == "__main__":
    from svmtrust.svm import fit_svm

    n_seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    for structure in STRUCTURES:
        counts, fallbacks, wrong = tally(fit_svm, structure, range(n_seeds))
        print(structure, counts, fallbacks, f"wrong {len(wrong)}", flush=True)
        for item in wrong:
            print("   ", item)
