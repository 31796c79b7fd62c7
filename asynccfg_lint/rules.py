"""The rule table: one row per rule code, the single source for code, docs and tests.

Every front end (CLI, flake8 plugin) and every generated rule page under
``docs/rules/`` reads this table; nothing else lists rule codes.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A rule: its stable code and the text that explains it.

    Attributes:
        code: the stable rule code, e.g. ``"ACC101"`` (letters then digits, as flake8 requires).
        name: a short kebab-case name, e.g. ``"unsupported-value-type"``.
        summary: one line saying what the rule reports.
        failure: what real JAX/XLA does with such a value (truth table reference).
        default_enabled: False for opt-in rules (``--select``/``--extend-select`` turn them on).
        bad_example / good_example: a failing and a fixed config, shown on the rule page.
    """

    code: str
    name: str
    summary: str
    failure: str
    default_enabled: bool
    bad_example: str
    good_example: str


RULES: tuple[Rule, ...] = (
    Rule(
        code="ACC001",
        name="unparsable-file",
        summary="The file could not be read or parsed, or the checker failed on it (an internal error), so it was not "
                "analysed.",
        failure="Nothing in JAX; the checker cannot see the file (flake8 reports E999 itself).",
        default_enabled=True,
        bad_example="def f(:\n    pass\n",
        good_example="def f():\n    pass\n",
    ),
    Rule(
        code="ACC101",
        name="unsupported-value-type",
        summary="A config value of a type JAX's JSON serializer rejects.",
        failure=(
            "`json.dumps(cfg, default=_json_default)` in `_emit_async_start_custom_call` raises "
            "`ValueError: Unsupported type for JSON serialization` when the jitted function is lowered."
        ),
        default_enabled=True,
        bad_example='cfg = {"tiled": np.bool_(True)}\n',
        good_example='cfg = {"tiled": bool(np.bool_(True))}\n',
    ),
    Rule(
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
    ),
    Rule(
        code="ACC103",
        name="non-finite-float",
        summary="A NaN or infinite float in the config.",
        failure=(
            "Python emits `NaN`/`Infinity`, which is not JSON; lowering succeeds, then XLA's compile "
            "fails with `INVALID_ARGUMENT: Failed to parse collective op config JSON`."
        ),
        default_enabled=True,
        bad_example='cfg = {"scale": float("nan")}\n',
        good_example='cfg = {"scale": 0.0}\n',
    ),
    Rule(
        code="ACC104",
        name="special-key-without-attribute",
        summary="`channel_handle` without `.handle`, or `use_global_device_ids` without `.value`.",
        failure=(
            "`_emit_async_start_custom_call` replaces these keys by `cfg['channel_handle'].handle` and "
            "`cfg['use_global_device_ids'].value`, so a plain int/bool/None raises `AttributeError` at lowering."
        ),
        default_enabled=True,
        bad_example='cfg = {"use_global_device_ids": True}\n',
        good_example='cfg = {"use_global_device_ids": ir.BoolAttr.get(True)}\n',
    ),
    Rule(
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
    ),
    Rule(
        code="ACC201",
        name="unknown-value-type",
        summary="A config value whose type the checker cannot determine (opt-in).",
        failure="Unknown: the value may or may not serialize; annotate it or convert it explicitly.",
        default_enabled=False,
        bad_example='cfg = {"tiled": load_tiled_flag()}  # a call into code the checker cannot see\n',
        good_example='cfg = {"tiled": bool(load_tiled_flag())}\n',
    ),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
DEFAULT_DISABLED: tuple[str, ...] = tuple(rule.code for rule in RULES if not rule.default_enabled)
