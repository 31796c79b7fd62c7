"""Name resolution over libcst metadata: qualified names and the bindings a name may refer to."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment, BaseAssignment, ComprehensionScope, GlobalScope, ImportAssignment

from asynccfg_lint.analysis.elision import ElidedBlock, kept_calls
from asynccfg_lint.analysis.node_types import instance_types
from asynccfg_lint.analysis.scopes import walked_children
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule, subscript_index


#: per module: id of a name access -> :func:`bindings_of_name` of it
_BINDINGS: ModuleMemo[dict[int, list[Binding] | None]] = ModuleMemo(dict)
#: per module: the comprehension scopes with a walrus target of each name; each node's children
#: in source order (by ``id``); every attribute write by attribute name
_WALRUS_SCOPES: ModuleMemo[dict[str, list[ComprehensionScope]]] = ModuleMemo(dict)
_CHILD_ORDERS: ModuleMemo[dict[int, dict[int, int]]] = ModuleMemo(dict)
_ATTRIBUTE_WRITES: ModuleMemo[dict[str, list[tuple[cst.BaseExpression, Binding | None]]]] = ModuleMemo(dict)
#: a line that may start a ``match`` statement (only then are a module's nodes searched for one)
_MATCH_STATEMENT = re.compile(r"^[ \t]*match\b", re.MULTILINE)
#: a name compared with ``None`` by identity (a textual over-approximation: only a prefilter)
_NONE_COMPARED = re.compile(r"\b([A-Za-z_]\w*)\s+is\s+(?:not\s+)?None\b")
#: per module: the names some ``isinstance(name, ...)`` or ``hasattr(name, "...")`` call or ``match name:``
#: statement tests (a use of another name is never narrowed)
_TESTED_NAMES: ModuleMemo[frozenset[str]] = ModuleMemo(frozenset)
#: a name an ``as`` may bind: an import's new name (with and except targets too, which only adds names)
_AS_NAME = re.compile(r"\bas\s+(\w+)")
#: per module: every name some ``as`` of its text binds
_AS_NAMES: ModuleMemo[frozenset[str] | None] = ModuleMemo(lambda: None)


@dataclass(frozen=True)
class Binding:
    """One place a name may get its value from.

    Attributes:
        value: the bound expression (``x = <value>``), or ``None`` when there is none to see.
        annotation: the annotation expression of a parameter or annotated assignment, if any.
        definition: a ``FunctionDef``/``ClassDef`` when the name is bound by ``def``/``class``.
        augmented: the ``AugAssign`` when the binding is ``name op= value``.
        assignment: the libcst assignment record (its ``.scope`` and ``.node``) of a name
            binding; ``None`` for an attribute binding (``self.cfg = ...``).
        unpacked: for ``a, b = call(...)`` or ``a, = iterable``, the value and the position of the
            name in the target tuple (``value`` is then ``None``): the name is that element of it.
    """

    value: cst.BaseExpression | None
    annotation: cst.BaseExpression | None
    definition: cst.FunctionDef | cst.ClassDef | None
    augmented: cst.AugAssign | None
    assignment: Assignment | None
    unpacked: tuple[cst.BaseExpression, int] | None = None


@dataclass(frozen=True)
class HasAttribute:
    """The test ``hasattr(name, "<attribute>")``, as :func:`excluded_classes` gives it beside class expressions:
    a value known to have ``attribute`` (an enum member's ``value``/``name``) is ruled out like an instance."""

    attribute: str


@dataclass(frozen=True)
class IsNone:
    """The test ``name is None``, as :func:`excluded_classes` gives it beside class expressions: past
    ``if perm is None: perm = [...]`` (or in the body of ``if perm is not None:``) the value a binding
    before the test gives is not ``None``, so a ``None`` there is ruled out like an instance."""


IS_NONE = IsNone()


def may_end_with(parsed: ParsedModule, expr: cst.BaseExpression, last_parts: frozenset[str]) -> bool:
    """False when the name or attribute ``expr`` cannot have a qualified name whose last part is in
    ``last_parts`` (judged without resolving it): those of ``a.b.c`` end with ``c``, and those of a name
    ``c`` too unless an import renamed something to ``c`` (``import x.y as c``). True for any other
    expression. A prefilter for the callees of every call of a large module (resolving them all cost a
    tenth of its analysis)."""
    kind = type(expr)
    if kind is cst.Attribute:
        return expr.attr.value in last_parts  # type: ignore[attr-defined]
    if kind is not cst.Name:
        return True
    if expr.value in last_parts:  # type: ignore[attr-defined]
        return True
    renamed = _AS_NAMES.known(parsed)
    if renamed is None:
        renamed = _AS_NAMES.put(parsed, frozenset(_AS_NAME.findall(parsed.text)))
    return expr.value in renamed  # type: ignore[attr-defined]


def qualified_names(parsed: ParsedModule, node: cst.CSTNode) -> set[str]:
    """Return the fully qualified names ``node`` may refer to (empty when unknown)."""
    return set(parsed.qualified_names(node))


def unpacked_value(target: cst.BaseExpression, name: cst.Name, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """For ``a, b = x, y`` return the element of ``value`` that lands in ``name``."""
    if target is name:
        return value
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        if len(target.elements) == len(value.elements):
            for t_el, v_el in zip(target.elements, value.elements):
                if isinstance(t_el, cst.StarredElement) or isinstance(v_el, cst.StarredElement):
                    return None
                found = unpacked_value(t_el.value, name, v_el.value)
                if found is not None:
                    return found
    return None


def _unpacked_from(target: cst.BaseExpression, name: cst.Name,
                   value: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """For ``a, b = f(...)`` or ``aval, = ctx.avals_in`` (a flat target tuple without a starred name,
    a value that is not a tuple display), the value and ``name``'s position in the target; also
    inside a display (``(x,), (d,) = vals_in, dims_in``: ``d`` is element 0 of ``dims_in``)."""
    if isinstance(value, (cst.Tuple, cst.List)) and isinstance(target, (cst.Tuple, cst.List)) \
            and len(value.elements) == len(target.elements) \
            and not any(isinstance(e, cst.StarredElement) for e in (*value.elements, *target.elements)):
        for t_el, v_el in zip(target.elements, value.elements):
            if holds(t_el.value, name):
                return _unpacked_from(t_el.value, name, v_el.value)
        return None
    if isinstance(value, (cst.Tuple, cst.List)) or not isinstance(target, (cst.Tuple, cst.List)):
        return None
    elements = target.elements
    if any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    for index, element in enumerate(elements):
        if element.value is name:
            return value, index
    return None


def holds(target: cst.BaseExpression, name: cst.Name) -> bool:
    """True when the assignment target ``target`` is ``name`` or a tuple or list holding it."""
    if target is name:
        return True
    return isinstance(target, (cst.Tuple, cst.List)) and any(
        holds(e.value, name) for e in target.elements if not isinstance(e, cst.StarredElement))


def reaching(parsed: ParsedModule, use: cst.CSTNode, bindings: list[Binding]) -> list[Binding]:
    """The ``bindings`` of a name that may still hold at ``use``: those not overwritten on every path to it.

    A plain assignment ``name = ...`` (or ``name op= ...``, whose value is made from what the name
    held before) in a block that also holds ``use``, before it and in the same scope, runs on
    every path to ``use`` (exceptions aside): the bindings that start before it cannot reach
    ``use`` (``groups = attr(); ...; groups = helper(); emit(..., groups)``). Later bindings are
    kept only inside a loop around ``use`` (it may carry them round); loop targets and closures
    are kept (the use may run after any of them).
    """
    scope = parsed.scopes.get(use)
    if not isinstance(scope, GlobalScope) and enclosing(parsed, use, (cst.FunctionDef, cst.Lambda)) is not None:
        bindings = after_import(parsed, bindings)  # a function reads the module's names once the module has run
    last: Binding | None = None
    for binding in bindings:
        statement = _plain_statement(parsed, binding)
        node = binding.assignment.node if statement is not None else None
        if statement is None or binding.assignment.scope is not scope or not starts_before(parsed, node, use):
            continue
        if inside(parsed, use, getattr(statement, "value", None)):
            continue  # `x = x + 1`, `x += x`: the value is computed before the name is bound
        block = enclosing(parsed, node, (cst.IndentedBlock, cst.Module))
        ancestor = parsed.parents.get(use)
        while ancestor is not None and ancestor is not block:
            ancestor = parsed.parents.get(ancestor)
        if ancestor is block and (last is None or starts_before(parsed, last.assignment.node, node)):
            last = binding
    kept = [b for b in bindings if not _after_outside_loops(parsed, b, use, scope)]
    if last is None:
        return kept
    return [b for b in kept if b is last or b.assignment is None
            or not starts_before(parsed, b.assignment.node, last.assignment.node)]


def after_import(parsed: ParsedModule, bindings: list[Binding]) -> list[Binding]:
    """The module-level ``bindings`` of a name that may hold once the module has run, with the others unchanged.

    A plain assignment statement of the module's own body (``MODE = MODE.value``, not under an ``if``,
    ``try`` or loop) replaces every module-level binding of the name before it: a function called after
    the import (a lowering rule, which JAX calls), and another module reading ``consts.MODE``, see the
    last one's value and what comes after it. A binding inside a function (``global MODE``) is kept.
    """
    last: Binding | None = None
    for binding in bindings:
        if _module_statement(parsed, binding) and (last is None or starts_before(
                parsed, last.assignment.node, binding.assignment.node)):
            last = binding
    if last is None:
        return bindings
    return [b for b in bindings if b is last or not isinstance(b.assignment, Assignment)
            or not isinstance(b.assignment.scope, GlobalScope)
            or enclosing(parsed, b.assignment.node, (cst.FunctionDef, cst.Lambda)) is not None
            or not starts_before(parsed, b.assignment.node, last.assignment.node)]


def _plain_statement(parsed: ParsedModule, binding: Binding) -> cst.CSTNode | None:
    """The statement when ``binding`` is a plain assignment of a name (``=``, ``op=``, ``x: T = v``), else ``None``."""
    node = binding.assignment.node if binding.assignment is not None else None
    parent = parsed.parents.get(node) if isinstance(node, cst.Name) else None
    if isinstance(parent, cst.AssignTarget):
        return parsed.parents.get(parent)
    plain = isinstance(parent, cst.AugAssign) or isinstance(parent, cst.AnnAssign) and parent.value is not None
    return parent if plain else None


def _module_statement(parsed: ParsedModule, binding: Binding) -> bool:
    """True when ``binding`` is a plain assignment statement (:func:`_plain_statement`) of the module's body."""
    statement = _plain_statement(parsed, binding)
    if statement is None or not isinstance(binding.assignment.scope, GlobalScope):
        return False
    line = parsed.parents.get(statement)
    return isinstance(line, cst.SimpleStatementLine) and parsed.parents.get(line) is parsed.module


def _after_outside_loops(parsed: ParsedModule, binding: Binding, use: cst.CSTNode, scope: object) -> bool:
    """True when ``binding`` is an assignment statement of ``use``'s scope that comes after ``use`` (or
    whose own value holds ``use``) and no loop around ``use`` holds it: it cannot run before ``use`` does."""
    node = binding.assignment.node if binding.assignment is not None else None
    if not isinstance(node, cst.Name) or binding.assignment.scope is not scope:
        return False
    parent = parsed.parents.get(node)
    if not isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        return False  # a loop or comprehension target, a walrus: kept as before
    statement = parsed.parents.get(parent) if isinstance(parent, cst.AssignTarget) else parent
    if starts_before(parsed, node, use) and not inside(parsed, use, getattr(statement, "value", None)):
        return False  # before the use (`x = x + 1` binds after its value is computed)
    ancestor = parsed.parents.get(use)
    while ancestor is not None and not isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        if isinstance(ancestor, (cst.For, cst.While)) and inside(parsed, node, ancestor):
            return False
        ancestor = parsed.parents.get(ancestor)
    return True


def inside(parsed: ParsedModule, node: cst.CSTNode, ancestor: cst.CSTNode | None) -> bool:
    """True when ``node`` is ``ancestor`` or inside it."""
    while node is not None and ancestor is not None:
        if node is ancestor:
            return True
        node = parsed.parents.get(node)
    return False


def is_import(binding: Binding) -> bool:
    """True when ``binding`` is an ``import``/``from ... import`` of the name (its value is in another module)."""
    return isinstance(binding.assignment, ImportAssignment)


#: libcst's ``Assignment`` and its subclass ``ImportAssignment`` (by exact type: :mod:`~asynccfg_lint.analysis.node_types`)
_ASSIGNMENTS = instance_types((Assignment,))
#: the nodes a target name is unpacked through (``a, (b, *c) = ...``)
_UNPACKING = instance_types((cst.Element, cst.Tuple, cst.List, cst.StarredElement))


def binding_of(parsed: ParsedModule, assignment: Assignment) -> Binding | None:
    """Describe how ``assignment`` binds its name; ``None`` for imports and builtins."""
    if type(assignment) not in _ASSIGNMENTS:
        return None
    node = assignment.node
    kind = type(node)
    if kind is cst.FunctionDef or kind is cst.ClassDef:
        return Binding(None, None, node, None, assignment)
    if kind is cst.Param:
        annotation = node.annotation.annotation if node.annotation else None
        return Binding(None, annotation, None, None, assignment)
    if kind is not cst.Name:
        return Binding(None, None, None, None, assignment)
    # climb from the target name to its statement, through tuple/list unpacking
    child: cst.CSTNode = node
    parent = parsed.parents.get(child)
    while type(parent) in _UNPACKING:
        child, parent = parent, parsed.parents.get(parent)
    if isinstance(parent, cst.AssignTarget):
        statement = parsed.parents.get(parent)
        if isinstance(statement, cst.Assign):
            value = unpacked_value(parent.target, node, statement.value)
            return Binding(value, None, None, None, assignment, _unpacked_from(parent.target, node, statement.value))
    if isinstance(parent, cst.AnnAssign):
        return Binding(parent.value, parent.annotation.annotation, None, None, assignment)
    if isinstance(parent, cst.AugAssign):
        return Binding(parent.value, None, None, parent, assignment)
    if isinstance(parent, cst.NamedExpr):
        return Binding(parent.value, None, None, None, assignment)
    return Binding(None, None, None, None, assignment)


def bindings_of_name(parsed: ParsedModule, name: cst.Name) -> list[Binding] | None:
    """Return the bindings the name access ``name`` may refer to.

    Returns ``None`` when some referent cannot be described (an import or builtin: use its
    qualified name instead) or the name is not an access libcst recorded. The list is kept per
    module and shared by every caller asking about ``name``: it is not to be changed.
    """
    scope = parsed.scopes.get(name)
    if scope is None:
        return None
    known = _BINDINGS.of(parsed)  # (a module's summary rounds ask again about each of its calls' names)
    if id(name) in known:  # (a node of the module's tree: its id stays its own while the module lives)
        return known[id(name)]
    accesses = scope.accesses[name]
    referents = [referent for access in accesses for referent in access.referents]
    if accesses and not referents:  # `[(last := f(v)) for v in vs]` binds `last` in the enclosing scope (PEP 572)
        referents = _leaked_walrus_targets(parsed, scope, name.value)
    # libcst keeps accesses and referents in sets of objects hashed by identity: put them in source
    # order (a scope's assignment count when each was made), so every run follows them alike
    found = _described(parsed, sorted(dict.fromkeys(referents), key=_source_order)) if accesses else None
    known[id(name)] = found
    return found


def _source_order(assignment: BaseAssignment) -> int:
    """The order of ``assignment`` among its scope's (libcst's per-scope count; -1 for a builtin)."""
    return assignment._index


def _leaked_walrus_targets(parsed: ParsedModule, scope: object, name: str) -> list[Assignment]:
    """The assignments of ``name`` by walrus targets inside comprehensions whose enclosing scope is ``scope``.

    libcst records them in the comprehension's scope; Python binds them in the nearest enclosing
    function or module scope, so a use after the comprehension refers to them.
    """
    found: list[Assignment] = []
    for comprehension in _walrus_scopes(parsed).get(name, ()):
        outer = comprehension.parent
        while isinstance(outer, ComprehensionScope):
            outer = outer.parent
        if outer is scope:
            found.extend(a for a in comprehension.assignments[name]
                         if isinstance(parsed.parents.get(a.node), cst.NamedExpr))
    return found


def _walrus_scopes(parsed: ParsedModule) -> dict[str, list[ComprehensionScope]]:
    """Name -> the comprehension scopes with a walrus target of that name (once per module)."""
    known = _WALRUS_SCOPES.known(parsed)
    if known is None:
        found: dict[str, list[ComprehensionScope]] = {}
        for node, scope in parsed.scopes.items():
            if isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name) \
                    and isinstance(scope, ComprehensionScope) and scope not in found.get(node.target.value, []):
                found.setdefault(node.target.value, []).append(scope)
        known = _WALRUS_SCOPES.put(parsed, found)
    return known


def _described(parsed: ParsedModule, assignments: Iterable[object]) -> list[Binding] | None:
    """:func:`binding_of` each assignment once; ``None`` when one cannot be described (an import)."""
    result: list[Binding] = []
    seen: set[int] = set()
    for assignment in assignments:
        if id(assignment) in seen:
            continue
        seen.add(id(assignment))
        binding = binding_of(parsed, assignment)
        if binding is None:
            return None
        result.append(binding)
    return result


def module_bindings(parsed: ParsedModule, name: str) -> list[Binding] | None:
    """The top-level bindings of ``name`` in ``parsed`` (what ``module.name`` may be, seen from another module).

    Returns ``None`` when there is none, or when one is an import (follow its qualified name
    instead: :func:`module_qualified_names`).
    """
    scope = parsed.scopes.get(parsed.module)
    if scope is None or name not in scope:
        return None
    described = _described(parsed, sorted(scope[name], key=_source_order))
    return after_import(parsed, described) if described else None


def module_qualified_names(parsed: ParsedModule, name: str) -> set[str]:
    """The fully qualified names a top-level ``name`` of ``parsed`` stands for (an import's target)."""
    scope = parsed.scopes.get(parsed.module)
    if scope is None:
        return set()
    return {parsed.absolute(qualified) for qualified in scope.get_qualified_names_for(name)}


def enclosing(parsed: ParsedModule, node: cst.CSTNode, kinds: tuple[type, ...]) -> cst.CSTNode | None:
    """Return the nearest ancestor of ``node`` that is an instance of one of ``kinds``."""
    types = instance_types(kinds)
    parent = parsed.parents.get(node)
    while parent is not None and type(parent) not in types:
        parent = parsed.parents.get(parent)
    return parent


def calls_in(parsed: ParsedModule, function: cst.FunctionDef) -> list[cst.Call]:
    """The calls of ``parsed`` whose nearest enclosing ``def`` is ``function`` (not those of a function nested in it;
    a skeleton's: those of the code it kept)."""
    return [call for call in kept_calls(parsed.calls) if enclosing(parsed, call, (cst.FunctionDef,)) is function]


def starts_before(parsed: ParsedModule, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """True when ``first`` starts before ``second`` in the file.

    Compared through the tree, not positions (which cost a code generation of the whole module):
    below their nearest common ancestor, the child holding ``first`` comes before the one holding
    ``second`` in that ancestor's ``children`` (libcst lists them in source order). When one node
    contains the other, positions decide (they may start at the same place).
    """
    if first is second:
        return False
    first_chain, second_chain = _chain(parsed, first), _chain(parsed, second)
    depth = 0
    while (depth < len(first_chain) and depth < len(second_chain)
           and first_chain[depth] is second_chain[depth]):
        depth += 1
    if depth in (len(first_chain), len(second_chain)):
        a, b = parsed.positions[first].start, parsed.positions[second].start
        return (a.line, a.column) < (b.line, b.column)
    order = _child_order(parsed, first_chain[depth - 1])
    return order[id(first_chain[depth])] < order[id(second_chain[depth])]


def _chain(parsed: ParsedModule, node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node``'s ancestors from the module down, ending with ``node``."""
    chain = [node]
    parent = parsed.parents.get(node)
    while parent is not None:
        chain.append(parent)
        parent = parsed.parents.get(parent)
    chain.reverse()
    return chain


def _child_order(parsed: ParsedModule, node: cst.CSTNode) -> dict[int, int]:
    """id(child) -> its index among ``node``'s children in source order (kept per module)."""
    orders = _CHILD_ORDERS.of(parsed)
    if id(node) not in orders:
        orders[id(node)] = {id(child): index for index, child in enumerate(walked_children(node))}
    return orders[id(node)]


def local_definition(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.FunctionDef | cst.ClassDef | None:
    """Return the ``def``/``class`` in this module that ``expr`` (a name or ``Cls.attr``) names, if unique."""
    if isinstance(expr, cst.Name):
        bindings = bindings_of_name(parsed, expr)
        if bindings and len(bindings) == 1 and bindings[0].definition is not None:
            return bindings[0].definition
    return None


def method_owner(parsed: ParsedModule, name: cst.Name) -> cst.ClassDef | None:
    """The class whose method takes ``name`` (a use of ``self`` or ``cls``) as its first parameter, else ``None``.

    Static methods and nested functions have no such parameter.
    """
    bindings = bindings_of_name(parsed, name)
    if not bindings or len(bindings) != 1 or bindings[0].assignment is None:
        return None
    param = bindings[0].assignment.node
    function = enclosing(parsed, param, (cst.FunctionDef,)) if isinstance(param, cst.Param) else None
    if function is None:
        return None
    positional = [*function.params.posonly_params, *function.params.params]
    if not positional or positional[0] is not param:
        return None
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in function.decorators):
        return None
    block = parsed.parents.get(function)
    owner = parsed.parents.get(block) if isinstance(block, cst.IndentedBlock) else None
    return owner if isinstance(owner, cst.ClassDef) else None


#: an attribute written where the checker cannot tell the object (``setattr(obj, name, v)``)
_ANY_ATTRIBUTE = "*"


def _attribute_writes(parsed: ParsedModule, name: str | None = None) -> dict[str, list[tuple[cst.BaseExpression, Binding | None]]]:
    """Every write of an attribute in ``parsed``: attribute name -> ``(object expression, binding)``, for a
    question about the attribute ``name`` (a skeleton's left-out bodies that may write it are parsed first: they
    name it, or ``setattr``, ``delattr``, ``__dict__``, ``vars``; ``None``: any attribute, the whole module).

    The binding is ``None`` for a write whose value cannot be seen (``del obj.x``, a ``for``
    target, ``setattr``/``delattr``). Computed once per module.
    """
    if parsed.elided:
        if name is None:
            parsed.whole()
        parsed.require(name or "", "setattr", "delattr", "__dict__", "vars")
    known = _ATTRIBUTE_WRITES.known(parsed)
    if known is not None:
        return known
    writes: dict[str, list[tuple[cst.BaseExpression, Binding | None]]] = {}

    def add(target: cst.BaseExpression, binding: Binding | None) -> None:
        if isinstance(target, cst.Attribute):
            writes.setdefault(target.attr.value, []).append((target.value, binding))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                add(element.value, None)
        elif isinstance(target, cst.StarredElement):
            add(target.value, None)
        elif isinstance(target, cst.Subscript) and (holder := _attribute_dict(target.value)) is not None:
            index = subscript_index(target)  # obj.__dict__["mode"] = v, vars(obj)[name] = v
            writes.setdefault(string_value(index) or _ANY_ATTRIBUTE, []).append((holder, None))

    # only statements write attributes (a walrus binds names; a comprehension's targets are found below):
    # their walk, not a visit of every node, which cost twice the parse of a module of 1,000 lowering rules
    for statement in statements_of(parsed.module):
        kind = type(statement)
        if kind is cst.Assign:
            for target in statement.targets:
                if isinstance(target.target, cst.Attribute):
                    add(target.target, Binding(statement.value, None, None, None, None))
                elif isinstance(target.target, (cst.Tuple, cst.List)):
                    for element in target.target.elements:
                        if isinstance(element.value, cst.Attribute):
                            value = unpacked_value(target.target, element.value, statement.value)
                            add(element.value, Binding(value, None, None, None, None))
                        else:  # (self.a, self.b), *rest: not followed, so unknown
                            add(element.value, None)
                else:
                    add(target.target, None)
        elif kind is cst.AnnAssign and statement.value is not None:
            add(statement.target, Binding(statement.value, statement.annotation.annotation, None, None, None))
        elif kind is cst.AugAssign:
            add(statement.target, Binding(statement.value, None, None, statement, None))
        elif kind is cst.Del or kind is cst.For:
            add(statement.target, None)
        elif kind is cst.With:
            for item in statement.items:
                if item.asname is not None:
                    add(item.asname.name, None)
    if parsed.text_has("for"):  # [None for self.mode in modes]: the comprehension writes it
        for node in parsed.parents:
            if type(node) is cst.CompFor:
                add(node.target, None)
    for call in kept_calls(parsed.calls):  # (a skeleton's: no left-out body writes the attribute asked about)
        func = call.func
        if isinstance(func, cst.Name) and func.value in ("setattr", "delattr") and len(call.args) >= 2:
            name = string_value(call.args[1].value)
            shown = func.value == "setattr" and name is not None and len(call.args) == 3 and not any(
                a.star or a.keyword is not None for a in call.args)
            writes.setdefault(name or _ANY_ATTRIBUTE, []).append(
                (call.args[0].value, Binding(call.args[2].value, None, None, None, None) if shown else None))
        elif isinstance(func, cst.Attribute) and func.attr.value in ("update", "setdefault", "pop", "clear") \
                and (holder := _attribute_dict(func.value)) is not None:
            writes.setdefault(_ANY_ATTRIBUTE, []).append((holder, None))  # obj.__dict__.update(...)
    return _ATTRIBUTE_WRITES.put(parsed, writes)


def _attribute_dict(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """``obj`` of ``obj.__dict__`` or ``vars(obj)`` (the dict of its attributes), else ``None``."""
    if isinstance(expr, cst.Attribute) and expr.attr.value == "__dict__":
        return expr.value
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "vars" \
            and len(expr.args) == 1 and not expr.args[0].star:
        return expr.args[0].value
    return None


#: the fields of a compound statement (or of its ``else``, ``finally``, ``except`` and ``case`` parts) that hold statements
_STATEMENT_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")


def statements_of(module: cst.Module) -> Iterator[cst.CSTNode]:
    """Every statement of ``module``, small (``x = 1``) and compound (``for``), at any depth, in source order
    (a compound statement before the statements of its body)."""
    pending: list[cst.CSTNode] = list(reversed(module.body))
    while pending:
        node = pending.pop()
        if type(node) is ElidedBlock:  # a skeleton's left-out body (:func:`_attribute_writes` asked for those it needs)
            continue
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.IndentedBlock)):
            pending.extend(reversed(node.body))
            continue
        if isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
            yield node
        parts: list[cst.CSTNode] = []
        for field in _STATEMENT_FIELDS:
            value = getattr(node, field, None)
            if isinstance(value, cst.CSTNode):
                parts.append(value)
            elif isinstance(value, (tuple, list)):
                parts.extend(value)
        pending.extend(reversed(parts))


def class_attribute_bindings(parsed: ParsedModule, cls: cst.ClassDef, name: str) -> list[Binding] | None:
    """The bindings ``<instance of cls>.name`` or ``cls.name`` may refer to (may-analysis).

    Every assignment of ``name`` in the class body and every ``self.name = ...`` (also
    ``cls.name = ...`` and ``Cls.name = ...``) in the module contributes. Returns ``None`` when
    there is none, or when ``name`` is also written where the object cannot be told (an
    attribute of another name, ``setattr``, ``del``, a ``for`` target): the value is then unknown.
    """
    result: list[Binding] = []
    statements = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    scope = parsed.scopes.get(statements[0]) if statements else None
    if scope is not None and scope is not parsed.scopes.get(cls) and name in scope.assignments:
        found = _described(parsed, scope.assignments[name])
        if found is None:
            return None
        result.extend(found)
    writes = _attribute_writes(parsed, name)
    for obj, binding in [*writes.get(name, ()), *writes.get(_ANY_ATTRIBUTE, ())]:
        owner = None
        if isinstance(obj, cst.Name):
            owner = method_owner(parsed, obj) or local_definition(parsed, obj)
            if owner is not None and owner is not cls and isinstance(owner, cst.ClassDef):
                continue  # another class's attribute of the same name
        if owner is not cls or binding is None:
            return None
        result.append(binding)
    return result or None


def may_write_attribute(parsed: ParsedModule, name: str) -> bool:
    """Whether ``parsed`` may write the attribute ``name`` of an object of another module's class: a write of
    ``name`` (or an unknown ``setattr``) through anything but ``self``/``cls`` of a method of a class of
    ``parsed`` (which writes that class's instances). What :func:`class_attribute_bindings` cannot see from
    the class's own module (``SETTINGS.mode = SETTINGS.mode.value`` in the module that imports
    ``SETTINGS``)."""
    writes = _attribute_writes(parsed, name)
    for obj, _ in [*writes.get(name, ()), *writes.get(_ANY_ATTRIBUTE, ())]:
        if not (isinstance(obj, cst.Name) and method_owner(parsed, obj) is not None):
            return True
    return False


def attribute_bindings(parsed: ParsedModule, expr: cst.Attribute) -> list[Binding] | None:
    """The bindings ``self.x`` (in a method) or ``Cls.x`` (a class of this module) may refer to.

    See :func:`class_attribute_bindings`; ``None`` when the object is neither.
    """
    if not isinstance(expr.value, cst.Name):
        return None
    cls = local_definition(parsed, expr.value)
    if not isinstance(cls, cst.ClassDef):
        cls = method_owner(parsed, expr.value)
    return class_attribute_bindings(parsed, cls, expr.attr.value) if cls is not None else None


def location(parsed: ParsedModule, node: cst.CSTNode, like: str = "") -> str:
    """``path:line`` of ``node`` in ``parsed`` (1-based line), the path in the form of the checked file's
    path ``like``: absolute when that is absolute (``check /abs/pkg``: the diagnostic's own path is),
    else relative to the working directory as the checked files are shown (``../builders.py`` when
    the run starts inside the package); normalised (``./pkg/a.py`` is ``pkg/a.py``) so every front
    end names it alike whatever path it was given."""
    path = os.path.normpath(parsed.path)
    if os.path.isabs(like):
        return f"{os.path.abspath(path)}:{parsed.positions[node].start.line}"
    if os.path.isabs(path):
        try:
            path = os.path.relpath(path)
        except ValueError:  # another drive (Windows): keep it absolute
            pass
    return f"{path}:{parsed.positions[node].start.line}"


def string_value(node: cst.CSTNode | None) -> str | None:
    """Return the value of a plain string literal (not bytes, not an f-string), else ``None``."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd escapes; treat as unknown
            return None
        return value if isinstance(value, str) else None
    return None


#: statements after which the rest of their block does not run
_EXITS = (cst.Return, cst.Raise, cst.Break, cst.Continue)
#: where a use may run later than the code around it: narrowing stops there
_DEFERRED = instance_types((cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.GeneratorExp, cst.Module))
#: an ``if`` statement or expression
_BRANCHES = instance_types((cst.If, cst.IfExp))


def _own_start(parsed: ParsedModule, use: cst.Name, binding: Binding) -> cst.CSTNode | None:
    """The node where ``binding`` binds ``use``'s name (a ``Param`` for a parameter) when it is of ``use``'s own
    scope, else ``None`` (a loop or a nested function may carry another value round to the use)."""
    assignment = binding.assignment
    scope = parsed.scopes.get(use)
    if assignment is None or scope is None or assignment.scope is not scope:
        return None
    return assignment.node


def _bound_before(parsed: ParsedModule, start: cst.CSTNode, statement: cst.CSTNode) -> bool:
    """True when the binding at ``start`` is made before ``statement`` runs (a parameter always is; a name
    inside the statement is not: checked first, then neither node holds the other and ``starts_before``
    needs no positions)."""
    return isinstance(start, cst.Param) or not inside(parsed, start, statement) and starts_before(parsed, start, statement)


def excluded_classes(parsed: ParsedModule, use: cst.Name, binding: Binding,
                     decide: Callable[[cst.BaseExpression], bool | None] | None = None) -> list[cst.BaseExpression | HasAttribute]:
    """The class expressions that a value ``binding`` gives the name ``use`` is known not to be an instance of at ``use``.

    A value bound before ``if isinstance(name, X):`` reaches ``use`` only through its false outcome
    when ``use`` is in the ``else``/``elif`` part (or the body of ``if not isinstance(name, X)``,
    the ``else`` of ``... if isinstance(name, X) else ...``), or comes after the ``if`` in a block
    that holds both while the ``if`` body leaves (a top-level ``return``, ``raise``, ``break`` or
    ``continue``) or binds the name again (a top-level ``name = ...``). ``X`` may be a tuple of
    classes (each is given). Only for a binding of ``use``'s own scope that starts before the
    ``if`` (not inside it): a loop may carry a later binding round to the use past the test.
    Returns ``[]`` when nothing is known; the caller decides which values are instances of ``X``.
    ``decide`` gives the outcome of an ``if`` test before ``use`` that it knows (``True``/``False``, else
    ``None``): the branch that then runs is read as if its statements stood in the ``if``'s place
    (``if kind == "enum": if isinstance(mode, enum.Enum): mode = mode.value`` for a bind passing ``kind="enum"``).
    """
    start = _own_start(parsed, use, binding) if use.value in _tested_names(parsed) else None
    if start is None:
        return []
    found: list[cst.BaseExpression | HasAttribute] = []

    def before(statement: cst.CSTNode) -> bool:
        return _bound_before(parsed, start, statement)

    def tested(test_of: cst.If | cst.IfExp, negated: bool) -> list[cst.BaseExpression | HasAttribute]:
        classes = _isinstance_classes(parsed, test_of.test, use, negated)
        return classes if classes and before(test_of) else []

    def preceding(statements: Sequence[cst.CSTNode], child: cst.CSTNode) -> list[cst.BaseExpression | HasAttribute]:
        classes: list[cst.BaseExpression | HasAttribute] = []
        for statement in statements:
            if statement is child:
                break
            branch = _decided_branch(statement, decide) if decide is not None and isinstance(statement, cst.If) else None
            if branch is not None:  # the branch that runs, in the if's place (nothing runs: an empty list)
                classes += preceding(branch, None)
            elif isinstance(statement, cst.If) and _leaves_or_rebinds(statement.body, use.value):
                classes += tested(statement, negated=False)
            elif isinstance(statement, cst.Match) and before(statement):
                classes += _matched_classes(parsed, statement, use)
        return classes

    child: cst.CSTNode = use
    node = parsed.parents.get(use)
    while node is not None and type(node) not in _DEFERRED:
        if type(node) in _BRANCHES and child is node.orelse:
            found += tested(node, negated=False)
        elif type(node) in _BRANCHES and child is node.body:
            found += tested(node, negated=True)
        elif isinstance(node, cst.IndentedBlock):
            found += preceding(node.body, child)
        child, node = node, parsed.parents.get(node)
    if isinstance(node, cst.Module):  # module level: the same over the module's statements
        found += preceding(node.body, child)
    return found


def required_classes(parsed: ParsedModule, use: cst.Name, binding: Binding) -> list[cst.BaseExpression]:
    """The class expressions one of which the value ``binding`` gives ``use`` is known to be an instance of at
    ``use``: ``use`` is in the body of ``if isinstance(name, X)`` (or of ``... if isinstance(name, X) else ...``),
    or in the ``else`` of ``not isinstance(name, X)``, or in the body of a ``case X():`` of ``match name:``, the
    innermost such test; the binding comes before the test (a parameter, an earlier statement, or the ``for`` of
    a comprehension holding it). ``[]`` when none."""
    start = _own_start(parsed, use, binding) if use.value in _tested_names(parsed) else None
    if start is None:
        return []
    comprehension = enclosing(parsed, start, (cst.CompFor,)) if isinstance(start, cst.Name) else None
    child: cst.CSTNode = use
    node = parsed.parents.get(use)
    while node is not None and type(node) not in _DEFERRED:
        if type(node) in _BRANCHES and (child is node.body or child is node.orelse):
            classes = _isinstance_classes(parsed, node.test, use, negated=child is not node.body)
            known_before = _bound_before(parsed, start, node) \
                or comprehension is not None and inside(parsed, node, parsed.parents.get(comprehension))
            if classes and known_before:
                return [c for c in classes if not isinstance(c, (HasAttribute, IsNone))]
        elif isinstance(node, cst.MatchCase) and child is node.body:  # `case Fmt(): ...` of `match <name>:`
            statement = parsed.parents.get(node)
            classes = _case_classes(node.pattern) if isinstance(statement, cst.Match) \
                and _matches_name(parsed, statement, use) and _bound_before(parsed, start, statement) else None
            if classes:
                return classes
        elif isinstance(node, cst.IndentedBlock):  # `if not isinstance(v, X): v = ...` before the use
            for statement in node.body:
                if statement is child:
                    break
                if isinstance(statement, cst.If) and _leaves_or_rebinds(statement.body, use.value) \
                        and _bound_before(parsed, start, statement):
                    classes = _isinstance_classes(parsed, statement.test, use, negated=True)
                    if classes:
                        return [c for c in classes if not isinstance(c, (HasAttribute, IsNone))]
        child, node = node, parsed.parents.get(node)
    return []


def _rebinding_block(parsed: ParsedModule, name: cst.Name, binding: Binding) -> cst.CSTNode | None:
    """The statement whose block holds ``binding`` at its top level when ``binding`` is a plain assignment
    of ``name`` in ``name``'s scope (an ``If``, a ``MatchCase``, ...), else ``None``."""
    node = binding.assignment.node if binding.assignment is not None else None
    if binding.value is None or not isinstance(node, cst.Name) or parsed.scopes.get(node) is not parsed.scopes.get(name):
        return None
    assign = parsed.parents.get(parsed.parents.get(node))  # Name -> AssignTarget -> Assign
    line = parsed.parents.get(assign) if isinstance(assign, cst.Assign) else None
    block = parsed.parents.get(line) if isinstance(line, cst.SimpleStatementLine) else None
    return parsed.parents.get(block) if isinstance(block, cst.IndentedBlock) else None


def narrowing_rebinds(parsed: ParsedModule, name: cst.Name, bindings: Sequence[Binding]) -> bool:
    """True when every binding of ``bindings`` is an assignment at the top level of the body of an
    ``if isinstance(<name>, X):`` (or ``if not isinstance(...)``) of ``name``'s scope that has no ``else``:
    ``if isinstance(mode, enum.IntEnum): mode = int(mode)``, or of a case with a bare class pattern of
    ``match <name>:`` (``case enum.Enum(): mode = mode.value``). What else reaches ``name`` past such an ``if``
    is narrowed by its test (:func:`excluded_classes`, :func:`required_classes`)."""
    for binding in bindings:
        statement = _rebinding_block(parsed, name, binding)
        if isinstance(statement, cst.MatchCase):  # `match mode: case enum.Enum(): mode = mode.value`
            matched = parsed.parents.get(statement)
            if not isinstance(matched, cst.Match) or not _matches_name(parsed, matched, name) \
                    or not _pattern_classes(statement.pattern):
                return False
            continue
        if not isinstance(statement, cst.If) or statement.orelse is not None or not (
                _isinstance_classes(parsed, statement.test, name, negated=False)
                or _isinstance_classes(parsed, statement.test, name, negated=True)):
            return False
    return True


def none_replacements(parsed: ParsedModule, name: cst.Name, bindings: Sequence[Binding]) -> bool:
    """True when every binding of ``bindings`` is an assignment at the top level of the body of an
    ``if <name> is None:`` of ``name``'s scope that has no ``else`` (``if options is None: options =
    get_preset(preset)``): past it, ``name`` is what it held unless that was ``None``, or the replacement."""
    for binding in bindings:
        statement = _rebinding_block(parsed, name, binding)
        test = statement.test if isinstance(statement, cst.If) and statement.orelse is None else None
        if not (isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == name.value
                and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Is)
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None"):
            return False
    return True


def serialized_before(parsed: ParsedModule, use: cst.Name, binding: Binding) -> bool:
    """True when the dict ``binding`` gives the name ``use`` reaches ``use`` only after a plain
    ``json.dumps(<name>)`` of it returned: that call is a statement of a block holding ``use``, before it
    and after the binding, or of the body of a ``try`` there whose every ``except`` leaves or binds the name
    again (``try: json.dumps(cfg) except (TypeError, ValueError): cfg = {...}``). When the call raises, the
    use is not reached with that value. A call with ``default=`` or ``cls=`` proves nothing; nor does one
    after a statement of the ``try`` body that may bind the name again."""
    start = _own_start(parsed, use, binding) if parsed.text_has(f"dumps({use.value}") else None
    if start is None:
        return False

    def after_binding(statement: cst.CSTNode) -> bool:
        return _bound_before(parsed, start, statement)

    def guards(statement: cst.CSTNode) -> bool:
        if _dumps_statement(parsed, statement, use.value):
            return after_binding(statement)
        if isinstance(statement, cst.Try) and after_binding(statement) \
                and all(_leaves_or_rebinds(h.body, use.value) for h in statement.handlers):
            for inner in statement.body.body:
                if _dumps_statement(parsed, inner, use.value):
                    return True
                if not isinstance(inner, cst.SimpleStatementLine) or _leaves_or_rebinds(inner, use.value):
                    return False
        return False

    child: cst.CSTNode = use
    node = parsed.parents.get(use)
    while node is not None and type(node) not in _DEFERRED:
        if isinstance(node, cst.IndentedBlock) and any(guards(s) for s in node.body[:_index_of(node.body, child)]):
            return True
        child, node = node, parsed.parents.get(node)
    return isinstance(node, cst.Module) and any(guards(s) for s in node.body[:_index_of(node.body, child)])


def normalised_classes(parsed: ParsedModule, use: cst.Name, binding: Binding) -> list[cst.BaseExpression]:
    """The classes whose instances a loop before ``use`` replaces in the dict ``binding`` gives the name: a
    statement ``for k, v in <name>.items():`` (or ``list(<name>.items())``) of a block holding ``use``, after the
    binding, whose whole body is ``if isinstance(v, X): <name>[k] = <value>`` (no ``else``). Every entry the
    binding made whose value is an ``X`` holds ``<value>`` at ``use`` instead. ``[]`` when there is no such loop."""
    start = _own_start(parsed, use, binding) \
        if parsed.text_has(f"{use.value}.items()") and parsed.text_has("isinstance") else None
    if start is None:
        return []
    classes: list[cst.BaseExpression] = []
    child: cst.CSTNode = use
    node = parsed.parents.get(use)
    while node is not None and type(node) not in _DEFERRED:
        if isinstance(node, (cst.IndentedBlock, cst.Module)):
            for statement in node.body[:_index_of(node.body, child)]:
                if isinstance(statement, cst.For) and _bound_before(parsed, start, statement):
                    classes += _loop_normalised(parsed, statement, use.value)
        if isinstance(node, cst.Module):
            break
        child, node = node, parsed.parents.get(node)
    return classes


def _loop_normalised(parsed: ParsedModule, loop: cst.For, name: str) -> list[cst.BaseExpression]:
    """The classes of ``for k, v in <name>.items(): if isinstance(v, X): <name>[k] = ...`` (``loop``), else ``[]``."""
    target, iterated = loop.target, loop.iter
    if loop.orelse is not None or loop.asynchronous is not None or not isinstance(target, cst.Tuple) \
            or len(target.elements) != 2 or not all(isinstance(e.value, cst.Name) for e in target.elements):
        return []
    key, value = (e.value for e in target.elements)
    if isinstance(iterated, cst.Call) and len(iterated.args) == 1 and not iterated.args[0].keyword \
            and not iterated.args[0].star and qualified_names(parsed, iterated.func) & {"builtins.list", "builtins.tuple"}:
        iterated = iterated.args[0].value
    if not (isinstance(iterated, cst.Call) and not iterated.args and isinstance(iterated.func, cst.Attribute)
            and iterated.func.attr.value == "items" and isinstance(iterated.func.value, cst.Name)
            and iterated.func.value.value == name) or key.value == value.value:
        return []
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()
    test = body[0] if len(body) == 1 else None
    if not isinstance(test, cst.If) or test.orelse is not None or not isinstance(test.test, cst.Call) or not test.test.args:
        return []
    inner = test.body.body if isinstance(test.body, cst.IndentedBlock) else ()
    line = inner[0] if len(inner) == 1 else None
    assign = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return []
    written = assign.targets[0].target
    if not (isinstance(written, cst.Subscript) and isinstance(written.value, cst.Name) and written.value.value == name
            and len(written.slice) == 1 and isinstance(written.slice[0].slice, cst.Index)
            and isinstance(written.slice[0].slice.value, cst.Name) and written.slice[0].slice.value.value == key.value):
        return []
    subject = test.test.args[0].value
    if not isinstance(subject, cst.Name) or subject.value != value.value:
        return []
    return [c for c in _isinstance_classes(parsed, test.test, subject, negated=False) if not isinstance(c, (HasAttribute, IsNone))]


def _index_of(statements: Sequence[cst.CSTNode], child: cst.CSTNode) -> int:
    """The position of ``child`` among ``statements`` (their number when it is not one)."""
    return next((i for i, s in enumerate(statements) if s is child), len(statements))


def _dumps_statement(parsed: ParsedModule, statement: cst.CSTNode, name: str) -> bool:
    """True when ``statement`` is a line ``json.dumps(<name>)`` (any other keywords than ``default``/``cls``),
    or ``<target> = json.dumps(<name>)``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None or call.args[0].star:
        return False
    subject = call.args[0].value
    if not isinstance(subject, cst.Name) or subject.value != name \
            or any(a.star or a.keyword is None or a.keyword.value in ("default", "cls") for a in call.args[1:]):
        return False
    return "json.dumps" in qualified_names(parsed, call.func)


def _decided_branch(statement: cst.If, decide: Callable[[cst.BaseExpression], bool | None]) -> Sequence[cst.CSTNode] | None:
    """The statements of the branch of ``statement`` that runs when ``decide`` knows its test (and those of
    its ``elif`` s), ``[]`` when none runs; ``None`` when a test on the way is not known."""
    outcome = decide(statement.test)
    if outcome is None:
        return None
    suite = statement.body if outcome else statement.orelse
    if isinstance(suite, cst.If):
        return _decided_branch(suite, decide)
    if isinstance(suite, cst.Else):
        suite = suite.body
    if suite is None:
        return []
    return suite.body if isinstance(suite, cst.IndentedBlock) else [suite]


def _matched_classes(parsed: ParsedModule, statement: cst.Match, use: cst.Name) -> list[cst.BaseExpression]:
    """The classes whose instances ``match <use's name>:`` (``statement``) never lets past it unchanged: those
    of its leading cases, without a guard, whose body leaves or binds the name again and whose pattern is a
    bare class pattern; the first case whose body does neither ends the list (it may catch an instance of a
    later case's class, as ``case str():`` catches a ``StrEnum`` member). ``[]`` for another subject."""
    if not _matches_name(parsed, statement, use):
        return []
    classes: list[cst.BaseExpression] = []
    for case in statement.cases:
        if not _leaves_or_rebinds(case.body, use.value):
            break
        if case.guard is None:
            classes += _pattern_classes(case.pattern)
    return classes


def _matches_name(parsed: ParsedModule, statement: cst.Match, use: cst.Name) -> bool:
    """True when ``statement`` is ``match <use's name>:``, the name in ``use``'s scope."""
    subject = statement.subject
    return isinstance(subject, cst.Name) and subject.value == use.value \
        and parsed.scopes.get(subject) is parsed.scopes.get(use)


def _case_classes(pattern: cst.MatchPattern) -> list[cst.BaseExpression]:
    """The classes one of which every value ``pattern`` matches is an instance of: ``Cls(...)`` (with any
    sub-patterns), through ``as``, and every alternative of ``|`` being one; ``[]`` when some value matched
    may be of no class named (a literal, a capture, ``_``)."""
    if isinstance(pattern, cst.MatchClass):
        return [pattern.cls]
    if isinstance(pattern, cst.MatchAs):
        return _case_classes(pattern.pattern) if pattern.pattern is not None else []
    if isinstance(pattern, cst.MatchOr):
        found = [_case_classes(element.pattern) for element in pattern.patterns]
        return [cls for classes in found for cls in classes] if all(found) else []
    return []


def _pattern_classes(pattern: cst.MatchPattern) -> list[cst.BaseExpression]:
    """The classes every instance of which ``pattern`` matches: ``Cls()`` with no sub-patterns, through ``as``
    and each alternative of ``|``; ``[]`` for any other pattern."""
    if isinstance(pattern, cst.MatchClass):
        return [pattern.cls] if not pattern.patterns and not pattern.kwds else []
    if isinstance(pattern, cst.MatchAs):
        return _pattern_classes(pattern.pattern) if pattern.pattern is not None else []
    if isinstance(pattern, cst.MatchOr):
        return [cls for element in pattern.patterns for cls in _pattern_classes(element.pattern)]
    return []


def isinstance_tested(parsed: ParsedModule, name: str) -> bool:
    """True when some ``isinstance(name, ...)`` or ``hasattr(name, ...)`` call, ``name is None`` / ``is not None``
    comparison or ``match name:`` statement of ``parsed`` may test the name ``name`` (else nothing narrows it)."""
    return name in _tested_names(parsed)


def _tested_names(parsed: ParsedModule) -> frozenset[str]:
    """The names ``isinstance``/``hasattr`` calls and ``match`` statements of ``parsed`` test (once per module,
    from its list of calls; its nodes only when a line of its text starts with ``match``)."""
    known = _TESTED_NAMES.known(parsed)
    if known is None:
        names = {call.args[0].value.value for call in kept_calls(parsed.calls)  # (a skeleton's: its uses are kept)
                 if isinstance(call.func, cst.Name) and call.func.value in ("isinstance", "hasattr") and call.args
                 and isinstance(call.args[0].value, cst.Name)}
        names |= {m.group(1) for m in _NONE_COMPARED.finditer(parsed.text)}
        if _MATCH_STATEMENT.search(parsed.text):
            names |= {node.subject.value for node in parsed.parents
                      if isinstance(node, cst.Match) and isinstance(node.subject, cst.Name)}
        known = _TESTED_NAMES.put(parsed, frozenset(names))
    return known


def _isinstance_classes(parsed: ParsedModule, test: cst.BaseExpression, use: cst.Name,
                        negated: bool) -> list[cst.BaseExpression | HasAttribute]:
    """The classes of ``test`` when it is ``isinstance(<use's name>, classes)`` (``negated``: ``not isinstance(...)``),
    the name in ``use``'s scope; a :class:`HasAttribute` for ``hasattr(<use's name>, "<literal>")``; :data:`IS_NONE`
    for ``<use's name> is None`` (``negated``: ``is not None``, ``not ... is None``); else ``[]``."""
    if _none_compared(parsed, test, use, "is not" if negated else "is"):
        return [IS_NONE]
    if negated:
        if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
            return []
        test = test.expression
    if not isinstance(test, cst.Call) or len(test.args) != 2 or any(a.keyword is not None or a.star for a in test.args):
        return []
    subject, classes = test.args[0].value, test.args[1].value
    if not isinstance(subject, cst.Name) or subject.value != use.value or parsed.scopes.get(subject) is not parsed.scopes.get(use):
        return []
    names = qualified_names(parsed, test.func)
    if "builtins.hasattr" in names:
        attribute = string_value(classes)
        return [HasAttribute(attribute)] if attribute is not None else []
    if "builtins.isinstance" not in names:
        return []
    if isinstance(classes, cst.Tuple):
        if any(isinstance(e, cst.StarredElement) for e in classes.elements):
            return []
        return [e.value for e in classes.elements]
    return [classes]


def _none_compared(parsed: ParsedModule, test: cst.BaseExpression, use: cst.Name, operator: str) -> bool:
    """True when ``test`` is ``<use's name> is None`` (``operator`` ``"is"``; ``not <name> is None`` too for
    ``"is not"``) or ``<use's name> is not None`` (``"is not"``), the name in ``use``'s scope."""
    if operator == "is not" and isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, operator = test.expression, "is"
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    wanted = cst.IsNot if operator == "is not" else cst.Is
    return isinstance(target.operator, wanted) and isinstance(target.comparator, cst.Name) \
        and target.comparator.value == "None" and isinstance(test.left, cst.Name) and test.left.value == use.value \
        and parsed.scopes.get(test.left) is parsed.scopes.get(use)


def _leaves_or_rebinds(body: cst.BaseSuite, name: str) -> bool:
    """True when every run of ``body`` leaves its block or binds ``name`` again: a top-level statement does."""
    lines = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for line in lines:
        small = line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ()
        for statement in small:
            if isinstance(statement, _EXITS):
                return True
            if isinstance(statement, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == name for t in statement.targets):
                return True
            if isinstance(statement, cst.AnnAssign) and statement.value is not None \
                    and isinstance(statement.target, cst.Name) and statement.target.value == name:
                return True
    return False


def receiver_alternatives(parsed: ParsedModule, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The expressions ``expr`` (a call's receiver: ``prim`` of ``prim.bind``) may stand for, as written:
    each branch of a conditional (``a_p if fast else b_p``, as JAX's own ``parallel.py`` picks a primitive),
    each value of a dict display it subscripts (``{"fast": a_p, "slow": b_p}[name]``, also through a name
    bound once to the display), and for a name bound in its scope only by assignments, those of each
    assigned value. ``[]`` for anything else (the call's own qualified names decide then)."""
    if isinstance(expr, cst.Name):
        bindings = bindings_of_name(parsed, expr)
        param = bindings[0].assignment.node if bindings and len(bindings) == 1 and bindings[0].assignment else None
        if isinstance(param, cst.Param):  # def _start(prim, x, **params): prim.bind(...), called with a_p, b_p
            return [alternative for argument in _private_arguments(parsed, param)
                    for alternative in _branches(parsed, argument)]
        if not bindings or any(b.value is None or b.augmented is not None for b in bindings):
            return []
        return [alternative for b in bindings if b.value is not None for alternative in _branches(parsed, b.value)]
    return _branches(parsed, expr) if isinstance(expr, (cst.IfExp, cst.Subscript)) else []


def _private_arguments(parsed: ParsedModule, param: cst.Param) -> list[cst.BaseExpression]:
    """What the calls of a module-private top-level function (``_start``) pass for its positional parameter
    ``param``, when every reference to the function is such a call in this module; ``[]`` otherwise."""
    function = parsed.parents.get(parsed.parents.get(param))
    if not isinstance(function, cst.FunctionDef) or not isinstance(parsed.parents.get(function), cst.Module) \
            or not function.name.value.startswith("_"):
        return []
    positional = [*function.params.posonly_params, *function.params.params]
    index = next((i for i, p in enumerate(positional) if p is param), None)
    scope = parsed.scopes.get(parsed.module)
    if index is None or scope is None or function.name.value not in scope:
        return []
    found: list[cst.BaseExpression] = []
    for assignment in scope[function.name.value]:
        if getattr(assignment, "node", None) is not function:
            return []
        for access in assignment.references:
            call = parsed.parents.get(access.node)
            if not isinstance(call, cst.Call) or call.func is not access.node:
                return []
            passed = [a for a in call.args if a.keyword is None]
            if any(a.star for a in passed[:index + 1]) or len(passed) <= index:
                return []
            found.append(passed[index].value)
    return found


def _branches(parsed: ParsedModule, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """``expr``'s alternatives (:func:`receiver_alternatives`): a conditional's branches, a subscripted dict
    display's values, each expanded so; ``[expr]`` for any other expression."""
    if isinstance(expr, cst.IfExp):
        return [*_branches(parsed, expr.body), *_branches(parsed, expr.orelse)]
    if isinstance(expr, cst.Subscript):
        table = expr.value
        if isinstance(table, cst.Name):
            bindings = bindings_of_name(parsed, table)
            table = bindings[0].value if bindings and len(bindings) == 1 and bindings[0].augmented is None else None
        if isinstance(table, cst.Dict) and table.elements \
                and all(isinstance(element, cst.DictElement) for element in table.elements):
            return [alternative for element in table.elements for alternative in _branches(parsed, element.value)]
    return [expr]
