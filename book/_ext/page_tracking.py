"""Pages that hold a directive whose text depends on something outside the sources.

``{book-build}`` (the commit the book was built from) and ``{book-pdf}`` (a link to the PDF
when one was built) write text that Sphinx cannot see change: the sources stay the same while
the commit or the PDF moves on. :class:`PageTracker` remembers which pages hold the directive
and asks Sphinx to write them again when the outside state differs from the one they were
written with.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable


class PageTracker:
    """Track the pages holding one directive, and mark them outdated when ``state`` changes.

    Parameters
    ----------
    name : str
        A name for the environment's attributes (``env.<name>_pages``, ``env.<name>_state``).
    state : callable
        ``state(app)``: a hashable summary of what the pages' text depends on, or ``None``
        for a builder that does not need them written again.
    """

    def __init__(self, name: str, state: Callable[[object], Hashable | None]):
        self.pages_attr = f"{name}_pages"
        self.state_attr = f"{name}_state"
        self.state = state

    def pages(self, env) -> set:
        """The pages recorded so far."""
        return getattr(env, self.pages_attr, set())

    def record(self, env) -> None:
        """Record the page being read (called by the directive)."""
        setattr(env, self.pages_attr, self.pages(env) | {env.docname})

    def outdated(self, app, env, added, changed, removed):
        """``env-get-outdated``: the recorded pages, when the state changed since they were
        written."""
        state = self.state(app)
        if state is None or getattr(env, self.state_attr, None) == state:
            return []
        setattr(env, self.state_attr, state)
        return sorted(self.pages(env) - set(removed))

    def purge(self, app, env, docname):
        """``env-purge-doc``: forget a page read again (it records itself if it still holds
        the directive)."""
        self.pages(env).discard(docname)

    def merge(self, app, env, docnames, other):
        """``env-merge-info``: merge the pages found by parallel readers."""
        setattr(env, self.pages_attr, self.pages(env) | (self.pages(other) & set(docnames)))

    def connect(self, app) -> None:
        """Connect the three handlers to Sphinx's events."""
        app.connect("env-get-outdated", self.outdated)
        app.connect("env-purge-doc", self.purge)
        app.connect("env-merge-info", self.merge)
