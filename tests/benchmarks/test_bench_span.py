"""Cost of the span rule against exact leave-one-out (``make bench``; not part of ``make test``).

Target from the chapter's issue, measured as a ratio in one run: at n = 300-500, training the SVM
plus computing the span rule (closed-form spans, eq. (6)) costs at most 5% of exact leave-one-out
by retraining on every support vector. Postal digits (0-4 against 5-9), hard margin, RBF kernel,
BLAS on one thread (the timings of the chapter's protocol are taken the same way).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from svmtrust import datasets
from svmtrust.kernels import rbf_kernel
from svmtrust.span import leave_one_out, span_closed_form, span_rule_errors
from svmtrust.svm import fit_svm
from threadpoolctl import threadpool_limits


@pytest.mark.parametrize("n", [317, 500])
def test_span_rule_within_five_percent_of_exact_loo(n):
    X, digits, _ = datasets.load("usps_like")
    rows = np.random.default_rng(n).permutation(len(digits))[:n]
    y = np.where(digits[rows] <= 4, 1.0, -1.0)
    K = rbf_kernel(X[rows], gamma=1.0 / (2 * 5.0**2))
    with threadpool_limits(limits=1):
        spans, loos = [], []
        for _ in range(3):
            start = time.perf_counter()
            sol = fit_svm(K, y, np.inf, solver="libsvm", check_kernel=False)
            predicted = span_rule_errors(K, sol, span_closed_form(K, sol))
            middle = time.perf_counter()
            loo = leave_one_out(K, y, np.inf, solver="libsvm", sol=sol, method="retrain")
            spans.append(middle - start)
            loos.append(time.perf_counter() - middle)
    rule, exact = np.median(spans), np.median(loos)
    print(
        f"\nn = {n}: {sol.support.size} support vectors; training + span rule {rule * 1e3:.1f} ms, "
        f"exact leave-one-out {exact:.2f} s, ratio {100 * rule / exact:.2f}% (target <= 5%); "
        f"estimates {predicted.mean():.3f} vs {loo.errors.mean():.3f}"
    )
    assert rule <= 0.05 * exact
