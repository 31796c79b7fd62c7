"""numpy reductions of a jax array: what real numpy 2.5.5 and jax 0.12.0.1 return, and what the checker makes of it.

numpy's ``np.sum(x)`` calls ``x.sum()`` when ``x`` is not an ndarray, so of a jax array it is a
jax.Array (a tracer under ``jit``), and ``bool(np.sum(tracer) > 0)`` raises
TracerBoolConversionError: the ``bool(...)`` fix of ``np.sum(x) > 0`` is right only when ``x`` is
known to be numpy (``asynccfg_lint.analysis.type_verdicts.NUMPY_DISPATCHED_REDUCTIONS``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.checker import check_source

MEASURE = r"""
import json
import jax, jax.numpy as jnp, numpy as np
def name(v):
    return f"{type(v).__module__}.{type(v).__qualname__}"
funcs = sorted(json.loads(__import__("sys").argv[1]))
x = jnp.arange(4.0)
out = {"eager": {f: name(getattr(np, f)(x)) for f in funcs + ["nansum", "average"]}, "jit": {}}
def traced(y):
    out["jit"] = {f: name(getattr(np, f)(y)) for f in funcs}
    out["compared"] = name(np.sum(y) > 0)
    try:
        bool(np.sum(y) > 0)
        out["bool"] = "ok"
    except Exception as exc:
        out["bool"] = type(exc).__name__
    return y
jax.jit(traced)(x)
out["numpy"] = name(np.sum(np.arange(3)) > 0)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def measured() -> dict:
    if sys.version_info < (3, 12):
        pytest.skip("jax 0.12.0.1 needs Python >= 3.12")
    pytest.importorskip("jax")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", MEASURE, json.dumps(sorted(T.NUMPY_DISPATCHED_REDUCTIONS))],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.jax
def test_numpy_reductions_of_a_jax_array_are_jax_arrays(measured):
    for func in T.NUMPY_DISPATCHED_REDUCTIONS:
        assert measured["eager"][func] == "jaxlib._jax.ArrayImpl", func
        assert measured["jit"][func].endswith("DynamicJaxprTracer"), func
    assert measured["compared"].endswith("DynamicJaxprTracer")
    assert measured["bool"] == "TracerBoolConversionError"
    # the nan-reductions and average convert their operand: numpy scalars
    assert measured["eager"]["nansum"] == measured["eager"]["average"] == "numpy.float32"
    assert measured["numpy"] == "numpy.bool"


SOURCE = ("import numpy as np\nimport jax.numpy as jnp\nfrom jax._src.lax.parallel import _emit_async_start_custom_call\n"
          "def rule(ctx, x, *, weights):\n    return _emit_async_start_custom_call('t', ctx, x, {{'v': {}}})\n")


@pytest.mark.parametrize("expression, fix", [
    ("np.sum(weights) > 0", None),  # weights may be a jax array: bool(...) would raise on a tracer
    ("np.max(weights) > 0", None),
    ("np.any(weights)", None),
    ("np.sum(weights) + 1 > 0", None),
    ("np.sum(np.asarray(weights)) > 0", "wrap in bool(...)"),  # a numpy operand: a numpy.bool_
    ("np.any(np.asarray(weights))", "wrap in bool(...)"),
    ("np.nansum(weights) > 0", "wrap in bool(...)"),  # converts its operand first
    ("np.sum(jnp.arange(3))", None),  # a jax.Array
])
def test_fix_only_where_the_operand_is_numpy(expression, fix):
    (found,) = check_source(SOURCE.format(expression), "t.py", with_fixes=True)
    assert found.code == "ACC101"
    assert (found.fix.description if found.fix else None) == fix


def test_message_names_both_possibilities():
    (found,) = check_source(SOURCE.format("np.sum(weights) > 0"), "t.py")
    assert found.message == (
        'value for key "v" is numpy.bool_, or a jax.Array if the operand of np.sum is one (numpy calls its .sum), '
        "which JAX cannot serialize to JSON: lowering raises ValueError; use bool(...) only where the operand is a "
        "numpy array: a traced jax.Array cannot be converted, and bind raises TypeError for one (unhashable)")
