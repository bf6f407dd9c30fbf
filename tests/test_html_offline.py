"""The built HTML loads no script, style or font from the network.

Runs after the book is built (``make html-check``, part of ``make test``); without a build it
skips, unless REQUIRE_HTML=1 is set, when a missing build is a failure.
"""

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parent.parent / "_build" / "html"
REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)


class _Loads(HTMLParser):
    """Collects the addresses a page loads: scripts, stylesheets, preloads, images, frames."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "img", "iframe") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            rel = (attrs.get("rel") or "").lower()
            if any(word in rel for word in ("stylesheet", "preload", "icon", "modulepreload")):
                self.urls.append(attrs["href"])


def _pages():
    if not HTML.is_dir():
        if os.environ.get("REQUIRE_HTML") == "1":
            pytest.fail(f"no built book at {HTML}: run `make book` first")
        pytest.skip("book not built")
    return sorted(HTML.rglob("*.html"))


def test_no_page_loads_from_the_network():
    offenders = {}
    for page in _pages():
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        remote = [url for url in parser.urls if REMOTE.match(url)]
        if remote:
            offenders[page.relative_to(HTML).as_posix()] = remote
    assert not offenders, offenders


def test_mathjax_is_served_locally():
    pages = _pages()
    assert (HTML / "_static" / "mathjax" / "tex-chtml.js").is_file()
    loaders = {}
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        mathjax = [url for url in parser.urls if "mathjax" in url.lower()]
        if mathjax:
            loaders[page.name] = mathjax
    assert "svm.html" in loaders, "the opening chapter does not load MathJax"
    for name, urls in loaders.items():
        assert all(url.endswith("_static/mathjax/tex-chtml.js") for url in urls), (name, urls)


def test_css_imports_no_remote_fonts():
    _pages()
    remote = [
        css.relative_to(HTML).as_posix()
        for css in (HTML / "_static").rglob("*.css")
        if re.search(r"@import\s+url\(\s*['\"]?https?://", css.read_text(encoding="utf-8", errors="ignore"))
    ]
    assert not remote, remote
