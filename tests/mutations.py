"""A Hypothesis strategy that reformats the fixture corpus without changing what the code means.

Generated programs rarely vary formatting (the crash of issue 14 hid there), so :data:`mutated`
takes a real fixture module and applies edits at token boundaries that keep its meaning:

- ``keyword_break``: a line break before a keyword inside brackets (``(nan\\n  as NaN)``);
- ``tight_keyword``: no space between a keyword and a bracket, number or string around it
  (``not(x)``, ``return(x)``, ``1if x else 2``);
- ``parentheses``: redundant parentheses around a whole element of a display or call (``((x))``);
- ``comment``: a comment and a line break after an opening bracket or a comma;
- ``tab``: a tab instead of the spaces between two tokens;
- ``crlf``: every line break as ``\\r\\n``.

An edit that makes the module fail to compile is dropped, so every drawn :class:`Mutant` is
valid Python with the original's findings (their positions move).
"""

from __future__ import annotations

import functools
import io
import keyword
import tokenize
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

FIXTURES = Path(__file__).parent / "fixtures"
#: corpus files larger than this are left out (each example compiles the module once per edit)
MAX_BYTES = 20_000
#: keywords that may follow a line break inside brackets
BREAKABLE = {"as", "if", "else", "for", "in", "and", "or", "not", "is", "async", "lambda"}
#: keywords that may touch a bracket, number or string with no space between
TIGHT = {"not", "in", "if", "else", "and", "or", "is", "return", "assert", "yield", "await", "lambda", "for", "del"}
_OPENING = {"(", "[", "{"}
_CLOSING = {")", "]", "}"}
#: the first word of a line whose names must stay bare (parameters, imported names, patterns, targets)
_BARE_LINES = {"def", "async", "class", "import", "from", "case", "global", "nonlocal", "type", "@"}


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement``; ``kind`` names the mutation."""

    kind: str
    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class Mutant:
    """A reformatted fixture: its bytes, the original's bytes and the edits that made it."""

    path: Path
    original: bytes
    data: bytes
    kinds: tuple[str, ...]


def corpus() -> list[Path]:
    """The fixture modules the mutations start from (small ones that CPython compiles)."""
    paths = []
    for path in sorted(FIXTURES.rglob("*.py")):
        data = path.read_bytes()
        if len(data) > MAX_BYTES or b"_emit_async_start_custom_call" not in data and b"emit" not in data:
            continue
        try:
            compile(data, str(path), "exec", dont_inherit=True)
            _decode(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
            continue
        paths.append(path)
    return paths


def _decode(data: bytes) -> tuple[str, str]:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def candidate_edits(text: str) -> list[Edit]:
    """Every edit of the kinds above that the token stream of ``text`` allows (one per site)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text, newline="").readline))
    starts = [0]
    for line in io.StringIO(text, newline="").readlines():
        starts.append(starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return starts[position[0] - 1] + position[1]

    edits: list[Edit] = []
    depth = 0
    fstring = 0
    line_word = ""
    in_lambda = False
    meaningful = [t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    for index, token in enumerate(meaningful):
        previous = meaningful[index - 1] if index else None
        following = meaningful[index + 1] if index + 1 < len(meaningful) else None
        if token.type == getattr(tokenize, "FSTRING_START", -1):
            fstring += 1
        elif token.type == getattr(tokenize, "FSTRING_END", -1):
            fstring -= 1
            continue
        if fstring:
            continue
        if previous is None or previous.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            line_word = token.string
            in_lambda = False
        if token.string == "lambda":
            in_lambda = True
        elif token.string == ":" and in_lambda:
            in_lambda = False
        same_line_gap = previous is not None and previous.end[0] == token.start[0]
        gap = text[offset(previous.end):offset(token.start)] if same_line_gap else ""
        if token.type == tokenize.NAME and token.string in BREAKABLE and depth > 0 and gap == " ":
            edits.append(Edit("keyword_break", offset(previous.end), offset(token.start), "\n    "))
        if gap == " " and previous is not None:
            plain_number = previous.type == tokenize.NUMBER and previous.string.replace("_", "").isdigit()
            tight_after = previous.string in TIGHT and (token.string in _OPENING or token.type == tokenize.STRING)
            tight_before = token.string in TIGHT - {"lambda"} and (plain_number or previous.string in _CLOSING)
            if tight_after or tight_before:
                edits.append(Edit("tight_keyword", offset(previous.end), offset(token.start), ""))
        if " " in gap and not gap.strip(" "):
            edits.append(Edit("tab", offset(previous.end), offset(token.start), "\t"))
        atom = token.type in (tokenize.NUMBER, tokenize.STRING) or (
            token.type == tokenize.NAME
            and (not keyword.iskeyword(token.string) or token.string in ("True", "False", "None")))
        whole_element = (depth > 0 and atom and line_word not in _BARE_LINES and not in_lambda
                         and previous is not None and previous.string in _OPENING | {",", ":", "="}
                         and following is not None and following.string in _CLOSING | {","})
        if whole_element:
            edits.append(Edit("parentheses", offset(token.start), offset(token.end), f"(({token.string}))"))
        opens = token.type == tokenize.OP and token.string in _OPENING
        same_line = following is not None and following.start[0] == token.end[0]
        if (opens or token.string == "," and depth > 0) and same_line:
            edits.append(Edit("comment", offset(token.end), offset(token.end), "  # a comment\n    "))
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSING:
            depth -= 1
    return edits


def apply(text: str, edits: list[Edit]) -> tuple[str, tuple[str, ...]]:
    """``text`` with those of ``edits`` applied that keep it compiling (from the last to the first)."""
    kinds = []
    limit = len(text)  # where the last applied edit starts: an edit reaching past it overlaps it
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        if edit.end > limit:
            continue
        changed = text[:edit.start] + edit.replacement + text[edit.end:]
        try:
            compile(changed, "<mutant>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        text = changed
        limit = edit.start
        kinds.append(edit.kind)
    return text, tuple(kinds)


@functools.cache
def _sites(path: Path) -> tuple[bytes, str, str, dict[str, list[Edit]]]:
    """``path``'s bytes, text, encoding and candidate edits by kind (tokenized once per session, not per example)."""
    original = path.read_bytes()
    text, encoding = _decode(original)
    by_kind: dict[str, list[Edit]] = {}
    for edit in candidate_edits(text):
        by_kind.setdefault(edit.kind, []).append(edit)
    return original, text, encoding, by_kind


@st.composite
def mutated(draw) -> Mutant:
    """A corpus module with a drawn set of meaning-keeping edits (and maybe CRLF line breaks)."""
    path = draw(st.sampled_from(CORPUS))
    original, text, encoding, by_kind = _sites(path)
    chosen = []  # a few of each kind: the rare sites (keywords) are drawn as often as the common ones (gaps)
    for kind in sorted(by_kind):
        chosen += draw(st.lists(st.sampled_from(by_kind[kind]), max_size=4, unique=True), label=kind)
    text, kinds = apply(text, chosen)
    if draw(st.booleans()) and "\r" not in text:
        text = text.replace("\n", "\r\n")
        kinds += ("crlf",)
    bom = b"\xef\xbb\xbf" if original.startswith(b"\xef\xbb\xbf") else b""
    data = bom + text.encode("utf-8" if encoding == "utf-8-sig" else encoding, "surrogateescape")
    return Mutant(path, original, data, kinds)


CORPUS = corpus()
