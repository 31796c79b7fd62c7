"""Arrays: what numpy, jax and torch array constructors, reductions and elements are.

numpy arrays serialize through ``_json_default`` (``x.tolist()``); jax and torch arrays are
rejected (measured on jax 0.12.0.1, numpy; torch judged by reading). Mixed into
:class:`~asynccfg_lint.analysis.classifier.ValueClassifier`.
"""

from __future__ import annotations

import re
from dataclasses import replace

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.folding import int_constant
from asynccfg_lint.analysis.infer.values import UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.resolution import qualified_names, string_value

#: JSON kinds of scalars
SCALAR_KINDS = (T.JsonKind.NUMBER, T.JsonKind.BOOL, T.JsonKind.NULL, T.JsonKind.STRING)

#: numpy builders whose first positional argument is the data (the second is the dtype)
_DATA_FIRST = frozenset("array asarray asanyarray ascontiguousarray".split())
#: numpy builders that fill the array with numbers whatever their arguments (zeros, ones, uninitialised)
_NUMERIC_FILLS = frozenset("zeros ones empty zeros_like ones_like empty_like identity".split())
#: ndarray methods that keep the elements, and which of them keep the dtype (``.item`` of the result)
SHAPE_METHODS = frozenset("astype copy reshape flatten ravel squeeze transpose view".split())
_DTYPE_KEEPING = SHAPE_METHODS - {"astype", "view"}

#: ``dtype=`` strings of bytes and complex arrays (numpy 2.5.5: ``np.dtype("S1").kind`` is ``"S"``,
#: ``np.dtype("<c16").kind`` ``"c"``; their ``.tolist()`` gives ``bytes`` and ``complex``, which JAX rejects)
_BYTES_CODE = re.compile(r"[|<>=]?S\d*|bytes")
_COMPLEX_CODE = re.compile(r"[|<>=]?c\d+")

#: whole-array statistics that are NaN over an empty array (numpy 2.5.5; ``sum`` is 0.0, ``max`` raises)
EMPTY_NAN_STATISTICS = frozenset({"mean", "std", "var", "nanmean", "nanstd", "nanvar"})

#: the name of a complex ndarray's verdict
COMPLEX_ARRAY = "numpy.ndarray of complex"
#: numpy ufuncs whose result over a complex ndarray is a complex ndarray (numpy 2.5.5, measured in
#: tests/test_value_facts.py; ``np.absolute`` gives floats, ``np.floor`` raises TypeError)
COMPLEX_KEEPING_UFUNCS = frozenset(
    "add arccos arccosh arcsin arcsinh arctan arctanh cos cosh divide exp exp2 expm1 float_power fmax fmin log "
    "log10 log1p log2 maximum minimum multiply negative power reciprocal rint sin sinh sqrt square subtract tan "
    "tanh true_divide".split())
#: operators that make a complex ndarray of a numpy array and a complex (``1j * np.arange(3)``; ``//`` raises)
_COMPLEX_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power,
                      cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign, cst.PowerAssign)


def complex_array() -> T.PyType:
    """A complex ndarray: ``.tolist()`` gives Python complex numbers, which JAX's serializer rejects."""
    return _rejected_array(COMPLEX_ARRAY)


def is_complex(pytype: T.PyType | None) -> bool:
    """True for a complex number (Python or numpy scalar) or a complex ndarray."""
    return pytype is not None and (pytype is T.COMPLEX or pytype.name == COMPLEX_ARRAY
                                   or pytype.name.startswith("numpy.complex") or pytype.name == "numpy.clongdouble")


def complex_operation(operator: cst.BaseBinaryOp | cst.BaseAugOp, types: list[T.PyType]) -> bool:
    """True when ``operator`` of a numpy array and a complex (``1j * np.linspace(0, 1, 4)``) is a complex ndarray."""
    return isinstance(operator, _COMPLEX_OPERATORS) and any(is_complex(t) for t in types) and any(
        T.array_kind(t) is T.NUMPY_ARRAY for t in types)


#: operators that keep an int64 array one when the other operand is a Python int (``np.arange(4) % 2``)
_INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Modulo, cst.FloorDivide,
                      cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.ModuloAssign, cst.FloorDivideAssign)


def integer_array_operation(operator: cst.BaseBinaryOp | cst.BaseAugOp, operands: list[Inferred]) -> Inferred | None:
    """An int64 ndarray ``operator`` Python ints within int64 (numpy 2.5.5: ``np.arange(4) % 2`` is int64):
    an int64 ndarray of the same ``ndim``, whose elements are ``numpy.int64`` (no valid keys); else ``None``."""
    arrays = [i for i in operands if i.type is T.NUMPY_ARRAY]
    if not arrays or not isinstance(operator, _INTEGER_OPERATORS) or any(a.item is not INT64 for a in arrays):
        return None
    if not all(i.type is T.NUMPY_ARRAY or (i.type is T.INT and not i.beyond_int64) for i in operands):
        return None
    ndims = {a.ndim for a in arrays}
    return Inferred(T.NUMPY_ARRAY, ndim=ndims.pop() if len(ndims) == 1 else None, item=INT64)


#: ``dtype=`` values of a bool array
_BOOL_DTYPES = frozenset({"builtins.bool", "numpy.bool_", "numpy.bool", "bool", "?", "bool_"})


class ArrayInference:
    """Array values for :class:`~asynccfg_lint.analysis.classifier.ValueClassifier` (its ``parsed``, ``catalog`` and ``origins``)."""

    @staticmethod
    def _timedelta64(positional: list[cst.BaseExpression]) -> Inferred:
        # np.timedelta64 is an np.integer: _json_default calls int(v), which works for units
        # finer than microseconds and raises TypeError otherwise (truth table section 1).
        unit = string_value(positional[1]) if len(positional) > 1 else None
        if unit is None:
            return UNKNOWN
        # a numpy scalar either way: comparing one gives a numpy.bool_ (numpy 2.5.5)
        if unit in ("ns", "ps", "fs", "as"):
            return Inferred(T.NUMPY_INT.named("numpy.timedelta64"), numpy_scalar=True)
        return Inferred(T.rejected(f"numpy.timedelta64 in unit {unit!r}", "use int(v / np.timedelta64(1, 's'))", error="TypeError"),
                        numpy_scalar=True)

    def _numpy_array(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                     depth: int) -> Inferred:
        """The ndarray ``np.<func>(...)`` builds, with its elements, and its ``ndim`` and element type when known."""
        dtype = keywords.get("dtype")
        item: T.PyType | None = None
        objects = False  # dtype=object: the elements stay as they are
        if dtype is not None:
            if self._structured_dtype(dtype):
                return Inferred(T.STRUCTURED_ARRAY)
            dtype_names = qualified_names(self.parsed, dtype) | ({string_value(dtype)} if string_value(dtype) else set())
            for name in dtype_names:
                if "complex" in name or _COMPLEX_CODE.fullmatch(name):
                    return Inferred(complex_array())
                if _BYTES_CODE.fullmatch(name):  # dtype="S1": .tolist() gives bytes
                    return Inferred(_rejected_array("numpy.ndarray of bytes"))
                if name in ("builtins.bytes", "numpy.bytes_") or name.startswith("datetime64") or name == "numpy.datetime64":
                    return Inferred(_rejected_array(f"numpy.ndarray of {name.rsplit('.', 1)[-1]}"))
                if name in _BOOL_DTYPES:
                    item = T.NUMPY_BOOL
                elif item is None:
                    item = _number_dtype(name)
                objects = objects or name in ("builtins.object", "object", "O")
        # the values it holds: the data of np.array (whose second positional is the dtype), the fill value of
        # np.full; np.zeros(3, np.int32) holds zeros, not its dtype
        data = positional[:0] if func in _NUMERIC_FILLS else positional[:1] if func in _DATA_FIRST else positional[:2]
        elements = self._data_elements(tuple(_flatten(data)), depth)
        ndim: int | None = None
        if func in ("array", "asarray", "asanyarray") and positional and "ndmin" not in keywords:
            ndim = self._literal_ndim(positional[0], depth)
            if dtype is None and ndim is not None:
                item = self._item_type(elements, depth)
        elif func in ("arange", "linspace", "logspace", "geomspace"):
            if item is None and dtype is None:
                # np.arange(3) holds int64s, np.arange(0, 1, 0.5) float64s; linspace & co float64s of
                # Python numbers (numpy 2.5.5: np.linspace(np.float32(0), ...) is float32)
                ends = ("start", "stop", "step") if func == "arange" else ("start", "stop")
                kind = self._python_number_kind(
                    [*positional[:len(ends)], *(v for k, v in keywords.items() if k in ends)], depth)
                item = (INT64 if kind == "int" else T.NUMPY_FLOAT64) if func == "arange" and kind else \
                    T.NUMPY_FLOAT64 if kind else None
            ndim, item = 1, item or (T.NUMPY_NUMBER if dtype is None else None)
        elif func in ("zeros", "ones", "empty") and positional:
            ndim = _shape_ndim(positional[0])
            item = item or (T.NUMPY_FLOAT64 if dtype is None else None)  # float64 by default (numpy 2.5.5)
        if not objects:
            elements = self._held_as_themselves(elements, depth)
        empty = func in ("array", "asarray") and bool(positional) and isinstance(positional[0], (cst.List, cst.Tuple)) \
            and not positional[0].elements and not objects
        return Inferred(T.NUMPY_ARRAY, elements=elements, ndim=ndim, item=item, empty=empty)

    def empty_statistic(self, array: cst.BaseExpression, depth: int) -> Inferred | None:
        """The NaN ``mean``/``std``/``var`` (:data:`EMPTY_NAN_STATISTICS`) of ``array`` when it is a numpy array
        known to be empty (numpy 2.5.5: ``np.array([]).mean()`` is ``nan``, with a RuntimeWarning), else ``None``."""
        origins = self.origins(array, depth + 1)
        if origins and all(o.home is None and o.inferred.empty for o in origins):
            return Inferred(T.NUMPY_NUMBER, nonfinite=True, numpy_scalar=True)
        return None

    def _held_as_themselves(self, elements: tuple[cst.BaseExpression, ...],
                            depth: int) -> tuple[cst.BaseExpression, ...]:
        """The ``elements`` an array of them keeps as the same objects, as ``.tolist()`` gives them back.

        Unless some element is known to be an object (an Enum member, a set, a Device: then the array
        is an object array and keeps every element as it is), numpy scalars are stored in a bool,
        number or string array and come back from ``.tolist()`` (which ``_json_default`` calls) as
        Python scalars: they are left out (a NaN stays one, so it is kept). Measured with numpy 2.5.5: ``np.array([np.True_, 2])``
        is an int64 array, ``.tolist()`` gives ``[1, 2]``; ``np.array([np.True_, Mode.A])`` is an
        object array and keeps the ``numpy.bool``.
        """
        found = [self.origins(e, depth + 1) for e in elements]
        if any(o.inferred.type is not None and o.inferred.type.json not in SCALAR_KINDS
               and not T.is_numpy_scalar(o.inferred.type) for origins in found for o in origins):
            return elements
        return tuple(e for e, origins in zip(elements, found) if not origins or not all(
            T.is_numpy_scalar(o.inferred.type) and not o.inferred.nonfinite for o in origins))

    def _data_elements(self, elements: tuple[cst.BaseExpression, ...], depth: int) -> tuple[cst.BaseExpression, ...]:
        """The values an array built from ``elements`` holds: an array among them gives its own elements
        (a jax or torch array holds numbers: ``np.asarray(jax_array)`` is a numeric ndarray)."""
        result: list[cst.BaseExpression] = []
        for element in elements:
            origins = self.origins(element, depth + 1)
            if origins and all(T.array_kind(o.inferred.type) is not None and o.inferred.model is None for o in origins):
                result.extend(e for o in origins if o.home is None for e in o.inferred.elements)
            else:
                result.append(element)
        return tuple(result)

    def _literal_ndim(self, data: cst.BaseExpression, depth: int) -> int | None:
        """The ``ndim`` of ``np.array(data)``: the nesting of a regular list/tuple literal, 0 for a scalar."""
        if isinstance(data, (cst.List, cst.Tuple)):
            parts = [e.value for e in data.elements]
            if any(isinstance(e, cst.StarredElement) for e in data.elements):
                return None
            inner = {self._literal_ndim(p, depth) for p in parts} if parts else {0}
            return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
        origins = self.origins(data, depth + 1)
        scalar = bool(origins) and all(o.inferred.type is not None and T.array_kind(o.inferred.type) is None
                                       and o.inferred.type.json in SCALAR_KINDS for o in origins)
        return 0 if scalar else None

    def _item_type(self, elements: tuple[cst.BaseExpression, ...], depth: int) -> T.PyType | None:
        """The numpy scalar type of an element of an array of ``elements``: all bools give ``numpy.bool_``,
        numbers (with or without bools) a numpy number; anything else is not known."""
        types = [o.inferred.type for e in elements for o in self.origins(e, depth + 1)]
        if not types or any(t is None for t in types):
            return None
        if all(t.json is T.JsonKind.BOOL or t.name == T.NUMPY_BOOL.name for t in types):
            return T.NUMPY_BOOL
        kind = self._python_number_kind(list(elements), depth, bools=True)
        if kind is not None:  # np.array([1, 2]), np.array([True, 2]): int64; np.array([1, 2.5]): float64
            return INT64 if kind == "int" else T.NUMPY_FLOAT64
        if all(t.json in (T.JsonKind.NUMBER, T.JsonKind.BOOL) or t.name == T.NUMPY_BOOL.name for t in types):
            return T.NUMPY_NUMBER
        return None

    def _python_number_kind(self, exprs: list[cst.BaseExpression], depth: int, bools: bool = False) -> str | None:
        """``"int"`` when every one of ``exprs`` (at least one) is a Python ``int`` within int64 (with
        ``bools``, or a Python ``bool``), ``"float"`` when they are such ints and Python floats, at
        least one a float: what numpy stores as ``int64`` or ``float64``. ``None`` otherwise."""
        kinds = set()
        for origin in (o for e in exprs for o in self.origins(e, depth + 1)):
            pytype = origin.inferred.type
            number = pytype is not None and pytype.json is T.JsonKind.NUMBER
            if number and pytype.name == T.INT.name and not origin.inferred.beyond_int64:
                kinds.add("int")
            elif number and pytype.name == T.FLOAT.name:
                kinds.add("float")
            elif not (bools and pytype is not None and pytype.json is T.JsonKind.BOOL and pytype.name == T.BOOL.name):
                return None
        return "float" if "float" in kinds else "int" if kinds else None

    def _reduction(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                   depth: int) -> Inferred:
        """``np.sum(a)``-like calls over a whole array: a numpy number, a ``numpy.bool_`` for ``np.any``, or
        for ``np.max`` one element.

        numpy calls a non-ndarray operand's own method (:data:`~asynccfg_lint.analysis.type_verdicts.NUMPY_DISPATCHED_REDUCTIONS`):
        of a jax array the result is a jax.Array (no fix: under ``jit`` it is a tracer); of an operand of
        unknown type it is marked ``dispatched``, so that what is built from it gets no ``bool(...)`` fix.
        """
        if len(positional) != 1 or keywords.keys() & {"axis", "keepdims", "out", "where"}:
            return Inferred(T.NUMPY_VALUE)  # an array along an axis
        if func in EMPTY_NAN_STATISTICS and not keywords:
            statistic = self.empty_statistic(positional[0], depth)
            if statistic is not None:  # np.mean(np.array([])) is nan
                return statistic
        operand = self.origins(positional[0], depth + 1)
        dispatched = None
        if func in T.NUMPY_DISPATCHED_REDUCTIONS:
            kinds = [T.array_kind(o.inferred.type) for o in operand]
            if operand and all(kind is T.JAX_ARRAY for kind in kinds):
                return Inferred(replace(T.JAX_ARRAY, name=f"jax.Array (np.{func} of a jax.Array)", fix=None))
            if any(o.inferred.type is None or kind in (T.JAX_ARRAY, T.TORCH_TENSOR) for o, kind in zip(operand, kinds)):
                dispatched = func
        if func in T.NUMPY_BOOL_REDUCTIONS:
            return Inferred(T.dispatched_bool(func) if dispatched else T.NUMPY_BOOL)
        if func in T.NUMPY_NUMBER_REDUCTIONS:
            return Inferred(T.NUMPY_NUMBER, dispatched=dispatched)
        items = {o.inferred.item for o in operand}
        item = items.pop() if len(items) == 1 and not dispatched else None
        return Inferred(item, numpy_scalar=True, dispatched=dispatched)

    def _listed(self, expr: cst.Call, receiver: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """``a.tolist()`` of numpy arrays whose elements the code shows: a list of the elements the array holds
        as themselves (an object array: ``np.array([Mode.A]).tolist()`` is ``[Mode.A]``; in a bool or number
        array numpy scalars become Python scalars, see :meth:`_held_as_themselves`, and a NaN stays a NaN).
        ``None`` otherwise."""
        origins = self.origins(receiver, depth + 1)
        if not origins or any(o.home is not None or o.inferred.model is not None
                              or T.array_kind(o.inferred.type) is not T.NUMPY_ARRAY or not o.inferred.elements
                              or o.inferred.ndim != 1 and not self._holds_rejected(o.inferred.elements, depth)
                              for o in origins):
            return None
        return [Origin(expr, Inferred(T.LIST, elements=o.inferred.elements)) for o in origins]

    def _holds_rejected(self, elements: tuple[cst.BaseExpression, ...], depth: int) -> bool:
        """True when one of an array's ``elements`` may be a value JAX's serializer rejects (an Enum member in an
        object array). The elements are the array's leaves: the ``.tolist()`` of an array of more (or unknown)
        dimensions is lists of them (``np.arange(8).reshape(1, 8).tolist()`` is ``[[0, ..., 7]]``, a replica
        group list), so it is a list of its leaves only for what its leaves are, not for its shape."""
        return any(o.inferred.type is not None and not o.inferred.type.serializes
                   for element in elements for o in self.origins(element, depth + 1))

    def _structured_dtype(self, dtype: cst.BaseExpression) -> bool:
        """True for a structured dtype: a list of ``(name, type)`` fields, as such or in ``np.dtype(...)``."""
        if isinstance(dtype, cst.Call) and dtype.args and qualified_names(self.parsed, dtype.func) & {"numpy.dtype"}:
            dtype = dtype.args[0].value
        return isinstance(dtype, cst.List) and bool(dtype.elements) and all(
            isinstance(e.value, cst.Tuple) for e in dtype.elements)

    def _jax_array(self, name: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                   depth: int) -> T.PyType:
        """A jax.Array from the call ``name``; scalar constructors get the matching Python scalar remedy.

        The fix is ``int(x)``/``float(x)``/``bool(x)`` when the result is known to be a scalar of
        that kind (``jnp.int32(3)``, ``jnp.array(2.5)``), else ``x.tolist()``.
        """
        func = name.rpartition(".")[2]
        if func.startswith(("int", "uint")):
            remedy, kind = "use int(...)", "int"
        elif func.startswith(("float", "bfloat")):
            remedy, kind = "use float(...)", "float"
        elif func in ("bool_", "bool"):
            remedy, kind = "use bool(...)", "bool"
        else:
            remedy, kind = T.JAX_ARRAY.remedy, None
        if kind is not None:
            fix = T.SCALAR_FIXES[kind] if self._scalar_argument(positional, keywords, depth) else T.TOLIST_FIX
        else:
            fix = self._scalar_fix(func, positional, keywords, depth)
        array = replace(T.JAX_ARRAY, name=f"jax.Array (from {name})", remedy=remedy, fix=fix)
        return tolist(array) if fix is T.TOLIST_FIX and kind is not None else array

    def _scalar_argument(self, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                         depth: int) -> T.PyType | None:
        """The scalar type of a one-argument constructor call's argument (Python or numpy number/bool), else ``None``."""
        if len(positional) != 1 or keywords:
            return None
        types = [o.inferred.type for o in self.origins(positional[0], depth + 1)]
        if not types or any(t is None or t.json not in (T.JsonKind.NUMBER, T.JsonKind.BOOL) for t in types):
            return None
        return types[0] if len(set(types)) == 1 else None

    def _scalar_fix(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                    depth: int) -> T.FixTemplate:
        """The fix for an array built by ``func``: ``int``/``float``/``bool(x)`` for ``array(3)``/``tensor(2.5)``, else ``x.tolist()``."""
        if func in ("array", "asarray", "tensor", "as_tensor"):
            scalar = self._scalar_argument(positional, keywords, depth)
            if scalar is not None and scalar.name in T.SCALAR_FIXES:  # a Python literal's kind fixes the dtype
                return T.SCALAR_FIXES[scalar.name]
        return T.TOLIST_FIX


#: the element type numpy gives arrays of Python ints (``np.arange(3)``, ``np.array([1, 2])``; numpy 2.5.5)
INT64 = T.NUMPY_INT.named("numpy.int64")


def _number_dtype(name: str) -> T.PyType | None:
    """The numpy number type of the ``dtype=`` ``name`` (a qualified name or a string: ``numpy.int32``,
    ``"int16"``, ``builtins.int`` for ``int64``, ``numpy.float32``, ``builtins.float`` for ``float64``),
    else ``None``."""
    if name == "builtins.int":
        return INT64
    if name == "builtins.float":
        return T.NUMPY_FLOAT64
    pytype = T.CALL_RESULTS.get(name if name.startswith("numpy.") else f"numpy.{name}")
    return pytype if pytype is not None and pytype.json is T.JsonKind.NUMBER and T.is_numpy_scalar(pytype) else None


def reshaped(receiver: Inferred, method: str) -> Inferred:
    """What ``a.<method>()`` of the numpy array ``receiver`` is (a method of :data:`SHAPE_METHODS`): an array
    of the same elements, of the same dtype except for ``astype``/``view`` (numpy 2.5.5: ``.ravel()``,
    ``.flatten()``, ``.reshape(-1)`` of an object array are object arrays of the same objects)."""
    if method not in _DTYPE_KEEPING:
        return Inferred(T.NUMPY_ARRAY)
    ndim = 1 if method in ("ravel", "flatten") else receiver.ndim if method == "copy" else None
    return Inferred(T.NUMPY_ARRAY, elements=receiver.elements, ndim=ndim, item=receiver.item)


def tolist(array: T.PyType) -> T.PyType:
    """``array`` with the ``.tolist()`` fix and the remedy that says so (never "use int(...)" beside a ``.tolist()`` fix)."""
    return replace(array, fix=T.TOLIST_FIX, remedy="use x.tolist()")


def _rejected_array(name: str) -> T.PyType:
    """A numpy array whose elements JAX's serializer rejects (complex, bytes, dates)."""
    return replace(T.NUMPY_ARRAY, name=name, json=None, remedy="convert the elements first")


def _shape_ndim(shape: cst.BaseExpression) -> int | None:
    """The ``ndim`` of ``np.zeros(shape)``: 1 for an int, the length of a tuple or list literal."""
    if int_constant(shape) is not None:
        return 1
    if isinstance(shape, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in shape.elements):
        return len(shape.elements)
    return None


def array_item(array: Inferred, expr: cst.Subscript) -> Inferred:
    """What indexing the numpy array ``array`` by ``expr`` gives.

    A slice gives an array. Integer indices, one per dimension of an array of known ``ndim``
    (``np.arange(4)[0]``; ``np.array(True)[()]`` for a 0-d one), give one element: a numpy scalar,
    of ``array.item``'s type when known (numpy 2.5.5: ``np.array([True, False])[1]`` is a
    ``numpy.bool``, ``np.arange(4)[0]`` a ``numpy.int64``). Anything else (``a[i]`` of an
    ndarray of unknown shape) may be either, so it is unknown: never claimed JSON-safe, since an
    element of a bool array is a ``numpy.bool_``.
    """
    indices = [e.slice for e in expr.slice]
    if len(indices) == 1 and isinstance(indices[0], cst.Index) and isinstance(indices[0].value, cst.Tuple) \
            and not indices[0].value.elements:
        indices = []  # a[()]
    if any(isinstance(i, cst.Slice) for i in indices):
        return Inferred(T.NUMPY_ARRAY)
    if array.ndim is not None and all(isinstance(i, cst.Index) and int_constant(i.value) is not None for i in indices):
        if len(indices) == array.ndim:
            return Inferred(array.item, numpy_scalar=True)
        if len(indices) < array.ndim:
            return Inferred(T.NUMPY_ARRAY, ndim=array.ndim - len(indices), item=array.item)
    return UNKNOWN


def structured_item(expr: cst.Subscript) -> Inferred:
    """What indexing a structured array gives: a ``numpy.void`` for an int, a field's array for a name."""
    index = expr.slice[0].slice if len(expr.slice) == 1 else None
    if isinstance(index, cst.Slice):
        return Inferred(T.STRUCTURED_ARRAY)
    if isinstance(index, cst.Index):
        if int_constant(index.value) is not None:
            return Inferred(T.NUMPY_VOID)
        if string_value(index.value) is not None:
            return Inferred(T.NUMPY_ARRAY)
    return UNKNOWN


def numpy_scalar_python_type(name: str) -> type | None:
    """The Python type a numpy scalar type compares like (``numpy.bool_`` -> ``bool``), else ``None``."""
    module, _, func = name.rpartition(".")
    if module != "numpy":
        return None
    if func in ("bool_", "bool"):
        return bool
    if func.startswith(("int", "uint")):
        return int
    if func.startswith("float") or func in ("double", "single", "half", "longdouble"):
        return float
    return None


def _flatten(exprs: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """Leaf elements of nested list/tuple literals (for ``np.array([[1, 2], [3, nan]])``)."""
    out: list[cst.BaseExpression] = []
    for expr in exprs:
        if isinstance(expr, (cst.List, cst.Tuple)):
            out.extend(_flatten([e.value for e in expr.elements if not isinstance(e, cst.StarredElement)]))
        else:
            out.append(expr)
    return out
