"""The PDF of the book (``make pdf``) and its link from the HTML book.

The PDF checks need a PDF: under ``REQUIRE_PDF=1`` (``make test`` builds it first) a missing one
fails; otherwise they are skipped with the command that builds it. The HTML never links a PDF
that is not there, with or without one.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import yaml

from .built import require_built

ROOT = Path(__file__).resolve().parents[2]
LATEX = ROOT / "_build" / "latex"
NAME = "trusting-svm"

sys.path.insert(0, str(ROOT / "tools"))
import handout_tex  # noqa: E402
import latex_log  # noqa: E402


def _built(path: Path, command: str) -> Path:
    """``path``, or a failure (REQUIRE_PDF=1) or skip that says how to build it."""
    return require_built(path, "PDF", command, " (it needs TeX Live, see README.md)")


@pytest.fixture(scope="module")
def pdf() -> Path:
    """The built PDF, or a failure (REQUIRE_PDF=1) or skip that says how to build it."""
    return _built(LATEX / f"{NAME}.pdf", "make pdf")


@pytest.fixture(scope="module")
def handout() -> Path:
    """The handout without solutions (``make pdf SOLUTIONS=0``), as :func:`pdf`."""
    return _built(LATEX / f"{NAME}-handout.pdf", "make pdf SOLUTIONS=0")


def test_the_pdf_name_is_the_latex_target():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["latex"]["latex_documents"]["targetname"] == f"{NAME}.tex"


def test_no_page_links_a_missing_pdf(html_dir, pages, soup):
    """With or without a PDF, every link to one resolves to a file of the HTML book."""
    dangling = []
    for page in pages:
        for link in soup(page).select("a[href$='.pdf']"):
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
    """The last XeLaTeX run's log has no problem, and the PDF has every page that run typeset
    (latexmk -xelatex: XeLaTeX writes an .xdv, which xdvipdfmx turns into the PDF)."""
    log = pdf.with_suffix(".log").read_text(encoding="utf-8", errors="replace")
    assert latex_log.problems(log) == []
    typeset = int(re.search(rf"Output written on {NAME}\.xdv \((\d+) pages", log).group(1))
    assert typeset > 200, typeset
    assert int(_info(pdf)["Pages"]) == typeset


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


def _html_numbers(html_dir: Path, soup) -> dict[str, str]:
    """Every numbered equation and statement of the chapters, by anchor: "(6.4)", "6.2"
    (``soup``: the session's parser of pages)."""
    numbers = {}
    for page in sorted((html_dir / "book").glob("*.html")):
        parsed = soup(page)
        for math in parsed.select("div.math[id^=equation-]"):
            label = math.select_one(".eqno")
            if label is not None:
                numbers[f"{page.stem}:{math['id']}"] = label.get_text().replace("#", "").strip()
        for statement in parsed.select("div.proof[id], div.admonition[id]"):
            title = statement.select_one(".admonition-title")
            found = re.search(r"\b(\d+\.\d+)\b", title.get_text()) if title else None
            if found:
                numbers[f"{page.stem}:{statement['id']}"] = found.group(1)
    return numbers


def test_numbering_matches_the_html(pdf, html_dir, soup):
    """Each equation and statement carries in the PDF the number it has in the HTML book:
    equations as LaTeX numbers them (the .aux file), statements and exercises as sphinx-proof
    and sphinx-exercise title them in the .tex."""
    aux = pdf.with_suffix(".aux").read_text(encoding="utf-8", errors="replace")
    tex = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    labels = dict(re.findall(r"\\newlabel\{([^}]+)\}\{\{([^}]*)\}", aux))
    html = _html_numbers(html_dir, soup)
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


def _poppler(tool: str, *args) -> str:
    """The output of a poppler tool (``pdfinfo``, ``pdftotext``), installed with TeX Live by
    ``make pdf`` (Debian package poppler-utils)."""
    try:
        done = subprocess.run([tool, *map(str, args)], capture_output=True, check=True)
    except FileNotFoundError:
        pytest.fail(f"{tool} is missing: install poppler-utils (make pdf installs it as root)")
    return done.stdout.decode("utf-8", errors="replace")


def _info(path: Path) -> dict[str, str]:
    """pdfinfo's fields, by name."""
    lines = _poppler("pdfinfo", "-enc", "UTF-8", path).splitlines()
    return {
        key.strip(): value.strip()
        for key, value in (line.split(":", 1) for line in lines if ":" in line)
    }


def _letters(text: str) -> str:
    """Only the letters, in lower case: text compared across line breaks, hyphenation,
    ligatures ("\ufb01" is "fi") and markup."""
    return re.sub(r"[^a-z]", "", unicodedata.normalize("NFKC", text).lower())


def _build_sentence(html_dir: Path, soup) -> str:
    """What the HTML introduction says about the build (``{book-build}``)."""
    found = soup(html_dir / "book" / "intro.html").select_one("p.book-build")
    assert found is not None, "the introduction has no {book-build} sentence"
    return " ".join(found.get_text().split())


@pytest.mark.parametrize("which", ["pdf", "handout"])
def test_metadata_and_title_page_name_the_release_and_the_build(which, request, html_dir, soup):
    """pdfinfo gives the book's title and authors, and as subject the sentence the HTML
    introduction gives about this build (version, release, build commit); the title page
    carries the same sentence."""
    path = request.getfixturevalue(which)
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    info = _info(path)
    assert info["Title"] == cff["title"]
    assert info["Author"] == ", ".join(author["name"] for author in cff["authors"])
    sentence = _build_sentence(html_dir, soup)
    assert " ".join(info["Subject"].split()) == sentence
    assert f"version {cff['version']}, released {cff['date-released']}" in sentence
    assert re.search(r"commit [0-9a-f]{40}", sentence), sentence
    first_page = _poppler("pdftotext", "-f", "1", "-l", "1", path, "-")
    assert _letters(sentence) in _letters(first_page)
    assert ("Handout" in first_page) == (which == "handout")


def _blocks(kind: str) -> list[str]:
    """The text of every ``{exercise}`` or ``{solution}`` of the chapters, fenced or gated
    (``solution-start`` ... ``solution-end``)."""
    texts = []
    for chapter in sorted((ROOT / "book").glob("*.ipynb")):
        cells = json.loads(chapter.read_text(encoding="utf-8"))["cells"]
        source = "\n".join(
            "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"
        )
        fenced = rf"(`{{3,}})\{{{kind}\}}[^\n]*\n(.*?)\n\1"
        texts += [match.group(2) for match in re.finditer(fenced, source, flags=re.S)]
        if kind == "solution":
            gated = r"\{solution-start\}.*?\n`{3,}\n(.*?)`{3,}\{solution-end\}"
            texts += [match.group(1) for match in re.finditer(gated, source, flags=re.S)]
    return texts


def _phrase(text: str) -> str | None:
    """The start of the longest run of six or more plain words of a block: no maths, roles,
    code or options, which the PDF renders differently."""
    text = re.sub(r"^:\w[\w-]*:.*$", "|", text, flags=re.M)
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|\{\w+(?::\w+)*\}`[^`]*`|`[^`]*`", "|", text, flags=re.S)
    text = re.sub(r"[*_]", "", text)
    runs = [
        run.strip() for run in re.split(r"[|()\[\]{}:;\"]|\n\s*\n|\n\s*[-+*] |\n\s*\d+\. ", text)
    ]
    runs = [run.split() for run in runs if len(run.split()) >= 6]
    # its first eight words: a longer run is more often cut by a page break
    return " ".join(max(runs, key=len)[:8]) if runs else None


def test_the_handout_has_the_exercises_and_none_of_the_solutions(pdf, handout):
    """Every exercise is in both PDFs, under the same number; every solution, title and text,
    is in the book's PDF and none is in the handout's (pdftotext). A block's text is found by
    its longest run of plain words; a few runs that the maths around them or a page break
    scramble in the text layer may be missed, not more, and no solution's may be found in the
    handout (where a run recurs elsewhere, the handout has it once fewer)."""
    exercises, solutions = _blocks("exercise"), _blocks("solution")
    assert len(exercises) >= 30 and len(solutions) == len(exercises), (
        len(exercises),
        len(solutions),
    )
    book = _poppler("pdftotext", "-layout", pdf, "-")
    leaflet = _poppler("pdftotext", "-layout", handout, "-")
    numbers = re.compile(r"Exercise\s+(\d+\.\d+)")
    assert len(set(numbers.findall(leaflet))) == len(exercises)
    assert set(numbers.findall(leaflet)) == set(numbers.findall(book))
    titles = re.compile(r"Solution to\s+Exercise\s+\d+\.\d+")
    assert len(titles.findall(book)) == len(solutions)
    assert titles.findall(leaflet) == []
    book, leaflet = _letters(book), _letters(leaflet)
    exercise_runs = [_letters(run) for run in map(_phrase, exercises) if run]
    solution_runs = [_letters(run) for run in map(_phrase, solutions) if run]
    assert len(exercise_runs) == len(exercises) and len(solution_runs) == len(solutions)
    exercises_in_book = [run for run in exercise_runs if run in book]
    assert len(exercises_in_book) >= 0.9 * len(exercise_runs), "the pattern is wrong"
    assert len([run for run in exercises_in_book if run in leaflet]) >= 0.9 * len(exercise_runs)
    solutions_in_book = [run for run in solution_runs if run in book]
    assert len(solutions_in_book) >= 0.9 * len(solution_runs)
    # a run may recur elsewhere in the book: the handout has it once fewer, at least
    leaked = [run for run in solutions_in_book if leaflet.count(run) >= book.count(run)]
    assert not leaked, leaked


#: The mark LaTeX sets at the start of the continuation of a code or output line too long for the
#: page (Sphinx's ``\sphinxafterbreak``, a hooked arrow; pdftotext gives it as U+21AA).
CONTINUED = "\u21aa"
#: The end of a line that stops inside a number: digits and a decimal point ("0.", "12."), or a
#: mantissa and its exponent's sign ("2.4e-"), not preceded by a letter, digit or point (an
#: identifier such as ``x2.`` or a version such as ``1.2.`` is no number cut in two).
_CUT_END = re.compile(r"(?<![\w.])[-+]?\d+(?:\.|\.\d*[eE][-+]?|[eE][-+]?)$")
#: The start of a continued line that goes on with the number's digits.
_CUT_START = re.compile(rf"^\s*{CONTINUED}\s*\d")


def split_numbers(text: str) -> list[str]:
    """The places in pdftotext's text (``-layout``) where a number is broken across two lines:
    a line ending inside a number (:data:`_CUT_END`) whose next line is the continuation of the
    same code or output line (it starts with :data:`CONTINUED`) and goes on with digits.

    Prose never matches: LaTeX does not break a paragraph inside a number, and a paragraph's
    next line carries no continuation mark, so a sentence ending in a number ("in 2017.") or a
    numbered step ("1." then "2. While") is not a split; an equation number is set in
    parentheses, "(2.3)".
    """
    lines = text.splitlines()
    return [
        f"{first.strip()[-40:]} | {second.strip()[:40]}"
        for first, second in zip(lines, lines[1:])
        if _CUT_END.search(first.rstrip()) and _CUT_START.match(second)
    ]


def test_split_numbers_catches_a_cut_number_and_passes_prose():
    cut = (
        "  data       Distance TCM  Split  0.\n"
        "  \u21aa031  0.443\n"
        "  ratio 2.4e-\n"
        "  \u21aa05 outside\n"
        "  -1.\n"
        "   \u21aa5\n"
    )
    assert len(split_numbers(cut)) == 3
    prose = (
        "The error was 0.12 in 2017.\n"
        "3 of the 11 data sets agree (2.3)\n"
        "  1. Start with alpha = 0.\n"
        "  2. While g < 0:\n"
        "print(x2.\n"
        "\u21aa3)\n"
        "C = 1: alpha = [0. 1.], p-values = [1.   0.12]; 2\n"
        "\u21aahas no solution\n"
        "version 1.2.\n"
        "\u21aa3 of the book\n"
    )
    assert split_numbers(prose) == []


def test_no_number_is_split_across_lines(pdf):
    """No number in the PDF is cut in two by the wrapping of a long code or output line
    ("0." at the end of one line, "\u21aa031" at the start of the next)."""
    found = split_numbers(_poppler("pdftotext", "-layout", pdf, "-"))
    assert not found, f"{len(found)} numbers split across lines: {found}"


#: A book's LaTeX source in miniature, with the marks of book/_ext/latex_marks.py.
_MARKED = (
    "\\begin{titlepage}\n"
    f"{handout_tex.HANDOUT_TITLE_MARK}{handout_tex.HANDOUT_TITLE}\n"
    "\\end{titlepage}\n"
    "\\begin{sphinxadmonition}{note}{Exercise 1.1}\nAsk.\n\\end{sphinxadmonition}\n"
    f"\n{handout_tex.SOLUTION_BEGIN}\n"
    "\\begin{sphinxadmonition}{note}{Solution to Exercise 1.1}\nAnswer.\n"
    "\\end{sphinxadmonition}\n"
    f"\n{handout_tex.SOLUTION_END}\n"
    "After.\n"
)


def test_the_handout_source_cuts_every_marked_solution_and_nothing_else():
    cut = handout_tex.handout(_MARKED)
    assert cut == (
        "\\begin{titlepage}\n"
        f"{handout_tex.HANDOUT_TITLE}\n"
        "\\end{titlepage}\n"
        "\\begin{sphinxadmonition}{note}{Exercise 1.1}\nAsk.\n\\end{sphinxadmonition}\n"
        "After.\n"
    )
    with pytest.raises(ValueError, match="do not pair up"):
        handout_tex.handout(_MARKED.replace(handout_tex.SOLUTION_END, "%"))
    with pytest.raises(ValueError, match="marks no solution"):
        handout_tex.handout(_MARKED.split(f"\n{handout_tex.SOLUTION_BEGIN}")[0])
    with pytest.raises(ValueError, match="handout title"):
        handout_tex.handout(_MARKED.replace(handout_tex.HANDOUT_TITLE_MARK, ""))


def test_the_handout_source_is_the_books_without_its_solutions(pdf, handout):
    """The handout's LaTeX source is the book's with every solution cut (one mark pair per
    solution of the chapters) and the handout's title page, the rest byte for byte."""
    book = pdf.with_suffix(".tex").read_text(encoding="utf-8")
    assert book.count(handout_tex.SOLUTION_BEGIN) == len(_blocks("solution"))
    assert handout.with_suffix(".tex").read_text(encoding="utf-8") == handout_tex.handout(book)
