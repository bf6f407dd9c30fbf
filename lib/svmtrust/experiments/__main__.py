"""Command line: ``python -m svmtrust.experiments NAME --scale book|paper --seed S --n-jobs J``.

Runs one chapter's protocol, prints the chapter's summary tables (the paper beside this book)
and, with ``--output``, writes every row of the run as CSV. The
output file is checked before the run starts, so a paper-scale run never ends on an error about
where to write. ``--backend dask`` sends the protocol's tasks to a Dask cluster through joblib:
a ``distributed.LocalCluster`` on this machine, or the cluster whose scheduler ``--scheduler``
names; the rows are the same as with ``--n-jobs 1``, except for timing columns. Arguments that
cannot be run (a negative seed, ``--n-jobs 0``, an output that cannot be written or is not a
regular file, a scheduler that does not answer) are usage errors: the command prints its usage
and the reason, and exits with status 2 before any work. The CSV is written whole or not at all
(:func:`write_table`).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import tempfile
from pathlib import Path

import joblib
import pandas as pd

from ..validation import check_choice, check_n_jobs, check_seed, check_table
from . import CHAPTERS, SCALES, run_chapter

__all__ = [
    "BACKENDS",
    "build_parser",
    "check_output",
    "write_table",
    "SCHEDULER_TIMEOUT",
    "check_scheduler",
    "check_backend",
    "backend",
    "print_summary",
    "main",
]

#: Where the protocol's tasks can run: joblib's process pool on this machine, or Dask.
BACKENDS = ("local", "dask")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m svmtrust.experiments",
        description="Run one chapter's experimental protocol and print its table.",
    )
    parser.add_argument("name", choices=CHAPTERS, help="the chapter")
    parser.add_argument("--scale", choices=SCALES, default="book", help="book (fast) or paper")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="worker processes (-1: all cores; default 1, or every Dask worker)",
    )
    parser.add_argument("--output", help="also write the table to this CSV file")
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local processes (default) or a Dask cluster",
    )
    parser.add_argument(
        "--scheduler",
        help="address of a running Dask scheduler "
        "(with --backend dask; default: start a LocalCluster)",
    )
    return parser


def check_output(path: str | None) -> Path | None:
    """Return ``path`` as a Path if a CSV file can be written there, else raise ``ValueError``.

    The folder must exist and be writable, and ``path`` must not be a folder or a read-only file.
    Beyond what ``os.access`` says (root passes it almost everywhere), the file is opened for
    appending, which changes nothing in a file that exists, and a file created by the trial is
    removed: a folder such as ``/proc``, where no file can be created, is refused before the run.
    """
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"output: expected a file name, got {path!r}")
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    if out.is_dir():
        raise ValueError(f"output: {path!r} is a folder, not a file")
    if out.exists() and not out.is_file():
        raise ValueError(f"output: {path!r} is not a regular file (a device or a pipe)")
    if not folder.is_dir():
        raise ValueError(f"output: the folder {str(folder)!r} does not exist")
    if out.exists() and not os.access(out, os.W_OK):
        raise ValueError(f"output: {path!r} exists and cannot be written")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"output: the folder {str(folder)!r} cannot be written")
    existed = out.exists()
    try:
        with open(out, "a"):
            pass
    except OSError as err:
        raise ValueError(f"output: {path!r} cannot be written ({err.strerror})") from None
    if not existed:
        with contextlib.suppress(OSError):
            out.unlink()
    return out


def write_table(table: pd.DataFrame, output: Path) -> None:
    """Write ``table`` as CSV to ``output`` whole or not at all: into a temporary file beside
    it, then renamed over it, so that an interrupted run (Ctrl-C, a full disk) never leaves a
    truncated file that reads as a shorter table.

    Raises
    ------
    ValueError
        Naming ``table`` if it is not a DataFrame, ``output`` when the file cannot be written
        (the temporary file is removed).
    """
    check_table(table, "table")
    output = Path(output)
    temporary = None
    try:
        with tempfile.NamedTemporaryFile(
            "w", dir=output.parent, prefix=f".{output.name}.", suffix=".part", delete=False
        ) as part:
            temporary = Path(part.name)
        table.to_csv(temporary, index=False)
        os.replace(temporary, output)
    except (OSError, KeyboardInterrupt) as error:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        if isinstance(error, KeyboardInterrupt):
            raise
        raise ValueError(f"output: {str(output)!r} could not be written ({error})") from None


#: Seconds the command waits for a Dask scheduler before it calls the address a usage error.
SCHEDULER_TIMEOUT = 10


def check_scheduler(address: str) -> None:
    """Raise ``ValueError`` naming ``scheduler`` unless a Dask scheduler answers at ``address``
    within :data:`SCHEDULER_TIMEOUT` seconds (before the run, not after its first task)."""
    from distributed import Client

    try:
        Client(address, timeout=SCHEDULER_TIMEOUT).close()
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise ValueError(
            f"scheduler: no Dask scheduler answered at {address!r} within "
            f"{SCHEDULER_TIMEOUT} s ({type(error).__name__}: {error})"
        ) from None


def check_backend(name: str, scheduler: str | None) -> None:
    """Raise ``ValueError`` unless ``name`` is in :data:`BACKENDS` and a ``scheduler`` address
    comes only with ``"dask"``."""
    if name not in BACKENDS:
        raise ValueError(f"backend: must be one of {BACKENDS}, got {name!r}")
    if scheduler is not None and name != "dask":
        raise ValueError("scheduler: only with backend 'dask'")


@contextlib.contextmanager
def backend(name: str, scheduler: str | None = None):
    """Run the joblib calls inside on ``name``'s workers (see :data:`BACKENDS`).

    With ``"dask"``, connect to the scheduler at ``scheduler``, or start a
    ``distributed.LocalCluster`` (one single-threaded worker process per core) and close it after.
    """
    check_backend(name, scheduler)
    if name == "local":
        yield
        return
    from distributed import Client, LocalCluster

    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(
                LocalCluster(threads_per_worker=1, dashboard_address=None)
            )
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(Client(scheduler))
        with joblib.parallel_config(backend="dask", wait_for_workers_timeout=60):
            yield client


def print_summary(name: str, rows: pd.DataFrame) -> None:
    """Print chapter ``name``'s summary tables (``summary(rows)`` of its protocol module)."""
    check_choice(name, "name", CHAPTERS)
    check_table(rows, "rows")
    tables = importlib.import_module(f"{__package__}.{name}").summary(rows)
    with pd.option_context("display.width", 160, "display.max_columns", 30):
        for title, table in tables.items():
            print(f"\n{title}\n{table.to_string(float_format=lambda v: f'{v:.4g}')}")


def main(argv=None) -> int:
    """Entry point; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        output = check_output(args.output)
        check_backend(args.backend, args.scheduler)
        check_seed(args.seed)
        check_n_jobs(args.n_jobs)
        if args.scheduler is not None:
            check_scheduler(args.scheduler)
    except ValueError as error:
        parser.error(str(error))
    n_jobs = args.n_jobs if args.n_jobs is not None else (-1 if args.backend == "dask" else 1)
    with backend(args.backend, args.scheduler):
        table = run_chapter(args.name, scale=args.scale, seed=args.seed, n_jobs=n_jobs)
    if output is not None:
        write_table(table, output)
        print(f"{len(table)} rows written to {output}")
    print_summary(args.name, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
