"""Bad input to svmtrust.experiments and its command line (svmtrust.experiments.__main__)."""

import pandas as pd
from svmtrust import experiments as e
from svmtrust.experiments import __main__ as cli

M = "svmtrust.experiments."
C = M + "__main__."
ADD = lambda t, r: t  # noqa: E731

CASES = [
    (M + "task_rng", "seed negative", lambda: e.task_rng(-1, 0), "seed"),
    (M + "task_rng", "seed a string", lambda: e.task_rng("0", 0), "seed"),
    (M + "task_rng", "index negative", lambda: e.task_rng(0, -1), "index"),
    (M + "task_rng", "index a float", lambda: e.task_rng(0, 1.5), "index"),
    (M + "check_scale", "scale upper case", lambda: e.check_scale("BOOK"), "scale"),
    (M + "check_scale", "scale a list", lambda: e.check_scale(["book"]), "scale"),
    (M + "parallel_map", "seed negative", lambda: e.parallel_map(ADD, [1], seed=-1), "seed"),
    (M + "parallel_map", "seed a string", lambda: e.parallel_map(ADD, [1], seed="1"), "seed"),
    (M + "parallel_map", "n_jobs zero", lambda: e.parallel_map(ADD, [1], n_jobs=0), "n_jobs"),
    (M + "parallel_map", "func not callable", lambda: e.parallel_map(3, [1]), "func"),
    (M + "workers", "n_jobs zero", lambda: e.workers(0), "n_jobs"),
    (M + "workers", "n_jobs a float", lambda: e.workers(2.0), "n_jobs"),
    (M + "parallel_map", "tasks not iterable", lambda: e.parallel_map(ADD, 3), "tasks"),
    (
        M + "parallel_map",
        "progress a string",
        lambda: e.parallel_map(ADD, [1], progress="no"),
        "progress",
    ),
    (M + "run_chapter", "unknown chapter", lambda: e.run_chapter("nope"), "name"),
    (M + "run_chapter", "unknown scale", lambda: e.run_chapter("svm", scale="huge"), "scale"),
    (M + "run_chapter", "seed a string", lambda: e.run_chapter("svm", seed="0"), "seed"),
    (M + "run_chapter", "name a list", lambda: e.run_chapter(["svm"]), "name"),
    (C + "check_output", "a folder", lambda: cli.check_output("."), "output"),
    (
        C + "check_output",
        "missing folder",
        lambda: cli.check_output("/no/such/dir/x.csv"),
        "output",
    ),
    (C + "check_output", "a number", lambda: cli.check_output(3), "output"),
    (
        C + "check_output",
        "a folder where no file can be created",
        lambda: cli.check_output("/proc/x.csv"),
        "output",
    ),
    (C + "check_backend", "unknown backend", lambda: cli.check_backend("ray", None), "backend"),
    (
        C + "check_backend",
        "scheduler without dask",
        lambda: cli.check_backend("local", "tcp://x:1"),
        "scheduler",
    ),
    (C + "backend", "unknown backend", lambda: cli.backend("ray").__enter__(), "backend"),
    (
        C + "check_scheduler",
        "an address of no known scheme",
        lambda: cli.check_scheduler("nope://x"),
        "scheduler",
    ),
    (C + "write_table", "table a list", lambda: cli.write_table([1], "x.csv"), "table"),
    (
        C + "write_table",
        "a folder that does not exist",
        lambda: cli.write_table(pd.DataFrame({"a": [1]}), "/no/such/dir/x.csv"),
        "output",
    ),
    (C + "print_summary", "unknown chapter", lambda: cli.print_summary("nope", None), "name"),
    (C + "print_summary", "rows not a table", lambda: cli.print_summary("svm", None), "rows"),
    (M + "run_chapter", "seed 2**32", lambda: e.run_chapter("svm", seed=2**32), "seed"),
]

#: The command line turns bad arguments into usage errors (exit status 2, the message naming the
#: argument), tested in tests/test_command_line.py (--seed -1 and 2**32, --n-jobs 0 and -2).
NO_INPUT = {C + "main": "a command line: bad arguments are usage errors, exit 2"}
