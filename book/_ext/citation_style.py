"""One citation style for the whole book (a local Sphinx extension, loaded by _config.yml).

The chapters cite author-year, "Chapelle and Vapnik (1999)" (``bibtex_reference_style:
author_year``). pybtex's bibliography styles label their entries otherwise: ``plain`` numbers
them ([7]), and a chapter's ``:labelprefix:`` made that [span-2]. This extension registers the
bibliography style ``author_year``: pybtex's ``plain`` formatting with labels as the text cites
them, "Chapelle and Vapnik, 1999" or "Saunders et al., 1999" (a letter after the year tells apart
two works with the same label), so that a reference list reads like the citations that point to it.
"""

from __future__ import annotations

import codecs
from collections import Counter

import latexcodec  # noqa: F401  (registers the "ulatex" codec; a dependency of pybtex)
from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle

STYLE = "author_year"


def _names(entry) -> str:
    """The authors' (or editors') last names as the text cites them."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    last = [" ".join(person.last_names) for person in persons]
    if not last:
        return entry.fields.get("organization") or entry.fields.get("title", entry.key)
    if len(last) == 1:
        return last[0]
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return f"{last[0]} et al."


def _plain(text: str) -> str:
    """A name as text: LaTeX accents decoded ("Sch{\\"o}lkopf" is "Schölkopf"), braces dropped."""
    return codecs.decode(text, "ulatex").replace("{", "").replace("}", "")


def author_year_labels(entries) -> list[str]:
    """Labels "Names, year" for ``entries`` in their order, with a, b, ... after the year where
    two entries would otherwise share a label."""
    labels = [f"{_plain(_names(entry))}, {entry.fields.get('year', 'n.d.')}" for entry in entries]
    shared = {label for label, count in Counter(labels).items() if count > 1}
    seen: Counter[str] = Counter()
    unique = []
    for label in labels:
        if label in shared:
            unique.append(label + "abcdefghijklmnopqrstuvwxyz"[seen[label]])
            seen[label] += 1
        else:
            unique.append(label)
    return unique


class AuthorYearLabels(BaseLabelStyle):
    """pybtex label style: :func:`author_year_labels`."""

    def format_labels(self, sorted_entries):
        yield from author_year_labels(list(sorted_entries))


class AuthorYearStyle(PlainStyle):
    """pybtex's ``plain`` entries (sorted by author, year, title) with author-year labels."""

    default_label_style = STYLE


def setup(app):
    register_plugin("pybtex.style.labels", STYLE, AuthorYearLabels)
    register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
