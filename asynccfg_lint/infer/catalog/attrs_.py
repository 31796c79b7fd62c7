"""attrs (measured with attrs 26.1): an attrs instance is rejected like a dataclass instance (the
classifier recognises ``@attrs.define`` classes through ``types.DATACLASS_DECORATORS``);
``attrs.asdict``/``astuple`` give a dict/tuple.
"""

from __future__ import annotations

from asynccfg_lint import types as T
from asynccfg_lint.infer.model import CallRow, TypeRow

IMPORTS = "import attr, attrs"

ROWS = (
    TypeRow("attrs instance", T.DATACLASS.named("attrs instance"), "builtins.object",
            "attrs.make_class('C', ['a'])(1)", "an attrs instance is rejected by the default hook"),
    CallRow("attrs.asdict", "builtins.dict", "attrs.asdict(x) is a dict", "attrs.asdict(attrs.make_class('C', ['a'])(1))"),
    CallRow("attr.asdict", "builtins.dict", "attr.asdict(x) is a dict", "attr.asdict(attrs.make_class('C', ['a'])(1))"),
    CallRow("attrs.astuple", "builtins.tuple", "attrs.astuple(x) is a tuple",
            "attrs.astuple(attrs.make_class('C', ['a'])(1))"),
)
