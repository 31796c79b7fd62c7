"""Fix building: a catalog :class:`~asynccfg_lint.analysis.type_verdicts.FixTemplate` applied to one value expression.

This is the only place that turns a template (``"bool({})"``, ``"{}.tolist()"``) into libcst nodes,
so the ``fix`` data every diagnostic carries and the edit the ``fix`` command makes are the same.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import GlobalScope

from asynccfg_lint.diagnostics import Fix
from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import bindings_of_name, string_value
from asynccfg_lint.analysis.tracer import DictTracer
from asynccfg_lint.analysis.type_verdicts import UNSAFE, FixTemplate
from asynccfg_lint.analysis.workspace import ModuleLoader, Workspace

if TYPE_CHECKING:
    from asynccfg_lint.analysis.classifier import Finding

_PLACEHOLDER = "__asynccfg_lint_value__"

#: expressions that bind tighter than attribute access: ``x.tolist()`` needs no parentheses around them
_ATOMS = (
    cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.SetComp, cst.DictComp, cst.SimpleString, cst.FormattedString,
)


class _Substitute(cst.CSTTransformer):
    """Replace the placeholder name of a parsed template by the value expression."""

    def __init__(self, value: cst.BaseExpression) -> None:
        super().__init__()
        self.value = value

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.value if original_node.value == _PLACEHOLDER else updated_node


def _parenthesized(value: cst.BaseExpression) -> cst.BaseExpression:
    return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _plain_parentheses(value: cst.BaseExpression) -> bool:
    """True when ``value`` has exactly one pair of parentheses with no comment or line break inside them."""
    if len(value.lpar) != 1 or len(value.rpar) != 1:
        return False
    return (isinstance(value.lpar[0].whitespace_after, cst.SimpleWhitespace)
            and isinstance(value.rpar[0].whitespace_before, cst.SimpleWhitespace))


def apply_template(template: FixTemplate, value: cst.BaseExpression) -> cst.BaseExpression:
    """Return the expression ``template`` makes of ``value``, keeping ``value``'s own formatting and comments.

    ``value`` is parenthesized when precedence needs it: ``a + b`` with ``{}.tolist()`` gives
    ``(a + b).tolist()``; a value that already has parentheses, or is an atom (a name, call,
    subscript, display, string), gets none. As a call argument only a bare tuple needs them, and
    a generator expression loses its own plain pair (``list(x for x in y)``).

    Raises:
        libcst.ParserSyntaxError: if ``template.template`` is not an expression (a catalog bug).
    """
    shell = cst.parse_expression(template.template.format(_PLACEHOLDER))
    if not value.lpar:
        if template.appends and not isinstance(value, _ATOMS):
            value = _parenthesized(value)
        elif not template.appends and isinstance(value, cst.Tuple):
            value = _parenthesized(value)
    elif not template.appends and isinstance(value, cst.GeneratorExp) and _plain_parentheses(value):
        value = value.with_changes(lpar=[], rpar=[])  # list(x for x in y), not list((x for x in y))
    result = shell.visit(_Substitute(value))
    assert isinstance(result, cst.BaseExpression)
    return result


def edit_range(parsed: ParsedModule, node: cst.CSTNode) -> tuple[int, int, int, int]:
    """Return the source range a fix of ``node`` replaces, parentheses of the node included.

    Returns:
        ``(line, column, end_line, end_column)``: 1-based lines, 1-based character columns
        (as flake8 prints them), ``end_column`` exclusive.
    """
    first = node.lpar[0] if getattr(node, "lpar", None) else node
    last = node.rpar[-1] if getattr(node, "rpar", None) else node
    start = parsed.positions[first].start
    end = parsed.positions[last].end
    return start.line, start.column + 1, end.line, end.column + 1


def is_fixable_site(parsed: ParsedModule, node: cst.CSTNode) -> bool:
    """True when ``node`` is an expression that can be rewritten in place.

    A finding may point at an annotation (a dataclass field seen through ``dataclasses.asdict``,
    a parameter's declared type): rewriting the annotation would not change the value, so such
    sites get no fix.
    """
    if not isinstance(node, cst.BaseExpression):
        return False
    parent = parsed.parents.get(node)
    while parent is not None:
        if isinstance(parent, cst.Annotation):
            return False
        if isinstance(parent, cst.BaseStatement):
            return True
        parent = parsed.parents.get(parent)
    return True


def _within(parsed: ParsedModule, node: cst.CSTNode, ancestor: cst.CSTNode) -> bool:
    """True when ``node`` is ``ancestor`` or inside it."""
    current: cst.CSTNode | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = parsed.parents.get(current)
    return False


def _through_parameter(parsed: ParsedModule, node: cst.CSTNode, use: cst.CSTNode) -> bool:
    """True when ``use`` reads a parameter of the function it is in (``knobs.level``, ``schedule``
    also bound again in the function, ``_jsonable(schedule)``: a name the use or its calls' arguments
    start from) and ``node`` is written outside that function: a caller's argument (a ``bind``
    keyword's value). Rewriting the use would break callers that pass what it needs, so the fix
    stays at ``node``."""
    for root in _read_names(use):
        bindings = bindings_of_name(parsed, root) or []
        params = [b.assignment.node for b in bindings if b.assignment is not None and isinstance(b.assignment.node, cst.Param)]
        function = parsed.parents.get(parsed.parents.get(params[0])) if params else None
        if isinstance(function, cst.FunctionDef) and not _within(parsed, node, function):
            return True
    return False


def _read_names(expr: cst.BaseExpression) -> list[cst.Name]:
    """The names ``expr`` starts from: ``knobs`` of ``knobs.level[0]``, ``f`` and ``v`` of ``f(v).x``."""
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    if isinstance(expr, cst.Call):
        return [*_read_names(expr.func), *(n for arg in expr.args for n in _read_names(arg.value))]
    return [expr] if isinstance(expr, cst.Name) else []


def _flows_only_into(parsed: ParsedModule, node: cst.CSTNode, use: cst.CSTNode,
                     modules: ModuleLoader | None = None) -> bool:
    """True when ``node`` is (part of) the value of a plain ``name = ...`` whose one reader is the name ``use``.

    Only then does rewriting ``node`` change nothing but what reaches the config. Readers are
    libcst's references of that assignment, closures and later branches included; anything else
    (several targets, unpacking, an attribute, a ``return``, a parameter's default) is not plain.
    A module-level name that another module of the project (``modules``) names may be read there too
    (``from .rule import CACHE``, ``rule.CACHE``: a reader's ``CACHE / name`` fails once the
    constant is a ``str``): it is not plain either.
    """
    if not isinstance(use, cst.Name):
        return False
    child, parent = node, parsed.parents.get(node)
    while parent is not None and not isinstance(parent, (cst.BaseSmallStatement, cst.BaseStatement, cst.Lambda)):
        child, parent = parent, parsed.parents.get(parent)
    if isinstance(parent, cst.Assign) and child is parent.value and len(parent.targets) == 1:
        target = parent.targets[0].target
    elif isinstance(parent, cst.AnnAssign) and child is parent.value:
        target = parent.target
    else:
        return False
    scope = parsed.scopes.get(target) if isinstance(target, cst.Name) else None
    if scope is None:
        return False
    for assignment in scope.assignments[target]:
        if getattr(assignment, "node", None) is target:
            return {access.node for access in assignment.references} == {use} and not (
                isinstance(scope, GlobalScope) and Workspace(parsed, modules).named_elsewhere(target.value, parsed.name.name))
    return False


def fix_site(parsed: ParsedModule, finding: Finding,
             modules: ModuleLoader | None = None) -> tuple[cst.BaseExpression, FixTemplate] | None:
    """Where ``finding``'s fix goes and with what safety; ``None`` when it has no fix or no site to rewrite.
    ``modules``: the project's other modules (as the check had them), which may read a module-level name.

    The value is rewritten where it is written (``finding.node``) when that is inside the config
    expression it arrives through (``finding.use``), or when it is the value of a plain binding
    whose only reader is that expression. A binding read elsewhere too (``groups * 2`` after
    ``{"replica_groups": groups}``) must keep its value, so the fix goes to the config's use of
    the name instead (``{"replica_groups": groups.tolist()}``); when that use cannot be
    rewritten, the fix at the binding is kept but marked unsafe. A value inside a container that
    reaches the config through a name read elsewhere (an element of ``flags``, with ``flags``
    also passed on) cannot be fixed at a use at all: that fix is unsafe too. A parameter's default
    is fixed where it is written: what callers pass reaches the same use.
    """
    if finding.fix is None or not is_fixable_site(parsed, finding.node):
        return None
    site, template = finding.node, finding.fix
    parent = parsed.parents.get(site)
    if isinstance(parent, cst.Param) and parent.default is site:
        return site, template  # a default: callers pass the parameter other values, so its use must stay
    if isinstance(parent, cst.DictElement) and parent.key is site and finding.code != "ACC102":
        return None  # a key copied as an element (list(d)): rewritten, every lookup of the dict would miss it
    # a config expression of another module (a builder's parameter there, bound to an argument
    # written here) is that module's business: the argument is the value itself
    use = finding.use if finding.use in parsed.parents else None
    if use is not None and not _within(parsed, site, use) and not _flows_only_into(parsed, site, use, modules):
        if _through_parameter(parsed, site, use):  # other callers (binds) may pass what the use needs as it is
            template = replace(template, safety=UNSAFE)
        elif is_fixable_site(parsed, use):
            site = use
        else:
            template = replace(template, safety=UNSAFE)
    moved = _at_the_use(parsed, site, template, finding.spreads, modules)
    if moved is not None:
        site, template = moved
    for container in finding.outer:
        if container not in parsed.parents:
            continue
        if not _within(parsed, site, container) and not _flows_only_into(parsed, site, container, modules):
            template = replace(template, safety=UNSAFE)
    assert isinstance(site, cst.BaseExpression)
    return site, template


def _shared_entry(parsed: ParsedModule, site: cst.CSTNode) -> tuple[str, cst.Name] | None:
    """``(key, name)`` when ``site`` is the value under the string key ``key`` of a dict display
    bound by a plain ``name = {...}`` (``name``: that target), else ``None``."""
    element = parsed.parents.get(site)
    display = parsed.parents.get(element)
    statement = parsed.parents.get(display)
    if not (isinstance(element, cst.DictElement) and element.value is site and isinstance(display, cst.Dict)):
        return None
    key = string_value(element.key)
    if key is None or not isinstance(statement, cst.Assign) or statement.value is not display \
            or len(statement.targets) != 1 or not isinstance(statement.targets[0].target, cst.Name):
        return None
    return key, statement.targets[0].target


def _extractions(parsed: ParsedModule, key: str) -> list[tuple[cst.Name, cst.CSTNode]]:
    """``(receiver, expression)`` of each ``d[key]``, ``d.get(key, ...)``, ``d.pop(key, ...)`` of a name
    ``d`` in ``parsed`` whose result is used (not a statement of its own, not an assignment or ``del`` target)."""
    parsed.require_string(key)  # (a skeleton's left-out bodies that may hold one)
    found: list[tuple[cst.Name, cst.CSTNode]] = []
    for call in kept_calls(parsed.calls):
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("get", "pop") and isinstance(func.value, cst.Name) \
                and call.args and string_value(call.args[0].value) == key \
                and not isinstance(parsed.parents.get(call), cst.Expr):
            found.append((func.value, call))
    for node, parent in parsed.parents.items():
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1 \
                and isinstance(node.slice[0].slice, cst.Index) and string_value(node.slice[0].slice.value) == key \
                and not isinstance(parent, (cst.AssignTarget, cst.Del, cst.AugAssign)):
            found.append((node.value, node))
    return found


def _at_the_use(parsed: ParsedModule, site: cst.CSTNode, template: FixTemplate, spreads: tuple[cst.CSTNode, ...],
                modules: ModuleLoader | None = None) -> tuple[cst.BaseExpression, FixTemplate] | None:
    """The fix of an entry of a shared dict constant at the config's use of the constant, when another
    reader of the module takes that entry out and uses it, or another module of the project (``modules``)
    names the constant (``from .rule import BASE``: a reader's ``BASE["cache"] / "x"`` raises once the
    entry is a str): the fix at the definition would change what that reader gets (``.value`` of what is
    now a str raises AttributeError). ``**_BASE`` (or ``dict(_BASE)``) becomes ``**{**_BASE, "codec":
    _BASE["codec"].value}``: a later key replaces the spread's, and the constant stays as it is. ``None``:
    no such reader, or no use to rewrite.
    """
    shared = _shared_entry(parsed, site)
    if shared is None:
        return None
    key, target = shared
    name = target.value
    use = next((c for c in spreads if isinstance(c, cst.Name) and c.value == name and c in parsed.parents
                and is_fixable_site(parsed, c)), None)
    if use is None:
        return None
    quoted = json.dumps(key).replace("{", "{{").replace("}", "}}")
    moved = use, FixTemplate("{{**{0}, " + quoted + ": " + template.template.format("{0}[" + quoted + "]") + "}}",
                             UNSAFE)
    if isinstance(parsed.scopes.get(target), GlobalScope) and Workspace(parsed, modules).named_elsewhere(
            name, parsed.name.name):
        return moved
    tracer = DictTracer(parsed)
    for receiver, expression in _extractions(parsed, key):
        if _within(parsed, use, expression):
            continue
        traced = tracer.trace(receiver)
        if traced is not None and any(entry.value is site for entry in traced.entries):
            return moved
    return None


def build_fix(parsed: ParsedModule, node: cst.CSTNode, template: FixTemplate) -> Fix:
    """Return the :class:`~asynccfg_lint.diagnostics.Fix` data of applying ``template`` to ``node``.

    The replacement text is the new expression as it will be written (in the module's own
    line endings), replacing :func:`edit_range` of ``node``.
    """
    assert isinstance(node, cst.BaseExpression)
    replacement = parsed.module.code_for_node(apply_template(template, node))
    line, column, end_line, end_column = edit_range(parsed, node)
    return Fix(
        safety=template.safety,
        replacement=replacement,
        description=template.describe(),
        line=line,
        column=column,
        end_line=end_line,
        end_column=end_column,
    )
