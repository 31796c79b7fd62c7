"""Copies of a source that libcst can parse, with every character where it was, and the map back.

CPython imports files libcst refuses or does not give back. For *checking* such a file, the
parse stage hands libcst a normalised copy in which no character moves (each edit keeps the
length of what it replaces, so lines and columns are the file's own):

- an undecodable byte (CPython accepts it in a comment) becomes one :data:`PLACEHOLDER` per byte;
- the tabs of a line's indentation become spaces: CPython accepts mixed indentation only when
  it orders lines the same with a tab counted as 8 columns and as 1, so counting it as one
  space keeps CPython's blocks, where libcst's tokenizer stops ("no matching outer block for
  dedent") or writes the block's indentation back differently;
- in a run of more implicitly concatenated strings than libcst's parser takes (3 000), two
  neighbours on one line with the same prefix and quote become one literal (``"a" "b"`` ->
  ``"a   b"``): the value is still a string of that kind.

What libcst then drops (a form feed or a backslash continuation before a line's first token)
is mapped back by :class:`PositionMap`. A file read through a copy is never written by ``fix``:
its bytes are not libcst's.
"""

from __future__ import annotations

import bisect
import codecs
import io
import re
import tokenize
from collections.abc import Iterator, Mapping

from libcst.metadata import CodePosition, CodeRange

#: what stands for an undecodable byte in the copy (one character per byte, as flake8's Latin-1 fallback counts)
PLACEHOLDER = "\ufffd"
_ERROR_HANDLER = "asynccfg-lint-placeholder"
codecs.register_error(_ERROR_HANDLER, lambda error: (PLACEHOLDER * (error.end - error.start), error.end))
#: implicitly concatenated strings libcst's native parser takes in one expression (measured, libcst 1.9.0)
LIBCST_MAX_STRINGS = 3000
#: line breaks as Python's tokenizer and libcst's positions count them
_LINE_BREAK = re.compile(r"\r\n?|\n")
_INDENTATION = re.compile(r"[ \t]*")
#: a line's leading whitespace as CPython's tokenizer reads it (a form feed resets the indentation count)
_LEADING_WHITESPACE = re.compile(r"[ \t\f]*")


def decode_with_placeholders(data: bytes, encoding: str) -> str:
    """``data`` decoded as ``encoding``, each undecodable byte read as one :data:`PLACEHOLDER`."""
    return data.decode(encoding, _ERROR_HANDLER)


def line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts (lines end at ``\\n``, ``\\r\\n``, ``\\r``)."""
    return [0] + [match.end() for match in _LINE_BREAK.finditer(text)]


def _tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text, newline="").readline))
    except (SyntaxError, tokenize.TokenError):  # not for CPython either: leave the text alone
        return None


def _inside_strings(tokens: list[tokenize.TokenInfo]) -> set[int]:
    """The 1-based lines that start inside a string or f-string (their leading whitespace is the string's)."""
    lines: set[int] = set()
    open_fstrings: list[int] = []
    for token in tokens:
        if token.type == tokenize.STRING:
            lines.update(range(token.start[0] + 1, token.end[0] + 1))
        elif token.type == getattr(tokenize, "FSTRING_START", None):
            open_fstrings.append(token.start[0])
        elif token.type == getattr(tokenize, "FSTRING_END", None) and open_fstrings:
            lines.update(range(open_fstrings.pop() + 1, token.end[0] + 1))
    return lines


def _replaced_in_leading_whitespace(text: str, leading: re.Pattern[str], char: str, by: str) -> str:
    """``text`` with ``char`` replaced by ``by`` in each line's leading whitespace (as ``leading``
    matches it); lines that start inside a string keep theirs, and a text ``tokenize`` rejects is kept."""
    if char not in text:
        return text
    tokens = _tokens(text)
    if tokens is None:
        return text
    inside = _inside_strings(tokens)
    lines = io.StringIO(text, newline="").readlines()
    for number, line in enumerate(lines, start=1):
        if number in inside:
            continue
        indentation = leading.match(line).group()  # type: ignore[union-attr]  # always matches
        if char in indentation:
            lines[number - 1] = indentation.replace(char, by) + line[len(indentation):]
    return "".join(lines)


def indentation_as_spaces(text: str) -> str:
    """``text`` with each tab of a line's leading whitespace made a space (lines inside strings kept)."""
    return _replaced_in_leading_whitespace(text, _INDENTATION, "\t", " ")


def without_line_start_form_feeds(text: str) -> str:
    """``text`` with each form feed of a line's leading whitespace removed (lines inside strings kept).

    CPython's tokenizer resets the indentation count at a form feed, so the line means the same;
    libcst moves such a form feed to the next line's start when it gives the text back, which a
    :class:`PositionMap` (characters dropped, none moved) cannot map. The copy drops them instead:
    positions in it map back by a ``PositionMap(text, copy)``.
    """
    return _replaced_in_leading_whitespace(text, _LEADING_WHITESPACE, "\f", "")


def _string_parts(text: str) -> tuple[str, str] | None:
    """(prefix, quote) of a string token that is not triple-quoted, else ``None``."""
    prefix = len(text) - len(text.lstrip("rRbBuU"))
    body = text[prefix:]
    if body[:3] in ('"""', "'''"):
        return None
    return text[:prefix].lower(), body[:1]


def merge_long_string_runs(text: str) -> str:
    """``text`` with the long runs of concatenated strings shortened (see the module's docstring)."""
    if text.count('"') + text.count("'") < 2 * LIBCST_MAX_STRINGS:
        return text
    tokens = _tokens(text)
    if tokens is None:
        return text
    starts = line_starts(text)
    characters = list(text)
    run: list[tokenize.TokenInfo] = []
    for token in [*tokens, None]:
        if token is not None and token.type == tokenize.STRING:
            run.append(token)
            continue
        if token is not None and token.type in (tokenize.NL, tokenize.COMMENT) and run:
            continue  # a run goes on across lines inside brackets
        if len(run) > LIBCST_MAX_STRINGS:
            for left, right in zip(run, run[1:]):
                parts = _string_parts(left.string)
                if parts is None or parts != _string_parts(right.string) or left.end[0] != right.start[0]:
                    continue
                line = starts[left.end[0] - 1]
                gap = text[line + left.end[1]:line + right.start[1]]
                if gap.strip(" \t"):
                    continue
                # the closing quote, the gap and the next literal's prefix and opening quote become spaces
                for offset in range(line + left.end[1] - 1, line + right.start[1] + len(parts[0]) + 1):
                    characters[offset] = " "
        run = []
    return "".join(characters)


class PositionMap:
    """Maps positions in libcst's text of a module back to the text it was given.

    libcst gives back the text less what it drops (a form feed or a backslash continuation
    before the first token of a line); ``code`` must be ``given`` with characters removed.

    Raises:
        ValueError: when ``code`` is not ``given`` with characters removed.
    """

    def __init__(self, given: str, code: str) -> None:
        # match from the end: what libcst drops lies before a line's first token, so the
        # characters after a dropped run are the file's own (its indentation included)
        to_given = [0] * (len(code) + 1)
        to_given[len(code)] = len(given)
        index = len(given) - 1
        for position in range(len(code) - 1, -1, -1):
            char = code[position]
            while index >= 0 and given[index] != char:
                index -= 1
            if index < 0:
                raise ValueError("libcst's text is not the file's with characters dropped")
            to_given[position] = index
            index -= 1
        self._to_given = to_given
        self._code_lines = line_starts(code)
        self._given_lines = line_starts(given)

    def _given_position(self, offset: int) -> CodePosition:
        line = bisect.bisect_right(self._given_lines, offset)
        return CodePosition(line, offset - self._given_lines[line - 1])

    def _code_offset(self, position: CodePosition) -> int:
        return self._code_lines[position.line - 1] + position.column

    def range(self, code_range: CodeRange) -> CodeRange:
        """``code_range`` (libcst's: 1-based lines, 0-based columns) in the given text."""
        start = self._code_offset(code_range.start)
        end = self._code_offset(code_range.end)
        given_start = self._to_given[start]
        given_end = self._to_given[end - 1] + 1 if end > start else given_start
        return CodeRange(self._given_position(given_start), self._given_position(given_end))


class MappedPositions(Mapping):
    """libcst's ``PositionProvider`` mapping with every range moved back by a :class:`PositionMap`."""

    def __init__(self, positions: Mapping, mapping: PositionMap) -> None:
        self._positions = positions
        self._mapping = mapping
        self._mapped: dict[int, CodeRange] = {}

    def __getitem__(self, node: object) -> CodeRange:
        key = id(node)
        if key not in self._mapped:
            self._mapped[key] = self._mapping.range(self._positions[node])
        return self._mapped[key]

    def __contains__(self, node: object) -> bool:
        return node in self._positions

    def __iter__(self) -> Iterator:
        return iter(self._positions)

    def __len__(self) -> int:
        return len(self._positions)
