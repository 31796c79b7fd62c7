"""Record classes of the project: dataclasses and ``TypedDict`` s, and the fields of a dataclass body.

Facts of CPython 3.12's :mod:`dataclasses` and :mod:`typing`: ``asdict`` gives the fields in
definition order, ``ClassVar``/``InitVar``/``KW_ONLY`` annotations are not fields, and an
instance of a ``TypedDict`` class is a plain dict.
"""

from __future__ import annotations

import libcst as cst

from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import qualified_names

_TYPED_DICT = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
_FIELD = frozenset({"dataclasses.field"})
_NOT_FIELDS = frozenset({"typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"})


def is_typed_dict(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``cls`` derives from ``typing.TypedDict`` (its instances are plain dicts)."""
    return any(qualified_names(parsed, base.value) & _TYPED_DICT for base in cls.bases if base.keyword is None)


def is_dataclass(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``cls`` is decorated with ``dataclasses.dataclass`` (called or not)."""
    for decorator in cls.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        if qualified_names(parsed, target) & _DATACLASS_DECORATORS:
            return True
    return False


def dataclass_fields(parsed: ParsedModule, cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]]:
    """Return ``(name, annotation, default)`` for each field of a dataclass body, in order.

    ``ClassVar``/``InitVar``/``KW_ONLY`` annotations are not fields (``asdict`` skips them). The
    default of ``field(default=v)`` is ``v``; ``field(default_factory=f)`` leaves only the annotation.
    """
    fields = []
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            annotation = small.annotation.annotation
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if qualified_names(parsed, head) & _NOT_FIELDS:
                continue
            default = small.value
            if isinstance(default, cst.Call) and qualified_names(parsed, default.func) & _FIELD:
                default = next((a.value for a in default.args if a.keyword and a.keyword.value == "default"), None)
            fields.append((small.target.value, annotation, default))
    return fields
