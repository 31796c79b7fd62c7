"""Parse stage: source bytes or text to a libcst module with the metadata every stage uses."""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ScopeProvider
from libcst.metadata import QualifiedName
from libcst.metadata.name_provider import FullyQualifiedNameVisitor

from asynccfg_lint.discovery import ModuleName, module_name_for


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


def _syntax_failure(source: str | bytes, path: str | None, exc: cst.ParserSyntaxError) -> ParseFailure:
    """Describe a libcst syntax error as CPython does: its message and 1-based line/column.

    libcst's own position often points past the error and its message lists expected tokens;
    ``compile`` gives what flake8 reports as E999 (e.g. "'(' was never closed" at the bracket).
    When CPython accepts the file, the syntax is one libcst does not support.
    """
    try:
        compile(source, path or "<stdin>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno or 1
        column = error.offset or 1
        return ParseFailure(f"syntax error: {error.msg}", line, max(column, 1))
    except (ValueError, RecursionError, MemoryError):
        pass
    return ParseFailure(f"libcst cannot parse this file: {exc.message}", exc.raw_line, exc.raw_column + 1)


def parse_source(source: str | bytes, path: str | None) -> ParsedModule:
    """Parse ``source`` (bytes are decoded as Python does: BOM, PEP 263 cookie, else UTF-8).

    Returns:
        a :class:`ParsedModule` with scopes and parents resolved (positions and qualified names on demand).
    Raises:
        ParseFailure: on a decode error, a syntax error, or a ``RecursionError`` in libcst.
    """
    try:
        module = cst.parse_module(source)
        text = module.code
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        scopes = wrapper.resolve(ScopeProvider)
        parents, calls = index_tree(module)
    except cst.ParserSyntaxError as exc:
        raise _syntax_failure(source, path, exc) from None
    except UnicodeDecodeError:
        raise _decode_failure(source) or ParseFailure("cannot decode the file") from None
    except RecursionError:
        raise ParseFailure("the file nests too deeply for the parser (RecursionError)") from None
    except (SyntaxError, LookupError, ValueError) as exc:
        raise _decode_failure(source) or ParseFailure(f"cannot read the file: {exc}") from None
    return ParsedModule(
        path=path or "-",
        text=text,
        wrapper=wrapper,
        name=module_name_for(path),
        scopes=scopes,
        parents=parents,
        calls=calls,
    )
