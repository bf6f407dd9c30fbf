"""book/_ext/page_tracking.py: pages written again exactly when the outside state changes."""

import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))

from page_tracking import PageTracker  # noqa: E402


def _reading(env, *docnames):
    """Read the pages ``docnames`` that hold the directive, as the directive does."""
    for docname in docnames:
        env.docname = docname
        tracker.record(env)


#: A tracker whose outside state is ``app.commit``.
tracker = PageTracker("demo", lambda app: app.commit)


def test_pages_are_outdated_once_per_change_of_state():
    env = SimpleNamespace()
    _reading(env, "intro", "run")
    first, second = SimpleNamespace(commit="one"), SimpleNamespace(commit="two")
    assert tracker.outdated(first, env, set(), set(), set()) == ["intro", "run"]
    assert tracker.outdated(first, env, set(), set(), set()) == []  # written with this state
    assert tracker.outdated(second, env, set(), set(), {"run"}) == ["intro"]  # "run" removed


def test_no_state_means_never_outdated():
    quiet = PageTracker("quiet", lambda app: None)
    env = SimpleNamespace(docname="intro")
    quiet.record(env)
    assert quiet.outdated(None, env, set(), set(), set()) == []


def test_purge_forgets_and_merge_keeps_only_the_other_readers_pages():
    env, other = SimpleNamespace(), SimpleNamespace()
    _reading(env, "intro", "run")
    tracker.purge(None, env, "run")
    assert tracker.pages(env) == {"intro"}
    _reading(other, "status", "api")
    tracker.merge(None, env, {"status"}, other)
    assert tracker.pages(env) == {"intro", "status"}
