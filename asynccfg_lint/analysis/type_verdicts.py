"""The Python types the classifier knows, and how JAX's serializer treats each.

Every verdict here is a row of the team's ``truth_table.md`` (jax 0.12.0.1): json.dumps with
``_json_default`` from ``jax/_src/lax/parallel.py`` accepts the JSON builtins and their
subclasses, converts ``np.integer``/``np.floating``/``np.ndarray``, and rejects everything else.
Keys are checked by json itself: only str, int, float, bool, None and their subclasses.
"""

from __future__ import annotations

import builtins
import types
from dataclasses import dataclass, replace
from enum import Enum

from asynccfg_lint.diagnostics import SAFE, UNSAFE


class JsonKind(Enum):
    """What a value becomes in the emitted JSON; used to check XLA's known keys."""

    NUMBER = "number"
    BOOL = "bool"
    NULL = "null"
    STRING = "string"
    ARRAY = "array"
    OBJECT = "object"
    #: serializes, but the shape is unknown (``x.tolist()``, a numpy function result)
    ANY = "any"


@dataclass(frozen=True)
class FixTemplate:
    """A mechanical remedy: the expression that replaces an offending value.

    Attributes:
        template: the new expression with ``{}`` standing for the value, e.g. ``"bool({})"``
            (wrap the value in a call) or ``"{}.tolist()"`` (append to the value, which is
            parenthesized when precedence needs it).
        safety: :data:`SAFE` when the emitted JSON is what the code evidently meant,
            :data:`UNSAFE` when the edit may change meaning (ordering, precision, encoding,
            an Enum member becoming its value); unsafe fixes run only when asked for.
    """

    template: str
    safety: str

    @property
    def appends(self) -> bool:
        """True when the edit appends to the value (``{}.value``) instead of wrapping it in a call."""
        return self.template.startswith("{}")

    def describe(self) -> str:
        """Say what the edit does: ``"wrap in bool(...)"``, ``"append .tolist()"`` or ``"replace with 3"``
        (a template without ``{}`` replaces the value: a ``bind`` keyword's ``jnp.int32(3)``)."""
        if "{}" not in self.template:
            return f"replace with {self.template}"
        if self.appends:
            return f"append {self.template[2:]}"
        return f"wrap in {self.template.format('...')}"



BOOL_FIX = FixTemplate("bool({})", SAFE)
INT_FIX = FixTemplate("int({})", SAFE)
FLOAT_FIX = FixTemplate("float({})", SAFE)
TOLIST_FIX = FixTemplate("{}.tolist()", SAFE)
LIST_FIX = FixTemplate("list({})", SAFE)
STR_FIX = FixTemplate("str({})", SAFE)
ENUM_VALUE_FIX = FixTemplate("{}.value", UNSAFE)  # the emitted field changes meaning
SORTED_FIX = FixTemplate("sorted({})", UNSAFE)  # imposes an order (and fails on unorderable elements)
#: a set whose elements are not known to be mutually orderable: list() keeps them as they are, in the set's order
SET_LIST_FIX = FixTemplate("list({})", UNSAFE)
#: the same for a value that becomes a ``bind`` keyword: a tuple is hashable (a jaxpr equation parameter must
#: be) and is the same JSON array (measured on jax 0.12.0.1: tests/test_fix_safety.py, case_groups)
SORTED_TUPLE_FIX = FixTemplate("tuple(sorted({}))", UNSAFE)
SET_TUPLE_FIX = FixTemplate("tuple({})", UNSAFE)
#: what a ``bind`` keyword's set remedy says instead of :data:`SET_REMEDY`
HASHABLE_SET_REMEDY = "use tuple(sorted(...)) or tuple(...) (a bind keyword must be hashable)"
LOSSY_FLOAT_FIX = FixTemplate("float({})", UNSAFE)  # Decimal/Fraction lose precision
DECODE_FIX = FixTemplate("{}.decode()", UNSAFE)  # assumes UTF-8
ISOFORMAT_FIX = FixTemplate("{}.isoformat()", UNSAFE)  # a string instead of a date
#: the scalar fixes for a value whose Python kind is known, by JSON kind name of that kind
SCALAR_FIXES: dict[str, FixTemplate] = {"int": INT_FIX, "float": FLOAT_FIX, "bool": BOOL_FIX}


@dataclass(frozen=True)
class PyType:
    """A Python type as JAX's config serializer sees it.

    Attributes:
        name: the display name used in messages, e.g. ``"numpy.bool_"``.
        json: the :class:`JsonKind` it serializes to, or ``None`` when lowering rejects it.
        key_ok: whether json accepts it as a dict key (str/int/float/bool/None and subclasses).
        error: the exception lowering raises when ``json`` is ``None``.
        remedy: what to do instead, shown in messages (e.g. ``"use bool(...)"``).
        attrs: attributes instances are known to have among ``handle`` and ``value``
            (``_emit_async_start_custom_call`` reads them for the special keys).
        fix: the mechanical remedy for a value of this type (ACC101), if there is one.
        key_fix: the mechanical remedy for a dict key of this type (ACC102), if there is one.
        hashable: whether ``hash()`` accepts a value of this type; a public ``*_start``
            function's argument becomes a jaxpr equation parameter, which must be hashable.
    """

    name: str
    json: JsonKind | None
    key_ok: bool = False
    error: str = "ValueError"
    remedy: str | None = None
    attrs: frozenset[str] = frozenset()
    fix: FixTemplate | None = None
    key_fix: FixTemplate | None = None
    hashable: bool = True

    def named(self, name: str) -> PyType:
        """Return the same type under another display name."""
        return replace(self, name=name)

    @property
    def serializes(self) -> bool:
        """True when JAX's json.dumps accepts a value of this type."""
        return self.json is not None


def rejected(name: str, remedy: str | None = None, error: str = "ValueError", fix: FixTemplate | None = None,
             hashable: bool = True) -> PyType:
    """Return a type that JAX's serializer rejects at lowering, with its mechanical ``fix`` if any."""
    return PyType(name, None, error=error, remedy=remedy, fix=fix, hashable=hashable)


INT = PyType("int", JsonKind.NUMBER, key_ok=True)
FLOAT = PyType("float", JsonKind.NUMBER, key_ok=True)
BOOL = PyType("bool", JsonKind.BOOL, key_ok=True)
NONE = PyType("None", JsonKind.NULL, key_ok=True)
STR = PyType("str", JsonKind.STRING, key_ok=True)
LIST = PyType("list", JsonKind.ARRAY, hashable=False)
TUPLE = PyType("tuple", JsonKind.ARRAY)
DICT = PyType("dict", JsonKind.OBJECT, hashable=False)
JSON_ANY = PyType("JSON-compatible value", JsonKind.ANY)

NUMPY_INT = PyType("numpy integer", JsonKind.NUMBER, key_fix=INT_FIX)  # converted by _json_default; not a key
#: a numpy float key becomes a Python float with float(k), exactly (float16/float32 widen without loss)
NUMPY_FLOAT = PyType("numpy floating", JsonKind.NUMBER, key_fix=FLOAT_FIX)
NUMPY_FLOAT64 = PyType("numpy.float64", JsonKind.NUMBER, key_ok=True)  # a float subclass
NUMPY_STR = PyType("numpy.str_", JsonKind.STRING, key_ok=True)  # a str subclass
NUMPY_ARRAY = PyType("numpy.ndarray", JsonKind.ANY, hashable=False)  # converted with .tolist()
#: an array of a structured dtype: indexing it with an int gives a numpy.void
STRUCTURED_ARRAY = NUMPY_ARRAY.named("numpy.ndarray (structured)")
NUMPY_VALUE = PyType("numpy value", JsonKind.ANY)  # a numpy scalar or array: which one is not known
#: a numpy int or float scalar of unknown width: ``np.int32(1) + 2``, ``np.sum(a)``
NUMPY_NUMBER = PyType("numpy number", JsonKind.NUMBER)
NUMPY_BOOL = rejected("numpy.bool_", "use bool(...)", fix=BOOL_FIX)
NUMPY_VOID = rejected("numpy.void", "use x.tolist()")  # a structured scalar

JAX_ARRAY = rejected("jax.Array", "use np.asarray(x).tolist(), or int(...)/float(...)/bool(...) for a scalar",
                     fix=TOLIST_FIX, hashable=False)
TORCH_TENSOR = rejected("torch.Tensor", "use x.tolist(), or x.item() for a scalar", fix=TOLIST_FIX)
TYPE_OBJECT = rejected("type object", "use its name, e.g. str(x) or x.__name__")
DTYPE = rejected("numpy.dtype", "use str(x) or x.name")
FUNCTION = rejected("function", "call it, or pass its name as a string")
ENUM_MEMBER = rejected("enum.Enum member", "use x.value (or x.name)", fix=ENUM_VALUE_FIX)
FLAG_MEMBER = rejected("enum.Flag member", "use x.value", fix=ENUM_VALUE_FIX)
DATACLASS = rejected("dataclass instance", "use dataclasses.asdict(x)")
OBJECT = rejected("object", "convert it to int, float, bool, str, list or dict first")
COMPLEX = rejected("complex", "use [x.real, x.imag]")

#: the names of Python's builtin functions (``len``, ``max``...): as a value, a function object that
#: JAX's ``_json_default`` rejects (ValueError), read from this interpreter's ``builtins``
BUILTIN_FUNCTIONS: frozenset[str] = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, types.BuiltinFunctionType))


def is_numpy_scalar(pytype: PyType | None) -> bool:
    """True for a numpy int, float or bool scalar type: comparing one gives a ``numpy.bool_``.

    Measured with numpy 2.5.5: ``np.float64(1.0) == 1.0``, ``np.int32(3) < np.float32(2)`` and
    ``np.sum(a) > 0`` are ``numpy.bool``; ``np.str_("a") == "a"`` is a Python ``bool`` (a str subclass).
    """
    return pytype is not None and pytype.name.startswith("numpy") and (
        pytype.json is JsonKind.NUMBER or pytype.name == NUMPY_BOOL.name)


#: array types, in the order mixed arithmetic promotes to (a jax.Array + an ndarray is a jax.Array).
ARRAY_TYPES: tuple[PyType, ...] = (JAX_ARRAY, TORCH_TENSOR, NUMPY_ARRAY)


def array_kind(pytype: PyType | None) -> PyType | None:
    """Return the array type ``pytype`` is, also under a derived name (``jax.Array (from jax.numpy.int32)``)."""
    if pytype is None:
        return None
    for kind in ARRAY_TYPES:
        if pytype.name == kind.name or pytype.name.startswith(f"{kind.name} "):
            return kind
    return None


SET_REMEDY = "use sorted(...) or list(...)"
_LIST_REMEDY = "use list(...)"
SET = rejected("set", SET_REMEDY, fix=SORTED_FIX, hashable=False)
FROZENSET = rejected("frozenset", SET_REMEDY, fix=SORTED_FIX)
BYTES = rejected("bytes", "use x.decode()", fix=DECODE_FIX)
GENERATOR = rejected("generator", _LIST_REMEDY, fix=LIST_FIX)
#: what calling an ``async def`` gives before it is awaited or run (``asyncio.run(f())`` gives its result)
COROUTINE = rejected("coroutine", "await it, or run it with asyncio.run(...)")


def _iterable(name: str) -> PyType:
    """A lazy iterable or sequence type that ``list(x)`` turns into a JSON array without changing meaning."""
    return rejected(name, _LIST_REMEDY, fix=LIST_FIX)


#: a dict's views (also an OrderedDict's ``odict_keys``...: the mapping serializes, its views do not)
DICT_KEYS = replace(_iterable("dict_keys"), hashable=False)
DICT_VALUES = _iterable("dict_values")
DICT_ITEMS = rejected("dict_items", "use list(...) of pairs or the dict itself", hashable=False)

DATETIME = rejected("datetime.datetime", "use x.isoformat()", fix=ISOFORMAT_FIX)
DATE = rejected("datetime.date", "use x.isoformat()", fix=ISOFORMAT_FIX)

#: builtins and stdlib callables whose result type is fixed (library types with members, such as
#: pathlib, datetime, uuid, numpy dtypes and ml_dtypes scalars, are rows of the catalog in
#: :mod:`asynccfg_lint.analysis.infer.catalog` instead).
CALL_RESULTS: dict[str, PyType] = {
    "builtins.int": INT,
    "builtins.float": FLOAT,
    "builtins.bool": BOOL,
    "builtins.str": STR,
    "builtins.repr": STR,
    "builtins.format": STR,
    "builtins.chr": STR,
    "builtins.hex": STR,
    "builtins.oct": STR,
    "builtins.bin": STR,
    "builtins.len": INT,
    "builtins.ord": INT,
    "builtins.hash": INT,
    "builtins.id": INT,
    "builtins.isinstance": BOOL,
    "builtins.issubclass": BOOL,
    "builtins.callable": BOOL,
    "builtins.hasattr": BOOL,
    "builtins.all": BOOL,
    "builtins.any": BOOL,
    "builtins.list": LIST,
    "builtins.tuple": TUPLE,
    "builtins.sorted": LIST,
    "builtins.dict": DICT,
    "builtins.set": SET,
    "builtins.frozenset": FROZENSET,
    "builtins.bytes": BYTES,
    "builtins.bytearray": rejected("bytearray", "use x.decode() or list(x)", hashable=False),
    "builtins.memoryview": rejected("memoryview", "use x.tolist()"),
    "builtins.complex": COMPLEX,
    "builtins.map": _iterable("map"),
    "builtins.filter": _iterable("filter"),
    "builtins.zip": _iterable("zip"),
    "builtins.reversed": _iterable("reversed"),
    "builtins.enumerate": _iterable("enumerate"),
    "builtins.iter": _iterable("iterator"),
    "builtins.object": OBJECT,
    "builtins.slice": rejected("slice", "use [start, stop, step]"),
    "math.floor": INT,
    "math.ceil": INT,
    "math.trunc": INT,
    "math.prod": JSON_ANY,
    "math.gcd": INT,
    "math.lcm": INT,
    "math.isqrt": INT,
    "math.comb": INT,
    "math.perm": INT,
    "math.factorial": INT,
    "math.isfinite": BOOL,
    "math.isnan": BOOL,
    "math.isinf": BOOL,
    "math.sqrt": FLOAT,
    "math.log": FLOAT,
    "math.log2": FLOAT,
    "math.exp": FLOAT,
    **{f"math.{_name}": FLOAT for _name in (
        "ldexp pow exp2 expm1 log10 log1p cbrt sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh "
        "hypot fabs fmod copysign degrees radians nextafter ulp remainder erf erfc gamma lgamma").split()},
    "operator.index": INT,
    "json.dumps": STR,
    "decimal.Decimal": rejected("decimal.Decimal", "use float(...) or str(...)", fix=LOSSY_FLOAT_FIX),
    "fractions.Fraction": rejected("fractions.Fraction", "use float(...)", fix=LOSSY_FLOAT_FIX),
    "collections.deque": replace(_iterable("collections.deque"), hashable=False),
    "collections.UserDict": rejected("collections.UserDict", "use dict(...)", hashable=False),
    "collections.UserList": rejected("collections.UserList", _LIST_REMEDY, hashable=False),
    "collections.UserString": rejected("collections.UserString", "use str(...)"),
    "collections.ChainMap": rejected("collections.ChainMap", "use dict(...)", hashable=False),
    "collections.defaultdict": DICT.named("collections.defaultdict"),
    "types.MappingProxyType": rejected("mappingproxy", "use dict(...)", hashable=False),
    "enum.auto": INT,
    "dataclasses.astuple": TUPLE,
    # numpy scalars (section 1): integers and floats are converted by _json_default.
    "numpy.bool_": NUMPY_BOOL,
    "numpy.bool": NUMPY_BOOL,
    "numpy.float64": NUMPY_FLOAT64,
    "numpy.double": NUMPY_FLOAT64,
    "numpy.float_": NUMPY_FLOAT64,
    "numpy.str_": NUMPY_STR,
    "numpy.bytes_": rejected("numpy.bytes_", "use x.decode()", fix=DECODE_FIX),
    "numpy.complex64": rejected("numpy.complex64", "use [float(x.real), float(x.imag)]"),
    "numpy.complex128": rejected("numpy.complex128", "use [float(x.real), float(x.imag)]"),
    "numpy.complex_": rejected("numpy.complex128", "use [float(x.real), float(x.imag)]"),
    "numpy.cdouble": rejected("numpy.complex128", "use [float(x.real), float(x.imag)]"),
    "numpy.clongdouble": rejected("numpy.clongdouble", "use [float(x.real), float(x.imag)]"),
    "numpy.datetime64": rejected("numpy.datetime64", "use str(x)"),
    "numpy.void": NUMPY_VOID,
    "numpy.array_equal": BOOL,
    "numpy.allclose": BOOL,
}

_NUMPY_INTS = (
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 intc uintc intp uintp int_ uint "
    "short ushort byte ubyte longlong ulonglong long ulong"
).split()
_NUMPY_FLOATS = "float16 float32 half single longdouble float128 float96".split()
for _name in _NUMPY_INTS:
    CALL_RESULTS[f"numpy.{_name}"] = NUMPY_INT.named(f"numpy.{_name}")
for _name in _NUMPY_FLOATS:
    CALL_RESULTS[f"numpy.{_name}"] = NUMPY_FLOAT.named(f"numpy.{_name}")
for _name in ("longdouble", "float128", "float96"):  # wider than a double: float(k) may merge two keys
    CALL_RESULTS[f"numpy.{_name}"] = replace(CALL_RESULTS[f"numpy.{_name}"], key_fix=LOSSY_FLOAT_FIX)

#: MLIR attribute builders JAX's own lowering rules put under the special keys (section 2),
#: matched by the end of the qualified name (``jax._src.lib.mlir.ir``, ``jaxlib.mlir.ir``, ...).
MLIR_BUILDER_SUFFIXES: dict[str, PyType] = {
    "ir.BoolAttr.get": PyType("ir.BoolAttr", None, remedy="use x.value", attrs=frozenset({"value"})),
    "ir.IntegerAttr.get": PyType("ir.IntegerAttr", None, remedy="use x.value", attrs=frozenset({"value"})),
    "hlo.ChannelHandle.get": PyType(
        "hlo.ChannelHandle", None, remedy="use x.handle (or the channel_handle key)", attrs=frozenset({"handle"})
    ),
}

#: numpy/jax scalar type names: their bare class object (not called) is a rejected type object.
SCALAR_TYPE_NAMES: frozenset[str] = frozenset(
    _NUMPY_INTS
    + _NUMPY_FLOATS
    + "bool_ bool float64 double float_ complex64 complex128 str_ bytes_ bfloat16 generic number".split()
)

#: numpy functions that build arrays (numpy.ndarray; elements are checked where given).
NUMPY_ARRAY_BUILDERS: frozenset[str] = frozenset(
    "array asarray asanyarray ascontiguousarray zeros ones empty full zeros_like ones_like empty_like "
    "full_like arange linspace logspace geomspace eye identity matrix stack concatenate hstack vstack "
    "tile repeat reshape".split()
)

#: numpy element-wise predicates: ``numpy.bool_`` for scalar arguments, a bool ndarray for arrays
#: (numpy 2.5.5: ``np.isnan(1.0)``, ``np.greater(1, 0)``, ``np.logical_and(True, False)`` are ``numpy.bool``;
#: ``np.isnan(np.arange(3))`` and ``np.isnan([1.0])`` are arrays). Not ``isreal``: ``np.isreal(1.0)`` is a ``bool``.
NUMPY_BOOL_UFUNCS: frozenset[str] = frozenset(
    "isnan isfinite isinf isposinf isneginf isnat signbit iscomplex isclose logical_and logical_or logical_xor "
    "logical_not greater greater_equal less less_equal equal not_equal".split()
)

#: numpy ufuncs of numbers with a number result, folded by calling numpy on known arguments
#: (numpy 2.5.5: ``np.log(0.0)`` is ``-inf``, ``np.sqrt(-1.0)`` a NaN, ``np.exp(1000.0)`` ``inf``, each a numpy.float64).
NUMPY_NUMBER_UFUNCS: frozenset[str] = frozenset(
    "log log2 log10 log1p exp exp2 expm1 sqrt cbrt square reciprocal power float_power divide true_divide "
    "floor_divide add subtract multiply negative absolute fabs sin cos tan arcsin arccos arctan arctan2 sinh "
    "cosh tanh arcsinh arccosh arctanh hypot fmod remainder logaddexp logaddexp2 maximum minimum fmax fmin "
    "floor ceil trunc rint".split()
)

#: numpy reductions whose result over a whole array (no ``axis``) is a numpy number whatever the dtype
#: (``np.sum`` of a bool array is a ``numpy.int64``).
NUMPY_NUMBER_REDUCTIONS: frozenset[str] = frozenset(
    "sum prod mean average std var nansum nanprod nanmean nanstd nanvar".split()
)
#: numpy reductions whose result over a whole array is one of its elements (``np.max`` of a bool array is a
#: ``numpy.bool``).
NUMPY_ELEMENT_REDUCTIONS: frozenset[str] = frozenset("max min amax amin nanmax nanmin".split())

#: numpy reductions that call the operand's own method when it is not an ndarray (numpy's
#: ``_wrapreduction``): ``np.sum(jax_array)`` is a jax.Array, a tracer under ``jit``, and so are
#: ``np.prod``, ``np.mean``, ``np.max``, ``np.any``... (measured, numpy 2.5.5 and jax 0.12.0.1:
#: tests/test_reductions.py); ``np.nansum`` and ``np.average`` convert the operand to an ndarray first.
NUMPY_DISPATCHED_REDUCTIONS: frozenset[str] = frozenset("sum prod mean std var max min amax amin any all".split())
#: numpy reductions whose result over a whole numpy array is a ``numpy.bool_``
NUMPY_BOOL_REDUCTIONS: frozenset[str] = frozenset({"any", "all"})


def dispatched_bool(func: str) -> PyType:
    """What ``np.<func>(x) > 0`` (or ``np.any(x)``) is for an ``x`` that may be a jax array: a ``numpy.bool_``
    for a numpy operand, else what the operand's own method gives (a jax.Array). JAX rejects both; the
    ``bool(...)`` fix is right only for the first (a tracer raises TracerBoolConversionError), so there is none.
    """
    return rejected(f"numpy.bool_, or a jax.Array if the operand of np.{func} is one (numpy calls its .{func})",
                    "use bool(...) only where the operand is a numpy array: a traced jax.Array cannot be "
                    "converted, and bind raises TypeError for one (unhashable)")


#: jax.numpy names that do not return a jax.Array (``jnp.dtype`` is a catalog row: a numpy.dtype).
JAX_NUMPY_NON_ARRAY: frozenset[str] = frozenset(
    "iinfo finfo shape ndim size result_type issubdtype promote_types can_cast isdtype "
    "isscalar iscomplexobj isrealobj".split()
)

#: torch functions that build tensors.
TORCH_TENSOR_BUILDERS: frozenset[str] = frozenset(
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn "
    "randint zeros_like ones_like empty_like full_like stack cat".split()
)

#: module-level constants: qualified name -> (type, non-finite?).
CONSTANTS: dict[str, tuple[PyType, bool]] = {
    "math.inf": (FLOAT, True),
    "math.nan": (FLOAT, True),
    "math.pi": (FLOAT, False),
    "math.e": (FLOAT, False),
    "math.tau": (FLOAT, False),
    "numpy.nan": (FLOAT, True),
    "numpy.NaN": (FLOAT, True),
    "numpy.NAN": (FLOAT, True),
    "numpy.inf": (FLOAT, True),
    "numpy.Inf": (FLOAT, True),
    "numpy.Infinity": (FLOAT, True),
    "numpy.infty": (FLOAT, True),
    "numpy.PINF": (FLOAT, True),
    "numpy.NINF": (FLOAT, True),
    "numpy.True_": (NUMPY_BOOL, False),  # numpy.bool scalars, not Python bools
    "numpy.False_": (NUMPY_BOOL, False),
    "numpy.pi": (FLOAT, False),
    "numpy.e": (FLOAT, False),
    "numpy.newaxis": (NONE, False),
    "jax.numpy.nan": (FLOAT, True),
    "jax.numpy.inf": (FLOAT, True),
    "jax.numpy.pi": (FLOAT, False),
    "jax.numpy.e": (FLOAT, False),
    "sys.maxsize": (INT, False),
    "builtins.True": (BOOL, False),
    "builtins.False": (BOOL, False),
    "builtins.None": (NONE, False),
    "builtins.Ellipsis": (rejected("ellipsis", "use None or a string"), False),
    "builtins.NotImplemented": (OBJECT.named("NotImplementedType"), False),
}

#: annotation qualified names -> type (generic aliases are handled by the classifier).
ANNOTATIONS: dict[str, PyType] = {
    "builtins.int": INT,
    "builtins.float": FLOAT,
    "builtins.bool": BOOL,
    "builtins.str": STR,
    "builtins.list": LIST,
    "builtins.tuple": TUPLE,
    "builtins.dict": DICT,
    "typing.List": LIST,
    "typing.Tuple": TUPLE,
    "typing.Dict": DICT,
    "typing.Sequence": JSON_ANY.named("Sequence"),
    "typing.Mapping": JSON_ANY.named("Mapping"),
    "typing.Any": JSON_ANY.named("Any"),
    "numpy.ndarray": NUMPY_ARRAY,
    "numpy.typing.NDArray": NUMPY_ARRAY,
    "numpy.typing.ArrayLike": NUMPY_VALUE.named("numpy.typing.ArrayLike"),
    "numpy.integer": NUMPY_INT,
    "numpy.floating": NUMPY_FLOAT,
    "jax.Array": JAX_ARRAY,
    "jax.numpy.ndarray": JAX_ARRAY,
    "jax.typing.ArrayLike": rejected("jax.typing.ArrayLike", JAX_ARRAY.remedy),
    "torch.Tensor": TORCH_TENSOR,
    "builtins.set": SET,
    "builtins.frozenset": FROZENSET,
    "typing.Set": SET,
    "typing.FrozenSet": FROZENSET,
    "builtins.complex": COMPLEX,
    "builtins.bytes": BYTES,
}
#: catalog functions that are not classes, so never an annotation
_NOT_CLASSES = frozenset({"numpy.array_equal", "numpy.allclose"})
for _qualname, _type in CALL_RESULTS.items():  # the catalog's classes name their instances' type
    if _qualname in _NOT_CLASSES or not _qualname.startswith(
        ("numpy.", "decimal.", "fractions.", "pathlib.", "datetime.", "uuid.", "ml_dtypes.")
    ):
        continue
    if _qualname.count(".") == 1 or _qualname.startswith("datetime."):
        ANNOTATIONS.setdefault(_qualname, _type)

#: methods whose result type is fixed whatever the receiver.
METHOD_RESULTS: dict[str, PyType] = {
    "tolist": JSON_ANY.named("result of .tolist()"),
    "item": JSON_ANY.named("result of .item()"),
    "decode": STR,
    "isoformat": STR,
    "hex": STR,
    "format": STR,
    "join": STR,
    "lower": STR,
    "upper": STR,
    "strip": STR,
    "replace": STR,
    "split": LIST.named("list (of str)"),
    "rsplit": LIST.named("list (of str)"),
    "splitlines": LIST.named("list (of str)"),
    "total_seconds": FLOAT,
    "bit_length": INT,
    "count": INT,
    "index": INT,
    "encode": rejected("bytes", "keep it a str (drop .encode())"),
    "keys": DICT_KEYS,
    "values": DICT_VALUES,
    "items": DICT_ITEMS,
    "_asdict": DICT,
}

#: enum base classes: qualified name -> whether members serialize (int/str subclasses do).
ENUM_BASES: dict[str, bool] = {
    "enum.Enum": False,
    "enum.Flag": False,
    "enum.IntEnum": True,
    "enum.StrEnum": True,
    "enum.IntFlag": True,
    "enum.ReprEnum": False,
}

#: bases whose subclasses serialize like the base (section 1: int/float/str/dict/list/tuple subclasses).
JSON_BASES: dict[str, PyType] = {
    "builtins.int": INT,
    "builtins.float": FLOAT,
    "builtins.str": STR,
    "builtins.dict": DICT,
    "builtins.list": LIST,
    "builtins.tuple": TUPLE,
    "typing.NamedTuple": TUPLE,
    "typing.TypedDict": DICT,
    "collections.OrderedDict": DICT,
    "collections.defaultdict": DICT,
    "collections.Counter": DICT,
    "numpy.ndarray": NUMPY_ARRAY,
    "numpy.integer": NUMPY_INT,
    "numpy.signedinteger": NUMPY_INT,
    "numpy.int64": NUMPY_INT,
    "numpy.int32": NUMPY_INT,
    "numpy.floating": NUMPY_FLOAT,
    "numpy.float64": NUMPY_FLOAT64,
}

DATACLASS_DECORATORS: frozenset[str] = frozenset(
    {"dataclasses.dataclass", "attr.s", "attr.define", "attrs.define", "attr.frozen", "attrs.frozen"}
)
