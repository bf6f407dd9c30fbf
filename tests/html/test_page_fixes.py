"""book/_ext/page_fixes.py's rewriting of a page's body: the numbers that could break are set in
spans kept on one line, and nothing else changes (mathematics, scripts, entities, words)."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "page_fixes", ROOT / "book" / "_ext" / "page_fixes.py"
)
page_fixes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(page_fixes)

SPAN = '<span class="number">{}</span>'


def test_numbers_with_an_exponent_or_a_sign_are_kept_whole():
    body = "<table><tr><td>2.134e-04</td><td>0.001</td></tr></table><p>about 1e-7, -0.5 or 3</p>"
    assert page_fixes.whole_numbers(body) == (
        f"<table><tr><td>{SPAN.format('2.134e-04')}</td><td>0.001</td></tr></table>"
        f"<p>about {SPAN.format('1e-7')}, {SPAN.format('-0.5')} or 3</p>"
    )


def test_every_number_of_inline_code_and_signatures_is_kept_whole():
    code = '<code class="literal"><span class="pre">0.3333333333333333</span></code>'
    sig = '<span class="default_value"><span class="pre">5000</span></span>'
    assert page_fixes.whole_numbers(code) == code.replace(
        "0.3333333333333333", SPAN.format("0.3333333333333333")
    )
    assert page_fixes.whole_numbers(sig) == sig.replace("5000", SPAN.format("5000"))


def test_mathematics_scripts_code_blocks_words_and_entities_are_left_alone():
    body = (
        '<span class="math notranslate nohighlight">\\(10^{-3} + x_{-1}\\)</span>'
        '<div class="math notranslate nohighlight">\\[e^{-2}\\]</div>'
        "<style>a { margin: -1e-3px }</style><script>let x = -1e-3;</script>"
        '<div class="highlight"><pre>x = 1e-3</pre></div>'
        "<p>x-1, 2026-11-29, doi:10.1080/01621459.2017.1307116, 9316e967f1, a&#160;b</p>"
        '<code><span class="pre">a&#160;b&#x2212;</span></code><br><img src="1e-3.png"/>'
    )
    assert page_fixes.whole_numbers(body) == body


def test_the_text_of_a_page_is_unchanged():
    body = "<p>rates 1.5e-02 to -3 <em>(n = 20)</em></p><ul><li>-1e+05</li></ul> tail -2"
    assert re.sub(r"<[^>]*>", "", page_fixes.whole_numbers(body)) == re.sub(r"<[^>]*>", "", body)
