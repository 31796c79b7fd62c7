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


def test_a_file_libcst_does_not_give_back_is_a_failure_at_the_first_difference():
    error = failure("import os\r\nx = 1;\x0cy = 2\n\x0cz = 3\n")
    assert (error.line, error.column) == (3, 1)
    assert str(error).startswith("libcst does not give back this file's text")


def test_a_dropped_final_line_break_keeps_positions():
    assert parse_source("x = 1\ry = 2\r", "m.py").text == "x = 1\ry = 2"


def test_a_libcst_only_failure_points_inside_the_file():
    # libcst's raw position for this file was line 3, column 38 902 (past the end of "x = 1")
    strings = " ".join(f'"s{i}"' for i in range(5000))
    error = failure(f"import os\ny = ({strings})\nx = 1\n")
    assert (error.line, error.column) == (2, len(strings) + 7)
    assert str(error).startswith("libcst cannot parse this file: parser error: error at 2:")
