"""Read the expected diagnostics written beside the code in fixture modules.

A fixture line that should be reported ends with ``# expect: COL:CODE`` (several separated by
commas), where COL is the 1-based column flake8 prints, e.g.::

    cfg = {"tiled": np.bool_(True)}  # expect: 21:ACC101

A first-line comment ``# fixture-options: --extend-select ACC201`` passes CLI options.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

_EXPECT = re.compile(r"#\s*expect:\s*(?P<items>[0-9A-Z:,\s]+)")
_OPTIONS = re.compile(r"#\s*fixture-options:\s*(?P<options>.+)")
FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True, order=True)
class Expected:
    """One expected diagnostic: 1-based line, 1-based column, rule code."""

    line: int
    column: int
    code: str


def expected_diagnostics(path: Path) -> set[Expected]:
    """Return the ``# expect:`` annotations of ``path`` (its comments only, not its strings)."""
    found: set[Expected] = set()
    with open(path, "rb") as handle:
        source = handle.read()
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type != tokenize.COMMENT:
            continue
        match = _EXPECT.search(token.string)
        if match is None:
            continue
        for item in match.group("items").split(","):
            column, _, code = item.strip().partition(":")
            found.add(Expected(token.start[0], int(column), code.strip()))
    return found


def fixture_options(path: Path) -> list[str]:
    """Return the CLI options from the file's ``# fixture-options:`` first-line comment."""
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
    match = _OPTIONS.search(first[0]) if first else None
    return match.group("options").split() if match else []


def checker_fixtures() -> list[Path]:
    """Every fixture module of the checker, sorted."""
    return sorted((FIXTURES / "checker").rglob("*.py"))
