"""The papers' experimental protocols, one module per chapter, and the machinery they share.

Each chapter module ``svmtrust.experiments.NAME`` defines
``run(scale="book" | "paper", seed=0, n_jobs=1) -> pandas.DataFrame``; the command line
``python -m svmtrust.experiments NAME --scale paper`` calls it. Independent tasks run through
:func:`parallel_map`, which gives task ``i`` a random generator derived from ``(seed, i)`` alone,
so the results do not depend on ``n_jobs`` or on the order in which workers finish. joblib runs
the tasks, so ``joblib.parallel_config(backend="dask")`` sends them to a Dask cluster.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Sequence

import joblib
import numpy as np
from tqdm import tqdm

from ..progress import show_progress
from ..validation import check_bool, check_choice, check_integer, check_n_jobs, check_seed

__all__ = [
    "CHAPTERS",
    "SCALES",
    "MAX_JOBS",
    "task_rng",
    "workers",
    "check_scale",
    "parallel_map",
    "run_chapter",
]

#: The chapters whose protocol exists, by module name.
CHAPTERS = (
    "svm",
    "transduction",
    "tcm_nn",
    "confidence_compared",
    "nonconformity_selection",
    "span",
    "discrepancy",
    "selection_compared",
    "venn_abers",
)

#: The two scales every protocol offers.
SCALES = ("book", "paper")

#: The environment variable that caps the workers of :func:`parallel_map`, whatever ``n_jobs``
#: asks: ``tools/run_chapters.py`` sets it to each chapter's share of the cores when it runs
#: chapters side by side, so that two chapters do not start four workers on two cores.
MAX_JOBS = "SVMTRUST_MAX_JOBS"


def task_rng(seed: int, index: int) -> np.random.Generator:
    """The random generator of task ``index`` in a run seeded with ``seed``.

    It depends on ``(seed, index)`` only, through ``numpy.random.SeedSequence(seed,
    spawn_key=(index,))``, the ``index``-th child of ``SeedSequence(seed)``.
    """
    index = check_integer(index, "index", low=0)
    return np.random.default_rng(np.random.SeedSequence(check_seed(seed), spawn_key=(index,)))


def workers(n_jobs: int) -> int:
    """The workers :func:`parallel_map` starts for ``n_jobs``: ``n_jobs`` itself, or at most the
    cap the environment variable :data:`MAX_JOBS` sets (``-1``, every core, becomes the cap).
    The results do not depend on it.

    Raises
    ------
    ValueError
        Naming ``n_jobs`` (:func:`~svmtrust.validation.check_n_jobs`), or :data:`MAX_JOBS` if it
        is set to anything but a positive integer.
    """
    n_jobs = check_n_jobs(n_jobs)
    text = os.environ.get(MAX_JOBS, "")
    if not text:
        return n_jobs
    try:
        cap = check_integer(int(text), MAX_JOBS, low=1)
    except ValueError:
        raise ValueError(f"{MAX_JOBS}: must be a positive integer, got {text!r}") from None
    return cap if n_jobs == -1 else min(n_jobs, cap)


def check_scale(scale) -> str:
    """Return ``scale`` if it is ``"book"`` or ``"paper"``, else raise ``ValueError``."""
    return check_choice(scale, "scale", SCALES)


def parallel_map(
    func: Callable,
    tasks: Iterable,
    seed: int = 0,
    n_jobs: int = 1,
    desc: str | None = None,
    progress: bool = True,
) -> list:
    """Apply ``func(task, rng)`` to every task, in parallel, reproducibly.

    Parameters
    ----------
    func : callable
        Called as ``func(task, rng)`` with ``rng = task_rng(seed, i)`` for the ``i``-th task.
        It must draw all its randomness from ``rng``.
    tasks : iterable
        The tasks.
    seed : int
        Seed of the run.
    n_jobs : int
        Worker processes for joblib (1 runs in this process; -1 uses every core), at most the
        cap of :data:`MAX_JOBS` when it is set (:func:`workers`).
    desc : str, optional
        Label of the tqdm progress bar.
    progress : bool
        Show the progress bar, unless the environment variable ``SVMTRUST_PROGRESS`` is ``"0"``
        (see :func:`show_progress`).

    Returns
    -------
    list
        ``func``'s results in the order of ``tasks``, identical for every ``n_jobs``.
    """
    seed = check_seed(seed)
    n_jobs = check_n_jobs(n_jobs)
    progress = check_bool(progress, "progress")
    if not callable(func):
        raise ValueError(f"func: expected a callable func(task, rng), got {func!r}")
    if not isinstance(tasks, Iterable):
        raise ValueError(f"tasks: expected an iterable of tasks, got {tasks!r}")
    tasks: Sequence = list(tasks)
    calls = (joblib.delayed(func)(task, task_rng(seed, i)) for i, task in enumerate(tasks))
    runner = joblib.Parallel(n_jobs=workers(n_jobs), return_as="generator")
    bar = tqdm(runner(calls), total=len(tasks), desc=desc, disable=not show_progress(progress))
    return list(bar)


def run_chapter(name: str, scale: str = "book", seed: int = 0, n_jobs: int = 1):
    """Run chapter ``name``'s protocol and return its table.

    Raises
    ------
    ValueError
        If ``name`` is not in :data:`CHAPTERS`.
    """
    check_choice(name, "name", CHAPTERS)
    module = importlib.import_module(f"{__name__}.{name}")
    return module.run(scale=check_scale(scale), seed=check_seed(seed), n_jobs=check_n_jobs(n_jobs))
