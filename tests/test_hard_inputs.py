"""The hard-input matrix: every file of ``tests/fixtures/hard/`` through every front end.

Each front end runs once over the whole corpus in a subprocess (the real CLI ``check``, the real
``flake8`` with the plugin, the real CLI ``fix`` on a copy), bounded in time; each file is then
checked on its own: no traceback, the real finding where the file can be analysed (its
``# expect: COL:CODE`` comments), ACC001 with its reason where it cannot (the table below), and
``fix`` either rewrites exactly the bad values (same encoding, BOM and line endings) or leaves
the file byte-for-byte as it was.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from asynccfg_lint.analysis.large_stack import NOT_IN_A_HOST
from tests.expectations import FIXTURES, expected_diagnostics
from tests.frontend_runs import Reported, parse_text, run_flake8, run_program

HARD = FIXTURES / "hard"
#: what the corpus's sink calls pass and what ``fix`` makes of it
BAD, FIXED = b"np.bool_(True)", b"bool(np.bool_(True))"
#: each front end's run over the whole corpus must finish within this many seconds (the three deep files that
#: CPython compiles take 2 to 8 s each to check and twice that to fix on the loaded 2-core machine, most of it
#: libcst's native parser; the fix run over the corpus took 53 s with them)
BOUND = 120
#: flake8 itself (its own ast.parse, before any plugin runs) dies on this file; see its test below
FLAKE8_OWN_FAILURE = "operator_chain.py"
#: flake8 dies on these files CPython compiles, before or beside the plugin: its own ast.parse (deep in its call
#: stack, CPython 3.12.1 refuses to build the ast objects of 2 990 terms), or pyflakes (its F plugin, run whatever
#: --select says) recursing too deep; the plugin's findings on them are tested in-process
FLAKE8_DEEP_FAILURES = {"deep_attribute_chain.py": "pyflakes", "deep_elif_chain.py": "pyflakes",
                        "deep_operator_chain.py": "ast"}
#: libcst's codemod tool parses each file itself before the command sees it: its parser kills the worker
#: process on this file (CPython rejects it too), and refuses these with its own traceback
CODEMOD_OWN_CRASH = "operator_chain.py"
CODEMOD_OWN_FAILURES = {"concatenated_strings.py", "deep_attribute_chain.py", "deep_elif_chain.py",
                        "deep_operator_chain.py", "invalid_utf8_comment.py", "python2.py", "syntax_error.py",
                        "tabs_libcst_rejects.py",
                        # stock libcst's validation (the codemod is a guest: it repairs nothing in the tool)
                        "async_keyword_break.py", "lambda_after_keyword.py"}
#: the tool parses this one, but it nests beyond what a guest analyses: the command skips it with its ACC001
CODEMOD_GUEST_SKIPS = {"deep_calls.py"}
#: of those, the tool parses these, then copies the tree for its metadata (MetadataWrapper's recursive
#: deep_clone) on its own stack before the command runs: RecursionError after a chain of TypeErrors
CODEMOD_DEEP_FAILURES = {"deep_attribute_chain.py", "deep_elif_chain.py", "deep_operator_chain.py"}


@dataclass(frozen=True)
class Row:
    """What each front end gives for one file, when it is not what the ``# expect:`` comments say.

    Attributes:
        check: the CLI's diagnostics as (line, column, code, message) instead of the comments'.
        flake8: flake8's rows as (line, column, code) instead of the comments' (None: as ``check``;
            a file Python accepts but the checker cannot analyse is ACC001 in flake8 too).
        fixed: ``fix`` rewrites every bad value (else the file stays byte-for-byte the same), by the
            text replacements ``edits`` (default: every ``np.bool_(True)`` wrapped in ``bool(...)``).
        refused: why ``fix`` says it did not write the file (its ``not fixed:`` line), if it says so.
        kept: findings with a fix that ``fix`` leaves (an unsafe fix), beside those that have none.
    """

    check: tuple[tuple[int, int, str, str], ...] | None = None
    flake8: tuple[tuple[int, int, str], ...] | None = None
    fixed: bool = True
    refused: str | None = None
    edits: tuple[tuple[bytes, bytes], ...] | None = None
    kept: tuple[tuple[int, int, str], ...] = ()


def not_written(reason: str) -> Row:
    """A file analysed through a copy (or with positions mapped back): checked as its comments say, never written."""
    return Row(fixed=False, refused=f"libcst cannot give this file back byte for byte ({reason}); not written")


def acc001(line: int, column: int, reason: str) -> tuple[tuple[int, int, str, str], ...]:
    return ((line, column, "ACC001", f"file not analysed: {reason}"),)


DROPPED = "a form feed or backslash continuation before the first token of a line, which libcst drops"
ROWS: dict[str, Row] = {
    "async_comprehensions.py": Row(),
    # libcst 1.9.0 raised AttributeError on `async` followed by a line break (found by tests/mutations.py)
    "async_keyword_break.py": Row(flake8=((1, 1, "ACC001"),)),  # (libcst's validation stays on in a guest)
    # libcst drops the backslash line: its positions are mapped back to the file's lines
    "backslash_start.py": not_written(DROPPED),
    # what is analysed today: the walrus's and the async comprehension's containers; issue 12 traces `flag` and
    # `group` (flake8 selects ACC201, which shows them as unknown today; the file's comments mark where)
    # the leaked walrus name is fixed where the config reads it (the comprehension's list reads its value too)
    "bindings_traced_in_issue12.py": Row(flake8=((7, 15, "ACC101"), (17, 77, "ACC201"), (26, 14, "ACC101")),
                                         edits=((b'{"overlap": flag}', b'{"overlap": bool(flag)}'),
                                                (b"[np.bool_(True) async", b"[bool(np.bool_(True)) async"))),
    "comments_only.py": Row(fixed=False),
    # libcst's parser takes 3 000 strings: read through a copy with neighbours joined ("a" "b" -> "a   b")
    "concatenated_strings.py": not_written("more than 3000 implicitly concatenated strings, read joined"),
    "crlf.py": Row(),
    "decorators_arbitrary.py": Row(),
    # CPython allows 200 nested brackets; libcst parsed 1 000 and reported (and fixed) the file
    "deep_brackets.py": Row(check=acc001(8, 212, "syntax error: too many nested parentheses"),
                            flake8=((8, 213, "E999"),), fixed=False),
    # deeper than CPython 3.12's C recursion limit: parsed, analysed and fixed on a thread with a large stack and
    # recursion limit, through parse's two libcst workarounds (code generation, ScopeProvider's dotted names)
    "deep_attribute_chain.py": Row(kept=((11, 19, "ACC101"),)),  # the set's fix (sorted(...)) is unsafe
    # libcst recursed too deep: parsed (and fixed) on a thread with a large stack and recursion limit
    "deep_calls.py": Row(flake8=((1, 1, "ACC001"),)),  # (no large stack in a guest's process)
    "deep_elif_chain.py": Row(),
    "deep_operator_chain.py": Row(),
    "empty.py": Row(fixed=False),
    # Python 3.14 syntax on 3.12: libcst parsed it and reported (and fixed) the file
    "except_no_parens_pep758.py": Row(
        check=acc001(9, 12, "syntax error: multiple exception types must be parenthesized"),
        flake8=((9, 13, "E999"),), fixed=False),
    "except_star.py": Row(),
    "form_feed_before_code.py": not_written(DROPPED),
    "form_feeds.py": Row(),
    # libcst moves a form feed before an indented line's first token to the next line: read through a copy
    # without it (positions mapped back), never written
    "form_feed_indented.py": not_written(DROPPED),
    "fstrings_pep701.py": Row(),
    # CPython compiles the bytes (the bad ones are in a comment): read with a placeholder per bad byte, as
    # flake8's Latin-1 fallback counts them (its comments cannot be read as text: the row is written out)
    "invalid_utf8_comment.py": Row(
        check=((8, 75, "ACC101", 'value for key "overlap" is numpy.bool_, which JAX cannot serialize to JSON: '
                                 "lowering raises ValueError; use bool(...)"),),
        fixed=False, refused="libcst cannot give this file back byte for byte (an undecodable byte in a comment, "
                             "read as U+FFFD); not written"),
    # libcst 1.9.0 raised TypeError on `return(lambda: ...)` (zero-argument super() in a slotted class): exit 2
    "lambda_after_keyword.py": Row(flake8=((1, 1, "ACC001"),)),  # (libcst's validation stays on in a guest)
    "latin1_cookie.py": Row(),
    "long_line.py": Row(),
    "match_statements.py": Row(),
    # the comments cannot be read by tokenize (a lone \r): the finding is on line 8
    "mixed_cr_crlf.py": Row(check=((8, 75, "ACC101", 'value for key "overlap" is numpy.bool_, which JAX cannot serialize '
                                    "to JSON: lowering raises ValueError; use bool(...)"),),
                            flake8=((8, 75, "ACC101"),)),
    # 10 000 terms: CPython's import gives up too (its compile's recursion limit), so it stays ACC001 with that message
    "operator_chain.py": Row(check=acc001(1, 1, "Python cannot compile the file: RecursionError: maximum recursion "
                                                "depth exceeded during compilation"), fixed=False),
    "python2.py": Row(check=acc001(7, 5, "syntax error: Missing parentheses in call to 'print'. Did you mean print(...)?"),
                      flake8=((7, 6, "E999"),), fixed=False),
    "star_subscripts_pep646.py": Row(),
    "syntax_error.py": Row(check=acc001(10, 12, "syntax error: invalid syntax"), flake8=((10, 13, "E999"),), fixed=False),
    "tabs_and_spaces.py": Row(),
    # libcst's tokenizer: "no matching outer block for dedent" (first), another indentation written back (second)
    "tabs_libcst_rejects.py": not_written("indentation mixing tabs and spaces, read as spaces"),
    "type_params_pep695.py": Row(),
    "utf8_bom.py": Row(),
    "walrus_comprehension.py": Row(),
}


def test_the_table_covers_the_corpus():
    assert sorted(p.name for p in HARD.glob("*.py")) == sorted(ROWS)


@dataclass
class Run:
    """One front end's run over the corpus: its rows by file name, stderr, exit code and duration."""

    rows: dict[str, list[Reported]] = field(default_factory=dict)
    stderr: str = ""
    returncode: int = 0
    seconds: float = 0.0


def _run(function, *args: str, cwd: Path) -> Run:
    start = time.monotonic()
    result = function(*args, cwd=cwd)
    run = Run(stderr=result.stderr, returncode=result.returncode, seconds=time.monotonic() - start)
    for row in parse_text(result.stdout):
        run.rows.setdefault(Path(row.path).name, []).append(row)
    return run


@pytest.fixture(scope="module")
def check_run() -> Run:
    return _run(run_program, "check", "--isolated", ".", cwd=HARD)


@pytest.fixture(scope="module")
def flake8_run() -> Run:
    names = sorted(name for name in ROWS if name != FLAKE8_OWN_FAILURE and name not in set(FLAKE8_DEEP_FAILURES))
    return _run(run_flake8, "--select", "ACC,E9", *names, cwd=HARD)


@pytest.fixture(scope="module")
def fix_run(tmp_path_factory) -> tuple[Run, Path]:
    tree = tmp_path_factory.mktemp("hard") / "tree"
    shutil.copytree(HARD, tree)
    return _run(run_program, "fix", "--isolated", "-j", "2", ".", cwd=tree), tree


def expected_check(name: str) -> list[tuple[int, int, str]]:
    row = ROWS[name]
    if row.check is not None:
        return [(line, column, code) for line, column, code, _ in row.check]
    return sorted((e.line, e.column, e.code) for e in expected_diagnostics(HARD / name))


def test_runs_are_bounded_and_clean(check_run, flake8_run, fix_run):
    fix, _ = fix_run
    for run in (check_run, flake8_run, fix):
        assert run.seconds < BOUND
        assert "Traceback" not in run.stderr
    assert (check_run.returncode, flake8_run.returncode, fix.returncode) == (1, 1, 1)
    assert flake8_run.stderr == ""


@pytest.mark.parametrize("name", sorted(ROWS))
def test_check(name, check_run):
    rows = check_run.rows.get(name, [])
    assert [(r.line, r.column, r.code) for r in rows] == expected_check(name)
    if ROWS[name].check is not None:
        assert [(r.line, r.column, r.code, r.message) for r in rows] == list(ROWS[name].check)


@pytest.mark.parametrize("name", sorted(set(ROWS) - {FLAKE8_OWN_FAILURE} - set(FLAKE8_DEEP_FAILURES)))
def test_flake8(name, flake8_run):
    row = ROWS[name]
    expected = list(row.flake8) if row.flake8 is not None else expected_check(name)
    assert [(r.line, r.column, r.code) for r in flake8_run.rows.get(name, [])] == expected


def test_flake8_own_failure_is_not_the_plugins(tmp_path):
    """flake8 builds the AST before any plugin runs; CPython's parser gives up on 10 000 terms."""
    result = run_flake8("--select", "ACC,E9", FLAKE8_OWN_FAILURE, cwd=HARD)
    assert result.returncode == 1
    assert "flake8/processor.py" in result.stderr and "in build_ast" in result.stderr
    assert result.stderr.rstrip().endswith("RecursionError: maximum recursion depth exceeded during ast construction")
    assert "asynccfg_lint" not in result.stderr


@pytest.mark.parametrize("name", sorted(FLAKE8_DEEP_FAILURES))
def test_flake8s_own_failure_on_a_deep_file_is_not_the_plugins(name):
    """flake8's ast.parse or pyflakes (its F plugin) recurses too deep on a tree CPython compiles; flake8 stops."""
    result = run_flake8("--select", "ACC,E9", name, cwd=HARD)
    assert result.returncode == 1
    if FLAKE8_DEEP_FAILURES[name] == "pyflakes":
        assert result.stdout.startswith(f'{name}: "pyflakes[F]" failed during execution due to RecursionError')
    else:
        assert "in build_ast" in result.stderr
        assert result.stderr.rstrip().endswith("RecursionError: maximum recursion depth exceeded during ast construction")
    assert "asynccfg_lint" not in result.stdout + result.stderr


@pytest.mark.parametrize("name", sorted(set(FLAKE8_DEEP_FAILURES)))
def test_the_plugin_on_what_flake8_fails_on(name):
    """The plugin as flake8 runs it (its lines, in-process): a guest, it raises no limit for these deep files and
    reports each as ACC001 (``check``, which owns its process, analyses them: :func:`test_check`)."""
    from asynccfg_lint.analysis.large_stack import NOT_IN_A_HOST
    from asynccfg_lint.frontends.flake8_plugin import AsyncCfgChecker

    lines = (HARD / name).read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [(line, column + 1, text) for line, column, text, _ in AsyncCfgChecker(None, lines, str(HARD / name)).run()]
    assert rows == [(1, 1, f"ACC001 file not analysed: {NOT_IN_A_HOST}")]


@pytest.mark.parametrize("name", sorted(ROWS))
def test_fix(name, fix_run):
    run, tree = fix_run
    original = (HARD / name).read_bytes()
    after = (tree / name).read_bytes()
    if ROWS[name].fixed:
        assert BAD in original
        expected = original
        for bad, fixed in ROWS[name].edits or ((BAD, FIXED),):
            expected = expected.replace(bad, fixed)
        assert after == expected
        assert [(r.line, r.column, r.code) for r in run.rows.get(name, [])] == unfixable(name)
    else:
        assert after == original
        assert [(r.line, r.column, r.code) for r in run.rows.get(name, [])] == expected_check(name)
    about = [line.partition(": ")[2] for line in run.stderr.splitlines() if Path(line.partition(": ")[0]).name == name]
    # no "error", and "not fixed" only with its reason
    assert about == ([f"not fixed: {ROWS[name].refused}"] if ROWS[name].refused else [])


def unfixable(name: str) -> list[tuple[int, int, str]]:
    """The findings of ``name`` that ``fix`` leaves: those without a fix (all but its ACC101s) and its row's ``kept``."""
    return sorted([row for row in expected_check(name) if row[2] != "ACC101"] + list(ROWS[name].kept))


def test_fixed_files_check_clean(fix_run):
    """Only the findings without a fix are left in a fixed file."""
    _, tree = fix_run
    fixed = [name for name, row in ROWS.items() if row.fixed]
    result = run_program("check", "--isolated", *fixed, cwd=tree)
    left = [(Path(r.path).name, r.line, r.column, r.code) for r in parse_text(result.stdout)]
    assert left == [(name, *row) for name in sorted(fixed) for row in unfixable(name)]


def test_the_codemod_over_the_corpus(fix_run, tmp_path):
    """libcst's codemod tool with our command: what it parses is fixed as ``fix`` fixes it, or left with fix's
    reason (before issue 14 it wrote libcst's text of backslash_start.py, its backslash line dropped); no
    traceback is ours."""
    _, fixed_tree = fix_run
    tree = tmp_path / "tree"
    shutil.copytree(HARD, tree)
    (tree / CODEMOD_OWN_CRASH).unlink()
    result = run_program_module("libcst.tool", "codemod", "-x", "--no-format",
                                "asynccfg_lint.codemod.FixAsyncConfigCommand", ".", cwd=tree)
    stderr = result.stderr.replace("\x1b[2K", "\n")
    failed = {Path(line.split()[-1]).name for line in stderr.splitlines() if line.startswith("Failed to codemod ")}
    assert failed == CODEMOD_OWN_FAILURES
    chained = stderr.count("During handling of the above exception, another exception occurred")
    assert stderr.count("Traceback (most recent call last)") - chained == len(CODEMOD_OWN_FAILURES)
    assert stderr.count('libcst/codemod/_cli.py", line') == len(CODEMOD_OWN_FAILURES)  # its own parse_module
    assert stderr.count("in _handle_metadata_reference") == len(CODEMOD_DEEP_FAILURES)  # or its own metadata copy
    assert "asynccfg_lint" not in stderr
    skipped = {Path(line.split(": ", 1)[0].split()[-1]).name: line.split(": ", 1)[1]
               for line in stderr.splitlines() if line.startswith("Skipped codemodding ")}
    for name, row in ROWS.items():  # a file the tool parsed and fix refuses is skipped with fix's reason
        if row.refused and name not in CODEMOD_OWN_FAILURES:
            assert skipped[name] == row.refused, name
    for name in CODEMOD_GUEST_SKIPS:
        assert skipped[name] == f"file not analysed: {NOT_IN_A_HOST}"
    for name in sorted(set(ROWS) - {CODEMOD_OWN_CRASH}):
        left = name in CODEMOD_OWN_FAILURES | CODEMOD_GUEST_SKIPS
        expected = (HARD / name).read_bytes() if left else (fixed_tree / name).read_bytes()
        assert (tree / name).read_bytes() == expected, name


def run_program_module(module: str, *args: str, cwd: Path):
    """``python -m MODULE ARGS`` in ``cwd`` (text decoded as UTF-8)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=BOUND * 5)


def test_the_language_server_over_the_corpus():
    """One real server, every file of the corpus opened: check's diagnostics published, code actions answered."""
    pytest.importorskip("pygls")
    from asynccfg_lint.analysis.checker import check_source
    from asynccfg_lint.process_owner import owned_process
    from tests.lsp_client import LspClient

    client = LspClient(cwd=HARD)
    try:
        client.request("initialize", {"processId": None, "rootUri": HARD.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        for name in sorted(ROWS):
            data = (HARD / name).read_bytes()
            bom = data.startswith(b"\xef\xbb\xbf")
            encoding = "latin-1" if name == "latin1_cookie.py" else "utf-8-sig" if bom else "utf-8"
            text = data.decode(encoding, "replace")  # as an editor shows an undecodable byte
            uri = (HARD / name).as_uri()
            document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
            client.notify("textDocument/didOpen", {"textDocument": document})
            while (published := client.notification("textDocument/publishDiagnostics"))["uri"] != uri:
                pass
            with owned_process():  # (as the server, which owns its process)
                expected = check_source(text, str(HARD / name))
            assert [(d["code"], d["message"], d["range"]["start"]["line"]) for d in published["diagnostics"]] == [
                (d.code, d.message, d.line - 1) for d in expected], name
            everything = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 0}}
            context = {"diagnostics": published["diagnostics"]}
            actions = client.request("textDocument/codeAction",
                                     {"textDocument": {"uri": uri}, "range": everything, "context": context})
            assert actions is None or isinstance(actions, list), name
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        assert client.request("shutdown") is None
        client.notify("exit")
        assert client.wait() == 0
        assert "Traceback" not in client.stderr
    finally:
        client.close()
