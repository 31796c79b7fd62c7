"""Classes, enums and annotations: instances of the module's classes, enum members, annotated values.

An Enum member is rejected by ``_json_default`` unless it is an int/str enum (jax 0.12.0.1);
an instance's attributes are what ``_emit_async_start_custom_call`` reads under the special
keys. Mixed into :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`.
"""

from __future__ import annotations

import ast
from dataclasses import replace

import libcst as cst

from asynccfg_lint.analysis import objects
from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.arrays import numpy_scalar_python_type
from asynccfg_lint.analysis.infer.model import Known
from asynccfg_lint.analysis.infer.values import NOT_LITERAL, UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.jax_facts import SPECIAL_KEY_ATTRIBUTE
from asynccfg_lint.analysis.resolution import bindings_of_name, local_definition, may_write_attribute, qualified_names, string_value
from asynccfg_lint.analysis.tracer import MAX_DEPTH, _replaced  # (the one reading of a copy call)
from asynccfg_lint.analysis.records import is_dataclass, unhashable_dataclass
from asynccfg_lint.analysis.functions import returns_of

_SPECIAL_ATTRIBUTES = frozenset(SPECIAL_KEY_ATTRIBUTE.values())

#: binary operators the catalog's operator rows name
NAMESPACE = Known(frozenset({"argparse.Namespace"}))

TORCH_DTYPE = Known(frozenset({"torch.dtype"}))

#: ``attrs.field(converter=str)``: what the builtin returns whatever it is given (``int``/``bool``: a Python
#: int or bool; a ``float`` may be NaN, a ``tuple`` hold anything: not listed)
_BUILTIN_CONVERTERS = {"builtins.str": T.STR, "builtins.int": T.INT, "builtins.bool": T.BOOL}

__builtins_names__ = frozenset(dir(__import__("builtins")))


class ClassInference:
    """Class, enum and annotation inference for :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`."""

    def _instances(self, expr: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """The origins of ``expr`` when one of them is an instance of a project class or a
        ``SimpleNamespace(...)`` call, else ``None`` (not an object this module can look into)."""
        base = [self._with_class(o) for o in self.origins(expr, depth + 1)]
        if any(o.inferred.cls is not None and not o.inferred.type.name.startswith("enum") for o in base
               if o.inferred.type is not None) or any(
                isinstance(o.node, cst.Call) and o.home is None
                and qualified_names(self.parsed, o.node.func) & objects.SIMPLE_NAMESPACE for o in base):
            return base
        return None

    def _object_attribute(self, expr: cst.Attribute, depth: int) -> list[Origin] | None:
        """``obj.name`` for an instance of a project class (see :mod:`asynccfg_lint.analysis.objects`), else ``None``."""
        return self.attribute_of(expr.value, expr.attr.value, expr, depth)

    def attribute_of(self, value: cst.BaseExpression, name: str, expr: cst.CSTNode, depth: int) -> list[Origin] | None:
        """The attribute ``name`` of ``value`` (an expression of this module) when ``value`` is an instance of a
        project class, else ``None``; ``expr`` is where what has no place of its own (unknown, an
        annotation) is reported: ``obj.name`` itself, or the value of a ``bind`` keyword whose rule
        in another module reads ``knobs.name`` (:func:`asynccfg_lint.analysis.checker.analyse`)."""
        base = self._instances(value, depth)
        return self.members(base, name, expr, depth) if base is not None else None

    def _with_class(self, origin: Origin) -> Origin:
        """``origin`` with its class: a ``NamedTuple`` of another module built here (``Knobs(Level.FAST, 2)``)
        is a tuple of this module's elements without one (:meth:`_call`); its fields are read through
        :meth:`constructed`. Any other origin as it is."""
        inferred = origin.inferred
        if (origin.home is None and inferred.cls is None and inferred.type is not None
                and inferred.type.json is T.JsonKind.ARRAY and isinstance(origin.node, cst.Call)):
            return self.constructed(origin.node) or origin
        return origin

    def constructed(self, expr: cst.BaseExpression) -> Origin | None:
        """``Cls(...)`` for a project class (not an enum) with its class and module, else ``None``.

        A ``NamedTuple`` of another module written here has no class in its origins (its arguments are
        this module's nodes, its class the other's); this gives both, for :meth:`members`.
        """
        if not isinstance(expr, cst.Call):
            return None
        home, cls = self.parsed, local_definition(self.parsed, expr.func)
        if cls is None:
            home, cls = self._foreign_definition(expr.func) or (home, None)
        instance = self._peer(home).instance_type(cls) if isinstance(cls, cst.ClassDef) else None
        if instance is None or instance.name.startswith("enum"):
            return None
        return Origin(expr, Inferred(instance, cls=cls), home if home is not self.parsed else None)

    def members(self, base: list[Origin], name: str, expr: cst.CSTNode, depth: int) -> list[Origin]:
        """The attribute ``name`` of each object ``base`` holds (see :meth:`attribute_of`)."""
        result: list[Origin] = []
        for origin in base:
            copied = self._replaced_member(origin, name, expr, depth)
            if copied is not None:
                result.extend(copied)
                continue
            cls = origin.inferred.cls
            if cls is None or origin.inferred.type is None or origin.inferred.type.name.startswith("enum"):
                namespace = objects.namespace_argument(self.parsed, origin.node, name) \
                    if isinstance(origin.node, cst.Call) and origin.home is None else None
                result.extend(self.origins(namespace, depth + 1) if namespace is not None else [Origin(expr, UNKNOWN)])
                continue
            home = origin.home or self.parsed
            if home is not self.parsed and may_write_attribute(self.parsed, name):
                result.append(Origin(expr, UNKNOWN))  # what this module writes there is not the class's to tell
                continue
            if origin.home is not None and origin.source is not None:  # built in the class's module
                call, callers = (origin.source if isinstance(origin.source, cst.Call) else None), home
            else:
                call, callers = (origin.node if isinstance(origin.node, cst.Call) else None), self.parsed
            found = objects.member(home, cls, name, call)
            if not found.found:
                result.append(Origin(expr, UNKNOWN))
                continue
            if found.converter is not None:
                result.extend(self._through_converter(home, found, callers, expr, depth))
                continue
            arguments = [o for a in found.arguments for o in self._peer(callers).origins(a, depth + 1)]
            result.extend(arguments if callers is self.parsed else [self._arrived(o, callers, expr) for o in arguments])
            peer, anchor = self._peer(home), expr if home is self.parsed else cls.name
            own = [o for v in found.values for o in peer.origins(v, depth + 1)]
            own += [Origin(anchor if home is self.parsed else a, i) for a in found.annotations
                    for i in peer.from_annotation(a)]
            if found.bindings:
                own += peer._from_bindings(anchor, list(found.bindings), depth + 1)
            result.extend(own if home is self.parsed else [self._arrived(o, home, expr) for o in own])
            for getter in found.getters:
                result.extend(self._result_on(origin, getter, home, anchor, expr, depth))
        return result

    def _result_on(self, origin: Origin, getter: cst.FunctionDef, home: ParsedModule, anchor: cst.CSTNode,
                   expr: cst.CSTNode, depth: int) -> list[Origin]:
        """What the ``@property`` or instance method ``getter`` (of a class of ``home``) gives for the object
        ``origin`` (seen from here; ``anchor``: what stands in ``home`` for a result known by its annotation
        only, ``expr`` here).

        A returned ``self.x`` is the object's own attribute ``x`` (:meth:`members`: the constructor's argument
        where the construction is visible, ``Sched(Mode.PUSH).mode`` of ``return self._mode`` is ``Mode.PUSH``),
        ``self.x.value`` / ``.name`` that of its enum member (:func:`objects.receiver_read`); any other
        returned value is what ``home`` makes of it. The return annotation stands for an unknown result
        (:meth:`_function_result`)."""
        peer = self._peer(home)
        values = [r.value for r in returns_of(getter) if r.value is not None]
        reads = [objects.receiver_read(home, origin.inferred.cls, getter, v) for v in values]
        if depth > MAX_DEPTH or not any(r is not None and r[0] != getter.name.value for r in reads):
            found = peer._function_result(anchor, getter, depth + 1)
            return found if home is self.parsed else [self._arrived(o, home, expr) for o in found]
        result: list[Origin] = []
        for value, read in zip(values, reads):
            held = self.members([origin], read[0], expr, depth + 1) if read is not None else None
            if held is not None and read[1] is not None:  # (an unknown object's .value: what home makes of it)
                held = self.enum_attribute(expr, read[1], held, depth)
            if held is None:
                own = peer.origins(value, depth + 1)
                held = own if home is self.parsed else [self._arrived(o, home, expr) for o in own]
            result.extend(held)
        if getter.returns is not None and any(o.inferred.type is None for o in result):
            result = [o for o in result if o.inferred.type is not None]
            typed = [Origin(anchor, i) for i in peer.from_annotation(getter.returns.annotation)]
            result += typed if home is self.parsed else [self._arrived(o, home, expr) for o in typed]
        return result

    def _replaced_instances(self, expr: cst.Call, base: list[Origin]) -> list[Origin]:
        """``knobs._replace(k=v)`` or ``dataclasses.replace(opts, k=v)`` (``expr``) of the objects ``base``: an
        instance of each one's class, built by ``expr`` (:meth:`members` reads ``k`` from the call and the
        other fields from the object copied). Its elements as a tuple are not followed."""
        return [Origin(expr, replace(o.inferred, elements=()), o.home, None) if o.inferred.cls is not None
                and o.inferred.type is not None and not o.inferred.type.name.startswith("enum")
                else Origin(expr, UNKNOWN) for o in base]

    def _replaced_member(self, origin: Origin, name: str, expr: cst.CSTNode, depth: int) -> list[Origin] | None:
        """The field ``name`` of a copy made by ``_replace``/``dataclasses.replace`` (``origin``): the keyword
        that replaces it, else the field of the object copied. ``None`` when ``origin`` is no such copy."""
        module, node = (origin.home, origin.source) if origin.home is not None and origin.source is not None \
            else (self.parsed, origin.node)
        replaced = _replaced(module, node) if isinstance(node, cst.Call) else None
        if replaced is None or depth > MAX_DEPTH:
            return None
        peer, (copied, keywords) = self._peer(module), replaced
        anchor = expr if module is self.parsed else node
        if name in keywords:
            found = peer.origins(keywords[name], depth + 1)
        else:
            inner = peer._instances(copied, depth + 1)
            found = peer.members(inner, name, anchor, depth + 1) if inner is not None else [Origin(anchor, UNKNOWN)]
        return found if module is self.parsed else [self._arrived(o, module, expr) for o in found]

    def _through_converter(self, home: ParsedModule, found: objects.Member, callers: ParsedModule, expr: cst.CSTNode,
                   depth: int) -> list[Origin]:
        """An attrs field with ``converter=f`` (``found.converter``, of ``home``, the class's module): what ``f``
        returns for the constructor's argument (of ``callers``) or the field's default (of ``home``), as for
        a visible call ``f(argument)`` (attrs 26.1 stores the converter's result); ``str``, ``int`` and ``bool``
        give their type. Any other converter (a lambda, ``attrs.converters.optional(...)``) gives an unknown
        value: never the argument itself, whose fix could break a program that lowers."""
        assert found.converter is not None
        peer = self._peer(home)
        fn_home, function = home, local_definition(home, found.converter)
        if function is None:
            fn_home, function = peer._foreign_definition(found.converter) or (home, None)
        if not isinstance(function, cst.FunctionDef) or function.asynchronous is not None:
            builtin = [_BUILTIN_CONVERTERS[n] for n in qualified_names(home, found.converter) if n in _BUILTIN_CONVERTERS]
            return [Origin(expr, Inferred(builtin[0]) if len(builtin) == 1 else UNKNOWN)]
        inputs = [(a, callers) for a in found.arguments] + [(v, home) for v in found.values]
        if not inputs:
            return [self._arrived(o, fn_home, expr) if fn_home is not self.parsed
                    else replace(o, node=expr) if o.node is function else o
                    for o in self._peer(fn_home)._function_result(function, function, depth + 1)]
        result: list[Origin] = []
        for value, module in inputs:
            call = self._converter_calls.setdefault(
                (id(function), id(value)), cst.Call(func=cst.Name(function.name.value), args=[cst.Arg(value)]))
            caller = self._peer(module)
            converted = caller._foreign_result(call, fn_home, function, depth + 1)
            converted = [replace(o, node=expr if module is self.parsed else value) if o.node is call else o
                         for o in converted]
            result.extend(converted if module is self.parsed else [self._arrived(o, module, expr) for o in converted])
        return result

    def _object_method(self, expr: cst.Call, depth: int) -> list[Origin] | None:
        """``obj.method(...)`` for an instance of a project class: what the method returns, else ``None``."""
        assert isinstance(expr.func, cst.Attribute)
        base = self._instances(expr.func.value, depth)
        if base is None:
            return None
        result: list[Origin] = []
        for origin in base:
            cls = origin.inferred.cls
            method = objects.class_function(cls, expr.func.attr.value) if cls is not None else None
            if method is None and expr.func.attr.value == "_replace" and _replaced(self.parsed, expr) is not None:
                result.extend(self._replaced_instances(expr, [origin]))
                continue
            if method is None:
                result.append(Origin(expr, UNKNOWN))
                continue
            home = origin.home or self.parsed
            anchor = expr if home is self.parsed else method
            if not method.decorators:  # an instance method: its `self` is the object (`sched.mode()` of `return self._mode`)
                result.extend(self._result_on(origin, method, home, anchor, expr, depth))
                continue
            found = self._peer(home)._function_result(anchor, method, depth + 1)
            result.extend(found if home is self.parsed else [self._arrived(o, home, expr) for o in found])
        return result

    def _enum_member(self, expr: cst.Attribute | cst.Subscript) -> Origin | None:
        """``Mode.FAST`` or ``Mode["FAST"]`` for an enum class of this module or of another project module."""
        home, cls = self.parsed, local_definition(self.parsed, expr.value)
        if cls is None and isinstance(expr, cst.Attribute):
            functional = self._functional_enum_member(expr)
            if functional is not None:
                return functional
        if cls is None:
            home, cls = self._foreign_definition(expr.value) or (home, None)
        if not isinstance(cls, cst.ClassDef):
            return None
        peer = self._peer(home)
        instance = peer.instance_type(cls)
        if instance is None or not instance.name.startswith("enum"):
            return None
        if isinstance(expr, cst.Attribute):
            name: str | None = expr.attr.value
        else:  # Mode[name]: the member of that name (which one, when the name is not a literal, is unknown)
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            name = string_value(index.value) if isinstance(index, cst.Index) else None
        member_value = peer._member_value(cls, name) if name is not None else None
        return Origin(expr, Inferred(instance, member_value=member_value, member_of=cls),
                      home if home is not self.parsed else None)

    def _functional_enum_member(self, expr: cst.Attribute) -> Origin | None:
        """``Dyn.A`` where this module binds ``Dyn = enum.Enum("Dyn", "A B")`` once (the functional API; also
        ``enum.Flag``, the names a string or a list or tuple of strings): a plain member, which JAX's default
        hook rejects (measured on jax 0.12.0.1, ``tests/fixtures/programs/enum_forms.py``). ``None`` for
        anything else (an ``IntEnum``/``StrEnum`` made so serializes; a name not among the members)."""
        if not isinstance(expr.value, cst.Name) or not (self.parsed.text_has("Enum(") or self.parsed.text_has("Flag(")):
            return None
        bindings = bindings_of_name(self.parsed, expr.value)
        call = bindings[0].value if bindings and len(bindings) == 1 else None
        if not isinstance(call, cst.Call) or len(call.args) < 2 or any(a.keyword is not None or a.star for a in call.args[:2]):
            return None
        kinds = qualified_names(self.parsed, call.func) & {"enum.Enum", "enum.Flag"}
        if len(kinds) != 1:
            return None
        names_given = call.args[1].value
        if isinstance(names_given, (cst.List, cst.Tuple)):
            names = [string_value(e.value) for e in names_given.elements]
        else:
            text = string_value(names_given)
            names = text.replace(",", " ").split() if text is not None else [None]
        if None in names or expr.attr.value not in names:
            return None
        member = T.FLAG_MEMBER if kinds == {"enum.Flag"} else T.ENUM_MEMBER
        label = string_value(call.args[0].value) or expr.value.value
        return Origin(expr, Inferred(replace(member, name=f"{member.name} {label}", attrs=frozenset({"value"}))))

    def _member_value(self, cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
        """The expression the enum member ``cls.<name>`` gets its ``.value`` from.

        A member whose value equals an earlier member's is an alias of that member, as
        ``enum`` makes it: in ``ON = True; NUMPY = np.bool_(True)``, ``NUMPY.value`` is ``True``.
        Equality is decided only for literal values (and numpy scalars built from them).
        """
        value = _class_attribute_value(cls, name)
        constant = self._literal(value)
        if constant is NOT_LITERAL:
            return value
        for earlier_name, earlier in class_assignments(cls):
            if earlier_name == name:
                break
            is_member = not (earlier_name.startswith("_") and earlier_name.endswith("_"))  # not _sunder_/__dunder__
            if is_member and self._literal(earlier) == constant:
                return earlier
        return value

    def _literal(self, expr: cst.BaseExpression | None) -> object:
        """The value of a literal (``1``, ``"a"``, ``(1, True)``) or of a numpy scalar of one (``np.bool_(True)``).

        Returns :data:`NOT_LITERAL` for anything else.
        """
        if expr is None:
            return NOT_LITERAL
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
            for name in qualified_names(self.parsed, expr.func):
                convert = numpy_scalar_python_type(name)
                inner = self._literal(expr.args[0].value) if convert is not None else NOT_LITERAL
                if inner is not NOT_LITERAL:
                    try:
                        return convert(inner)
                    except (TypeError, ValueError, OverflowError):
                        return NOT_LITERAL
            return NOT_LITERAL
        try:
            return ast.literal_eval(self.parsed.module.code_for_node(expr).strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return NOT_LITERAL

    def instance_type(self, cls: cst.ClassDef, depth: int = 0) -> T.PyType | None:
        """Return how an instance of the class ``cls`` (defined in this module) serializes.

        ``None`` when a base class is unknown (defined elsewhere and not in the type tables).
        """
        name = cls.name.value
        if is_dataclass(self.parsed, cls):
            instance = T.DATACLASS.named(f"dataclass instance {name}")
            return replace(instance, hashable=False) if unhashable_dataclass(self.parsed, cls) else instance
        attrs = _instance_attributes(cls)
        enum_kind: bool | None = None
        flag = False
        json_base: T.PyType | None = None
        for base in cls.bases:
            if base.keyword is not None:
                continue
            base_names = qualified_names(self.parsed, base.value)
            for base_name in base_names:
                if base_name in T.ENUM_BASES:
                    enum_kind = T.ENUM_BASES[base_name] or bool(enum_kind)
                    flag = flag or base_name == "enum.Flag"
                elif base_name in T.JSON_BASES:
                    json_base = T.JSON_BASES[base_name]
                elif base_name in ("builtins.object", "typing.Generic", "abc.ABC", "typing.Protocol"):
                    pass
                else:
                    local = local_definition(self.parsed, base.value)
                    if isinstance(local, cst.ClassDef) and depth < MAX_DEPTH:
                        inherited = self.instance_type(local, depth + 1)
                        if inherited is None:
                            return None
                        if inherited.name.startswith("enum"):
                            enum_kind = inherited.serializes or bool(enum_kind)
                            flag = flag or inherited.name.startswith(T.FLAG_MEMBER.name)
                        elif inherited.serializes:
                            json_base = inherited
                        attrs |= inherited.attrs
                    else:
                        return None
            if not base_names:
                return None
        if enum_kind is not None:
            if enum_kind or json_base is not None:
                return T.PyType(f"enum member {name} (int/str enum)", (json_base or T.INT).json, key_ok=True,
                                attrs=frozenset({"value"}))
            member = T.FLAG_MEMBER if flag else T.ENUM_MEMBER
            return replace(member, name=f"{member.name} {name}", attrs=frozenset({"value"}))
        if json_base is not None:
            if any("typing.NamedTuple" in qualified_names(self.parsed, b.value) for b in cls.bases):
                # a field is an attribute of every instance: Chan(handle=1).handle
                attrs |= frozenset(field for field, _ in class_assignments(cls)) & _SPECIAL_ATTRIBUTES
            return T.PyType(f"{name} (a {json_base.name} subclass)", json_base.json, key_ok=json_base.key_ok,
                            attrs=attrs)
        return T.PyType(f"{name} instance", None, remedy=T.OBJECT.remedy, attrs=attrs)

    def from_annotation(self, annotation: cst.BaseExpression, depth: int = 0) -> list[Inferred]:
        """Return the possible values an annotation stands for (``Optional``/unions give several)."""
        if depth > MAX_DEPTH:
            return [UNKNOWN]
        if isinstance(annotation, (cst.SimpleString, cst.ConcatenatedString)):
            text = string_value(annotation)
            if text is None:
                return [UNKNOWN]
            try:
                parsed_annotation = cst.parse_expression(text)
            except Exception:  # noqa: BLE001 - an unparsable string annotation is unknown
                return [UNKNOWN]
            return self._string_annotation(parsed_annotation, annotation, depth)
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            return self.from_annotation(annotation.left, depth + 1) + self.from_annotation(annotation.right, depth + 1)
        if isinstance(annotation, cst.Name) and annotation.value == "None":
            return [Inferred(T.NONE)]
        if isinstance(annotation, cst.Subscript):
            names = qualified_names(self.parsed, annotation.value)
            args = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
            if names & {"typing.Optional"} and args:
                return self.from_annotation(args[0], depth + 1) + [Inferred(T.NONE)]
            if names & {"typing.Union"}:
                return [i for a in args for i in self.from_annotation(a, depth + 1)]
            if names & {"typing.Annotated", "typing_extensions.Annotated"} and args:
                return self.from_annotation(args[0], depth + 1)
            if names & {"typing.Literal"}:
                return [o.inferred for a in args for o in self.origins(a, depth + 1)]
            return self.from_annotation(annotation.value, depth + 1)
        names = qualified_names(self.parsed, annotation)
        return self._annotation_names(names, annotation)

    def _annotation_names(self, names: set[str], annotation: cst.BaseExpression | None) -> list[Inferred]:
        for name in names:
            if name in self.catalog.annotations:  # ctx: mlir.LoweringRuleContext, p: pathlib.Path
                model = self.catalog.annotations[name]
                return [Inferred(self.catalog.types[model].verdict, model=Known(frozenset({model})))]
            if name in T.ANNOTATIONS:
                return [Inferred(T.ANNOTATIONS[name])]
            if name in ("builtins.None",):
                return [Inferred(T.NONE)]
        if annotation is not None:
            cls = local_definition(self.parsed, annotation)
            if isinstance(cls, cst.ClassDef):
                instance = self.instance_type(cls)
                return [Inferred(instance, cls=cls) if instance is not None else UNKNOWN]
        return [UNKNOWN]

    def _string_annotation(self, expr: cst.BaseExpression, anchor: cst.BaseExpression, depth: int) -> list[Inferred]:
        """Resolve a string annotation's dotted names through the scope of ``anchor``."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._string_annotation(expr.left, anchor, depth + 1) + self._string_annotation(expr.right, anchor, depth + 1)
        if isinstance(expr, cst.Subscript):
            head = _dotted(expr.value)
            args = [e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index)]
            names = self._scope_names(head, anchor)
            if names & {"typing.Optional"} and args:
                return self._string_annotation(args[0], anchor, depth + 1) + [Inferred(T.NONE)]
            if names & {"typing.Union"}:
                return [i for a in args for i in self._string_annotation(a, anchor, depth + 1)]
            if names & {"typing.Annotated"} and args:
                return self._string_annotation(args[0], anchor, depth + 1)
            return self._annotation_names(names, None)
        dotted = _dotted(expr)
        if dotted == "None":
            return [Inferred(T.NONE)]
        names = self._scope_names(dotted, anchor)
        if not names:
            return [UNKNOWN]
        inferred = self._annotation_names(names, None)
        if inferred == [UNKNOWN]:
            scope = self.parsed.scopes.get(anchor)
            if scope is not None and dotted and "." not in dotted:
                for assignment in scope[dotted]:
                    node = getattr(assignment, "node", None)
                    if isinstance(node, cst.ClassDef):
                        instance = self.instance_type(node)
                        return [Inferred(instance, cls=node) if instance is not None else UNKNOWN]
        return inferred

    def _scope_names(self, dotted: str | None, anchor: cst.CSTNode) -> set[str]:
        scope = self.parsed.scopes.get(anchor)
        if not dotted or scope is None:
            return set()
        found = {qn.name for qn in scope.get_qualified_names_for(dotted)}
        if not found and "." not in dotted and dotted in __builtins_names__:
            found = {f"builtins.{dotted}"}
        return found


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


def class_assignments(cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression | None]]:
    """The names a class body assigns (``x = v``, ``x: T = v``, ``x: T``) with their values, in order."""
    found: list[tuple[str, cst.BaseExpression | None]] = []
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    found.extend((t.target.value, small.value) for t in small.targets if isinstance(t.target, cst.Name))
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    found.append((small.target.value, small.value))
    return found


def _class_attribute_value(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value of the first assignment to ``name`` in the body of ``cls``."""
    return next((value for target, value in class_assignments(cls) if target == name), None)


def _attribute_sources(cls: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
    """Where instances of ``cls`` get ``handle``/``value`` from.

    Sources are class attributes, ``self.x = ...`` in methods and the returns of a method or
    property named ``x``. A name mapped to an empty list exists but its value is not known.
    """
    found: dict[str, list[cst.BaseExpression]] = {}

    def self_attribute(target: cst.BaseExpression) -> str | None:
        if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self" and target.attr.value in _SPECIAL_ATTRIBUTES):
            return target.attr.value
        return None

    class _Sources(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value in _SPECIAL_ATTRIBUTES:
                found.setdefault(node.name.value, []).extend(r.value for r in returns_of(node) if r.value is not None)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            name = self_attribute(node)
            if name is not None:
                found.setdefault(name, [])

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = self_attribute(target.target)
                if name is not None:
                    found.setdefault(name, []).append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            name = self_attribute(node.target)
            if name is not None and node.value is not None:
                found.setdefault(name, []).append(node.value)

    cls.body.visit(_Sources())
    for name in _SPECIAL_ATTRIBUTES:
        value = _class_attribute_value(cls, name)
        if value is not None:
            found.setdefault(name, []).append(value)
    return found


def _instance_attributes(cls: cst.ClassDef) -> frozenset[str]:
    """Which of ``handle``/``value`` instances of ``cls`` have (class attributes, properties, ``self.x =``)."""
    return frozenset(_attribute_sources(cls))


def attribute_values(inferred: Inferred, attribute: str) -> list[cst.BaseExpression]:
    """The expressions ``value.<attribute>`` may come from: an enum member's value, or the class's sources."""
    if attribute == "value" and inferred.member_value is not None:
        return [inferred.member_value]
    if inferred.cls is not None:
        return _attribute_sources(inferred.cls).get(attribute, [])
    return []
