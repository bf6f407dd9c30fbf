"""Timing and memory of TCM-NN (``make bench``; not part of ``make test``).

Targets from the chapter's issues, measured as ratios in one run:

* TCM-NN, ``fit`` plus ``predict_p`` on all 2000 Satimage test examples with k = 1, against
  ``KNeighborsClassifier(n_neighbors=1, algorithm="brute")`` doing ``fit`` plus ``predict`` on
  the same split (medians of interleaved repeats: the machine is shared). Both backends are
  reported with the BLAS in use (the ratios move with the machine: the readable backend
  computes distances with ``cdist``, 1-NN and the fast backend with matrix products); the fast
  one, which the default ``algorithm="auto"`` runs on this training set, costs at most 5x;
* the threshold of ``algorithm="auto"``: both backends timed on training sets of half, once
  and twice :data:`svmtrust.tcm_nn.AUTO_FAST_FROM` examples;
* the memory of ``predict_p`` is bounded by the block size, not by the number of test
  examples.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from svmtrust import datasets
from svmtrust.tcm_nn import AUTO_FAST_FROM, BACKENDS, TCMNearestNeighbours
from threadpoolctl import threadpool_info

from .timing import medians


def _satimage():
    return datasets.satimage_train_test(datasets.load_satimage())


def _medians(runs: dict, repeats: int = 7) -> dict:
    """Median seconds of each function of ``runs`` (:func:`.timing.medians`), by name."""
    return dict(zip(runs, medians(*runs.values(), repeats=repeats).tolist()))


def _tcm(algorithm, X_train, y_train, X_test):
    return lambda: (
        TCMNearestNeighbours(k=1, n_jobs=-1, algorithm=algorithm)
        .fit(X_train, y_train)
        .predict_p(X_test)
    )


def _blas() -> str:
    """The BLAS libraries loaded, as threadpoolctl reports them."""
    return "; ".join(
        f"{lib['internal_api']} {lib.get('version')} ({lib.get('architecture')}, "
        f"{lib['num_threads']} threads, {lib['filepath'].rsplit('/', 1)[-1]})"
        for lib in threadpool_info()
        if lib["user_api"] == "blas"
    )


def test_tcm_nn_against_one_nearest_neighbour():
    X_train, y_train, X_test, _ = _satimage()

    def knn():
        KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(X_train, y_train).predict(X_test)

    runs = {"1-NN": knn}
    runs.update({name: _tcm(name, X_train, y_train, X_test) for name in BACKENDS})
    median = _medians(runs)
    chosen = TCMNearestNeighbours(k=1).fit(X_train, y_train).algorithm_
    print(f"\nBLAS: {_blas()}")
    print(
        f"Satimage {len(X_train)} / {len(X_test)}: 1-NN (brute) fit+predict {median['1-NN'] * 1e3:.1f} ms"
    )
    for name in BACKENDS:
        print(
            f"TCM-NN {name:5} fit+predict_p {median[name] * 1e3:.1f} ms; "
            f"ratio {median[name] / median['1-NN']:.2f}x" + (" (auto)" if name == chosen else "")
        )
    assert chosen == "fast"
    assert median["fast"] <= 5 * median["1-NN"]


def test_auto_threshold():
    """Both backends on training sets around AUTO_FAST_FROM (500 test examples): the fast
    one must win at twice the threshold; the lines printed show where the two cross."""
    X_train, y_train, X_test, _ = _satimage()
    X_test = X_test[:500]
    rng = np.random.default_rng(0)
    median = {}
    for n in (AUTO_FAST_FROM // 2, AUTO_FAST_FROM, 2 * AUTO_FAST_FROM):
        rows = rng.choice(len(X_train), size=n, replace=False)
        runs = {name: _tcm(name, X_train[rows], y_train[rows], X_test) for name in BACKENDS}
        median[n] = _medians(runs, repeats=5)
        print(
            f"\nn = {n}: exact {median[n]['exact'] * 1e3:.1f} ms, fast "
            f"{median[n]['fast'] * 1e3:.1f} ms (exact / fast {median[n]['exact'] / median[n]['fast']:.2f})",
            end="",
        )
    print()
    assert median[2 * AUTO_FAST_FROM]["fast"] < median[2 * AUTO_FAST_FROM]["exact"]


def _peak_bytes(func) -> int:
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_memory_bounded_by_block_size(algorithm):
    X_train, y_train, X_test, _ = _satimage()
    peaks = {}
    for block in (64, 256):
        model = TCMNearestNeighbours(k=1, block_size=block, algorithm=algorithm).fit(
            X_train, y_train
        )
        for m in (500, 2000):
            peaks[block, m] = _peak_bytes(lambda: model.predict_p(X_test[:m]))
    output = 2000 * 6 * 8 * 2  # the p-values themselves (and their stacked copy)
    print(
        f"\n{algorithm}: peak memory of predict_p (MB): "
        + ", ".join(f"block {b}, m = {m}: {v / 1e6:.1f}" for (b, m), v in peaks.items())
    )
    for block in (64, 256):
        # four times the test examples: the peak grows by the output only
        assert peaks[block, 2000] <= 1.25 * peaks[block, 500] + output
    # a smaller block takes less memory: the working set is O(block x n_train)
    assert peaks[64, 2000] < 0.6 * peaks[256, 2000]
    assert peaks[256, 2000] < 200 * 4435 * 8 * 4  # well below one float64 (m x n) matrix
