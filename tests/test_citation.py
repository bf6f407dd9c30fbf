"""The book's citation: CITATION.cff carries a version and a release date, and the BibTeX
entries in the README and the introduction say the same."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _cff():
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _bibtex(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    blocks = re.findall(r"```bibtex\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, f"{path}: expected one BibTeX block, found {len(blocks)}"
    return blocks[0]


def test_citation_cff_has_version_and_release_date():
    cff = _cff()
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(cff["version"]))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))
    assert cff["title"] == "Trusting the Support Vector Machine"


def test_bibtex_entries_match_citation_cff():
    cff = _cff()
    version, released = str(cff["version"]), str(cff["date-released"])
    entries = [_bibtex("README.md"), _bibtex("book/intro.md")]
    assert entries[0] == entries[1]
    entry = entries[0]
    assert f"version = {{{version}}}" in entry
    assert f"year    = {{{released[:4]}}}" in entry
    assert released in entry and cff["title"] in entry


def test_bibliography_parses_and_every_cited_key_is_in_it():
    """references.bib is valid BibTeX (a brace lost in a merge fails here, not in the build)
    and every key a chapter cites with {cite}, {cite:t} or {cite:p} is one of its entries."""
    import pybtex.database

    keys = set(pybtex.database.parse_file(ROOT / "book" / "references.bib").entries)
    cited = set()
    for path in sorted((ROOT / "book").glob("*.*")):
        if path.suffix in (".md", ".ipynb"):
            text = path.read_text(encoding="utf-8")
            for group in re.findall(r"\{cite(?::[tp])?\}`([^`]+)`", text):
                cited.update(key.strip() for key in group.split(","))
    assert cited, "no citation found: the pattern is wrong"
    assert sorted(cited - keys) == []


def test_citation_names_the_book_its_version_and_the_pdf():
    """CITATION.cff's preferred citation and the BibTeX entry name the book, its version and
    its PDF; the PDF's title page (book/_ext/book_pdf.py) carries version, date and the entry."""
    import sys

    cff = _cff()
    preferred = cff["preferred-citation"]
    assert preferred["title"] == cff["title"] and str(preferred["version"]) == str(cff["version"])
    assert str(preferred["date-released"]) == str(cff["date-released"])
    pdf = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["latex"]
    pdf_name = pdf["latex_documents"]["targetname"].replace(".tex", ".pdf")
    assert preferred["filename"] == pdf_name
    assert pdf_name in _bibtex("book/intro.md")
    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    import book_pdf

    page = book_pdf.title_page()
    assert _bibtex("book/intro.md").rstrip() in page
    assert f"Version {cff['version']}, released {cff['date-released']}" in page


def test_reference_lists_are_labelled_as_the_text_cites():
    """One citation style: every entry of references.bib gets an author-year label, "Chapelle
    and Vapnik, 1999" as the chapters cite it, unique over the file and free of LaTeX."""
    import sys

    import pybtex.database

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    from citation_style import author_year_labels

    entries = list(pybtex.database.parse_file(ROOT / "book" / "references.bib").entries.values())
    labels = author_year_labels(entries)
    assert len(set(labels)) == len(labels)
    assert not [label for label in labels if set(label) & set('{}\\"')]
    by_key = dict(zip((entry.key for entry in entries), labels, strict=True))
    assert by_key["chapelle1999model"] == "Chapelle and Vapnik, 1999"
    assert by_key["saunders1999transduction"] == "Saunders et al., 1999"
    assert by_key["scholkopf2002learning"] == "Schölkopf and Smola, 2002"


def _pyproject_version():
    import tomllib

    with (ROOT / "lib" / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)["project"]["version"]


def _bibtex_field(entry, field):
    found = re.search(rf"^\s*{field}\s*=\s*\{{(.*?)\}}\s*,?\s*$", entry, flags=re.M | re.S)
    assert found, f"no {field} in {entry}"
    return found.group(1)


def test_version_date_and_commit_agree_everywhere():
    """CITATION.cff (and its preferred citation), the package's pyproject.toml and the BibTeX
    entries of the README and the introduction give one version, one release date and one
    release commit."""
    cff = _cff()
    version, released, commit = str(cff["version"]), str(cff["date-released"]), cff["commit"]
    assert re.fullmatch(r"[0-9a-f]{40}", commit), commit
    preferred = cff["preferred-citation"]
    assert (str(preferred["version"]), str(preferred["date-released"])) == (version, released)
    assert preferred["commit"] == commit
    assert _pyproject_version() == version
    for path in ("README.md", "book/intro.md"):
        entry = _bibtex(path)
        assert _bibtex_field(entry, "version") == version, path
        assert _bibtex_field(entry, "year") == released[:4], path
        note = " ".join(_bibtex_field(entry, "note").split())
        assert f"version {version}, released {released}, commit {commit}" in note, path


def _git(*args):
    import shutil
    import subprocess

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def test_the_release_commit_is_the_release():
    """The commit CITATION.cff names holds a CITATION.cff of the same version and release
    date, and was committed on that date (UTC). Needs the repository's history: skipped in an
    exported tree or a shallow clone that lacks the commit."""
    cff = _cff()
    released_cff = _git("show", f"{cff['commit']}:CITATION.cff")
    if released_cff is None:
        import pytest

        pytest.skip(f"no git history holding {cff['commit']} (exported tree or shallow clone)")
    then = yaml.safe_load(released_cff)
    assert (str(then["version"]), str(then["date-released"])) == (
        str(cff["version"]),
        str(cff["date-released"]),
    )
    date = _git("show", "-s", "--format=%cd", "--date=format-local:%Y-%m-%d", cff["commit"])
    assert date is not None
    assert date.strip() == str(cff["date-released"])


def _book_ext(name):
    import importlib
    import sys

    sys.path.insert(0, str(ROOT / "book" / "_ext"))
    return importlib.import_module(name)


def test_the_build_names_its_commit(tmp_path):
    """The build reads its commit from SVMTRUST_COMMIT, else from git, else says it is
    unknown; a malformed SVMTRUST_COMMIT is refused by name."""
    import pytest

    book_build = _book_ext("book_build")
    given = "0123456789ABCDEF0123456789abcdef01234567"
    assert book_build.build_commit(ROOT, {"SVMTRUST_COMMIT": given}) == (given.lower(), False)
    for bad in ("1a2b3c", "g" * 40, "HEAD"):
        with pytest.raises(ValueError, match="SVMTRUST_COMMIT"):
            book_build.build_commit(ROOT, {"SVMTRUST_COMMIT": bad})
    # outside any repository (tmp_path lies outside the book's) and without the variable
    assert book_build.build_commit(tmp_path, {}) == (None, False)
    ident = {
        "version": "1.2.3",
        "released": "2030-01-02",
        "release_commit": "a" * 40,
        "commit": None,
        "modified": False,
    }
    assert "unknown commit" in book_build.sentence(ident)
    assert "version 1.2.3, released 2030-01-02 (commit " + "a" * 40 in book_build.sentence(ident)
    same = {**ident, "commit": "a" * 40}
    assert book_build.sentence(same).startswith("This copy of the book is version 1.2.3")
    later = {**ident, "commit": "b" * 40, "modified": True}
    assert f"commit {'b' * 40} with uncommitted changes" in book_build.sentence(later)
    head = _git("rev-parse", "HEAD")
    if head is not None:
        assert book_build.build_commit(ROOT, {})[0] == head.strip()


def test_the_handout_title_page_is_the_books_with_its_line_uncommented():
    """The book's title page holds the handout's line only as a LaTeX comment, which the
    handout's source (tools/handout_tex.py) uncomments: the two title pages differ by it."""
    book_pdf = _book_ext("book_pdf")
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import handout_tex

    book, handout = book_pdf.title_page(), book_pdf.title_page(without_solutions=True)
    assert "Handout" in handout
    assert all(line.startswith("%") for line in book.splitlines() if "Handout" in line)
    assert handout_tex.handout_title(book) == handout
