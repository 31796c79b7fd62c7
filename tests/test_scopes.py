"""asynccfg_lint.analysis.scopes builds exactly the scopes libcst's ScopeProvider builds (its reference).

For every fixture module, each node's scope, each scope's assignments (name, node, index, kind),
accesses (node, index, referents) and each assignment's references must equal libcst's.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider
from libcst.metadata.scope_provider import BuiltinScope, LocalScope

from asynccfg_lint.analysis.scopes import index_tree, module_index, module_scopes

ROOT = Path(__file__).resolve().parent.parent
#: every fixture module libcst parses on the default stack (tests/fixtures/hard nests too deep for its visitor)
MODULES = sorted(p for folder in (ROOT / "tests" / "fixtures", ROOT / "docs" / "examples")
                 for p in folder.rglob("*.py") if "hard" not in p.parts)

#: a module with every binding form the walk handles (libcst's scopes are the expectation)
FORMS = '''
import os.path as osp, a.b.c
from . import sibling
from typing import Literal, cast, TypeVar, Optional
T = TypeVar("T", "Bound")
x: "Optional[os.PathLike]" = cast("list[int]", [])
def outer(p, /, q: "T" = x, *args, k=lambda v=x: v, **kw) -> "Literal['no']":
    global g
    g = [y for y in p if (w := y)] + [w]
    def inner():
        nonlocal q
        q += 1
        return {k2: v2 for k2, v2 in kw.items() for _ in range(k2)}
    for i, (j, *rest) in enumerate(args):
        with open(i) as (f, h), open(j) as e:
            pass
    try:
        del q
    except (OSError, ValueError) as err:
        raise err
    match p:
        case {"k": [a1, *more]} | Point(x=a1, y=_) if a1 > 0:
            return a1 if more else -a1
    return inner
@outer
class C(Base, metaclass=M):
    attr = x
    def method(self, z=attr):
        return self.attr.osp.join(z), sibling.f(z).g
type Alias[U] = list[U]
'''


def _scope_key(scope: object) -> tuple:
    return type(scope).__name__, id(getattr(scope, "node", None))


def _assignment(a: object) -> tuple:
    return type(a).__name__, a.name, id(getattr(a, "node", None)), a._index, id(getattr(a, "as_name", None)), \
        _scope_key(a.scope)


def _access(a: object) -> tuple:
    return id(a.node), a._index, a.is_annotation, a.is_type_hint, _scope_key(a.scope), \
        frozenset(map(_assignment, a.referents))


def _description(module: cst.Module, scopes: dict) -> tuple[dict, dict]:
    """(node id -> scope key for the module's own nodes, scope key -> what the scope records)."""
    parents, _ = index_tree(module)
    nodes = {id(n): _scope_key(s) for n, s in scopes.items()
             if (n in parents or n is module) and not isinstance(n, _NO_NAMES)}
    described: dict = {}
    for scope in {id(s): s for s in scopes.values()}.values():
        while not isinstance(scope, BuiltinScope) and _scope_key(scope) not in described:
            described[_scope_key(scope)] = (
                _scope_key(scope.parent), scope._name_prefix, scope._assignment_count,
                list(scope._assignments),
                {name: frozenset((_assignment(a), frozenset(map(_access, a.references))) for a in found)
                 for name, found in scope._assignments.items()},
                list(scope._accesses_by_name),
                {name: frozenset(map(_access, found)) for name, found in scope._accesses_by_name.items()},
                sorted(scope._scope_overwrites) if isinstance(scope, LocalScope) else None)
            scope = scope.parent
    return nodes, described


#: whitespace and punctuation: libcst gives them a scope, the walk skips them (no name is in them)
_NO_NAMES = (cst.BaseParenthesizableWhitespace, cst.EmptyLine, cst.TrailingWhitespace, cst.Newline, cst.Comment,
             cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen,
             cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace,
             cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp,
             cst.Asynchronous, cst.ImportStar)


def _check(module: cst.Module) -> None:
    expected = _description(module, MetadataWrapper(module, unsafe_skip_copy=True).resolve(ScopeProvider))
    actual = _description(module, module_scopes(module))
    assert actual[1] == expected[1]  # expect: every scope records what libcst's records
    assert actual[0] == expected[0]  # expect: every node in libcst's scope


def test_binding_forms_match_libcst() -> None:
    module = cst.parse_module(FORMS)
    _check(module)
    scopes = module_scopes(module)
    outer = next(s for s in scopes.values() if getattr(s, "name", None) == "outer")
    # expect: the function's own bindings; as in libcst, a walrus target stays in its comprehension's
    # scope and a match capture (a1, more) is an access
    assert sorted(outer._assignments) == ["args", "e", "err", "f", "h", "i", "inner", "j", "k", "kw", "p", "q", "rest"]
    assert sorted(outer.globals._assignments) == ["Alias", "C", "Literal", "Optional", "T", "TypeVar", "a", "a.b",
                                                  "a.b.c", "cast", "g", "osp", "outer", "sibling", "x"]


#: calls libcst reads as typing.cast / TypeVar / NewType (their string arguments are names) under every
#: spelling of the callee the walk tells apart without resolving it, and look-alikes that are not
HINT_CALLS = '''
import typing as t
import typing
from typing import cast as c, TypeVar as TV, NewType
from other import cast as not_typing
Foo = Bar = Baz = Qux = Quux = None
A = c("Foo", 1)
B = TV("B", "Bar")
C = t.cast("Baz", 2)
D = NewType("D", "Qux")
E = typing.cast("Quux", 3)
F = not_typing("Foo", 4)
G = c[int]("Bar", 5)
def f():
    from typing import cast as inner
    return inner("Baz", 6), c.attr("Qux", 7)
typing = None
H = typing.cast("Quux", 8)
from typing import Optional as Opt, Literal
from typing_extensions import Annotated
from .typing import Optional as NotTyping
import typing.re as tre
cfg = {}
I: Opt["Foo"] = Literal["Bar"]
J = Annotated["Baz", "meta"], NotTyping["Qux"], cfg["Quux"], tre["Foo"]
'''


def test_hint_calls_match_libcst() -> None:
    """Only calls whose callee ends with ``cast``/``TypeVar``/``NewType`` or is an import alias of one have
    their qualified names resolved (the rest cannot be those calls); libcst resolves every call's."""
    module = cst.parse_module(HINT_CALLS)
    _check(module)
    hints = sorted(a.node.value for s in {id(s): s for s in module_scopes(module).values()}.values()
                   for a in s.accesses if a.is_type_hint)
    # expect: as libcst (checked above): not "Foo" of not_typing, "Qux" of c.attr or NotTyping (a relative
    # import), "Quux" of cfg; `c[int]` and the subscripts of names imported from typing modules are hints
    assert hints == ['"Bar"', '"Bar"', '"Baz"', '"Baz"', '"Baz"', '"Foo"', '"Foo"', '"Foo"', '"Quux"', '"Quux"',
                     '"Qux"', '"meta"', "Annotated", "Literal", "Opt", "c", "int", "tre"]


@pytest.mark.slow  # (19 s: every fixture against libcst's own provider)
@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_scopes_match_libcst(path: Path) -> None:
    _check(cst.parse_module(path.read_bytes()))


def _check_index(module: cst.Module) -> None:
    """The scope walk's parents are :func:`index_tree`'s, node for node; its calls are the same calls."""
    _, parents, calls = module_index(module)
    expected_parents, expected_calls = index_tree(module)
    assert parents.keys() == expected_parents.keys()  # expect: the same nodes have a parent
    assert [node for node, parent in parents.items() if expected_parents[node] is not parent] == []
    assert sorted(map(id, calls)) == sorted(map(id, expected_calls))  # expect: every call, once
    assert len(calls) == len(expected_calls)


def test_index_of_binding_forms() -> None:
    """Every node a handler of the walk leaves to itself (names, aliases, a class's block, a comprehension's loop,
    a string annotation's own tree) has the parent :func:`index_tree` gives."""
    module = cst.parse_module(FORMS + HINT_CALLS + "class One: pass\nT2 = TypeVar('T2')\n")
    _check_index(module)
    _, parents, calls = module_index(module)
    comprehension = next(n for n in parents if isinstance(n, cst.ListComp))
    assert parents[comprehension.for_in] is comprehension  # expect: the loop under its comprehension
    assert parents[comprehension.for_in.iter] is comprehension.for_in  # expect: its parts under the loop
    one = next(n for n in module.body if isinstance(n, cst.ClassDef) and n.name.value == "One")
    assert parents[one.body] is one and parents[one.body.body[0]] is one.body  # expect: `pass` under the suite
    # expect: the names inside string annotations ("Optional[os.PathLike]") are another tree's: no parent here
    assert not any(isinstance(n, cst.Name) and n.value == "PathLike" for n in parents)


@pytest.mark.slow  # (3 s: every fixture)
@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_index_matches_index_tree(path: Path) -> None:
    _check_index(cst.parse_module(path.read_bytes()))
