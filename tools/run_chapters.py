"""Execute every chapter once: check its outputs as nbval does, and hand them to the book build.

``make test`` used to run each chapter twice, once under nbval and once in the book's build.
This tool executes each chapter once, with the executor the build itself uses
(``jupyter_cache``'s ``single_nb_execution``, in the chapter's folder, a cell timeout of
:data:`TIMEOUT` seconds), two chapters at a time on a two-core machine, and then

1. checks it as ``pytest --nbval-lax`` does: no cell may raise, and every code cell marked
   ``# NBVAL_CHECK_OUTPUT`` must print what the committed notebook stores (streams of one name
   merged, the fields nbval skips skipped: metadata, execution counts, images);
2. stores the executed notebook in the build's execution cache (``_build/.jupyter_cache``,
   keyed by the hash of the notebook's code), where ``jupyter-book build`` then finds it
   ("Using cached notebook") instead of executing the chapter again.

Each chapter gets its share of the machine's cores (:func:`core_share`: one each with two jobs
on two cores), as its kernel's BLAS threads and as the most workers its protocol starts
(``svmtrust.experiments.MAX_JOBS``; the results do not depend on the number of workers). With
two BLAS threads a kernel's numpy spins on a core the other chapter is using: on the two-core
machine the chapters took 310 s two at a time with the default threads and 241 s with one
(2026-11-29), and single cells up to eight times longer than alone (selection_compared's margin
cell 54 s against 6.6 s alone). With two protocol workers each, two chapters ran four workers on
two cores: 261 s against 206 s with one, back to back the same day.

Usage: ``python tools/run_chapters.py [--jobs N] [--store] [NOTEBOOK ...]`` (default: every
``book/*.ipynb``, two jobs). With ``--store`` a chapter whose presentation changed on purpose
stores what it computed instead of failing: the executed outputs of its checked cells replace the
stored ones (the rest are stripped, as ``make strip`` does), it is cached, and the tool prints
whether the numbers in its checked outputs are still the stored ones. It prints one line per chapter with its time and exits 1 if a
chapter fails. A chapter that differs from its committed outputs is not cached, so the build
that follows executes it again and a reader sees what was computed.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime
from pathlib import Path

import nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from jupyter_cache.executors.utils import single_nb_execution
from nbval.plugin import coalesce_streams

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strip_outputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CACHE = ROOT / "_build" / ".jupyter_cache"
CHECK = "# NBVAL_CHECK_OUTPUT"
#: Seconds allowed to one cell, as in _config.yml (execute.timeout) and the Makefile's nbval.
TIMEOUT = 900
#: How many of a chapter's slowest cells the report names.
SLOWEST_CELLS = 2
#: The chapters that take longest, first: with two workers the longest chapter starts at once
#: and the short ones fill the other core (the rest follow in name order).
SLOWEST_FIRST = ("span", "transduction", "confidence_compared", "selection_compared", "tcm_nn")
#: The environment variables that set a kernel's share of the cores: its BLAS and OpenMP
#: threads, and the workers of its protocols (``svmtrust.experiments.MAX_JOBS``).
SHARE_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "SVMTRUST_MAX_JOBS",
)
#: Output fields nbval does not compare (its defaults, without nbdime).
SKIP = {
    "metadata",
    "traceback",
    "prompt_number",
    "output_type",
    "name",
    "execution_count",
    "application/vnd.jupyter.widget-view+json",
    "image/png",
    "image/jpeg",
}


def core_share(jobs: int, cores: int | None = None) -> int:
    """The cores each of ``jobs`` kernels running at once may use: the cores shared out, at
    least one."""
    cores = (os.cpu_count() or 1) if cores is None else cores
    return max(1, cores // max(1, jobs))


def share_cores(jobs: int) -> None:
    """Give the kernels this process starts :func:`core_share` ``(jobs)`` BLAS threads and
    protocol workers each (a kernel inherits the environment), unless the caller set a count."""
    for name in SHARE_VARIABLES:
        os.environ.setdefault(name, str(core_share(jobs)))


def execute(path: Path) -> tuple[dict, float, str | None, list[tuple[float, int]]]:
    """Execute one chapter in its folder; return the executed notebook, the seconds it took,
    the error (``None`` on success) and its slowest cells (:func:`slowest_cells`)."""
    os.environ["SVMTRUST_PROGRESS"] = "0"  # as book/conftest.py and the build: no bars
    notebook = nbformat.read(path, as_version=4)
    result = single_nb_execution(
        notebook, cwd=str(path.parent), timeout=TIMEOUT, allow_errors=False, record_timing=True
    )
    error = None if result.err is None else result.exc_string or repr(result.err)
    slowest = slowest_cells(notebook)
    for cell in notebook.cells:  # the timestamps are for this report, not for the pages
        cell.get("metadata", {}).pop("execution", None)
    return nbformat.writes(notebook), result.time, error, slowest


def slowest_cells(notebook, count: int = SLOWEST_CELLS) -> list[tuple[float, int]]:
    """The ``count`` slowest code cells of an executed notebook as ``(seconds, code cell
    number)``, slowest first, from the timestamps nbclient records (``record_timing``): a cell
    near the :data:`TIMEOUT` on a quiet machine fails on a loaded one."""
    times = []
    code = [c for c in notebook.cells if c.cell_type == "code"]
    for number, cell in enumerate(code, start=1):
        stamps = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" in stamps and "shell.execute_reply" in stamps:
            began = datetime.fromisoformat(stamps["iopub.execute_input"].replace("Z", "+00:00"))
            ended = datetime.fromisoformat(stamps["shell.execute_reply"].replace("Z", "+00:00"))
            times.append(((ended - began).total_seconds(), number))
    return sorted(times, reverse=True)[:count]


def _fields(outputs) -> dict[str, list]:
    """nbval's view of a cell's outputs: streams merged by name, every compared field (the
    mime types of ``data`` flattened) mapped to its values in order."""
    fields: dict[str, list] = {}
    for output in coalesce_streams(copy.deepcopy(list(outputs))):
        if output["output_type"] == "stream":
            output = {output["name"]: output["text"]}
        for key, value in output.items():
            if key == "data":
                for mime, content in value.items():
                    if mime not in SKIP:
                        fields.setdefault(mime, []).append(content)
            elif key not in SKIP:
                fields.setdefault(key, []).append(value)
    return fields


def differences(stored, executed) -> list[str]:
    """The checked cells whose executed outputs differ from the stored ones, as nbval judges
    them (a cell stored without an execution count is not compared)."""
    found = []
    code = [c for c in stored.cells if c.cell_type == "code"]
    ran = [c for c in executed.cells if c.cell_type == "code"]
    for number, (old, new) in enumerate(zip(code, ran), start=1):
        if CHECK not in old.source or old.get("execution_count") is None:
            continue
        want, got = _fields(old.outputs), _fields(new.outputs)
        if want != got:
            found.append(f"code cell {number}: stored {want!r}\n    computed {got!r}")
    return found


def cache_executed(path: Path, executed, seconds: float | None = None) -> None:
    """Store an executed chapter where ``jupyter-book build`` looks for it, with the seconds
    its execution took: myst-nb reads them (``execution_seconds``, the key jupyter-cache's own
    executors write) as the chapter's run time on the status page, which shows "-" for a
    chapter cached without them."""
    cache = get_cache(str(CACHE))
    record = cache.add_nb_to_project(str(path))
    data = {} if seconds is None else {"execution_seconds": seconds}
    cache.cache_notebook_bundle(
        CacheBundleIn(executed, record.uri, data=data), check_validity=False, overwrite=True
    )


def numbers(notebook) -> list[str]:
    """Every number in the checked cells' outputs, in order of the cells (the plain text of
    each output), to compare a chapter's numbers across a change of presentation."""
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or CHECK not in cell.source:
            continue
        for output in cell.outputs:
            text = output.get("text", "") or output.get("data", {}).get("text/plain", "")
            found.append(sorted(re.findall(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)))
    return sorted(number for cell in found for number in cell)


def store(path: Path, executed) -> str:
    """Write the executed chapter to ``path`` with only its checked outputs kept; say whether
    the numbers of its checked outputs changed."""
    before = numbers(nbformat.read(path, 4))
    notebook = strip_outputs.strip(json.loads(nbformat.writes(executed)))
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    after = numbers(nbformat.read(path, 4))
    if before == after:
        return f"the same {len(after)} numbers"
    lost, new = Counter(before) - Counter(after), Counter(after) - Counter(before)
    return f"NUMBERS CHANGED: {sum(lost.values())} gone {dict(lost)}, {sum(new.values())} new {dict(new)}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--store", action="store_true", help="store the executed outputs")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or sorted(BOOK.glob("*.ipynb"))
    paths.sort(key=lambda p: SLOWEST_FIRST.index(p.stem) if p.stem in SLOWEST_FIRST else 99)
    share_cores(args.jobs)
    failed = 0
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(execute, path): path for path in paths}
        for future in as_completed(futures):
            path = futures[future]
            text, seconds, error, slowest = future.result()
            cells = ", ".join(f"cell {number} {took:.0f} s" for took, number in slowest)
            executed = nbformat.reads(text, as_version=4)
            problems = [error] if error else differences(nbformat.read(path, 4), executed)
            if args.store and not error:
                print(f"stored {path.name}: {store(path, executed)}", flush=True)
                problems = []
            if problems:
                failed += 1
                print(
                    f"FAILED {path.name} ({seconds:.0f} s; {cells})",
                    *problems,
                    sep="\n  ",
                    flush=True,
                )
                continue
            cache_executed(path, executed, seconds)
            print(f"passed {path.name} ({seconds:.0f} s; slowest: {cells})", flush=True)
    print(
        f"{len(paths) - failed} of {len(paths)} chapters passed in {time.perf_counter() - start:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
