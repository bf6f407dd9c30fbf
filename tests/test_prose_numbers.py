"""Numbers the prose quotes are numbers the cells print (issue 53).

Every decimal number with two or more decimals in a chapter's Markdown must appear among the
numbers its checked cells store (``# NBVAL_CHECK_OUTPUT``: nbval compares them on every run),
written as the prose writes it or rounded from a printed one (``0.131`` printed, ``0.13``
quoted). A cell whose output changes then fails nbval, and a prose number left behind fails
here: the prose cannot quote a figure its cells no longer print. Numbers that glue
(``{glue:text}``) puts in the prose are the kernel's own and are not in the Markdown at all.

:data:`NOT_PRINTED` lists, with the reason, the decimals the prose may write without a cell: a
constant of a formula, a software version, an arithmetic fact stated in the sentence. A new
entry needs a reason of that kind; a figure of a computation belongs in a checked cell.
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))

#: A decimal number with at least two decimals, not part of a word or of a longer number.
QUOTED = re.compile(r"(?<![\w.])\d+\.\d{2,}(?![\d])")
#: Any decimal number of an output.
PRINTED = re.compile(r"(?<![\w.])\d+\.\d+(?![\d])")

#: (chapter, number): why the prose may write it without a cell printing it.
NOT_PRINTED = {
    ("confidence_compared", "3.29"): "the normal quantile of 0.9995 in a formula",
    ("discrepancy", "3.689"): "log 40, the arithmetic of the sentence",
    ("nonconformity_selection", "5.66"): "the constant of the paper's VC bound",
    ("nonconformity_selection", "2.85"): "LibSVM's version number",
    ("span", "1.75"): "an exponent of the grid, 2^1.75",
    ("tcm_nn", "0.095"): "4/42, the arithmetic of the sentence",
    ("tcm_nn", "0.013"): "the binomial standard error of 0.095 over the exercise's trials",
    ("transduction", "95.24"): "1 - 1/21 in per cent, the arithmetic of the sentence",
    ("transduction", "4.45"): "a past run's value, quoted as history (10^-4 of a margin)",
}


def _normal(number: str) -> str:
    """``number`` without trailing zeros of its decimals (``1.30`` and ``1.3`` are one)."""
    whole, _, decimals = number.partition(".")
    decimals = decimals.rstrip("0")
    return f"{whole}.{decimals}" if decimals else whole


def _written(number: str) -> set[str]:
    """``number`` and every shorter rounding of it (half up and half even), normalised."""
    value, places = Decimal(number), len(number.partition(".")[2])
    out = {_normal(number)}
    for place in range(places):
        for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN):
            out.add(_normal(str(value.quantize(Decimal(1).scaleb(-place), rounding=mode))))
    return out


def _outputs(cells) -> str:
    """Every stored output's text: streams and the plain-text form of displays."""
    texts = []
    for cell in cells:
        for output in cell.get("outputs", []):
            texts.append("".join(output.get("text", "")))
            for value in output.get("data", {}).values():
                texts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(texts)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_prose_numbers_are_printed(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    printed = set()
    for number in PRINTED.findall(_outputs(c for c in cells if c["cell_type"] == "code")):
        printed |= _written(number)
    stale = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for number in QUOTED.findall("".join(cell["source"])):
            if _normal(number) not in printed and (path.stem, number) not in NOT_PRINTED:
                stale.append(f"cell {index}: {number}")
    assert not stale, f"{path.name}: prose numbers no checked cell prints: {stale}"


def test_every_exception_is_still_needed():
    """An entry of NOT_PRINTED whose number the chapter no longer writes is removed."""
    for (chapter, number), reason in NOT_PRINTED.items():
        notebook = ROOT / "book" / f"{chapter}.ipynb"
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        prose = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        assert number in QUOTED.findall(prose), (chapter, number, reason)


def test_a_number_that_goes_stale_is_caught(tmp_path):
    """The check bites: a printed 0.169 quoted as 0.17 passes; the same prose beside an output
    that now prints 0.181 fails."""
    printed = set()
    for number in PRINTED.findall("mean 0.169"):
        printed |= _written(number)
    assert _normal("0.17") in printed and _normal("0.169") in printed
    printed = set()
    for number in PRINTED.findall("mean 0.181"):
        printed |= _written(number)
    assert _normal("0.17") not in printed
