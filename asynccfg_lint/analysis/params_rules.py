"""Batching and differentiation rules: JAX calls them with an equation's params as keywords.

JAX calls its batching and differentiation rules the way it calls a lowering rule, with the
params of an equation of their primitive (the keywords of its ``bind``) as keywords
(:data:`PARAMS_TABLES`), so their keyword parameters hold what the ``bind`` calls of the
primitive pass (:func:`params_rules`, :func:`bind_calls`). A module-private function whose every
reference is a call is called only by those calls (:func:`visible_calls`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.jax_facts import primitive_words
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule
from asynccfg_lint.analysis.programs import PARTIAL, call_argument, loop_rows, registrations, substituted, top_level_function
from asynccfg_lint.analysis.resolution import qualified_names, receiver_alternatives

#: rule tables that JAX calls as ``rule(*leading, **params)``, ``params`` an equation's (its ``bind``'s
#: keywords), and what it passes positionally first; confirmed by ``tests/test_params_rules.py``:
#: ``fancy_primitive_batchers[p](axis_data, vals_in, dims_in, **params)`` (``BatchTrace.process_primitive``),
#: ``primitive_batchers[p](vals_in, dims_in, **params)`` (``PrimitiveBatchersProxy``, when some operand is
#: batched), ``primitive_transposes[p](cts, *operands, **params)`` (``ad.backward_pass``),
#: ``primitive_jvps[p](primals, tangents, **params)`` (``JVPTrace.process_primitive``), all in
#: ``jax/_src/interpreters/batching.py`` and ``ad.py``; ``dims_in`` is a tuple of ints and ``None``\ s.
PARAMS_TABLES: dict[str, tuple[str, ...]] = {
    f"{module}.{table}": leading
    for package in ("jax._src.interpreters", "jax.interpreters")
    for module, table, leading in (
        (f"{package}.batching", "fancy_primitive_batchers", ("axis_data", "vals_in", "dims_in")),
        (f"{package}.batching", "primitive_batchers", ("vals_in", "dims_in")),
        (f"{package}.ad", "primitive_transposes", ("cts",)),
        (f"{package}.ad", "primitive_jvps", ("primals", "tangents")),
    )
}
#: registration calls of the same kind: ``ad.deflinear2(p, rule)`` calls ``rule(cts, *operands, **params)``
#: (``ad.linear_transpose2``)
PARAMS_CALLS: dict[str, tuple[str, ...]] = {
    f"{package}.ad.deflinear2": ("cts",) for package in ("jax._src.interpreters", "jax.interpreters")}
#: the positional slot of a batching rule that holds the operands' batch dimensions
DIMS_IN = "dims_in"

#: per module: its batching/AD rules; the names registering each of those (by ``id`` of the rule's
#: ``def``); the bind calls of each primitive; each private function's visible calls
_PARAMS_RULES: ModuleMemo[list[ParamsRule]] = ModuleMemo(list)
_PARAMS_RULE_NAMES: ModuleMemo[dict[int, list[cst.BaseExpression]]] = ModuleMemo(dict)
_BIND_CALLS: ModuleMemo[dict[frozenset[str], list[cst.Call]]] = ModuleMemo(dict)
#: per module: qualified name of a ``bind`` attribute -> (position in ``parsed.calls``, call) of each call of it
_BIND_INDEX: ModuleMemo[dict[str, list[tuple[int, cst.Call]]]] = ModuleMemo(dict)
_VISIBLE_CALLS: ModuleMemo[dict[int, list[cst.Call] | None]] = ModuleMemo(dict)


@dataclass(frozen=True)
class ParamsRule:
    """A batching or differentiation rule JAX calls with an equation's params of ``primitive`` as keywords.

    Attributes:
        primitive: the fully qualified names the primitive expression may have.
        function: the rule's module-level ``def`` in this module.
        leading: what JAX passes positionally before the params (:data:`PARAMS_TABLES`).
        bound: how many positional arguments a ``functools.partial`` rule binds before those.
    """

    primitive: frozenset[str]
    function: cst.FunctionDef
    leading: tuple[str, ...]
    bound: int


def _params_rule(parsed: ParsedModule, primitive: cst.BaseExpression | None, rule: cst.BaseExpression | None,
                 leading: tuple[str, ...]) -> ParamsRule | None:
    if primitive is None or rule is None:
        return None
    bound = 0
    if isinstance(rule, cst.Call) and rule.args and qualified_names(parsed, rule.func) & PARTIAL:
        bound = sum(1 for a in rule.args[1:] if a.keyword is None and not a.star)
        rule = rule.args[0].value
    function = top_level_function(parsed, rule)
    primitives = frozenset(qualified_names(parsed, primitive))
    if function is None or not primitives:
        return None
    _PARAMS_RULE_NAMES.of(parsed).setdefault(id(function), []).append(rule)
    return ParamsRule(primitives, function, leading, bound)


def params_rules(parsed: ParsedModule) -> list[ParamsRule]:
    """Every batching or differentiation rule of this module registered in ``parsed`` (computed once per module).

    Forms: ``batching.fancy_primitive_batchers[p] = rule`` (and the other :data:`PARAMS_TABLES`),
    the rule given as ``functools.partial(rule, ...)``, ``ad.deflinear2(p, rule)``, also in a
    ``for p, f in [...]`` loop as for lowering rules.
    """
    known = _PARAMS_RULES.known(parsed)
    if known is not None:
        return known
    found: list[ParamsRule] = []
    for statement in _statements(parsed.module):
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = statement.targets[0].target
            if not (isinstance(target, cst.Subscript) and len(target.slice) == 1
                    and isinstance(target.slice[0].slice, cst.Index)):
                continue
            tables = [PARAMS_TABLES[n] for n in qualified_names(parsed, target.value) if n in PARAMS_TABLES]
            if not tables:
                continue
            pairs = [(target.slice[0].slice.value, statement.value, tables[0], statement)]
        elif isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
            call = statement.value
            calls = [PARAMS_CALLS[n] for n in qualified_names(parsed, call.func) if n in PARAMS_CALLS]
            if not calls:
                continue
            pairs = [(call_argument(call, 0, "primitive"), call_argument(call, 1, "transpose_rule"), calls[0], call)]
        else:
            continue
        for primitive, rule, leading, node in pairs:
            for row in loop_rows(parsed, node):
                registration = _params_rule(parsed, substituted(primitive, row), substituted(rule, row), leading)
                if registration is not None:
                    found.append(registration)
    return _PARAMS_RULES.put(parsed, found)


def _statements(node: cst.CSTNode) -> Iterable[cst.BaseSmallStatement]:
    """The small statements at the module's top level, also inside ``for``/``if`` blocks there."""
    for statement in getattr(node, "body", ()):
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.For, cst.If)):
            yield from _statements(statement.body)
        elif isinstance(statement, cst.IndentedBlock):
            yield from _statements(statement)


def bind_calls(parsed: ParsedModule, primitive: frozenset[str]) -> list[cst.Call]:
    """The calls ``<primitive>.bind(...)`` in ``parsed``, for the primitive's qualified names, in the order of
    ``parsed.calls``. The module's ``.bind`` calls are indexed by qualified name once (a module of 1,000
    primitives asks about each: one pass over its calls per primitive was quadratic)."""
    memo = _BIND_CALLS.of(parsed)
    if primitive not in memo:
        parsed.require_reaching(primitive_words(primitive))  # (a skeleton's left-out bodies that name it)
        index = _BIND_INDEX.known(parsed)
        if index is None:
            index = _BIND_INDEX.put(parsed, {})
            for position, call in enumerate(kept_calls(parsed.calls)):
                if type(call.func) is cst.Attribute and call.func.attr.value == "bind":
                    names = qualified_names(parsed, call.func) | {  # `prim.bind` of `prim = a_p if fast else b_p`
                        f"{name}.bind" for receiver in receiver_alternatives(parsed, call.func.value)
                        for name in qualified_names(parsed, receiver)}
                    for name in names:
                        index.setdefault(name, []).append((position, call))
        found = {position: call for name in primitive for position, call in index.get(f"{name}.bind", ())}
        memo[primitive] = [found[position] for position in sorted(found)]
    return memo[primitive]


def visible_calls(parsed: ParsedModule, function: cst.FunctionDef) -> list[cst.Call] | None:
    """Every call of the module-private ``function`` when the module shows all of them, else ``None``.

    A function whose name starts with ``_`` is private to its module by Python's convention
    (PEP 8), so its callers are this module's: when every reference to its name is the callee of
    a call, or its registration as a batching or differentiation rule (JAX is that caller), the
    calls are all there are. ``None`` for a public function, a lowering rule (JAX calls it with a
    ``bind``'s keywords, which are checked at the ``bind``), or a function referenced otherwise
    (passed as a value: anything may call it).
    """
    memo = _VISIBLE_CALLS.of(parsed)
    if id(function) in memo:
        return memo[id(function)]
    memo[id(function)] = None
    name = function.name.value
    scope = parsed.scopes.get(parsed.module)
    if not name.startswith("_") or scope is None or name not in scope \
            or any(r.function is function for r in registrations(parsed)):
        return None
    registered = {id(node) for r in params_rules(parsed) for node in _rule_names(parsed, r)}
    calls: list[cst.Call] = []
    for assignment in scope[name]:
        if assignment.node is not function:
            return None
        for access in assignment.references:
            node = access.node
            parent = parsed.parents.get(node)
            if isinstance(parent, cst.Call) and parent.func is node:
                calls.append(parent)
            elif id(node) not in registered:
                return None
    memo[id(function)] = calls
    return calls


def uncalled(parsed: ParsedModule, function: cst.FunctionDef) -> bool:
    """True when no call of the module-private top-level ``function`` is visible: no reference to
    its name in the module is the callee of a call, and it is neither a registered lowering rule nor
    a batching or differentiation rule (JAX calls those with the binds' keywords). It is passed as a
    value (to a registration this analysis does not recognise, say) or never used: what its
    parameters hold is known to no analysed code. A reference as the function of a
    ``functools.partial`` counts as a call (the sink finder follows the partial's calls)."""
    name = function.name.value
    scope = parsed.scopes.get(parsed.module)
    if not name.startswith("_") or not isinstance(parsed.parents.get(function), cst.Module) or scope is None \
            or name not in scope or any(r.function is function for r in registrations(parsed)) \
            or any(r.function is function for r in params_rules(parsed)):
        return False
    for assignment in scope[name]:
        for access in assignment.references:
            parent = parsed.parents.get(access.node)
            if isinstance(parent, cst.Call) and parent.func is access.node:
                return False
            call = parsed.parents.get(parent) if isinstance(parent, cst.Arg) else None
            if isinstance(call, cst.Call) and call.args and call.args[0] is parent \
                    and qualified_names(parsed, call.func) & {"functools.partial"}:
                return False  # `send = partial(_wrapper, "t")`: the partial's calls are its calls
    return True


def _rule_names(parsed: ParsedModule, rule: ParamsRule) -> list[cst.CSTNode]:
    """The names in ``parsed`` that register ``rule``'s function (its registrations' rule expressions)."""
    return _PARAMS_RULE_NAMES.of(parsed).get(id(rule.function), [])
