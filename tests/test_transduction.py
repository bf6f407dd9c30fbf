"""Transductive SVM p-values (Saunders, Gammerman & Vovk 1999): oracles, invariance, validity."""

import functools
import itertools
import math

import cvxpy as cp
import numpy as np
import pytest
from crepes.base import p_values_batch
from scipy.stats import binom
from sklearn.base import clone
from svmtrust.kernels import linear_kernel, rbf_kernel
from svmtrust.svm import SolveError, fit_svm, merge_multiplier_ties
from svmtrust.transduction import TIE_BREAKS, TransductiveSVM, break_ties, margin_transduction

RBF = functools.partial(rbf_kernel, gamma=0.5)


def _overlapping(seed, n=30, m=5, d=2, classes=2):
    """Overlapping Gaussian classes: a soft margin gives multipliers at 0, inside and at C."""
    rng = np.random.default_rng(seed)
    labels = np.arange(n + m) % classes
    rng.shuffle(labels)
    centres = rng.normal(scale=1.5, size=(classes, d))
    X = centres[labels] + rng.normal(size=(n + m, d))
    y = np.where(labels == 1, 1, -1) if classes == 2 else labels
    return X[:n], y[:n], X[n:]


# --------------------------------------------------------------------------- brute force


def _brute_force_p(X, y, x, C, classes):
    """p-values written out from the paper, independently of the library's transduction code.

    Stack the test example onto the training set, give it each label in turn, recompute the
    whole kernel matrix, solve, and count by hand the examples whose multiplier is at least
    the new one's, the new one included (eq. (13)).
    """
    X_all = np.vstack([X, x[None, :]])
    K = RBF(X_all)
    out = []
    for label in classes:
        labels = np.r_[y, label]
        # each example's multiplier in the one-against-the-rest SVM of its own class; with two
        # classes both problems are the binary SVM
        alpha = np.zeros(len(labels))
        for own in classes:
            sol = fit_svm(K, np.where(labels == own, 1.0, -1.0), C, "cvxpy")
            alpha[labels == own] = sol.alpha[labels == own]
        count = sum(1 for a in alpha if a >= alpha[-1])
        out.append(count / len(alpha))
    return out


@pytest.mark.parametrize("classes", [2, 3])
def test_p_values_match_brute_force(classes):
    X, y, X_test = _overlapping(3, classes=classes)
    C = 1.0
    model = TransductiveSVM(kernel=RBF, C=C, solver="cvxpy").fit(X, y)
    expected = [_brute_force_p(X, y, x, C, model.classes_) for x in X_test]
    assert np.allclose(model.predict_p(X_test), expected, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- solver invariance


PROBLEMS = [("soft", s) for s in range(3)] + [("hard", s) for s in range(2)]


@pytest.mark.parametrize("kind,seed", PROBLEMS)
def test_same_p_values_from_cvxpy_and_libsvm(kind, seed):
    """Ties at 0 and at C included: the snapped multipliers are the same from both solvers."""
    X, y, X_test = _overlapping(seed, n=40, m=6)
    if kind == "hard":
        X, X_test = X * 3.0, X_test * 3.0  # RBF on spread-out points: separable
    C = 1.0 if kind == "soft" else np.inf
    hyp = {
        solver: TransductiveSVM(kernel=RBF, C=C, solver=solver).fit(X, y).solve_hypotheses(X_test)
        for solver in ("cvxpy", "libsvm")
    }
    assert np.array_equal(hyp["cvxpy"].p_values, hyp["libsvm"].p_values)
    assert np.array_equal(hyp["cvxpy"].alpha_new == 0, hyp["libsvm"].alpha_new == 0)
    assert np.array_equal(hyp["cvxpy"].alpha_new == C, hyp["libsvm"].alpha_new == C)
    if kind == "soft":  # the ties the invariance is about do occur
        assert np.any(hyp["cvxpy"].alpha_new == 0) and np.any(hyp["cvxpy"].alpha_new == C)


def test_exact_tie_of_two_support_vectors_counts_for_both_solvers():
    """Two support vectors, one per class, have equal multipliers (sum y alpha = 0): a tie
    made exact by the problem, which rounding must not break. Training points on a line at
    -3..-1 and 1..3; the test point 0.5 labelled +1 is the only +1 support vector and pairs
    with -1, so p = 2/8 (itself and its twin)."""
    X = np.array([[-3.0], [-2.0], [-1.0], [1.0], [2.0], [3.0], [2.5]])
    y = np.array([-1, -1, -1, 1, 1, 1, 1])
    for solver in ("cvxpy", "libsvm"):
        model = TransductiveSVM(kernel=linear_kernel, solver=solver).fit(X, y)
        hyp = model.solve_hypotheses(np.array([[0.5]]))
        assert hyp.p_values[0, 1] == 2 / 8, solver
        assert hyp.alpha_new[0, 1] == pytest.approx(1 / 1.5**2 * 2, rel=1e-6)  # 2 / margin^2


def test_joint_p_values_solver_invariant_and_k1_equals_single():
    X, y, X_test = _overlapping(7, n=40, m=3)
    models = {
        s: TransductiveSVM(kernel=RBF, C=1.0, solver=s).fit(X, y) for s in ("cvxpy", "libsvm")
    }
    joint = {s: m.predict_p_joint(X_test) for s, m in models.items()}
    assert np.array_equal(joint["cvxpy"][1], joint["libsvm"][1])
    for i in range(3):  # k = 1: the rank-sum p-value is eq. (13)
        labellings, p = models["libsvm"].predict_p_joint(X_test[i : i + 1])
        assert labellings[:, 0].tolist() == models["libsvm"].classes_.tolist()
        assert np.array_equal(p, models["libsvm"].predict_p(X_test[i : i + 1])[0])


# --------------------------------------------------------------------------- validity


def _validity_p_values(trials, classes, rng):
    """p-value of the true label over independent splits: fresh bag, last example tested."""
    per_class, d = 20 // classes + (classes == 3), 20
    p_true = np.empty(trials)
    for t in range(trials):
        y = rng.permutation(np.repeat(np.arange(classes), per_class))
        X = rng.normal(size=(y.size, d)) + 0.5 * np.eye(d)[y]
        model = TransductiveSVM(kernel=linear_kernel, C=np.inf).fit(X[:-1], y[:-1])
        p_true[t] = model.predict_p(X[-1:])[0, y[-1]]
    return p_true


@pytest.mark.parametrize("classes,trials", [(2, 1000), (3, 300)])
def test_validity_one_test_point_per_split(classes, trials):
    """Error rate at eps within 3 binomial standard errors of eps, eps in {0.05, 0.1, 0.2}.

    Each split is a fresh bag of 20 (two classes, 10 + 10) or 21 (three classes, 7 each)
    Gaussian points in 20 dimensions, in random order; the last is the test point. The bag is
    exchangeable; with at most 21 points in 20 dimensions every labelling is separable and the
    multipliers are (almost surely) distinct on at least a fifth of the points, so the true
    label's p-value is uniform on {1/N, ..., 1} (N = 20 or 21) and P(p <= eps) =
    floor(eps N) / N, which is eps for N = 20 and within 0.01 of it for N = 21. Splits are
    independent, so the number of errors is binomial and 3 standard errors is a two-sided 99.7%
    band. An off-by-one count (p without the new example in its own bag) would err at
    eps + 1/N, 7 standard errors away at eps = 0.05 with 1000 splits. For three classes the test
    also guards the choice of strangeness: ranking the hypothesised class's multipliers of all
    examples errs about a third of the time at eps = 0.2 (the chapter shows it).
    """
    p_true = _validity_p_values(trials, classes, np.random.default_rng(2026 + classes))
    N = 20 if classes == 2 else 21
    for eps in (0.05, 0.1, 0.2):
        rate = np.floor(eps * N + 1e-9) / N
        error = np.mean(p_true <= eps)
        assert abs(error - eps) <= 3 * math.sqrt(eps * (1 - eps) / trials), eps
        assert abs(error - rate) <= 3 * math.sqrt(rate * (1 - rate) / trials), eps


# --------------------------------------------------------------------------- the estimator


def test_non_separable_hard_margin_raises_and_soft_margin_flags_with_C():
    X = np.array([[-2.0], [-1.5], [-1.0], [1.0], [1.5], [2.0]])
    y = np.array([-1, -1, -1, 1, 1, 1])
    x_new = np.array([[1.8]])  # deep in the +1 class: labelled -1 it cannot be separated
    with pytest.raises(SolveError, match="not separable.*finite C") as info:
        TransductiveSVM(kernel=linear_kernel, C=np.inf).fit(X, y).predict_p(x_new)
    assert info.value.status == "unbounded"
    C = 0.5
    hyp = TransductiveSVM(kernel=linear_kernel, C=C).fit(X, y).solve_hypotheses(x_new)
    assert hyp.alpha_new[0, 0] == C  # the wrong label violates the margin: multiplier at C
    alpha = fit_svm(linear_kernel(np.vstack([X, x_new])), np.r_[y, -1.0], C, "libsvm").alpha
    assert hyp.p_values[0, 0] == (np.sum(alpha[:-1] == C) + 1) / 7
    assert hyp.p_values[0, 1] == 1.0 and hyp.alpha_new[0, 1] == 0.0


@pytest.mark.parametrize("kind,seed", [("soft", 1), ("hard", 0)])
def test_reusing_the_training_svm_changes_nothing(kind, seed):
    """Test examples outside the training SVM's margin are not solved; the answers agree."""
    X, y, X_test = _overlapping(seed, n=40, m=8)  # the RBF kernel separates any labelling
    C = 1.0 if kind == "soft" else np.inf
    fast, full = (
        TransductiveSVM(kernel=RBF, C=C, method="retrain", reuse_outside_margin=r)
        .fit(X, y)
        .solve_hypotheses(X_test)
        for r in (True, False)
    )
    assert np.array_equal(fast.p_values, full.p_values)
    assert np.allclose(fast.w_norm_squared, full.w_norm_squared, rtol=1e-5)
    assert np.any(fast.p_values == 1.0)  # some test examples were outside the margin


def test_inductive_svm_and_non_separable_training_set():
    X, y, X_test = _overlapping(2, n=30, m=5)
    model = TransductiveSVM(kernel=RBF, C=1.0).fit(X, y)
    sol = fit_svm(RBF(X), np.where(y > 0, 1.0, -1.0), 1.0, "libsvm")
    assert np.allclose(
        model.inductive_decision_function(X_test), sol.decision_function(RBF(X_test, X)), atol=1e-6
    )
    X1, y1 = np.array([[0.0], [1.0], [2.0]]), np.array([1, -1, 1])
    with pytest.raises(SolveError, match="the training set is not separable"):
        TransductiveSVM(kernel=linear_kernel, C=np.inf).fit(X1, y1)


def test_three_classes():
    X, y, X_test = _overlapping(11, n=60, m=30, classes=3)
    X, X_test = 2.0 * X, 2.0 * X_test
    model = TransductiveSVM(kernel=RBF, C=1.0).fit(X, y)
    P = model.predict_p(X_test)
    assert P.shape == (30, 3) and np.all((P > 0) & (P <= 1))
    labels, confidence, credibility = model.predict_confidence(X_test)
    chosen = P[np.arange(30), np.searchsorted(model.classes_, labels)]
    assert np.array_equal(chosen, P.max(axis=1))  # a label with the largest p-value
    assert np.allclose(credibility, P.max(axis=1))
    assert np.array_equal(model.predict_set(X_test, 0.1), P > 0.1)
    assert set(margin_transduction(model, X_test[:3])) <= set(model.classes_)


def _primal_objective_at(sol, K, y, C):
    """``1/2 ||w||^2 + C sum xi`` evaluated at the (w, b) of a dual solution: a primal value."""
    coef = sol.alpha * y
    slack = np.maximum(0.0, 1.0 - y * (K @ coef + sol.b))
    return 0.5 * coef @ K @ coef + C * slack.sum()


def test_margin_transduction_against_brute_force():
    """Eq. (16) with C = 1: the labelling with the smallest primal optimum, by enumeration."""
    X, y, X_test = _overlapping(4, n=30, m=2)
    model = TransductiveSVM(kernel=RBF, C=1.0).fit(X, y)
    K = RBF(np.vstack([X, X_test]))
    values = {}
    for labels in itertools.product((-1.0, 1.0), repeat=2):
        y_aug = np.r_[y, labels]
        values[labels] = _primal_objective_at(fit_svm(K, y_aug, 1.0, "cvxpy"), K, y_aug, 1.0)
    best = min(values, key=values.get)
    assert margin_transduction(model, X_test, joint=True).tolist() == list(best)
    joint = model.solve_joint(X_test)
    assert np.allclose(
        joint.objective, [values[tuple(map(float, lab))] for lab in joint.labellings], rtol=1e-4
    )
    single = margin_transduction(model, X_test)
    assert single.shape == (2,) and set(single) <= {-1, 1}


def _toy():
    """The chapter's toy data: two Gaussian clouds of 12 points in the plane."""
    rng = np.random.default_rng(4)
    X = np.vstack(
        [rng.normal([1.0, 1.0], 0.55, size=(12, 2)), rng.normal([-1.0, -1.0], 0.55, size=(12, 2))]
    )
    return X, np.r_[np.ones(12), -np.ones(12)]


def _primal(X, y, C):
    """The soft-margin primal in (w, b, xi), solved by cvxpy: optimal value and ||w||^2.

    Independent of the library's dual: ``min 1/2 ||w||^2 + C sum xi`` subject to
    ``y_i (w . x_i + b) >= 1 - xi_i``, ``xi >= 0`` (the linear kernel's explicit features).
    """
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    xi = cp.Variable(X.shape[0], nonneg=True)
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), [cp.multiply(y, X @ w + b) >= 1 - xi]
    )
    problem.solve(solver=cp.CLARABEL)
    assert problem.status == cp.OPTIMAL
    return problem.value, float(w.value @ w.value)


@pytest.mark.parametrize("C", [1.0, 0.1])
def test_margin_transduction_against_primal(C):
    """Vapnik's rule (16) with a finite C picks the smallest primal optimum, not ||w||^2.

    For each test point and label, the primal is solved by cvxpy in (w, b, xi); the library's
    optimal values must match it, and its prediction must be the primal's argmin. Points deep
    inside one class are included: there the wrong label has the smaller ||w||^2 (the margin
    gives up on the point and pays in slack), so ranking by ||w||^2 fails this test.
    """
    X, y = _toy()
    model = TransductiveSVM(kernel=linear_kernel, C=C).fit(X, y)
    points = np.array([[-2.0, -2.0], [-1.5, -1.5], [-1.3, -0.9], [1.3, 0.9], [2.0, 2.0]])
    hyp = model.solve_hypotheses(points)
    w2_rule_wrong = 0
    for i, x in enumerate(points):
        primal = [_primal(np.vstack([X, x]), np.r_[y, label], C) for label in model.classes_]
        values = np.array([v for v, _ in primal])
        assert np.allclose(hyp.objective[i], values, rtol=1e-5, atol=1e-8)
        assert np.allclose(hyp.w_norm_squared[i], [w2 for _, w2 in primal], rtol=1e-4, atol=1e-7)
        assert margin_transduction(model, x[None, :])[0] == model.classes_[np.argmin(values)]
        w2_rule_wrong += int(np.argmin([w2 for _, w2 in primal]) != np.argmin(values))
    assert w2_rule_wrong >= 1  # the two rules differ on these points
    # jointly: two points, four labellings
    pair = points[[0, 3]]
    values = {
        lab: _primal(np.vstack([X, pair]), np.r_[y, lab], C)[0]
        for lab in itertools.product((-1.0, 1.0), repeat=2)
    }
    assert margin_transduction(model, pair, joint=True).tolist() == list(
        min(values, key=values.get)
    )


def test_margin_transduction_hard_margin_is_smallest_w2():
    """With C = inf the optimal value is 1/2 ||w||^2, so the rule is the widest margin."""
    X, y = _toy()
    model = TransductiveSVM(kernel=linear_kernel, C=np.inf).fit(X, y)
    hyp = model.solve_hypotheses(np.array([[0.3, 0.3], [-0.2, 0.1]]))
    assert np.allclose(hyp.objective, hyp.w_norm_squared / 2, rtol=1e-6)
    assert np.array_equal(hyp.margin_index, np.argmin(hyp.w_norm_squared, axis=1))


# --------------------------------------------------------------------------- Mondrian


def test_mondrian_p_values_against_crepes():
    """Label-conditional p-values: a direct cvxpy solve, counted by crepes within each class."""
    X, y, X_test = _overlapping(21, n=30, m=4, classes=3)
    model = TransductiveSVM(kernel=RBF, C=1.0, solver="cvxpy", mondrian=True).fit(X, y)
    P = model.predict_p(X_test)
    assert np.array_equal(P, model.solve_mondrian(X_test))
    for i, x in enumerate(X_test):
        X_aug = np.vstack([X, x])
        for code, label in enumerate(model.classes_):
            labels = np.r_[y, label]
            alpha = merge_multiplier_ties(
                fit_svm(RBF(X_aug), np.where(labels == label, 1.0, -1.0), 1.0, "cvxpy").alpha
            )
            expected = p_values_batch(
                alpha[:-1], np.array([[alpha[-1]]]), y, np.array([label]), smoothing=False
            )[0, 0]
            assert P[i, code] == pytest.approx(expected, abs=1e-12)
            count = (np.sum(alpha[:-1][y == label] >= alpha[-1]) + 1) / (np.sum(y == label) + 1)
            assert P[i, code] == pytest.approx(count, abs=1e-12)


def test_mondrian_binary_uses_the_binary_svm():
    X, y, X_test = _overlapping(22, n=24, m=3)
    model = TransductiveSVM(kernel=RBF, C=1.0, mondrian=True).fit(X, y)
    P = model.predict_p(X_test)
    for i, x in enumerate(X_test):
        for code, label in enumerate(model.classes_):
            labels = np.r_[y, label]
            alpha = merge_multiplier_ties(
                fit_svm(RBF(np.vstack([X, x])), labels, 1.0, "cvxpy").alpha
            )
            same = y == label
            assert P[i, code] == (np.sum(alpha[:-1][same] >= alpha[-1]) + 1) / (same.sum() + 1)


def _binomial_upper(trials, eps, level=0.999):
    """Largest error rate a valid method reaches with probability ``level``."""
    return binom.ppf(level, trials, eps) / trials


def test_mondrian_validity_one_test_point_per_split():
    """Errors of the true label at eps, overall and within each class, under a binomial bound.

    Fresh exchangeable bags of 21 points (7 of each of three classes, Gaussian in 20 dimensions,
    in random order; hard margin, every labelling separable), the last tested. Splits are
    independent, so the number of errors is binomial with rate at most eps, and the 99.9%
    quantile of Binomial(trials, eps) bounds it; class-conditional validity is checked within
    each class (about 150 trials each). With 6 or 7 training examples of the class the p-value
    lies on a grid of eighths or sevenths, so the error at eps = 0.2 is about 1/7 or 1/8: the
    last assertion checks that the p-values are not trivially large.
    """
    rng, trials = np.random.default_rng(31), 450
    p_true, truth = np.empty(trials), np.empty(trials, dtype=int)
    for t in range(trials):
        labels = rng.permutation(np.repeat([0, 1, 2], 7))
        X = rng.normal(size=(21, 20)) + 0.5 * np.eye(20)[labels]
        model = TransductiveSVM(kernel=linear_kernel, mondrian=True).fit(X[:-1], labels[:-1])
        p_true[t], truth[t] = model.predict_p(X[-1:])[0, labels[-1]], labels[-1]
    for eps in (0.1, 0.2, 0.3):
        assert np.mean(p_true <= eps) <= _binomial_upper(trials, eps), eps
        for c in range(3):
            inside = truth == c
            assert np.mean(p_true[inside] <= eps) <= _binomial_upper(inside.sum(), eps), (eps, c)
    assert np.mean(p_true <= 0.2) >= 0.08


# --------------------------------------------------------------------------- joint validity


def test_joint_p_value_matches_solve_joint_and_is_valid():
    """The true labelling's rank-sum p-value: equal to solve_joint's, and valid over splits.

    One batch of k = 3 test points per fresh exchangeable bag of 23 Gaussian points in 20
    dimensions (separable, so the hard margin applies); errors at eps counted over independent
    splits and bounded by the 99.9% binomial quantile.
    """
    rng, trials = np.random.default_rng(33), 400
    p = np.empty(trials)
    for t in range(trials):
        y = rng.permutation(np.repeat([-1, 1], 12))[:23]
        X = rng.normal(size=(23, 20)) + 0.5 * np.eye(20)[(y > 0).astype(int)]
        model = TransductiveSVM(kernel=linear_kernel, C=np.inf).fit(X[:20], y[:20])
        p[t] = model.joint_p_value(X[20:], y[20:])
        if t < 5:
            joint = model.solve_joint(X[20:])
            row = np.flatnonzero((joint.labellings == y[20:]).all(axis=1))[0]
            assert p[t] == joint.p_values[row]
    for eps in (0.05, 0.1, 0.2):
        assert np.mean(p <= eps) <= _binomial_upper(trials, eps), eps
    assert np.mean(p <= 0.2) >= 0.1


def test_estimator_interface_and_kernel_reuse():
    X, y, X_test = _overlapping(5, n=25, m=4)
    names = np.where(y > 0, "eight", "other")
    shapes = []

    def counting_kernel(A, B):
        shapes.append((A.shape[0], B.shape[0]))
        return RBF(A, B)

    model = TransductiveSVM(kernel=counting_kernel, C=1.0).fit(X, names)
    assert shapes == [(25, 25)]
    labels, conf, cred = model.predict_confidence(X_test)
    assert set(labels) <= {"eight", "other"} and np.all(conf <= 1) and np.all(cred > 0)
    assert (25, 25) not in shapes[1:]  # the training Gram matrix is never recomputed
    copy = clone(model)
    assert copy.get_params()["C"] == 1.0 and not hasattr(copy, "gram_")


def _objective_by_hand(X, y, x, label, classes, C, mondrian):
    """What the tie-break compares, from fit_svm on the stacked data: the optimal value of the
    augmented SVM (summed over the own-class problems), or for Mondrian the increase of the
    candidate label's problem over the training set alone."""
    K, labels = RBF(np.vstack([X, x[None, :]])), np.r_[y, label]
    problems = [classes[1]] if len(classes) == 2 else list(classes)
    if mondrian:
        own = classes[1] if len(classes) == 2 else label
        signs = np.where(labels == own, 1.0, -1.0)
        train = fit_svm(RBF(X), signs[:-1], C, "cvxpy").objective
        return fit_svm(K, signs, C, "cvxpy").objective - train
    return sum(fit_svm(K, np.where(labels == c, 1.0, -1.0), C, "cvxpy").objective for c in problems)


@pytest.mark.parametrize(
    "classes,mondrian,seed", [(2, False, 9), (2, True, 14), (3, False, 5), (3, True, 17)]
)
def test_tie_break_moves_only_tied_predictions(classes, mondrian, seed):
    """The tie rule changes no p-value, confidence or credibility; it moves only predictions
    whose largest p-value is shared, to the label with the smallest optimal value (checked
    against fit_svm on the stacked data) or, with "first", to the first such label."""
    X, y, X_test = _overlapping(seed, n=20, m=30, classes=classes)
    models = {
        rule: TransductiveSVM(kernel=RBF, C=1.0, mondrian=mondrian, tie_break=rule).fit(X, y)
        for rule in TIE_BREAKS
    }
    P = models["first"].predict_p(X_test)
    assert np.array_equal(P, models["objective"].predict_p(X_test))
    out = {rule: model.predict_confidence(X_test) for rule, model in models.items()}
    for a, b in zip(out["first"][1:], out["objective"][1:]):
        assert np.array_equal(a, b)
    labels = models["first"].classes_
    top = P == P.max(axis=1, keepdims=True)
    tied = top.sum(axis=1) > 1
    assert tied.any()
    assert np.array_equal(out["first"][0][~tied], out["objective"][0][~tied])
    assert np.array_equal(out["first"][0], labels[np.argmax(top, axis=1)])
    assert np.array_equal(out["objective"][0], models["objective"].predict(X_test))
    moved = 0
    for i in np.flatnonzero(tied):
        candidates = labels[top[i]]
        values = [_objective_by_hand(X, y, X_test[i], c, labels, 1.0, mondrian) for c in candidates]
        order = np.sort(values)
        if order[1] - order[0] > 1e-6 * max(1.0, abs(order[0])):
            assert out["objective"][0][i] == candidates[int(np.argmin(values))], i
        moved += out["objective"][0][i] != out["first"][0][i]
    assert moved > 0  # the rule matters on these data


def test_break_ties_rules():
    P = np.array([[0.2, 0.2, 0.1], [0.1, 0.5, 0.5], [0.3, 0.3, 0.3], [0.9, 0.1, 0.1]])
    cost = np.array([[5.0, 1.0, 0.0], [1.0, 2.0, 2.0], [3.0, 1.0, 2.0], [9.0, 0.0, 0.0]])
    assert break_ties(P, cost, "first").tolist() == [0, 1, 0, 0]
    # the smallest cost among the tied labels only; the first of those on a further tie
    assert break_ties(P, cost).tolist() == [1, 1, 1, 0]


# --------------------------------------------------------------------------- bad input


def _fitted():
    X, y, X_test = _overlapping(0, n=20, m=12)
    return TransductiveSVM(kernel=RBF, C=1.0, max_joint=3).fit(X, y), X_test


def _non_psd_on_test(A, B):
    """Linear kernel with the diagonal entry of a single test example made too small."""
    K = linear_kernel(A, B)
    return K - 5.0 if A.shape[0] == 1 and A is B else K


X_BAD = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0]])
CASES = [
    ("k above the limit", lambda: _fitted()[0].predict_p_joint(_fitted()[1][:4]), "X"),
    ("NaN in training X", lambda: TransductiveSVM().fit(X_BAD, [1, -1, 1]), "X"),
    ("NaN in test X", lambda: _fitted()[0].predict_p(X_BAD), "X"),
    ("NaN in y", lambda: TransductiveSVM().fit(np.eye(3), [1.0, np.nan, -1.0]), "y"),
    ("one class", lambda: TransductiveSVM().fit(np.eye(3), [1, 1, 1]), "y"),
    ("y too short", lambda: TransductiveSVM().fit(np.eye(3), [1, -1]), "y"),
    ("significance 0", lambda: _fitted()[0].predict_set(_fitted()[1], 0.0), "significance"),
    ("significance 1", lambda: _fitted()[0].predict_set(_fitted()[1], 1.0), "significance"),
    ("significance 1.5", lambda: _fitted()[0].predict_set(_fitted()[1], 1.5), "significance"),
    ("significance NaN", lambda: _fitted()[0].predict_set(_fitted()[1], np.nan), "significance"),
    ("features mismatch", lambda: _fitted()[0].predict_p(np.ones((2, 3))), "X"),
    ("C negative", lambda: TransductiveSVM(C=-1.0).fit(np.eye(2), [1, -1]), "C"),
    ("unknown solver", lambda: TransductiveSVM(solver="osqp").fit(np.eye(2), [1, -1]), "solver"),
    ("max_joint zero", lambda: TransductiveSVM(max_joint=0).fit(np.eye(2), [1, -1]), "max_joint"),
    (
        "kernel an unknown name",
        lambda: TransductiveSVM(kernel="sigmoid").fit(np.eye(2), [1, -1]),
        "kernel",
    ),
    (
        "kernel not PSD",
        lambda: TransductiveSVM(kernel=lambda A, B: -linear_kernel(A, B)).fit(np.eye(2), [1, -1]),
        "kernel",
    ),
    (
        "augmented kernel not PSD",
        lambda: (
            TransductiveSVM(kernel=_non_psd_on_test)
            .fit(np.eye(3), [1, -1, 1])
            .predict_p(np.array([[1.0, 1.0, 0.0]]))
        ),
        "kernel",
    ),
    (
        "kernel wrong shape",
        lambda: TransductiveSVM(kernel=lambda A, B: np.eye(2)).fit(np.eye(3), [1, -1, 1]),
        "kernel",
    ),
    (
        "joint with three classes",
        lambda: (
            TransductiveSVM(kernel=RBF, C=1.0)
            .fit(np.eye(3), [0, 1, 2])
            .predict_p_joint(np.eye(3)[:1])
        ),
        "X",
    ),
    (
        "mondrian not bool",
        lambda: TransductiveSVM(mondrian="yes").fit(np.eye(2), [1, -1]),
        "mondrian",
    ),
    (
        "tie_break unknown",
        lambda: TransductiveSVM(tie_break="random").fit(np.eye(2), [1, -1]),
        "tie_break",
    ),
    (
        "joint_p_value unknown label",
        lambda: _fitted()[0].joint_p_value(_fitted()[1][:2], [5, 5]),
        "y",
    ),
    ("joint_p_value wrong length", lambda: _fitted()[0].joint_p_value(_fitted()[1][:2], [1]), "y"),
]


@pytest.mark.parametrize("call,name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name}:"):
        call()


def test_joint_limit_is_settable():
    model, X_test = _fitted()
    assert model.solve_joint(X_test[:3]).p_values.shape == (8,)
    with pytest.raises(ValueError, match=r"^X: 4 test examples need 2\^4 = 16"):
        model.solve_joint(X_test[:4])
    assert model.set_params(max_joint=4).solve_joint(X_test[:4]).labellings.shape == (16, 4)


# --------------------------------------------------------------------------- the protocol


def test_protocol_same_runs_for_one_and_two_jobs():
    from svmtrust.experiments import transduction as protocol

    one = protocol.table2_runs(runs=3, sizes=(20, 40), n_jobs=1, progress=False)
    two = protocol.table2_runs(runs=3, sizes=(20, 40), n_jobs=2, progress=False)
    assert one.equals(two) and len(one) == 6
    table = protocol.table2(one)
    assert table.shape[0] == 8 and (table["paper_errors"].iloc[:6] > 0).all()
    assert table["method"].iloc[6:].eq("1-NN").all() and table["paper_low"].iloc[6:].isna().all()
    nn = protocol.nearest_neighbour_predict(
        np.array([[0.0], [3.0]]), np.array([-1, 1]), np.array([[1.0], [2.0], [1.5]])
    )
    assert nn.tolist() == [-1, 1, -1]  # the first on a tie
    assert (table["low"] <= table["rate"]).all() and (table["rate"] <= table["high"]).all()


def test_protocol_runs_one_data_set_with_the_draws_it_has_among_all(monkeypatch):
    """Run i draws from task_rng(seed, i) whatever the tasks the runs are shared out in."""
    import pandas as pd
    from svmtrust.experiments import transduction as protocol

    both = dict(runs=3, sizes=(20, 40), progress=False, data=protocol.DATASETS)
    every = protocol.table2_runs(n_jobs=2, **both)
    monkeypatch.setattr(protocol, "_RUNS_PER_TASK", 4)  # tasks across sizes (in this process)
    parts = [protocol.table2_runs(n_jobs=1, only=name, **both) for name in protocol.DATASETS]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), every, check_exact=True)
    assert parts[1]["data"].eq("optdigits").all() and len(parts[1]) == 6


def test_protocol_retrains_and_the_incremental_route_gives_the_same_runs(monkeypatch):
    """Table 2's runs solve the augmented SVMs again (``method="retrain"``); on the same draws
    the incremental route gives every column the same (p-values, the four predictions,
    confidence, credibility, the ties) and the test multipliers to rounding. Both data sets,
    n = 20 and 40, a hard margin: the draws include tied p-values (digits with equal
    multipliers) and optical digits repeated among the twos and sevens."""
    from svmtrust.experiments import transduction as protocol

    plan = dict(runs=40, sizes=(20, 40), progress=False, data=protocol.DATASETS)
    retrained = protocol.table2_runs(**plan)
    made = []

    def incremental_machine(*args, **kwargs):
        made.append(TransductiveSVM(*args, **{**kwargs, "method": "incremental"}))
        return made[-1]

    monkeypatch.setattr(protocol, "TransductiveSVM", incremental_machine)
    incremental = protocol.table2_runs(**plan)
    assert len(made) == 160 and all(hasattr(model, "incremental_") for model in made)
    multipliers = ["alpha_seven", "alpha_two"]
    others = [c for c in retrained.columns if c not in multipliers]
    assert retrained[others].equals(incremental[others])
    np.testing.assert_allclose(retrained[multipliers], incremental[multipliers], rtol=0, atol=1e-12)
    assert retrained["p_tie"].sum() > 0 and len(retrained) == 160


def test_a_hard_margin_on_inseparable_data_fails_in_fit_and_leaves_it_unfitted():
    """The default C = inf on data that are not separable: fit says to use a finite C, and
    predict then raises NotFittedError (not AttributeError); a finite C fits the same data."""
    from sklearn.exceptions import NotFittedError

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
    y = np.array([0, 0, 1, 1, 1])
    model = TransductiveSVM(kernel="linear", C=np.inf)
    with pytest.raises(SolveError, match="use a finite C"):
        model.fit(X, y)
    with pytest.raises(NotFittedError):
        model.predict(X[:1])
    assert TransductiveSVM(kernel="linear").fit(X, y).predict_p(X[:1]).shape == (1, 2)
