"""TCM-NN (Proedrou et al. 2002): exactness against brute force, validity, bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks
from svmtrust import datasets
from svmtrust.conformal import p_values
from svmtrust.experiments import parallel_map
from svmtrust.experiments import tcm_nn as protocol
from svmtrust.tcm_nn import (
    AUTO_FAST_FROM,
    BACKENDS,
    TCMNearestNeighbours,
    paired_distances,
    strangeness,
)

# --------------------------------------------------------------------------- brute force


def _distance_matrix(Z):
    """Euclidean distances, squares added feature by feature from the first (the canonical
    order the module documents), written independently of the module."""
    total = np.zeros((len(Z), len(Z)))
    for j in range(Z.shape[1]):
        diff = Z[:, None, j] - Z[None, :, j]
        total = total + diff * diff
    return np.sqrt(total)


def _ratio(same, other):
    """Eq. (2) with the documented conventions: 0/0 = 1, positive/0 = largest float."""
    if other == 0:
        return 1.0 if same == 0 else np.inf
    return same / other  # may overflow to inf, as the library does


def _sum_smallest(values, k):
    total = 0.0
    for v in np.sort(values)[:k]:
        total = total + v
    return total


def brute_force_p(X, y, X_test, k, tau=None):
    """Recompute every strangeness value in every augmented bag, then eq. (3) (smoothed with
    ``tau``, one draw per test object, if given)."""
    classes = np.unique(y)
    P = np.empty((len(X_test), len(classes)))
    for t, x in enumerate(X_test):
        Z = np.vstack([X, x])
        D = _distance_matrix(Z)
        for c, label in enumerate(classes):
            labels = np.append(y, label)
            alphas = []
            for i in range(len(Z)):
                others = np.arange(len(Z)) != i
                same = D[i, others & (labels == labels[i])]
                other = D[i, others & (labels != labels[i])]
                alphas.append(_ratio(_sum_smallest(same, k), _sum_smallest(other, k)))
            P[t, c] = p_values(alphas[:-1], alphas[-1], tau=None if tau is None else tau[t])
    return P


def _problem(seed, n_classes, k, kind):
    """A small problem: Gaussian, or on an integer grid (many tied distances and duplicates)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6 * n_classes, 10 * n_classes))
    y = rng.integers(0, n_classes, size=n)
    y[: n_classes * (k + 1)] = np.repeat(np.arange(n_classes), k + 1)
    if kind == "grid":
        X = rng.integers(0, 3, size=(n, 2)).astype(float)
        X_test = np.vstack([rng.integers(0, 3, size=(3, 2)).astype(float), X[:2]])
    else:
        X = rng.normal(size=(n, 3)) + y[:, None]
        X_test = np.vstack([rng.normal(size=(3, 3)), X[:2]])
    return X, y, X_test


@pytest.mark.parametrize("algorithm", BACKENDS)
@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("kind", ["gauss", "grid"])
def test_equals_brute_force_exactly(k, n_classes, kind, algorithm):
    X, y, X_test = _problem(10 * k + n_classes, n_classes, k, kind)
    P = TCMNearestNeighbours(k=k, algorithm=algorithm).fit(X, y).predict_p(X_test)
    assert np.array_equal(P, brute_force_p(X, y, X_test, k))


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_brute_force_exact_with_large_offset_and_near_ties(algorithm):
    """Coordinates near 1e6 differing in the last digits: the single-precision selection must
    still find every neighbour that matters (its error bound, not luck)."""
    rng = np.random.default_rng(3)
    X = 1e6 + rng.integers(0, 4, size=(30, 3)) * 1e-3 + rng.normal(scale=1e-9, size=(30, 3))
    y = np.arange(30) % 3
    X_test = 1e6 + rng.integers(0, 4, size=(4, 3)) * 1e-3
    for k in (1, 2):
        P = TCMNearestNeighbours(k=k, algorithm=algorithm).fit(X, y).predict_p(X_test)
        assert np.array_equal(P, brute_force_p(X, y, X_test, k))


def test_strangeness_conventions_for_zero_distances():
    assert strangeness(0.0, 0.0) == 1.0
    assert strangeness(2.0, 0.0) == np.inf
    assert strangeness(0.0, 3.0) == 0.0
    assert strangeness(1e300, 1e-300) == np.inf  # overflow
    assert strangeness(1.0, 4.0) == 0.25


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_duplicated_points(algorithm):
    """Copies within a class, across classes, and a test object on a training point."""
    X = np.array([[0.0], [0.0], [0.0], [1.0], [1.0], [3.0], [3.0], [3.0]])
    y = np.array([0, 0, 1, 1, 1, 0, 1, 1])
    X_test = np.array([[0.0], [1.0], [3.0], [2.0]])
    model = TCMNearestNeighbours(k=1, algorithm=algorithm).fit(X, y)
    P = model.predict_p(X_test)
    assert not np.any(np.isnan(P))
    assert np.array_equal(P, brute_force_p(X, y, X_test, 1))
    # x = 0 sits on two 0s and one 1: that 1 has a zero other-class sum (0/0 = 1 if it also
    # had a copy of its own class, here it has none: 1/0 -> inf)
    assert model.strangeness_[2] == np.inf
    assert model.strangeness_[0] == 1.0  # same 0, other 0
    # a test object on the two 1s labelled 1 is perfectly typical: strangeness 0
    assert P[1, 1] == 1.0


def test_paired_distances_is_canonical():
    A = np.array([[0.0, 3.0], [1.0, 1.0]])
    B = np.array([[4.0, 0.0], [1.0, 1.0]])
    assert paired_distances(A, B).tolist() == [5.0, 0.0]


# --------------------------------------------------------------------------- validity


def test_validity_one_test_point_per_split():
    """Errors of eps-regions on exchangeable data, one test point per split.

    Each of N = 600 splits draws a fresh training set of n = 39 examples and one test
    example from the same three-class Gaussian mixture, so the N errors are independent
    Bernoulli draws. With continuous data (no ties) the error probability of a conformal
    region without smoothing is exactly floor(eps (n + 1)) / (n + 1) (the new example's rank
    is uniform), so the number of errors is binomial with that rate, and 3 standard errors
    leave a false alarm probability below 0.3% per level.
    """
    rng = np.random.default_rng(2024)
    N, n = 600, 39
    P_true = []
    for _ in range(N):
        y = rng.integers(0, 3, size=n + 1)
        y[:6] = [0, 0, 1, 1, 2, 2]
        rng.shuffle(y)
        X = rng.normal(size=(n + 1, 2)) + 1.5 * np.eye(3)[y][:, :2]
        model = TCMNearestNeighbours(k=1).fit(X[:n], y[:n])
        if len(model.classes_) < 3 or y[n] not in model.classes_:
            continue
        P_true.append(model.predict_p(X[n:])[0, y[n]])
    P_true = np.array(P_true)
    assert len(P_true) == N  # every split kept (each class has at least two examples)
    for eps in (0.05, 0.1, 0.2):
        rate = np.floor(eps * (n + 1)) / (n + 1)
        errors = np.mean(P_true <= eps)
        assert abs(errors - rate) <= 3 * np.sqrt(rate * (1 - rate) / N), (eps, errors, rate)


# --------------------------------------------------------------------------- invariance


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_identical_results_for_any_block_size_and_threads(algorithm):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    X_test = rng.normal(size=(77, 4))
    reference = TCMNearestNeighbours(k=2, block_size=1000).fit(X, y).predict_p(X_test)
    for block_size, n_jobs in ((1, None), (7, 2), (64, -1)):
        model = TCMNearestNeighbours(
            k=2, block_size=block_size, n_jobs=n_jobs, algorithm=algorithm
        ).fit(X, y)
        assert np.array_equal(model.predict_p(X_test), reference)


# --------------------------------------------------------------------------- estimator API


def test_sklearn_estimator_basics():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, "pos", "neg")
    model = TCMNearestNeighbours(k=2, block_size=16)
    assert model.get_params() == {
        "k": 2,
        "block_size": 16,
        "n_jobs": None,
        "algorithm": "auto",
        "smoothing": False,
        "smoothing_seed": None,
    }
    twin = clone(model).set_params(k=1)
    assert twin.k == 1 and model.k == 2
    model.fit(X, y)
    assert model.classes_.tolist() == ["neg", "pos"]
    P = model.predict_p(X[:5])
    assert P.shape == (5, 2)
    labels, confidence, credibility = model.predict_confidence(X[:5])
    assert set(labels) <= {"neg", "pos"}
    assert np.array_equal(labels, model.predict(X[:5]))
    assert np.array_equal(credibility, P.max(axis=1))
    assert np.array_equal(confidence, 1 - P.min(axis=1))
    assert np.array_equal(model.predict_set(X[:5], 0.1), P > 0.1)
    assert 0.0 <= model.score(X, y) <= 1.0


def test_satimage_statlog_split_error():
    """The figure the chapter and the pitfalls quote: 211 errors of 2000 (10.55%), and the
    two backends' p-values agree bit for bit on all 2000 test images."""
    X_train, y_train, X_test, y_test = datasets.satimage_train_test(datasets.load_satimage())
    exact = TCMNearestNeighbours(k=1, algorithm="exact").fit(X_train, y_train)
    P = exact.predict_p(X_test)
    assert np.sum(exact.classes_[np.argmax(P, axis=1)] != y_test) == 211
    fast = TCMNearestNeighbours(k=1, algorithm="fast").fit(X_train, y_train)
    assert np.array_equal(fast.predict_p(X_test), P)
    assert np.array_equal(fast.strangeness_, exact.strangeness_)
    default = TCMNearestNeighbours(k=1).fit(X_train, y_train)  # what the chapter runs
    assert (exact.algorithm_, fast.algorithm_, default.algorithm_) == ("exact", "fast", "fast")


@pytest.mark.parametrize("n", [AUTO_FAST_FROM - 1, AUTO_FAST_FROM])
def test_auto_chooses_by_size_and_changes_nothing_but_the_backend(n):
    """``algorithm="auto"`` runs the readable backend below AUTO_FAST_FROM training examples
    and the fast one from there on; the three settings give the same p-values, bit for bit."""
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    X_test = np.vstack([rng.normal(size=(40, 3)), X[:3]])
    models = {a: TCMNearestNeighbours(k=2, algorithm=a).fit(X, y) for a in ("auto", *BACKENDS)}
    expected = "fast" if n >= AUTO_FAST_FROM else "exact"
    assert models["auto"].algorithm_ == expected
    P = models["auto"].predict_p(X_test)
    for backend in BACKENDS:
        assert models[backend].algorithm_ == backend
        assert np.array_equal(models[backend].predict_p(X_test), P)
        assert np.array_equal(models[backend].strangeness_, models["auto"].strangeness_)


def test_fast_backend_module_is_below_the_estimator():
    """No import circle: svmtrust._tcm_nn_fast imports nothing from the package, and
    svmtrust.tcm_nn imports it (the lower module never imports the higher one)."""
    import ast
    import importlib.util

    def package_imports(module):
        tree = ast.parse(open(importlib.util.find_spec(module).origin).read())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or 0) > 0:
                found.add(node.module or "")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module] if isinstance(node, ast.ImportFrom) else []
                names += [alias.name for alias in getattr(node, "names", [])]
                found |= {n.split(".", 1)[1] for n in names if n and n.startswith("svmtrust.")}
        return found

    assert package_imports("svmtrust._tcm_nn_fast") == set()
    assert "_tcm_nn_fast" in package_imports("svmtrust.tcm_nn")


# --------------------------------------------------------------------------- feature names


def _frame(X, prefix="x"):
    return pd.DataFrame(X, columns=[f"{prefix}{j}" for j in range(X.shape[1])])


def test_dataframe_feature_names_kept_and_checked():
    """As scikit-learn's estimators: a DataFrame's columns become ``feature_names_in_``; data
    with the same columns pass silently, data without names warn, other names are refused."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    model = TCMNearestNeighbours(k=1).fit(_frame(X), y)
    assert model.feature_names_in_.tolist() == ["x0", "x1", "x2"]
    assert model.n_features_in_ == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = model.predict_p(_frame(X[:5]))
        model.predict_set(_frame(X[:5]), 0.1)
        model.predict_confidence(_frame(X[:5]))
        model.score(_frame(X), y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        assert np.array_equal(model.predict_p(X[:5]), P)
    with pytest.raises(ValueError, match="(?s)^X: .*Feature names unseen at fit time"):
        model.predict_p(_frame(X[:5], prefix="z"))
    with pytest.raises(ValueError, match="(?s)^X: .*same order"):
        model.predict_p(_frame(X[:5])[["x2", "x1", "x0"]])
    assert not hasattr(TCMNearestNeighbours().fit(X, y), "feature_names_in_")


def test_failed_fit_leaves_the_estimator_unfitted():
    X = np.random.default_rng(0).normal(size=(12, 2))
    model = TCMNearestNeighbours(k=1).fit(X, np.arange(12) % 2)
    with pytest.raises(ValueError, match="^k: "):
        model.set_params(k=6).fit(X, np.arange(12) % 2)
    with pytest.raises(NotFittedError, match="^X: "):
        model.predict_p(X)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("method", ["predict_p", "predict", "predict_confidence", "score"])
def test_unfitted_raises_not_fitted_error(method):
    model = TCMNearestNeighbours()
    args = (np.zeros((2, 3)), np.array([0, 1])) if method == "score" else (np.zeros((2, 3)),)
    with pytest.raises(NotFittedError, match="^X: "):
        getattr(model, method)(*args)
    with pytest.raises(NotFittedError):
        model.predict_set(np.zeros((2, 3)), 0.1)


@parametrize_with_checks([TCMNearestNeighbours(), TCMNearestNeighbours(algorithm="fast")])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_tiny_and_huge_coordinates_are_rescaled_exactly(algorithm):
    """Near 1e-170 every squared distance underflows (every p-value would be 1) and near 1e160
    it overflows: rescaling by a power of two gives the p-values of the unscaled data."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(30, 3))
    y = np.arange(30) % 3
    X_test = rng.normal(size=(6, 3))
    reference = TCMNearestNeighbours(k=2, algorithm=algorithm).fit(X, y).predict_p(X_test)
    assert np.array_equal(reference, brute_force_p(X, y, X_test, 2))
    assert np.any(reference < 0.5)
    for power in (-565, -300, 530):  # 2**-565 is about 1e-170, 2**530 about 3.5e159
        s = 2.0**power
        model = TCMNearestNeighbours(k=2, algorithm=algorithm).fit(X * s, y)
        assert np.array_equal(model.predict_p(X_test * s), reference), power
        assert np.array_equal(model.strangeness_, TCMNearestNeighbours(k=2).fit(X, y).strangeness_)
    tiny = TCMNearestNeighbours(k=2, algorithm=algorithm).fit(X * 1e-170, y)
    assert np.any(tiny.predict_p(X_test * 1e-170) < 0.5)


def test_paired_distances_match_cdist():
    """The module's distance (scipy's cdist) adds the squares in the documented order."""
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(4)
    for d in (1, 5, 36):
        A = rng.normal(size=(40, d)) * rng.uniform(0.1, 10, size=d)
        B = rng.normal(size=(30, d)) + 1e3
        rows, cols = np.divmod(np.arange(40 * 30), 30)
        assert np.array_equal(cdist(A, B).ravel(), paired_distances(A[rows], B[cols]))


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_far_test_object_is_exact(algorithm):
    """A test object 1e17 times farther out than the training spread (double precision)."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(20, 2))
    y = np.arange(20) % 2
    X_test = np.array([[1e17, -3e17], [0.1, 0.2]])
    P = TCMNearestNeighbours(k=2, algorithm=algorithm).fit(X, y).predict_p(X_test)
    assert np.array_equal(P, brute_force_p(X, y, X_test, 2))


# --------------------------------------------------------------------------- protocol


def test_protocol_region_counts_and_small_split():
    P = np.array([[0.5, 0.2], [0.03, 0.02], [0.5, 0.01]])
    counts = protocol.region_counts(P, np.array([1, 0, 1]), 0.1)
    assert counts == {"single": 1, "multiple": 1, "empty": 1, "single_correct": 0, "errors": 2}
    name = "shuttle-c2-vs-c4"
    tasks = [
        (name, fold, train, test, (1, 2))
        for fold, (train, test) in enumerate(protocol.splits(name, seed=0)[:4])
    ]
    one = parallel_map(protocol._task, tasks, n_jobs=1, progress=False)
    two = parallel_map(protocol._task, tasks, n_jobs=2, progress=False)
    assert one == two
    table = pd.DataFrame([row for rows in one for row in rows])
    assert set(table["method"]) == {"TCM-NN", "k-NN", "SVM", "TCM-NN region"}
    assert len(table[table["method"] == "TCM-NN region"]) == 4 * len(protocol.SIGNIFICANCE)


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_exact_integer_path_with_large_integers(algorithm):
    """Integer coordinates too large for single precision: the exact product runs in double."""
    rng = np.random.default_rng(11)
    X = rng.integers(-30000, 30000, size=(24, 3)).astype(float)
    X[12:] = X[:12] + rng.integers(-1, 2, size=(12, 3))  # near duplicates across classes
    y = np.arange(24) % 2
    X_test = np.vstack([X[:3] + 1, rng.integers(-30000, 30000, size=(2, 3))]).astype(float)
    for k in (1, 3):
        P = TCMNearestNeighbours(k=k, algorithm=algorithm).fit(X, y).predict_p(X_test)
        assert np.array_equal(P, brute_force_p(X, y, X_test, k))


# --------------------------------------------------------------------------- chapter helpers


def test_implied_error_paper_rows_and_bound_against_regions():
    """The paper's USPS rows imply at least 1.99% and 9.10% region errors; on random p-values
    the bound is below the counted error, and equal when every multi-label region is right."""
    t3 = protocol.PAPER_TABLE3
    usps = t3[t3["data"] == "USPS"]
    bound = protocol.implied_error(usps["one"], usps["none"], usps["correct"])
    assert np.allclose(bound, [94.77 * 0.021, 7.62 + 92.38 * 0.016])
    rng = np.random.default_rng(5)
    for trial in range(20):
        P = rng.uniform(size=(300, 4)) ** 3
        true = rng.integers(0, 4, size=300)
        counts = protocol.region_counts(P, true, 0.1)
        n = len(P)
        one, none = 100 * counts["single"] / n, 100 * counts["empty"] / n
        correct = 100 * counts["single_correct"] / max(counts["single"], 1)
        error = 100 * counts["errors"] / n
        assert protocol.implied_error(one, none, correct) <= error + 1e-9
        if trial == 0:  # make every multi-label region hold the true label: equality
            regions = P > 0.1
            several = regions.sum(axis=1) >= 2
            P[several, true[several]] = 1.0
            counts = protocol.region_counts(P, true, 0.1)
            one, none = 100 * counts["single"] / n, 100 * counts["empty"] / n
            correct = 100 * counts["single_correct"] / counts["single"]
            assert np.isclose(
                protocol.implied_error(one, none, correct), 100 * counts["errors"] / n
            )
    with pytest.raises(ValueError, match="^none:"):
        protocol.implied_error(50.0, -1.0, 90.0)
    # no single-label region: "correct" is undefined (NaN) and adds nothing
    assert protocol.implied_error([0.0, 10.0], [5.0, 5.0], [np.nan, 50.0]).tolist() == [5.0, 10.0]
    # issue 22: NaN was dropped and shares of the same regions adding to 120% were accepted
    for args, name in (((np.nan, 5.0, 90.0), "one"), ((10.0, 5.0, np.nan), "correct")):
        with pytest.raises(ValueError, match=f"^{name}:"):
            protocol.implied_error(*args)
    with pytest.raises(ValueError, match="^none: one \\+ none exceeds 100%"):
        protocol.implied_error(70.0, 50.0, 90.0)


def test_table3_error_columns():
    """Table 3's measured error is the pooled region error; its bound never exceeds it."""
    name = "shuttle-c2-vs-c4"
    rows = [
        row
        for fold, (train, test) in enumerate(protocol.splits(name, seed=0))
        for row in protocol.evaluate_split(name, fold, train, test, (1,))
    ]
    results = pd.DataFrame(rows)
    table = protocol.table3(results)
    ours = table[table["source"] == "book"]
    assert (
        ours["error"].notna().all() and table.loc[table["source"] == "paper", "error"].isna().all()
    )
    regions = results[results["method"] == "TCM-NN region"]
    for _, row in ours.iterrows():
        sub = regions[regions["significance"] == row["significance"]]
        assert np.isclose(row["error"], 100 * sub["errors"].sum() / sub["n_test"].sum())
        assert row["error >="] <= row["error"] + 1e-9


def test_seed_spread_reuses_results_and_is_the_same_for_any_n_jobs():
    name, ks = "shuttle-c2-vs-c4", (1, 2)
    rows = [
        row
        for fold, (train, test) in enumerate(protocol.splits(name, seed=0))
        for row in protocol.evaluate_split(name, fold, train, test, ks)
    ]
    reused = protocol.seed_spread(name, seeds=(0, 1), ks=ks, results=pd.DataFrame(rows))
    fresh = protocol.seed_spread(name, seeds=(0, 1), ks=ks, n_jobs=2)
    pd.testing.assert_frame_equal(reused, fresh)
    assert set(fresh["seed"]) == {0, 1} and set(fresh["method"]) == {"TCM-NN", "k-NN", "SVM"}
    with pytest.raises(ValueError, match="^name:"):
        protocol.seed_spread("optdigits")
    with pytest.raises(ValueError, match="^results:"):
        protocol.seed_spread(name, seeds=(0,), ks=(3,), results=pd.DataFrame(rows))


def test_random_split_errors_against_numpy_nearest_neighbour():
    table = protocol.random_split_errors("segment", n_train=2000, seeds=(3, 4))
    X, y = protocol.load("segment")
    for row in table.itertuples():
        perm = np.random.default_rng(row.seed).permutation(len(y))
        train, test = perm[:2000], perm[2000:]
        D = _distance_matrix(X[np.r_[test, train]])[: len(test), len(test) :]
        assert row.errors == int(np.sum(y[train][np.argmin(D, axis=1)] != y[test]))
    with pytest.raises(ValueError, match="^n_train:"):
        protocol.random_split_errors("segment", n_train=0)


@pytest.mark.parametrize("k", [1, 2])
def test_affected_examples_against_recomputed_scores(k):
    """Count the training scores that change in some augmented bag, by brute force."""
    rng = np.random.default_rng(20 + k)
    y = np.repeat([0, 1, 2], 9)
    X = rng.normal(size=(27, 2)) + 1.5 * np.eye(3)[y][:, :2]
    X_test = rng.normal(size=(6, 2)) * 1.5

    def scores(Z, labels):
        D = _distance_matrix(Z)
        out = []
        for i in range(len(Z)):
            others = np.arange(len(Z)) != i
            out.append(
                _ratio(
                    _sum_smallest(D[i, others & (labels == labels[i])], k),
                    _sum_smallest(D[i, others & (labels != labels[i])], k),
                )
            )
        return np.array(out)

    alone = scores(X, y)
    expected = []
    for x in X_test:
        changed = np.zeros(len(y), dtype=bool)
        for label in range(3):
            changed |= scores(np.vstack([X, x]), np.append(y, label))[:-1] != alone
        expected.append(int(changed.sum()))
    assert protocol.affected_examples(X, y, X_test, k=k).tolist() == expected
    with pytest.raises(ValueError, match="^X_test:"):
        protocol.affected_examples(X, y, X_test[:, :1], k=k)


def test_affected_examples_is_an_upper_bound_with_duplicates():
    """A same-class duplicate scores 0 whatever the new object does, yet lies in its ball."""
    X, y = np.array([[0.0], [0.0], [5.0], [6.0]]), np.array([0, 0, 1, 1])
    alone = TCMNearestNeighbours(k=1).fit(X, y).strangeness_
    moved = np.zeros(len(y), dtype=bool)
    for label in (0, 1):
        bag = TCMNearestNeighbours(k=1).fit(np.vstack([X, [[1.0]]]), np.append(y, label))
        moved |= bag.strangeness_[:-1] != alone
    assert moved.tolist() == [False, False, True, True]  # the duplicates keep their score 0
    assert protocol.affected_examples(X, y, [[1.0]], k=1).tolist() == [4]


def test_extra_seed_rows_feed_the_spread_and_stay_out_of_the_tables():
    name, ks = "shuttle-c2-vs-c4", (1,)
    tasks = [
        (name, fold, train, test, ks, seed, seed == 0)
        for seed in (0, 1)
        for fold, (train, test) in enumerate(protocol.splits(name, seed))
    ]
    rows = pd.DataFrame([row for task in tasks for row in protocol._task(task, None)])
    main = rows[rows["main"]]
    pd.testing.assert_frame_equal(protocol.error_table(rows), protocol.error_table(main))
    pd.testing.assert_frame_equal(protocol.table3(rows), protocol.table3(main))
    read = protocol.seed_spread(name, seeds=(0, 1), ks=ks, results=rows)
    fresh = protocol.seed_spread(name, seeds=(0, 1), ks=ks)
    pd.testing.assert_frame_equal(read, fresh)


def test_progress_tasks_cut_a_split_without_changing_its_rows():
    """run() cuts a split with several k into one task per k plus the SVM (the progress bar's
    steps); the rows, concatenated, are those of the uncut split."""
    name = "shuttle-c2-vs-c4"
    train, test = protocol.splits(name, seed=0)[0]
    split = (name, 0, train, test, (1, 2), 0, True)
    cut = protocol._split_tasks(split)
    assert [task[4] for task in cut] == [(1,), (2,), ()]
    assert [task[7] for task in cut] == [False, False, True]
    assert [row for task in cut for row in protocol._task(task, None)] == protocol._task(
        split, None
    )
    assert protocol._split_tasks((name, 0, train, test, (1,), 0, True)) == [
        (name, 0, train, test, (1,), 0, True, True)
    ]
