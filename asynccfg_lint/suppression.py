"""Suppression: ``# noqa`` comments, with exactly flake8's semantics, for the CLI.

flake8 (``flake8/processor.py``, ``FileProcessor._noqa_line_mapping``) looks for ``# noqa``
on the physical line of the diagnostic, except that every line of a token spanning several
lines (a triple-quoted string) shares the joined text of all of them. The regular expression is
flake8's own ``flake8.defaults.NOQA_INLINE_REGEXP``. The flake8 plugin leaves suppression to
flake8 itself, so both front ends agree.
"""

from __future__ import annotations

import io
import re
import tokenize

# Same pattern as flake8.defaults.NOQA_INLINE_REGEXP (flake8 7.x); kept here so the CLI does
# not import flake8 at start-up. tests/test_cli.py checks it is still identical.
NOQA_INLINE_REGEXP = re.compile(
    r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?",
    re.IGNORECASE,
)


def noqa_lines(text: str) -> dict[int, str]:
    """Map each 1-based line number to the text searched for ``# noqa`` (flake8's mapping).

    Lines inside a multi-line token map to the joined text of the token's lines. When the
    file cannot be tokenized, each line maps to itself.
    """
    # Split physical lines as Python's tokenizer and flake8 do (\n, \r\n, \r), not with
    # str.splitlines, which also breaks at form feeds and other separators and would shift
    # every later line number.
    lines = io.StringIO(text, newline="").readlines()
    mapping: dict[int, str] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline="").readline))
    except (tokenize.TokenError, SyntaxError):
        return {number: line for number, line in enumerate(lines, start=1)}
    min_line, max_line = len(lines) + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        min_line = min(min_line, token.start[0])
        max_line = max(max_line, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            joined = "".join(lines[min_line - 1 : max_line])
            for number in range(min_line, max_line + 1):
                mapping[number] = joined
            min_line, max_line = len(lines) + 2, -1
    for number, line in enumerate(lines, start=1):
        mapping.setdefault(number, line)
    return mapping


def is_suppressed(code: str, noqa_text: str | None) -> bool:
    """True when ``noqa_text`` holds a bare ``# noqa`` or a ``# noqa:`` list naming ``code`` or a prefix of it."""
    if not noqa_text:
        return False
    match = NOQA_INLINE_REGEXP.search(noqa_text)
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        return True
    listed = {c for c in re.split(r"[,\s]+", codes) if c}
    return code in listed or code.startswith(tuple(listed))
