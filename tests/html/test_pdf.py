"""The PDF of the book (``make pdf``) and its link from the HTML book.

The PDF checks need a PDF: under ``REQUIRE_PDF=1`` (``make test`` builds it first) a missing one
fails; otherwise they are skipped with the command that builds it. The HTML never links a PDF
that is not there, with or without one.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[2]
LATEX = ROOT / "_build" / "latex"
NAME = "trusting-svm"

sys.path.insert(0, str(ROOT / "tools"))
import latex_log  # noqa: E402


@pytest.fixture(scope="module")
def pdf() -> Path:
    """The built PDF, or a failure (REQUIRE_PDF=1) or skip that says how to build it."""
    path = LATEX / f"{NAME}.pdf"
    if not path.is_file():
        message = f"no PDF at {path}: run `make pdf` (it needs TeX Live, see README.md)"
        if os.environ.get("REQUIRE_PDF") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def test_the_pdf_name_is_the_latex_target():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["latex"]["latex_documents"]["targetname"] == f"{NAME}.tex"


def test_no_page_links_a_missing_pdf(html_dir, pages):
    """With or without a PDF, every link to one resolves to a file of the HTML book."""
    dangling = []
    for page in pages:
        for link in _soup(page).select("a[href$='.pdf']"):
            if not (page.parent / link["href"]).resolve().is_file():
                dangling.append(f"{page.name}: {link['href']}")
    assert not dangling, dangling
    run = (html_dir / "book" / "run.html").read_text(encoding="utf-8")
    built = (LATEX / f"{NAME}.pdf").is_file()
    assert (f'href="../{NAME}.pdf"' in run) == built
    assert ("builds one and links it here" in run) == (not built)


def test_the_html_links_the_pdf_it_carries(pdf, html_dir):
    copy = html_dir / pdf.name
    assert copy.read_bytes() == pdf.read_bytes(), "the HTML book carries another PDF"
    for page in ("intro", "run"):
        html = (html_dir / "book" / f"{page}.html").read_text(encoding="utf-8")
        assert f'href="../{pdf.name}"' in html, page


def test_the_log_is_clean_and_the_book_is_whole(pdf):
    log = pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert latex_log.problems(log) == []
    pages = int(re.search(rf"Output written on {NAME}\.pdf \((\d+) pages", log).group(1))
    assert pages > 200, pages


def test_a4_title_page_with_version_date_and_bibtex(pdf):
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    assert "a4paper" in tex.split(r"\begin{document}")[0]
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    title_page = tex[tex.index(r"\begin{titlepage}") : tex.index(r"\end{titlepage}")]
    assert f"Version {cff['version']}, released {cff['date-released']}" in title_page
    bibtex = re.search(
        r"```bibtex\n(.*?)```", (ROOT / "book" / "intro.md").read_text(encoding="utf-8"), re.S
    ).group(1)
    assert bibtex.strip() in title_page


def _html_numbers(html_dir: Path) -> dict[str, str]:
    """Every numbered equation and statement of the chapters, by anchor: "(6.4)", "6.2"."""
    numbers = {}
    for page in sorted((html_dir / "book").glob("*.html")):
        soup = _soup(page)
        for math in soup.select("div.math[id^=equation-]"):
            label = math.select_one(".eqno")
            if label is not None:
                numbers[f"{page.stem}:{math['id']}"] = label.get_text().replace("#", "").strip()
        for statement in soup.select("div.proof[id], div.admonition[id]"):
            title = statement.select_one(".admonition-title")
            found = re.search(r"\b(\d+\.\d+)\b", title.get_text()) if title else None
            if found:
                numbers[f"{page.stem}:{statement['id']}"] = found.group(1)
    return numbers


def test_numbering_matches_the_html(pdf, html_dir):
    """Each equation and statement carries in the PDF the number it has in the HTML book:
    equations as LaTeX numbers them (the .aux file), statements and exercises as sphinx-proof
    and sphinx-exercise title them in the .tex."""
    aux = pdf.with_suffix(".aux").read_text(encoding="utf-8", errors="replace")
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    labels = dict(re.findall(r"\\newlabel\{([^}]+)\}\{\{([^}]*)\}", aux))
    html = _html_numbers(html_dir)
    assert sum(":equation-" in key for key in html) > 50, len(html)
    assert sum(":equation-" not in key for key in html) > 30, len(html)
    differ = {}
    for key, number in html.items():
        page, anchor = key.split(":", 1)
        if anchor.startswith("equation-"):
            pdf_number = labels.get(f"equation:book/{page}:{anchor.removeprefix('equation-')}")
        else:
            title = re.search(
                rf"\\label\{{(?:book/{page}|exercise):{re.escape(anchor)}\}}\s*"
                r"\\begin\{sphinxadmonition\}\{\w+\}\{[^{}]*?(\d+(?:\.\d+)+)",
                tex,
            )
            pdf_number = title.group(1) if title else None
        if pdf_number is None or pdf_number.strip("()") != number.strip("()"):
            differ[key] = (number, pdf_number)
    assert not differ, differ
