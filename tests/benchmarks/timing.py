"""How the benchmarks time: every function once to warm up, then the repeats in alternation.

The speed of the two-core machine drifts: the same ``SVC`` fit (1000 digits, precomputed
kernel) took 11.8 ms in one run of ``test_bench_foundation.py`` and 19.4 ms in another process
minutes later (2026-11-29), so a function and its baseline timed one block after the other can
meet different speeds, and a ratio bound fails on noise. Called in turn, repeat by repeat, both
meet the same drift; the fastest repeat of each is the one that other work disturbed least
(load only adds time), and the median says what a typical call costs.
"""

from __future__ import annotations

import time

import numpy as np


def interleaved_times(*funcs, repeats: int) -> np.ndarray:
    """Seconds of each call, shape ``(repeats, len(funcs))``: every function called once first
    (imports, caches), then ``funcs`` in turn, ``repeats`` rounds."""
    for func in funcs:
        func()
    times = np.empty((repeats, len(funcs)))
    for row in times:
        for column, func in enumerate(funcs):
            start = time.perf_counter()
            func()
            row[column] = time.perf_counter() - start
    return times


def fastest(*funcs, repeats: int) -> np.ndarray:
    """The fastest of :func:`interleaved_times` for each function."""
    return interleaved_times(*funcs, repeats=repeats).min(axis=0)


def medians(*funcs, repeats: int) -> np.ndarray:
    """The median of :func:`interleaved_times` for each function."""
    return np.median(interleaved_times(*funcs, repeats=repeats), axis=0)
