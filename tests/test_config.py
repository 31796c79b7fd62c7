"""``[tool.asynccfg-lint]`` configuration through the real CLI in a subprocess: discovery, layering
with the command line, per-file ignores, exclusion, extra sinks, sanitizers and errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.frontend_runs import COVERAGE_LINE, SINK_IMPORT, parse_text, run_cli, run_program

#: ACC101 at 2:23 (a set), ACC103 at 3:27 (math.inf)
TWO_FINDINGS = SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\nemit("t", 1, 2, {"scale": 1e999})\n'


def write(root: Path, files: dict[str, str]) -> None:
    """Create ``files`` (relative path -> text, dedented) under ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def rows(*args: str, cwd: Path) -> list[tuple[str, int, int, str]]:
    """Run ``check ARGS`` in ``cwd`` and return ``(path, line, column, code)`` of each printed diagnostic."""
    result = run_cli(*args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    assert COVERAGE_LINE.fullmatch(result.stderr), result.stderr  # no warning, only what was verified
    return [(r.path, r.line, r.column, r.code) for r in parse_text(result.stdout)]


def test_nearest_pyproject_with_the_table_is_used_walking_up_from_the_file(tmp_path):
    write(tmp_path, {
        "proj/pyproject.toml": """
            [project]
            name = "proj"

            [tool.asynccfg-lint]
            ignore = ["ACC101"]
        """,
        # a pyproject.toml without the table is passed over, as ruff passes over one without [tool.ruff]
        "proj/pkg/pyproject.toml": '[project]\nname = "inner"\n',
        "proj/pkg/m.py": TWO_FINDINGS,
    })
    assert rows("proj", cwd=tmp_path) == [("proj/pkg/m.py", 3, 27, "ACC103")]
    assert rows("m.py", cwd=tmp_path / "proj" / "pkg") == [("m.py", 3, 27, "ACC103")]
    assert rows("--isolated", "proj", cwd=tmp_path) == [("proj/pkg/m.py", 2, 23, "ACC101"), ("proj/pkg/m.py", 3, 27, "ACC103")]


def test_the_closest_configuration_wins_without_merging(tmp_path):
    """As ruff: a sub-project's table replaces the outer one for its files; nothing is inherited."""
    write(tmp_path, {
        "pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC101"]\n',
        "a.py": TWO_FINDINGS,
        "sub/pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC103"]\n',
        "sub/b.py": TWO_FINDINGS,
    })
    assert rows(".", cwd=tmp_path) == [("./a.py", 3, 27, "ACC103"), ("./sub/b.py", 2, 23, "ACC101")]


def test_files_outside_every_project_use_the_configuration_of_the_current_directory(tmp_path):
    write(tmp_path, {
        "work/pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC103"]\n',
        "elsewhere/m.py": TWO_FINDINGS,
    })
    assert rows("../elsewhere/m.py", cwd=tmp_path / "work") == [("../elsewhere/m.py", 2, 23, "ACC101")]


@pytest.mark.parametrize(
    ("table", "options", "expected"),
    [
        ('ignore = ["ACC101"]', ["--extend-select", "ACC101"], [(2, 23, "ACC101"), (3, 27, "ACC103")]),
        ('select = ["ACC103"]', ["--ignore", "ACC103"], []),
        ('select = ["ACC103"]', ["--select", "ACC101"], [(2, 23, "ACC101")]),
        ('extend-select = ["ACC201"]\nignore = ["ACC1"]', [], []),
        ('ignore = ["ACC1"]', ["--extend-select", "ACC103"], [(3, 27, "ACC103")]),
        # a layer's ignore removes codes a lower layer selected, whatever the prefix length (ruff)
        ("", ["--ignore", "ACC"], []),
    ],
    ids=["cli-extend-select-over-file-ignore", "cli-ignore-over-file-select", "cli-select-replaces",
         "file-only", "cli-adds-one-back", "ignore-all"],
)
def test_command_line_options_are_a_layer_over_the_file(tmp_path, table, options, expected):
    write(tmp_path, {"pyproject.toml": f"[tool.asynccfg-lint]\n{table}\n", "m.py": TWO_FINDINGS})
    assert [(line, column, code) for _, line, column, code in rows(*options, "m.py", cwd=tmp_path)] == expected


def test_per_file_ignores(tmp_path):
    write(tmp_path, {
        "pyproject.toml": """
            [tool.asynccfg-lint.per-file-ignores]
            "tests/**" = ["ACC1"]
            "__init__.py" = ["ACC101"]
            "!src/**" = ["ACC103"]
        """,
        "src/pkg/__init__.py": TWO_FINDINGS,
        "src/pkg/mod.py": TWO_FINDINGS,
        "tests/deep/test_x.py": TWO_FINDINGS,
        "scripts/run.py": TWO_FINDINGS,
    })
    assert rows(".", cwd=tmp_path) == [
        ("./scripts/run.py", 2, 23, "ACC101"),  # outside src/: "!src/**" ignores ACC103
        ("./src/pkg/__init__.py", 3, 27, "ACC103"),  # the name matches "__init__.py" in any folder
        ("./src/pkg/mod.py", 2, 23, "ACC101"),
        ("./src/pkg/mod.py", 3, 27, "ACC103"),
    ]


def test_per_file_ignores_apply_to_stdin_by_its_filename(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.asynccfg-lint.per-file-ignores]\n"gen/*.py" = ["ACC101"]\n'})
    named = run_cli("--stdin-filename", "gen/m.py", "-", cwd=tmp_path, stdin=TWO_FINDINGS.encode())
    assert [(r.path, r.line, r.code) for r in parse_text(named.stdout)] == [("gen/m.py", 3, "ACC103")]
    other = run_cli("--stdin-filename", "src/m.py", cwd=tmp_path, stdin=TWO_FINDINGS.encode())
    assert [(r.path, r.line, r.code) for r in parse_text(other.stdout)] == [("src/m.py", 2, "ACC101"), ("src/m.py", 3, "ACC103")]


def test_exclude_and_extend_exclude(tmp_path):
    files = {
        relative: TWO_FINDINGS
        for relative in ["pkg/mod.py", "generated/out.py", "legacy/old.py", "legacy/sub/keep.py", "build/lib.py"]
    }
    write(tmp_path, {**files, "pyproject.toml": '[tool.asynccfg-lint]\nextend-exclude = ["generated", "legacy/*.py"]\nselect = ["ACC101"]\n'})
    assert [r[0] for r in rows(".", cwd=tmp_path)] == ["./legacy/sub/keep.py", "./pkg/mod.py"]
    # `exclude` replaces the default list, so build/ is walked again
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nexclude = ["pkg"]\nselect = ["ACC101"]\n')
    assert [r[0] for r in rows(".", cwd=tmp_path)] == [
        "./build/lib.py", "./generated/out.py", "./legacy/old.py", "./legacy/sub/keep.py",
    ]
    # on the command line: --exclude replaces the file's, --extend-exclude adds (globs relative to the current directory)
    assert [r[0] for r in rows("--exclude", "build,legacy", "--extend-exclude", "generated/*.py", ".", cwd=tmp_path)] == [
        "./pkg/mod.py",
    ]


def test_a_file_named_on_the_command_line_is_excluded_only_with_force_exclude(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.asynccfg-lint]\nextend-exclude = ["generated"]\n', "generated/out.py": TWO_FINDINGS})
    assert len(rows("generated/out.py", cwd=tmp_path)) == 2
    assert rows("--force-exclude", "generated/out.py", cwd=tmp_path) == []
    assert rows("--force-exclude", "generated", cwd=tmp_path) == []
    stdin = run_cli("--force-exclude", "--stdin-filename", "generated/x.py", cwd=tmp_path, stdin=TWO_FINDINGS.encode())
    assert (stdin.returncode, stdin.stdout) == (0, "")


def test_config_option_uses_one_file_for_everything(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC103"]\n',
        "ci/lint.toml": 'ignore = ["ACC101"]\nextend-exclude = ["skip"]\n',  # a standalone file: options at the top level
        "ci/pyproject.toml": '[tool.asynccfg-lint]\nselect = ["ACC103"]\nextend-exclude = ["m.py"]\n',
        "m.py": TWO_FINDINGS,
        "skip/n.py": TWO_FINDINGS,
    })
    assert rows(".", cwd=tmp_path) == [("./m.py", 2, 23, "ACC101"), ("./skip/n.py", 2, 23, "ACC101")]
    assert rows("--config", "ci/lint.toml", ".", cwd=tmp_path) == [("./m.py", 3, 27, "ACC103")]
    assert rows("--config", "ci/pyproject.toml", "skip", cwd=tmp_path) == [("skip/n.py", 3, 27, "ACC103")]
    assert rows("--config", "ci/pyproject.toml", ".", cwd=tmp_path) == [("./skip/n.py", 3, 27, "ACC103")]


EXTRA_SINK_MODULE = """\
import numpy as np
from mypkg.collectives import emit_start
from mypkg import collectives as C
from mypkg.jsonsafe import sanitize


def as_groups(groups):
    return set(groups)


def lower(ctx, x, raw):
    emit_start("all-gather-start", ctx, x, {"tiled": np.bool_(True)})
    C.emit_start("t", ctx, x, cfg={"groups": {1, 2}})
    C.emit_keyword(ctx, cfg={"n": np.bool_(False)})
    emit_start("t", ctx, x, {"a": sanitize(raw), "g": as_groups(raw)})
    emit_start("t", ctx, x, sanitize({"c": {1}}))
    cleaned = sanitize({"d": {1}})
    emit_start("t", ctx, x, cleaned)
"""


def test_extra_sinks_and_sanitizers(tmp_path):
    """The module never names JAX's sink: only the extra sinks' short names let it past the prefilter."""
    write(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": EXTRA_SINK_MODULE})
    assert rows("pkg", cwd=tmp_path) == []
    write(tmp_path, {"pyproject.toml": """
        [tool.asynccfg-lint]
        extra-sinks = ["mypkg.collectives.emit_start:cfg@3", "mypkg.collectives.emit_keyword:cfg"]
    """})
    found = [
        ("pkg/m.py", 8, 12, "ACC101"),  # the set as_groups returns, through "g"
        ("pkg/m.py", 12, 54, "ACC101"),  # np.bool_(True), positional argument 3
        ("pkg/m.py", 13, 46, "ACC101"),  # {1, 2}, keyword cfg=, through a module alias
        ("pkg/m.py", 14, 35, "ACC101"),  # a sink without a position: keyword only
    ]
    assert rows("pkg", cwd=tmp_path) == found
    assert [row[1:] for row in rows("--select", "ACC201", "pkg", cwd=tmp_path)] == [
        (15, 35, "ACC201"),  # sanitize(raw): unknown
        (16, 29, "ACC201"),  # sanitize({...}): the config cannot be traced
        (18, 29, "ACC201"),  # cleaned = sanitize({...})
    ]
    with (tmp_path / "pyproject.toml").open("a") as handle:
        handle.write('sanitizers = ["mypkg.jsonsafe.sanitize", "pkg.m.as_groups"]\n')
    assert rows("pkg", cwd=tmp_path) == found[1:]
    assert rows("--select", "ACC201", "pkg", cwd=tmp_path) == []


def test_unsafe_fixes_from_the_file_and_the_command_line(tmp_path):
    source = (
        "import enum\n" + SINK_IMPORT
        + "class Mode(enum.Enum):\n    RING = 'ring'\n"
        + 'emit("t", 1, 2, {"mode": Mode.RING})\n'
    )
    write(tmp_path, {"pyproject.toml": "[tool.asynccfg-lint]\nunsafe-fixes = true\n", "m.py": source})
    kept = run_program("fix", "--no-unsafe-fixes", "m.py", cwd=tmp_path)
    assert kept.returncode == 1
    assert (tmp_path / "m.py").read_text() == source
    assert kept.stderr.endswith("1 file scanned, 0 files changed, 0 fixes applied, 1 finding left (1 more fixable with --unsafe-fixes)\n")
    fixed = run_program("fix", "m.py", cwd=tmp_path)
    assert (fixed.returncode, fixed.stdout) == (0, "")
    assert (tmp_path / "m.py").read_text() == source.replace("Mode.RING}", "Mode.RING.value}")


def test_fix_honours_per_file_ignores_and_extra_sinks(tmp_path):
    source = "import numpy as np\nfrom mypkg import send\nsend(1, {'a': np.bool_(True)})\n"
    write(tmp_path, {
        "pyproject.toml": """
            [tool.asynccfg-lint]
            extra-sinks = ["mypkg.send:cfg@1"]
            per-file-ignores = { "keep.py" = ["ACC101"] }
        """,
        "fixme.py": source,
        "keep.py": source,
    })
    result = run_program("fix", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "fixme.py").read_text() == source.replace("np.bool_(True)", "bool(np.bool_(True))")
    assert (tmp_path / "keep.py").read_text() == source


def test_fix_reports_a_missing_path_and_fixes_the_others(tmp_path):
    source = "import numpy as np\n" + SINK_IMPORT + 'emit("t", 1, 2, {"a": np.bool_(True)})\n'
    write(tmp_path, {"m.py": source})
    result = run_program("fix", "gone.py", "m.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == "gone.py:1:1: ACC001 file not analysed: No such file or directory\n"
    assert (tmp_path / "m.py").read_text() == source.replace("np.bool_(True)", "bool(np.bool_(True))")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.asynccfg-lint]\nselct = []\n", "[tool.asynccfg-lint]: unknown option 'selct'; known options: select, "),
        ('[tool.asynccfg-lint]\nselect = "ACC1"\n', "[tool.asynccfg-lint]: select: expected a list of strings, got 'ACC1'"),
        ('[tool.asynccfg-lint]\nignore = ["E501"]\n', "[tool.asynccfg-lint]: ignore: unknown rule code or prefix 'E501'"),
        ("[tool.asynccfg-lint]\nunsafe-fixes = 1\n", "[tool.asynccfg-lint]: unsafe-fixes: expected true or false, got 1"),
        ('[tool.asynccfg-lint]\nextra-sinks = ["mypkg.send"]\n',
         "[tool.asynccfg-lint]: extra-sinks: 'mypkg.send' is not QUALIFIED.NAME:PARAMETER"),
        ('[tool.asynccfg-lint]\nextra-sinks = ["mypkg.send:cfg@x"]\n', "extra-sinks: 'mypkg.send:cfg@x' is not"),
        ('[tool.asynccfg-lint]\nsanitizers = ["my-pkg.clean"]\n',
         "[tool.asynccfg-lint]: sanitizers: 'my-pkg.clean' is not a qualified name"),
        ('[tool.asynccfg-lint]\nper-file-ignores = ["x"]\n', "per-file-ignores: expected a table of glob = [codes]"),
        ('[tool.asynccfg-lint]\nper-file-ignores = { "a/*" = ["ACC9"] }\n', "unknown rule code or prefix 'ACC9'"),
        # pathspec rejects these gitignore patterns: the file and the key are named, no traceback
        ('[tool.asynccfg-lint]\nextend-exclude = ["gen\\\\"]\n', "[tool.asynccfg-lint]: extend-exclude: invalid glob 'gen\\\\'"),
        ('[tool.asynccfg-lint]\nexclude = ["!"]\n', "[tool.asynccfg-lint]: exclude: invalid glob '!'"),
        ('[tool.asynccfg-lint.per-file-ignores]\n"[z-a].py" = ["ACC1"]\n',
         "[tool.asynccfg-lint]: per-file-ignores.'[z-a].py': invalid glob '[z-a].py': bad character range z-a\n"),
        ("[tool.asynccfg-lint\nselect = []\n", "pyproject.toml: invalid TOML: "),
    ],
)
def test_configuration_errors_exit_2_with_a_message(tmp_path, text, message):
    write(tmp_path, {"pyproject.toml": text, "m.py": TWO_FINDINGS})
    for command in (["check"], ["fix"]):
        result = run_program(*command, "m.py", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.startswith(f"asynccfg-lint: error: {tmp_path / 'pyproject.toml'}: "), result.stderr
        assert message in result.stderr
        assert "Traceback" not in result.stderr
    assert (tmp_path / "m.py").read_text() == TWO_FINDINGS


def test_an_invalid_pyproject_is_ignored_with_isolated(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.asynccfg-lint]\nselct = []\n", "m.py": TWO_FINDINGS})
    assert len(rows("--isolated", "m.py", cwd=tmp_path)) == 2


def test_config_file_that_does_not_exist_exits_2(tmp_path):
    result = run_cli("--config", "nope.toml", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == "asynccfg-lint: error: nope.toml: cannot read: No such file or directory\n"


def test_types_table_adds_catalog_rows(tmp_path):
    """`[tool.asynccfg-lint.types]`: a user's function whose result is a catalog type gets that type's verdict."""
    source = (
        "from mypkg.io import cache_root, run_id\n" + SINK_IMPORT
        + 'emit("t", 1, 2, {"root": cache_root(), "run": run_id(), "name": cache_root().name})\n'
    )
    write(tmp_path, {"pkg/__init__.py": "", "pkg/m.py": source})
    assert rows("--select", "ACC", "pkg", cwd=tmp_path) == [
        ("pkg/m.py", 3, 26, "ACC201"), ("pkg/m.py", 3, 47, "ACC201"), ("pkg/m.py", 3, 65, "ACC201")]
    write(tmp_path, {"pyproject.toml": """
        [tool.asynccfg-lint.types]
        "mypkg.io.cache_root" = "pathlib.Path"
        "mypkg.io.run_id" = "uuid.UUID"
    """})
    # the path and the UUID are rejected; the path's .name is a str (a member of the catalog type)
    assert rows("--select", "ACC", "pkg", cwd=tmp_path) == [("pkg/m.py", 3, 26, "ACC101"), ("pkg/m.py", 3, 47, "ACC101")]
    write(tmp_path, {"pyproject.toml": """
        [tool.asynccfg-lint.types]
        "mypkg.io.cache_root" = "no.such.Type"
    """})
    result = run_cli("pkg", cwd=tmp_path)
    assert result.returncode == 2
    assert "types: 'mypkg.io.cache_root': 'no.such.Type' is not a catalog type" in result.stderr
