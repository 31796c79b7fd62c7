"""Whether a fix at a call's argument keeps every use of the parameter it arrives in working.

``p.bind(x, flag=bool(np.True_))`` changes what every use of the rule's ``flag`` sees: a rule that reads
``flag.item()`` in one branch and puts ``flag`` into its config in another breaks (AttributeError). A fix at a call argument (a ``bind`` keyword, a wrapper's argument) is therefore kept only when
each use of the parameter in the function, and in what the function passes it to, only puts it into a
config as it is: the value of a dict display entry, ``cfg[k] = v``, a ``dict(...)`` keyword, a ``**``
spread, or an argument of a sink call whose own parameter is used so in turn. Any other use (an attribute,
a method, arithmetic, a comparison, a call of an unknown function) might need the value as written, so
the fix is left out there (``checker._kept_at_argument``): the diagnostic stays, with its remedy in words.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from asynccfg_lint.analysis.parse import ParsedModule

#: the function a value passed at a sink call reaches: ``(module, function, parameter, field, fields)`` (the
#: last two as for :func:`only_put_into_configs`); ``None`` when it is a built-in sink (JAX's serializer)
Callee = tuple[ParsedModule, cst.FunctionDef | cst.Lambda, str, "str | None", bool]
#: what :func:`only_put_into_configs` asks about a call: ``(reaches a sink, the function it reaches)``
SinkLookup = Callable[[ParsedModule, cst.Call, cst.BaseExpression], tuple[bool, Callee | None]]

#: how deep a chain of wrappers is followed (a chain this deep is already unusual: then the fix is left out)
MAX_DEPTH = 4


def parameter_node(function: cst.FunctionDef | cst.Lambda, name: str) -> cst.Param | None:
    """The parameter ``name`` of ``function`` (positional, keyword-only or ``**kwargs``), else ``None``."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_kwarg, cst.Param):
        every.append(params.star_kwarg)
    return next((p for p in every if p.name.value == name), None)


def parameter_reads(home: ParsedModule, function: cst.FunctionDef | cst.Lambda, name: str) -> list[cst.CSTNode] | None:
    """The expressions of ``home`` that read ``function``'s parameter ``name`` (libcst's references of the
    parameter's binding: nested functions included); ``None`` when the parameter or its scope is not found."""
    param = parameter_node(function, name)
    scope = home.scopes.get(param.name) if param is not None else None
    if scope is None:
        return None
    for assignment in scope.assignments[name]:
        if getattr(assignment, "node", None) is param:
            return [access.node for access in assignment.references]
    return None


def only_put_into_configs(home: ParsedModule, function: cst.FunctionDef | cst.Lambda, name: str,
                          sink_lookup: SinkLookup, field: str | None = None, fields: bool = False,
                          depth: int = 0, _seen: frozenset[tuple[int, str]] = frozenset()) -> bool:
    """True when every read of ``function``'s parameter ``name`` puts it into a config as it is (see the
    module docstring): a fix that changes the value's type at a caller then changes only what is serialized.

    ``field``: the fix changes only that attribute of the value (``level`` of ``Knobs(Level.FAST, 2)``, a rule
    reading ``knobs.level``): a read of another attribute is unaffected, a read of ``field`` must put it into
    a config as it is. ``fields``: the function puts the value's fields into its config (``knobs._asdict()``,
    ``dataclasses.asdict(opts)``), which is such a use. ``sink_lookup(home, call, argument)`` says whether
    ``call`` passes ``argument`` to a sink, and to which function's parameter (checked the same way, up to
    :data:`MAX_DEPTH` functions deep). A parameter no expression reads (``**params`` read only as
    ``params["k"]`` included) is False: what the function does with it is not shown. A parameter met
    again on the way (``send_later(ctx, x, cfg, retries - 1)`` inside ``send_later``) adds no use of its own.
    """
    key = (id(function), name)
    if key in _seen:
        return True
    reads = parameter_reads(home, function, name)
    if not reads or depth > MAX_DEPTH:
        return False
    return all(_put_as_it_is(home, read, sink_lookup, field, fields, depth, _seen | {key}) for read in reads)


def keyword_reads_put_as_they_are(home: ParsedModule, function: cst.FunctionDef | cst.Lambda, keyword: str,
                                  sink_lookup: SinkLookup) -> bool:
    """False when ``function`` takes ``keyword`` in its ``**kwargs`` and reads it there (``kw["mode"]``,
    ``kw.get("mode")``) otherwise than to put it into a config as it is (``print(kw["mode"].name)`` before
    ``p.bind(x, **kw)``: a fix at the caller would break that read); True otherwise (the
    spread that passes the keyword on is followed by the sink's own parameter check)."""
    star = function.params.star_kwarg
    if not isinstance(star, cst.Param) or parameter_node(function, keyword) not in (None, star):
        return True
    for read in parameter_reads(home, function, star.name.value) or []:
        parent = home.parents.get(read)
        value: cst.CSTNode | None = None
        if isinstance(parent, cst.Subscript) and parent.value is read and len(parent.slice) == 1:
            index = parent.slice[0].slice
            if isinstance(index, cst.Index) and _is_string(index.value, keyword):
                value = parent
        elif isinstance(parent, cst.Attribute) and parent.value is read and parent.attr.value in ("get", "pop"):
            call = home.parents.get(parent)
            if isinstance(call, cst.Call) and call.func is parent and call.args and _is_string(call.args[0].value, keyword):
                value = call
        if value is not None and not _put_as_it_is(home, value, sink_lookup, None, False, MAX_DEPTH, frozenset()):
            return False
    return True


def _is_string(node: cst.BaseExpression, text: str) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == text


def _put_as_it_is(home: ParsedModule, read: cst.CSTNode, sink_lookup: SinkLookup, field: str | None,
                  fields: bool, depth: int, seen: frozenset[tuple[int, str]]) -> bool:
    parent = home.parents.get(read)
    if isinstance(parent, cst.Attribute) and parent.value is read and (field is not None or fields):
        call = home.parents.get(parent)
        if fields and parent.attr.value == "_asdict" and isinstance(call, cst.Call) and call.func is parent:
            return True  # knobs._asdict(): the fields, as the summaries found them reaching the config
        if field is None or parent.attr.value != field:
            return field is not None  # another field than the one fixed
        return _put_as_it_is(home, parent, sink_lookup, None, False, depth, seen)
    if isinstance(parent, (cst.DictElement, cst.StarredDictElement)) and parent.value is read:
        return True  # {"flag": flag}, {**cfg}
    if isinstance(parent, cst.Assign) and parent.value is read and len(parent.targets) == 1 \
            and isinstance(parent.targets[0].target, cst.Subscript):
        return True  # cfg["flag"] = flag
    if not (isinstance(parent, cst.Arg) and parent.value is read):
        return False
    call = home.parents.get(parent)
    if not isinstance(call, cst.Call):
        return False
    callee_name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", None)
    if fields and callee_name == "asdict":
        return True  # dataclasses.asdict(opts)
    if callee_name == "dict" and isinstance(call.func, cst.Name) and (parent.keyword is not None or parent.star):
        return True  # dict(flag=flag), dict(**cfg)
    reaches, callee = sink_lookup(home, call, read)
    if not reaches:
        return False
    if callee is None:
        return True  # JAX's own sink: the value is serialized
    callee_home, callee_function, callee_param, callee_field, callee_fields = callee
    return only_put_into_configs(callee_home, callee_function, callee_param, sink_lookup,
                                 callee_field or field, callee_fields or fields, depth + 1, seen)
