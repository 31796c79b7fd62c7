"""Name resolution over libcst metadata: qualified names and the bindings a name may refer to."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment

from asynccfg_lint.parse import ParsedModule


@dataclass(frozen=True)
class Binding:
    """One place a name may get its value from.

    Attributes:
        value: the bound expression (``x = <value>``), or ``None`` when there is none to see.
        annotation: the annotation expression of a parameter or annotated assignment, if any.
        definition: a ``FunctionDef``/``ClassDef`` when the name is bound by ``def``/``class``.
        augmented: the ``AugAssign`` when the binding is ``name op= value``.
        assignment: the libcst assignment record (its ``.scope`` and ``.node``).
    """

    value: cst.BaseExpression | None
    annotation: cst.BaseExpression | None
    definition: cst.FunctionDef | cst.ClassDef | None
    augmented: cst.AugAssign | None
    assignment: Assignment


def qualified_names(parsed: ParsedModule, node: cst.CSTNode) -> set[str]:
    """Return the fully qualified names ``node`` may refer to (empty when unknown)."""
    return set(parsed.qualified_names(node))


def _unpacked_value(target: cst.BaseExpression, name: cst.Name, value: cst.BaseExpression) -> cst.BaseExpression | None:
    """For ``a, b = x, y`` return the element of ``value`` that lands in ``name``."""
    if target is name:
        return value
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
        if len(target.elements) == len(value.elements):
            for t_el, v_el in zip(target.elements, value.elements):
                if isinstance(t_el, cst.StarredElement) or isinstance(v_el, cst.StarredElement):
                    return None
                found = _unpacked_value(t_el.value, name, v_el.value)
                if found is not None:
                    return found
    return None


def binding_of(parsed: ParsedModule, assignment: Assignment) -> Binding | None:
    """Describe how ``assignment`` binds its name; ``None`` for imports and builtins."""
    if not isinstance(assignment, Assignment):
        return None
    node = assignment.node
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return Binding(None, None, node, None, assignment)
    if isinstance(node, cst.Param):
        annotation = node.annotation.annotation if node.annotation else None
        return Binding(None, annotation, None, None, assignment)
    if not isinstance(node, cst.Name):
        return Binding(None, None, None, None, assignment)
    # climb from the target name to its statement, through tuple/list unpacking
    child: cst.CSTNode = node
    parent = parsed.parents.get(child)
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List, cst.StarredElement)):
        child, parent = parent, parsed.parents.get(parent)
    if isinstance(parent, cst.AssignTarget):
        statement = parsed.parents.get(parent)
        if isinstance(statement, cst.Assign):
            return Binding(_unpacked_value(parent.target, node, statement.value), None, None, None, assignment)
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
    qualified name instead) or the name is not an access libcst recorded.
    """
    scope = parsed.scopes.get(name)
    if scope is None:
        return None
    accesses = scope.accesses[name]
    if not accesses:
        return None
    result: list[Binding] = []
    seen: set[int] = set()
    for access in accesses:
        for referent in access.referents:
            if id(referent) in seen:
                continue
            seen.add(id(referent))
            binding = binding_of(parsed, referent)
            if binding is None:
                return None
            result.append(binding)
    return result


def enclosing(parsed: ParsedModule, node: cst.CSTNode, kinds: tuple[type, ...]) -> cst.CSTNode | None:
    """Return the nearest ancestor of ``node`` that is an instance of one of ``kinds``."""
    parent = parsed.parents.get(node)
    while parent is not None and not isinstance(parent, kinds):
        parent = parsed.parents.get(parent)
    return parent


def starts_before(parsed: ParsedModule, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """True when ``first`` starts before ``second`` in the file."""
    a = parsed.positions[first].start
    b = parsed.positions[second].start
    return (a.line, a.column) < (b.line, b.column)


def local_definition(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.FunctionDef | cst.ClassDef | None:
    """Return the ``def``/``class`` in this module that ``expr`` (a name or ``Cls.attr``) names, if unique."""
    if isinstance(expr, cst.Name):
        bindings = bindings_of_name(parsed, expr)
        if bindings and len(bindings) == 1 and bindings[0].definition is not None:
            return bindings[0].definition
    return None


def string_value(node: cst.CSTNode | None) -> str | None:
    """Return the value of a plain string literal (not bytes, not an f-string), else ``None``."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd escapes; treat as unknown
            return None
        return value if isinstance(value, str) else None
    return None


def bind_arguments(function: cst.FunctionDef, call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """Map each parameter of ``function`` to the expression ``call`` passes for it, or its default.

    Parameters that get neither are left out. Returns ``None`` when the call cannot be matched
    statically (``*args``/``**kwargs`` at the call site).
    """
    if any(arg.star for arg in call.args):
        return None
    params = function.params
    positional = [*params.posonly_params, *params.params]
    bound: dict[str, cst.BaseExpression] = {
        p.name.value: p.default for p in [*positional, *params.kwonly_params] if p.default is not None
    }
    passed = [arg for arg in call.args if arg.keyword is None]
    if len(passed) > len(positional):
        return None
    for param, arg in zip(positional, passed):
        bound[param.name.value] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
    return bound


def parameter_of(parsed: ParsedModule, name: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """The parameter of ``function`` that the name ``name`` (used inside it) always refers to, if any."""
    if not isinstance(name, cst.Name):
        return None
    bindings = bindings_of_name(parsed, name)
    if not bindings or len(bindings) != 1:
        return None
    node = bindings[0].assignment.node
    every = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    return node.name.value if isinstance(node, cst.Param) and any(node is p for p in every) else None
