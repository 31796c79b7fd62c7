"""The row every rule module defines, and the wording its messages share (where a value sits, other places).

Kept apart from the rule modules so each of them can import it without importing the table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

#: the two severities a diagnostic is reported with (SARIF ``level``, GitHub annotation, LSP severity)
ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Rule:
    """A rule: its stable code, the text that explains it and the severity it is reported with.

    Attributes:
        code: the stable rule code, e.g. ``"ACC101"`` (letters then digits, as flake8 requires).
        name: a short kebab-case name, e.g. ``"unsupported-value-type"``.
        summary: one line saying what the rule reports.
        failure: what real JAX/XLA does with such a value (truth table reference).
        default_enabled: False for opt-in rules (``--select``/``--extend-select`` turn them on).
        bad_example / good_example: a failing and a fixed config, shown on the rule page.
        severity: :data:`ERROR` or :data:`WARNING`, the same in every front end.
    """

    code: str
    name: str
    summary: str
    failure: str
    default_enabled: bool
    bad_example: str
    good_example: str
    severity: str = ERROR


#: characters ``str.splitlines`` breaks at that ``json.dumps(..., ensure_ascii=False)`` leaves as they are
_LINE_BREAKS_JSON_KEEPS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


def quote_key(key: str | None) -> str:
    """A config key as a message shows it: quoted and escaped as JSON writes a string (``"a\\nb"``, ``"q\\"r"``).

    Keys are arbitrary strings; pasted raw, a line break would split a diagnostic over two
    printed lines and a quote would end the quoted key early. Non-ASCII letters stay readable;
    the line separators JSON leaves raw but ``str.splitlines`` breaks at are escaped too.
    """
    return json.dumps(key, ensure_ascii=False).translate(_LINE_BREAKS_JSON_KEEPS)


@dataclass
class ConfigPath:
    """Where in the config a value sits, for messages: top-level key, then nested steps."""

    key: str | None
    steps: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The place as a message names it: ``value for key "tiled"``, ``an element under key "groups"``."""
        head = f"key {quote_key(self.key)}" if self.key is not None else "a computed key"
        if not self.steps:
            return f"value for {head}"
        return f"{' of '.join(reversed(self.steps))} under {head}"

    def child(self, step: str) -> ConfigPath:
        """The place one step further in (``"an element"``, ``'key "k"'``)."""
        return ConfigPath(self.key, [*self.steps, step])

    def entry(self, key: str | None) -> ConfigPath:
        """The place of the entry ``key`` of the dict at this place."""
        return self.child(f"key {quote_key(key)}" if key else "a computed key")


def written_at(message: str, place: str) -> str:
    """``message`` of a value written in another module, naming ``place`` (``path:line``)."""
    return f"{message} (written at {place})"


def used_at(message: str, place: str) -> str:
    """``message`` of a ``bind`` argument, naming where the registered lowering rule uses it (``path:line``)."""
    return f"{message} (used at {place})"
