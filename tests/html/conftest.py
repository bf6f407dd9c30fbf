"""The built book, for the tests that read its HTML.

These tests run after the book is built (``make html-check``, part of ``make test``); without a
build they skip, unless REQUIRE_HTML=1 is set, when a missing build is a failure.

``make html-check`` runs them on two pytest-xdist workers, one file at a time, in an order that
lets them finish together (:func:`pytest_collection_modifyitems`): the layout measurements of
every page in two Chromiums (``test_layout.py``) on one worker, the other files on the other
worker, where each page is parsed once for all the checks that read it (:func:`soup`).
"""

import os
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from .browser import INSTALL, Browser, find_chromium

HTML = Path(__file__).resolve().parents[2] / "_build" / "html"


@pytest.fixture(scope="session")
def html_dir() -> Path:
    """The folder of the built HTML book."""
    if not HTML.is_dir():
        if os.environ.get("REQUIRE_HTML") == "1":
            pytest.fail(f"no built book at {HTML}: run `make book` first")
        pytest.skip("book not built")
    return HTML


@pytest.fixture(scope="session")
def pages(html_dir) -> list[Path]:
    """Every HTML page of the built book."""
    return sorted(html_dir.rglob("*.html"))


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for every layout check of the session, or a failure
    (REQUIRE_HTML=1) or skip that says how to install it."""
    executable = find_chromium()
    if executable is None:
        message = (
            "no Chromium for the layout checks: install it with "
            f"`{INSTALL}` (as root), or set CHROMIUM to its path"
        )
        if os.environ.get("REQUIRE_HTML") == "1":
            pytest.fail(message)
        pytest.skip(message)
    with Browser(executable) as chromium:
        yield chromium


@pytest.fixture(scope="session")
def soup():
    """``soup(page)``: the page parsed (BeautifulSoup with lxml's parser), once per session for every test that
    reads it. The parsed page is shared: a test must not change it."""
    parsed = {}

    def parse(page: Path) -> BeautifulSoup:
        key = Path(page).resolve()
        if key not in parsed:
            parsed[key] = BeautifulSoup(key.read_text(encoding="utf-8"), "lxml")
        return parsed[key]

    return parse


#: The test files in the order the two xdist workers take them (``make html-check``: ``--dist
#: loadfile --no-loadscope-reorder``, one file at a time, two queued per worker at the start):
#: the layout of every page measured in two Chromiums (test_layout.py, the longest file) first,
#: then a file of seconds queued behind it, so that the other worker takes every other file
#: (sharing one parse of each page, :func:`soup`) until the first is free. The files not named
#: follow in their usual order. (xdist's ``loadgroup`` would say this with marks, but pytest 9
#: ignores the group suffix xdist 3.8 writes into each test's id.)
FIRST = ("test_layout.py", "test_bibliography.py")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Order the files of this folder as :data:`FIRST` says, the tests within each file as they
    were (a stable sort; items of other folders keep their place after these)."""
    here = Path(__file__).parent

    def rank(item) -> int:
        if item.path.parent != here:
            return len(FIRST) + 1
        name = item.path.name
        return FIRST.index(name) if name in FIRST else len(FIRST)

    items.sort(key=rank)
