"""Parse stage: source bytes or text to a libcst module with the metadata every stage uses."""

from __future__ import annotations

import ast
import dataclasses
import io
import os
import re
import tokenize
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider
from libcst.metadata import QualifiedName
from libcst.metadata.name_provider import FullyQualifiedNameVisitor

from asynccfg_lint.discovery import ModuleName, module_name_for


def _repair_lambda_word_operator_check() -> None:
    """Work around a libcst bug that makes valid files unparsable (TypeError from ``super()``).

    libcst's ``Lambda._safe_to_use_with_word_operator`` calls zero-argument ``super()`` in a
    class its ``@add_slots`` re-creates, so the check libcst runs on a parenthesized lambda
    right after a keyword (``return(lambda: x)``, ``not(lambda: x)``, ``assert(lambda: x)``)
    raises ``TypeError: super(type, obj): obj must be an instance or subtype of type``
    instead of answering (CPython < 3.14, libcst 1.9.0; CPython issue 90562). The method is
    replaced, only while the bug is present, by the same rule with the base class named.
    """
    from libcst._nodes.expression import ExpressionPosition

    def safe_to_use_with_word_operator(self: cst.Lambda, position: ExpressionPosition) -> bool:
        if position == ExpressionPosition.LEFT:
            return len(self.rpar) > 0 or self.body._safe_to_use_with_word_operator(position)
        return cst.BaseExpression._safe_to_use_with_word_operator(self, position)

    try:
        cst.parse_expression("not(lambda: 0)")
    except TypeError:
        cst.Lambda._safe_to_use_with_word_operator = safe_to_use_with_word_operator  # type: ignore[method-assign]


_repair_lambda_word_operator_check()


class ParseFailure(Exception):
    """The file could not be decoded or parsed; ``str(exc)`` is the reason shown as ACC001.

    Attributes:
        line, column: 1-based position of the problem when known, else 1, 1.
    """

    def __init__(self, reason: str, line: int = 1, column: int = 1) -> None:
        super().__init__(reason)
        self.line = line
        self.column = column


@dataclass
class ParsedModule:
    """A parsed file and its resolved metadata.

    Attributes:
        path: the display path.
        text: the decoded source text (positions index into it).
        wrapper: the libcst ``MetadataWrapper`` (its ``.module`` is the tree the metadata refers to).
        name: the module's dotted name and package (for fully qualified local names).
        scopes: libcst's ``ScopeProvider`` mapping, keyed by node.
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
    _positions: dict | None = field(default=None, repr=False)
    _qualnames: dict = field(default_factory=dict, repr=False)
    #: facts derived from the whole module once, by the stage that needs them (keyed by that stage)
    facts: dict = field(default_factory=dict, repr=False)

    @property
    def positions(self) -> dict:
        """Node -> ``CodeRange`` (1-based lines, 0-based columns), resolved on first use.

        Summaries never need positions; only a module with something to report pays for them.
        """
        if self._positions is None:
            self._positions = self.wrapper.resolve(PositionProvider)
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


#: syntax trees deeper than this are not handed to libcst. Its native parser slows down
#: quadratically on long operator chains (``x + x + ...``: 10 000 terms ran for minutes, 8 000
#: overflowed its stack and killed the process); CPython's ``compile`` refuses those (near 3 000
#: levels) first, and below that libcst spends seconds only to raise RecursionError from 1 000 on
MAX_TREE_DEPTH = 1000
_TOO_DEEP = f"the file nests too deeply for the parser (more than {MAX_TREE_DEPTH} levels)"


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
    except (RecursionError, MemoryError):
        return ParseFailure(_TOO_DEEP)
    except ValueError as error:  # null bytes (before Python 3.12.4)
        return ParseFailure(f"syntax error: {error}")
    if _depth_exceeds(tree, MAX_TREE_DEPTH):
        return ParseFailure(_TOO_DEEP)
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
    text = source.decode(tokenize.detect_encoding(io.BytesIO(source).readline)[0]) if isinstance(source, bytes) else source
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

    Returns:
        a :class:`ParsedModule` with scopes and parents resolved (positions and qualified names on demand).
    Raises:
        ParseFailure: on a decode error, a syntax error of the running Python, a tree deeper than
            :data:`MAX_TREE_DEPTH`, a syntax libcst does not support, or a ``RecursionError`` in libcst.
    """
    failure = _decode_failure(source) or _interpreter_failure(source, path)
    if failure is not None:
        raise failure
    try:
        module = cst.parse_module(source)
        text = module.code
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        parents, calls = index_tree(module)
    except cst.ParserSyntaxError as exc:  # CPython accepted it: a syntax libcst does not support
        raise _libcst_failure(source, exc) from None
    except UnicodeDecodeError:
        raise _decode_failure(source) or ParseFailure("cannot decode the file") from None
    except RecursionError:
        raise ParseFailure("the file nests too deeply for the parser (RecursionError)") from None
    except (SyntaxError, LookupError, ValueError) as exc:
        raise _decode_failure(source) or ParseFailure(f"cannot read the file: {exc}") from None
    original = source.decode(module.encoding) if isinstance(source, bytes) else source
    if text != original and not _differs_only_at_the_end(original, text):
        # libcst dropped characters before some token: its positions would not be the file's
        line, column = _first_difference(original, text)
        raise ParseFailure("libcst does not give back this file's text (it drops a backslash continuation or "
                           "form feed before the first token of a line), so positions would be wrong", line, column)
    return ParsedModule(
        path=path or "-",
        text=text,
        wrapper=wrapper,
        name=module_name_for(path),
        scopes=scopes,
        parents=parents,
        calls=calls,
    )
