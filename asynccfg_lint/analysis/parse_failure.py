"""Why a file was not analysed: the reason shown as its ACC001."""

from __future__ import annotations


class ParseFailure(Exception):
    """The file could not be decoded or parsed; ``str(exc)`` is the reason shown as ACC001.

    Attributes:
        line, column: 1-based position of the problem when known, else 1, 1.
        timed_out: libcst's parse was given up after :data:`~asynccfg_lint.analysis.large_stack.DEEP_PARSE_SECONDS`.
    """

    def __init__(self, reason: str, line: int = 1, column: int = 1, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.line = line
        self.column = column
        self.timed_out = timed_out
