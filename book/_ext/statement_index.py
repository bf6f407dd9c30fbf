"""The index of statements (a local Sphinx extension, loaded by _config.yml).

sphinx-proof's own index (the page ``prf-prf``) lists every theorem, definition and algorithm by
its label (``md-thm-flip``), grouped by the label's first letter. This one lists them as the
chapters call them, "Theorem 8.2 (Flipping labels)": in the HTML grouped by chapter in the
book's order, in the PDF grouped by type (Definitions, Theorems, Lemmas, Propositions,
Algorithms, ...), each group in the book's order: a reader of the printed index looks for a
kind of statement, the number of each entry already names its chapter ("Theorem 6.2") and the
page number after it says where it is. The PDF sets the entries in the body font (book/_ext/book_pdf.py: Sphinx
sets every index entry in typewriter type, ``\\sphinxstyleindexentry``).
"""

from __future__ import annotations

from collections import defaultdict

from docutils import nodes
from sphinx_proof.domain import ProofDomain, ProofIndex


def _numbers(env, docname: str, countertype: str, label: str) -> str:
    """The number the book gives a statement ("6.2"), or "" if it has none."""
    number = env.toc_fignumbers.get(docname, {}).get(countertype, {}).get(label, ())
    return ".".join(map(str, number))


def statement_name(realtype: str, number: str, title: str) -> str:
    """How the index names a statement: "Theorem 6.2 (Span rule)"."""
    name = realtype.replace("-", " ").capitalize()
    name = f"{name} {number}" if number else name
    title = title.strip()
    if title and not title.startswith("("):
        title = f"({title})"
    return f"{name} {title}".strip()


def chapter_heading(env, docname: str) -> tuple[tuple, str]:
    """A chapter's sort key (its number) and heading ("6. Span and rescaling")."""
    number = env.toc_secnumbers.get(docname, {}).get("", ())
    title = env.titles[docname].astext() if docname in env.titles else docname
    prefix = ".".join(map(str, number))
    return tuple(number) or (10**6,), f"{prefix}. {title}" if prefix else title


def _sort_key(number: str) -> tuple:
    return tuple(int(part) for part in number.split(".") if part.isdigit())


#: The order of the groups of the PDF's index; a type not named here comes after them, by name.
TYPE_ORDER = ("definition", "theorem", "lemma", "proposition", "corollary", "algorithm")

#: Plurals that are not the name with an "s".
PLURALS = {"corollary": "Corollaries", "property": "Properties", "axiom": "Axioms"}


def type_heading(realtype: str) -> str:
    """A group heading of the PDF's index: "Theorems", "Corollaries"."""
    name = realtype.replace("-", " ").lower()
    return PLURALS.get(name, name.capitalize() + "s")


def type_key(realtype: str) -> tuple:
    """Where a type's group goes: the book's usual order, then the others by name."""
    name = realtype.lower()
    return (TYPE_ORDER.index(name), "") if name in TYPE_ORDER else (len(TYPE_ORDER), name)


def group_by_type(entries) -> list[tuple[str, list]]:
    """The PDF's groups: ``entries`` are ``(chapter key, number key, name, docname, anchor,
    realtype)``; each type's entries in the book's order (chapter, then number)."""
    groups = defaultdict(list)
    for chapter, number, name, docname, anchor, realtype in entries:
        groups[realtype.lower()].append((chapter, number, name, docname, anchor))
    return [
        (
            type_heading(realtype),
            [(name, 0, docname, anchor, "", "", "") for *_, name, docname, anchor in sorted(rows)],
        )
        for realtype, rows in sorted(groups.items(), key=lambda item: type_key(item[0]))
    ]


class StatementIndex(ProofIndex):
    """sphinx-proof's index, with numbers and titles, by chapter."""

    localname = "Index of statements"

    def generate(self, docnames=None):
        env = self.domain.env
        proofs = getattr(env, "proof_list", {})
        titles = getattr(env, "statement_titles", {})
        groups = defaultdict(list)
        flat = []
        for anchor, values in proofs.items():
            docname = values["docname"]
            if docnames and docname not in docnames:
                continue
            number = _numbers(env, docname, values["countertype"], anchor)
            name = statement_name(values["realtype"], number, titles.get(anchor, ""))
            chapter = chapter_heading(env, docname)
            groups[chapter].append((_sort_key(number), name, docname, anchor, values["realtype"]))
            flat.append((chapter[0], _sort_key(number), name, docname, anchor, values["realtype"]))
        if env.app.builder.format == "latex":
            return group_by_type(flat), False
        content = []
        for (_, heading), entries in sorted(groups.items()):
            rows = [
                (name, 0, docname, anchor, "", "", "")
                for _, name, docname, anchor, realtype in sorted(entries)
            ]
            content.append((heading, rows))
        return content, False


def record_titles(app, doctree):
    """Keep each statement's title (the directive's argument), by label."""
    env = app.env
    if not hasattr(env, "statement_titles"):
        env.statement_titles = {}
    for node in doctree.findall(nodes.Element):
        if "realtype" not in node.attributes or "label" not in node.attributes:
            continue
        env.statement_titles[node["label"]] = str(node.get("title", ""))


def merge(app, env, docnames, other):
    """Merge the titles found by parallel readers."""
    env.statement_titles = {
        **getattr(env, "statement_titles", {}),
        **getattr(other, "statement_titles", {}),
    }


def setup(app):
    ProofDomain.indices = [StatementIndex]
    app.connect("doctree-read", record_titles)
    app.connect("env-merge-info", merge)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
