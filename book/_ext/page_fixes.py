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
"""

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: The words that replace myst-nb's status emoji in the execution table.
STATUS_WORDS = {"\N{WHITE HEAVY CHECK MARK}": "succeeded", "\N{CROSS MARK}": "failed"}


def hide_header_search(app, config):
    """Drop the header's persistent search button (the sidebar keeps its search field)."""
    config.html_theme_options = {**config.html_theme_options, "navbar_persistent": []}


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


def skip_metadata_requests(app, what, name, obj, skip, options):
    """Leave scikit-learn's generated ``set_*_request`` methods out of the API reference."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("config-inited", hide_header_search)
    app.connect("html-page-context", unique_scripts)
    app.add_post_transform(StatusInWords)
    app.connect("autodoc-skip-member", skip_metadata_requests)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
