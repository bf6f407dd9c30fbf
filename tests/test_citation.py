"""The book's citation: CITATION.cff carries a version and a release date, and the BibTeX
entries in the README and the introduction say the same."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _cff():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _bibtex(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    blocks = re.findall(r"```bibtex\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, f"{path}: expected one BibTeX block, found {len(blocks)}"
    return blocks[0]


def test_citation_cff_has_version_and_release_date():
    cff = _cff()
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(cff["version"]))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    assert cff["title"] == "Trusting the Support Vector Machine"


def test_bibtex_entries_match_citation_cff():
    cff = _cff()
    version, released = str(cff["version"]), str(cff["date-released"])
    entries = [_bibtex("README.md"), _bibtex("book/intro.md")]
    assert entries[0] == entries[1]
    entry = entries[0]
    assert f"version = {{{version}}}" in entry
    assert f"year    = {{{released[:4]}}}" in entry
    assert released in entry and cff["title"] in entry


def test_bibliography_parses_and_every_cited_key_is_in_it():
    """references.bib is valid BibTeX (a brace lost in a merge fails here, not in the build)
    and every key a chapter cites with {cite}, {cite:t} or {cite:p} is one of its entries."""
    import pybtex.database

    keys = set(pybtex.database.parse_file(ROOT / "book" / "references.bib").entries)
    cited = set()
    for path in sorted((ROOT / "book").glob("*.*")):
        if path.suffix in (".md", ".ipynb"):
            text = path.read_text(encoding="utf-8")
            for group in re.findall(r"\{cite(?::[tp])?\}`([^`]+)`", text):
                cited.update(key.strip() for key in group.split(","))
    assert cited, "no citation found: the pattern is wrong"
    assert sorted(cited - keys) == []


def test_citation_names_the_book_its_version_and_the_pdf():
    """CITATION.cff's preferred citation and the BibTeX entry name the book, its version and
    its PDF; the PDF's title page (book/_ext/book_pdf.py) carries version, date and the entry."""
    import sys

    cff = _cff()
    preferred = cff["preferred-citation"]
    assert preferred["title"] == cff["title"] and str(preferred["version"]) == str(cff["version"])
    assert str(preferred["date-released"]) == str(cff["date-released"])
    pdf = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["latex"]
    pdf_name = pdf["latex_documents"]["targetname"].replace(".tex", ".pdf")
    assert preferred["filename"] == pdf_name
    assert pdf_name in _bibtex("book/intro.md")
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import book_pdf

    page = book_pdf.title_page()
    assert _bibtex("book/intro.md").rstrip() in page
    assert f"Version {cff['version']}, released {cff['date-released']}" in page


def test_reference_lists_are_labelled_as_the_text_cites():
    """One citation style: every entry of references.bib gets an author-year label, "Chapelle
    and Vapnik, 1999" as the chapters cite it, unique over the file and free of LaTeX."""
    import sys

    import pybtex.database

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from citation_style import author_year_labels

    entries = list(pybtex.database.parse_file(ROOT / "book" / "references.bib").entries.values())
    labels = author_year_labels(entries)
    assert len(set(labels)) == len(labels)
    assert not [label for label in labels if set(label) & set('{}\\"')]
    by_key = dict(zip((entry.key for entry in entries), labels, strict=True))
    assert by_key["chapelle1999model"] == "Chapelle and Vapnik, 1999"
    assert by_key["saunders1999transduction"] == "Saunders et al., 1999"
    assert by_key["scholkopf2002learning"] == "Schölkopf and Smola, 2002"
