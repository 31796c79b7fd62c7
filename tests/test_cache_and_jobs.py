"""The result cache, ``check -j`` and the lazy start-up, through the real CLI in a subprocess.

A warm run must print exactly what the cold run printed, from the cache alone; anything a
result depends on (the file's bytes, the selection, the wrappers it calls) must change the key.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from asynccfg_lint.run.project import POOL_THRESHOLD_BYTES
from tests.cache_entries import overwrite, stored
from tests.expectations import expected_diagnostics
from tests.frontend_runs import CLI_FIXTURES, SINK_IMPORT, cli_fixtures, parse_text, run_cli, run_program
from tests.test_project import PROJECT, expected


def copy_fixtures(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(CLI_FIXTURES, tree, ignore=shutil.ignore_patterns(".asynccfg_lint_cache"))
    return tree


def test_a_warm_run_prints_what_the_cold_run_printed(tmp_path):
    tree = copy_fixtures(tmp_path)
    cache = tmp_path / "cache"
    cold = run_cli("--isolated", "--cache-dir", str(cache), "findings.py", "clean.py", cwd=tree)
    assert sorted(row.expected for row in parse_text(cold.stdout)) == sorted(expected_diagnostics(tree / "findings.py"))
    outcomes = stored(cache)
    # per file (both name the sink): its outcome, and its wrappers under the key of a summary-only
    # task, which a later run that only summarises it (a sibling of a checked file) reads
    assert len(outcomes) == 4
    # expect: every entry in one database file, no file per entry
    assert sorted(path.name for path in cache.rglob("*") if path.is_file()) == [".gitignore", "CACHEDIR.TAG",
                                                                                "entries.sqlite"]
    warm = run_cli("--isolated", "--cache-dir", str(cache), "findings.py", "clean.py", cwd=tree)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert stored(cache) == outcomes
    assert (cache / ".gitignore").read_text() == "# created by asynccfg-lint\n*\n"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_an_edited_file_is_analysed_again(tmp_path):
    module = tmp_path / "mod.py"
    module.write_text(SINK_IMPORT + 'emit("t", 0, 0, {"groups": {1, 2}})\n')  # the set: line 2, column 28
    cache = tmp_path / "cache"
    first = run_cli("--isolated", "--cache-dir", str(cache), "mod.py", cwd=tmp_path)
    assert first.stdout.startswith("mod.py:2:28: ACC101 ")
    module.write_text(SINK_IMPORT + 'emit("t", 0, 0, {"groups": sorted({1, 2})})\n')
    second = run_cli("--isolated", "--cache-dir", str(cache), "mod.py", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (0, "")
    assert len(stored(cache)) == 4  # each version: its outcome and its summary's


def test_the_selection_is_part_of_the_key(tmp_path):
    (tmp_path / "mod.py").write_text(SINK_IMPORT + "def lower(cfg):\n    emit('t', 0, 0, make())\n")
    cache = tmp_path / "cache"
    default = run_cli("--isolated", "--cache-dir", str(cache), "mod.py", cwd=tmp_path)
    assert (default.returncode, default.stdout) == (0, "")
    opted_in = run_cli("--isolated", "--cache-dir", str(cache), "--extend-select", "ACC201", "mod.py", cwd=tmp_path)
    assert opted_in.stdout.startswith("mod.py:3:21: ACC201 ")  # `make()` at line 3, column 21


def test_a_malformed_entry_is_a_miss(tmp_path):
    tree = copy_fixtures(tmp_path)
    cache = tmp_path / "cache"
    cold = run_cli("--isolated", "--cache-dir", str(cache), ".", cwd=tree)
    assert stored(cache)
    for key in stored(cache):
        overwrite(cache, "outcomes", key, b'{"diagnostics": [{"path": 1}]')  # truncated JSON
    again = run_cli("--isolated", "--cache-dir", str(cache), ".", cwd=tree)
    assert (again.returncode, again.stdout) == (cold.returncode, cold.stdout)


def test_no_cache_writes_nothing_and_clean_removes_the_folder(tmp_path):
    tree = copy_fixtures(tmp_path)
    result = run_cli("--isolated", "--no-cache", "--cache-dir", "c", ".", cwd=tree)
    assert result.returncode == 1 and not (tree / "c").exists()
    run_cli("--isolated", ".", cwd=tree, env={"ASYNCCFG_LINT_CACHE_DIR": ""})  # the default folder
    assert (tree / ".asynccfg_lint_cache" / "CACHEDIR.TAG").is_file()
    cleaned = run_program("clean", cwd=tree, env={"ASYNCCFG_LINT_CACHE_DIR": ""})
    assert (cleaned.returncode, cleaned.stderr) == (0, "removed .asynccfg_lint_cache\n")
    assert not (tree / ".asynccfg_lint_cache").exists()
    again = run_program("clean", cwd=tree, env={"ASYNCCFG_LINT_CACHE_DIR": ""})
    assert (again.returncode, again.stderr) == (0, "no cache at .asynccfg_lint_cache\n")


def test_the_default_cache_is_in_the_project_root(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    source = tmp_path / "src" / "deep"
    source.mkdir(parents=True)
    (source / "mod.py").write_text(SINK_IMPORT + 'emit("t", 0, 0, {"groups": {1, 2}})\n')
    result = run_cli("--isolated", "mod.py", cwd=source, env={"ASYNCCFG_LINT_CACHE_DIR": ""})
    assert result.stdout.startswith("mod.py:2:28: ACC101 ")
    assert (tmp_path / ".asynccfg_lint_cache" / "CACHEDIR.TAG").is_file()
    assert not (source / ".asynccfg_lint_cache").exists()
    cleaned = run_program("clean", cwd=source, env={"ASYNCCFG_LINT_CACHE_DIR": ""})
    assert cleaned.stderr == f"removed {tmp_path / '.asynccfg_lint_cache'}\n"


def test_clean_removes_only_a_cache_it_created(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.txt").write_text("precious")
    for folder in (str(project), "."):  # a mistyped --cache-dir, or the working directory itself
        refused = run_program("clean", "--cache-dir", folder, cwd=project)
        assert refused.returncode == 2
        assert refused.stderr == (f"asynccfg-lint: error: {folder} is not an asynccfg-lint cache (it has no "
                                  "CACHEDIR.TAG written by asynccfg-lint); nothing removed\n")
    assert (project / "data.txt").read_text() == "precious"


def test_two_jobs_print_what_one_job_prints(tmp_path):
    tree = copy_fixtures(tmp_path)
    shutil.copytree(PROJECT / "pkg", tree / "pkg")  # wrappers across modules: several rounds
    copies = [f"findings_{index}.py" for index in range(70)]  # enough source for a pool to pay off
    for name in copies:
        shutil.copyfile(tree / "findings.py", tree / name)
    assert sum(path.stat().st_size for path in tree.rglob("*.py")) > POOL_THRESHOLD_BYTES
    # builders in other modules: each worker reads them from its own view of the project
    one = run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "-j", "1", ".", cwd=tree)
    two = run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "-j", "2", ".", cwd=tree)
    printed = {(row.path[2:], row.expected) for row in parse_text(one.stdout)}  # paths under "." print as ./name
    fixtures = {(path.name, e) for path in cli_fixtures() for e in expected_diagnostics(path)}
    fixtures |= {(name, e) for name in copies for e in expected_diagnostics(CLI_FIXTURES / "findings.py")}
    assert printed == fixtures | expected()
    assert (two.returncode, two.stdout, two.stderr) == (one.returncode, one.stdout, one.stderr)


def test_a_cached_outcome_is_not_used_once_a_module_it_read_changed(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "cfgs.py").write_text('def make():\n    return {"groups": {1, 2}}\n')
    (package / "use.py").write_text("from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
                                    "from pkg.cfgs import make\n"
                                    "emit('t', 0, 0, make())\n")  # the set in cfgs.py arrives through make(): 3:17
    first = run_cli("--isolated", "--cache-dir", "c", "pkg/use.py", cwd=tmp_path)
    assert first.stdout.startswith("pkg/use.py:3:17: ACC101 ")
    (package / "cfgs.py").write_text('def make():\n    return {"groups": [1, 2]}\n')
    second = run_cli("--isolated", "--cache-dir", "c", "pkg/use.py", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (0, "")


def test_a_cached_rule_outcome_sees_a_file_that_starts_binding_its_primitive(tmp_path):
    """Whether a rule's primitive is bound anywhere depends on every file of the package, also one
    added after the cached run: the ACC201 of its parameter goes when a module binds it, and comes back."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "programs" / "extpkg", tmp_path / "extpkg")
    args = ("--isolated", "--cache-dir", "c", "--extend-select", "ACC201", "extpkg/primitives.py")

    def unknown() -> list[tuple[int, int]]:
        return [(row.line, row.column) for row in parse_text(run_cli(*args, cwd=tmp_path).stdout) if row.code == "ACC201"]

    assert unknown() == [(43, 88)]  # relay_start_p: no module of the package binds it
    (tmp_path / "extpkg" / "relay.py").write_text(
        "from .primitives import relay_start_p\n\n\ndef relay(x):\n    return relay_start_p.bind(x, depth=1)\n")
    assert unknown() == []
    (tmp_path / "extpkg" / "relay.py").unlink()
    assert unknown() == [(43, 88)]


def test_a_cached_outcome_sees_the_helper_of_another_module_change(tmp_path):
    """A helper of another module that returns its parameter (``to_json_intenum(v)``, narrowed with
    ``isinstance``) is followed with this call's argument; its module is a dependency of the result."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = "import enum\n\n\ndef to_json(v):\n    if isinstance(v, enum.{}):\n        return v.value\n    return v\n"
    (package / "helpers.py").write_text(helper.format("IntEnum"))
    (package / "use.py").write_text("import enum\n"
                                    "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
                                    "from pkg.helpers import to_json\n"
                                    "class Kind(enum.Enum):\n    PUSH = 'push'\n"
                                    "emit('t', 0, 0, {'mode': to_json(Kind.PUSH)})\n")  # the member stays one: 6:34
    first = run_cli("--isolated", "--cache-dir", "c", "pkg/use.py", cwd=tmp_path)
    assert first.stdout.startswith("pkg/use.py:6:34: ACC101 ")
    (package / "helpers.py").write_text(helper.format("Enum"))
    second = run_cli("--isolated", "--cache-dir", "c", "pkg/use.py", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (0, "")


def test_a_cached_summary_is_not_used_once_the_builder_it_followed_changed(tmp_path):
    """gather.py's rule builds its config with builders.base(dim), so whether ``dim`` is a bind keyword
    of its primitive depends on builders.py: api.py's bind argument is reported while base puts ``dim``
    into the config, not once it stops, and again when it does (a one-file run, the summaries cached)."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "programs" / "extpkg", tmp_path / "extpkg")
    builders = tmp_path / "extpkg" / "builders.py"
    original = builders.read_text()

    def found() -> list[tuple[int, int, str]]:
        rows = parse_text(run_cli("--isolated", "--cache-dir", "c", "extpkg/api.py", cwd=tmp_path).stdout)
        return [(row.line, row.column, row.code) for row in rows if row.line == 42]

    assert found() == [(42, 39, "ACC101")]
    builders.write_text(original.replace('"dim": dim, ', ""))
    assert found() == []
    builders.write_text(original)
    assert found() == [(42, 39, "ACC101")]


def test_a_cached_bind_outcome_sees_the_rule_that_reads_its_keyword_and_the_class_change(tmp_path):
    """tuned.py binds objects whose attribute (``knobs.level``) or fields the rules of readers.py read,
    of classes in knobs.py: a one-file run of tuned.py (the cache on) follows a change of either."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "programs" / "extpkg", tmp_path / "extpkg")
    readers, knobs = tmp_path / "extpkg" / "readers.py", tmp_path / "extpkg" / "knobs.py"
    original_readers, original_knobs = readers.read_text(), knobs.read_text()

    def found() -> list[tuple[int, int, str]]:
        rows = parse_text(run_cli("--isolated", "--cache-dir", "c", "extpkg/tuned.py", cwd=tmp_path).stdout)
        return [(row.line, row.column, row.code) for row in rows]

    everything = [(10, 46, "ACC101"), (18, 60, "ACC101"), (26, 47, "ACC101"), (34, 49, "ACC101")]
    assert found() == everything
    readers.write_text(original_readers.replace('cfg["level"] = knobs.level', 'cfg["level"] = knobs.level.value'))
    assert found() == everything[2:]  # the rule converts the field now
    readers.write_text(original_readers)
    assert found() == everything
    knobs.write_text(original_knobs.replace("class Level(enum.Enum):", "class Level(str, enum.Enum):"))
    assert found() == []  # a str enum's member serializes
    knobs.write_text(original_knobs)
    assert found() == everything


def test_a_cached_outcome_sees_the_imported_registrar_change(tmp_path):
    """registered.py registers its rules through registrars.py's decorator factory, alias of register_lowering
    and registrar function: a one-file run of registered.py (the cache on) reports the binds' Enum members
    while the registrar registers, not once it stops (the rule's own default is checked in place either way,
    reported while no bind passes its keyword: the registrar function's rule once it no longer registers)."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "programs" / "extpkg", tmp_path / "extpkg")
    registrars = tmp_path / "extpkg" / "registrars.py"
    original = registrars.read_text()

    def lines() -> list[int]:
        return [row.line for row in parse_text(run_cli("--isolated", "--cache-dir", "c", "extpkg/registered.py",
                                                       cwd=tmp_path).stdout)]

    assert lines() == [57, 83, 91, 107, 115, 123, 146]
    registrars.write_text(original.replace("mlir.register_lowering(prim, fn)", "print(prim, fn)"))
    # the decorator no longer registers the rule (imported, line 83, or as the module's attribute, 123), nor
    # does the class registry's loop (115)
    assert lines() == [57, 91, 107, 146]
    registrars.write_text(original.replace("register = mlir.register_lowering", "register = print"))
    assert lines() == [57, 83, 107, 115, 123, 146]  # nor the alias
    registrars.write_text(original.replace("mlir.register_lowering(prim, rule, platform=platform)", "print(prim, rule)"))
    assert lines() == [57, 83, 91, 107, 115, 123, 134]  # nor the function: its rule's default is used, line 134
    registrars.write_text(original)
    assert lines() == [57, 83, 91, 107, 115, 123, 146]


def test_a_cached_rule_outcome_sees_a_bind_of_another_module_change_its_value(tmp_path):
    """annotated.py's ``mode: Mode`` is not reported while every bind (in annotated_api.py) passes a str:
    a one-file run of the rule's module (the cache on) reports it once a bind passes the Enum member."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "programs" / "extpkg", tmp_path / "extpkg")
    api = tmp_path / "extpkg" / "annotated_api.py"
    original = api.read_text()

    def lines() -> list[int]:
        return [row.line for row in parse_text(run_cli("--isolated", "--cache-dir", "c", "extpkg/annotated.py",
                                                       cwd=tmp_path).stdout)]

    assert lines() == [32]  # the wrapper's bind passes what its callers pass: the annotation decides
    api.write_text(original.replace('mode="pull"', "mode=Mode.PULL"))
    assert lines() == [28, 32]
    api.write_text(original)
    assert lines() == [32]


def run_and_list_modules(tmp_path: Path, *args: str) -> tuple[int, bool]:
    """Run the CLI in a fresh interpreter; return its exit code and whether libcst was imported."""
    script = (
        "import sys\n"
        "from asynccfg_lint.frontends.cli import main\n"
        f"code = main({list(args)!r})\n"
        "print(code, 'libcst' in sys.modules)\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                               timeout=120)
    code, imported = completed.stdout.splitlines()[-1].split()  # after the diagnostics
    return int(code), imported == "True"


def test_a_sink_free_file_is_checked_without_importing_libcst(tmp_path):
    (tmp_path / "plain.py").write_text("import json\nprint(json.dumps({'a': 1}))\n")
    assert run_and_list_modules(tmp_path, "check", "--no-cache", "plain.py") == (0, False)


def test_a_warm_run_does_not_import_libcst(tmp_path):
    (tmp_path / "mod.py").write_text(SINK_IMPORT + 'emit("t", 0, 0, {"groups": {1, 2}})\n')
    assert run_and_list_modules(tmp_path, "check", "--cache-dir", "c", "mod.py") == (1, True)
    assert run_and_list_modules(tmp_path, "check", "--cache-dir", "c", "mod.py") == (1, False)
