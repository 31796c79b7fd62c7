"""The rule table, assembled from one module per rule code: the single source for code, docs and tests.

Each module (:mod:`~asynccfg_lint.rules.acc101`, ...) holds its rule's row, severity and message
templates; every front end (CLI, SARIF/GitHub/JSON output, flake8 plugin, language server) and
every generated rule page under ``docs/rules/`` reads this table; nothing else lists rule codes.
"""

from __future__ import annotations

from asynccfg_lint.rules import acc001, acc101, acc102, acc103, acc104, acc105, acc201
from asynccfg_lint.rules.rule import ERROR, WARNING, Rule

__all__ = ["DEFAULT_DISABLED", "ERROR", "MODULES", "RULES", "RULES_BY_CODE", "WARNING", "Rule", "severity"]

#: the rule modules, in code order
MODULES = (acc001, acc101, acc102, acc103, acc104, acc105, acc201)

RULES: tuple[Rule, ...] = tuple(module.RULE for module in MODULES)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
DEFAULT_DISABLED: tuple[str, ...] = tuple(rule.code for rule in RULES if not rule.default_enabled)


def severity(code: str) -> str:
    """:data:`ERROR` or :data:`WARNING` for rule ``code`` (raises ``KeyError`` for a code not in the table)."""
    return RULES_BY_CODE[code].severity
