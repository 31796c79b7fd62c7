"""The real ``flake8`` executable with the installed plugin, over the CLI's fixtures."""

from __future__ import annotations

import pytest

import asynccfg_lint
from asynccfg_lint.analysis.large_stack import NOT_IN_A_HOST
from tests.expectations import expected_diagnostics, fixture_options
from tests.frontend_runs import CLI_FIXTURES, SINK_IMPORT, acc_rows, cli_fixtures, parse_text, run_cli, run_flake8


def test_plugin_is_registered():
    result = run_flake8("--version")
    assert result.returncode == 0
    assert f"asynccfg-lint: {asynccfg_lint.__version__}" in result.stdout


@pytest.mark.parametrize("path", cli_fixtures(), ids=lambda p: p.name)
def test_fixture_through_flake8(path):
    """flake8 (its own noqa, default ignore list and output) reports exactly the ``# expect:`` lines,
    and prints them exactly as the CLI does: path, line, 1-based character column, code and message."""
    result = run_flake8(*fixture_options(path), path.name)
    assert result.stderr == ""
    rows = acc_rows(result.stdout)
    assert sorted(row.expected for row in rows) == sorted(expected_diagnostics(path))
    assert rows == parse_text(run_cli(*fixture_options(path), path.name).stdout)


def test_columns_count_characters_not_bytes():
    """On non_ascii.py the character column and the UTF-8 byte column differ, and flake8 prints characters."""
    lines = (CLI_FIXTURES / "non_ascii.py").read_text(encoding="utf-8").splitlines()
    rows = acc_rows(run_flake8("--select", "ACC", "non_ascii.py").stdout)
    assert [(r.line, r.column) for r in rows] == [(7, 48), (8, 45), (8, 56), (9, 66)]
    for row in rows:
        before = lines[row.line - 1][: row.column - 1]
        assert len(before.encode("utf-8")) > len(before)  # the fixture really has multi-byte text first
    assert lines[7][44:47] == "{1}"
    assert lines[7][55:58] == "{2}"


def test_select_acc_shows_only_this_plugin(tmp_path):
    (tmp_path / "m.py").write_text("import os\n" + SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n')
    everything = parse_text(run_flake8("m.py", cwd=tmp_path).stdout)
    only_acc = parse_text(run_flake8("--select", "ACC", "m.py", cwd=tmp_path).stdout)
    assert [(r.line, r.code) for r in everything] == [(1, "F401"), (3, "ACC101")]
    assert [(r.line, r.column, r.code) for r in only_acc] == [(3, 23, "ACC101")]


def test_extend_ignore():
    result = run_flake8("--select", "ACC", "--extend-ignore", "ACC101", "findings.py")
    assert [(r.line, r.column, r.code) for r in parse_text(result.stdout)] == [
        (19, 39, "ACC102"), (20, 48, "ACC103"), (21, 64, "ACC104"), (22, 48, "ACC105"), (27, 49, "ACC102"),
    ]
    assert result.returncode == 1


def test_acc201_is_off_by_default_and_on_with_extend_select():
    assert acc_rows(run_flake8("untraceable.py").stdout) == []
    extended = acc_rows(run_flake8("--extend-select", "ACC201", "untraceable.py").stdout)
    assert [(r.line, r.column, r.code) for r in extended] == [(11, 52, "ACC201"), (12, 60, "ACC201"), (13, 42, "ACC201"), (17, 48, "ACC201"), (17, 64, "ACC201")]


@pytest.mark.parametrize(
    "options",
    [["--select", "ACC"], ["--ignore", "E501"]],
    ids=["explicit-select-beats-default-ignore", "ignore-replaces-default-ignore"],
)
def test_flake8_options_that_also_turn_acc201_on(options):
    """flake8's own semantics, documented in docs/design.md: ACC201 sits in flake8's default ignore list."""
    rows = acc_rows(run_flake8(*options, "untraceable.py").stdout)
    assert [(r.line, r.code) for r in rows] == [(11, "ACC201"), (12, "ACC201"), (13, "ACC201"), (17, "ACC201"), (17, "ACC201")]


def test_noqa_is_flake8s_own():
    """The plugin leaves ``# noqa`` to flake8; --disable-noqa shows what it hid, at the CLI's positions."""
    suppressed = {r.line for r in acc_rows(run_flake8("noqa.py").stdout)}
    everything = {r.line for r in acc_rows(run_flake8("--disable-noqa", "noqa.py").stdout)}
    assert sorted(everything - suppressed) == [7, 8, 9, 11, 20, 21, 31, 36]


def test_unparsable_file_is_e999_not_acc001(tmp_path):
    (tmp_path / "broken.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": 1} {"b": 2})\n')
    result = run_flake8("broken.py", cwd=tmp_path)
    assert [r.code for r in parse_text(result.stdout)] == ["E999"]
    assert result.stderr == ""


def test_undecodable_file_is_acc001_as_in_the_cli(tmp_path):
    """flake8 reads a file that does not decode as latin-1 and gives no E999 (Python rejects it: ``SyntaxError:
    Non-UTF-8 code``); the plugin says ACC001 as the CLI does, not the findings of flake8's latin-1 text."""
    (tmp_path / "latin.py").write_bytes(SINK_IMPORT.encode() + b'emit("t", 1, 2, {"caf\xe9": {1, 2}})\n')
    rows = parse_text(run_flake8("--select", "ACC,E999", "latin.py", cwd=tmp_path).stdout)
    assert [(r.line, r.column, r.code) for r in rows] == [(2, 1, "ACC001")]  # the line of the bad byte
    assert rows[0].message == "file not analysed: cannot decode the file as utf-8: invalid continuation byte at byte 93"
    assert run_cli("latin.py", cwd=tmp_path).stdout == run_flake8("--select", "ACC", "latin.py", cwd=tmp_path).stdout


def test_undecodable_byte_in_a_comment_is_analysed_as_in_the_cli(tmp_path):
    """Python accepts a bad byte in a comment (its tokenizer skips comments): both front ends analyse the file."""
    (tmp_path / "comment.py").write_bytes(SINK_IMPORT.encode() + b'# caf\xe9\nemit("t", 1, 2, {"groups": {1, 2}})\n')
    rows = parse_text(run_flake8("--select", "ACC,E999", "comment.py", cwd=tmp_path).stdout)
    assert [(r.line, r.column, r.code) for r in rows] == [(3, 28, "ACC101")]
    assert run_cli("comment.py", cwd=tmp_path).stdout == run_flake8("--select", "ACC", "comment.py", cwd=tmp_path).stdout


def test_stdin_with_display_name():
    source = (CLI_FIXTURES / "findings.py").read_bytes()
    result = run_flake8("--select", "ACC", "--stdin-display-name", "pkg/lowering.py", "-", stdin=source)
    cli = run_cli("--stdin-filename", "pkg/lowering.py", "-", stdin=source)
    assert result.stdout == cli.stdout
    assert len(parse_text(result.stdout)) == 8


HOSTILE_SOURCES = {
    # libcst's parser recurses per nesting level and gives up long before CPython's parser does
    "deep.py": SINK_IMPORT + 'emit("t", 1, 2, ' + '{"a": ' * 190 + "1" + "}" * 190 + ")\n",
    # cycles between names, a dict holding itself, sink calls with missing, starred and keyword arguments
    "odd_calls.py": SINK_IMPORT + (
        "def lower(ctx, x, flag):\n"
        "    a = b = {}\n"
        '    a = {"k": b}\n'
        '    b = {"k": a}\n'
        '    cfg = {"self": None}\n'
        '    cfg["self"] = cfg\n'
        "    cfg |= cfg\n"
        '    emit("t", ctx, x, a)\n'
        '    emit("t", ctx, x, cfg)\n'
        '    emit("t", ctx, x)\n'
        "    emit()\n"
        "    emit(*flag)\n"
        "    emit(**flag)\n"
        '    emit("t", ctx, x, cfg=lambda: 1)\n'
    ),
    "empty.py": "",
    "only_the_name.py": "# _emit_async_start_custom_call\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_SOURCES))
def test_plugin_never_raises(tmp_path, name):
    """flake8 aborts the whole run when a plugin raises: these inputs must give a clean exit and no traceback."""
    (tmp_path / name).write_text(HOSTILE_SOURCES[name], encoding="utf-8")
    result = run_flake8("--select", "ACC", name, cwd=tmp_path)
    assert result.stderr == ""
    if name == "odd_calls.py":
        # the opt-in rule sees the untraceable pieces; nothing default-enabled is wrong here. (The dict
        # that holds itself, line 7, is not diagnosed: json.dumps raises "Circular reference detected"
        # there; the ACC201 it had came from `cfg |= cfg` below it, which cannot reach that line.)
        assert [(r.line, r.column, r.code) for r in parse_text(result.stdout)] == [
            (8, 12, "ACC201"), (15, 27, "ACC201"),
        ]
        assert acc_rows(run_flake8(name, cwd=tmp_path).stdout) == []
    elif name == "deep.py":  # a guest raises no limit: ACC001 (check parses it on a large stack, and it is clean)
        assert (result.returncode, result.stdout) == (1, f"deep.py:1:1: ACC001 file not analysed: {NOT_IN_A_HOST}\n")
    else:
        assert (result.returncode, result.stdout) == (0, "")


def test_deep_nesting_is_analysed_by_the_cli_and_named_by_the_plugin(tmp_path):
    """190 nested dicts (libcst's RecursionError at the default limit): the CLI, which owns its process, analyses the
    file on a large stack; the plugin, a guest in flake8's, says it did not and names the CLI."""
    source = "import numpy as np\n" + HOSTILE_SOURCES["deep.py"].replace('emit("t", 1, 2, {', 'emit("t", 1, 2, {"bad": np.bool_(True), ', 1)
    (tmp_path / "deep.py").write_text(source, encoding="utf-8")
    assert [(r.line, r.column, r.code) for r in parse_text(run_cli("deep.py", cwd=tmp_path).stdout)] == [(3, 25, "ACC101")]
    assert [(r.line, r.column, r.code, r.message) for r in parse_text(run_flake8("--select", "ACC", "deep.py", cwd=tmp_path).stdout)] == [
        (1, 1, "ACC001", f"file not analysed: {NOT_IN_A_HOST}")]


PLUGIN_CONFIG_MODULE = """\
import numpy as np
from mypkg.collectives import emit_start
from mypkg.jsonsafe import sanitize


def as_groups(groups):
    return set(groups)


def lower(ctx, x, raw):
    emit_start("all-gather-start", ctx, x, {"tiled": np.bool_(True)})  # noqa: ACC101
    emit_start("t", ctx, x, cfg={"groups": {1, 2}, "g": as_groups(raw), "s": sanitize(raw)})
"""


def test_plugin_reads_extra_sinks_and_sanitizers_from_pyproject(tmp_path):
    """flake8 does not read pyproject.toml; the plugin reads extra-sinks and sanitizers from the nearest
    [tool.asynccfg-lint] above each file, as the CLI does, and flake8 keeps select/ignore and noqa."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(PLUGIN_CONFIG_MODULE)
    assert acc_rows(run_flake8("--select", "ACC", "pkg", cwd=tmp_path).stdout) == []
    (tmp_path / "pyproject.toml").write_text(
        '[tool.asynccfg-lint]\nextra-sinks = ["mypkg.collectives.emit_start:cfg@3"]\nignore = ["ACC1"]\n'
    )
    found = [(r.path, r.line, r.column, r.code) for r in acc_rows(run_flake8("--select", "ACC1", "pkg", cwd=tmp_path).stdout)]
    # the file's ignore is the CLI's business: flake8's own selection decides, so ACC1 is still reported
    assert found == [("pkg/m.py", 7, 12, "ACC101"), ("pkg/m.py", 12, 44, "ACC101")]
    assert [r[1:] for r in found] == [
        (r.line, r.column, r.code)
        for r in parse_text(run_cli("--select", "ACC1", "pkg", cwd=tmp_path).stdout)  # the CLI's --select replaces the file's
    ]
    (tmp_path / "pyproject.toml").write_text(
        '[tool.asynccfg-lint]\nextra-sinks = ["mypkg.collectives.emit_start:cfg@3"]\n'
        'sanitizers = ["pkg.m.as_groups", "mypkg.jsonsafe.sanitize"]\n'
    )
    result = run_flake8("--select", "ACC", "--extend-select", "ACC201", "pkg", cwd=tmp_path)
    assert [(r.line, r.column, r.code) for r in acc_rows(result.stdout)] == [(12, 44, "ACC101")]


def test_plugin_reports_an_invalid_pyproject_table_and_fails(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextra-sinks = ["no position"]\n')
    (tmp_path / "m.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n')
    result = run_flake8("--select", "ACC", "m.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout.startswith(
        f'm.py: "asynccfg-lint[ACC]" failed during execution due to ConfigError: {tmp_path / "pyproject.toml"}: '
        "[tool.asynccfg-lint]: extra-sinks: 'no position' is not QUALIFIED.NAME:PARAMETER"
    ), result.stdout
