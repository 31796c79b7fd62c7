"""Batching and differentiation rules: how they are registered, and how real JAX calls them.

``asynccfg_lint.analysis.params_rules.PARAMS_TABLES`` models JAX's calling convention: the rule gets what JAX
passes positionally first (for batchers ``dims_in``, a tuple of ints and ``None``), then the
equation's params — its ``bind``'s keywords, unchanged — as keywords. The oracle test runs real
JAX 0.12.0.1 (``tests/oracle/params_rules_probe.py``) and checks each table against what its
rule received; the fast tests pin the registration forms and the callers the analysis follows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.parse import parse_source
from asynccfg_lint.analysis.params_rules import DIMS_IN, PARAMS_CALLS, PARAMS_TABLES, params_rules, visible_calls
from asynccfg_lint.run.selection import Selection
from tests.expectations import FIXTURES, Expected, expected_diagnostics

PROBE = Path(__file__).parent / "oracle" / "params_rules_probe.py"

FORMS = b'''
from functools import partial
from jax._src import core
from jax._src.interpreters import ad, batching, mlir
from jax.interpreters import batching as public_batching

a_p, b_p, c_p, d_p, e_p, f_p = (core.Primitive(n) for n in "abcdef")

def _fancy(axis_data, vals_in, dims_in, *, k): ...
def _plain(vals_in, dims_in, *, k): ...
def _bound(prim, axis_data, vals_in, dims_in, *, k): ...
def _transpose(cts, x, *, k): ...
def _jvp(primals, tangents, *, k): ...
def _lowering(ctx, x, *, k): ...
def _helper(x, k): return _fancy(None, (x,), (None,), k=k)
def _escapes(x): ...
def public(x): ...

batching.fancy_primitive_batchers[a_p] = _fancy
public_batching.primitive_batchers[b_p] = _plain
batching.fancy_primitive_batchers[c_p] = partial(_bound, c_p)
ad.deflinear2(d_p, _transpose)
ad.primitive_jvps[e_p] = _jvp
for p in [f_p]:
    ad.primitive_transposes[p] = _transpose
mlir.register_lowering(a_p, _lowering)
callbacks = [_escapes]
_helper(1, 2)
public(1)
'''


def test_registration_forms():
    parsed = parse_source(FORMS, "ext.py")
    found = {(min(r.primitive), r.function.name.value, r.leading, r.bound) for r in params_rules(parsed)}
    assert found == {
        ("ext.a_p", "_fancy", ("axis_data", "vals_in", "dims_in"), 0),
        ("ext.b_p", "_plain", ("vals_in", "dims_in"), 0),
        ("ext.c_p", "_bound", ("axis_data", "vals_in", "dims_in"), 1),
        ("ext.d_p", "_transpose", ("cts",), 0),
        ("ext.e_p", "_jvp", ("primals", "tangents"), 0),
        ("ext.f_p", "_transpose", ("cts",), 0),
    }


def test_visible_calls_only_of_private_functions_whose_every_reference_is_a_call_or_a_registration():
    parsed = parse_source(FORMS, "ext.py")
    functions = {s.name.value: s for s in parsed.module.body if isinstance(s, cst.FunctionDef)}
    calls = {name: visible_calls(parsed, f) for name, f in functions.items()}
    assert [len(c) if c is not None else None for c in (calls["_fancy"], calls["_helper"], calls["_plain"])] == [1, 1, 0]
    assert calls["_escapes"] is None  # passed as a value: anything may call it
    assert calls["public"] is None  # public: other modules may call it
    assert calls["_lowering"] is None  # a lowering rule: its keywords are checked at the binds


RULES = FIXTURES / "programs" / "batching_rules.py"


def test_batching_rule_fixture_has_no_unknown_value_with_acc201_selected():
    """The fixture's batcher, helper and public function compute every bind keyword from typed values."""
    diagnostics = check_source(RULES.read_bytes(), str(RULES), Selection(extend_select=("ACC201",)))
    assert sorted({Expected(d.line, d.column, d.code) for d in diagnostics}) == sorted(expected_diagnostics(RULES))
    assert not [d for d in diagnostics if d.code == "ACC201"]


@pytest.fixture(scope="module")
def called() -> dict:
    if sys.version_info < (3, 12):
        pytest.skip(f"jax 0.12.0.1 needs Python >= 3.12; this is {sys.version.split()[0]}")
    pytest.importorskip("jax")
    completed = subprocess.run([sys.executable, str(PROBE)], capture_output=True, text=True, timeout=600,
                               env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout)


@pytest.mark.jax
@pytest.mark.parametrize("table", sorted({n.rpartition(".")[2] for n in [*PARAMS_TABLES, *PARAMS_CALLS]}))
def test_jax_calls_each_rule_with_the_bind_keywords(called, table):
    leading = {n.rpartition(".")[2]: v for n, v in [*PARAMS_TABLES.items(), *PARAMS_CALLS.items()]}[table]
    calls = called["rules"][table]
    assert calls, f"real JAX never called the {table} rule"
    for call in calls:
        assert call["keywords"] == called["bound"] == {"k": "numpy.int64", "tiled": "builtins.bool"}
        operands = 1 if leading == ("cts",) else 0  # a transpose gets the operands after the cotangent
        assert len(call["positional"]) == len(leading) + operands
        if DIMS_IN in leading:
            assert call["positional"][leading.index(DIMS_IN)] == "builtins.tuple"
            assert set(call["dims_in"]) <= {"builtins.int", "builtins.NoneType"}
    if table == "fancy_primitive_batchers":  # called for an unbatched operand too, with None
        assert [c["dims_in"] for c in calls] == [["builtins.int"], ["builtins.NoneType"]]


@pytest.mark.jax
def test_canonicalize_axis_returns_an_int_as_its_annotation_says(called):
    """``jax._src.util.canonicalize_axis(...) -> int``: the return annotation the analysis trusts for
    ``all_gather_dimension=canonicalize_axis(axis, ...)`` in ``parallel.py`` (Python and numpy ints, a bool)."""
    assert called["canonicalize_axis"] == ["builtins.int"] * 5


#: binds of one primitive under two names, interleaved with another primitive's, and the hooks and rules of each
INDEXED = b'''
from jax._src import core
from jax.interpreters import mlir, batching
from pkg.ext import b_p as alias_b

a_p = core.Primitive("a")
b_p = alias_b
a_p.def_abstract_eval(lambda x, **kw: x)

def _rule(ctx, x, **kw):
    return [x]

mlir.register_lowering(a_p, _rule)
mlir.register_lowering(alias_b, _rule)
batching.primitive_batchers[alias_b] = lambda args, dims, **kw: (args[0], dims[0])

def use(x):
    first = a_p.bind(x, k=1)
    second = alias_b.bind(x, k=2)
    third = a_p.bind(x, k=3)
    return b_p.bind(first, k=4), second, third
'''


def test_bind_calls_hooks_and_rules_of_a_primitive_are_found_from_one_index_in_source_order():
    from asynccfg_lint.analysis.params_rules import bind_calls
    from asynccfg_lint.analysis.programs import primitive_hooks, rule_registrations

    parsed = parse_source(INDEXED, "m.py")
    keywords = lambda calls: [parsed.module.code_for_node(call.args[1].value) for call in calls]  # noqa: E731
    assert keywords(bind_calls(parsed, frozenset({"m.a_p"}))) == ["1", "3"]
    # `b_p = alias_b`: a bind of b_p is one of pkg.ext.b_p (the receiver's assigned value is followed)
    assert keywords(bind_calls(parsed, frozenset({"pkg.ext.b_p"}))) == ["2", "4"]
    assert keywords(bind_calls(parsed, frozenset({"pkg.ext.b_p", "m.b_p"}))) == ["2", "4"]  # both names, in order
    assert keywords(bind_calls(parsed, frozenset({"m.a_p", "m.b_p", "pkg.ext.b_p"}))) == ["1", "2", "3", "4"]
    assert bind_calls(parsed, frozenset({"m.c_p"})) == []
    code = parsed.module.code_for_node
    assert [code(hook) for hook in primitive_hooks(parsed, frozenset({"m.a_p"}))] == ["lambda x, **kw: x"]
    assert [code(hook) for hook in primitive_hooks(parsed, frozenset({"pkg.ext.b_p"}))] == [
        "lambda args, dims, **kw: (args[0], dims[0])"]
    rule = next(s for s in parsed.module.body if isinstance(s, cst.FunctionDef) and s.name.value == "_rule")
    assert sorted(sorted(r.primitive) for r in rule_registrations(parsed, rule)) == [["m.a_p"], ["pkg.ext.b_p"]]
