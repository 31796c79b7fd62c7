"""Benchmark the language server over stdio (issue 15): start-up, a burst of edits, code actions.

Three measurements, each with the real server (``python -m asynccfg_lint.frontends.lsp``) in a
child process, driven by the tests' client (``tests/lsp_client.py``):

* **initialize** - wall time from starting the process to the ``initialize`` response, and on to
  the first ``publishDiagnostics`` after ``didOpen`` (which pays for the analysis imports);
* **burst** - after the first diagnostics of ``tests/fixtures/project/pkg/users.py`` (in a copy
  of its package), 20 ``didChange`` notifications back to back: how many diagnostics
  notifications the burst gave, and the time from the last change to the diagnostics of the last
  version;
* **codeAction** - the median latency of a ``textDocument/codeAction`` request over the whole of
  ``docs/examples/async_lowering.py`` (quick fixes and the fix-all action), and of resolving the
  fix-all action (``codeAction/resolve``) when the server offers it lazily.

Usage (with the project's virtual environment)::

    .venv/bin/python benchmarks/lsp.py [--runs 5] [--actions 15]

It prints one line per figure; nothing in ``tests/`` or CI runs it. See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lsp_client import LspClient  # noqa: E402 - after the path

PACKAGE = ROOT / "tests" / "fixtures" / "project" / "pkg"
EXAMPLE = ROOT / "docs" / "examples" / "async_lowering.py"
BURST = 20
#: the client capabilities of a current editor: versioned edits, lazily resolved code action edits
CAPABILITIES = {
    "workspace": {"workspaceEdit": {"documentChanges": True}},
    "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}},
}


def _start(cwd: Path) -> tuple[LspClient, float]:
    started = time.perf_counter()
    client = LspClient(cwd=cwd)
    client.request("initialize", {"processId": os.getpid(), "rootUri": cwd.as_uri(), "capabilities": CAPABILITIES})
    elapsed = time.perf_counter() - started
    client.notify("initialized", {})
    return client, elapsed


def _stop(client: LspClient) -> None:
    client.request("shutdown")
    client.notify("exit")
    client.wait()
    client.close()


def _open(client: LspClient, path: Path, text: str) -> None:
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}})


def _diagnostics_until(client: LspClient, version: int, timeout: float = 60.0) -> list[dict]:
    """Every ``publishDiagnostics`` up to and including the first one of ``version``."""
    published = []
    while not published or published[-1].get("version") != version:
        published.append(client.notification("textDocument/publishDiagnostics", timeout=timeout))
    return published


def _diagnostics_of(client: LspClient, version: int, timeout: float = 60.0) -> dict:
    """The diagnostics of ``version`` (earlier versions' notifications are skipped)."""
    return _diagnostics_until(client, version, timeout)[-1]


def measure_initialize(work: Path, runs: int) -> tuple[list[float], list[float]]:
    """Seconds to the ``initialize`` response, and to the first diagnostics, for ``runs`` fresh servers."""
    to_initialize, to_diagnostics = [], []
    text = EXAMPLE.read_text(encoding="utf-8")
    for _ in range(runs):
        started = time.perf_counter()
        client, elapsed = _start(work)
        _open(client, work / "example.py", text)
        _diagnostics_of(client, 1)
        to_initialize.append(elapsed)
        to_diagnostics.append(time.perf_counter() - started)
        _stop(client)
    return to_initialize, to_diagnostics


def measure_burst(work: Path) -> tuple[int, float, float]:
    """(diagnostics notifications of the burst, seconds from the last change to its diagnostics, one check's seconds)."""
    shutil.copytree(PACKAGE, work / "pkg")
    path = work / "pkg" / "users.py"
    text = path.read_text(encoding="utf-8")
    client, _ = _start(work)
    started = time.perf_counter()
    _open(client, path, text)
    _diagnostics_of(client, 1)
    single = time.perf_counter() - started
    for version in range(2, BURST + 2):
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": path.as_uri(), "version": version},
            "contentChanges": [{"text": text + f"# edit {version}\n"}],
        })
    last_change = time.perf_counter()
    published = len(_diagnostics_until(client, BURST + 1))
    latency = time.perf_counter() - last_change
    time.sleep(2.0)  # anything the burst still sends comes now
    client.request("shutdown")
    published += sum(1 for message in client.notifications if message["method"] == "textDocument/publishDiagnostics")
    client.notify("exit")
    client.wait()
    client.close()
    return published, latency, single


def measure_code_actions(work: Path, requests: int) -> tuple[list[float], list[float], bool]:
    """Seconds per ``codeAction`` over the whole document and per ``codeAction/resolve``; whether it resolves lazily."""
    path = work / "example.py"
    text = EXAMPLE.read_text(encoding="utf-8")
    client, _ = _start(work)
    _open(client, path, text)
    _diagnostics_of(client, 1)
    lines = text.count("\n") + 1
    params = {"textDocument": {"uri": path.as_uri()},
              "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}},
              "context": {"diagnostics": []}}
    action_times, resolve_times, lazy = [], [], False
    for _ in range(requests):
        started = time.perf_counter()
        actions = client.request("textDocument/codeAction", params) or []
        action_times.append(time.perf_counter() - started)
        fix_all = [action for action in actions if action.get("kind") == "source.fixAll.asynccfg-lint"]
        if fix_all and "edit" not in fix_all[0]:
            lazy = True
            started = time.perf_counter()
            client.request("codeAction/resolve", fix_all[0])
            resolve_times.append(time.perf_counter() - started)
    _stop(client)
    return action_times, resolve_times, lazy


def _ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"median {statistics.median(values) * 1000:.0f} ms (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f}, n={len(values)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh servers for the initialize figure")
    parser.add_argument("--actions", type=int, default=15, help="codeAction requests")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="asynccfg-lint-lsp-bench-") as temporary:
        work = Path(temporary)
        os.environ.setdefault("ASYNCCFG_LINT_CACHE_DIR", str(work / "cache"))
        to_initialize, to_diagnostics = measure_initialize(work, args.runs)
        print(f"initialize response:          {_ms(to_initialize)}")
        print(f"start to first diagnostics:   {_ms(to_diagnostics)}")
        published, latency, single = measure_burst(work)
        print(f"burst of {BURST} didChange:        {published} diagnostics notifications; the last version's "
              f"{latency * 1000:.0f} ms after the last change (one open-and-check: {single * 1000:.0f} ms)")
        action_times, resolve_times, lazy = measure_code_actions(work, args.actions)
        print(f"codeAction (whole document):  {_ms(action_times)}; fix-all {'resolved lazily' if lazy else 'computed eagerly'}")
        print(f"codeAction/resolve (fix-all): {_ms(resolve_times)}")
    load = os.getloadavg()
    print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
