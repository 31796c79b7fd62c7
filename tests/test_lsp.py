"""The language server, driven over stdio in a subprocess with real LSP JSON-RPC messages.

Positions in these tests are written out by hand: LSP lines are 0-based and characters are UTF-16
code units, so on a line holding an emoji (two UTF-16 units, one code point) every character after
it is one more than the checker's 1-based code-point column minus one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'")

from asynccfg_lint.analysis.checker import check_source  # noqa: E402
from asynccfg_lint.frontends import lsp as server  # noqa: E402 - needs pygls
from asynccfg_lint.rules import pages as rule_pages  # noqa: E402
from asynccfg_lint.rules.pages import rule_page  # noqa: E402
from tests.expectations import FIXTURES, expected_diagnostics  # noqa: E402
from tests.lsp_client import LspClient, ServerError, apply_edits, document_edits  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: line 5 holds an astral character (U+1F600, two UTF-16 units) before the first bad value
BAD = (
    "import numpy as np\n"
    "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
    "\n"
    "\n"
    "def lowering(ctx, x):\n"
    '    cfg = {"\U0001F600 tag": np.bool_(True), "order": {3, 1}}\n'
    '    cfg["scale"] = float("nan")\n'
    '    return emit("all-gather-start", ctx, x, cfg)\n'
)
NP_BOOL_MESSAGE = (
    'value for key "\U0001F600 tag" is numpy.bool_, which JAX cannot serialize to JSON: lowering raises '
    "ValueError; use bool(...)"
)
SET_MESSAGE = (
    'value for key "order" is set, which JAX cannot serialize to JSON: lowering raises ValueError; '
    "use sorted(...) or list(...)"
)
NAN_MESSAGE = (
    'value for key "scale" is a non-finite float (NaN or Infinity): JAX emits non-standard JSON and XLA\'s '
    "compile fails (Failed to parse collective op config JSON); use a finite number"
)

#: two safe fixes on two lines, one unsafe fix, for the fix-all action
FIXABLE = (
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
    "\n"
    "\n"
    "def lowering(ctx, x):\n"
    '    cfg = {"tiled": np.bool_(True)}  # keep this comment\n'
    '    cfg["groups"] = {3, 1}\n'
    '    cfg["ids"] = jnp.arange(4)\n'
    '    return emit("all-gather-start", ctx, x, cfg)\n'
)
FIXABLE_FIXED = FIXABLE.replace("np.bool_(True)", "bool(np.bool_(True))").replace(
    "jnp.arange(4)", "jnp.arange(4).tolist()"
)


def between(line: int, character: int, end_line: int, end_character: int) -> dict:
    """An LSP range."""
    return {"start": {"line": line, "character": character}, "end": {"line": end_line, "character": end_character}}


def span(line: int, start: int, end: int) -> dict:
    """An LSP range on one line."""
    return between(line, start, line, end)


def doc_href(code: str) -> str:
    return (ROOT / "docs" / "rules" / f"{code}.md").as_uri()


def diagnostic(range_: dict, code: str, message: str, severity: int = 1) -> dict:
    """A diagnostic as the server publishes it (JSON, ``None`` fields left out)."""
    return {
        "range": range_, "message": message, "severity": severity, "code": code,
        "codeDescription": {"href": doc_href(code)}, "source": "asynccfg-lint",
    }


NP_BOOL = diagnostic(span(5, 21, 35), "ACC101", NP_BOOL_MESSAGE)
SET = diagnostic(span(5, 46, 52), "ACC101", SET_MESSAGE)
NAN = diagnostic(span(6, 19, 31), "ACC103", NAN_MESSAGE)


def initialize(client: LspClient, root: Path, capabilities: dict | None = None) -> dict:
    if capabilities is None:
        capabilities = {"workspace": {"workspaceEdit": {"documentChanges": True}}}
    result = client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities})
    client.notify("initialized", {})
    return result


def open_document(client: LspClient, uri: str, text: str, language: str = "python") -> None:
    client.notify("textDocument/didOpen",
                  {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})


def change_document(client: LspClient, uri: str, version: int, text: str) -> None:
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}],
    })


def code_actions(client: LspClient, uri: str, range_: dict, diagnostics: list[dict], only: list[str] | None = None):
    context: dict = {"diagnostics": diagnostics}
    if only is not None:
        context["only"] = only
    params = {"textDocument": {"uri": uri}, "range": range_, "context": context}
    return client.request("textDocument/codeAction", params)


def shut_down(client: LspClient) -> None:
    assert client.request("shutdown") is None
    client.notify("exit")
    assert client.wait() == 0


@pytest.fixture
def client(tmp_path):
    started = LspClient(cwd=tmp_path)
    yield started
    started.close()


def test_initialize_advertises_full_sync_quick_fixes_and_fix_all(client, tmp_path):
    result = initialize(client, tmp_path)
    capabilities = result["capabilities"]
    assert result["serverInfo"]["name"] == "asynccfg-lint"
    assert capabilities["positionEncoding"] == "utf-16"
    assert capabilities["textDocumentSync"]["change"] == 1  # Full
    assert capabilities["textDocumentSync"]["openClose"] is True
    assert capabilities["textDocumentSync"]["save"]
    assert capabilities["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.asynccfg-lint"]
    shut_down(client)


def test_diagnostics_quick_fixes_and_their_edits(client, tmp_path):
    initialize(client, tmp_path)
    uri = (tmp_path / "bad_config.py").as_uri()
    open_document(client, uri, BAD)
    published = client.notification("textDocument/publishDiagnostics")
    assert published == {"uri": uri, "version": 1, "diagnostics": [NP_BOOL, SET, NAN]}

    # the safe fix at the np.bool_ value: preferred, a versioned edit of exactly that range
    actions = code_actions(client, uri, NP_BOOL["range"], [NP_BOOL], only=["quickfix"])
    assert actions == [{
        "title": "asynccfg-lint (ACC101): wrap in bool(...)",
        "kind": "quickfix",
        "diagnostics": [NP_BOOL],
        "isPreferred": True,
        "edit": {"documentChanges": [{
            "textDocument": {"uri": uri, "version": 1},
            "edits": [{"range": span(5, 21, 35), "newText": "bool(np.bool_(True))"}],
        }]},
    }]
    text = apply_edits(BAD, document_edits(actions[0]["edit"], uri))
    assert '{"\U0001F600 tag": bool(np.bool_(True)), "order": {3, 1}}' in text
    change_document(client, uri, 2, text)
    published = client.notification("textDocument/publishDiagnostics")
    set_after = {**SET, "range": span(5, 52, 58)}  # six characters ("bool(" and ")") further right
    assert published == {"uri": uri, "version": 2, "diagnostics": [set_after, NAN]}

    # a cursor inside the set (an empty range) finds its fix: unsafe, so not preferred
    cursor = span(5, 55, 55)
    actions = code_actions(client, uri, cursor, [])
    assert [(a["title"], a["kind"], a["isPreferred"]) for a in actions] == [
        ("asynccfg-lint (ACC101): wrap in sorted(...) (unsafe fix)", "quickfix", False),
    ]
    assert document_edits(actions[0]["edit"], uri) == [{"range": span(5, 52, 58), "newText": "sorted({3, 1})"}]
    text = apply_edits(text, document_edits(actions[0]["edit"], uri))
    change_document(client, uri, 3, text)
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == [NAN]

    # the NaN has no fix; no code action for it
    assert code_actions(client, uri, NAN["range"], [NAN]) == []
    text = text.replace('float("nan")', "0.5")
    change_document(client, uri, 4, text)
    assert client.notification("textDocument/publishDiagnostics") == {"uri": uri, "version": 4, "diagnostics": []}

    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.notification("textDocument/publishDiagnostics") == {"uri": uri, "diagnostics": []}
    shut_down(client)


def test_a_configuration_edited_while_the_server_runs_applies_at_the_next_save(client, tmp_path):
    # the settings are read again at each save: of a Python document (the pyproject.toml changed beside it)
    # or of the pyproject.toml itself, opened in the editor; every open document is checked again
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.asynccfg-lint]\n")
    (tmp_path / "bad_config.py").write_text(BAD)
    initialize(client, tmp_path)
    uri = (tmp_path / "bad_config.py").as_uri()
    open_document(client, uri, BAD)
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == [NP_BOOL, SET, NAN]
    config.write_text('[tool.asynccfg-lint]\nignore = ["ACC101"]\n')
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == [NAN]  # expect: ACC103 only
    config.write_text("[tool.asynccfg-lint]\n")
    open_document(client, config.as_uri(), config.read_text(), language="toml")
    client.notify("textDocument/didSave", {"textDocument": {"uri": config.as_uri()}})
    published = client.notification("textDocument/publishDiagnostics")
    assert (published["uri"], published["diagnostics"]) == (uri, [NP_BOOL, SET, NAN])
    shut_down(client)
    assert client.server_requests == []  # expect: no file watchers asked of a client that cannot register them


def test_files_changed_outside_the_editor_are_watched_when_the_client_can(client, tmp_path):
    # a helper module and the settings changed on disk (git checkout, a formatter), no save in the editor
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helpers = package / "helpers.py"
    helpers.write_text("def groups():\n    return {1, 2}\n")
    user = ("from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
            "from pkg.helpers import groups\n\n\n"
            "def lower(ctx, x):\n    return emit(\"t\", ctx, x, {\"groups\": groups()})\n")
    (package / "user.py").write_text(user)
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.asynccfg-lint]\n")
    initialize(client, tmp_path, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
    uri = (package / "user.py").as_uri()
    open_document(client, uri, user)
    # the set the helper returns, at its call: line 6, column 41 (0-based 5, 40)
    found = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    assert [(d["code"], d["range"]["start"]) for d in found] == [("ACC101", {"line": 5, "character": 40})]
    registered = [r["params"]["registrations"] for r in client.server_requests
                  if r["method"] == "client/registerCapability"]
    assert [[(r["method"], [w["globPattern"] for w in r["registerOptions"]["watchers"]]) for r in each]
            for each in registered] == [[("workspace/didChangeWatchedFiles", ["**/*.py", "**/*.pyi", "**/pyproject.toml"])]]
    helpers.write_text("def groups():\n    return [1, 2]\n")
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": helpers.as_uri(), "type": 2}]})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []  # expect: a list now
    helpers.write_text("def groups():\n    return {1, 2}\n")
    config.write_text('[tool.asynccfg-lint]\nignore = ["ACC101"]\n')
    client.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": helpers.as_uri(), "type": 2}, {"uri": config.as_uri(), "type": 2}]})
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []  # expect: ignored now
    config.write_text("[tool.asynccfg-lint]\n")
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": config.as_uri(), "type": 2}]})
    found = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    assert [(d["code"], d["range"]["start"]) for d in found] == [("ACC101", {"line": 5, "character": 40})]
    shut_down(client)


def test_fix_all_source_action_applies_the_safe_fixes(client, tmp_path):
    initialize(client, tmp_path)
    uri = (tmp_path / "fixable.py").as_uri()
    open_document(client, uri, FIXABLE)
    published = client.notification("textDocument/publishDiagnostics")
    assert [(d["code"], d["range"]) for d in published["diagnostics"]] == [
        ("ACC101", span(6, 20, 34)), ("ACC101", span(7, 20, 26)), ("ACC101", span(8, 17, 30)),
    ]
    # a quick-fix request over the whole document: every fix, and no source action
    quick = code_actions(client, uri, between(0, 0, 10, 0), [], only=["quickfix"])
    assert [a["kind"] for a in quick] == ["quickfix"] * 3
    assert [a["isPreferred"] for a in quick] == [True, False, True]

    for only in (["source.fixAll.asynccfg-lint"], ["source.fixAll"], ["source"]):
        actions = code_actions(client, uri, span(0, 0, 0), [], only=only)
        assert [(a["title"], a["kind"]) for a in actions] == [
            ("asynccfg-lint: fix all safe fixes", "source.fixAll.asynccfg-lint"),
        ], only
    edits = document_edits(actions[0]["edit"], uri)
    assert edits == [
        {"range": between(6, 0, 7, 0), "newText": '    cfg = {"tiled": bool(np.bool_(True))}  # keep this comment\n'},
        {"range": between(8, 0, 9, 0), "newText": '    cfg["ids"] = jnp.arange(4).tolist()\n'},
    ]
    fixed = apply_edits(FIXABLE, edits)
    assert fixed == FIXABLE_FIXED
    change_document(client, uri, 2, fixed)
    published = client.notification("textDocument/publishDiagnostics")
    assert [(d["code"], d["range"]) for d in published["diagnostics"]] == [("ACC101", span(7, 20, 26))]
    # only the unsafe fix is left: no fix-all action any more
    assert code_actions(client, uri, span(0, 0, 0), [], only=["source.fixAll"]) == []
    shut_down(client)


def test_utf8_client_gets_byte_columns_and_a_changes_map(client, tmp_path):
    result = initialize(client, tmp_path, {"general": {"positionEncodings": ["utf-8", "utf-16"]}})
    assert result["capabilities"]["positionEncoding"] == "utf-8"
    uri = (tmp_path / "bad_config.py").as_uri()
    open_document(client, uri, BAD)
    diagnostics = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    # U+1F600 is four UTF-8 bytes: three more than its one code point
    assert [d["range"] for d in diagnostics] == [span(5, 23, 37), span(5, 48, 54), span(6, 19, 31)]
    actions = code_actions(client, uri, diagnostics[0]["range"], diagnostics[:1])
    assert actions[0]["edit"] == {"changes": {uri: [{"range": span(5, 23, 37), "newText": "bool(np.bool_(True))"}]}}
    shut_down(client)


def test_only_python_documents_are_checked(client, tmp_path):
    initialize(client, tmp_path)
    notes = (tmp_path / "notes.txt").as_uri()
    open_document(client, notes, BAD, language="plaintext")
    assert code_actions(client, notes, NP_BOOL["range"], []) == []
    stub = (tmp_path / "stub.pyi").as_uri()  # a Python path is enough, whatever the language id
    open_document(client, stub, BAD, language="")
    assert client.notification("textDocument/publishDiagnostics")["uri"] == stub  # nothing came for notes.txt
    shut_down(client)


def test_syntax_error_is_an_error(client, tmp_path):  # ACC001's one severity, as in SARIF and GitHub output
    initialize(client, tmp_path)
    uri = (tmp_path / "broken.py").as_uri()
    open_document(client, uri, "from jax._src.lax.parallel import _emit_async_start_custom_call\ndef f(:\n")
    [published] = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    assert (published["code"], published["severity"], published["range"]["start"]["line"]) == ("ACC001", 1, 1)
    shut_down(client)


# --- in-process units: positions, edits, encodings, rule links ---------------------------------


@pytest.mark.parametrize(("encoding", "expected"), [("utf-16", 5), ("utf-8", 7), ("utf-32", 4)])
def test_code_units(encoding, expected):
    assert server.code_units('x="\U0001F60B', encoding) == expected  # x="😋: the LSP spec's own example


def test_line_index_splits_like_python_and_clamps():
    index = server.LineIndex("a = 1\r\nb\x0c= '\U0001F600'\rc\n")
    assert index.line_text(1) == "b\x0c= '\U0001F600'"  # a form feed does not break the line
    assert index.position(2, 6) == server.lsp.Position(line=1, character=5)  # at the emoji
    assert index.position(2, 7) == server.lsp.Position(line=1, character=7)  # after the emoji: 6 code points
    assert index.position(2, 99) == server.lsp.Position(line=1, character=8)  # clamped to the line's end
    assert index.position(3, 2) == server.lsp.Position(line=2, character=1)
    assert index.position(9, 1) == server.lsp.Position(line=3, character=0)  # past the last line: the end


def test_line_index_agrees_with_the_checkers_lines():
    """libcst and LineIndex split lines alike: CR, CRLF, and no break at a form feed or U+2028."""
    text = ("from jax._src.lax.parallel import _emit_async_start_custom_call as e\rdef f(c, x):\r\n"
            "    e('a', c, x, {'\U0001F600\x0c\u2028': {1}})\r")
    [found] = check_source(text, "a.py")
    assert (found.line, found.column, found.end_column) == (3, 26, 29)
    assert server.LineIndex(text).range(found.line, found.column, found.end_line, found.end_column) == server.lsp.Range(
        start=server.lsp.Position(line=2, character=26), end=server.lsp.Position(line=2, character=29))


@pytest.mark.parametrize("old, new", [
    ("a\r\nb\r\nc", "a\r\nB\r\nc"),
    ("a\nb\nc", "a\nb\nc\nd"),
    ("a\nb", "b"),
    ("", "x\n"),
])
def test_text_edits_turn_the_old_text_into_the_new(old, new):
    index = server.LineIndex(old)
    text = old
    for edit in reversed(server.text_edits(index, new)):  # ASCII: code units are characters
        start = index.starts[edit.range.start.line] + edit.range.start.character
        end = index.starts[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    assert text == new


def test_fix_all_keeps_a_coding_cookie_meaningful():
    text = "# -*- coding: latin-1 -*-\n" + FIXABLE.replace("keep this comment", "d\u00e9j\u00e0 vu")
    assert server.source_encoding(text) == "iso-8859-1"
    assert server.fix_all_text(text, "fixable.py") == "# -*- coding: latin-1 -*-\n" + FIXABLE_FIXED.replace(
        "keep this comment", "d\u00e9j\u00e0 vu")
    assert server.fix_all_text(FIXABLE_FIXED, "fixable.py") is None  # nothing safe left to fix


def test_rule_doc_uri(monkeypatch, tmp_path):
    assert server.rule_doc_uri("ACC101") == doc_href("ACC101")
    assert server.rule_doc_uri("ACC101", "https://example.invalid/rules/") == "https://example.invalid/rules/ACC101.md"
    assert server.rule_doc_uri("E501") is None
    # an installed wheel has no docs/ folder: the page is rendered into the user's cache
    monkeypatch.setattr(rule_pages, "CHECKOUT_RULES_DIR", tmp_path / "missing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    uri = server.rule_doc_uri("ACC102")
    page = tmp_path / "cache" / "asynccfg-lint" / server.__version__ / "rules" / "ACC102.md"
    assert uri == page.as_uri()
    assert page.read_text(encoding="utf-8") == rule_page("ACC102")


def test_severity():  # one severity per rule, as SARIF and GitHub output report it (ACC001: an error)
    assert [server.severity(code) for code in ("ACC001", "ACC101", "ACC105", "ACC201")] == [
        server.lsp.DiagnosticSeverity.Error, server.lsp.DiagnosticSeverity.Error,
        server.lsp.DiagnosticSeverity.Error, server.lsp.DiagnosticSeverity.Warning,
    ]


def test_a_message_that_never_comes_fails_instead_of_blocking(client, tmp_path):
    initialize(client, tmp_path)
    with pytest.raises(ServerError, match="no textDocument/publishDiagnostics notification within"):
        client.notification("textDocument/publishDiagnostics", timeout=1)
    shut_down(client)


def test_server_exits_when_the_editor_goes_away(client, tmp_path):
    initialize(client, tmp_path)
    client.process.stdin.close()  # the editor died without shutdown/exit
    assert client.wait() in (0, 1)


def test_the_files_pyproject_settings_apply(client, tmp_path):
    """The server reads ``[tool.asynccfg-lint]`` as the CLI does: here ACC101 is ignored, ACC103 stays."""
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nignore = ["ACC101"]\n')
    initialize(client, tmp_path)
    uri = (tmp_path / "bad_config.py").as_uri()
    open_document(client, uri, BAD)
    assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == [NAN]
    shut_down(client)


def test_a_document_sees_its_packages_wrappers_and_builders(client, tmp_path):
    """As the CLI: wrappers and builders of sibling modules (saved on disk) count for the open document."""
    shutil.copytree(FIXTURES / "project" / "pkg", tmp_path / "pkg")
    initialize(client, tmp_path)
    expected = sorted((e.line - 1, e.column - 1, e.code)  # LSP positions are 0-based; ACC201 is opt-in
                      for e in expected_diagnostics(tmp_path / "pkg" / "users.py") if e.code != "ACC201")
    users = tmp_path / "pkg" / "users.py"
    open_document(client, users.as_uri(), users.read_text())
    published = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    assert sorted((d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"]) for d in published) == expected
    assert len(expected) == 15  # 10 of them arrive from builders and constants of sibling modules
    # the same text as a new module of the package, open in the editor and not saved yet (trial 10: none)
    unsaved = tmp_path / "pkg" / "new_users.py"
    open_document(client, unsaved.as_uri(), users.read_text())
    published = client.notification("textDocument/publishDiagnostics")
    assert published["uri"] == unsaved.as_uri()
    assert sorted((d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"])
                  for d in published["diagnostics"]) == expected
    shut_down(client)


def test_a_document_that_names_no_sink_gets_its_finding_from_a_wrapper_two_modules_away(client, tmp_path):
    """user.py calls relay.forward, which calls impl.send; routes.py makes the package too large for the
    prefilter's names (``SinkNames`` gives up), so the finding must come through the package's full rounds."""
    from tests.test_summary_reuse import ROUTES, write_package

    package = write_package(tmp_path)
    (package / "routes.py").write_text(ROUTES)
    initialize(client, tmp_path)
    for name, expected in (("user.py", [(4, 31, "ACC101")]), ("unrelated.py", [])):  # expect: the set {1, 2}; nothing
        document = package / name
        open_document(client, document.as_uri(), document.read_text())
        published = client.notification("textDocument/publishDiagnostics")
        assert published["uri"] == document.as_uri()
        assert [(d["range"]["start"]["line"], d["range"]["start"]["character"], d["code"])
                for d in published["diagnostics"]] == expected
    shut_down(client)


# --- protocol handling: debounce, lazy fix-all, unopened documents, start-up -------------------


def burst_text(version: int) -> str:
    """A document whose one finding names its version: a set under the key ``v<version>``."""
    return ("from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n\n\n"
            f"def lowering(ctx, x):\n    return emit('all-gather-start', ctx, x, {{'v{version}': {{1, 2}}}})\n")


def test_a_burst_of_changes_is_checked_once_at_its_last_text(client, tmp_path):
    initialize(client, tmp_path)
    uri = (tmp_path / "typing.py").as_uri()
    open_document(client, uri, burst_text(1))
    [first] = client.notification("textDocument/publishDiagnostics")["diagnostics"]
    assert first["message"].startswith('value for key "v1" is set')
    for version in range(2, 22):  # 20 changes back to back, as fast typing sends them
        change_document(client, uri, version, burst_text(version))
    published = client.notification("textDocument/publishDiagnostics")
    assert published["version"] == 21  # expect: no diagnostics of versions 2-20 were published
    [only] = published["diagnostics"]
    assert only["message"].startswith('value for key "v21" is set')
    # nothing of the burst is still on its way: the shutdown response comes after every notification sent before it
    assert client.request("shutdown") is None
    assert [n for n in client.notifications if n["method"] == "textDocument/publishDiagnostics"] == []
    client.notify("exit")
    assert client.wait() == 0


RESOLVING = {"workspace": {"workspaceEdit": {"documentChanges": True}},
             "textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}


def test_fix_all_is_computed_when_the_client_resolves_it(client, tmp_path):
    result = initialize(client, tmp_path, RESOLVING)
    assert result["capabilities"]["codeActionProvider"]["resolveProvider"] is True
    uri = (tmp_path / "fixable.py").as_uri()
    open_document(client, uri, FIXABLE)
    client.notification("textDocument/publishDiagnostics")
    actions = code_actions(client, uri, between(0, 0, 10, 0), [])
    assert [a["kind"] for a in actions] == ["quickfix"] * 3 + ["source.fixAll.asynccfg-lint"]
    assert all("edit" in a for a in actions[:3])  # quick fixes are one range each: sent at once
    fix_all = actions[3]
    assert fix_all == {"title": "asynccfg-lint: fix all safe fixes", "kind": "source.fixAll.asynccfg-lint",
                       "data": {"uri": uri}}  # expect: no edit until resolved
    resolved = client.request("codeAction/resolve", fix_all)
    assert resolved["edit"]["documentChanges"][0]["textDocument"] == {"uri": uri, "version": 1}
    assert apply_edits(FIXABLE, document_edits(resolved["edit"], uri)) == FIXABLE_FIXED
    # resolving after the text changed fixes the current text
    change_document(client, uri, 2, FIXABLE_FIXED)
    again = client.request("codeAction/resolve", fix_all)
    assert again["edit"] == {"documentChanges": [{"textDocument": {"uri": uri, "version": 2}, "edits": []}]}
    shut_down(client)


def test_a_document_that_was_never_opened_has_no_code_actions(client, tmp_path):
    initialize(client, tmp_path, RESOLVING)
    on_disk = tmp_path / "on_disk.py"
    on_disk.write_text(FIXABLE)
    for uri in (on_disk.as_uri(), (tmp_path / "missing.py").as_uri(), "untitled:Untitled-1"):
        assert code_actions(client, uri, between(0, 0, 10, 0), []) == []
        stray = {"title": "asynccfg-lint: fix all safe fixes", "kind": "source.fixAll.asynccfg-lint", "data": {"uri": uri}}
        assert client.request("codeAction/resolve", stray) == stray  # expect: no edit, no error
    shut_down(client)
    assert "Traceback" not in client.stderr


def test_the_server_starts_without_the_analysis(tmp_path):
    """Start-up imports the protocol only; libcst and the checker come with the first check."""
    probe = ("import sys, asynccfg_lint.frontends.lsp as server; server.create_server(); "
             "print(sorted(m for m in ('libcst', 'asynccfg_lint.analysis.checker', 'asynccfg_lint.fixing.fixer') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout == "[]\n"
