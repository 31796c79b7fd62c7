"""Objects of project classes: where ``obj.attr`` and ``obj.method()`` get their values.

An instance of a class defined in the project (a dataclass, an attrs class, a ``typing.NamedTuple``,
a plain class with annotated or assigned attributes) has, for attribute ``name``:

- the constructor's argument for the field ``name`` (by position in field order, or by keyword),
  else the field's default, else its annotation — when the instance comes from a visible
  constructor call;
- otherwise (an annotated parameter, an attribute of ``self``) the field's annotation, the class
  attribute's value and every ``self.name = ...`` of its methods (an ``__init__`` parameter
  assigned there stands for the constructor's argument, when the call is visible);
- a ``@property`` / ``functools.cached_property`` method named ``name``: its return annotation,
  else the values it returns (a returned ``self.x``, :func:`receiver_read`, being the same object's ``x``).

A field changed after the constructor gets its argument holds something else (attrs 26.1 and
CPython 3.12 ``dataclasses``, measured in ``tests/fixtures/programs/converted_fields.py``): an
``attrs.field(converter=f)`` holds ``f(argument)`` (also ``f(default)``), and a field that
``__post_init__`` / ``__attrs_post_init__`` assigns (``self.mode = ...``,
``object.__setattr__(self, "mode", ...)``) holds what it assigns when the assignment runs on every
path, else is unknown.

``types.SimpleNamespace(k=v).k`` is ``v``. These are syntax facts of the class body; what the
values are is the classifier's business.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import class_attribute_bindings, qualified_names
from asynccfg_lint.analysis.functions import bind_arguments
from asynccfg_lint.analysis.resolution import Binding, bindings_of_name, reaching
from asynccfg_lint.analysis.records import _ATTRS_FIELD as ATTRS_FIELD, dataclass_fields, is_dataclass  # (one table of attrs names)

PROPERTY_DECORATORS = frozenset({"builtins.property", "functools.cached_property"})
SIMPLE_NAMESPACE = frozenset({"types.SimpleNamespace"})
_SETATTR = frozenset({"builtins.setattr"})


@dataclass(frozen=True)
class Member:
    """Where an attribute of an instance may come from.

    Attributes:
        arguments: constructor arguments (nodes of the module that calls the constructor).
        values: expressions of the class's module (defaults, class attributes, ``self.x = ...``).
        annotations: annotations of the class's module that stand for the value.
        getters: ``@property`` methods (their results are the value).
        bindings: the ``self.x = ...`` bindings of the class's module (with the ``__init__``
            parameters they may name, resolved by the caller).
        converter: an attrs field's ``converter=`` (of the class's module): the value is its result
            for each of ``arguments`` and ``values`` (what the constructor got), not those themselves.
        unknown: nothing shows the value (a ``__post_init__`` that may assign it).
    """

    arguments: tuple[cst.BaseExpression, ...] = ()
    values: tuple[cst.BaseExpression, ...] = ()
    annotations: tuple[cst.BaseExpression, ...] = ()
    getters: tuple[cst.FunctionDef, ...] = ()
    bindings: tuple[Binding, ...] = ()
    converter: cst.BaseExpression | None = None
    unknown: bool = False

    @property
    def found(self) -> bool:
        return not self.unknown and bool(self.arguments or self.values or self.annotations or self.getters
                                         or self.bindings or self.converter is not None)


def class_function(cls: cst.ClassDef, name: str) -> cst.FunctionDef | None:
    """The method ``name`` defined in the body of ``cls`` (the last one, as Python keeps it)."""
    found = None
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == name:
            found = statement
    return found


def is_property(home: ParsedModule, function: cst.FunctionDef) -> bool:
    """True for a method decorated ``@property`` or ``@functools.cached_property``."""
    return any(qualified_names(home, d.decorator) & PROPERTY_DECORATORS for d in function.decorators)


def _constructor_argument(home: ParsedModule, cls: cst.ClassDef, call: cst.Call, name: str) -> cst.BaseExpression | None:
    """The argument ``call`` (a call of ``cls``) passes for the field ``name``, in the fields' order."""
    if any(arg.star for arg in call.args):
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    fields = [field for field, _, _ in dataclass_fields(home, cls)]
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if name in fields and fields.index(name) < len(positional):
        return positional[fields.index(name)]
    return None


def _init_arguments(cls: cst.ClassDef, call: cst.Call | None) -> dict[str, cst.BaseExpression]:
    """``__init__``'s parameters (after ``self``) mapped to what ``call`` passes, or their defaults."""
    init = class_function(cls, "__init__")
    if init is None:
        return {}
    if call is None:
        return {p.name.value: p.default for p in [*init.params.params, *init.params.kwonly_params]
                if p.default is not None}
    self_arg = cst.Arg(cst.Name("self"))
    bound = bind_arguments(init, call.with_changes(args=[self_arg, *call.args]), partial=True) or {}
    if any(arg.star for arg in call.args):  # `Transfer(opts, aval, **params)`: only what it names is known
        named = {id(arg.value) for arg in call.args if not arg.star}
        bound = {name: value for name, value in bound.items() if id(value) in named}
    return bound


def field_converter(home: ParsedModule, cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The ``converter=`` of the field ``name`` of ``cls`` (``mode: object = attrs.field(converter=f)``,
    also ``attr.ib``), else ``None``."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign):
                targets = [small.target]
            elif isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
            else:
                continue
            value = small.value
            if any(isinstance(t, cst.Name) and t.value == name for t in targets) and isinstance(value, cst.Call) \
                    and qualified_names(home, value.func) & ATTRS_FIELD:
                return next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "converter"),
                            None)
    return None


@dataclass(frozen=True)
class Writes:
    """What a method of the constructor (``__init__``, ``__post_init__``) leaves in ``self.name``.

    Attributes:
        values: the values assigned from the last write that runs on every path (a statement of the
            method's own body) on, in source order: what the attribute may hold afterwards.
        settled: False when no write runs on every path, or a later conditional one reads the attribute
            itself (``if isinstance(self.mode, Mode): self.mode = self.mode.value``): what the constructor
            got may be left, narrowed or not, so the value is unknown.
        dead: the values of the writes before that last unconditional one (replaced on every path).
        normalised: a write after it, under a condition, reads the attribute itself.
    """

    values: tuple[cst.BaseExpression, ...]
    settled: bool
    dead: tuple[cst.BaseExpression, ...] = ()
    normalised: bool = False


def method_writes(home: ParsedModule, method: cst.FunctionDef, name: str) -> Writes | None:
    """What ``method`` (of a class of ``home``) assigns to ``<its first parameter>.name`` (``self.name = v``,
    ``object.__setattr__(self, "name", v)``, ``setattr(self, "name", v)``); ``None`` when it writes none."""
    if not (method.params.params or method.params.posonly_params):
        return None
    receiver = (method.params.posonly_params or method.params.params)[0].name.value
    top = {id(s) for s in (method.body.body if isinstance(method.body, cst.IndentedBlock) else ())}
    writes: list[tuple[cst.BaseExpression, bool]] = []

    class _Writes(cst.CSTVisitor):
        def __init__(self) -> None:
            self.line: cst.CSTNode | None = None

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            self.line = node

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is method  # not the writes of a nested function

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def _found(self, value: cst.BaseExpression | None) -> None:
            if value is not None:
                writes.append((value, id(self.line) in top))

        def visit_Assign(self, node: cst.Assign) -> None:
            if any(_is_receiver_attribute(t.target, receiver, name) for t in node.targets):
                self._found(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if _is_receiver_attribute(node.target, receiver, name):
                self._found(node.value)

        def visit_Call(self, node: cst.Call) -> None:
            args = node.args
            # (libcst names `object.__setattr__` "builtins.object")
            setter = qualified_names(home, node.func) & _SETATTR or isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "__setattr__" and "builtins.object" in qualified_names(home, node.func.value)
            if len(args) == 3 and setter and not any(a.star for a in args) \
                    and isinstance(args[0].value, cst.Name) and args[0].value.value == receiver:
                written = args[1].value
                if isinstance(written, cst.SimpleString) and written.evaluated_value == name:
                    self._found(args[2].value)

    method.visit(_Writes())
    if not writes:
        return None
    last = max((i for i, (_, top) in enumerate(writes) if top), default=None)
    if last is None:
        return Writes(tuple(v for v, _ in writes), False)
    normalised = any(_reads_attribute(v, receiver, name) for v, _ in writes[last + 1:])
    return Writes(tuple(v for v, _ in writes[last:]), not normalised, tuple(v for v, _ in writes[:last]), normalised)


def post_init_writes(home: ParsedModule, cls: cst.ClassDef, name: str) -> Writes | None:
    """What ``__post_init__`` (dataclasses) or ``__attrs_post_init__`` (attrs) of ``cls`` leaves in the field
    ``name`` (:func:`method_writes`); ``None`` when there is no such method or it does not write ``name``."""
    if is_dataclass(home, cls):
        method = class_function(cls, "__post_init__")
    elif any(n.startswith(("attrs.", "attr.")) for d in cls.decorators for n in qualified_names(
            home, d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)):
        method = class_function(cls, "__attrs_post_init__")
    else:  # (a plain class's __post_init__ is called by nobody)
        return None
    return method_writes(home, method, name) if method is not None else None


def _reads_attribute(value: cst.BaseExpression, receiver: str, name: str) -> bool:
    """True when ``value`` reads ``<receiver>.name``."""
    found = False

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            nonlocal found
            found = found or _is_receiver_attribute(node, receiver, name)

    value.visit(_Reads())
    return found


def _rebound(home: ParsedModule, name: cst.Name) -> bool:
    """True when ``name`` (an ``__init__`` parameter's name, read there) may hold something the method assigned
    it (``if isinstance(mode, Mode): mode = mode.value`` before ``self.mode = mode``): then the read, not the
    constructor's argument, is what the attribute gets."""
    bindings = bindings_of_name(home, name)
    return bool(bindings) and any(not isinstance(b.assignment.node if b.assignment is not None else None, cst.Param)
                                  for b in reaching(home, name, bindings))


def receiver_read(home: ParsedModule, cls: cst.ClassDef, method: cst.FunctionDef,
                  value: cst.BaseExpression) -> tuple[str, str | None] | None:
    """For ``value``, an expression of ``method`` (a method of ``cls``, a class of ``home``): ``("x", None)``
    when it is ``self.x`` (``self`` the method's first parameter, never rebound), ``("x", "value")`` /
    ``("x", "name")`` for ``self.x.value`` / ``self.x.name``, when no method of ``cls`` but ``__init__``
    writes ``self.x`` (what the construction gave it is what it reads); else ``None``."""
    attribute = None
    if isinstance(value, cst.Attribute) and value.attr.value in ("value", "name") and isinstance(value.value, cst.Attribute):
        attribute, value = value.attr.value, value.value
    params = method.params.posonly_params or method.params.params
    if not params or not isinstance(value, cst.Attribute) or not isinstance(value.value, cst.Name) \
            or value.value.value != params[0].name.value:
        return None
    bindings = bindings_of_name(home, value.value)
    if not bindings or any(b.assignment is None or b.assignment.node is not params[0] for b in bindings):
        return None
    name = value.attr.value
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    if any(isinstance(s, cst.FunctionDef) and s.name.value != "__init__" and method_writes(home, s, name) is not None
           for s in body):
        return None  # (a setter, a normalising method: what it leaves is not the construction's)
    return name, attribute


def _is_receiver_attribute(target: cst.BaseExpression, receiver: str, name: str) -> bool:
    return (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
            and target.value.value == receiver and target.attr.value == name)


def member(home: ParsedModule, cls: cst.ClassDef, name: str, call: cst.Call | None) -> Member:
    """Where ``<instance of cls>.name`` may come from; ``call`` is the visible constructor call, if any.

    ``cls`` belongs to ``home``; ``call`` may belong to another module (its arguments are
    returned as ``arguments``). An ``__init__`` parameter assigned to ``self.name`` is resolved
    to the call's argument (an argument node) or the parameter's default (a value node). A field
    that ``__post_init__`` assigns on every path is what it assigns (``values``), one it may assign
    is unknown; an attrs field with a converter is the converter's result for the argument or default.
    """
    getter = class_function(cls, name)
    if getter is not None and is_property(home, getter):
        return Member(getters=(getter,))
    fields = {field: (annotation, default) for field, annotation, default in dataclass_fields(home, cls)}
    if name in fields:
        written = post_init_writes(home, cls, name)
        if written is not None:
            return Member(values=written.values) if written.settled else Member(unknown=True)
        converter = field_converter(home, cls, name)
        if converter is not None:
            argument = _constructor_argument(home, cls, call, name) if call is not None else None
            if argument is not None:
                return Member(arguments=(argument,), converter=converter)
            default = fields[name][1]
            return Member(values=(default,) if default is not None else (), converter=converter)
    if call is not None and name in fields:
        argument = _constructor_argument(home, cls, call, name)
        if argument is not None:
            return Member(arguments=(argument,))
    values: list[cst.BaseExpression] = []
    annotations: list[cst.BaseExpression] = []
    arguments: list[cst.BaseExpression] = []
    bindings: list[Binding] = []
    if name in fields:
        annotation, default = fields[name]
        if default is not None:
            values.append(default)
        elif call is None or class_function(cls, "__init__") is None:
            annotations.append(annotation)
    init_arguments = _init_arguments(cls, call)
    init = class_function(cls, "__init__")
    init_params = {p.name.value for p in [*init.params.params, *init.params.kwonly_params]} if init else set()
    # a plain class's __init__ that writes the attribute again: the earlier writes are replaced, and a
    # conditional normalisation (`if isinstance(self.mode, Mode): self.mode = self.mode.value`) leaves it unknown
    init_writes = method_writes(home, init, name) if init is not None and name not in fields else None
    if init_writes is not None and init_writes.normalised:
        return Member(unknown=True)
    dead = {id(v) for v in init_writes.dead} if init_writes is not None else set()
    for binding in class_attribute_bindings(home, cls, name) or ():
        value = binding.value
        if binding.annotation is not None and value is None:
            continue  # the class body's `name: T` is the field above
        if id(value) in dead:
            continue
        if isinstance(value, cst.Name) and value.value in init_params and not _rebound(home, value):
            # self.name = <__init__ parameter>
            passed = init_arguments.get(value.value)
            if passed is None:
                bindings.append(binding)  # what callers pass: unknown, or the parameter's annotation
            elif call is not None and any(passed is arg.value for arg in call.args):
                arguments.append(passed)
            else:
                values.append(passed)
        elif name not in fields or value is not fields[name][1]:
            bindings.append(binding)
    return Member(tuple(arguments), tuple(values), tuple(annotations), (), tuple(bindings))


def namespace_argument(parsed: ParsedModule, call: cst.Call, name: str) -> cst.BaseExpression | None:
    """For ``types.SimpleNamespace(k=v, ...)``: the value of keyword ``name``, else ``None``."""
    if not qualified_names(parsed, call.func) & SIMPLE_NAMESPACE:
        return None
    return next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == name), None)
