"""Python's garbage collector during a build of the book (a local Sphinx extension, loaded by
_config.yml).

A build holds every page's document tree: millions of docutils nodes, loaded from the pickled
doctrees (each page about three times in the LaTeX build, which joins them into one tree) and
copied by Sphinx's transforms. Python's cyclic collector runs a young-generation pass every 700
new objects and an older one every tenth of those; each older pass walks every node made since
the last full pass again, and none of them frees anything (a document tree holds no unreachable
cycle until the build drops it). With the default thresholds a LaTeX build of the book from an
environment already read spent 52 s, a third of it in ``pickle.loads`` (measured: 9 to 460 ms
to load the same 0.3 to 1.4 MB doctree, as a collection fell inside the load or not); with the
thresholds below it spends 30 s, and its peak memory is 0.53 GB instead of 0.46 (2026-11-29, one
core). Switching the collector off gave the same time and 0.66 GB: the thresholds keep the
collector, only rarer.
"""

import gc

#: A young pass every 100,000 new objects (not 700), an older pass every 50 of those (not 10),
#: a pass over everything every 1000 older passes (not 10; CPython also waits until a quarter of
#: the objects are new since the last one).
THRESHOLDS = (100_000, 50, 1000)


def setup(app):
    """Set :data:`THRESHOLDS` when Sphinx loads the extension, before it reads the pickled
    environment."""
    gc.set_threshold(*THRESHOLDS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
