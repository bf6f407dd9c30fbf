"""Open chapters in JupyterLab (with jupyterlab-myst) in a headless Chromium and save what a
reader sees, to check what book/run.md says about JupyterLab.

Usage: ``python tools/lab_screenshots.py OUTDIR [CHAPTER ...]`` (default: svm span discrepancy).
The chapters are copied into a temporary folder, so Lab cannot write to the tracked notebooks.
For each chapter it saves ``OUTDIR/CHAPTER.png`` (the top of the notebook) and
``OUTDIR/CHAPTER-statement.png`` (scrolled to the first theorem or definition), and prints what
the rendered page holds: unresolved citations, missing cross-reference targets, the statement
numbers, and whether opening the notebook marked it modified. A control, the first chapter with
the kernel display name "Python 3" that the chapters stored before, shows that the last check
can fail. Needs Chromium (see tests/html/browser.py).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.html.browser import Browser, find_chromium  # noqa: E402

#: What the rendered notebook holds, counted in the page.
REPORT = """(() => {
  const panel = document.querySelector('#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden)');
  const text = panel ? panel.querySelector('.jp-Notebook').innerText : '';
  const tab = document.querySelector('#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current');
  return {
    cells: panel ? panel.querySelectorAll('.jp-MarkdownCell').length : 0,
    citation_keys_shown: [...new Set(text.match(/\\b[a-z]+-[a-z]+\\d{4}[a-z]+\\b/g) || [])].length,
    missing_targets: (text.match(/target was not found/g) || []).length,
    statements: [...new Set(text.match(/\\b(Theorem|Definition|Algorithm|Lemma|Proposition) \\d+(\\.\\d+)?/g) || [])].slice(0, 6),
    equation_refs: [...new Set(text.match(/\\(\\d+(\\.\\d+)?\\)/g) || [])].slice(0, 6),
    kernel: document.querySelector('#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden) .jp-KernelName')?.innerText ?? '',
    dirty: !!(tab && tab.classList.contains('jp-mod-dirty')),
  };
})()"""

SCROLL_TO_STATEMENT = """(() => {
  const panel = document.querySelector('#jp-main-dock-panel .jp-NotebookPanel:not(.lm-mod-hidden)');
  const node = [...panel.querySelectorAll('.jp-MarkdownCell')].find(
    c => /\\b(Theorem|Proposition|Definition) \\d/.test(c.innerText) && c.querySelector('aside, .admonition, details, div[class*=proof]'));
  if (node) node.scrollIntoView();
  return !!node;
})()"""


#: JupyterLab settings for the run.
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("lab-screenshots")
    chapters = argv[1:] or ["svm", "span", "discrepancy"]
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="lab-"))
    for chapter in chapters:
        shutil.copy(ROOT / "book" / f"{chapter}.ipynb", work)
    # A control: the first chapter with the kernel's display name the chapters used to store.
    control = json.loads((ROOT / "book" / f"{chapters[0]}.ipynb").read_text(encoding="utf-8"))
    control["metadata"]["kernelspec"]["display_name"] = "Python 3"
    (work / "control.ipynb").write_text(json.dumps(control, indent=1), encoding="utf-8")
    # Every cell rendered (no windowing), so that the counts cover the whole notebook; no news.
    for name, value in SETTINGS.items():
        path = work / ".settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")
    port = free_port()
    lab = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("jupyter")),
            "lab",
            "--no-browser",
            f"--port={port}",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            f"--ServerApp.root_dir={work}",
            "--LabApp.workspaces_dir=" + str(work / ".workspaces"),
            "--LabApp.user_settings_dir=" + str(work / ".settings"),
            "--allow-root",  # CI runs as root
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(8)
        with Browser(find_chromium(), timeout=120) as browser:
            browser.emulate(1280, 900)
            for chapter in [*chapters, "control"]:
                browser.open(f"http://127.0.0.1:{port}/lab/tree/{chapter}.ipynb")
                time.sleep(15)  # Lab loads its extensions, then jupyterlab-myst renders
                browser.screenshot(out / f"{chapter}.png")
                found = browser.evaluate(REPORT)
                if browser.evaluate(SCROLL_TO_STATEMENT):
                    time.sleep(2)
                    browser.screenshot(out / f"{chapter}-statement.png")
                if chapter != "control":
                    before = (ROOT / "book" / f"{chapter}.ipynb").read_bytes()
                    found["file_unchanged"] = (work / f"{chapter}.ipynb").read_bytes() == before
                print(chapter, json.dumps(found))
    finally:
        lab.terminate()
        lab.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
