"""ACC201 unknown-value-type (opt-in): a config value or part the checker cannot type."""

from __future__ import annotations

from asynccfg_lint.rules.rule import WARNING, Rule

#: says nothing certain about JAX: a warning everywhere
SEVERITY = WARNING

RULE = Rule(
    code="ACC201",
    name="unknown-value-type",
    summary="A config value whose type the checker cannot determine (opt-in).",
    failure="Unknown: the value may or may not serialize; annotate it or convert it explicitly.",
    default_enabled=False,
    bad_example='cfg = {"tiled": load_tiled_flag()}  # a call into code the checker cannot see\n',
    good_example='cfg = {"tiled": bool(load_tiled_flag())}\n',
    severity=SEVERITY,
)


def unknown_type(where: str) -> str:
    """``where`` (a top-level config place) holds a value of unknown type."""
    return f"{where} has a type the checker cannot determine; annotate it or convert it with int()/float()/bool()/str()"


def untraced_config() -> str:
    """The config passed to a sink is no dict the checker can see."""
    return ("the config passed to the sink cannot be traced to a dict the checker can see; its keys and values "
            "are not checked")


def opaque_part() -> str:
    """Part of the config (``**helper()``, ``cfg.update(helper())``) comes from code the checker cannot follow."""
    return "part of the config comes from code the checker cannot follow; its keys and values are not checked"
