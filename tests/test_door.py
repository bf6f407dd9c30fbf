"""Validation at the door: an estimator checks its data once, its inner solves trust them.

A transductive machine solves one SVM per test example and label (``2^k`` for ``k`` examples
labelled jointly); before issue 23 every one of those solves validated its Gram matrix, labels
and box again (``fit_svm``, ``kkt_bias``, the optimal face's helpers). These tests count, with
every check of :mod:`svmtrust.validation` wrapped in every module that imported it, how often
the checks of a training problem run once the estimator is fitted: never, whatever the number
of solves. What a prediction may still check is the user's input: ``X`` (once), the user's
kernel's output on the new rows (:func:`~svmtrust.validation.kernel_block`) and the augmented
Gram matrix's positive semi-definiteness (one Schur complement per test example).
"""

from __future__ import annotations

import collections
import sys

import numpy as np
import pytest
import svmtrust.validation as validation
from svmtrust.svm import canonical_solution, fit_svm
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM

#: Checks of a training problem: once fitted, an estimator's predictions never run them.
PROBLEM_CHECKS = ("check_binary_labels", "check_C", "check_estimator_y", "check_kernel_gram")


@pytest.fixture
def counted(monkeypatch):
    """Count the calls of every ``check_*`` of :mod:`svmtrust.validation`, in every module."""
    counts = collections.Counter()
    modules = [m for name, m in list(sys.modules.items()) if name.startswith("svmtrust")]
    for name in dir(validation):
        original = getattr(validation, name)
        if not (name.startswith("check_") and callable(original)):
            continue

        def wrapper(*args, _name=name, _original=original, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        for module in modules:
            if getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, wrapper)
    return counts


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


@pytest.mark.parametrize("method", ["incremental", "retrain"])
@pytest.mark.parametrize("machine", [TransductiveSVM, DistanceTCM])
def test_predictions_check_the_input_not_the_problems(counted, machine, method):
    X, y = _data()
    model = machine(kernel="rbf", C=10.0, method=method).fit(X, y)
    counted.clear()
    model.predict_p(X[:4])
    assert counted["check_estimator_X"] == 1
    assert {name: counted[name] for name in PROBLEM_CHECKS} == dict.fromkeys(PROBLEM_CHECKS, 0)
    # one PSD test of the augmented Gram matrix per test example, none per solve
    assert counted["check_kernel_matrix"] <= 4


def test_joint_labellings_check_once(counted):
    X, y = _data()
    model = TransductiveSVM(kernel="rbf", C=10.0).fit(X, y)
    counted.clear()
    model.solve_joint(X[:3])  # 2^3 augmented SVMs
    assert counted["check_estimator_X"] == 1
    assert counted["check_kernel_matrix"] == 1
    assert {name: counted[name] for name in PROBLEM_CHECKS} == dict.fromkeys(PROBLEM_CHECKS, 0)


def test_trusted_inputs_give_the_checked_answer():
    X, y = _data()
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=2))
    signs = np.where(y == 1, 1.0, -1.0)
    for solver in ("libsvm", "cvxpy"):
        checked = fit_svm(K, signs, 10.0, solver)
        trusted = fit_svm(K, signs, 10.0, solver, check_input=False)
        np.testing.assert_array_equal(trusted.alpha, checked.alpha)
        assert trusted.b == checked.b
        again = canonical_solution(K, signs, 10.0, checked.alpha, check_input=False)
        np.testing.assert_allclose(again.alpha, checked.alpha, rtol=0, atol=1e-9 * 10.0)


@pytest.mark.parametrize("func", [fit_svm, canonical_solution])
def test_check_input_must_be_a_bool(func):
    X, y = _data(n=6)
    args = (X @ X.T, np.where(y == 1, 1.0, -1.0), 1.0)
    if func is canonical_solution:
        args += (np.zeros(6),)
    with pytest.raises(ValueError, match="check_input"):
        func(*args, check_input="no")


def _outcome(func, *args):
    """``("ok", result, warnings)`` or ``(type, message, warnings)`` of ``func(*args)``."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("ok", func(*args))
        except Exception as err:  # noqa: BLE001 - the error itself is compared
            result = (type(err), str(err))
    return (*result, [str(w.message) for w in caught])


def test_the_short_checks_answer_as_the_full_ones(monkeypatch):
    """check_estimator_X passes a plain finite float64 matrix, and check_estimator_y a vector
    of integers, without scikit-learn's full checks (issue 33): every input, good or bad, gets
    the same answer, error or warning with the short check as without it."""
    import pandas as pd

    X, y = _data(n=12)
    fitted = TransductiveSVM(kernel="rbf", C=10.0).fit(X, y)
    named = TransductiveSVM(kernel="rbf", C=10.0).fit(pd.DataFrame(X, columns=list("abc")), y)
    readonly = X.copy()
    readonly.flags.writeable = False
    bad = X.copy()
    bad[3, 1] = np.nan
    matrices = [X, np.asfortranarray(X), X[::2], X[:, ::-1], readonly, X[:1], X[:, :2], X[:, :0]]
    matrices += [bad, np.where(np.isnan(bad), np.inf, bad), X.astype(np.float32), X.astype(int)]
    matrices += [X.tolist(), X[0], X.astype(">f8"), pd.DataFrame(X)]
    labels = [y, y.astype(np.int32), y.astype(np.uint8), y[::2], y[:5], y.astype(float), y == 1]
    labels += [np.c_[y], y.tolist(), np.zeros(12, int), np.arange(12) % 3, y.astype(str)]

    def answers():
        out = []
        for M in matrices:
            fresh = TransductiveSVM()
            out.append(_outcome(validation.check_estimator_X, fresh, M, True))
            out.append(getattr(fresh, "n_features_in_", None))
            for model in (fitted, named):
                out.append(_outcome(validation.check_estimator_X, model, M, False))
        for labels_ in labels:
            for binary in (False, True):
                out.append(_outcome(validation.check_estimator_y, labels_, 12, binary))
        return out

    def same(a, b):
        if isinstance(a, tuple):
            return len(a) == len(b) and all(same(u, v) for u, v in zip(a, b))
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return type(a) is type(b) and a.dtype == b.dtype and np.array_equal(a, b)
        return a == b

    assert validation._plain_matrix(fitted, X, False) and validation._integer_vector(y)
    short = answers()
    monkeypatch.setattr(validation, "_plain_matrix", lambda *args: False)
    monkeypatch.setattr(validation, "_integer_vector", lambda y: False)
    full = answers()
    assert len(short) == len(full)
    for a, b in zip(short, full, strict=True):
        assert same(a, b), (a, b)
