"""Rule selection: which codes are reported, from ``--select``, ``--extend-select`` and ``--ignore``.

As in ruff: entries are code prefixes (``ACC1`` selects ACC101-ACC105); ``--select`` replaces
the default set, ``--extend-select`` adds to it, and for each code the most specific matching
prefix decides, an ignore winning a tie.

Selections are layered as ruff layers them: the defaults, then ``[tool.asynccfg-lint]``, then
the command line, then a file's ``per-file-ignores``. Each layer decides the codes its own
prefixes match; a layer with ``select`` drops everything below it, any other layer leaves the
codes it does not mention to the layer below (its ``base``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from asynccfg_lint.rules import RULES


#: the default selection as prefixes (ACC0, ACC1), so that ``--ignore ACC1`` can remove a whole group.
DEFAULT_SELECT: tuple[str, ...] = tuple(sorted({rule.code[:4] for rule in RULES if rule.default_enabled}))


@dataclass(frozen=True)
class Selection:
    """The set of enabled rule codes.

    Attributes:
        select: prefixes replacing the default selection, or ``None`` for the default
            (every rule whose ``default_enabled`` is true).
        extend_select: prefixes added to the selection.
        ignore: prefixes removed from it.
        base: the layer below (``None``: the defaults). Consulted only when this layer has no
            ``select`` and none of its prefixes matches the code.
    """

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    base: Selection | None = None

    def enabled_codes(self) -> frozenset[str]:
        """Return every enabled rule code."""
        return frozenset(rule.code for rule in RULES if self.is_enabled(rule.code))

    def is_enabled(self, code: str) -> bool:
        """True when ``code`` is reported under this selection."""
        best_select = _longest_prefix(code, (*(self.select or ()), *self.extend_select))
        best_ignore = _longest_prefix(code, self.ignore)
        if best_select >= 0 or best_ignore >= 0:
            return best_select > best_ignore
        if self.select is not None:
            return False
        if self.base is not None:
            return self.base.is_enabled(code)
        return _longest_prefix(code, DEFAULT_SELECT) >= 0

    def over(self, base: Selection | None) -> Selection:
        """Return this selection as a layer on top of ``base`` (``None``: on top of the defaults)."""
        if base is None:
            return self
        lower = self.base.over(base) if self.base is not None else base
        return Selection(self.select, self.extend_select, self.ignore, lower)


def _longest_prefix(code: str, prefixes: Iterable[str]) -> int:
    """Length of the longest entry of ``prefixes`` that ``code`` starts with; -1 if none; ``ALL`` matches with length 0."""
    best = -1
    for prefix in prefixes:
        if prefix == "ALL":
            best = max(best, 0)
        elif code.startswith(prefix):
            best = max(best, len(prefix))
    return best


def parse_code_list(value: str | None) -> tuple[str, ...]:
    """Split a comma-separated option value (``"ACC101, ACC2"``) into stripped prefixes."""
    if not value:
        return ()
    return tuple(part.strip().upper() for part in value.split(",") if part.strip())
