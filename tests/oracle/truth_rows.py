"""The rows of the team's truth table (``tests/oracle/truth_table.md`` sections 1, 2 and 5) as Python expressions.

Each :class:`Row` names the table row it stands for (its first cell, verbatim) and the
expression(s) that build its value. The linter reads a generated module: the imports, the
example classes the config names, and a lowering rule passing the config to the sink; the
oracle evaluates the same config text after the same imports and classes (:data:`PRELUDE`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

_IMPORTS = '''\
import collections
import dataclasses
import datetime
import decimal
import enum
import fractions
import pathlib
import types
from typing import NamedTuple

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax._src.interpreters import mlir
from jax._src.lax.parallel import _emit_async_start_custom_call
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import hlo
'''

#: the table's example classes
_CLASSES = '''\
class Color(enum.Enum):
    RED = 1
    BLUE = 2


class FlagE(enum.Flag):
    A = 1
    B = 2


class Priority(enum.IntEnum):
    HIGH = 2


class Speed(enum.StrEnum):
    FAST = "fast"


class Perm(enum.IntFlag):
    EXEC = 4


class Tiling(enum.Enum):
    ONE = 1


class IntTiling(enum.IntEnum):
    ONE = 1


class GlobalIds(enum.Enum):
    ON = True


class NumpyGlobalIds(enum.Enum):
    ON = np.bool_(True)


@dataclasses.dataclass
class DC:
    a: int = 1


class NT(NamedTuple):
    a: int
    b: int


class MyInt(int):
    pass


class MyFloat(float):
    pass


class MyStr(str):
    pass


class MyInt64(np.int64):
    pass


class Custom:
    pass


class HasIndex:
    def __index__(self):
        return 1


class HasInt:
    def __int__(self):
        return 1


class BadStr:
    def __str__(self):
        raise RuntimeError("__str__ exploded")


class NumpyHandle:
    def __init__(self):
        self.handle = np.int64(1)


class StrHandle:
    handle = "1"


class YesValue:
    value = "yes"
'''

#: imports and classes the oracle evaluates every config in
PRELUDE = f"{_IMPORTS}\n\n{_CLASSES}"


def _definitions(source: str) -> dict[str, str]:
    """Each top-level class of ``source`` (with its decorators) by name."""
    lines = source.splitlines()
    return {
        node.name: "\n".join(lines[min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1:node.end_lineno])
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef)
    }


_DEFINITIONS = _definitions(_CLASSES)


def prelude_for(code: str) -> str:
    """The imports and the classes ``code`` names: the head of a generated module (smaller is faster to check)."""
    used = [block for name, block in _DEFINITIONS.items() if re.search(rf"\b{name}\b", code)]
    return "\n\n\n".join([_IMPORTS.rstrip(), *used])


SINK_CALL = '_emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)'


@dataclass(frozen=True)
class Row:
    """One truth-table row.

    Attributes:
        label: the row's first cell in the table, verbatim.
        exprs: expressions for the row's value (several when the value has several spellings).
        key: the config key the value goes under (``v``, or a special key of section 2).
        whole_config: the value is itself a dict whose keys are being tested (the table's
            "dict with ... keys" rows): it is also passed as the whole config.
    """

    label: str
    exprs: tuple[str, ...]
    key: str = "v"
    whole_config: bool = False

    def forms(self, expr: str) -> dict[str, str]:
        """The configs built around ``expr``, by form name: at top level, in a list, in a dict.

        Rows of another key than ``v`` (section 2) also put that key one level down
        (``{"v": {key: expr}}``), where it is a plain key: JAX rewrites top-level keys only.
        """
        key = repr(self.key).replace("'", '"')
        forms = {
            "top": f"{{{key}: {expr}}}",
            "in list": f"{{{key}: [{expr}]}}",
            "in dict": f"{{{key}: {{\"k\": {expr}}}}}",
        }
        if self.key != "v":
            forms["nested key"] = f'{{"v": {{{key}: {expr}}}}}'
        if self.whole_config:
            forms["as config"] = expr
        return forms


def _rows(key: str, table: list[tuple[str, str | tuple[str, ...]]], whole_config: bool = False) -> list[Row]:
    return [Row(label, (exprs,) if isinstance(exprs, str) else exprs, key, whole_config) for label, exprs in table]


SECTION_1_KEYS = _rows("v", [
    ("dict with int keys (`dict`)", '{1: "a", 2: "b"}'),
    ("dict with float key (`dict`)", '{1.5: "a"}'),
    ("dict with bool/None keys (`dict`)", "{True: 1, None: 2}"),
    ("dict with tuple keys (`dict`)", '{(0, 1): "a"}'),
    ("dict with frozenset key (`dict`)", '{frozenset({1, 2}): "a"}'),
    ("dict with np.int64 key (`dict`)", '{np.int64(1): "a"}'),
    ("dict with np.float64 key (`dict`)", '{np.float64(1.0): "a"}'),
    ("dict with np.str_ key (`dict`)", '{np.str_("a"): 1}'),
    ("dict with IntEnum key (`dict`)", "{Priority.HIGH: 1}"),
    ("dict with Enum key (`dict`)", "{Color.RED: 1}"),
    ("dict with bytes key (`dict`)", '{b"k": 1}'),
], whole_config=True)

SECTION_1_VALUES = _rows("v", [
    ("int (`int`)", "3"),
    ("float (`float`)", "1.5"),
    ("bool (`bool`)", "True"),
    ("None (`NoneType`)", "None"),
    ("str (`str`)", '"ring"'),
    ("list of int (`list`)", "[1, 2]"),
    ("tuple of int (`tuple`)", "(1, 2)"),
    ("nested dict (`dict`)", '{"a": {"b": 1}}'),
    ("set (`set`)", ("{1, 2}", "set([1, 2])")),
    ("frozenset (`frozenset`)", "frozenset({1, 2})"),
    ("bytes (`bytes`)", 'b"ab"'),
    ("bytearray (`bytearray`)", 'bytearray(b"ab")'),
    ("complex (`complex`)", ("1 + 2j", "complex(1, 2)")),
    ("Decimal (`decimal.Decimal`)", 'decimal.Decimal("1.5")'),
    ("Fraction (`fractions.Fraction`)", "fractions.Fraction(1, 3)"),
    ("range (`range`)", "range(3)"),
    ("pathlib.Path (`pathlib.PosixPath`)", 'pathlib.Path("/tmp/x")'),
    ("datetime (`datetime.datetime`)", "datetime.datetime(2026, 1, 1)"),
    ("enum.Enum member (`Enum`)", "Color.RED"),
    ("enum.Flag member (`Flag`)", ("FlagE.A", "FlagE.A | FlagE.B")),
    ("enum.IntEnum member (`IntEnum`)", "Priority.HIGH"),
    ("enum.StrEnum member (`StrEnum`)", "Speed.FAST"),
    ("enum.IntFlag member (`IntFlag`)", "Perm.EXEC"),
    ("dataclass instance (`dataclass`)", "DC()"),
    ("NamedTuple (`NamedTuple`)", "NT(1, 2)"),
    ("int subclass (`int subclass`)", "MyInt(3)"),
    ("float subclass (`float subclass`)", "MyFloat(1.5)"),
    ("str subclass (`str subclass`)", 'MyStr("s")'),
    ("np.int8 (`numpy.int8`)", "np.int8(3)"),
    ("np.int16 (`numpy.int16`)", "np.int16(3)"),
    ("np.int32 (`numpy.int32`)", "np.int32(3)"),
    ("np.int64 (`numpy.int64`)", "np.int64(3)"),
    ("np.uint8 (`numpy.uint8`)", "np.uint8(3)"),
    ("np.uint16 (`numpy.uint16`)", "np.uint16(3)"),
    ("np.uint32 (`numpy.uint32`)", "np.uint32(3)"),
    ("np.uint64 (`numpy.uint64`)", "np.uint64(18446744073709551615)"),
    ("np.float16 (`numpy.float16`)", "np.float16(1.5)"),
    ("np.float32 (`numpy.float32`)", "np.float32(1.5)"),
    ("np.float64 (`numpy.float64`)", "np.float64(1.5)"),
    ("np.longdouble (`numpy.longdouble`)", "np.longdouble(1.5)"),
    ("ml_dtypes.bfloat16 scalar (`ml_dtypes.bfloat16`)", "ml_dtypes.bfloat16(1.5)"),
    ("np.bool_ (`numpy.bool`)", "np.bool_(True)"),
    ("np.complex64 (`numpy.complex64`)", "np.complex64(1 + 2j)"),
    ("np.str_ (`numpy.str_`)", 'np.str_("ab")'),
    ("np.bytes_ (`numpy.bytes_`)", 'np.bytes_(b"ab")'),
    ("np.datetime64 (`numpy.datetime64`)", 'np.datetime64("2026-01-01")'),
    ("np.timedelta64 (unit s) (`numpy.timedelta64`)", 'np.timedelta64(5, "s")'),
    ("np.timedelta64 (unit ns) (`numpy.timedelta64`)", 'np.timedelta64(5, "ns")'),
    ("np.void (structured scalar) (`numpy.void`)",
     ('np.zeros(1, dtype=[("a", "i4"), ("b", "f8")])[0]', 'np.void(b"\\x00\\x00")')),
    ("0-d np.ndarray (int) (`numpy.ndarray`)", "np.array(3)"),
    ("1-d np.ndarray (int) (`numpy.ndarray`)", ("np.array([1, 2])", "np.arange(2)")),
    ("np.ndarray of bool (`numpy.ndarray`)", "np.array([True, False])"),
    ("np.ndarray of str (`numpy.ndarray`)", 'np.array(["a", "b"])'),
    ("np.ndarray of bytes (`numpy.ndarray`)", 'np.array([b"a", b"b"])'),
    ("np.ndarray of complex (`numpy.ndarray`)", ("np.array([1 + 1j, 2])", "np.array([1, 2], dtype=complex)")),
    ("np.ndarray of datetime64 (`numpy.ndarray`)", 'np.array(["2026-01-01"], dtype="datetime64[D]")'),
    ("structured np.ndarray (`numpy.ndarray`)", 'np.zeros(2, dtype=[("a", "i4"), ("b", "f8")])'),
    ("object ndarray w/ custom obj (`numpy.ndarray`)", "np.array([Custom()], dtype=object)"),
    ("object ndarray w/ ints (`numpy.ndarray`)", "np.array([1, 2], dtype=object)"),
    ("np.ndarray with NaN (`numpy.ndarray`)", "np.array([1.0, np.nan])"),
    ("np.matrix (`numpy.matrix`)", "np.matrix([[1, 2]])"),
    ("np.ma masked array (`numpy.ma.MaskedArray`)", "np.ma.masked_array([1, 2], mask=[False, True])"),
    ("numpy int scalar subclass (`MyInt64(np.int64)`)", "MyInt64(3)"),
    ("np.dtype (`numpy.dtypes.Float32DType`)", ('np.dtype("float32")', "np.arange(2, dtype=np.float32).dtype")),
    ("jax.Array jnp.array([1,2]) (`jaxlib ArrayImpl`)", "jnp.array([1, 2])"),
    ("jax.Array jnp.int32(3) (`jaxlib ArrayImpl`)", "jnp.int32(3)"),
    ("jax.Array jnp.bfloat16(1) (`jaxlib ArrayImpl`)", "jnp.bfloat16(1)"),
    ("float('nan') (`float`)", ('float("nan")', "np.nan")),
    ("float('inf') (`float`)", ('float("inf")', "1e309", 'float("1e309")', "np.inf")),
    ("float('-inf') (`float`)", ('float("-inf")', "-np.inf", 'float("-1e999")')),
    ("np.float64('nan') (`numpy.float64`)", 'np.float64("nan")'),
    ("np.float32('inf') (`numpy.float32`)", 'np.float32("inf")'),
    ("list containing NaN (`list`)", '[1.0, float("nan")]'),
    ("class with __index__ (`HasIndex`)", "HasIndex()"),
    ("class with __int__ (`HasInt`)", "HasInt()"),
    ("object whose __str__ raises (`BadStr`)", "BadStr()"),
    ("mappingproxy (`types.MappingProxyType`)", 'types.MappingProxyType({"a": 1})'),
    ("collections.OrderedDict (`OrderedDict`)", "collections.OrderedDict(a=1)"),
    ("collections.defaultdict (`defaultdict`)", 'collections.defaultdict(list, {"a": 1})'),
    ("collections.Counter (`Counter`)", 'collections.Counter("aab")'),
    ("collections.UserDict (`UserDict`)", "collections.UserDict(a=1)"),
    ("collections.deque (`deque`)", "collections.deque([1, 2])"),
    ("generator (`generator`)", "(i for i in range(2))"),
    ("dict_keys view (`dict_keys`)", '{"a": 1}.keys()'),
    ("map object (`map`)", 'map(int, "12")'),
    ("int with 5000 digits (`int`)", "10**5000"),
    ("int 2**70 (`int`)", ("2**70", "1180591620717411303424")),
    ("ir.BoolAttr (outside use_global_device_ids) (`jaxlib.mlir ir.BoolAttr`)", "ir.BoolAttr.get(True)"),
    ("hlo.ChannelHandle (outside channel_handle) (`hlo.ChannelHandle`)",
     "hlo.ChannelHandle.get(1, mlir.DEVICE_TO_DEVICE_TYPE)"),
    ("jax Mesh axis_names (`tuple[str]`)", '("i",)'),
])

SECTION_2 = [
    *_rows("channel_handle", [
        ("`channel_handle = hlo.ChannelHandle`", "hlo.ChannelHandle.get(1, mlir.DEVICE_TO_DEVICE_TYPE)"),
        ("`channel_handle = int 1`", "1"),
        ("`channel_handle = np.int64(1)`", "np.int64(1)"),
        ("`channel_handle = None`", "None"),
        ("`channel_handle = object with .handle=np.int64`", "NumpyHandle()"),
        ("`channel_handle = object with .handle='1'`", "StrHandle()"),
        ("`channel_handle = dict {'handle': 1}`", '{"handle": 1}'),
    ]),
    *_rows("use_global_device_ids", [
        ("`use_global_device_ids = ir.BoolAttr(True)`", "ir.BoolAttr.get(True)"),
        ("`use_global_device_ids = True`", "True"),
        ("`use_global_device_ids = np.bool_(True)`", "np.bool_(True)"),
        ("`use_global_device_ids = 1`", "1"),
        ("`use_global_device_ids = None`", "None"),
        ("`use_global_device_ids = Enum with .value=True`", "GlobalIds.ON"),
        ("`use_global_device_ids = Enum with .value=np.bool_`", "NumpyGlobalIds.ON"),
        ("`use_global_device_ids = ir.IntegerAttr i64 1`", "ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)"),
        ("`use_global_device_ids = object .value='yes'`", "YesValue()"),
    ]),
    *_rows("channel_id", [("`channel_id = int 1 (plain key, no special handling)`", "1")]),
]

ROWS: list[Row] = [*SECTION_1_KEYS, *SECTION_1_VALUES, *SECTION_2]

#: section 1-2 rows that no module expression can build, and why
NOT_EXPRESSIBLE: dict[str, str] = {
    "circular list (`list`)": "a list that contains itself needs a statement (x.append(x)), not an expression",
    "jax tracer (leaked from trace time into cfg) (`DynamicJaxprTracer`)":
        "a tracer exists only while JAX traces a function; no module-level expression is one",
}

#: section 5: the ``tiled`` values passed to ``jax.lax.psum_scatter_start`` (table spelling -> expression)
TILED_VALUES: dict[str, str] = {
    "`True`": "True",
    "`np.bool_(True)`": "np.bool_(True)",
    "`1`": "1",
    "`np.int64(1)`": "np.int64(1)",
    "`IntEnum.ONE`": "IntTiling.ONE",
    "`Enum.ONE`": "Tiling.ONE",
    "`'yes'`": '"yes"',
    "`jnp.bool_(True)`": "jnp.bool_(True)",
    "`np.array(True)`": "np.array(True)",
    "`1.0`": "1.0",
}


def config_module(cfg: str) -> str:
    """A module that builds ``cfg = <cfg>`` in a lowering rule and passes it to the sink."""
    return f"{prelude_for(cfg)}\n\n\ndef lowering(ctx, x):\n    cfg = {cfg}\n    return {SINK_CALL}\n"


def tiled_module(value: str) -> str:
    """A module that calls ``jax.lax.psum_scatter_start`` with ``tiled=<value>`` under ``shard_map``."""
    return (f"{prelude_for(value)}\n\n\ndef body(x):\n"
            f'    return jax.lax.psum_scatter_start(x, "i", scatter_dimension=0, tiled={value}).done()\n')
