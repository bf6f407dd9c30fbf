"""Full conformal prediction at scale, measured in SVC fits (``make bench``; issue 51).

The yardstick is one ``sklearn.svm.SVC(kernel="rbf", gamma, C).fit`` on the same training rows,
timed in the same run: libsvm does not change with this project, so a ratio to it says how far
the full machines are from a plain SVM fit whatever the machine's speed that day (the ratios to
split conformal of issue 32 moved when split conformal itself became faster).

For Satellite (the chapter "Confidence machines compared": min-max scaled, its RBF kernel and
``C``) and a twonorm-like set (Breiman 1996: two Gaussians in 20 dimensions, unit covariance,
means +-(2 / sqrt(20)) in every coordinate, the same ``gamma`` rule and ``C``), at n = 400,
1600 and 6400 training examples (``BENCH_SIZES``), the four full machines (TransductiveSVM and
DistanceTCM, plain and Mondrian) and split conformal prediction are timed on ``fit`` and on
``predict_p`` of :data:`N_MEASURED` test objects (one BLAS thread, CPU time of the process, so
that other work on a shared machine does not count; median of :data:`REPEATS` runs, the
machines and the SVC fit in alternation). Each is printed as a multiple of one SVC fit: the fit,
and the cost of one further test object. At n = :data:`GOAL_SIZE` the bench fails when a full
machine misses issue 51's goals (:data:`GOALS`).

Peak memory at the largest size: each machine fitted and asked for 10 test objects' p-values in
a process of its own, its peak resident memory above what the process held after the imports
and the data. :func:`test_scale_without_the_gram_matrix` asks the plain full machines for the
same at n = 20,000 and 50,000 (``BENCH_SCALE_SIZES``) on the twonorm-like set and fails when a
fit is refused or its peak passes :data:`SCALE_MEMORY` bytes.

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
from sklearn.svm import SVC
from svmtrust.experiments import confidence_compared as protocol
from svmtrust.incremental_svm import Additions
from svmtrust.kernels import rbf_kernel
from svmtrust.split_conformal import SplitConformalSVM
from svmtrust.svm_distance import DistanceTCM
from svmtrust.transduction import TransductiveSVM
from threadpoolctl import threadpool_limits

from .test_bench_incremental import _additions

#: Training sizes (``BENCH_SIZES="1600"`` for a quick run).
SIZES = tuple(int(s) for s in os.environ.get("BENCH_SIZES", "400 1600 6400").split())
#: Training sizes of the scale bench (``BENCH_SCALE_SIZES="20000"``).
SCALE_SIZES = tuple(int(s) for s in os.environ.get("BENCH_SCALE_SIZES", "20000 50000").split())
#: Test objects whose p-values are timed (Satellite has 35 left at n = 6400).
N_MEASURED = 30
REPEATS = 3
#: The size at which issue 51's goals are checked, and the goals in SVC fits: the fit, and one
#: further test object's p-values.
GOAL_SIZE = 1600
GOALS = {"fit": 3.0, "per object": 0.1}
#: The four full machines; split conformal is timed beside them for reference.
FULL = ("TSVM", "TSVM Mondrian", "Distance TCM", "Distance TCM Mondrian")
#: Issue 51's memory budget at n = 20,000 and 50,000.
SCALE_MEMORY = 4 * 2**30


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
        "TSVM Mondrian": lambda: TransductiveSVM(kernel=kernel, C=C, mondrian=True),
        "Distance TCM": lambda: DistanceTCM(kernel=kernel, C=C),
        "Distance TCM Mondrian": lambda: DistanceTCM(kernel=kernel, C=C, mondrian=True),
    }


def _timed(make, X_train, y_train, X_test) -> tuple[float, float, object]:
    """``(fit seconds, predict_p seconds, fitted model)``, CPU time of this process."""
    start = time.process_time()
    model = make()
    protocol.fit_machine(model, X_train, y_train)
    fitted = time.process_time()
    model.predict_p(X_test)
    return fitted - start, time.process_time() - fitted, model


def _svc_fit_seconds(X_train, y_train, gamma: float, C: float) -> float:
    """CPU seconds of the yardstick: one libsvm fit of the training rows."""
    start = time.process_time()
    SVC(kernel="rbf", gamma=gamma, C=C).fit(X_train, y_train)
    return time.process_time() - start


#: Run in a fresh process: the peak memory and CPU seconds of one machine's fit and 10 test
#: objects' p-values, the memory above the process's size after the imports and the data
#: (Linux: writing 5 to /proc/self/clear_refs resets the peak, VmHWM, to the current size,
#: VmRSS). A fit the library refuses reports the refusal.
_MEMORY_SCRIPT = """
import json, sys, time
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
refused, seconds = None, {}
with threadpool_limits(1):
    model = _machines(gamma, C)[machine]()
    start = time.process_time()
    try:
        protocol.fit_machine(model, X_train, y_train)
        seconds["fit"] = time.process_time() - start
        start = time.process_time()
        model.predict_p(X_test[:10])
        seconds["per object"] = (time.process_time() - start) / 10
    except ValueError as error:
        refused = str(error)
print(json.dumps({"megabytes": (status("VmHWM") - before) / 1024, "refused": refused,
                  "seconds": seconds}))
"""


def _in_own_process(name: str, n: int, machine: str) -> dict:
    """What :data:`_MEMORY_SCRIPT` reports for one machine: ``megabytes``, ``refused`` (the
    refusal's message or ``None``) and ``seconds`` (``fit``, ``per object``)."""
    out = subprocess.run(
        [sys.executable, "-c", _MEMORY_SCRIPT, name, str(n), machine],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["satimage", "twonorm"])
def test_cost_in_svc_fits(name, n):
    """The fit and one further test object of each machine, in SVC fits of the same rows."""
    X_train, y_train, X_test, gamma, C = _problem(name, n)
    machines = _machines(gamma, C)
    fit = {m: [] for m in machines}
    per_object = {m: [] for m in machines}
    svc, routes = [], {}
    with threadpool_limits(1):
        _svc_fit_seconds(X_train, y_train, gamma, C)  # warm up
        _timed(machines["Split"], X_train, y_train, X_test)
        for _ in range(REPEATS):
            svc.append(_svc_fit_seconds(X_train, y_train, gamma, C))
            for machine, make in machines.items():
                seconds_fit, seconds_p, model = _timed(make, X_train, y_train, X_test)
                fit[machine].append(seconds_fit)
                per_object[machine].append(seconds_p / X_test.shape[0])
                if machine in ("TSVM", "Distance TCM"):
                    routes[machine] = dict(_additions(model, X_test)[0])
    svc = float(np.median(svc))
    ratio = {
        m: {
            "fit": float(np.median(fit[m])) / svc,
            "per object": float(np.median(per_object[m])) / svc,
        }
        for m in machines
    }
    print(
        f"\n{name}, n = {n}: one SVC fit {1e3 * svc:.1f} ms (CPU, one BLAS thread); "
        f"costs in SVC fits, p-values of {X_test.shape[0]} test objects timed"
    )
    print(f"{'machine':22} {'fit':>8} {'per object':>11}")
    for machine in machines:
        print(f"{machine:22} {ratio[machine]['fit']:8.2f} {ratio[machine]['per object']:11.3f}")
    print(f"additions to the training SVMs by route: {routes}")
    if n == max(SIZES):
        split_mb = _in_own_process(name, n, "Split")["megabytes"]
        for machine in FULL:
            mb = _in_own_process(name, n, machine)["megabytes"]
            print(
                f"peak memory {machine}: {mb:.0f} MB, {mb / split_mb:.2f}x split ({split_mb:.0f} MB)"
            )
    if n == GOAL_SIZE:
        missed = {
            (machine, part): round(ratio[machine][part], 3)
            for machine in FULL
            for part, goal in GOALS.items()
            if ratio[machine][part] > goal
        }
        assert not missed, f"issue 51's goals {GOALS} missed, in SVC fits: {missed}"


@pytest.mark.parametrize("n", SCALE_SIZES)
def test_scale_without_the_gram_matrix(n):
    """The plain full machines at n = 20,000 and 50,000 (twonorm-like, RBF): peak memory and the
    cost of the fit and of one test object, in seconds and in SVC fits; a refused fit or a
    peak above :data:`SCALE_MEMORY` fails."""
    X_train, y_train, _, gamma, C = _problem("twonorm", n)
    with threadpool_limits(1):
        svc = _svc_fit_seconds(X_train, y_train, gamma, C)
    print(f"\ntwonorm, n = {n}: one SVC fit {svc:.2f} s (CPU, one BLAS thread)")
    failed = {}
    for machine in ("TSVM", "Distance TCM"):
        report = _in_own_process("twonorm", n, machine)
        if report["refused"]:
            print(f"{machine}: refused ({report['megabytes']:.0f} MB): {report['refused']}")
            failed[machine] = "refused"
            continue
        seconds = report["seconds"]
        print(
            f"{machine}: peak {report['megabytes']:.0f} MB, fit {seconds['fit']:.1f} s "
            f"({seconds['fit'] / svc:.2f} SVC fits), per object {seconds['per object']:.2f} s "
            f"({seconds['per object'] / svc:.3f} SVC fits)"
        )
        if report["megabytes"] * 2**20 > SCALE_MEMORY:
            failed[machine] = f"{report['megabytes']:.0f} MB"
    assert not failed, f"n = {n}: {failed}"


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
