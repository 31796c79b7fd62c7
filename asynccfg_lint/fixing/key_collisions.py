"""Key fixes that merge keys: ``int(k)`` of ``{np.int64(1): "a", "1": "b"}`` makes two keys that print alike.

A key conversion (``int(k)``, ``float(k)``, an Enum member's ``.value``) is safe only when no other key of
the same dict can equal the converted key, as Python compares keys (``1 == 1.0 == True``) or as JSON
prints them (``1`` and ``"1"`` both become ``"1"``): otherwise one entry silently replaces another, or
XLA reads a config with a duplicate key. Keys are compared by value where the code writes them as
constants; a key whose value is not known may be anything, so the fix is then unsafe.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.entries import Entry, TracedDict
from asynccfg_lint.analysis.infer.folding import int_constant
from asynccfg_lint.analysis.resolution import string_value

#: a key whose value the code does not show
UNKNOWN_KEY = object()
#: the conversions whose result is computed from the key's constant argument (``np.int64(1)`` -> ``1``)
_CONVERSIONS: dict[T.FixTemplate, Callable[[object], object]] = {T.INT_FIX: int, T.FLOAT_FIX: float}


def constant_key(node: cst.BaseExpression | None) -> object:
    """The value of a key written as a constant (an int expression, a float, a str, ``True``, ``None``),
    else :data:`UNKNOWN_KEY`."""
    if node is None:
        return UNKNOWN_KEY
    number = int_constant(node)
    if number is not None:
        return number
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Float):
        return -float(node.expression.value.replace("_", ""))
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    text = string_value(node)
    return text if text is not None else UNKNOWN_KEY


def converted_key(node: cst.CSTNode, fix: T.FixTemplate, member_value: cst.BaseExpression | None) -> object:
    """The key ``fix`` makes of the key expression ``node``: ``int(np.int64(1))`` is ``1``; an Enum
    member's ``.value`` is its value's constant (``member_value``); else :data:`UNKNOWN_KEY`."""
    if fix == T.ENUM_VALUE_FIX:
        return constant_key(member_value)
    convert = _CONVERSIONS.get(fix)
    if convert is None or not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
        return UNKNOWN_KEY
    value = constant_key(node.args[0].value)
    if value is UNKNOWN_KEY or isinstance(value, str) or value is None:
        return UNKNOWN_KEY  # np.int64("7") parses text: not folded here
    try:
        return convert(value)
    except (OverflowError, ValueError):
        return UNKNOWN_KEY


def _numpy_int_call(node: cst.BaseExpression | None) -> bool:
    """True for ``np.int64(c)``, ``np.uint8(c)``, ``jnp.int32(c)``: a numpy integer constructor call by its name."""
    func = node.func if isinstance(node, cst.Call) else None
    name = func.attr.value if isinstance(func, cst.Attribute) else None
    return name is not None and name.startswith(("int", "uint")) and name[-1].isdigit()


def _same_key(a: object, b: object) -> bool:
    """True when ``a`` and ``b`` are one dict key (``1 == True``) or one JSON key (``1`` and ``"1"``)."""
    if a == b:
        return True
    try:
        return json.dumps({a: 0}) == json.dumps({b: 0})
    except (TypeError, ValueError):
        return False


def key_fix_safety(traced: TracedDict, entry: Entry, converted: object) -> str | None:
    """The safety of fixing ``entry``'s key of ``traced`` to the key ``converted``: the fix's own safety when
    no other key can equal it (:data:`~asynccfg_lint.diagnostics.SAFE`), ``UNSAFE`` when another
    key or the converted one is unknown, ``None`` (no fix) when another key is known to equal it.

    Another key that is itself a fixed numpy key is compared after its own conversion. A tuple key
    (``d[a, b]``) equals no scalar. Part of the dict the tracer cannot see has unknown keys.
    """
    others = [e for e in traced.entries if e is not entry]
    if not others and traced.complete:
        return T.SAFE
    unknown = not traced.complete or converted is UNKNOWN_KEY
    for other in others:
        if other.tuple_key:
            continue
        if other.zipped or other.home is not None:
            unknown = True
            continue
        value = other.key if other.key is not None else constant_key(other.key_node)
        if value is UNKNOWN_KEY and _numpy_int_call(other.key_node):
            value = converted_key(other.key_node, T.INT_FIX, None)  # another numpy int key, fixed the same way
        if value is UNKNOWN_KEY:
            unknown = True
        elif converted is not UNKNOWN_KEY and _same_key(converted, value):
            return None
    return T.UNSAFE if unknown else T.SAFE


def with_key_safety(fix: T.FixTemplate | None, safety: str | None) -> T.FixTemplate | None:
    """``fix`` with the safety :func:`key_fix_safety` gave (``None``: no fix); a fix already unsafe stays so."""
    if fix is None or safety is None:
        return None
    return fix if fix.safety != T.SAFE or safety == T.SAFE else replace(fix, safety=safety)
