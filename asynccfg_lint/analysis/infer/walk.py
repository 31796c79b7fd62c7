"""The inference walk: what each expression of one module is, by its syntax, bindings and the type catalog.

The entry point is :meth:`InferenceWalk.origins`, memoized per node and bounded by
:data:`~asynccfg_lint.analysis.tracer.MAX_DEPTH`; calls, arrays, classes and other modules' values are
inferred by the mixins beside it (:mod:`.calls`, :mod:`.arrays`, :mod:`.classes`, :mod:`.relocation`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer import arguments, lookup
from asynccfg_lint.analysis.infer.arrays import (
    SCALAR_KINDS, array_item, complex_array, complex_operation, integer_array_operation, structured_item, tolist)
from asynccfg_lint.analysis.callees import class_assignment
from asynccfg_lint.analysis.infer.classes import NAMESPACE, TORCH_DTYPE, class_assignments
from asynccfg_lint.analysis.infer.folding import (
    FINFO_NUMBERS,
    IINFO_NUMBERS,
    finfo_number,
    iinfo_number,
    float_inferred,
    float_operation,
    int_constant,
    int_inferred,
    numpy_operation,
)
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, OPERATOR, Known
from asynccfg_lint.analysis.infer.values import UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.resolution import (
    Binding,
    HasAttribute,
    IsNone,
    attribute_bindings,
    bindings_of_name,
    excluded_classes,
    holds,
    is_import,
    local_definition,
    method_owner,
    qualified_names,
    reaching,
    required_classes,
    string_value,
    unpacked_value,
)
from asynccfg_lint.analysis.entries import Entry
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.mutations import list_additions, list_mutated
from asynccfg_lint.analysis.objects import is_property
from asynccfg_lint.analysis.tracer import MAX_DEPTH
from asynccfg_lint.analysis.functions import unpacked_values

#: builtin types of data no plain enum member is an instance of
_DATA_BUILTINS = frozenset(f"builtins.{t}" for t in ("list", "tuple", "dict", "set", "frozenset", "str", "int",
                                                      "float", "bool", "bytes"))

#: the standard classes a class deriving from each of these derives from too, as Python 3.12's enum module
#: defines them (``IntEnum(int, ReprEnum)``, ``StrEnum(str, ReprEnum)``, ``IntFlag(int, ReprEnum, Flag)``,
#: ``ReprEnum(Enum)``, ``Flag(Enum)``): what ``isinstance`` of a member against them answers
_STANDARD_ANCESTORS: dict[str, frozenset[str]] = {
    "enum.Enum": frozenset({"enum.Enum"}),
    "enum.ReprEnum": frozenset({"enum.ReprEnum", "enum.Enum"}),
    "enum.Flag": frozenset({"enum.Flag", "enum.Enum"}),
    "enum.IntEnum": frozenset({"enum.IntEnum", "enum.ReprEnum", "enum.Enum", "builtins.int"}),
    "enum.StrEnum": frozenset({"enum.StrEnum", "enum.ReprEnum", "enum.Enum", "builtins.str"}),
    "enum.IntFlag": frozenset({"enum.IntFlag", "enum.ReprEnum", "enum.Flag", "enum.Enum", "builtins.int"}),
}

#: builtins that iterate their first argument as it is (an enum class: its members)
_ENUM_ITERATORS = frozenset({"builtins.list", "builtins.tuple", "builtins.sorted", "builtins.reversed", "builtins.iter"})

#: numpy ufuncs (and predicates) that are function objects when named as values
_NUMPY_UFUNCS = T.NUMPY_NUMBER_UFUNCS | T.NUMPY_BOOL_UFUNCS
#: the functions whose result's number attributes are folded (``jnp.finfo`` is ``ml_dtypes.finfo``, which gives
#: numpy's numbers for numpy's types)
_INFO_FUNCTIONS = frozenset(f"{module}.{kind}" for module in ("numpy", "jax.numpy", "ml_dtypes") for kind in ("finfo", "iinfo"))

#: the operators of set arithmetic (``set.__sub__``, ``__or__``, ``__and__``, ``__xor__`` and their in-place forms)
_SET_OPERATORS = (cst.Subtract, cst.BitOr, cst.BitAnd, cst.BitXor,
                  cst.SubtractAssign, cst.BitOrAssign, cst.BitAndAssign, cst.BitXorAssign)

#: a builtin class an ``isinstance`` test names -> the names of the types whose values are its instances
#: (numpy.float64 and numpy.str_ derive from float and str; bool from int), as Python 3.12 and numpy 2 have them
_BUILTIN_INSTANCES: dict[str, frozenset[str]] = {
    f"builtins.{cls}": frozenset(t.name for t in types) for cls, types in {
        "set": (T.SET,), "frozenset": (T.FROZENSET,), "dict": (T.DICT,), "list": (T.LIST,), "tuple": (T.TUPLE,),
        "str": (T.STR, T.NUMPY_STR), "int": (T.INT, T.BOOL), "bool": (T.BOOL,), "float": (T.FLOAT, T.NUMPY_FLOAT64),
        "complex": (T.COMPLEX,)}.items()}
#: a numpy class an ``isinstance`` test names -> the names of the numpy types whose values are its instances
#: (numpy 2: ``np.bool_`` is a ``generic``, no ``number``; every numpy int an ``integer``; ``float64`` a
#: ``floating``; checked against numpy itself in ``tests/test_classifier_verdicts.py``)
_NUMPY_INSTANCES: dict[str, frozenset[str]] = {
    f"numpy.{cls}": frozenset(t.name for t in types) for cls, types in {
        "generic": (T.NUMPY_BOOL, T.NUMPY_INT, T.NUMPY_FLOAT, T.NUMPY_FLOAT64, T.NUMPY_NUMBER, T.NUMPY_STR, T.NUMPY_VOID),
        "number": (T.NUMPY_INT, T.NUMPY_FLOAT, T.NUMPY_FLOAT64, T.NUMPY_NUMBER), "integer": (T.NUMPY_INT,),
        "inexact": (T.NUMPY_FLOAT, T.NUMPY_FLOAT64), "floating": (T.NUMPY_FLOAT, T.NUMPY_FLOAT64),
        "float64": (T.NUMPY_FLOAT64,), "double": (T.NUMPY_FLOAT64,), "bool_": (T.NUMPY_BOOL,), "bool": (T.NUMPY_BOOL,),
        "flexible": (T.NUMPY_STR, T.NUMPY_VOID), "character": (T.NUMPY_STR,), "str_": (T.NUMPY_STR,),
        "void": (T.NUMPY_VOID,), "ndarray": (T.NUMPY_ARRAY,)}.items()}
#: the numpy types no value of which is an instance of a builtin type of data, but for the ones named
#: (``float64`` derives from ``float``, ``str_`` from ``str``; a float or number of unknown width may be either)
_NUMPY_BUILTIN_BASES: dict[str, frozenset[str]] = {
    T.NUMPY_BOOL.name: frozenset(), T.NUMPY_INT.name: frozenset(), T.NUMPY_VOID.name: frozenset(),
    T.NUMPY_ARRAY.name: frozenset(), T.NUMPY_FLOAT64.name: frozenset({"builtins.float"}),
    T.NUMPY_STR.name: frozenset({"builtins.str"}), T.NUMPY_FLOAT.name: frozenset({"builtins.float"}),
    T.NUMPY_NUMBER.name: frozenset({"builtins.float", "builtins.complex"})}
#: a dict's set-like views: ``d.keys() | {16}``, ``d.items() & other`` are sets (CPython 3.12)
_SET_LIKE_VIEWS = frozenset({T.DICT_KEYS.name, T.DICT_ITEMS.name, "odict_keys", "odict_items"})

#: Fraction and Decimal arithmetic kept exact: ``+ - * / %`` with ints, bools or the same type give that
#: type (CPython 3.12; ``Fraction(1, 3) // 2`` is an int and not folded; ``Fraction(1, 3) + 1.0`` is a float)
_EXACT_NUMBERS = frozenset({T.CALL_RESULTS["fractions.Fraction"].name, T.CALL_RESULTS["decimal.Decimal"].name})
_EXACT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Modulo,
                    cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.ModuloAssign)


def _exact_arithmetic(operator: cst.BaseBinaryOp | cst.BaseAugOp, types: list[T.PyType]) -> T.PyType | None:
    """The Fraction or Decimal ``operator`` of operands of ``types`` gives, else ``None``."""
    exact = {t.name for t in types} & _EXACT_NUMBERS
    if len(exact) != 1 or not isinstance(operator, _EXACT_OPERATORS):
        return None
    if all(t.name in exact or t is T.INT or t is T.BOOL for t in types):
        return next(t for t in types if t.name in exact)
    # Fraction(1, 3) + 0.5 is a float (a Decimal and a float raise TypeError: no value)
    fraction = T.CALL_RESULTS["fractions.Fraction"].name in exact
    return T.FLOAT if fraction and all(t.name in exact or t in (T.INT, T.BOOL, T.FLOAT) for t in types) else None


_OPERATOR_SYMBOLS = {cst.Divide: "/", cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*"}


def _dotted(expr: cst.BaseExpression) -> bool:
    """True for a name or a dotted name (``np.add``), not an attribute of a call's result."""
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return isinstance(expr, cst.Name)


class InferenceWalk:
    """The walk over expressions, mixed into :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`.

    Uses the attributes its ``__init__`` sets: ``parsed``, ``tracer``, ``catalog``, ``workspace``,
    ``sanitizers``, and the memo ``_memo``/``_active``/``_synthetic``.
    """

    def origins(self, expr: cst.BaseExpression, depth: int = 0) -> list[Origin]:
        """Return the sources ``expr`` may get its value from, each with what it is."""
        key = id(expr)
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH or key in self._active:
            return [Origin(expr, UNKNOWN)]
        self._active.add(key)
        try:
            result = self._origins(expr, depth)
        finally:
            self._active.discard(key)
        if not self._cut:  # found inside an unfinished cycle through a parameter's callers: may be partial
            self._memo[key] = result
        return result

    def _one(self, expr: cst.CSTNode, inferred: Inferred) -> list[Origin]:
        return [Origin(expr, inferred)]

    @staticmethod
    def _typed(expr: cst.CSTNode, found: list[lookup.Typed] | None) -> list[Origin] | None:
        """Origins at ``expr`` for the catalog types ``found`` (one per member of a union), or ``None``."""
        if found is None:
            return None
        first = found[0][0]
        if len(found) > 1 and all((t.json, t.key_ok) == (first.json, first.key_ok) for t, _ in found):
            # a union whose members JAX treats alike (OmegaConf.create: a DictConfig or a ListConfig) is one
            # value, with a fix only where every member has the same one
            verdict = replace(first, name=" or ".join(t.name for t, _ in found),
                              fix=first.fix if all(t.fix == first.fix for t, _ in found) else None,
                              key_fix=first.key_fix if all(t.key_fix == first.key_fix for t, _ in found) else None)
            names = frozenset(name for _, known in found for name in known.names)
            return [Origin(expr, Inferred(verdict, model=Known(names)))]
        return [Origin(expr, Inferred(pytype, model=known)) for pytype, known in found]

    def _member(self, expr: cst.CSTNode, receiver: cst.BaseExpression, kind: str, name: str, depth: int,
                with_arguments: bool = False) -> list[Origin] | None:
        """What the catalog says ``receiver``'s member is, when it knows every possible receiver; beside a receiver
        nothing is known of (a parameter whose unseen callers may pass anything), the member of those it knows,
        and an unknown."""
        origins = self.origins(receiver, depth + 1)
        unknown = [o for o in origins if o.home is None and o.inferred.type is None and o.inferred.model is None]
        origins = [o for o in origins if o not in unknown] if len(unknown) < len(origins) else origins
        if not origins or any(o.home is not None and o.inferred.model is None for o in origins):
            return None
        # a value written in another module has the same catalog type here (`ROOT / "ring"` of an imported
        # Path constant); its elements are that module's nodes, so only a type the catalog made counts
        models = [lookup.model_of(self.catalog, o.inferred.type, o.inferred.model) for o in origins]
        typed = self._typed(expr, lookup.member(self.catalog, models, kind, name, with_arguments))
        return typed + [Origin(expr, UNKNOWN)] if typed is not None and unknown else typed

    def _origins(self, expr: cst.BaseExpression, depth: int) -> list[Origin]:  # noqa: C901 - a dispatch table
        loaded = self.tracer.loaded_values.loaded(expr)
        if loaded is not None:  # a value json.loads/tomllib.loads parsed from a constant string
            return [Origin(loaded.call, self._loaded(expr, loaded.value, depth))]
        value = int_constant(expr)
        if value is not None:
            return self._one(expr, int_inferred(value))
        if isinstance(expr, cst.Float):
            return self._one(expr, float_inferred(T.FLOAT, float(expr.value.replace("_", ""))))
        if isinstance(expr, cst.Imaginary):
            return self._one(expr, Inferred(T.COMPLEX))
        if isinstance(expr, cst.Ellipsis):
            return self._one(expr, Inferred(T.CONSTANTS["builtins.Ellipsis"][0]))
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return self._one(expr, Inferred(self._string_type(expr)))
        if isinstance(expr, (cst.List, cst.Tuple)):
            kind = T.LIST if isinstance(expr, cst.List) else T.TUPLE
            elements = tuple(e.value for e in expr.elements if not isinstance(e, cst.StarredElement))
            # `[*Mode]`: the members of an Enum class unpacked into the display
            iterated = tuple(e.value for e in expr.elements if isinstance(e, cst.StarredElement)
                             and self._enum_members(e.value, e.value) is not None)
            # `[*TABLE]`: a dict's keys, as list(TABLE) gives them (CallInference._dict_keys)
            keys = tuple(key for e in expr.elements if isinstance(e, cst.StarredElement) and e.value not in iterated
                         for key in self._dict_keys(e.value, depth) or ())
            return self._one(expr, Inferred(kind, elements=elements + keys, iterated=iterated))
        if isinstance(expr, cst.Set):  # its elements: what sorted(...) or list(...) of it holds
            elements = tuple(e.value for e in expr.elements if not isinstance(e, cst.StarredElement))
            return self._one(expr, Inferred(T.CALL_RESULTS["builtins.set"], elements=elements))
        if isinstance(expr, cst.SetComp):
            return self._one(expr, Inferred(T.CALL_RESULTS["builtins.set"], elements=(expr.elt,)))
        if isinstance(expr, cst.ListComp):
            return self._one(expr, Inferred(T.LIST, elements=(expr.elt,)))
        if isinstance(expr, cst.GeneratorExp):
            return self._one(expr, Inferred(T.GENERATOR))
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return self._one(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))
        if isinstance(expr, cst.Lambda):
            return self._one(expr, Inferred(T.FUNCTION))
        if isinstance(expr, cst.IfExp):
            return self.origins(expr.body, depth + 1) + self.origins(expr.orelse, depth + 1)
        if isinstance(expr, cst.BooleanOperation):
            return self.origins(expr.left, depth + 1) + self.origins(expr.right, depth + 1)
        if isinstance(expr, cst.NamedExpr):
            return self.origins(expr.value, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self._unary(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, depth)
        if isinstance(expr, cst.Comparison):
            return self._one(expr, Inferred(self._comparison(expr, depth)))
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Await):
            return self._awaited(expr.expression, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        return self._one(expr, UNKNOWN)

    def _loaded(self, node: cst.CSTNode, value: object, depth: int) -> Inferred:
        """What the parsed ``value`` standing at ``node`` is (CPython 3.12 ``json``/``tomllib`` give these types)."""
        if isinstance(value, bool):
            return Inferred(T.BOOL)
        if isinstance(value, int):
            return int_inferred(value)
        if isinstance(value, float):
            return float_inferred(T.FLOAT, value)
        if isinstance(value, str):
            return Inferred(T.STR)
        if value is None:
            return Inferred(T.NONE)
        if isinstance(value, list):
            call = self.tracer.loaded_values.loaded(node).call
            return Inferred(T.LIST, elements=tuple(self.tracer.loaded_values.stand_in(call, v) for v in value))
        if isinstance(value, dict):
            return Inferred(T.DICT, traced=self.tracer.trace(node, depth + 1))
        for kind in ("datetime.datetime", "datetime.date", "datetime.time"):  # (tomllib; a datetime is a date)
            if type(value).__module__ + "." + type(value).__name__ == kind:
                # (no fix: the finding stands at the loads call, whose text holds the date)
                return Inferred(replace(self.catalog.types[kind].verdict, fix=None, key_fix=None))
        return UNKNOWN

    @staticmethod
    def _string_type(expr: cst.BaseExpression) -> T.PyType:
        node = expr
        while isinstance(node, cst.ConcatenatedString):
            node = node.left
        prefix = node.prefix if isinstance(node, (cst.SimpleString, cst.FormattedString)) else ""
        if "b" in prefix.lower():
            return T.CALL_RESULTS["builtins.bytes"]
        return T.STR

    def _unary(self, expr: cst.UnaryOperation, depth: int) -> list[Origin]:
        if isinstance(expr.operator, cst.Not):
            return self._one(expr, Inferred(T.BOOL))
        inner = self.origins(expr.expression, depth + 1)
        result = [replace(o, node=expr) if o.node is expr.expression else o for o in inner]
        # -x of a known number is its negation; ~x is left unknown
        return [o if o.inferred.number is None else replace(o, inferred=replace(
            o.inferred, number=-o.inferred.number if isinstance(expr.operator, cst.Minus)
            else o.inferred.number if isinstance(expr.operator, cst.Plus) else None)) for o in result]

    def _binary(self, expr: cst.BinaryOperation, depth: int) -> list[Origin]:
        symbol = _OPERATOR_SYMBOLS.get(type(expr.operator))
        modelled = self._member(expr, expr.left, OPERATOR, symbol, depth) if symbol is not None else None
        if modelled is not None:  # Path("/") / "x", a datetime minus a datetime
            return modelled
        return self._operation(expr, expr.operator, self.origins(expr.left, depth + 1),
                               self.origins(expr.right, depth + 1))

    def _operation(self, expr: cst.CSTNode, operator: cst.BaseBinaryOp | cst.BaseAugOp, left_origins: list[Origin],
                   right_origins: list[Origin]) -> list[Origin]:
        """What ``left <operator> right`` is at ``expr``, from what each operand may be (also for ``x op= y``)."""
        # elements of another module's list are that module's nodes: they are not carried over
        left = [o.inferred if o.home is None else replace(o.inferred, elements=()) for o in left_origins]
        right = [o.inferred if o.home is None else replace(o.inferred, elements=()) for o in right_origins]
        result = self._combined(expr, operator, left, right)
        if result[0].inferred.type is None and (len(left) > 1 or len(right) > 1) \
                and all(i.type is not None for i in left + right):
            # operands that may each be one of several kinds: each pair alone (0 + 1 is an int, inf + 1 infinite)
            pairs = [self._combined(expr, operator, [a], [b])[0] for a in left for b in right]
            return [o for k, o in enumerate(pairs) if o not in pairs[:k]]
        return result

    def _combined(self, expr: cst.CSTNode, operator: cst.BaseBinaryOp | cst.BaseAugOp, left: list[Inferred],
                  right: list[Inferred]) -> list[Origin]:
        """``left <operator> right`` for operands that may be any of ``left`` and ``right`` at once."""
        combined = left + right
        if any(i.type is None for i in combined):
            return self._one(expr, UNKNOWN)
        types = [i.type for i in combined]
        if complex_operation(operator, types):  # 1j * np.linspace(0, 1, 4): a complex ndarray
            return self._one(expr, Inferred(complex_array()))
        kept = integer_array_operation(operator, combined)
        if kept is not None:  # np.arange(4) % 2 is again an int64 array
            return self._one(expr, kept)
        for kind in T.ARRAY_TYPES:
            arrays = [t for t in types if T.array_kind(t) is kind]
            if arrays:  # keeps what is known of the array (a numpy array of complex stays rejected)
                # the result's shape and dtype are the operands' combined (jnp.int32(3) / 2 is a float
                # array): only .tolist() is certain to keep the value
                result = tolist(arrays[0]) if arrays[0].fix is not None else arrays[0]
                return self._one(expr, Inferred(result))
        if any(t is T.COMPLEX for t in types):  # 1 + 2j
            return self._one(expr, Inferred(T.COMPLEX))
        bitwise = isinstance(operator, (cst.BitOr, cst.BitAnd, cst.BitXor, cst.BitOrAssign, cst.BitAndAssign, cst.BitXorAssign))
        if bitwise and len(set(types)) == 1 and types[0].name.startswith("enum"):
            return self._one(expr, Inferred(types[0]))  # Flag.A | Flag.B is a member of the same flag
        # inf // 2 and inf % 2 are NaN, but x / inf, x // inf and x % inf are finite for finite x
        nonfinite = any(i.nonfinite for i in left) or (
            any(i.nonfinite for i in right) and not isinstance(operator, (cst.Divide, cst.FloorDivide, cst.Modulo, cst.DivideAssign, cst.FloorDivideAssign, cst.ModuloAssign))
        )
        exact = _exact_arithmetic(operator, types)
        if exact is not None:  # Fraction(1, 3) + 0 is a Fraction, Decimal(1) / 3 a Decimal
            return self._one(expr, Inferred(exact))
        if isinstance(operator, _SET_OPERATORS) and any(t.name in _SET_LIKE_VIEWS for t in types) \
                and all(t.name in _SET_LIKE_VIEWS or t is T.SET or t is T.FROZENSET for t in types):
            # d.keys() | {16} is a set (a dict's key and item views are set-like); which elements it holds is
            # not known, so it is no set of shown elements (sorted(...) of it is not checked element by element)
            return self._one(expr, Inferred(T.SET.named("set (from a dict view)")))
        if all(t.json is T.JsonKind.STRING for t in types) and isinstance(operator, (cst.Add, cst.AddAssign)):
            return self._one(expr, Inferred(T.STR))
        if isinstance(operator, (cst.Modulo, cst.ModuloAssign)) and types[0].json is T.JsonKind.STRING:
            return self._one(expr, Inferred(T.STR))
        if all(t.json in (T.JsonKind.NUMBER, T.JsonKind.BOOL) or t is T.NUMPY_BOOL for t in types):
            dispatched = next((i.dispatched for i in combined if i.dispatched), None)
            if dispatched:  # np.sum(x) + 1 of an x that may be a jax array: may be a jax.Array too
                return self._one(expr, Inferred(T.NUMPY_NUMBER, nonfinite=nonfinite, dispatched=dispatched))
            if T.NUMPY_BOOL in types:  # np.True_ + 1 is a numpy.int64, np.True_ + True a numpy.bool (numpy 2.5.5)
                booleans = all(t is T.NUMPY_BOOL or t is T.BOOL for t in types)
                return self._one(expr, Inferred(T.NUMPY_BOOL if booleans else T.NUMPY_NUMBER, nonfinite=nonfinite))
            if any(t.name.startswith("numpy") for t in types):
                folded = numpy_operation(operator, combined[0].number, combined[1].number) \
                    if len(combined) == 2 and all(i.number is not None for i in combined) else None
                if folded is not None:  # np.float64(0) / np.float64(0) is nan, as numpy computes it
                    return self._one(expr, folded)
                if isinstance(operator, (cst.Divide, cst.DivideAssign)) and len(combined) == 2 \
                        and combined[1].number is not None and combined[1].number == 0:
                    # x / np.float64(0), np.float64(x) / 0: inf, -inf or nan whatever the real number x
                    # (numpy 2.5.5, every int and float type measured: tests/fixtures/programs/numpy_division.py)
                    nonfinite = True
                return self._one(expr, Inferred(T.NUMPY_NUMBER, nonfinite=nonfinite))
            if len(combined) == 2 and all(i.number is not None and (i.type is T.FLOAT or i.type is T.INT)
                                          for i in combined):
                value = float_operation(operator, combined[0].number, combined[1].number)
                if value is not None:  # float("1e308") * 10 is inf, as Python computes it
                    return self._one(expr, float_inferred(T.FLOAT, value))
            if isinstance(operator, (cst.Divide, cst.DivideAssign)) or any(t is T.FLOAT for t in types):
                return self._one(expr, Inferred(T.FLOAT, nonfinite=nonfinite))
            return self._one(expr, Inferred(T.INT))
        if all(t is T.SET or t is T.FROZENSET for t in types) and isinstance(operator, _SET_OPERATORS) \
                and len({i.type for i in left}) == 1:
            # set(a) - {5} is a set, frozenset(a) | b a frozenset: the left operand's type; only | and ^
            # may hold elements of the right operand
            both = isinstance(operator, (cst.BitOr, cst.BitXor, cst.BitOrAssign, cst.BitXorAssign))
            elements = tuple(e for i in (combined if both else left) for e in i.elements)
            return self._one(expr, Inferred(left[0].type, elements=elements))
        if all(t.json is T.JsonKind.ARRAY for t in types) and isinstance(operator, (cst.Add, cst.AddAssign)):
            elements = tuple(e for i in combined for e in i.elements)
            return self._one(expr, Inferred(T.LIST, elements=elements))
        return self._one(expr, UNKNOWN)

    def _comparison(self, expr: cst.Comparison, depth: int) -> T.PyType | None:
        operands = [expr.left] + [c.comparator for c in expr.comparisons]
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
            return T.BOOL
        return self._elementwise_bool(operands, depth, ufunc=False)

    def _elementwise_bool(self, operands: list[cst.BaseExpression], depth: int, ufunc: bool) -> T.PyType | None:
        """What a comparison of ``operands``, or a numpy predicate (``ufunc``) of them, gives.

        An array operand makes it an array of bools (a jax.Array for a jax operand; a numpy predicate
        of a list is an ndarray). Otherwise a numpy scalar operand, or any numpy predicate of
        scalars, makes it a ``numpy.bool_`` (which JAX rejects), and a comparison of Python scalars
        is a ``bool``. When an operand may be either a scalar or an array, the result is unknown.
        Measured with numpy 2.5.5: ``np.sum(a) > 0``, ``np.array(True) > 0`` (a 0-d array),
        ``np.isnan(1.0)`` are ``numpy.bool``; ``np.arange(3) > 0``, ``np.isnan([1.0])`` are arrays.
        An ndarray of unknown shape counts as an array, as it always has for comparisons.
        """
        arrays: set[T.PyType] = set()
        numpy_scalar = unknown = other = False
        dispatched = None  # np.sum(x) of an x that may be a jax array: so may the comparison be
        for operand in operands:
            for origin in self.origins(operand, depth + 1):
                inferred, pytype = origin.inferred, origin.inferred.type
                dispatched = dispatched or inferred.dispatched
                kind = T.array_kind(pytype)
                if kind is T.NUMPY_ARRAY and inferred.ndim == 0 or inferred.numpy_scalar or T.is_numpy_scalar(pytype):
                    numpy_scalar = True
                elif kind is not None:
                    arrays.add(kind)
                elif ufunc and pytype is not None and pytype.json is T.JsonKind.ARRAY:
                    arrays.add(T.NUMPY_ARRAY)  # numpy converts a list or tuple to an array
                elif pytype is not None and pytype.json in SCALAR_KINDS:
                    pass  # a Python scalar (or a str subclass such as numpy.str_)
                elif pytype is None or pytype.name.startswith("numpy"):
                    unknown = True  # unknown, or a "numpy value" that may be a scalar or an array
                else:
                    other = True  # a list, dict or object: Python compares it, numpy may broadcast against it
        if ufunc and arrays:
            # np.isnan(jax_array) is an ndarray, or a numpy.bool_ for a 0-d one: only numpy arrays are certain
            return T.NUMPY_ARRAY if arrays == {T.NUMPY_ARRAY} else None
        for kind in T.ARRAY_TYPES:  # element-wise comparison: an array of bools
            if kind in arrays:
                return kind
        if unknown or other and (numpy_scalar or ufunc):
            return None
        if dispatched and numpy_scalar:
            return T.dispatched_bool(dispatched)
        return T.NUMPY_BOOL if numpy_scalar or ufunc else T.BOOL

    def _constant(self, expr: cst.BaseExpression) -> list[Origin] | None:
        for name in qualified_names(self.parsed, expr):
            if name in T.CONSTANTS:
                pytype, nonfinite = T.CONSTANTS[name]
                number = getattr(math, name[5:], None) if name.startswith("math.") and pytype is T.FLOAT else None
                return self._one(expr, Inferred(pytype, nonfinite=nonfinite, number=number))
            module, _, attr = name.rpartition(".")
            # (a plain name: libcst names `getattr(m, "x").value` "builtins.getattr" too)
            if isinstance(expr, cst.Name) and module == "builtins" and attr in T.BUILTIN_FUNCTIONS \
                    or _dotted(expr) and module == "numpy" and attr in _NUMPY_UFUNCS:
                return self._one(expr, Inferred(T.FUNCTION.named(f"function {name}")))  # len, np.add as values
            if module in ("numpy", "jax.numpy", "torch", "ml_dtypes") and attr in T.SCALAR_TYPE_NAMES:
                return self._one(expr, Inferred(T.TYPE_OBJECT.named(f"type object {name}")))
            if module == "torch" and (attr.startswith(("float", "int", "uint", "bfloat", "complex")) or attr == "bool"):
                dtype = self.catalog.types["torch.dtype"].verdict  # torch.float32 is a torch.dtype (catalog, by reading)
                return self._one(expr, Inferred(dtype.named(f"torch.dtype ({name})"), model=TORCH_DTYPE))
            read = self._typed(expr, lookup.typed(self.catalog, self.catalog.value(name)))
            if read is not None:  # a library's module constant: mlir.COLLECTIVE_CHANNEL_ID is an int
                return read
        return None

    def _name(self, expr: cst.Name, depth: int) -> list[Origin]:
        constant = self._constant(expr)
        if constant is not None:
            return constant
        bindings = bindings_of_name(self.parsed, expr)
        if bindings and all(is_import(b) for b in bindings):
            return self._foreign(expr, depth) or self._one(expr, UNKNOWN)
        if not bindings:
            return self._one(expr, UNKNOWN)
        result: list[Origin] = []
        for binding in reaching(self.parsed, expr, bindings):
            found = self._from_bindings(expr, [binding], depth)
            added = list_additions(self.parsed, expr, binding) if any(
                o.node is binding.value and o.inferred.type is T.LIST for o in found) else ()
            if added:  # big = [...]; big.append(sizes[0] > 4): the appended values are elements too
                found = [replace(o, inferred=replace(o.inferred, elements=o.inferred.elements + added))
                         if o.node is binding.value and o.inferred.type is T.LIST else o for o in found]
            found = self.narrowed(found, expr, binding)
            result.extend(self.narrowed_per_bind(expr, binding, found))
        return result

    def narrowed(self, found: list[Origin], use: cst.Name, binding: Binding) -> list[Origin]:
        """``found`` (what ``binding`` may give the name ``use`` of this module) less what the ``isinstance``
        tests before ``use`` rule out there (:func:`~asynccfg_lint.analysis.resolution.excluded_classes`,
        ``required_classes``). ``found`` may be of another module: a ``bind``'s values for a keyword the
        rule narrows (:attr:`~asynccfg_lint.analysis.jax_facts.SinkSpec.narrowed`)."""
        excluded = excluded_classes(self.parsed, use, binding)
        if excluded:  # `if isinstance(v, Mode): return v.value` before it: no Mode member gets here
            found = [o for o in found if not any(self._instance_of(o, c) for c in excluded)]
        required = required_classes(self.parsed, use, binding)
        if required:  # `v if isinstance(v, list) else str(v)`: no enum member is a list
            found = [o for o in found if not all(self._builtin_other_than(o, c) for c in required)]
        return found

    def _builtin_other_than(self, origin: Origin, cls: cst.BaseExpression) -> bool:
        """True when ``cls`` is a builtin type of data (``list``, ``str``, ``int``...) and ``origin`` a plain enum
        member (no int/str mixin) or a numpy value of a type that does not derive from it (:data:`_NUMPY_BUILTIN_BASES`:
        a ``numpy.bool_`` is no ``bool``): such a value is never an instance of it."""
        pytype = origin.inferred.type
        if pytype is None:
            return False
        names = qualified_names(self.parsed, cls) & _DATA_BUILTINS
        if pytype.name in _NUMPY_BUILTIN_BASES:
            return bool(names) and not names & _NUMPY_BUILTIN_BASES[pytype.name]
        return pytype.name.startswith((T.ENUM_MEMBER.name, T.FLAG_MEMBER.name)) and bool(names)

    def _instance_of(self, origin: Origin, cls: cst.BaseExpression | HasAttribute) -> bool:
        """True when ``origin``'s value is known to be an instance of the class expression ``cls`` (of this module),
        or for a :class:`HasAttribute` test, known to have that attribute (an enum member's ``value`` and ``name``);
        for :class:`~asynccfg_lint.analysis.resolution.IsNone`, known to be ``None``.

        An enum member (``member_of``), or an instance built by ``Cls(...)`` of a project class, is an instance
        of its class and of every class that class derives from (:meth:`_ancestry`: its project bases, and
        ``enum.Enum``/``enum.Flag``/``enum.IntEnum``/``enum.StrEnum``/``enum.IntFlag``/``enum.ReprEnum``/``int``/
        ``str`` as Python 3.12's enum module derives them): a ``Mode`` member is no ``Fmt``, a plain ``Flag``
        member no ``IntFlag`` (measured on jax 0.12.0.1, ``tests/fixtures/programs/extpkg/narrowed_elsewhere.py``).
        A member whose class is not found is one of ``enum.Enum``, and of ``enum.Flag`` for a flag. A value of
        a builtin type is an instance of that builtin class and of those it derives from (:data:`_BUILTIN_INSTANCES`),
        a numpy value of the numpy classes its type derives from (:data:`_NUMPY_INSTANCES`).
        Anything else: ``False``.
        """
        inferred = origin.inferred
        pytype = inferred.type
        member = pytype is not None and pytype.name.startswith((T.ENUM_MEMBER.name, T.FLAG_MEMBER.name, "enum member"))
        if isinstance(cls, HasAttribute):
            return member and cls.attribute in ("value", "name")
        if isinstance(cls, IsNone):
            return pytype is T.NONE
        names = qualified_names(self.parsed, cls)
        if pytype is not None and any(pytype.name in _BUILTIN_INSTANCES.get(name, _NUMPY_INSTANCES.get(name, ()))
                                      for name in names):
            return True  # `isinstance(obj, set)` of a set display, `isinstance(flag, np.generic)` of a numpy.bool_
        own = inferred.member_of or inferred.cls
        ancestry = self._ancestry(own, origin.home) if own is not None else None
        if ancestry is not None:  # decided by the value's class and its bases, as isinstance does
            classes, standard = ancestry
            if names & standard:
                return True
        elif member and "enum.Enum" in names:
            return True
        elif pytype is not None and "enum.Flag" in names and pytype.name.startswith(T.FLAG_MEMBER.name):
            return True
        if own is None:
            return False
        definition = local_definition(self.parsed, cls)
        if definition is None:
            definition = (self._foreign_definition(cls) or (None, None))[1]
        return definition is own or ancestry is not None and id(definition) in ancestry[0]

    def _ancestry(self, cls: cst.ClassDef, hint: ParsedModule | None,
                  depth: int = 0) -> tuple[frozenset[int], frozenset[str]] | None:
        """The project classes (by ``id``, ``cls`` among them) and the standard classes (qualified names:
        :data:`_STANDARD_ANCESTORS`, ``builtins.*``) that the class ``cls`` derives from, through its bases in this
        and other project modules (``class Kind(Base)`` of ``class Base(enum.Enum)``). ``hint``: a module that may
        hold ``cls`` (an origin's ``home``). ``None`` when ``cls``'s module is not read here or a base is unknown."""
        home = next((m for m in (hint, self.parsed, *self._read_modules()) if m is not None and cls in m.parents), None)
        if home is None or depth > MAX_DEPTH:
            return None
        peer = self._peer(home)
        classes, standard = {id(cls)}, {"builtins.object"}
        for base in cls.bases:
            if base.keyword is not None:
                continue  # metaclass=...
            names = qualified_names(home, base.value)
            known = {a for q in names for a in _STANDARD_ANCESTORS.get(q, {q} if q.startswith("builtins.") else ())}
            if known:
                standard |= known
                continue
            base_home, definition = home, local_definition(home, base.value)
            if definition is None:
                base_home, definition = peer._foreign_definition(base.value) or (home, None)
            inherited = self._ancestry(definition, base_home, depth + 1) if isinstance(definition, cst.ClassDef) else None
            if inherited is None:
                return None
            classes |= inherited[0]
            standard |= inherited[1]
        return frozenset(classes), frozenset(standard)

    def _read_modules(self) -> list[ParsedModule]:
        """The modules this check has read (the checked one, and the other project modules looked up)."""
        if self.workspace is None:
            return []
        return [self.workspace.checked, *(m for m in self.workspace.consulted().values() if m is not None)]

    def _from_bindings(self, expr: cst.CSTNode, bindings: list[Binding], depth: int) -> list[Origin]:
        """The origins of a name or attribute bound by ``bindings``; ``expr`` stands for what has no value node."""
        result: list[Origin] = []
        for binding in bindings:
            node = binding.assignment.node if binding.assignment is not None else None
            loop = self._loop_of(node) if isinstance(node, cst.Name) and binding.value is None else None
            if isinstance(node, cst.Param):
                result.extend(self._parameter(expr, binding, node, depth))
            elif loop is not None:
                result.extend(self._loop_element(expr, node, loop, depth))
            elif isinstance(binding.definition, cst.FunctionDef) and is_property(self.parsed, binding.definition):
                result.append(Origin(expr, UNKNOWN))  # `self.budget` of a property: its result, not the function
            elif binding.definition is not None:
                kind = T.FUNCTION if isinstance(binding.definition, cst.FunctionDef) else T.TYPE_OBJECT
                result.append(Origin(expr, Inferred(kind.named(f"{kind.name} {binding.definition.name.value}"))))
            elif binding.augmented is not None:
                result.extend(self._augmented(expr, binding.augmented, depth))
            elif binding.value is None and binding.unpacked is not None:  # `groups, n = helper(...)`
                unpacked, index = binding.unpacked
                elements = unpacked_values(self.parsed, unpacked, index)
                if elements is None:  # `aval, = ctx.avals_in`: an element of what is unpacked
                    result.extend(self._member(expr, unpacked, ELEMENT, "", depth) or [Origin(expr, UNKNOWN)])
                for element in elements or ():
                    result.extend(self.origins(element, depth + 1))
            elif binding.value is not None:
                found = self.origins(binding.value, depth + 1)
                if binding.annotation is not None and any(o.inferred.type is None for o in found):
                    # `x: T = unknown()`: the declared type stands for what the checker cannot see
                    found = [o for o in found if o.inferred.type is not None]
                    found += [Origin(expr, i) for i in self.from_annotation(binding.annotation)]
                result.extend(found)
            elif binding.annotation is not None:
                result.extend(Origin(expr, i) for i in self.from_annotation(binding.annotation))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result

    def _loop_of(self, name: cst.Name) -> cst.For | cst.CompFor | None:
        """The ``for`` loop or comprehension whose target binds ``name`` (also inside a tuple target)."""
        parent = self.parsed.parents.get(name)
        child: cst.CSTNode = name
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            child, parent = parent, self.parsed.parents.get(parent)
        return parent if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is child else None

    def _loop_element(self, expr: cst.CSTNode, name: cst.Name, loop: cst.For | cst.CompFor, depth: int) -> list[Origin]:
        """What the loop variable ``name`` takes: one element of what the loop or comprehension iterates."""
        return self._element_in(expr, name, loop.target, loop.iter, depth)

    def _element_in(self, expr: cst.CSTNode, name: cst.Name, target: cst.BaseExpression,
                    iterable: cst.BaseExpression, depth: int) -> list[Origin]:
        """What ``name`` (in the loop target ``target``) takes from one element of ``iterable``.

        The catalog's element type (``for d in jax.devices()``: a Device; ``range(...)``: ints); each
        element of a list or tuple display the loop runs over (also through a name or a default; a
        target ``a, b`` takes the matching parts of tuple-display elements); one element of a 1-d
        numpy array whose element type the code shows (``np.arange(4)``: a numpy number); through
        ``enumerate(it)`` (an int, then an element of ``it``) and ``zip(a, b, ...)`` (an element of
        each), which make tuples (builtins; a ``start=``/``strict=`` keyword changes no element; a
        target that does not unpack them holds the tuple); else unknown.
        """
        viewed = self._view_elements(expr, name, target, iterable, depth)
        if viewed is not None:  # `for k, v in d.items()`, `for v in d.values()` of a dict the tracer sees
            return viewed
        parts = self._zipped_parts(iterable)
        if parts is not None and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == len(parts) \
                and not any(isinstance(e, cst.StarredElement) for e in target.elements):
            for element, part in zip(target.elements, parts):
                if not holds(element.value, name):
                    continue
                if part is None:  # enumerate's count
                    return [Origin(expr, Inferred(T.INT))] if element.value is name else [Origin(expr, UNKNOWN)]
                return self._element_in(expr, name, element.value, part, depth)
        if parts is not None and target is name:  # `for pair in zip(a, b)`: each element is a tuple
            return [Origin(expr, Inferred(T.TUPLE))]
        if target is name:
            members = self._enum_members(expr, iterable)
            if members is not None:  # `for m in Mode`: each member
                return members
            modelled = self._member(expr, iterable, ELEMENT, "", depth)
            if modelled is not None:
                return modelled
        result: list[Origin] = []
        for origin in self.origins(iterable, depth + 1):
            inferred = origin.inferred
            members = self._enum_members(expr, origin.node) \
                if target is name and origin.home is None and isinstance(origin.node, cst.Call) else None
            if members is not None:  # `members = list(Mode)`, then `for m in members`
                result.extend(members)
            elif isinstance(origin.node, cst.Call) and qualified_names(self.parsed, origin.node.func) & {"builtins.range"}:
                result.append(Origin(expr, Inferred(T.INT)))
            elif inferred.type is not None and inferred.type.json is T.JsonKind.ARRAY and inferred.elements \
                    and not isinstance(origin.node if origin.home is None else origin.source, cst.Call):
                # a display of this module, or of another (an imported constant: its elements are judged
                # by that module's classifier and arrive through ``expr``)
                peer = self._peer(origin.home) if origin.home is not None else self
                for element in inferred.elements:
                    value = element if target is name else unpacked_value(target, name, element)
                    found = peer.origins(value, depth + 1) if value is not None else [Origin(expr, UNKNOWN)]
                    result.extend(found if origin.home is None or value is None
                                  else [self._arrived(o, origin.home, expr) for o in found])
            elif target is name and T.array_kind(inferred.type) is T.NUMPY_ARRAY and inferred.ndim == 1 \
                    and inferred.item is not None:
                result.append(Origin(expr, Inferred(inferred.item, numpy_scalar=True)))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result or [Origin(expr, UNKNOWN)]

    def _view_elements(self, expr: cst.CSTNode, name: cst.Name, target: cst.BaseExpression,
                       iterable: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """What ``name`` takes in ``for k, v in d.items()`` (``k``: a key, ``v``: a value) or ``for v in d.values()``
        when the tracer sees the dict ``d``: each entry's key or value (a str for a literal key), beside an unknown
        where part of it is not seen. ``None`` for any other loop, or a dict the tracer does not see."""
        if not (isinstance(iterable, cst.Call) and not iterable.args and isinstance(iterable.func, cst.Attribute)):
            return None
        view = iterable.func.attr.value
        if view == "items" and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 \
                and name in (target.elements[0].value, target.elements[1].value):
            part = "value" if target.elements[1].value is name else "key"
        elif view == "values" and target is name:
            part = "value"
        else:
            return None
        traced = self.tracer.trace(iterable.func.value, depth + 1)
        if traced is None:
            return None
        result: list[Origin] = []
        for entry in traced.entries:
            node = entry.value if part == "value" else entry.key_node
            if part == "key" and entry.key is not None:
                result.append(Origin(expr, Inferred(T.STR)))
            elif node is None or entry.zipped or part == "key" and (entry.key_elements or entry.tuple_key):
                result.append(Origin(expr, UNKNOWN))
            elif entry.home is None:
                result += self.origins(node, depth + 1)
            else:
                result += [self._arrived(o, entry.home, expr) for o in self._peer(entry.home).origins(node, depth + 1)]
        if not traced.complete or traced.opaque:
            result.append(Origin(expr, UNKNOWN))
        return result or [Origin(expr, UNKNOWN)]

    def _enum_members(self, expr: cst.CSTNode, iterable: cst.BaseExpression) -> list[Origin] | None:
        """What iterating ``iterable`` gives when it is an enum class of the project: one of its members.

        ``Mode``, ``list(Mode)``, ``tuple(Mode)``, ``sorted(Mode, key=...)``, ``reversed(Mode)``,
        ``iter(Mode)`` and ``Mode.__members__.values()`` iterate the members (``enum.EnumType.__iter__``,
        Python 3.12; aliases are left out, which changes no type). ``None`` for anything else.
        """
        source = iterable
        while isinstance(source, cst.Call) and source.args and source.args[0].keyword is None \
                and not source.args[0].star and qualified_names(self.parsed, source.func) & _ENUM_ITERATORS:
            source = source.args[0].value
        if isinstance(source, cst.Call) and not source.args and isinstance(source.func, cst.Attribute) \
                and source.func.attr.value == "values" and isinstance(source.func.value, cst.Attribute) \
                and source.func.value.attr.value == "__members__":
            source = source.func.value.value
        if not isinstance(source, (cst.Name, cst.Attribute)):
            return None
        home, cls = self.parsed, local_definition(self.parsed, source)
        if cls is None:
            home, cls = self._foreign_definition(source) or (home, None)
        if not isinstance(cls, cst.ClassDef):
            return None
        instance = self._peer(home).instance_type(cls)
        if instance is None or not instance.name.startswith("enum"):
            return None
        local = home is self.parsed
        return [Origin(expr, Inferred(instance, cls=cls if local else None, member_of=cls), None if local else home)]

    def elements(self, iterable: cst.BaseExpression, depth: int) -> list[Origin]:
        """What one element of ``iterable`` may be (as a loop over it takes them: :meth:`_element_in`)."""
        return self._element_in(iterable, iterable, iterable, iterable, depth)

    def _zipped_parts(self, iterable: cst.BaseExpression) -> list[cst.BaseExpression | None] | None:
        """For ``enumerate(it)``: ``[None, it]`` (None: the count, an int); for ``zip(a, b)``: ``[a, b]``;
        else ``None`` (also for a ``*`` argument, whose number of parts is unknown)."""
        if not isinstance(iterable, cst.Call):
            return None
        names = qualified_names(self.parsed, iterable.func)
        positional = [arg for arg in iterable.args if arg.keyword is None]
        if any(arg.star for arg in iterable.args):
            return None
        if "builtins.enumerate" in names and len(positional) in (1, 2):
            return [None, positional[0].value]
        if "builtins.zip" in names and positional:
            return [arg.value for arg in positional]
        return None

    def _parsed_argument(self, expr: cst.Attribute, depth: int) -> list[Origin] | None:
        """``args.<dest>`` of ``args = parser.parse_args(...)``: what the matching ``add_argument`` makes.

        A ``type=`` callable's result (an Enum class of the module gives its member; ``int``, a
        float; ``pathlib.Path``, a path), a ``str`` without one; a ``bool`` for ``store_true``; a
        list of those for ``nargs``/``append``; plus the default when it is not a string (used as is).
        """
        receivers = self.origins(expr.value, depth + 1)
        if not receivers or any(o.inferred.model != NAMESPACE or o.home is not None for o in receivers):
            return None
        result: list[Origin] = []
        for receiver in receivers:
            parser = arguments.parser_of(receiver.node)
            found = arguments.argument(self.parsed, parser, expr.attr.value) if parser is not None else None
            if found is None:
                return None
            if found.action in arguments.BOOL_ACTIONS:
                values = [Origin(expr, Inferred(T.BOOL))]
            elif found.action == "count":
                values = [Origin(expr, Inferred(T.INT))]
            elif found.type is None:
                values = [Origin(expr, Inferred(T.STR))]
            else:  # what calling type(...) on a string gives
                call = cst.Call(func=found.type, args=[cst.Arg(cst.SimpleString('""'))])
                self._synthetic.append(call)
                values = [replace(o, node=expr) if o.node is call else o for o in self._call(call, depth + 1)]
            if found.listed:
                values = [Origin(expr, Inferred(T.LIST.named(f"list of {v.inferred.type.name}")
                                                if v.inferred.type is not None and v.inferred.type.serializes
                                                else v.inferred.type, model=v.inferred.model))
                          for v in values]
            result.extend(values)
            if found.default is not None and string_value(found.default) is None:
                result.extend(self.origins(found.default, depth + 1))
        return result

    def _augmented(self, expr: cst.Name, statement: cst.AugAssign, depth: int) -> list[Origin]:
        """What ``name`` holds after ``name op= value``: the operation on what it held before and ``value``
        (``d += 1`` of an int is an int, at the statement), as for ``name = name op value``."""
        value = self.origins(statement.value, depth + 1)
        if isinstance(statement.operator, cst.BitOrAssign) and all(o.inferred.type is T.DICT for o in value):
            return [Origin(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))]
        target = statement.target
        if id(statement) in self._following:  # a loop's augmented assignments reach each other: nothing new
            self._cut.add(id(statement))
            return []
        before = [b for b in bindings_of_name(self.parsed, target) or () if b.augmented is not statement] \
            if isinstance(target, cst.Name) and depth <= MAX_DEPTH else []
        previous: list[Origin] = []
        if before:
            self._following.add(id(statement))
            try:
                previous = self._from_bindings(target, reaching(self.parsed, target, before), depth + 1)
            finally:
                self._following.discard(id(statement))
                self._cut.discard(id(statement))
        if before and all(o.inferred.type is not None for o in previous + value):
            return self._operation(statement, statement.operator, previous, value)  # n = 1; n += 2: an int
        # an operand is not known: what is certain to be reported is a bad operand where it is written
        bad = [o for o in previous if o.inferred.type is not None and not o.inferred.type.serializes]
        bad += [replace(o, node=statement.value) if o.node is statement.value else o for o in value
                if o.inferred.type is not None and not o.inferred.type.serializes]
        return bad or [Origin(expr, UNKNOWN)]

    def _attribute(self, expr: cst.Attribute, depth: int) -> list[Origin]:
        constant = self._constant(expr)
        if constant is not None:
            return constant
        member = self._enum_member(expr)
        if member is not None:
            return [member]
        bindings = attribute_bindings(self.parsed, expr)
        overridden = self._overridden(expr, depth)
        if bindings is not None:  # self.x / Cls.x: every assignment in the class
            return self._from_bindings(expr, bindings, depth) + overridden
        if overridden:
            return overridden + [Origin(expr, UNKNOWN)]
        if expr.attr.value == "__dict__":  # obj.__dict__ as vars(obj): the attributes its visible construction gives
            traced = self.tracer.trace(expr, depth + 1)
            if traced is not None:
                return self._one(expr, Inferred(T.DICT, traced=traced))
        found = self._object_attribute(expr, depth)
        if found is not None:  # an attribute of an instance of a project class, or of a SimpleNamespace
            return found
        attr = expr.attr.value
        if attr in ("__name__", "__qualname__") and self._named_object(expr.value, depth):
            return self._one(expr, Inferred(T.STR))  # np.add.__name__ is "add"
        if attr in FINFO_NUMBERS | IINFO_NUMBERS:
            folded = self._info_number(expr.value, attr)
            if folded is not None:  # np.finfo(np.float32).max: a float32 of known value; np.iinfo(t).max an int
                return self._one(expr, folded)
        if attr in ("value", "name"):
            of_member = self.enum_attribute(expr, attr, self.origins(expr.value, depth + 1), depth)
            if of_member is not None:
                return of_member
        modelled = self._member(expr, expr.value, ATTRIBUTE, attr, depth)
        if modelled is not None:  # ctx.avals_in, aval.dtype, mesh.device_ids, p.parent
            return modelled
        parsed_argument = self._parsed_argument(expr, depth)
        if parsed_argument is not None:  # args.mode of parser.add_argument("--mode", type=Mode)
            return parsed_argument
        # what an attribute of a receiver the catalog does not know is, by its name alone
        if attr in ("ndim", "size", "itemsize", "nbytes"):
            return self._one(expr, Inferred(T.INT))
        if attr == "shape":
            return self._one(expr, Inferred(T.TUPLE))
        return self._foreign(expr, depth) or self._one(expr, UNKNOWN)

    def _overridden(self, expr: cst.Attribute, depth: int) -> list[Origin]:
        """``self.x`` in a method of a class ``C``: what the project's subclasses of ``C`` assign to ``x`` in their
        bodies (``overlap = Policy.EAGER``), as ``self`` may be an instance of any of them
        (:meth:`~asynccfg_lint.analysis.callees.CallGraph.subclasses`); nothing where none does."""
        if self.workspace is None or not isinstance(expr.value, cst.Name) or depth > MAX_DEPTH:
            return []
        owner = method_owner(self.parsed, expr.value)
        if owner is None:
            return []
        result: list[Origin] = []
        for sub in self.workspace.call_graph.subclasses(self.parsed, owner):
            value = class_assignment(sub.node, expr.attr.value) if sub.node is not owner else None
            if value is not None:
                result += [self._arrived(o, sub.home, expr) for o in self._peer(sub.home).origins(value, depth + 1)]
        return result

    def _named_object(self, expr: cst.BaseExpression, depth: int) -> bool:
        """True when ``expr`` is a function or a class (``np.add``, ``len``, ``np.float32``): its ``__name__`` is a str."""
        origins = self.origins(expr, depth + 1)
        return bool(origins) and all(o.inferred.type is not None and (
            o.inferred.type.name in (T.FUNCTION.name, T.TYPE_OBJECT.name)
            or o.inferred.type.name.startswith(("function ", "type object"))) for o in origins)

    def _info_number(self, receiver: cst.BaseExpression, attr: str) -> Inferred | None:
        """``np.finfo(t).<attr>`` or ``np.iinfo(t).<attr>`` for a ``t`` the code names (``np.float32``,
        ``jnp.int32``, ``"float32"``, ``float``, ``int``): numpy's number. ``jnp.finfo``/``jnp.iinfo`` and
        ``ml_dtypes.finfo``/``ml_dtypes.iinfo`` give the same numbers for numpy's types (measured, ml_dtypes 0.7.0);
        an ml_dtypes type (``jnp.bfloat16``: numpy has no ``bfloat16``) gets none."""
        if not isinstance(receiver, cst.Call) or len(receiver.args) != 1 or receiver.args[0].keyword is not None \
                or receiver.args[0].star:
            return None
        kinds = {name.rpartition(".")[2] for name in qualified_names(self.parsed, receiver.func)
                 if name in _INFO_FUNCTIONS}
        kind = "finfo" if "finfo" in kinds and attr in FINFO_NUMBERS else "iinfo" if "iinfo" in kinds \
            and attr in IINFO_NUMBERS else None
        if kind is None:
            return None
        argument = receiver.args[0].value
        dtype = string_value(argument)
        if dtype is None:
            names = qualified_names(self.parsed, argument)
            builtin = {"finfo": ("builtins.float", "float64"), "iinfo": ("builtins.int", "int64")}[kind]
            dtype = builtin[1] if builtin[0] in names else next(
                (n.rpartition(".")[2] for n in names if n.startswith(("numpy.", "jax.numpy."))
                 and n.rpartition(".")[0] in ("numpy", "jax.numpy") and n.rpartition(".")[2] in T.SCALAR_TYPE_NAMES),
                None)
        if dtype is None or not dtype.isidentifier():
            return None
        return finfo_number(dtype, attr) if kind == "finfo" else iinfo_number(dtype, attr)

    def enum_attribute(self, expr: cst.CSTNode, attr: str, base: list[Origin], depth: int) -> list[Origin] | None:
        """``.value`` or ``.name`` (``attr``) of a value whose origins are ``base``, when each is an enum
        member; ``expr`` stands for what has no place of its own. ``None`` when some is not one."""
        if not base or not all(o.inferred.member_value is not None or o.inferred.type is not None
                               and o.inferred.type.name.startswith(("enum", "Enum")) for o in base):
            return None
        if attr == "name":
            return self._one(expr, Inferred(T.STR))
        result: list[Origin] = []
        for origin in base:
            if origin.inferred.member_value is not None and origin.home is not None:
                peer = self._peer(origin.home)
                result.extend(self._arrived(o, origin.home, expr)
                              for o in peer.origins(origin.inferred.member_value, depth + 1))
            elif origin.inferred.member_value is not None:
                result.extend(self.origins(origin.inferred.member_value, depth + 1))
            elif origin.inferred.cls is not None and origin.home is None:  # some member: any member's value
                members = [v for name, v in class_assignments(origin.inferred.cls)
                           if v is not None and not (name.startswith("_") and name.endswith("_"))]
                result.extend(o for v in members for o in self.origins(v, depth + 1))
                if not members:
                    result.append(Origin(expr, UNKNOWN))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result

    def _indexed_element(self, expr: cst.Subscript, position: int, depth: int) -> list[Origin] | None:
        """``FLAGS[0]`` (``position``) where the name ``FLAGS`` is bound, here or in another project module,
        only to a list or tuple display without ``*`` elements that no code changes in place
        (:func:`~asynccfg_lint.analysis.mutations.list_mutated`): what the element at that position may be.
        ``None`` for anything else (also a position outside the display: IndexError)."""
        if not isinstance(expr.value, cst.Name):
            return None
        bindings = bindings_of_name(self.parsed, expr.value)
        if not bindings:
            return None
        if all(is_import(b) for b in bindings):
            found = self.workspace.foreign(self.parsed, expr.value) if self.workspace is not None else None
            items = [(item.home, item.binding) for item in found or ()]
        else:
            items = [(self.parsed, b) for b in bindings]
        result: list[Origin] = []
        for home, binding in items:
            display = binding.value
            if not isinstance(display, (cst.List, cst.Tuple)) or binding.augmented is not None \
                    or any(isinstance(e, cst.StarredElement) for e in display.elements) \
                    or not -len(display.elements) <= position < len(display.elements) \
                    or isinstance(display, cst.List) and list_mutated(home, binding):
                return None
            element = display.elements[position].value
            if home is self.parsed:
                result += self.origins(element, depth + 1)
            else:
                result += [self._arrived(o, home, expr) for o in self._peer(home).origins(element, depth + 1)]
        return result or None

    def _dict_item(self, expr: cst.BaseExpression, mapping: cst.BaseExpression, key: str, depth: int,
                   default: cst.BaseExpression | None = None) -> list[Origin] | None:
        """``d["key"]`` (``expr``, with ``d`` the ``mapping``) of a dict the tracer can follow (``table()["push"]``
        of a helper returning a display): the values of its entries under ``key``, and unknown beside them
        where part of the dict is not seen or a key is not a literal. For ``d.get("key", default)`` (a
        ``default`` given, ``None`` when left out): with no entry ``key`` in a dict seen whole, the default.
        ``None`` when ``d`` is not such a dict, or holds no entry ``key`` (and, for ``get``, may hold it unseen)."""
        traced = self.tracer.trace(mapping, depth + 1)
        if traced is None:
            return None
        unseen = not traced.complete or any(entry.key is None for entry in traced.entries)
        found = [entry for entry in traced.entries if entry.key == key and entry.value is not None]
        if not found:
            if default is None or unseen or any(entry.key == key for entry in traced.entries):
                return None
            return self.origins(default, depth + 1)  # TABLE.get("pull", "push"): no "pull" entry, the default
        result = self._entry_values(expr, found, depth)
        if unseen:
            result.append(Origin(expr, UNKNOWN))
        return result

    def _entry_values(self, expr: cst.BaseExpression, entries: list[Entry], depth: int) -> list[Origin]:
        """The origins of ``entries``' values, those of another module arriving through ``expr``."""
        result: list[Origin] = []
        for entry in entries:
            if entry.home is None:
                result.extend(self.origins(entry.value, depth + 1))
            else:
                result.extend(self._arrived(o, entry.home, expr) for o in self._peer(entry.home).origins(entry.value, depth + 1))
        return result

    def _keyed_item(self, expr: cst.Subscript, key: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """``TABLE[name]`` (``expr``) with a ``key`` that is no literal, of a dict the tracer sees whole with
        literal str keys (``def mode_for(name): return MODE_TABLE[name]``): the values under the str literals
        ``key`` may be (a private helper's visible calls pass them), else under any key (a missing one raises
        KeyError before any config). ``None`` when the dict is not such a dict or no entry matches."""
        traced = self.tracer.trace(expr.value, depth + 1)
        if traced is None or not traced.complete or not traced.entries \
                or any(not isinstance(entry.key, str) for entry in traced.entries):
            return None
        keys = [string_value(o.node) if o.home is None else None for o in self.origins(key, depth + 1)]
        wanted = set(keys) if keys and None not in keys else None
        found = [entry for entry in traced.entries if entry.value is not None and (wanted is None or entry.key in wanted)]
        return self._entry_values(expr, found, depth) or None

    def _items_by_keys(self, expr: cst.Subscript, key: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """``d[k]`` of a dict the tracer follows, for a ``k`` that may be string literals (a parameter's default,
        what a ``bind`` or a visible caller passes, a constant of another module): the entries under those keys,
        and for a key of unknown text every entry of a dict the tracer sees whole (:meth:`_keyed_item`), else
        unknown beside them. ``None`` when no key's text is known, or a known
        key has no entry (that path raises KeyError, or the dict holds it unseen: :meth:`_dict_item`)."""
        if self.tracer.trace(expr.value, depth + 1) is None:  # (first: most subscripts are of no followed dict)
            return None
        texts: list[str] = []
        unknown = False
        for origin in self.origins(key, depth + 1):
            written = origin.node if origin.home is None else origin.source  # (a str constant of another module)
            text = string_value(written) if written is not None and origin.inferred.type is T.STR else None
            if text is None:
                unknown = True
            elif text not in texts:
                texts.append(text)
        if not texts:
            return None
        result: list[Origin] = []
        for text in texts:
            found = self._dict_item(expr, expr.value, text, depth)
            if found is None:
                return None
            result += [o for o in found if o not in result]
        if unknown:  # a key of unknown text: any entry of a dict seen whole (a missing key raises KeyError), else unknown
            rest = self._keyed_item(expr, key, depth) or [Origin(expr, UNKNOWN)]
            result += [o for o in rest if o not in result]
        return result

    def _subscript(self, expr: cst.Subscript, depth: int) -> list[Origin]:
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if isinstance(index, cst.Index):  # mesh.shape["i"], ctx.avals_in[0]
            modelled = self._member(expr, expr.value, OPERATOR, "[]", depth) or self._member(
                expr, expr.value, ELEMENT, "", depth)
            if modelled is not None:
                return modelled
        member = self._enum_member(expr)  # Mode["RING"]
        if member is not None:
            return [member]
        if isinstance(index, cst.Slice):  # jax.devices()[:2]
            modelled = self._member(expr, expr.value, OPERATOR, "[:]", depth)
            if modelled is not None:
                return modelled
        position = int_constant(index.value) if isinstance(index, cst.Index) else None
        element = self._indexed_element(expr, position, depth) if position is not None else None
        if element is not None:  # FLAGS[0] of a list display no code changes
            return element
        key = string_value(index.value) if isinstance(index, cst.Index) else None
        looked_up = self._dict_item(expr, expr.value, key, depth) if key is not None else None
        if looked_up is None and key is None and isinstance(index, cst.Index):
            # TABLE[fmt] of a fmt="fp8" a bind passes: TABLE's "fp8" entry; else MODE_TABLE[name] of a helper
            looked_up = self._items_by_keys(expr, index.value, depth) or self._keyed_item(expr, index.value, depth)
        if looked_up is not None:
            return looked_up
        base = self.origins(expr.value, depth + 1)
        result = []
        for origin in base:
            kind = T.array_kind(origin.inferred.type)
            if origin.inferred.type is T.STRUCTURED_ARRAY:
                result.append(Origin(expr, structured_item(expr)))
            elif kind is T.NUMPY_ARRAY:
                result.append(Origin(expr, array_item(origin.inferred, expr)))
            elif kind is not None:  # indexing a jax.Array or torch.Tensor gives another one
                result.append(Origin(expr, Inferred(kind)))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result
