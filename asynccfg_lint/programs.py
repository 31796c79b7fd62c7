"""JAX extension programs: primitives whose lowering rules are registered, and the ``bind`` calls that reach them.

JAX calls a registered lowering rule itself, as ``rule(ctx, *operands, **params)`` where
``params`` are the keywords of ``prim.bind(x, **params)`` (``jax._src.core.Primitive.bind``
stores them in the jaxpr equation, then ``jax._src.interpreters.mlir.jaxpr_subcomp`` passes them
to the rule). So a rule's keyword parameters that reach a sink are sinks of every
``prim.bind(...)``: this module finds the registrations of a module and turns the rule's derived
sinks into sinks of ``<primitive>.bind``. The rule's first parameter is the lowering context,
``mlir.LoweringRuleContext``, whatever its annotation says.

Registration forms (``jax/_src/interpreters/mlir.py``: ``register_lowering(prim, rule,
platform=None, inline=True, cacheable=True)``): ``mlir.register_lowering(prim, rule)``, the rule
given as ``functools.partial(rule, ...)``, and the decorator ``@partial(mlir.register_lowering, prim)``
(also called as ``partial(mlir.register_lowering, prim)(rule)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import libcst as cst

from asynccfg_lint.jax_facts import SinkSpec
from asynccfg_lint.parse import ParsedModule
from asynccfg_lint.resolution import enclosing, qualified_names

REGISTER_LOWERING = frozenset({"jax.interpreters.mlir.register_lowering",
                               "jax._src.interpreters.mlir.register_lowering"})
#: the type of a lowering rule's first parameter (``jax/_src/interpreters/mlir.py``)
LOWERING_RULE_CONTEXT = "jax._src.interpreters.mlir.LoweringRuleContext"
_PARTIAL = frozenset({"functools.partial"})


@dataclass(frozen=True)
class Registration:
    """One lowering rule registered for one primitive.

    Attributes:
        primitive: the fully qualified names the primitive expression may have (``pkg.ext.my_start_p``).
        rule: the fully qualified names of the rule function (``pkg.ext._my_lowering``).
        function: the rule's ``def`` when it is in this module, else ``None``.
        bound: the keywords a ``functools.partial`` rule already binds.
    """

    primitive: frozenset[str]
    rule: frozenset[str]
    function: cst.FunctionDef | None
    bound: frozenset[str]


def _argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    """The argument ``call`` passes at position ``index`` or as ``keyword``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[index] if index < len(positional) else None


def _partial_of_register(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """For ``functools.partial(mlir.register_lowering, prim)``: the primitive expression, else ``None``."""
    if not isinstance(expr, cst.Call) or not expr.args or not qualified_names(parsed, expr.func) & _PARTIAL:
        return None
    if not qualified_names(parsed, expr.args[0].value) & REGISTER_LOWERING:
        return None
    return _argument(expr.with_changes(args=expr.args[1:]), 0, "prim")


def _top_level_function(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.FunctionDef | None:
    """The module-level ``def`` the name ``expr`` is bound to, if it is one."""
    if not isinstance(expr, cst.Name):
        return None
    scope = parsed.scopes.get(parsed.module)
    if scope is None or expr.value not in scope:
        return None
    definitions = [a.node for a in scope[expr.value]]
    if len(definitions) == 1 and isinstance(definitions[0], cst.FunctionDef):
        return definitions[0]
    return None


def _registration(parsed: ParsedModule, primitive: cst.BaseExpression | None,
                  rule: cst.BaseExpression | None) -> Registration | None:
    if primitive is None or rule is None:
        return None
    bound: frozenset[str] = frozenset()
    if isinstance(rule, cst.Call) and rule.args and qualified_names(parsed, rule.func) & _PARTIAL:
        bound = frozenset(a.keyword.value for a in rule.args[1:] if a.keyword is not None)
        rule = rule.args[0].value
    names = frozenset(qualified_names(parsed, rule))
    function = _top_level_function(parsed, rule)
    primitives = frozenset(qualified_names(parsed, primitive))
    if not names or not primitives:
        return None
    return Registration(primitives, names, function, bound)


def _loop_rows(parsed: ParsedModule, call: cst.Call) -> list[dict[str, cst.BaseExpression]]:
    """For a call inside ``for p, f in [(a_p, a_rule), ...]`` (or ``zip([...], [...])``): each row's loop variables.

    JAX's own modules register rules this way (``jax/_src/lax/parallel.py``). Returns ``[{}]``
    outside such a loop, and ``[]`` when the loop's rows cannot be read.
    """
    loop = enclosing(parsed, call, (cst.For, cst.FunctionDef, cst.ClassDef))
    if not isinstance(loop, cst.For):
        return [{}]
    names = [loop.target] if isinstance(loop.target, cst.Name) else [
        e.value for e in loop.target.elements] if isinstance(loop.target, (cst.Tuple, cst.List)) else []
    if not names or not all(isinstance(n, cst.Name) for n in names):
        return []
    rows: list[list[cst.BaseExpression]] = []
    iterable = loop.iter
    if isinstance(iterable, cst.Call) and qualified_names(parsed, iterable.func) & {"builtins.zip"}:
        columns = [a.value for a in iterable.args]
        if len(columns) != len(names) or not all(isinstance(c, (cst.List, cst.Tuple)) for c in columns):
            return []
        rows = [list(row) for row in zip(*[[e.value for e in c.elements] for c in columns])]
    elif isinstance(iterable, (cst.List, cst.Tuple)):
        for element in iterable.elements:
            value = element.value
            if len(names) == 1:
                rows.append([value])
            elif isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names):
                rows.append([e.value for e in value.elements])
            else:
                return []
    else:
        return []
    return [{n.value: v for n, v in zip(names, row)} for row in rows]


def _substituted(expr: cst.BaseExpression | None, row: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """``expr``, or the row's value when ``expr`` is one of the loop's variables."""
    return row.get(expr.value, expr) if isinstance(expr, cst.Name) else expr


def registrations(parsed: ParsedModule) -> list[Registration]:
    """Every lowering rule registered in ``parsed`` (computed once per module)."""
    if "registrations" in parsed.facts:
        return parsed.facts["registrations"]
    found: list[Registration] = []
    for call in parsed.calls:
        names = qualified_names(parsed, call.func) if isinstance(call.func, (cst.Name, cst.Attribute)) else set()
        if names & REGISTER_LOWERING:  # mlir.register_lowering(prim, rule)
            primitive, rule = _argument(call, 0, "prim"), _argument(call, 1, "rule")
        else:  # partial(mlir.register_lowering, prim)(rule)
            primitive = _partial_of_register(parsed, call.func)
            rule = _argument(call, 0, "rule") if primitive is not None else None
        if primitive is None or rule is None:
            continue
        for row in _loop_rows(parsed, call):
            registration = _registration(parsed, _substituted(primitive, row), _substituted(rule, row))
            if registration is not None:
                found.append(registration)
    for statement in parsed.module.body:  # @partial(mlir.register_lowering, prim) on a def
        if not isinstance(statement, cst.FunctionDef):
            continue
        for decorator in statement.decorators:
            primitive = _partial_of_register(parsed, decorator.decorator)
            if primitive is not None and qualified_names(parsed, primitive):
                found.append(Registration(frozenset(qualified_names(parsed, primitive)),
                                          frozenset({f"{parsed.name.name}.{statement.name.value}"}), statement,
                                          frozenset()))
    parsed.facts["registrations"] = found
    return found


def is_rule_context(parsed: ParsedModule, param: cst.Param) -> bool:
    """True when ``param`` is the first parameter (the lowering context) of a rule registered in ``parsed``."""
    function = enclosing(parsed, param, (cst.FunctionDef,))
    if not isinstance(function, cst.FunctionDef):
        return False
    positional = [*function.params.posonly_params, *function.params.params]
    if not positional or positional[0] is not param:
        return False
    return any(r.function is function for r in registrations(parsed))


def bind_sinks(parsed: ParsedModule, sinks: Iterable[SinkSpec]) -> set[SinkSpec]:
    """The sinks of ``<primitive>.bind`` for the rules registered in ``parsed``, given the sinks known so far.

    A rule's derived sink for a parameter JAX passes as a keyword (``bind``'s keywords are the
    rule's keyword arguments) becomes a sink of the primitive's ``bind`` for that keyword; a rule
    whose ``**params`` is the config makes every ``bind`` keyword an entry. The new spec's
    ``used_at`` is the rule's qualified name; where in the rule the keyword reaches the config is
    looked up only when a finding names it (:func:`asynccfg_lint.checker.use_location`), since a
    position costs a code generation of the rule's whole module.
    """
    found: set[SinkSpec] = set()
    by_name: dict[str, list[SinkSpec]] = {}
    for spec in sinks:
        for name in spec.qualnames:
            by_name.setdefault(name, []).append(spec)
    for registration in registrations(parsed):
        binds = frozenset(f"{name}.bind" for name in registration.primitive)
        module = min(registration.primitive).rpartition(".")[0] or parsed.name.name
        for rule in registration.rule:
            for spec in by_name.get(rule, ()):
                if spec.position != 0:  # the first parameter is the lowering context
                    found.add(replace(spec, qualnames=binds, position=None, wrapper_module=module, used_at=rule))
    return found
