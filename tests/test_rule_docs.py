"""The committed rule pages are the generator's output, and their examples say what the checker does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.rules import RULES
from asynccfg_lint.run.selection import Selection

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _load_generator():
    spec = importlib.util.spec_from_file_location("generate_rule_pages", DOCS / "generate_rule_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generator = _load_generator()


def test_committed_pages_equal_the_generator_output():
    committed = {path.name: path.read_text(encoding="utf-8") for path in (DOCS / "rules").glob("*.md")}
    assert sorted(committed) == sorted([f"{rule.code}.md" for rule in RULES] + ["README.md"])
    assert committed == generator.pages(), "run: python docs/generate_rule_pages.py"


def test_check_mode_agrees():
    assert generator.main(["--check"]) == 0


def test_page_sections():
    page = generator.render_page(RULES[1])
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert headings == [
        "# ACC101: unsupported-value-type", "## What it does", "## Why is this bad", "## Example", "## Use instead",
    ]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_example_is_reported_and_fix_is_clean(rule):
    every_rule = Selection(select=("ACC",))
    bad = check_source(generator.example_module(rule.bad_example), "example.py", every_rule)
    good = check_source(generator.example_module(rule.good_example), "example.py", every_rule)
    assert [d.code for d in bad] == [rule.code]
    assert good == []


def test_the_readme_lists_every_rule():
    """The README's rules table is written by hand: it names every code of the rule table, in order."""
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    listed = [line.split("|")[1].strip() for line in readme.splitlines() if line.startswith("| ACC")]
    assert listed == [rule.code for rule in RULES]
