"""Parse stage: module names, and ACC001 reasons and positions as CPython (and flake8's E999) give them."""

from __future__ import annotations

import pytest

from asynccfg_lint.parse import ParseFailure, module_name_for, parse_source


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


def test_a_tree_deeper_than_the_limit_is_not_handed_to_libcst():
    error = failure("x = " + " + ".join(["x"] * 1500) + "\n")  # libcst's parser: seconds, then RecursionError
    assert (error.line, error.column, str(error)) == (1, 1, "the file nests too deeply for the parser (more than 1000 levels)")


def positions_of(source: str, name: str) -> list[tuple[int, int, int, int]]:
    """The (line, column, end line, end column) of every ``Name`` node ``name`` (libcst's 0-based columns)."""
    import libcst as cst

    parsed = parse_source(source, "m.py")
    nodes = [node for node in parsed.parents if isinstance(node, cst.Name) and node.value == name]
    ranges = [parsed.positions[node] for node in nodes]
    return sorted((r.start.line, r.start.column, r.end.line, r.end.column) for r in ranges)


def test_libcst_text_is_compared_with_the_file_only_where_it_may_differ():
    import libcst as cst

    from asynccfg_lint.parse import _MAY_DIFFER

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
