"""Project-wide data flow: wrappers defined in one module are sinks where another module calls them.

The fixture package ``tests/fixtures/project/pkg`` writes each expected diagnostic beside its
code (``# expect: COL:CODE``); the CLI (one run over the package) and flake8 (one file at a
time, with the package's summaries) must both report exactly those.
"""

from __future__ import annotations

from pathlib import Path

from asynccfg_lint.jax_facts import BUILTIN_SINKS, SinkKind
from asynccfg_lint.project import Project
from tests.expectations import FIXTURES, Expected, expected_diagnostics
from tests.frontend_runs import acc_rows, parse_text, run_cli, run_flake8

PROJECT = FIXTURES / "project"
PACKAGE = sorted((PROJECT / "pkg").glob("*.py"))


def expected() -> set[tuple[str, Expected]]:
    return {(f"pkg/{path.name}", e) for path in PACKAGE for e in expected_diagnostics(path)}


def test_cli_sees_wrappers_across_modules():
    result = run_cli("--isolated", "pkg", cwd=PROJECT)
    assert {(row.path, row.expected) for row in parse_text(result.stdout)} == expected()
    assert len(expected()) == 4
    assert result.returncode == 1


def test_flake8_sees_the_packages_wrappers_one_file_at_a_time():
    result = run_flake8("--isolated", "--select", "ACC", "pkg", cwd=PROJECT)
    assert {(row.path, row.expected) for row in acc_rows(result.stdout)} == expected()


def test_summaries_of_the_package():
    files = [str(path) for path in PACKAGE]
    derived = {
        (name, spec.param, spec.position, spec.kind, spec.key)
        for spec in Project(files).sinks(BUILTIN_SINKS) if spec not in BUILTIN_SINKS for name in spec.qualnames
    }
    assert derived == {
        ("pkg.wrappers.send", "cfg", 2, SinkKind.CONFIG, None),
        ("pkg.wrappers.send_tiled", "tiled", 2, SinkKind.VALUE, "tiled"),
        ("pkg.wrappers.send_later", "cfg", 2, SinkKind.CONFIG, None),  # recursive, still one summary
    }


def test_a_single_file_without_the_package_sees_no_wrapper(tmp_path):
    # outside its package the caller's imports resolve to nothing the checker knows: no guess
    lowering = tmp_path / "lowering.py"
    lowering.write_text(Path(PROJECT / "pkg" / "lowering.py").read_text().replace("from .wrappers", "from wrappers"))
    result = run_cli("--isolated", "lowering.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_cli_on_one_file_of_the_package_sees_its_siblings_wrappers():
    # pre-commit passes only the changed files: the package is summarised all the same
    result = run_cli("--isolated", "pkg/lowering.py", cwd=PROJECT)
    lowering = {e for path, e in expected() if path == "pkg/lowering.py"}
    assert {row.expected for row in parse_text(result.stdout)} == lowering
    assert {row.path for row in parse_text(result.stdout)} == {"pkg/lowering.py"}
