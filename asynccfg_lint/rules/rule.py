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


def key_step(key: str | None, literal: str | None = None) -> str:
    """A dict key as a place names it: ``key "k"`` for a string key, ``key 1`` for another literal
    (``literal``: its source text), else ``a computed key``."""
    if key is not None:
        return f"key {quote_key(key)}"
    return f"key {literal}" if literal is not None else "a computed key"


_KEY_STEPS = ("key ", "a computed key")


@dataclass
class ConfigPath:
    """Where in the config a value sits, for messages: top-level key, then nested steps.

    ``literal`` is the source text of a top-level key that is a literal but not a string (``1``).
    """

    key: str | None
    steps: list[str] = field(default_factory=list)
    literal: str | None = None

    def describe(self) -> str:
        """The place as a message names it: ``value for key "tiled"``, ``an element under key "groups"``,
        ``value for key "big" under key "flags"`` (a nested entry's value, not its key)."""
        head = key_step(self.key, self.literal)
        if not self.steps:
            return f"value for {head}"
        inner = " of ".join(reversed(self.steps))
        return f"value for {inner} under {head}" if self.steps[-1].startswith(_KEY_STEPS) else f"{inner} under {head}"

    def child(self, step: str) -> ConfigPath:
        """The place one step further in (``"an element"``, ``'key "k"'``)."""
        return ConfigPath(self.key, [*self.steps, step], self.literal)

    def entry(self, key: str | None, literal: str | None = None) -> ConfigPath:
        """The place of the entry ``key`` (a non-string literal key: its source text ``literal``) of the dict here."""
        return self.child(key_step(key, literal))


def written_at(message: str, place: str) -> str:
    """``message`` of a value written in another module, naming ``place`` (``path:line``)."""
    return f"{message} (written at {place})"


def used_at(message: str, place: str) -> str:
    """``message`` of a ``bind`` argument, naming where the registered lowering rule uses it (``path:line``)."""
    return f"{message} (used at {place})"
