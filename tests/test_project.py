"""Project-wide data flow: wrappers defined in one module are sinks where another module calls them;
builders and constants imported from another module are followed there.

The fixture package ``tests/fixtures/project/pkg`` writes each expected diagnostic beside its
code (``# expect: COL:CODE``); the CLI (one run over the package) and flake8 (one file at a
time, with the package's summaries and modules) must both report exactly those, ACC201 included.
A value written in another module is expected at the call or name of the checked file it
arrives through.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkKind
from asynccfg_lint.run.project import Project
from tests.expectations import FIXTURES, Expected, expected_diagnostics
from tests.frontend_runs import SINK_IMPORT, acc_rows, parse_text, run_cli, run_flake8, run_program

PROJECT = FIXTURES / "project"
PACKAGE = sorted((PROJECT / "pkg").glob("*.py"))


def expected() -> set[tuple[str, Expected]]:
    return {(f"pkg/{path.name}", e) for path in PACKAGE for e in expected_diagnostics(path)}


def test_cli_sees_wrappers_across_modules():
    result = run_cli("--isolated", "--extend-select", "ACC201", "pkg", cwd=PROJECT)
    assert {(row.path, row.expected) for row in parse_text(result.stdout)} == expected()
    assert len(expected()) == 30
    assert result.returncode == 1


def test_flake8_sees_the_packages_wrappers_one_file_at_a_time():
    result = run_flake8("--isolated", "--select", "ACC", "pkg", cwd=PROJECT)
    assert {(row.path, row.expected) for row in acc_rows(result.stdout)} == expected()


def test_a_value_of_another_module_names_where_it_is_written():
    # the CLI and flake8 print the same line: at the builder call, naming the builder's module and line
    line = ("pkg/users.py:17:38: ACC101 value for key \"schedule\" is enum.Enum member Mode, which JAX cannot "
            "serialize to JSON: lowering raises ValueError; use x.value (or x.name) (written at pkg/cfgs.py:20)")
    assert line in run_cli("--isolated", "pkg/users.py", cwd=PROJECT).stdout.splitlines()
    assert line in run_flake8("--isolated", "--select", "ACC", "pkg/users.py", cwd=PROJECT).stdout.splitlines()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fix_reports_what_arrives_from_other_modules_as_check_does(tmp_path, jobs):
    shutil.copytree(PROJECT / "pkg", tmp_path / "pkg")
    checked = run_cli("--isolated", "--no-cache", "pkg", cwd=tmp_path)
    from_other_modules = [line for line in checked.stdout.splitlines() if "(written at " in line]
    assert len(from_other_modules) == 11
    fixed = run_program("fix", "--isolated", "-j", jobs, "pkg", cwd=tmp_path)
    # none of them has a safe fix, so all are left, at the same place
    assert set(from_other_modules) <= set(fixed.stdout.splitlines())
    assert fixed.stderr.endswith(", 23 findings left (12 more fixable with --unsafe-fixes)\n")
    # the one with a fix: the name TIMEOUT_MODE is all that value may be; LOOP_MODE may also be 1 (no .value)
    data = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "json", "pkg", cwd=tmp_path).stdout)
    assert [(d["path"], d["line"], d["column"], d["fix"]["safety"], d["fix"]["replacement"])
            for d in data if "(written at " in d["message"] and d["fix"]] == [
        ("pkg/users.py", 18, 47, "unsafe", "TIMEOUT_MODE.value")]


def test_written_at_is_relative_to_where_the_run_starts(tmp_path):
    shutil.copytree(PROJECT / "pkg", tmp_path / "pkg")
    (tmp_path / "pkg" / "sub").mkdir()
    shutil.move(tmp_path / "pkg" / "users.py", tmp_path / "pkg" / "sub" / "users.py")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    users = (tmp_path / "pkg" / "sub" / "users.py")
    users.write_text(users.read_text().replace("from .", "from .."))  # its siblings are one level up now
    result = run_cli("--isolated", "--no-cache", "users.py", cwd=tmp_path / "pkg" / "sub")
    assert ("users.py:17:38: ACC101 value for key \"schedule\" is enum.Enum member Mode, which JAX cannot "
            "serialize to JSON: lowering raises ValueError; use x.value (or x.name) (written at ../cfgs.py:20)"
            ) in result.stdout.splitlines()


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
        ("pkg.wrappers.send_kw", "cfg", None, SinkKind.KEYWORDS, None),  # **cfg: the call's keywords
        # functions that call a sink and have no sink of their own: a registration in any module sees them
        ("pkg.ambiguous.lower", "**", None, SinkKind.RULE, None),
        ("pkg.lowering.lower", "**", None, SinkKind.RULE, None),
        ("pkg.users.lower", "**", None, SinkKind.RULE, None),
    }
    send_kw = next(spec for spec in Project(files).sinks(BUILTIN_SINKS) if "pkg.wrappers.send_kw" in spec.qualnames)
    assert send_kw.named == {"ctx", "x", "chunk"}


def test_values_written_in_two_modules_that_arrive_through_one_call_are_each_reported(tmp_path):
    """``base_config(dim)`` returns a member written in ``consts.py`` and a set written in ``builders.py``: two
    findings at the call, one per place written (the second was dropped as a repeat of the call's finding)."""
    from asynccfg_lint.run.tasks import CheckSettings

    package = tmp_path / "pkg"
    package.mkdir()
    sources = {
        "__init__": "",
        "consts": "import enum\n\n\nclass Mode(enum.Enum):\n    PUSH = 'push'\n\n\nMODE = Mode.PUSH\n",
        "builders": "from pkg.consts import MODE\n\n\ndef base_config(dim):\n"
                    "    return {'dim': dim, 'mode': MODE, 'extra': {1, 2}}\n",
        "rules": SINK_IMPORT + "from pkg.builders import base_config\n\n\ndef lower(ctx, x, dim):\n"
                 "    return emit('all-gather-start', ctx, x, base_config(dim))\n",
    }
    for name, text in sources.items():
        (package / f"{name}.py").write_text(text)
    rules = str(package / "rules.py")
    outcome = Project(sorted(str(path) for path in package.glob("*.py"))).analyse(BUILTIN_SINKS, {rules: CheckSettings()})
    assert [(d.line, d.column, d.code, d.message.rpartition("(written at ")[2]) for d in outcome[rules].diagnostics] == [
        (6, 45, "ACC101", f"{package / 'builders.py'}:5)"), (6, 45, "ACC101", f"{package / 'consts.py'}:8)")]  # (one place: by message)


def test_a_single_file_without_the_package_sees_no_wrapper(tmp_path):
    # outside its package the caller's imports resolve to nothing the checker knows: no guess
    lowering = tmp_path / "lowering.py"
    lowering.write_text(Path(PROJECT / "pkg" / "lowering.py").read_text().replace("from .wrappers", "from wrappers"))
    result = run_cli("--isolated", "lowering.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


@pytest.mark.parametrize("name", ["lowering.py", "users.py"])
def test_cli_on_one_file_of_the_package_sees_its_siblings(name):
    # pre-commit passes only the changed files: the package's wrappers, builders and constants are seen
    result = run_cli("--isolated", f"pkg/{name}", cwd=PROJECT)
    own = {e for path, e in expected() if path == f"pkg/{name}" and e.code != "ACC201"}
    assert {row.expected for row in parse_text(result.stdout)} == own
    assert {row.path for row in parse_text(result.stdout)} == {f"pkg/{name}"}


def test_flake8_on_one_file_reads_the_modules_it_imports_from():
    result = run_flake8("--isolated", "--select", "ACC", "pkg/users.py", cwd=PROJECT)
    assert {row.expected for row in acc_rows(result.stdout)} == {e for path, e in expected() if path == "pkg/users.py"}


def test_without_the_project_imported_builders_stay_unknown(tmp_path):
    # users.py alone (its package's other modules absent): nothing written elsewhere is guessed
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "users.py").write_text((PROJECT / "pkg" / "users.py").read_text())
    result = run_cli("--isolated", "pkg/users.py", cwd=tmp_path)
    # the builders are unknown, so not even the arguments written here can be placed in a config
    assert (result.returncode, result.stdout) == (0, "")
    with_unknowns = run_cli("--isolated", "--extend-select", "ACC201", "pkg/users.py", cwd=tmp_path)
    assert {row.code for row in parse_text(with_unknowns.stdout)} == {"ACC201"}


def test_a_builder_in_a_deep_module_is_followed(tmp_path):
    """A shallow file whose config comes from a module 2 500 levels deep: its analysis recursed too deep on the
    default stack (an internal error before) and runs again on the large stack (ParsedModule.run)."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    chain = " + ".join(["x"] * 2_500)
    (package / "deep.py").write_text(
        f'import numpy as np\n\n\ndef make(x):\n    y = {chain}\n    return {{"scale": float("nan")}}\n')
    (package / "user.py").write_text(
        "from jax._src.lax.parallel import _emit_async_start_custom_call\nfrom pkg.deep import make\n\n\n"
        'def lower(ctx, x):\n    return _emit_async_start_custom_call("all-gather-start", ctx, x, make(x))\n')
    result = run_cli("--isolated", "pkg/user.py", cwd=tmp_path)
    rows = [(row.path, row.line, row.column, row.code) for row in parse_text(result.stdout)]
    assert rows == [("pkg/user.py", 6, 70, "ACC103")]  # expect: the builder's NaN, at the call that uses it
    assert "written at pkg/deep.py:6" in result.stdout


def test_package_sinks_of_a_file_in_a_package_and_of_a_loose_one(tmp_path):
    """The one place the flake8 plugin, the CLI's stdin and the codemod find a file's package and its wrappers."""
    from asynccfg_lint.run.project import package_sinks

    lowering = PROJECT / "pkg" / "lowering.py"
    sinks, project, root = package_sinks(str(lowering), BUILTIN_SINKS, lowering.read_text(encoding="utf-8"))
    assert root == str(PROJECT / "pkg")
    assert project is not None and sorted(project.files) == sorted(str(p) for p in PACKAGE)
    assert "pkg.wrappers.send_tiled" in {name for spec in sinks[len(BUILTIN_SINKS):] for name in spec.qualnames}
    assert sinks[:len(BUILTIN_SINKS)] == tuple(BUILTIN_SINKS)
    loose = tmp_path / "m.py"
    loose.write_text("x = 1\n", encoding="utf-8")
    assert package_sinks(str(loose), BUILTIN_SINKS) == (tuple(BUILTIN_SINKS), None, None)
    assert package_sinks("-", BUILTIN_SINKS, "x = 1\n") == (tuple(BUILTIN_SINKS), None, None)


def test_a_module_asked_about_many_words_answers_as_one_search_each(tmp_path):
    """``mentions`` and ``naming`` list a file's identifiers once it has been asked about many (a module
    of 1,000 rules is asked about each primitive): the answers stay those of a ``\\b`` search."""
    from asynccfg_lint.run.project import SEARCHES_BEFORE_WORDS

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    rules = package / "rules.py"
    rules.write_text("".join(f"p{i} = Primitive('p{i}')\n" for i in range(40)) + "café = p1.bind\n", encoding="utf-8")
    (package / "other.py").write_text("from .rules import p3\n", encoding="utf-8")
    project = Project(sorted(str(p) for p in package.glob("*.py")))
    asked = [f"p{i}" for i in range(SEARCHES_BEFORE_WORDS + 20)]
    # before and after the listing: p0..p39 are words, p40.. are not, "p" and "Prim" only substrings
    assert [project.mentions("pkg.rules", word) for word in asked] == [i < 40 for i in range(len(asked))]
    assert project.mentions("pkg.rules", "p") is False and project.mentions("pkg.rules", "Prim") is False
    assert project.mentions("pkg.rules", "café") is False  # as `\bcafé\b` in the bytes: é is no ASCII word character
    assert project.mentions("pkg.missing", "p1") is None
    assert [project.naming(f"p{i}") for i in range(2, 5)] == [("pkg.rules",), ("pkg.other", "pkg.rules"), ("pkg.rules",)]
    rules.write_text("q = 1\n", encoding="utf-8")
    project.forget(str(rules))
    assert project.mentions("pkg.rules", "p1") is False and project.mentions("pkg.rules", "q") is True


def test_the_package_of_a_file_is_its_outermost_init_chain_however_deep(tmp_path):
    import inspect
    import sys

    from asynccfg_lint.run.project import package_root

    folder = tmp_path / "outer"
    (folder / "plain").mkdir(parents=True)  # (no __init__.py: the chain starts below it)
    folder = folder / "plain"
    for _ in range(300):
        folder = folder / "p"
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (folder / "leaf.py").write_text("")
    folders: dict[str, str | None] = {}
    expected = str(tmp_path / "outer" / "plain" / "p")
    limit = sys.getrecursionlimit()
    # (a recursion per folder ended in RecursionError near 990 nested packages, trial 18: here 300 under a limit of
    # 100 frames above this one; the folders stay few enough for pytest's own clean-up, which recurses per folder)
    sys.setrecursionlimit(len(inspect.stack()) + 100)
    try:
        found = package_root(str(folder / "leaf.py"), folders)
    finally:
        sys.setrecursionlimit(limit)
    assert found == expected
    assert folders[str(tmp_path / "outer" / "plain")] is None  # expect: the folder above the chain, asked once
    assert package_root(str(folder.parent / "__init__.py"), folders) == expected  # expect: from the memo
    assert package_root(str(tmp_path / "outer" / "plain" / "loose.py")) is None  # expect: its folder's, none
