"""The book as a PDF (a local Sphinx extension, loaded by _config.yml).

- The LaTeX build (``make pdf``: ``jupyter-book build . --builder pdflatex``) opens with a title
  page that carries the book's title, authors, version and release date, read from
  ``CITATION.cff``, and the BibTeX entry of the book, read from ``book/intro.md``; the paper is A4.
- The directive ``{book-pdf}`` says where the PDF is. In the HTML build it links the PDF when
  ``make pdf`` has built one (the file is copied next to the HTML pages), and otherwise says how
  to build it, so that no link of the HTML book points to a missing file; in the PDF itself it
  says nothing. A page holding the directive is rebuilt whenever the PDF appears, changes or
  goes, so an incremental HTML build after ``make pdf`` links it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]


class book_pdf(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """Where the PDF link goes; replaced when the page is written."""


def citation() -> dict:
    """The book's ``CITATION.cff``."""
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def bibtex_entry() -> str:
    """The BibTeX entry of the book, as the introduction gives it."""
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bibtex\n(.*?)```", text, flags=re.S)
    if len(blocks) != 1:
        raise ValueError(f"book/intro.md: expected one BibTeX block, found {len(blocks)}")
    return blocks[0].rstrip()


def _tex(text: str) -> str:
    """``text`` with the characters that TeX reads as commands escaped."""
    return re.sub(r"([&%$#_{}])", r"\\\1", str(text))


def title_page() -> str:
    """The LaTeX of the PDF's title page: title, authors, version and release date from
    CITATION.cff, and the BibTeX entry to cite the book with."""
    cff = citation()
    authors = " and ".join(_tex(a.get("name") or a.get("family-names", "")) for a in cff["authors"])
    return rf"""
\begin{{titlepage}}
\centering
\vspace*{{3cm}}
{{\Huge\bfseries {_tex(cff["title"])}\par}}
\vspace{{1.5cm}}
{{\Large {authors}\par}}
\vspace{{1cm}}
{{\large Version {_tex(cff["version"])}, released {_tex(cff["date-released"])}\par}}
\vfill
\begin{{minipage}}{{\linewidth}}
\small Cite this book as below (the same record is in the repository's \texttt{{CITATION.cff}}),
and cite the original papers too when you use their methods.
\footnotesize
\begin{{verbatim}}
{bibtex_entry()}
\end{{verbatim}}
\end{{minipage}}
\end{{titlepage}}
"""


def pdf_name(config) -> str:
    """File name of the PDF: the LaTeX target of the book with ``.pdf``."""
    return Path(config.latex_documents[0][1]).with_suffix(".pdf").name


def built_pdf(app) -> Path:
    """Where ``make pdf`` leaves the PDF: ``_build/latex/NAME.pdf`` beside ``_build/html``."""
    return Path(app.outdir).parent / "latex" / pdf_name(app.config)


def _state(app) -> tuple:
    """What the HTML pages say about the PDF depends on: whether it exists, and its version."""
    pdf = built_pdf(app)
    return (pdf.stat().st_size, pdf.stat().st_mtime_ns) if pdf.is_file() else None


class BookPdf(SphinxDirective):
    """``{book-pdf}``: a sentence that links the book's PDF, or says how to build it."""

    def run(self):
        self.env.book_pdf_pages = getattr(self.env, "book_pdf_pages", set()) | {self.env.docname}
        return [book_pdf()]


#: Added to the LaTeX preamble. Identifiers in inline code (``load_breast_cancer_ljubljana`` in
#: a table cell) may break after an underscore rather than run into the margin. A code cell
#: inside an admonition (the solutions of the exercises) is typeset without its own frame, so it
#: can break across pages: Sphinx frames it only when it guesses that it fits the page, a frame
#: inside a frame cannot break, and a wrong guess (a solution in the last chapter) pushed a
#: page 35 pt into the bottom margin.
PREAMBLE = r"""
\let\svmtrustunderscore\_
\renewcommand{\_}{\svmtrustunderscore\allowbreak}
\makeatletter
\RequirePackage{etoolbox}
\patchcmd{\endsphinxVerbatim}{\pagetotal+\pagedepth>\pagegoal}{\pagetotal+\pagedepth>-\maxdimen}
  {}{\PackageError{book}{sphinxVerbatim changed: the nested-frame patch no longer applies}{}}
\makeatother
"""


def configure(app, config):
    """A4 paper, the book's own title page, and no general index in the LaTeX build (the HTML
    book has none either: the book has no index entries, only the API's objects, whose long
    names do not fit its two columns)."""
    elements = dict(config.latex_elements or {})
    elements["papersize"] = "a4paper"
    elements["maketitle"] = title_page()
    elements["printindex"] = ""
    elements["preamble"] = elements.get("preamble", "") + PREAMBLE
    config.latex_elements = elements


def number_like_the_html(app):
    """Number statements in the PDF per chapter, as the HTML does ("Theorem 6.2").

    With parts in the table of contents, sphinx-jupyterbook-latex sets ``numfig_secnum_depth``
    to 2, which the LaTeX writer needs (the part is a level there) to number equations per
    chapter, "(6.4)", but which numbers sphinx-proof's statements per section, "Theorem 6.2.1".
    So the statements are numbered with depth 1 (this handler, after sphinx-jupyterbook-latex's
    at priority 900) and the writer gets 2 back once the numbers are assigned
    (:func:`restore_depth`)."""
    if app.builder.format == "latex":
        app.config.numfig_secnum_depth = 1


def restore_depth(app, env):
    """After the statements are numbered (``env-get-updated``, priority 900), give the LaTeX
    writer the depth sphinx-jupyterbook-latex chose."""
    if app.builder.format == "latex":
        app.config.numfig_secnum_depth = 2
    return []


def outdated(app, env, added, changed, removed):
    """The pages that hold ``{book-pdf}``, when the PDF changed since they were written."""
    if app.builder.format != "html":
        return []
    state = _state(app)
    if getattr(env, "book_pdf_state", None) == state:
        return []
    env.book_pdf_state = state
    return sorted(getattr(env, "book_pdf_pages", set()) - set(removed))


def purge(app, env, docname):
    """Forget a page that is read again (it records itself if it still holds the directive)."""
    getattr(env, "book_pdf_pages", set()).discard(docname)


def merge(app, env, docnames, other):
    """Merge the pages found by parallel readers."""
    env.book_pdf_pages = getattr(env, "book_pdf_pages", set()) | (
        getattr(other, "book_pdf_pages", set()) & set(docnames)
    )


def resolve(app, doctree, docname):
    """Replace ``{book-pdf}`` by the link (HTML, PDF built), the way to build it (HTML, no PDF),
    or nothing (the PDF itself)."""
    for node in list(doctree.findall(book_pdf)):
        if app.builder.format != "html":
            node.parent.remove(node)
            continue
        name = pdf_name(app.config)
        paragraph = nodes.paragraph()
        if built_pdf(app).is_file():
            uri = "../" * docname.count("/") + name
            paragraph += nodes.Text("The whole book as one PDF (A4), title page and citation: ")
            paragraph += nodes.reference("", name, refuri=uri, classes=["book-pdf"])
            paragraph += nodes.Text(".")
        else:
            paragraph += nodes.Text("This build of the book has no PDF; ")
            paragraph += nodes.literal("", "make pdf")
            paragraph += nodes.Text(" builds one and links it here.")
        node.replace_self(paragraph)


def copy_pdf(app, exception):
    """Put the PDF next to the HTML pages, or remove a stale copy when there is none."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / pdf_name(app.config)
    if built_pdf(app).is_file():
        shutil.copy2(built_pdf(app), target)
    elif target.exists():
        target.unlink()


def setup(app):
    app.add_node(book_pdf)
    app.add_directive("book-pdf", BookPdf)
    app.connect("config-inited", configure)
    app.connect("builder-inited", number_like_the_html, priority=900)
    app.connect("env-get-updated", restore_depth, priority=900)
    app.connect("env-get-outdated", outdated)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("doctree-resolved", resolve)
    app.connect("build-finished", copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
