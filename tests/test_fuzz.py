"""Fuzzing: generated programs and reformatted fixtures through check, the flake8 plugin, fix and the server.

Inputs: hypothesmith's programs from the grammar (``from_grammar``) and from libcst nodes
(``from_node``: varied whitespace and parentheses), each with a generated sink call appended;
the hard inputs with one appended; the fixture corpus reformatted without changing its meaning
(``tests/mutations.py``: keyword spacing across line breaks, ``not(x)``, ``1if x else 2``,
redundant parentheses, comments inside brackets, tabs, CRLF).

The budget is the hypothesis profile's (``tests/conftest.py``): ``ci`` by default, ``--hypothesis-profile=long``
for the 10 000-example run.

Properties, for every generated file:

- ``check`` never raises nor reports an internal error, and every position lies inside the file;
- the flake8 plugin never fails (it would log and report nothing) and its positions lie inside the file;
- ``fix`` never raises; what it writes compiles, re-checks with no fixable finding left (but those
  of the fixes it names as left out), and a second ``fix`` changes nothing; a refused fix leaves the
  bytes as they were;
- when the file can be analysed, the findings are exactly the config's (one per bad value or key);
- a reformatted fixture has the original's findings (code and message), the plugin reports them
  at check's positions, and the language server (one real server over stdio per test) publishes
  check's diagnostics and answers a code-action request without a JSON-RPC error.
"""

from __future__ import annotations

import atexit
import functools
import io
import logging
import re
import shutil
import tempfile
import tokenize
from collections import Counter
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from asynccfg_lint.run.boundary import is_internal_error
from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.fixing.fixer import FixOptions, fix_source
from asynccfg_lint.frontends import flake8_plugin
from asynccfg_lint.process_owner import owned_process
from asynccfg_lint.run.selection import Selection
from tests.mutations import mutated
from tests.strategies import Config, configs, sink_block

#: generated programs, tens of examples each: with the end-to-end tier (README, Development)
pytestmark = pytest.mark.slow

#: a folder outside any package or project, so the plugin finds no configuration and no siblings
FOLDER = Path(tempfile.mkdtemp(prefix="asynccfg-fuzz-"))
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)  # one folder per process, gone at its exit
PATH = str(FOLDER / "fuzzed.py")
UNSAFE = FixOptions(unsafe=True)


class _Failures(logging.Handler):
    """Collects the plugin's log records: a record means it failed on a file."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def physical_lines(data: bytes) -> list[str]:
    """The file's lines as Python splits them (\\n, \\r\\n, \\r), decoded as Python decodes it."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return io.StringIO(data.decode(encoding), newline="").readlines()


def assert_inside(diagnostics: list[Diagnostic], lines: list[str]) -> None:
    """Every position lies inside the file, and none is an internal error (the boundary's ACC001)."""
    assert [d.message for d in diagnostics if is_internal_error(d)] == []
    for d in diagnostics:
        assert 1 <= d.line <= max(len(lines), 1), d
        assert d.line <= d.end_line <= max(len(lines), 1), d
        assert 1 <= d.column <= len(lines[d.line - 1].rstrip("\r\n")) + 1 if lines else d.column == 1, d
        if d.end_line == d.line:
            assert d.column <= d.end_column, d


def run_plugin(data: bytes) -> list[tuple[int, int, str, type]]:
    """Run the plugin as flake8 does: on the file's lines read with universal newlines."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    lines = io.TextIOWrapper(io.BytesIO(data), encoding, line_buffering=True).readlines()
    failures = _Failures()
    flake8_plugin.LOG.addHandler(failures)
    try:
        rows = list(flake8_plugin.AsyncCfgChecker(None, lines, PATH).run())
    finally:
        flake8_plugin.LOG.removeHandler(failures)
    assert failures.records == []
    assert [text for _, _, text, _ in rows if text.startswith("ACC001 internal error")] == []
    for line, column, _, _ in rows:
        assert 1 <= line <= len(lines)
        assert 0 <= column <= len(lines[line - 1])
    return rows


def check_all_properties(data: bytes, config: Config) -> None:
    """Every property of the module docstring for one file."""
    lines = physical_lines(data)
    diagnostics = check_source(data, PATH, with_fixes=True)
    assert_inside(diagnostics, lines)
    run_plugin(data)
    if not any(d.code == "ACC001" for d in diagnostics):
        assert Counter(d.code for d in diagnostics) == config.codes
    check_fix(data)


def check_fix(data: bytes) -> None:
    """``fix`` never raises; what it writes compiles, re-checks as it says, and a second ``fix`` changes nothing."""
    result = fix_source(data, PATH, UNSAFE)
    assert [d.message for d in result.remaining if is_internal_error(d)] == []
    if result.failure is not None or not result.changed:
        assert result.fixed == data
        return
    compile(result.fixed, PATH, "exec", dont_inherit=True)
    after = check_source(result.fixed, PATH, with_fixes=True)
    assert_inside(after, physical_lines(result.fixed))
    if result.withheld is None:  # every chosen fix is applied: nothing fixable is left
        assert [d.fix for d in after] == [None] * len(after)
    assert sorted(after, key=lambda d: d.sort_key) == sorted(result.remaining, key=lambda d: d.sort_key)
    again = fix_source(result.fixed, PATH, UNSAFE)
    assert (again.fixed, again.applied) == (result.fixed, 0)


@given(configs)
def test_generated_configs(config):
    """The config kinds alone, in a module of their own: the verdict must be exact."""
    check_all_properties(sink_block(config).encode(), config)


@given(hypothesmith.from_grammar(), configs)
def test_sink_call_in_a_generated_program(program, config):
    """A sink call appended to a valid program hypothesmith generated."""
    source = program if program.endswith(("\n", "\r")) or not program else program + "\n"
    check_all_properties((source + sink_block(config)).encode("utf-8", "surrogatepass"), config)


@given(st.sampled_from(sorted((Path(__file__).parent / "fixtures" / "hard").glob("*.py"))), configs)
def test_sink_call_appended_to_a_hard_input(path, config):
    """The hard inputs, with a generated sink call after them: never raises, whatever the file."""
    data = path.read_bytes()
    if data and not data.endswith((b"\n", b"\r")):
        data += b"\n"
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    block = sink_block(config)
    try:
        data += block.encode(encoding)
    except UnicodeEncodeError:
        data += block.encode("ascii", "backslashreplace")
    _never_raises(data)


def _never_raises(data: bytes) -> None:
    """check and fix do not raise; positions lie inside the file; fix changes the file or leaves it as it was."""
    try:
        lines = physical_lines(data)
    except (SyntaxError, UnicodeDecodeError):
        lines = []
    diagnostics = check_source(data, PATH, with_fixes=True)
    if lines:
        assert_inside(diagnostics, lines)
    result = fix_source(data, PATH, UNSAFE)
    assert [d.message for d in result.remaining if is_internal_error(d)] == []
    assert result.changed or result.fixed == data


@given(hypothesmith.from_node(), configs)
# (hypothesmith's from_node filters the programs it cannot print: 50 of 58 once, failing the health check)
@settings(suppress_health_check=[*settings.default.suppress_health_check, HealthCheck.filter_too_much])
def test_sink_call_in_a_libcst_generated_program(program, config):
    """A sink call appended to a program hypothesmith built from libcst nodes (varied whitespace, parentheses)."""
    source = program if program.endswith(("\n", "\r")) or not program else program + "\n"
    check_all_properties((source + sink_block(config)).encode("utf-8", "surrogatepass"), config)


#: examples of the ci profile for a test that runs every front end on whole fixture modules (CI's budget);
#: any other profile (``long``: 10 000) keeps its own number
CI_EXAMPLES_ON_WHOLE_MODULES = 15


def whole_module_budget(test):
    """``test`` with the ci profile's examples cut to :data:`CI_EXAMPLES_ON_WHOLE_MODULES` (other profiles: as set)."""
    if settings.default.max_examples > 40:  # not the ci profile
        return test
    return settings(max_examples=CI_EXAMPLES_ON_WHOLE_MODULES)(test)


#: every rule code: the plugin reports all of them (flake8 selects), so check does too for the comparison
ALL_CODES = Selection(select=("ACC",))


def _unplaced(message: str) -> str:
    """``message`` without the line of the other place it names (``(used at f.py:35)``): reformatting moves it."""
    return re.sub(r"(\((?:used|written) at .*?):\d+\)", r"\1)", message)


def _pathless(message: str) -> str:
    """``message`` with only the line of the other place it names: the server names its document
    relative to its root (``doc25.py:34``), check_source here relative to the working directory."""
    return re.sub(r"\((used|written) at .*?:(\d+)\)", r"(\1 at line \2)", message)


@functools.cache
def findings_of_the_original(original: bytes) -> list[Diagnostic]:
    """check's findings of an unmodified corpus file (the same bytes always give the same; checked once per file)."""
    return check_source(original, PATH, ALL_CODES, apply_noqa=False)


@whole_module_budget
@given(mutated())
def test_a_reformatted_fixture_keeps_its_findings(mutant):
    """The fixture corpus reformatted (tests/mutations.py): same findings as the original (positions move), the
    flake8 plugin at exactly check's positions, and fix's properties."""
    note(f"{mutant.path.name}: {mutant.kinds}")
    before = findings_of_the_original(mutant.original)
    after = check_source(mutant.data, PATH, ALL_CODES, apply_noqa=False, with_fixes=True)
    assert_inside(after, physical_lines(mutant.data))
    if not any(d.code == "ACC001" for d in before + after):
        assert sorted((d.code, _unplaced(d.message)) for d in after) == sorted((d.code, _unplaced(d.message))
                                                                                for d in before)
    assert [(line, column + 1, text.split(" ", 1)[0]) for line, column, text, _ in run_plugin(mutant.data)] == [
        (d.line, d.column, d.code) for d in after]
    check_fix(mutant.data)


@pytest.fixture(scope="module")
def language_server():
    """One real server (a subprocess over stdio) for every example of a test."""
    pytest.importorskip("pygls")
    from tests.lsp_client import LspClient

    client = LspClient(cwd=FOLDER)
    client.request("initialize", {"processId": None, "rootUri": FOLDER.as_uri(), "capabilities": {}})
    client.notify("initialized", {})
    yield client
    client.close()


_documents = iter(range(10**9))


def published_for(client, uri: str) -> list[dict]:
    """The diagnostics the server publishes next for ``uri`` (those of other documents passed over)."""
    while True:
        params = client.notification("textDocument/publishDiagnostics")
        if params["uri"] == uri:
            return params["diagnostics"]


def check_in_the_server(client, data: bytes) -> None:
    """The server publishes what check reports for the text (codes, messages, lines) and answers code actions."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    uri = (FOLDER / f"doc{next(_documents)}.py").as_uri()
    document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": document})
    published = published_for(client, uri)
    with owned_process():  # (as the server, which owns its process)
        expected = check_source(text, str(FOLDER / "doc.py"))
    assert [(d["code"], _pathless(d["message"]), d["range"]["start"]["line"]) for d in published] == [
        (d.code, _pathless(d.message), d.line - 1) for d in expected]
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": max(len(physical_lines(data)), 1), "character": 0}}
    actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": whole,
                                                         "context": {"diagnostics": published}})
    assert actions is None or isinstance(actions, list)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


@whole_module_budget
@given(mutated())
def test_the_language_server_on_a_reformatted_fixture(language_server, mutant):
    """The server on the reformatted corpus: no JSON-RPC error, check's diagnostics, code actions answered."""
    note(f"{mutant.path.name}: {mutant.kinds}")
    check_in_the_server(language_server, mutant.data)


@given(hypothesmith.from_node(), configs)
def test_the_language_server_on_a_libcst_generated_program(language_server, program, config):
    """The server on hypothesmith's libcst-built programs with a sink call appended."""
    source = program if program.endswith(("\n", "\r")) or not program else program + "\n"
    data = (source + sink_block(config)).encode("utf-8", "surrogatepass")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return  # a lone surrogate: no editor sends such a document
    check_in_the_server(language_server, data)
