"""What the build must have produced before a check can read it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def require_built(path: Path, what: str, command: str, note: str = "") -> Path:
    """``path`` if the build wrote it; else a failure under ``REQUIRE_PDF=1`` (``make test``
    builds the PDFs first) or a skip, either saying which command builds it (and ``note``)."""
    if not path.is_file():
        message = f"no {what} at {path}: run `{command}`{note}"
        if os.environ.get("REQUIRE_PDF") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path
