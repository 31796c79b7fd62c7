"""The real CLI (``python -m asynccfg_lint check``) in a subprocess: output, options, exit codes."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import flake8.defaults
import pytest

import asynccfg_lint
from asynccfg_lint.frontends.cli import main
from asynccfg_lint.run.suppression import NOQA_INLINE_REGEXP
from tests.expectations import expected_diagnostics, fixture_options
from tests.frontend_runs import (
    CLI_FIXTURES, COVERAGE_LINE, SINK_IMPORT, cli_fixtures, parse_text, run_cli, run_flake8, run_program,
)


@pytest.mark.parametrize("path", cli_fixtures(), ids=lambda p: p.name)
def test_fixture_text_output(path):
    """Each fixture prints exactly its ``# expect:`` lines, exit 1 when it has any and 0 when clean."""
    expected = expected_diagnostics(path)
    result = run_cli(*fixture_options(path), path.name)
    rows = parse_text(result.stdout)
    assert COVERAGE_LINE.fullmatch(result.stderr)
    assert sorted(row.expected for row in rows) == sorted(expected)
    assert {row.path for row in rows} <= {path.name}
    assert result.returncode == (1 if expected else 0)


def test_text_output_is_flake8_format_exactly(tmp_path):
    (tmp_path / "m.py").write_text(
        "import numpy as np\n" + SINK_IMPORT
        + 'emit("all-gather-start", 1, 2, {"tiled": "yes", "overlap": np.bool_(True)})\n',
        encoding="utf-8",
    )
    result = run_cli("m.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        'm.py:3:42: ACC105 value for key "tiled" is str (JSON string), but XLA parses "tiled" as a number '
        "or bool: compiling aborts the process or fails a RET_CHECK; pass a number or bool",
        'm.py:3:60: ACC101 value for key "overlap" is numpy.bool_, which JAX cannot serialize to JSON: '
        "lowering raises ValueError; use bool(...)",
    ]



def test_keys_are_quoted_as_json_strings_in_messages(tmp_path):
    """A key with a line break or a quote is escaped as JSON writes it: one printed line per diagnostic."""
    (tmp_path / "m.py").write_text(
        "import numpy as np\n" + SINK_IMPORT
        + 'emit("t", 1, 2, {"a\\nb%25,c": np.bool_(1), "q\\"r": {1}, "n": {"x\\ty": [np.bool_(0)]}})\n',
        encoding="utf-8",
    )
    expected = [
        'm.py:3:31: ACC101 value for key "a\\nb%25,c" is numpy.bool_, which JAX cannot serialize to JSON: '
        "lowering raises ValueError; use bool(...)",
        'm.py:3:52: ACC101 value for key "q\\"r" is set, which JAX cannot serialize to JSON: '
        "lowering raises ValueError; use sorted(...) or list(...)",
        'm.py:3:72: ACC101 an element of key "x\\ty" under key "n" is numpy.bool_, which JAX cannot serialize to '
        "JSON: lowering raises ValueError; use bool(...)",
    ]
    result = run_cli("m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout.splitlines()) == (1, expected)
    grouped = run_cli("--output-format", "grouped", "m.py", cwd=tmp_path).stdout.splitlines()
    # ruff's grouped rows mark a diagnostic with a safe fix: [*] after the code (the set's fix is unsafe)
    marked = [line.replace("ACC101 ", "ACC101 [*] ", 1) if "bool(...)" in line else line for line in expected]
    assert grouped[1:4] == ["  " + line.removeprefix("m.py:").replace(": ACC", " ACC", 1) for line in marked]
    assert run_flake8("--select", "ACC", "m.py", cwd=tmp_path).stdout.splitlines() == expected


def test_json_output():
    result = run_cli("--output-format", "json", "findings.py")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    # ours first, then ruff's fields, so tools written for ruff's JSON read it too
    assert [list(item) for item in data] == [
        ["path", "line", "column", "end_line", "end_column", "code", "message", "fix",
         "filename", "location", "end_location", "name", "url", "noqa_row", "severity", "cell"]
    ] * len(data)
    first = data[0]
    assert first["filename"] == str(CLI_FIXTURES / "findings.py")
    assert (first["location"], first["end_location"]) == ({"row": 18, "column": 47}, {"row": 18, "column": 56})
    assert (first["name"], first["noqa_row"], first["severity"], first["cell"]) == (
        "unsupported-value-type", 18, "error", None)
    assert first["url"] == (Path(__file__).resolve().parent.parent / "docs" / "rules" / "ACC101.md").as_uri()
    # ruff's fix object beside ours: applicability, message and the edits
    assert {key: first["fix"][key] for key in ("applicability", "message", "edits")} == {
        "applicability": "unsafe",
        "message": first["fix"]["description"],
        "edits": [{"content": "Mode.RING.value", "location": {"row": 18, "column": 47},
                   "end_location": {"row": 18, "column": 56}}],
    }
    def fix(d):
        return d["fix"] and (d["fix"]["safety"], d["fix"]["replacement"], d["fix"]["line"], d["fix"]["column"])

    assert [(d["path"], d["line"], d["column"], d["end_line"], d["end_column"], d["code"], fix(d)) for d in data] == [
        ("findings.py", 18, 47, 18, 56, "ACC101", ("unsafe", "Mode.RING.value", 18, 47)),  # Mode.RING
        ("findings.py", 19, 39, 19, 45, "ACC102", None),  # (0, 1), parentheses included; no fix for tuple keys
        ("findings.py", 20, 48, 20, 56, "ACC103", None),  # math.inf: no fix
        ("findings.py", 21, 64, 21, 68, "ACC104", None),  # True: no fix
        ("findings.py", 22, 48, 22, 53, "ACC105", None),  # "yes": no fix
        ("findings.py", 27, 44, 27, 47, "ACC101", ("unsafe", "sorted({1})", 27, 44)),  # {1}
        ("findings.py", 27, 49, 27, 53, "ACC102", None),  # b"k"
        ("findings.py", 27, 55, 27, 69, "ACC101", ("safe", "bool(np.bool_(True))", 27, 55)),  # np.bool_(True)
    ]
    text_messages = [row.message for row in parse_text(run_cli("findings.py").stdout)]
    assert [d["message"] for d in data] == text_messages


def test_json_output_of_a_clean_file_is_an_empty_list():
    result = run_cli("--output-format", "json", "clean.py")
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


def test_multi_line_range_in_json():
    data = json.loads(run_cli("--output-format", "json", "multiline.py").stdout)
    overlap = next(d for d in data if d["line"] == 13)
    # np.bool_(  /  True,  /  ) : from the start of the call to its closing parenthesis
    assert (overlap["line"], overlap["column"], overlap["end_line"], overlap["end_column"]) == (13, 24, 15, 14)


def test_stdin_with_stdin_filename():
    source = (CLI_FIXTURES / "findings.py").read_bytes()
    named = run_cli("--stdin-filename", "pkg/lowering.py", "-", stdin=source)
    from_file = run_cli("findings.py")
    assert named.returncode == 1
    assert named.stdout == from_file.stdout.replace("findings.py:", "pkg/lowering.py:")
    assert named.stdout.startswith("pkg/lowering.py:18:47: ACC101 ")


def test_stdin_filename_of_a_package_file_reads_the_package():
    """``--stdin-filename`` naming a file of a package: its other modules (the lowering rules the piped
    ``bind`` calls reach) are read from disk, as the flake8 plugin and the language server read them, so
    the piped text has the file's own findings (``check`` and ``fix --diff``)."""
    programs = Path(__file__).parent / "fixtures" / "programs"
    api = programs / "extpkg" / "api.py"
    from_file = run_cli("--isolated", "--no-cache", "extpkg/api.py", cwd=programs)
    piped = run_cli("--isolated", "--no-cache", "--stdin-filename", "extpkg/api.py", "-", cwd=programs,
                    stdin=api.read_bytes())
    assert piped.stdout == from_file.stdout
    assert sorted((r.line, r.column, r.code) for r in parse_text(piped.stdout)) == sorted(
        (e.line, e.column, e.code) for e in expected_diagnostics(api))
    fixed = run_program("fix", "--isolated", "--no-cache", "--unsafe-fixes", "--diff", "--stdin-filename",
                        "extpkg/api.py", "-", cwd=programs, stdin=api.read_bytes())
    assert fixed.stdout == run_program("fix", "--isolated", "--no-cache", "--unsafe-fixes", "--diff",
                                       "extpkg/api.py", cwd=programs).stdout
    assert "+    return exchange_start_p.bind(x, schedule=Schedule.EAGER.value).done()" in fixed.stdout


STDIN_NOTE = ("asynccfg-lint: warning: standard input imports from its package ({}), which is not read without "
              "--stdin-filename: sinks and wrappers defined there are not followed\n")


def test_stdin_without_a_filename_warns_when_it_imports_from_its_package(tmp_path):
    """``check -`` reads no package: a text that imports a sink of its own package (relatively, or from a
    package folder here through which it may reach a sink) gets a warning on stderr; stdout and the exit
    status are those of the module alone (trial 7: an empty success with no hint)."""
    programs = Path(__file__).parent / "fixtures" / "programs"
    relative = run_cli("--isolated", "--no-cache", "-", cwd=programs,
                       stdin=(programs / "extpkg" / "relayed_api.py").read_bytes())
    assert (relative.returncode, relative.stdout, relative.stderr) == (0, "", STDIN_NOTE.format(".relayed")
                                                                       + "0 sink calls checked\n")
    (tmp_path / "wpkg").mkdir()
    (tmp_path / "wpkg" / "__init__.py").write_text("")
    (tmp_path / "wpkg" / "sinks.py").write_text(
        "import functools\n\nfrom jax._src.lax import parallel\n\n"
        "permute_start = functools.partial(parallel._emit_async_start_custom_call, 'collective-permute-start')\n")
    (tmp_path / "wpkg" / "plain.py").write_text("PERM = [[0, 1], [1, 0]]\n")
    source = (b"from wpkg.plain import PERM\nfrom wpkg.sinks import permute_start\n\n\n"
              b"def lower(ctx, x):\n    return permute_start(ctx, x, {'permutation': PERM, 'sizes': {1}})\n")
    (tmp_path / "wpkg" / "api.py").write_bytes(source)
    piped = run_cli("--isolated", "--no-cache", "-", cwd=tmp_path, stdin=source)
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, "", STDIN_NOTE.format("wpkg") + "0 sink calls checked\n")
    quiet = run_cli("--isolated", "--no-cache", "-q", "-", cwd=tmp_path, stdin=source)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    named = run_cli("--isolated", "--no-cache", "--stdin-filename", "wpkg/api.py", cwd=tmp_path, stdin=source)
    assert named.returncode == 1 and named.stderr == "1 sink call checked: all fully typed\n"
    assert [(r.line, r.column, r.code) for r in parse_text(named.stdout)] == [(6, 65, "ACC101")]
    # a new module of the package, not saved yet (trial 10: nothing was checked, exit 0)
    unsaved = run_cli("--isolated", "--no-cache", "-v", "--stdin-filename", "wpkg/new_api.py", cwd=tmp_path, stdin=source)
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(unsaved.stdout)] == [("wpkg/new_api.py", 6, 65, "ACC101")]
    assert unsaved.returncode == 1 and unsaved.stderr.splitlines()[-2].startswith("asynccfg-lint: 1 file checked in ")
    assert unsaved.stderr.splitlines()[-1] == "1 sink call checked: all fully typed"
    # a module of the package that binds no name leading to a sink, and a text of jax imports only: no warning
    plain = run_cli("--isolated", "--no-cache", "-", cwd=tmp_path, stdin=b"from wpkg.plain import PERM\n")
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "", "0 sink calls checked\n")
    alone = run_cli("--isolated", "--no-cache", "-", cwd=tmp_path, stdin=(CLI_FIXTURES / "findings.py").read_bytes())
    assert alone.returncode == 1 and alone.stderr == "7 sink calls checked: all fully typed\n"


def test_stdin_filename_alone_reads_stdin():
    """As ruff: --stdin-filename reads stdin even without '-'."""
    source = (CLI_FIXTURES / "findings.py").read_bytes()
    named = run_cli("--stdin-filename", "pkg/lowering.py", stdin=source)
    assert named.returncode == 1
    assert named.stdout == run_cli("findings.py").stdout.replace("findings.py:", "pkg/lowering.py:")
    assert named.stderr == "7 sink calls checked: all fully typed\n"


def test_stdin_filename_ignores_other_paths_with_a_warning():
    source = SINK_IMPORT.encode() + b'emit("t", 1, 2, {"a": {1}})\n'
    result = run_cli("--stdin-filename", "named.py", "findings.py", stdin=source)
    assert result.returncode == 1
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(result.stdout)] == [("named.py", 2, 23, "ACC101")]
    assert result.stderr == ("asynccfg-lint: warning: ignoring findings.py in favour of standard input\n"
                             "1 sink call checked: all fully typed\n")


def test_stdin_without_a_name_reports_dash():
    result = run_cli("-", stdin=SINK_IMPORT.encode() + b'emit("t", 1, 2, {"a": {1}})\n')
    assert result.returncode == 1
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(result.stdout)] == [("-", 2, 23, "ACC101")]


def test_stdin_clean_source_exits_zero():
    result = run_cli("-", stdin=SINK_IMPORT.encode() + b'emit("t", 1, 2, {"a": [1]})\n')
    assert (result.returncode, result.stdout) == (0, "")


def _codes(*args: str) -> list[tuple[int, int, str]]:
    return [(r.line, r.column, r.code) for r in parse_text(run_cli(*args).stdout)]


def test_select_replaces_the_default():
    assert _codes("--select", "ACC102", "findings.py") == [(19, 39, "ACC102"), (27, 49, "ACC102")]
    assert _codes("--select", "ACC103,ACC105", "findings.py") == [(20, 48, "ACC103"), (22, 48, "ACC105")]


def test_select_prefix_and_ignore_of_a_more_specific_code():
    assert _codes("--select", "ACC10", "--ignore", "ACC101,ACC102", "findings.py") == [
        (20, 48, "ACC103"), (21, 64, "ACC104"), (22, 48, "ACC105"),
    ]


def test_ignore_removes_codes_from_the_default():
    assert _codes("--ignore", "ACC101", "findings.py") == [
        (19, 39, "ACC102"), (20, 48, "ACC103"), (21, 64, "ACC104"), (22, 48, "ACC105"), (27, 49, "ACC102"),
    ]


def test_ignore_of_a_selected_prefix_wins_the_tie():
    result = run_cli("--select", "ACC1", "--ignore", "ACC1", "findings.py")
    assert (result.returncode, result.stdout) == (0, "")


def test_acc201_is_opt_in():
    default = run_cli("untraceable.py")
    assert (default.returncode, default.stdout) == (0, "")
    extended = run_cli("--extend-select", "ACC201", "untraceable.py")
    assert extended.returncode == 1
    assert [(r.line, r.column, r.code) for r in parse_text(extended.stdout)] == [
        (11, 52, "ACC201"), (12, 60, "ACC201"), (13, 42, "ACC201"), (17, 48, "ACC201"), (17, 64, "ACC201"),
    ]
    # --select replaces the default: ACC201 alone, not the ACC1 findings beside it
    assert _codes("--select", "ACC2", "untraceable.py", "findings.py") == [
        (11, 52, "ACC201"), (12, 60, "ACC201"), (13, 42, "ACC201"), (17, 48, "ACC201"), (17, 64, "ACC201"),
    ]


def test_codes_are_case_insensitive_in_options():
    assert _codes("--select", "acc104", "findings.py") == [(21, 64, "ACC104")]

DOCS_EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def test_exit_zero_still_prints_findings():
    result = run_cli("--exit-zero", "findings.py")
    assert result.returncode == 0
    assert len(parse_text(result.stdout)) == 8


def test_a_reader_that_goes_away_ends_the_run_quietly():
    # `asynccfg-lint check . | head`: the write meets a closed pipe (unbuffered, so at once): exit 1, no traceback
    reader, writer = os.pipe()
    os.close(reader)
    try:
        completed = subprocess.run([sys.executable, "-m", "asynccfg_lint", "check", "findings.py"],
                                   cwd=CLI_FIXTURES, stdout=writer, stderr=subprocess.PIPE, timeout=300,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    finally:
        os.close(writer)
    assert (completed.returncode, completed.stderr) == (1, b"")


def test_a_long_output_is_written_whole_before_the_process_ends():
    # the command ends with os._exit once it flushed its streams: nothing printed may be lost
    result = run_cli("--extend-select", "ACC201", str(CLI_FIXTURES.parent), str(DOCS_EXAMPLES))
    in_process = io.StringIO()
    with contextlib.redirect_stdout(in_process):
        code = main(["check", "--extend-select", "ACC201", str(CLI_FIXTURES.parent), str(DOCS_EXAMPLES)])
    assert (result.returncode, code) == (1, 1)
    assert len(result.stdout) > 100_000  # past any buffer
    assert result.stdout == in_process.getvalue()


def test_a_closed_standard_output_exits_120_as_python_does():
    # the findings stay in the stream's buffer (no PYTHONUNBUFFERED) until the final flush, which meets a closed pipe
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    reader, writer = os.pipe()
    os.close(reader)
    try:
        completed = subprocess.run([sys.executable, "-m", "asynccfg_lint", "check", "findings.py"],
                                   cwd=CLI_FIXTURES, stdout=writer, stderr=subprocess.PIPE, timeout=300, env=environment)
    finally:
        os.close(writer)
    assert completed.returncode == 120


@pytest.mark.parametrize(
    ("args", "stderr_part"),
    [
        (["--no-such-option", "findings.py"], "unrecognized arguments: --no-such-option"),
        (["--select", "E501", "findings.py"], "--select: unknown rule code or prefix 'E501'"),
        (["--extend-select", "ACC9", "findings.py"], "--extend-select: unknown rule code or prefix 'ACC9'"),
        (["--ignore", "ACC1,W605", "findings.py"], "--ignore: unknown rule code or prefix 'W605'"),
        (["--output-format", "xml", "findings.py"], "invalid choice: 'xml'"),
        (["--statistics", "--output-format", "sarif", "findings.py"], "--statistics cannot be printed as sarif"),
        (["--config", "a.toml", "--isolated", "findings.py"], "--config cannot be used with --isolated"),
        (["--exclude", "a\\", "findings.py"], "--exclude: invalid glob 'a\\\\'"),
        (["--extend-exclude", "ok,[z-a]", "findings.py"], "--extend-exclude: invalid glob '[z-a]': bad character range z-a\n"),
        # a mistyped option: the sub-command's usage and the closest real option (ruff's "tip")
        (["--slect", "ACC1", "findings.py"], "\n\nusage: asynccfg-lint check [options] [paths ...]\n"
                                             "For more information, try 'asynccfg-lint check --help'.\n"),
        (["--slect", "ACC1", "findings.py"], "unrecognized arguments: --slect\n  tip: a similar option exists: '--select'"),
        # argparse names the type function in its message unless the function words the error itself
        (["-j", "x", "findings.py"], "argument -j/--jobs: expected a whole number of at least 1, got 'x'"),
        (["--config", "select = [", "findings.py"], "--config 'select = [' is neither a configuration file nor a TOML"),
        (["--config", "selct = []", "findings.py"], "--config 'selct = []': unknown option 'selct'"),
    ],
)
def test_usage_errors_exit_2(args, stderr_part):
    result = run_cli(*args)
    assert result.returncode == 2
    assert stderr_part in result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "invalid _" not in result.stderr  # no internal name such as argparse's "invalid _positive_int value"


def test_a_usage_error_is_the_error_a_one_line_usage_and_where_to_read_more():
    """As ruff: not argparse's whole usage block (18 lines for check) before the error."""
    result = run_cli("--bogus", "findings.py")
    assert (result.returncode, result.stderr.splitlines()) == (2, [
        "asynccfg-lint check: error: unrecognized arguments: --bogus",
        "  tip: a similar option exists: '--verbose'",
        "",
        "usage: asynccfg-lint check [options] [paths ...]",
        "For more information, try 'asynccfg-lint check --help'."])


def test_an_output_file_that_cannot_be_written_is_one_error_line(tmp_path):
    result = run_cli("-o", str(tmp_path), "findings.py")
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", f"asynccfg-lint: error: --output-file {tmp_path}: cannot write: Is a directory\n")


def test_a_fifo_named_on_the_command_line_is_said_to_be_one(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    result = run_cli("pipe", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "pipe:1:1: ACC001 file not analysed: a named pipe (FIFO), not a file "
                                                     "or folder\n")


#: the first row of findings.py in colour: the path bold, the separators cyan, the code bold red (ruff's colours)
COLOURED_ROW = ("\x1b[1mfindings.py\x1b[0m\x1b[36m:\x1b[0m18\x1b[36m:\x1b[0m47\x1b[36m:\x1b[0m "
                "\x1b[1m\x1b[31mACC101\x1b[0m value for key")


@pytest.mark.parametrize(("args", "env", "coloured"), [
    (("--color", "always"), {}, True),
    (("--color", "never"), {"FORCE_COLOR": "1"}, False),
    ((), {"FORCE_COLOR": "1", "NO_COLOR": ""}, True),  # auto: not a terminal, but forced
    ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # auto: NO_COLOR wins
    ((), {}, False),  # auto: a pipe is no terminal
])
def test_colour_follows_color_and_the_environment(args, env, coloured):
    result = run_cli(*args, "findings.py", env={"NO_COLOR": "", "FORCE_COLOR": "", **env})
    first = result.stdout.splitlines()[0]
    assert first.startswith(COLOURED_ROW) if coloured else "\x1b" not in result.stdout
    assert "\x1b" not in run_cli(*args, "--output-format", "json", "findings.py", env=env).stdout


def test_a_missing_path_is_acc001_and_the_other_paths_are_still_checked():
    """As ruff reports E902 and goes on: the missing path is a finding at 1:1, exit 1."""
    result = run_cli("no_such_dir", "findings.py", "no_such_file.py")
    assert result.returncode == 1
    assert result.stderr == "7 sink calls checked: all fully typed\n"
    rows = parse_text(result.stdout)
    assert [(r.path, r.line, r.column, r.code, r.message) for r in rows if r.code == "ACC001"] == [
        ("no_such_dir", 1, 1, "ACC001", "file not analysed: No such file or directory"),
        ("no_such_file.py", 1, 1, "ACC001", "file not analysed: No such file or directory"),
    ]
    assert [r.path for r in rows] == ["findings.py"] * 8 + ["no_such_dir", "no_such_file.py"]


def test_a_missing_path_alone_exits_1():
    result = run_cli("no_such_file.py")
    assert (result.returncode, result.stdout) == (1, "no_such_file.py:1:1: ACC001 file not analysed: No such file or directory\n")


def test_a_missing_path_with_acc001_ignored_is_a_warning():
    result = run_cli("--ignore", "ACC001", "no_such_file.py", "clean.py")
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == ("asynccfg-lint: warning: no_such_file.py: No such file or directory\n"
                             "1 sink call checked: all fully typed\n")


def test_missing_command_exits_2():
    result = run_program()
    assert result.returncode == 2
    assert "the following arguments are required: command" in result.stderr


def test_syntax_error_is_acc001(tmp_path):
    (tmp_path / "broken.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": 1} {"b": 2})\n')
    result = run_cli("broken.py", cwd=tmp_path)
    rows = parse_text(result.stdout)
    assert result.returncode == 1
    assert [(r.path, r.line, r.code) for r in rows] == [("broken.py", 2, "ACC001")]
    assert rows[0].message.startswith("file not analysed: syntax error: ")
    assert run_cli("--ignore", "ACC001", "broken.py", cwd=tmp_path).returncode == 0


def test_undecodable_file_is_acc001(tmp_path):
    (tmp_path / "latin.py").write_bytes(SINK_IMPORT.encode() + b'emit("t", 1, 2, {"caf\xe9": 1})\n')
    rows = parse_text(run_cli("latin.py", cwd=tmp_path).stdout)
    assert [(r.line, r.column, r.code) for r in rows] == [(2, 1, "ACC001")]  # the line of the bad byte
    assert rows[0].message.startswith("file not analysed: cannot decode the file as utf-8: invalid continuation byte")


def test_syntax_error_in_a_file_without_a_sink_is_not_parsed(tmp_path):
    """The prefilter skips files that never name a sink: they cannot hold a finding, so they are not parsed."""
    (tmp_path / "other.py").write_text("def f(:\n")
    result = run_cli("other.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_directory_walk_skips_environments_and_build_output(tmp_path):
    bad = SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n'
    for relative in [
        "pkg/mod.py", "pkg/sub/deep.py", "stubs/mod.pyi", "top.py",
        ".venv/lib/mod.py", "venv/mod.py", "env_without_dot/lib/mod.py", "build/lib/mod.py", "dist/mod.py",
        "pkg/__pycache__/mod.py", ".git/hooks/mod.py", "node_modules/x/mod.py", "pkg.egg-info/mod.py",
    ]:
        file = tmp_path / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(bad)
    (tmp_path / "env_without_dot" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "pkg" / "notes.txt").write_text(bad)
    result = run_cli(".", cwd=tmp_path)
    assert result.returncode == 1
    # os.walk order with sorted names: a folder's own files, then its sub-folders
    assert [r.path for r in parse_text(result.stdout)] == [
        "./pkg/mod.py", "./pkg/sub/deep.py", "./stubs/mod.pyi", "./top.py",  # sorted by path, as ruff prints
    ]


def test_a_file_named_on_the_command_line_is_checked_whatever_its_suffix(tmp_path):
    (tmp_path / "script").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n')
    assert [(r.path, r.line, r.code) for r in parse_text(run_cli("script", cwd=tmp_path).stdout)] == [
        ("script", 2, "ACC101")
    ]


def test_several_paths_print_sorted_by_path_and_position():
    rows = parse_text(run_cli("non_ascii.py", "latin1.py").stdout)
    assert [(r.path, r.line) for r in rows] == [
        ("latin1.py", 7), ("non_ascii.py", 7), ("non_ascii.py", 8), ("non_ascii.py", 8), ("non_ascii.py", 9),
    ]


def test_noqa_pattern_is_flake8s():
    assert NOQA_INLINE_REGEXP.pattern == flake8.defaults.NOQA_INLINE_REGEXP.pattern
    assert NOQA_INLINE_REGEXP.flags & re.IGNORECASE == flake8.defaults.NOQA_INLINE_REGEXP.flags & re.IGNORECASE


def test_version():
    result = run_program("--version")
    assert (result.returncode, result.stdout) == (0, f"asynccfg-lint {asynccfg_lint.__version__}\n")


def test_rule_command_prints_the_page_and_the_listing():
    from asynccfg_lint.rules.pages import rule_listing, rule_page

    page = run_program("rule", "acc103")
    assert (page.returncode, page.stdout, page.stderr) == (0, rule_page("ACC103"), "")
    assert page.stdout.startswith("# ACC103: non-finite-float\n")
    listing = run_program("rule", "--all")
    assert (listing.returncode, listing.stdout) == (0, rule_listing())
    assert [line.split()[0] for line in listing.stdout.splitlines()] == [
        "ACC001", "ACC101", "ACC102", "ACC103", "ACC104", "ACC105", "ACC201",
    ]
    unknown = run_program("rule", "ACC999")
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr.startswith("asynccfg-lint: error: unknown rule code or name 'ACC999'; known codes: ACC001, ")


def test_lsp_command_serves_the_language_server(tmp_path):
    pytest.importorskip("pygls", reason="the language server needs the lsp extra")
    from tests.lsp_client import LspClient

    client = LspClient(cwd=tmp_path, command=(sys.executable, "-m", "asynccfg_lint", "lsp"))
    try:
        result = client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert result["serverInfo"]["name"] == "asynccfg-lint"
        client.notify("initialized", {})
        uri = (tmp_path / "m.py").as_uri()
        text = SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n'
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        published = client.notification("textDocument/publishDiagnostics")
        assert [(d["code"], d["range"]["start"]) for d in published["diagnostics"]] == [
            ("ACC101", {"line": 1, "character": 22}),
        ]
        assert client.request("shutdown") is None
        client.notify("exit")
        assert client.wait() == 0
    finally:
        client.close()
