"""Every checker fixture module yields exactly the diagnostics written beside its code."""

from __future__ import annotations

from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.run.selection import Selection
from asynccfg_lint.frontends.cli import build_parser, command_line_overrides
from tests.expectations import Expected, checker_fixtures, expected_diagnostics, fixture_options


@pytest.mark.parametrize("path", checker_fixtures(), ids=lambda p: p.name)
def test_fixture(path):
    args = build_parser().parse_args(["check", *fixture_options(path), str(path)])
    diagnostics = check_source(path.read_bytes(), str(path), command_line_overrides(args).selection)
    actual = {Expected(d.line, d.column, d.code) for d in diagnostics}
    assert sorted(actual) == sorted(expected_diagnostics(path))


def test_every_fixture_has_expectations_or_says_clean():
    for path in checker_fixtures():
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "# expect:" in text or "clean look-alikes" in text, path


@pytest.mark.parametrize("fixture", ["tracing_forms.py", "dict_copies.py", "builders.py", "unknown_values.py"])
def test_findings_do_not_follow_the_order_of_libcsts_sets(fixture, monkeypatch):
    # libcst keeps a name's accesses and assignments in sets of identity-hashed objects, iterated in
    # memory-address order: tracing_forms.py's `cfg = {**cfg, ...}` rebound in 15 `if`s had its ACC201s
    # at other columns in about one run in eight. The findings must be the same in any order.
    from libcst.metadata.scope_provider import Access

    path = Path(__file__).parent / "fixtures" / "checker" / fixture
    selection = Selection(extend_select=("ACC201",))
    as_listed = check_source(path.read_bytes(), str(path), selection)
    referents = Access.referents
    monkeypatch.setattr(Access, "referents", property(lambda self: list(reversed(list(referents.fget(self))))))
    reversed_found = check_source(path.read_bytes(), str(path), selection)
    assert [(d.line, d.column, d.code) for d in reversed_found] == [(d.line, d.column, d.code) for d in as_listed]
