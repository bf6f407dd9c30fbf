"""The book as a PDF (a local Sphinx extension, loaded by _config.yml).

- The LaTeX build (``make pdf``: ``jupyter-book build . --builder pdflatex``) opens with a title
  page that carries the book's title, authors, version and release date, read from
  ``CITATION.cff``, and the BibTeX entry of the book, read from ``book/intro.md``; the paper is A4.
- The directive ``{book-pdf}`` says where the PDF is. In the HTML build it links the PDF when
  ``make pdf`` has built one (the file is copied next to the HTML pages), and otherwise says how
  to build it, so that no link of the HTML book points to a missing file; in the PDF itself it
  says nothing. A page holding the directive is rebuilt whenever the PDF appears, changes or
  goes, so an incremental HTML build after ``make pdf`` links it. With the environment variable
  ``BOOK_PDFS_PENDING=1`` (``make test``, which builds the HTML and both PDFs at once) it links
  both PDFs before they exist, and the make rule that built them copies them beside the pages.
- The handout (``make pdf SOLUTIONS=0``), the same book without the solutions of the exercises,
  is cut from the book's LaTeX source by ``tools/handout_tex.py`` rather than built by Sphinx a
  second time: here every solution, gated or not, is enclosed in the LaTeX between two comment
  lines once sphinx-exercise has merged it (:class:`MarkSolutions`), and the title page holds
  the handout's line commented out (``book/_ext/latex_marks.py``); the book's PDF is the same
  as without the marks. sphinx-exercise's own switch, ``hide_solutions``, is not used: it drops
  a ``{solution}`` block but leaves in the page the cells between ``solution-start`` and
  ``solution-end`` (its ``solution-start`` returns nothing, so the merge that would gather them
  never happens). The HTML pages and their doctrees keep every solution.
- The PDF's metadata (``pdfinfo``): title, authors, and version, release and build commit as
  subject, from ``CITATION.cff`` and ``book/_ext/book_build.py``.
- One bibliography: the LaTeX writer gathers every citation of the book at the end of the
  document, under a heading of its own (``BibliographyTransform``), which left the page
  ``book/bibliography.md`` as a chapter holding only its heading and introduction, two pages
  with no entry under them before the real list. Here the gathered list takes that page's place
  (:class:`OneBibliography`), with the page's labels, so a link to the page lands on the list.
- The index: the glossary's terms and the ``{index}`` entries, printed after the index of
  statements (``\\printindex``), every entry in the body font as the index of statements is
  (:data:`INDEX`). The API reference's objects stay out of it, in the HTML too
  (:class:`NoApiIndexEntries`): their long dotted names do not fit its two columns, and the API
  pages list them.
- Proofs: sphinx-proof writes ``{prf:proof}`` as an admonition without a title, which LaTeX
  typesets as a box with an empty title bar and an icon; in the PDF a proof is run-in text
  instead, "*Proof.* ...", closed by a square, as printed books set it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from book_build import citation, sentence
from docutils import nodes
from latex_marks import (
    HANDOUT_SUFFIX,
    HANDOUT_TITLE,
    HANDOUT_TITLE_MARK,
    SOLUTION_BEGIN,
    SOLUTION_END,
)
from page_tracking import PageTracker
from sphinx import addnodes
from sphinx.builders.latex.nodes import thebibliography
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx_exercise.nodes import solution_node
from sphinx_proof.nodes import proof_node

ROOT = Path(__file__).resolve().parents[2]
logger = logging.getLogger(__name__)


class book_pdf(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """Where the PDF link goes; replaced when the page is written."""


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


def title_page(without_solutions: bool = False) -> str:
    """The LaTeX of the PDF's title page: title, authors, version, release date and build commit
    (``CITATION.cff``, ``book/_ext/book_build.py``), and the BibTeX entry to cite the book with.
    The handout's (``without_solutions``) says that it leaves the solutions out; the book's holds
    that line commented out, which ``tools/handout_tex.py`` uncomments."""
    cff = citation()
    authors = " and ".join(_tex(a.get("name") or a.get("family-names", "")) for a in cff["authors"])
    kind = HANDOUT_TITLE if without_solutions else HANDOUT_TITLE_MARK + HANDOUT_TITLE
    return rf"""
\begin{{titlepage}}
\centering
\vspace*{{3cm}}
{{\Huge\bfseries {_tex(cff["title"])}\par}}
{kind}
\vspace{{1.5cm}}
{{\Large {authors}\par}}
\vspace{{1cm}}
{{\large Version {_tex(cff["version"])}, released {_tex(cff["date-released"])}\par}}
\vspace{{0.5cm}}
\begin{{minipage}}{{0.8\linewidth}}\centering\small
{_tex(sentence())}
\end{{minipage}}
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


def metadata() -> str:
    """The LaTeX that sets the PDF's metadata: title, authors, subject (version, release and
    build commit) and keywords, from ``CITATION.cff``. Set at the start of the document, when
    hyperref, which writes them, is loaded."""
    cff = citation()
    authors = ", ".join(a.get("name") or a.get("family-names", "") for a in cff["authors"])
    subject = sentence()
    fields = {
        "pdftitle": cff["title"],
        "pdfauthor": authors,
        "pdfsubject": subject,
        "pdfkeywords": ", ".join(cff.get("keywords", [])),
    }
    body = ",\n  ".join(f"{key}={{{_tex(value)}}}" for key, value in fields.items())
    return f"\\AtBeginDocument{{\\hypersetup{{\n  {body}}}}}\n"


def pdf_name(config) -> str:
    """File name of the PDF: the LaTeX target of the book with ``.pdf``."""
    return Path(config.latex_documents[0][1]).with_suffix(".pdf").name


def handout_name(config) -> str:
    """File name of the handout: ``NAME-handout.pdf``."""
    name = Path(pdf_name(config))
    return name.with_stem(name.stem + HANDOUT_SUFFIX).name


def built_pdf(app, name: str | None = None) -> Path:
    """Where ``make pdf`` leaves a PDF (the book's by default): ``_build/latex/NAME.pdf``
    beside ``_build/html``."""
    return Path(app.outdir).parent / "latex" / (name or pdf_name(app.config))


def pending() -> bool:
    """Whether the PDFs are being built beside this HTML build (``BOOK_PDFS_PENDING=1``): then
    the pages link both, and the build that makes them puts them beside the pages."""
    return os.environ.get("BOOK_PDFS_PENDING", "0") == "1"


def _state(app) -> tuple | None:
    """What the HTML pages say about the PDFs depends on: which exist, and their versions
    (``None`` for the LaTeX builder, which writes no link)."""
    if app.builder.format != "html":
        return None
    if pending():
        return ("pending",)
    state = []
    for name in (pdf_name(app.config), handout_name(app.config)):
        pdf = built_pdf(app, name)
        state.append((pdf.stat().st_size, pdf.stat().st_mtime_ns) if pdf.is_file() else None)
    return tuple(state)


#: The pages holding ``{book-pdf}``, written again when a PDF appears, changes or goes.
PAGES = PageTracker("book_pdf", _state)


class BookPdf(SphinxDirective):
    """``{book-pdf}``: a sentence that links the book's PDF, or says how to build it."""

    def run(self):
        PAGES.record(self.env)
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


#: Added to the LaTeX preamble: a proof as run-in text, "*Proof.* ...", closed by a square at
#: the right margin of its last line (of a line of its own when the proof ends with a display
#: or a list).
PROOF = r"""
\newcommand{\bookqed}{\nobreak\hfill\ensuremath{\square}}
\newenvironment{bookproof}{\par\medskip}{\par\medskip}
"""


#: Added to the LaTeX preamble: the entries of the index of statements and of the general index
#: (the glossary's terms) in the body font, and the group headings of every index in bold body
#: type; Sphinx sets every entry in typewriter type and the headings in sans serif. The Python
#: Module Index keeps typewriter type for its module names (the writer names each index in
#: ``\\indexname`` before it starts it).
INDEX = r"""
\newcommand{\bookmoduleindexname}{Python Module Index}
\def\sphinxstyleindexentry#1{\ifx\indexname\bookmoduleindexname\texttt{#1}\else#1\fi}
\def\sphinxstyleindexlettergroup#1{{\large\bfseries#1}\nopagebreak\vspace{1mm}}
\def\sphinxstyleindexlettergroupDefault#1{%
  {\large\bfseries\sphinxnonalphabeticalgroupname}\nopagebreak\vspace{1mm}}
"""


def configure(app, config):
    """A4 paper, the book's own title page (with the handout's line commented out), the PDF's
    metadata, and the general index printed at the end (the glossary's terms)."""
    elements = dict(config.latex_elements or {})
    elements["papersize"] = "a4paper"
    elements["maketitle"] = title_page()
    elements["printindex"] = r"\printindex"
    elements["preamble"] = elements.get("preamble", "") + PREAMBLE + PROOF + INDEX + metadata()
    config.latex_elements = elements


#: The page that the book's one list of works replaces in the PDF.
BIBLIOGRAPHY_PAGE = "book/bibliography"


class OneBibliography(SphinxPostTransform):
    """The PDF's one bibliography in the place of the page ``book/bibliography.md``.

    Sphinx's ``BibliographyTransform`` (priority 750) has moved every citation into one list at
    the end of the document, which LaTeX sets under its own heading; the page itself kept its
    heading and introduction only. After it, the page's section is replaced by the list,
    preceded by the page's labels (``\\label{...::doc}``, which ``{doc}`bibliography``` links
    to) on the page where the list starts; the page's introduction, a sentence on what the list
    holds, stays in the HTML. A book whose LaTeX has no such page or no list is reported (a
    warning, an error under ``-W``) rather than left with two headings."""

    default_priority = 760
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        lists = list(self.document.findall(thebibliography))
        pages = [
            node
            for node in self.document.findall(addnodes.start_of_file)
            if node["docname"] == BIBLIOGRAPHY_PAGE
        ]
        section = pages[0].next_node(nodes.section) if len(pages) == 1 else None
        if len(lists) != 1 or section is None:
            logger.warning(
                "book_pdf: expected one list of works and one page %s, found %d and %d",
                BIBLIOGRAPHY_PAGE,
                len(lists),
                len(pages),
            )
            return
        labels = "".join(
            rf"\phantomsection\label{{\detokenize{{{BIBLIOGRAPHY_PAGE}:{node_id}}}}}"
            for node_id in section["ids"]
        )
        the_list = lists[0]
        the_list.parent.remove(the_list)
        section.replace_self(
            [nodes.raw("", "\n\\cleardoublepage" + labels + "\n", format="latex"), the_list]
        )


class NoApiIndexEntries(SphinxTransform):
    """The general index (HTML and PDF) leaves out the API reference's objects (``book/api.md``
    and ``book/api/``): the entries that autodoc adds for every module, class and function.
    Their dotted names do not fit the PDF's two columns, and in the HTML they made the index
    page 715 px wider than a phone's screen; the API pages, the Python Module Index and the
    search list them. Applied when a page is read, before Sphinx's domains collect the entries
    (``SphinxDomains``, priority 850)."""

    default_priority = 840

    def apply(self, **kwargs) -> None:
        name = self.env.docname
        if name == "book/api" or name.startswith("book/api/"):
            for entry in self.document.findall(addnodes.index):
                entry["entries"] = []


class MarkSolutions(SphinxPostTransform):
    """Every solution of an exercise between two comment lines of the LaTeX source
    (``latex_marks.SOLUTION_BEGIN`` and ``SOLUTION_END``), from which ``tools/handout_tex.py``
    cuts the handout. By then sphinx-exercise has merged a ``solution-start``/``solution-end``
    pair, cells included, into one solution. A mark is a block of raw LaTeX, which the writer
    sets between two line breaks of its own: the comment never swallows the end of the line
    before it, and cutting from the break before one mark to the break after the other leaves
    the source as it would be without the solution."""

    default_priority = 5
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for node in list(self.document.findall(solution_node)):
            node.parent.insert(
                node.parent.index(node), nodes.raw("", SOLUTION_BEGIN, format="latex")
            )
            node.parent.insert(
                node.parent.index(node) + 1, nodes.raw("", SOLUTION_END, format="latex")
            )


class RunInProofs(SphinxPostTransform):
    """A proof in the PDF: run-in text in the ``bookproof`` environment of the preamble, its
    opening word in italics, instead of an admonition box with an empty title bar."""

    default_priority = 5
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for proof in list(self.document.findall(proof_node)):
            for box in [child for child in proof.children if isinstance(child, nodes.admonition)]:
                self._emphasise_opening(box)
                qed = nodes.raw("", "\\bookqed", format="latex")
                body = list(box.children)
                if body and isinstance(body[-1], nodes.paragraph):
                    body[-1] += qed
                else:
                    body.append(qed)
                begin = nodes.raw("", "\n\\begin{bookproof}\n", format="latex")
                end = nodes.raw("", "\n\\end{bookproof}\n", format="latex")
                box.replace_self([begin, *body, end])

    @staticmethod
    def _emphasise_opening(box: nodes.Element) -> None:
        """sphinx-proof opens the first paragraph with "Proof. " (or "Proof. Sketch"): set
        "Proof." in italics."""
        paragraph = next(iter(box.findall(nodes.paragraph)), None)
        if paragraph is None or not paragraph.children:
            return
        first = paragraph.children[0]
        if isinstance(first, nodes.Text) and first.startswith("Proof."):
            rest = str(first)[len("Proof.") :]
            paragraph.replace(first, nodes.emphasis("", "Proof."))
            paragraph.insert(1, nodes.Text(rest))


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


def resolve(app, doctree, docname):
    """Replace ``{book-pdf}`` by the link (HTML, PDF built), the way to build it (HTML, no PDF),
    or nothing (the PDF itself)."""
    for node in list(doctree.findall(book_pdf)):
        if app.builder.format != "html":
            node.parent.remove(node)
            continue
        name = pdf_name(app.config)
        paragraph = nodes.paragraph()
        up = "../" * docname.count("/")
        if pending() or built_pdf(app).is_file():
            paragraph += nodes.Text("The whole book as one PDF (A4), title page and citation: ")
            paragraph += nodes.reference("", name, refuri=up + name, classes=["book-pdf"])
            paragraph += nodes.Text(".")
        else:
            paragraph += nodes.Text("This build of the book has no PDF; ")
            paragraph += nodes.literal("", "make pdf")
            paragraph += nodes.Text(" builds one and links it here.")
        handout_pdf = handout_name(app.config)
        if pending() or built_pdf(app, handout_pdf).is_file():
            paragraph += nodes.Text(" For teaching, the same without the solutions: ")
            paragraph += nodes.reference(
                "", handout_pdf, refuri=up + handout_pdf, classes=["book-pdf"]
            )
            paragraph += nodes.Text(" (")
            paragraph += nodes.literal("", "make pdf SOLUTIONS=0")
            paragraph += nodes.Text(").")
        node.replace_self(paragraph)


def copy_pdf(app, exception):
    """Put the PDFs next to the HTML pages, or remove a stale copy when there is none."""
    if exception is not None or app.builder.format != "html" or pending():
        return
    for name in (pdf_name(app.config), handout_name(app.config)):
        target = Path(app.outdir) / name
        if built_pdf(app, name).is_file():
            shutil.copy2(built_pdf(app, name), target)
        elif target.exists():
            target.unlink()


def setup(app):
    app.add_node(book_pdf)
    app.add_directive("book-pdf", BookPdf)
    app.connect("config-inited", configure)
    app.add_post_transform(MarkSolutions)
    app.add_post_transform(RunInProofs)
    app.add_post_transform(OneBibliography)
    app.add_transform(NoApiIndexEntries)
    app.connect("builder-inited", number_like_the_html, priority=900)
    app.connect("env-get-updated", restore_depth, priority=900)
    PAGES.connect(app)
    app.connect("doctree-resolved", resolve)
    app.connect("build-finished", copy_pdf)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
