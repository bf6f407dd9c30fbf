"""Small fixes to the HTML pages of the book (a local Sphinx extension, loaded by _config.yml).

- The pinned sphinx-book-theme 1.3 with pydata-sphinx-theme 0.17 shows a header bar that holds
  nothing but a second search field above the sidebar's own: the header's persistent search
  button is switched off.
- sphinx-thebe adds its configuration script once per read phase, so a page can carry
  ``const THEBE_JS_URL`` twice, a JavaScript SyntaxError: each page keeps one copy of every
  script.
- scikit-learn adds ``set_*_request`` methods (metadata routing) to every estimator; their
  docstrings are scikit-learn's, not ours, so the API reference leaves them out.
- myst-nb's execution table gives a chapter's status as an emoji, which shows as an empty box
  without an emoji font: the status is written as a word.
- pydata-sphinx-theme starts a page in the colour mode stored by a previous visit, else in the
  template variable ``default_mode``, which nothing sets: on a reader's first visit the page
  started in mode "" and the console said "Got invalid theme mode: . Resetting to auto." The
  context gives it "auto" (the mode the theme falls back to, following the reader's system),
  unless ``html_context`` names one.
- A browser may break a line after a hyphen, also inside a number: ten numbers of the svm
  chapter's tables showed as "2.134e-" on one line and "04" on the next, at 1280 px as at
  400 px, and at 400 px numbers broke in prose and in inline code (which may break anywhere, so
  that a long path never widens a phone's page). Every number of a page's text that has a sign
  or an exponent, and every number in inline code or a signature, is set in ``<span class="number">``, which
  book.css keeps on one line (tests/html/test_layout.py measures every number of every page).
"""

import re

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: The words that replace myst-nb's status emoji in the execution table.
STATUS_WORDS = {"\N{WHITE HEAVY CHECK MARK}": "succeeded", "\N{CROSS MARK}": "failed"}


def hide_header_search(app, config):
    """Drop the header's persistent search button (the sidebar keeps its search field)."""
    config.html_theme_options = {**config.html_theme_options, "navbar_persistent": []}


def default_colour_mode(app, config):
    """Give pydata-sphinx-theme's ``default_mode`` the value "auto" when the configuration's
    ``html_context`` sets none (a first visit then starts in a valid mode)."""
    config.html_context = {"default_mode": "auto", **config.html_context}


def _script_key(script):
    """What makes two scripts the same: their file (None and "" both mean an inline script, as
    the two copies of sphinx-thebe's configuration come) and their attributes, body included."""
    filename = getattr(script, "filename", script) or ""
    attributes = getattr(script, "attributes", {})
    return str(filename), tuple(sorted(attributes.items()))


def unique_scripts(app, pagename, templatename, context, doctree):
    """Keep the first copy of every script a page loads, in order."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, kept = set(), []
    for script in scripts:
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            kept.append(script)
    context["script_files"] = kept


class StatusInWords(SphinxPostTransform):
    """Replace the status emoji of myst-nb's execution table with words."""

    default_priority = 9  # after myst-nb fills the table (8), before references resolve (10)

    def run(self, **kwargs) -> None:
        for table in self.document.findall(nodes.table):
            for text in list(table.findall(nodes.Text)):
                word = STATUS_WORDS.get(text.astext().strip())
                if word is not None:
                    text.parent.replace(text, nodes.Text(word))


#: A number standing alone (not part of a word, a DOI or a hash): an optional sign, digits,
#: a fraction, an exponent.
NUMBER = re.compile(r"(?<![\w.\-/\u2212&#])[-+\u2212]?\d+(?:\.\d+)?(?:[eE][-+\u2212]?\d+)?(?![\w])")
#: A tag (or a comment) of the page's body.
TAG = re.compile(r"<!--.*?-->|<[^>]*>", re.S)
#: Elements whose text is left alone: mathematics (TeX that MathJax reads), scripts and styles,
#: and blocks of code or output, which do not wrap.
LEFT_ALONE = re.compile(r'^<(script|style|textarea|pre)\b|^<\w+[^>]*\bclass="[^"]*\bmath\b')
#: Code set by Sphinx word by word (inline code, signatures): it may break anywhere
#: (book.css), so that a long path never widens a phone's page.
IN_CODE = re.compile(r'^<span\b[^>]*\bclass="[^"]*\bpre\b')
#: Elements that have no end tag.
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def _numbers_in(text: str, in_code: bool) -> str:
    """``text`` (HTML between two tags) with the numbers that could break set in spans."""

    def wrap(match):
        number = match.group()
        if in_code or re.search(r"[-+\u2212eE]", number):
            return f'<span class="number">{number}</span>'
        return number

    return NUMBER.sub(wrap, text)


def whole_numbers(body: str) -> str:
    """The HTML ``body`` with its numbers kept whole (:func:`_numbers_in`), outside the
    elements :data:`LEFT_ALONE`."""
    pieces, stack, at = [], [], 0  # stack: (tag name, left alone, code) of the open elements
    for tag in TAG.finditer(body):
        text = body[at : tag.start()]
        if text and not any(alone for _, alone, _ in stack):
            text = _numbers_in(text, any(code for _, _, code in stack))
        pieces += [text, tag.group()]
        at = tag.end()
        name = re.match(r"</?\s*([A-Za-z][\w-]*)", tag.group())
        if name is None:
            continue  # a comment or a doctype
        name = name.group(1).lower()
        if tag.group().startswith("</"):
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == name:
                    del stack[depth:]
                    break
        elif name not in VOID and not tag.group().endswith("/>"):
            code = name == "code" or bool(IN_CODE.match(tag.group()))
            stack.append((name, bool(LEFT_ALONE.match(tag.group())), code))
    tail = body[at:]
    if tail and not any(alone for _, alone, _ in stack):
        tail = _numbers_in(tail, any(code for _, _, code in stack))
    return "".join(pieces) + tail


def keep_numbers_whole(app, pagename, templatename, context, doctree):
    """Set the numbers of the page's body in spans that book.css keeps on one line."""
    if context.get("body"):
        context["body"] = whole_numbers(context["body"])


def skip_metadata_requests(app, what, name, obj, skip, options):
    """Leave scikit-learn's generated ``set_*_request`` methods out of the API reference."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("config-inited", hide_header_search)
    app.connect("config-inited", default_colour_mode)
    app.connect("html-page-context", unique_scripts)
    app.connect("html-page-context", keep_numbers_whole)
    app.add_post_transform(StatusInWords)
    app.connect("autodoc-skip-member", skip_metadata_requests)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
