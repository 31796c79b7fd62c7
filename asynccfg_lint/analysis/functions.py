"""Functions of a module: how a call binds their parameters, which parameter a name is, the
qualified name the summaries give them, what their ``return`` statements give."""

from __future__ import annotations

from typing import TypeVar

import libcst as cst

from asynccfg_lint.analysis.node_types import instance_types
from asynccfg_lint.analysis.parse import ParsedModule, subscript_index
from asynccfg_lint.analysis.scopes import walked_children
from asynccfg_lint.analysis.resolution import (
    bindings_of_name,
    excluded_classes,
    isinstance_tested,
    local_definition,
    module_bindings,
    narrowing_rebinds,
    none_replacements,
    reaching,
    required_classes,
    string_value,
)

_Node = TypeVar("_Node", bound=cst.CSTNode)


def bind_arguments(function: cst.FunctionDef, call: cst.Call, implicit: int = 0,
                   partial: bool = False) -> dict[str, cst.BaseExpression] | None:
    """Map each parameter of ``function`` to the expression ``call`` passes for it, or its default.

    Parameters that get neither are left out; the first ``implicit`` positional ones are not passed
    (``self`` of a method called through an instance). Returns ``None`` when the call cannot be matched
    statically (``*args``/``**kwargs`` at the call site), unless ``partial``: then what the call names
    before its first ``*args`` and by keyword, and the defaults of the rest (each one value the
    parameter may have).
    """
    starred = [i for i, arg in enumerate(call.args) if arg.star]
    if starred and not partial:
        return None
    params = function.params
    positional = [*params.posonly_params, *params.params][implicit:]
    bound: dict[str, cst.BaseExpression] = {
        p.name.value: p.default for p in [*positional, *params.kwonly_params] if p.default is not None
    }
    first_star = next((i for i in starred if call.args[i].star == "*"), len(call.args))
    passed = [arg for arg in call.args[:first_star] if arg.keyword is None and not arg.star]
    if len(passed) > len(positional):
        return None
    for param, arg in zip(positional, passed):
        bound[param.name.value] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = arg.value
    return bound


#: how many plain aliases (``m = mode``) :func:`parameter_of` follows back to a parameter
MAX_ALIASES = 4


def parameter_of(parsed: ParsedModule, name: cst.BaseExpression, function: cst.FunctionDef,
                 aliases: int = 0, unless_none: bool = False) -> str | None:
    """The parameter of ``function`` that the name ``name`` (used inside it) always refers to, if any:
    its only binding that may hold there (:func:`~asynccfg_lint.analysis.resolution.reaching`: the value
    of ``cfg = dict(cfg)`` reads the parameter, which that assignment then replaces), or a plain alias of
    it bound once there (``m = mode``: the same object, so the wrapper's callers are checked). With
    ``unless_none``, a name the function rebinds only when the parameter is ``None`` (``if opts is None:
    opts = default()``) refers to the parameter too: what callers pass arrives unless it is ``None`` (for a
    use that reads it, ``opts.transport``: a caller's ``None`` is never read; the replacement is checked in place)."""
    if not isinstance(name, cst.Name):
        return None
    bindings = bindings_of_name(parsed, name)
    if bindings and len(bindings) > 1:
        bindings = reaching(parsed, name, bindings)
    if unless_none and bindings and len(bindings) > 1:  # `if opts is None: opts = default()`: the parameter, given
        params = [b for b in bindings if b.assignment is not None and isinstance(b.assignment.node, cst.Param)]
        if len(params) == 1 and none_replacements(parsed, name, [b for b in bindings if b is not params[0]]):
            bindings = params
    if not bindings or len(bindings) != 1:
        return None
    binding = bindings[0]
    kept = _unless_none(binding.value, name.value) if unless_none and binding.augmented is None else None
    if kept is not None and aliases < MAX_ALIASES:  # `opts = DEFAULT if opts is None else opts`: as the `if` form
        return parameter_of(parsed, kept, function, aliases + 1, unless_none)
    if isinstance(binding.value, cst.Name) and binding.augmented is None and aliases < MAX_ALIASES \
            and isinstance(binding.assignment.node, cst.Name) and isinstance(parsed.parents.get(binding.assignment.node), cst.AssignTarget):
        return parameter_of(parsed, binding.value, function, aliases + 1, unless_none)
    node = binding.assignment.node
    every = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    if isinstance(function.params.star_kwarg, cst.Param):
        every.append(function.params.star_kwarg)
    return node.name.value if isinstance(node, cst.Param) and any(node is p for p in every) else None


def _unless_none(value: cst.BaseExpression | None, name: str) -> cst.Name | None:
    """The name ``name`` that ``value`` keeps unless it is ``None`` (``X if name is None else name``,
    ``name if name is not None else X``, ``name or X``), else ``None``."""
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        return value.left if isinstance(value.left, cst.Name) and value.left.value == name else None
    if not isinstance(value, cst.IfExp) or not isinstance(value.test, cst.Comparison):
        return None
    test = value.test
    if not (isinstance(test.left, cst.Name) and test.left.value == name and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"):
        return None
    kept = value.orelse if isinstance(test.comparisons[0].operator, cst.Is) else \
        value.body if isinstance(test.comparisons[0].operator, cst.IsNot) else None
    return kept if isinstance(kept, cst.Name) and kept.value == name else None


def narrowed_parameter(parsed: ParsedModule, name: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """The parameter of ``function`` that the name ``name`` refers to where an ``isinstance`` test of it
    decides what reaches ``name``: its other bindings are the converting branch's own
    (``if isinstance(mode, enum.IntEnum): mode = int(mode)``,
    :func:`~asynccfg_lint.analysis.resolution.narrowing_rebinds`) and the test narrows what the parameter
    brings (:func:`~asynccfg_lint.analysis.resolution.excluded_classes`, ``required_classes``). ``None``
    otherwise (:func:`parameter_of` answers for a name with the parameter as its only binding)."""
    if not isinstance(name, cst.Name) or not isinstance_tested(parsed, name.value):
        return None
    bindings = bindings_of_name(parsed, name)
    every = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    params = [b for b in bindings or () if b.assignment is not None and any(b.assignment.node is p for p in every)]
    if len(params) != 1 or not narrowing_rebinds(parsed, name, [b for b in bindings or () if b is not params[0]]):
        return None
    narrowed = excluded_classes(parsed, name, params[0]) or required_classes(parsed, name, params[0])
    node = params[0].assignment.node if params[0].assignment is not None else None
    return node.name.value if narrowed and isinstance(node, cst.Param) else None


def narrowed_branch(parsed: ParsedModule, expr: cst.BaseExpression,
                    function: cst.FunctionDef) -> tuple[str, cst.Name] | None:
    """The parameter of ``function`` and the branch naming it of a conditional expression that passes it on as it is
    where the expression's ``isinstance`` test narrows it: ``expr`` is that expression or a name bound once to it
    (``mode.value if isinstance(mode, enum.IntEnum) else mode``, ``mode if not isinstance(mode, enum.IntEnum) else
    int(mode)``; :func:`narrowed_parameter` decides each branch). What reaches the config then depends on the class
    of what the function's callers pass, as for the rebinding form (``tests/fixtures/programs/extpkg/
    narrowed_elsewhere.py``). ``None`` otherwise."""
    if isinstance(expr, cst.Name):  # value = mode.value if isinstance(mode, enum.IntEnum) else mode
        bindings = bindings_of_name(parsed, expr)
        expr = bindings[0].value if bindings and len(bindings) == 1 else None
    if not isinstance(expr, cst.IfExp):
        return None
    for branch in (expr.body, expr.orelse):
        param = narrowed_parameter(parsed, branch, function) if isinstance(branch, cst.Name) else None
        if param is not None:
            return param, branch
    return None


def narrows_returned(parsed: ParsedModule, function: cst.FunctionDef, param: str) -> bool:
    """True when ``function`` (a helper of ``parsed``) returns its parameter ``param`` as it is (also as a part of a
    conditional expression) past a test of it that narrows it (:func:`~asynccfg_lint.analysis.resolution.excluded_classes`,
    ``required_classes``): ``if isinstance(v, enum.IntEnum): return v.value`` then ``return v``; it returns no other
    read of it than ``.value``/``.name`` (``return v.depth`` is judged at each call of the helper). What such a helper
    returns of a value depends on the value's class, so a caller's parameter passed to it is judged where its own
    callers are (``tests/fixtures/programs/extpkg/narrowed.py``)."""
    if not isinstance_tested(parsed, param):
        return False
    every = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    pending = [r.value for r in returns_of(function) if r.value is not None]
    narrowed = False
    while pending:
        value = pending.pop()
        if isinstance(value, cst.IfExp):
            pending += [value.body, value.orelse]
            continue
        root = value
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            root = root.value
        if not isinstance(root, cst.Name) or root.value != param:
            continue
        if root is not value and not (isinstance(value, cst.Attribute) and value.value is root
                                      and value.attr.value in ("value", "name")):
            return False  # `return v.depth`: another read of it, judged where the helper is called
        bindings = bindings_of_name(parsed, root)
        node = bindings[0].assignment.node if bindings and len(bindings) == 1 and bindings[0].assignment else None
        narrowed = narrowed or root is value and any(node is p for p in every) and bool(
            excluded_classes(parsed, value, bindings[0]) or required_classes(parsed, value, bindings[0]))
    return narrowed


def _decorated(function: cst.FunctionDef, name: str) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value == name for d in function.decorators)


def summarised_name(parsed: ParsedModule, function: cst.FunctionDef) -> str | None:
    """The qualified name the summaries give ``function``, or ``None`` when it is not summarised.

    A top-level ``def`` is ``pkg.mod.f``; a ``@staticmethod`` or ``@classmethod`` of a top-level
    class is ``pkg.mod.Cls.f``, what ``Cls.f`` resolves to (``mlir.register_lowering(p,
    Lowerings.start)``), and so is a ``__call__`` (``mlir.register_lowering(p, ShiftRule())``). Other instance
    methods and nested functions are not summarised: their callers' objects are not tracked.
    """
    parent = parsed.parents.get(function)
    if isinstance(parent, cst.Module):
        return f"{parsed.name.name}.{function.name.value}"
    owner = parsed.parents.get(parent) if isinstance(parent, cst.IndentedBlock) else None
    if isinstance(owner, cst.ClassDef) and isinstance(parsed.parents.get(owner), cst.Module) \
            and (_decorated(function, "staticmethod") or _decorated(function, "classmethod")
                 or function.name.value == "__call__"):  # (an instance's __call__: a lowering rule JAX calls)
        return f"{parsed.name.name}.{owner.name.value}.{function.name.value}"
    return None


def implicit_parameters(function: cst.FunctionDef) -> int:
    """How many leading positional parameters a call ``Cls.f(...)`` does not pass: 1 (``cls``) for a ``@classmethod``,
    1 (``self``) for ``__call__`` (a call of an instance: ``rule(ctx, x)``)."""
    return 1 if _decorated(function, "classmethod") or function.name.value == "__call__" else 0


def keyword_read(parsed: ParsedModule, expr: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """``"k"`` when ``expr`` reads the keyword ``k`` from ``function``'s ``**params``, else ``None``.

    The reads are ``params["k"]``, ``params.get("k"[, default])`` and ``params.pop("k"[, default])``,
    also through a name bound once to one (``mode = params.get("mode")``): a call ``f(..., k=v)``
    (or JAX calling a registered rule with ``bind``'s keywords) puts ``v`` there.
    """
    star = function.params.star_kwarg
    if not isinstance(star, cst.Param):
        return None
    if isinstance(expr, cst.Name):
        bindings = bindings_of_name(parsed, expr)
        if not bindings or len(bindings) != 1 or bindings[0].value is None or isinstance(bindings[0].value, cst.Name):
            return None
        expr = bindings[0].value
    receiver, key = None, None
    if isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        receiver, key = expr.value, expr.slice[0].slice.value
    elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("get", "pop") \
            and 1 <= len(expr.args) <= 2 and not any(a.keyword or a.star for a in expr.args):
        receiver, key = expr.func.value, expr.args[0].value
    name = string_value(key) if key is not None else None
    if name is None or parameter_of(parsed, receiver, function) != star.name.value:
        return None
    return name


def unpacked_values(parsed: ParsedModule, call: cst.BaseExpression, index: int) -> list[cst.BaseExpression] | None:
    """Element ``index`` of each tuple the function of this module called by ``call`` returns.

    For ``perm, other_args = _pcollectives_lowering_common(...)`` whose helper ends in
    ``return full_perm, other_args``. ``None`` when the callee is not a function of this module or
    one of its returns is not a tuple display with that element (or ``call`` is no call).
    """
    if not isinstance(call, cst.Call):
        return None
    function = local_definition(parsed, call.func)
    if not isinstance(function, cst.FunctionDef):
        return None
    values = []
    for statement in returns_of(function):
        value = statement.value
        if not isinstance(value, cst.Tuple) or len(value.elements) <= index or any(
                isinstance(e, cst.StarredElement) for e in value.elements):
            return None
        values.append(value.elements[index].value)
    return values or None


def returns_of(function: cst.FunctionDef) -> list[cst.Return]:
    """Return every ``return`` statement of ``function``, not those of nested functions or classes."""
    return _own_nodes(function, cst.Return)


def yields_of(function: cst.FunctionDef) -> list[cst.Yield]:
    """Return every ``yield`` (and ``yield from``) of ``function``, not those of nested functions or classes."""
    return _own_nodes(function, cst.Yield)


def rewrites_kwargs_values(function: cst.FunctionDef, name: str) -> bool:
    """True when ``function`` may replace the values of its ``**name`` dict before passing it on, so that what a
    caller passes does not arrive as it is: it rebinds ``name`` to anything but a copy that keeps the values
    (:func:`_keeps_values`: ``kw = {k: getattr(v, "value", v) for k, v in kw.items()}`` converts), writes
    ``name[key] = ...`` under a key that is not a string literal (``for k, v in list(kw.items()): kw[k] = v.value``),
    or updates it from anything but keywords and string-keyed displays. A string-keyed write (``kw["mode"] = v``,
    ``kw.update(mode=v)``) replaces that key only, and is checked where it is written. Statements of nested
    functions are not read."""
    for assign in _own_nodes(function, cst.Assign):
        for target in assign.targets:
            if _rewrites(target.target, name, assign.value):
                return True
    for annotated in _own_nodes(function, cst.AnnAssign):
        if annotated.value is not None and _rewrites(annotated.target, name, annotated.value):
            return True
    for augmented in _own_nodes(function, cst.AugAssign):  # kw |= {...}
        if _names(augmented.target, name) and not _string_keyed(augmented.value):
            return True
    for call in _own_nodes(function, cst.Call):
        func = call.func
        if not (isinstance(func, cst.Attribute) and _names(func.value, name)):
            continue
        method = func.attr.value
        if method == "update" and any(arg.keyword is None and not _string_keyed(arg.value) for arg in call.args):
            return True
        if method == "__setitem__" and (not call.args or call.args[0].keyword is not None
                                        or not isinstance(call.args[0].value, cst.SimpleString)):
            return True
    return False


def _names(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _rewrites(target: cst.BaseExpression, name: str, value: cst.BaseExpression) -> bool:
    """Whether assigning ``value`` to ``target`` may replace values of the dict ``name`` (see :func:`rewrites_kwargs_values`)."""
    if _names(target, name):
        return not _keeps_values(value, name)
    if isinstance(target, cst.Subscript) and _names(target.value, name):
        return not isinstance(subscript_index(target), cst.SimpleString)
    if isinstance(target, (cst.Tuple, cst.List)):  # kw, extra = ...
        return any(_names(element.value, name) or _rewrites(element.value, name, value) for element in target.elements)
    return False


def _string_keyed(value: cst.BaseExpression) -> bool:
    """Whether ``value`` is a dict display whose every key is a string literal (no ``**`` spread)."""
    return isinstance(value, cst.Dict) and all(
        isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) for element in value.elements)


def _keeps_values(value: cst.BaseExpression, name: str) -> bool:
    """Whether ``value`` is a copy of the dict ``name`` that keeps its values: ``dict(name)`` (keywords may add
    keys), ``{**name}``, ``name.copy()``, or ``{k: v for k, v in name.items() if ...}``."""
    if isinstance(value, cst.Call):
        if _names(value.func, "dict") and value.args and (
                (value.args[0].keyword is None and value.args[0].star == "" and _names(value.args[0].value, name))
                or (value.args[0].star == "**" and _names(value.args[0].value, name))):
            return all(arg.keyword is not None for arg in value.args[1:])
        return (isinstance(value.func, cst.Attribute) and _names(value.func.value, name)
                and value.func.attr.value == "copy" and not value.args)
    if isinstance(value, cst.Dict):
        return len(value.elements) == 1 and isinstance(value.elements[0], cst.StarredDictElement) \
            and _names(value.elements[0].value, name)
    if isinstance(value, cst.DictComp):
        loop = value.for_in
        target = loop.target
        return (loop.inner_for_in is None and isinstance(target, cst.Tuple) and len(target.elements) == 2
                and all(isinstance(element.value, cst.Name) for element in target.elements)
                and _names(value.key, target.elements[0].value.value)  # type: ignore[attr-defined]
                and _names(value.value, target.elements[1].value.value)  # type: ignore[attr-defined]
                and isinstance(loop.iter, cst.Call) and not loop.iter.args
                and isinstance(loop.iter.func, cst.Attribute) and _names(loop.iter.func.value, name)
                and loop.iter.func.attr.value == "items")
    return False


#: what :func:`_own_nodes` does not enter: nested functions, lambdas and classes
_NESTED = instance_types((cst.FunctionDef, cst.ClassDef, cst.Lambda))


def _own_nodes(function: cst.FunctionDef, kind: type[_Node]) -> list[_Node]:
    """The nodes of type ``kind`` in ``function``'s body, outside nested functions, lambdas and classes, in
    source order (a walk of the fields :func:`~asynccfg_lint.analysis.scopes.walked_fields` gives: about a
    third of a libcst visitor's cost, which dispatches callbacks per node, punctuation included)."""
    found: list[_Node] = []
    wanted = instance_types((kind,))
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if type(node) in wanted:
            found.append(node)
        if type(node) in _NESTED:
            continue
        stack.extend(reversed(walked_children(node)))
    return found


def function_definition(home: ParsedModule, qualified: str) -> cst.FunctionDef | None:
    """The ``def`` of the function ``qualified`` (``pkg.mod.rule``, ``pkg.mod.Lowerings.start``) in its module
    ``home``: the place to name when the rule does not put the keyword into a config itself (it hands it
    to a wrapper)."""
    names = qualified.removeprefix(home.name.name + ".").split(".")
    bindings = module_bindings(home, names[0]) if len(names) <= 2 else None
    node = bindings[0].definition if bindings and len(bindings) == 1 else None
    if len(names) == 2 and isinstance(node, cst.ClassDef):
        node = next((item for item in node.body.body
                     if isinstance(item, cst.FunctionDef) and item.name.value == names[1]), None)
    return node if isinstance(node, cst.FunctionDef) else None


def defining_module(parsed: ParsedModule, peers: object, qualified: str) -> ParsedModule | None:
    """The module that defines the function ``qualified`` (``pkg.ext.rule``, ``pkg.ext.Lowerings.start``):
    ``parsed`` itself or the longest dotted prefix ``peers.module`` (a ``Workspace``) finds, else ``None``."""
    module, home = qualified, None
    while home is None and "." in module:
        module = module.rpartition(".")[0]
        home = parsed if module == parsed.name.name else peers.module(module)  # type: ignore[attr-defined]
    return home


def passed_argument(call: cst.Call, name: str, index: int | None) -> cst.BaseExpression | None:
    """What ``call`` passes for the parameter ``name`` (at position ``index``): the keyword, or the positional
    argument before any ``*args``; ``None`` when it does not name it."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = []
    for arg in call.args:
        if arg.star:
            break
        if arg.keyword is None:
            positional.append(arg.value)
    return positional[index] if index is not None and 0 <= index < len(positional) else None
