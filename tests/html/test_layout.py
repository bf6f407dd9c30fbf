"""The built pages in a real browser: no display equation and no cell output is wider than its
box on a laptop screen (1280 px), no display equation on A4 paper (the page printed from the
browser), no page scrolls sideways on a phone (400 px), and there no equation runs under its
number.

The theme sets a display's number beside it in one row; at 400 px the equation then had too
little width and ran under the number on 45 of 63 numbered displays. ``book.css`` gives the
number its own line on narrow screens; the check compares the box of each number with the box
of its typeset equation (unclipped: the part that would scroll counts).

MathJax typesets the equations only in a browser, so these checks drive a headless Chromium
(``tests/html/browser.py``). Without Chromium they fail under ``REQUIRE_HTML=1`` (``make
html-check``, which installs it first when run as root) and are skipped otherwise, with the
command that installs it.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from .browser import Browser, find_chromium

#: Width of a laptop screen, in CSS pixels.
SCREEN = 1280
#: Width of a phone screen, in CSS pixels.
PHONE = 400
#: CSS pixels per millimetre (96 per inch).
PX_PER_MM = 96 / 25.4

#: Everything folded away (solutions, dropdowns) is unfolded before measuring, so that every
#: equation is laid out; then, for each display, the width it needs and the width it has (none
#: on a page without MathJax).
MEASURE = """(() => {
  if (!(window.MathJax && MathJax.startup && MathJax.startup.document)) return [];
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const items = MathJax.startup.document;
  return [...document.querySelectorAll('mjx-container[display="true"]')].map(c => {
    const math = c.querySelector('mjx-math');
    const item = items.getMathItemsWithin(c)[0];
    const box = c.closest('.math') || c.parentElement;
    const label = box.querySelector('.eqno');
    return {
      tex: item ? item.math.trim().replace(/\\s+/g, ' ').slice(0, 70) : '',
      number: label ? label.textContent.replace('#', '').trim() : '',
      need: Math.ceil(Math.max(c.scrollWidth, math ? math.getBoundingClientRect().width : 0)),
      have: c.clientWidth,
    };
  });
})()"""

#: Every output of every code cell, with everything folded away unfolded: each element inside it
#: that is wider than its own box (more than one pixel of rounding), and whether that element is
#: a table's own scrolling container (overflow-x auto or scroll, holding the table and nothing
#: else), the one overflow allowed: such a table scrolls inside its box, nothing else is hidden.
OUTPUTS = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  return [...document.querySelectorAll('.cell_output > .output')].map((box, index) => ({
    index,
    text: box.textContent.trim().replace(/\\s+/g, ' ').slice(0, 70),
    wide: [box, ...box.querySelectorAll('*')]
      .filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      .map(e => ({
        tag: e.tagName.toLowerCase(),
        need: e.scrollWidth,
        have: e.clientWidth,
        table: scrolls(e) && e.children.length === 1 && e.children[0].tagName === 'TABLE',
      })),
  }));
})()"""

#: Every number of the page's text standing alone (not part of a word, a DOI or a hash; outside
#: the mathematics, which MathJax sets, and scripts), with everything folded away unfolded: how
#: many were laid out, and those whose pieces sit on more than one line ("2.134e-" then "04").
NUMBERS = r"""(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest('script, style, .math, mjx-container')
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const number = /(?<![\w.\-\/\u2212&#])[-+\u2212]?\d+(?:\.\d+)?(?:[eE][-+\u2212]?\d+)?(?!\w)/g;
  const split = [];
  let laid_out = 0;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(number)) {
      if (m[0].length < 2) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
      if (!rects.length) continue;
      laid_out++;
      if (rects.some(r => r.top >= rects[0].bottom - 1)) {
        const owner = node.parentElement;
        split.push(owner.tagName.toLowerCase() + ': ' + m[0]);
      }
    }
  }
  return {laid_out, split};
})()"""

#: Every table box that scrolls sideways, scrolled to its end: whether the table's caption (its
#: title) is still inside the box, with the text of the captions that left it.
CAPTIONS = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const found = {scrolled: 0, lost: []};
  for (const caption of document.querySelectorAll('main table > caption')) {
    let box = caption.parentElement.parentElement;
    while (box && !(scrolls(box) && box.scrollWidth > box.clientWidth + 1)) box = box.parentElement;
    if (!box || box === document.scrollingElement || box.tagName === 'BODY') continue;
    const left = box.scrollLeft;
    box.scrollLeft = box.scrollWidth;
    const range = document.createRange();
    range.selectNodeContents(caption);
    const text = range.getBoundingClientRect(), view = box.getBoundingClientRect();
    found.scrolled++;
    if (text.left < view.left - 1 || text.right > view.left + box.clientWidth + 1)
      found.lost.push(caption.textContent.trim().slice(0, 60));
    box.scrollLeft = left;
  }
  return found;
})()"""

#: How far the page itself scrolls sideways.
PAGE_OVERFLOW = "document.scrollingElement.scrollWidth - window.innerWidth"

#: For each numbered display of the page: the number and whether its box meets the equation's.
OVERLAPS = """(() => {
  if (!(window.MathJax && MathJax.startup && MathJax.startup.document)) return [];
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
  return [...document.querySelectorAll('div.math')].flatMap(box => {
    const label = box.querySelector('.eqno'), math = box.querySelector('mjx-math');
    if (!label || !math) return [];
    const a = label.getBoundingClientRect(), b = math.getBoundingClientRect();
    return [{
      number: label.textContent.replace('#', '').trim(),
      laid_out: a.width > 0 && b.width > 0,
      across: Math.min(a.right, b.right) - Math.max(a.left, b.left),
      down: Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top),
    }];
  });
})()"""


def a4_text_width(css: str) -> int:
    """Width in CSS pixels of the text on an A4 page, from the stylesheet's ``@page`` rule
    (``size: A4`` and the left and right margins in millimetres)."""
    rule = re.search(r"@page\s*\{([^}]*)\}", css)
    assert rule and re.search(r"size:\s*A4\b", rule.group(1)), "book.css sets no A4 @page"
    margins = re.search(r"margin:\s*(\d+)mm\s+(\d+)mm", rule.group(1))
    assert margins, "book.css gives the @page margins as `margin: VERTICALmm HORIZONTALmm`"
    return int((210 - 2 * int(margins.group(2))) * PX_PER_MM)


def too_wide(displays: list[dict]) -> list[str]:
    """The displays that need more width than their box has (one pixel of rounding allowed);
    a display with no width at all was not laid out and counts as a failure too."""
    return [
        f"{d['number'] or 'unnumbered'} needs {d['need']} px, has {d['have']}: {d['tex']}"
        for d in displays
        if d["have"] == 0 or d["need"] > d["have"] + 1
    ]


def wide_outputs(outputs: list[dict]) -> list[str]:
    """The cell outputs that hide part of themselves: some element inside is wider than its
    box and is not a table's own scrolling container (a wide table may scroll inside its
    box); with how much of the widest such element is hidden."""
    found = []
    for output in outputs:
        cut = [e for e in output["wide"] if not e["table"]]
        if cut:
            worst = max(cut, key=lambda e: 1 - e["have"] / e["need"])
            hidden = 1 - worst["have"] / worst["need"]
            found.append(
                f"output {output['index']} ({worst['tag']} needs {worst['need']} px, has "
                f"{worst['have']}: {hidden:.0%} hidden): {output['text']}"
            )
    return found


def test_wide_outputs_allow_only_a_table_scrolling_in_its_own_box():
    fits = {"index": 0, "text": "a b", "wide": []}
    table = {"tag": "div", "need": 900, "have": 676, "table": True}
    pre = {"tag": "pre", "need": 900, "have": 676, "table": False}
    assert wide_outputs([fits, {**fits, "wide": [table]}]) == []
    assert len(wide_outputs([{**fits, "wide": [pre]}])) == 1
    # a scrolling table whose surroundings overflow as well is still cut
    assert len(wide_outputs([{**fits, "wide": [table, {**pre, "tag": "div"}]}])) == 1
    assert "25% hidden" in wide_outputs([{**fits, "wide": [{**pre, "need": 800, "have": 600}]}])[0]


def test_too_wide_sees_a_cut_equation_and_a_hidden_one():
    fits = {"tex": "a+b", "number": "(1.1)", "need": 40, "have": 600}
    assert too_wide([fits, {**fits, "need": 601}]) == []  # one pixel of rounding
    assert len(too_wide([{**fits, "need": 700}])) == 1
    assert len(too_wide([{**fits, "have": 0}])) == 1


def test_a4_text_width_reads_the_page_rule():
    assert a4_text_width("@page { size: A4; margin: 20mm 15mm; }") == 680
    with pytest.raises(AssertionError):
        a4_text_width("@page { size: letter; margin: 20mm 15mm; }")


def measure(browser, page, print_width: int) -> dict:
    """One page: its displays on a laptop screen and on A4 paper, its outputs on the screen,
    and on a phone how far it scrolls sideways and where its equation numbers sit.

    The page is opened from an empty one (``about:blank``): the laptop screen's window is then
    set while nothing is shown, instead of laying out the whole previous page at that width
    again, only to leave it (a seventh of the time of these measurements). MathJax typesets the
    page once; each width after the first is a new layout of the same typeset page."""
    browser.open("about:blank")
    browser.emulate(SCREEN)
    browser.open(page.as_uri())
    screen = browser.evaluate(MEASURE)
    outputs = browser.evaluate(OUTPUTS)
    digits = {SCREEN: browser.evaluate(NUMBERS)}
    captions = {SCREEN: browser.evaluate(CAPTIONS)}
    browser.emulate(print_width, media="print")
    paper = browser.evaluate(MEASURE)
    browser.emulate(PHONE)
    digits[PHONE] = browser.evaluate(NUMBERS)
    captions[PHONE] = browser.evaluate(CAPTIONS)
    return {
        "screen": screen,
        "print": paper,
        "phone": browser.evaluate(PAGE_OVERFLOW),
        "numbers": browser.evaluate(OVERLAPS),
        "outputs": outputs,
        "digits": digits,
        "captions": captions,
    }


@pytest.fixture(scope="module")
def layouts(browser, html_dir, pages) -> dict:
    """:func:`measure` of every page of the book, in two Chromiums at once (the session's and
    a second), the largest pages first, each taken by whichever is free."""
    print_width = a4_text_width((html_dir / "_static" / "book.css").read_text(encoding="utf-8"))
    chosen = []
    for page in pages:
        name = page.relative_to(html_dir).as_posix()
        if name.startswith("_static/") or "http-equiv=" in page.read_text(encoding="utf-8")[:300]:
            continue  # the theme's own templates, and the redirect to the introduction
        chosen.append((name, page))
    chosen.sort(key=lambda item: -item[1].stat().st_size)
    queue = iter(chosen)
    measured = {}

    def work(chromium) -> None:
        for name, page in queue:  # the iterator hands each page to one thread
            measured[name] = measure(chromium, page, print_width)

    with Browser(find_chromium()) as second, ThreadPoolExecutor(2) as pool:
        for done in [pool.submit(work, chromium) for chromium in (browser, second)]:
            done.result()
    return {name: measured[name] for name, _ in sorted(chosen)}


def test_the_chapters_were_measured(layouts):
    svm = layouts["book/svm.html"]
    assert len(svm["screen"]) >= 10 and len(svm["print"]) == len(svm["screen"])


@pytest.mark.parametrize("medium", ["screen", "print"])
def test_no_display_equation_is_wider_than_its_box(layouts, medium):
    cut = {name: too_wide(page[medium]) for name, page in layouts.items()}
    cut = {name: found for name, found in cut.items() if found}
    assert not cut, cut


def test_no_cell_output_is_wider_than_its_box(layouts):
    """On a laptop screen (1280 px) every output of a code cell shows all of itself; a table
    too wide for the text column scrolls inside its own box, and nothing else does."""
    assert sum(len(page["outputs"]) for page in layouts.values()) > 100
    cut = {name: wide_outputs(page["outputs"]) for name, page in layouts.items()}
    cut = {name: found for name, found in cut.items() if found}
    assert not cut, f"{sum(map(len, cut.values()))} outputs wider than their box: {cut}"


def test_no_page_scrolls_sideways_on_a_phone(layouts):
    wide = {name: page["phone"] for name, page in layouts.items() if page["phone"] > 0}
    assert not wide, wide


def covered(displays: list[dict]) -> list[str]:
    """The numbers whose box meets their equation's by more than a pixel each way, and those
    of displays that were not laid out."""
    return [
        d["number"] for d in displays if not d["laid_out"] or (d["across"] > 1 and d["down"] > 1)
    ]


def test_covered_sees_a_number_on_its_equation():
    beside = {"number": "(1.1)", "laid_out": True, "across": -4.0, "down": 20.0}
    above = {**beside, "across": 60.0, "down": -2.0}
    assert covered([beside, above]) == []
    assert covered([{**beside, "across": 12.0}]) == ["(1.1)"]
    assert covered([{**beside, "laid_out": False}]) == ["(1.1)"]


def test_no_equation_runs_under_its_number_on_a_phone(layouts):
    numbered = sum(len(page["numbers"]) for page in layouts.values())
    assert numbered >= 50, f"only {numbered} numbered displays measured"
    found = {name: covered(page["numbers"]) for name, page in layouts.items()}
    found = {name: numbers for name, numbers in found.items() if numbers}
    assert not found, found


#: Wait until the search has listed its results (at most 10 s), then report what it shows.
SEARCH_RESULTS = """(async () => {
  for (let i = 0; i < 100 && !document.querySelector('#search-results li'); i++)
    await new Promise(resolve => setTimeout(resolve, 100));
  await new Promise(resolve => setTimeout(resolve, 500));
  const note = document.querySelector('.search-offline-note');
  return {
    results: document.querySelectorAll('#search-results li').length,
    excerpts: document.querySelectorAll('#search-results p.context').length,
    summaries: DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY,
    note: note ? note.textContent : '',
  };
})()"""


def test_search_from_the_disk_fetches_nothing_and_says_how_to_serve(browser, html_dir):
    """Opened from the disk (file://), the search lists its pages, asks for no excerpts (a
    browser refuses the requests that fetch them) and says how to serve the book for them
    (book/_static/search_offline.js)."""
    browser.open((html_dir / "search.html").as_uri() + "?q=credibility")
    found = browser.evaluate(SEARCH_RESULTS)
    assert found["results"] >= 5, found
    assert found["summaries"] is False and found["excerpts"] == 0, found
    assert "python -m http.server -d _build/html" in found["note"], found


@pytest.mark.parametrize("width", [SCREEN, PHONE])
def test_no_number_breaks_across_lines(layouts, width):
    """No number of any page is split over two lines ("2.134e-" then "04": ten of the svm
    chapter's, at 1280 px as at 400 px, before book/_ext/page_fixes.py kept them whole)."""
    assert layouts["book/svm.html"]["digits"][width]["laid_out"] > 500
    split = {name: page["digits"][width]["split"] for name, page in layouts.items()}
    split = {name: found for name, found in split.items() if found}
    assert not split, f"{sum(map(len, split.values()))} numbers split at {width} px: {split}"


@pytest.mark.parametrize("width", [SCREEN, PHONE])
def test_a_wide_table_keeps_its_title_in_view(layouts, width):
    """A table wider than its box scrolls inside it, and its caption stays in the box when the
    body is scrolled to its end (book.css)."""
    lost = {name: page["captions"][width]["lost"] for name, page in layouts.items()}
    lost = {name: found for name, found in lost.items() if found}
    assert not lost, lost
    if width == PHONE:
        assert sum(page["captions"][PHONE]["scrolled"] for page in layouts.values()) >= 5
