"""One bibliography, each work once: in the PDF's LaTeX source every entry of references.bib is
one ``\\bibitem`` (the chapters cite into the book's Bibliography page and keep no list of their
own, whose entries LaTeX gathered at the end beside the global list: 100 items for 39 works)."""

from __future__ import annotations

import re
from pathlib import Path

import pybtex.database

from .built import require_built

ROOT = Path(__file__).resolve().parents[2]
TEX = ROOT / "_build" / "latex" / "trusting-svm.tex"


def test_each_work_is_listed_once_in_the_pdf():
    require_built(TEX, "LaTeX source", "make pdf")
    entries = pybtex.database.parse_file(ROOT / "book" / "references.bib").entries
    labels = re.findall(r"\\bibitem\[([^\]]*)\]", TEX.read_text(encoding="utf-8"))
    assert len(labels) == len(entries)
    assert len(set(labels)) == len(labels), sorted(
        label for label in set(labels) if labels.count(label) > 1
    )
