"""Parse stage: source bytes or text to a libcst module with the metadata every stage uses."""

from __future__ import annotations

import ast
import dataclasses
import io
import os
import re
import sys
import threading
import tokenize
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider
from libcst.metadata import QualifiedName
from libcst.metadata.name_provider import FullyQualifiedNameVisitor

from asynccfg_lint.discovery import ModuleName, module_name_for
from asynccfg_lint.normalise import (
    LIBCST_MAX_STRINGS,
    MappedPositions,
    PositionMap,
    decode_with_placeholders,
    indentation_as_spaces,
    merge_long_string_runs,
)
from asynccfg_lint.scopes import module_scopes


def _repair_libcst_validation() -> None:
    """Work around two libcst bugs that make valid files unparsable (each repaired only while present).

    libcst validates every node it builds, and two of those checks raise instead of answering
    (libcst 1.9.0 on CPython 3.12), so ``parse_module`` fails on valid code:

    - ``Lambda._safe_to_use_with_word_operator`` calls zero-argument ``super()`` in a class its
      ``@add_slots`` re-creates (CPython issue 90562, fixed in 3.14), so a parenthesized lambda
      right after a keyword (``return(lambda: x)``, ``not(lambda: x)``, ``assert(lambda: x)``)
      raises ``TypeError: super(type, obj): obj must be an instance or subtype of type``;
    - ``Asynchronous._validate`` reads ``whitespace_after.value``, which the whitespace after
      ``async`` has not when a line break follows it inside brackets (``[v async\n for v in g]``):
      ``AttributeError: 'ParenthesizedWhitespace' object has no attribute 'value'``.

    Each method is replaced by the same rule written without the bug.
    """
    from libcst._nodes.expression import ExpressionPosition

    def lambda_safe_to_use_with_word_operator(self: cst.Lambda, position: ExpressionPosition) -> bool:
        if position == ExpressionPosition.LEFT:
            return len(self.rpar) > 0 or self.body._safe_to_use_with_word_operator(position)
        return cst.BaseExpression._safe_to_use_with_word_operator(self, position)

    def asynchronous_validate(self: cst.Asynchronous) -> None:
        if self.whitespace_after.empty:
            raise cst.CSTValidationError("Must have at least one space after Asynchronous.")

    try:
        cst.parse_expression("not(lambda: 0)")
    except TypeError:
        cst.Lambda._safe_to_use_with_word_operator = lambda_safe_to_use_with_word_operator  # type: ignore
    try:
        cst.parse_expression("[v async\n for v in g]")
    except AttributeError:
        cst.Asynchronous._validate = asynchronous_validate  # type: ignore[method-assign]


_repair_libcst_validation()


class ParseFailure(Exception):
    """The file could not be decoded or parsed; ``str(exc)`` is the reason shown as ACC001.

    Attributes:
        line, column: 1-based position of the problem when known, else 1, 1.
        timed_out: libcst's parse was given up after :data:`DEEP_PARSE_SECONDS`.
    """

    def __init__(self, reason: str, line: int = 1, column: int = 1, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.line = line
        self.column = column
        self.timed_out = timed_out


@dataclass
class ParsedModule:
    """A parsed file and its resolved metadata.

    Attributes:
        path: the display path.
        text: the decoded source text (positions index into it; an undecodable byte is
            :data:`~asynccfg_lint.normalise.PLACEHOLDER`).
        wrapper: the libcst ``MetadataWrapper`` (its ``.module`` is the tree the metadata refers to).
        name: the module's dotted name and package (for fully qualified local names).
        scopes: node -> its libcst ``Scope``, as ``ScopeProvider`` gives it (:func:`asynccfg_lint.scopes.module_scopes`).
        parents: node -> its parent node (the module has none), as ``ParentNodeProvider`` gives.
        calls: every ``Call`` node of the module, in a pre-order walk (an outer call before the
            calls in its arguments).
    """

    path: str
    text: str
    wrapper: MetadataWrapper
    name: ModuleName
    scopes: dict
    parents: dict
    calls: list
    #: why libcst's tree is not the file's text byte for byte (it was read through a normalised
    #: copy, or libcst drops characters), or ``None``; ``fix`` writes no such file
    inexact: str | None = None
    _position_map: PositionMap | None = field(default=None, repr=False)
    _positions: Mapping | None = field(default=None, repr=False)
    _qualnames: dict = field(default_factory=dict, repr=False)
    #: facts derived from the whole module once, by the stage that needs them (keyed by that stage)
    facts: dict = field(default_factory=dict, repr=False)

    @property
    def positions(self) -> Mapping:
        """Node -> ``CodeRange`` (1-based lines, 0-based columns), resolved on first use.

        Summaries never need positions; only a module with something to report pays for them.
        Where libcst dropped characters of the file, its ranges are mapped back to the file's.
        A tree too deep for libcst's position visitor on this thread is resolved by
        :func:`on_a_large_stack` (the parse's own walks are shallower and took it here).
        """
        if self._positions is None:
            try:
                positions = self.wrapper.resolve(PositionProvider)
            except RecursionError:  # a deep tree the parse took on the default stack: libcst's visitor is deeper
                positions = on_a_large_stack(lambda: self.wrapper.resolve(PositionProvider))
            mapping = self._position_map
            self._positions = positions if mapping is None else MappedPositions(positions, mapping)
        return self._positions

    def qualified_names(self, node: cst.CSTNode) -> frozenset[str]:
        """The fully qualified names ``node`` may refer to, as ``FullyQualifiedNameProvider`` gives them.

        Computed on demand for the few nodes the analysis asks about: resolving the provider for
        every node of a large module costs more than the rest of the analysis together.
        """
        key = id(node)
        if key not in self._qualnames:
            scope = self.scopes.get(node)
            names = scope.get_qualified_names_for(node) if scope is not None else ()
            self._qualnames[key] = frozenset(self.absolute(q) for q in names)
        return self._qualnames[key]

    def absolute(self, qualified: QualifiedName) -> str:
        """``qualified`` made absolute against this module's package (relative imports)."""
        try:
            return FullyQualifiedNameVisitor._fully_qualify(self.name.name, self.name.package, qualified).name
        except ImportError:  # a relative import beyond the top-level package
            return qualified.name

    @property
    def module(self) -> cst.Module:
        """The parsed module."""
        return self.wrapper.module


#: the names of each node class's dataclass fields
_FIELDS: dict[type, tuple[str, ...]] = {}
#: what a field value of each type is to the walk (``isinstance`` on libcst's abstract classes is slow)
_NODE, _SEQUENCE, _LEAF = 1, 2, 0
_KINDS: dict[type, int] = {}


def _kind(value: object) -> int:
    if isinstance(value, cst.CSTNode):
        return _NODE
    return _SEQUENCE if type(value) is tuple or type(value) is list else _LEAF


def index_tree(module: cst.Module) -> tuple[dict[cst.CSTNode, cst.CSTNode], list[cst.Call]]:
    """Return ``(parents, calls)`` of ``module`` in one walk: each node's parent, and every call (pre-order).

    The same mapping as libcst's ``ParentNodeProvider``, which dispatches a visitor callback per
    node and costs about 13 times this walk over the nodes' dataclass fields (measured on the
    benchmark's dense tree).
    """
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    calls: list[cst.Call] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            calls.append(node)
        names = _FIELDS.get(type(node))
        if names is None:
            names = _FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node))
        children: list[cst.CSTNode] = []
        for name in names:
            value = getattr(node, name)
            kind = _KINDS.get(type(value))
            if kind is None:
                kind = _KINDS[type(value)] = _kind(value)
            if kind == _NODE:
                children.append(value)
            elif kind == _SEQUENCE:
                for item in value:
                    if _KINDS.get(type(item)) == _NODE or isinstance(item, cst.CSTNode):
                        children.append(item)
        for child in children:
            parents[child] = node
        stack.extend(reversed(children))
    return parents, calls


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


#: syntax trees deeper than this are not handed to libcst. CPython imports up to about 3 000
#: levels (``x + x + ...`` of 2 995 terms); libcst parses them on a large stack, but its position
#: pass (code generation, a C-level call per level) then exceeds Python's fixed C recursion
#: limit (measured: 1 000 terms fail), after seconds of work; its native parser also slows down
#: quadratically on such chains (10 000 terms ran for minutes)
MAX_TREE_DEPTH = 1000
_TOO_DEEP = f"the file nests too deeply for the parser (more than {MAX_TREE_DEPTH} levels)"
#: the stack and Python recursion limit of the thread that parses a file libcst recursed too deep on
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
#: how long that thread may take before the file is given up (it cannot be stopped; it ends with the process)
DEEP_PARSE_SECONDS = 30.0


def _interpreter_failure(source: str | bytes, path: str | None) -> ParseFailure | None:
    """Why the running Python rejects ``source``, if it does: its message and 1-based position.

    libcst accepts syntax the interpreter does not (``except A, B:`` of Python 3.14 on 3.12,
    more than 200 nested brackets); CPython's ``compile`` gives what flake8 reports as E999
    (e.g. "'(' was never closed" at the bracket). Trees deeper than :data:`MAX_TREE_DEPTH` fail too.
    """
    try:
        tree = compile(source, path or "<stdin>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return ParseFailure(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1))
    except (RecursionError, MemoryError):  # building the AST objects: does the import's compile take it?
        return _compile_failure(source, path) or ParseFailure(_TOO_DEEP)
    except ValueError as error:  # null bytes (before Python 3.12.4)
        return ParseFailure(f"syntax error: {error}")
    if _depth_exceeds(tree, MAX_TREE_DEPTH):
        return _compile_failure(source, path) or ParseFailure(_TOO_DEEP)
    return None


def _compile_failure(source: str | bytes, path: str | None) -> ParseFailure | None:
    """CPython's message when compiling ``source`` to bytecode (what an import does) fails, else ``None``.

    Only for deep trees: the compiler gives up on some (``x + x + ...`` of 10 000 terms) that
    its parser took.
    """
    try:
        compile(source, path or "<stdin>", "exec", dont_inherit=True)
    except (RecursionError, MemoryError) as error:
        return ParseFailure(f"Python cannot compile the file: {type(error).__name__}: {error}")
    except SyntaxError as error:
        return ParseFailure(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1))
    return None


def _depth_exceeds(tree: ast.AST, limit: int) -> bool:
    """Whether ``tree`` has a path longer than ``limit`` nodes (iteratively: the tree may be deep)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


#: the position libcst's native parser writes into its message ("error at 8:38902", 0-based column)
_NATIVE_POSITION = re.compile(r"error at (\d+):(\d+)")


def _libcst_failure(source: str | bytes, exc: cst.ParserSyntaxError) -> ParseFailure:
    """ACC001 for a file CPython accepts and libcst does not, at a position inside the file.

    The native parser's ``raw_line``/``raw_column`` can point past the end of a line (or at the
    next line); its message carries the right position, and either is kept inside the file.
    """
    match = _NATIVE_POSITION.search(exc.message)
    line, column = (int(match[1]), int(match[2]) + 1) if match else (exc.raw_line, exc.raw_column + 1)
    text = _text(source)
    lines = io.StringIO(text, newline="").readlines() or [""]
    line = min(max(line, 1), len(lines))
    column = min(max(column, 1), len(lines[line - 1].rstrip("\r\n")) + 1)
    return ParseFailure(f"libcst cannot parse this file: {exc.message}", line, column)


def _differs_only_at_the_end(original: str, text: str) -> bool:
    """Whether ``text`` is ``original`` less trailing whitespace (a last lone ``\\r``): positions still agree."""
    return original.startswith(text) and not original[len(text):].strip()


def _first_difference(original: str, other: str) -> tuple[int, int]:
    """The 1-based line and column in ``original`` where ``other`` first differs from it."""
    same = len(os.path.commonprefix([original, other]))
    lines = io.StringIO(original[:same] + "|", newline="").readlines()  # \n, \r\n, \r only, as Python splits
    return len(lines), len(lines[-1])


def parse_source(source: str | bytes, path: str | None) -> ParsedModule:
    """Parse ``source`` (bytes are decoded as Python does: BOM, PEP 263 cookie, else UTF-8).

    A file CPython accepts and libcst refuses (mixed tabs and spaces, more concatenated strings
    than its parser takes, nesting beyond the default recursion limit) is parsed again on a
    thread with a large stack and recursion limit, from a copy in which no character moves
    (:mod:`asynccfg_lint.normalise`); an undecodable byte CPython accepts (in a comment) is read
    as a placeholder; what libcst drops (a form feed or backslash continuation before a line's
    first token) is mapped back. Such a module's :attr:`ParsedModule.inexact` says why.

    Returns:
        a :class:`ParsedModule` with scopes and parents resolved (positions and qualified names on demand).
    Raises:
        ParseFailure: when the running Python rejects the file (a decode error, a syntax error,
            CPython's own recursion limit: its message), for a tree deeper than
            :data:`MAX_TREE_DEPTH`, or when libcst cannot parse even the copy.
    """
    undecodable = _decode_failure(source)
    rejected = _interpreter_failure(source, path)
    if rejected is not None:
        raise undecodable or rejected
    inexact = []
    if undecodable is not None:  # CPython compiled it: the bad bytes are in comments
        assert isinstance(source, bytes)
        source = decode_with_placeholders(source, _encoding(source))
        inexact.append("an undecodable byte in a comment, read as U+FFFD")
    try:
        try:
            module, wrapper, scopes, parents, calls, positions = _parse(source)
            file_text = source.decode(module.encoding) if isinstance(source, bytes) else source
            position_map = _position_map(file_text, module.code) if _MAY_DIFFER.search(file_text) else None
        except (cst.ParserSyntaxError, RecursionError, ParseFailure) as first:
            file_text = given = _text(source)
            spaced = indentation_as_spaces(given)
            copy = merge_long_string_runs(spaced)
            if copy == given and not isinstance(first, RecursionError):
                raise  # the same text gives the same failure: only the stack was worth another try
            try:
                parts = on_a_large_stack(lambda: _parse(copy, positions=True))
                module, wrapper, scopes, parents, calls, positions = parts
                position_map = _position_map(copy, module.code)
            except (cst.ParserSyntaxError, RecursionError, ParseFailure) as second:
                if isinstance(second, ParseFailure) and second.timed_out:
                    raise second from None
                raise first from None
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
        raise _decode_failure(source) or ParseFailure(f"cannot read the file: {exc}") from None
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
        _position_map=position_map,
        _positions=positions,
    )


#: where libcst may not give back a file's text: a form feed, a carriage return (``\r\n``, a lone ``\r``),
#: a vertical tab, a line that is a backslash continuation before its first token. Elsewhere libcst's
#: round trip is exact (its design; checked over the tests' and docs' files and the jax tree), so the
#: code generation that compares the texts (about an eighth of a parse) is skipped.
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
        line, column = _first_difference(given, code)
        raise ParseFailure("libcst does not give back this file's text, so positions would be wrong",
                           line, column) from None


def _text(source: str | bytes) -> str:
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


def _parse(source: str | bytes, positions: bool = False) -> tuple:
    """libcst's module of ``source``, its metadata wrapper, scopes, parents and calls, and (when asked) positions."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = module_scopes(module)
    parents, calls = index_tree(module)
    return module, wrapper, scopes, parents, calls, wrapper.resolve(PositionProvider) if positions else None


_Result = TypeVar("_Result")


def on_a_large_stack(function: Callable[[], _Result]) -> _Result:
    """``function()`` run on a thread with :data:`DEEP_STACK_BYTES` of stack and a raised recursion limit.

    Raises:
        what ``function`` raised; ParseFailure when it takes longer than :data:`DEEP_PARSE_SECONDS`.
    """
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = error

    limit = sys.getrecursionlimit()
    previous_stack = threading.stack_size(DEEP_STACK_BYTES)
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
        thread = threading.Thread(target=run, name="asynccfg-lint deep parse", daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous_stack)
    try:
        thread.join(DEEP_PARSE_SECONDS)
    finally:
        sys.setrecursionlimit(limit)
    if thread.is_alive():
        raise ParseFailure(f"libcst did not parse the file within {DEEP_PARSE_SECONDS:g} s", timed_out=True)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
