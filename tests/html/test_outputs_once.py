"""Every output printed once: on the pages of the built book and in the notebooks the build
executed (``_build/jupyter_execute``).

myst-nb's stream merging (``nb_merge_streams: true``) used to append the later stdout pieces of
a cell to its first piece in place, so an executed notebook held the tail of such a cell twice
(19 cells in 7 chapters); book/_ext/stream_merging.py merges a copy instead.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]


def repeated_tail(text: str) -> str | None:
    """The block of lines that ends ``text`` twice in a row (the last m lines equal the m lines
    before them, m >= 1, the block not blank), or None."""
    lines = text.rstrip("\n").split("\n")
    for m in range(1, len(lines) // 2 + 1):
        block = lines[len(lines) - m :]
        if any(line.strip() for line in block) and block == lines[len(lines) - 2 * m : -m]:
            return "\n".join(block)
    return None


def repeated_outputs(texts: list[str]) -> list[str]:
    """What a cell whose outputs are ``texts`` (in order) prints twice: an output that ends
    with a repeated block, or later outputs whose text, joined, repeats an earlier output or
    its last lines."""
    found = [tail for tail in map(repeated_tail, texts) if tail]
    for j in range(1, len(texts)):
        rest = "".join(texts[j:]).strip("\n")
        if rest.strip() and any(
            ("\n" + earlier.rstrip("\n")).endswith("\n" + rest) for earlier in texts[:j]
        ):
            found.append(rest)
            break
    return found


def page_repeats(soup: BeautifulSoup) -> list[str]:
    """The outputs printed twice in some cell of a parsed HTML page."""
    found = []
    for cell in soup.select("div.cell"):
        texts = [pre.get_text() for pre in cell.select(".cell_output pre")]
        found += repeated_outputs(texts)
    return found


def notebook_repeats(path: Path) -> list[str]:
    """The stream outputs printed twice in some code cell of a notebook."""
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        outputs = [o for o in cell.get("outputs", []) if o["output_type"] == "stream"]
        for name in ("stdout", "stderr"):
            found += repeated_outputs([o["text"] for o in outputs if o["name"] == name])
    return found


def test_detector_sees_a_repeated_tail():
    merged_twice = ["a\nb\nc\nb\nc\n"]
    assert repeated_outputs(merged_twice) == ["b\nc"]
    merged_in_place = ["a\nb\nc\n", "b\n", "c\n"]
    assert repeated_outputs(merged_in_place) == ["b\nc"]
    assert repeated_outputs(["a\nb\n", "c\n"]) == []
    assert repeated_outputs(["x = 1\n\n\n", "\n"]) == []
    assert repeated_outputs(["sum: 10\n", "0\n"]) == []
    assert repeated_outputs(["one\n", "one\n"]) == ["one"]


def test_no_page_repeats_an_output(html_dir, pages, soup):
    found = {p.relative_to(html_dir).as_posix(): page_repeats(soup(p)) for p in pages}
    found = {name: hits[:3] for name, hits in found.items() if hits}
    assert not found, found


def test_no_executed_notebook_repeats_an_output(html_dir):
    executed = sorted((html_dir.parent / "jupyter_execute").rglob("*.ipynb"))
    assert executed, "the build wrote no executed notebook"
    found = {p.name: notebook_repeats(p) for p in executed}
    found = {name: hits[:3] for name, hits in found.items() if hits}
    assert not found, found


CELL = """\
import sys, time
print("first piece")
sys.stdout.flush()
time.sleep(0.5)
print("second piece")
sys.stdout.flush()
time.sleep(0.5)
print("third piece")
"""


def test_a_cell_printed_in_pieces_shows_once(tmp_path):
    """A one-chapter book built from scratch with the book's stream settings and extension:
    the cell's three stdout pieces show as one block on the page and stay three separate
    outputs, none repeated, in the executed notebook (without the extension the first output
    held all three and the tail came twice)."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    if not jupyter_book.exists():
        pytest.skip("jupyter-book is not installed beside this Python")
    shutil.copytree(ROOT / "book" / "_ext", tmp_path / "_ext")
    (tmp_path / "_config.yml").write_text(
        textwrap.dedent(
            """\
            title: outputs once
            execute:
              execute_notebooks: cache
            sphinx:
              local_extensions:
                stream_merging: _ext
              config:
                nb_merge_streams: true
            """
        )
    )
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: pieces\n")
    (tmp_path / "intro.md").write_text("# Intro\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Pieces"), nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbformat.write(nb, tmp_path / "pieces.ipynb")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [str(jupyter_book), "build", str(tmp_path)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    executed = tmp_path / "_build" / "jupyter_execute" / "pieces.ipynb"
    outputs = nbformat.read(executed, as_version=4).cells[1].outputs
    assert "".join(o["text"] for o in outputs) == "first piece\nsecond piece\nthird piece\n"
    assert notebook_repeats(executed) == []
    page = tmp_path / "_build" / "html" / "pieces.html"
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")
    shown = [pre.get_text() for pre in soup.select(".cell_output pre")]
    assert shown == ["first piece\nsecond piece\nthird piece\n"]
    assert page_repeats(soup) == []
