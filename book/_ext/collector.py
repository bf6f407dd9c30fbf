"""Python's garbage collector during a build of the book (a local Sphinx extension, loaded by
_config.yml).

A build holds every page's document tree: millions of docutils nodes, loaded from the pickled
doctrees (each page about three times in the LaTeX build, which joins them into one tree) and
copied by Sphinx's transforms. Python's cyclic collector runs a young-generation pass every 700
new objects and an older pass every ten young ones, and each older pass walks again the
long-lived nodes made since the last full pass; the thresholds below make both passes rarer.
Measured back to back (2026-11-29, one core; the pages and the LaTeX source the same
byte for byte but for the sentence naming the commit), default thresholds against these: the
HTML build from the execution cache 67 s against 53 s; a LaTeX build that reads every page 79 s
against 63 s; a LaTeX build from an environment already read 54 s against 36 s (there a third
of the time had gone to ``pickle.loads``: the same 0.3 to 1.4 MB doctree took 9 ms or 460 ms,
as a collection fell inside the load or not). Peak memory: 0.45 GB against 0.52 to 0.53 GB for
the HTML and the second LaTeX build, 0.67 against 0.68 GB for the first. A full pass stays as
frequent, counted in older passes, as by default: one every 10 (a third threshold of 1000 gave
the same times).
"""

import gc

#: A young pass every 100,000 new objects (not 700), an older pass every 50 young ones (not 10),
#: a pass over everything every 10 older passes, as by default (CPython also waits until a
#: quarter of the long-lived objects are new since the last one).
THRESHOLDS = (100_000, 50, 10)


def setup(app):
    """Set :data:`THRESHOLDS` when Sphinx loads the extension, before it reads the pickled
    environment."""
    gc.set_threshold(*THRESHOLDS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
