"""Child process of ``tests/test_catalog.py``: runs every catalog probe inside a real JAX lowering rule.

Run as ``python catalog_probe.py`` with 8 forced CPU devices; reads ``{"imports": [...], "probes":
{id: expression}}`` on stdin. A primitive whose abstract eval returns a ``core.AbstractFuture`` is
bound under ``jax.jit(jax.shard_map(...))`` on a 2-device mesh; its lowering rule evaluates each
probe with ``ctx`` bound to the real ``LoweringRuleContext`` and passes ``{"v": value}`` and
``{value: 1}`` to the REAL ``jax._src.lax.parallel._emit_async_start_custom_call``. Prints one JSON
line per probe: ``{"id", "mro": [qualified class names], "value": "ok" | exception name,
"key": "ok" | exception name}`` or ``{"id", "error": text}`` when the probe itself raised.
"""

from __future__ import annotations

import json
import sys

import jax
import jax.numpy as jnp
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax import parallel
from jax.sharding import NamedSharding, PartitionSpec

TARGET = "collective-permute-start"


def _emit(ctx, x, cfg) -> str:
    try:
        parallel._emit_async_start_custom_call(TARGET, ctx, x, cfg)
    except Exception as exc:  # noqa: BLE001 - the verdict being measured
        return type(exc).__name__
    return "ok"


def main() -> None:
    job = json.load(sys.stdin)
    scope: dict = {}
    for statement in job["imports"]:
        exec(statement, scope)
    results = []

    def rule(ctx, x):
        local = dict(scope, ctx=ctx)
        for probe_id, expression in job["probes"].items():
            try:
                value = eval(expression, local)
            except Exception as exc:  # noqa: BLE001 - reported: the row's probe is wrong
                results.append({"id": probe_id, "error": f"{type(exc).__name__}: {exc}"})
                continue
            mro = [f"{c.__module__}.{c.__qualname__}" for c in type(value).__mro__]
            results.append({"id": probe_id, "mro": mro, "value": _emit(ctx, x, {"v": value}),
                            "key": _emit(ctx, x, {value: 1}) if _hashable(value) else "unhashable"})
        return parallel._emit_async_start_custom_call(TARGET, ctx, x, {})

    primitive = core.Primitive("asynccfg_catalog_probe_start")
    primitive.def_abstract_eval(lambda x: core.AbstractFuture(x, parallel.ppermute_done_p.bind))
    mlir.register_lowering(primitive, rule)
    mesh = jax.make_mesh((2,), ("i",), devices=jax.devices()[:2])
    spec = PartitionSpec("i")
    x = jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=NamedSharding(mesh, spec))
    jax.jit(jax.shard_map(lambda y: primitive.bind(y).done(), mesh=mesh, in_specs=spec, out_specs=spec)).lower(x)
    for result in results:
        print(json.dumps(result))


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


if __name__ == "__main__":
    main()
