"""Full conformal prediction at scale: fit plus p-values of m test objects (``make bench``;
issue 32).

For Satellite (the chapter "Confidence machines compared": min-max scaled, its RBF kernel and
``C``) and a twonorm-like set (Breiman 1996: two Gaussians in 20 dimensions, unit covariance,
means +-(2 / sqrt(20)) in every coordinate, the same ``gamma`` rule and ``C``), at n = 1600 and
6400 training examples, each machine is timed (one BLAS thread, CPU time of the process, so
that other work on a shared machine does not count; median of :data:`REPEATS` alternated runs)
on ``fit`` and on ``predict_p`` of :data:`N_MEASURED` test objects. Satellite
has 6,435 rows, so at n = 6400 only 35 are left to test on; the cost of m test objects is
therefore computed from the measured parts, ``fit + m * (predict seconds / N_MEASURED)``, and
divided by the same for split conformal prediction (:class:`~svmtrust.split_conformal.
SplitConformalSVM`), m = 1, 10, 100 and 1000. The goal of issue 32: at most 3 times split
conformal at m = 10, at most 20 times at m = 1000.

Peak memory at n = 6400: each machine fitted and asked for 10 test objects' p-values in a
process of its own, its peak resident memory above what the process held after the imports
and the data (``ru_maxrss``); the goal is at most 1.5 times split conformal's.

Every addition of the measured test objects to the training SVMs is counted by route
(:data:`svmtrust.incremental_svm.ROUTES`): ``"retrain"`` is the fallback that solves the
augmented SVM from scratch, slower than the path. Two sets on which the path cannot start or go
on print their routes and the cost of an addition by each route
(:func:`test_fallback_routes_counted`): a linear kernel on two concentric rings (the training
SVM's ``w`` is 0: the one step of a constant SVM, ``"constant"``, then the face's minimum-norm
step, ``"canonical"``; retrained only when the augmented ``w`` is not 0) and collinear points.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import pytest
from svmtrust.experiments import confidence_compared as protocol
from svmtrust.incremental_svm import Additions
from svmtrust.kernels import rbf_kernel
from svmtrust.split_conformal import SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM
from threadpoolctl import threadpool_limits

from .test_bench_incremental import _additions

#: Training sizes (``BENCH_SIZES="1600"`` for a quick run).
SIZES = tuple(int(s) for s in os.environ.get("BENCH_SIZES", "1600 6400").split())
#: Test objects whose p-values are timed (Satellite has 35 left at n = 6400).
N_MEASURED = 30
#: Test objects per fit for which the cost is reported.
PER_FIT = (1, 10, 100, 1000)
REPEATS = 3
#: Issue 32's goals: the largest ratio to split conformal at m test objects per fit.
GOALS = {10: 3.0, 1000: 20.0}
MEMORY_GOAL = 1.5


def twonorm(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's twonorm: ``n`` points, half of each class, N(+-a 1, I) in 20 dimensions,
    ``a = 2 / sqrt(20)``, min-max scaled as the chapter scales its sets."""
    rng = np.random.default_rng(seed)
    y = np.resize([0, 1], n)
    X = rng.normal(size=(n, 20)) + np.where(y[:, None] == 1, 1.0, -1.0) * 2 / np.sqrt(20)
    return (X - X.min(0)) / (X.max(0) - X.min(0)), y


def _problem(name: str, n: int):
    """Training and test parts of one data set: ``(X_train, y_train, X_test, gamma, C)``."""
    if name == "satimage":
        X, y = protocol.load("satimage")
        train, test, _ = protocol.draw("satimage", n, N_MEASURED, np.random.default_rng(n))
        params = protocol.svm_params("satimage")
        return X[train], y[train], X[test], params["gamma"], params["C"]
    X, y = twonorm(n + N_MEASURED, seed=n)
    gamma = 1.0 / (X.shape[1] * X[:n].var())
    return X[:n], y[:n], X[n:], gamma, protocol.C


def _machines(gamma: float, C: float) -> dict:
    kernel = functools.partial(rbf_kernel, gamma=gamma)
    return {
        "Split": lambda: SplitConformalSVM(kernel=kernel, C=C, seed=0),
        "TSVM": lambda: TransductiveSVM(kernel=kernel, C=C),
        "Distance TCM": lambda: DistanceTCM(kernel=kernel, C=C),
    }


def _timed(make, X_train, y_train, X_test) -> tuple[float, float, object]:
    """``(fit seconds, predict_p seconds, fitted model)``, CPU time of this process."""
    start = time.process_time()
    model = make()
    protocol.fit_machine(model, X_train, y_train)
    fitted = time.process_time()
    model.predict_p(X_test)
    return fitted - start, time.process_time() - fitted, model


#: Run in a fresh process: the peak memory of one machine's fit and 10 test objects' p-values,
#: above the process's size after the imports and the data (Linux: writing 5 to
#: /proc/self/clear_refs resets the peak, VmHWM, to the current size, VmRSS).
_MEMORY_SCRIPT = """
import json, sys
from threadpoolctl import threadpool_limits
from tests.benchmarks.test_bench_full_conformal import _machines, _problem, protocol
def status(field):
    with open("/proc/self/status") as f:
        return next(int(s.split()[1]) for s in f if s.startswith(field + ":"))
name, n, machine = sys.argv[1], int(sys.argv[2]), sys.argv[3]
X_train, y_train, X_test, gamma, C = _problem(name, n)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
with threadpool_limits(1):
    model = _machines(gamma, C)[machine]()
    protocol.fit_machine(model, X_train, y_train)
    model.predict_p(X_test[:10])
print(json.dumps({"megabytes": (status("VmHWM") - before) / 1024}))
"""


def _peak_megabytes(name: str, n: int, machine: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, name, str(n), machine],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])["megabytes"]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["satimage", "twonorm"])
def test_cost_per_test_object_against_split_conformal(name, n):
    X_train, y_train, X_test, gamma, C = _problem(name, n)
    machines = _machines(gamma, C)
    fit = {m: [] for m in machines}
    per_object = {m: [] for m in machines}
    routes = {}
    with threadpool_limits(1):
        _timed(machines["Split"], X_train, y_train, X_test)  # warm up
        for _ in range(REPEATS):
            for machine, make in machines.items():
                seconds_fit, seconds_p, model = _timed(make, X_train, y_train, X_test)
                fit[machine].append(seconds_fit)
                per_object[machine].append(seconds_p / X_test.shape[0])
                if machine != "Split":
                    routes[machine] = dict(_additions(model, X_test)[0])
    fit = {m: float(np.median(t)) for m, t in fit.items()}
    per_object = {m: float(np.median(t)) for m, t in per_object.items()}
    cost = {m: {k: fit[m] + k * per_object[m] for k in PER_FIT} for m in machines}
    print(f"\n{name}, n = {n}, p-values of {X_test.shape[0]} test objects timed")
    print(f"{'machine':14} {'fit (s)':>8} {'ms/object':>10}  " + "  ".join(
        f"{f'm = {k}':>9}" for k in PER_FIT))  # fmt: skip
    ratios = {}
    for machine in machines:
        ratios[machine] = {k: cost[machine][k] / cost["Split"][k] for k in PER_FIT}
        print(
            f"{machine:14} {fit[machine]:8.3f} {1e3 * per_object[machine]:10.2f}  "
            + "  ".join(f"{ratios[machine][k]:8.1f}x" for k in PER_FIT)
        )
    print(f"additions to the training SVMs by route: {routes}")
    if n == max(SIZES):
        split_mb = _peak_megabytes(name, n, "Split")
        for machine in ("TSVM", "Distance TCM"):
            mb = _peak_megabytes(name, n, machine)
            print(
                f"peak memory {machine}: {mb:.0f} MB, {mb / split_mb:.2f}x split ({split_mb:.0f} MB)"
            )
    missed = {
        (machine, k): round(ratios[machine][k], 1)
        for machine in ("TSVM", "Distance TCM")
        for k, goal in GOALS.items()
        if ratios[machine][k] > goal
    }
    assert not missed, f"issue 32's goals missed (machine, m): ratio {missed}"


def _rings(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two concentric rings (radius 1 and 2, noise 0.1), half of each class, every point with
    its mirror image through the origin: the linear SVM's ``w`` is 0."""
    rng = np.random.default_rng(seed)
    y = np.resize([0, 1], n // 2)
    angle = rng.uniform(0, 2 * np.pi, n // 2)
    radius = np.where(y == 1, 2.0, 1.0) + 0.1 * rng.normal(size=n // 2)
    X = np.c_[radius * np.cos(angle), radius * np.sin(angle)]
    order = rng.permutation(n // 2 * 2)
    return np.r_[X, -X][order], np.r_[y, y][order]


def _collinear(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points on one line in three dimensions, the label a noisy threshold along it, the
    position rounded to 0.1 (copies, some with both labels)."""
    rng = np.random.default_rng(seed)
    t = np.round(rng.normal(size=n), 1)
    y = (t + 0.5 * rng.normal(size=n) > 0).astype(int)
    return np.outer(t, [1.0, -2.0, 0.5]) + np.array([0.3, 0.1, -0.2]), y


@pytest.mark.parametrize("name", ["rings", "collinear"])
def test_fallback_routes_counted(name):
    """The routes of the additions where the path cannot start (``w = 0``: the training SVM's
    margin set is singular; the constant SVM's one step instead) or meets a singular margin set
    (collinear points, a linear kernel of rank 2), and the CPU time of an addition by each
    route."""
    X, y = (_rings if name == "rings" else _collinear)(400 + 10)
    model = TransductiveSVM(kernel="linear", C=1.0).fit(X[:400], y[:400])
    cross = model.kernel_(model.X_train_, X[400:])
    seconds, routes = Counter(), Counter()
    with threadpool_limits(1):
        for i in range(10):
            x = X[400 + i : 401 + i]
            added = Additions(model.incremental_, cross[:, i], model.kernel_(x, x)[0, 0])
            for label in (-1.0, 1.0):
                start = time.process_time()
                route = added.get(0, label).route
                seconds[route] += time.process_time() - start
                routes[route] += 1
    print(
        f"\n{name}, n = 400, linear kernel: training SVM exact {model.incremental_[0].exact}; "
        + ", ".join(
            f"{route} {routes[route]} ({1e3 * seconds[route] / routes[route]:.1f} ms each)"
            for route in routes
        )
    )
    assert sum(routes.values()) == 20
