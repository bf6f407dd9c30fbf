"""An independent reference for the transductive SVM machines: numpy and Clarabel only.

Written from the definitions (the SVM chapter, the transduction chapter, the estimators'
docstrings), without reading ``lib/svmtrust``, so that ``tests/test_differential.py`` can compare
the library's p-values with a computation that shares none of its code.

Definitions
-----------
A bag is a Gram matrix ``K`` (PSD), labels ``y`` in {-1, +1} and a box ``C`` in (0, inf].

* Dual: maximise ``sum(a) - a'Qa / 2``, ``Q = diag(y) K diag(y)``, ``0 <= a <= C``, ``y'a = 0``.
* Canonical multipliers: the optimum of smallest Euclidean norm. Computed in three stages:

  1. the dual, solved by Clarabel at tight tolerances on ``K / s`` with box ``C s``
     (``s`` = mean diagonal of ``K``), the quadratic term written as ``||t||^2`` with
     ``t = L' diag(y) a`` and ``K = L L'`` from an eigendecomposition (eigenvalues below
     ``1e-12`` of the largest dropped);
  2. the minimum-norm point of the optimal set ``{a feasible : L' diag(y) a = t1, sum(a) =
     sum(a1)}``, again by Clarabel, where ``a1`` is stage 1's point made an exact optimum by the
     polish of step 3 (stage 1's ``w`` is only as accurate as the square root of its objective's
     error where the dual is flat, as when ``w = 0``, and a face read from it can miss the
     optimal set by 1e-4);
  3. a polish in exact linear algebra: stage 2's answer fixes which multipliers sit at 0, which
     at ``C`` and which are free; the free ones are the minimum-norm solution of the bordered
     KKT system ``Q_FF a_F + y_F b = 1 - C Q_FU 1``, ``y_F' a_F = -C y_U' 1``. The polished point
     is kept only when it is in the box, meets every KKT condition to ``1e-8`` in margin units
     and ``y'a = 0`` to rounding, and moves no multiplier by more than ``1e-6`` of the largest;
     otherwise stage 2's point is used (``Canonical.polished`` says which).

* Canonical bias: the mean of ``y_i - F_i`` over free multipliers, else the midpoint of the
  interval of biases meeting the KKT conditions (its finite end if it is a half-line).
* Machines: one SVM for two classes (``classes[1]`` is +1), one-vs-rest SVMs otherwise; each
  example's strangeness comes from the SVM of its own class: its multiplier (TransductiveSVM) or
  ``-y f(x) / ||w||`` (DistanceTCM; 0 for every example of an SVM whose ``w`` is 0).
* p-values count the new example in its bag; Mondrian p-values rank it among the training
  examples of its candidate class only; smoothed p-values break ties with one ``tau`` per test
  object.

Ties: the reference is less accurate than the library, so each comparison of a score with the
new example's is classified as a tie (gap at most ``TIE_REL`` of the SVM's score scale), distinct
(at least ``DISTINCT_REL``) or ambiguous; bands ``TIE_REL_POLISHED`` and
``DISTINCT_REL_POLISHED`` when every SVM of the bag was polished; a p-value with an ambiguous comparison is returned as
NaN and counted as skipped by the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import clarabel
import numpy as np
from scipy import sparse

#: Relative gap (to the SVM's score scale) at or below which two scores are the same.
TIE_REL = 1e-6
#: Relative gap at or above which two scores are surely different; between the two: ambiguous.
DISTINCT_REL = 1e-4
#: The same two bounds for a bag whose SVMs were all polished (exact linear algebra, every KKT
#: condition met to KKT_REL): the library's own tie rule (about 1e-9) falls inside the band.
TIE_REL_POLISHED = 1e-10
#: The transductive SVM merges multipliers within 1e-6 of the bag's largest
#: (``svmtrust.svm.merge_multiplier_ties``, a chain of neighbours): gaps below 3e-7 are ties,
#: above 3e-6 distinct, between ambiguous (counted, skipped); above DISTINCT_REL when a polish
#: failed (stage 2's multipliers are only Clarabel-accurate: 1.7e-5 of C off on RBF gamma 3e-5).
TSVM_TIE_BANDS = (3e-7, 3e-6)
DISTINCT_REL_POLISHED = 1e-7
#: max |w . phi(x_i)| relative to the largest size of its terms (:func:`_w_zero`): at most
#: W_ZERO_REL means w = 0, at least W_NONZERO_REL (W_NONZERO_REL_POLISHED after a polish)
#: means w != 0, between: ambiguous (every DistanceTCM p-value of that bag is skipped).
W_ZERO_REL = 1e-11
W_NONZERO_REL = 1e-7
W_NONZERO_REL_POLISHED = 1e-9
#: Eigenvalues of K / s below this fraction of the largest are dropped from the factor L.
EIG_REL = 1e-12
#: KKT tolerance of the polish, relative to the problem's scale.
KKT_REL = 1e-8
#: A bag is beyond the reference (every p-value of it skipped) when its final point misses a KKT
#: condition by more than this, in margin units: Clarabel stopped short and the polish found no
#: exact point (C = 1e-4, where multipliers of 1e-4 C stay off their bound).
KKT_TRUST = 1e-6


class ReferenceError(RuntimeError):
    """The reference could not solve a problem (a solver status other than solved)."""


# ---------------------------------------------------------------- kernels


def kernel_matrix(spec: dict, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
    """Kernel values of the rows of X against those of Z; spec as scikit-learn's SVC names it.

    ``{"kernel": "linear"}``, ``{"kernel": "rbf", "gamma": g}`` or
    ``{"kernel": "poly", "gamma": g, "degree": d, "coef0": c}``. Squared distances are summed
    from differences, so that a row equal to another is at distance exactly 0.
    """
    X = np.asarray(X, float)
    Z = X if Z is None else np.asarray(Z, float)
    name = spec["kernel"]
    if name == "linear":
        return X @ Z.T
    if name == "poly":
        return (spec["gamma"] * (X @ Z.T) + spec["coef0"]) ** spec["degree"]
    if name == "rbf":
        d2 = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2)
        return np.exp(-spec["gamma"] * d2)
    raise ValueError(f"unknown kernel {name!r}")


# ---------------------------------------------------------------- one SVM


@dataclass
class Canonical:
    """The canonical optimum of one SVM dual, in the problem's own units."""

    alpha: np.ndarray
    bias: float
    decision: np.ndarray  # f(x_i) = F_i + b on the bag's examples
    w2: float  # ||w||^2 = a'Qa
    w_zero: bool | None  # True: w = 0, False: w != 0, None: ambiguous
    polished: bool
    stage2_gap: float  # max |stage 2 - final| / scale of alpha
    kkt_violation: float  # largest KKT violation of the final point, in margin units


def _clarabel(P, q, A, b, cones, *, tol=1e-12):
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = tol
    settings.tol_gap_rel = tol
    settings.tol_feas = tol
    settings.tol_ktratio = 1e-10
    settings.max_iter = 400
    solver = clarabel.DefaultSolver(
        sparse.csc_matrix(P), q, sparse.csc_matrix(A), b, cones, settings
    )
    sol = solver.solve()
    status = str(sol.status)
    if status not in ("Solved", "AlmostSolved"):
        raise ReferenceError(f"Clarabel status {status}")
    return np.array(sol.x), status


def _factor(K: np.ndarray) -> np.ndarray:
    vals, vecs = np.linalg.eigh((K + K.T) / 2)
    top = max(vals[-1], 0.0)
    if vals[0] < -1e-8 * max(top, 1e-300):
        raise ValueError("kernel matrix is not PSD")
    keep = vals > EIG_REL * top
    return vecs[:, keep] * np.sqrt(vals[keep])


def _box_rows(n: int, C: float):
    """Rows of -a <= 0 and, for finite C, a <= C, as Clarabel non-negative cone rows."""
    A = -np.eye(n)
    b = np.zeros(n)
    if np.isfinite(C):
        A = np.vstack([A, np.eye(n)])
        b = np.r_[b, np.full(n, C)]
    return A, b


def _stage1(L: np.ndarray, y: np.ndarray, C: float) -> np.ndarray:
    n, r = L.shape
    G = L.T * y  # r x n: t = G a
    P = np.zeros((n + r, n + r))
    P[n:, n:] = np.eye(r)
    q = np.r_[-np.ones(n), np.zeros(r)]
    A_eq = np.vstack([np.hstack([G, -np.eye(r)]), np.r_[y, np.zeros(r)][None, :]])
    b_eq = np.zeros(r + 1)
    A_box, b_box = _box_rows(n, C)
    A = np.vstack([A_eq, np.hstack([A_box, np.zeros((A_box.shape[0], r))])])
    b = np.r_[b_eq, b_box]
    cones = [clarabel.ZeroConeT(r + 1), clarabel.NonnegativeConeT(A_box.shape[0])]
    x, _ = _clarabel(P, q, A, b, cones)
    return x[:n]


def _stage2(L: np.ndarray, y: np.ndarray, C: float, a1: np.ndarray) -> np.ndarray:
    n = len(y)
    a1 = np.clip(a1, 0.0, C)
    G = L.T * y
    A_eq = np.vstack([G, np.ones((1, n)), y[None, :]])
    b_eq = np.r_[G @ a1, a1.sum(), 0.0]
    A_box, b_box = _box_rows(n, C)
    cones = [clarabel.ZeroConeT(A_eq.shape[0]), clarabel.NonnegativeConeT(A_box.shape[0])]
    x, _ = _clarabel(np.eye(n), np.zeros(n), np.vstack([A_eq, A_box]), np.r_[b_eq, b_box], cones)
    return x


def _bias(alpha, y, C, F, free):
    """The canonical bias from multipliers whose zeros and bounds are exact."""
    if free.any():
        return float(np.mean(y[free] - F[free]))
    lo, hi = -np.inf, np.inf
    for i in range(len(y)):
        r = y[i] - F[i]  # y_i (F_i + b) = 1 at b = r
        if alpha[i] < C:  # needs y_i (F_i + b) >= 1
            if y[i] > 0:
                lo = max(lo, r)
            else:
                hi = min(hi, r)
        if alpha[i] > 0:  # needs y_i (F_i + b) <= 1
            if y[i] > 0:
                hi = min(hi, r)
            else:
                lo = max(lo, r)
    if np.isfinite(lo) and np.isfinite(hi):
        return (lo + hi) / 2
    return float(lo if np.isfinite(lo) else hi)


def _polish(Qs, y, C, a2, scale_a, snap=1e-7):
    """Exact min-norm solution on stage 2's partition; None when it leaves the box.

    A free multiplier that the minimum-norm solution pushes out of the box is fixed at that
    bound and the system solved again (at most n rounds).
    """
    n = len(y)
    at0 = a2 <= snap * scale_a
    atC = (a2 >= C * (1 - snap)) if np.isfinite(C) else np.zeros(n, bool)
    for _ in range(n + 1):
        free = ~(at0 | atC)
        a = np.zeros(n)
        a[atC] = C
        if free.any():
            f = np.flatnonzero(free)
            u = np.flatnonzero(atC)
            M = np.zeros((len(f) + 1, len(f) + 1))
            M[: len(f), : len(f)] = Qs[np.ix_(f, f)]
            M[: len(f), -1] = y[f]
            M[-1, : len(f)] = y[f]
            rhs = np.r_[np.ones(len(f)), 0.0]
            if len(u):
                rhs[:-1] -= C * Qs[np.ix_(f, u)].sum(axis=1)
                rhs[-1] = -C * y[u].sum()
            z = np.linalg.lstsq(M, rhs, rcond=1e-13)[0]
            a[f] = z[:-1]
        low = free & (a < -1e-12 * scale_a)
        high = free & (a > C * (1 + 1e-12)) if np.isfinite(C) else np.zeros(n, bool)
        if not (low.any() or high.any()):
            return np.clip(a, 0.0, C), free
        at0 |= low
        atC |= high
    return None, free


def _polished(Ks, Qs, y, C, a_start, max_gap):
    """The polish of ``a_start`` at the first snapping tolerance that verifies, or None.

    Verified: every KKT condition to ``KKT_REL`` in margin units, ``y'a = 0`` to rounding, and
    within ``max_gap`` (relative to the largest multiplier) of ``a_start``.
    """
    scale_a = max(float(np.max(np.abs(a_start))), 1e-300)
    for snap in (1e-7, 1e-9, 1e-5, 1e-11):
        a, free = _polish(Qs, y, C, a_start, scale_a, snap)
        if a is None:
            continue
        F = Ks @ (a * y)
        b = _bias(a, y, C, F, free & (a > 0) & (a < C))
        viol, eq = _kkt_violation(Qs, y, C, a, b)
        ok_kkt = viol <= KKT_REL * max(1.0, float(np.abs(F).max()))
        ok_eq = eq <= 1e-12 * max(1.0, float(a.sum()))
        if ok_kkt and ok_eq and np.max(np.abs(a - a_start)) <= max_gap * scale_a:
            return a, free
    return None


def _kkt_violation(Qs, y, C, a, b):
    g = Qs @ a  # y_i F_i
    m = g + y * b  # y_i f(x_i)
    viol = np.zeros(len(y))
    lowC = a < C
    pos = a > 0
    viol[lowC] = np.maximum(viol[lowC], 1 - m[lowC])
    viol[pos] = np.maximum(viol[pos], m[pos] - 1)
    return float(viol.max()), abs(float(y @ a))


def canonical_svm(K: np.ndarray, y: np.ndarray, C: float, polish: bool = True) -> Canonical:
    """The canonical optimum (multipliers, bias, decision values, ||w||^2) of one SVM.

    ``polish=False`` keeps stage 2's point (snapped to 0 and C at 1e-9 of the largest
    multiplier and of C): a second route, used to confirm a disagreement.
    """
    K = np.asarray(K, float)
    y = np.asarray(y, float)
    s = float(np.mean(np.diag(K)))
    if not s > 0:
        s = 1.0
    Ks = K / s
    Cs = C * s
    L = _factor(Ks)
    a1 = _stage1(L, y, Cs)
    Qs = (y[:, None] * Ks) * y[None, :]
    # The optimal face is {G a = G a*, sum a = sum a*} for an EXACT optimum a*: stage 1's
    # w is only as accurate as the square root of its objective's error where the dual is
    # flat (w = 0), so stage 1 is first polished into an exact (not minimum-norm) optimum.
    exact = _polished(Ks, Qs, y, Cs, a1, max_gap=np.inf)  # any exact optimum
    if exact is not None:
        a1 = exact[0]
    a2 = _stage2(L, y, Cs, a1)
    scale_a = max(float(np.max(np.abs(a2))), 1e-300)  # the largest multiplier
    polished = False
    if polish:
        found = _polished(Ks, Qs, y, Cs, a2, max_gap=1e-6)
        if found is not None:
            a, free = found
            polished = True
    if not polished:
        a = np.clip(a2, 0.0, Cs)
        a[a <= 1e-9 * scale_a] = 0.0
        if np.isfinite(Cs):
            a[a >= Cs * (1 - 1e-9)] = Cs
    Fs = Ks @ (a * y)
    b = _bias(a, y, Cs, Fs, (a > 0) & (a < Cs))
    viol, _ = _kkt_violation(Qs, y, Cs, a, b)
    gap = float(np.max(np.abs(a - a2))) / scale_a
    alpha = a / s
    F = K @ (alpha * y)
    w2 = float(alpha @ (y * F))
    return Canonical(alpha, b, F + b, w2, _w_zero(K, alpha, F, polished), polished, gap, viol)


# ---------------------------------------------------------------- machines


@dataclass
class BagScores:
    """Strangeness of every example of one bag (training examples first, new one last)."""

    tsvm: np.ndarray
    dist: np.ndarray
    tsvm_scale: np.ndarray  # per example: the score scale of the SVM that scored it
    dist_scale: np.ndarray
    dist_ambiguous: bool  # an SVM whose w = 0 could not be decided


def _problems(codes: np.ndarray, n_classes: int):
    """(class index scored by the problem, +-1 labels) for each SVM of a bag."""
    if n_classes == 2:
        return [(None, np.where(codes == 1, 1.0, -1.0))]
    return [(j, np.where(codes == j, 1.0, -1.0)) for j in range(n_classes)]


def bag_scores(K: np.ndarray, codes: np.ndarray, n_classes: int, C: float, route="clarabel"):
    """Both machines' strangeness on one bag, every SVM solved by ``route``.

    ``route``: ``"clarabel"`` (the three stages), ``"stage2"`` (without the polish) or
    ``"brute"`` (:func:`brute_force_svm`, bags of at most 9 examples).
    """
    n = len(codes)
    tsvm = np.full(n, np.nan)
    dist = np.full(n, np.nan)
    tsvm_scale = np.zeros(n)
    dist_scale = np.zeros(n)
    ambiguous = False
    solutions = []
    for j, yy in _problems(codes, n_classes):
        if route == "brute":
            sol = brute_force_svm(K, yy, C)
        else:
            sol = canonical_svm(K, yy, C, polish=route == "clarabel")
        solutions.append(sol)
        mine = np.ones(n, bool) if j is None else codes == j
        tsvm[mine] = sol.alpha[mine]
        tsvm_scale[mine] = float(np.max(np.abs(sol.alpha)))
        if sol.w_zero is None:
            ambiguous = True
        if sol.w_zero:
            d = np.zeros(n)
        else:
            d = -yy * sol.decision / np.sqrt(max(sol.w2, 1e-300))
        dist[mine] = d[mine]
        dist_scale[mine] = float(np.max(np.abs(d)))
    return BagScores(tsvm, dist, tsvm_scale, dist_scale, ambiguous), solutions


def compare(scores, scales, new_score, new_scale, polished=False, bands=None):
    """Per score: +1 if greater than the new one, 0 if tied, -1 if smaller, NaN if ambiguous.
    ``bands``: (tie, distinct) relative gaps overriding the defaults."""
    tie, distinct = (
        (TIE_REL_POLISHED, DISTINCT_REL_POLISHED) if polished else (TIE_REL, DISTINCT_REL)
    )
    if bands is not None:
        tie, distinct = bands
    scale = np.maximum(scales, new_scale)
    gap = scores - new_score
    safe = np.where(scale > 0, scale, 1.0)
    rel = np.where(scale > 0, np.abs(gap) / safe, np.where(gap == 0, 0.0, np.inf))
    rel = np.where(gap == 0, 0.0, rel)
    out = np.where(gap > 0, 1.0, -1.0)
    out[rel <= tie] = 0.0
    out[(rel > tie) & (rel < distinct)] = np.nan
    return out


def p_value(cmp: np.ndarray, tau: float | None):
    """p-value from the comparisons of the old examples (the new one is a tie with itself)."""
    if np.isnan(cmp).any():
        return np.nan
    greater = float(np.sum(cmp > 0))
    ties = float(np.sum(cmp == 0)) + 1.0
    if tau is None:
        return (greater + ties) / (len(cmp) + 1)
    return (greater + tau * ties) / (len(cmp) + 1)


def _trusted(solutions) -> bool:
    """Whether the reference decides this bag: every SVM's point within :data:`KKT_TRUST` of
    its KKT conditions."""
    return all(sol.kkt_violation <= KKT_TRUST for sol in solutions)


@dataclass
class ReferenceResult:
    """p-values (NaN where skipped), keyed by (machine, variant), and the accuracy record."""

    p: dict
    solutions: list


def reference_p_values(X, y, X_test, spec, C, taus=None, route="clarabel"):
    """p-values of both machines, plain, Mondrian and smoothed, for every test object.

    Returns ``ReferenceResult.p[(machine, variant)]`` of shape (m, n_classes), machine in
    {"tsvm", "dist"}, variant in {"plain", "mondrian", "smooth"}; ``taus`` are the smoothing
    draws (one per test object); ``route`` as in :func:`bag_scores`.
    """
    X = np.asarray(X, float)
    X_test = np.asarray(X_test, float)
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    c = len(classes)
    Xall = np.vstack([X, X_test])
    Kall = kernel_matrix(spec, Xall)
    l, m = len(X), len(X_test)
    out = {
        (mach, var): np.full((m, c), np.nan)
        for mach in ("tsvm", "dist")
        for var in ("plain", "mondrian", "smooth")
    }
    sols = []
    for t in range(m):
        idx = np.r_[np.arange(l), l + t]
        K = Kall[np.ix_(idx, idx)]
        for lab in range(c):
            bag_codes = np.r_[codes, lab]
            sc, s = bag_scores(K, bag_codes, c, C, route)
            sols.extend(s)
            if not _trusted(s):
                continue
            for mach, vals, scl, amb in (
                ("tsvm", sc.tsvm, sc.tsvm_scale, False),
                ("dist", sc.dist, sc.dist_scale, sc.dist_ambiguous),
            ):
                if amb:
                    continue
                polished = all(sol.polished for sol in s)
                if mach == "tsvm":
                    # the transductive SVM's documented tie rule: multipliers within 1e-6 of the
                    # bag's largest are one (svm.merge_multiplier_ties); a band around it, its
                    # upper end as wide as Clarabel's accuracy when a polish failed
                    top = float(np.max(vals))
                    bands = TSVM_TIE_BANDS if polished else (TSVM_TIE_BANDS[0], DISTINCT_REL)
                    cmp = compare(vals[:l], top, vals[l], top, bands=bands)
                else:
                    cmp = compare(vals[:l], scl[:l], vals[l], scl[l], polished)
                out[(mach, "plain")][t, lab] = p_value(cmp, None)
                if taus is not None:
                    out[(mach, "smooth")][t, lab] = p_value(cmp, float(taus[t]))
                # Mondrian: the candidate class's SVM scores its own examples the same way
                # (the own-class SVM of a class-lab example is the candidate's SVM).
                mine = codes == lab
                out[(mach, "mondrian")][t, lab] = p_value(cmp[mine], None)
    return ReferenceResult(out, sols)


# ---------------------------------------------------------------- a second route: brute force


def brute_force_svm(K: np.ndarray, y: np.ndarray, C: float) -> Canonical:
    """The canonical optimum by enumerating every split into (0, C, free), for n <= 9.

    Each split's bordered KKT system is solved in the minimum-norm sense; a split whose solution
    is inside the box and meets every KKT condition gives optimal points, and the optimum of
    smallest norm is the canonical one (it lies in the relative interior of its own split). No
    solver, no tolerance shared with the Clarabel route beyond the KKT check. The splits with
    the same number of free multipliers are solved together (:func:`_free_splits`); the
    candidates are then taken in the order of the enumeration.
    """
    K = np.asarray(K, float)
    y = np.asarray(y, float)
    n = len(y)
    if n > 9:
        raise ValueError("brute force is for n <= 9")
    Q = (y[:, None] * K) * y[None, :]
    states = (0, 1, 2) if np.isfinite(C) else (0, 2)  # 0: at 0, 1: at C, 2: free
    scale = max(1.0, float(np.abs(K).sum(axis=1).max()) * (C if np.isfinite(C) else 1.0))
    splits = np.array(np.meshgrid(*[states] * n, indexing="ij")).reshape(n, -1).T
    free_count = np.sum(splits == 2, axis=1)
    found = []  # (position in the enumeration, multipliers, bias)
    for position in np.flatnonzero(free_count == 0):
        a = np.where(splits[position] == 1, C, 0.0)
        if abs(y @ a) > 1e-12 * max(1.0, C if np.isfinite(C) else 1.0):
            continue
        found.append((position, a, _bias(a, y, C, K @ (a * y), np.zeros(n, bool))))
    for k in range(1, n + 1):
        positions = np.flatnonzero(free_count == k)
        for position, a, b in zip(positions, *_free_splits(Q, y, C, splits[positions], k)):
            if a is not None:
                found.append((position, a, b))
    best = None
    for _, a, b in sorted(found, key=lambda item: item[0]):
        m = Q @ a + y * b
        lowC = a < C
        pos = a > 0
        if np.any(1 - m[lowC] > 1e-9 * scale) or np.any(m[pos] - 1 > 1e-9 * scale):
            continue
        if best is None or a @ a < best @ best - 1e-12 * max(1.0, best @ best):
            best = a
    if best is None:
        raise ReferenceError("brute force found no optimum")
    a = best
    F = K @ (a * y)
    b = _bias(a, y, C, F, (a > 0) & (a < C))
    w2 = float(a @ (y * F))
    return Canonical(a, b, F + b, w2, _w_zero(K, a, F, True), True, 0.0, 0.0)


def _w_zero(K, a, F, polished) -> bool | None:
    """Whether ``w = 0``: every ``F_i = sum_j a_j y_j K_ij`` (``w . phi(x_i)``) is 0 relative to
    the size of its terms, ``sum_j a_j |K_ij|``. At most :data:`W_ZERO_REL` of the largest
    term size: True; at least :data:`W_NONZERO_REL` (:data:`W_NONZERO_REL_POLISHED` for a
    polished optimum, whose F is accurate far below Clarabel's tolerance): False; between:
    None (ambiguous). Not ``||w||^2`` against ``(sum a)^2``: at a large box the multipliers are
    large while ``w`` is not (linear kernel, C = 1e6: ``||w||^2`` about 1 against 1e15)."""
    size = float(np.max(np.abs(K) @ a, initial=0.0))
    if size == 0:
        return True
    rel = float(np.max(np.abs(F))) / size
    if rel <= W_ZERO_REL:
        return True
    return False if rel >= (W_NONZERO_REL_POLISHED if polished else W_NONZERO_REL) else None


def _free_splits(Q, y, C, splits, k):
    """The splits (rows of ``splits``, each with ``k`` free multipliers) solved together: for
    each, its multipliers and bias, or ``(None, None)`` when its bordered system has no exact
    solution or the minimum-norm one leaves the open box. The minimum-norm solution is the
    pseudo-inverse's, with singular values below ``1e-13`` of the largest cut (as ``lstsq``
    with ``rcond=1e-13``)."""
    N, n = splits.shape
    free = np.array([np.flatnonzero(split == 2) for split in splits]).reshape(N, k)
    bound = (splits == 1).astype(float)
    M = np.zeros((N, k + 1, k + 1))
    M[:, :k, :k] = Q[free[:, :, None], free[:, None, :]]
    M[:, :k, k] = M[:, k, :k] = y[free]
    rhs = np.zeros((N, k + 1))
    rhs[:, :k] = 1.0
    if np.isfinite(C):
        rhs[:, :k] -= C * np.einsum("skj,sj->sk", Q[free], bound)
        rhs[:, k] = -C * (bound @ y)
    z = np.einsum("sij,sj->si", np.linalg.pinv(M, rcond=1e-13), rhs)
    residual = np.linalg.norm(np.einsum("sij,sj->si", M, z) - rhs, axis=1)
    exact = residual <= 1e-9 * np.maximum(1.0, np.linalg.norm(rhs, axis=1))
    inside = np.all(z[:, :k] > 0, axis=1)
    if np.isfinite(C):
        inside &= np.all(z[:, :k] < C, axis=1)
    multipliers, biases = [], []
    for s in range(N):
        if not (exact[s] and inside[s]):
            multipliers.append(None)
            biases.append(None)
            continue
        a = np.where(splits[s] == 1, C, 0.0)
        a[free[s]] = z[s, :k]
        multipliers.append(a)
        biases.append(float(z[s, k]))
    return multipliers, biases
