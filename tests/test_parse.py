"""Parse stage: module names, and ACC001 reasons and positions as CPython (and flake8's E999) give them."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import libcst
import pytest

from asynccfg_lint.analysis import parse
from asynccfg_lint.analysis.parse import module_name_for, parse_source, parse_unvalidated
from asynccfg_lint.analysis.parse_failure import ParseFailure
from asynccfg_lint.process_owner import owned_process
from tests.frontend_runs import SINK_IMPORT, parse_text, run_cli


def failure(source: str | bytes) -> ParseFailure:
    with pytest.raises(ParseFailure) as caught:
        parse_source(source, "m.py")
    return caught.value


def test_unclosed_bracket_points_at_the_bracket():
    error = failure("import os\nx = (1,\ny = 2\n")
    assert (error.line, error.column, str(error)) == (2, 5, "syntax error: '(' was never closed")


def test_invalid_syntax_points_at_the_offending_token():
    error = failure('"""doc"""\ndef f(:\n    pass\n')
    assert (error.line, error.column, str(error)) == (2, 7, "syntax error: invalid syntax")


def test_a_column_counts_characters_whether_the_source_is_bytes_or_text():
    # CPython counts a UTF-8 bytes source's columns in bytes (15 here); as python and flake8 show it: 12
    text = 'x = 1\nx = "\xe9\xe9\xe9" +\n'
    assert [(e.line, e.column, str(e)) for e in (failure(text), failure(text.encode()))] == [
        (2, 12, "syntax error: invalid syntax")] * 2


def test_the_line_of_an_error_is_the_checked_texts_not_the_files_on_disk(tmp_path):
    # an editor's unsaved buffer: CPython reads the line of an error at the end of the text from the named file
    (tmp_path / "m.py").write_text("a = 1\nb = 2\nc = 3\nd = 4\n")
    with pytest.raises(ParseFailure) as caught:
        parse_source("import os\n\n\ndef f_long_name(x, **params):\n", str(tmp_path / "m.py"))
    assert (caught.value.line, caught.value.column, str(caught.value)) == (
        4, 30, "syntax error: expected an indented block after function definition on line 4")


def test_python_s_warnings_about_the_checked_text_are_not_printed(tmp_path):
    # an invalid escape sequence: CPython 3.12 warns while compiling, and the check compiles the file
    (tmp_path / "m.py").write_text(SINK_IMPORT + 'x = "\\d"\nemit("t", 1, 2, {"a": {1}})\n')
    result = run_cli("--no-cache", "m.py", cwd=tmp_path)
    assert [(r.line, r.column, r.code) for r in parse_text(result.stdout)] == [(3, 23, "ACC101")]
    assert result.stderr == "1 sink call checked: all fully typed\n"


def test_undecodable_bytes():
    error = failure(b'import os\nx = "caf\xe9"\n')
    assert (error.line, error.column) == (2, 1)
    assert str(error) == "cannot decode the file as utf-8: invalid continuation byte at byte 18"


def test_module_name_of_a_package_file(tmp_path):
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("")
    assert named(module_name_for(str(package / "mod.py"))) == ("pkg.sub.mod", "pkg.sub")
    assert named(module_name_for(str(package / "__init__.py"))) == ("pkg.sub", "pkg.sub")
    assert named(module_name_for(str(tmp_path / "loose.py"))) == ("loose", "")
    assert named(module_name_for("-")) == ("__main__", "")


def named(module) -> tuple[str, str]:
    return module.name, module.package


def test_syntax_the_running_python_rejects_is_a_failure_even_if_libcst_parses_it():
    error = failure("try:\n    pass\nexcept ValueError, TypeError:\n    pass\n")  # Python 3.14 syntax
    assert (error.line, error.column, str(error)) == (3, 8, "syntax error: multiple exception types must be parenthesized")


def test_a_tree_deeper_than_the_c_recursion_limit_is_parsed_with_its_positions(owned):
    """1 600 terms: more levels than CPython 3.12's C recursion limit (1 500) that libcst's code generation
    met through its ``**kwargs`` call (libcst_workarounds.codegen_without_c_recursion)."""
    import libcst as cst

    source = "import math\ny = " + " + ".join(["x"] * 1_600) + "\nz = math.nan\n"
    parsed = parse_source(source, "m.py")
    names = [node for node in parsed.parents if isinstance(node, cst.Name) and node.value == "z"]
    position = parsed.positions[names[0]]
    assert (parsed.deep, parsed.inexact, position.start.line, position.start.column) == (True, None, 3, 0)
    assert parsed.run(lambda: parsed.module.code) == source


def test_a_tree_cpython_gives_up_on_stays_a_failure_with_its_message():
    error = failure("x = " + " + ".join(["x"] * 10_000) + "\n")
    assert (error.line, error.column) == (1, 1)
    assert str(error) == "Python cannot compile the file: RecursionError: maximum recursion depth exceeded during compilation"


@pytest.mark.slow  # (4 s: a compile 2 900 levels deep)
def test_cpythons_verdict_does_not_depend_on_the_callers_depth(owned):
    """The compiler counts its caller's (C) recursion depth: deep in a call stack it refuses what an import compiles."""
    from asynccfg_lint.analysis.parse import _compiles_on_a_fresh_thread

    source = "def f(x):\n    return " + " + ".join(["x"] * 2_900) + "\n"

    class Caller:
        def nested(self, levels: int, **spread):  # a method called with ``**``: a C-level call on 3.12 (and 3.11)
            if levels:
                return self.nested(levels - 1, **spread)
            try:
                compile(source, "f.py", "exec", dont_inherit=True)
            except RecursionError:
                return "refused", _compiles_on_a_fresh_thread(source)
            return "compiled", None

    assert Caller().nested(100) == ("refused", None)  # expect: refused 100 calls deep, compiled on a fresh thread
    assert parse_source(source, "f.py").deep is True


def _fixture_modules():
    from pathlib import Path

    fixtures = Path(__file__).parent / "fixtures"
    return [path for path in sorted(fixtures.rglob("*.py")) if path.stat().st_size < 30_000 and "hard" not in path.parts]


#: the two libcst workarounds are installed on CPython 3.12 and later only (3.11 has one recursion limit)
WORKAROUNDS_INSTALLED = pytest.mark.skipif(sys.version_info < (3, 12), reason="installed on CPython 3.12+ only")


@WORKAROUNDS_INSTALLED
@pytest.mark.e2e  # (17 s: every fixture's code generated twice)
def test_the_code_generation_workaround_gives_libcsts_text_and_positions(monkeypatch):
    """Every fixture module: the same code and the same position of every node with and without the workaround."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    from asynccfg_lint.analysis.libcst_workarounds import install_libcst_repairs

    original = cst.CSTNode._codegen
    with owned_process():
        assert install_libcst_repairs()
        replacement = cst.CSTNode._codegen
    assert (replacement.__wrapped__, cst.CSTNode._codegen) == (original, original)  # expect: put back when owning ends
    compared = 0
    for path in _fixture_modules():
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        results = []
        for codegen in (original, replacement):
            monkeypatch.setattr(cst.CSTNode, "_codegen", codegen)
            positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
            results.append((module.code, [(type(n).__name__, positions[n]) for n in positions]))
        assert results[0] == results[1], path
        compared += 1
    assert compared > 40


@pytest.mark.slow  # (5 s: every name of every fixture)
def test_the_dotted_names_workaround_yields_what_libcst_yields():
    """Every ``Name`` and ``Attribute`` of the fixture modules, and attributes of calls and subscripts."""
    import libcst as cst
    from libcst.metadata import scope_provider

    from asynccfg_lint.analysis.scopes import dotted_names as replacement

    original = vars(scope_provider)["_gen_dotted_names"]  # (libcst's own: the fact the replacement repeats)
    nodes = []

    class Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            nodes.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            nodes.append(node)

    for path in _fixture_modules():
        try:
            cst.parse_module(path.read_bytes()).visit(Collect())
        except cst.ParserSyntaxError:
            continue
    for source in ("f().b", "a.b().c.d", "x[0].b", "(f)().x", "a().b().c", "f()(x).y"):
        cst.parse_expression(source).visit(Collect())
    assert len(nodes) > 5_000
    for node in nodes:
        assert [(name, id(n)) for name, n in replacement(node)] == [(name, id(n)) for name, n in original(node)]
    assert [name for name, _ in replacement(cst.parse_expression("a.b().c.d"))] == ["a.b.d", "a.b", "a"]  # expect: libcst's own (the call's attribute c is dropped)
    assert [name for name, _ in replacement(cst.parse_expression("x[0].b"))] == []


def positions_of(source: str, name: str) -> list[tuple[int, int, int, int]]:
    """The (line, column, end line, end column) of every ``Name`` node ``name`` (libcst's 0-based columns)."""
    import libcst as cst

    parsed = parse_source(source, "m.py")
    nodes = [node for node in parsed.parents if isinstance(node, cst.Name) and node.value == name]
    ranges = [parsed.positions[node] for node in nodes]
    return sorted((r.start.line, r.start.column, r.end.line, r.end.column) for r in ranges)


def test_libcst_text_is_compared_with_the_file_only_where_it_may_differ():
    import libcst as cst

    from asynccfg_lint.analysis.parse import _MAY_DIFFER

    inside = "x = 1 + \\\n    2\nif x: \\\n    pass\n"  # continuations after a line's first token
    assert _MAY_DIFFER.search(inside) is None  # expect: not compared
    assert cst.parse_module(inside).code == inside  # expect: libcst gives it back as it is
    dropped = "\\\nx = 1\n"  # a continuation before the line's first token
    assert cst.parse_module(dropped).code != dropped  # expect: libcst drops it
    for text in (dropped, "  \\\nx = 1\n", "x = 1\r\ny = 2\r\n", "x = 1\n\x0cy = 2\n", "x = 1\ry = 2\n"):
        assert _MAY_DIFFER.search(text) is not None  # expect: compared (and mapped back)


def test_what_libcst_drops_is_mapped_back_to_the_files_positions():
    source = "import os\r\nx = 1;\x0cy = 2\n\x0cz = 3\n\\\n\\\nwhere = 4\n"
    assert positions_of(source, "z") == [(3, 1, 3, 2)]  # after the dropped form feed
    assert positions_of(source, "where") == [(6, 0, 6, 5)]  # after two dropped backslash lines
    assert parse_source(source, "m.py").inexact == (
        "a form feed or backslash continuation before the first token of a line, which libcst drops")


def test_a_dropped_final_line_break_keeps_positions():
    parsed = parse_source("x = 1\ry = 2\r", "m.py")
    assert (parsed.text, parsed.inexact) == ("x = 1\ry = 2\r", None)
    assert positions_of("x = 1\ry = 2\r", "y") == [(2, 0, 2, 1)]


def test_more_strings_than_libcsts_parser_takes_are_read_joined():
    strings = " ".join(f'"s{i}"' for i in range(5000))
    source = f"import os\ny = ({strings})\nafter = 1\n"
    assert positions_of(source, "after") == [(3, 0, 3, 5)]
    assert parse_source(source, "m.py").inexact == "more than 3000 implicitly concatenated strings, read joined"


def test_a_libcst_only_failure_points_inside_the_file():
    # one string per line: the copy joins only neighbours on one line, so libcst's parser still stops
    strings = "\n".join(f'    "s{i}"' for i in range(5000))
    error = failure(f"import os\ny = (\n{strings}\n)\nx = 1\n")
    assert (error.line, error.column) == (5003, 2)  # the 3 001st string, where libcst's parser stops
    assert str(error).startswith('libcst cannot parse this file: parser error: error at 5003:1: expected one of STRING')


def test_undecodable_comment_bytes_python_accepts_are_read_as_placeholders():
    parsed = parse_source(b"import os  # caf\xe9 \xff\xfe\nx = 1\n", "m.py")
    assert parsed.text == "import os  # caf\ufffd \ufffd\ufffd\nx = 1\n"
    assert parsed.inexact == "an undecodable byte in a comment, read as U+FFFD"


def test_mixed_tabs_libcst_refuses_are_read_as_spaces():
    source = "if 1:\n\tif 2:\n        \tx = 1\n\ty = 2\n"  # 16 columns as CPython counts the third line
    assert positions_of(source, "y") == [(4, 1, 4, 2)]
    assert parse_source(source, "m.py").inexact == "indentation mixing tabs and spaces, read as spaces"


def test_the_depth_of_a_tree_counts_the_nodes_of_its_longest_path():
    import ast

    from asynccfg_lint.analysis.parse import _depth

    assert _depth(ast.parse("x")) == 4  # expect: Module, Expr, Name, Load
    assert _depth(ast.parse("def f():\n    return [a + b]\n")) == 7  # expect: ... Return, List, BinOp, Name, Load
    assert _depth(ast.parse("x = " + " + ".join(["y"] * 500))) == 503  # expect: 499 BinOps deep, no recursion


FIXTURES = Path(__file__).parent / "fixtures"
#: libcst's own CSTNode.__post_init__ (validation), as the import of libcst left it
LIBCST_POST_INIT = libcst.CSTNode.__post_init__


@pytest.mark.e2e  # (6 s: every fixture parsed twice)
def test_a_parse_without_validation_gives_libcsts_tree_and_validates_again_after(owned):
    # parse_unvalidated spares libcst's per-node _validate; the tree must be the one parse_module builds
    sources = [path.read_bytes() for path in sorted(FIXTURES.rglob("*.py"))]
    assert len(sources) > 100  # expect: the fixtures, every form the analysis knows
    compared = 0
    for source in sources:
        try:
            if parse._depth(ast.parse(source)) > parse.DEEP_TREE_DEPTH:
                continue  # (deep trees are parsed on a large stack: tests above; deep_equals would recurse)
            expected = libcst.parse_module(source)
            same = parse_unvalidated(source).deep_equals(expected)
        except (SyntaxError, ValueError, RecursionError, libcst.ParserSyntaxError):
            continue  # (files Python or libcst refuse)
        assert same
        compared += 1
    assert compared > 100
    assert libcst.CSTNode.__post_init__ is LIBCST_POST_INIT  # expect: restored after each parse
    with pytest.raises(libcst.CSTValidationError, match="Cannot have empty name identifier"):
        libcst.Name("")  # expect: a node made after the parses is validated


def test_validation_comes_back_after_a_parse_that_fails(owned):
    with pytest.raises(libcst.ParserSyntaxError):
        parse_unvalidated("def f(:\n")
    assert libcst.CSTNode.__post_init__ is LIBCST_POST_INIT
    with pytest.raises(libcst.CSTValidationError, match="Number is not a valid integer"):
        libcst.Integer("abc")
