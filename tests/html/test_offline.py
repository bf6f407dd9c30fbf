"""The built HTML loads no script, style or font from the network."""

import re
from html.parser import HTMLParser

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


def test_no_page_loads_from_the_network(html_dir, pages):
    offenders = {}
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        remote = [url for url in parser.urls if REMOTE.match(url)]
        if remote:
            offenders[page.relative_to(html_dir).as_posix()] = remote
    assert not offenders, offenders


def test_mathjax_is_served_locally(html_dir, pages):
    assert (html_dir / "_static" / "mathjax" / "tex-chtml.js").is_file()
    loaders = {}
    for page in pages:
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8"))
        mathjax = [url for url in parser.urls if "mathjax" in url.lower()]
        if mathjax:
            loaders[page.name] = mathjax
    assert "svm.html" in loaders, "the opening chapter does not load MathJax"
    for name, urls in loaders.items():
        # Sphinx appends a checksum (?v=...) when the file is already in the output folder,
        # as on an incremental build.
        paths = [url.split("?", 1)[0] for url in urls]
        assert all(path.endswith("_static/mathjax/tex-chtml.js") for path in paths), (name, urls)


def test_css_imports_no_remote_fonts(html_dir):
    remote = [
        css.relative_to(html_dir).as_posix()
        for css in (html_dir / "_static").rglob("*.css")
        if re.search(
            r"@import\s+url\(\s*['\"]?https?://", css.read_text(encoding="utf-8", errors="ignore")
        )
    ]
    assert not remote, remote
