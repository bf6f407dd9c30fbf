"""svmtrust.experiments.tables: the numbers to_string prints, in an HTML table that scrolls in its
own box, Markdown tables split for the PDF, plain text no wider than the HTML text column."""

import re

import numpy as np
import pandas as pd
from svmtrust.experiments.tables import PDF_WIDTH, TEXT_WIDTH, Table


def _wide() -> pd.DataFrame:
    """Two row levels and eleven data sets, the shape of the comparison chapter's tables."""
    rng = np.random.default_rng(0)
    index = pd.MultiIndex.from_product([["OF", "size"], ["TCM-NN", "Split"]])
    index.names = ["measure", "machine"]
    columns = [f"data set {i}" for i in range(11)]
    return pd.DataFrame(rng.random((4, 11)) / 7, index=index, columns=columns).round(3)


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+\.\d+", text)


def test_cells_are_what_to_string_prints():
    frame = _wide()
    table = Table(frame)
    assert sorted(_numbers(repr(table))) == sorted(_numbers(frame.to_string()))
    formatted = Table(frame, float_format="{:.4f}".format)
    assert formatted.cells[0][0] == f"{frame.iloc[0, 0]:.4f}"
    # a column of floats keeps pandas' common number of decimals: 0.1 is shown as 0.10
    assert Table(pd.DataFrame({"e": [0.1, 0.25]})).cells[0] == ["0.10", "0.25"]


def test_plain_text_fits_and_keeps_every_cell():
    frame = _wide()
    text = repr(Table(frame, title="OF, not smoothed"))
    assert text.splitlines()[0] == "OF, not smoothed"
    assert max(map(len, text.splitlines())) <= TEXT_WIDTH
    assert all(column in text for column in frame.columns)
    # the row labels are repeated in every block, a repeated outer label left blank
    blocks = text.split("\n", 1)[1].split("\n\n")
    assert len(blocks) >= 2
    assert all(block.count("TCM-NN") == 2 for block in blocks)
    assert all(block.count("OF") == 1 for block in blocks)


def test_markdown_splits_for_the_pdf_and_escapes():
    frame = _wide().rename(columns={"data set 0": "shuttle-2_vs_5 | *"})
    markdown = Table(frame, title="a_b", max_columns=4)._repr_markdown_()
    tables = [block for block in markdown.split("\n\n") if block.startswith("|")]
    assert markdown.startswith("**a\\_b**")
    assert len(tables) == 3
    for block in tables:
        header, rule, *rows = block.splitlines()
        assert len(rows) == 4 and rule.count("|") == header.count("|") - header.count("\\|")
        assert len(re.sub(r"\\(.)", r"\1", header)) <= PDF_WIDTH + 4 * 3 + 2
    assert "shuttle-2\\_vs\\_5 \\| \\*" in markdown
    assert sorted(_numbers(markdown)) == sorted(_numbers(frame.to_string()))


def test_html_is_one_table_in_its_own_box_and_escapes():
    frame = pd.DataFrame({"a<b": [1.5, 2.25]}, index=pd.Index(["x&y", "z"], name="set"))
    page = Table(frame, title="p < 0.05")._repr_html_()
    assert page.startswith('<div class="svmtrust-table"><table><caption>p &lt; 0.05</caption>')
    assert page.endswith("</table></div>")
    assert page.count("<table") == 1 and "a&lt;b" in page and "x&amp;y" in page
    assert "<td>1.50</td>" in page and "<td>2.25</td>" in page
    # no random identifier: the same table gives the same text
    assert page == Table(frame, title="p < 0.05")._repr_html_()


def test_a_column_wider_than_the_text_stands_alone():
    frame = pd.DataFrame({"x" * 100: [1], "y": [2], "z": [3]})
    text = repr(Table(frame))
    assert len(text.split("\n\n")) == 2


def test_wrapped_breaks_long_lines_at_spaces_only():
    from svmtrust.experiments.tables import wrapped

    line = "  " + " ".join(f"{i / 7:.4f}" for i in range(40))
    text = wrapped(f"short\n\n{line}\n   aligned   columns", width=30)
    lines = text.splitlines()
    assert lines[:2] == ["short", ""] and lines[-1] == "   aligned   columns"
    assert max(map(len, lines)) <= 30
    assert text.split() == f"short {line} aligned columns".split()  # every number whole
    assert all(row.startswith("    ") for row in lines[3:-1])  # continuations indented
    assert wrapped("x" * 50, width=10) == "x" * 50  # a long word is never cut


def test_print_wrapped_prints_what_print_prints(capsys):
    from svmtrust.experiments.tables import print_wrapped

    print_wrapped("a", {"b": 0.5}, 3, sep=", ")
    print("a", {"b": 0.5}, 3, sep=", ")
    first, second = capsys.readouterr().out.splitlines()
    assert first == second


def test_index_hidden_and_missing_values_as_to_string_shows_them():
    frame = pd.DataFrame({"paper": [1.5, np.nan], "ours": [1.25, 2.0]}, index=["a", "b"])
    table = Table(frame, index=False, na_rep="-")
    printed = frame.to_string(index=False, na_rep="-")
    assert [line.strip() for line in repr(table).splitlines()] == [
        line.strip() for line in printed.splitlines()
    ]
    assert "<th" not in table._repr_html_().split("</thead>")[1]


def test_a_series_is_one_column_as_to_string_prints_it():
    series = pd.Series([0.5, 1.25], index=pd.Index([2, 4], name="sigma"), name="ratio")
    table = Table(series)
    assert table.columns == ["ratio"] and table.cells == [["0.50", "1.25"]]
    assert Table(series.rename(None)).columns == [""]


def test_float_row_labels_as_to_string_prints_them():
    frame = pd.DataFrame({"error": [0.2, 0.1, 0.3]}, index=pd.Index([2.0, 2.828, 16.0]))
    assert Table(frame).index == [["2.000", "2.828", "16.000"]]
    nested = frame.set_index(pd.MultiIndex.from_product([["a"], [2.0, 2.828, 16.0]]))
    assert Table(nested).index == [["a", "", ""], ["2.000", "2.828", "16.000"]]
    for table in (Table(frame), Table(nested)):
        assert sorted(_numbers(repr(table))) == sorted(_numbers(frame.to_string()))
