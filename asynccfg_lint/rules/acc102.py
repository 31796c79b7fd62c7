"""ACC102 unsupported-key-type: a config dict key json.dumps cannot write."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule

SEVERITY = ERROR

RULE = Rule(
    code="ACC102",
    name="unsupported-key-type",
    summary="A config dict key that is not str, int, float, bool or None.",
    failure=(
        "`json.dumps` checks keys itself (the `default` hook never sees them) and raises "
        "`TypeError: keys must be str, int, float, bool or None` at lowering."
    ),
    default_enabled=True,
    bad_example='cfg = {"groups": {(0, 1): "a"}}\n',
    good_example='cfg = {"groups": {"0_1": "a"}}\n',
    severity=SEVERITY,
)

#: the remedy per key type (the first word of its display name)
_KEY_REMEDIES = {
    "tuple": 'use a str key, e.g. "_".join(map(str, k))',
    "frozenset": "use str(sorted(k))",
    "bytes": "use k.decode()",
}


def remedy(type_name: str, number: bool, enum_member: bool, flag_member: bool, fixed: str | None = None) -> str:
    """What to use instead of a key of ``type_name`` (``number``: it becomes a JSON number; ``fixed``: the
    key's mechanical fix written for a key ``k``, ``"int(k)"`` for a numpy integer, ``"float(k)"`` for a
    numpy float, whose ``int(...)`` would merge 0.25 and 0.75)."""
    if fixed is not None:
        return f"use {fixed}"
    if enum_member:
        return "use k.value or k.name"
    if flag_member:
        return "use k.value"
    return _KEY_REMEDIES.get(type_name.split(" ")[0], None) or ("use int(...)" if number else "use a str key")


def unusable_key(nested_under: str | None, type_name: str, remedy_text: str) -> str:
    """A key of ``type_name`` in the config (``nested_under``: the quoted key of the dict it is in, if nested)."""
    where = f"key of the dict under key {nested_under}" if nested_under is not None else "config key"
    return (f"{where} is {type_name}, which json cannot use as a key: lowering raises "
            f"TypeError (keys must be str, int, float, bool or None); {remedy_text}")
