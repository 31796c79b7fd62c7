"""The command line as ruff users expect it: ``check --fix``/``--unsafe-fixes``/``--fix-only``/
``--show-fixes``/``--diff``, ``--add-noqa``, ``-q``/``-v``, the closing summary, ``--config KEY=VALUE``,
``extend``, ``--output-format concise|full``, ``fix -`` and ``fix --output-format json``, ``rule NAME``
and ``rule --all --output-format json``.

The summary wording was measured with ruff 0.17.5 (``ruff check --output-format concise``); the CLI
runs in a subprocess, the real flake8 judges where ``--add-noqa`` put its comments, and the summary
renderer is also tested in-process (the fast tier).
"""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from asynccfg_lint.diagnostics import Diagnostic, Fix
from asynccfg_lint.frontends.output import any_fix, closing_summary, safe_fix
from asynccfg_lint.rules.pages import rule_page
from asynccfg_lint.rules import RULES
from tests.frontend_runs import SINK_IMPORT, parse_text, run_cli, run_flake8, run_program

#: line 4: np.bool_ (safe fix bool(...)) at col 23, a set (unsafe fix sorted(...)) at col 41, NaN (no fix) at col 51
MIXED = ("import numpy as np\n" + SINK_IMPORT + "\n"
         'emit("t", 1, 2, {"a": np.bool_(1), "b": {1}, "c": float("nan")})\n')
MIXED_SAFE_FIXED = MIXED.replace("np.bool_(1)", "bool(np.bool_(1))")


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(textwrap.dedent(text).encode("utf-8"))


# -------------------------------------------------------------------- closing summary (in-process)
def _diagnostic(line: int, safety: str | None) -> Diagnostic:
    fix = Fix(safety, "x", "wrap", line, 1, line, 2) if safety else None
    return Diagnostic("m.py", line, 1, line, 2, "ACC101", "message", fix)


@pytest.mark.parametrize(("remaining", "fixable", "fixed", "mode", "expected"), [
    # expect: what ruff 0.17.5 printed for F401 (safe fix) and F841 (unsafe fix) in the same shapes
    ([_diagnostic(1, "safe"), _diagnostic(2, "unsafe")], safe_fix, 0, "check",
     "Found 2 errors.\n[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).\n"),
    ([_diagnostic(1, "safe"), _diagnostic(2, "unsafe")], any_fix, 0, "check", "Found 2 errors.\n[*] 2 fixable with `--fix`.\n"),
    ([_diagnostic(1, "unsafe"), _diagnostic(2, "unsafe")], safe_fix, 0, "check",
     "Found 2 errors.\n2 unsafe fixes available with `--fix --unsafe-fixes`.\n"),
    ([_diagnostic(1, None)], safe_fix, 0, "check", "Found 1 error.\n"),
    ([], safe_fix, 0, "check", "All checks passed!\n"),
    ([_diagnostic(2, "unsafe")], safe_fix, 1, "fix",
     "Found 2 errors (1 fixed, 1 remaining).\n1 unsafe fix available with `--fix --unsafe-fixes`.\n"),
    ([], safe_fix, 3, "fix", "Found 3 errors (3 fixed, 0 remaining).\n"),
    ([], safe_fix, 2, "fix-only", "Fixed 2 errors.\n"),
    ([_diagnostic(2, "unsafe")], safe_fix, 0, "fix-only", "No errors fixed (1 fix available with `--unsafe-fixes`).\n"),
    ([], safe_fix, 2, "diff", "Would fix 2 errors.\n"),
    ([_diagnostic(2, "unsafe")], safe_fix, 0, "diff", "No errors would be fixed (1 fix available with `--unsafe-fixes`).\n"),
    ([], safe_fix, 0, "diff", ""),
])
def test_closing_summary_is_ruffs(remaining, fixable, fixed, mode, expected):
    assert closing_summary(remaining, fixable, fixed, mode) == expected


# ---------------------------------------------------------------------- formats and loudness
def test_concise_and_full_are_ruffs_text_formats_and_text_stays_flake8s(tmp_path):
    write(tmp_path, {"m.py": MIXED})
    concise = run_cli("--output-format", "concise", "m.py", cwd=tmp_path)
    assert (concise.returncode, concise.stdout.splitlines()) == (1, [
        'm.py:4:23: ACC101 [*] value for key "a" is numpy.bool_, which JAX cannot serialize to JSON: lowering raises '
        "ValueError; use bool(...)",
        'm.py:4:41: ACC101 value for key "b" is set, which JAX cannot serialize to JSON: lowering raises ValueError; '
        "use sorted(...) or list(...)",
        'm.py:4:51: ACC103 value for key "c" is a non-finite float (NaN or Infinity): JAX emits non-standard JSON and '
        "XLA's compile fails (Failed to parse collective op config JSON); use a finite number",
        "Found 3 errors.",
        "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).",
        "1 sink call checked: all fully typed",  # what was verified: every value of every sink call typed
    ])
    full = run_cli("--output-format", "full", "m.py", cwd=tmp_path).stdout.splitlines()
    assert full[:3] == [concise.stdout.splitlines()[0], MIXED.splitlines()[3], " " * 22 + "^"]
    assert full[-3:] == concise.stdout.splitlines()[-3:]
    text = run_cli("m.py", cwd=tmp_path).stdout  # flake8's format: no marker, no summary
    assert text.splitlines() == [line.replace(" [*]", "") for line in concise.stdout.splitlines()[:3]]
    assert run_cli("-q", "--output-format", "concise", "m.py", cwd=tmp_path).stdout.splitlines() == \
        concise.stdout.splitlines()[:3]
    clean = run_cli("--output-format", "concise", "--select", "ACC105", "m.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, "All checks passed!\n1 sink call checked: all fully typed\n")
    unsafe = run_cli("--output-format", "concise", "--unsafe-fixes", "m.py", cwd=tmp_path).stdout.splitlines()
    assert " ACC101 [*] value for key \"b\"" in unsafe[1] and unsafe[-2] == "[*] 2 fixable with `--fix`."


def test_verbose_names_the_configuration_and_counts_and_quiet_drops_the_fix_summary(tmp_path):
    write(tmp_path, {"m.py": MIXED, "pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC103"]\n'})
    verbose = run_cli("-v", "m.py", cwd=tmp_path)
    lines = verbose.stderr.splitlines()
    assert lines[0] == f"asynccfg-lint: settings: {tmp_path / 'pyproject.toml'}"
    assert lines[1].startswith("asynccfg-lint: 1 file checked in ") and lines[1].endswith(" s")
    assert len(parse_text(verbose.stdout)) == 2
    quiet = run_program("fix", "-q", "m.py", cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (1, "")
    assert run_cli("-q", "-v", "m.py", cwd=tmp_path).returncode == 2  # one or the other


# ------------------------------------------------------------------------------- check --fix
def test_check_fix_fixes_and_summarises_as_ruff(tmp_path):
    write(tmp_path, {"m.py": MIXED})
    result = run_cli("--fix", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text() == MIXED_SAFE_FIXED
    assert result.returncode == 1
    assert result.stdout.splitlines()[-2:] == [
        "Found 3 errors (1 fixed, 2 remaining).", "1 unsafe fix available with `--fix --unsafe-fixes`."]
    assert [r.code for r in parse_text("\n".join(result.stdout.splitlines()[:-2]).replace(" [*]", ""))] == [
        "ACC101", "ACC103"]


def test_check_unsafe_fixes_show_fixes_and_fix_is_the_short_form(tmp_path):
    write(tmp_path, {"a.py": MIXED, "b.py": MIXED})
    check = run_cli("--fix", "--unsafe-fixes", "--show-fixes", "--output-format", "concise", "a.py", cwd=tmp_path)
    assert check.stdout.splitlines()[1:] == [
        "", "Fixed 2 errors:", "- a.py:", "    2 × ACC101 (unsupported-value-type)", "",
        "Found 3 errors (2 fixed, 1 remaining).",
    ]
    fixed = MIXED_SAFE_FIXED.replace("{1}", "sorted({1})")
    assert (tmp_path / "a.py").read_text() == fixed
    short = run_program("fix", "--unsafe-fixes", "--show-fixes", "b.py", cwd=tmp_path)
    assert (tmp_path / "b.py").read_text() == fixed  # the same edit as check --fix
    # with text (flake8's lines on stdout) the list of fixes goes to stderr, before the one-line summary
    assert short.stderr == ("Fixed 2 errors:\n- b.py:\n    2 × ACC101 (unsupported-value-type)\n\n"
                            "1 file scanned, 1 file changed, 2 fixes applied, 1 finding left\n")
    assert [r.code for r in parse_text(short.stdout)] == ["ACC103"]


def test_check_fix_json_is_ruffs_list_of_what_is_left(tmp_path):
    write(tmp_path, {"m.py": MIXED})
    result = run_cli("--fix", "--output-format", "json", "m.py", cwd=tmp_path)
    assert result.returncode == 1
    assert [(d["code"], d["location"]) for d in json.loads(result.stdout)] == [
        ("ACC101", {"row": 4, "column": 47}), ("ACC103", {"row": 4, "column": 57})]


def test_fix_only_reports_nothing_left_and_exits_0(tmp_path):
    write(tmp_path, {"m.py": MIXED})
    result = run_cli("--fix-only", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "Fixed 1 error.\n")
    assert (tmp_path / "m.py").read_text() == MIXED_SAFE_FIXED
    again = run_cli("--fix-only", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "No errors fixed (1 fix available with `--unsafe-fixes`).\n")


def test_check_diff_writes_nothing(tmp_path):
    write(tmp_path, {"m.py": MIXED})
    result = run_cli("--diff", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text() == MIXED
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "--- m.py", "+++ m.py", "@@ -1,4 +1,4 @@", " import numpy as np", " " + SINK_IMPORT.rstrip("\n"), " ",
        '-emit("t", 1, 2, {"a": np.bool_(1), "b": {1}, "c": float("nan")})',
        '+emit("t", 1, 2, {"a": bool(np.bool_(1)), "b": {1}, "c": float("nan")})', "Would fix 1 error.",
    ]


# ---------------------------------------------------------------------------------- --add-noqa
NOQA_SOURCE = SINK_IMPORT + textwrap.dedent('''\
    emit("t", 1, 2, {"a": {1}, (0,): 2})
    emit("t", 1, 2, {"b": {1}})  # noqa: E501
    emit("t", 1, 2, {"c": {1}, "doc": """two
    lines"""})
    emit("t", 1, 2, {  # a comment
        "d": {1},
        "e": float("inf"),
    })
    x = 1
''')
NOQA_EXPECTED = SINK_IMPORT + textwrap.dedent('''\
    emit("t", 1, 2, {"a": {1}, (0,): 2})  # noqa: ACC101, ACC102
    emit("t", 1, 2, {"b": {1}})  # noqa: E501, ACC101
    emit("t", 1, 2, {"c": {1}, "doc": """two
    lines"""})  # noqa: ACC101
    emit("t", 1, 2, {  # a comment
        "d": {1},  # noqa: ACC101
        "e": float("inf"),  # noqa: ACC103
    })
    x = 1
''')


def test_add_noqa_puts_each_code_on_its_noqa_row_once(tmp_path):
    write(tmp_path, {"m.py": NOQA_SOURCE.replace("\n", "\r\n")})
    first = run_cli("--add-noqa", "m.py", cwd=tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "Added 5 noqa directives.\n")
    assert (tmp_path / "m.py").read_bytes() == NOQA_EXPECTED.replace("\n", "\r\n").encode()  # line endings kept
    again = run_cli("--add-noqa", "m.py", cwd=tmp_path)  # never twice
    assert (again.returncode, again.stderr) == (0, "Added 0 noqa directives.\n")
    assert (tmp_path / "m.py").read_bytes() == NOQA_EXPECTED.replace("\n", "\r\n").encode()
    assert run_cli("m.py", cwd=tmp_path).returncode == 0
    # flake8 agrees each comment is on the line it reads # noqa from
    before = tmp_path / "before.py"
    before.write_text(NOQA_SOURCE)
    assert len(parse_text(run_flake8("--select", "ACC", "before.py", cwd=tmp_path).stdout)) == 6
    assert run_flake8("--select", "ACC", "m.py", cwd=tmp_path).stdout == ""


def test_json_noqa_row_is_the_line_that_closes_a_multi_line_string(tmp_path):
    write(tmp_path, {"m.py": NOQA_SOURCE})
    data = json.loads(run_cli("--output-format", "json", "m.py", cwd=tmp_path).stdout)
    assert [(d["line"], d["noqa_row"]) for d in data] == [(2, 2), (2, 2), (3, 3), (4, 5), (7, 7), (8, 8)]


# ------------------------------------------------------------------ --config KEY=VALUE and extend
def test_inline_config_options_go_over_the_discovered_file(tmp_path):
    write(tmp_path, {"m.py": MIXED, "pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC101"]\n'})
    assert [r.code for r in parse_text(run_cli("m.py", cwd=tmp_path).stdout)] == ["ACC103"]
    over = run_cli("--config", 'select = ["ACC101"]', "m.py", cwd=tmp_path)
    assert [r.code for r in parse_text(over.stdout)] == ["ACC101", "ACC101"]
    two = run_cli("--config", 'ignore = ["ACC103"]', "--config", 'extend-select = ["ACC201"]', "m.py", cwd=tmp_path)
    assert [r.code for r in parse_text(two.stdout)] == []  # the file's ignore stays, ACC103 ignored too
    # a higher layer's selection wins over the file's ignore; an empty list would decide nothing (ruff's layers)
    file_and_option = run_cli("--config", "pyproject.toml", "--config", 'extend-select = ["ACC101"]', "m.py", cwd=tmp_path)
    assert [r.code for r in parse_text(file_and_option.stdout)] == ["ACC101", "ACC101", "ACC103"]


def test_extend_reads_the_base_file_first(tmp_path):
    write(tmp_path, {
        "base.toml": 'ignore = ["ACC103"]\nextend-exclude = ["skipped"]\n',
        "proj/pyproject.toml": '[tool.asynccfg-lint]\nextend = "../base.toml"\nextend-select = ["ACC201"]\n',
        "proj/m.py": MIXED,
        "proj/skipped/n.py": MIXED,
        "pyproject.toml": '[tool.asynccfg-lint]\nselect = ["ACC103"]\n',
        "other/pyproject.toml": '[tool.asynccfg-lint]\nextend = "../pyproject.toml"\nextend-select = ["ACC101"]\n',
        "other/m.py": MIXED,
    })
    assert [(r.path, r.code) for r in parse_text(run_cli("proj", cwd=tmp_path).stdout)] == [
        ("proj/m.py", "ACC101"), ("proj/m.py", "ACC101")]
    assert [r.code for r in parse_text(run_cli("other", cwd=tmp_path).stdout)] == ["ACC101", "ACC101", "ACC103"]
    write(tmp_path, {"proj/pyproject.toml": '[tool.asynccfg-lint]\nextend = "../nope.toml"\n'})
    missing = run_cli("proj", cwd=tmp_path)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == (f"asynccfg-lint: error: {tmp_path / 'proj' / 'pyproject.toml'}: [tool.asynccfg-lint]: "
                              f"extend: cannot read {tmp_path / 'nope.toml'}: No such file\n")
    write(tmp_path, {"proj/pyproject.toml": '[tool.asynccfg-lint]\nextend = "pyproject.toml"\n'})
    assert "(a cycle)" in run_cli("proj", cwd=tmp_path).stderr


def test_flake8_reads_extra_sinks_through_extend(tmp_path):
    write(tmp_path, {
        "shared.toml": 'extra-sinks = ["mypkg.send:cfg@0"]\nextend-exclude = ["[z-a]"]\n',  # a glob flake8 never uses
        "proj/pyproject.toml": '[tool.asynccfg-lint]\nextend = "../shared.toml"\n',
        "proj/m.py": 'from mypkg import send\nsend({"a": {1}})\n',
    })
    flake8 = run_flake8("--select", "ACC", "m.py", cwd=tmp_path / "proj")
    assert [(r.line, r.column, r.code) for r in parse_text(flake8.stdout)] == [(2, 12, "ACC101")], flake8.stderr
    assert run_cli("m.py", cwd=tmp_path / "proj").returncode == 2  # the CLI uses the glob and refuses it


# --------------------------------------------------------------------- fix - and fix json
def test_fix_reads_stdin_and_writes_the_fixed_text_to_stdout(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.asynccfg-lint.per-file-ignores]\n"gen/*" = ["ACC103"]\n'})
    result = run_program("fix", "-", cwd=tmp_path, stdin=MIXED.encode())
    assert (result.returncode, result.stdout) == (1, MIXED_SAFE_FIXED)
    assert [r.code for r in parse_text(result.stderr.splitlines()[0] + "\n" + result.stderr.splitlines()[1])] == [
        "ACC101", "ACC103"]
    assert result.stderr.splitlines()[-1] == "1 file scanned, 1 file changed, 1 fix applied, 2 findings left " \
                                             "(1 more fixable with --unsafe-fixes)"
    named = run_cli("--fix", "--stdin-filename", "gen/m.py", "--output-format", "concise", cwd=tmp_path,
                    stdin=MIXED.encode())
    assert named.stdout == MIXED_SAFE_FIXED  # its per-file-ignores apply: ACC103 is not left
    assert named.stderr.splitlines()[-2:] == [
        "Found 2 errors (1 fixed, 1 remaining).", "1 unsafe fix available with `--fix --unsafe-fixes`."]
    broken = run_program("fix", "-", cwd=tmp_path, stdin=SINK_IMPORT.encode() + b"emit(\n")
    assert broken.stdout == SINK_IMPORT + "emit(\n"  # what cannot be fixed comes back as it was


def test_fix_json_reports_what_was_fixed_and_what_is_left(tmp_path):
    write(tmp_path, {"m.py": MIXED, "clean.py": "x = 1\n"})
    result = run_program("fix", "--output-format", "json", ".", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert [(d["path"], d["line"], d["column"], d["code"]) for d in report["fixed"]] == [("./m.py", 4, 23, "ACC101")]
    assert [(d["path"], d["line"], d["column"], d["code"]) for d in report["remaining"]] == [
        ("./m.py", 4, 47, "ACC101"), ("./m.py", 4, 57, "ACC103")]
    assert report["files"] == [{"path": "./m.py", "changed": True, "fixes_applied": 1, "failure": None,
                                "withheld": None, "error": None}]
    stdin = run_program("fix", "--output-format", "json", "-", cwd=tmp_path, stdin=MIXED.encode())
    assert stdin.stdout == MIXED_SAFE_FIXED
    assert [d["code"] for d in json.loads(stdin.stderr)["fixed"]] == ["ACC101"]


# --------------------------------------------------------------------------------------- rule
def test_rule_accepts_a_name_and_prints_json():
    by_name = run_program("rule", "non-finite-float")
    assert (by_name.returncode, by_name.stdout) == (0, rule_page("ACC103"))
    listing = run_program("rule", "--all", "--output-format", "json")
    rules = json.loads(listing.stdout)
    assert [(r["code"], r["name"]) for r in rules] == [(rule.code, rule.name) for rule in RULES]
    # ruff 0.17.5's keys (less category and source_location), and ours
    assert set(rules[0]) == {"name", "code", "linter", "summary", "message_formats", "fix", "fix_availability",
                             "explanation", "preview", "status", "default_enabled", "url"}
    assert rules[1]["explanation"] == rule_page("ACC101")
    assert [r["fix"] for r in rules] == ["Fix is not available.", "Fix is sometimes available.",
                                         "Fix is sometimes available."] + ["Fix is not available."] * 4
    assert [r["fix_availability"] for r in rules] == ["None", "Sometimes", "Sometimes"] + ["None"] * 4
    one = json.loads(run_program("rule", "ACC201", "--output-format", "json").stdout)
    assert (one["code"], one["default_enabled"]) == ("ACC201", False)


# ------------------------------------------------------------------------ in-process (fast tier)
def test_noqa_rows_and_add_noqa_in_process():
    from asynccfg_lint.run.suppression import add_noqa, noqa_rows

    text = 'a = 1\nx = """\nq\n"""; b = 2\nc = 3 + \\\n    4\n'
    assert noqa_rows(text) == {1: 1, 2: 4, 3: 4, 4: 4, 5: 6, 6: 6}  # expect: a string's and a continuation's last line
    source = b"a = 1  # noqa: E501\r\nb = 2  # NOQA: acc101 (lower case is no code)\r\nc = 3  # noqa\r\nd = 4\r\n"
    new, added = add_noqa(source, source.decode(), {1: {"ACC101"}, 2: {"ACC101"}, 3: {"ACC102"}, 4: {"ACC103", "ACC102"}})
    assert (new, added) == (b"a = 1  # noqa: E501, ACC101\r\nb = 2  # NOQA: acc101, ACC101 (lower case is no code)\r\n"
                            b"c = 3  # noqa\r\nd = 4  # noqa: ACC102, ACC103\r\n", 3)
    assert add_noqa(new, new.decode(), {1: {"ACC101"}, 4: {"ACC103"}}) == (new, 0)  # never twice


def test_the_noqa_mapping_is_made_only_for_a_finding_in_a_file_with_a_noqa(monkeypatch):
    # flake8's mapping tokenizes the whole file; suppression is the same without it where it cannot matter
    from asynccfg_lint.analysis import checker

    made: list[str] = []
    real = checker.noqa_lines
    monkeypatch.setattr(checker, "noqa_lines", lambda text: made.append(text) or real(text))
    lowering = SINK_IMPORT + '\n\ndef lowering(ctx, x):\n    return emit("all-gather-start", ctx, x, {"groups": {1}})'
    clean = SINK_IMPORT + '\n\ndef lowering(ctx, x):\n    return emit("all-gather-start", ctx, x, {"tiled": True})  # noqa\n'
    assert [d.code for d in checker.check_source(lowering + "\n", "m.py")] == ["ACC101"]
    assert [d.code for d in checker.check_source(lowering + "  # noqa: ACC101\n", "m.py")] == []  # expect: suppressed
    assert [d.code for d in checker.check_source(lowering + "  # noqa: ACC102\n", "m.py")] == ["ACC101"]
    assert checker.check_source(clean, "m.py") == []
    assert made == [lowering + "  # noqa: ACC101\n", lowering + "  # noqa: ACC102\n"]  # expect: not for the others


def test_inline_options_and_extend_combine_as_ruff_in_process(tmp_path):
    from asynccfg_lint.run.config import ConfigError, load_settings, parse_inline_options

    (tmp_path / "base.toml").write_text('ignore = ["ACC103"]\nextend-exclude = ["old"]\nunsafe-fixes = true\n')
    (tmp_path / "pyproject.toml").write_text(
        '[tool.asynccfg-lint]\nextend = "base.toml"\nextend-exclude = ["new"]\nunsafe-fixes = false\n')
    settings = load_settings(tmp_path / "pyproject.toml")
    assert [glob.pattern for glob in settings.extend_exclude] == ["old", "new"]  # accumulates
    assert settings.unsafe_fixes is False  # the extending file's option replaces the base's
    assert sorted(settings.selection.enabled_codes()) == ["ACC001", "ACC101", "ACC102", "ACC104", "ACC105"]
    layer = parse_inline_options(['select = ["ACC103"]'])
    assert sorted(settings.extended_by(layer).selection.enabled_codes()) == ["ACC103"]
    assert settings.extended_by(layer).root == str(tmp_path)  # an inline layer keeps the project's folder
    with pytest.raises(ConfigError, match=r"^--config 'nope = 1': unknown option 'nope'"):
        parse_inline_options(["nope = 1"])


class _Terminal(io.StringIO):
    """A standard error that says it is a terminal, as a progress bar asks."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("named", [60, 10])
def test_a_check_of_many_files_shows_its_progress_on_a_terminal(tmp_path, monkeypatch, named):
    """As ruff's and the README's: a bar of the files analysed while a check of 50 files or more runs on a terminal
    (gone when it ends); none for fewer files."""
    from asynccfg_lint.frontends import cli

    for index in range(named):
        (tmp_path / f"m{index}.py").write_text(SINK_IMPORT + f"emit('t', 1, 2, {{'k': {{{index}}}}})\n")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "--no-cache", "-j", "1", "-q", "."]) == 1
    frames = [frame for frame in terminal.getvalue().split("\r") if frame.startswith("analysing:")]
    if named < cli.PROGRESS_MIN_FILES:
        assert frames == []
    else:
        assert frames[0] == "analysing: 0file [00:00, ?file/s]"  # expect: shown at once, before the rounds plan
        assert any(f"/{named} [" in frame for frame in frames[1:])  # expect: every file planned
        assert terminal.getvalue().endswith("\r")  # expect: the bar is cleared when the check ends
