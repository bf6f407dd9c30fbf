"""The index of statements (a local Sphinx extension, loaded by _config.yml).

sphinx-proof's own index (the page ``prf-prf``) lists every theorem, definition and algorithm by
its label (``md-thm-flip``), grouped by the label's first letter. This one lists them as the
chapters call them, "Theorem 8.2 (Flipping labels)", grouped by chapter in the book's order.
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


class StatementIndex(ProofIndex):
    """sphinx-proof's index, with numbers and titles, by chapter."""

    localname = "Index of statements"

    def generate(self, docnames=None):
        env = self.domain.env
        proofs = getattr(env, "proof_list", {})
        titles = getattr(env, "statement_titles", {})
        groups = defaultdict(list)
        for anchor, values in proofs.items():
            docname = values["docname"]
            if docnames and docname not in docnames:
                continue
            number = _numbers(env, docname, values["countertype"], anchor)
            name = statement_name(values["realtype"], number, titles.get(anchor, ""))
            groups[chapter_heading(env, docname)].append(
                (_sort_key(number), name, docname, anchor, values["realtype"])
            )
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
