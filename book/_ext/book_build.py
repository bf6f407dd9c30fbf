"""Which book this is: version, release and the commit it was built from (a local Sphinx
extension, loaded by _config.yml).

``CITATION.cff`` names the release a reader cites: its ``version``, ``date-released`` and
``commit`` (the commit that released it). A built copy of the book can come from a later commit,
so the build says which one: the commit is read when the build starts, from

1. the environment variable ``SVMTRUST_COMMIT`` (a commit hash, for a build from an exported
   tree with no ``.git``, e.g. a source archive whose name carries the hash), else
2. ``git rev-parse HEAD`` in the repository (with "uncommitted changes" when ``git status``
   lists modified tracked files), else
3. nothing: the build then says in words that the commit is unknown.

The directive ``{book-build}`` writes that sentence where it stands (the introduction); the PDF's
title page and metadata carry the same (``book/_ext/book_pdf.py``). A page holding the directive
is rebuilt whenever the commit changes, so an incremental build never shows an older commit.
Reading the commit adds no rebuild of the other pages: nothing here is part of Sphinx's
environment configuration.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import yaml
from docutils import nodes
from page_tracking import PageTracker
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parents[2]

#: A commit as git names it: 40 hexadecimal digits (SHA-1; 64 for SHA-256 repositories).
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def citation(root: Path = ROOT) -> dict:
    """The book's ``CITATION.cff``, parsed."""
    return yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))


def _git(root: Path, *args: str) -> str | None:
    """The output of ``git ARGS`` in ``root``, or None without git or outside a repository."""
    if shutil.which("git") is None:
        return None
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def build_commit(root: Path = ROOT, environ=None) -> tuple[str | None, bool]:
    """The commit the book is built from, and whether tracked files differ from it.

    Parameters
    ----------
    root : Path
        The repository's top folder.
    environ : mapping, optional
        The environment to read ``SVMTRUST_COMMIT`` from; ``os.environ`` by default.

    Returns
    -------
    commit : str or None
        The full hash, or None when neither ``SVMTRUST_COMMIT`` nor git gives one.
    modified : bool
        True when git lists uncommitted changes to tracked files (always False for a commit
        given by ``SVMTRUST_COMMIT``).

    Raises
    ------
    ValueError
        If ``SVMTRUST_COMMIT`` is set but is not a full commit hash.
    """
    environ = os.environ if environ is None else environ
    given = environ.get("SVMTRUST_COMMIT", "").strip()
    if given:
        if not COMMIT.fullmatch(given.lower()):
            raise ValueError(
                f"SVMTRUST_COMMIT must be a full commit hash (40 hexadecimal digits), got {given!r}"
            )
        return given.lower(), False
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None or not COMMIT.fullmatch(commit):
        return None, False
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return commit, bool(status)


@lru_cache(maxsize=1)
def identity() -> dict:
    """Version, release date and release commit (``CITATION.cff``) and the build's commit.

    Read once per build; the keys are ``title``, ``version``, ``released``,
    ``release_commit``, ``commit`` (None when unknown) and ``modified``.
    """
    cff = citation()
    commit, modified = build_commit()
    return {
        "title": cff["title"],
        "version": str(cff["version"]),
        "released": str(cff["date-released"]),
        "release_commit": str(cff.get("commit", "")),
        "commit": commit,
        "modified": modified,
    }


def built_from(ident: dict | None = None) -> str:
    """The build's commit in words: "commit 1a2b...", with uncommitted changes, or unknown."""
    ident = identity() if ident is None else ident
    if ident["commit"] is None:
        return "an unknown commit (no git repository and no SVMTRUST_COMMIT)"
    text = f"commit {ident['commit']}"
    if ident["modified"]:
        text += " with uncommitted changes"
    return text


def sentence(ident: dict | None = None) -> str:
    """What the introduction and the PDF's title page say about this copy of the book."""
    ident = identity() if ident is None else ident
    release = f"version {ident['version']}, released {ident['released']}"
    if ident["commit"] is not None and ident["commit"] == ident["release_commit"]:
        return f"This copy of the book is {release}, built from its {built_from(ident)}."
    return (
        f"This copy of the book was built from {built_from(ident)}; the release it belongs to "
        f"is {release} (commit {ident['release_commit']})."
    )


class book_build(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """Where the sentence goes; filled in when the page is written."""


class BookBuild(SphinxDirective):
    """``{book-build}``: the version, release and commit of this copy of the book."""

    def run(self):
        PAGES.record(self.env)
        return [book_build()]


def _commit_state(app):
    """What the ``{book-build}`` sentence depends on: the commit, and whether it was modified."""
    return (identity()["commit"], identity()["modified"])


#: The pages holding ``{book-build}``, written again when the commit changes.
PAGES = PageTracker("book_build", _commit_state)


def resolve(app, doctree, docname):
    """Replace ``{book-build}`` by the sentence (in the HTML pages and in the PDF alike)."""
    for node in list(doctree.findall(book_build)):
        paragraph = nodes.paragraph(classes=["book-build"])
        paragraph += nodes.Text(sentence())
        node.replace_self(paragraph)


def setup(app):
    identity.cache_clear()
    identity()  # a bad SVMTRUST_COMMIT stops the build at once
    app.add_node(book_build)
    app.add_directive("book-build", BookBuild)
    PAGES.connect(app)
    app.connect("doctree-resolved", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
