"""Number folding: the values of int and float constant expressions, as JAX's serializer would see them.

``2**70`` and ``1 << 70`` matter under XLA's int64 keys (:func:`~asynccfg_lint.analysis.jax_facts.reads_as_int64`);
``np.float32("1e39")`` is infinity, and so is ``float("1e308") * 10`` (ACC103). Ints longer than Python prints
(``INT_MAX_STR_DIGITS``, jax 0.12.0.1's ``json.dumps`` raises) are clamped to a stand-in.
"""

from __future__ import annotations

import math
import operator
import struct
import warnings

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.values import Inferred
from asynccfg_lint.analysis.jax_facts import INT_MAX_STR_DIGITS, reads_as_int64

#: float constructors -> the ``struct`` format of their width when narrower than a double
#: (``np.float32("1e39")`` is infinity; JAX's hook then emits ``float(x)``)
FLOAT_CONSTRUCTORS: dict[str, str | None] = {
    "builtins.float": None,
    "numpy.float64": None,
    "numpy.double": None,
    "numpy.float_": None,
    "numpy.longdouble": None,  # converted with float() by _json_default: past a double's range it is infinity
    "numpy.float32": "f",
    "numpy.single": "f",
    "numpy.float16": "e",
    "numpy.half": "e",
}


#: ints at least this large have more than INT_MAX_STR_DIGITS digits: json.dumps cannot print them.
_UNPRINTABLE_INT = 10**INT_MAX_STR_DIGITS


#: constant folding stops above this many bits; larger results are only known to be unprintable.
_MAX_FOLD_BITS = 16 * INT_MAX_STR_DIGITS  # ~3.3 bits per decimal digit: far past the print limit


_INT_OPERATORS = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
}


def int_constant(expr: cst.BaseExpression) -> int | None:
    """The value of an int constant expression (literals, unary -/+, ``+ - * ** <<``), else ``None``.

    ``2**70`` and ``1 << 70`` matter under XLA's int64 keys. Results too long to compute
    cheaply are clamped to a stand-in with the right sign that is still too long to print.
    """
    if isinstance(expr, cst.Integer):
        text = expr.value.replace("_", "").lower()
        if not text.startswith(("0x", "0o", "0b")) and len(text) > INT_MAX_STR_DIGITS:
            return _UNPRINTABLE_INT  # int() would refuse the text itself
        return int(text, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = int_constant(expr.expression)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if not isinstance(expr, cst.BinaryOperation) or type(expr.operator) not in _INT_OPERATORS:
        return None
    left, right = int_constant(expr.left), int_constant(expr.right)
    if left is None or right is None:
        return None
    if isinstance(expr.operator, (cst.Power, cst.LeftShift)):
        if right < 0:
            return None  # a float, or ValueError
        if isinstance(expr.operator, cst.Power):
            trivial, bits = abs(left) <= 1, left.bit_length() * right  # 0**n, 1**n, (-1)**n stay small
        else:
            trivial, bits = left == 0, left.bit_length() + right
        if not trivial and bits > _MAX_FOLD_BITS:
            negative = left < 0 and (isinstance(expr.operator, cst.LeftShift) or right % 2 == 1)
            return -_UNPRINTABLE_INT if negative else _UNPRINTABLE_INT
    result = _INT_OPERATORS[type(expr.operator)](left, right)
    if result.bit_length() > _MAX_FOLD_BITS:
        return _UNPRINTABLE_INT if result > 0 else -_UNPRINTABLE_INT
    return result


def int_inferred(value: int) -> Inferred:
    """What an int of known ``value`` is: unprintable past 4300 digits (ValueError), else an int (with its value)."""
    if abs(value) >= _UNPRINTABLE_INT:
        return Inferred(T.rejected(f"int with more than {INT_MAX_STR_DIGITS} digits", "keep ints in the int64 range"))
    return Inferred(T.INT, beyond_int64=not reads_as_int64(value), number=value)


#: the binary (and augmented) operators float arithmetic is folded for
_FLOAT_OPERATORS = {
    cst.Add: operator.add, cst.AddAssign: operator.add,
    cst.Subtract: operator.sub, cst.SubtractAssign: operator.sub,
    cst.Multiply: operator.mul, cst.MultiplyAssign: operator.mul,
    cst.Divide: operator.truediv, cst.DivideAssign: operator.truediv,
    cst.FloorDivide: operator.floordiv, cst.FloorDivideAssign: operator.floordiv,
    cst.Modulo: operator.mod, cst.ModuloAssign: operator.mod,
    cst.Power: operator.pow, cst.PowerAssign: operator.pow,
}


def float_operation(op: cst.BaseBinaryOp | cst.BaseAugOp, left: int | float, right: int | float) -> float | None:
    """``left <op> right`` as Python computes it when the result is a float (an operand is a float, or ``/``).

    IEEE doubles: ``1e308 * 10`` is ``inf``, ``inf - inf`` is ``nan``. ``None`` when the operator is
    not folded, the result is an int or a complex (``(-8.0) ** (1 / 3)``), or Python raises
    (``10.0 ** 400``: OverflowError; ``1.0 / 0``: ZeroDivisionError): no value reaches the config.
    """
    function = _FLOAT_OPERATORS.get(type(op))
    if function is None or not (isinstance(left, float) or isinstance(right, float) or function is operator.truediv):
        return None
    try:
        result = function(left, right)
    except (OverflowError, ZeroDivisionError, ValueError):
        return None
    return result if isinstance(result, float) else None


def parse_float(text: str, width: str | None) -> float | None:
    """The value a float constructor makes of the string ``text``; ``None`` when it is not a number.

    ``width`` is the ``struct`` format of a type narrower than a double: a value past its
    largest finite number becomes an infinity, as numpy rounds it.
    """
    try:
        value = float(text)
    except ValueError:
        return None
    if width is not None and math.isfinite(value):
        try:
            return struct.unpack(width, struct.pack(width, value))[0]  # "f" rounds past the range to inf
        except OverflowError:  # "e" raises instead
            return math.copysign(math.inf, value)
    return value


def decimal_float(text: str) -> float | None:
    """``float(decimal.Decimal(text))`` as Python computes it (``"NaN"`` is nan, ``"1e400"`` is inf: the
    value a fix ``float(x)`` of a Decimal gives); ``None`` when the Decimal or the conversion raises
    (``"sNaN"``, a string that is no number)."""
    import decimal  # noqa: PLC0415 - only for a Decimal of a string literal

    try:
        return float(decimal.Decimal(text))
    except (ArithmeticError, ValueError):
        return None


def int_of(number: object) -> Inferred | None:
    """``int(number)`` of a known Python or numpy number (``int(np.uint64(2**64 - 1))``); ``None`` when it
    raises (a NaN or an infinity) or ``number`` is no real number."""
    if isinstance(number, (bool, complex, str)):
        return None
    try:
        return int_inferred(int(number))
    except (ArithmeticError, ValueError, TypeError):
        return None


def float_inferred(pytype: T.PyType, value: float) -> Inferred:
    """What a float of known ``value`` is: non-finite (ACC103), or maybe too large for XLA's integer keys."""
    number = value if pytype is T.FLOAT else None  # (numpy floats compute otherwise: np.float64(10.0) ** 400 is inf)
    if math.isinf(value) or math.isnan(value):
        return Inferred(pytype, nonfinite=True, number=number)
    return Inferred(pytype, beyond_int64=not reads_as_int64(value), number=number)


def _numpy():
    """numpy, imported when a numpy number is first folded (it is not a dependency); ``None`` without it."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def numpy_inferred(value: object) -> Inferred | None:
    """What the numpy scalar ``value`` (computed by numpy itself) is: its own type (``numpy.float32``,
    ``numpy.float64``...), non-finite when ``float(value)`` is (JAX's ``_json_default`` calls ``float``:
    a ``longdouble`` past a double's range is infinity), with the value kept for further folding.
    ``None`` for anything but a numpy number."""
    numpy = _numpy()
    if numpy is None or not isinstance(value, numpy.number):
        return None
    pytype = T.CALL_RESULTS.get(f"numpy.{type(value).__name__}")
    if pytype is None or pytype.json is not T.JsonKind.NUMBER:  # a complex number: its own verdict, no value
        return Inferred(pytype) if pytype is not None else None
    if isinstance(value, numpy.integer):  # converted with int(v): np.uint64(2**64 - 1) aborts XLA under an int64 key
        return Inferred(pytype, beyond_int64=not reads_as_int64(int(value)), number=value)
    with numpy.errstate(all="ignore"):
        as_float = float(value)
    if math.isinf(as_float) or math.isnan(as_float):
        return Inferred(pytype, nonfinite=True, number=value)
    return Inferred(pytype, beyond_int64=not reads_as_int64(as_float), number=value)


def _numpy_computed(compute) -> Inferred | None:
    """``compute(numpy)`` (a numpy scalar) as :func:`numpy_inferred` sees it, numpy's warnings silenced;
    ``None`` without numpy or when numpy raises (no value reaches the config then)."""
    numpy = _numpy()
    if numpy is None:
        return None
    try:
        with numpy.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return numpy_inferred(compute(numpy))
    except (ArithmeticError, ValueError, TypeError, AttributeError):
        return None


#: numpy integer constructors (``np.uint64(2**64 - 1)`` keeps its value; ``np.int64(2**64)`` raises)
INT_CONSTRUCTORS = frozenset(name for name, pytype in T.CALL_RESULTS.items()
                             if name.startswith("numpy.") and pytype.name == name and pytype.key_fix is T.INT_FIX)


def numpy_scalar(qualname: str, argument: int | float | str | object) -> Inferred | None:
    """``numpy.<type>(argument)`` (``qualname`` a numpy float constructor of :data:`FLOAT_CONSTRUCTORS` or an
    integer one of :data:`INT_CONSTRUCTORS`) as numpy computes it: ``np.float32(1e39)`` is ``inf`` (float32
    rounding and overflow), ``np.float64("nan")`` a NaN, ``np.uint64(2**64 - 1)`` that int."""
    name = qualname.rpartition(".")[2]
    return _numpy_computed(lambda numpy: getattr(numpy, name)(argument))


def numpy_operation(op: cst.BaseBinaryOp | cst.BaseAugOp, left: object, right: object) -> Inferred | None:
    """``left <op> right`` where an operand is a numpy scalar, as numpy computes it (its promotion and IEEE
    arithmetic: ``np.finfo(np.float32).max * np.float32(2)`` is a float32 ``inf``, ``np.float64(0) / np.float64(0)``
    a NaN, where Python would raise). ``None`` when the operator is not folded or numpy raises."""
    function = _FLOAT_OPERATORS.get(type(op))
    return _numpy_computed(lambda numpy: function(left, right)) if function is not None else None


def numpy_ufunc(name: str, arguments: list[object]) -> Inferred | None:
    """``numpy.<name>(*arguments)`` (a ufunc of :data:`~asynccfg_lint.analysis.type_verdicts.NUMPY_NUMBER_UFUNCS`)
    of known numbers, called: ``np.log(0.0)`` is ``-inf``. ``None`` when numpy raises or gives no number."""
    return _numpy_computed(lambda numpy: getattr(numpy, name)(*arguments))


#: the attributes of ``np.finfo(t)`` that are numbers of ``t`` (numpy 2.5.5: numpy scalars of ``t``)
FINFO_NUMBERS = frozenset({"max", "min", "tiny", "eps", "epsneg", "smallest_normal", "smallest_subnormal",
                           "resolution"})
#: the attributes of ``np.iinfo(t)`` that are its bounds (numpy 2.5.5: Python ints)
IINFO_NUMBERS = frozenset({"min", "max"})


def finfo_number(dtype: str, attribute: str) -> Inferred | None:
    """``np.finfo(numpy.<dtype>).<attribute>`` (an attribute of :data:`FINFO_NUMBERS`), read from numpy."""
    return _numpy_computed(lambda numpy: getattr(numpy.finfo(getattr(numpy, dtype)), attribute))


def iinfo_number(dtype: str, attribute: str) -> Inferred | None:
    """``np.iinfo(numpy.<dtype>).<attribute>`` (an attribute of :data:`IINFO_NUMBERS`), read from numpy: a Python
    int (``np.iinfo(np.uint64).max`` is ``2**64 - 1``, which XLA cannot read as an int64). ``None`` without numpy
    or for a ``dtype`` numpy does not have (``int4`` is ml_dtypes')."""
    numpy = _numpy()
    try:
        return int_inferred(int(getattr(numpy.iinfo(getattr(numpy, dtype)), attribute))) if numpy is not None else None
    except (ValueError, TypeError, AttributeError):
        return None


#: ``math`` functions folded by calling them: pure, and cheap whatever the numbers (not ``factorial``/``comb``/``perm``)
FOLDED_MATH = frozenset(name for name in T.CALL_RESULTS if name.startswith("math.")) - {
    "math.prod", "math.factorial", "math.comb", "math.perm"}


def math_call(function: str, arguments: list[int | float]) -> Inferred | None:
    """``function(*arguments)`` (a qualified name of :data:`FOLDED_MATH`) of known numbers, called: ``math.ldexp(1.0, 1023)``.

    ``None`` when it raises (``math.exp(1000)``: OverflowError; a domain error): no value then.
    """
    try:
        result = getattr(math, function.rpartition(".")[2])(*arguments)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(result, bool):
        return Inferred(T.BOOL)
    if isinstance(result, int):
        return int_inferred(result)
    return float_inferred(T.FLOAT, result) if isinstance(result, float) else None
