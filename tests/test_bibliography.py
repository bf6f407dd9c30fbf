"""The chapters cite into the book's one Bibliography page (book/bibliography.md) and keep no
bibliography of their own: a per-chapter list duplicated its works in the PDF."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_only_the_bibliography_page_lists_works():
    lists = [
        path.name
        for path in sorted((ROOT / "book").glob("*.*"))
        if path.suffix in (".md", ".ipynb") and "{bibliography}" in path.read_text(encoding="utf-8")
    ]
    assert lists == ["bibliography.md"]
