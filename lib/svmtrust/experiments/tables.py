"""Result tables a reader can read: one table object, three presentations.

A chapter shows a table of results with ``display(Table(frame, title=...))`` instead of printing
``frame.to_string()``. The numbers are the ones ``to_string`` prints (pandas formats each column
the same way for both), so a table keeps its rounding; only the presentation changes:

- the HTML book gets a real ``<table>`` (``text/html``) inside a box that scrolls sideways when the
  table is wider than the text column (``book/_static/book.css``, class ``svmtrust-table``);
- the PDF gets Markdown tables (``text/markdown``, which Jupyter Book's LaTeX builder prefers to
  plain text and renders as LaTeX tables), split into several tables with the row labels
  repeated when the columns do not fit the text width;
- plain text (``repr``, what nbval compares and a terminal shows) is split the same way into
  blocks no wider than :data:`TEXT_WIDTH` characters.

A long printed line that is not a table goes through :func:`print_wrapped` instead of ``print``:
it is broken at spaces to fit the same width, so no number is ever cut in two.

Every presentation is deterministic (no random ids), so a cell marked ``# NBVAL_CHECK_OUTPUT``
that displays a table stays checked.
"""

from __future__ import annotations

import html
import textwrap

import pandas as pd

from ..validation import check_integer

__all__ = ["Table", "print_wrapped", "wrapped"]

#: Characters a line of plain text may take (the text column of the HTML book at 1280 px holds
#: about 78 characters of its monospaced output font).
TEXT_WIDTH = 78
#: Characters of cell text a table of the PDF may take across (A4, the body font, with room
#: for the column gaps); a table with more is split.
PDF_WIDTH = 72
#: Characters Markdown gives a special meaning, escaped in the PDF's tables.
_MARKDOWN_SPECIAL = "\\`*_{}[]<>()#+!|$~"


def wrapped(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` with every line longer than ``width`` characters broken at spaces.

    A broken line's continuation is indented two spaces more than the line itself; a word
    longer than ``width`` (a number, a path) stays whole on a line of its own, never cut.
    Shorter lines, blank lines and the spaces that align columns are kept as they are.

    Parameters
    ----------
    text : str
        The text, one or more lines.
    width : int, default :data:`TEXT_WIDTH`
        Characters a line may take.

    Returns
    -------
    str
        The text, rewrapped.

    Examples
    --------
    >>> print(wrapped("error rates 0.031, 0.052 and 0.107 at eps 0.1", width=24))
    error rates 0.031, 0.052
      and 0.107 at eps 0.1
    """
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {type(text).__name__}")
    width = check_integer(width, "width", low=8)
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip(" "))]
        lines += textwrap.wrap(
            line,
            width,
            subsequent_indent=indent + "  ",
            break_long_words=False,
            break_on_hyphens=False,
            expand_tabs=False,
            replace_whitespace=False,
        )
    return "\n".join(lines)


def print_wrapped(*values, sep: str = " ", end: str = "\n", width: int = TEXT_WIDTH) -> None:
    """Print ``values`` as ``print(*values, sep=sep, end=end)`` does, rewrapped by
    :func:`wrapped` (a line continued by the next call is wrapped on its own).

    Parameters
    ----------
    *values
        What to print, each turned into text by ``str``.
    sep : str, default " "
        Put between the values.
    end : str, default "\\n"
        Written after the text.
    width : int, default :data:`TEXT_WIDTH`
        Characters a line may take.

    Examples
    --------
    >>> print_wrapped("p-values:", [0.031, 0.052, 0.107], width=20)
    p-values: [0.031,
      0.052, 0.107]
    """
    if not isinstance(sep, str):
        raise ValueError(f"sep: expected a string, got {type(sep).__name__}")
    if not isinstance(end, str):
        raise ValueError(f"end: expected a string, got {type(end).__name__}")
    print(wrapped(sep.join(map(str, values)), width), end=end)


def _label(value) -> str:
    """A row or column label as text: a tuple of levels joined by spaces, blanks left out."""
    if isinstance(value, tuple):
        return " ".join(str(v) for v in value if str(v) != "")
    return "" if value is None else str(value)


def _column_texts(frame: pd.DataFrame, float_format, na_rep: str) -> list[list[str]]:
    """Each column's cells as ``to_string`` prints them (pandas formats a column alone exactly
    as it does inside the whole frame)."""
    texts = []
    for i in range(frame.shape[1]):
        column = frame.iloc[:, [i]]
        printed = column.to_string(
            header=False, index=False, float_format=float_format, na_rep=na_rep
        )
        texts.append([line.strip() for line in printed.split("\n")])
    return texts


def _level_texts(index: pd.Index, j: int) -> list[str]:
    """Level ``j`` of the row labels as text: floats as ``to_string`` prints them (one number of
    decimals for the level, "2.000" beside "2.828"), anything else as ``str`` gives it."""
    if isinstance(index, pd.MultiIndex):
        level, codes = index.levels[j], index.codes[j]
    else:
        level, codes = index, range(len(index))
    if pd.api.types.is_float_dtype(level.dtype):
        texts = [text.strip() for text in level._format_flat(include_name=False)]
        return [texts[code] if code >= 0 else "NaN" for code in codes]
    values = index.get_level_values(j)
    return [str(v) for v in values]


def _index_texts(index: pd.Index) -> tuple[list[str], list[list[str]]]:
    """The row labels, one list per level, a label repeated from the row above left blank (as
    ``to_string`` shows a MultiIndex), and the levels' names."""
    names = [_label(name) for name in index.names]
    columns = [_level_texts(index, j) for j in range(index.nlevels)]
    shown = [list(c) for c in columns]
    for j in range(len(columns) - 1):  # the innermost level is never blanked
        for i in range(1, len(index)):
            if all(columns[k][i] == columns[k][i - 1] for k in range(j + 1)):
                shown[j][i] = ""
    return names, shown


def _groups(widths: list[int], room: int, at_most: int) -> list[list[int]]:
    """Consecutive columns, as few groups as fit: each group's widths (and a gap of 2 each) sum to
    at most ``room`` and hold at most ``at_most`` columns; a column wider than ``room`` alone."""
    groups: list[list[int]] = []
    used = 0
    for i, width in enumerate(widths):
        if groups and used + width + 2 <= room and len(groups[-1]) < at_most:
            groups[-1].append(i)
            used += width + 2
        else:
            groups.append([i])
            used = width + 2
    return groups


class Table:
    """A table of results shown as an HTML table, LaTeX-ready Markdown tables, or plain text.

    Parameters
    ----------
    frame : pandas.DataFrame or pandas.Series
        The table (a Series is one column, headed by its name): its index labels the rows (a MultiIndex shows one column per level), its
        columns the data (a MultiIndex of columns is flattened, levels joined by spaces). Round
        it first (``frame.round(3)``) or give ``float_format``: the cells are what
        ``frame.to_string(float_format=float_format)`` prints.
    title : str, optional
        A line saying what the table holds, shown above it (the caption of the HTML table).
    float_format : callable, optional
        Formats every float cell, as ``DataFrame.to_string``'s argument of that name.
    index : bool, default True
        Whether the row labels are shown (``to_string(index=False)`` hides them).
    na_rep : str, default "NaN"
        Shown for a missing value, as ``to_string``'s argument of that name.
    max_columns : int, default 6
        At most this many data columns side by side in the PDF and in plain text; a wider table
        is split into several, each repeating the row labels. The HTML table is never split: it
        scrolls sideways inside its own box when too wide.

    Examples
    --------
    >>> import pandas as pd
    >>> t = Table(pd.DataFrame({"error": [0.1, 0.25]}, index=["breast", "pima"]), title="error")
    >>> print(repr(t))
    error
            error
    breast   0.10
    pima     0.25
    """

    def __init__(
        self, frame, *, title=None, float_format=None, index=True, na_rep="NaN", max_columns=6
    ):
        if isinstance(frame, pd.Series):  # one column, headed by the Series' name
            frame = frame.to_frame(name="" if frame.name is None else frame.name)
        if not isinstance(frame, pd.DataFrame):
            raise ValueError(
                f"frame: expected a pandas.DataFrame or Series, got {type(frame).__name__}"
            )
        if frame.shape[1] == 0:
            raise ValueError("frame: the table has no columns")
        if title is not None and not isinstance(title, str):
            raise ValueError(f"title: expected a string or None, got {type(title).__name__}")
        if float_format is not None and not callable(float_format):
            raise ValueError("float_format: expected a callable such as '{:.3f}'.format, or None")
        if not isinstance(index, bool):
            raise ValueError(f"index: expected True or False, got {index!r}")
        if not isinstance(na_rep, str):
            raise ValueError(f"na_rep: expected a string, got {type(na_rep).__name__}")
        self.max_columns = check_integer(max_columns, "max_columns", low=1)
        self.title = title
        self.columns = [_label(c) for c in frame.columns]
        self.cells = _column_texts(frame, float_format, na_rep)
        self.index_names, self.index = _index_texts(frame.index) if index else ([], [])
        self.n_rows = len(frame)

    # -- shared layout -------------------------------------------------------------------------

    def _widths(self, texts: list[list[str]], heads: list[str]) -> list[int]:
        return [max([len(h), *map(len, cells)]) for h, cells in zip(heads, texts)]

    def _parts(self, room: int) -> list[list[int]]:
        """The data columns of each part, the row labels' width taken off ``room``."""
        label_room = sum(self._widths(self.index, self.index_names)) + 2 * len(self.index)
        widths = self._widths(self.cells, self.columns)
        return _groups(widths, max(room - label_room, 1), self.max_columns)

    # -- plain text ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        blocks = []
        label_widths = self._widths(self.index, self.index_names)
        for part in self._parts(TEXT_WIDTH):
            widths = self._widths([self.cells[i] for i in part], [self.columns[i] for i in part])
            lines = []
            heads = [n.ljust(w) for n, w in zip(self.index_names, label_widths)]
            heads += [self.columns[i].rjust(w) for i, w in zip(part, widths)]
            lines.append("  ".join(heads).rstrip())
            for r in range(self.n_rows):
                row = [labels[r].ljust(w) for labels, w in zip(self.index, label_widths)]
                row += [self.cells[i][r].rjust(w) for i, w in zip(part, widths)]
                lines.append("  ".join(row).rstrip())
            blocks.append("\n".join(lines))
        text = "\n\n".join(blocks)
        return f"{self.title}\n{text}" if self.title else text

    # -- HTML ----------------------------------------------------------------------------------

    def _repr_html_(self) -> str:
        e = html.escape
        rows = []
        caption = f"<caption>{e(self.title)}</caption>" if self.title else ""
        head = "".join(f'<th class="label">{e(n)}</th>' for n in self.index_names)
        head += "".join(f"<th>{e(c)}</th>" for c in self.columns)
        for r in range(self.n_rows):
            cells = "".join(f'<th class="label">{e(labels[r])}</th>' for labels in self.index)
            cells += "".join(f"<td>{e(column[r])}</td>" for column in self.cells)
            rows.append(f"<tr>{cells}</tr>")
        body = "\n".join(rows)
        return (
            f'<div class="svmtrust-table"><table>{caption}\n'
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table></div>"
        )

    # -- Markdown, for the PDF -----------------------------------------------------------------

    def _repr_markdown_(self) -> str:
        def md(text: str) -> str:
            escaped = "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in text)
            return escaped if escaped.strip() else " "

        blocks = [f"**{md(self.title)}**"] if self.title else []
        for part in self._parts(PDF_WIDTH):
            heads = [*self.index_names, *(self.columns[i] for i in part)]
            align = [":--"] * len(self.index) + ["--:"] * len(part)
            lines = ["| " + " | ".join(md(h) for h in heads) + " |", "|" + "|".join(align) + "|"]
            for r in range(self.n_rows):
                row = [labels[r] for labels in self.index] + [self.cells[i][r] for i in part]
                lines.append("| " + " | ".join(md(c) for c in row) + " |")
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks) + "\n"
