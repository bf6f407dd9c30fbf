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


def test_chapters_store_the_kernelspec_lab_writes():
    """Opening a chapter in JupyterLab starts the environment's kernel and writes its name and
    display name into the notebook: the chapters store exactly these, so opening one does not
    mark it modified (tools/lab_screenshots.py shows the difference in a browser)."""
    import json

    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    expected = {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        stored = json.loads(path.read_text(encoding="utf-8"))["metadata"]["kernelspec"]
        assert stored == expected, (path.name, stored, expected)


def test_nbval_runs_of_the_chapters_show_no_progress_bar(monkeypatch):
    """book/conftest.py, which pytest loads for `pytest --nbval-lax book/NAME.ipynb`, switches
    the progress bars off unless SVMTRUST_PROGRESS is set."""
    import runpy

    monkeypatch.delenv("SVMTRUST_PROGRESS", raising=False)
    runpy.run_path(str(ROOT / "book" / "conftest.py"))
    assert sys.modules["os"].environ["SVMTRUST_PROGRESS"] == "0"
    monkeypatch.setenv("SVMTRUST_PROGRESS", "1")
    runpy.run_path(str(ROOT / "book" / "conftest.py"))
    assert sys.modules["os"].environ["SVMTRUST_PROGRESS"] == "1"
