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
(also called as ``partial(mlir.register_lowering, prim)(rule)``); the rule may be a
``@staticmethod``/``@classmethod`` of a top-level class (``Lowerings.start``) or a ``lambda`` whose
body calls the function that builds the config (``lambda ctx, x, **kw: _rule(ctx, x, **kw)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import QualifiedName, QualifiedNameSource

from asynccfg_lint.analysis.callees import CallGraph, owner_class
from asynccfg_lint.analysis.elision import kept_calls, read_body
from asynccfg_lint.analysis.functions import bind_arguments, implicit_parameters, parameter_of, summarised_name
from asynccfg_lint.analysis.jax_facts import (
    DATACLASS_FIELDS,
    NAMED_TUPLE_FIELDS,
    PAIRS_DICT,
    PAIRS_KEYS,
    SinkKind,
    SinkSpec,
    method_read,
    primitive_words,
    read_method,
)
from asynccfg_lint.analysis.objects import class_function, member
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule, literal_index, subscript_index
from asynccfg_lint.analysis.resolution import (bindings_of_name, calls_in, enclosing, may_end_with, qualified_names,
                                              string_value)
from asynccfg_lint.analysis.scopes import walked_children

if TYPE_CHECKING:
    from asynccfg_lint.analysis.entries import Entry
    from asynccfg_lint.analysis.tracer import ForeignBinding

REGISTER_LOWERING = frozenset({"jax.interpreters.mlir.register_lowering",
                               "jax._src.interpreters.mlir.register_lowering"})
_REGISTER_LAST_PART = frozenset({"register_lowering"})
#: the type of a lowering rule's first parameter (``jax/_src/interpreters/mlir.py``)
LOWERING_RULE_CONTEXT = "jax._src.interpreters.mlir.LoweringRuleContext"
#: the catalog type of a primitive (``jax._src.core.Primitive``) and of its operands
PRIMITIVE, JAX_ARRAY = "jax._src.core.Primitive", "jax.Array"
PARTIAL = frozenset({"functools.partial"})


#: per module: its lowering rules' registrations (with the other modules read, by dotted name, when a
#: registrar imported from one was looked up there; ``None``: made without them); each function's bind
#: operands (by ``id`` of the ``def``)
_REGISTRATIONS: ModuleMemo[tuple[list[Registration], dict[str, ParsedModule | None] | None]] = \
    ModuleMemo(lambda: ([], None))
_BIND_OPERANDS: ModuleMemo[dict[int, dict[str, list[cst.BaseExpression]]]] = ModuleMemo(dict)
#: the qualified names the module's ``bind`` receivers may be (:func:`bind_visible`)
_BIND_NAMES: ModuleMemo[frozenset[str] | None] = ModuleMemo(lambda: None)
#: the module's calls named ``asdict``/``_asdict``, made once (``annotated_field_reads``)
_FIELD_CALLS: ModuleMemo[list[cst.Call] | None] = ModuleMemo(lambda: None)


class RegistrationPeers(Protocol):
    """The project as :func:`registrations` sees it (a ``Workspace``): a registrar imported from another
    module of the project (``from pkg.registry import lowering``) is read there."""

    def foreign(self, parsed: ParsedModule, expr: cst.BaseExpression) -> Sequence[ForeignBinding] | None:
        """Where the imported name ``expr`` of ``parsed`` is bound in other project modules, if known."""
        ...

    def module(self, name: str) -> ParsedModule | None:
        """The project module of dotted name ``name``, else ``None``."""
        ...

    def consulted(self) -> dict[str, ParsedModule | None]:
        """The other modules looked up so far, by dotted name."""
        ...

    def unchanged(self, read: dict[str, ParsedModule | None]) -> bool:
        """Whether the project still gives the parses ``read`` for their modules."""
        ...

    def may_mention(self, qualified: str, word: str) -> bool:
        """False when the project module holding ``qualified`` surely has no identifier ``word`` (no parse)."""
        ...

    @property
    def call_graph(self) -> CallGraph:
        """The check's call graph (:mod:`~asynccfg_lint.analysis.callees`)."""
        ...


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
    forwarding: Forwarding | None = None


@dataclass(frozen=True)
class Forwarding:
    """How a ``lambda`` rule passes the keywords JAX gives it on to the call its body is.

    JAX calls the lambda as ``rule(ctx, *operands, **params)``; ``lambda ctx, x, *, groups:
    _grouped(ctx, x, groups)`` hands ``bind``'s ``groups`` to ``_grouped``'s third parameter.

    Attributes:
        node: the lambda.
        positional: for each positional argument of the body's call, the lambda parameter it is
            (``None``: another expression).
        keywords: the call's keyword -> the lambda parameter it passes.
        rest: the call passes the lambda's ``**kw`` on (``_rule(ctx, x, **kw)``).
        named: the lambda's named parameters (keywords that never reach its ``**kw``).
    """

    node: cst.Lambda
    positional: tuple[str | None, ...]
    keywords: tuple[tuple[str, str], ...]
    rest: bool
    named: frozenset[str]

    def keyword_for(self, param: str, position: int | None) -> str | None:
        """The ``bind`` keyword that reaches the callee's parameter ``param`` (at ``position``), else ``None``."""
        for keyword, name in self.keywords:
            if keyword == param:
                return name
        if position is not None and position < len(self.positional):
            return self.positional[position]
        return param if self.rest and param not in self.named else None


def call_argument(call: cst.Call, index: int, keyword: str) -> cst.BaseExpression | None:
    """The argument ``call`` passes at position ``index`` or as ``keyword``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[index] if index < len(positional) else None


def _partial_of_register(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """For ``functools.partial(mlir.register_lowering, prim)``: the primitive expression, else ``None``."""
    if not isinstance(expr, cst.Call) or not expr.args or not qualified_names(parsed, expr.func) & PARTIAL:
        return None
    if not qualified_names(parsed, expr.args[0].value) & REGISTER_LOWERING:
        return None
    return call_argument(expr.with_changes(args=expr.args[1:]), 0, "prim")


def _lambda_parameters(lam: cst.Lambda) -> list[cst.Param]:
    params = lam.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _forwarding(lam: cst.Lambda) -> Forwarding | None:
    """How ``lam`` (whose body is a call) passes its parameters on; ``None`` when its body is no call."""
    call = lam.body
    if not isinstance(call, cst.Call):
        return None
    names = {p.name.value for p in _lambda_parameters(lam)}
    star = lam.params.star_kwarg.name.value if isinstance(lam.params.star_kwarg, cst.Param) else None

    def passed(value: cst.BaseExpression) -> str | None:
        return value.value if isinstance(value, cst.Name) and value.value in names else None

    positional = tuple(passed(a.value) for a in call.args if a.keyword is None and not a.star)
    keywords = tuple((a.keyword.value, name) for a in call.args
                     if a.keyword is not None and (name := passed(a.value)) is not None)
    rest = star is not None and any(a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == star
                                    for a in call.args)
    return Forwarding(lam, positional, keywords, rest, frozenset(names))


def _class_method(parsed: ParsedModule, expr: cst.Attribute) -> cst.FunctionDef | None:
    """The ``@staticmethod``/``@classmethod`` ``def`` that ``Cls.name`` (a top-level class of the module) is."""
    if not isinstance(expr.value, cst.Name):
        return None
    owner = _top_level_definition(parsed, expr.value)
    return _method_of(parsed, owner, expr.attr.value) if isinstance(owner, cst.ClassDef) else None


def _method_of(parsed: ParsedModule, owner: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The one ``@staticmethod``/``@classmethod`` ``def name`` of the top-level class ``owner``, else ``None``."""
    if not isinstance(owner.body, cst.IndentedBlock):
        return None
    methods = [s for s in owner.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    if len(methods) == 1 and summarised_name(parsed, methods[0]) is not None:
        return methods[0]
    return None


def top_level_function(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.FunctionDef | None:
    """The module-level ``def`` (or class's static or class method) the name ``expr`` is bound to, if it is one."""
    if isinstance(expr, cst.Attribute):
        return _class_method(parsed, expr)
    definition = _top_level_definition(parsed, expr)
    return definition if isinstance(definition, cst.FunctionDef) else None


def _top_level_definition(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.FunctionDef | cst.ClassDef | None:
    """The module-level ``def`` or ``class`` the name ``expr`` is bound to, if it is one."""
    if not isinstance(expr, cst.Name):
        return None
    scope = parsed.scopes.get(parsed.module)
    if scope is None or expr.value not in scope:
        return None
    definitions = [getattr(a, "node", None) for a in scope[expr.value]]  # a builtin's assignment has none
    if len(definitions) == 1 and isinstance(definitions[0], (cst.FunctionDef, cst.ClassDef)):
        return definitions[0]
    return None


def _registration(parsed: ParsedModule, primitive: cst.BaseExpression | None,
                  rule: cst.BaseExpression | None, row: dict[str, cst.BaseExpression] | None = None,
                  peers: RegistrationPeers | None = None) -> Registration | None:
    """The registration of ``rule`` for ``primitive`` (a loop's ``row`` gives what its variables stand for),
    or ``None`` when either is not a name this module resolves. An element of a table of primitives
    (``m_p[_n]`` in a loop, ``m_p[125]``) is named with its literal key (``pkg.ops.m_p[125]``), as its binds
    are (:meth:`~asynccfg_lint.analysis.parse.ParsedModule.qualified_names`), so each element's binds meet
    its own rule only."""
    if primitive is None or rule is None:
        return None
    bound: frozenset[str] = frozenset()
    if isinstance(rule, cst.Call) and rule.args and qualified_names(parsed, rule.func) & PARTIAL:
        bound = frozenset(a.keyword.value for a in rule.args[1:] if a.keyword is not None)
        rule = rule.args[0].value
    forwarding = _forwarding(rule) if isinstance(rule, cst.Lambda) else None
    if isinstance(rule, cst.Lambda):
        if forwarding is None:
            return None
        rule = forwarding.node.body.func
    names = frozenset(qualified_names(parsed, rule))
    function = top_level_function(parsed, rule)
    made = substituted(rule.func, row or {}) if isinstance(rule, cst.Call) else None  # (`rule_cls()` of a loop's row)
    cls = _top_level_definition(parsed, made) if made is not None else None
    if isinstance(cls, cst.ClassDef):  # register_lowering(p, ShiftRule()): JAX calls the instance's __call__
        owner, function = _instance_call(parsed, cls)
        if function is not None:
            names = frozenset({f"{parsed.name.name}.{owner.name.value}.__call__"})
    if made is not None and function is None:  # a class of another module, or a base there defining __call__
        names = _instance_calls(parsed, made, isinstance(cls, cst.ClassDef), peers)
        if not names:
            return None
    if forwarding is not None:  # the callee's first parameter is the context when the lambda passes its own on
        first = _lambda_parameters(forwarding.node)[:1]
        if not first or forwarding.positional[:1] != (first[0].name.value,):
            function = None
    primitives = frozenset(qualified_names(parsed, primitive))
    if isinstance(primitive, cst.Subscript) and (index := subscript_index(primitive)) is not None:
        key = literal_index(substituted(index, row) if row else index)
        if key is not None:
            primitives = frozenset(f"{name}[{key}]" for name in qualified_names(parsed, primitive.value))
    if not names or not primitives:
        return None
    return Registration(primitives, names, function, bound, forwarding)


def _instance_calls(parsed: ParsedModule, made: cst.BaseExpression, local: bool,
                    peers: RegistrationPeers | None) -> frozenset[str]:
    """The qualified names of the ``__call__`` methods an instance made by calling ``made`` runs, by the call
    graph (a class imported from another module of the project, or a base there defining it; ``local``: ``made``
    names a class of this module); empty when
    unknown, and for a name of JAX's own modules (``mlir.lower_fun(fn)``: a factory, looked up only at the
    cost of parsing ``mlir.py``; :func:`_registration_words` leaves JAX's registrars alike)."""
    graph = peers.call_graph if peers is not None else None
    names_made = qualified_names(parsed, made)
    if graph is None or not local and not any(not q.startswith("jax.") and peers.may_mention(q, "__call__")
                                              for q in names_made):
        return frozenset()  # (`mlir.lower_fun(fn)`: JAX's own factories are not followed, as for registrars)
    names: set[str] = set()
    for made_class in graph.values(parsed, made, 0) or ():
        if not isinstance(made_class.node, cst.ClassDef) or made_class.instance:
            return frozenset()
        method = graph.method(made_class.home, made_class.node, "__call__")
        owner = owner_class(method.home, method.node) if method is not None and isinstance(method.node, cst.FunctionDef) else None
        if owner is None or all(statement is not owner for statement in method.home.module.body):
            return frozenset()
        names.add(f"{method.home.name.name}.{owner.name.value}.__call__")
    return frozenset(names)


def _instance_call(parsed: ParsedModule, cls: cst.ClassDef,
                   depth: int = 0) -> tuple[cst.ClassDef, cst.FunctionDef | None]:
    """The class of this module defining the ``__call__`` an instance of ``cls`` runs (``cls``, else its first
    base of this module that does, depth first), with that ``def``; ``(cls, None)`` when none of them does."""
    found = class_function(cls, "__call__")
    if found is not None:
        return cls, found
    for base in cls.bases:
        parent = _top_level_definition(parsed, base.value) if base.keyword is None and depth < 8 else None
        if isinstance(parent, cst.ClassDef):
            owner, function = _instance_call(parsed, parent, depth + 1)
            if function is not None:
                return owner, function
    return cls, None


def loop_rows(parsed: ParsedModule, call: cst.Call) -> list[dict[str, cst.BaseExpression]]:
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
    elif isinstance(_table_display(parsed, iterable), cst.Dict):  # for p, rule in RULES.items(): its pairs
        table, view = _table_display(parsed, iterable), _view(iterable)
        for element in table.elements:
            if not isinstance(element, cst.DictElement):
                return []
            row = {"items": [element.key, element.value], "keys": [element.key], "values": [element.value]}[view]
            if len(row) != len(names):
                return []
            rows.append(row)
    elif isinstance(iterable := _table_display(parsed, iterable) or iterable, (cst.List, cst.Tuple)):
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


def _view(iterable: cst.BaseExpression) -> str:
    """``"items"``, ``"keys"`` or ``"values"`` for a call of that dict method, else ``"keys"`` (a dict iterates its keys)."""
    if isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute) \
            and iterable.func.attr.value in ("items", "keys", "values"):
        return iterable.func.attr.value
    return "keys"


def _table_display(parsed: ParsedModule, iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """The display a loop runs over through a name bound once to it: a dict display for ``RULES``,
    ``RULES.items()``, ``.keys()`` or ``.values()``; a list or tuple display for ``RULES``; else ``None``."""
    viewed = isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute) \
        and iterable.func.attr.value in ("items", "keys", "values")
    source = iterable.func.value if viewed else iterable
    if not isinstance(source, cst.Name):
        return None
    bindings = bindings_of_name(parsed, source)
    if not bindings or len(bindings) != 1 or bindings[0].augmented is not None:
        return None
    value = bindings[0].value
    return value if isinstance(value, cst.Dict) or isinstance(value, (cst.List, cst.Tuple)) and not viewed else None


def substituted(expr: cst.BaseExpression | None, row: dict[str, cst.BaseExpression]) -> cst.BaseExpression | None:
    """``expr``, or the row's value when ``expr`` is one of the loop's variables."""
    return row.get(expr.value, expr) if isinstance(expr, cst.Name) else expr


def _names_register(parsed: ParsedModule, expr: cst.BaseExpression) -> bool:
    """True when ``expr`` is ``mlir.register_lowering`` (either module's), or fetches it by a constant name:
    ``getattr(mlir, "register_lowering")`` (``builtins.getattr`` of the module, as Python evaluates it)."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return may_end_with(parsed, expr, _REGISTER_LAST_PART) and bool(qualified_names(parsed, expr) & REGISTER_LOWERING)
    if not isinstance(expr, cst.Call) or len(expr.args) != 2 or any(a.star or a.keyword for a in expr.args) \
            or not qualified_names(parsed, expr.func) & {"builtins.getattr"}:
        return False
    attribute = string_value(expr.args[1].value)
    modules = qualified_names(parsed, expr.args[0].value)
    return attribute is not None and bool({f"{module}.{attribute}" for module in modules} & REGISTER_LOWERING)


def is_register(parsed: ParsedModule, func: cst.BaseExpression) -> bool:
    """True when ``func`` is ``mlir.register_lowering`` (either module's, also fetched as
    ``getattr(mlir, "register_lowering")``), or a name bound once to it (``register = mlir.register_lowering``,
    then ``register(prim, rule)``)."""
    if _names_register(parsed, func):
        return True
    bindings = bindings_of_name(parsed, func) if isinstance(func, cst.Name) else None
    return bool(bindings) and len(bindings) == 1 and bindings[0].value is not None \
        and _names_register(parsed, bindings[0].value)


def _imported(parsed: ParsedModule, expr: cst.BaseExpression,
              peers: RegistrationPeers | None) -> ForeignBinding | None:
    """The one binding, in another project module, of the name ``expr`` imported into ``parsed``
    (``from pkg.registry import register``), or of the attribute ``expr`` of an imported module
    (``registry.lowering``), else ``None`` (not imported, not the project's, ambiguous)."""
    if peers is None or not isinstance(expr, (cst.Name, cst.Attribute)) or isinstance(expr, cst.Attribute) \
            and not _may_hold_registrar(parsed, expr, peers):
        return None
    found = peers.foreign(parsed, expr)
    return found[0] if found is not None and len(found) == 1 else None


def _may_hold_registrar(parsed: ParsedModule, expr: cst.Attribute, peers: RegistrationPeers) -> bool:
    """False when the project module ``expr`` (``registry.lowering``, ``RuleRegistry.add``) belongs to surely
    defines no registrar: its text never names ``register_lowering`` (so such attributes, common in any
    package, cost no parse of their modules)."""
    return any(peers.may_mention(name, "register_lowering") for name in qualified_names(parsed, expr))


def _imported_register(parsed: ParsedModule, func: cst.BaseExpression, peers: RegistrationPeers | None) -> bool:
    """True when ``func`` is a name imported from a project module that binds it once to
    ``register_lowering`` there (``register = mlir.register_lowering`` in ``pkg/registry.py``)."""
    foreign = _imported(parsed, func, peers)
    value = foreign.binding.value if foreign is not None else None
    return isinstance(value, (cst.Name, cst.Attribute)) \
        and bool(qualified_names(foreign.home, value) & REGISTER_LOWERING)


def _may_be_rule(parsed: ParsedModule, rule: cst.BaseExpression | None) -> bool:
    """True when ``rule`` may be a lowering rule this module defines (a top-level ``def`` or class method,
    a ``functools.partial`` of one, a ``lambda``): only then is an imported callee looked up as a registrar."""
    if isinstance(rule, cst.Call) and rule.args:
        rule = rule.args[0].value
    return isinstance(rule, cst.Lambda) or rule is not None and top_level_function(parsed, rule) is not None


#: how many registrar functions deep a registration is followed (``_register`` calling ``_register_for``)
REGISTRAR_DEPTH = 3
#: per module: each registrar function's registered parameters (see :func:`_registered_parameters`), by whether
#: other project modules could be read (a registrar passing them on to an imported one is found only then)
_REGISTRARS: ModuleMemo[dict[tuple[cst.FunctionDef, bool], tuple[str, str] | None]] = ModuleMemo(dict)
#: per module: the calls of its kept code by their nearest enclosing ``def`` (see :func:`_calls_by_function`)
_CALLS_BY_FUNCTION: ModuleMemo[dict[cst.FunctionDef | None, list[cst.Call]]] = ModuleMemo(dict)


def _calls_by_function(parsed: ParsedModule) -> dict[cst.FunctionDef | None, list[cst.Call]]:
    """``parsed``'s calls (of the code a skeleton kept: :func:`~asynccfg_lint.analysis.elision.kept_calls`) by their
    nearest enclosing ``def`` (``None``: outside any), each list in the module's order. Made once per module: a
    module of many registrars (``jax/_src/lax/parallel.py``: 16) asked each call's function once per registrar."""
    index = _CALLS_BY_FUNCTION.known(parsed)
    if index is None:
        index = _CALLS_BY_FUNCTION.of(parsed)
        for call in kept_calls(parsed.calls):
            index.setdefault(enclosing(parsed, call, (cst.FunctionDef,)), []).append(call)
    return index


def registrar_application(parsed: ParsedModule, call: cst.Call,
                          peers: RegistrationPeers | None) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """For ``_register(p, _rule)`` of a registrar function, ``def _register(prim, fn): ...;
    mlir.register_lowering(prim, fn)``, defined in this module or imported from a project module whose text
    names ``register_lowering`` (``peers``; not JAX's own modules, which the jax tree checked as a project
    holds: ``mlir.lower_fun(fn, ...)`` would parse ``mlir.py``): the call's primitive and rule expressions (in ``parsed``; a
    loop's variables, ``for prim, rule in [...]: _register(prim, rule)``, as written), else ``None``. Only
    for a call one of whose arguments may be a rule of this module (:func:`_may_be_rule`, in any of its
    loop's rows), so the other calls of a module cost no lookup. The registrar's parameters are matched
    by position or keyword (keyword-only ones by keyword); it may pass them on to another registrar
    (:func:`_registered_parameters`).
    """
    if len(call.args) < 2 or any(a.star for a in call.args) or not any(
            _may_be_rule(parsed, substituted(a.value, row)) for row in loop_rows(parsed, call) for a in call.args):
        return None
    found = (parsed, function) if (function := top_level_function(parsed, call.func)) is not None else None
    callee = qualified_names(parsed, call.func)
    if found is None and peers is not None and not all(name.startswith("jax.") for name in callee) \
            and any(peers.may_mention(name, "register_lowering") for name in callee):
        found = project_function(parsed, call.func, peers)
    names = _registered_parameters(*found, peers) if found is not None else None
    if found is None or names is None:
        return None
    primitive, rule = (_argument_for(call, found[1], name) for name in names)
    return (primitive, rule) if primitive is not None and rule is not None else None


def _argument_for(call: cst.Call, function: cst.FunctionDef, parameter: str) -> cst.BaseExpression | None:
    """What ``call`` of ``function`` passes for its ``parameter``: by position or keyword, or by keyword only."""
    positional = [p.name.value for p in [*function.params.posonly_params, *function.params.params]]
    positional = positional[implicit_parameters(function):]
    index = positional.index(parameter) if parameter in positional else len(call.args)  # keyword-only
    return call_argument(call, index, parameter)


def _registered_parameters(home: ParsedModule, registrar: cst.FunctionDef, peers: RegistrationPeers | None,
                           depth: int = 0) -> tuple[str, str] | None:
    """The names of ``registrar``'s parameters it registers as a primitive and its rule: ``prim`` and ``rule`` of
    ``mlir.register_lowering(prim, rule)`` in its body, or passed on to another registrar function (up to
    :data:`REGISTRAR_DEPTH` deep), else ``None``. A ``*args`` or ``**kwargs`` pass-through is not followed."""
    known, key = _REGISTRARS.of(home), (registrar, peers is not None)
    if key in known:
        return known[key]
    read_body(registrar)  # (a skeleton's left-out body is parsed first: its calls are the registrar's)
    known[key] = None  # a registrar that calls itself registers nothing more
    parameters = {p.name.value for p in [*registrar.params.posonly_params, *registrar.params.params,
                                         *registrar.params.kwonly_params]}
    for inner in _calls_by_function(home).get(registrar, ()):
        if is_register(home, inner.func):
            pair = [call_argument(inner, 0, "prim"), call_argument(inner, 1, "rule")]
        elif depth < REGISTRAR_DEPTH and not any(a.star for a in inner.args) \
                and sum(isinstance(a.value, cst.Name) and a.value.value in parameters for a in inner.args) >= 2 \
                and (found := project_function(home, inner.func, peers)) is not None \
                and (names := _registered_parameters(*found, peers, depth + 1)) is not None:
            pair = [_argument_for(inner, found[1], name) for name in names]
        else:
            continue
        if all(isinstance(e, cst.Name) and e.value in parameters for e in pair):
            known[key] = (pair[0].value, pair[1].value)  # type: ignore[union-attr]  # both are names
            break
    return known[key]


def _registering_call(parsed: ParsedModule, function: cst.FunctionDef) -> cst.Call | None:
    """The ``register_lowering(prim, fn)`` statement of ``function``'s body that registers its one
    parameter ``fn`` (the decorated function), else ``None``."""
    params = function.params
    if len(params.params) != 1 or params.posonly_params or params.kwonly_params \
            or isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or params.star_kwarg is not None \
            or not isinstance(function.body, cst.IndentedBlock):
        return None
    fn = params.params[0].name.value
    for statement in function.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and is_register(parsed, call.func):
                rule = call_argument(call, 1, "rule")
                if isinstance(rule, cst.Name) and rule.value == fn:
                    return call
    return None


def project_function(parsed: ParsedModule, expr: cst.BaseExpression,
                     peers: RegistrationPeers | None) -> tuple[ParsedModule, cst.FunctionDef] | None:
    """The module-level ``def`` (or class's static or class method) the name ``expr`` is (a decorator, a
    registrar, a called function), with the module that defines it: ``parsed``, or the project module it is
    imported from (``from pkg.registry import lowering``, ``registry.lowering``, ``from pkg.registry import
    RuleRegistry``: ``RuleRegistry.add``)."""
    function = top_level_function(parsed, expr)
    if function is not None:
        return parsed, function
    foreign = _imported(parsed, expr, peers)
    if foreign is not None and isinstance(foreign.binding.definition, cst.FunctionDef) \
            and top_level_function(foreign.home, foreign.binding.definition.name) is foreign.binding.definition:
        return foreign.home, foreign.binding.definition
    owner = _imported(parsed, expr.value, peers) if isinstance(expr, cst.Attribute) and peers is not None \
        and _may_hold_registrar(parsed, expr, peers) else None
    if owner is not None and isinstance(owner.binding.definition, cst.ClassDef) \
            and _top_level_definition(owner.home, owner.binding.definition.name) is owner.binding.definition:
        method = _method_of(owner.home, owner.binding.definition, expr.attr.value)  # RuleRegistry.add
        return (owner.home, method) if method is not None else None
    return None


def _registering_decorator(parsed: ParsedModule, decorator: cst.BaseExpression,
                           peers: RegistrationPeers | None = None,
                           statement: cst.FunctionDef | None = None) -> tuple[ParsedModule, cst.BaseExpression] | None:
    """For a decorator that registers the function it decorates, defined in this module or in the project
    module it is imported from (``peers``): the primitive expression with the module it belongs to, else
    ``None``. Two forms, followed only as written: ``@lowering(prim)`` of ``def lowering(prim): def
    deco(fn): mlir.register_lowering(prim, fn); return fn; return deco`` (the primitive is the decorator
    call's argument for ``lowering``'s parameter, in ``parsed``), and ``@register_p`` of ``def
    register_p(fn): mlir.register_lowering(p, fn); return fn`` (``p`` a module-level name of the
    decorator's module). The factory may be a module's attribute (``@registry.lowering(prim)``) or a class's
    static or class method (``@RuleRegistry.add(prim)``), and its ``deco`` may instead store the pair in a
    container that a loop registers later (:func:`_stored_primitive`; ``statement``: the decorated ``def``)."""
    if isinstance(decorator, cst.Name):
        found = project_function(parsed, decorator, peers)
        if found is None:
            return None
        home, function = found
        call = _registering_call(home, function)
        primitive = call_argument(call, 0, "prim") if call is not None else None
        return (home, primitive) if isinstance(primitive, (cst.Name, cst.Attribute)) \
            and parameter_of(home, primitive, function) is None else None
    if not isinstance(decorator, cst.Call) or not isinstance(decorator.func, (cst.Name, cst.Attribute)) \
            or any(a.star for a in decorator.args):
        return None
    found = project_function(parsed, decorator.func, peers)
    if found is None:
        return None
    home, outer = found
    if not isinstance(outer.body, cst.IndentedBlock) or not outer.body.body:
        return None
    last = outer.body.body[-1]
    returned = last.body[0].value if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 \
        and isinstance(last.body[0], cst.Return) else None
    inner = next((s for s in outer.body.body if isinstance(s, cst.FunctionDef) and isinstance(returned, cst.Name)
                  and s.name.value == returned.value and not s.decorators), None)
    call = _registering_call(home, inner) if inner is not None else None
    primitive = call_argument(call, 0, "prim") if call is not None else None
    if primitive is None and inner is not None and statement is not None:  # cls._rules.append((prim, fn)), later a loop
        primitive = _stored_primitive(parsed, home, outer, inner, statement, peers)
    param = parameter_of(home, primitive, outer) if primitive is not None else None
    positional = [*outer.params.posonly_params, *outer.params.params][implicit_parameters(outer):]
    index = next((i for i, p in enumerate(positional) if p.name.value == param), None)
    if param is None or index is None:
        return None
    argument = call_argument(decorator, index, param)
    return (parsed, argument) if argument is not None else None


def _container(home: ParsedModule, expr: cst.BaseExpression, function: cst.FunctionDef,
               owner: cst.ClassDef | None) -> str | None:
    """Which container ``expr`` (in ``function`` of ``home``) is, as a key: ``"Cls.attr"`` for
    ``cls.attr`` (``cls`` a ``@classmethod``'s first parameter) or ``Cls.attr`` of the class ``owner``
    ``function`` belongs to; ``"name"`` for a module-level name of ``home`` (not bound in ``function``)."""
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and owner is not None:
        first = [*function.params.posonly_params, *function.params.params][:1]
        implicit = implicit_parameters(function) and first and first[0].name.value == expr.value.value
        if implicit or expr.value.value == owner.name.value and parameter_of(home, expr.value, function) is None:
            return f"{owner.name.value}.{expr.attr.value}"
        return None
    if isinstance(expr, cst.Name) and parameter_of(home, expr, function) is None:
        scope = home.scopes.get(home.module)
        return expr.value if scope is not None and expr.value in scope else None
    return None


def _stored_primitive(parsed: ParsedModule, home: ParsedModule, outer: cst.FunctionDef, inner: cst.FunctionDef,
                      statement: cst.FunctionDef, peers: RegistrationPeers | None) -> cst.BaseExpression | None:
    """For a decorator factory ``outer`` (of ``home``) whose ``deco`` (``inner``) stores the decorated function
    with a primitive in a container, ``cls._rules.append((prim, fn))``, that a loop of another function
    registers, ``for prim, fn in cls._rules: mlir.register_lowering(prim, fn)``: the ``prim`` expression
    (of ``home``). Only when ``parsed`` calls that function at its top level after the decorated ``statement``
    (``RuleRegistry.install()``), so the loop runs once the rule is stored; else ``None``."""
    params = inner.params
    if len(params.params) != 1 or not isinstance(inner.body, cst.IndentedBlock):
        return None
    fn = params.params[0].name.value
    owner = enclosing(home, outer, (cst.ClassDef, cst.FunctionDef))
    owner = owner if isinstance(owner, cst.ClassDef) else None
    stored: tuple[str, cst.BaseExpression] | None = None
    for line in inner.body.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" \
                    and len(call.args) == 1 and isinstance(pair := call.args[0].value, cst.Tuple) \
                    and len(pair.elements) == 2 and isinstance(pair.elements[1].value, cst.Name) \
                    and pair.elements[1].value.value == fn and not any(e.value is None for e in pair.elements):
                key = _container(home, call.func.value, outer, owner)
                if key is not None:
                    stored = (key, pair.elements[0].value)
    if stored is None:
        return None
    for loop in [n for n in home.calls if is_register(home, n.func)]:
        function = enclosing(home, loop, (cst.FunctionDef,))
        statement_of = enclosing(home, loop, (cst.For,))
        if not isinstance(function, cst.FunctionDef) or not isinstance(statement_of, cst.For) \
                or enclosing(home, statement_of, (cst.FunctionDef,)) is not function:
            continue
        target = statement_of.target
        names = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
        if len(names) != 2 or not all(isinstance(n, cst.Name) for n in names):
            continue
        primitive, rule = call_argument(loop, 0, "prim"), call_argument(loop, 1, "rule")
        if not (isinstance(primitive, cst.Name) and isinstance(rule, cst.Name)
                and (primitive.value, rule.value) == (names[0].value, names[1].value)):
            continue
        function_owner = enclosing(home, function, (cst.ClassDef, cst.FunctionDef))
        function_owner = function_owner if isinstance(function_owner, cst.ClassDef) else None
        if function_owner is not owner or _container(home, statement_of.iter, function, owner) != stored[0]:
            continue
        if _called_after(parsed, statement, home, function, peers):
            return stored[1]
    return None


def _called_after(parsed: ParsedModule, statement: cst.FunctionDef, home: ParsedModule, function: cst.FunctionDef,
                  peers: RegistrationPeers | None) -> bool:
    """True when a top-level expression statement of ``parsed`` after ``statement`` calls ``function`` (of
    ``home``) with no arguments: ``RuleRegistry.install()``, ``registry.install()``, ``install()``."""
    body = list(parsed.module.body)
    if statement not in body:
        return False
    for line in body[body.index(statement) + 1:]:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and not call.args \
                    and (found := project_function(parsed, call.func, peers)) is not None \
                    and found[0] is home and found[1] is function:
                return True
    return False


def _registrar_parameter(parsed: ParsedModule, call: cst.Call, rule: cst.BaseExpression) -> bool:
    """True when the rule ``call`` registers is a parameter of the function it is in (``def deco(fn):
    mlir.register_lowering(prim, fn)``): a registrar, whose registrations are where it is applied."""
    function = enclosing(parsed, call, (cst.FunctionDef,))
    return isinstance(function, cst.FunctionDef) and parameter_of(parsed, rule, function) is not None


def registrations(parsed: ParsedModule, peers: RegistrationPeers | None = None) -> list[Registration]:
    """Every lowering rule registered in ``parsed``.

    With ``peers`` (the summary's and the check's workspace), a registrar imported from another project
    module is read there (``from pkg.registry import lowering, register``: a decorator factory or an
    alias of ``register_lowering``), and that module becomes a dependency of the outcome, as every module
    a workspace reads. Computed once per module: without ``peers``, the last result is given (the one
    made with them, when a summary ran first, as it does); with them, it is made again when a module it
    read is a different parse now (an edited registry, in the language server).
    """
    known = _REGISTRATIONS.known(parsed)
    if known is not None and (peers is None or known[1] is not None
                              and peers.unchanged(known[1])):
        return known[0]
    if parsed.elided:  # a skeleton: a left-out body registers only through a name that reaches a registration
        parsed.require(*_registration_words(parsed, peers))
    return _REGISTRATIONS.put(parsed, (_registrations(parsed, kept_calls(parsed.calls), peers),
                                       peers.consulted() if peers is not None else None))[0]


def _registrations(parsed: ParsedModule, calls: list[cst.Call], peers: RegistrationPeers | None) -> list[Registration]:
    """The registrations of :func:`registrations` made by ``calls`` (the module's) and by decorators."""
    found: list[Registration] = []
    for call in calls:
        if is_register(parsed, call.func):  # mlir.register_lowering(prim, rule), or through an alias of it
            primitive, rule = call_argument(call, 0, "prim"), call_argument(call, 1, "rule")
        elif (primitive := _partial_of_register(parsed, call.func)) is not None:  # partial(register_lowering, p)(rule)
            rule = call_argument(call, 0, "rule")
        elif (applied := registrar_application(parsed, call, peers)) is not None:  # _register(p, rule) of a registrar
            primitive, rule = applied
        else:  # register(prim, rule) of `register = mlir.register_lowering` in another module of the project
            primitive, rule = call_argument(call, 0, "prim"), call_argument(call, 1, "rule")
            if not _may_be_rule(parsed, rule) or not _imported_register(parsed, call.func, peers):
                continue
        if primitive is None or rule is None or _registrar_parameter(parsed, call, rule):
            continue
        for row in loop_rows(parsed, call):
            registration = _registration(parsed, substituted(primitive, row), substituted(rule, row), row, peers)
            if registration is not None:
                found.append(registration)
    for statement in parsed.module.body:  # @partial(mlir.register_lowering, prim), @lowering(prim) on a def
        if not isinstance(statement, cst.FunctionDef):
            continue
        for decorator in statement.decorators:
            primitive = _partial_of_register(parsed, decorator.decorator)
            home = parsed
            if primitive is None:
                home, primitive = _registering_decorator(parsed, decorator.decorator, peers, statement) or (parsed, None)
            if primitive is not None and qualified_names(home, primitive):
                found.append(Registration(frozenset(qualified_names(home, primitive)),
                                          frozenset({f"{parsed.name.name}.{statement.name.value}"}), statement,
                                          frozenset()))
    return found


def _registrations_naming(parsed: ParsedModule, function: cst.FunctionDef | cst.Lambda) -> list[Registration]:
    """The registrations of ``parsed`` that may register ``function`` (:func:`registrations`): in a skeleton
    (:mod:`~asynccfg_lint.analysis.elision`), once no left-out body names the ``def`` (a registration names its rule,
    or is the call holding the ``lambda``)."""
    if parsed.elided and isinstance(function, cst.FunctionDef):
        parsed.require(function.name.value)
    return registrations(parsed)


def _registration_words(parsed: ParsedModule, peers: RegistrationPeers | None) -> frozenset[str]:
    """The names a registration in the skeleton ``parsed`` may call: ``register_lowering`` (also as a string, for
    ``getattr``), with ``peers`` each name imported from a project module whose text names it (a registrar or
    an alias there; not JAX's own modules, whose registrars :func:`registrar_application` does not follow either,
    and none of which binds ``register_lowering`` to another name: read in jax 0.12.0.1), and what reaches one
    through the module's names
    (:meth:`~asynccfg_lint.analysis.parse.ParsedModule.words_reaching`: ``reg = mlir.register_lowering``, a
    registrar function)."""
    seeds = {"register_lowering"}
    if peers is not None:
        for statement in parsed.module.body:
            if type(statement) is not cst.SimpleStatementLine:
                continue
            for small in statement.body:
                if type(small) not in (cst.Import, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
                    continue
                for alias in small.names:
                    name = parsed.imported(small, alias) if type(small) is cst.ImportFrom else parsed.absolute(
                        QualifiedName(get_full_name_for_node(alias.name) or "", QualifiedNameSource.IMPORT))
                    bound = alias.asname.name if alias.asname is not None else alias.name
                    while type(bound) is cst.Attribute:
                        bound = bound.value
                    if type(bound) is cst.Name and not name.startswith("jax.") and (
                            peers.may_mention(f"{name}.*", "register_lowering") or peers.may_mention(name, "register_lowering")):
                        seeds.add(bound.value)
    return parsed.words_reaching(seeds)


def is_rule_context(parsed: ParsedModule, param: cst.Param) -> bool:
    """True when ``param`` is the first parameter (the lowering context) of a rule registered in
    ``parsed``: a ``def`` (after a ``@classmethod``'s ``cls``), a ``lambda``, or the function a
    lambda rule hands its context to."""
    function = enclosing(parsed, param, (cst.FunctionDef, cst.Lambda))
    if isinstance(function, cst.Lambda):
        first = _lambda_parameters(function)[:1]
        return first == [param] and any(r.forwarding is not None and r.forwarding.node is function
                                        for r in _registrations_naming(parsed, function))
    if not isinstance(function, cst.FunctionDef):
        return False
    positional = [*function.params.posonly_params, *function.params.params][implicit_parameters(function):]
    if not positional or positional[0] is not param:
        return False
    return any(r.function is function for r in _registrations_naming(parsed, function))


def lambda_parameter(parsed: ParsedModule, node: cst.CSTNode, lam: cst.Lambda,
                     checked_at_calls: set[tuple[str, str]]) -> bool:
    """True when ``node`` is a parameter of the registered ``lambda`` rule ``lam`` that is a sink of
    the primitive's ``bind`` (``checked_at_calls``: ``(qualified name, parameter)`` of every sink):
    what ``bind`` passes there is checked at the ``bind`` call."""
    if not isinstance(node, cst.Name):
        return False
    bindings = bindings_of_name(parsed, node)
    if not bindings or len(bindings) != 1 or bindings[0].assignment is None:
        return False
    param = bindings[0].assignment.node
    if not isinstance(param, cst.Param) or not any(param is p for p in [*_lambda_parameters(lam), lam.params.star_kwarg]):
        return False
    return any(r.forwarding is not None and r.forwarding.node is lam
               and any((f"{name}.bind", param.name.value) in checked_at_calls for name in r.primitive)
               for r in registrations(parsed))


def spread_into_config(forwarding: Forwarding, spec: SinkSpec) -> tuple[cst.Dict, frozenset[str]] | None:
    """For a ``lambda`` rule whose body calls the config sink ``spec`` with a display spreading the lambda's
    ``**kw`` (``lambda ctx, x, **kw: emit(t, ctx, x, {"permutation": P, **kw})``): that display and the
    keys a later entry of it replaces (their ``bind`` keywords never reach the config). Else ``None``."""
    star = forwarding.node.params.star_kwarg
    if spec.kind is not SinkKind.CONFIG or spec.position is None or not isinstance(star, cst.Param):
        return None
    config = call_argument(forwarding.node.body, spec.position, spec.param)
    if not isinstance(config, cst.Dict):
        return None
    for index, element in enumerate(config.elements):
        if isinstance(element, cst.StarredDictElement) and isinstance(element.value, cst.Name) \
                and element.value.value == star.name.value:
            later = (string_value(e.key) for e in config.elements[index + 1:] if isinstance(e, cst.DictElement))
            return config, frozenset(key for key in later if key is not None)
    return None


def lambda_rule_name(parsed: ParsedModule, forwarding: Forwarding) -> str:
    """The name a ``lambda`` rule's ``bind`` sinks give it (``SinkSpec.used_at``: ``pkg.mod.<lambda 2>``, its
    place among the module's registrations), under which the summary keeps where it uses a keyword."""
    index = next(i for i, r in enumerate(registrations(parsed)) if r.forwarding is forwarding)
    return f"{parsed.name.name}.<lambda {index}>"


def bind_sinks(parsed: ParsedModule, sinks: Iterable[SinkSpec], reaching: Iterable[str] = (),
               uses: dict[tuple[str, str], cst.CSTNode] | None = None,
               peers: RegistrationPeers | None = None) -> set[SinkSpec]:
    """The sinks of ``<primitive>.bind`` for the rules registered in ``parsed``, given the sinks known so far.

    ``reaching``: the qualified names of the functions of ``parsed`` that call a sink. A primitive
    whose rule is one of them (or a derived sink) also gets a :attr:`SinkKind.PARAMETERS` sink: every
    keyword of its ``bind`` must be hashable, whatever the rule does with it (measured on jax
    0.12.0.1: ``_verify_params_are_hashable`` raises at ``bind`` for a list the rule converts,
    measures or never reads, and for a keyword the rule has no parameter for).

    A rule's derived sink for a parameter JAX passes as a keyword (``bind``'s keywords are the
    rule's keyword arguments) becomes a sink of the primitive's ``bind`` for that keyword; a rule
    whose ``**params`` is the config makes every ``bind`` keyword an entry. The new spec's
    ``used_at`` is the rule's qualified name; where in the rule the keyword reaches the config is
    looked up only when a finding names it (:func:`asynccfg_lint.analysis.checker.use_location`), since a
    position costs a code generation of the rule's whole module. A ``lambda`` rule that spreads its
    ``**kw`` into the sink's config display makes every keyword an entry (:func:`spread_into_config`);
    ``uses`` then records the display under :func:`lambda_rule_name`. ``peers``: as :func:`registrations`.
    """
    found: set[SinkSpec] = set()
    by_name: dict[str, list[SinkSpec]] = {}
    reaching = set(reaching)
    for spec in sinks:
        if spec.kind is SinkKind.RULE:  # a rule of another module that calls a sink
            reaching.update(spec.qualnames)
            continue
        if spec.kind is SinkKind.PARAMETERS:  # a rule spreading its **kwargs on to another primitive's bind
            continue  # (hashed there only: no config of this rule's)
        for name in spec.qualnames:
            by_name.setdefault(name, []).append(spec)
    for registration in registrations(parsed, peers):
        binds = frozenset(f"{name}.bind" for name in registration.primitive)
        module = min(registration.primitive).rpartition(".")[0] or parsed.name.name
        forwarding = registration.forwarding
        for rule in registration.rule:
            if rule in reaching or rule in by_name:
                found.add(SinkSpec(binds, param="**", position=None, kind=SinkKind.PARAMETERS,
                                   wrapper_module=module, used_at=rule))
            for spec in by_name.get(rule, ()):
                if spec.position == 0:  # the first parameter is the lowering context
                    continue
                if forwarding is None:
                    found.add(replace(spec, qualnames=binds, position=None, wrapper_module=module, used_at=rule,
                                      bind_keyword=True))
                elif (spread := spread_into_config(forwarding, spec)) is not None:  # emit(..., {**kw})
                    star = forwarding.node.params.star_kwarg
                    assert isinstance(star, cst.Param)
                    name = lambda_rule_name(parsed, forwarding)
                    if uses is not None:
                        uses.setdefault((name, star.name.value), spread[0])
                    found.add(SinkSpec(binds, param=star.name.value, position=None, kind=SinkKind.KEYWORDS,
                                       wrapper_module=module, named=forwarding.named | spread[1], used_at=name,
                                       bind_keyword=True))
                elif spec.kind is SinkKind.KEYWORDS:  # lambda ctx, x, **kw: rule(ctx, x, **kw)
                    if forwarding.rest:
                        found.add(replace(spec, qualnames=binds, position=None, wrapper_module=module, used_at=rule,
                                          named=spec.named | forwarding.named, bind_keyword=True))
                elif (keyword := forwarding.keyword_for(spec.param, spec.position)) is not None:
                    found.add(replace(spec, qualnames=binds, param=keyword, position=None, wrapper_module=module,
                                      used_at=rule, used_param=spec.param if keyword != spec.param else None,
                                      bind_keyword=True))
    return {replace(spec, registered_in=parsed.name.name) for spec in found}


ASDICT = frozenset({"dataclasses.asdict", "attrs.asdict"})


def read_keyword(parsed: ParsedModule, expr: cst.BaseExpression, function: cst.FunctionDef) -> tuple[str, str] | None:
    """``(parameter, how)`` when ``expr`` reads a parameter of ``function`` without being it: ``knobs.level``
    (``how`` the attribute name), ``knobs._asdict()`` or ``dataclasses.asdict(knobs)``
    (:data:`~asynccfg_lint.analysis.jax_facts.NAMED_TUPLE_FIELDS`, ``DATACLASS_FIELDS``), ``dict(table)``
    and ``{k: v for k, v in table}`` (``PAIRS_DICT``; ``{k: int(v) ...}``: ``PAIRS_KEYS``), ``opts.to_cfg()`` (any method called without
    arguments: :func:`~asynccfg_lint.analysis.jax_facts.method_read`, followed only as a dict merged into
    the config, :func:`read_sinks`); else ``None``."""
    if isinstance(expr, cst.Attribute):
        param, how = parameter_of(parsed, expr.value, function), expr.attr.value
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "_asdict" \
            and not expr.args:
        param, how = parameter_of(parsed, expr.func.value, function), NAMED_TUPLE_FIELDS
    elif isinstance(expr, cst.Call) and len(expr.args) == 1 and qualified_names(parsed, expr.func) & ASDICT:
        param, how = parameter_of(parsed, expr.args[0].value, function), DATACLASS_FIELDS
    elif isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword and not expr.args[0].star \
            and "builtins.dict" in qualified_names(parsed, expr.func):
        param, how = parameter_of(parsed, expr.args[0].value, function), PAIRS_DICT
    elif isinstance(expr, cst.DictComp) and (pairs := pairs_comprehension(expr)) is not None:
        param, how = parameter_of(parsed, pairs[0], function), pairs[1]  # {k: v for k, v in table}: dict(table)
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args:
        param, how = parameter_of(parsed, expr.func.value, function), method_read(expr.func.attr.value)
    else:
        return None
    return (param, how) if param is not None else None


def read_receiver(expr: cst.CSTNode) -> cst.BaseExpression | None:
    """The expression a read of :func:`read_keyword` reads (``knobs`` of ``knobs.level``, ``opts.to_cfg()``,
    ``dataclasses.asdict(opts)``, ``dict(table)``, ``{k: v for k, v in table}``), else ``None``."""
    if isinstance(expr, cst.Attribute):
        return expr.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and not expr.args:
        return expr.func.value
    if isinstance(expr, cst.Call) and len(expr.args) == 1:
        return expr.args[0].value
    pairs = pairs_comprehension(expr) if isinstance(expr, cst.DictComp) else None
    return pairs[0] if pairs is not None else None


def pairs_comprehension(expr: cst.DictComp) -> tuple[cst.BaseExpression, str] | None:
    """``(iterable, how)`` when ``expr`` keeps the keys of the pairs it iterates as they are (one ``for``
    and no test): ``{k: v for k, v in table}`` is the dict ``dict(table)`` makes (``how``
    :data:`~asynccfg_lint.analysis.jax_facts.PAIRS_DICT`), ``{k: int(v) for k, v in table}`` keeps only
    their keys (``PAIRS_KEYS``); else ``None``. A key it converts (``{str(k): v ...}``) is the rule's own
    expression, not the pair's."""
    loop, target = expr.for_in, expr.for_in.target
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None \
            or not isinstance(target, cst.Tuple) or len(target.elements) != 2 \
            or not all(isinstance(e.value, cst.Name) for e in target.elements):
        return None
    key, value = (e.value.value for e in target.elements)
    if key == value or not isinstance(expr.key, cst.Name) or expr.key.value != key:
        return None
    same = isinstance(expr.value, cst.Name) and expr.value.value == value
    return loop.iter, PAIRS_DICT if same else PAIRS_KEYS


def annotated_field_reads(parsed: ParsedModule, function: cst.FunctionDef) -> list[cst.Call]:
    """The ``dataclasses.asdict(opts)`` / ``opts._asdict()`` calls of an annotated keyword of the registered rule
    ``function`` (``opts: Options``) merged into a dict (``{**...}``, ``cfg.update(...)``, ``cfg |= ...``). The
    tracer gives them the annotation's fields, so they are no opaque part of the config, but JAX calls the
    rule with what a bind passes: :func:`read_sinks` of them check other modules' binds, as for an
    unannotated keyword."""
    params = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    if not any(p.annotation is not None for p in params[1:]) or not rule_registrations(parsed, function):
        return []
    annotated = {p.name.value for p in params[1:] if p.annotation is not None}
    read_body(function)  # (the reads are the rule's own: a skeleton's other left-out bodies hold none)
    calls = _FIELD_CALLS.known(parsed)
    if calls is None:
        calls = _FIELD_CALLS.put(parsed, [c for c in kept_calls(parsed.calls) if (
            c.func.attr.value if isinstance(c.func, cst.Attribute) else getattr(c.func, "value", None))
            in ("_asdict", "asdict")])
    found = []
    for call in calls:
        read = read_keyword(parsed, call, function)
        if read is None or read[0] not in annotated or read[1] not in (NAMED_TUPLE_FIELDS, DATACLASS_FIELDS):
            continue
        parent = parsed.parents.get(call)
        if isinstance(parent, cst.Arg):
            update = parsed.parents.get(parent)
            merged = isinstance(update, cst.Call) and isinstance(update.func, cst.Attribute) \
                and update.func.attr.value == "update"
        else:
            merged = isinstance(parent, cst.StarredDictElement) or isinstance(parent, cst.AugAssign) \
                and isinstance(parent.operator, cst.BitOrAssign)
        if merged and enclosing(parsed, call, (cst.FunctionDef,)) is function:
            found.append(call)
    return found


def read_of(parsed: ParsedModule, name: cst.CSTNode) -> cst.CSTNode:
    """The expression that reads the name ``name`` as :func:`read_keyword` sees it (``knobs.level``,
    ``knobs._asdict()``, ``opts.to_cfg()``, ``dataclasses.asdict(knobs)``, ``{k: v for k, v in table}``),
    else ``name`` itself."""
    parent = parsed.parents.get(name)
    if isinstance(parent, cst.Attribute) and parent.value is name:
        call = parsed.parents.get(parent)
        if isinstance(call, cst.Call) and call.func is parent and not call.args:  # knobs._asdict(), opts.to_cfg()
            return call
        return parent
    if isinstance(parent, cst.CompFor) and parent.iter is name:
        comprehension = parsed.parents.get(parent)
        pairs = pairs_comprehension(comprehension) if isinstance(comprehension, cst.DictComp) else None
        if pairs is not None and pairs[0] is name:
            return comprehension
    if isinstance(parent, cst.Arg):
        call = parsed.parents.get(parent)
        if isinstance(call, cst.Call) and qualified_names(parsed, call.func) & ASDICT:
            return call
    return name


def builder_read(parsed: ParsedModule, function: cst.FunctionDef, entry: Entry) -> tuple[str, str] | None:
    """``(parameter, how)`` of ``function`` (a registered rule) when ``entry`` is one a builder returned reading its
    own parameter (:attr:`Entry.builder`: ``"transport": opts.transport`` of ``def build(opts)``) and the rule's
    call of the builder passes its parameter there (``build(options, perm)``): the rule reads ``options``
    as :func:`read_keyword` says (``transport``); else ``None``."""
    if entry.builder is None or entry.value is None:
        return None
    home, builder, call = entry.builder
    inner = read_keyword(home, entry.value, builder)
    if inner is None:
        return None
    block = home.parents.get(builder)
    method = isinstance(home.parents.get(block), cst.ClassDef) and isinstance(call.func, cst.Attribute) \
        and not any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in builder.decorators)
    argument = (bind_arguments(builder, call, 1 if method else 0, partial=True) or {}).get(inner[0])
    param = parameter_of(parsed, argument, function) if argument is not None else None
    return (param, inner[1]) if param is not None else None


def object_read(parsed: ParsedModule, function: cst.FunctionDef, entry: Entry, graph: CallGraph) -> tuple[str, str] | None:
    """``(parameter, how)`` of ``function`` (a registered rule) when ``entry`` comes from a method of an object the
    rule makes from its parameter: ``"wire": self.opts.wire`` of a method of ``Transfer``, whose ``__init__``
    keeps ``opts``, and the rule constructs ``TRANSFERS[kind](opts, aval)`` (a class ``Transfer`` or a
    subclass): the rule reads ``opts`` as ``opts.wire`` (``how`` the attribute). ``None`` otherwise, or where
    the constructions the rule makes disagree. A method called without arguments (``self.options.to_fragment()``)
    is such a read too (:func:`~asynccfg_lint.analysis.jax_facts.method_read`)."""
    value, home = entry.value, entry.home or parsed
    if isinstance(value, cst.Call) and not value.args and isinstance(value.func, cst.Attribute):
        read, value = method_read(value.func.attr.value), value.func
    elif isinstance(value, cst.Attribute):
        read = value.attr.value
    else:
        return None
    if not isinstance(value.value, cst.Attribute):
        return None
    holder = value.value
    method = enclosing(home, value, (cst.FunctionDef,))
    owner = owner_class(home, method) if isinstance(method, cst.FunctionDef) else None
    positional = [*method.params.posonly_params, *method.params.params] if owner is not None else []
    if not positional or not isinstance(holder.value, cst.Name) or holder.value.value != positional[0].name.value:
        return None
    found: set[str] = set()
    for call in calls_in(parsed, function):
        for made in graph.values(parsed, call.func, 0) or ():
            if not isinstance(made.node, cst.ClassDef) or made.instance:
                continue
            order = graph.mro(made.home, made.node)
            if all(cls is not owner for _, cls in order):
                continue  # (an object whose class does not run this method)
            constructor = next(((h, c) for h, c in order if c is None or class_function(c, "__init__") is not None
                                or c is owner), None)
            if constructor is None or constructor[1] is None:
                return None
            made_by = member(constructor[0], constructor[1], holder.attr.value, call)
            if len(made_by.arguments) != 1 or made_by.values or made_by.bindings or made_by.getters:
                return None
            param = parameter_of(parsed, made_by.arguments[0], function)
            if param is None:
                return None
            found.add(param)
    return (found.pop(), read) if len(found) == 1 else None


def passed_read(parsed: ParsedModule, function: cst.FunctionDef, entry: Entry, graph: CallGraph) -> tuple[str, str] | None:
    """``(parameter, how)`` of ``function`` (a registered rule) when ``entry`` is a read (:func:`read_keyword`:
    ``opts.deadline``, ``opts.fragment()``) of a parameter of a function the rule hands its parameter to, at any
    depth the call graph follows (:meth:`~asynccfg_lint.analysis.callees.CallGraph.parameter_flow`:
    ``{"mode": opts.mode}`` of ``_limits(opts)``, called by ``_config(opts)``, called by the rule); else ``None``."""
    value, home = entry.value, entry.home or parsed
    holder = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
        else value.value if isinstance(value, cst.Attribute) else None
    inner = enclosing(home, value, (cst.FunctionDef,)) if isinstance(holder, cst.Name) else None
    if not isinstance(inner, cst.FunctionDef) or inner is function:
        return None
    read = read_keyword(home, value, inner)
    held = graph.parameter_flow(parsed, function).get(id(inner), {})
    return (held[read[0]], read[1]) if read is not None and read[0] in held else None


def read_sinks(parsed: ParsedModule, function: cst.FunctionDef, expr: cst.BaseExpression,
               key: str | None, entry: Entry | None = None, graph: CallGraph | None = None) -> set[SinkSpec]:
    """The sinks of ``<primitive>.bind`` for a keyword the registered rule ``function`` reads where it
    builds its config (``expr``, under ``key``: :func:`read_keyword`): a ``bind`` of another module
    passes the value (``Knobs(Level.FAST, 2)``) whose attribute or fields arrive in the config. Not for
    the context. An annotated keyword gets them too: JAX calls the rule with what a bind passes, so an
    annotation must not hide a fault there (in the rule's own module the annotation is
    weighed against the binds, :func:`asynccfg_lint.analysis.checker.annotation_or_binds`).
    Checked at that ``bind`` (:func:`asynccfg_lint.analysis.checker.analyse`; this module's own binds
    are followed in the rule, ``ParameterInference._bound_keyword``). ``entry``: the config entry ``expr`` is
    the value of, whose builder may be where the read is written (:func:`builder_read`)."""
    read = read_keyword(parsed, expr, function) if entry is None or entry.home is None else None
    if read is None and entry is not None:  # read in a builder the rule passes the keyword to
        read = builder_read(parsed, function, entry)
    if read is None and entry is not None and graph is not None:  # in a method of an object made from it
        read = object_read(parsed, function, entry, graph)
    if read is None and entry is not None and graph is not None and entry.value is not None:  # in a callee
        read = passed_read(parsed, function, entry, graph)
    rule = summarised_name(parsed, function)
    if read is None or rule is None:
        return set()
    param, how = read
    dicts = how in (NAMED_TUPLE_FIELDS, DATACLASS_FIELDS) or read_method(how) is not None
    if key is None and not dicts:
        return set()
    named = {p.name.value: p for p in [*function.params.posonly_params, *function.params.params,
                                      *function.params.kwonly_params]}
    positional = [*function.params.posonly_params, *function.params.params][implicit_parameters(function):]
    if param not in named or positional[:1] == [named[param]]:
        return set()  # the context (first)
    kind = SinkKind.CONFIG if dicts else SinkKind.VALUE
    # (the dict a method gives under a key, `"labels": opts.labels()`, keeps the key: its entries' path)
    key = key if kind is SinkKind.VALUE or read_method(how) is not None else None
    registered = rule_registrations(parsed, function)
    if not registered:  # registered by another module: its registration makes the bind's sink of this one
        position = next((i for i, p in enumerate(positional) if p is named[param]), None)
        return {SinkSpec(frozenset({rule}), param=param, position=position, kind=kind, key=key,
                         wrapper_module=parsed.name.name,
                         used_param=f"{param}.{how}", read=how)}
    return {SinkSpec(frozenset(f"{name}.bind" for name in r.primitive), param=param, position=None, kind=kind,
                     key=key, wrapper_module=min(r.primitive).rpartition(".")[0] or parsed.name.name, used_at=rule,
                     used_param=f"{param}.{how}", read=how, registered_in=parsed.name.name)
            for r in registered if r.forwarding is None and param not in r.bound}


def bind_operands(parsed: ParsedModule, function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """``function``'s parameters that it passes positionally to a ``.bind(...)`` call, each with the
    receivers of those calls (the classifier checks that they are primitives).

    ``jax._src.core.Primitive.bind(*args, **params)``: the positional arguments are the
    primitive's operands, JAX values; under ``jit`` each is a tracer, an instance of ``jax.Array``
    (measured on jax 0.12.0.1 in the program fixtures, ``tests/fixtures/programs/operands.py``).
    Computed once per module, in one pass over its calls.
    """
    memo = _BIND_OPERANDS.known(parsed)
    if memo is None:
        memo = _BIND_OPERANDS.of(parsed)
        for call in kept_calls(parsed.calls):  # (a skeleton's: the binds of a function it kept are all there)
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "bind"):
                continue
            caller = enclosing(parsed, call, (cst.FunctionDef, cst.Lambda))
            if not isinstance(caller, cst.FunctionDef):
                continue
            for arg in call.args:
                if arg.keyword is None and not arg.star and isinstance(arg.value, cst.Name):
                    param = parameter_of(parsed, arg.value, caller)
                    if param is not None:
                        memo.setdefault(id(caller), {}).setdefault(param, []).append(call.func.value)
    return memo.get(id(function), {})


#: the methods of a ``core.Primitive`` that register a function JAX calls with the ``bind``'s keywords
_HOOK_METHODS = frozenset({"def_abstract_eval", "def_effectful_abstract_eval", "def_impl"})
#: words a module that registers such a function on a primitive of another module has (a method above, or one of
#: JAX's tables of rules by primitive): only a module naming the primitive and one of them is read for its hooks
HOOK_WORDS = (*sorted(_HOOK_METHODS), "primitive_batchers", "fancy_primitive_batchers", "primitive_jvps",
              "primitive_transposes", "custom_partial_eval_rules", "partial_eval_jaxpr_custom_rules", "dce_rules")
#: JAX's own functions a hook may be a ``functools.partial`` of, which read no keyword of the ``bind`` themselves
#: (``p.def_impl(partial(dispatch.apply_primitive, p))``: the primitive is run through its lowering rule)
KEYWORD_BLIND_HOOKS = frozenset({"jax._src.dispatch.apply_primitive"})
#: per module: (the qualified names of a primitive, a function registered on it) for each hook of
#: :func:`primitive_hooks`
_HOOKS: ModuleMemo[list[tuple[frozenset[str], cst.BaseExpression]] | None] = ModuleMemo(lambda: None)
#: per module: a primitive's qualified name -> the positions of its hooks in ``_HOOKS``
_HOOK_INDEX: ModuleMemo[dict[str, list[int]]] = ModuleMemo(dict)
#: per module: the list of :func:`registrations` indexed, and its registrations by ``id`` of the rule JAX calls
_RULE_INDEX: ModuleMemo[tuple[list[Registration], dict[int, list[Registration]]] | None] = ModuleMemo(lambda: None)


def primitive_hooks(parsed: ParsedModule, primitive: frozenset[str]) -> list[cst.BaseExpression]:
    """The functions ``parsed`` registers on the primitive of qualified names ``primitive`` besides its lowering
    rules: the argument of ``<p>.def_abstract_eval(f)``, ``def_effectful_abstract_eval`` and ``def_impl``, and
    the value of ``<table>[<p>] = f`` (``batching.primitive_batchers``, ``ad.primitive_jvps``, ...). JAX calls
    each with the ``bind``'s keywords (``Primitive.bind`` gives ``abstract_eval(*avals, **params)``,
    ``jax/_src/core.py``), so a fix that changes a keyword's value at a ``bind`` changes what they read too
    (an abstract eval's ``overlap.item()`` fails on ``bool(np.bool_(True))``)."""
    parsed.require_reaching(primitive_words(primitive))  # (a skeleton's left-out bodies that name it)
    hooks = _HOOKS.known(parsed)
    if hooks is None:
        hooks = []
        for call in kept_calls(parsed.calls):
            func = call.func
            if type(func) is cst.Attribute and func.attr.value in _HOOK_METHODS and call.args:
                hooks.append((frozenset(qualified_names(parsed, func.value)), call.args[0].value))
            elif type(func) is cst.Attribute and func.attr.value == "update" and len(call.args) == 1 \
                    and type(call.args[0].value) is cst.Dict:  # batching.primitive_batchers.update({p: f})
                hooks.extend((frozenset(qualified_names(parsed, element.key)), element.value)
                             for element in call.args[0].value.elements if type(element) is cst.DictElement)
        for node in parsed.parents:
            if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Subscript \
                    and (index := subscript_index(node.targets[0].target)) is not None:
                hooks.append((frozenset(qualified_names(parsed, index)), node.value))
            elif type(node) is cst.FunctionDef:  # @p.def_abstract_eval over the function itself
                hooks.extend((frozenset(qualified_names(parsed, d.decorator.value)), node) for d in node.decorators
                             if type(d.decorator) is cst.Attribute and d.decorator.attr.value in _HOOK_METHODS)
        _HOOKS.put(parsed, hooks)
    by_name = _HOOK_INDEX.known(parsed)
    if by_name is None:  # qualified name -> positions in ``hooks``: a module of 1,000 rules asks about each
        by_name = _HOOK_INDEX.put(parsed, {})  # primitive (one pass over the hooks per primitive: quadratic)
        for position, (names, _) in enumerate(hooks):
            for name in names:
                by_name.setdefault(name, []).append(position)
    positions = sorted({position for name in primitive for position in by_name.get(name, ())})
    return [hooks[position][1] for position in positions]


def rule_registrations(parsed: ParsedModule, function: cst.FunctionDef | cst.Lambda) -> list[Registration]:
    """The registrations whose rule JAX calls is ``function``: a ``def`` given directly (or through
    ``functools.partial``), or a ``lambda`` (the function a lambda calls is not one: the lambda's call is visible)."""
    found = _registrations_naming(parsed, function)
    indexed = _RULE_INDEX.known(parsed)
    if indexed is None or indexed[0] is not found:  # (made again when registrations were: see registrations)
        by_rule: dict[int, list[Registration]] = {}
        for registration in found:
            rule = registration.forwarding.node if registration.forwarding is not None else registration.function
            by_rule.setdefault(id(rule), []).append(registration)
        indexed = _RULE_INDEX.put(parsed, (found, by_rule))
    return list(indexed[1].get(id(function), ()))


def _bound_primitive_names(parsed: ParsedModule) -> frozenset[str]:
    """Every qualified name a ``bind`` receiver of ``parsed`` may be: the receiver's own (``all_gather_p.bind``),
    and, for a name, those of each name and attribute in the expressions bound to it (``prim = a_p if
    is_async else b_p; prim.bind(...)``, as ``jax/_src/lax/parallel.py`` writes it). Made once per module:
    a module of 1,000 rules asked about each rule's primitive across all its calls (quadratic)."""
    known = _BIND_NAMES.known(parsed)
    if known is not None:
        return known
    names: set[str] = set()
    for call in kept_calls(parsed.calls):  # (a skeleton's: its callers ask for the left-out binds first)
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "bind"):
            continue
        receiver = call.func.value
        names |= qualified_names(parsed, receiver)
        bindings = bindings_of_name(parsed, receiver) if isinstance(receiver, cst.Name) else None
        pending = [b.value for b in bindings or () if b.value is not None]
        while pending:
            node = pending.pop()
            if isinstance(node, (cst.Name, cst.Attribute)):
                names |= qualified_names(parsed, node)
            pending.extend(walked_children(node))
    return _BIND_NAMES.put(parsed, frozenset(names))


def bind_visible(parsed: ParsedModule, registration: Registration, elsewhere: Callable[[str, str], bool]) -> bool:
    """True when a ``bind`` of ``registration``'s primitive may be seen: a call ``<primitive>.bind(...)``
    in ``parsed``, or the primitive's name in the text of another module of the project
    (``elsewhere(name, module)``, :meth:`asynccfg_lint.analysis.workspace.Workspace.named_elsewhere`).

    Without one, what the rule's parameters hold is known to no analysed code (ACC201 where it is used).
    """
    parsed.require_reaching(primitive_words(registration.primitive))  # (a skeleton's left-out bodies that name it)
    if not _bound_primitive_names(parsed).isdisjoint(registration.primitive):
        return True
    return any(elsewhere(name.rpartition(".")[2], name.rpartition(".")[0]) for name in registration.primitive)
