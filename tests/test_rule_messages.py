"""Every rule's messages as a user sees them: code, position, message and fix, pinned per template.

As ruff's snapshots pin a rule's output, each case below is a whole module and the one diagnostic
it must give, word for word; a meta-test then proves the rule table is complete: every code has
its rule module, its generated page, a fixture expectation and a case here, and every message
template of every rule module is reached by some case (so no wording goes unpinned).
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.rules import MODULES, RULES, RULES_BY_CODE, rule
from asynccfg_lint.run.selection import Selection
from tests.expectations import FIXTURES, expected_diagnostics
from tests.test_hard_inputs import ROWS as HARD_ROWS

DOCS_RULES = Path(__file__).resolve().parent.parent / "docs" / "rules"
EVERY_RULE = Selection(select=("ACC",))
HEAD = "import numpy as np\nfrom jax._src.lax.parallel import _emit_async_start_custom_call\n\n\n"
BIND = ("from jax._src import core\nfrom jax._src.interpreters import mlir\n"
        "from jax._src.lax.parallel import _emit_async_start_custom_call\n\n"
        "p = core.Primitive(\"p\")\n\n\ndef rule(ctx, x, *, groups):\n"
        "    return _emit_async_start_custom_call(\"all-gather-start\", ctx, x, {{\"replica_groups\": groups}})\n\n\n"
        "mlir.register_lowering(p, rule)\n\n\ndef start(x):\n    return p.bind(x, groups={})\n")
SCATTER = "from jax import lax\nimport numpy as np\n\n\ndef scatter(x):\n    return lax.psum_scatter_start(x, 'i', tiled={})\n"


def lowering(body: str) -> str:
    """A module whose lowering rule builds ``cfg`` with ``body`` and hands it to JAX's sink (line 6 on)."""
    sink = 'return _emit_async_start_custom_call("all-gather-start", ctx, x, cfg)\n'
    return HEAD + "def lowering(ctx, x, helper):\n" + textwrap.indent(textwrap.dedent(body) + sink, "    ")


@dataclass(frozen=True)
class Case:
    """One module and the one diagnostic it gives: 1-based line and column, code, message, fix (or ``None``).

    ``fix`` is ``(replacement, description, safety)``.
    """

    name: str
    source: str
    line: int
    column: int
    code: str
    message: str
    fix: tuple[str, str, str] | None = None


CASES = (
    Case("syntax-error", HEAD + "def f(:\n    pass\n", 5, 7, "ACC001", "file not analysed: syntax error: invalid syntax"),
    Case("unserializable", lowering('cfg = {"tiled": np.bool_(True)}\n'), 6, 21, "ACC101",
         'value for key "tiled" is numpy.bool_, which JAX cannot serialize to JSON: lowering raises ValueError; '
         "use bool(...)", ("bool(np.bool_(True))", "wrap in bool(...)", "safe")),
    Case("unhashable-parameter", SCATTER.format("np.array(True)"), 6, 49, "ACC101",
         'value for key "tiled" is numpy.ndarray, which JAX cannot hash: binding the primitive raises TypeError '
         "(jaxpr equation parameters must be hashable) before any config exists; pass a bool, int or float"),
    # sorted()/list() make a list, no more hashable than the set: neither fix nor remedy may say so
    Case("unhashable-set-parameter", SCATTER.format("{True}"), 6, 49, "ACC101",
         'value for key "tiled" is set, which JAX cannot hash: binding the primitive raises TypeError '
         "(jaxpr equation parameters must be hashable) before any config exists; pass a bool, int or float"),
    # under a key XLA parses as an array, a tuple of tuples is what to pass (measured: it lowers, compiles and runs)
    Case("unhashable-list-parameter", BIND.format("[list(range(8))]"), 16, 29, "ACC101",
         'value for key "replica_groups" is list, which JAX cannot hash: binding the primitive raises TypeError '
         "(jaxpr equation parameters must be hashable) before any config exists; pass a tuple instead (a tuple of "
         "tuples for a nested list) (used at example.py:9)"),
    Case("nested-entry-value", lowering('cfg = {"flags": {"big": np.bool_(True)}}\n'), 6, 29, "ACC101",
         'value for key "big" under key "flags" is numpy.bool_, which JAX cannot serialize to JSON: lowering raises '
         "ValueError; use bool(...)", ("bool(np.bool_(True))", "wrap in bool(...)", "safe")),
    Case("literal-int-key", lowering("cfg = {1: {2}}\n"), 6, 15, "ACC101",
         "value for key 1 is set, which JAX cannot serialize to JSON: lowering raises ValueError; use sorted(...) or "
         "list(...)", ("sorted({2})", "wrap in sorted(...)", "unsafe")),
    Case("tuple-key", lowering('cfg = {"groups": {(0, 1): "a"}}\n'), 6, 23, "ACC102",
         'key of the dict under key "groups" is tuple, which json cannot use as a key: lowering raises TypeError '
         '(keys must be str, int, float, bool or None); use a str key, e.g. "_".join(map(str, k))'),
    Case("enum-key", "import enum\n" + lowering('class Mode(enum.Enum):\n    A = 1\ncfg = {Mode.A: "a"}\n'), 9, 12,
         "ACC102", "config key is enum.Enum member Mode, which json cannot use as a key: lowering raises TypeError "
         "(keys must be str, int, float, bool or None); use k.value or k.name"),
    Case("non-finite", lowering('cfg = {"scale": float("nan")}\n'), 6, 21, "ACC103",
         "value for key \"scale\" is a non-finite float (NaN or Infinity): JAX emits non-standard JSON and XLA's "
         "compile fails (Failed to parse collective op config JSON); use a finite number"),
    Case("no-value-attribute", lowering('cfg = {"use_global_device_ids": True}\n'), 6, 37, "ACC104",
         'value for key "use_global_device_ids" is bool, which has no .value: _emit_async_start_custom_call reads '
         'cfg["use_global_device_ids"].value, so lowering raises AttributeError; use ir.BoolAttr.get(...)'),
    Case("no-handle-attribute", lowering('cfg = {"channel_handle": 3}\n'), 6, 30, "ACC104",
         'value for key "channel_handle" is int, which has no .handle: _emit_async_start_custom_call reads '
         'cfg["channel_handle"].handle, so lowering raises AttributeError; use hlo.ChannelHandle.get(...) or the '
         'plain "channel_id" key'),
    Case("wrong-json-type", lowering('cfg = {"tiled": "yes"}\n'), 6, 21, "ACC105",
         'value for key "tiled" is str (JSON string), but XLA parses "tiled" as a number or bool: compiling aborts '
         "the process or fails a RET_CHECK; pass a number or bool"),
    Case("wrong-length", lowering('cfg = {"permutation": [[0, 1], [1, 2, 3]]}\n'), 6, 36, "ACC105",
         'an element under key "permutation" has 3 elements, but XLA parses each element of "permutation" as a '
         "[source, target] pair: compiling fails a RET_CHECK; pass a [source, target] pair"),
    Case("beyond-int64", lowering('cfg = {"channel_id": 2**70}\n'), 6, 26, "ACC105",
         'value for key "channel_id" is a number outside the 64-bit integer range, but XLA reads "channel_id" as a '
         "64-bit integer: compiling aborts the process; keep it in the int64 range"),
    Case("unknown-type", lowering('cfg = {"tiled": helper()}\n'), 6, 21, "ACC201",
         'value for key "tiled" has a type the checker cannot determine; annotate it or convert it with '
         "int()/float()/bool()/str()"),
    Case("untraced-config", lowering("cfg = helper()\n"), 7, 70, "ACC201",
         "the config passed to the sink cannot be traced to a dict the checker can see; its keys and values are "
         "not checked"),
    Case("opaque-part", lowering('cfg = {"tiled": True, **helper()}\n'), 6, 29, "ACC201",
         "part of the config comes from code the checker cannot follow; its keys and values are not checked"),
)


def _shown(source: str) -> list[tuple[int, int, str, str, tuple[str, str, str] | None]]:
    diagnostics = check_source(source, "example.py", EVERY_RULE, with_fixes=True)
    return [(d.line, d.column, d.code, d.message,
             (d.fix.replacement, d.fix.description, d.fix.safety) if d.fix is not None else None) for d in diagnostics]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_message_and_fix(case):
    assert _shown(case.source) == [(case.line, case.column, case.code, case.message, case.fix)]


def _templates(module) -> list[str]:
    return [name for name, value in inspect.getmembers(module, inspect.isfunction) if value.__module__ == module.__name__]


def test_every_template_is_pinned_by_a_case(monkeypatch):
    reached: set[tuple[str, str]] = set()
    for module in MODULES:
        for name in _templates(module):
            def recording(*args, _module=module, _name=name, _original=getattr(module, name), **kwargs):
                reached.add((_module.RULE.code, _name))
                return _original(*args, **kwargs)
            monkeypatch.setattr(module, name, recording)
    for case in CASES:
        _shown(case.source)
    every = {(module.RULE.code, name) for module in MODULES for name in _templates(module)}
    assert sorted(every - reached) == []


def _fixture_codes() -> set[str]:
    readable = [path for path in FIXTURES.rglob("*.py") if "hard" not in path.relative_to(FIXTURES).parts]
    codes = {e.code for path in readable for e in expected_diagnostics(path)}
    return codes | {item[2] for row in HARD_ROWS.values() for item in row.check or ()}  # ACC001: the hard-input matrix


@pytest.mark.parametrize("code", [r.code for r in RULES])
def test_every_code_has_module_page_fixture_and_message_test(code):
    module = importlib.import_module(f"asynccfg_lint.rules.{code.lower()}")
    assert module in MODULES
    assert module.RULE is RULES_BY_CODE[code]
    assert module.SEVERITY == module.RULE.severity
    assert module.SEVERITY in (rule.ERROR, rule.WARNING)
    assert (DOCS_RULES / f"{code}.md").is_file()
    assert code in _fixture_codes()
    assert code in {case.code for case in CASES}


def test_the_table_is_the_rule_modules_in_code_order():
    assert [r.code for r in RULES] == sorted(r.code for r in RULES)
    assert [m.RULE for m in MODULES] == list(RULES)
    assert {path.stem.upper() for path in (Path(rule.__file__).parent).glob("acc*.py")} == set(RULES_BY_CODE)
