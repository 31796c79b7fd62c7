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
