"""A headless Chromium driven through the DevTools protocol, for the checks that need a real
browser's layout (MathJax renders the equations only in a browser).

Chromium comes from Debian (``apt-get install chromium``; ``make html-check`` installs it when
it runs as root). The protocol is spoken over a WebSocket with ``websocket-client``, which the
pinned requirements already hold, so no browser build is downloaded.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import websocket

#: The Debian package and the command that installs it.
INSTALL = "apt-get update && apt-get install -y --no-install-recommends chromium"

#: Flags of a quiet headless run: no GPU, no sandbox (root in CI), nothing fetched in the
#: background.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
)


def find_chromium() -> str | None:
    """The Chromium executable: ``$CHROMIUM``, else ``chromium`` or ``chromium-browser`` on the
    PATH; None if there is none."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class Browser:
    """One headless Chromium with one page, closed by :meth:`close` (or ``with``)."""

    def __init__(self, executable: str, timeout: float = 60.0):
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-")
        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile.name}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._socket = websocket.create_connection(self._page_url(), timeout=timeout)
        self._next_id = 0
        self._events: list[str] = []
        #: What the page wrote to the console and the exceptions it threw, once
        #: :meth:`watch_console` is called: ``{"level": ..., "text": ...}`` each.
        self.console: list[dict] = []
        self.send("Page.enable")

    def _page_url(self) -> str:
        """The DevTools WebSocket of the browser's first page (the port is read from the file
        Chromium writes into its profile)."""
        port_file = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"Chromium exited with status {self._process.returncode}")
            if port_file.is_file() and port_file.read_text().count("\n") >= 1:
                port = port_file.read_text().split()[0]
                browser = websocket.create_connection(
                    f"ws://127.0.0.1:{port}{port_file.read_text().split()[1]}"
                )
                try:
                    browser.send(json.dumps({"id": 1, "method": "Target.getTargets"}))
                    targets = json.loads(browser.recv())["result"]["targetInfos"]
                finally:
                    browser.close()
                page = next(t for t in targets if t["type"] == "page")
                return f"ws://127.0.0.1:{port}/devtools/page/{page['targetId']}"
            time.sleep(0.1)
        raise RuntimeError(f"Chromium opened no DevTools port within {self.timeout} s")

    def send(self, method: str, **params) -> dict:
        """Call a DevTools method on the page and return its result (the names of the events
        that arrive meanwhile are kept for :meth:`wait_for`)."""
        self._next_id += 1
        self._socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self._event(message)

    def _event(self, message: dict) -> None:
        """Keep an event's name (for :meth:`wait_for`), and a console message or exception."""
        if "method" not in message:
            return
        self._events.append(message["method"])
        params = message.get("params", {})
        if message["method"] == "Runtime.consoleAPICalled":
            text = " ".join(
                str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])
            )
            self.console.append({"level": params.get("type", ""), "text": text})
        elif message["method"] == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            self.console.append({"level": "exception", "text": text})

    def watch_console(self) -> None:
        """From now on keep what the page writes to its console (:attr:`console`)."""
        self.send("Runtime.enable")

    def wait_for(self, event: str) -> None:
        """Wait for the page's next DevTools event named ``event``."""
        while event not in self._events:
            self._event(json.loads(self._socket.recv()))
        self._events.clear()

    def evaluate(self, expression: str):
        """The value of a JavaScript expression on the page (a promise is awaited)."""
        result = self.send(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def emulate(self, width: int, height: int = 900, media: str = "screen") -> None:
        """Lay the page out in a window ``width`` CSS pixels wide, for ``media`` (screen or
        print; a printed page has no scrollbar to take its width). The media and the scrollbars
        are set before the window's size, whose new layout then has the scrollbar that a page
        opened at this width has: set after it, a scrollbar hidden for print stayed hidden in the
        next layout for a phone (15 px wider than a page opened at 400 px)."""
        self.send("Emulation.setEmulatedMedia", media=media)
        self.send("Emulation.setScrollbarsHidden", hidden=media == "print")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def open(self, url: str) -> None:
        """Load ``url`` and wait until the page, its fonts and MathJax's typesetting are done."""
        self._events.clear()
        self.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.evaluate(
            "(async () => {"
            "  if (window.MathJax && MathJax.startup && MathJax.startup.promise)"
            "    await MathJax.startup.promise;"
            "  await document.fonts.ready;"
            "})()"
        )

    def screenshot(self, path: Path) -> None:
        """Save what the page shows as a PNG."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Close the connection and the browser, and remove its profile."""
        self._socket.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        # Chromium's helper processes can still be writing into the profile just after the
        # browser exits ("Directory not empty: 'Default'" once in a run): try again briefly
        for _ in range(20):
            try:
                self._profile.cleanup()
                return
            except OSError:
                time.sleep(0.25)
        shutil.rmtree(self._profile.name, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
