"""Time the language server on one file: open it, then edit it, as an editor does.

Starts ``asynccfg-lint lsp`` (``--server``) over stdio in the file's folder, opens FILE and waits
for its first ``publishDiagnostics``, then sends ``--edits`` full-text changes (a comment line
appended each time) and waits for the diagnostics of each. With ``--unsaved`` the opened text has a
comment line more than the file (an editor restoring unsaved changes): the server must analyse it,
where an unchanged file's outcome can come from the result cache. With ``--pause S`` the first edit comes
S seconds after the open's diagnostics, as a user reads first (the server's CPU meanwhile is reported as
``pause_cpu_s``). Prints one JSON object: the wall
seconds and the server's CPU seconds (user + system, from ``/proc/PID/stat``) of the open and of
each edit, the number of diagnostics, and the CPU seconds of a bare ``libcst.parse_module`` of the
file in this process (the yardstick). A benchmark row runs it as a whole process::

    python benchmarks/lsp_timing.py [--edits N] [--unsaved] [--pause S] [--server 'CMD ...'] FILE
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _send(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _receive(stream: BinaryIO) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise SystemExit("error: the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def _wait_for(stream: BinaryIO, writer: BinaryIO, uri: str, request_id: int | None = None) -> dict[str, Any]:
    """The next diagnostics of ``uri`` (or the response ``request_id``); server requests get a null result."""
    while True:
        message = _receive(stream)
        if "id" in message and "method" in message:  # a request of the server (e.g. registerCapability)
            _send(writer, {"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif request_id is not None and message.get("id") == request_id:
            return message
        elif (request_id is None and message.get("method") == "textDocument/publishDiagnostics"
              and message["params"]["uri"] == uri):
            return message


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--edits", type=int, default=3, help="edits after the open (default: 3)")
    parser.add_argument("--unsaved", action="store_true", help="open the file's text with a comment line appended")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds between the open's diagnostics and the first edit, as a user reads (default: 0)")
    parser.add_argument("--server", default=f"{shlex.quote(sys.executable)} -m asynccfg_lint lsp",
                        help="the server's command line, as one string (default: this Python's asynccfg-lint lsp)")
    args = parser.parse_args(argv)
    path = args.file.resolve()
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8") + ("# unsaved\n" if args.unsaved else "")
    server = subprocess.Popen(shlex.split(args.server), cwd=path.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    reader, writer = server.stdout, server.stdin
    assert reader is not None and writer is not None
    _send(writer, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"processId": os.getpid(), "rootUri": path.parent.as_uri(), "capabilities": {}}})
    _wait_for(reader, writer, uri, request_id=1)
    _send(writer, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    cpu, wall = _cpu(server.pid), time.perf_counter()
    _send(writer, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": text}}})
    published = _wait_for(reader, writer, uri)
    result: dict[str, Any] = {"open_wall_s": time.perf_counter() - wall, "open_cpu_s": _cpu(server.pid) - cpu,
                              "diagnostics": len(published["params"]["diagnostics"]), "edits": []}
    if args.pause:
        cpu = _cpu(server.pid)
        time.sleep(args.pause)
        result["pause_cpu_s"] = _cpu(server.pid) - cpu  # what the server did at idle (a parse ahead of the edit)
    for version in range(2, args.edits + 2):
        text += f"# edit {version}\n"
        cpu, wall = _cpu(server.pid), time.perf_counter()
        _send(writer, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}})
        _wait_for(reader, writer, uri)
        result["edits"].append({"wall_s": time.perf_counter() - wall, "cpu_s": _cpu(server.pid) - cpu})
    _send(writer, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    _wait_for(reader, writer, uri, request_id=2)
    _send(writer, {"jsonrpc": "2.0", "method": "exit"})
    server.wait(timeout=30)
    import libcst  # the yardstick, after the server is gone: a bare parse of the file in this process

    source = path.read_bytes()
    start = time.process_time()
    libcst.parse_module(source)
    result["parse_cpu_s"] = time.process_time() - start
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
