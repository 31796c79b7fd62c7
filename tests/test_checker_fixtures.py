"""Every checker fixture module yields exactly the diagnostics written beside its code."""

from __future__ import annotations

import pytest

from asynccfg_lint.analysis.checker import check_source
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
