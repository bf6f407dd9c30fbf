"""The check of the PDF build's LaTeX log (tools/latex_log.py) finds what it must."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import latex_log  # noqa: E402

LOG = r"""
Overfull \hbox (3.2pt too wide) in paragraph at lines 10--12
Overfull \hbox (35.5pt too wide) in paragraph at lines 120--125
Overfull \hbox (21.0pt too wide) detected at line 300
LaTeX Warning: Reference `span:equation-span-dual' on page 12 undefined on input line 400.
LaTeX Warning: Citation `chapelle1999model' on page 13 undefined on input line 410.
LaTeX Warning: There were undefined references.
"""


def test_finds_wide_boxes_and_undefined_names():
    found = latex_log.problems(LOG)
    assert found == [
        "undefined: span:equation-span-dual",
        "undefined: chapelle1999model",
        "overfull by 35.5 pt in paragraph at lines 120--125",
        "overfull by 21.0 pt detected at line 300",
    ]
    assert latex_log.problems(LOG, tolerance=40) == found[:2]


def test_a_clean_log_passes_and_the_summary_line_alone_fails():
    assert latex_log.problems("Overfull \\hbox (19.9pt too wide) in paragraph at lines 1--2") == []
    assert latex_log.problems("LaTeX Warning: There were undefined references.") != []


def test_finds_characters_missing_from_their_fonts():
    """XeTeX's "Missing character" lines (the set-minus of Latin Modern Math, 2026-12-01)."""
    log = (
        "Missing character: There is no \u29f5 (U+29F5) in font "
        "[latinmodern-math.otf]/OT:script=math;language=dflt;!\n"
        "Missing character: There is no \u29f5 (U+29F5) in font "
        "[latinmodern-math.otf]/OT:script=math;language=dflt;!\n"
    )
    assert latex_log.problems(log) == ["missing character: \u29f5 (U+29F5) in latinmodern-math.otf"]


def test_command_line_exit_status(tmp_path, capsys):
    log = tmp_path / "book.log"
    log.write_text(LOG)
    assert latex_log.main([str(log)]) == 1
    assert "4 problem(s)" in capsys.readouterr().out
    log.write_text("Output written on book.pdf (3 pages).")
    assert latex_log.main([str(log)]) == 0
    with pytest.raises(SystemExit) as stop:
        latex_log.main([str(tmp_path / "missing.log")])
    assert stop.value.code == 2
    with pytest.raises(ValueError, match="^tolerance"):
        latex_log.problems(LOG, tolerance=-1)
