"""How the confidence machines grow with the training set: fit time, time per test object and
peak memory, each machine and size in a fresh process (the numbers on the estimators page,
book/api/estimators.md).

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python tools/estimator_sizes.py --sizes 500 1000 2000

The problem is scikit-learn's ``make_classification`` (two classes, 20 features, 2% of labels
flipped, seed 0), standardised; every machine uses the RBF kernel with ``gamma="scale"`` and
``C = 1``, as scikit-learn's ``SVC`` does by default (the split and cross-conformal machines,
and ``SVC``, the yardstick, with their defaults; ``SVC``'s "per test object" is ``predict``'s).
Times are given as processor time (``time.process_time``, all threads of the process), which a
machine shared with other work does not inflate, and as wall-clock time. Peak memory is the
process's maximum resident set size (``ru_maxrss``), printed with the same process's size
before the fit, after the imports, so that the difference is what the machine itself took.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

#: The machines measured, by name: the class and its arguments.
MACHINES = {
    "TransductiveSVM": ("svmtrust.transduction", "TransductiveSVM", {"kernel": "rbf", "C": 1.0}),
    "DistanceTCM": ("svmtrust.svm_distance", "DistanceTCM", {"kernel": "rbf", "C": 1.0}),
    "SplitConformalSVM": ("svmtrust.split_conformal", "SplitConformalSVM", {}),
    "CrossConformalSVM": ("svmtrust.split_conformal", "CrossConformalSVM", {}),
    "TCMNearestNeighbours": ("svmtrust.tcm_nn", "TCMNearestNeighbours", {"k": 1}),
    "SVC": ("sklearn.svm", "SVC", {}),
}


def _peak_mb() -> float:
    """This process's peak resident set size in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(machine: str, n: int, n_test: int) -> dict:
    """Fit ``machine`` on ``n`` examples and predict ``n_test`` more, in this process."""
    import importlib

    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    module, name, arguments = MACHINES[machine]
    estimator = getattr(importlib.import_module(module), name)(**arguments)
    X, y = make_classification(
        n_samples=n + n_test, n_features=20, n_informative=5, flip_y=0.02, random_state=0
    )
    X = StandardScaler().fit_transform(X)
    before = _peak_mb()
    clocks = [(time.perf_counter(), time.process_time())]
    estimator.fit(X[:n], y[:n])
    clocks.append((time.perf_counter(), time.process_time()))
    getattr(estimator, "predict_p", estimator.predict)(X[n:])
    clocks.append((time.perf_counter(), time.process_time()))
    (wall0, cpu0), (wall1, cpu1), (wall2, cpu2) = clocks
    return {
        "machine": machine,
        "n": n,
        "fit_cpu_s": round(cpu1 - cpu0, 2),
        "fit_wall_s": round(wall1 - wall0, 2),
        "per_test_cpu_s": round((cpu2 - cpu1) / n_test, 3),
        "per_test_wall_s": round((wall2 - wall1) / n_test, 3),
        "rss_before_mb": round(before),
        "rss_peak_mb": round(_peak_mb()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 1000, 2000])
    parser.add_argument("--machines", nargs="+", choices=sorted(MACHINES), default=list(MACHINES))
    parser.add_argument("--n-test", type=int, default=10)
    parser.add_argument("--one", nargs=2, metavar=("MACHINE", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one[0], int(args.one[1]), args.n_test)))
        return 0
    if min(args.sizes) < 10 or args.n_test < 1:
        parser.error("--sizes must be at least 10 and --n-test at least 1")
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    for machine in args.machines:
        for n in args.sizes:
            command = [sys.executable, __file__, "--one", machine, str(n)]
            command += ["--n-test", str(args.n_test)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                error = {"machine": machine, "n": n, "error": done.stderr[-500:]}
                print(json.dumps(error), flush=True)
            else:
                print(done.stdout.strip(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
