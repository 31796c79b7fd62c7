"""The oracle's parent side: run batches of cases through real JAX and XLA and turn outcomes into verdicts.

Child processes (:mod:`tests.oracle.runner`, one per CPU up to four) lower every case. Only
the cases that lowered need XLA's verdict (clean, ACC103 or ACC105), and only once per
distinct lowered module: cases that emit the same config text lower to the same module, so
one of them is compiled for all. Compiling happens in further child processes, which XLA
may kill with SIGABRT: the case in flight is then recorded as aborted and a new child carries
on with the rest.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

RUNNER = Path(__file__).with_name("runner.py")
CHILD_ENV = {
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
    "JAX_TRACEBACK_FILTERING": "off",  # the runner reads where an exception came from
}
TIMEOUT = 600
#: child processes run at once (each phase splits its cases between them)
WORKERS = max(1, min(4, os.cpu_count() or 1))
CLEAN = "clean"
#: the codes the linter reports for configs, in the order JAX and XLA would hit them
FAULT_CODES = ("ACC104", "ACC102", "ACC101", "ACC103", "ACC105")
_LOWERING_CODES = frozenset({"ACC104", "ACC102", "ACC101"})
#: JAX's TypeError for a primitive parameter that cannot be hashed (raised before any config exists)
_UNHASHABLE_PARAMETER = "parameters to jaxpr equations must have __hash__ and __eq__ methods"


class OracleError(RuntimeError):
    """The oracle itself failed (a child died outside a compile, or printed something unexpected)."""


@dataclass(frozen=True)
class Case:
    """One config (or ``tiled`` value) to run through real JAX.

    Attributes:
        id: unique within a batch.
        namespace: the name of the module source the expressions are evaluated in.
        expr: the config expression (``kind="config"``) or the ``tiled`` value (``kind="tiled"``).
        kind: ``"config"`` (passed to ``_emit_async_start_custom_call``) or ``"tiled"``
            (passed to ``jax.lax.psum_scatter_start``).
        bindings: ``(name, expression)`` pairs evaluated first, in order (function parameters
            and locals the expression uses).
    """

    id: str
    namespace: str
    expr: str
    kind: str = "config"
    bindings: tuple[tuple[str, str], ...] = ()


@dataclass
class Outcome:
    """What real JAX and XLA did with one case.

    Attributes:
        lowering: ``"lowers"``, the exception type name raised while lowering, or
            ``"build-error"`` when the expression itself could not be evaluated.
        message: the exception message (or the build error).
        stage: where the exception was raised (``serialize``, ``emit``, ``before-emit``).
        config: the emitted JSON text, when lowering succeeded.
        compile: ``None`` (not compiled), ``"ok"``, ``"abort"`` (the process was killed by
            SIGABRT) or the compile error text.
    """

    lowering: str
    message: str = ""
    stage: str = ""
    config: str | None = None
    compile: str | None = None

    @property
    def verdict(self) -> str:
        """The linter code this outcome means: ``clean``, ``ACC101``..``ACC105``, or ``other: ...``.

        A value json rejects (ValueError, or anything raised in JAX's ``_json_default`` hook) is
        ACC101, and so is a ``bind`` parameter (of a public ``*_start`` function or of a program's own
        primitive) JAX cannot bind because it is unhashable (a dict raises ``unhashable type`` there);
        a rejected key (json's ``TypeError: keys must be ...``) is ACC102, an ``AttributeError``
        reading ``.handle``/``.value`` ACC104; after lowering, XLA failing to parse the config
        JSON is ACC103, and a SIGABRT or a ``RET_CHECK`` failure is ACC105.
        """
        if self.lowering == "lowers":
            if self.compile == "ok":
                return CLEAN
            if self.compile == "abort":
                return "ACC105"
            if self.compile and "Failed to parse collective op config JSON" in self.compile:
                return "ACC103"
            if self.compile and "RET_CHECK" in self.compile:
                return "ACC105"
            return f"other: compile {(self.compile or '').splitlines()[0][:200]}"
        if self.stage == "serialize":
            return "ACC102" if self.message.startswith("keys must be") else "ACC101"
        if self.stage == "emit" and self.lowering == "AttributeError":
            return "ACC104"
        if self.lowering == "TypeError" and (_UNHASHABLE_PARAMETER in self.message
                                             or self.stage == "before-emit" and self.message.startswith("unhashable type")):
            return "ACC101"
        return f"other: {self.lowering} ({self.stage}): {self.message}"

    @property
    def fails(self) -> bool:
        """True when lowering raised or compiling failed (for the public API's arguments)."""
        return self.lowering != "lowers" or self.compile != "ok"

    def describe(self) -> str:
        """One line for failure messages."""
        if self.lowering == "lowers":
            return f"lowers to {self.config}; compile: {(self.compile or '').splitlines()[0][:200]}"
        return f"{self.lowering} at {self.stage or 'build'}: {self.message[:200]}"


def expected_oracle_verdict(codes: set[str]) -> set[str]:
    """The oracle verdicts consistent with the linter reporting ``codes`` for one config.

    JAX stops at the first failure: an ACC104 attribute read comes before json; json reports
    the first bad key or value it meets (ACC101 or ACC102); XLA sees the config only if JAX
    emitted it, and its JSON parser fails (ACC103) before any known key is read (ACC105).
    """
    faults = [code for code in FAULT_CODES if code in codes]
    if not faults:
        return {CLEAN}
    if "ACC104" in faults:
        return {"ACC104"}
    lowering = set(faults) & _LOWERING_CODES
    return lowering or {faults[0]}


@dataclass
class _Job:
    namespaces: dict[str, str]
    cases: list[Case]
    outcomes: dict[str, Outcome] = field(default_factory=dict)


def _run_child(mode: str, namespaces: dict[str, str], cases: list[Case]) -> tuple[list[dict], int, str]:
    job = {
        "mode": mode,
        "namespaces": namespaces,
        "cases": [{"id": c.id, "namespace": c.namespace, "kind": c.kind, "expr": c.expr,
                   "bindings": [list(b) for b in c.bindings]} for c in cases],
    }
    return run_child_job(RUNNER, job)


def run_child_job(runner: Path, job: dict) -> tuple[list[dict], int, str]:
    """Run the child script ``runner`` (8 forced CPU devices) on ``job``; its JSON events, exit code and stderr."""
    env = {**os.environ, **CHILD_ENV}
    completed = subprocess.run([sys.executable, str(runner)], input=json.dumps(job), capture_output=True,
                               text=True, env=env, timeout=TIMEOUT)
    events = []
    for line in completed.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise OracleError(f"unexpected output from the oracle: {line!r}\n{completed.stderr[-3000:]}") from exc
    return events, completed.returncode, completed.stderr


def _chunks(cases: list[Case], count: int) -> list[list[Case]]:
    return [chunk for chunk in (cases[i::count] for i in range(count)) if chunk]


def _in_parallel(function, chunks: list[list[Case]]) -> None:
    with ThreadPoolExecutor(max_workers=len(chunks) or 1) as pool:
        for result in [pool.submit(function, chunk) for chunk in chunks]:
            result.result()  # re-raises an OracleError


def _lower_all(job: _Job) -> None:
    def lower(chunk: list[Case]) -> None:
        events, returncode, stderr = _run_child("lower", job.namespaces, chunk)
        if returncode != 0:
            raise OracleError(f"the lowering process exited with {returncode}:\n{stderr[-3000:]}")
        for event in events:
            if event["event"] == "lowered":
                job.outcomes[event["id"]] = Outcome("lowers", config=event["config"])
            elif event["event"] == "raised":
                job.outcomes[event["id"]] = Outcome(event["type"], event["message"], event["stage"])
            else:
                job.outcomes[event["id"]] = Outcome("build-error", event["message"])

    _in_parallel(lower, _chunks(job.cases, WORKERS))
    missing = [c.id for c in job.cases if c.id not in job.outcomes]
    if missing:
        raise OracleError(f"no lowering outcome for {missing[:5]}")


def _compile_lowered(job: _Job) -> None:
    """Compile one case per distinct lowered module (its kind and emitted config), then share the verdicts."""
    def module_key(case: Case) -> tuple[str, str]:
        config = job.outcomes[case.id].config
        return case.kind, config if config is not None else f"case {case.id}"  # no config seen: compile it alone

    lowered = [case for case in job.cases if job.outcomes[case.id].lowering == "lowers"]
    representatives: dict[tuple[str, str], Case] = {}
    for case in lowered:
        representatives.setdefault(module_key(case), case)

    def compile_all(pending: list[Case]) -> None:
        while pending:
            events, returncode, stderr = _run_child("compile", job.namespaces, pending)
            in_flight = None
            for event in events:
                if event["event"] == "compiling":
                    in_flight = event["id"]
                else:
                    job.outcomes[event["id"]].compile = event["error"] or "ok"
                    in_flight = None
            if returncode == 0:
                return
            if in_flight is None or returncode != -signal.SIGABRT:
                raise OracleError(f"the compile process exited with {returncode} outside a compile:\n{stderr[-3000:]}")
            job.outcomes[in_flight].compile = "abort"
            pending = [c for c in pending if job.outcomes[c.id].compile is None]

    _in_parallel(compile_all, _chunks(list(representatives.values()), WORKERS))
    for case in lowered:
        job.outcomes[case.id].compile = job.outcomes[representatives[module_key(case)].id].compile


def run_oracle(namespaces: dict[str, str], cases: list[Case]) -> dict[str, Outcome]:
    """Run every case through real JAX (and XLA where it lowered); return the outcomes by case id.

    Args:
        namespaces: module sources by name; each case's expressions are evaluated in one.
        cases: the cases, with unique ids.
    """
    if len({c.id for c in cases}) != len(cases):
        raise ValueError("case ids must be unique")
    job = _Job(namespaces, list(cases))
    _lower_all(job)
    _compile_lowered(job)
    return job.outcomes
