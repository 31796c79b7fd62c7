"""ACC105 wrong-json-type-for-xla-key: a value XLA's config parser reads as another JSON type or shape."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule, quote_key

SEVERITY = ERROR

RULE = Rule(
    code="ACC105",
    name="wrong-json-type-for-xla-key",
    summary="A value of the wrong JSON type under a key XLA parses (tiled, channel_id, replica_groups, ...).",
    failure=(
        "JAX emits the config, then XLA's config parser aborts the whole process (SIGABRT) or fails "
        "a RET_CHECK while compiling: no Python exception to catch."
    ),
    default_enabled=True,
    bad_example='cfg = {"tiled": "yes"}\n',
    good_example='cfg = {"tiled": True}\n',
    severity=SEVERITY,
)


def wrong_length(where: str, count: int, key: str | None, expected: str) -> str:
    """``where`` has ``count`` elements where XLA parses each element of ``key`` as ``expected``."""
    return (f"{where} has {count} elements, but XLA parses each element of {quote_key(key)} as {expected}: "
            f"compiling fails a RET_CHECK; pass {expected}")


def wrong_json_type(where: str, type_name: str, json_kind: str, key: str | None, expected: str) -> str:
    """``where`` is ``type_name`` (JSON ``json_kind``) where XLA parses ``key`` as ``expected``."""
    return (f"{where} is {type_name} (JSON {json_kind}), but XLA parses {quote_key(key)} as {expected}: "
            f"compiling aborts the process or fails a RET_CHECK; pass {expected}")


def beyond_int64(where: str, key: str | None) -> str:
    """``where`` is an integer outside int64 where XLA reads ``key`` as a 64-bit integer."""
    return (f"{where} is a number outside the 64-bit integer range, but XLA reads {quote_key(key)} as a 64-bit "
            "integer: compiling aborts the process; keep it in the int64 range")
