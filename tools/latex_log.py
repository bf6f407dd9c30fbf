r"""Check the log of the book's LaTeX build: no undefined reference or citation, no character
missing from its font (XeTeX drops it silently from the PDF: ``\setminus``, U+29F5, is not in
Latin Modern Math, so "F = S \ B" printed as "F = S B"), and no overfull box wider than a
tolerance (20 pt: a line that sticks that far into the margin is cut or ugly).

Usage: ``python tools/latex_log.py [LOG] [--tolerance PT]`` (default
``_build/latex/trusting-svm.log``). Prints every problem with the lines of the ``.tex`` file it
comes from, and exits with status 1 if there is one, 0 otherwise; ``make pdf`` runs it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

LOG = Path(__file__).resolve().parents[1] / "_build" / "latex" / "trusting-svm.log"

#: "Overfull \hbox (35.1pt too wide) in paragraph at lines 120--125" (or "detected at line 9").
OVERFULL = re.compile(r"^Overfull \\[hv]box \((\d+(?:\.\d+)?)pt too (?:wide|high)\)(.*)$", re.M)
#: "Missing character: There is no ⧵ (U+29F5) in font [latinmodern-math.otf]/OT:script=math;..."
MISSING = re.compile(r"^Missing character: There is no (.*?) in font \[?([^\]/;]+)", re.M)
#: "LaTeX Warning: Reference `x' on page 3 undefined", the same for citations and hyperref's
#: "Hyper reference `x' on page 3 undefined".
UNDEFINED = re.compile(
    r"^.*Warning: (?:Hyper reference|Reference|Citation) `([^']+)'.*undefined", re.M
)


def problems(log: str, tolerance: float = 20.0) -> list[str]:
    """The undefined references and citations, the characters missing from their fonts, and
    the overfull boxes wider than ``tolerance`` points, in the text of a LaTeX log."""
    if tolerance < 0:
        raise ValueError(f"tolerance: must be at least 0, got {tolerance!r}")
    found = [f"undefined: {name}" for name in dict.fromkeys(UNDEFINED.findall(log))]
    found += [
        f"missing character: {char} in {font}" for char, font in dict.fromkeys(MISSING.findall(log))
    ]
    for match in OVERFULL.finditer(log):
        if float(match.group(1)) > tolerance:
            found.append(f"overfull by {match.group(1)} pt{match.group(2)}")
    if "There were undefined references" in log and not any("undefined:" in f for f in found):
        found.append("undefined: LaTeX reports undefined references")
    return found


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", nargs="?", default=str(LOG), help="the LaTeX log file")
    parser.add_argument("--tolerance", type=float, default=20.0, help="points (default 20)")
    args = parser.parse_args(argv)
    path = Path(args.log)
    if not path.is_file():
        parser.error(f"log: no file {path} (run `make pdf` first)")
    if args.tolerance < 0:
        parser.error(f"tolerance: must be at least 0, got {args.tolerance}")
    found = problems(path.read_text(encoding="utf-8", errors="replace"), args.tolerance)
    for line in found:
        print(f"{path.name}: {line}")
    print(f"{path.name}: {len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
