"""Timing and memory of TCM-NN (``make bench``; not part of ``make test``).

Targets from the chapter's issue, measured as ratios in one run:

* TCM-NN, ``fit`` plus ``predict_p`` on all 2000 Satimage test examples with k = 1, costs at
  most 5x ``KNeighborsClassifier(n_neighbors=1, algorithm="brute")`` doing ``fit`` plus
  ``predict`` on the same split (medians of interleaved repeats: the machine is shared);
* the memory of ``predict_p`` is bounded by the block size, not by the number of test
  examples.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
from sklearn.neighbors import KNeighborsClassifier

from svmtrust import datasets
from svmtrust.tcm_nn import TCMNearestNeighbours


def _satimage():
    return datasets.satimage_train_test(datasets.load_satimage())


def test_tcm_nn_within_five_times_one_nearest_neighbour():
    X_train, y_train, X_test, y_test = _satimage()

    def knn():
        KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X_train, y_train).predict(X_test)

    def tcm():
        TCMNearestNeighbours(k=1, n_jobs=-1).fit(X_train, y_train).predict_p(X_test)

    knn(), tcm()  # warm up
    times = {"knn": [], "tcm": []}
    for _ in range(9):
        for name, func in (("knn", knn), ("tcm", tcm)):
            start = time.perf_counter()
            func()
            times[name].append(time.perf_counter() - start)
    base, ours = np.median(times["knn"]), np.median(times["tcm"])
    print(f"\n1-NN (brute) fit+predict {base * 1e3:.1f} ms; TCM-NN fit+predict_p "
          f"{ours * 1e3:.1f} ms; ratio {ours / base:.2f}x (target <= 5x)")
    assert ours <= 5 * base


def _peak_bytes(func) -> int:
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_bounded_by_block_size():
    X_train, y_train, X_test, _ = _satimage()
    peaks = {}
    for block in (64, 256):
        model = TCMNearestNeighbours(k=1, block_size=block).fit(X_train, y_train)
        for m in (500, 2000):
            peaks[block, m] = _peak_bytes(lambda: model.predict_p(X_test[:m]))
    output = 2000 * 6 * 8 * 2  # the p-values themselves (and their stacked copy)
    print("\npeak memory of predict_p (MB): " + ", ".join(
        f"block {b}, m = {m}: {v / 1e6:.1f}" for (b, m), v in peaks.items()))
    for block in (64, 256):
        # four times the test examples: the peak grows by the output only
        assert peaks[block, 2000] <= 1.25 * peaks[block, 500] + output
    # a smaller block takes less memory: the working set is O(block x n_train)
    assert peaks[64, 2000] < 0.6 * peaks[256, 2000]
    assert peaks[256, 2000] < 200 * 4435 * 8 * 4  # well below one float64 (m x n) matrix
