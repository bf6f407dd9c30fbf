"""The built book, for the tests that read its HTML.

These tests run after the book is built (``make html-check``, part of ``make test``); without a
build they skip, unless REQUIRE_HTML=1 is set, when a missing build is a failure.
"""

import os
from pathlib import Path

import pytest

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
