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


def _line_groups(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The physical lines of ``text`` and the ``(first, last)`` 1-based line ranges flake8 joins for ``# noqa``.

    A range is the lines from a token after a line break up to the next NL/NEWLINE token (a
    multi-line string, a backslash continuation); lines in no range stand alone. When the file
    cannot be tokenized there are no ranges.
    """
    # Split physical lines as Python's tokenizer and flake8 do (\n, \r\n, \r), not with
    # str.splitlines, which also breaks at form feeds and other separators and would shift
    # every later line number.
    lines = io.StringIO(text, newline="").readlines()
    groups: list[tuple[int, int]] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline="").readline))
    except (tokenize.TokenError, SyntaxError):
        return lines, []
    min_line, max_line = len(lines) + 2, -1
    for token in tokens:
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        min_line = min(min_line, token.start[0])
        max_line = max(max_line, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            groups.append((min_line, max_line))
            min_line, max_line = len(lines) + 2, -1
    return lines, groups


def noqa_lines(text: str) -> dict[int, str]:
    """Map each 1-based line number to the text searched for ``# noqa`` (flake8's mapping).

    Lines inside a multi-line token map to the joined text of the token's lines. When the
    file cannot be tokenized, each line maps to itself.
    """
    lines, groups = _line_groups(text)
    mapping: dict[int, str] = {}
    for first, last in groups:
        joined = "".join(lines[first - 1 : last])
        for number in range(first, last + 1):
            mapping[number] = joined
    for number, line in enumerate(lines, start=1):
        mapping.setdefault(number, line)
    return mapping


def noqa_rows(text: str) -> dict[int, int]:
    """Map each 1-based line number to the line a ``# noqa`` comment for it must go on (ruff's ``noqa_row``).

    That is the last line of its flake8 range (:func:`noqa_lines`): the line that closes a
    multi-line string or a backslash continuation, else the line itself.
    """
    lines, groups = _line_groups(text)
    rows = {number: number for number in range(1, len(lines) + 1)}
    for first, last in groups:
        for number in range(first, last + 1):
            rows[number] = last
    return rows


_LINE_END = re.compile(rb"(\r\n|\r|\n)?\Z")


def add_noqa(source: bytes, text: str, codes_by_line: dict[int, set[str]]) -> tuple[bytes, int]:
    """Add ``# noqa: CODE`` comments for the diagnostics of one file (``--add-noqa``).

    Args:
        source: the file's bytes, as read.
        text: the same source decoded (for tokenizing; BOM removed).
        codes_by_line: 1-based diagnostic line -> the codes reported there that are not suppressed.
    Returns:
        ``(new bytes, comments added or extended)``. Each code goes on its line's noqa row
        (:func:`noqa_rows`); a row that already has ``# noqa: X`` gets ``, CODE`` appended to its
        list (as ruff merges), a row without one gets ``  # noqa: CODES``; a code already listed
        is never added again. Line endings and encoding are kept: the comment is ASCII and goes
        before the row's line break, in the source's bytes.
    """
    rows = noqa_rows(text)
    wanted: dict[int, set[str]] = {}
    for line, codes in codes_by_line.items():
        wanted.setdefault(rows.get(line, line), set()).update(codes)
    physical = re.split(rb"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", source)
    added = 0
    for row, codes in sorted(wanted.items()):
        if not 1 <= row <= len(physical):
            continue
        raw = physical[row - 1]
        ending = _LINE_END.search(raw).group(0)  # type: ignore[union-attr]
        body = raw[: len(raw) - len(ending)]
        line = body.decode("latin-1")  # the comment is ASCII: a byte-for-byte view is enough to place it
        match = NOQA_INLINE_REGEXP.search(line)
        if match is not None and match.group("codes") is None:
            continue  # a bare # noqa already covers every code
        listed = set(re.split(r"[,\s]+", match.group("codes"))) - {""} if match is not None else set()
        new = sorted(code for code in codes if code not in listed and not code.startswith(tuple(listed)))
        if not new:
            continue
        if match is not None:
            end = match.end("codes")
            stripped = line[:end].rstrip(", \t")
            rest = line[end:]
            gap = " " if rest and not rest[0].isspace() and end > len(stripped) else ""
            line = stripped + ", " + ", ".join(new) + gap + rest
        else:
            line = line.rstrip(" \t") + "  # noqa: " + ", ".join(new)
        physical[row - 1] = line.encode("latin-1") + ending
        added += 1
    return b"".join(physical), added


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
