"""ACC001 unparsable-file: a file the checker could not read, decode or parse."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule

#: an unanalysed file is a failed check (CI must not pass it silently): an error everywhere
SEVERITY = ERROR

RULE = Rule(
    code="ACC001",
    name="unparsable-file",
    summary="The file could not be read or parsed, so it was not analysed.",
    failure="Nothing in JAX; the checker cannot see the file (flake8 reports E999 itself).",
    default_enabled=True,
    bad_example="def f(:\n    pass\n",
    good_example="def f():\n    pass\n",
    severity=SEVERITY,
)

#: the message's start; the flake8 plugin tells Python's own rejections (E999) from libcst's by what follows
PREFIX = "file not analysed: "


def not_analysed(reason: object) -> str:
    """The message of a file not analysed because of ``reason`` (a parse failure, ``OSError.strerror``)."""
    return f"{PREFIX}{reason}"
