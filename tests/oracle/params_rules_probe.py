"""Child process of ``tests/test_params_rules.py``: how real JAX 0.12.0.1 calls batching and AD rules.

Run as ``python params_rules_probe.py`` (JAX on CPU). Registers one small primitive per rule table
of :data:`asynccfg_lint.analysis.programs.PARAMS_TABLES` (and ``ad.deflinear2``), binds each with the
keywords ``k=np.int64(2), tiled=True`` under ``jax.vmap`` / ``jax.grad`` / ``jax.jvp``, and prints
one JSON object: for each table, what its rule received — the classes of its positional
arguments, the classes of the elements of ``dims_in`` for batchers, and its keywords with their
classes — plus the classes ``jax._src.util.canonicalize_axis`` returns.
"""

from __future__ import annotations

import json
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax._src import core
from jax._src.interpreters import ad, batching
from jax._src.util import canonicalize_axis

seen: dict[str, list[dict]] = {}


def _name(value: object) -> str:
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _record(table: str, args: tuple, params: dict, dims: int | None = None) -> None:
    entry = {"positional": [_name(a) for a in args], "keywords": {k: _name(v) for k, v in sorted(params.items())}}
    if dims is not None:
        entry["dims_in"] = [_name(d) for d in args[dims]]
    seen.setdefault(table, []).append(entry)


def _primitive(name: str) -> core.Primitive:
    prim = core.Primitive(name)
    prim.def_impl(lambda x, **params: x)
    prim.def_abstract_eval(lambda x, **params: x)
    return prim


fancy_p, plain_p, linear_p, transposed_p, jvp_p = (_primitive(f"asynccfg_probe_{n}")
                                                   for n in ("fancy", "plain", "linear", "transposed", "jvp"))


def fancy_rule(*args, **params):
    _record("fancy_primitive_batchers", args, params, dims=2)
    (x,), (d,) = args[1], args[2]
    return fancy_p.bind(x, **params), d


def plain_rule(*args, **params):
    _record("primitive_batchers", args, params, dims=1)
    (x,), (d,) = args
    return plain_p.bind(x, **params), d


def linear_transpose_rule(*args, **params):
    _record("deflinear2", args, params)
    return (args[0],)


def transpose_rule(*args, **params):
    _record("primitive_transposes", args, params)
    return (args[0],)


def jvp_rule(*args, **params):
    _record("primitive_jvps", args, params)
    (x,), (t,) = args
    return jvp_p.bind(x, **params), t


batching.fancy_primitive_batchers[fancy_p] = fancy_rule
batching.primitive_batchers[plain_p] = plain_rule
ad.deflinear2(linear_p, linear_transpose_rule)
ad.primitive_jvps[transposed_p] = partial(ad.linear_jvp, transposed_p)
ad.primitive_transposes[transposed_p] = transpose_rule
ad.primitive_jvps[jvp_p] = jvp_rule

PARAMS = {"k": np.int64(2), "tiled": True}


def main() -> None:
    xs, c = jnp.ones((3, 4)), jnp.ones(4)
    jax.vmap(lambda x: fancy_p.bind(x, **PARAMS))(xs)  # a batched operand: its dimension
    jax.vmap(lambda i: fancy_p.bind(c, **PARAMS) + i)(jnp.arange(2.0))  # an unbatched one: None
    jax.vmap(lambda x: plain_p.bind(x, **PARAMS))(xs)
    jax.grad(lambda x: linear_p.bind(x, **PARAMS).sum())(c)
    jax.grad(lambda x: transposed_p.bind(x, **PARAMS).sum())(c)
    jax.jvp(lambda x: jvp_p.bind(x, **PARAMS), (c,), (c,))
    axes = [_name(canonicalize_axis(a, 3)) for a in (1, -1, np.int64(1), np.int32(-2), True)]
    print(json.dumps({"rules": seen, "canonicalize_axis": axes, "bound": {k: _name(v) for k, v in sorted(PARAMS.items())}}))


if __name__ == "__main__":
    main()
