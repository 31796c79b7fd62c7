"""The oracle's child process: real JAX lowers (or compiles) configs and says what happened.

Run by :mod:`tests.oracle.driver` as ``python runner.py`` with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` set before JAX is imported. It reads one
JSON job from stdin and prints one JSON object per line, flushed as it goes::

    {"mode": "lower" | "compile",
     "namespaces": {name: module source},
     "cases": [{"id": str, "namespace": name, "kind": "config" | "tiled",
                "bindings": [[name, expression], ...], "expr": expression}, ...]}

Every namespace is a module executed statement by statement, so that a failing import
(``torch`` is not a test dependency) only leaves its names undefined. For a case, ``bindings``
are evaluated in order in a copy of its namespace, then ``expr``:

- ``kind == "config"``: ``expr`` is the config. A registered primitive whose lowering rule
  evaluates it (inside the rule, so MLIR attributes can be built) and passes it to the REAL
  ``jax._src.lax.parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)``
  is bound inside ``jax.jit(jax.shard_map(...))`` over a 2-device mesh and lowered.
- ``kind == "tiled"``: ``expr`` is passed as ``tiled=`` to the public
  ``jax.lax.psum_scatter_start(x, "i", scatter_dimension=0, tiled=...)`` under the same
  ``jit(shard_map(...))``.

Nothing in JAX is patched. Mode ``lower`` prints ``{"id", "event": "lowered", "config": <emitted
JSON text>}``, ``{"id", "event": "raised", "type", "message", "stage"}`` or ``{"id", "event":
"build-error", "type", "message"}``. Mode ``compile`` lowers each case again and compiles it,
printing ``{"id", "event": "compiling"}`` before and ``{"id", "event": "compiled", "error": str |
null}`` after: XLA may abort the whole process (SIGABRT) on a wrong-typed known key, and the
driver reads which case was in flight from the last ``compiling`` line.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import traceback
import types

import jax
import jax.numpy as jnp
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax import parallel
from jax.sharding import NamedSharding, PartitionSpec

TARGET = "collective-permute-start"
_CONFIG_ATTRIBUTE = re.compile(r'async_collective_config = "((?:[^"\\]|\\.)*)"')


class BuildError(Exception):
    """Evaluating a case's bindings or expression raised: the config could not be built at all."""


def exec_namespace(name: str, source: str) -> dict:
    """Execute ``source`` as a module named ``name``, one top-level statement at a time.

    A statement that raises (an import of a package that is not installed) is skipped; the
    names it would have bound stay undefined, and a case using them reports a build error.
    """
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses and enums look their module up
    tree = ast.parse(source)
    flags = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                flags |= getattr(__import__("__future__"), alias.name).compiler_flag
            continue
        code = compile(ast.Module([statement], type_ignores=[]), f"<{name}>", "exec", flags=flags, dont_inherit=True)
        try:
            exec(code, module.__dict__)
        except Exception:  # noqa: BLE001 - recorded as undefined names
            pass
    return module.__dict__


def build(case: dict, namespaces: dict[str, dict]):
    """Evaluate the case's bindings, then its expression, in a copy of its namespace."""
    scope = dict(namespaces[case["namespace"]])
    try:
        for name, expression in case["bindings"]:
            scope[name] = eval(expression, scope)
        return eval(case["expr"], scope)
    except Exception as exc:  # noqa: BLE001 - reported as a build error
        raise BuildError(f"{type(exc).__name__}: {exc}") from exc


def stage_of(exc: BaseException) -> str:
    """Where in JAX an exception was raised, from its (unfiltered) traceback.

    ``serialize``: inside ``json.dumps`` (its encoder or JAX's ``_json_default`` hook);
    ``emit``: elsewhere in ``_emit_async_start_custom_call`` (the special keys' attributes);
    ``before-emit``: anywhere else (argument checks, binding, shape rules).
    """
    frames = traceback.extract_tb(exc.__traceback__)
    json_dir = os.path.dirname(json.__file__)
    if any(f.name == "_json_default" or os.path.dirname(f.filename) == json_dir for f in frames):
        return "serialize"
    if any(f.name == "_emit_async_start_custom_call" for f in frames):
        return "emit"
    return "before-emit"


def emitted_config(text: str) -> str | None:
    """The JSON text of the (last) async collective config in a lowered module's MLIR text."""
    found = _CONFIG_ATTRIBUTE.findall(text)
    if not found:
        return None
    return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), found[-1]).replace("\\\\", "\\")


class Oracle:
    """One registered primitive and one 2-device mesh; lowers or compiles one case at a time."""

    def __init__(self, namespaces: dict[str, dict]) -> None:
        self.namespaces = namespaces
        self.cases: list[dict] = []
        self.raised: dict[int, BaseException] = {}
        self.primitive = core.Primitive("asynccfg_oracle_start")
        self.primitive.def_abstract_eval(
            lambda x, *, index: core.AbstractFuture(x, parallel.ppermute_done_p.bind))
        mlir.register_lowering(self.primitive, self._lowering)
        self.mesh = jax.make_mesh((2,), ("i",), devices=jax.devices()[:2])
        self.x = jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=NamedSharding(self.mesh, PartitionSpec("i")))

    def _lowering(self, ctx, x, *, index: int):
        cfg = build(self.cases[index], self.namespaces)
        try:
            return parallel._emit_async_start_custom_call(TARGET, ctx, x, cfg)
        except BaseException as exc:
            self.raised[index] = exc  # its traceback, before JAX filters it on the way out
            raise

    def lower(self, case: dict):
        """Lower ``case`` and return the ``Lowered`` object (exceptions propagate)."""
        self.cases.append(case)
        index = len(self.cases) - 1
        if case["kind"] == "config":
            def body(y):
                return self.primitive.bind(y, index=index).done()
        else:
            tiled = build(case, self.namespaces)

            def body(y):
                return jax.lax.psum_scatter_start(y, "i", scatter_dimension=0, tiled=tiled).done()
        spec = PartitionSpec("i")
        return jax.jit(jax.shard_map(body, mesh=self.mesh, in_specs=spec, out_specs=spec)).lower(self.x)

    def original(self, exc: BaseException) -> BaseException:
        """The exception as raised inside the lowering rule, if it came from there."""
        for raised in self.raised.values():
            if exc is raised or exc.__cause__ is raised or exc.__context__ is raised:
                return raised
        return exc


def report(**fields) -> None:
    print(json.dumps(fields), flush=True)


def run_lower(oracle: Oracle, case: dict) -> None:
    try:
        lowered = oracle.lower(case)
    except BuildError as exc:
        report(id=case["id"], event="build-error", message=str(exc))
        return
    except Exception as exc:  # noqa: BLE001 - the outcome being measured
        cause = exc.__cause__ if isinstance(exc.__cause__, BuildError) else None
        if cause is not None:
            report(id=case["id"], event="build-error", message=str(cause))
            return
        original = oracle.original(exc)
        report(id=case["id"], event="raised", type=type(original).__name__, message=str(original)[:500],
               stage=stage_of(original))
        return
    report(id=case["id"], event="lowered", config=emitted_config(lowered.as_text()))


def run_compile(oracle: Oracle, case: dict) -> None:
    report(id=case["id"], event="compiling")
    try:
        oracle.lower(case).compile()
    except Exception as exc:  # noqa: BLE001 - XLA's verdict
        report(id=case["id"], event="compiled", error=f"{type(exc).__name__}: {exc}"[:800])
        return
    report(id=case["id"], event="compiled", error=None)


def main() -> None:
    job = json.load(sys.stdin)
    namespaces = {name: exec_namespace(f"asynccfg_oracle_{name}", source) for name, source in job["namespaces"].items()}
    oracle = Oracle(namespaces)
    run = run_lower if job["mode"] == "lower" else run_compile
    for case in job["cases"]:
        run(oracle, case)


if __name__ == "__main__":
    main()
