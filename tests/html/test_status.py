"""The status page (book/status.md): every chapter's run time shows.

myst-nb's execution table reads a cached chapter's run time from its cache record
(``execution_seconds``) and prints "-" when the record has none. ``make test`` executes the
chapters with tools/run_chapters.py, which cached them without it: the build that followed
reused them and 5 of the 8 chapters showed "-" (the other 3 were executed by the build
itself).
"""

import importlib.util
import re
from pathlib import Path

import nbformat
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("run_chapters", ROOT / "tools" / "run_chapters.py")
run_chapters = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_chapters)

#: The header of myst-nb's run-time column.
RUN_TIME = "Run Time (s)"


def run_times(table) -> dict[str, str]:
    """The run time of each chapter of the status page's execution table, as printed."""
    header = [th.get_text(" ", strip=True) for th in table.select("thead th")]
    column = header.index(RUN_TIME)
    times = {}
    for row in table.select("tbody tr"):
        cells = [td.get_text(" ", strip=True) for td in row.select("td")]
        times[cells[0]] = cells[column]
    return times


def test_status_page_gives_every_chapter_a_run_time(html_dir, soup):
    table = soup(html_dir / "book" / "status.html").select_one("main table")
    times = run_times(table)
    assert len(times) >= 8 and "book/svm" in times, times
    missing = {name: time for name, time in times.items() if not re.fullmatch(r"\d+(\.\d+)?", time)}
    assert not missing, f"{len(missing)} of {len(times)} chapters without a run time: {missing}"


def test_a_chapter_cached_by_run_chapters_keeps_its_run_time(tmp_path, monkeypatch):
    """tools/run_chapters.py stores the seconds a chapter took where myst-nb reads the run time
    of a cached chapter (myst_nb.core.execute.cache: ``record.data["execution_seconds"]``)."""
    monkeypatch.setattr(run_chapters, "CACHE", tmp_path / "cache")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "print(1)",
            execution_count=1,
            outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")],
        )
    ]
    path = tmp_path / "chapter.ipynb"
    nbformat.write(notebook, path)
    run_chapters.cache_executed(path, nbformat.read(path, 4), 12.5)
    record = get_cache(str(tmp_path / "cache")).match_cache_notebook(nbformat.read(path, 4))
    assert record.data.get("execution_seconds") == 12.5
