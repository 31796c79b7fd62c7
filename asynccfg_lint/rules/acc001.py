"""ACC001 unparsable-file: a file the checker could not read, decode or parse."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule

#: an unanalysed file is a failed check (CI must not pass it silently): an error everywhere
SEVERITY = ERROR

RULE = Rule(
    code="ACC001",
    name="unparsable-file",
    summary="The file could not be read or parsed, or the checker failed on it (an internal error), so it was not "
            "analysed.",
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


#: the prefix of every internal-error message (front ends and tests recognise it)
INTERNAL_ERROR = "internal error"
#: what a user does with an internal error (this project has no public tracker URL yet)
HOW_TO_REPORT = ("this is a bug in asynccfg-lint, not in your file: please report it with the file to the "
                 "asynccfg-lint maintainers (--verbose prints the traceback)")


def internal_error(what: str) -> str:
    """The message of a file the checker failed on: ``what`` is ``<type>: <first line of the exception>``."""
    return f"{INTERNAL_ERROR}: {what}; {HOW_TO_REPORT}"
