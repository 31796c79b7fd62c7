"""The oracle's child process for whole extension programs: import a fixture module, lower its ``case_*`` functions.

Run by :func:`tests.oracle.programs.run_programs` as ``python program_runner.py`` with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` set before JAX is imported. It reads one
JSON job from stdin::

    {"mode": "lower" | "compile", "sys_path": [folder, ...],
     "cases": [{"id": str, "module": dotted name, "function": name}, ...]}

and imports each module as the user would (its primitives are bound and its lowering rules
registered by the import itself; nothing in JAX is patched). Each case's function is lowered
as ``jax.jit(jax.shard_map(function, mesh=<8 devices, axis "i">, in_specs=P("i"),
out_specs=P("i")))`` of an ``(8, 4)`` float32 argument, and in mode ``compile`` also compiled.
It prints the events of :mod:`tests.oracle.runner` (``lowered``/``raised``/``build-error``,
``compiling``/``compiled``), one JSON object per line.
"""

from __future__ import annotations

import importlib
import json
import sys

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

from runner import emitted_config, report, stage_of  # the sibling module: this file runs as a script


def lower(function, mesh):
    """Lower ``function`` under ``jit(shard_map(...))`` over ``mesh``."""
    spec = PartitionSpec("i")
    x = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(mesh, spec))
    return jax.jit(jax.shard_map(function, mesh=mesh, in_specs=spec, out_specs=spec)).lower(x)


def main() -> None:
    job = json.load(sys.stdin)
    sys.path[:0] = job["sys_path"]
    mesh = jax.make_mesh((8,), ("i",))
    for case in job["cases"]:
        try:
            function = getattr(importlib.import_module(case["module"]), case["function"])
        except Exception as exc:  # noqa: BLE001 - the fixture itself is broken
            report(id=case["id"], event="build-error", message=f"{type(exc).__name__}: {exc}")
            continue
        if job["mode"] == "compile":
            report(id=case["id"], event="compiling")
            try:
                lower(function, mesh).compile()
            except Exception as exc:  # noqa: BLE001 - XLA's verdict
                report(id=case["id"], event="compiled", error=f"{type(exc).__name__}: {exc}"[:800])
                continue
            report(id=case["id"], event="compiled", error=None)
            continue
        try:
            lowered = lower(function, mesh)
        except Exception as exc:  # noqa: BLE001 - the outcome being measured
            report(id=case["id"], event="raised", type=type(exc).__name__, message=str(exc)[:500],
                   stage=stage_of(exc))
            continue
        report(id=case["id"], event="lowered", config=emitted_config(lowered.as_text()))


if __name__ == "__main__":
    main()
