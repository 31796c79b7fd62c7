"""Whole extension programs through real JAX: each fixture's ``case_*`` functions lowered and compiled.

A program fixture (``tests/fixtures/programs/``) is a module as extenders write it: a
``core.Primitive``, an abstract eval returning ``core.AbstractFuture``, a lowering rule
registered with ``mlir.register_lowering`` that builds a config and calls
``_emit_async_start_custom_call``, and user functions that call ``prim.bind``. Every user
function named ``case_*`` carries ``# oracle: clean`` or ``# oracle: ACC1xx`` on its ``def`` line:
what JAX 0.12.0.1 does with it. :func:`run_programs` measures that in child processes
(:mod:`tests.oracle.program_runner`), one to lower every case and others to compile what lowered
(XLA may abort the process: the case in flight is ACC105 and a new child carries on).
"""

from __future__ import annotations

import ast
import re
import signal
from dataclasses import dataclass
from pathlib import Path


from tests.oracle.driver import Outcome, OracleError, run_child_job

PROGRAM_RUNNER = Path(__file__).with_name("program_runner.py")
_ORACLE = re.compile(r"#\s*oracle:\s*(?P<verdict>clean|ACC\d{3})")


@dataclass(frozen=True)
class ProgramCase:
    """One user function of a program fixture.

    Attributes:
        id: ``<module>.<function>``.
        module: the dotted module name to import (its folder is on ``sys.path``).
        function: the ``case_*`` function's name.
        path: the fixture file.
        first_line, last_line: the function's lines (1-based, inclusive).
        declared: the ``# oracle:`` verdict written on its ``def`` line.
    """

    id: str
    module: str
    function: str
    path: Path
    first_line: int
    last_line: int
    declared: str


def program_cases(path: Path, module: str) -> list[ProgramCase]:
    """The ``case_*`` functions of the fixture ``path`` (imported as ``module``), with their declared verdicts.

    Lines from CPython's ``ast`` (a fraction of libcst's positions, read at every test collection): a case runs
    from its ``def`` line to the last line of its body.
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    cases = []
    for statement in ast.parse(text).body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name.startswith("case_"):
            first = statement.lineno
            match = _ORACLE.search(lines[first - 1])
            if match is None:
                raise ValueError(f"{path}:{first}: a case function needs '# oracle: clean|ACC1xx' on its def line")
            cases.append(ProgramCase(f"{module}.{statement.name}", module, statement.name, path,
                                     first, statement.end_lineno, match.group("verdict")))
    return cases


def _run_child(mode: str, sys_path: list[str], cases: list[ProgramCase]) -> tuple[list[dict], int, str]:
    return run_child_job(PROGRAM_RUNNER, {"mode": mode, "sys_path": sys_path,
                                          "cases": [{"id": c.id, "module": c.module, "function": c.function}
                                                    for c in cases]})


def run_programs(sys_path: list[str], cases: list[ProgramCase]) -> dict[str, Outcome]:
    """Lower every case, compile those that lowered; return the outcomes by case id."""
    outcomes: dict[str, Outcome] = {}
    events, returncode, stderr = _run_child("lower", sys_path, cases)
    if returncode != 0:
        raise OracleError(f"the program lowering process exited with {returncode}:\n{stderr[-3000:]}")
    for event in events:
        if event["event"] == "lowered":
            outcomes[event["id"]] = Outcome("lowers", config=event["config"])
        elif event["event"] == "raised":
            outcomes[event["id"]] = Outcome(event["type"], event["message"], event["stage"])
        else:
            outcomes[event["id"]] = Outcome("build-error", event["message"])
    pending = [c for c in cases if c.id in outcomes and outcomes[c.id].lowering == "lowers"]
    while pending:
        events, returncode, stderr = _run_child("compile", sys_path, pending)
        in_flight = None
        for event in events:
            if event["event"] == "compiling":
                in_flight = event["id"]
            else:
                outcomes[event["id"]].compile = event["error"] or "ok"
                in_flight = None
        if returncode == 0:
            break
        if in_flight is None or returncode != -signal.SIGABRT:
            raise OracleError(f"the program compile process exited with {returncode} outside a compile:\n{stderr[-3000:]}")
        outcomes[in_flight].compile = "abort"
        pending = [c for c in pending if outcomes[c.id].compile is None]
    return outcomes
