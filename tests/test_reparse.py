"""Parsing an edited document from its previous parse (the language server's edits).

The spliced tree must be the tree a full ``libcst.parse_module`` of the new text gives (``deep_equals``,
and the same code), with the untouched top-level statements kept as they were (the same objects); where
that cannot be shown, :func:`spliced_module` gives ``None`` and the whole text is parsed.
"""

from __future__ import annotations

import ast
import os
import sys

import libcst as cst
import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.parse import DocumentParser, parse_source, parse_unvalidated
from asynccfg_lint.analysis.positions import statement_first_lines, statement_lines
from asynccfg_lint.analysis.reparse import spliced_module
from tests.expectations import FIXTURES

#: an extension module as users write one: primitive, abstract eval, lowering rule, registration, bind
EXTENSION = '''\
"""An all-gather that starts asynchronously."""
import numpy as np
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax.parallel import _emit_async_start_custom_call

gather_start_p = core.Primitive("gather_start")


def _abstract_eval(x, *, tiled, groups):
    return core.AbstractFuture(x)


gather_start_p.def_abstract_eval(_abstract_eval)


# the rule JAX calls at lowering
def _lowering(ctx, x, *, tiled, groups):
    cfg = {"tiled": np.bool_(tiled), "groups": groups}
    return _emit_async_start_custom_call("all-gather-start", ctx, x, cfg)


mlir.register_lowering(gather_start_p, _lowering)


def gather_start(x, tiled=False, groups=((0, 1),)):
    return gather_start_p.bind(x, tiled=tiled, groups=groups)
'''


def _splice(old: str, new: str) -> cst.Module | None:
    return spliced_module(cst.parse_module(old), old, statement_lines(ast.parse(old)), new,
                          statement_lines(ast.parse(new)), parse_unvalidated)


def _replaced(old: str, new: str) -> str:
    assert EXTENSION.count(old) == 1
    return EXTENSION.replace(old, new)


@pytest.mark.parametrize(("new", "spliced"), [
    pytest.param(EXTENSION + "# edit 1\n", True, id="a comment line appended (the benchmark's edit)"),
    pytest.param(_replaced('"groups": groups}', '"groups": set(groups)}'), True, id="a value in the rule"),
    pytest.param(_replaced("\n\n# the rule", "\n\nTILED = np.bool_(True)\n\n\n# the rule"), True,
                 id="a statement inserted between two"),
    pytest.param(_replaced("gather_start_p.def_abstract_eval(_abstract_eval)\n", ""), True, id="a statement deleted"),
    pytest.param(_replaced("    return gather_start_p", "    # bound here\n    return gather_start_p"), True,
                 id="a comment in the last function"),
    pytest.param(EXTENSION.rstrip("\n"), True, id="the last newline removed"),
    pytest.param(_replaced("import numpy as np", "import numpy"), None, id="the first statement: the header may change"),
    pytest.param(_replaced("    return core.AbstractFuture(x)", "  return core.AbstractFuture(x)"), None,
                 id="the first block indented by another unit"),
])
def test_an_edit_is_parsed_alone_when_that_gives_the_full_parse(new, spliced):
    module = _splice(EXTENSION, new)
    assert (module is not None) == bool(spliced)
    if module is not None:
        assert module.deep_equals(cst.parse_module(new))
        assert module.code == new


def test_a_piece_that_does_not_parse_alone_is_parsed_whole():
    old = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5  # '''\n"
    new = old.replace("b = 2\n", "b = 2\ns = '''\n")  # the string now ends in e's comment, beyond the piece
    assert cst.parse_module(new).body[2].body[0].value.value == "'''\nc = 3\nd = 4\ne = 5  # '''"
    assert _splice(old, new) is None


def test_a_documents_parser_keeps_the_statements_an_edit_left_alone():
    parser = DocumentParser()
    first = parser(EXTENSION, "gather.py")
    edited = _replaced('"groups": groups}', '"groups": frozenset(groups)}')
    second = parser(edited, "gather.py")
    assert parser.last is second
    # statements 0-4: imports, 5: the primitive, 6: def _abstract_eval, 7: its registration, 8: def _lowering, ...
    kept = [new is old for new, old in zip(second.module.body, first.module.body)]
    assert kept == [True] * 7 + [False] * 3 + [True]  # the statement before the edit's to the one after it: new
    assert second.module.deep_equals(cst.parse_module(edited))
    # the analysis of the spliced tree: positions in the new text, findings as from a full parse
    assert [(d.line, d.column, d.code) for d in check_source(edited, "gather.py", parse=parser)] == [
        (19, 21, "ACC101"), (19, 48, "ACC101")]
    assert check_source(edited, "gather.py", parse=parser) == check_source(edited, "gather.py")


def test_a_text_that_does_not_parse_keeps_the_last_parse_that_did():
    parser = DocumentParser()
    first = parser(EXTENSION, "gather.py")
    with pytest.raises(Exception) as failure:
        parser(EXTENSION + "def broken(:\n", "gather.py")
    assert type(failure.value).__name__ == "ParseFailure"
    assert parser.last is first
    again = parser(EXTENSION + "# edit\n", "gather.py")
    assert again.module.body[0] is first.module.body[0]


@pytest.mark.parametrize("text", ["x = 1\r\ny = 2\r\n", "x = 1\ny = \\\n  2\n"], ids=["CRLF", "a continuation"])
def test_texts_libcst_may_not_give_back_byte_for_byte_are_parsed_whole(text):
    previous = parse_source(text, "m.py")
    parsed = parse_source(text + "z = 3\n", "m.py", previous)
    assert parsed.module.body[0] is not previous.module.body[0]
    assert parsed.module.deep_equals(cst.parse_module(text + "z = 3\n"))


def _fixture_edits(text: str):
    """Each line of ``text`` with a comment appended, and each line deleted: the edited texts CPython accepts."""
    rows = text.split("\n")
    for index in range(len(rows)):
        for row in (rows[index] + "  # edited", None):
            new = "\n".join(rows[:index] + ([] if row is None else [row]) + rows[index + 1:])
            try:
                ast.parse(new)
            except SyntaxError:
                continue
            yield index, new


@pytest.mark.parametrize("name", ["checker/builders.py", "programs/extpkg/primitives.py",
                                  "programs/extpkg/registered.py", "programs/batching_rules.py"])
@pytest.mark.slow  # (28 s: every one-line edit of the fixtures)
def test_every_one_line_edit_of_a_fixture_module_gives_the_full_parse(name):
    text = (FIXTURES / name).read_text(encoding="utf-8")
    module = cst.parse_module(text)
    second = statement_first_lines(module, statement_lines(ast.parse(text)))[module.body[1]]  # (its leading lines included)
    edits = list(_fixture_edits(text))
    whole = []
    for index, new in edits:
        module = _splice(text, new)
        if module is None:
            whole.append(index)
        else:
            assert module.deep_equals(cst.parse_module(new)), (name, index)
            assert module.code == new, (name, index)
    # parsed whole: only an edit whose row above is in the first statement (the header may change)
    assert whole == [index for index, _ in edits if index + 1 <= second]


@pytest.mark.jax
def test_edits_of_jax_parallel_module_are_spliced():
    if sys.version_info < (3, 12):
        pytest.skip(f"jax 0.12.0.1 needs Python >= 3.12; this is {sys.version.split()[0]}")
    jax = pytest.importorskip("jax")
    with open(os.path.join(os.path.dirname(jax.__file__), "_src", "lax", "parallel.py"), encoding="utf-8") as handle:
        text = handle.read()
    inside = text.replace("  return _emit_async_start_custom_call(", "  # edited\n  return _emit_async_start_custom_call(", 1)
    assert inside != text
    for new in (text + "# edit 1\n", inside):
        module = _splice(text, new)
        assert module is not None
        assert module.deep_equals(cst.parse_module(new))
        assert module.code == new
