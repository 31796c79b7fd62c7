"""Whole extension programs (``tests/fixtures/programs/``): the checker's findings, and real JAX's verdicts.

Each program fixture is a module as extenders write it (see :mod:`tests.oracle.programs`). Three
checks: the checker reports exactly the ``# expect:`` rows of the file (fast tier); every
``case_*`` function's ``# oracle:`` verdict is what real JAX 0.12.0.1 does when the function is
lowered and compiled under ``jit`` + ``shard_map`` on 8 CPU devices (marker ``oracle``); and the
two agree: a case declared clean has no expected finding inside it, and a faulty case has an
expected finding of its code inside it or, for faults in the rule itself, outside every case.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS
from asynccfg_lint.run.discovery import iter_python_files
from asynccfg_lint.run.project import Project
from asynccfg_lint.run.tasks import CheckSettings
from asynccfg_lint.run.selection import Selection
from tests.expectations import FIXTURES, Expected, expected_diagnostics
from tests.frontend_runs import acc_rows, parse_text, run_cli, run_flake8, run_program
from tests.lsp_client import LspClient
from tests.oracle.driver import CLEAN
from tests.oracle.programs import ProgramCase, program_cases, run_programs

PROGRAMS = FIXTURES / "programs"
#: single-module program fixtures, checked alone
MODULES = sorted(PROGRAMS.glob("*.py"))


# a package: primitives and rules, options, and the user API in three modules
PACKAGE = PROGRAMS / "extpkg"
PACKAGE_FILES = sorted(PACKAGE.glob("*.py"))
#: every package fixture: extpkg, and splitpkg (binds and rules in modules that do not import each other)
PACKAGES = sorted(init.parent for init in PROGRAMS.glob("*/__init__.py"))


def _package_expected(package: Path = PACKAGE) -> set[tuple[str, Expected]]:
    return {(f"{package.name}/{path.name}", e) for path in sorted(package.glob("*.py"))
            for e in expected_diagnostics(path)}


def _package_cases(packages: list[Path] = PACKAGES) -> list[ProgramCase]:
    return [case for package in packages for path in sorted(package.glob("*.py"))
            for case in program_cases(path, f"{package.name}.{path.stem}")]


def _cases() -> list[ProgramCase]:
    return [case for path in MODULES for case in program_cases(path, path.stem)]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_program_findings(path: Path):
    diagnostics = check_source(path.read_bytes(), str(path), Selection())
    assert sorted({Expected(d.line, d.column, d.code) for d in diagnostics}) == sorted(expected_diagnostics(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_declared_verdicts_match_expectations(path: Path):
    expected = expected_diagnostics(path)
    cases = program_cases(path, path.stem)
    assert cases, path
    outside = {e.code for e in expected if not any(c.first_line <= e.line <= c.last_line for c in cases)}
    for case in cases:
        inside = {e.code for e in expected if case.first_line <= e.line <= case.last_line}
        if case.declared == CLEAN:
            assert not inside, (case.id, inside)
        else:
            assert case.declared in inside | outside, (case.id, case.declared, inside, outside)
    declared = {c.declared for c in cases}
    assert outside <= declared, f"a fault outside every case is exercised by no case: {outside - declared}"


@pytest.fixture(scope="module")
def outcomes():
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    return run_programs([str(PROGRAMS)], _cases() + _package_cases())


@pytest.mark.oracle
@pytest.mark.parametrize("case", _cases() + _package_cases(), ids=lambda c: c.id)
def test_program_oracle(outcomes, case: ProgramCase):
    outcome = outcomes[case.id]
    assert outcome.verdict == case.declared, outcome.describe()


def test_modules_through_the_cli_and_flake8():
    names = [path.name for path in MODULES]
    cli = parse_text(run_cli("--isolated", "--no-cache", *names, cwd=PROGRAMS).stdout)
    assert {(row.path, row.expected) for row in cli} == {(p.name, e) for p in MODULES for e in expected_diagnostics(p)}
    assert acc_rows(run_flake8("--select", "ACC1", *names, cwd=PROGRAMS).stdout) == cli


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_package_declared_verdicts_match_expectations(package: Path):
    expected = _package_expected(package)
    cases = _package_cases([package])
    assert cases

    def inside(case: ProgramCase, where: tuple[str, Expected]) -> bool:
        return where[0] == f"{package.name}/{case.path.name}" and case.first_line <= where[1].line <= case.last_line

    outside = {e.code for where in expected for e in [where[1]] if not any(inside(c, where) for c in cases)}
    for case in cases:
        codes = {where[1].code for where in expected if inside(case, where)}
        assert (not codes) if case.declared == CLEAN else case.declared in codes | outside, (case.id, codes)
    assert outside <= {c.declared for c in cases}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_package_findings_in_process(package: Path):
    """The package checked in this process (the fast tier) gives exactly its ``# expect:`` rows."""
    project = Project(iter_python_files([str(package)]))
    outcomes = project.analyse(BUILTIN_SINKS, {str(path): CheckSettings() for path in sorted(package.glob("*.py"))})
    found = {(f"{package.name}/{Path(path).name}", Expected(d.line, d.column, d.code))
             for path, outcome in outcomes.items() for d in outcome.diagnostics}
    assert found == _package_expected(package)
    if package == PACKAGE:
        # annotated.py: `mode: Mode` put into the config is reported only where a bind's value is unknown
        # (line 32: bound through a wrapper), not where every bind of annotated_api.py passes a str (line 28)
        assert {e.line for where, e in found if where == "extpkg/annotated.py"} == {32}


@pytest.mark.parametrize("module", ["api.py", "users.py"])
def test_one_file_of_a_package_sees_the_rules_registered_by_a_module_it_does_not_import(module):
    """splitpkg/api.py binds primitives whose rules splitpkg/lowering.py registers, and users.py calls api.py:
    neither imports lowering.py. Checked alone, each still gets the package's rows."""
    package = PROGRAMS / "splitpkg"
    project = Project(iter_python_files([str(package)]))
    outcomes = project.analyse(BUILTIN_SINKS, {str(package / module): CheckSettings()})
    found = {(d.line, d.column, d.code) for d in outcomes[str(package / module)].diagnostics}
    assert found == {(e.line, e.column, e.code) for where, e in _package_expected(package)
                     if where == f"splitpkg/{module}"}
    assert found  # api.py: lines 21 and 33; users.py: line 11


def test_package_through_the_cli_with_the_place_used():
    result = run_cli("--isolated", "--no-cache", "extpkg", cwd=PROGRAMS)
    rows = parse_text(result.stdout)
    assert {(row.path, row.expected) for row in rows} == _package_expected()
    by_place = {(row.path, row.line): row.message for row in rows}
    # a bind argument names where the rule of primitives.py puts it into the config (line 23)
    assert by_place[("extpkg/api.py", 22)].endswith("use x.value (or x.name) (used at extpkg/primitives.py:23)")
    assert by_place[("extpkg/api.py", 30)].endswith("(used at extpkg/primitives.py:23)")
    # a dataclass default of options.py reaches the config through dataclasses.asdict in primitives.py
    assert by_place[("extpkg/primitives.py", 30)].endswith("(written at extpkg/options.py:13)")
    # an object bound in tuned.py whose attribute (knobs.level) or fields the rules of readers.py read
    assert [by_place[("extpkg/tuned.py", line)].rpartition(" (used at ")[2] for line in (10, 18, 26, 34)] == [
        "extpkg/readers.py:33)", "extpkg/readers.py:33)", "extpkg/readers.py:39)", "extpkg/readers.py:44)"]
    # an object of knobs.py bound in held.py, whose rule there reads its field or fields: the bind's value
    # (or the local it is built in, line 109) names the rule's use
    assert [by_place[("extpkg/held.py", line)].rpartition(" (used at ")[2] for line in (81, 93, 101, 109, 119, 127, 135)] \
        == [f"extpkg/held.py:{line})" for line in (35, 42, 47, 53, 59, 63, 68)]
    # a value passed through wrappers.py's functions (two levels, then one) names the same use of the rule
    assert by_place[("extpkg/wrapped_api.py", 18)].endswith("use x.value (or x.name) (used at extpkg/primitives.py:23)")
    assert by_place[("extpkg/wrapped_api.py", 26)].endswith("use bool(...) (used at extpkg/primitives.py:23)")
    assert result.returncode == 1


def test_the_place_used_is_the_same_whatever_the_hash_seed():
    """two_uses.py's rule puts the bound options' field into its config on two lines; the bind's finding names
    one of them, the same in every process (it followed the iteration order of a set of sinks, which
    ``PYTHONHASHSEED`` changes: trial 9 saw both lines, and the cached and uncached runs disagree)."""
    lines = {run_cli("--isolated", "--no-cache", "extpkg", cwd=PROGRAMS, env={"PYTHONHASHSEED": str(seed)}).stdout
             for seed in range(6)}
    assert len(lines) == 1  # expect: one output for every seed
    rows = [row for row in parse_text(lines.pop()) if row.path == "extpkg/two_uses_api.py"]
    assert [(row.line, row.message.rpartition(" (")[2]) for row in rows] == [(9, "used at extpkg/two_uses.py:27)")]


def test_narrowed_keywords_and_table_lookups_name_the_rules_use_and_the_table():
    """converted_api.py's binds of a keyword converted.py's rules narrow with ``isinstance`` before the config
    name the config line (past the converting ``if``); table_api.py's lookups through mode_tables.py's
    helpers name the table (line 18). Neither gets a fix (the bind's ``.value`` is not offered there)."""
    result = run_cli("--isolated", "--no-cache", "--output-format", "json", "extpkg/converted_api.py",
                     "extpkg/table_api.py", cwd=PROGRAMS)
    data = json.loads(result.stdout)
    assert [(Path(d["filename"]).name, d["line"], d["message"].rpartition(" (")[2], d["fix"]) for d in data] == [
        ("converted_api.py", 29, "used at extpkg/converted.py:47)", None),
        ("converted_api.py", 45, "used at extpkg/converted.py:61)", None),
        ("converted_api.py", 53, "used at extpkg/converted.py:68)", None),
        ("converted_api.py", 69, "used at extpkg/converted.py:82)", None),
        ("table_api.py", 41, "written at extpkg/mode_tables.py:18)", None),
        ("table_api.py", 62, "used at extpkg/table_api.py:36)", None),
        ("table_api.py", 66, "used at extpkg/table_api.py:36)", None)]


def test_package_through_flake8_prints_the_cli_lines():
    cli = parse_text(run_cli("--isolated", "--no-cache", "extpkg", cwd=PROGRAMS).stdout)
    flake8 = acc_rows(run_flake8("--select", "ACC1", "extpkg", cwd=PROGRAMS).stdout)
    assert flake8 == cli
    assert [row.message.rpartition(" (used at ")[2] for row in flake8 if row.path == "extpkg/wrapped_api.py"] == [
        "extpkg/primitives.py:23)", "extpkg/primitives.py:23)"]


def test_package_sarif_related_locations():
    result = run_cli("--isolated", "--no-cache", "--output-format", "sarif", "extpkg", cwd=PROGRAMS)
    results = json.loads(result.stdout)["runs"][0]["results"]
    related = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"]): r.get("relatedLocations") for r in results}
    used = related[("extpkg/api.py", 22)]
    assert used == [{"id": 0, "message": {"text": "where the registered lowering rule uses the value"},
                     "physicalLocation": {"artifactLocation": {"uri": "extpkg/primitives.py", "uriBaseId": "%SRCROOT%"},
                                          "region": {"startLine": 23}}}]
    assert related[("extpkg/tuned.py", 10)] == [{
        "id": 0, "message": {"text": "where the registered lowering rule uses the value"},
        "physicalLocation": {"artifactLocation": {"uri": "extpkg/readers.py", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 33}}}]
    assert related[("extpkg/held.py", 109)] == [{  # built in a local of the binding function
        "id": 0, "message": {"text": "where the registered lowering rule uses the value"},
        "physicalLocation": {"artifactLocation": {"uri": "extpkg/held.py", "uriBaseId": "%SRCROOT%"},
                             "region": {"startLine": 53}}}]
    assert related[("extpkg/wrapped_api.py", 18)] == used  # through two wrappers: the rule's same use
    assert related[("extpkg/wrapped_api.py", 26)] == used  # through one
    written = related[("extpkg/primitives.py", 30)]
    assert [(w["message"]["text"], w["physicalLocation"]["artifactLocation"]["uri"],
             w["physicalLocation"]["region"]["startLine"]) for w in written] == [
        ("where the value is written", "extpkg/options.py", 13)]


#: relayed_api.py's bind of a keyword that relayed.py's rule hands to sinks.py's functools.partial sink on
#: the line after its def (trial 7's m30pkg): every front end names that line, not the def (69)
PARTIAL_USE = "(used at extpkg/relayed.py:71)"


def test_a_bind_names_the_line_where_another_modules_partial_sink_gets_the_keyword():
    """The rule's module is read with the sinks it calls (``Project._relevant``), whatever else the run
    read before: the package, the one file (as pre-commit and flake8 on one file run), two processes,
    flake8, SARIF, ``--stdin-filename`` and the language server give the same line."""
    def used(stdout: str) -> list[str]:
        return [row.message.rpartition(" ")[2] for row in parse_text(stdout)
                if row.path == "extpkg/relayed_api.py" and row.line == 17]  # (line 25: the dict(table) case)

    expected = ["extpkg/relayed.py:71)"]
    assert used(run_cli("--isolated", "--no-cache", "extpkg", cwd=PROGRAMS).stdout) == expected
    assert used(run_cli("--isolated", "--no-cache", "extpkg/relayed_api.py", cwd=PROGRAMS).stdout) == expected
    assert used(run_cli("--isolated", "--no-cache", "-j", "2", "extpkg/relayed_api.py", "extpkg/relayed.py",
                        "extpkg/sinks.py", cwd=PROGRAMS).stdout) == expected
    assert used(run_cli("--isolated", "--no-cache", "--stdin-filename", "extpkg/relayed_api.py", "-", cwd=PROGRAMS,
                        stdin=(PACKAGE / "relayed_api.py").read_bytes()).stdout) == expected
    assert [row.message.rpartition(" ")[2] for row in acc_rows(run_flake8(
        "--select", "ACC1", "extpkg/relayed_api.py", cwd=PROGRAMS).stdout) if row.line == 17] == expected
    sarif = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "sarif", "extpkg/relayed_api.py",
                               cwd=PROGRAMS).stdout)
    [result] = [r for r in sarif["runs"][0]["results"] if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 17]
    assert result["message"]["text"].endswith(PARTIAL_USE)
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in result["relatedLocations"]] == [("extpkg/relayed.py", 71)]
    [(line, column, code, message)] = [row for row in _served(PROGRAMS, PACKAGE / "relayed_api.py") if row[0] == 17]
    assert (line, column, code) == (17, 41, "ACC101") and message.endswith(PARTIAL_USE)


def test_annotated_rule_keywords_through_json_and_the_language_server():
    """rule_annotated_keywords.py: the binds' faults (at the binds' values, naming the rule's use) and
    the one the annotation proves, alike in text, JSON and the language server."""
    path = PROGRAMS / "rule_annotated_keywords.py"
    text = parse_text(run_cli("--isolated", "--no-cache", path.name, cwd=PROGRAMS).stdout)
    rows = [(row.line, row.column, row.code, row.message) for row in text]
    assert [(line, column, code) for line, column, code, _ in rows] == [(68, 87, "ACC101"), (78, 49, "ACC101"),
                                                                       (90, 46, "ACC101")]
    assert [message.rpartition(" (used at ")[2] for _, _, _, message in rows[1:]] == [
        "rule_annotated_keywords.py:54)", "rule_annotated_keywords.py:59)"]
    data = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "json", path.name, cwd=PROGRAMS).stdout)
    assert [(d["line"], d["column"], d["code"], d["message"]) for d in data] == rows
    # the binds' fixes are unsafe (other binds may pass what the rule needs); the annotation's finding has none
    assert [d["fix"] and (d["fix"]["safety"], d["fix"]["replacement"]) for d in data] == [
        None, ("unsafe", "Mode.PULL.value"), ("unsafe", "Mode.PUSH.value")]
    assert _served(PROGRAMS, path) == rows


def _served(root: Path, path: Path) -> list[tuple[int, int, str, str]]:
    """``(line, column, code, message)`` of what a real language server rooted at ``root`` publishes
    for ``path`` opened as saved (1-based, as the CLI prints them); the server then shuts down cleanly."""
    client = LspClient(cwd=root)
    try:
        client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}})
        published = client.notification("textDocument/publishDiagnostics")
        assert published["uri"] == path.as_uri()
        seen = [(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"], d["message"])
                for d in published["diagnostics"]]
        assert client.request("shutdown") is None
        client.notify("exit")
        assert client.wait() == 0
        return seen
    finally:
        client.close()



@pytest.mark.parametrize("name", ["loop_keys.py", "bind_hashable.py", "shared_constants.py", "forwarded_keywords.py",
                                  "forwarded_hashable.py", "sink_call_forms.py", "nested_records.py",
                                  "library_and_numpy_values.py", "converted_fields.py", "replaced_objects.py",
                                  "channel_objects.py", "narrowing_forms.py", "enum_forms.py", "container_mutations.py",
                                  "sanitizers.py", "converted_keywords.py", "table_helpers.py", "builtin_narrowing.py",
                                  "copied_configs.py", "tolist_shapes.py"])
def test_text_json_flake8_and_the_language_server_agree(name):
    """The CLI's text and JSON, flake8 and the language server give the same rows for a program fixture
    (its ``# expect:`` rows), and the JSON's fix is the edit ``fix`` makes."""
    text = parse_text(run_cli("--isolated", "--no-cache", name, cwd=PROGRAMS).stdout)
    assert {row.expected for row in text} == expected_diagnostics(PROGRAMS / name)
    rows = [(row.line, row.column, row.code, row.message) for row in text]
    data = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "json", name, cwd=PROGRAMS).stdout)
    assert [(d["line"], d["column"], d["code"], d["message"]) for d in data] == rows
    assert [(r.line, r.column, r.code, r.message) for r in acc_rows(run_flake8("--select", "ACC1", name,
                                                                             cwd=PROGRAMS).stdout)] == rows
    assert _served(PROGRAMS, PROGRAMS / name) == rows
    if name == "shared_constants.py":  # the shared dict's fix is at the rule's spread, not at the definition
        fixes = {d["line"]: d["fix"] and (d["fix"]["line"], d["fix"]["replacement"]) for d in data}
        assert fixes[29] == (56, '{**_BASE, "codec": _BASE["codec"].value}')
        assert fixes[30] == (30, "Codec.RAW.value")  # spread by two rules, taken out by none
        assert fixes[31] == (76, "CODEC.value")
    if name == "forwarded_keywords.py":  # through two or three wrappers: where the rule puts the keyword in
        assert [(line, message.rpartition(" (used at ")[2]) for line, _, _, message in rows] == [
            (73, "forwarded_keywords.py:40)"), (81, "forwarded_keywords.py:40)"), (89, "forwarded_keywords.py:40)"),
            (99, "forwarded_keywords.py:40)"), (107, "forwarded_keywords.py:45)")]
    if name == "forwarded_hashable.py":  # every list fails at bind: the rule's config is named only where it holds it
        assert [(line, message.rpartition(" (used at ")[2]) for line, _, _, message in rows if " (used at " in message] \
            == [(91, "forwarded_hashable.py:36)"), (99, "forwarded_hashable.py:36)"), (107, "forwarded_hashable.py:41)")]
        assert [line for line, _, _, message in rows if message.startswith('keyword "')] == [115, 123, 127, 137, 145, 153]


#: where the rule of relay_start_p (bound by no module of extpkg) puts its keyword into the config
RELAY_USE = ("extpkg/primitives.py", 43, 88, "ACC201")
#: the package's other ACC201: ``GROWN[1]`` of a list another statement changes in place (``GROWN.insert``)
GROWN_ELEMENT = ("extpkg/indexed.py", 48, 30, "ACC201")
#: and a bind's enum member of the binding module whose ``.value`` the rule (another module's) reads: not typed
#: there yet, for any primitive (not only an element of a table)
TABLE_VALUE = ("extpkg/primitive_table_api.py", 29, 52, "ACC201")
#: and ``held.phase`` of a property returning ``self._phase``, read after a method that may rewrite it
NORMALISED_READ = ("extpkg/scheduled.py", 49, 24, "ACC201")
#: and another module's entry replaced at import by its own value (``FIXED["mode"] = FIXED["mode"].value``):
#: the new value reads the dict it is written into, not typed (as in one module); real JAX lowers it
REPLACED_AT_IMPORT = ("extpkg/module_state_rules.py", 46, 61, "ACC201")
#: and a rule's config named before it is passed on (``cfg = dataclasses.asdict(opts)``): opaque in the rule's
#: module, where no bind is; the binds of assigned_reads_api.py are checked through the read
ASSIGNED_READ = ("extpkg/assigned_reads.py", 22, 78, "ACC201")
#: SETTINGS.mode of another module's Settings, which this module writes (SETTINGS.mode = SETTINGS.mode.value)
WRITTEN_HERE = ("extpkg/instance_rules.py", 30, 67, "ACC201")


def test_rule_without_a_visible_bind_is_acc201_where_it_uses_a_parameter(tmp_path):
    """A registered rule whose primitive no analysed module binds: with ACC201 selected, the
    parameter it puts into the config is reported where the rule uses it. The rules of
    exchange_start_p and options_start_p are bound in api.py, so theirs are not, also when
    primitives.py is checked alone (the package's texts are searched for the primitive's name);
    CLI, flake8 and the language server agree."""
    package = parse_text(run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "extpkg", cwd=PROGRAMS).stdout)
    unknown = [(r.path, r.line, r.column, r.code) for r in package if r.code == "ACC201"]
    assert unknown == [ASSIGNED_READ, GROWN_ELEMENT, WRITTEN_HERE, REPLACED_AT_IMPORT, TABLE_VALUE, RELAY_USE,
                       NORMALISED_READ]
    assert package[[(r.path, r.line, r.column, r.code) for r in package].index(RELAY_USE)].message == (
        'value for key "depth" has a type the checker cannot determine; annotate it or convert it with '
        "int()/float()/bool()/str()")
    alone = parse_text(run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "extpkg/primitives.py",
                               cwd=PROGRAMS).stdout)
    assert alone == [r for r in package if r.path == "extpkg/primitives.py"]
    assert acc_rows(run_flake8("--select", "ACC", "extpkg", cwd=PROGRAMS).stdout) == package
    # without the package (stdin): only the module is visible, where no code binds exchange_start_p
    # (line 23: its rule's schedule; overlap=False is taken as a bool for callers no code shows, as any
    # unannotated parameter with a literal default); options.py is not read either (lines 29, 30: asdict of its classes)
    piped = parse_text(run_cli("--isolated", "--no-cache", "--extend-select", "ACC201", "--stdin-filename",
                               "primitives.py", "-", cwd=tmp_path,
                               stdin=(PACKAGE / "primitives.py").read_bytes()).stdout)
    assert sorted(r.line for r in piped if r.code == "ACC201") == [23, 29, 30, RELAY_USE[1]]

    shutil.copytree(PACKAGE, tmp_path / "extpkg")
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextend-select = ["ACC201"]\n', encoding="utf-8")
    cli = [row for row in parse_text(run_cli("--no-cache", "extpkg", cwd=tmp_path).stdout)
           if row.path == "extpkg/primitives.py"]
    assert [(r.path, r.line, r.column, r.code) for r in cli if r.code == "ACC201"] == [RELAY_USE]
    served = _served(tmp_path, tmp_path / "extpkg" / "primitives.py")
    assert served == [(row.line, row.column, row.code, row.message) for row in cli]


UNRECOGNISED_REGISTRATION = """\
import functools

from jax._src.lax import parallel
from jax.interpreters import mlir


def _rule(ctx, x, *, mode, depth=2):
    cfg = {"mode": mode, "depth": depth, "tiers": {1}}  # expect: 20:ACC201,51:ACC101
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)


getattr(mlir, "register_lowering")(start_p, _rule)


def _called(ctx, x, *, mode):
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, {"mode": mode})


def start(ctx, x):
    return _called(ctx, x, mode="pull")


def _partial_target(target, ctx, x, *, mode):
    return parallel._emit_async_start_custom_call(target, ctx, x, {"mode": mode})


send = functools.partial(_partial_target, "collective-permute-start")


def relay(ctx, x):
    return send(ctx, x, mode="push")
"""


def test_rule_registered_in_a_form_not_recognised_is_checked_in_place(tmp_path):
    """A private function that reaches the sink and of which no call is visible (registered by a form
    the analysis does not recognise): its own set is reported by default, and with ACC201 selected the
    parameter without a literal default is reported where it is used (``depth=2`` stands for a number);
    ``_called``, whose one call is visible, is checked at that call (nothing in place), and so is
    ``_partial_target``, called through a ``functools.partial``."""
    path = tmp_path / "unrecognised.py"
    path.write_text(UNRECOGNISED_REGISTRATION, encoding="utf-8")
    found = check_source(path.read_bytes(), str(path), Selection(extend_select=("ACC201",)))
    assert sorted(Expected(d.line, d.column, d.code) for d in found) == sorted(expected_diagnostics(path))
    assert [d.code for d in check_source(path.read_bytes(), str(path), Selection())] == ["ACC101"]


@pytest.mark.oracle
def test_fixed_programs_lower_where_nothing_is_left(tmp_path):
    """``fix --unsafe-fixes`` over copies of the single-module programs; real JAX then lowers and
    compiles every faulty case whose findings were all fixed (none left inside it, none left in its
    file outside every case), and every case the checker still reports fails as before."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    for path in MODULES:
        shutil.copy(path, tmp_path / f"fixed_{path.name}")
    fixed = run_program("fix", "--isolated", "--unsafe-fixes", ".", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr  # some findings have no fix
    left = [(row.path.removeprefix("./"), row.line) for row in parse_text(run_cli("--isolated", ".", cwd=tmp_path).stdout)]
    cases, expected_after = [], {}
    for path in sorted(tmp_path.glob("fixed_*.py")):
        file_cases = program_cases(path, path.stem)
        remaining = [line for name, line in left if name == path.name]
        outside = [line for line in remaining if not any(c.first_line <= line <= c.last_line for c in file_cases)]
        for case in file_cases:
            inside = any(case.first_line <= line <= case.last_line for line in remaining)
            if case.declared == CLEAN:
                expected_after[case.id] = CLEAN
            elif inside:
                expected_after[case.id] = case.declared
            elif not outside:
                expected_after[case.id] = CLEAN  # every finding it had was fixed
            cases.append(case)
    fixed_to_clean = [i for i, verdict in expected_after.items() if verdict == CLEAN
                      and next(c for c in cases if c.id == i).declared != CLEAN]
    assert len(fixed_to_clean) >= 8, fixed_to_clean
    outcomes = run_programs([str(tmp_path)], [c for c in cases if c.id in expected_after])
    assert {i: outcomes[i].verdict for i in expected_after} == expected_after


RULE_FORMS = '''
import functools
from functools import partial
from jax._src import core
from jax.interpreters import mlir as public_mlir
from jax._src.interpreters import mlir

a_p, b_p, c_p, d_p, e_p = (core.Primitive(n) for n in "abcde")

def direct(ctx, x, *, k): ...
def partially(ctx, x, *, k, fixed): ...
@partial(mlir.register_lowering, c_p)
def decorated(ctx, x, *, k): ...
def looped(ctx, x, *, k): ...
def called(ctx, x, *, k): ...
def unregistered(ctx, x, *, k): ...

mlir.register_lowering(a_p, direct)
public_mlir.register_lowering(b_p, functools.partial(partially, fixed=1))
for p, f in zip([d_p], [looped]):
    mlir.register_lowering(p, f)
partial(mlir.register_lowering, e_p)(called)
'''


def test_registration_forms_and_the_rule_context():
    """Every registration form is found, and a registered rule's first parameter (only) is its lowering context."""
    import libcst as cst

    from asynccfg_lint.analysis.parse import parse_source
    from asynccfg_lint.analysis.programs import is_rule_context, registrations

    parsed = parse_source(RULE_FORMS, "ext.py")
    found = {(min(r.primitive), min(r.rule), r.bound) for r in registrations(parsed)}
    assert found == {("ext.a_p", "ext.direct", frozenset()), ("ext.b_p", "ext.partially", frozenset({"fixed"})),
                     ("ext.c_p", "ext.decorated", frozenset()), ("ext.d_p", "ext.looped", frozenset()),
                     ("ext.e_p", "ext.called", frozenset())}
    functions = {s.name.value: s for s in parsed.module.body if isinstance(s, cst.FunctionDef)}
    contexts = {name: [is_rule_context(parsed, p) for p in f.params.params] for name, f in functions.items()}
    assert contexts == {name: [name != "unregistered", False] for name in functions}


STORED_RULES = '''
from jax._src import core
from jax.interpreters import mlir

a_p, b_p, c_p, d_p, e_p = (core.Primitive(n) for n in "abcde")
fetched = getattr(mlir, "register_lowering")

class Registry:
    _rules = []

    @classmethod
    def add(cls, prim):
        def deco(fn):
            cls._rules.append((prim, fn))
            return fn
        return deco

    @classmethod
    def install(cls):
        for prim, fn in cls._rules:
            mlir.register_lowering(prim, fn)

    @classmethod
    def keep(cls, prim):
        def deco(fn):
            cls._kept.append((prim, fn))
            return fn
        return deco

@Registry.keep(d_p)
def kept(ctx, x, *, k): ...
Registry.install()
@Registry.add(a_p)
def stored(ctx, x, *, k): ...
Registry.install()
@Registry.add(e_p)
def stored_late(ctx, x, *, k): ...
def fetched_rule(ctx, x, *, k): ...
def aliased_rule(ctx, x, *, k): ...
getattr(mlir, "register_lowering")(b_p, fetched_rule)
fetched(c_p, aliased_rule)
getattr(mlir, "register_" + "lowering")(d_p, kept)
'''


def test_stored_and_fetched_registrations():
    """A class registry's decorator that stores ``(prim, fn)`` for a loop that registers them counts where
    ``install()`` runs after the rule is stored (``stored``; not ``stored_late``, stored after the last
    ``install()``, nor ``kept``, stored in a container no loop registers); ``getattr(mlir,
    "register_lowering")`` counts, called or bound to a name, but not a computed attribute name."""
    from asynccfg_lint.analysis.parse import parse_source
    from asynccfg_lint.analysis.programs import registrations

    parsed = parse_source(STORED_RULES, "ext.py")
    found = {(min(r.primitive), min(r.rule)) for r in registrations(parsed)}
    assert found == {("ext.a_p", "ext.stored"), ("ext.b_p", "ext.fetched_rule"), ("ext.c_p", "ext.aliased_rule")}


METHOD_AND_LAMBDA_RULES = '''
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax.parallel import _emit_async_start_custom_call as emit

f_p, g_p, h_p, i_p, j_p = (core.Primitive(n) for n in "fghij")

def direct(ctx, x, *, k):
    return emit("t", ctx, x, {"k": k})

def reads(ctx, x, **params):
    mode = params.get("mode", 1)
    return emit("t", ctx, x, {"m": params["m"], "mode": mode, "p": params.pop("p")})

class Lowerings:
    @staticmethod
    def start(ctx, x, *, k):
        return emit("t", ctx, x, {"k": k})

    @classmethod
    def begin(cls, ctx, x, *, k):
        return emit("t", ctx, x, {"k": k})

mlir.register_lowering(f_p, Lowerings.start)
mlir.register_lowering(g_p, Lowerings.begin)
mlir.register_lowering(h_p, lambda c, x, *, peers: direct(c, x, k=peers))
mlir.register_lowering(i_p, reads)
mlir.register_lowering(j_p, lambda c, x, **kw: direct(c, x, **kw))
'''


def test_method_and_lambda_rules_and_params_reads():
    """A static or class method, a lambda (renaming or passing on its ``**kw``) and ``params[...]``
    reads become ``bind`` keywords; the context is the first parameter a call passes (after ``cls``)."""
    import libcst as cst

    from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkKind
    from asynccfg_lint.analysis.parse import parse_source
    from asynccfg_lint.analysis.programs import is_rule_context
    from asynccfg_lint.analysis.summaries import summarise_module

    parsed = parse_source(METHOD_AND_LAMBDA_RULES, "ext.py")
    summary = summarise_module(parsed, BUILTIN_SINKS)
    binds = {(min(s.qualnames), s.param, s.used_at, s.used_param) for s in summary
             if s.used_at is not None and s.kind is not SinkKind.PARAMETERS}
    # every rule reaches a sink: each primitive's bind keywords must be hashable
    assert {(min(s.qualnames), s.used_at) for s in summary if s.kind is SinkKind.PARAMETERS} == {
        ("ext.f_p.bind", "ext.Lowerings.start"), ("ext.g_p.bind", "ext.Lowerings.begin"),
        ("ext.h_p.bind", "ext.direct"), ("ext.i_p.bind", "ext.reads"), ("ext.j_p.bind", "ext.direct")}
    assert binds == {("ext.f_p.bind", "k", "ext.Lowerings.start", None),
                     ("ext.g_p.bind", "k", "ext.Lowerings.begin", None),
                     ("ext.h_p.bind", "peers", "ext.direct", "k"),
                     ("ext.i_p.bind", "m", "ext.reads", None), ("ext.i_p.bind", "mode", "ext.reads", None),
                     ("ext.i_p.bind", "p", "ext.reads", None),
                     ("ext.j_p.bind", "k", "ext.direct", None)}
    methods = next(s for s in parsed.module.body if isinstance(s, cst.ClassDef)).body.body
    assert [[is_rule_context(parsed, p) for p in m.params.params] for m in methods] == [
        [True, False], [False, True, False]]
    lambdas = [c.args[1].value for c in parsed.calls if len(c.args) > 1 and isinstance(c.args[1].value, cst.Lambda)]
    assert [[is_rule_context(parsed, p) for p in lam.params.params] for lam in lambdas] == [[True, False]] * 2


KNOBS_RULE = '''import enum
import typing

from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax.parallel import _emit_async_start_custom_call


class Level(enum.Enum):
    FAST = "fast"


class Knobs(typing.NamedTuple):
    level: Level


knobs_p = core.Primitive("knobs_start")


def _lowering(ctx, x, *, knobs):
    return _emit_async_start_custom_call("collective-permute-start", ctx, x, {"level": knobs.level})


mlir.register_lowering(knobs_p, _lowering)


def start(x):
    return knobs_p.bind(x, knobs=Knobs(Level.FAST))
'''


def test_a_rule_keyword_read_by_attribute_is_checked_at_another_modules_bind(tmp_path):
    """The rule's ``knobs.level`` holds what the module's bind passes (ACC101 at ``Level.FAST``); once
    another module of the package binds the primitive, what that bind passes is checked there: a
    parameter of its public function makes the function a wrapper (a derived sink with the bind's
    ``read``, trial 9's ``link(x, link_opts, knobs)``), whose callers' values are checked, so no ACC201
    at the bind's value (as for any wrapper's parameter), and the rule's use is not reported for it."""
    package = tmp_path / "kpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rule.py").write_text(KNOBS_RULE)
    args = ("--isolated", "--no-cache", "--extend-select", "ACC201", "kpkg")
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(run_cli(*args, cwd=tmp_path).stdout)] == [
        ("kpkg/rule.py", 28, 40, "ACC101")]
    (package / "user.py").write_text("from .rule import knobs_p\n\n\ndef go(x, knobs):\n"
                                     "    return knobs_p.bind(x, knobs=knobs)\n")
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(run_cli(*args, cwd=tmp_path).stdout)] == [
        ("kpkg/rule.py", 28, 40, "ACC101")]
    (package / "caller.py").write_text("from .rule import Knobs, Level\nfrom .user import go\n\n\n"
                                       "def use(x):\n    return go(x, Knobs(Level.FAST))\n")
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(run_cli(*args, cwd=tmp_path).stdout)] == [
        ("kpkg/caller.py", 6, 24, "ACC101"), ("kpkg/rule.py", 28, 40, "ACC101")]


def test_a_subscript_key_without_parentheses_is_one_tuple_key():
    """``cfg[0, 1] = v`` is the key ``(0, 1)``: ACC102 at its first element (where Python's ``ast``
    places the tuple), with no fix; the value's place is a computed key, not the literal ``0``."""
    source = ("import numpy as np\nfrom jax._src.lax.parallel import _emit_async_start_custom_call as emit\n\n"
              "def rule(ctx, x):\n    cfg = {}\n    cfg[0, 1] = np.bool_(True)\n    return emit('t', ctx, x, cfg)\n")
    found = [(d.line, d.column, d.end_column, d.code, d.message.split(" is ")[0], d.fix is None)
             for d in check_source(source, "ext.py", Selection(), with_fixes=True)]
    assert found == [(6, 9, 10, "ACC102", "config key", True),
                     (6, 17, 31, "ACC101", "value for a computed key", False)]


def test_a_keyword_the_rule_hands_to_another_modules_wrapper_names_the_rule(tmp_path):
    """A rule that passes its keyword to a wrapper of a third module inside a dict: the bind's finding names
    the line of the rule's dict that holds the keyword (``path:line``, as every other ``(used at ...)``; not
    the rule's ``def``, which one-file runs named while ``--stdin-filename`` named the use: trial 7), not its
    qualified name, so SARIF lists it under ``relatedLocations`` too (trial: ``(used at myext.numerics._dtype_lowering)``)."""
    package = tmp_path / "wpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "common.py").write_text(
        "from jax._src.lax import parallel\n\n\ndef emit_gather(ctx, x, cfg):\n"
        "    return parallel._emit_async_start_custom_call('all-gather-start', ctx, x, cfg)\n")
    (package / "rules.py").write_text(
        "from jax._src import core\nfrom jax._src.lax import parallel\nfrom jax.interpreters import mlir\n\n"
        "from wpkg.common import emit_gather\n\ntyped_start_p = core.Primitive('typed_start')\n"
        "typed_start_p.def_abstract_eval(lambda x, **p: core.AbstractFuture(x, parallel.all_gather_done_p.bind))\n\n\n"
        "def _typed_lowering(ctx, x, *, dtype):\n"
        "    return emit_gather(ctx, x, {'all_gather_dimension': 0, 'wire_dtype': dtype})\n\n\n"
        "mlir.register_lowering(typed_start_p, _typed_lowering)\n")
    (package / "api.py").write_text("import numpy as np\n\nfrom wpkg.rules import typed_start_p\n\n\ndef gather(x):\n"
                                    "    return typed_start_p.bind(x, dtype=np.dtype('float32')).done()\n")
    for target in ("wpkg", "wpkg/api.py"):
        [row] = parse_text(run_cli("--isolated", "--no-cache", target, cwd=tmp_path).stdout)
        assert (row.path, row.line, row.column, row.code) == ("wpkg/api.py", 7, 40, "ACC101")
        assert row.message.endswith("use str(x) or x.name (used at wpkg/rules.py:12)")
    sarif = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "sarif", "wpkg", cwd=tmp_path).stdout)
    [result] = sarif["runs"][0]["results"]
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in result["relatedLocations"]] == [("wpkg/rules.py", 12)]


def test_places_in_messages_take_the_form_of_the_diagnostics_paths(tmp_path):
    """``check /abs/extpkg``: each ``(used at ...)``/``(written at ...)`` path is absolute as the
    diagnostic's own is, in the text, JSON, SARIF and flake8; a relative run keeps relative places,
    flake8 started inside the package too (its analysis of the package runs under absolute paths)."""
    package = tmp_path / "extpkg"
    shutil.copytree(PACKAGE, package)
    used = (f"{package}/api.py", 22, 46, "ACC101", "value for key \"schedule\" is enum.Enum member Schedule, which JAX "
            "cannot serialize to JSON: lowering raises ValueError; use x.value (or x.name) "
            f"(used at {package}/primitives.py:23)")
    written_end = f"(written at {package}/options.py:13)"
    text = parse_text(run_cli("--isolated", "--no-cache", str(package), cwd=tmp_path).stdout)
    rows = {(r.path, r.line): r for r in text}
    assert (rows[used[:2]].column, rows[used[:2]].code, rows[used[:2]].message) == used[2:]
    assert rows[(f"{package}/primitives.py", 30)].message.endswith(written_end)
    data = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "json", str(package), cwd=tmp_path).stdout)
    assert [(d["path"], d["line"], d["column"], d["code"], d["message"]) for d in data] == [
        (r.path, r.line, r.column, r.code, r.message) for r in text]
    sarif = json.loads(run_cli("--isolated", "--no-cache", "--output-format", "sarif", str(package),
                               cwd=tmp_path / "extpkg").stdout)["runs"][0]["results"]
    by_place = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                 r["locations"][0]["physicalLocation"]["region"]["startLine"]): r for r in sarif}
    assert by_place[("api.py", 22)]["message"]["text"] == used[4]
    assert by_place[("api.py", 22)]["relatedLocations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "primitives.py", "uriBaseId": "%SRCROOT%"}, "region": {"startLine": 23}}
    assert by_place[("primitives.py", 30)]["message"]["text"].endswith(written_end)
    flake8 = {(r.path, r.line): r for r in acc_rows(run_flake8("--select", "ACC1", str(package), cwd=tmp_path).stdout)}
    assert (flake8[used[:2]].column, flake8[used[:2]].code, flake8[used[:2]].message) == used[2:]
    assert flake8[(f"{package}/primitives.py", 30)].message.endswith(written_end)
    # relative runs: relative places, also from inside the package
    relative = {(r.path, r.line): r.message for r in parse_text(run_cli("--isolated", "--no-cache", "extpkg",
                                                                      cwd=tmp_path).stdout)}
    assert relative[("extpkg/api.py", 22)].endswith("(used at extpkg/primitives.py:23)")
    inside = {(r.path, r.line): r.message for r in acc_rows(run_flake8("--select", "ACC1", ".", cwd=package).stdout)}
    assert inside[("./api.py", 22)].endswith("(used at primitives.py:23)")
    assert inside[("./primitives.py", 30)].endswith("(written at options.py:13)")


#: a rule whose `tiled` reaches the config; my_start passes its own parameter on (a derived sink), use a bool
WRAPPED_BIND = '''from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax.parallel import _emit_async_start_custom_call as emit

my_start_p = core.Primitive("my_start")


def _my_start_lowering(ctx, x, *, tiled):
    return emit("all-gather-start", ctx, x, {"tiled": tiled})


mlir.register_lowering(my_start_p, _my_start_lowering)


def my_start(x, tiled):
    return my_start_p.bind(x, tiled=tiled)


def use(x):
    return my_start(x, tiled=True)
'''


def test_where_a_rule_uses_a_keyword_is_located_only_for_a_finding_that_is_kept():
    # every code selected (as the flake8 plugin asks): the bind's ACC201 in my_start is dropped (its callers
    # are checked), so the module's positions (a code generation of it) are never computed for its message
    from asynccfg_lint.analysis.checker import analyse
    from asynccfg_lint.analysis.parse import parse_source

    parsed = parse_source(WRAPPED_BIND, "ext/gather.py")
    found = analyse(parsed, BUILTIN_SINKS)
    assert found == []  # expect: use() passes a bool, and no ACC201 (my_start's call is visible)
    assert parsed._positions is None  # expect: no positions were needed


@pytest.mark.oracle
@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_a_fixed_package_lowers_where_no_finding_is_left_and_breaks_no_clean_case(package, tmp_path):
    """``fix --unsafe-fixes`` over a package, then every case lowered and compiled by real JAX: no clean case
    is broken, and the faulty cases that now lower and compile are counted (a fix goes where the value
    enters the config: a value written in another module, a default or a field stays as it was)."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    fixed = tmp_path / package.name
    shutil.copytree(package, fixed)
    run_program("fix", "--isolated", "--no-cache", "--unsafe-fixes", package.name, cwd=tmp_path)
    left = parse_text(run_cli("--isolated", "--no-cache", package.name, cwd=tmp_path).stdout)
    cases = _package_cases([fixed])
    outcomes = run_programs([str(tmp_path)], cases)
    faulty = [case for case in cases if case.declared != CLEAN]
    repaired = [case.id for case in faulty if outcomes[case.id].verdict == CLEAN]
    broken = [case.id for case in cases if case.declared == CLEAN and outcomes[case.id].verdict != CLEAN]
    assert broken == []
    print(f"{package.name}: {len(repaired)} of {len(faulty)} faulty cases lower after the fix")
    assert (len(repaired), len(faulty)) == {"classrulepkg": (1, 2), "exportpkg": (0, 8), "extpkg": (57, 112), "optpkg": (1, 4), "registrypkg": (0, 6), "splitpkg": (4, 4)}[package.name]
