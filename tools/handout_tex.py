"""Write the handout's LaTeX source (the book without the solutions of its exercises) from the
book's, as ``make pdf SOLUTIONS=0`` and ``make test`` do, instead of a second Sphinx build.

Usage: ``python tools/handout_tex.py BOOK_TEX HANDOUT_DIR``. ``BOOK_TEX`` is the book's source,
written by the LaTeX build (``_build/pdf/book/_build/latex/trusting-svm.tex``) with the marks of
``book/_ext/latex_marks.py``. ``HANDOUT_DIR`` is made anew: the files beside ``BOOK_TEX`` (the
images, Sphinx's style files, its Makefile and latexmkrc) except the book's own
(``trusting-svm.*``: source, log, auxiliary files, PDF), and ``trusting-svm-handout.tex``, where
every marked solution is left out and the title page says that this is the handout. Everything
else, the PDF's metadata included, is the book's, byte for byte.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
from latex_marks import (  # noqa: E402
    HANDOUT_SUFFIX,
    HANDOUT_TITLE,
    HANDOUT_TITLE_MARK,
    SOLUTION_BEGIN,
    SOLUTION_END,
)

#: A marked solution with its marks, as ``book_pdf.MarkSolutions`` writes them: Sphinx's LaTeX
#: writer sets a block of raw LaTeX between two line breaks of its own, so the solution and those
#: breaks are exactly what the source would lack without it.
_SOLUTION = re.compile(
    r"\n" + re.escape(SOLUTION_BEGIN) + r"\n.*?\n" + re.escape(SOLUTION_END) + r"\n", re.S
)


def without_solutions(tex: str) -> tuple[str, int]:
    """``tex`` with every marked solution left out, and how many there were.

    Raises
    ------
    ValueError
        If the marks do not pair up (a solution opened and never closed, or nested).
    """
    opened, closed = tex.count(SOLUTION_BEGIN), tex.count(SOLUTION_END)
    cut, count = _SOLUTION.subn("", tex)
    if not opened == closed == count or SOLUTION_BEGIN in cut or SOLUTION_END in cut:
        raise ValueError(
            f"solution marks do not pair up: {opened} openings, {closed} closings, "
            f"{count} solutions cut"
        )
    return cut, count


def handout_title(tex: str) -> str:
    """``tex`` with the handout's line of the title page uncommented.

    Raises
    ------
    ValueError
        If the book's title page does not hold that line exactly once.
    """
    marked = HANDOUT_TITLE_MARK + HANDOUT_TITLE
    if tex.count(marked) != 1:
        raise ValueError(f"expected the commented handout title once, found {tex.count(marked)}")
    return tex.replace(marked, HANDOUT_TITLE)


def handout(tex: str) -> str:
    """The handout's LaTeX source from the book's: no solution, the handout's title page.

    Raises
    ------
    ValueError
        If the book's source carries no marked solution (it was not written by the book's
        extension), marks that do not pair up, or no commented handout title.
    """
    cut, count = without_solutions(tex)
    if count == 0:
        raise ValueError("the book's LaTeX source marks no solution: was it built by book_pdf?")
    return handout_title(cut)


def write(book_tex: Path, out_dir: Path) -> Path:
    """Make ``out_dir`` anew with the files beside ``book_tex`` but the book's own, and the
    handout's source in it; return the path of that source."""
    book_tex = Path(book_tex)
    source = handout(book_tex.read_text(encoding="utf-8"))
    stem = book_tex.stem
    if Path(out_dir).exists():
        shutil.rmtree(out_dir)
    shutil.copytree(
        book_tex.parent,
        out_dir,
        ignore=lambda folder, names: [n for n in names if n.startswith(stem + ".")],
    )
    target = Path(out_dir) / f"{stem}{HANDOUT_SUFFIX}.tex"
    target.write_text(source, encoding="utf-8")
    return target


def main(argv=None) -> int:
    """Entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("book_tex", help="the book's LaTeX source")
    parser.add_argument("handout_dir", help="the folder to make for the handout's LaTeX build")
    args = parser.parse_args(argv)
    book_tex = Path(args.book_tex)
    if not book_tex.is_file():
        parser.error(f"book_tex: no file {book_tex} (run the book's LaTeX build first)")
    if Path(args.handout_dir).resolve() == book_tex.parent.resolve():
        parser.error("handout_dir: must not be the book's own LaTeX folder")
    try:
        target = write(book_tex, Path(args.handout_dir))
    except ValueError as error:
        print(f"{book_tex}: {error}", file=sys.stderr)
        return 1
    print(f"{target}: the handout's LaTeX source")
    return 0


if __name__ == "__main__":
    sys.exit(main())
