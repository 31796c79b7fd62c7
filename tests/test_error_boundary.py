"""The per-file error boundary: an exception while analysing or fixing one file is that file's ACC001.

Each front end meets a real failure: in-process, a stage monkeypatched to raise; in a subprocess,
the real CLI (check, fix), flake8, language server and libcst codemod run through
``tests/inject_failure.py``, which breaks the classifier for files holding its marker. The other
files of the run are analysed (and fixed) as usual, and no traceback is printed unless asked for.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from asynccfg_lint.run.boundary import internal_error, is_internal_error
from asynccfg_lint.rules.acc001 import HOW_TO_REPORT
from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.classifier import ValueClassifier
from asynccfg_lint.fixing.fixer import FixOptions, fix_source
from asynccfg_lint.frontends import flake8_plugin
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS
from asynccfg_lint.run.tasks import CheckSettings, FileTask, analyse_task
from tests.frontend_runs import parse_text
from tests.inject_failure import MARKER, MESSAGE

INJECTOR = Path(__file__).with_name("inject_failure.py")
GOOD = (
    "import numpy as np\n"
    "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
    "\n"
    "\n"
    "def lower(ctx, x):\n"
    '    return emit("all-gather-start", ctx, x, {"overlap": np.bool_(True)})\n'
)
BROKEN = f"# {MARKER}\n" + GOOD
#: the message of the broken file's ACC001
EXPECTED_MESSAGE = f"internal error: RuntimeError: {MESSAGE}; {HOW_TO_REPORT}"
GOOD_ROW = (6, 57, "ACC101")


@pytest.fixture
def broken_classifier(monkeypatch):
    """``check_entries`` raises for a module holding the marker, as the injector makes it."""
    original = ValueClassifier.check_entries

    def check_entries(self, *args, **kwargs):
        if MARKER in self.parsed.text:
            raise RuntimeError(MESSAGE)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ValueClassifier, "check_entries", check_entries)


def test_the_message_is_one_line_with_how_to_report():
    diagnostic = internal_error("m.py", ValueError("first line\nsecond line"))
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (1, 1, "ACC001")
    assert diagnostic.message == f"internal error: ValueError: first line; {HOW_TO_REPORT}"  # expect: one line
    assert is_internal_error(diagnostic)


def test_check_source_turns_the_exception_into_acc001(broken_classifier):
    [diagnostic] = check_source(BROKEN, "m.py")
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (1, 1, "ACC001")
    assert diagnostic.message == EXPECTED_MESSAGE
    assert [(d.line, d.column, d.code) for d in check_source(GOOD, "m.py")] == [GOOD_ROW]


def test_the_selection_applies_to_internal_errors(broken_classifier):
    from asynccfg_lint.run.selection import Selection

    assert check_source(BROKEN, "m.py", Selection(select=("ACC1",))) == []


def test_a_task_turns_the_exception_into_acc001(broken_classifier):
    outcome = analyse_task(FileTask("m.py", BROKEN.encode(), tuple(BUILTIN_SINKS), CheckSettings()))
    assert [(d.code, d.message) for d in outcome.diagnostics] == [("ACC001", EXPECTED_MESSAGE)]


def test_fix_source_leaves_the_file_and_reports_acc001(broken_classifier):
    result = fix_source(BROKEN.encode(), "m.py", FixOptions())
    assert (result.fixed, result.changed, result.failure) == (BROKEN.encode(), False, None)
    assert [(d.code, d.message) for d in result.remaining] == [("ACC001", EXPECTED_MESSAGE)]


def test_the_flake8_plugin_reports_acc001(broken_classifier, tmp_path):
    path = tmp_path / "m.py"
    rows = list(flake8_plugin.AsyncCfgChecker(None, BROKEN.splitlines(keepends=True), str(path)).run())
    assert [(line, column, text) for line, column, text, _ in rows] == [(1, 0, f"ACC001 {EXPECTED_MESSAGE}")]


# --- the real front ends in subprocesses ---------------------------------------------------------


def run_injected(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(INJECTOR), module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def tree(tmp_path) -> Path:
    (tmp_path / "broken.py").write_text(BROKEN)
    (tmp_path / "good.py").write_text(GOOD)
    return tmp_path


def rows(stdout: str) -> list[tuple]:
    """(file name, line, column, code), and the message of an ACC001."""
    return [(Path(r.path).name, r.line, r.column, r.code) + ((r.message,) if r.code == "ACC001" else ())
            for r in parse_text(stdout)]


#: what check and flake8 print for the tree: the broken file's ACC001, the good file's finding
EXPECTED_ROWS = [("broken.py", 1, 1, "ACC001", EXPECTED_MESSAGE), ("good.py", *GOOD_ROW)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_cli_check_goes_on_after_an_internal_error(tree, jobs):
    result = run_injected("asynccfg_lint", "check", "--isolated", "--no-cache", "-j", jobs, ".", cwd=tree)
    assert result.returncode == 1
    assert rows(result.stdout) == EXPECTED_ROWS
    assert result.stderr == "1 sink call checked: all fully typed\n"  # no traceback without --verbose


def test_cli_check_verbose_prints_the_traceback(tree):
    result = run_injected("asynccfg_lint", "check", "--isolated", "--no-cache", "--verbose", ".", cwd=tree)
    assert result.returncode == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert f"\nRuntimeError: {MESSAGE}\n" in result.stderr  # the traceback's last line (-v prints settings after it)


def test_cli_fix_fixes_the_other_files_and_leaves_the_broken_one(tree):
    result = run_injected("asynccfg_lint", "fix", "--isolated", ".", cwd=tree)
    assert result.returncode == 1  # a finding (the ACC001) is left
    assert rows(result.stdout) == [("broken.py", 1, 1, "ACC001", EXPECTED_MESSAGE)]
    assert (tree / "broken.py").read_text() == BROKEN
    assert (tree / "good.py").read_text() == GOOD.replace("np.bool_(True)", "bool(np.bool_(True))")
    assert "Traceback" not in result.stderr and "error:" not in result.stderr


def test_flake8_goes_on_after_an_internal_error(tree):
    result = run_injected("flake8", "--isolated", "--select", "ACC", "broken.py", "good.py", cwd=tree)
    assert result.returncode == 1
    assert rows(result.stdout) == EXPECTED_ROWS
    assert result.stderr == ""


def test_flake8_verbose_prints_the_traceback(tree):
    result = run_injected("flake8", "--isolated", "-v", "--select", "ACC", "broken.py", "good.py", cwd=tree)
    assert rows(result.stdout) == EXPECTED_ROWS
    assert "Traceback (most recent call last)" in result.stderr and f"RuntimeError: {MESSAGE}" in result.stderr


def test_the_codemod_skips_the_broken_file_with_its_acc001(tree):
    result = run_injected("libcst.tool", "codemod", "-x", "--no-format", "asynccfg_lint.codemod.FixAsyncConfigCommand",
                          "broken.py", "good.py", cwd=tree)
    assert result.returncode == 0, result.stderr
    assert f"ACC001 {EXPECTED_MESSAGE}" in result.stderr
    assert " - Transformed 1 files successfully." in result.stderr
    assert " - Skipped 1 files." in result.stderr
    assert "Traceback" not in result.stderr
    assert (tree / "broken.py").read_text() == BROKEN
    assert (tree / "good.py").read_text() == GOOD.replace("np.bool_(True)", "bool(np.bool_(True))")


def test_the_language_server_publishes_acc001_and_answers_code_actions(tree):
    pytest.importorskip("pygls")
    from tests.lsp_client import LspClient
    from tests.test_lsp import code_actions, initialize, open_document, shut_down, span

    client = LspClient(cwd=tree, command=(sys.executable, str(INJECTOR), "asynccfg_lint", "lsp"))
    try:
        initialize(client, tree)
        broken_uri, good_uri = (tree / "broken.py").as_uri(), (tree / "good.py").as_uri()
        open_document(client, broken_uri, BROKEN)
        published = client.notification("textDocument/publishDiagnostics")
        assert published["uri"] == broken_uri
        assert [(d["range"], d["code"], d["message"]) for d in published["diagnostics"]] == [
            (span(0, 0, 0), "ACC001", EXPECTED_MESSAGE)]
        logged = client.notification("window/logMessage")
        assert "Traceback" in logged["message"] and MESSAGE in logged["message"]
        # the quick-fix stage fails too for this document: no JSON-RPC error, no actions, the traceback logged
        assert code_actions(client, broken_uri, span(0, 0, 1), published["diagnostics"]) == []
        assert "injected failure in fix_edit" in client.notification("window/logMessage")["message"]
        open_document(client, good_uri, GOOD)
        published = client.notification("textDocument/publishDiagnostics")
        assert [(d["code"], d["range"]["start"]) for d in published["diagnostics"]] == [
            ("ACC101", {"line": 5, "character": 56})]
        assert code_actions(client, good_uri, span(5, 56, 70), published["diagnostics"])
        shut_down(client)
    finally:
        client.close()
