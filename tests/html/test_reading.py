"""What a reader sees in the built HTML: mathematics rendered, one copy of every script, one
search field, the status in words, the wide tables scrolling, no orphan pages."""

import re

from bs4 import BeautifulSoup

#: TeX that should have been rendered: a control word (\alpha), an escaped brace or spacing
#: command, a dollar sign opening maths (not a price), or a sub- or superscript group.
RAW_TEX = re.compile(r"\\[A-Za-z]{2,}|\\[{}|,;!]|\$(?=[A-Za-z\\{])|[_^]\{")

#: What is not prose: rendered maths, code and program output, scripts, navigation.
NOT_PROSE = (
    "script, style, noscript, title, pre, code, div.highlight, .math, .MathJax, "
    ".cell_output, nav, .bd-search"
)


def _soup(page):
    return BeautifulSoup(page.read_text(encoding="utf-8"), "lxml")


def raw_tex(soup) -> list[str]:
    """The places on a parsed page where TeX shows as text outside rendered mathematics: the
    text of its ``main`` (of the page when it has none), leaving out what is not prose. The
    page is left as it is (it is shared by the other checks)."""
    hidden = set()
    for tag in soup.select(NOT_PROSE):
        hidden.add(id(tag))
        hidden.update(map(id, tag.descendants))
    main = next((tag for tag in soup.select("main") if id(tag) not in hidden), soup)
    text = " ".join(string for string in main.strings if id(string) not in hidden)
    return [text[max(0, m.start() - 40) : m.end() + 20] for m in RAW_TEX.finditer(text)]


def test_raw_tex_detector_sees_a_broken_proof(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        "<main><p>If <span class='math'>\\(x\\)</span> then $\\alpha_i [y_i f(x_i)</p>"
        "<ul><li>1 + \\xi_i] = 0$</li></ul></main>"
    )
    assert raw_tex(_soup(page))
    page.write_text("<main><p>Costs $5 and <span class='math'>\\(\\alpha_{i}\\)</span>.</p></main>")
    assert raw_tex(_soup(page)) == []


def test_no_raw_tex_outside_mathematics(html_dir, pages, soup):
    found = {page.relative_to(html_dir).as_posix(): raw_tex(soup(page)) for page in pages}
    found = {name: hits[:3] for name, hits in found.items() if hits}
    assert not found, found


def test_every_inline_script_once_per_page(html_dir, pages, soup):
    repeated = {}
    for page in pages:
        bodies = [s.get_text() for s in soup(page).find_all("script") if not s.get("src")]
        twice = {body[:60] for body in bodies if body.strip() and bodies.count(body) > 1}
        if twice:
            repeated[page.relative_to(html_dir).as_posix()] = sorted(twice)
    assert not repeated, repeated
    svm = (html_dir / "book" / "svm.html").read_text(encoding="utf-8")
    assert svm.count("const THEBE_JS_URL") == 1


def test_one_search_field_per_page(pages, soup):
    for page in pages:
        header = soup(page).select_one("#pst-header")
        if header is not None:
            assert not header.select(".search-button-field, .search-button"), page.name


def test_status_page_says_status_in_words(html_dir, soup):
    table = soup(html_dir / "book" / "status.html").select_one("main table")
    text = table.get_text(" ")
    assert "succeeded" in text
    assert "\N{WHITE HEAVY CHECK MARK}" not in text and "\N{CROSS MARK}" not in text


def test_wide_tables_scroll_with_their_key_column(html_dir, pages):
    css = (html_dir / "_static" / "book.css").read_text(encoding="utf-8")
    assert "overflow-x: auto" in css and "position: sticky" in css
    chapters = [p for p in pages if p.parent.name == "book"]
    unlinked = [p.name for p in chapters if "_static/book.css" not in p.read_text(encoding="utf-8")]
    assert not unlinked, unlinked


def test_no_orphan_index_pages(html_dir, pages):
    """The general index (the glossary's terms, book/glossary.md) and the index of statements
    are built and each is linked from a page of the book."""
    for index, what in (
        ("genindex.html", "the general index"),
        ("prf-prf.html", "the proof index"),
    ):
        assert (html_dir / index).exists(), f"{what} is not built"
        linked = [p.name for p in pages if f'href="../{index}' in p.read_text(encoding="utf-8")]
        assert linked, f"{what} is linked from no page"


def test_statements_are_numbered_per_chapter(html_dir, soup):
    """Theorems, algorithms, exercises and figures carry the chapter's number ("Theorem 7.2"),
    so the book's numbers never read as a paper's ("Theorem 9 of Bartlett")."""
    prefixes = {}
    for name in ("svm", "transduction", "tcm_nn", "span", "nonconformity_selection", "discrepancy"):
        page = soup(html_dir / "book" / f"{name}.html")
        numbers = [span.get_text().split()[-1] for span in page.select("span.caption-number")]
        assert numbers, name
        chapters = {number.split(".")[0] for number in numbers if "." in number}
        assert len(chapters) == 1 and all("." in n for n in numbers), (name, numbers)
        prefixes[name] = chapters.pop()
    assert len(set(prefixes.values())) == len(prefixes), prefixes


def test_every_figure_has_a_numbered_caption_and_alt_text(html_dir, pages, soup):
    """Each image of a chapter sits in a numbered figure ("Fig. 5.2") with a caption, and its
    alt text says what it shows (not the image's file name or hash)."""
    problems = []
    for page in (p for p in pages if p.parent.name == "book"):
        for img in soup(page).select("main img"):
            figure = img.find_parent("figure")
            alt = (img.get("alt") or "").strip()
            number = figure.select_one("figcaption .caption-number") if figure else None
            text = figure.select_one("figcaption .caption-text") if figure else None
            if number is None or text is None or len(text.get_text(strip=True)) < 20:
                problems.append(f"{page.name}: {img.get('src')} has no numbered caption")
            if len(alt) < 15 or re.search(r"[0-9a-f]{16}|\.png$", alt):
                problems.append(f"{page.name}: {img.get('src')} alt text {alt[:40]!r}")
    assert not problems, problems


def test_api_reference_documents_every_module(html_dir, soup):
    """The API reference is generated from the docstrings and covers every module, one page
    per module, with the estimators and their inherited methods on a page of their own."""
    import svmtrust

    pages = [html_dir / "book" / "api.html", *sorted((html_dir / "book" / "api").glob("*.html"))]
    soups = [soup(page) for page in pages]
    documented = {
        tag["id"].removeprefix("module-")
        for parsed in soups
        for tag in parsed.select('[id^="module-svmtrust"]')
    }
    modules = {"svmtrust"} | {
        f"svmtrust.{name}" for name in re.findall(r":mod:`~svmtrust\.(\w+)`", svmtrust.__doc__)
    }
    assert modules <= documented, modules - documented
    assert sum(len(parsed.select("dl.py.function")) for parsed in soups) >= 50  # with docstrings
    estimators = soup(html_dir / "book" / "api" / "estimators.html").get_text(" ")
    for name in ("TransductiveSVM", "DistanceTCM", "SplitConformalSVM", "TCMNearestNeighbours"):
        assert name in estimators
    # The inherited conformal methods are shown with each estimator.
    assert estimators.count("predict_set") >= 4 and estimators.count("predict_p") >= 4
    intro = (html_dir / "book" / "intro.html").read_text(encoding="utf-8")
    assert 'href="api.html"' in intro


def test_index_of_statements_gives_numbers_and_titles(html_dir, soup):
    """The index of statements names each entry as the chapters do, "Theorem 8.1 (...)",
    grouped by chapter, never by its bare label (md-thm-flip)."""
    main = soup(html_dir / "prf-prf.html").select_one("main")
    entries = [a.get_text(" ", strip=True) for a in main.select("table a")]
    assert len(entries) > 30, entries
    named = re.compile(
        r"^(Theorem|Lemma|Proposition|Definition|Algorithm|Corollary|Remark"
        r"|Example|Assumption|Conjecture|Criterion|Observation|Property|Axiom)"
        r" \d+\.\d+"
    )
    assert all(named.match(entry) for entry in entries), [e for e in entries if not named.match(e)]
    assert "7. Model selection with the span of support vectors" in main.get_text(" ")
