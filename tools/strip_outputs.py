"""Keep in the chapters only the stored outputs that nbval compares.

``make test`` compares the printed output of every code cell marked ``# NBVAL_CHECK_OUTPUT``
with the output stored in the notebook, so those outputs stay. Every other output (figures,
tables, progress) is regenerated when the book is built, so it is removed, together with
execution counts and timing metadata: a change to a chapter then reads as a change to its text
and code, not to kilobytes of base64 images. Run it after executing a chapter in place
(``make strip``); ``tests/test_stored_outputs.py`` fails while a chapter carries more.

Usage: ``python tools/strip_outputs.py [NOTEBOOK ...]`` (default: every ``book/*.ipynb``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CHECK = "# NBVAL_CHECK_OUTPUT"
BOOK = Path(__file__).resolve().parents[1] / "book"


def is_checked(cell: dict) -> bool:
    """Whether nbval compares this cell's output (a code cell marked ``# NBVAL_CHECK_OUTPUT``)."""
    return cell["cell_type"] == "code" and CHECK in "".join(cell["source"])


def strip(notebook: dict) -> dict:
    """Return ``notebook`` with the outputs of unchecked cells and all run metadata removed."""
    for cell in notebook["cells"]:
        cell["metadata"].pop("execution", None)
        if cell["cell_type"] != "code":
            continue
        if not is_checked(cell):
            cell["outputs"] = []
            cell["execution_count"] = None
    return notebook


def main(paths: list[str]) -> int:
    """Strip the notebooks at ``paths`` (default: the book's chapters) in place."""
    for path in map(Path, paths or sorted(BOOK.glob("*.ipynb"))):
        notebook = strip(json.loads(path.read_text(encoding="utf-8")))
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
