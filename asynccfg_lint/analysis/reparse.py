"""Re-parse an edited text by parsing again only the top-level statements the edit touched.

A language server checks a document again after each edit, and a libcst parse of the whole text was most of
that work (60 % of an edit of ``jax/_src/lax/parallel.py``, py-spy). An edit changes a few lines; the other
top-level statements of the previous tree are kept as they are (libcst nodes are immutable) and the changed
run of lines is parsed as a module of its own, from the first line of the statement before it to the end of
the statement after it, so that the boundaries of the piece lie between unchanged statements: libcst gives
each blank and comment line between two statements to one of them (the first one's block, the second one's
``leading_lines``) by what the statements hold, and both are parsed together with those lines.

The result is the tree a full parse of the new text gives (``tests/test_reparse.py`` compares the two with
libcst's ``deep_equals`` over edits of real modules); whenever that cannot be shown from the pieces (the edit
reaches the module's first statement or its header, the piece's indentation unit is not the module's,
the piece does not parse as whole statements), :func:`spliced_module` gives ``None`` and the caller parses the
whole text.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from asynccfg_lint.analysis.positions import ast_statement_count, statement_first_lines


def spliced_module(old: cst.Module, old_text: str, old_lines: tuple[int, ...], new_text: str,
                   new_lines: tuple[int, ...], parse: Callable[[str], cst.Module]) -> cst.Module | None:
    """The tree of ``new_text`` made from ``old`` (the tree of ``old_text``) and a parse of the lines that changed.

    Args:
        old: libcst's module of ``old_text``, whose code is ``old_text`` itself.
        old_text, new_text: the two texts; neither may hold a line break other than ``\\n`` (``\\r``, form feed and
            vertical tab are left to a full parse, as libcst may not give those back byte for byte).
        old_lines, new_lines: the 1-based first line of each top-level statement of each text by CPython's ``ast``
            (:func:`~asynccfg_lint.analysis.positions.statement_lines`).
        parse: parses a text to a libcst module (the parse stage's parser; ``libcst.ParserSyntaxError`` on bad syntax).
    Returns:
        the new module, or ``None`` when the edit cannot be parsed apart from the rest (the caller then parses
        the whole of ``new_text``).
    """
    old_rows, new_rows = old_text.split("\n"), new_text.split("\n")  # rows[i]: line i + 1 without its "\n"
    starts = _statement_starts(old, old_lines)
    if starts is None:
        return None
    first_changed, after_changed = _changed_rows(old_rows, new_rows)  # old rows [first, after) became others
    before = _statement_at(starts, first_changed - 1) - 1  # the statement before the one holding the row above
    after = _statement_at(starts, after_changed) + 1  # the statement after the one holding the row below
    if before < 0:  # the header may change
        return None
    body = old.body
    piece_start = old_lines[_ast_index(body, before)] - 1  # row of the statement's first token: its leading lines stay
    shift = len(new_rows) - len(old_rows)
    ends_module = after >= len(body) - 1  # the piece takes the module's footer
    piece_end = len(new_rows) if ends_module else starts[after + 1] - 1 + shift
    piece = "\n".join(new_rows[piece_start:piece_end]) + ("" if ends_module else "\n")
    try:
        parsed = parse(piece)
    except (cst.ParserSyntaxError, RecursionError):  # the piece is not whole statements: an ast line was not its first
        return None
    if parsed.header or not parsed.body or not _same_indentation_unit(old, before, after, parsed):
        return None
    if not ends_module and (parsed.footer or not parsed.has_trailing_newline):
        return None
    first = parsed.body[0].with_changes(leading_lines=body[before].leading_lines)
    if getattr(body[before], "decorators", ()) and body[before].decorators[0].leading_lines:
        return None  # (lines a decorator owns before it: the piece's parse gave them to the header)
    changes: dict = {"body": (*body[:before], first, *parsed.body[1:], *body[after + 1:])}
    if ends_module:
        changes.update(footer=parsed.footer, has_trailing_newline=parsed.has_trailing_newline)
    module = old.with_changes(**changes)
    if _ast_count(module.body) != len(new_lines):
        return None
    return module


def _same_indentation_unit(old: cst.Module, before: int, after: int, piece: cst.Module) -> bool:
    """Whether the piece's blocks and the module's are read against the same indentation unit in the new text.

    libcst takes a module's unit (``default_indent``) from its first indented block and stores a block's own
    indentation only where it differs. A piece that holds a block must have the module's unit, and the new
    text's first block must be one of the module's before the piece or the piece's first; a piece with no
    block needs neither, when the statements it replaces had none either (the first block is where it was).
    """
    def has_block(statements) -> bool:  # (a compound statement may have one)
        return any(type(s) is not cst.SimpleStatementLine for s in statements)

    block_before = any(isinstance(getattr(s, "body", None), cst.IndentedBlock) for s in old.body[:before])
    if has_block(piece.body):
        return piece.default_indent == old.default_indent and (block_before or not has_block(old.body[:before]))
    return block_before or not has_block(old.body[before:after + 1])


def _statement_starts(module: cst.Module, lines: tuple[int, ...]) -> list[int] | None:
    """The 1-based first line of each top-level statement, leading blank and comment lines included, in order."""
    first_lines = statement_first_lines(module, lines)
    starts = [first_lines.get(statement) for statement in module.body]
    if not starts or None in starts or starts[0] != len(module.header) + 1:
        return None
    return starts  # type: ignore[return-value]


def _changed_rows(old_rows: list[str], new_rows: list[str]) -> tuple[int, int]:
    """``(first, after)``: the old rows ``[first, after)`` (0-based) are replaced by other rows in the new text;
    the rows before ``first`` and from ``after`` on are the same in both."""
    first = 0
    for old_row, new_row in zip(old_rows, new_rows):
        if old_row != new_row:
            break
        first += 1
    same_end = 0
    limit = min(len(old_rows), len(new_rows)) - first
    while same_end < limit and old_rows[-1 - same_end] == new_rows[-1 - same_end]:
        same_end += 1
    return first, len(old_rows) - same_end


def _statement_at(starts: list[int], row: int) -> int:
    """The index of the statement whose lines hold the 0-based ``row`` (-1: the header; the last: the footer)."""
    line = row + 1
    low, high = 0, len(starts)
    while low < high:  # the last statement starting at or before line
        middle = (low + high) // 2
        if starts[middle] <= line:
            low = middle + 1
        else:
            high = middle
    return low - 1


def _ast_index(body: tuple[cst.BaseStatement, ...] | list, index: int) -> int:
    """The index among CPython's ``ast`` statements of the libcst statement ``body[index]``."""
    return _ast_count(body[:index])


def _ast_count(body) -> int:
    """How many ``ast`` statements the libcst statements ``body`` are."""
    return sum(map(ast_statement_count, body))
