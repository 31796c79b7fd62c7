"""A minimal LSP client for tests: the real server in a subprocess, JSON-RPC with Content-Length framing.

Every read is bounded by a timeout, so a server that hangs or dies fails the test with its stderr
instead of blocking the run.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: seconds to wait for any one message from the server
TIMEOUT = 30.0
#: how the tests start the server
SERVER_COMMAND = (sys.executable, "-m", "asynccfg_lint.frontends.lsp")
_EOF = object()


class ServerError(AssertionError):
    """The server did not answer in time, answered with an error, or exited."""


class LspClient:
    """Run the server (``command``, by default :data:`SERVER_COMMAND`) and talk to it over its stdin/stdout.

    Messages the server sends are read by a thread into a queue; :meth:`request` waits for the
    response with its id, :meth:`notification` for the next notification of a method. Both keep
    the other messages they pass over (in :attr:`notifications`), and answer server-to-client
    requests with a ``null`` result so the server never waits on the test.
    """

    def __init__(self, cwd: Path, command: Sequence[str] = SERVER_COMMAND) -> None:
        self.process = subprocess.Popen(
            list(command),
            cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self._messages: queue.Queue[Any] = queue.Queue()
        self._next_id = 0
        self.notifications: list[dict[str, Any]] = []
        #: the requests the server sent (each answered with a ``null`` result), in order
        self.server_requests: list[dict[str, Any]] = []
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- wire ---------------------------------------------------------------------------------

    def _read_stdout(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while True:
                headers = {}
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = stream.read(int(headers["content-length"]))
                self._messages.put(json.loads(body.decode("utf-8")))
        finally:
            self._messages.put(_EOF)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _write(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
        self.process.stdin.flush()

    def _receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        try:
            message = self._messages.get(timeout=max(remaining, 0.001))
        except queue.Empty:
            raise ServerError(f"no {waiting_for} within {TIMEOUT}s; server stderr:\n{self.stderr}") from None
        if message is _EOF:
            raise ServerError(f"the server closed stdout while waiting for {waiting_for}; stderr:\n{self.stderr}")
        if "method" in message and "id" in message:  # a request from the server: answer it
            self.server_requests.append(message)
            self._write({"id": message["id"], "result": None})
        return message

    # --- API ----------------------------------------------------------------------------------

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification."""
        self._write({"method": method, **({} if params is None else {"params": params})})

    def request(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> Any:
        """Send a request and return its result; an error response raises :class:`ServerError`."""
        self._next_id += 1
        request_id = self._next_id
        self._write({"id": request_id, "method": method, **({} if params is None else {"params": params})})
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline, f"response to {method}")
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise ServerError(f"{method} failed: {message['error']}")
                return message.get("result")
            if "method" in message and "id" not in message:
                self.notifications.append(message)

    def notification(self, method: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Return the params of the next notification ``method`` (an earlier one kept by :meth:`request` first)."""
        for kept in self.notifications:
            if kept["method"] == method:
                self.notifications.remove(kept)
                return kept["params"]
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline, f"{method} notification")
            if message.get("method") == method and "id" not in message:
                return message["params"]
            if "method" in message and "id" not in message:
                self.notifications.append(message)

    def wait(self, timeout: float = TIMEOUT) -> int:
        """Wait for the server process to exit and return its exit code."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServerError(f"the server did not exit within {timeout}s; stderr:\n{self.stderr}") from None

    def close(self) -> None:
        """Kill the server if it is still running (after a failed test)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def utf16_offset(text: str, line: int, character: int) -> int:
    """The code-point offset into ``text`` of an LSP position in UTF-16 units (lines split at \\n, \\r\\n, \\r)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert "\r" not in text, "the test documents use \\n line breaks"
    offset = sum(len(part) + 1 for part in lines[:line])
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= character:
            assert units == character, f"position {line}:{character} is inside a surrogate pair"
            return offset + index
        units += 2 if ord(char) > 0xFFFF else 1
    assert units == character, f"position {line}:{character} is past the end of the line"
    return offset + len(lines[line])


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """Apply LSP TextEdits (UTF-16 positions, non-overlapping) as an editor does: from the last to the first."""
    located = []
    for edit in edits:
        start = edit["range"]["start"]
        end = edit["range"]["end"]
        located.append((utf16_offset(text, start["line"], start["character"]),
                        utf16_offset(text, end["line"], end["character"]), edit["newText"]))
    located.sort()
    for (_, end, _), (start, _, _) in zip(located, located[1:]):
        assert end <= start, f"overlapping edits: {edits}"
    for start, end, new_text in reversed(located):
        text = text[:start] + new_text + text[end:]
    return text


def document_edits(edit: dict[str, Any], uri: str) -> list[dict[str, Any]]:
    """The TextEdits of ``uri`` in a WorkspaceEdit (``documentChanges`` or ``changes``)."""
    if "documentChanges" in edit:
        changes = [change for change in edit["documentChanges"] if change["textDocument"]["uri"] == uri]
        return [text_edit for change in changes for text_edit in change["edits"]]
    return edit["changes"][uri]
