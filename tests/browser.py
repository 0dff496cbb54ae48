"""Headless Chromium driven over the DevTools protocol on a pipe: open a page at a given
viewport, wait for it to load, evaluate expressions in it, and collect what it logged.

No dependency beyond Chromium itself (``--remote-debugging-pipe``: JSON messages ended by a
NUL byte, read on descriptor 3, written on descriptor 4). Tests and ``benchmarks/page.py``
use it; ``find_chromium`` skips a test when there is no Chromium.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["Browser", "chromium_path"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, binary: str, profile: Path, timeout: float = 60.0) -> None:
        self.timeout = timeout
        reading, self._to_browser = os.pipe()
        self._from_browser, writing = os.pipe()
        # Chromium's ends, numbered 10 or more, out of the way of 3 and 4.
        to_browser_read = fcntl.fcntl(reading, fcntl.F_DUPFD_CLOEXEC, 10)
        from_browser_write = fcntl.fcntl(writing, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(reading)
        os.close(writing)

        # The pipe ends become descriptors 3 and 4 of Chromium: a small Python moves them there
        # and starts it (no code runs between fork and exec here, which is safe with threads).
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
                "os.execv(sys.argv[3], sys.argv[3:])",
                str(to_browser_read),
                str(from_browser_write),
                binary,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--remote-debugging-pipe",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_read, from_browser_write),
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        try:
            targets = self.send("Target.getTargets")["targetInfos"]
            page = next(target["targetId"] for target in targets if target["type"] == "page")
            self.session = self.send("Target.attachToTarget", targetId=page, flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._to_browser)
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._from_browser)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command (to the page, once attached) and return its result."""
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session:
            command["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            self.events.append(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for index, message in enumerate(self.events):
            if message.get("method") == event:
                return self.events.pop(index)
        while True:
            message = self._message(deadline)
            if message.get("method") == event:
                return message
            self.events.append(message)

    def open(self, url: str, width: int = 1366, height: int = 900) -> None:
        """Load ``url`` in a viewport of ``width`` x ``height`` CSS pixels and wait for its load event."""
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        for target in ("about:blank", url):  # a new document each time, even when only the #fragment differs
            self.events = [message for message in self.events if message.get("method") != "Page.loadEventFired"]
            self.send("Page.navigate", url=target)
            self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited when it is a promise)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """What the page logged as errors or warnings: script errors, policy violations, console calls."""
        said = []
        for message in self.events:
            method, params = message.get("method"), message.get("params", {})
            if method == "Runtime.exceptionThrown":
                said.append(str(params["exceptionDetails"]))
            elif method == "Runtime.consoleAPICalled":
                said.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                said.append(params["entry"]["text"])
        return said
