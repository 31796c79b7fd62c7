"""Positions of a module's nodes, generated one top-level statement at a time.

libcst's ``PositionProvider`` generates the code of the whole module to place any node: in a module
of a few thousand lines with one finding, nearly all of that work is for statements nothing asks
about (the benchmark's dense tree: positions were a third of the analysis). :class:`StatementPositions`
runs the same code generation (libcst's ``PositionProvidingCodegenState``, so every range is libcst's)
over the top-level statement that holds the asked node only, starting at the line where CPython's
``ast`` of the same text puts that statement. The statement's generated code is compared with the
file's text at that line; where it differs (an ``ast`` line that is not the statement's first token,
as in ``@(\\n deco)``), or a node lies outside every statement (the module's header or footer, a
whitespace node the parents map leaves out), the whole module's positions are resolved as before.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata.position_provider import PositionProvider, PositionProvidingCodegenState

#: a line break as libcst's position provider counts them (its ``NEWLINE_RE``, libcst 1.9)
NEWLINE_RE = re.compile(r"\r\n?|\n")


def statement_lines(tree: ast.Module) -> tuple[int, ...]:
    """The 1-based line of the first token of each top-level statement of ``tree`` (CPython's ``ast``).

    A decorated definition's first token is its first decorator's ``@``, taken to be on the line of
    that decorator's expression (:class:`StatementPositions` checks it against the text).
    """
    return tuple(statement.decorator_list[0].lineno if getattr(statement, "decorator_list", None) else statement.lineno
                 for statement in tree.body)


def statement_first_lines(module: cst.Module, lines: tuple[int, ...]) -> dict[cst.CSTNode, int]:
    """Each top-level statement of ``module`` -> the 1-based line where its text begins (its leading blank and
    comment lines included), from ``lines``, the :func:`statement_lines` of CPython's ``ast`` of the same text.

    A statement that ``lines`` does not reach is left out. A line is right when the ``ast`` line of a decorated
    definition is its first decorator's ``@`` line (not so in ``@(\\n deco)``): callers check the text there.
    """
    first_lines: dict[cst.CSTNode, int] = {}
    index = 0
    for statement in module.body:
        if index >= len(lines):
            break
        first = lines[index] - len(statement.leading_lines)
        decorators = getattr(statement, "decorators", ())
        if decorators:
            first -= len(decorators[0].leading_lines)
        first_lines[statement] = first
        index += ast_statement_count(statement)
    return first_lines


def ast_statement_count(statement: cst.BaseStatement) -> int:
    """How many CPython ``ast`` statements the top-level libcst ``statement`` is (``a = 1; b = 2``: one libcst line, two)."""
    return len(statement.body) if type(statement) is cst.SimpleStatementLine else 1


class StatementPositions(Mapping):
    """Node -> ``CodeRange`` (libcst's ``PositionProvider`` ranges: 1-based lines, 0-based columns) of one module,
    generated per top-level statement on first use.

    Args:
        module: the parsed module; its code must be ``text`` (no :class:`~asynccfg_lint.analysis.normalise.PositionMap`).
        text: the module's source text.
        parents: node -> parent node (:func:`~asynccfg_lint.analysis.scopes.module_index`), to find a node's statement.
        lines: :func:`statement_lines` of CPython's ``ast`` of ``text``.
        resolve_all: the whole module's positions (libcst's ``PositionProvider``), called at most once,
            for what one statement cannot place.
    """

    def __init__(self, module: cst.Module, text: str, parents: Mapping[cst.CSTNode, cst.CSTNode],
                 lines: tuple[int, ...], resolve_all: Callable[[], Mapping]) -> None:
        self._module = module
        self._text = text
        self._parents = parents
        self._lines = lines
        self._resolve_all = resolve_all
        self._computed: dict[cst.CSTNode, CodeRange] = {}
        self._generated: set[cst.CSTNode] = set()  # the top-level statements whose positions are computed
        self._first_lines: dict[cst.CSTNode, int] | None = None  # top-level statement -> its first line
        self._line_starts: list[int] | None = None
        self._all: Mapping | None = None

    def __getitem__(self, node: object) -> CodeRange:
        found = self._computed.get(node)  # type: ignore[call-overload]
        if found is None and self._all is None:
            top = self._top_statement(node)
            if top is not None and self._generate(top):
                found = self._computed.get(node)  # type: ignore[call-overload]
        return found if found is not None else self._whole()[node]

    def __contains__(self, node: object) -> bool:
        """Whether ``node`` is a node of this module (its positions are made only when asked for)."""
        return node in self._computed or node is self._module or node in self._parents or node in self._whole()

    def __iter__(self) -> Iterator:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def _whole(self) -> Mapping:
        """The whole module's positions, resolved once."""
        if self._all is None:
            self._all = self._resolve_all()
        return self._all

    def _top_statement(self, node: object) -> cst.CSTNode | None:
        """The statement of the module's body that holds ``node`` (or is it), else ``None``."""
        parents = self._parents
        module = self._module
        current = node
        while True:
            parent = parents.get(current)  # type: ignore[call-overload]
            if parent is None:
                return None
            if parent is module:
                return current  # type: ignore[return-value]
            current = parent

    def _generate(self, top: cst.CSTNode) -> bool:
        """Compute the positions of ``top`` and all its nodes; ``False`` when its text is not where the ``ast`` says."""
        if top in self._generated:
            return True
        if self._first_lines is None:
            self._first_lines = statement_first_lines(self._module, self._lines)
        first = self._first_lines.get(top)
        if first is None:
            return False
        if self._line_starts is None:
            self._line_starts = [0] + [match.end() for match in NEWLINE_RE.finditer(self._text)]
        if not 1 <= first <= len(self._line_starts):
            return False
        provider = PositionProvider()
        state = PositionProvidingCodegenState(default_indent=self._module.default_indent,
                                              default_newline=self._module.default_newline,
                                              provider=provider, line=first, column=0)
        try:
            top._codegen(state)
        except RecursionError:
            return False
        code = "".join(state.tokens)
        if top is self._module.body[-1] and not self._module.has_trailing_newline:
            code = code.rstrip("\r\n")  # as the module's own code generation drops it (libcst's ranges keep it)
        if not self._text.startswith(code, self._line_starts[first - 1]):
            return False
        self._computed.update(provider._computed)
        self._generated.add(top)
        return True
