"""Rule pages as ``asynccfg-lint rule`` prints them: the same renderer as ``docs/rules/``, with fix safety."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from asynccfg_lint.analysis import type_verdicts as catalog
from asynccfg_lint.rules.pages import (
    GENERATED_NOTE,
    FixRow,
    UnknownRuleError,
    find_rule,
    fix_rows,
    rule_listing,
    rule_page,
)
from asynccfg_lint.rules import RULES

RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_rule_listing_is_one_aligned_line_per_code():
    assert rule_listing() == (
        "ACC001  unparsable-file                The file could not be read or parsed, or the checker failed on it "
        "(an internal error), so it was not analysed.\n"
        "ACC101  unsupported-value-type         A config value of a type JAX's JSON serializer rejects.\n"
        "ACC102  unsupported-key-type           A config dict key that is not str, int, float, bool or None.\n"
        "ACC103  non-finite-float               A NaN or infinite float in the config.\n"
        "ACC104  special-key-without-attribute  `channel_handle` without `.handle`, or `use_global_device_ids` "
        "without `.value`.\n"
        "ACC105  wrong-json-type-for-xla-key    A value of the wrong JSON type under a key XLA parses (tiled, "
        "channel_id, replica_groups, ...).\n"
        "ACC201  unknown-value-type             A config value whose type the checker cannot determine (opt-in).\n"
    )


def test_page_of_a_rule_with_fixes():
    page = rule_page("ACC101")
    assert page.startswith("# ACC101: unsupported-value-type\n\nStatus: on by default.\n\n## What it does\n\n")
    assert GENERATED_NOTE not in page
    assert "| fix | safety | applies to |\n|---|---|---|\n" in page
    assert "| `bool(x)` | safe | `numpy.bool_`, a jax/torch scalar whose kind is known to be bool |\n" in page
    assert "| `x.tolist()` | safe | `jax.Array`, `torch.Tensor` |\n" in page
    assert "| `x.value` | unsafe | `enum.Enum member`" in page
    assert "| `sorted(x)` | unsafe | `set`, `frozenset`, when its elements are known to be all numbers or all str |\n" in page
    assert "| `list(x)` | unsafe | `set`, `frozenset`, when its elements are not known to be all numbers or all str |\n" \
        in page
    assert "| `float(x)` | unsafe | `decimal.Decimal`, `fractions.Fraction` |\n" in page
    assert "| `int(x)` | safe | a jax/torch scalar whose kind is known to be int |\n" in page
    assert page.endswith("gets no fix.\n")


def test_page_of_a_key_rule_and_a_rule_without_fix():
    page = rule_page(" acc102 ")  # codes are looked up case-insensitively
    assert page.startswith("# ACC102: unsupported-key-type\n")
    assert re.search(r"\| `int\(k\)` \| safe \| `numpy integer`, `numpy.int8`, `numpy.int16`, `numpy.int32`, "
                     r"`numpy.int64`, `numpy.uint8`, `numpy.uint16`, `numpy.uint32`, `numpy.uint64`, "
                     r"`numpy.intc`, `numpy.uintc`, `numpy.intp` and \d+ more, unsafe when another key of the dict "
                     r"is unknown, none when one equals the converted key \|\n", page)
    assert rule_page("ACC103").endswith(
        "\n\n**Fix safety.** No automatic fix: the right value is a decision the checker cannot make for you.\n")
    assert "Status: off by default; turn it on with `--extend-select ACC201` (CLI and flake8)." in rule_page("ACC201")


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_printed_page_is_the_docs_page_without_its_generated_note(rule):
    committed = (RULES_DIR / f"{rule.code}.md").read_text(encoding="utf-8")
    assert rule_page(rule.code) == committed.replace(f"{GENERATED_NOTE}\n\n", "", 1)


def test_unknown_code():
    with pytest.raises(UnknownRuleError, match=r"unknown rule code or name 'ACC999'; known codes: ACC001, ACC101, .*ACC201$"):
        rule_page("ACC999")
    assert find_rule("ACC105").name == "wrong-json-type-for-xla-key"


def test_fix_rows_cover_every_fix_template_of_the_catalog():
    rows = {(row.fix, row.safety) for code in ("ACC101", "ACC102") for row in fix_rows(code)}
    templates = [value for value in vars(catalog).values() if isinstance(value, catalog.FixTemplate)]
    for template in templates:
        shown = {template.template.format("x"), template.template.format("k")}
        assert any((fix, template.safety) in rows for fix in shown), template
    assert [code for code in (rule.code for rule in RULES) if fix_rows(code)] == ["ACC101", "ACC102"]
    key_row, float_row, wide_row = fix_rows("ACC102")
    assert (key_row.fix, key_row.safety, key_row.applies_to[0]) == ("int(k)", "safe", "numpy integer")
    assert all(name.startswith("numpy") for name in key_row.applies_to) and len(key_row.applies_to) > 12
    # a numpy float key's fix is float(k) (int(k) would merge 0.25 and 0.75); wider than a double, unsafe
    assert (float_row.fix, float_row.safety, float_row.applies_to[:3]) == (
        "float(k)", "safe", ("numpy floating", "numpy.float16", "numpy.float32"))
    assert (wide_row.fix, wide_row.safety, wide_row.applies_to[0]) == ("float(k)", "unsafe", "numpy.longdouble")
    assert fix_rows("ACC101")[0] == FixRow("bool(x)", "safe", ("numpy.bool_",),
                                           "a jax/torch scalar whose kind is known to be bool")
