"""The bad-input table: every case raises ValueError naming the argument."""

import numpy as np
import pytest

from svmtrust import conformal
from svmtrust.kernels import linear_kernel, polynomial_kernel, rbf_kernel
from svmtrust.discrepancy import optimal_set_widths, soft_loss_lower_bound
from svmtrust.svm import SolveError, fit_svm
from svmtrust.validation import check_class_labels
from svmtrust.experiments import nonconformity_selection as nc_protocol
from svmtrust.experiments import parallel_map, run_chapter
from svmtrust.nonconformity_selection import (
    NonconformityModelSelector,
    critical,
    dkw_deviation,
    nonconformity_bound,
)

X = np.random.default_rng(0).normal(size=(8, 2))
K = rbf_kernel(X)
Y = np.array([1.0, -1.0] * 4)
NOT_PSD = np.array([[1.0, 2.0], [2.0, 1.0]])


def _nan(a):
    a = np.array(a, dtype=float)
    a.flat[1] = np.nan
    return a


def _inf(a):
    a = np.array(a, dtype=float)
    a.flat[0] = np.inf
    return a


CASES = [
    # (description, callable, the name the message must start with)
    ("NaN in K", lambda: fit_svm(_nan(K), Y), "K"),
    ("inf in K", lambda: fit_svm(_inf(K), Y), "K"),
    ("NaN in y", lambda: fit_svm(K, _nan(Y)), "y"),
    ("y too short", lambda: fit_svm(K, Y[:-1]), "y"),
    ("y 2-D", lambda: fit_svm(K, Y[:, None]), "y"),
    ("labels outside {-1,+1}", lambda: fit_svm(K, np.r_[Y[:-1], 2.0]), "y"),
    ("labels 0/1", lambda: fit_svm(K, (Y > 0).astype(float)), "y"),
    ("single class", lambda: fit_svm(K, np.ones(8)), "y"),
    ("K not square", lambda: fit_svm(K[:, :-1], Y), "K"),
    ("K not symmetric", lambda: fit_svm(K + np.triu(np.ones_like(K), 1) * 0.1, Y), "K"),
    ("K not PSD", lambda: fit_svm(NOT_PSD, np.array([1.0, -1.0])), "K"),
    ("K 1-D", lambda: fit_svm(np.ones(8), Y), "K"),
    ("K strings", lambda: fit_svm([["a", "b"], ["c", "d"]], np.array([1.0, -1.0])), "K"),
    ("C zero", lambda: fit_svm(K, Y, C=0.0), "C"),
    ("C negative", lambda: fit_svm(K, Y, C=-1.0), "C"),
    ("C NaN", lambda: fit_svm(K, Y, C=np.nan), "C"),
    ("C string", lambda: fit_svm(K, Y, C="big"), "C"),
    ("unknown solver", lambda: fit_svm(K, Y, solver="osqp"), "solver"),
    ("class labels 2-D", lambda: check_class_labels(np.zeros((4, 1)), n=4), "y"),
    ("class labels short", lambda: check_class_labels(["a", "b"], n=3), "y"),
    ("class labels NaN", lambda: check_class_labels([1.0, np.nan, 2.0], n=3), "y"),
    ("class labels None", lambda: check_class_labels(np.array(["a", None], dtype=object), n=2), "y"),
    ("class labels one class", lambda: check_class_labels(["a", "a"], n=2), "y"),
    ("tol zero", lambda: fit_svm(K, Y, 1.0, "libsvm", tol=0.0), "tol"),
    ("tol NaN", lambda: fit_svm(K, Y, 1.0, "libsvm", tol=np.nan), "tol"),
    ("tol string", lambda: fit_svm(K, Y, 1.0, "libsvm", tol="1e-3"), "tol"),
    ("tol with cvxpy", lambda: fit_svm(K, Y, 1.0, "cvxpy", tol=1e-3), "tol"),
    ("X NaN in kernel", lambda: rbf_kernel(_nan(X)), "X"),
    ("Z width mismatch", lambda: linear_kernel(X, np.ones((3, 5))), "Z"),
    ("gamma <= 0", lambda: rbf_kernel(X, gamma=0.0), "gamma"),
    ("degree not integer", lambda: polynomial_kernel(X, degree=2.5), "degree"),
    ("scale <= 0", lambda: polynomial_kernel(X, scale=0.0), "scale"),
    ("K_rows width", lambda: fit_svm(K, Y).decision_function(np.ones((2, 5))), "K_rows"),
    ("scores NaN", lambda: conformal.p_values(_nan([1.0, 2.0, 3.0]), 1.0), "scores"),
    ("new_scores NaN", lambda: conformal.p_values([1.0, 2.0], _nan([1.0, 2.0])), "new_scores"),
    ("significance 0", lambda: conformal.predict_set(np.full((2, 2), 0.5), 0.0), "significance"),
    ("significance 1", lambda: conformal.predict_set(np.full((2, 2), 0.5), 1.0), "significance"),
    ("significance NaN", lambda: conformal.predict_set(np.full((2, 2), 0.5), np.nan), "significance"),
    ("P outside [0,1]", lambda: conformal.confidence_credibility(np.array([[1.5, 0.1]])), "P"),
    ("P one label", lambda: conformal.confidence_credibility(np.array([[0.5]])), "P"),
    ("true_index float", lambda: conformal.error_rate(np.full((2, 2), 0.5), np.array([0.0, 1.0]), 0.1), "true_index"),
    ("seed negative", lambda: parallel_map(lambda t, r: t, [1], seed=-1), "seed"),
    ("n_jobs zero", lambda: parallel_map(lambda t, r: t, [1], n_jobs=0), "n_jobs"),
    ("unknown chapter", lambda: run_chapter("nope"), "name"),
    ("unknown scale", lambda: run_chapter("svm", scale="huge"), "scale"),
    ("soft-loss bound w_max 0", lambda: soft_loss_lower_bound(X, Y, 0.0), "w_max"),
    ("soft-loss bound NaN X", lambda: soft_loss_lower_bound(_nan(X), Y, 1.0), "X"),
    ("soft-loss bound one class", lambda: soft_loss_lower_bound(X, np.ones(8), 1.0), "y"),
    ("optimal widths slack 0", lambda: optimal_set_widths(X, Y, 1.0, slack=0.0), "slack"),
    ("bound kind", lambda: nonconformity_bound(0.1, 50, 110, 0.05, kind="hoeffding"), "kind"),
    ("bound delta", lambda: nonconformity_bound(0.1, 50, 110, 1.5, kind="dkw"), "delta"),
    ("dkw m zero", lambda: dkw_deviation(0, 0.05), "m"),
    ("tie_break unknown", lambda: critical(np.zeros((2, 3, 2)), tie_break="first"), "tie_break"),
    ("tie keys rows", lambda: critical(np.zeros((2, 3, 2)), keys=np.zeros((3, 1))), "keys"),
    ("tie seed negative", lambda: critical(np.zeros((2, 3, 2)), seed=-1), "seed"),
    ("selector tie_break", lambda: NonconformityModelSelector((1.0,), (1.0,), tie_break="x").fit(
        np.random.default_rng(0).normal(size=(20, 2)), np.tile([-1.0, 1.0], 10)), "tie_break"),
    ("variant unknown", lambda: nc_protocol.load("credit-onehot"), "name"),
]


@pytest.mark.parametrize("call,name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_value_error_naming_argument(call, name):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(f"{name}:"), str(info.value)


def test_failed_solve_names_status():
    X1 = np.array([[0.0], [1.0], [2.0], [3.0]])
    y1 = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(SolveError, match="status 'unbounded'"):
        fit_svm(linear_kernel(X1), y1, np.inf, "cvxpy")


def test_nearly_psd_kernel_is_accepted():
    """Rounding-level negative eigenvalues (here -1e-12 relative) are within tolerance."""
    w, V = np.linalg.eigh(K)
    w[0] = -1e-12
    K2 = (V * w) @ V.T
    K2 = (K2 + K2.T) / 2
    assert fit_svm(K2, Y, C=1.0).status == "optimal"


def test_class_labels_of_any_type():
    classes, index = check_class_labels(np.array(["cat", "dog", "cat", "emu"]), n=4)
    assert list(classes) == ["cat", "dog", "emu"] and list(index) == [0, 1, 0, 2]
