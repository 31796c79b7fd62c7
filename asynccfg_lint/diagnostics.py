"""Diagnostics: the plain data every front end prints or applies."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, replace
from typing import Any

#: the two values of :attr:`Fix.safety`: an unsafe fix runs only with ``--unsafe-fixes``
SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Fix:
    """An edit that would make a reported value JSON-safe (built by :mod:`asynccfg_lint.fixing.fixes`).

    The edited range is the reported expression together with its own parentheses, so it can
    start before the diagnostic's column (``(a + b)`` is reported at ``a``, edited from ``(``).

    Attributes:
        safety: ``"safe"`` or ``"unsafe"`` (unsafe fixes run only with ``--unsafe-fixes``).
        replacement: the new source text for the edited range, e.g. ``"bool(np.bool_(True))"``.
        description: what the edit does, e.g. ``"wrap in bool(...)"`` or ``"append .tolist()"``.
        line, column, end_line, end_column: the edited range; 1-based lines, 1-based character
            columns as flake8 prints them, ``end_column`` exclusive.
    """

    safety: str
    replacement: str
    description: str
    line: int
    column: int
    end_line: int
    end_column: int


#: the suffixes of a message that name another place (the checker appends them; see ``Diagnostic.related``)
_RELATED = re.compile(r" \((?P<role>written|used) at (?P<path>[^()]+?):(?P<line>\d+)\)")


@dataclass(frozen=True)
class Diagnostic:
    """One finding.

    Positions follow flake8's printed convention: ``line``/``end_line`` are 1-based,
    ``column``/``end_column`` are 1-based character (code point) offsets, not UTF-8 bytes;
    ``end_column`` is exclusive.

    Attributes:
        path: the file as given on the command line (or ``--stdin-filename``).
        line, column, end_line, end_column: the range of the offending expression.
        code: a rule code from :mod:`asynccfg_lint.rules`.
        message: the text after the code, e.g. ``value for key "tiled" is numpy.bool_ ...``.
        fix: an optional :class:`Fix`; ``None`` when no mechanical remedy exists.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    fix: Fix | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the JSON-output object: keys ``path, line, column, end_line, end_column, code, message, fix``."""
        data = asdict(self)
        data["fix"] = asdict(self.fix) if self.fix else None
        return data

    def to_text(self) -> str:
        """Return flake8's text format: ``path:line:col: CODE message``."""
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"

    @property
    def related(self) -> list[tuple[str, str, int]]:
        """The other places the message names: ``(role, path, line)`` for each ``(written at path:line)``
        (where a value of another module is written) and ``(used at path:line)`` (where a registered
        lowering rule puts a ``bind`` argument into its config), in the message's order; 1-based lines."""
        return [(match["role"], match["path"], int(match["line"])) for match in _RELATED.finditer(self.message)]

    def placed_like(self, path: str) -> Diagnostic:
        """This diagnostic with the places its message names (:attr:`related`) in the form of ``path``:
        absolute when ``path`` is absolute, else relative to the working directory (a place on another
        drive stays absolute). The flake8 plugin gives them the form of the file flake8 names, whose
        package it analyses under absolute paths; the language server the relative form.
        """
        def placed(match: re.Match[str]) -> str:
            place = os.path.abspath(match["path"])
            if not os.path.isabs(path):
                try:
                    place = os.path.relpath(place)
                except ValueError:
                    pass
            return f" ({match['role']} at {place}:{match['line']})"

        message = _RELATED.sub(placed, self.message)
        return self if message == self.message else replace(self, message=message)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Order by path, then position, then code (the order ruff and flake8 print in), then message (one order for
        two findings at one place, whatever order the analysis met them in)."""
        return (self.path, self.line, self.column, self.code, self.message)


@dataclass(frozen=True)
class Coverage:
    """How much of a run's sink calls the analysis followed: the coverage line every front end can show.

    Attributes:
        calls: the calls in the checked files through which values reach a sink (a sink itself, a
            primitive's ``bind``, a wrapper of either), each counted once.
        unfollowed: those with a value whose type the analysis could not decide: each such value is
            an ACC201 finding, shown when ACC201 is selected.
    """

    calls: int = 0
    unfollowed: int = 0

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(self.calls + other.calls, self.unfollowed + other.unfollowed)

    @property
    def fully_typed(self) -> int:
        """The calls every value of which has a decided type."""
        return self.calls - self.unfollowed

    def line(self) -> str:
        """``12 sink calls checked: 9 fully typed, 3 with values not followed (--extend-select ACC201 shows
        where)``, the second part only when some are not followed."""
        checked = f"{self.calls} sink call{'' if self.calls == 1 else 's'} checked"
        if not self.unfollowed:
            return f"{checked}: all fully typed" if self.calls else checked
        return (f"{checked}: {self.fully_typed} fully typed, {self.unfollowed} with values not followed "
                "(--extend-select ACC201 shows where)")

    def properties(self) -> dict[str, int]:
        """The counts as JSON properties (SARIF's run ``properties``)."""
        return {"sinkCalls": self.calls, "fullyTyped": self.fully_typed, "notFollowed": self.unfollowed}
