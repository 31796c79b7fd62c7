"""Record classes of the project: dataclasses and ``TypedDict`` s, and the fields of a dataclass body.

Facts of CPython 3.12's :mod:`dataclasses` and :mod:`typing`: ``asdict`` gives the fields in
definition order, ``ClassVar``/``InitVar``/``KW_ONLY`` annotations are not fields, and an
instance of a ``TypedDict`` class is a plain dict. attrs 26.1 (measured): ``attrs.asdict`` of an
``@attrs.define`` class with annotated fields gives them in definition order, each value as it is
(collections keep their type; ``attr.asdict`` turns them into lists, so it is not modelled), and
a converter changes what the argument is.

The conversions recurse (CPython 3.12 ``dataclasses._asdict_inner``/``_astuple_inner``, attrs 26.1
``asdict``; measured, ``tests/fixtures/programs/nested_records.py``): a field's value that is an instance of a
record class of the same kind (a dataclass for ``dataclasses``, an attrs class for ``attrs``) becomes
its fields, also inside a list, tuple or dict (its type kept; for ``dataclasses`` also a ``NamedTuple``,
whose elements are converted); anything else (an Enum member, a set, an attrs instance under
``dataclasses.asdict``) stays as it is. ``NamedTuple._asdict()`` does not recurse.
"""

from __future__ import annotations

import libcst as cst

from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import qualified_names

_TYPED_DICT = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
_FIELD = frozenset({"dataclasses.field"})
#: the decorators of an attrs class whose annotated attributes are its fields
_ATTRS_DECORATORS = frozenset({"attrs.define", "attrs.frozen", "attrs.mutable", "attr.define", "attr.frozen",
                               "attr.mutable"})
_ATTRS_FIELD = frozenset({"attrs.field", "attr.field", "attr.ib", "attr.attrib"})
#: ``attrs.field`` arguments after which the constructor's arguments are not the fields in order, or not their values
_ATTRS_FIELD_CHANGES = frozenset({"converter", "init", "kw_only", "alias"})
_NOT_FIELDS = frozenset({"typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"})
#: the recursions of :class:`~asynccfg_lint.analysis.entries.Entry` (``recursion``): the function that
#: converts a field's value, mapped to the kind of record class it turns into its fields
AS_DICT, AS_TUPLE, ATTRS_AS_DICT = "dataclasses.asdict", "dataclasses.astuple", "attrs.asdict"
DATACLASS, ATTRS = "dataclass", "attrs"
RECURSIONS = {AS_DICT: DATACLASS, AS_TUPLE: DATACLASS, ATTRS_AS_DICT: ATTRS}


def is_typed_dict(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``cls`` derives from ``typing.TypedDict`` (its instances are plain dicts)."""
    return any(qualified_names(parsed, base.value) & _TYPED_DICT for base in cls.bases if base.keyword is None)


def is_dataclass(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``cls`` is decorated with ``dataclasses.dataclass`` (called or not)."""
    return _dataclass_decorator(parsed, cls) is not None


def _dataclass_decorator(parsed: ParsedModule, cls: cst.ClassDef) -> cst.BaseExpression | None:
    """``cls``'s first ``@dataclasses.dataclass`` decorator (``dataclass`` or ``dataclass(...)``), else ``None``."""
    for decorator in cls.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        if qualified_names(parsed, target) & _DATACLASS_DECORATORS:
            return decorator.decorator
    return None


def unhashable_dataclass(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``@dataclasses.dataclass`` makes ``cls``'s instances unhashable: ``eq`` true (the default), neither
    ``frozen`` nor ``unsafe_hash`` true, and no ``__hash__`` of its own in the class body (Python's
    ``dataclasses`` then sets ``__hash__`` to ``None``; measured on Python 3.12.1:
    ``tests/fixtures/programs/bind_hashable_records.py``)."""
    flags = _hash_flags(parsed, cls)
    return flags is not None and flags["eq"] and not flags["frozen"] and not flags["unsafe_hash"] \
        and not flags["__hash__"]


def hashes_fields(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when the instances of ``cls`` hash as the tuple of their fields: a ``@dataclasses.dataclass`` with
    ``eq`` (the default) and ``frozen`` or ``unsafe_hash``, no ``__hash__`` of its own and no base class (whose
    fields would count too). Python's ``dataclasses`` makes that ``__hash__``, so a field holding a list makes
    ``hash()`` raise TypeError, and ``bind`` with it (measured on Python 3.12.1 and jax 0.12.0.1:
    ``tests/fixtures/programs/bind_hashable_records.py``)."""
    flags = _hash_flags(parsed, cls)
    return flags is not None and not cls.bases and flags["eq"] and (flags["frozen"] or flags["unsafe_hash"]) \
        and not flags["__hash__"]


def _hash_flags(parsed: ParsedModule, cls: cst.ClassDef) -> dict[str, bool] | None:
    """``eq``, ``frozen`` and ``unsafe_hash`` of ``cls``'s ``@dataclasses.dataclass``, and ``__hash__``: whether its
    body defines one; ``None`` when it is no dataclass or a flag is not a literal."""
    decorator = _dataclass_decorator(parsed, cls)
    if decorator is None:
        return None
    flags = {"eq": True, "frozen": False, "unsafe_hash": False}
    for arg in decorator.args if isinstance(decorator, cst.Call) else ():
        if arg.keyword is None or arg.keyword.value not in flags:
            continue
        if not (isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False")):
            return None  # a flag the checker cannot read
        flags[arg.keyword.value] = arg.value.value == "True"
    flags["__hash__"] = any(isinstance(statement, cst.FunctionDef) and statement.name.value == "__hash__"
                            or isinstance(statement, cst.SimpleStatementLine) and any(
                                _assigns_hash(small) for small in statement.body)
                            for statement in cls.body.body)
    return flags


def _assigns_hash(statement: cst.BaseSmallStatement) -> bool:
    """Whether ``statement`` binds ``__hash__`` (``__hash__ = None``, ``__hash__: Any = object.__hash__``)."""
    targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else \
        [statement.target] if isinstance(statement, cst.AnnAssign) else []
    return any(isinstance(target, cst.Name) and target.value == "__hash__" for target in targets)


#: ``attrs.define(...)`` arguments after which the fields or the constructor are not the annotated attributes in order
_ATTRS_CLASS_CHANGES = frozenset({"kw_only", "auto_attribs", "init", "field_transformer", "these"})


def _attrs_decorator(parsed: ParsedModule, decorator: cst.BaseExpression) -> bool:
    """True for ``@attrs.define`` (also ``frozen``/``mutable``, from ``attr`` too), called or not, with only
    keyword arguments that keep the fields and the constructor as written (``frozen=True``, ``slots=False``)."""
    if isinstance(decorator, cst.Call):
        if any(a.keyword is None or a.keyword.value in _ATTRS_CLASS_CHANGES for a in decorator.args):
            return False
        decorator = decorator.func
    return bool(qualified_names(parsed, decorator) & _ATTRS_DECORATORS)


def attrs_fields(parsed: ParsedModule, cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]] | None:
    """The fields of an attrs class as :func:`dataclass_fields` gives them, when ``cls`` is decorated with
    ``attrs.define`` (or ``frozen``/``mutable``, also from ``attr``; ``frozen=True`` and the like), has no base class and
    only annotated fields whose ``attrs.field(...)`` sets at most ``default``/``factory``/``validator``...:
    then ``attrs.asdict`` gives these, and a call's arguments are their values in order. Else ``None``
    (a converter, ``init=False``, ``kw_only``, an unannotated ``attr.ib()``, an inherited field: not followed)."""
    if cls.bases or not any(_attrs_decorator(parsed, d.decorator) for d in cls.decorators):
        return None
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign)) else None
            if isinstance(value, cst.Call) and qualified_names(parsed, value.func) & _ATTRS_FIELD and (
                    isinstance(small, cst.Assign)
                    or any(a.keyword is None or a.keyword.value in _ATTRS_FIELD_CHANGES for a in value.args)):
                return None
    fields = dataclass_fields(parsed, cls)
    # (`_x` is the field `_x`, but the constructor's keyword `x`)
    return None if any(name.startswith("_") for name, _, _ in fields) else fields


def record_kind(parsed: ParsedModule, cls: cst.ClassDef) -> str | None:
    """:data:`DATACLASS` for a dataclass, :data:`ATTRS` for an attrs class whose fields are followed
    (:func:`attrs_fields`), else ``None``."""
    if is_dataclass(parsed, cls):
        return DATACLASS
    return ATTRS if attrs_fields(parsed, cls) is not None else None


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
            if isinstance(default, cst.Call) and qualified_names(parsed, default.func) & (_FIELD | _ATTRS_FIELD):
                default = next((a.value for a in default.args if a.keyword and a.keyword.value == "default"), None)
            fields.append((small.target.value, annotation, default))
    return fields
