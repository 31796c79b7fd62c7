"""ACC104 special-key-without-attribute: ``channel_handle``/``use_global_device_ids`` lacking the attribute JAX reads."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule

SEVERITY = ERROR

RULE = Rule(
    code="ACC104",
    name="special-key-without-attribute",
    summary="`channel_handle` without `.handle`, or `use_global_device_ids` without `.value`.",
    failure=(
        "`_emit_async_start_custom_call` replaces these keys by `cfg['channel_handle'].handle` and "
        "`cfg['use_global_device_ids'].value`, so a plain int/bool/None raises `AttributeError` at lowering. "
        "Whether a value has the attribute is decided by how it is built: a `types.SimpleNamespace(handle=1)` "
        "or a dataclass or attrs field `handle` has it, and what it holds is checked instead (jax 0.12.0.1)."
    ),
    default_enabled=True,
    bad_example='cfg = {"use_global_device_ids": True}\n',
    good_example='cfg = {"use_global_device_ids": ir.BoolAttr.get(True)}\n',
    severity=SEVERITY,
)


def missing_attribute(where: str, type_name: str, key: str, attribute: str) -> str:
    """``where`` (the special ``key``) holds ``type_name``, which has no ``.attribute`` for JAX to read."""
    remedy = ('use hlo.ChannelHandle.get(...) or the plain "channel_id" key' if attribute == "handle"
              else "use ir.BoolAttr.get(...)")
    return (f"{where} is {type_name}, which has no .{attribute}: _emit_async_start_custom_call reads "
            f"cfg[\"{key}\"].{attribute}, so lowering raises AttributeError; {remedy}")
