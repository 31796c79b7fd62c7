"""enum (CPython 3.12): plain ``Enum`` and ``Flag`` members are rejected by the default hook; members of
``IntEnum``, ``StrEnum`` and ``IntFlag`` are int/str subclasses and serialize (and are valid keys).

The classifier builds member types from the class definitions it sees (``types.ENUM_BASES``);
these rows verify the verdicts it uses.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, MemberRow, TypeRow

IMPORTS = "import enum"

_INT_MEMBER = T.PyType("enum member (int/str enum)", T.JsonKind.NUMBER, key_ok=True, attrs=frozenset({"value"}))

ROWS = (
    TypeRow("enum.Enum member", T.ENUM_MEMBER, "enum.Enum", "enum.Enum('Mode', 'FAST SLOW').FAST",
            "an Enum member is rejected by the default hook"),
    TypeRow("enum.Flag member", T.FLAG_MEMBER, "enum.Flag", "enum.Flag('F', 'A B').A",
            "a Flag member is rejected by the default hook"),
    TypeRow("enum.IntEnum member", _INT_MEMBER, "enum.IntEnum", "enum.IntEnum('Level', 'LOW HIGH').LOW",
            "an IntEnum member is an int: it serializes and is a valid key"),
    TypeRow("enum.StrEnum member", _INT_MEMBER.named("enum member (str enum)"), "enum.StrEnum",
            "enum.StrEnum('Name', 'A B').A", "a StrEnum member is a str: it serializes and is a valid key"),
    TypeRow("enum.IntFlag member", _INT_MEMBER.named("enum member (int flag)"), "enum.IntFlag",
            "enum.IntFlag('P', 'R W').R", "an IntFlag member is an int: it serializes and is a valid key"),
    *(MemberRow(owner, ATTRIBUTE, "name", "builtins.str", "a member's .name is a str")
      for owner in ("enum.Enum member", "enum.Flag member", "enum.IntEnum member")),
)
