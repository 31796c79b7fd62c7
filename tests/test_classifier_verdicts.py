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
