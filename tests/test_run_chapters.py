"""tools/run_chapters.py, which executes each chapter once for `make test`: it must fail where
nbval fails (a cell that raises, a checked output that changed), pass where nbval passes, and
leave the executed notebook where the book's build finds it."""

import importlib.util
from pathlib import Path

import nbformat
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_chapters", ROOT / "tools" / "run_chapters.py")
run_chapters = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_chapters)


def _notebook(path, stored: str, extra: str = "print('unchecked', 2)"):
    """A two-cell chapter: a checked cell printing 0.125 (stored output ``stored``), then
    ``extra``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    checked = nbformat.v4.new_code_cell(
        "# NBVAL_CHECK_OUTPUT\nimport sys\nprint(0.125)\nprint('a', end='')\nprint('b')",
        execution_count=1,
        outputs=[nbformat.v4.new_output("stream", name="stdout", text=stored)],
    )
    nb.cells = [checked, nbformat.v4.new_code_cell(extra)]
    nbformat.write(nb, path)
    return path


def test_matching_outputs_pass_and_changed_ones_fail(tmp_path):
    path = _notebook(tmp_path / "good.ipynb", "0.125\nab\n")
    text, seconds, error, _ = run_chapters.execute(path)
    assert error is None and seconds > 0
    executed = nbformat.reads(text, as_version=4)
    assert run_chapters.differences(nbformat.read(path, 4), executed) == []
    changed = _notebook(tmp_path / "changed.ipynb", "0.126\nab\n")
    found = run_chapters.differences(nbformat.read(changed, 4), executed)
    assert len(found) == 1 and "code cell 1" in found[0]


def test_a_cell_that_raises_is_an_error(tmp_path):
    path = _notebook(tmp_path / "raises.ipynb", "0.125\nab\n", extra="1 / 0")
    _, _, error, _ = run_chapters.execute(path)
    assert error is not None and "ZeroDivisionError" in error


def test_executed_chapter_is_found_by_the_build(tmp_path, monkeypatch):
    monkeypatch.setattr(run_chapters, "CACHE", tmp_path / "cache")
    path = _notebook(tmp_path / "cached.ipynb", "0.125\nab\n")
    text, _, _, _ = run_chapters.execute(path)
    run_chapters.cache_executed(path, nbformat.reads(text, as_version=4))
    cache = get_cache(str(tmp_path / "cache"))
    _, merged = cache.merge_match_into_notebook(nbformat.read(path, 4))
    assert merged.cells[1].outputs[0]["text"] == "unchecked 2\n"


def test_store_keeps_checked_outputs_and_says_whether_the_numbers_moved(tmp_path):
    path = _notebook(tmp_path / "store.ipynb", "0.125 \nab\n")  # the same number, other layout
    text, _, _, _ = run_chapters.execute(path)
    executed = nbformat.reads(text, as_version=4)
    assert run_chapters.store(path, executed) == "the same 1 numbers"
    stored = nbformat.read(path, 4)
    assert stored.cells[0].outputs and stored.cells[1].outputs == []
    assert run_chapters.differences(stored, executed) == []
    moved = _notebook(tmp_path / "moved.ipynb", "0.126\nab\n")
    assert run_chapters.store(moved, executed).startswith("NUMBERS CHANGED: 1 gone")


def test_the_slowest_cells_are_named_and_their_timestamps_dropped(tmp_path):
    """A cell that sleeps 0.5 s is named first, with its time; the executed notebook keeps no
    timestamps (they would land in the cache and the stored chapters)."""
    path = _notebook(tmp_path / "slow.ipynb", "0.125\nab\n", extra="import time\ntime.sleep(0.5)")
    text, _, error, slowest = run_chapters.execute(path)
    assert error is None and len(slowest) == 2
    (took, number), (other, _) = slowest
    assert number == 2 and 0.5 <= took < 5 and other < took
    assert all("execution" not in c.metadata for c in nbformat.reads(text, 4).cells)


def test_each_kernel_gets_its_share_of_the_cores():
    """Two chapters at once on two cores: one core each; one job keeps every core; more jobs
    than cores still one."""
    assert run_chapters.core_share(2, cores=2) == 1
    assert run_chapters.core_share(1, cores=2) == 2
    assert run_chapters.core_share(2, cores=8) == 4
    assert run_chapters.core_share(4, cores=2) == 1


def test_the_kernels_inherit_their_share(tmp_path, monkeypatch):
    """A kernel started after ``share_cores(2)`` on two cores sees one BLAS thread and at most
    one protocol worker; a count the caller set is kept. (Each variable is set, then removed,
    through ``monkeypatch``, which then restores it after the test: ``share_cores`` writes to
    ``os.environ``, and a share left there would cap the workers of every later test in this
    process, so that its one-against-two-jobs comparisons compared one job with one.)"""
    for name in run_chapters.SHARE_VARIABLES:
        monkeypatch.setenv(name, "unset")
        monkeypatch.delenv(name)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    monkeypatch.setattr(run_chapters.os, "cpu_count", lambda: 2)
    run_chapters.share_cores(2)
    shown = (
        "import os\nfrom svmtrust.experiments import workers\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['MKL_NUM_THREADS'], workers(2))"
    )
    path = _notebook(tmp_path / "threads.ipynb", "0.125\nab\n", extra=shown)
    text, _, error, _ = run_chapters.execute(path)
    assert error is None, error
    assert nbformat.reads(text, 4).cells[1].outputs[0]["text"] == "1 3 1\n"
