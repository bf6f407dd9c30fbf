"""Kernels: definitions, symmetry and positive semi-definiteness."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from svmtrust import kernels
from svmtrust.kernels import linear_kernel, polynomial_kernel, rbf_kernel

KERNELS = {
    "linear": linear_kernel,
    "poly3": lambda X, Z=None: polynomial_kernel(X, Z, degree=3, scale=2.0),
    "rbf": lambda X, Z=None: rbf_kernel(X, Z, gamma=0.7),
}


@pytest.mark.parametrize("name", KERNELS)
def test_gram_is_symmetric_and_psd(name):
    X = np.random.default_rng(1).normal(size=(60, 4))
    K = KERNELS[name](X)
    assert np.array_equal(K, K.T)
    assert np.linalg.eigvalsh(K).min() >= -1e-9 * np.abs(K).max()


@pytest.mark.parametrize("name", KERNELS)
def test_cross_gram_matches_gram_block(name):
    X = np.random.default_rng(2).normal(size=(30, 3))
    K = KERNELS[name](X)
    assert np.allclose(KERNELS[name](X[:10], X[10:]), K[:10, 10:])


def test_definitions_pointwise():
    x, z = np.array([[1.0, 2.0, -1.0]]), np.array([[0.5, -1.0, 3.0]])
    dot = float((x @ z.T)[0, 0])
    assert linear_kernel(x, z)[0, 0] == pytest.approx(dot)
    assert polynomial_kernel(x, z, degree=3, scale=256)[0, 0] == pytest.approx(dot**3 / 256)
    sigma = 1.5
    gamma = 1 / (2 * sigma**2)
    expected = np.exp(-np.sum((x - z) ** 2) / (2 * sigma**2))
    assert rbf_kernel(x, z, gamma=gamma)[0, 0] == pytest.approx(expected)


def test_rbf_diagonal_is_one_and_values_in_unit_interval():
    X = np.random.default_rng(3).normal(size=(20, 2)) * 100
    K = rbf_kernel(X, gamma=3.0)
    assert np.all(np.diag(K) == 1.0)
    assert np.all((K >= 0) & (K <= 1))


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 12), st.integers(1, 4)), elements=st.floats(-10, 10)
    )
)
def test_property_psd(X):
    for kernel in KERNELS.values():
        K = kernel(X)
        scale = max(np.abs(K).max(), 1.0)
        assert np.linalg.eigvalsh(K).min() >= -1e-8 * scale * K.shape[0]


@pytest.mark.parametrize("same", [True, False])
def test_kernels_against_scikit_learn_pairwise(same):
    """scikit-learn's pairwise kernels are the oracle: the same Gram matrices to rounding
    (polynomial: sklearn's (gamma x.z + coef0)^degree with gamma = 1, coef0 = 0, over scale)."""
    from sklearn.metrics import pairwise

    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 5))
    Z = None if same else rng.normal(size=(12, 5))
    Zs = X if same else Z
    np.testing.assert_allclose(
        linear_kernel(X, Z), pairwise.linear_kernel(X, Zs), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        rbf_kernel(X, Z, gamma=0.3), pairwise.rbf_kernel(X, Zs, gamma=0.3), rtol=1e-12, atol=1e-14
    )
    expected = pairwise.polynomial_kernel(X, Zs, degree=3, gamma=1.0, coef0=0.0) / 256.0
    np.testing.assert_allclose(
        polynomial_kernel(X, Z, degree=3, scale=256.0), expected, rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("scale", [1e-150, 1e-100, 1.0, 1e100])
def test_rbf_at_extreme_scales_against_scikit_learn(scale):
    """Where scikit-learn's squared distances stay finite, the same values at any scale."""
    from sklearn.metrics import pairwise

    rng = np.random.default_rng(8)
    X, Z = scale * rng.normal(size=(20, 3)), scale * rng.normal(size=(7, 3))
    gamma = 0.5 / scale**2
    np.testing.assert_allclose(
        rbf_kernel(X, Z, gamma), pairwise.rbf_kernel(X, Z, gamma=gamma), rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize("scale", [1e155, 1e300])
def test_rbf_overflowing_distances_give_the_identity(scale):
    """Squared distances beyond float64 are exp(-inf) = 0, not NaN (scikit-learn gives NaN)."""
    X = scale * np.random.default_rng(0).normal(size=(8, 2))
    assert np.array_equal(rbf_kernel(X), np.eye(8))
    assert np.array_equal(rbf_kernel(X, X[:3]), np.eye(8)[:, :3])


def test_rbf_underflowing_distances_give_ones():
    X = 1e-170 * np.random.default_rng(0).normal(size=(8, 2))
    assert np.array_equal(rbf_kernel(X), np.ones((8, 8)))


@pytest.mark.parametrize("power", [-400, -37, 37, 400])
def test_rbf_is_exactly_invariant_to_power_of_two_rescaling(power):
    """k(cx, cz) with gamma / c^2 equals k(x, z) bit for bit when c is a power of 2: the
    distances are computed on data divided by a power of 2, which is exact."""
    rng = np.random.default_rng(9)
    X, Z = rng.normal(size=(15, 4)), rng.normal(size=(6, 4))
    c = 2.0**power
    assert np.array_equal(rbf_kernel(c * X, c * Z, 0.3 / c**2), rbf_kernel(X, Z, 0.3))
    assert np.array_equal(rbf_kernel(c * X, gamma=0.3 / c**2), rbf_kernel(X, gamma=0.3))


def test_psd_by_construction_marks_only_the_library_kernels():
    """Estimators skip the PSD proof for the library's kernels (validation.psd_by_construction)
    and keep it for any other callable, even one built from a library kernel."""
    import functools

    from svmtrust.kernels import named_kernel
    from svmtrust.validation import check_kernel_gram, psd_by_construction

    X = np.random.default_rng(0).normal(size=(12, 3))
    for kernel, params in [("linear", {}), ("rbf", {"gamma": 0.5}), ("poly", {"coef0": 1.0})]:
        assert psd_by_construction(named_kernel(kernel, X, **params))
    assert psd_by_construction(rbf_kernel) and psd_by_construction(polynomial_kernel)
    assert not psd_by_construction(lambda A, B: A @ B.T)
    built_in = check_kernel_gram(named_kernel("rbf", X, gamma=0.5), X)
    partial = check_kernel_gram(functools.partial(rbf_kernel, gamma=0.5), X)
    proved = check_kernel_gram(lambda A, B: rbf_kernel(A, B, gamma=0.5), X)
    assert built_in.cholesky is None and partial.cholesky is None
    assert proved.cholesky is not None
    # the same Gram matrix, bit for bit
    np.testing.assert_array_equal(built_in.matrix, proved.matrix)
    np.testing.assert_array_equal(partial.matrix, proved.matrix)
    with pytest.raises(ValueError, match="positive semi-definite"):
        check_kernel_gram(lambda A, B: -(A @ B.T), X)


def _mine(X, Z=None, gamma=1.0):
    """A user's kernel that claims the library's mark."""
    return X @ (X if Z is None else Z).T


_mine.psd_by_construction = True


class _Partial(functools.partial):
    """A subclass of partial: its call could be anything."""


#: functools.partial of a library kernel whose keywords keep it PSD by construction (issue 32):
#: the chapters' way to pass a kernel with its parameters.
PSD_PARTIALS = [
    functools.partial(rbf_kernel, gamma=0.5),
    functools.partial(rbf_kernel),
    functools.partial(rbf_kernel, gamma=np.float64(2.0)),
    functools.partial(polynomial_kernel, degree=2, scale=256.0),
    functools.partial(polynomial_kernel, degree=np.int64(3)),
    functools.partial(polynomial_kernel),
    functools.partial(linear_kernel),
    functools.partial(functools.partial(rbf_kernel, gamma=0.5), gamma=1.0),  # flattened
]

#: Partials and other callables that are not PSD by construction, or not provably so.
NOT_PSD_PARTIALS = {
    "gamma < 0": functools.partial(rbf_kernel, gamma=-1.0),
    "gamma = 0": functools.partial(rbf_kernel, gamma=0.0),
    "gamma nan": functools.partial(rbf_kernel, gamma=np.nan),
    "gamma inf": functools.partial(rbf_kernel, gamma=np.inf),
    "gamma bool": functools.partial(rbf_kernel, gamma=True),
    "gamma str": functools.partial(rbf_kernel, gamma="0.5"),
    "degree float": functools.partial(polynomial_kernel, degree=2.0),
    "degree 0": functools.partial(polynomial_kernel, degree=0),
    "degree -1": functools.partial(polynomial_kernel, degree=-1),
    "degree bool": functools.partial(polynomial_kernel, degree=True),
    "scale 0": functools.partial(polynomial_kernel, scale=0.0),
    "unknown keyword": functools.partial(linear_kernel, gamma=1.0),
    "keyword of another kernel": functools.partial(rbf_kernel, gamma=1.0, degree=2),
    "positional (takes X's place)": functools.partial(rbf_kernel, np.zeros((2, 2))),
    "keyword Z": functools.partial(rbf_kernel, Z=np.zeros((2, 2))),
    "keyword X": functools.partial(rbf_kernel, X=np.zeros((2, 2))),
    "partial of a lambda": functools.partial(lambda A, B: A @ B.T),
    "partial of a user's marked function": functools.partial(_mine, gamma=1.0),
    "subclass of partial": _Partial(rbf_kernel, gamma=1.0),
    "partial of a private kernel": functools.partial(
        kernels._inhomogeneous_polynomial, gamma=1.0, degree=2, coef0=1.0
    ),
    "a string": "rbf",
    "None": None,
}


@pytest.mark.parametrize("kernel", PSD_PARTIALS)
def test_psd_by_construction_accepts_partials_of_library_kernels(kernel):
    from svmtrust.validation import check_kernel_gram, psd_by_construction

    assert psd_by_construction(kernel)
    X = np.random.default_rng(3).normal(size=(9, 2))
    assert check_kernel_gram(kernel, X).cholesky is None


@pytest.mark.parametrize("case", list(NOT_PSD_PARTIALS))
def test_psd_by_construction_refuses_anything_else(case):
    from svmtrust.validation import psd_by_construction

    assert psd_by_construction(NOT_PSD_PARTIALS[case]) is False


@pytest.mark.parametrize("machine", ["TransductiveSVM", "DistanceTCM"])
def test_predictions_do_not_depend_on_the_psd_proof(machine):
    """A named kernel and a partial of a library kernel (no proof) and the same kernel as a
    user's callable (proved) give the same p-values, bit for bit."""
    from svmtrust.svm_distance import DistanceTCM
    from svmtrust.transduction import TransductiveSVM

    make = {"TransductiveSVM": TransductiveSVM, "DistanceTCM": DistanceTCM}[machine]
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=30) > 0).astype(int)
    X_test = np.r_[rng.normal(size=(4, 2)), X[:2]]
    named = make(kernel="rbf", gamma=0.7, C=2.0).fit(X, y).predict_p(X_test)
    partial = make(kernel=functools.partial(rbf_kernel, gamma=0.7), C=2.0).fit(X, y)
    assert partial.checked_gram_.cholesky is None
    proved = make(kernel=lambda A, B: rbf_kernel(A, B, gamma=0.7), C=2.0).fit(X, y)
    assert proved.checked_gram_.cholesky is not None
    np.testing.assert_array_equal(named, partial.predict_p(X_test))
    np.testing.assert_array_equal(named, proved.predict_p(X_test))
