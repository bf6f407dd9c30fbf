"""One copy of every output in the executed notebooks (a local Sphinx extension, loaded by
_config.yml).

With ``nb_merge_streams: true`` myst-nb 1.4 merges a cell's stream outputs before rendering it
(``myst_nb.core.utils.coalesce_streams``), but it merges in place: the text of every later
stdout output is appended to the first stdout output object, and a new list is returned while
the cell keeps its old one. The page is right, since it is rendered from the new list. The
notebook object is not: when a chapter is executed (not taken from the cache), myst-nb writes
that same object to ``_build/jupyter_execute/<chapter>.ipynb``, where a cell that printed in two
pieces now holds the merged first output followed by the later pieces, so its tail is printed
twice. The execution cache is written before rendering and is clean; so is a build from the
cache, whose pages are rendered from a fresh copy.

Here the merge works on a copy of the outputs: the executed notebook keeps the outputs as the
kernel sent them (as ``jupyter nbconvert --execute`` stores them), and the page still shows one
merged block per stream. ``tests/html/test_outputs_once.py`` checks both.
"""

import copy

from myst_nb.core import render, utils


def merge_streams_of_a_copy(outputs):
    """myst-nb's stream merging, applied to a deep copy of ``outputs`` (left unchanged)."""
    return utils.coalesce_streams(copy.deepcopy(list(outputs or [])))


def setup(app):
    # render.py imported the function by name; the renderer looks the name up at every cell.
    render.coalesce_streams = merge_streams_of_a_copy
    return {"parallel_read_safe": True, "parallel_write_safe": True}
