"""Call results: builders, constructors, catalog functions and methods, awaited coroutines.

Mixed into :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer import lookup
from asynccfg_lint.analysis.loaded import LOADERS
from asynccfg_lint.analysis.infer.arrays import (
    COMPLEX_ARRAY, COMPLEX_KEEPING_UFUNCS, EMPTY_NAN_STATISTICS, SHAPE_METHODS, complex_array, reshaped)
from asynccfg_lint.analysis.infer.folding import (
    FLOAT_CONSTRUCTORS,
    FOLDED_MATH,
    INT_CONSTRUCTORS,
    decimal_float,
    float_inferred,
    int_of,
    math_call,
    numpy_scalar,
    numpy_ufunc,
    parse_float,
)
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, METHOD, OPERATOR
from asynccfg_lint.analysis.infer.values import UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import (
    bindings_of_name,
    enclosing,
    excluded_classes,
    local_definition,
    qualified_names,
    reaching,
    string_value,
)
from asynccfg_lint.analysis.functions import bind_arguments, keyword_read, parameter_of
from asynccfg_lint.analysis.tracer import ASYNC_RUNNERS, MAX_DEPTH
from asynccfg_lint.analysis.records import AS_TUPLE, is_typed_dict
from asynccfg_lint.analysis.entries import with_recursion
from asynccfg_lint.analysis.functions import returns_of

#: builtins that make a list or tuple of what their argument iterates (an Enum class: its members)
_ENUM_CONVERSIONS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted"})


#: the step of a read path (:func:`_read_path`) that indexes (``ctx.avals_in[0]``): no attribute has this name
INDEX_STEP = "[]"


def _read_path(parsed: ParsedModule, value: cst.BaseExpression) -> tuple[cst.BaseExpression, tuple[str, ...]]:
    """``v.a[0].b`` as its root ``v`` and the steps read, ``("a", INDEX_STEP, "b")`` (the root: what no attribute
    or single index reads).

    A root name with one binding, ``m = <path>`` or ``m, = <path>`` (an element of it), is followed to that path's
    root, so ``m = ctx.module_context.axis_context.mesh; return m`` reads ``module_context.axis_context.mesh`` of
    ``ctx``. Syntax and libcst's scopes only (no inference): the caller types the steps from what a call passes.
    """
    steps: list[str] = []
    node = value
    followed: set[int] = set()  # (`m = m.x` in a loop: each name once)
    while True:
        if isinstance(node, cst.Attribute):
            steps.insert(0, node.attr.value)
            node = node.value
        elif isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            steps.insert(0, INDEX_STEP)
            node = node.value
        elif isinstance(node, cst.Name) and id(node) not in followed:
            followed.add(id(node))
            bindings = bindings_of_name(parsed, node)
            if not bindings or len(bindings) != 1 or bindings[0].augmented is not None or bindings[0].assignment is None \
                    or isinstance(bindings[0].assignment.node, cst.Param):
                break  # (a parameter: the root the caller binds)
            (binding,) = bindings
            if binding.value is not None and binding.annotation is None \
                    and isinstance(binding.value, (cst.Attribute, cst.Subscript, cst.Name)):
                node = binding.value
            elif binding.unpacked is not None and isinstance(binding.unpacked[0], (cst.Attribute, cst.Subscript, cst.Name)):
                steps.insert(0, INDEX_STEP)  # `aval, = ctx.avals_in`: an element of what is unpacked
                node = binding.unpacked[0]
            else:
                break
        else:
            break
    return node, tuple(steps)


#: the ``operator`` functions of a bitwise combination (``functools.reduce(operator.or_, flags)``)
_BITWISE_OPERATORS = frozenset({"operator.or_", "operator.and_", "operator.xor"})


@dataclass(frozen=True)
class ReturnedParameter:
    """A parameter a function returns as it is (``return v``), or its enum ``.value``/``.name``.

    Attributes:
        param: the parameter (of the function's module).
        excluded: the classes an ``isinstance`` test before the return rules out (``infer.walk``'s narrowing).
        attribute: ``"value"`` or ``"name"`` for ``return v.value``, else ``None``.
        value: the returned expression.
        chain: for ``return v.a.b`` (no ``.value``/``.name``), the steps read, ``("a", "b")`` (an index:
            :data:`INDEX_STEP`; also through a local, :func:`_read_path`): the catalog's types of them, read from what
            the call passes (``return ctx.module_context.axis_context.mesh.devices``, ``return ctx.avals_in[0]``).
    """

    param: cst.Param
    excluded: list[cst.BaseExpression]
    attribute: str | None
    value: cst.BaseExpression
    chain: tuple[str, ...] = ()


#: builtins that copy the elements of what they are given into a new container, by the container they make
_ELEMENT_COPIES = {"builtins.list": T.LIST, "builtins.sorted": T.LIST, "builtins.tuple": T.TUPLE,
                   "collections.deque": T.CALL_RESULTS["collections.deque"]}
#: ndarray methods whose result over the whole array is one of its elements
_ELEMENT_METHODS = frozenset({"max", "min"})

#: ``cast(T, v)``: returns ``v`` itself (typing.py: ``def cast(typ, val): return val``)
_CASTS = frozenset({"typing.cast", "typing_extensions.cast"})
#: ``os.environ.get(name, default)``, ``os.getenv(name, default)``: a str, or the default when the variable is unset
_ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv"})

#: the containers whose ``Inferred.elements`` are all their elements (displays, comprehensions, copies of them)
_ELEMENT_CONTAINERS = frozenset({T.LIST.name, T.TUPLE.name, T.CALL_RESULTS["builtins.set"].name,
                                 T.CALL_RESULTS["collections.deque"].name})


class CallInference:
    """Call inference for :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`."""

    def _call(self, expr: cst.Call, depth: int) -> list[Origin]:  # noqa: C901 - a dispatch table
        if self.sanitizers and qualified_names(self.parsed, expr.func) & self.sanitizers:
            return self._one(expr, Inferred(T.JSON_ANY))  # a declared sanitizer: its result is JSON-safe
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "_asdict" and not expr.args:
            traced = self.tracer.trace(expr, depth + 1)  # Knobs(Mode.PUSH, 2)._asdict(): its fields
            if traced is not None:
                return self._one(expr, Inferred(T.DICT, traced=traced))
        if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call) \
                and expr.func.attr.value in EMPTY_NAN_STATISTICS and not expr.args:
            statistic = self.empty_statistic(expr.func.value, depth)
            if statistic is not None:  # np.array([]).std() is nan
                return self._one(expr, statistic)
        if (isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call)
                and expr.func.attr.value in T.METHOD_RESULTS):
            # libcst names `jnp.int32(a).tolist` "jax.numpy.int32.tolist": a method of a call's result
            # with a known result type is that type, whatever the qualified name says
            return self._method(expr, depth)
        if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call):
            # libcst names `np.array(a).any` "numpy.array.any": a catalog method of the call's result comes first
            modelled = self._member(expr, expr.func.value, METHOD, expr.func.attr.value, depth, bool(expr.args))
            if modelled is not None:
                return modelled
            if expr.func.attr.value in SHAPE_METHODS:  # np.array([...]).ravel(): the array's elements, not "numpy.array.ravel"
                return self._method(expr, depth)
        names = qualified_names(self.parsed, expr.func)
        if names & LOADERS.keys():
            stand_in = self.tracer.loaded_values.result(self.parsed, expr)
            if stand_in is not None:  # json.loads('[1, NaN]'): the values it parses
                return self.origins(stand_in, depth + 1)
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
        if names & ASYNC_RUNNERS and positional:
            return self._awaited(positional[0], depth)
        if names & _CASTS and len(positional) == len(expr.args) == 2:
            return self.origins(positional[1], depth + 1)  # typing.cast(int, v) returns v unchanged
        if names & _ENVIRONMENT_READS and len(positional) == len(expr.args) == 2:
            return self._one(expr, Inferred(T.STR)) + self.origins(positional[1], depth + 1)
        if "functools.reduce" in names and len(positional) in (2, 3) and len(expr.args) == len(positional):
            reduced = self._bitwise_reduction(expr, positional, depth)
            if reduced is not None:  # functools.reduce(operator.or_, [Flag.A, Flag.B]) is a Flag member
                return reduced
        if "builtins.getattr" in names and len(positional) == 2 and len(expr.args) == 2:
            name = string_value(positional[1])  # getattr(Mode, "PULL") is Mode.PULL
            member = self._enum_member(cst.Attribute(positional[0], cst.Name(name))) \
                if name is not None and name.isidentifier() else None
            if member is not None:
                return [replace(member, node=expr)]
        for name in names:
            if name in FOLDED_MATH and positional and not keywords:
                numbers = [self.known_number(p, depth) for p in positional]
                folded = math_call(name, numbers) if all(n is not None for n in numbers) else None
                if folded is not None:  # math.ldexp(1.0, 1023) is 8.98e307 (an OverflowError: no value)
                    return self._one(expr, folded)
            if name in INT_CONSTRUCTORS and len(positional) == len(expr.args) == 1:
                argument = self.known_number(positional[0], depth)
                folded = numpy_scalar(name, argument) if type(argument) is int else None
                if folded is not None:  # np.uint64(2**64 - 1): XLA cannot read it as an int64
                    return self._one(expr, folded)
            if name == "builtins.int" and len(positional) == len(expr.args) == 1:
                argument = self.known_number(positional[0], depth)
                folded = int_of(argument) if argument is not None else None
                if folded is not None:  # int(np.uint64(2**64 - 1)) is 18446744073709551615
                    return self._one(expr, folded)
            if name in FLOAT_CONSTRUCTORS and positional and name != "builtins.float":
                argument = string_value(positional[0])
                argument = self.known_number(positional[0], depth) if argument is None else argument
                folded = numpy_scalar(name, argument) if argument is not None else None
                if folded is not None:  # np.float32(1e39) is inf, as numpy rounds it
                    return self._one(expr, folded)
            if name in _ELEMENT_COPIES and len(positional) == len(expr.args) - len(keywords) == 1 \
                    and not keywords.keys() - {"key", "reverse"}:
                copied = self._copied_elements(expr, _ELEMENT_COPIES[name], positional[0], depth)
                if copied is not None:
                    return copied
            if name in FLOAT_CONSTRUCTORS and positional:
                text = string_value(positional[0])
                value = parse_float(text, FLOAT_CONSTRUCTORS[name]) if text is not None else None
                if value is not None:  # float("nan"), float("1e309"), np.float32("1e39")
                    return self._one(expr, float_inferred(T.CALL_RESULTS[name], value))
                if name == "builtins.float" and text is None and len(positional) == len(expr.args) == 1:
                    decimal_text = self._decimal_literal(positional[0])
                    value = decimal_float(decimal_text) if decimal_text is not None else None
                    if value is not None:  # float(Decimal("NaN")) is nan, float(Decimal("1e400")) inf
                        return self._one(expr, float_inferred(T.CALL_RESULTS[name], value))
                    converted = self._float_of_number(expr, positional[0], depth)
                    if converted is not None:  # float(np.array([]).mean()) is nan: float() keeps a NaN or inf
                        return converted
                    parsed = self._float_of_strings(expr, positional[0], depth)
                    if parsed is not None:  # float(os.environ.get("T", "inf")) is inf when T is unset
                        return parsed
                if name != "builtins.float":
                    inner = self.origins(positional[0], depth + 1)
                    nonfinite = any(o.inferred.nonfinite for o in inner)
                    return self._one(expr, Inferred(T.CALL_RESULTS[name], nonfinite=nonfinite))
            if name == "numpy.timedelta64":
                return self._one(expr, self._timedelta64(positional))
            if name in ("builtins.dict.fromkeys", "collections.OrderedDict.fromkeys", "collections.Counter"):
                traced = self.tracer.trace(expr, depth + 1)  # keys from an iterable's elements (Mode's members)
                if traced is not None:
                    kind = T.DICT.named("collections.Counter") if name == "collections.Counter" else T.DICT
                    return self._one(expr, Inferred(kind, traced=traced,
                                                    model=self.catalog.call(name) if name == "collections.Counter" else None))
            # (vars(obj): the attributes its visible construction gives, DictTracer._instance_dict)
            if name in ("builtins.dict", "collections.OrderedDict", "collections.defaultdict", "dataclasses.asdict",
                        "attrs.asdict", "copy.copy", "copy.deepcopy", "builtins.vars"):
                traced = self.tracer.trace(expr, depth + 1)
                if traced is not None or name == "builtins.dict":
                    return self._one(expr, Inferred(T.DICT, traced=traced))
            if name == "dataclasses.replace" and len(positional) == 1:
                copied = self._instances(positional[0], depth)
                if copied is not None:  # dataclasses.replace(opts, mode=...): an instance of opts's class
                    return self._replaced_instances(expr, copied)
            if name == "dataclasses.astuple" and len(positional) == 1:
                fields = self.tracer.fields(positional[0], None, depth + 1)
                if fields is not None:  # the fields' values, in field order (a nested dataclass: a tuple too)
                    return self._one(expr, Inferred(T.TUPLE, fields=with_recursion(fields, AS_TUPLE)))
            if name in ("builtins.min", "builtins.max", "builtins.next") and len(positional) == len(expr.args) - len(keywords):
                chosen = self._chosen_member(expr, name, positional, keywords, depth)
                if chosen is not None:
                    return chosen
            if name in ("builtins.abs", "builtins.min", "builtins.max", "builtins.sum") and len(positional) >= 1:
                inner = [o for p in positional for o in self.origins(p, depth + 1)]
                if name in ("builtins.min", "builtins.max", "builtins.sum") and len(positional) == 1:
                    return self._one(expr, UNKNOWN)
                if name in ("builtins.min", "builtins.max") and not keywords:
                    chosen = self._folded_extreme(positional, max if name == "builtins.max" else min, depth)
                    if chosen is not None:  # min(math.inf, 4096.0) is 4096.0: the inf is discarded
                        return [replace(o, node=expr) if o.node is chosen else o for o in self.origins(chosen, depth + 1)]
                if name == "builtins.abs":  # abs(-1e308) is 1e308 (the value folding goes on with)
                    return [Origin(expr, _absolute(o.inferred)) for o in inner]
                return [Origin(expr, o.inferred) for o in inner]
            if name in _ENUM_CONVERSIONS and len(positional) == 1 and (
                    self._enum_members(expr, expr) is not None
                    or self._member(expr, positional[0], ELEMENT, "", depth) is not None):
                # list(Mode), tuple(Mode), sorted(Mode, key=...): a list or tuple of the class's members;
                # list(mesh.axis_types), tuple(jax.devices()): of the elements the catalog says iterating gives
                kind = T.TUPLE if name == "builtins.tuple" else T.LIST
                return self._one(expr, Inferred(kind, iterated=(positional[0],)))
            if name == "builtins.round":
                return self._one(expr, Inferred(T.INT if len(positional) + len(keywords) == 1 else T.FLOAT))
            first = frozenset(qualified_names(self.parsed, positional[0])) if positional else frozenset()
            if positional and self.catalog.typed_argument(name):
                first |= self._catalog_type(positional[0], depth)
            modelled = self._typed(expr, lookup.typed(self.catalog, self.catalog.call(name, first)))
            if modelled is None and positional and self.catalog.named_argument(name):
                modelled = self._by_argument_origins(expr, name, positional[0], depth)
            if modelled is not None:
                return modelled
            if name in T.CALL_RESULTS:
                return self._one(expr, Inferred(T.CALL_RESULTS[name]))
            for suffix, pytype in T.MLIR_BUILDER_SUFFIXES.items():
                if name.endswith(suffix):
                    return self._one(expr, Inferred(pytype))
            module, _, func = name.rpartition(".")
            if module == "numpy" and func in T.NUMPY_ARRAY_BUILDERS:
                return self._one(expr, self._numpy_array(func, positional, keywords, depth))
            if module == "numpy" and func in T.NUMPY_BOOL_UFUNCS:
                if positional and not keywords.keys() - {"dtype", "rtol", "atol", "equal_nan"}:  # no out=, where=
                    return self._one(expr, Inferred(self._elementwise_bool(positional, depth, ufunc=True)))
                return self._one(expr, UNKNOWN)
            if module == "numpy" and func in T.NUMPY_NUMBER_REDUCTIONS | T.NUMPY_ELEMENT_REDUCTIONS | T.NUMPY_BOOL_REDUCTIONS:
                return self._one(expr, self._reduction(func, positional, keywords, depth))
            if module == "numpy.ma" or module == "numpy" and func in ("matrix",):
                return self._one(expr, Inferred(T.NUMPY_ARRAY))
            if module == "numpy" and func in COMPLEX_KEEPING_UFUNCS and any(
                    self._complex_array(p, depth) for p in positional):
                return self._one(expr, Inferred(complex_array()))  # np.exp of a complex ndarray is one too
            if module == "numpy" and func in T.NUMPY_NUMBER_UFUNCS and positional and not keywords:
                numbers = [self.known_number(p, depth) for p in positional]
                folded = numpy_ufunc(func, numbers) if all(n is not None for n in numbers) else None
                if folded is not None:  # np.log(0.0) is -inf, as numpy computes it
                    return self._one(expr, folded)
            if name.startswith("numpy."):
                return self._one(expr, Inferred(T.NUMPY_VALUE))
            if module == "jax.numpy" and func in T.JAX_NUMPY_NON_ARRAY:
                return self._one(expr, UNKNOWN)
            if name.startswith(("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.")) or name in ("jax.device_put", "jax.numpy"):
                return self._one(expr, Inferred(self._jax_array(name, positional, keywords, depth)))
            if module == "torch" and func in T.TORCH_TENSOR_BUILDERS:
                fix = self._scalar_fix(func, positional, keywords, depth)
                return self._one(expr, Inferred(replace(T.TORCH_TENSOR, fix=fix)))
        home, definition = self.parsed, local_definition(self.parsed, expr.func)
        if definition is None:
            home, definition = self._foreign_definition(expr.func) or (home, None)
        peer = self._peer(home)
        if isinstance(definition, cst.ClassDef) and peer is self and is_typed_dict(self.parsed, definition):
            return self._one(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))
        if isinstance(definition, cst.ClassDef):
            instance = peer.instance_type(definition)
            if instance is None:
                return self._one(expr, UNKNOWN)
            if instance.name.startswith("enum"):  # Mode("ring"): one of its members
                return [Origin(expr, Inferred(instance, cls=definition), home if peer is not self else None)]
            if instance.json is T.JsonKind.ARRAY:  # NamedTuple / tuple subclass: arguments are elements
                # (the arguments are this module's nodes: another module's class is given back where its
                # fields are read, ClassInference._with_class)
                return self._one(expr, Inferred(instance, elements=tuple(positional) + tuple(keywords.values()),
                                                cls=definition if peer is self else None))
            return [Origin(expr, Inferred(instance, cls=definition), home if peer is not self else None)]
        if isinstance(definition, cst.FunctionDef) and definition.asynchronous is not None:
            return self._one(expr, Inferred(T.COROUTINE))
        if isinstance(definition, cst.FunctionDef):
            return self._foreign_result(expr, home, definition, depth)
        if isinstance(expr.func, cst.Attribute):
            keyword = self._keyword_default(expr, depth)
            if keyword is not None:
                return keyword
            return self._object_method(expr, depth) or self._dispatched(expr, depth) or self._method(expr, depth)
        return self._dispatched(expr, depth) or self._one(expr, UNKNOWN)

    def _dispatched(self, expr: cst.Call, depth: int) -> list[Origin] | None:
        """What a call whose callee is kept in data returns (a registry's lookup, a table of functions and
        library callables, a method its subclasses override: :mod:`~asynccfg_lint.analysis.callees`): what
        each function it may run returns for the call's arguments; a library callable's result as
        its bare call makes it (``frozenset``, ``np.dtype``: what the catalog says, else unknown).
        ``None`` when the callees are not known, or are none of the project's."""
        callees = self.workspace.call_graph.callees(self.parsed, expr.func) if self.workspace is not None else None
        if not callees or all(c.library for c in callees):
            return None
        result: list[Origin] = []
        for callee in callees:
            node, home = callee.node, callee.home
            peer = self._peer(home)
            if callee.library:
                bare = cst.Call(func=node)
                found = [replace(o, node=expr) if o.node is bare else o for o in peer._call(bare, depth + 1)]
                result += [o if o.inferred.type is not None else Origin(expr, UNKNOWN) for o in found]
            elif isinstance(node, cst.Lambda):
                result += [self._arrived(o, home, expr) for o in peer.origins(node.body, depth + 1)]
            elif node.asynchronous is not None:
                result.append(Origin(expr, Inferred(T.COROUTINE)))
            else:
                result += self._foreign_result(expr, home, node, depth, callee.bound)
        return result

    def _folded_extreme(self, arguments: list[cst.BaseExpression], pick, depth: int) -> cst.BaseExpression | None:
        """The argument ``min``/``max`` (``pick``) returns when every argument is a Python int or float of known
        value, as Python compares them (``max(nan, 1)`` is the NaN: a NaN compares false), else ``None``."""
        numbers = []
        for argument in arguments:
            number = self.known_number(argument, depth)
            if type(number) not in (int, float):
                return None
            numbers.append(number)
        return arguments[pick(range(len(numbers)), key=numbers.__getitem__)]  # the same comparisons as pick(numbers)

    def _complex_array(self, expr: cst.BaseExpression, depth: int) -> bool:
        """True when ``expr`` is a complex ndarray on every path (``1j * np.linspace(0, 1, 4)``)."""
        origins = self.origins(expr, depth + 1)
        return bool(origins) and all(o.inferred.type is not None and o.inferred.type.name == COMPLEX_ARRAY for o in origins)

    def _chosen_member(self, expr: cst.Call, name: str, positional: list[cst.BaseExpression],
                       keywords: dict[str, cst.BaseExpression], depth: int) -> list[Origin] | None:
        """``max(Mode, key=...)``, ``min(Mode, key=...)`` (``default=`` beside) and ``next(iter(Mode)[, default])``
        (also ``reversed``) of a project enum class: one of its members, or the default. ``max``/``min``
        without ``key`` only for an int or str enum (a plain ``Enum`` member has no ``<``: TypeError before
        any config). ``None`` for anything else."""
        if name == "builtins.next":
            if keywords or len(positional) not in (1, 2) or not isinstance(positional[0], cst.Call) \
                    or not qualified_names(self.parsed, positional[0].func) & {"builtins.iter", "builtins.reversed"}:
                return None  # (next(Mode), next(list(Mode)) raise TypeError)
            members, default = self._enum_members(expr, positional[0]), positional[1:]
        else:
            if len(positional) != 1 or keywords.keys() - {"key", "default"}:
                return None
            members, default = self._enum_members(expr, positional[0]), [keywords["default"]] if "default" in keywords else []
            if members is not None and "key" not in keywords and any(
                    o.inferred.type.name.startswith((T.ENUM_MEMBER.name, T.FLAG_MEMBER.name)) for o in members):
                return None
        if members is None:
            return None
        return members + [o for value in default for o in self.origins(value, depth + 1)]

    def known_number(self, expr: cst.BaseExpression, depth: int) -> object | None:
        """The number ``expr`` holds when the code shows it (``Inferred.number``, the same on every path), else ``None``."""
        numbers = {repr(o.inferred.number): o.inferred.number for o in self.origins(expr, depth + 1)}
        return next(iter(numbers.values())) if len(numbers) == 1 else None

    def _copied_elements(self, expr: cst.Call, kind: T.PyType, argument: cst.BaseExpression,
                         depth: int) -> list[Origin] | None:
        """``list(s)``, ``sorted(s)``, ``tuple(s)`` of a list, tuple or set whose elements the code shows
        (``sorted({Mode.PUSH})``, also a display of another module: the copy's elements are that module's
        nodes, its ``home``): a ``kind`` holding those same elements, checked one by one, and beside it a
        ``kind`` of unknown elements when ``argument`` may also be a value of unknown type; ``None`` when it
        may be anything else (a dict gives its keys, an array numpy scalars)."""
        keys = self._dict_keys(argument, depth)
        if keys is not None:  # list(TABLE), sorted(TABLE.keys()): a dict gives its keys
            return self._one(expr, Inferred(kind, elements=keys))
        inner = self.origins(argument, depth + 1)
        known = [o for o in inner if o.inferred.type is not None]
        if not known or any(o.inferred.type.name not in _ELEMENT_CONTAINERS for o in known):
            return None
        copied = Inferred(kind, elements=tuple(e for o in known for e in o.inferred.elements))
        if len(inner) == 1 and inner[0].home is not None and inner[0].source is not None:
            # tuple(PERM) of another module's list display: its elements, judged there
            return [Origin(expr, copied, inner[0].home, inner[0].source)]
        if any(o.home is not None for o in known):
            return None
        # a value not known besides (a rule's keyword that other modules' binds may pass too): a copy of
        # unknown elements, beside the copy of what is known (this module's bind of (Sched.TREE,))
        return self._one(expr, copied) + ([Origin(expr, Inferred(kind))] if len(known) < len(inner) else [])

    def _dict_keys(self, argument: cst.BaseExpression, depth: int) -> tuple[cst.BaseExpression, ...] | None:
        """The key expressions of the dict ``argument`` is (or whose ``.keys()`` it is) where it is copied: a dict
        of this module the tracer follows to that point (keys added, deleted, popped on the way), complete and
        with one expression per key (a ``dict(k=v)`` keyword key is a str: no expression); else ``None``."""
        if isinstance(argument, cst.Call) and isinstance(argument.func, cst.Attribute) \
                and argument.func.attr.value == "keys" and not argument.args:
            argument = argument.func.value
        origins = self.origins(argument, depth + 1)
        if not origins or any(o.inferred.type is not T.DICT or o.home is not None for o in origins) \
                or self._keys_removed(argument):
            return None
        traced = self.tracer.trace(argument, depth + 1)
        if traced is None or not traced.complete or traced.opaque or any(
                e.home is not None or e.zipped or e.key_elements or e.tuple_key for e in traced.entries):
            return None
        return tuple(e.key_node for e in traced.entries if e.key_node is not None)

    def _keys_removed(self, name: cst.BaseExpression) -> bool:
        """Whether the dict bound to the name ``name`` may lose keys somewhere (``del d[k]``, ``d.pop(...)``,
        ``d.popitem()``, ``d.clear()``): the tracer removes only str keys, so its other keys may be gone."""
        if not isinstance(name, cst.Name):
            return False
        for binding in bindings_of_name(self.parsed, name) or ():
            for access in binding.assignment.references if binding.assignment is not None else ():
                parent = self.parsed.parents.get(access.node)
                if isinstance(parent, cst.Attribute) and parent.value is access.node \
                        and parent.attr.value in ("pop", "popitem", "clear"):
                    return True
                if isinstance(parent, cst.Subscript) and parent.value is access.node \
                        and isinstance(self.parsed.parents.get(parent), cst.Del):
                    return True
        return False

    def _read_through(self, call: cst.Call, passed: list[Origin], chain: tuple[str, ...]) -> list[Origin] | None:
        """The catalog's types of ``value.<chain[0]>.<chain[1]>...`` for every value ``passed`` (at ``call``):
        ``mesh_devices(ctx)`` of a helper returning ``ctx.module_context.axis_context.mesh.devices`` is an ndarray
        of Devices, ``_aval(ctx)`` of one returning ``ctx.avals_in[0]`` a ShapedArray (:data:`INDEX_STEP`: an
        element). ``None`` when the catalog does not know every passed value or one of the steps."""
        if not passed or any(o.home is not None for o in passed):
            return None
        models = [lookup.model_of(self.catalog, o.inferred.type, o.inferred.model) for o in passed]
        found: list[lookup.Typed] | None = None
        for name in chain:  # (an index: as InferenceWalk._subscript reads one)
            found = lookup.member(self.catalog, models, ATTRIBUTE, name) if name != INDEX_STEP else \
                lookup.member(self.catalog, models, OPERATOR, "[]") or lookup.member(self.catalog, models, ELEMENT, "")
            if found is None:
                return None
            models = [known for _, known in found]
        return self._typed(call, found)

    def _float_of_number(self, expr: cst.Call, argument: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """``float(argument)`` of a Python or numpy number (every path): a float of the same value, so a NaN or
        an infinity stays one (``float(np.float64("nan"))`` is nan, ``float(np.float32(1e39))`` inf: Python 3.12,
        numpy 2.5.5); ``None`` when ``argument`` may be anything else (a str parses, an object has ``__float__``)."""
        inner = self.origins(argument, depth + 1)
        if not inner or any(o.inferred.type is None or o.inferred.type.json is not T.JsonKind.NUMBER
                            or T.array_kind(o.inferred.type) is not None for o in inner):
            return None
        number = self.known_number(argument, depth)
        if number is not None:
            try:
                return self._one(expr, float_inferred(T.FLOAT, float(number)))
            except (OverflowError, TypeError, ValueError):  # float(10**400) raises before any config
                return None
        return self._one(expr, Inferred(T.FLOAT, nonfinite=any(o.inferred.nonfinite for o in inner)))

    def _float_of_strings(self, expr: cst.Call, argument: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """``float(argument)`` where some values of ``argument`` are string literals: each one parsed as Python
        does (``"inf"`` is an infinity), any other value a float; ``None`` when no value is a literal."""
        found: list[Origin] = []
        literal = False
        for origin in self.origins(argument, depth + 1):
            node = origin.source if origin.home is not None else origin.node
            text = string_value(node) if isinstance(node, cst.BaseExpression) else None
            value = parse_float(text, None) if text is not None else None
            literal |= value is not None
            found.extend(self._one(expr, float_inferred(T.FLOAT, value) if value is not None else Inferred(T.FLOAT)))
        return found if literal else None

    def _by_argument_origins(self, expr: cst.Call, name: str, argument: cst.BaseExpression,
                             depth: int) -> list[Origin] | None:
        """A call of ``name`` whose catalog rows depend on the first argument's qualified name, for an argument
        that holds such names (``jnp.finfo(self.fmt)`` of ``fmt = jnp.float8_e5m2``): one result per value
        the argument may hold; ``None`` when one of them has no name a row knows."""
        found: list[Origin] = []
        for origin in self.origins(argument, depth + 1):
            parsed, node = (origin.home, origin.source) if origin.home is not None else (self.parsed, origin.node)
            if parsed is None or node is None or not isinstance(node, (cst.Name, cst.Attribute)):
                return None
            typed = self._typed(expr, lookup.typed(self.catalog, self.catalog.call(
                name, frozenset(qualified_names(parsed, node)), specific=True)))
            if typed is None:
                return None
            found.extend(typed)
        return found or None

    def _catalog_type(self, expr: cst.BaseExpression, depth: int) -> frozenset[str]:
        """The catalog type of ``expr`` when every value it may have is of that one type, else nothing."""
        origins = self.origins(expr, depth + 1)
        models = {lookup.model_of(self.catalog, o.inferred.type, o.inferred.model) for o in origins if o.home is None}
        if len(models) != 1 or len(origins) != sum(o.home is None for o in origins):
            return frozenset()
        (model,) = models
        return model.names if model is not None and len(model.names) == 1 else frozenset()

    def _keyword_default(self, expr: cst.Call, depth: int) -> list[Origin] | None:
        """``params.get("k", default)`` / ``params.pop("k", default)`` of the function's ``**params``: the
        default (a value like a parameter's default) or what a caller passes as ``k`` (unknown)."""
        if len(expr.args) != 2:
            return None
        function = enclosing(self.parsed, expr, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef) or keyword_read(self.parsed, expr, function) is None:
            return None
        return self.origins(expr.args[1].value, depth + 1) + self._one(expr, UNKNOWN)

    def _awaited(self, expr: cst.BaseExpression, depth: int) -> list[Origin]:
        """What ``await expr`` or ``asyncio.run(expr)`` gives: for a call of an ``async def`` of the project, its result."""
        if isinstance(expr, cst.Call):
            home, definition = self.parsed, local_definition(self.parsed, expr.func)
            if definition is None:
                home, definition = self._foreign_definition(expr.func) or (home, None)
            if isinstance(definition, cst.FunctionDef) and definition.asynchronous is not None:
                if home is self.parsed:
                    return self._function_result(expr, definition, depth)
                return [self._arrived(o, home, expr) for o in self._peer(home)._function_result(definition, definition, depth)]
        return self._one(expr, UNKNOWN)

    def _bitwise_reduction(self, expr: cst.Call, positional: list[cst.BaseExpression], depth: int) -> list[Origin] | None:
        """``functools.reduce(f, items[, initial])`` with ``f`` a bitwise or/and/xor (``operator.or_``, or
        ``lambda a, b: a | b``) of enum members of one class (``[Flag.A, Flag.B]``, or the class ``Flag``): a member of that class,
        as ``Flag.A | Flag.B`` is. ``None`` for anything else."""
        function = positional[0]
        if isinstance(function, cst.Lambda):
            params = function.params.params
            body = function.body
            if not (len(params) == 2 and isinstance(body, cst.BinaryOperation)
                    and isinstance(body.operator, (cst.BitOr, cst.BitAnd, cst.BitXor))
                    and isinstance(body.left, cst.Name) and isinstance(body.right, cst.Name)
                    and {body.left.value, body.right.value} == {p.name.value for p in params}):
                return None
        elif not qualified_names(self.parsed, function) & _BITWISE_OPERATORS:
            return None
        members = self._enum_members(positional[1], positional[1])
        if members is not None:  # functools.reduce(operator.or_, Flag): iterating the class gives its members
            types = {o.inferred.type for o in members} | {o.inferred.type for v in positional[2:]
                                                          for o in self.origins(v, depth + 1)}
        else:
            elements = [e for o in self.origins(positional[1], depth + 1) for e in (o.inferred.elements or (None,))]
            if not elements or None in elements:
                return None
            values = [*elements, *positional[2:]]
            types = {o.inferred.type for v in values for o in self.origins(v, depth + 1)}
        if len(types) != 1 or None in types or not next(iter(types)).name.startswith("enum"):
            return None
        return self._one(expr, Inferred(types.pop()))

    def _function_result(self, anchor: cst.CSTNode, function: cst.FunctionDef, depth: int) -> list[Origin]:
        """What a call of ``function`` returns; ``anchor`` stands for a result known only by its annotation.

        The returned expressions come first (a bad value returned is reported, whatever the
        annotation says); the return annotation stands for what they cannot show, as an
        annotation does for ``x: T = unknown()`` (``jax._src.util.canonicalize_axis(...) -> int``
        returns ``operator.index(axis)``, an int: measured in ``tests/test_programs_oracle``).
        """
        values = [r.value for r in returns_of(function) if r.value is not None]
        if values:
            result: list[Origin] = []
            for value in values:
                result.extend(self.origins(value, depth + 1))
            if function.returns is not None and any(o.inferred.type is None for o in result):
                result = [o for o in result if o.inferred.type is not None]
                result += [Origin(anchor, i) for i in self.from_annotation(function.returns.annotation)]
            return result
        if function.returns is not None:
            return [Origin(anchor, i) for i in self.from_annotation(function.returns.annotation)]
        return self._one(anchor, UNKNOWN)

    def _foreign_result(self, call: cst.Call, home: ParsedModule, function: cst.FunctionDef, depth: int,
                        implicit: int = 0) -> list[Origin]:
        """What ``call`` of ``function``, a ``def`` of this or another project module ``home``, returns, seen from here.

        ``home``'s classifier judges what the function returns (relocated here), except where it
        returns one of its parameters as it is (``return v``, also in a conditional expression) or
        its enum ``.value``/``.name``: that is what ``call`` passes for it (or the default), as for a
        function of this module whose calls are all visible, less what an ``isinstance`` test before
        the return rules out (``if isinstance(v, enum.IntEnum): return v.value`` then ``return v``: a
        plain Enum member passed stays one; measured on jax 0.12.0.1,
        ``tests/fixtures/programs/extpkg/narrowed.py``). ``implicit``: how many leading parameters the call does
        not pass (``self`` of a method called through an instance).
        """
        peer = self._peer(home)
        anchor = call if peer is self else function  # what stands for a result known by its annotation only
        values = [r.value for r in returns_of(function) if r.value is not None]  # (a walk of the body: once)
        if not values:
            return [self._arrived(o, home, call) for o in peer._function_result(anchor, function, depth)]
        result: list[Origin] = []
        for part in peer._returned_parts(function, values, depth):
            if isinstance(part, Origin):
                result.append(self._arrived(part, home, call))
                continue
            param = part.param
            positional = [*function.params.posonly_params, *function.params.params]
            index = next((i - implicit for i, p in enumerate(positional) if p is param), None)
            if index is not None and index < 0:  # the method returns its receiver
                result.append(Origin(call, UNKNOWN))
                continue
            passed = self._argument_origins(call, param.name.value, index, [Origin(call, UNKNOWN)], depth)
            if not passed and not any(a.keyword is not None and a.keyword.value == param.name.value for a in call.args):
                passed = [self._arrived(o, home, call) for o in peer.origins(param.default, depth + 1)] \
                    if param.default is not None else [Origin(call, UNKNOWN)]
            passed = [o for o in passed if not any(peer._instance_of(o, c) for c in part.excluded)]
            if part.chain:
                read = self._read_through(call, passed, part.chain)
                # (a passed value the catalog does not type: what the helper's module makes of the chain)
                result += read if read is not None else [self._arrived(o, home, call) for o in peer.origins(part.value, depth + 1)]
                continue
            if part.attribute is None:
                result += passed
                continue
            members = [o for o in passed if self.enum_attribute(call, part.attribute, [o], depth) is not None]
            kept = {id(o) for o in members}
            result += self.enum_attribute(call, part.attribute, members, depth) or []
            # a value of a known type without the attribute (None, a str) would raise there, before any config;
            # a derived sink's parameter: its calls' values are checked at each (ACC201 on it is dropped so);
            # another (unknown, a project class's instance): what the helper's module makes of it
            at_calls = [o for o in passed if id(o) not in kept and self.checked_at_calls(o)]
            result += at_calls
            kept |= {id(o) for o in at_calls}
            if any(id(o) not in kept and (o.inferred.type is None or o.inferred.cls is not None
                                         or o.inferred.model is not None) for o in passed):
                result += [self._arrived(o, home, call) for o in peer.origins(part.value, depth + 1)]
        if function.returns is not None and any(o.inferred.type is None for o in result):
            result = [o for o in result if o.inferred.type is not None]
            result += [self._arrived(Origin(anchor, i), home, call) for i in peer.from_annotation(function.returns.annotation)]
        if len(values) == 1 and self._divides_by_zero(call, function, values[0], peer, depth):
            # `return np.float64(a) / np.float64(b)` called with b = 0: inf, -inf or nan whatever a is
            # (reported at the call: the helper's own quotient is finite for other divisors)
            result = [replace(o, node=call if o.home is None else o.node, inferred=replace(o.inferred, nonfinite=True))
                      if o.inferred.type is not None and o.inferred.type.name.startswith("numpy")
                      and o.inferred.type.json is T.JsonKind.NUMBER and not o.inferred.dispatched else o for o in result]
        return result

    def narrowed_through(self, call: cst.Call, param: str, passed: list[Origin], seen_from: CallInference,
                         via: cst.CSTNode) -> list[Origin] | None:
        """What ``call`` (of this module: a helper of this or another project module called in a function whose
        parameter ``param`` it passes as it is) returns of the values ``passed`` that the parameter brings: origins
        of ``seen_from``'s module (a ``bind``'s argument ``via``, for a :attr:`SinkSpec.narrowed` keyword). Those
        the helper returns as they are, less what an ``isinstance`` test (or ``match`` case) before that return
        rules out, and the ``.value``/``.name`` of the enum members among those it returns so; what else it returns
        is the helper's own, checked where the rule is. ``def _jsonable(v): if isinstance(v, enum.IntEnum): return
        v.value; return v`` gives a plain ``Enum`` member back as it is (measured on jax 0.12.0.1,
        ``tests/fixtures/programs/extpkg/narrowed_elsewhere.py``). ``None`` when ``call`` is not such a call or the
        helper reads a chain of attributes of it."""
        function = enclosing(self.parsed, call, (cst.FunctionDef,))
        home, helper = self.parsed, local_definition(self.parsed, call.func)
        if helper is None:
            home, helper = self._foreign_definition(call.func) or (home, None)
        if not isinstance(function, cst.FunctionDef) or not isinstance(helper, cst.FunctionDef):
            return None
        given = {id(a.value) for a in call.args}
        names = {name for name, value in (bind_arguments(helper, call) or {}).items()
                 if id(value) in given and parameter_of(self.parsed, value, function) == param}
        values = [r.value for r in returns_of(helper) if r.value is not None]
        if not names or not values:
            return None
        peer = self._peer(home)
        result: list[Origin] = []
        for part in peer._returned_parts(helper, values, 0):
            if not isinstance(part, ReturnedParameter) or part.param.name.value not in names:
                continue  # the helper's own value, or another argument's: checked in the rule
            if part.chain:
                return None
            kept = [o for o in passed if not any(peer._instance_of(o, c) for c in part.excluded)]
            if part.attribute is None:
                result += kept
                continue
            members = [o for o in kept if seen_from.enum_attribute(via, part.attribute, [o], 0) is not None]
            result += seen_from.enum_attribute(via, part.attribute, members, 0) or []
            converted = {id(o) for o in members}
            # (a value of a known type without the attribute raises there, before any config)
            result += [Origin(via, UNKNOWN) for o in kept if id(o) not in converted and (
                o.inferred.type is None or o.inferred.cls is not None or o.inferred.model is not None)]
        return result

    def _divides_by_zero(self, call: cst.Call, function: cst.FunctionDef, value: cst.BaseExpression,
                         peer: CallInference, depth: int) -> bool:
        """True when ``value`` (what ``function`` returns) is a true division whose divisor is a parameter, as it is
        or through a float constructor (``np.float64(b)``), that ``call`` passes a zero for: a numpy quotient is then
        inf, -inf or nan whatever the numerator (numpy 2.5.5, see :meth:`InferenceWalk._combined`)."""
        if not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Divide):
            return False
        divisor = value.right
        if isinstance(divisor, cst.Call) and len(divisor.args) == 1 and divisor.args[0].keyword is None \
                and not divisor.args[0].star and qualified_names(peer.parsed, divisor.func) & FLOAT_CONSTRUCTORS.keys():
            divisor = divisor.args[0].value
        positional = [*function.params.posonly_params, *function.params.params]
        param = next((p for p in [*positional, *function.params.kwonly_params]
                      if isinstance(divisor, cst.Name) and p.name.value == divisor.value), None)
        bindings = bindings_of_name(peer.parsed, divisor) if param is not None else None
        if param is None or not bindings or len(bindings) != 1 or bindings[0].assignment is None \
                or bindings[0].assignment.node is not param:
            return False
        index = next((i for i, p in enumerate(positional) if p is param), None)
        passed = self._argument_origins(call, param.name.value, index, [], depth)
        return bool(passed) and all(o.inferred.number is not None and o.inferred.number == 0
                                    and o.inferred.type is not T.BOOL for o in passed)

    def _returned_parts(self, function: cst.FunctionDef, values: list[cst.BaseExpression],
                        depth: int) -> list[Origin | ReturnedParameter]:
        """What ``function`` (of this module) returns as its ``return`` statements' ``values``: origins,
        and the parameters it returns as they are (or their ``.value``/``.name``), for the caller to bind."""
        parts: list[Origin | ReturnedParameter] = []
        named = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
        pending = list(values)
        while pending:
            value = pending.pop(0)
            if isinstance(value, cst.IfExp):
                pending[:0] = [value.body, value.orelse]
                continue
            attribute = None
            name = value
            chain: tuple[str, ...] = ()
            if isinstance(value, cst.Attribute) and value.attr.value in ("value", "name"):
                attribute, name = value.attr.value, value.value
            elif isinstance(value, (cst.Attribute, cst.Subscript, cst.Name, cst.Call)):
                # `return ctx.avals_in[0]`, `return mesh` of `mesh = ctx.module_context.axis_context.mesh`
                name, chain = _read_path(self.parsed, value)
                inner = self._helper_path(name, depth) if isinstance(name, cst.Call) else None
                if inner is not None:  # `return _axis_context(ctx).mesh`: the inner helper's path, then this one's
                    name, chain = inner[0], inner[1] + chain
            bindings = bindings_of_name(self.parsed, name) if isinstance(name, cst.Name) else None
            params = [b for b in bindings or () if b.assignment is not None and any(b.assignment.node is p for p in named)]
            if not params or (attribute is not None or chain) and len(params) != len(bindings or ()):
                parts += self.origins(value, depth + 1)  # (memoized: no parameter is returned as it is)
                continue
            for binding in reaching(self.parsed, name, bindings or []):
                excluded = excluded_classes(self.parsed, name, binding)
                if binding in params:
                    parts.append(ReturnedParameter(binding.assignment.node, excluded, attribute, value, chain))
                else:
                    parts += [o for o in self._from_bindings(value, [binding], depth + 1)
                              if not any(self._instance_of(o, c) for c in excluded)]
        return parts

    def _helper_path(self, call: cst.Call, depth: int) -> tuple[cst.Name, tuple[str, ...]] | None:
        """For ``call`` of a ``def`` of this or another project module with one ``return``, a read path
        (:func:`_read_path`) of one of its parameters (also through a further helper's call): the name ``call``
        passes for that parameter and the path's steps, so ``_axis_context(ctx).mesh`` of
        ``def _axis_context(ctx): return ctx.module_context.axis_context`` reads ``module_context.axis_context.mesh``
        of ``ctx``. ``None`` for anything else (what ``call`` passes is no name, the callee returns something else).
        Syntax and scopes only: the caller types the steps from what its own call passes."""
        if depth >= MAX_DEPTH:
            return None
        home, definition = self.parsed, local_definition(self.parsed, call.func)
        if definition is None:
            home, definition = self._foreign_definition(call.func) or (home, None)
        if not isinstance(definition, cst.FunctionDef) or definition.asynchronous is not None:
            return None
        values = [r.value for r in returns_of(definition)]
        if len(values) != 1 or values[0] is None:
            return None
        root, steps = _read_path(home, values[0])
        if isinstance(root, cst.Call):
            inner = self._peer(home)._helper_path(root, depth + 1)
            if inner is None:
                return None
            root, steps = inner[0], inner[1] + steps
        bindings = bindings_of_name(home, root) if isinstance(root, cst.Name) else None
        positional = [*definition.params.posonly_params, *definition.params.params]
        if not bindings or len(bindings) != 1 or bindings[0].assignment is None:
            return None
        index = next((i for i, p in enumerate(positional) if p is bindings[0].assignment.node), None)
        if index is None or any(a.star for a in call.args):
            return None
        passed = call.args[index].value if index < len(call.args) and call.args[index].keyword is None else next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == positional[index].name.value), None)
        return (passed, steps) if isinstance(passed, cst.Name) else None

    def _decimal_literal(self, expr: cst.BaseExpression) -> str | None:
        """The string of ``decimal.Decimal("<literal>")`` (``expr``), else ``None``."""
        if not isinstance(expr, cst.Call) or len(expr.args) != 1 or expr.args[0].keyword is not None \
                or expr.args[0].star or "decimal.Decimal" not in qualified_names(self.parsed, expr.func):
            return None
        return string_value(expr.args[0].value)

    def _method(self, expr: cst.Call, depth: int) -> list[Origin]:
        assert isinstance(expr.func, cst.Attribute)
        method = expr.func.attr.value
        if method in EMPTY_NAN_STATISTICS and not expr.args:
            statistic = self.empty_statistic(expr.func.value, depth)
            if statistic is not None:  # np.array([], dtype=np.float64).mean() is nan
                return self._one(expr, statistic)
        if method == "get" and 1 <= len(expr.args) <= 2 and all(a.keyword is None and not a.star for a in expr.args):
            key = string_value(expr.args[0].value)
            default = expr.args[1].value if len(expr.args) == 2 else None
            got = self._dict_item(expr, expr.func.value, key, depth, default) if key is not None else None
            if got is not None:  # TABLE.get("push", "push") of a dict display: its "push" entry
                return got
        if method == "tolist" and not expr.args:
            listed = self._listed(expr, expr.func.value, depth)
            if listed is not None:  # np.array([Mode.A]).tolist(): [Mode.A]
                return listed
        modelled = self._member(expr, expr.func.value, METHOD, method, depth, with_arguments=bool(expr.args))
        if modelled is not None:  # p.joinpath("x"), mesh.shape.keys(), a.sum()
            return modelled
        if method in _ELEMENT_METHODS and not expr.args:
            receiver = self.origins(expr.func.value, depth + 1)
            if receiver and all(T.array_kind(o.inferred.type) is T.NUMPY_ARRAY for o in receiver):
                # a.max() of an ndarray (also another module's) is one of its elements: a numpy scalar,
                # a numpy.bool_ of a bool array (numpy 2.5.5)
                items = {o.inferred.item for o in receiver}
                return self._one(expr, Inferred(items.pop() if len(items) == 1 else None, numpy_scalar=True))
        if method in SHAPE_METHODS:
            receiver = self.origins(expr.func.value, depth + 1)
            result = []
            for origin in receiver:
                t = origin.inferred.type
                if T.array_kind(t) is T.NUMPY_ARRAY and origin.home is None and t is not T.STRUCTURED_ARRAY:
                    result.append(Origin(expr, reshaped(origin.inferred, method)))
                elif T.array_kind(t) is not None:
                    result.append(Origin(expr, Inferred(T.array_kind(t))))
                elif method == "copy" and t is T.DICT:
                    result.append(replace(origin, node=expr))
                else:
                    result.append(Origin(expr, UNKNOWN))
            return result
        if method in T.METHOD_RESULTS:
            if method in ("keys", "values", "items") and expr.args:  # not a dict view method
                return self._one(expr, UNKNOWN)
            return self._one(expr, Inferred(T.METHOD_RESULTS[method]))
        return self._one(expr, UNKNOWN)


def _absolute(inferred: Inferred) -> Inferred:
    """What ``abs(x)`` is for an ``x`` that is ``inferred``: a ``complex``'s magnitude is a ``float``, a ``bool``'s
    an ``int`` (``abs(True)`` is ``1``); any other type is kept (a number's value made absolute). As CPython's
    ``complex.__abs__`` and ``bool``'s inherited ``int.__abs__``: ``abs(complex(1, 0))`` serializes."""
    if inferred.type is T.COMPLEX:
        return Inferred(T.FLOAT)
    if inferred.type is T.BOOL:
        return Inferred(T.INT)
    return replace(inferred, number=abs(inferred.number)) if inferred.number is not None else inferred
