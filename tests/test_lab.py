"""JupyterLab renders the chapters' MyST (theorems, proofs, exercises, {eq}, {cite} and
{prf:ref} roles) through the jupyterlab-myst extension, pinned in requirements.txt: it must be
installed, enabled and compatible with the installed JupyterLab."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _pinned(name):
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{name}=="):
            return line.split("==", 1)[1]
    raise AssertionError(f"{name} is not pinned in requirements.txt")


def test_jupyterlab_myst_is_installed_and_enabled():
    jupyter = Path(sys.executable).with_name("jupyter")
    listing = subprocess.run(
        [str(jupyter), "labextension", "list"], capture_output=True, text=True, timeout=120
    )
    text = ANSI.sub("", listing.stdout + listing.stderr)
    line = next((ln for ln in text.splitlines() if "jupyterlab-myst" in ln), None)
    assert line is not None, text
    assert f"v{_pinned('jupyterlab-myst')}" in line
    assert "enabled" in line and "OK" in line, line  # "X" instead of "OK": incompatible
    assert "is not compatible" not in text, text
