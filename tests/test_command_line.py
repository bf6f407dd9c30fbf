"""The command line: the output file is checked before the run, and ``--backend dask`` gives the
rows of ``--n-jobs 1`` (timing columns aside) on a Dask cluster."""

import pandas as pd
import pytest
from svmtrust.experiments import __main__ as cli


def _never_run(*args, **kwargs):
    raise AssertionError("the protocol ran before the output was checked")


@pytest.mark.parametrize(
    "where, message",
    [("missing/run.csv", "does not exist"), (".", "is a folder")],
)
def test_unwritable_output_stops_before_the_run(tmp_path, monkeypatch, capsys, where, message):
    monkeypatch.setattr(cli, "run_chapter", _never_run)
    with pytest.raises(SystemExit) as stop:
        cli.main(["svm", "--output", str(tmp_path / where)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "output:" in err and message in err


def test_unwritable_output_is_refused(tmp_path, monkeypatch):
    """A file or folder the user may not write is refused (os.access is asked, so the check
    holds for root too, who could write a read-only file anyway)."""
    out = tmp_path / "run.csv"
    out.write_text("")
    monkeypatch.setattr(cli.os, "access", lambda path, mode: False)
    with pytest.raises(ValueError, match="^output: .* cannot be written"):
        cli.check_output(str(out))
    with pytest.raises(ValueError, match="^output: the folder .* cannot be written"):
        cli.check_output(str(tmp_path / "new.csv"))


def test_output_check_leaves_no_file_and_keeps_an_existing_one(tmp_path):
    """The trial opening of check_output removes the file it created and appends nothing."""
    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    old.write_text("kept\n")
    assert cli.check_output(str(new)) == new and not new.exists()
    assert cli.check_output(str(old)) == old and old.read_text() == "kept\n"


def test_scheduler_needs_the_dask_backend(monkeypatch):
    monkeypatch.setattr(cli, "run_chapter", _never_run)
    with pytest.raises(SystemExit):
        cli.main(["svm", "--scheduler", "tcp://127.0.0.1:8786"])
    with pytest.raises(ValueError, match="^backend"):
        with cli.backend("spark"):
            pass


def test_dask_backend_gives_the_rows_of_one_job(tmp_path):
    distributed = pytest.importorskip("distributed")
    timing = ["time_cvxpy", "time_libsvm"]
    serial, on_dask = tmp_path / "serial.csv", tmp_path / "dask.csv"
    assert cli.main(["svm", "--n-jobs", "1", "--output", str(serial)]) == 0
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        args = ["svm", "--backend", "dask", "--scheduler", cluster.scheduler_address]
        assert cli.main([*args, "--output", str(on_dask)]) == 0
    expected = pd.read_csv(serial).drop(columns=timing)
    pd.testing.assert_frame_equal(pd.read_csv(on_dask).drop(columns=timing), expected)


def test_prints_the_summary_not_the_rows(tmp_path, capsys):
    out = tmp_path / "run.csv"
    assert cli.main(["svm", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = pd.read_csv(out)
    assert "Exact QP against libsvm" in printed and f"{len(rows)} rows written" in printed
    assert "time_cvxpy" not in printed and "time_cvxpy" in rows.columns


@pytest.mark.parametrize(
    "name", ["transduction", "tcm_nn", "span", "nonconformity_selection", "discrepancy"]
)
def test_summary_of_each_recorded_run(name, capsys):
    from pathlib import Path

    rows = pd.read_csv(
        Path(__file__).resolve().parents[1] / "book" / "recorded" / f"{name}-paper.csv"
    )
    cli.print_summary(name, rows)
    printed = capsys.readouterr().out
    assert 5 < len(printed.splitlines()) < 200


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed", "-1"], "seed:"),
        (["--seed", str(2**32)], "seed:"),
        (["--n-jobs", "0"], "n_jobs:"),
        (["--n-jobs", "-2"], "n_jobs:"),
    ],
)
def test_bad_seed_or_workers_are_usage_errors(monkeypatch, capsys, args, message):
    monkeypatch.setattr(cli, "run_chapter", _never_run)
    with pytest.raises(SystemExit) as stop:
        cli.main(["svm", *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and message in err


def test_a_device_is_not_an_output(tmp_path, monkeypatch, capsys):
    """``/dev/full`` opens for appending, then fails every write: refused before the run."""
    monkeypatch.setattr(cli, "run_chapter", _never_run)
    with pytest.raises(SystemExit) as stop:
        cli.main(["svm", "--output", "/dev/full"])
    assert stop.value.code == 2 and "not a regular file" in capsys.readouterr().err


def test_the_table_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """An interrupted write leaves the earlier file as it was and no temporary file."""
    out = tmp_path / "run.csv"
    out.write_text("earlier\n")
    table = pd.DataFrame({"a": range(5)})

    def interrupted(self, path, **kwargs):
        with open(path, "w") as half:
            half.write("a\n0\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.write_table(table, out)
    assert out.read_text() == "earlier\n" and [p.name for p in tmp_path.iterdir()] == ["run.csv"]
    monkeypatch.undo()
    cli.write_table(table, out)
    assert pd.read_csv(out)["a"].tolist() == list(range(5))


def test_a_scheduler_that_does_not_answer_is_a_usage_error(monkeypatch, capsys):
    pytest.importorskip("distributed")
    monkeypatch.setattr(cli, "run_chapter", _never_run)
    monkeypatch.setattr(cli, "SCHEDULER_TIMEOUT", 1)
    with pytest.raises(SystemExit) as stop:
        cli.main(["svm", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"])
    assert (
        stop.value.code == 2 and "scheduler: no Dask scheduler answered" in capsys.readouterr().err
    )
