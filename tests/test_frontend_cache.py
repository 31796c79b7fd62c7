"""The flake8 plugin and the language server use the CLI's result cache by default (same folder, same
opt-out), with the real flake8 and the real server in subprocesses.

A second flake8 run over a package reads what the first wrote (no libcst import at all), an edit of
another module of the package is seen, concurrent flake8 runs writing the same entries agree, and the
language server's verdict on a document follows the package summaries stored in the cache.
"""

from __future__ import annotations

import json
import sqlite3
import time
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from asynccfg_lint.run.cache import CACHE_DIR_ENV
from asynccfg_lint.run.project import RACY_SECONDS
from tests.cache_entries import databases, overwrite, stored
from tests.frontend_runs import SINK_IMPORT, run_flake8

#: the package: a wrapper in one module, its caller in another, and a module that names no sink
WRAPPERS = SINK_IMPORT + "\n\ndef send(ctx, x, cfg):\n    return emit(\"t\", ctx, x, cfg)\n"
USER = "from pkg.wrappers import send\n\n\ndef lower(ctx, x):\n    return send(ctx, x, {\"groups\": {1, 2}})\n"
PLAIN = "import json\n\nprint(json.dumps({\"a\": 1}))\n"
SET_MESSAGE = ('ACC101 value for key "groups" is set, which JAX cannot serialize to JSON: lowering raises '
               "ValueError; use sorted(...) or list(...)")
#: flake8's line for the set passed to the wrapper (line 5, column 36)
USER_ROW = f"pkg/user.py:5:36: {SET_MESSAGE}\n"
#: the environment of a run that uses the default cache folder (the session's ASYNCCFG_LINT_CACHE_DIR removed)
DEFAULT_FOLDER = {CACHE_DIR_ENV: ""}


def write_package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "wrappers.py").write_text(WRAPPERS)
    (package / "user.py").write_text(USER)
    (package / "plain.py").write_text(PLAIN)
    return package


def flake8_importing(cwd: Path, *args: str) -> tuple[str, bool]:
    """Run flake8 (one job, so every analysis happens in this one process) with the default cache folder;
    return its output and whether libcst was imported."""
    script = ("import runpy, sys\n"
              f"sys.argv = ['flake8', '--isolated', '--jobs', '1', *{list(args)!r}]\n"
              "try:\n    runpy.run_module('flake8', run_name='__main__')\n"
              "except SystemExit:\n    pass\n"
              "print('libcst' in sys.modules, file=sys.stderr)\n")
    env = {name: value for name, value in __import__("os").environ.items() if name != CACHE_DIR_ENV}
    completed = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=300,
                               env=env)
    return completed.stdout, completed.stderr.strip().splitlines()[-1] == "True"


def test_flake8_writes_the_default_cache_reads_it_back_and_sees_an_edit_of_another_module(tmp_path):
    package = write_package(tmp_path)
    cache = tmp_path / ".asynccfg_lint_cache"
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg") == (USER_ROW, True)
    assert (cache / ".gitignore").read_text() == "# created by asynccfg-lint\n*\n"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    outcomes = stored(cache)
    assert len(outcomes) == 4  # expect: the outcomes of wrappers.py and user.py, and their summaries
    # expect: the same output, read from the cache alone (libcst never imported), nothing new stored
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg") == (USER_ROW, False)
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg/user.py") == (USER_ROW, False)
    assert stored(cache) == outcomes
    # the wrapper no longer passes its parameter on: the unchanged user.py is analysed again, clean now
    (package / "wrappers.py").write_text(WRAPPERS.replace("x, cfg)\n", "x, {})\n"))
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg/user.py") == ("", True)
    (package / "wrappers.py").write_text(WRAPPERS)
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg/user.py") == (USER_ROW, False)  # expect: stored


def test_flake8_no_cache_option_writes_nothing_and_the_cache_dir_option_moves_it(tmp_path):
    write_package(tmp_path)
    result = run_flake8("--select", "ACC", "--asynccfg-no-cache", "pkg", cwd=tmp_path, env=DEFAULT_FOLDER)
    assert (result.returncode, result.stdout) == (1, USER_ROW)
    assert not (tmp_path / ".asynccfg_lint_cache").exists()
    moved = run_flake8("--select", "ACC", "--asynccfg-cache-dir", "elsewhere", "pkg", cwd=tmp_path,
                       env=DEFAULT_FOLDER)
    assert (moved.returncode, moved.stdout) == (1, USER_ROW)
    assert stored(tmp_path / "elsewhere") and not (tmp_path / ".asynccfg_lint_cache").exists()


def test_flake8_no_cache_from_its_configuration_file(tmp_path):
    write_package(tmp_path)
    (tmp_path / "setup.cfg").write_text("[flake8]\nasynccfg-no-cache = true\n")
    completed = subprocess.run([sys.executable, "-m", "flake8", "--select", "ACC", "pkg"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=300,
                               env={name: value for name, value in __import__("os").environ.items()
                                    if name != CACHE_DIR_ENV})
    assert (completed.returncode, completed.stdout) == (1, USER_ROW)
    assert not (tmp_path / ".asynccfg_lint_cache").exists()


def test_concurrent_flake8_runs_writing_one_cache_agree(tmp_path):
    write_package(tmp_path)
    for index in range(6):  # more modules, so the workers of each run write entries side by side
        (tmp_path / "pkg" / f"user{index}.py").write_text(USER)
    expected = "".join(USER_ROW.replace("user.py", name) for name in
                       sorted(["user.py", *(f"user{index}.py" for index in range(6))]))

    def run(_: int) -> tuple[int, str]:
        result = run_flake8("--select", "ACC", "--jobs", "2", "pkg", cwd=tmp_path, env=DEFAULT_FOLDER)
        return result.returncode, "".join(sorted(result.stdout.splitlines(keepends=True)))

    with ThreadPoolExecutor(max_workers=3) as pool:
        assert list(pool.map(run, range(3))) == [(1, expected)] * 3
    cache = tmp_path / ".asynccfg_lint_cache"
    [database] = databases(cache)
    with closing(sqlite3.connect(database)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert not list(cache.rglob("*-journal"))  # expect: every transaction ended
    outcomes = stored(cache)
    assert len(outcomes) == 16  # expect: each of the 8 modules' outcome and its summary's
    for value in outcomes.values():
        json.loads(value)  # expect: each entry whole
    assert run(0) == (1, expected)


pygls = pytest.importorskip("pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'")
from tests.lsp_client import LspClient  # noqa: E402


def opened(client: LspClient, root: Path, uri: str, text: str, options: dict | None = None) -> list[dict]:
    """Initialize the started server with the workspace ``root``, open ``uri``; return its first diagnostics."""
    client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                  "initializationOptions": options or {}})
    client.notify("initialized", {})
    client.notify("textDocument/didOpen",
                  {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    return client.notification("textDocument/publishDiagnostics")["diagnostics"]


def published_for(root: Path, cwd: Path, uri: str, text: str, options: dict | None = None) -> list[dict]:
    """Start the server in ``cwd`` with the workspace ``root``, open ``uri``; return its first diagnostics."""
    client = LspClient(cwd=cwd)
    try:
        return opened(client, root, uri, text, options)
    finally:
        client.close()


def test_the_language_server_reads_the_summaries_flake8_stored_in_the_workspace_cache(tmp_path, monkeypatch):
    package = write_package(tmp_path)
    assert run_flake8("--select", "ACC", "pkg", cwd=tmp_path, env=DEFAULT_FOLDER).stdout == USER_ROW
    cache = tmp_path / ".asynccfg_lint_cache"
    elsewhere = tmp_path / "elsewhere"  # the server's working directory is not the workspace's
    elsewhere.mkdir()
    monkeypatch.delenv(CACHE_DIR_ENV)
    uri = (package / "user.py").as_uri()
    found = published_for(tmp_path, elsewhere, uri, USER)
    assert [(d["code"], d["range"]["start"]) for d in found] == [("ACC101", {"line": 4, "character": 35})]
    assert not (elsewhere / ".asynccfg_lint_cache").exists()  # expect: the workspace's cache, not the cwd's
    # the stored summaries of wrappers.py now say it defines no wrapper: a server reading them sees no sink
    edited = 0
    for key, value in stored(cache).items():
        data = json.loads(value)
        if any(wrapper["wrapper_module"] == "pkg.wrappers" for wrapper in data["wrappers"]):
            overwrite(cache, "outcomes", key, json.dumps({**data, "wrappers": []}).encode())
            edited += 1
    assert edited == 2  # expect: wrappers.py's checked outcome (flake8 named it) and its summary's
    assert published_for(tmp_path, elsewhere, uri, USER) == []
    unread = published_for(tmp_path, elsewhere, uri, USER, {"noCache": True})
    assert [(d["code"], d["range"]["start"]) for d in unread] == [("ACC101", {"line": 4, "character": 35})]


def test_a_stored_package_state_is_used_only_while_no_file_of_the_package_changed(tmp_path):
    """The package's sinks stored under its files' states (``packages`` entries) answer for a file that calls
    none of them; an edit of any file (here one keeping its size) is seen."""
    package = write_package(tmp_path)
    relay = "def relay(ctx, x, cfg):\n    return iter(\"t\", ctx, x, cfg)\n"  # not a wrapper yet: no sink reached
    (package / "wrappers.py").write_text(WRAPPERS + "\n\n" + relay)
    caller = "from pkg.wrappers import relay\n\n\ndef lower(ctx, x):\n    return relay(ctx, x, {\"groups\": {1, 2}})\n"
    (package / "plain.py").write_text(caller)
    time.sleep(RACY_SECONDS + 0.2)  # expect: older than the racy window, so the first run stores the state
    cache = tmp_path / ".asynccfg_lint_cache"
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg") == (USER_ROW, True)
    assert len(stored(cache, "packages")) == 1
    assert flake8_importing(tmp_path, "--select", "ACC", "pkg/plain.py") == ("", False)
    # relay now passes cfg on to the sink: same size, but the module changed, so plain.py is analysed again
    edited = relay.replace("iter(", "emit(")
    assert len(edited) == len(relay)
    (package / "wrappers.py").write_text(WRAPPERS + "\n\n" + edited)
    found, _ = flake8_importing(tmp_path, "--select", "ACC", "pkg/plain.py")
    assert found == USER_ROW.replace("user.py", "plain.py").replace(":36:", ":37:")


def test_the_language_server_writes_its_entries_when_a_check_ends(tmp_path, monkeypatch):
    """A server runs for hours: what a check stored (the package's summaries, the marker of a module it looked
    up) is written when the check ends, not at exit; the next server publishes the unchanged document's stored
    outcome, and one with the document edited stores the parses of the modules looked up."""
    package = write_package(tmp_path)
    (package / "helpers.py").write_text("def groups():\n    return {1, 2}\n")
    user = ("from pkg.helpers import groups\nfrom pkg.wrappers import send\n\n\n"
            "def lower(ctx, x):\n    return send(ctx, x, {\"groups\": groups()})\n")
    (package / "user.py").write_text(user)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # where the parses' signing key is made
    monkeypatch.delenv(CACHE_DIR_ENV)
    cache = tmp_path / ".asynccfg_lint_cache"
    client = LspClient(cwd=tmp_path)
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": (package / "user.py").as_uri(), "languageId": "python", "version": 1, "text": user}})
        found = client.notification("textDocument/publishDiagnostics")["diagnostics"]
        # the set the helper returns, reported at its call: line 6, column 36 (0-based: 5, 35)
        assert [(d["code"], d["range"]["start"]) for d in found] == [("ACC101", {"line": 5, "character": 35})]
        # expect, with the server still running: the outcomes of user.py (its text is the file's: checked, and
        # its summary) and of wrappers.py (summary), and the markers of the three modules parsed
        assert (len(stored(cache)), len(stored(cache, "wanted"))) == (3, 3)
    finally:
        client.close()
    assert not list(cache.glob("*/parses/*/*.pickle"))  # expect: a module's parse is kept the second time only
    edited = 0
    for key, value in stored(cache).items():
        data = json.loads(value)
        if data["diagnostics"]:
            data["diagnostics"][0]["message"] = "as stored"
            overwrite(cache, "outcomes", key, json.dumps(data).encode())
            edited += 1
    assert edited == 1  # expect: user.py's checked outcome
    # the next server opens user.py unchanged: the stored outcome is published, nothing is parsed
    second = published_for(tmp_path, tmp_path, (package / "user.py").as_uri(), user)
    assert [(d["code"], d["range"]["start"], d["message"]) for d in second] == [
        ("ACC101", {"line": 5, "character": 35}, "as stored")]
    assert not list(cache.glob("*/parses/*/*.pickle"))
    # with an unsaved edit the document is checked as typed; the modules it looks up are wanted a second time
    unsaved = published_for(tmp_path, tmp_path, (package / "user.py").as_uri(), user + "# unsaved\n")
    assert [(d["code"], d["range"]["start"]) for d in unsaved] == [("ACC101", {"line": 5, "character": 35})]
    assert len(list(cache.glob("*/parses/*/*.pickle"))) == 2  # expect: their parses, for the next server


def test_a_document_checked_from_the_stored_outcome_has_the_same_quick_fixes(tmp_path, monkeypatch):
    """The language server's outcome of an unchanged document, stored by one server and read by the next,
    carries its fixes: the second server offers the same code actions as the first."""
    package = write_package(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv(CACHE_DIR_ENV)
    uri = (package / "user.py").as_uri()
    offered = []
    for _ in range(2):
        client = LspClient(cwd=tmp_path)
        try:
            found = opened(client, tmp_path, uri, USER)
            actions = client.request("textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found}})
            offered.append((found, actions))
        finally:
            client.close()
        if not stored(tmp_path / ".asynccfg_lint_cache"):
            break
    assert len(offered) == 2  # expect: the first server stored outcomes
    (first, first_actions), (second, second_actions) = offered
    # the set of line 5, column 36 (0-based 4, 35), with its (unsafe) quick fix
    assert [(d["code"], d["range"]["start"]) for d in second] == [("ACC101", {"line": 4, "character": 35})]
    assert second == first and second_actions == first_actions  # expect: what the first server offered
    assert [a["title"] for a in second_actions if a["kind"] == "quickfix"] == [
        "asynccfg-lint (ACC101): wrap in sorted(...) (unsafe fix)"]


def test_a_document_whose_outcome_was_stored_is_parsed_ahead_of_its_first_edit(tmp_path, monkeypatch):
    """The first server parses user.py to check it: nothing is left to do at idle. The next one publishes the
    stored outcome without a parse, then parses the document once no check waits (``prime``, logged), so that
    its first edit parses only the statements it touched; that edit's finding is where the edit moved it."""
    from asynccfg_lint.frontends.lsp import PRIME_DELAY

    package = write_package(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv(CACHE_DIR_ENV)
    uri = (package / "user.py").as_uri()
    primed = {"type": 4, "message": f"asynccfg-lint: {uri} parsed ahead of its first edit"}
    for server in ("parses", "reads the stored outcome"):
        client = LspClient(cwd=tmp_path)
        try:
            found = opened(client, tmp_path, uri, USER)
            assert [(d["code"], d["range"]["start"]) for d in found] == [("ACC101", {"line": 4, "character": 35})]
            if server == "parses":
                time.sleep(PRIME_DELAY + 1)
                assert client.request("shutdown") is None
                assert primed not in [n["params"] for n in client.notifications if n["method"] == "window/logMessage"]
                continue
            assert client.notification("window/logMessage") == primed
            edited = USER.replace("    return send", "    # the first edit\n    return send")
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                     "contentChanges": [{"text": edited}]})
            found = client.notification("textDocument/publishDiagnostics")
            assert (found["version"], [(d["code"], d["range"]["start"]) for d in found["diagnostics"]]) == (
                2, [("ACC101", {"line": 5, "character": 35})])
        finally:
            client.close()
