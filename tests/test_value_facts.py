"""The library facts the value folding models, measured on the real libraries (numpy 2.5.5, CPython 3.12).

Each test runs the library and compares with the model's table or with what the checker reports, so a
new numpy or Python that changes a fact fails here: complex-keeping ufuncs, NaN statistics of an empty
array, dtype strings of bytes and complex arrays, int64 array arithmetic, Fraction/Decimal arithmetic,
dict views under set operators, ``min``/``max`` of NaN and infinities, what ``json.loads``/``tomllib.loads``
give, and a numpy uint64 past the int64 range. The catalog's rows (uuid5, os.environ, configparser,
PartitionSpec...) are measured with real JAX in ``tests/test_catalog.py``.
"""

from __future__ import annotations

import datetime
import decimal
import fractions
import json
import math
import tomllib
import warnings

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.infer import arrays
from asynccfg_lint.analysis.jax_facts import reads_as_int64
from asynccfg_lint.run.selection import Selection

np = pytest.importorskip("numpy")

SINK = "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"


def _codes(body: str) -> list[str]:
    source = "import collections, json, math, tomllib, fractions, decimal\nimport numpy as np\n" + SINK + \
        "def rule(ctx, x):\n    return emit('t', ctx, x, {'v': " + body + "})\n"
    return [d.code for d in check_source(source.encode(), "facts.py", Selection())]


def test_complex_keeping_ufuncs_are_those_numpy_keeps_complex():
    from asynccfg_lint.analysis.type_verdicts import NUMPY_NUMBER_UFUNCS
    values = np.exp(1j * np.linspace(0, 1, 3))
    keeping = set()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for name in NUMPY_NUMBER_UFUNCS:
            ufunc = getattr(np, name)
            try:
                result = ufunc(values) if ufunc.nin == 1 else ufunc(values, values)
            except TypeError:
                continue
            if result.dtype.kind == "c":
                keeping.add(name)
    assert keeping == arrays.COMPLEX_KEEPING_UFUNCS
    assert type(np.exp(1j * np.linspace(0, np.pi, 4)).tolist()[0]) is complex  # rejected by JAX's hook
    assert _codes("np.exp(1j * np.linspace(0, np.pi, 4))") == ["ACC101"]
    assert _codes("np.abs(np.exp(1j * np.linspace(0, np.pi, 4)))") == []


@pytest.mark.parametrize("dtype, element", [("S1", bytes), ("|S2", bytes), ("c8", complex), ("<c16", complex),
                                            ("U1", str)])
def test_dtype_strings(dtype, element):
    assert type(np.zeros(1, dtype=dtype).tolist()[0]) is element
    rejected = element is not str
    assert bool(arrays._BYTES_CODE.fullmatch(dtype) or arrays._COMPLEX_CODE.fullmatch(dtype)) == rejected
    assert _codes(f"np.array(['a'], dtype={dtype!r})" if element is not complex else f"np.zeros(2, dtype={dtype!r})") \
        == (["ACC101"] if rejected else [])


@pytest.mark.parametrize("statistic", sorted(arrays.EMPTY_NAN_STATISTICS))
def test_statistics_of_an_empty_array_are_nan(statistic):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(float(getattr(np, statistic)(np.array([], dtype=np.float64))))
    assert _codes(f"np.{statistic}(np.array([], dtype=np.float64))") == ["ACC103"]
    assert _codes(f"np.{statistic}(np.array([1.0], dtype=np.float64))") == []


def test_sum_of_an_empty_array_is_zero():
    assert np.array([], dtype=np.float64).sum() == 0.0
    assert _codes("np.array([], dtype=np.float64).sum()") == []


def test_int64_array_arithmetic_with_ints_keeps_int64():
    for result in (np.arange(4) % 2, np.arange(4) + 1, np.arange(4) * 3, np.arange(4) // 2, np.arange(4) - 1):
        assert result.dtype == np.int64
        assert type(result[0]) is np.int64
    assert (np.arange(4) / 2).dtype == np.float64
    with pytest.raises(TypeError):
        json.dumps({np.int64(0): 1})
    assert _codes("collections.Counter(np.arange(4) % 2)") == ["ACC102"]


def test_fraction_and_decimal_arithmetic():
    third = fractions.Fraction(1, 3)
    assert type(third + 0) is type(0 - third) is type(third * True) is type(third / 2) is type(third % 2) is fractions.Fraction
    assert type(third // 2) is int and type(third + 0.5) is float
    one = decimal.Decimal(1)
    assert type(one + 1) is type(1 - one) is type(one / 3) is type(one % 2) is decimal.Decimal
    with pytest.raises(TypeError):
        one + 0.5
    assert _codes("fractions.Fraction(1, 3) + 0") == ["ACC101"]
    assert _codes("fractions.Fraction(1, 3) + 0.5") == []
    assert _codes("decimal.Decimal(1) / 3") == ["ACC101"]


def test_dict_views_under_set_operators_are_sets():
    sizes = {4: 1, 8: 2}
    for result in (sizes.keys() | {16}, sizes.keys() & {4}, sizes.keys() - {4}, sizes.items() | set()):
        assert type(result) is set
    assert _codes("{4: 1}.keys() | {16}") == ["ACC101"]
    assert _codes("sorted({4: 1}.keys() | {16})") == []


def test_min_and_max_of_known_numbers():
    assert min(math.inf, 4096.0) == 4096.0
    assert math.isnan(min(math.nan, 2)) and max(2, math.nan) == 2
    assert _codes("min(math.inf, 4096.0)") == []
    assert _codes("max(math.inf, 4096.0)") == ["ACC103"]
    assert _codes("min(float('nan'), 2)") == ["ACC103"]
    assert _codes("max(2, float('nan'))") == []


def test_what_json_and_tomllib_parse():
    assert math.isnan(json.loads('{"alpha": NaN}')["alpha"]) and json.loads("[Infinity]")[0] == math.inf
    assert type(tomllib.loads("stamp = 1979-05-27")["stamp"]) is datetime.date
    assert type(tomllib.loads("stamp = 1979-05-27T07:32:00")["stamp"]) is datetime.datetime
    assert type(tomllib.loads('stamp = "1979-05-27"')["stamp"]) is str
    assert _codes("""json.loads('{"alpha": NaN}')""") == ["ACC103"]
    assert _codes("""json.loads('[1, 2.5, "a", null, true]')""") == []
    assert _codes("""tomllib.loads('stamp = 1979-05-27')""") == ["ACC101"]
    assert _codes("""tomllib.loads('stamp = "1979-05-27"')""") == []
    assert _codes("""json.loads('{"alpha": ')""") == []  # raises before any config: nothing to report


def test_a_uint64_past_the_int64_range():
    value = np.uint64(2**64 - 1)
    assert isinstance(value, np.integer) and int(value) == 2**64 - 1 and not reads_as_int64(int(value))
    assert reads_as_int64(int(np.uint64(2**63 - 1)))
    source = "import numpy as np\n" + SINK + "def rule(ctx, x):\n    return emit('t', ctx, x, {'channel_id': %s})\n"
    for expression, codes in [("np.uint64(2**64 - 1)", ["ACC105"]), ("int(np.uint64(2**64 - 1))", ["ACC105"]),
                              ("np.uint64(2**63 - 1)", [])]:
        found = [d.code for d in check_source((source % expression).encode(), "facts.py", Selection())]
        assert found == codes, expression
