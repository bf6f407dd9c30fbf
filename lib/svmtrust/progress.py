"""Progress bars for the loops that can run for minutes.

A full transductive machine solves one augmented SVM per test object and candidate label: at
6,000 training examples a single test object can take seconds, and a fit of many one-vs-rest
problems a minute. :func:`steps` wraps such a loop in a tqdm bar that appears only when the
loop has run for :data:`DELAY` seconds, so short calls print nothing. Every bar goes to stderr
and can be switched off with the environment variable ``SVMTRUST_PROGRESS=0`` (the book's
build and its nbval run do, so that no bar lands in a stored or rendered output).
"""

from __future__ import annotations

import os

from tqdm import tqdm

from .validation import check_bool, check_integer

__all__ = ["DELAY", "show_progress", "steps"]

#: Seconds a loop runs before its bar appears.
DELAY = 3.0


def show_progress(progress: bool = True) -> bool:
    """Whether a progress bar asked for with ``progress`` is shown.

    Bars are shown in Jupyter and on the command line, unless the environment variable
    ``SVMTRUST_PROGRESS`` is ``"0"``.
    """
    return check_bool(progress, "progress") and os.environ.get("SVMTRUST_PROGRESS", "1") != "0"


def steps(count: int, desc: str, unit: str = "step"):
    """``range(count)`` under a progress bar that appears after :data:`DELAY` seconds.

    Parameters
    ----------
    count : int
        The number of steps, at least 0.
    desc : str
        The bar's label (the estimator and what it does).
    unit : str
        What one step is ("test object", "problem").

    Returns
    -------
    iterable of int
        ``0, 1, ..., count - 1``; the bar is closed and removed when the loop ends. A plain
        ``range`` when bars are off or there is at most one step (a bar costs a tenth of a
        millisecond to make, more than a small machine's whole step).
    """
    count = check_integer(count, "count", low=0)
    if count <= 1 or not show_progress():
        return range(count)
    bar = {"desc": desc, "unit": f" {unit}", "delay": DELAY, "leave": False}
    return tqdm(range(count), disable=not show_progress(), **bar)
