"""The built book, for the tests that read its HTML.

These tests run after the book is built (``make html-check``, part of ``make test``); without a
build they skip, unless REQUIRE_HTML=1 is set, when a missing build is a failure.
"""

import os
from pathlib import Path

import pytest

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
