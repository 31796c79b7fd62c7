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
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

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
    without_line_start_form_feeds,
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


_Result = TypeVar("_Result")


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


_Fact = TypeVar("_Fact")


class ModuleMemo(Generic[_Fact]):
    """What one analysis stage derives from a whole :class:`ParsedModule`, kept per module.

    Each stage owns its memo (a module-level ``ModuleMemo[T]``), so the facts are typed where they
    are made and go away with the module (weak keys). ``of(parsed)`` gives the module's fact,
    made by ``make()`` on first use; a stage that fills it in place (a dict of sub-results) gets
    the same object back each time.
    """

    def __init__(self, make: Callable[[], _Fact]) -> None:
        self._make = make
        self._facts: weakref.WeakKeyDictionary[ParsedModule, _Fact] = weakref.WeakKeyDictionary()

    def of(self, parsed: ParsedModule) -> _Fact:
        """The fact of ``parsed``, made empty on first use."""
        fact = self._facts.get(parsed)
        if fact is None:
            fact = self._facts[parsed] = self._make()
        return fact

    def known(self, parsed: ParsedModule) -> _Fact | None:
        """The fact of ``parsed`` if one was made, else ``None`` (nothing is made)."""
        return self._facts.get(parsed)

    def put(self, parsed: ParsedModule, fact: _Fact) -> _Fact:
        """Keep ``fact`` as ``parsed``'s and return it."""
        self._facts[parsed] = fact
        return fact


@dataclass(eq=False)  # compared and hashed by identity: the key of each stage's ModuleMemo
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
    #: the tree is deeper than :data:`DEEP_TREE_DEPTH` (or libcst recursed too deep on it): analyse it,
    #: generate its code and fix it through :meth:`run` (on a large stack)
    deep: bool = False
    #: why libcst's tree is not the file's text byte for byte (it was read through a normalised
    #: copy, or libcst drops characters), or ``None``; ``fix`` writes no such file
    inexact: str | None = None
    _position_map: PositionMap | None = field(default=None, repr=False)
    _positions: Mapping | None = field(default=None, repr=False)
    _qualnames: dict = field(default_factory=dict, repr=False)

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

    def run(self, function: Callable[[], _Result]) -> _Result:
        """``function()`` (a stage that walks this module), on a large stack when the module is :attr:`deep`.

        A shallow module's stage that recurses too deep (its analysis reached a deep module of the
        project: a builder imported from it) runs again on the large stack. What the first try kept
        in the modules' ``facts`` is complete or added to the same way again (each fact is written
        once it is known, or with ``setdefault``).

        Raises:
            what ``function`` raises; ParseFailure when a stage on the large stack takes longer than
            :data:`DEEP_ANALYSIS_SECONDS`.
        """
        if not self.deep:
            try:
                return function()
            except RecursionError:
                pass
        return on_a_large_stack(function, "the analysis did not finish", DEEP_ANALYSIS_SECONDS)


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


#: syntax trees deeper than this (AST levels) are parsed and analysed on a thread with a large stack
#: (:func:`on_a_large_stack`): libcst's parse, its metadata, code generation and the analysis recurse
#: a few frames per level, and the default stack and recursion limit (1 000) end near 150 levels
#: (``tests/fixtures/hard/deep_calls.py``: 180 nested calls). CPython imports up to about 3 000
#: levels (``x + x + ...`` of 2 994 terms inside a ``def`` on 3.12.1); each of them is analysed
DEEP_TREE_DEPTH = 100
#: the stack and Python recursion limit of the thread that parses and analyses a deep file
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
#: how long that thread may take before the file is given up (it cannot be stopped; it ends with the process):
#: libcst's parse (its native parser takes seconds on 3 000 levels), and a deep module's analysis or fix
#: (which parses the fixed text again and re-checks it)
DEEP_PARSE_SECONDS = 30.0
DEEP_ANALYSIS_SECONDS = 60.0


def _interpreter_failure(source: str | bytes, path: str | None) -> tuple[ParseFailure | None, bool]:
    """Why the running Python rejects ``source``, if it does (its message and 1-based position), and whether it is deep.

    libcst accepts syntax the interpreter does not (``except A, B:`` of Python 3.14 on 3.12,
    more than 200 nested brackets); CPython's ``compile`` gives what flake8 reports as E999
    (e.g. "'(' was never closed" at the bracket). A deep tree CPython gives up on (its recursion
    limit while building the AST or compiling the bytecode, which an import also does) gives
    CPython's message; the verdict is the one of a fresh thread (:func:`_compiles_on_a_fresh_thread`).

    Returns:
        ``(failure or None, deep)``: ``deep`` when the tree is deeper than :data:`DEEP_TREE_DEPTH`.
    """
    try:
        tree = compile(source, path or "<stdin>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        return ParseFailure(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1)), False
    except (RecursionError, MemoryError):  # the caller's stack counts against CPython's limit: ask a fresh thread
        return _compiles_on_a_fresh_thread(source, path), True
    except ValueError as error:  # null bytes (before Python 3.12.4)
        return ParseFailure(f"syntax error: {error}"), False
    if _depth(tree) > DEEP_TREE_DEPTH:
        return _compile_failure(source, path) and _compiles_on_a_fresh_thread(source, path), True
    return None, False


def _compiles_on_a_fresh_thread(source: str | bytes, path: str | None) -> ParseFailure | None:
    """:func:`_compile_failure` on a new thread (of the default stack size, at the top of its own call stack).

    CPython's compiler counts the C (3.12) or Python (3.11) recursion depth of its caller against
    its limit, so the verdict inside this linter's call stack would be stricter than an import's:
    ``x + x + ...`` of 2 990 terms compiles at the top of a thread and fails a few calls deeper.
    Only the bytecode compile (what an import runs) decides: CPython 3.12.1 sometimes refuses to
    build the ``ast`` objects of a tree it compiles.
    """
    outcome: list[ParseFailure | None] = []
    thread = threading.Thread(target=lambda: outcome.append(_compile_failure(source, path)), name="asynccfg-lint compile")
    thread.start()
    thread.join()
    return outcome[0] if outcome else ParseFailure("Python cannot compile the file")


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


def _depth(tree: ast.AST) -> int:
    """The number of nodes on ``tree``'s longest path from the root (iteratively: the tree may be deep)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


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
    rejected, deep = _interpreter_failure(source, path)
    if rejected is not None:
        raise undecodable or rejected
    inexact = []
    if undecodable is not None:  # CPython compiled it: the bad bytes are in comments
        assert isinstance(source, bytes)
        source = decode_with_placeholders(source, _encoding(source))
        inexact.append("an undecodable byte in a comment, read as U+FFFD")
    try:
        first: BaseException | None = None
        if not deep:
            try:
                module, wrapper, scopes, parents, calls, positions, code = _parse(source)
                file_text = source.decode(module.encoding) if isinstance(source, bytes) else source
                position_map = _position_map(file_text, code) if code is not None else None
            except (cst.ParserSyntaxError, RecursionError, ParseFailure) as error:
                first = error
        if deep or first is not None:
            file_text = given = _text(source)
            spaced = indentation_as_spaces(given)
            copy = merge_long_string_runs(spaced)
            dropped = without_line_start_form_feeds(copy)  # the one normalisation that moves characters
            if first is not None and dropped == given and not isinstance(first, RecursionError):
                raise first  # the same text gives the same failure: only the stack was worth another try
            target = source if dropped == given else dropped  # the file's own bytes keep their encoding for fix
            try:
                parts = on_a_large_stack(lambda: _parse(target, positions=True))
                module, wrapper, scopes, parents, calls, positions, code = parts
                code = dropped if code is None and dropped != copy else code
                position_map = _position_map(copy, code) if code is not None else None
            except (cst.ParserSyntaxError, RecursionError, ParseFailure) as second:
                if isinstance(second, ParseFailure) and second.timed_out or first is None:
                    raise second from None
                raise first from None
            deep = True
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
        _position_map=position_map,
        _positions=positions,
    )


def _brief(error: BaseException) -> str:
    """``str(error)``, or its type's name when that text recurses too deep (a message holding a deep node's repr)."""
    try:
        return str(error)
    except RecursionError:
        return type(error).__name__


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
    """libcst's module of ``source``, its metadata wrapper, scopes, parents and calls, (when asked)
    positions, and its generated code where it may differ from the text (:data:`_MAY_DIFFER`; else
    ``None``), on the same stack: code generation recurses per level."""
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    scopes = module_scopes(module)
    parents, calls = index_tree(module)
    position_map = wrapper.resolve(PositionProvider) if positions else None
    text = source.decode(module.encoding) if isinstance(source, bytes) else source
    code = module.code if _MAY_DIFFER.search(text) else None
    return module, wrapper, scopes, parents, calls, position_map, code


#: set on the thread :func:`on_a_large_stack` runs its function on (a stage there calls the next directly)
_ON_A_LARGE_STACK = threading.local()


#: the keyword sets libcst 1.9.0's nodes pass to ``_codegen``, each with a call that names them (no ``**`` spread)
_KEYWORD_CALLS: dict[frozenset[str], Callable] = {
    frozenset({"is_elif"}): lambda impl, state, kw: impl(state, is_elif=kw["is_elif"]),
    frozenset({"default_comma"}): lambda impl, state, kw: impl(state, default_comma=kw["default_comma"]),
    frozenset({"default_comma", "default_comma_whitespace"}): lambda impl, state, kw: impl(
        state, default_comma=kw["default_comma"], default_comma_whitespace=kw["default_comma_whitespace"]),
    frozenset({"default_comma", "default_star"}): lambda impl, state, kw: impl(
        state, default_comma=kw["default_comma"], default_star=kw["default_star"]),
    frozenset({"default_indicator"}): lambda impl, state, kw: impl(state, default_indicator=kw["default_indicator"]),
    frozenset({"default_space"}): lambda impl, state, kw: impl(state, default_space=kw["default_space"]),
    frozenset({"default_separator"}): lambda impl, state, kw: impl(state, default_separator=kw["default_separator"]),
    frozenset({"default_semicolon"}): lambda impl, state, kw: impl(state, default_semicolon=kw["default_semicolon"]),
}


def _codegen_without_c_recursion() -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's code generation (behaviour-identical).

    ``CSTNode._codegen(self, state, **kwargs)`` (libcst 1.9.0) calls ``self._codegen_impl(state,
    **kwargs)``; a call that spreads ``**kwargs`` runs through C in CPython 3.12, which counts it
    against a C recursion limit that ``sys.setrecursionlimit`` does not raise. Positions
    (``PositionProvider``), ``module.code`` and a fix's ``module.bytes`` generate code one level per
    tree level, so a tree about 1 000 levels deep failed however large the stack (measured on
    ``x + x + ...``; ``elif`` chains pass ``is_elif=True`` at every level). This replacement makes
    the same call without the spread: with no keyword, or with one of the keyword sets libcst
    passes (:data:`_KEYWORD_CALLS`, which names them); any other set is libcst's own call.
    Installed on the first deep file (:func:`on_a_large_stack`), only on CPython 3.12 and later
    (3.11 counts both recursions against the one limit the large-stack thread raises), and only
    while ``_codegen`` is still libcst's.
    """
    if sys.version_info < (3, 12):
        return
    original = cst.CSTNode._codegen
    if getattr(original, "__qualname__", "") != "CSTNode._codegen":
        return  # already replaced (here or by someone else): leave it
    calls = _KEYWORD_CALLS

    def _codegen(self: cst.CSTNode, state, **kwargs) -> None:
        state.before_codegen(self)
        if not kwargs:
            self._codegen_impl(state)
        else:
            call = calls.get(frozenset(kwargs))
            if call is None:
                self._codegen_impl(state, **kwargs)
            else:
                call(self._codegen_impl, state, kwargs)
        state.after_codegen(self)

    _codegen.__qualname__ = "asynccfg_lint._codegen"
    _codegen.__doc__ = original.__doc__
    _codegen.__wrapped__ = original  # type: ignore[attr-defined]
    cst.CSTNode._codegen = _codegen  # type: ignore[method-assign]


def _dotted_names_without_c_recursion() -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's ``ScopeProvider`` (behaviour-identical).

    ``libcst.metadata.scope_provider._gen_dotted_names`` (libcst 1.9.0) is a recursive generator:
    each level's ``next()`` of the level below is a C call on CPython 3.12, so ``x.T.T...`` of
    about 1 000 attributes exceeded the C recursion limit whatever the stack. The replacement
    yields the same pairs in the same order from one walk down the chain: for ``a.b.c``
    ``("a.b.c", c), ("a.b", b), ("a", a)``; an attribute of a call (``f().b``) yields what the
    call's function yields; a chain that does not end in a name yields nothing. Installed with
    :func:`_codegen_without_c_recursion`, under the same conditions.
    """
    from libcst.metadata import scope_provider

    if sys.version_info < (3, 12) or scope_provider._gen_dotted_names.__module__ != scope_provider.__name__:
        return

    def _gen_dotted_names(node):
        spine: list[tuple[cst.Attribute, bool]] = []  # each attribute above the name, and whether it is of a call
        while not isinstance(node, cst.Name):
            value = node.value
            of_a_call = isinstance(value, cst.Call)
            if of_a_call:
                value = value.func
            if not isinstance(value, (cst.Attribute, cst.Name)):
                return
            spine.append((node, of_a_call))
            node = value
        names = [(node.value, node)]  # innermost first; yielded in reverse
        for attribute, of_a_call in reversed(spine):
            if not of_a_call:
                names.append((f"{names[-1][0]}.{attribute.attr.value}", attribute))
        yield from reversed(names)

    _gen_dotted_names.__module__ = __name__
    _gen_dotted_names.__wrapped__ = scope_provider._gen_dotted_names  # type: ignore[attr-defined]
    scope_provider._gen_dotted_names = _gen_dotted_names


def on_a_large_stack(function: Callable[[], _Result], unfinished: str = "libcst did not parse the file",
                     seconds: float = DEEP_PARSE_SECONDS) -> _Result:
    """``function()`` run on a thread with :data:`DEEP_STACK_BYTES` of stack and a raised recursion limit.

    Called on that thread, ``function()`` runs directly. Installs :func:`_codegen_without_c_recursion`
    and :func:`_dotted_names_without_c_recursion`.

    Args:
        function: the stage to run.
        unfinished: what the failure says when the thread takes too long (followed by "within 30 s").
        seconds: how long the thread may take.
    Raises:
        what ``function`` raised; ParseFailure when it takes longer than ``seconds``.
    """
    if getattr(_ON_A_LARGE_STACK, "active", False):
        return function()
    _codegen_without_c_recursion()
    _dotted_names_without_c_recursion()
    outcome: dict[str, object] = {}

    def run() -> None:
        _ON_A_LARGE_STACK.active = True
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
        thread.join(seconds)
    finally:
        sys.setrecursionlimit(limit)
    if thread.is_alive():
        raise ParseFailure(f"{unfinished} within {seconds:g} s", timed_out=True)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
