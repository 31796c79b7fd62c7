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
import sys
from pathlib import Path

import pytest

from asynccfg_lint.checker import check_source
from asynccfg_lint.selection import Selection
from tests.expectations import FIXTURES, Expected, expected_diagnostics
from tests.oracle.driver import CLEAN
from tests.oracle.programs import ProgramCase, program_cases, run_programs

PROGRAMS = FIXTURES / "programs"
#: single-module program fixtures, checked alone
MODULES = sorted(PROGRAMS.glob("*.py"))


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
    return run_programs([str(PROGRAMS)], _cases())


@pytest.mark.oracle
@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.id)
def test_program_oracle(outcomes, case: ProgramCase):
    outcome = outcomes[case.id]
    assert outcome.verdict == case.declared, outcome.describe()
