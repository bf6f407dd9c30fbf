"""Command line: ``python -m svmtrust.experiments NAME --scale book|paper --seed S --n-jobs J``.

Runs one chapter's protocol, prints its table and, with ``--output``, writes it as CSV.
"""

from __future__ import annotations

import argparse
import sys

from . import CHAPTERS, SCALES, run_chapter


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m svmtrust.experiments",
        description="Run one chapter's experimental protocol and print its table.",
    )
    parser.add_argument("name", choices=CHAPTERS, help="the chapter")
    parser.add_argument("--scale", choices=SCALES, default="book", help="book (fast) or paper")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--n-jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parser.add_argument("--output", help="also write the table to this CSV file")
    return parser


def main(argv=None) -> int:
    """Entry point; returns the process exit code."""
    args = build_parser().parse_args(argv)
    table = run_chapter(args.name, scale=args.scale, seed=args.seed, n_jobs=args.n_jobs)
    print(table.to_string(index=False))
    if args.output:
        table.to_csv(args.output, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
