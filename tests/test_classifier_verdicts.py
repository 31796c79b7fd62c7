"""Verdict details the fixture modules cannot show (they pin positions and codes, not messages or boundaries).

The boundaries were measured with the oracle (``tests/oracle/``) against XLA of jax 0.12.0.1.
"""

from __future__ import annotations

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.jax_facts import reads_as_int64
from tests.frontend_runs import SINK_IMPORT

MODULE = SINK_IMPORT + """import enum


class Access(enum.Flag):
    READ = 1


class Color(enum.Enum):
    RED = 1


def lowering(ctx, x):
    emit("all-gather-start", ctx, x, {"flag": Access.READ, "color": Color.RED, Access.READ: 1})
"""


def test_flag_and_enum_members_are_named_as_what_they_are():
    messages = [d.message for d in check_source(MODULE, "m.py")]
    assert messages == [
        'value for key "flag" is enum.Flag member Access, which JAX cannot serialize to JSON: lowering raises '
        "ValueError; use x.value",
        'value for key "color" is enum.Enum member Color, which JAX cannot serialize to JSON: lowering raises '
        "ValueError; use x.value (or x.name)",
        "config key is enum.Flag member Access, which json cannot use as a key: lowering raises TypeError (keys must "
        "be str, int, float, bool or None); use k.value",
    ]


@pytest.mark.parametrize(("number", "reads"), [
    (2**63 - 1, True), (2**63, False), (2**64 - 1, False), (2**64, False), (2**70, False),
    (-(2**63), True), (-(2**63) - 1, True), (-(2**63) - 1024, True), (-(2**63) - 1025, False), (-(2**64), False),
    (1e18, True), (float(2**63), True), (9.3e18, False), (1e19, False), (-1e19, False), (0.5, True),
    (10**400, False),
])
def test_which_numbers_xla_reads_as_int64(number, reads):
    assert reads_as_int64(number) is reads


@pytest.mark.parametrize(("expression", "codes"), [
    ("float('1e308') * 10", {"ACC103"}),  # inf
    ("BIG * BIG", {"ACC103"}),  # inf, through a module constant
    ("BIG * 10 - BIG * 10", {"ACC103"}),  # inf - inf is nan
    ("-BIG * 10", {"ACC103"}),  # -inf
    ("math.inf * 0", {"ACC103"}),  # nan
    ("float('1e308') / 10", set()),
    ("BIG + -BIG", set()),  # 0.0: the negation is folded too
    ("abs(-BIG) + BIG", {"ACC103"}),  # inf: so is abs
    ("BIG * 0.5 + BIG * 0.5", set()),  # 1e308
    ("1 / math.inf", set()),  # 0.0
    ("10.0 ** 400", set()),  # Python raises OverflowError: no value reaches the config
    ("2.0 ** 0.5 * BIG * 2", {"ACC103"}),  # inf (2.0 ** 0.5 * BIG alone is finite)
])
def test_float_arithmetic_is_folded_as_python_computes_it(expression, codes):
    """ACC103 exactly where Python's own arithmetic gives an infinity or a NaN (IEEE doubles)."""
    import math
    try:
        value = eval(expression, {"math": math, "BIG": 1e308})  # noqa: S307 - the fixture's own expression
    except OverflowError:
        value = None
    assert (isinstance(value, float) and not math.isfinite(value)) is ("ACC103" in codes)
    source = SINK_IMPORT + f"import math\nBIG = 1e308\n\ndef lowering(ctx, x):\n    emit('t', ctx, x, {{'v': {expression}}})\n"
    assert {d.code for d in check_source(source, "m.py")} == codes


@pytest.mark.parametrize("expression", [
    "np.float32(1e39)", "np.float32('1e39')", "np.float64(1e39)", "np.float16(70000)", "np.float16(60000)",
    "np.finfo(np.float32).max * np.float32(2)", "np.finfo(np.float32).max * 2.0 ** -1", "np.finfo('float32').max * 2",
    "np.finfo(np.float64).max * 2", "np.finfo(float).max + np.finfo(float).max", "np.finfo(np.float16).tiny / 2",
    "np.float64(0) / np.float64(0)", "np.float64(1) / np.float64(0)", "np.float64(0) / 4", "-np.float32(1e38) * 10",
    "np.float32(3.0) ** 200", "np.float64(10.0) ** 400", "np.float32(1e38) * 3 - np.float32(1e38) * 3",
    "np.longdouble(1e308) * 10", "math.ldexp(1.0, 1023) * 2", "math.ldexp(1.0, 1022) * 2", "math.exp(709)",
    "math.exp(709) * 2", "math.pow(10.0, 308) * 10", "math.hypot(1e308, 1e308)", "math.fmod(1.0, 0.0)",
    "jnp.finfo(jnp.float32).max * 2", "jnp.finfo(np.float64).max * 2", "ml_dtypes.finfo(np.float32).max * 2",
    "jnp.finfo(jnp.float32).max / 2", "np.finfo(np.float32).smallest_subnormal / 2",
    "np.finfo(np.float32).smallest_subnormal * np.float32(2) ** 200",
])
def test_numpy_and_math_numbers_are_folded_as_numpy_and_python_compute_them(expression):
    """ACC103 exactly where real numpy (float32 rounding and overflow, IEEE division) or ``math`` gives an
    infinity or a NaN; where Python raises (``math.fmod(1.0, 0.0)``, ``math.exp(1000)``) no value is folded."""
    import math
    import warnings

    import numpy as np
    jnp = pytest.importorskip("jax.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = eval(expression, {"math": math, "np": np, "jnp": jnp, "ml_dtypes": ml_dtypes})  # noqa: S307
        except (ArithmeticError, ValueError):
            value = None
        nonfinite = value is not None and not math.isfinite(float(value))
    source = SINK_IMPORT + ("import math\nimport numpy as np\nimport jax.numpy as jnp\nimport ml_dtypes\n\n"
                            f"def lowering(ctx, x):\n    emit('t', ctx, x, {{'v': {expression}}})\n")
    assert {d.code for d in check_source(source, "m.py")} == ({"ACC103"} if nonfinite else set())


@pytest.mark.parametrize("expression", [
    "np.iinfo(np.uint64).max", "np.iinfo(np.int64).max", "np.iinfo(np.int64).min", "np.iinfo('uint64').max",
    "np.iinfo(int).max", "np.iinfo(np.uint32).max", "jnp.iinfo(jnp.uint64).max", "ml_dtypes.iinfo(np.uint64).max",
])
def test_iinfo_bounds_are_folded_as_numpy_gives_them(expression):
    """``iinfo(t).max``/``.min`` are Python ints (numpy 2.5.5, ml_dtypes 0.7.0, also ``jnp.iinfo``): under an int64
    key XLA reads, ACC105 exactly where XLA cannot read the bound as an int64 (``np.iinfo(np.uint64).max``)."""
    import numpy as np
    jnp = pytest.importorskip("jax.numpy")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    value = eval(expression, {"np": np, "jnp": jnp, "ml_dtypes": ml_dtypes})  # noqa: S307 - the test's own expression
    assert type(value) is int
    source = SINK_IMPORT + ("import numpy as np\nimport jax.numpy as jnp\nimport ml_dtypes\n\n"
                            f"def lowering(ctx, x):\n    emit('t', ctx, x, {{'channel_id': {expression}}})\n")
    assert {d.code for d in check_source(source, "m.py")} == (set() if reads_as_int64(value) else {"ACC105"})


def test_numpy_float_keys_are_fixed_with_float_not_int():
    """``int(k)`` would merge the float32 keys 0.25 and 0.75 into 0: the remedy and the safe fix are ``float(k)``
    (a float32 or float16 widens to a double exactly); a longdouble's ``float(k)`` may merge keys: unsafe."""
    import numpy as np
    assert float(np.float32(0.25)) != float(np.float32(0.75)) and int(np.float32(0.25)) == int(np.float32(0.75))
    source = SINK_IMPORT + ("import numpy as np\nW = np.array([0.25, 0.75], dtype=np.float32)\n\ndef lowering(ctx, x):\n"
                            "    emit('t', ctx, x, {'w': {w: i for i, w in enumerate(W)}, 'h': {np.float16(0.5): 1},"
                            " 'l': {np.longdouble(0.5): 1}})\n")
    found = [(d.message.rpartition("; ")[2], d.fix.replacement, d.fix.safety)
             for d in check_source(source, "m.py", with_fixes=True)]
    assert found == [("use float(k)", "float(w)", "safe"), ("use float(k)", "float(np.float16(0.5))", "safe"),
                     ("use float(k)", "float(np.longdouble(0.5))", "unsafe")]


def test_keys_taken_from_an_array_get_no_fix_of_the_whole_array():
    """``dict.fromkeys(W, 0)`` and ``dict(zip(W, ...))`` of a float32 array: ACC102 at ``W``, but ``float(W)``
    would convert the array (TypeError for more than one element), so no fix is offered."""
    source = SINK_IMPORT + ("import numpy as np\nW = np.array([0.25, 0.75], dtype=np.float32)\n\ndef lowering(ctx, x):\n"
                            "    emit('t', ctx, x, {'w': dict.fromkeys(W, 0), 'z': dict(zip(W, [1, 2]))})\n")
    found = [(d.code, d.column, d.fix) for d in check_source(source, "m.py", with_fixes=True)]
    assert found == [("ACC102", 43, None), ("ACC102", 64, None)]


_COMPUTED_PRELUDE = """import enum
import functools
import operator
import typing

import numpy as np


class Mode(enum.Enum):
    PUSH = "push"


class Feature(enum.Flag):
    A = 1
    B = 2


W = np.linspace(0.0, 1.0, 4)
FLAGS = np.array([True, False])
"""


def _json_verdict(value: object) -> str | None:
    """The code JAX 0.12.0.1's serializer gives ``value`` (its ``_json_default`` converts numpy integers, floats
    and arrays only): ACC103 for a non-finite number, ACC101 for what it rejects, ``None`` for JSON."""
    import json
    import math

    import numpy as np
    if isinstance(value, (np.integer, np.floating)):
        return None if math.isfinite(float(value)) else "ACC103"
    if isinstance(value, float):
        return None if math.isfinite(value) else "ACC103"
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return "ACC101"
    return None


@pytest.mark.parametrize("expression", [
    # comparisons of numpy scalars: numpy.bool_
    "np.timedelta64(5, 's') > np.timedelta64(1, 's')", "np.timedelta64(5, 'ns') > np.timedelta64(1, 'ns')",
    "bool(np.timedelta64(5, 's') > np.timedelta64(1, 's'))", "W.max() > 0.5", "W.min() < 0.5", "float(W.max()) > 0.5",
    "W.max()", "FLAGS.max()", "FLAGS.min().item()",
    # numpy ufuncs of known numbers, called
    "np.log(0.0)", "np.log(1.0)", "np.log(-1.0)", "np.sqrt(-1.0)", "np.sqrt(4.0)", "np.exp(1000.0)", "np.exp(1.0)",
    "np.power(10.0, 400)", "np.divide(1.0, 0.0)", "np.arctanh(1.0)", "np.log2(8)", "np.add(1, 2)", "np.maximum(1.0, 2)",
    # function objects as values
    "len", "max", "np.add", "np.log", "np.isnan", "len([1])",
    # set arithmetic, typing.cast, functools.reduce over a Flag class
    "set(range(2)) - {5}", "set(range(2)) | {5}", "frozenset({1}) & {1, 2}", "{1, 2} ^ {2}", "sorted(set(range(2)) - {5})",
    "typing.cast(int, Mode.PUSH)", "typing.cast(typing.Any, 'push')", "functools.reduce(operator.or_, Feature)",
    "functools.reduce(operator.or_, [f.value for f in Feature])",
])
def test_computed_values_get_the_verdict_of_what_python_and_numpy_compute(expression):
    """The checker's code for each expression is the one its real value gets (numpy 2.5.5, Python 3.12):
    ``np.timedelta64(5, 's') > np.timedelta64(1, 's')`` and ``W.max() > 0.5`` are numpy.bool_, ``FLAGS.max()`` of a
    bool array too; ``np.log(0.0)`` is -inf; ``len`` and ``np.add`` are function objects (``np.add`` a ufunc);
    ``set(a) - {5}`` a set; ``typing.cast`` returns its argument; reducing a Flag class with ``|`` gives a member."""
    import warnings

    import numpy as np
    namespace: dict = {}
    exec(_COMPUTED_PRELUDE, namespace)  # noqa: S102 - the test's own module text
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = eval(expression, namespace)  # noqa: S307 - the test's own expression
    expected = _json_verdict(value)
    source = SINK_IMPORT + _COMPUTED_PRELUDE + f"\n\ndef lowering(ctx, x):\n    emit('t', ctx, x, {{'v': {expression}}})\n"
    assert {d.code for d in check_source(source, "m.py")} == ({expected} if expected else set())


def test_the_folded_numpy_ufuncs_are_ufuncs():
    """Every name of NUMPY_NUMBER_UFUNCS is a ``numpy.ufunc`` (numpy 2.5.5): a function object as a value, and
    folded by calling it."""
    import numpy as np

    from asynccfg_lint.analysis.type_verdicts import NUMPY_NUMBER_UFUNCS
    assert sorted(name for name in NUMPY_NUMBER_UFUNCS if not isinstance(getattr(np, name, None), np.ufunc)) == []


def test_the_numpy_classes_of_the_checkers_numpy_types_are_numpys():
    """What narrowing takes for granted (``isinstance(flag, np.generic)`` holds for a ``numpy.bool_``; no ``numpy.bool_``
    is a ``bool``), checked on values numpy makes of each numpy type the checker names."""
    import builtins

    import numpy as np

    from asynccfg_lint.analysis.infer.walk import _DATA_BUILTINS, _NUMPY_BUILTIN_BASES, _NUMPY_INSTANCES

    values = {  # each type name of the checker -> values of it
        "numpy.bool_": [np.bool_(True), np.isclose(1.0, 2.0)],
        "numpy integer": [np.int8(1), np.uint16(2), np.int64(3), np.intc(4), np.uint64(5)],
        "numpy floating": [np.float16(1), np.float32(1), np.longdouble(1)],
        "numpy.float64": [np.float64(1), np.sqrt(np.float64(2))],
        "numpy number": [np.int32(1), np.float32(1), np.complex64(1), np.complex128(1)],
        "numpy.str_": [np.str_("a")],
        "numpy.void": [np.void(b"ab")],
        "numpy.ndarray": [np.zeros(2), np.arange(3)],
    }
    assert {name for names in _NUMPY_INSTANCES.values() for name in names} <= values.keys()
    for cls, names in _NUMPY_INSTANCES.items():
        for name in names:  # expect: every value of the type is an instance of the class
            assert all(isinstance(value, getattr(np, cls.removeprefix("numpy."))) for value in values[name]), (cls, name)
    assert not isinstance(np.bool_(True), np.number) and not isinstance(np.bool_(True), np.integer)
    assert _NUMPY_BUILTIN_BASES.keys() <= values.keys()
    for name, bases in _NUMPY_BUILTIN_BASES.items():
        for value in values[name]:  # expect: instances of no builtin type of data but the ones named
            found = {cls for cls in _DATA_BUILTINS if isinstance(value, getattr(builtins, cls.removeprefix("builtins.")))}
            assert found <= bases, (name, value, found)
