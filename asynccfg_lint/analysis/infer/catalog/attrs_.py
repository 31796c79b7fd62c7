"""attrs (measured with attrs 26.1): an attrs instance is rejected like a dataclass instance (the
classifier recognises ``@attrs.define`` classes through ``types.DATACLASS_DECORATORS``).
``attrs.asdict``/``astuple`` give a dict/tuple of whatever the fields hold, so they have no row.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import TypeRow

IMPORTS = "import attr, attrs"

ROWS = (
    TypeRow("attrs instance", T.DATACLASS.named("attrs instance"), "builtins.object",
            "attrs.make_class('C', ['a'])(1)", "an attrs instance is rejected by the default hook"),
)
