"""Parse stage: source bytes or text to a libcst module with the metadata every stage uses."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import threading
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata import QualifiedName, QualifiedNameSource

from asynccfg_lint.run.collector import collector_paused
from asynccfg_lint.run.discovery import ModuleName, module_name_for
from asynccfg_lint.analysis.elision import (
    ElidedBody,
    LeftOutCalls,
    NameReach,
    elided_module,
    MIN_ELIDED_LINES,
    guard_references,
    left_out_strings,
    left_out_words,
    skeleton,
    statement_words,
    units_naming,
    units_to_keep,
)
from asynccfg_lint.analysis.large_stack import DEEP_ANALYSIS_SECONDS, on_a_large_stack
from asynccfg_lint.analysis.libcst_workarounds import install_libcst_repairs
from asynccfg_lint.analysis.normalise import (
    LIBCST_MAX_STRINGS,
    MappedPositions,
    PositionMap,
    decode_with_placeholders,
    indentation_as_spaces,
    merge_long_string_runs,
    without_line_start_form_feeds,
)
from asynccfg_lint.analysis.parse_failure import ParseFailure
from asynccfg_lint.analysis.positions import StatementPositions, statement_lines
from asynccfg_lint.analysis.reparse import spliced_module
from asynccfg_lint.analysis.scopes import module_index


#: an identifier after a dot (``helpers.build_1``), a line importing names (``from ext.helpers import build``), a word
_ATTRIBUTE_WORD = re.compile(r"\.\s*([^\W\d]\w*)")
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t].*?import[ \t].*$", re.MULTILINE)
_WORD = re.compile(r"[^\W\d]\w*")

_Fact = TypeVar("_Fact")
_Result = TypeVar("_Result")


class ModuleMemo(Generic[_Fact]):
    """What one analysis stage derives from a whole :class:`ParsedModule`, kept per module.

    Each stage owns its memo (a module-level ``ModuleMemo[T]``), so the facts are typed where they
    are made. They are kept on the module (its private ``_memos``, keyed by the memo), so they go
    away with it and no weak-reference callback runs (one that a Ctrl-C lands in swallows it).
    ``of(parsed)`` gives the module's fact, made by ``make()`` on first use; a stage that fills it
    in place (a dict of sub-results) gets the same object back each time.
    """

    def __init__(self, make: Callable[[], _Fact]) -> None:
        self._make = make

    def of(self, parsed: ParsedModule) -> _Fact:
        """The fact of ``parsed``, made empty on first use."""
        fact = parsed._memos.get(self)
        if fact is None:
            fact = parsed._memos[self] = self._make()
        return fact

    def known(self, parsed: ParsedModule) -> _Fact | None:
        """The fact of ``parsed`` if one was made, else ``None`` (nothing is made)."""
        return parsed._memos.get(self)

    def put(self, parsed: ParsedModule, fact: _Fact) -> _Fact:
        """Keep ``fact`` as ``parsed``'s and return it."""
        parsed._memos[self] = fact
        return fact


@dataclass(eq=False)  # compared and hashed by identity
class ParsedModule:
    """A parsed file and its resolved metadata.

    Attributes:
        path: the display path.
        text: the decoded source text (positions index into it; an undecodable byte is
            :data:`~asynccfg_lint.analysis.normalise.PLACEHOLDER`).
        wrapper: the libcst ``MetadataWrapper`` (its ``.module`` is the tree the metadata refers to).
        name: the module's dotted name and package (for fully qualified local names).
        scopes: node -> its libcst ``Scope``, as ``ScopeProvider`` gives it (:func:`asynccfg_lint.analysis.scopes.module_scopes`).
        parents: node -> its parent node (the module has none), as ``ParentNodeProvider`` gives
            (:func:`asynccfg_lint.analysis.scopes.module_index`).
        calls: every ``Call`` node of the module, in the order libcst's visitor meets them (an outer
            call before the calls in its arguments).
    """

    path: str
    text: str
    wrapper: MetadataWrapper
    name: ModuleName
    scopes: dict
    parents: dict
    calls: list
    #: the tree is deeper than :data:`DEEP_TREE_DEPTH` (or libcst recursed too deep on it): analyse it,
    #: generate its code and fix it through :meth:`run` (on a large stack)
    deep: bool = False
    #: why libcst's tree is not the file's text byte for byte (it was read through a normalised
    #: copy, or libcst drops characters), or ``None``; ``fix`` writes no such file
    inexact: str | None = None
    #: the first line of each top-level statement by CPython's ``ast`` (:func:`~asynccfg_lint.analysis.positions.statement_lines`),
    #: for positions generated one statement at a time; ``None`` for a deep module or one read through a copy
    statement_lines: tuple[int, ...] | None = None
    _position_map: PositionMap | None = field(default=None, repr=False)
    _positions: Mapping | None = field(default=None, repr=False)
    _qualnames: dict = field(default_factory=dict, repr=False)
    #: each stage's facts about the module, by its :class:`ModuleMemo` (read and written only through it)
    _memos: dict = field(default_factory=dict, repr=False)
    _text_has: dict = field(default_factory=dict, repr=False)
    #: a skeleton's left-out bodies (:func:`~asynccfg_lint.analysis.elision.skeleton`): ``(unit, ordinal)`` -> text;
    #: empty for a whole module
    elided: dict = field(default_factory=dict, repr=False)
    #: a skeleton's top-level statements: (names bound, words of the file's text), :func:`~asynccfg_lint.analysis.elision.statement_words`
    statement_words: list = field(default_factory=list, repr=False)
    _reaching: dict = field(default_factory=dict, repr=False)
    #: a skeleton's :func:`~asynccfg_lint.analysis.elision.left_out_words` (each identifier of its left-out bodies ->
    #: their units), made with it
    left_out_words: dict = field(default_factory=dict, repr=False)
    _name_reach: NameReach | None = field(default=None, repr=False)
    _left_out_strings: dict | None = field(default=None, repr=False)
    _read_words: frozenset | None = field(default=None, repr=False)

    def whole(self) -> None:
        """Go on only with the whole module: a scan of all its code (every call, every statement).

        Raises:
            ElidedBody: naming the whole module, when this is a skeleton.
        """
        if self.elided:
            raise ElidedBody(self.path, None)

    def words_reaching(self, seeds: Iterable[str]) -> frozenset[str]:
        """``seeds`` and the top-level names of this module that reach one, at any depth
        (:class:`~asynccfg_lint.analysis.elision.NameReach`, over the whole text's statements): the words a
        left-out body may use for them. Kept per seeds; only a skeleton has the statements' words."""
        key = frozenset(seeds)
        found = self._reaching.get(key)
        if found is None:
            if self._name_reach is None:
                self._name_reach = NameReach(self.statement_words)
            found = self._reaching[key] = self._name_reach(key)
        return found

    def require_reaching(self, seeds: Iterable[str]) -> None:
        """:meth:`require` the :meth:`words_reaching` ``seeds`` (nothing in a whole module): what a scan for the code
        that uses the names ``seeds`` (a sink's, a primitive's) needs of a skeleton's left-out bodies.

        Raises:
            ElidedBody: naming the units whose left-out bodies name one of those words.
        """
        if self.elided:
            self.require(*self.words_reaching(seeds))

    def require(self, *words: str) -> None:
        """Go on only when no left-out body of a skeleton has one of ``words`` as an identifier: a scan of what the
        code does with a name (its accesses, writes of an attribute of that name) would miss them there.

        Raises:
            ElidedBody: naming the units whose left-out bodies name one of them.
        """
        if self.elided and (units := self.units_naming(words)):
            raise ElidedBody(self.path, units)

    def require_string(self, value: str) -> None:
        """:meth:`require` for the code holding the string ``value`` (a config key, ``d["key"]``): the units whose
        left-out bodies have a string constant of that value, however written (``"mo" "de"``, escapes), as CPython's
        ``ast`` of each body gives them (:func:`~asynccfg_lint.analysis.elision.left_out_strings`).

        Raises:
            ElidedBody: naming those units (the whole module when a body's constants cannot be read).
        """
        if not self.elided:
            return
        if self._left_out_strings is None:
            self._left_out_strings = left_out_strings(self.elided)
            if self._left_out_strings is None:
                self.whole()
        units = frozenset(unit for unit, strings in self._left_out_strings.items() if value in strings)
        if units:
            raise ElidedBody(self.path, units)

    def units_naming(self, words: Iterable[str]) -> frozenset[str]:
        """The units of a skeleton whose left-out bodies have one of ``words`` as an identifier (none of a whole
        module)."""
        return units_naming(self.left_out_words, words)

    @property
    def read_words(self) -> frozenset[str]:
        """The names this module may read of another module: each identifier after a ``.`` and each word of a
        ``from ... import`` line (a superset; computed once)."""
        if self._read_words is None:
            self._read_words = frozenset(_ATTRIBUTE_WORD.findall(self.text)) | frozenset(
                word for line in _FROM_IMPORT.findall(self.text) for word in _WORD.findall(line))
        return self._read_words

    def text_has(self, needle: str) -> bool:
        """Whether :attr:`text` contains ``needle``, searched once per module and string: the analysis asks per
        name used (``cfg.items()``), and a search per question was quadratic in a module of thousands of rules."""
        found = self._text_has.get(needle)
        if found is None:
            found = self._text_has[needle] = needle in self.text
        return found

    @property
    def positions(self) -> Mapping:
        """Node -> ``CodeRange`` (1-based lines, 0-based columns), resolved on first use.

        Summaries never need positions; only a module with something to report pays for them, and
        then, where libcst's code is the file's text, only for the top-level statements asked about
        (:class:`~asynccfg_lint.analysis.positions.StatementPositions`).
        Where libcst dropped characters of the file, its ranges are mapped back to the file's.
        A tree too deep for libcst's position visitor on this thread is resolved by
        :func:`~asynccfg_lint.analysis.large_stack.on_a_large_stack` (the parse's own walks are shallower and took it here).
        """
        if self._positions is None and self._position_map is None and self.statement_lines is not None:  # not deep
            self._positions = StatementPositions(self.module, self.text, self.parents, self.statement_lines,
                                                 self._all_positions)
        if self._positions is None:
            self._positions = self._all_positions()
        return self._positions

    def _all_positions(self) -> Mapping:
        """libcst's positions of every node, by a code generation of the whole module."""
        try:
            positions = self.wrapper.resolve(PositionProvider)
        except RecursionError:  # a deep tree the parse took on the default stack: libcst's visitor is deeper
            positions = on_a_large_stack(lambda: self.wrapper.resolve(PositionProvider))
        mapping = self._position_map
        return positions if mapping is None else MappedPositions(positions, mapping)

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """The fully qualified names ``node`` may refer to, as ``FullyQualifiedNameProvider`` gives them.

        Computed on demand for the few nodes the analysis asks about: resolving the provider for
        every node of a large module costs more than the rest of the analysis together.
        """
        key = id(node)
        if key not in self._qualnames:
            scope = self.scopes.get(node)
            names = scope.get_qualified_names_for(node) if scope is not None else ()
            found = frozenset(self.absolute(q) for q in names)
            kind = type(node)
            if kind is cst.Subscript and (index := literal_index(subscript_index(node))) is not None:
                # an element of a table of primitives (`m_p[125]`): its own name beside the table's
                found |= {f"{name}[{index}]" for name in self.qualified_names(node.value)}
            elif kind is cst.Attribute and type(node.value) is cst.Subscript:  # `m_p[125].bind`
                found |= {f"{name}.{node.attr.value}" for name in self.qualified_names(node.value) if name.endswith("]")}
            self._qualnames[key] = found
        return self._qualnames[key]

    def absolute(self, qualified: QualifiedName) -> str:
        """``qualified`` made absolute against this module's package (relative imports)."""
        try:
            return fully_qualified(self.name.name, self.name.package, qualified)
        except ImportError:  # a relative import beyond the top-level package
            return qualified.name

    def imported(self, statement: cst.ImportFrom, alias: cst.ImportAlias) -> str:
        """The absolute qualified name ``from <module> import <alias>`` (a statement of this module) binds: a
        relative import resolved as :meth:`absolute` does (``from .api import send`` in ``pkg/__init__.py``:
        ``pkg.api.send``)."""
        base = "." * len(statement.relative) + (get_full_name_for_node(statement.module) or "" if statement.module else "")
        name = get_full_name_for_node(alias.name) or ""
        return self.absolute(QualifiedName(f"{base}.{name}" if base and not base.endswith(".") else base + name,
                                           QualifiedNameSource.IMPORT))

    @property
    def module(self) -> cst.Module:
        """The parsed module."""
        return self.wrapper.module

    def run(self, function: Callable[[], _Result]) -> _Result:
        """``function()`` (a stage that walks this module), on a large stack when the module is :attr:`deep`.

        A shallow module's stage that recurses too deep (its analysis reached a deep module of the
        project: a builder imported from it) runs again on the large stack. What the first try kept
        in the modules' ``facts`` is complete or added to the same way again (each fact is written
        once it is known, or with ``setdefault``).

        In a process the tool owns, the stage runs with libcst's node validation paused (:func:`validation_paused`):
        a libcst visitor builds a copy of every node it passes, each validated.

        Raises:
            what ``function`` raises; ParseFailure when a stage on the large stack takes longer than
            :data:`~asynccfg_lint.analysis.large_stack.DEEP_ANALYSIS_SECONDS`.
        """
        with validation_paused():
            if not self.deep:
                try:
                    return function()
                except RecursionError:
                    pass
            return on_a_large_stack(function, "the analysis did not finish", DEEP_ANALYSIS_SECONDS)


def fully_qualified(module_name: str, package: str, qualified: QualifiedName) -> str:
    """``qualified``'s name made absolute in the module ``module_name`` of ``package``, as libcst's
    ``FullyQualifiedNameProvider`` makes it (libcst 1.9): builtins and absolute imports are already; a
    relative import is resolved against the package as ``importlib`` does; a local name gets the module's.

    Raises:
        ImportError: for a relative import beyond the top-level package.
    """
    name = qualified.name
    if qualified.source == QualifiedNameSource.BUILTIN or (
            qualified.source == QualifiedNameSource.IMPORT and not name.startswith(".")):
        return name
    absolute = name.lstrip(".")
    dots = len(name) - len(absolute)
    if dots:
        bits = package.rsplit(".", dots - 1)
        if len(bits) < dots:
            raise ImportError("attempted relative import beyond top-level package")
        module_name = bits[0]
    return f"{module_name}.{absolute}"


def subscript_index(subscript: cst.Subscript) -> cst.BaseExpression | None:
    """The one index expression of ``subscript`` (``125`` of ``m_p[125]``), else ``None`` (a slice, several)."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    return subscript.slice[0].slice.value


def literal_index(index: cst.BaseExpression | None) -> str | None:
    """The ``repr`` of ``index`` when it is an int or string literal (``125``, ``"push"``), else ``None``."""
    return repr(index.evaluated_value) if isinstance(index, (cst.Integer, cst.SimpleString)) else None


def _decode_failure(source: str | bytes) -> ParseFailure | None:
    """Say why ``source`` bytes do not decode in their declared (or the default UTF-8) encoding, if so."""
    if isinstance(source, str):
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        source.decode(encoding)
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        return ParseFailure(f"cannot decode the file as {exc.encoding}: {exc.reason} at byte {exc.start}", line)
    except SyntaxError as exc:  # an unknown coding cookie
        return ParseFailure(f"cannot decode the file: {exc.msg if hasattr(exc, 'msg') else exc}")
    return None


#: syntax trees deeper than this (AST levels) are parsed and analysed on a thread with a large stack
#: (:func:`~asynccfg_lint.analysis.large_stack.on_a_large_stack`): libcst's parse, its metadata, code generation and the analysis recurse
#: a few frames per level, and the default stack and recursion limit (1 000) end near 150 levels
#: (``tests/fixtures/hard/deep_calls.py``: 180 nested calls). CPython imports up to about 3 000
#: levels (``x + x + ...`` of 2 994 terms inside a ``def`` on 3.12.1); each of them is analysed
DEEP_TREE_DEPTH = 100


#: a skeleton is parsed only when it leaves out at least this share of the text: a restart (a read of a left-out
#: part) parses it again, which a skeleton of nearly all of a module does not repay (``jax/_src/lax/parallel.py``: 3 %)
MIN_ELIDED_SHARE = 0.2


def _interpreter_failure(source: str | bytes) -> tuple[ParseFailure | None, bool, tuple[int, ...] | None, ast.Module | None]:
    """Why the running Python rejects ``source``, if it does (its message and 1-based position), and whether it is deep.

    libcst accepts syntax the interpreter does not (``except A, B:`` of Python 3.14 on 3.12,
    more than 200 nested brackets); CPython's ``compile`` gives what flake8 reports as E999
    (e.g. "'(' was never closed" at the bracket). A deep tree CPython gives up on (its recursion
    limit while building the AST or compiling the bytecode, which an import also does) gives
    CPython's message; the verdict is the one of a fresh thread (:func:`_compiles_on_a_fresh_thread`).

    Returns:
        ``(failure or None, deep, lines, tree)``: ``deep`` when the tree is deeper than :data:`DEEP_TREE_DEPTH`;
        ``lines`` the :func:`~asynccfg_lint.analysis.positions.statement_lines` of a tree that is not deep, and
        ``tree`` its ``ast``, else ``None``.
    """
    try:
        tree = _compiled(source, ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        return _syntax_failure(error), False, None, None
    except (RecursionError, MemoryError):  # the caller's stack counts against CPython's limit: ask a fresh thread
        return _compiles_on_a_fresh_thread(source), True, None, None
    except ValueError as error:  # null bytes (before Python 3.12.4)
        return ParseFailure(f"syntax error: {error}"), False, None, None
    if _depth(tree) > DEEP_TREE_DEPTH:
        return _compile_failure(source) and _compiles_on_a_fresh_thread(source), True, None, None
    return None, False, statement_lines(tree), tree


#: the file name CPython's compiler is given: no file's, so that the line of an error is the checked text's (an
#: editor's unsaved buffer), never read from the file on disk (which CPython does when its tokenizer lacks the line)
_COMPILED_NAME = "<asynccfg-lint>"


def _compiled(source: str | bytes, flags: int = 0) -> object:
    """``compile(source, ..., "exec", flags)`` of the text (bytes decoded as Python decodes them, where they decode;
    undecodable bytes as they are: the caller reports them), with CPython's warnings (``SyntaxWarning``) silenced.

    Compiled as text, an error's ``offset`` counts characters: CPython counts a UTF-8 bytes source's in bytes
    (``x = "ééé" +``: 15 from bytes, 12 from text, where ``python`` shows it).

    Raises:
        SyntaxError, ValueError, RecursionError, MemoryError: as ``compile``.
    """
    text = source
    if isinstance(source, bytes):
        try:
            text = source_text(source)
        except (UnicodeDecodeError, LookupError):
            pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(text, _COMPILED_NAME, "exec", flags=flags, dont_inherit=True)


def _syntax_failure(error: SyntaxError) -> ParseFailure:
    """The ACC001 failure of CPython's ``error`` (compiled by :func:`_compiled`): its message, 1-based line and column."""
    return ParseFailure(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1))


def _compiles_on_a_fresh_thread(source: str | bytes) -> ParseFailure | None:
    """:func:`_compile_failure` on a new thread (of the default stack size, at the top of its own call stack).

    CPython's compiler counts the C (3.12) or Python (3.11) recursion depth of its caller against
    its limit, so the verdict inside this linter's call stack would be stricter than an import's:
    ``x + x + ...`` of 2 990 terms compiles at the top of a thread and fails a few calls deeper.
    Only the bytecode compile (what an import runs) decides: CPython 3.12.1 sometimes refuses to
    build the ``ast`` objects of a tree it compiles.
    """
    outcome: list[ParseFailure | None] = []
    thread = threading.Thread(target=lambda: outcome.append(_compile_failure(source)), name="asynccfg-lint compile")
    thread.start()
    thread.join()
    return outcome[0] if outcome else ParseFailure("Python cannot compile the file")


def _compile_failure(source: str | bytes) -> ParseFailure | None:
    """CPython's message when compiling ``source`` to bytecode (what an import does) fails, else ``None``.

    Only for deep trees: the compiler gives up on some (``x + x + ...`` of 10 000 terms) that
    its parser took.
    """
    try:
        _compiled(source)
    except (RecursionError, MemoryError) as error:
        return ParseFailure(f"Python cannot compile the file: {type(error).__name__}: {error}")
    except SyntaxError as error:
        return _syntax_failure(error)
    return None


def _depth(tree: ast.AST) -> int:
    """The number of nodes on ``tree``'s longest path from the root: its levels, one list at a time (the
    tree may be deep; ``ast.iter_child_nodes`` per node cost about three times this on ``parallel.py``).

    The leaves every name, operation and comparison has (``ctx``, ``op``, ``ops``: ``Load()``, ``Add()``,
    singletons) are counted, not walked: a level that holds such a node has one more below it.
    """
    depth, level = 0, [tree]
    while level:
        depth += 1
        below: list[ast.AST] = []
        leaves = False
        for node in level:
            names, with_leaves = _AST_FIELDS.get(type(node)) or _ast_fields(type(node))
            leaves = leaves or with_leaves
            for name in names:
                value = getattr(node, name, None)
                if type(value) is list:
                    below.extend([item for item in value if isinstance(item, ast.AST)])
                elif isinstance(value, ast.AST):
                    below.append(value)
        if leaves and not below:
            depth += 1
        level = below
    return depth


#: ``ast`` node type -> (the fields that may hold nodes, whether it has singleton leaves: ``ctx``, ``op``, ``ops``)
_AST_FIELDS: dict[type, tuple[tuple[str, ...], bool]] = {}
_AST_LEAVES = frozenset({"ctx", "op", "ops"})


def _ast_fields(kind: type) -> tuple[tuple[str, ...], bool]:
    fields = getattr(kind, "_fields", ())
    found = _AST_FIELDS[kind] = (tuple(name for name in fields if name not in _AST_LEAVES),
                                 bool(_AST_LEAVES.intersection(fields)))
    return found


#: the position libcst's native parser writes into its message ("error at 8:38902", 0-based column)
_NATIVE_POSITION = re.compile(r"error at (\d+):(\d+)")


def _libcst_failure(source: str | bytes, exc: cst.ParserSyntaxError) -> ParseFailure:
    """ACC001 for a file CPython accepts and libcst does not, at a position inside the file.

    The native parser's ``raw_line``/``raw_column`` can point past the end of a line (or at the
    next line); its message carries the right position, and either is kept inside the file.
    """
    match = _NATIVE_POSITION.search(exc.message)
    line, column = (int(match[1]), int(match[2]) + 1) if match else (exc.raw_line, exc.raw_column + 1)
    text = source_text(source)
    lines = io.StringIO(text, newline="").readlines() or [""]
    line = min(max(line, 1), len(lines))
    column = min(max(column, 1), len(lines[line - 1].rstrip("\r\n")) + 1)
    return ParseFailure(f"libcst cannot parse this file: {exc.message}", line, column)


def _differs_only_at_the_end(original: str, text: str) -> bool:
    """Whether ``text`` is ``original`` less trailing whitespace (a last lone ``\\r``): positions still agree."""
    return original.startswith(text) and not original[len(text):].strip()


def first_difference(original: str, other: str) -> tuple[int, int]:
    """The 1-based line and column in ``original`` where ``other`` first differs from it (lines split at ``\\n``,
    ``\\r\\n`` and ``\\r``, as Python splits them)."""
    same = len(os.path.commonprefix([original, other]))
    lines = io.StringIO(original[:same] + "|", newline="").readlines()  # \n, \r\n, \r only, as Python splits
    return len(lines), len(lines[-1])


def parse_source(source: str | bytes, path: str | None, previous: ParsedModule | None = None,
                 keep: Iterable[str] | None = None) -> ParsedModule:
    """Parse ``source`` (bytes are decoded as Python does: BOM, PEP 263 cookie, else UTF-8).

    ``previous``: the parse of an earlier text of the same document (a language server's last one); the
    top-level statements the edit left alone are taken from its tree and only the changed ones are parsed
    (:func:`~asynccfg_lint.analysis.reparse.spliced_module`: the same tree as a full parse, which runs when that
    cannot be shown). Scopes, parents and every fact are made anew for the new tree.

    A file CPython accepts and libcst refuses (mixed tabs and spaces, more concatenated strings
    than its parser takes, nesting beyond the default recursion limit) is parsed again on a
    thread with a large stack and recursion limit, from a copy in which no character moves
    (:mod:`asynccfg_lint.analysis.normalise`); an undecodable byte CPython accepts (in a comment) is read
    as a placeholder; what libcst drops (a form feed or backslash continuation before a line's
    first token) is mapped back. Such a module's :attr:`ParsedModule.inexact` says why.

    The garbage collector is paused meanwhile: every object the parse makes lives on, so its passes
    over them (a quarter of the parse of ``parallel.py``) would find nothing to free.

    ``keep``: parse a :func:`~asynccfg_lint.analysis.elision.skeleton` of the module (another module a check
    reads), with the bodies of the top-level functions and classes of these names and of those they name
    (:func:`~asynccfg_lint.analysis.elision.units_to_keep`); the others' bodies are left out (its
    :attr:`ParsedModule.elided`). The whole module when it would leave out less than :data:`MIN_ELIDED_SHARE` of
    the text, or the text is not one libcst reads as it is (``None``, the default: always the whole module).

    Returns:
        a :class:`ParsedModule` with scopes and parents resolved (positions and qualified names on demand).
    Raises:
        ParseFailure: when the running Python rejects the file (a decode error, a syntax error,
            CPython's own recursion limit: its message), for a tree deeper than
            :data:`MAX_TREE_DEPTH`, or when libcst cannot parse even the copy.
    """
    with collector_paused():
        return _parse_source(source, path, previous, keep)


class DocumentParser:
    """Parses the successive texts of one open document, each from the parse before it (a language server's edits).

    Call it as :func:`parse_source` without ``previous``: ``parser(source, path)`` gives the
    :class:`ParsedModule` of ``source`` (the same as ``parse_source(source, path)``) and keeps it for the
    next call, whose unchanged top-level statements are taken from it
    (:func:`~asynccfg_lint.analysis.reparse.spliced_module`). A text that does not parse keeps the last one
    that did. Raises :class:`ParseFailure` as :func:`parse_source`.
    """

    def __init__(self) -> None:
        self.last: ParsedModule | None = None

    def __call__(self, source: str | bytes, path: str | None) -> ParsedModule:
        self.last = parse_source(source, path, self.last)
        return self.last


def _parse_source(source: str | bytes, path: str | None, previous: ParsedModule | None,
                  keep: Iterable[str] | None = None) -> ParsedModule:
    """:func:`parse_source` with the collector paused."""
    undecodable = _decode_failure(source)
    rejected, deep, lines, tree = _interpreter_failure(source)
    if rejected is not None:
        raise undecodable or rejected
    if keep is not None and tree is not None and undecodable is None and previous is None:
        made = _skeleton_parse(source_text(source), path, tree, lines, keep)
        if made is not None:
            return made
    inexact = []
    if undecodable is not None:  # CPython compiled it: the bad bytes are in comments
        assert isinstance(source, bytes)
        source = decode_with_placeholders(source, _encoding(source))
        inexact.append("an undecodable byte in a comment, read as U+FFFD")
    normalised = False  # (parsed from a copy: positions come from the whole module, mapped back)
    try:
        first: BaseException | None = None
        if not deep:
            try:
                module, wrapper, scopes, parents, calls, positions, file_text, code = _parse(
                    source, spliced=_spliced(previous, source, lines) if previous is not None else None)
                position_map = _position_map(file_text, code)
            except (cst.ParserSyntaxError, RecursionError, ParseFailure) as error:
                first = error
        if deep or first is not None:
            file_text = given = source_text(source)
            spaced = indentation_as_spaces(given)
            copy = merge_long_string_runs(spaced)
            dropped = without_line_start_form_feeds(copy)  # the one normalisation that moves characters
            if first is not None and dropped == given and not isinstance(first, RecursionError):
                raise first  # the same text gives the same failure: only the stack was worth another try
            target = source if dropped == given else dropped  # the file's own bytes keep their encoding for fix
            try:
                if deep or isinstance(first, RecursionError):
                    parts = on_a_large_stack(lambda: _parse(target, positions=True))
                else:  # (only the text's form failed: the copy parses on this stack)
                    parts = _parse(target, positions=True)
                module, wrapper, scopes, parents, calls, positions, _, code = parts
                position_map = _position_map(copy, code)
            except (cst.ParserSyntaxError, RecursionError, ParseFailure) as second:
                if isinstance(second, ParseFailure) and second.timed_out or first is None:
                    raise second from None
                raise first from None
            deep = deep or isinstance(first, RecursionError)
            normalised = True
            if spaced != given:
                inexact.append("indentation mixing tabs and spaces, read as spaces")
            if copy != spaced:
                inexact.append(f"more than {LIBCST_MAX_STRINGS} implicitly concatenated strings, read joined")
    except cst.ParserSyntaxError as exc:  # CPython accepted it: a syntax libcst does not support
        raise _libcst_failure(source, exc) from None
    except UnicodeDecodeError:
        raise _decode_failure(source) or ParseFailure("cannot decode the file") from None
    except RecursionError:
        raise ParseFailure("the file nests too deeply for the parser (RecursionError)") from None
    except (SyntaxError, LookupError, ValueError) as exc:
        raise _decode_failure(source) or ParseFailure(f"cannot read the file: {_brief(exc)}") from None
    if position_map is not None:
        inexact.append("a form feed or backslash continuation before the first token of a line, which libcst drops")
        if positions is not None:
            positions = MappedPositions(positions, position_map)
    return ParsedModule(
        path=path or "-",
        text=file_text,
        wrapper=wrapper,
        name=module_name_for(path),
        scopes=scopes,
        parents=parents,
        calls=calls,
        inexact="; ".join(inexact) or None,
        deep=deep,
        statement_lines=None if deep or normalised else lines,
        _position_map=position_map,
        _positions=positions,
    )


def _skeleton_parse(text: str, path: str | None, tree: ast.Module, lines: tuple[int, ...] | None,
                    keep: Iterable[str]) -> ParsedModule | None:
    """:func:`parse_source`'s skeleton of ``text`` (parsed by CPython as ``tree``, its statements' first ``lines``)
    keeping ``keep``; ``None`` when it would leave out less than :data:`MIN_ELIDED_SHARE` of the text, the text is
    not one libcst reads as it is, or libcst cannot parse it."""
    if _MAY_DIFFER.search(text):
        return None
    least = MIN_ELIDED_SHARE * len(text)
    chunks = statement_words(tree, text)
    skeleton_text, removed = skeleton(text, tree, units_to_keep(tree, keep, chunks), MIN_ELIDED_LINES)
    if not removed or sum(map(len, removed.values())) < least:
        return None
    words = left_out_words(removed)
    try:
        module, wrapper, scopes, parents, calls, _, _, _ = _parse(skeleton_text, elided=(path or "-", removed, words))
    except (cst.ParserSyntaxError, RecursionError, ValueError, ParseFailure):
        return None  # the whole module then
    return ParsedModule(path=path or "-", text=skeleton_text, wrapper=wrapper, name=module_name_for(path),
                        scopes=scopes, parents=parents, calls=calls, statement_lines=lines, elided=removed,
                        left_out_words=words, statement_words=chunks)


def _brief(error: BaseException) -> str:
    """``str(error)``, or its type's name when that text recurses too deep (a message holding a deep node's repr)."""
    try:
        return str(error)
    except RecursionError:
        return type(error).__name__


#: where libcst may not give back a file's text: a form feed, a carriage return (``\r\n``, a lone ``\r``),
#: a vertical tab, a line that is a backslash continuation before its first token. Elsewhere libcst's
#: round trip is exact (its design; checked over the tests' and docs' files and the jax tree), so the
#: code generation that compares the texts (about an eighth of a parse) is skipped. One exception found
#: since, left to ``fix`` (which compares the bytes before it writes): libcst 1.9 drops a blank line before a
#: comment at the end of a file indented less than the block above it (after the last statement: positions,
#: generated per statement from CPython's lines, are unaffected).
_MAY_DIFFER = re.compile(r"[\f\r\v]|^[ \t]*\\$", re.MULTILINE)


def _position_map(given: str, code: str) -> PositionMap | None:
    """How positions in libcst's ``code`` map back to the ``given`` text (``None``: they are the same).

    Raises:
        ParseFailure: when ``code`` is not ``given`` with characters dropped (at the first difference).
    """
    if code == given or _differs_only_at_the_end(given, code):
        return None
    try:
        return PositionMap(given, code)
    except ValueError:
        line, column = first_difference(given, code)
        raise ParseFailure("libcst does not give back this file's text, so positions would be wrong",
                           line, column) from None


def source_text(source: str | bytes) -> str:
    """``source`` as text (bytes decoded as Python decodes them; they decode)."""
    if isinstance(source, str):
        return source
    return source.decode(_encoding(source))


def _encoding(source: bytes) -> str:
    """The encoding Python reads ``source`` in (BOM, PEP 263 cookie, else UTF-8), for a file CPython compiled.

    ``tokenize.detect_encoding`` also refuses a first or second line that does not decode,
    which CPython's compiler accepts in a comment: that file is UTF-8.
    """
    try:
        return tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:
        return "utf-8"


#: the parses and transforms running now (:func:`validation_paused`), and the lock of that count and of the switch
_UNVALIDATED = [0]
_UNVALIDATED_LOCK = threading.Lock()
#: ``CSTNode.__post_init__`` as it was when the pause began, put back when the last body ends
_VALIDATING_POST_INIT: list = [None]


def _no_validation(node: cst.CSTNode) -> None:
    """A libcst node's ``__post_init__`` while validation is paused (:func:`validation_paused`): no ``_validate``."""


@contextlib.contextmanager
def validation_paused() -> Iterator[None]:
    """libcst builds nodes without validating them in the ``with`` body (in every thread, while any body runs),
    when the tool owns the process (:func:`~asynccfg_lint.process_owner.owned_process`); in a host's process
    libcst is left as it is, and the body runs with libcst's validation.

    libcst runs every node's ``_validate`` when it is made (``CSTNode.__post_init__``, libcst 1.9.0): about a
    fifth of a parse. Nothing built here is trusted unchecked: a parse's source was compiled first, a fix's
    text is parsed and checked again. In an owned process, libcst's repairs
    (:func:`~asynccfg_lint.analysis.libcst_workarounds.install_libcst_repairs`) are installed first.
    """
    if not install_libcst_repairs():
        yield
        return
    with _UNVALIDATED_LOCK:
        _UNVALIDATED[0] += 1
        if _UNVALIDATED[0] == 1:
            _VALIDATING_POST_INIT[0] = vars(cst.CSTNode)["__post_init__"]
            cst.CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
    try:
        yield
    finally:
        with _UNVALIDATED_LOCK:
            _UNVALIDATED[0] -= 1
            if not _UNVALIDATED[0]:
                cst.CSTNode.__post_init__ = _VALIDATING_POST_INIT[0]  # type: ignore[method-assign]


def parse_unvalidated(source: str | bytes) -> cst.Module:
    """``libcst.parse_module(source)``, without libcst's validation of each node it builds in a process the tool
    owns (:func:`validation_paused`).

    libcst runs every node's ``_validate`` when it is made (``CSTNode.__post_init__``, libcst
    1.9.0), also for the nodes of its own parser, whose grammar builds none that fails it (its own
    comment there: the work belongs in a visitor, to spare parses). About a fifth of a parse of
    ``jax/_src/lax/parallel.py``. Only source CPython compiled reaches here (:func:`_parse_source`).
    While any parse runs in an owned process, nodes other threads make skip it too; they are the fixes'
    nodes, whose text is compiled again before a fix is kept.

    Raises:
        libcst.ParserSyntaxError: as ``parse_module``.
        ParseFailure: in a host's process, when libcst's validation rejects (or fails on) a node of ``source``.
    """
    with validation_paused():
        try:
            return cst.parse_module(source)
        except (cst.CSTValidationError, TypeError, AttributeError) as error:  # (ParserSyntaxError is none of these)
            raise ParseFailure(f"{LIBCST_REJECTS_VALID} ({_brief(error)})") from None


#: the ACC001 reason of a file CPython compiles whose nodes libcst's own validation rejects or fails on (libcst 1.9:
#: ``{k: (v if k else v)for k, v in d.items()}``, ``not(lambda: 0)``, :func:`~asynccfg_lint.analysis.libcst_workarounds.repair_validation`);
#: only a process the tool owns pauses that validation
LIBCST_REJECTS_VALID = ("libcst's validation rejects this file, which Python compiles, inside another program's "
                        "process; `asynccfg-lint check` analyses it")


def _spliced(previous: ParsedModule, source: str | bytes, lines: tuple[int, ...] | None) -> cst.Module | None:
    """The tree of ``source`` made from ``previous``'s by parsing only what changed, else ``None`` (parse it all).

    Only between texts libcst gives back byte for byte (no :data:`_MAY_DIFFER` character, no normalised copy)
    that are not deep: their lines are the ``ast``'s and the file's, and a statement's text is its code.
    """
    if (not isinstance(source, str) or lines is None or previous.statement_lines is None or previous.deep
            or previous.inexact is not None or previous._position_map is not None or previous.text == source
            or previous.module.encoding != "utf-8" or _MAY_DIFFER.search(source) or _MAY_DIFFER.search(previous.text)):
        return None
    return spliced_module(previous.module, previous.text, previous.statement_lines, source, lines, parse_unvalidated)


def _parse(source: str | bytes, positions: bool = False, spliced: cst.Module | None = None,
           elided: tuple[str, dict[tuple[str, int], str], dict[str, frozenset[str]]] | None = None) -> tuple:
    """libcst's module of ``source`` (``spliced`` when given: :func:`_spliced`), its metadata wrapper, scopes,
    parents and calls, (when asked) positions, the text it parsed, and the text libcst gives back: generated
    (on the same stack: code generation recurses per level) only where it may differ (:data:`_MAY_DIFFER`),
    else the text itself. ``elided``: ``source`` is a :func:`~asynccfg_lint.analysis.elision.skeleton` of the
    module of that path, whose left-out bodies (and their :func:`~asynccfg_lint.analysis.elision.left_out_words`)
    are these, each made an :class:`~asynccfg_lint.analysis.elision.ElidedBlock`."""
    module = spliced if spliced is not None else parse_unvalidated(source)
    if elided is not None:
        module = elided_module(module, elided[0], elided[1])
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes, parents, calls = module_index(module)
    if elided is not None:
        guard_references(scopes, elided[0], elided[2])
        calls = LeftOutCalls(calls, elided[0])
    position_map = wrapper.resolve(PositionProvider) if positions else None
    text = source.decode(module.encoding) if isinstance(source, bytes) else source
    code = module.code if _MAY_DIFFER.search(text) else text
    return module, wrapper, scopes, parents, calls, position_map, text, code
