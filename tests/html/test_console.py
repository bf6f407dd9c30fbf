"""A reader's first visit: the pages load without an error in the browser's console.

pydata-sphinx-theme starts a page in the colour mode a previous visit stored, else in the
template variable ``default_mode``; nothing set it, so a first visit started in mode "" and the
console said "Got invalid theme mode: . Resetting to auto." (book/_ext/page_fixes.py now gives
it "auto"). A fresh Chromium has stored nothing; between pages its storage is cleared, so that
each page is opened as on a first visit.
"""

import pytest

from .browser import Browser, find_chromium

#: Pages opened as on a first visit: the landing page, a chapter, the status page, an API page.
PAGES = ("book/intro.html", "book/svm.html", "book/status.html", "book/api.html")


def problems(console: list[dict]) -> list[str]:
    """The console messages that say something went wrong: errors, warnings, exceptions, and
    anything about an invalid mode."""
    return [
        f"{m['level']}: {m['text'][:200]}"
        for m in console
        if m["level"] in ("error", "warning", "assert", "exception") or "invalid" in m["text"]
    ]


def test_problems_sees_the_theme_s_complaint():
    quiet = {"level": "log", "text": "[PST]: Changed to auto mode using the light theme."}
    loud = {"level": "error", "text": "Got invalid theme mode: . Resetting to auto."}
    assert problems([quiet]) == []
    assert problems([quiet, loud]) == ["error: Got invalid theme mode: . Resetting to auto."]
    assert problems([{"level": "exception", "text": "TypeError: x"}])


@pytest.fixture(scope="module")
def first_visits(browser, html_dir) -> dict:
    """For each page of :data:`PAGES`, opened as on a first visit: what the console showed, and
    the colour mode the page ended in. (The session's ``browser`` fixture only stands for
    "Chromium is installed"; a new one with an empty profile opens the pages.)"""
    visits = {}
    with Browser(find_chromium()) as fresh:
        fresh.watch_console()
        for name in PAGES:
            fresh.console.clear()
            fresh.open((html_dir / name).as_uri())
            mode = fresh.evaluate("document.documentElement.dataset.mode")
            visits[name] = {"console": list(fresh.console), "mode": mode}
            fresh.evaluate("localStorage.clear()")
    return visits


def test_a_first_visit_logs_no_invalid_theme_mode(first_visits):
    invalid = {
        name: [m["text"] for m in visit["console"] if "invalid theme mode" in m["text"].lower()]
        for name, visit in first_visits.items()
    }
    assert not any(invalid.values()), invalid
    assert {visit["mode"] for visit in first_visits.values()} == {"auto"}, first_visits


def test_a_first_visit_logs_no_error(first_visits):
    found = {name: problems(visit["console"]) for name, visit in first_visits.items()}
    found = {name: messages for name, messages in found.items() if messages}
    assert not found, found
