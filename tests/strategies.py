"""Hypothesis strategies: sink calls whose config is built from the value kinds of the truth table.

:func:`configs` draws a config dict display as source text together with the rule codes a
correct checker reports for it (one per offending value or key), following
``tests/oracle/truth_table.md`` sections 1 (values and keys) and the NaN/Infinity rows. Keys are plain
names that XLA does not parse, so ACC104/ACC105 never apply. :func:`sink_block` renders the
module text that imports what the values need and calls the sink with the config.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import strategies as st


@dataclass(frozen=True)
class Config:
    """A config display and the codes it must be reported with.

    Attributes:
        text: the dict display, on one line.
        codes: how many findings of each code the display holds.
    """

    text: str
    codes: Counter


#: value kinds JAX serialises (truth table section 1, "succeeds")
GOOD_VALUES = [
    "3", "-7", "1.5", "True", "None", "'ring'", "(1, 2)", "2**70", "_acc_Level.LOW", "_acc_np.int32(3)",
    "_acc_np.float64(1.5)", "_acc_np.array([1, 2])", "_acc_np.str_('ab')", "_acc_collections.OrderedDict(a=1)",
]
#: value kinds JAX rejects at lowering: ACC101 (truth table section 1, "ValueError at lower")
BAD_VALUES = [
    "{1, 2}", "frozenset({1})", "b'ab'", "complex(1, 2)", "_acc_decimal.Decimal('1.5')",
    "_acc_fractions.Fraction(1, 3)", "range(3)", "_acc_pathlib.Path('/tmp/x')", "_acc_datetime.datetime(2026, 1, 1)",
    "_acc_Mode.FAST", "_acc_np.bool_(True)", "_acc_jnp.int32(3)", "_acc_jnp.array([1, 2])",
    "_acc_collections.deque([1])", "_acc_np.bytes_(b'a')",
]
#: NaN and infinities: ACC103
NONFINITE_VALUES = ["float('nan')", "float('inf')", "-_acc_math.inf", "_acc_np.nan", "_acc_np.float64('nan')"]
#: keys json.dumps rejects: ACC102 (an {} is the position's index, so keys stay distinct)
BAD_KEYS = ["({}, 0)", "_acc_np.int64({})", "frozenset({{{}}})"]

leaves = st.one_of(
    st.sampled_from(GOOD_VALUES).map(lambda text: Config(text, Counter())),
    st.sampled_from(BAD_VALUES).map(lambda text: Config(text, Counter({"ACC101": 1}))),
    st.sampled_from(NONFINITE_VALUES).map(lambda text: Config(text, Counter({"ACC103": 1}))),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=5).map(
        lambda text: Config(repr(text), Counter())),
)


def _join(parts: list[Config], opening: str, closing: str) -> Config:
    codes: Counter = Counter()
    for part in parts:
        codes += part.codes
    return Config(opening + ", ".join(part.text for part in parts) + closing, codes)


def _dict_of(values: st.SearchStrategy[Config]) -> st.SearchStrategy[Config]:
    """A dict display with distinct keys, some of them (ACC102) keys JSON rejects."""

    @st.composite
    def build(draw) -> Config:
        items = draw(st.lists(values, max_size=4))
        entries = []
        for index, value in enumerate(items):
            if draw(st.booleans()) and draw(st.booleans()):
                key = Config(draw(st.sampled_from(BAD_KEYS)).format(index), Counter({"ACC102": 1}))
            else:
                key = Config(repr(f"k{index}"), Counter())
            entries.append(Config(f"{key.text}: {value.text}", key.codes + value.codes))
        return _join(entries, "{", "}")

    return build()


values = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3).map(lambda parts: _join(parts, "[", "]")),
        _dict_of(children),
    ),
    max_leaves=8,
)
configs = _dict_of(values)

#: the module text a config needs: imports under unlikely names, the enums, the sink call
SINK_BLOCK = """
import collections as _acc_collections
import datetime as _acc_datetime
import decimal as _acc_decimal
import enum as _acc_enum
import fractions as _acc_fractions
import math as _acc_math
import pathlib as _acc_pathlib

import jax.numpy as _acc_jnp
import numpy as _acc_np
from jax._src.lax.parallel import _emit_async_start_custom_call as _acc_emit


class _acc_Mode(_acc_enum.Enum):
    FAST = 1


class _acc_Level(_acc_enum.IntEnum):
    LOW = 1


def _acc_lower(ctx, x):
    return _acc_emit("all-gather-start", ctx, x, {config})
"""


def sink_block(config: Config) -> str:
    """The module text that defines what ``config`` uses and passes it to the sink (its last line)."""
    return SINK_BLOCK.format(config=config.text)
