"""ACC103 non-finite-float: NaN or Infinity, which json.dumps writes and XLA cannot parse."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule

SEVERITY = ERROR

RULE = Rule(
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
    severity=SEVERITY,
)


def non_finite(where: str) -> str:
    """``where`` (a config place) holds NaN or an infinity."""
    return (f"{where} is a non-finite float (NaN or Infinity): JAX emits non-standard JSON and XLA's compile "
            "fails (Failed to parse collective op config JSON); use a finite number")
