"""Differential tests: the linter's verdicts against what real JAX 0.12.0.1 and XLA do.

The oracle (``tests/oracle/``) passes each config to the real
``jax._src.lax.parallel._emit_async_start_custom_call`` from the lowering rule of a small
primitive, lowers ``jax.jit(jax.shard_map(...))`` on CPU, and compiles what lowered in child
processes that XLA may abort. Four groups:

1. every row of the truth table's sections 1-2 that a module expression can build, as
   ``{"v": <expr>}``, ``{"v": [<expr>]}`` and ``{"v": {"k": <expr>}}`` (the "dict with ...
   keys" rows also as the whole config; special keys also one level down, where they are plain);
2. every entry of the checker's fixture modules that can be built outside its lowering rule
   (see ``tests/oracle/fixture_entries.py``); its written ``# expect:`` codes must be what JAX does;
3. every entry of every ``tests/fixtures/fix/*.fixed.py``: what the fixes produced lowers and
   compiles, what is left unfixed fails as reported, and every entry a fix changed failed before;
4. ``jax.lax.psum_scatter_start(x, "i", scatter_dimension=0, tiled=<value>)`` with the values of
   the table's section 5: the linter flags exactly those that fail.

All cases run in one batch (one lowering process, a few compile processes) the first time a
test needs them; ``pytest -s -m oracle`` prints the counts and the time taken.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.run.selection import Selection
from tests.expectations import FIXTURES, checker_fixtures, expected_diagnostics
from tests.oracle.driver import CLEAN, Case, Outcome, expected_oracle_verdict, run_oracle
from tests.oracle.fixture_entries import FixtureEntry, fixture_entries
from tests.oracle.truth_rows import (
    NOT_EXPRESSIBLE,
    PRELUDE,
    ROWS,
    TILED_VALUES,
    Row,
    config_module,
    tiled_module,
)

pytestmark = pytest.mark.oracle

#: a copy of the team's shared truth table, kept in the project so a clone runs every test
TRUTH_TABLE = Path(__file__).resolve().parent / "oracle" / "truth_table.md"
FIX_OUTPUTS = sorted((FIXTURES / "fix").glob("*.fixed.py"))
#: values for the parameters the fix fixtures' configs use: what a caller would pass (annotated
#: parameters get a value of their annotation)
FIX_PARAMETERS: dict[str, dict[str, str]] = {
    "bindings": {},
    "no_fix": {"schedule": "Odd.PAIR"},
    "safe_containers": {"a": "3", "b": "2", "groups": "[[0, 1]]"},
    "safe_scalars": {"overlap": "np.bool_(True)", "n": "1", "a": "3"},
    "unsafe": {"groups": "[0, 1]"},
    "withheld_flag": {"fuse": "True"},
}
#: entries whose config cannot be built at all (the fixture's code raises first), and why
BUILD_ERRORS: dict[tuple[str, str], str] = {
    ("no_fix", '"made"'): "Odd(2) raises ValueError (2 is not a value of Odd) before any config exists",
}
WITH_UNKNOWN = Selection(extend_select=("ACC201",))


def _requires_jax() -> None:
    if sys.version_info < (3, 12):
        pytest.skip(f"jax 0.12.0.1 needs Python >= 3.12; this is {sys.version.split()[0]}")
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed; install the test extra: pip install -e '.[test]'")


def linter_codes(source: str) -> set[str]:
    """The codes the linter reports for a generated module; ``ACC201`` stands for "type unknown"."""
    return {d.code for d in check_source(source, "generated.py", WITH_UNKNOWN)}


def describe(codes: set[str]) -> str:
    return "+".join(sorted(codes)) or CLEAN


def disagreement(codes: set[str], outcome: Outcome) -> str | None:
    """Why the linter's ``codes`` for one config contradict the oracle's outcome, or ``None``."""
    if outcome.lowering == "build-error":
        return f"the config could not be built: {outcome.message}"
    if "ACC201" in codes:
        return f"the linter cannot tell the type (ACC201); real JAX: {outcome.verdict} ({outcome.describe()})"
    if outcome.verdict not in expected_oracle_verdict(codes):
        return f"linter {describe(codes)}, real JAX {outcome.verdict} ({outcome.describe()})"
    return None


# ------------------------------------------------------------------------------------- cases
def _namespace(group: str, path: Path) -> str:
    return f"{group}_{path.name.removesuffix('.py').replace('.', '_')}"


def truth_cases() -> dict[str, tuple[Row, str, str]]:
    """Group 1: case id -> (row, form, config text)."""
    return {
        f"truth:{row.label}:{index}:{form}": (row, form, cfg)
        for row in ROWS
        for index, expr in enumerate(row.exprs)
        for form, cfg in row.forms(expr).items()
    }


def entry_cases(group: str, path: Path, parameters: dict[str, str] | None = None) -> dict[str, FixtureEntry]:
    """Groups 2 and 3: case id -> buildable entry of the fixture at ``path``."""
    return {
        f"{_namespace(group, path)}:{index}": entry
        for index, entry in enumerate(fixture_entries(path, parameters))
        if entry.unbuildable is None and not entry.unknown
    }


def _fix_input(output: Path) -> Path:
    return output.with_name(output.name.replace(".fixed.py", ".py"))


def _fix_parameters(path: Path) -> dict[str, str]:
    return FIX_PARAMETERS[path.name.split(".")[0]]


@dataclass
class Batch:
    """Every case of the four groups and the oracle's outcomes."""

    truth: dict[str, tuple[Row, str, str]]
    fixtures: dict[Path, dict[str, FixtureEntry]]
    fixes: dict[Path, dict[str, FixtureEntry]]
    tiled: dict[str, str]
    outcomes: dict[str, Outcome]


@pytest.fixture(scope="session")
def batch() -> Batch:
    _requires_jax()
    started = time.perf_counter()
    namespaces = {"prelude": PRELUDE}
    cases: list[Case] = []
    truth = truth_cases()
    cases += [Case(case_id, "prelude", cfg) for case_id, (_, _, cfg) in truth.items()]
    fixtures = {path: entry_cases("checker", path) for path in checker_fixtures()}
    fixes = {path: entry_cases("fix", path, _fix_parameters(path))
             for output in FIX_OUTPUTS for path in (_fix_input(output), output)}
    for group, table in (("checker", fixtures), ("fix", fixes)):
        for path, entries in table.items():
            namespaces[_namespace(group, path)] = path.read_text(encoding="utf-8")
            cases += [entry.case(case_id, _namespace(group, path)) for case_id, entry in entries.items()]
    tiled = {f"tiled:{label}": expr for label, expr in TILED_VALUES.items()}
    cases += [Case(case_id, "prelude", expr, kind="tiled") for case_id, expr in tiled.items()]
    outcomes = run_oracle(namespaces, cases)
    print(f"\noracle: {len(cases)} cases ({len(truth)} truth-table configs, "
          f"{sum(map(len, fixtures.values()))} checker-fixture entries, {sum(map(len, fixes.values()))} fix-fixture "
          f"entries, {len(tiled)} tiled values) in {time.perf_counter() - started:.1f} s")
    return Batch(truth, fixtures, fixes, tiled, outcomes)


# ------------------------------------------------------------------------- group 1: the table
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.label)
def test_truth_table_row(batch, row):
    problems = []
    for case_id, (case_row, form, cfg) in batch.truth.items():
        if case_row is row:
            problem = disagreement(linter_codes(config_module(cfg)), batch.outcomes[case_id])
            if problem:
                problems.append(f"{form} {cfg}: {problem}")
    assert not problems, "\n".join(problems)


def _table_rows(section: str) -> list[list[str]]:
    """The body rows of one ``## <section>`` of the truth table, as lists of cells."""
    text = TRUTH_TABLE.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split(" | ")]
            for line in body.splitlines() if line.startswith("| ")]
    return rows[1:]  # the header


@pytest.fixture(scope="module")
def table() -> dict[str, list[list[str]]]:
    return {section: _table_rows(section) for section in ("1.", "2.", "5.")}


def test_every_table_row_is_checked_or_explained(table):
    labels = [cells[0] for section in ("1.", "2.") for cells in table[section]]
    assert sorted(labels) == sorted([row.label for row in ROWS] + list(NOT_EXPRESSIBLE))
    tiled = [cells[2] for cells in table["5."] if cells[:2] == ["psum_scatter_start", "tiled"]]
    assert sorted(tiled) == sorted(TILED_VALUES)


_JAX_RESULT = re.compile(r"^(succeeds|(?P<error>\w+) at lower)")


def test_oracle_reproduces_the_table(batch, table):
    """The oracle itself: its lowering outcome for each row's first expression is the table's."""
    columns = {"top": 1, "in list": 2, "in dict": 3}
    mismatches = []
    for row, cells in [(row, cells) for section in ("1.", "2.") for cells in table[section]
                       for row in ROWS if row.label == cells[0]]:
        forms = {"as config": 1} if row.whole_config else columns if row.key == "v" else {"top": 1}
        for form, column in forms.items():
            match = _JAX_RESULT.match(cells[column])
            if match is None:  # "-": not measured
                continue
            outcome = batch.outcomes[f"truth:{row.label}:0:{form}"]
            expected = match.group("error") or "lowers"
            if outcome.lowering != expected:
                mismatches.append(f"{row.label} {form}: table {cells[column]!r}, oracle {outcome.describe()}")
    assert not mismatches, "\n".join(mismatches)


# ------------------------------------------------------------------ group 2: checker fixtures
def _missing_module(path: Path, message: str) -> str | None:
    """The module a build error's undefined name comes from, when that module is not installed."""
    match = re.match(r"NameError: name '(\w+)' is not defined", message)
    if match is None:
        return None
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                module = node.module if isinstance(node, ast.ImportFrom) else alias.name
                if (alias.asname or alias.name).split(".")[0] == match.group(1) and module:
                    return module if importlib.util.find_spec(module.split(".")[0]) is None else None
    return None


def cannot_build(path: Path, entry: FixtureEntry, outcome: Outcome) -> str | None:
    """Why the entry's config could not be built here (a known raise, a package not installed), else ``None``."""
    if outcome.lowering != "build-error":
        return None
    missing = _missing_module(path, outcome.message)
    return BUILD_ERRORS.get((path.name.split(".")[0], entry.key)) or (missing and f"needs {missing}, not installed")


def entry_problems(path: Path, entries: dict[str, FixtureEntry], outcomes: dict[str, Outcome]) -> list[str]:
    """Every entry of ``path`` whose checker verdict real JAX contradicts."""
    problems = []
    for case_id, entry in entries.items():
        outcome = outcomes[case_id]
        if cannot_build(path, entry, outcome):
            continue
        problem = disagreement(entry.codes, outcome)
        if problem:
            problems.append(f"{entry.label} {entry.expr!r}: {problem}")
    return problems


@pytest.mark.parametrize("path", checker_fixtures(), ids=lambda p: p.name)
def test_checker_fixture_entries(batch, path):
    entries = batch.fixtures[path]
    expected = expected_diagnostics(path)
    unwritten = [f"{e.label}: {sorted(e.findings - expected)}" for e in entries.values() if not e.findings <= expected]
    assert not unwritten, "findings not written as # expect: in the fixture:\n" + "\n".join(unwritten)
    problems = entry_problems(path, entries, batch.outcomes)
    assert not problems, "\n".join(problems)


def test_most_checker_fixture_entries_are_checked(batch):
    """Guard against the buildable subset silently shrinking."""
    checked = sum(map(len, batch.fixtures.values()))
    assert checked >= 300, checked


# --------------------------------------------------------------------- group 3: fix outputs
@pytest.mark.parametrize("output", FIX_OUTPUTS, ids=lambda p: p.name)
def test_fixed_output(batch, output):
    source = _fix_input(output)
    before, after = batch.fixes[source], batch.fixes[output]
    problems = entry_problems(output, after, batch.outcomes)
    assert not problems, "\n".join(problems)
    # what the linter leaves clean lowers and compiles: the fixes fix
    for case_id, entry in after.items():
        outcome = batch.outcomes[case_id]
        if not entry.codes and not cannot_build(output, entry, outcome):
            assert outcome.verdict == CLEAN, (entry.label, outcome.describe())
    # every entry a fix rewrote failed in real JAX before it
    assert len(before) == len(after)
    changed = [
        (b_id, a_id, entry) for (b_id, entry), (a_id, fixed) in zip(before.items(), after.items())
        if entry.expr != fixed.expr and not cannot_build(source, entry, batch.outcomes[b_id])
    ]
    for before_id, after_id, entry in changed:
        assert batch.outcomes[before_id].verdict != CLEAN, (entry.label, batch.outcomes[before_id].describe())
        assert batch.outcomes[after_id].verdict == CLEAN, (entry.label, batch.outcomes[after_id].describe())
    assert bool(changed) == (output.name != "no_fix.fixed.py")


# ---------------------------------------------------------------- group 4: the public API
@pytest.mark.parametrize("label", sorted(TILED_VALUES))
def test_psum_scatter_start_tiled(batch, label):
    outcome = batch.outcomes[f"tiled:{label}"]
    codes = linter_codes(tiled_module(TILED_VALUES[label]))
    assert bool(codes) == outcome.fails, f"linter {describe(codes)}, real JAX: {outcome.describe()}"
    assert disagreement(codes, outcome) is None
