"""On a phone (400 px) no equation runs under its number.

The theme sets a display's number beside it in one row; at 400 px the equation then had too
little width and ran under the number on 45 of 63 numbered displays. ``book.css`` gives the
number its own line on narrow screens. The check lays every page out in a headless Chromium
(``tests/html/browser.py``) and compares the box of each number with the box of its typeset
equation (unclipped: the part that would scroll counts).
"""

from __future__ import annotations

from .test_layout import PHONE

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


def test_no_equation_runs_under_its_number_on_a_phone(browser, html_dir):
    found, numbered = {}, 0
    for page in sorted((html_dir / "book").glob("*.html")):
        browser.emulate(PHONE)
        browser.open(page.as_uri())
        displays = browser.evaluate(OVERLAPS)
        numbered += len(displays)
        if covered(displays):
            found[page.name] = covered(displays)
    assert numbered >= 50, f"only {numbered} numbered displays measured"
    assert not found, found
