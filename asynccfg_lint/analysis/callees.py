"""What a call may call: the package's call graph over callables kept in data.

A lowering rule rarely calls its config builder by a plain name. It looks it up in a registry that a
decorator filled (``build = registry.lookup(name)``), in a table (``ENCODERS[name](value)``), asks an
object found in a class table (``Strategy.get(name).fields(ctx)``), or calls a method its subclasses
override (``self.extra_fields(ctx)``). :class:`CallGraph` answers "which functions may this call run"
for all of these with one abstract evaluation of callable values:

- a value is a function (``def`` or ``lambda``), a class, or an instance of a class of the project
  (:class:`Callable`); what the evaluation cannot see is *unknown* (``None``);
- a name is what its bindings give (imports followed into the project's modules); a call gives what
  its callees return (a class gives an instance); ``obj.m`` is the method ``m`` found on each class
  ``obj`` may be an instance of, by the class's method resolution order;
- ``self`` in a method of ``C`` is an instance of ``C`` or of any project subclass of ``C`` (class
  hierarchy analysis); ``cls`` of a ``@classmethod``, and of ``__init_subclass__``, likewise a class;
- ``table[k]``, ``table.get(k)``, ``table.pop(k)`` are any value the table holds: its display's values
  and every ``table[k] = v``, ``table.update(...)``, ``table.setdefault(k, v)``, ``table.append(v)``
  of its module;
- a parameter of a decorator is every function or class the project decorates with it
  (``@algorithm("x")`` of ``def algorithm(name): def register(fn): ...; return register``), and every
  argument a visible call of the function passes for it.

It is a may-analysis: a call of a registry's lookup may run every registered function. Depth is
bounded; a cycle gives nothing new.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

import libcst as cst

from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.functions import bind_arguments, parameter_of, passed_argument, returns_of
from asynccfg_lint.analysis.objects import class_function
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule
from asynccfg_lint.analysis.resolution import (
    Binding,
    calls_in,
    bindings_of_name,
    enclosing,
    is_import,
    qualified_names,
    statements_of,
    string_value,
)

#: how deep one question may nest (names, calls, tables, decorators)
MAX_DEPTH = 12

#: the methods that read a table's element
_READERS = frozenset({"get", "pop", "__getitem__", "setdefault"})
#: the methods that put an element into a table: the argument holding it (``None``: a mapping display or keywords)
_WRITERS = {"setdefault": 1, "append": 0, "add": 0, "insert": 1, "update": None, "__setitem__": 1}


@dataclass(frozen=True, eq=False)
class Callable:
    """A value the call graph knows: a function, a class, or an instance of a class.

    Attributes:
        home: the module that defines ``node``.
        node: the ``def``, ``lambda`` or ``class``.
        instance: ``True`` for an instance of the class ``node``.
        bound: for a method reached through an instance or class, how many leading parameters the
            call does not pass (``self`` or ``cls``: 1).
        library: ``node`` is a name of a library's callable (``int``, ``np.dtype``), not the project's.
    """

    home: ParsedModule
    node: cst.FunctionDef | cst.Lambda | cst.ClassDef | cst.Name | cst.Attribute
    instance: bool = False
    bound: int = 0
    #: ``node`` names a callable of a library (``frozenset``, ``np.dtype``), of one qualified name
    library: bool = False

    @property
    def key(self) -> tuple[int, bool, int]:
        return (id(self.node), self.instance, self.bound)


class CallGraphPeers(Protocol):
    """What the call graph needs of the check's modules (:class:`~asynccfg_lint.analysis.workspace.Workspace`)."""

    def foreign(self, parsed: ParsedModule, expr: cst.BaseExpression) -> Sequence[object] | None:
        """The bindings in other project modules ``expr`` names (each with ``home`` and ``binding``)."""

    def module(self, name: str) -> ParsedModule | None:
        """The project module of dotted name ``name``."""

    def naming(self, word: str) -> tuple[str, ...]:
        """The project modules whose text has the identifier ``word``."""


@dataclass
class _Index:
    """One module's facts for the call graph, made in one walk of its statements."""

    decorated: list[tuple[cst.BaseExpression, cst.FunctionDef | cst.ClassDef]]
    classes: list[cst.ClassDef]
    #: (the table, the value stored) for ``table[k] = v``
    stores: list[tuple[cst.BaseExpression, cst.BaseExpression]]


_INDEX: ModuleMemo[_Index | None] = ModuleMemo(lambda: None)


def _index(parsed: ParsedModule, word: str) -> _Index:
    """The module's index, for a question about the name ``word``: a skeleton's left-out bodies that name it
    are asked for first (:meth:`~asynccfg_lint.analysis.parse.ParsedModule.require`), and its index is not kept."""
    known = _INDEX.known(parsed)
    if known is not None:
        return known
    if parsed.elided:
        parsed.require(word)
    index = _Index([], [], [])
    for statement in statements_of(parsed.module):
        kind = type(statement)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            index.decorated.extend((d.decorator, statement) for d in statement.decorators)
            if kind is cst.ClassDef:
                index.classes.append(statement)
        elif kind is cst.Assign:
            for target in statement.targets:
                if isinstance(target.target, cst.Subscript):
                    index.stores.append((target.target.value, statement.value))
    return index if parsed.elided else _INDEX.put(parsed, index)


class CallGraph:
    """The callables a project's expressions may hold (one per check; see the module's docstring).

    Args:
        peers: the check's modules.
    """

    def __init__(self, peers: CallGraphPeers) -> None:
        self.peers = peers
        self._active: set[tuple[int, int]] = set()
        self._memo: dict[tuple[int, int], list[Callable] | None] = {}
        self._callers: dict[tuple[int, int], list[tuple[ParsedModule, cst.Call, int]]] = {}
        self._flows: dict[tuple[int, int], dict[int, dict[str, str]]] = {}

    # -- questions -----------------------------------------------------------------------
    def callees(self, parsed: ParsedModule, func: cst.BaseExpression) -> list[Callable] | None:
        """The functions a call of ``func`` (an expression of ``parsed``) may run: each ``def`` or ``lambda``
        with how many leading parameters the call does not pass; a class's instance runs its ``__call__``.
        ``None`` when one of them cannot be known."""
        values = self.values(parsed, func, 0)
        if values is None:
            return None
        found: dict[tuple[int, bool, int], Callable] = {}
        for value in values:
            if value.library:
                found.setdefault(value.key, value)
                continue
            if value.instance:
                method = self.method(value.home, value.node, "__call__")
                if method is None:
                    return None
                value = method
            if isinstance(value.node, cst.ClassDef):
                continue  # a class's call makes an instance, no function of the project's
            found.setdefault(value.key, value)
        return list(found.values())

    def callers(self, home: ParsedModule, function: cst.FunctionDef) -> list[tuple[ParsedModule, cst.Call, int]]:
        """The calls of the project that may run ``function`` (a ``def`` of ``home``): calls spelling its name
        (``f(...)``, ``obj.f(...)``) in the modules naming it, whose callees include it; each with its module
        and how many leading parameters it does not pass."""
        key = (id(home), id(function))
        if key in self._callers:
            return self._callers[key]
        self._callers[key] = []  # (a cycle through the callers' own parameters adds nothing)
        word = function.name.value
        found: list[tuple[ParsedModule, cst.Call, int]] = []
        for module in self._modules_naming(home, word):
            module.require(word)
            for call in kept_calls(module.calls):
                func = call.func
                last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
                if last != word:
                    continue
                match = next((c for c in self.callees(module, func) or () if c.node is function), None)
                if match is not None:
                    found.append((module, call, match.bound))
        self._callers[key] = found
        return found

    def parameter_flow(self, home: ParsedModule, function: cst.FunctionDef) -> dict[int, dict[str, str]]:
        """Where ``function``'s parameters go, as they are, in the functions it calls (a call the graph resolves to
        one function, a method too, to :data:`MAX_FLOW_DEPTH` calls deep): for each function reached (by ``id`` of
        its ``def``), its parameters that hold one of ``function``'s, by name (``build(opts)`` calling
        ``_wire(opts)``). Not through a call that may run one of several functions (``SECTIONS[name](opts)``):
        which one runs depends on a value, so a read there is not one every call makes. The first way a function
        is reached counts."""
        key = (id(home), id(function))
        if key in self._flows:
            return self._flows[key]
        every = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
        flow: dict[int, dict[str, str]] = {id(function): {p.name.value: p.name.value for p in every}}
        pending = [(home, function, flow[id(function)], 0)]
        while pending:
            module, caller, held, depth = pending.pop(0)
            if depth >= MAX_FLOW_DEPTH:
                continue
            for call in calls_in(module, caller):
                if not call.args:
                    continue
                callees = self.callees(module, call.func) or []
                if len(callees) != 1:  # (a table's entry chosen by a value: which one runs depends on the call)
                    continue
                for callee in callees:
                    if callee.library or not isinstance(callee.node, cst.FunctionDef) or id(callee.node) in flow:
                        continue
                    bound = bind_arguments(callee.node, call, callee.bound, partial=True) or {}
                    passed = {name: held[source] for name, argument in bound.items()
                              if (source := parameter_of(module, argument, caller)) is not None and source in held}
                    if passed:
                        flow[id(callee.node)] = passed
                        pending.append((callee.home, callee.node, passed, depth + 1))
        self._flows[key] = flow
        return flow

    def calls_passing(self, home: ParsedModule, param: cst.Param,
                      function: cst.FunctionDef) -> list[tuple[ParsedModule, cst.Call, int | None]]:
        """The :meth:`callers` of ``function`` with the position of the argument each passes for its parameter
        ``param`` (``None``: a keyword-only parameter; a negative one: the receiver, ``self``)."""
        positional = [*function.params.posonly_params, *function.params.params]
        index = next((i for i, p in enumerate(positional) if p is param), None)
        return [(module, call, index - bound if index is not None else None)
                for module, call, bound in self.callers(home, function)]

    def values(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int) -> list[Callable] | None:
        """The callables ``expr`` may evaluate to; ``None`` when one of its values cannot be known."""
        key = (id(parsed), id(expr))
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH:
            return None
        if key in self._active:  # a cycle adds nothing beyond what enters it from outside
            return []
        self._active.add(key)
        try:
            found = self._values(parsed, expr, depth + 1)
        finally:
            self._active.discard(key)
        if found is not None:
            found = list({value.key: value for value in found}.values())
        self._memo[key] = found
        return found

    def method(self, home: ParsedModule, cls: cst.ClassDef, name: str, depth: int = 0) -> Callable | None:
        """The method ``name`` an instance of ``cls`` runs, by the class's method resolution order (the first
        base of the project that defines it); ``None`` when no class of the project along the way defines
        it, or a base cannot be known."""
        for owner_home, owner in self.mro(home, cls, depth):
            if owner is None:
                return None
            found = class_function(owner, name)
            if found is not None:
                return Callable(owner_home, found, bound=0 if _decorated(found, "staticmethod") else 1)
        return None

    def mro(self, home: ParsedModule, cls: cst.ClassDef,
            depth: int = 0) -> list[tuple[ParsedModule, cst.ClassDef | None]]:
        """``cls`` and its project bases, depth first and left to right as C3 orders a tree of single
        bases; ``(home, None)`` where a base is not a class the project defines (``object`` and
        ``typing.NamedTuple`` end it quietly)."""
        order: list[tuple[ParsedModule, cst.ClassDef | None]] = [(home, cls)]
        if depth > MAX_DEPTH:
            return [*order, (home, None)]
        for base in cls.bases:
            if base.keyword is not None:
                continue
            if isinstance(base.value, cst.Name) and base.value.value in _QUIET_BASES:
                continue
            classes = self.values(home, base.value, depth + 1)
            if not classes or len(classes) != 1 or not isinstance(classes[0].node, cst.ClassDef) or classes[0].instance:
                order.append((home, None))
                continue
            for item in self.mro(classes[0].home, classes[0].node, depth + 1):
                if all(item[1] is not seen[1] for seen in order):
                    order.append(item)
        return order

    def subclasses(self, home: ParsedModule, cls: cst.ClassDef, depth: int = 0) -> list[Callable]:
        """``cls`` and every class of the project that derives from it, as classes."""
        found = {id(cls): Callable(home, cls)}
        pending = [(home, cls)]
        while pending and depth <= MAX_DEPTH:
            depth += 1
            base_home, base = pending.pop()
            for module in self._modules_naming(base_home, base.name.value):
                for candidate in _index(module, base.name.value).classes:
                    if id(candidate) in found:
                        continue
                    for arg in candidate.bases:
                        if arg.keyword is not None:
                            continue
                        named = self.values(module, arg.value, depth)
                        if named and any(v.node is base and not v.instance for v in named):
                            found[id(candidate)] = Callable(module, candidate)
                            pending.append((module, candidate))
                            break
        return list(found.values())

    # -- evaluation ----------------------------------------------------------------------
    def _values(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int) -> list[Callable] | None:
        if isinstance(expr, cst.Lambda):
            return [Callable(parsed, expr)]
        if isinstance(expr, cst.Name):
            return self._name(parsed, expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(parsed, expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(parsed, expr, depth)
        if isinstance(expr, cst.Subscript):
            return self.elements(parsed, expr.value, depth)
        if isinstance(expr, cst.IfExp):
            return _union([self.values(parsed, expr.body, depth), self.values(parsed, expr.orelse, depth)])
        if isinstance(expr, cst.BooleanOperation):
            return _union([self.values(parsed, expr.left, depth), self.values(parsed, expr.right, depth)])
        return None

    def _name(self, parsed: ParsedModule, name: cst.Name, depth: int) -> list[Callable] | None:
        bindings = bindings_of_name(parsed, name)
        if bindings is None or bindings and all(is_import(b) for b in bindings):
            found = self._foreign(parsed, name, depth)
            return found if found is not None else _library(parsed, name)
        return self._bindings(parsed, bindings, depth)

    def _foreign(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int) -> list[Callable] | None:
        found = self.peers.foreign(parsed, expr)
        if not found:
            return None
        return _union([self._bindings(item.home, [item.binding], depth) for item in found])

    def _bindings(self, parsed: ParsedModule, bindings: Iterable[Binding], depth: int) -> list[Callable] | None:
        parts: list[list[Callable] | None] = []
        for binding in bindings:
            if binding.definition is not None:
                parts.append([Callable(parsed, binding.definition)])
            elif binding.value is not None and binding.augmented is None and binding.unpacked is None:
                parts.append(self.values(parsed, binding.value, depth))
            elif binding.assignment is not None and isinstance(binding.assignment.node, cst.Param):
                parts.append(self._parameter(parsed, binding.assignment.node, depth))
            elif binding.assignment is not None and (loop := _loop_over(parsed, binding.assignment.node)) is not None:
                parts.append(self.elements(parsed, loop, depth))  # `{cls.name: cls for cls in (A, B)}`
            else:
                parts.append(None)
        return _union(parts)

    def _attribute(self, parsed: ParsedModule, expr: cst.Attribute, depth: int) -> list[Callable] | None:
        foreign = self.peers.foreign(parsed, expr) if _dotted(expr) else None  # (not `Cls(...).m`: an instance's)
        if foreign:
            return _union([self._bindings(item.home, [item.binding], depth) for item in foreign])
        objects = self.values(parsed, expr.value, depth)
        if objects and all(o.library for o in objects):
            return _library(parsed, expr)  # np.dtype
        if not objects:
            return None
        parts: list[list[Callable] | None] = []
        for obj in objects:
            if not isinstance(obj.node, cst.ClassDef):
                return None
            parts.append(self._member(obj, expr.attr.value, depth))
        return _union(parts)

    def _member(self, obj: Callable, name: str, depth: int) -> list[Callable] | None:
        """``obj.name`` for a class or instance ``obj``: its method (bound), or what its class attribute holds."""
        for home, owner in self.mro(obj.home, obj.node, depth):
            if owner is None:
                return None
            method = class_function(owner, name)
            if method is not None:
                if _decorated(method, "property") or _decorated(method, "cached_property"):
                    return None
                implicit = obj.instance or _decorated(method, "classmethod")
                bound = 1 if implicit and not _decorated(method, "staticmethod") else 0
                return [Callable(home, method, bound=bound)]
            assigned = class_assignment(owner, name)
            if assigned is not None:
                return self.values(home, assigned, depth)
        return None

    def _call(self, parsed: ParsedModule, call: cst.Call, depth: int) -> list[Callable] | None:
        func = call.func
        if isinstance(func, cst.Name) and func.value == "super" and not call.args:
            return self._super(parsed, call, depth)
        if isinstance(func, cst.Name) and func.value == "getattr" and 2 <= len(call.args) <= 3 \
                and qualified_names(parsed, func) == {"builtins.getattr"}:
            return self._getattr(parsed, call, depth)
        callees = self.values(parsed, func, depth)
        if not callees:
            if isinstance(func, cst.Attribute) and func.attr.value in _READERS and call.args:
                return self.elements(parsed, func.value, depth)  # registry.get(name)
            return None
        parts: list[list[Callable] | None] = []
        for callee in callees:
            if callee.library:
                return None
            if isinstance(callee.node, cst.ClassDef):
                parts.append([Callable(callee.home, callee.node, instance=True)] if not callee.instance
                             else self._returned(self.method(callee.home, callee.node, "__call__", depth), depth))
            else:
                parts.append(self._returned(callee, depth))
        return _union(parts)

    def _getattr(self, parsed: ParsedModule, call: cst.Call, depth: int) -> list[Callable] | None:
        """``getattr(obj, f"section_{name}"[, default])``: every method of ``obj``'s classes whose name the string's
        literal parts allow (a plain string: that one); the default adds nothing a call runs (``None``: the
        caller checks it). ``None`` for a name of no literal part, or an object that is no project instance."""
        pattern = _name_pattern(call.args[1].value)
        objects = self.values(parsed, call.args[0].value, depth) if pattern is not None else None
        if not objects or any(not isinstance(o.node, cst.ClassDef) for o in objects):
            return None
        found: dict[tuple[int, bool, int], Callable] = {}
        for obj in objects:
            for home, owner in self.mro(obj.home, obj.node, depth):
                if owner is None:
                    return None
                body = owner.body.body if isinstance(owner.body, cst.IndentedBlock) else ()
                for method in body:
                    if isinstance(method, cst.FunctionDef) and pattern.fullmatch(method.name.value):
                        bound = 1 if (obj.instance or _decorated(method, "classmethod")) \
                            and not _decorated(method, "staticmethod") else 0
                        found.setdefault((id(method), False, bound), Callable(home, method, bound=bound))
        return list(found.values())

    def _returned(self, function: Callable | None, depth: int) -> list[Callable] | None:
        if function is None:
            return None
        node = function.node
        if isinstance(node, cst.Lambda):
            return self.values(function.home, node.body, depth)
        returns = [r.value for r in returns_of(node) if r.value is not None]
        return _union([self.values(function.home, value, depth) for value in returns]) if returns else None

    def _super(self, parsed: ParsedModule, call: cst.Call, depth: int) -> list[Callable] | None:
        """``super()`` in a method of ``C``: an instance (or class) whose attributes come from ``C``'s bases."""
        function = enclosing(parsed, call, (cst.FunctionDef,))
        owner = owner_class(parsed, function) if isinstance(function, cst.FunctionDef) else None
        if owner is None:
            return None
        order = self.mro(parsed, owner, depth)
        if len(order) < 2 or order[1][1] is None:
            return None
        home, base = order[1]
        return [Callable(home, base, instance=not _decorated(function, "classmethod"))]

    def _parameter(self, parsed: ParsedModule, param: cst.Param, depth: int) -> list[Callable] | None:
        """A parameter's values: ``self``/``cls`` of a method, what a decorator is given, or what the
        project's calls of the function pass (``build_config(rule)`` of ``rule = TABLE[kind](opts)``;
        unknown where one passes nothing the graph knows, or where the parameter is ``*args``/``**kw``)."""
        function = enclosing(parsed, param, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef):
            return None
        positional = [*function.params.posonly_params, *function.params.params]
        owner = owner_class(parsed, function)
        if positional and positional[0] is param:
            if owner is not None and not _decorated(function, "staticmethod"):
                classes = self.subclasses(parsed, owner, depth)
                if function.name.value == "__init_subclass__":  # the subclass being made, not the base
                    classes = [c for c in classes if c.node is not owner]
                instance = not (_decorated(function, "classmethod") or function.name.value in _CLASS_METHODS)
                return [Callable(c.home, c.node, instance=instance) for c in classes]
            decorated = self._decorated_by(parsed, function, depth)
            if decorated is not None:
                return decorated
        if param is function.params.star_arg or param is function.params.star_kwarg:
            return None
        calls = self.calls_passing(parsed, param, function)
        if not calls:
            return None
        parts: list[list[Callable] | None] = []
        for module, call, index in calls:
            argument = passed_argument(call, param.name.value, index)
            parts.append(self.values(module, argument, depth) if argument is not None else None)
        return _union(parts)

    def _decorated_by(self, parsed: ParsedModule, function: cst.FunctionDef, depth: int) -> list[Callable] | None:
        """What the project decorates with ``function`` (``@function``), or with a factory returning it
        (``@factory(...)``, ``function`` nested in ``factory`` and returned by it)."""
        factory = enclosing(parsed, function, (cst.FunctionDef,))
        returned = isinstance(factory, cst.FunctionDef) and any(
            isinstance(r.value, cst.Name) and r.value.value == function.name.value for r in returns_of(factory))
        wanted, called = (factory, True) if returned else (function, False)
        found: list[Callable] = []
        for module in self._modules_naming(parsed, wanted.name.value):
            for decorator, decorated in _index(module, wanted.name.value).decorated:
                if called != isinstance(decorator, cst.Call):
                    continue
                callee = decorator.func if isinstance(decorator, cst.Call) else decorator
                named = self.values(module, callee, depth)
                if named and any(v.node is wanted for v in named):
                    found.append(Callable(module, decorated))
        return found or None

    def elements(self, parsed: ParsedModule, table: cst.BaseExpression, depth: int) -> list[Callable] | None:
        """Any value the table ``table`` (a dict, list or tuple of the project) may hold."""
        if isinstance(table, (cst.List, cst.Tuple, cst.Set)):
            return _union(self.values(parsed, v, depth) for v in _display_values(table))
        located = self._table(parsed, table, depth)
        if located is None:
            return None
        home, name, displays = located
        parts: list[list[Callable] | None] = []
        for display in displays:
            parts.extend(self.values(home, v, depth) for v in _display_values(display))
        for holder, value in _index(home, name).stores:
            if _names(holder, name):
                parts.append(self.values(home, value, depth))
        for call in kept_calls(home.calls):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value in _WRITERS and _names(func.value, name):
                position = _WRITERS[func.attr.value]
                if position is None:
                    for arg in call.args:
                        if arg.keyword is not None:
                            parts.append(self.values(home, arg.value, depth))
                        elif isinstance(arg.value, (cst.Dict, cst.DictComp)):
                            parts.extend(self.values(home, v, depth) for v in _display_values(arg.value))
                elif len(call.args) > position:
                    parts.append(self.values(home, call.args[position].value, depth))
        return _union(parts) if parts else None

    def _table(self, parsed: ParsedModule, table: cst.BaseExpression,
               depth: int) -> tuple[ParsedModule, str, list[cst.BaseExpression]] | None:
        """Where a table lives: its module, its name (or attribute name) and the displays bound to it."""
        if isinstance(table, cst.Name):
            bindings = bindings_of_name(parsed, table)
            if bindings and all(is_import(b) for b in bindings):
                found = self.peers.foreign(parsed, table)
                if not found or len({id(f.home) for f in found}) != 1:
                    return None
                return found[0].home, table.value, [f.binding.value for f in found if f.binding.value is not None]
            if not bindings or any(b.value is None for b in bindings):
                return None
            return parsed, table.value, [b.value for b in bindings]
        if isinstance(table, cst.Attribute):
            found = self.peers.foreign(parsed, table) if _dotted(table) else None
            if found and len({id(f.home) for f in found}) == 1:
                return found[0].home, table.attr.value, [f.binding.value for f in found if f.binding.value is not None]
            objects = self.values(parsed, table.value, depth)
            if not objects:
                return None
            for obj in objects:
                if not isinstance(obj.node, cst.ClassDef):
                    return None
                for home, owner in self.mro(obj.home, obj.node, depth):
                    if owner is None:
                        return None
                    assigned = class_assignment(owner, table.attr.value)
                    if assigned is not None:
                        return home, table.attr.value, [assigned]
            return None
        return None

    def _modules_naming(self, home: ParsedModule, word: str) -> list[ParsedModule]:
        modules = [home]
        for name in self.peers.naming(word):
            module = self.peers.module(name)
            if module is not None and all(module is not m for m in modules):
                modules.append(module)
        return modules


#: how many calls deep :meth:`CallGraph.parameter_flow` follows a rule's parameters
MAX_FLOW_DEPTH = 4
#: bases that add nothing a config builder calls
_QUIET_BASES = frozenset({"object"})
#: methods whose first parameter is the class without ``@classmethod``
_CLASS_METHODS = frozenset({"__init_subclass__", "__new__", "__class_getitem__"})


def _name_pattern(expr: cst.BaseExpression) -> re.Pattern[str] | None:
    """A pattern of the attribute names ``expr`` may spell: a string literal's own name, an f-string's literal
    parts around anything (``f"section_{name}"``: ``section_.*``); ``None`` for anything else, or an f-string
    without a literal part."""
    literal = string_value(expr)
    if literal is not None:
        return re.compile(re.escape(literal))
    if not isinstance(expr, cst.FormattedString):
        return None
    parts = [re.escape(p.value) if isinstance(p, cst.FormattedStringText) else ".*" for p in expr.parts]
    if not any(isinstance(p, cst.FormattedStringText) and p.value for p in expr.parts):
        return None
    return re.compile("".join(parts))


def _dotted(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is a dotted name (``mod.Cls.attr``), not an attribute of a call's result."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


def _library(parsed: ParsedModule, expr: cst.Name | cst.Attribute) -> list[Callable] | None:
    """``expr`` as a library's callable: one qualified name, not the project's (asked after the project's lookup)."""
    names = qualified_names(parsed, expr)
    return [Callable(parsed, expr, library=True)] if len(names) == 1 else None


def _union(parts: Iterable[list[Callable] | None]) -> list[Callable] | None:
    found: list[Callable] = []
    for part in parts:
        if part is None:
            return None
        found.extend(part)
    return found


def owner_class(parsed: ParsedModule, function: cst.FunctionDef) -> cst.ClassDef | None:
    """The class whose body defines ``function``, else ``None``."""
    block = parsed.parents.get(function)
    owner = parsed.parents.get(block) if isinstance(block, cst.IndentedBlock) else None
    return owner if isinstance(owner, cst.ClassDef) else None


def _decorated(function: cst.FunctionDef, name: str) -> bool:
    for decorator in function.decorators:
        expr = decorator.decorator
        last = expr.attr.value if isinstance(expr, cst.Attribute) else expr.value if isinstance(expr, cst.Name) else None
        if last == name:
            return True
    return False


def class_assignment(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value the body of ``cls`` last assigns to ``name`` (``overlap = Policy.EAGER``), else ``None``."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    found = None
    for line in body:
        if not isinstance(line, cst.SimpleStatementLine):
            continue
        for small in line.body:
            if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                     for t in small.targets):
                found = small.value
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                    and small.target.value == name and small.value is not None:
                found = small.value
    return found


def _loop_over(parsed: ParsedModule, target: cst.CSTNode) -> cst.BaseExpression | None:
    """The iterable a ``for`` loop or comprehension whose target is the name ``target`` runs over."""
    loop = parsed.parents.get(target)
    return loop.iter if isinstance(loop, (cst.CompFor, cst.For)) and loop.target is target else None


def _display_values(display: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(display, cst.Dict):
        return [e.value for e in display.elements if isinstance(e, cst.DictElement)]
    if isinstance(display, cst.DictComp):
        return [display.value]
    if isinstance(display, (cst.List, cst.Tuple, cst.Set)):
        return [e.value for e in display.elements if not isinstance(e, cst.StarredElement)]
    return []


def _names(holder: cst.BaseExpression, name: str) -> bool:
    """Whether ``holder`` is the name ``name`` or an attribute ``x.name`` (``Strategy._registry``)."""
    if isinstance(holder, cst.Name):
        return holder.value == name
    return isinstance(holder, cst.Attribute) and holder.attr.value == name
