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
