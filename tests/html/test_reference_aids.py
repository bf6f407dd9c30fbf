"""The book's reference aids: the glossary (book/glossary.md), the general index in the HTML
(genindex.html) and the PDF (\\printindex), the PDF's one bibliography and its index of
statements, grouped by type and set in the body font.

The HTML checks need a build (``make book``), the PDF checks ``make pdf``; without one they are
skipped, or fail under REQUIRE_HTML=1 / REQUIRE_PDF=1, as the other files of this folder do.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from .built import require_built

ROOT = Path(__file__).resolve().parents[2]
LATEX = ROOT / "_build" / "latex"
TEX = LATEX / "trusting-svm.tex"
PDF = LATEX / "trusting-svm.pdf"

#: Terms the chapters use that the glossary must define (issue 54, item 7).
REQUIRED = (
    "strangeness",
    "nonconformity measure",
    "p-value (conformal)",
    "smoothed p-value",
    "Hardoon's convention",
    "significance level",
    "prediction region",
    "confidence",
    "credibility",
    "forced prediction",
    "validity",
    "efficiency",
    "observed fuzziness",
    "Mondrian p-value",
    "label-conditional p-value",
    "transductive conformal prediction",
    "split conformal prediction",
    "inductive conformal prediction",
    "cross-conformal prediction",
    "calibration set",
    "TCM-NN",
    "span of a support vector",
    "span rule",
    "radius-margin bound",
    "rescaling",
    "maximal discrepancy",
    "bounded-w formulation",
    "canonical optimum",
    "exact certificate",
    "accurate certificate",
    "tie rule",
    "one-vs-rest",
    "hard margin",
    "soft margin",
    "support vector",
    "free support vector",
    "bounded support vector",
)


def _plain(text: str) -> str:
    """Text as typed: typographic apostrophes and spaces back to ASCII, runs of space as one."""
    text = text.replace("\u2019", "'").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def _glossary_source_terms() -> list[str]:
    """The terms of the ``{glossary}`` block of book/glossary.md: its unindented lines."""
    text = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"```\{glossary\}\n(.*?)\n```", text, flags=re.S).group(1)
    return [
        line.strip()
        for line in block.splitlines()
        if line.strip() and not line.startswith((" ", ":"))
    ]


def test_the_glossary_defines_the_terms_the_chapters_use():
    terms = _glossary_source_terms()
    missing = [term for term in REQUIRED if term not in terms]
    assert not missing, missing
    assert len(terms) == len(set(terms)), sorted(t for t in terms if terms.count(t) > 1)


def test_the_glossary_comes_before_the_bibliography_in_the_table_of_contents():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [chapter["file"] for part in toc["parts"] for chapter in part["chapters"]]
    assert files[-2:] == ["book/glossary", "book/bibliography"], files[-3:]


def test_the_general_index_is_built():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["sphinx"]["config"]["html_use_index"] is True


def _glossary_terms(html_dir: Path, soup) -> dict[str, str]:
    """The glossary page's terms, by their anchor."""
    page = soup(html_dir / "book" / "glossary.html")
    terms = {}
    for term in page.select("dl.glossary dt[id]"):
        text = "".join(
            piece
            for piece in term.find_all(string=True)
            if not piece.find_parent("a", class_="headerlink")
        )
        terms[term["id"]] = _plain(text)
    return terms


def test_every_glossary_term_is_an_entry_of_the_general_index(html_dir, soup):
    terms = _glossary_terms(html_dir, soup)
    assert len(terms) >= len(REQUIRED), sorted(terms.values())
    index = soup(html_dir / "genindex.html")
    entries = {}
    for link in index.select('a[href*="glossary.html#term-"]'):
        entries[link["href"].split("#", 1)[1]] = _plain(link.get_text(" "))
    missing = {anchor: term for anchor, term in terms.items() if anchor not in entries}
    assert not missing, missing
    # The library's objects are not entries (their names made the page scroll on a phone).
    api = [a["href"] for a in index.select('table.indextable a[href*="book/api"]')]
    assert not api, api[:5]
    assert all(entries[anchor] == term for anchor, term in terms.items()), [
        (entries[anchor], term) for anchor, term in terms.items() if entries[anchor] != term
    ]


def test_the_general_index_is_reachable_from_the_glossary(html_dir):
    page = (html_dir / "book" / "glossary.html").read_text(encoding="utf-8")
    assert 'href="../genindex.html"' in page


def test_every_link_of_the_glossary_lands_on_an_anchor(html_dir, soup):
    """Each definition links to the chapter, section or statement that defines the term: the
    file exists and carries the anchor (a heading renamed in a chapter breaks its link)."""
    page = soup(html_dir / "book" / "glossary.html")
    broken, checked = [], 0
    for link in page.select("main dl.glossary a.reference.internal[href]"):
        path, _, anchor = link["href"].partition("#")
        target = (
            (html_dir / "book" / path).resolve() if path else html_dir / "book" / "glossary.html"
        )
        if not target.is_file():
            broken.append(link["href"])
            continue
        if anchor:
            checked += 1
            if f'id="{anchor}"' not in target.read_text(encoding="utf-8"):
                broken.append(link["href"])
    assert not broken, broken
    assert checked >= 30, checked


def _tex() -> str:
    return require_built(TEX, "LaTeX source", "make pdf").read_text(encoding="utf-8")


def test_the_pdf_has_one_bibliography_and_no_empty_bibliography_chapter():
    """The LaTeX writer gathers the citations at the end under a heading of its own; the page
    book/bibliography.md must not add a chapter with only its title before it."""
    tex = _tex()
    assert tex.count(r"\begin{sphinxthebibliography}") == 1
    assert r"\chapter{Bibliography}" not in tex
    # The page's label ({doc}`bibliography` in the introduction) is on the list itself.
    start = tex.index(r"\begin{sphinxthebibliography}")
    assert r"\label{\detokenize{book/bibliography::doc}}" in tex[start - 400 : start]


def test_the_pdf_prints_the_general_index_with_the_glossary_terms():
    tex = _tex()
    assert r"\printindex" in tex.split(r"\begin{document}", 1)[1]
    indexed = {
        _plain(key.replace(r"\sphinxhyphen{}", "-")) for key in re.findall(r"\\index\{(.*?)@", tex)
    }
    missing = [term for term in REQUIRED if term not in indexed]
    assert not missing, missing
    # The API reference's objects stay out of the PDF's index (their pages list them).
    assert not [term for term in indexed if term.startswith("svmtrust") or "()" in term]


def test_the_pdf_index_of_statements_is_grouped_by_type_in_the_body_font():
    tex = _tex()
    start = tex.index(r"\renewcommand{\indexname}{Index of statements}")
    block = tex[start : tex.index(r"\end{sphinxtheindex}", start)]
    groups = re.findall(r"\\bigletter\{([^}]*)\}", block)
    assert groups[:2] == ["Definitions", "Theorems"], groups
    assert "Algorithms" in groups and len(groups) == len(set(groups)), groups
    for group, body in zip(groups, re.split(r"\\bigletter\{[^}]*\}", block)[1:], strict=True):
        names = re.findall(r"\\sphinxstyleindexentry\{(\w+)", body)
        assert names and {f"{name}s" for name in names} == {group}, (group, names)
    # Entries in the body font: the preamble redefines Sphinx's typewriter entry style.
    preamble = tex.split(r"\begin{document}", 1)[0]
    assert re.search(r"\\def\\sphinxstyleindexentry#1\{\\ifx\\indexname", preamble)


def test_the_pdf_index_pages_list_the_glossary_terms():
    require_built(PDF, "PDF", "make pdf")
    text = subprocess.run(
        ["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    # The general index is the last thing in the book; its pages hold the terms.
    start = max(i for i, page in enumerate(pages) if re.search(r"^\s*Index\s*$", page, re.M | re.I))
    tail = _plain(" ".join(pages[start:]))
    missing = [
        term
        for term in ("span rule", "observed fuzziness", "canonical optimum")
        if term not in tail
    ]
    assert not missing, missing
