"""Positions generated one top-level statement at a time (:mod:`asynccfg_lint.analysis.positions`) are libcst's.

Every node's range is compared with libcst's own ``PositionProvider`` over the whole module; the
fast path must also be the one taken (no code generation of the whole module) where the ``ast``
line is right, and the whole module's positions where it is not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from libcst.metadata import CodePosition, CodeRange, PositionProvider

from asynccfg_lint.analysis.parse import parse_source

FIXTURES = Path(__file__).parent / "fixtures"

#: (source, whether one statement's generation places every node: False where the module's positions are needed)
CASES = {
    "plain": ("import json\n\ncfg = {'a': 1}\nx = cfg['a']\n", True),
    "header comments and docstring": ('# a comment\n\n"""Doc."""\n# lead\n\nimport os\n', True),
    "semicolons": ("a = 1; b = {2: 3}; c = a\nd = (b,\n     c)\n", True),
    "decorators and comments between": (
        "import functools\n\n\n# before\n@functools.cache\n\n# between\n@functools.wraps(print)\n"
        "def f(x):\n    return {'k': x}  # trailing\n    # block footer\n\n# module footer\n", True),
    "decorated class and nested def": (
        "import dataclasses\n@dataclasses.dataclass\nclass C:\n    a: int = 1\n\n    def m(self):\n"
        "        if self.a:\n            return [1,\n                    2]\n        else:\n            pass\n", True),
    "compound statements": (
        "for i in range(3):\n    pass\nelse:\n    x = 1\nwhile False:\n    break\ntry:\n    y = 1\n"
        "except ValueError as e:\n    y = 2\nfinally:\n    z = 3\nwith open('f') as h, open('g') as k:\n    pass\n"
        "match x:\n    case 1:\n        pass\n    case _:\n        pass\n", True),
    "backslash continuation inside a statement": ("x = 1 + \\\n    2\ny = {'a': \\\n  x}\n", True),
    "parenthesised statement start": ("(\n    print\n)(1)\n[a, b] = 1, 2\n", True),
    "CRLF line breaks": ("import os\r\n\r\ncfg = {\r\n  'a': os.sep,\r\n}\r\n", True),
    "tab indentation": ("if True:\n\tx = {\n\t\t'a': 1}\n", True),
    # CPython places the decorator at its expression, not at the '@' a line above: the text check
    # sends this module to libcst's whole-module positions
    "decorator expression on the next line": ("import functools\n@(\n    functools.cache\n)\ndef f():\n    pass\n",
                                              False),
    "no trailing newline": ("x = 1\ny = {'a': x}", True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_node_has_libcsts_range(name: str) -> None:
    source, by_statement = CASES[name]
    parsed = parse_source(source, "case.py")
    expected = parsed.wrapper.resolve(PositionProvider)
    positions = parsed.positions
    for node in parsed.parents:
        assert positions[node] == expected[node], (type(node).__name__, positions[node], expected[node])
    assert (positions._all is None) is by_statement


def test_one_statement_is_generated_for_a_node_of_it() -> None:
    source = "a = 1\n\n\ndef f(x):\n    return {'k': [x, 2]}\n\n\nb = f(a)\n"
    parsed = parse_source(source, "case.py")
    two = next(node for node in parsed.parents if type(node).__name__ == "Integer" and node.value == "2")
    assert parsed.positions[two] == CodeRange(CodePosition(5, 21), CodePosition(5, 22))
    # only f's nodes were generated: the first and last statements' nodes are not yet placed
    assert parsed.positions._generated == {parsed.module.body[1]}
    assert parsed.positions._all is None


def test_a_node_of_another_module_is_not_held() -> None:
    first = parse_source("x = {'a': 1}\n", "a.py")
    second = parse_source("x = {'a': 1}\n", "b.py")
    value = first.module.body[0].body[0].value
    assert value in first.positions
    assert value not in second.positions


@pytest.mark.e2e  # (20 s: every node of every fixture)
def test_every_fixture_node_has_libcsts_range(owned) -> None:
    """Over every fixture module that parses (deep and normalised ones take the whole-module path)."""
    compared = by_statement = 0
    for path in sorted(FIXTURES.rglob("*.py")):
        try:
            parsed = parse_source(path.read_bytes(), str(path))
        except Exception:  # noqa: BLE001 - the fixtures of files that do not parse
            continue
        positions = parsed.positions
        expected = parsed.wrapper.resolve(PositionProvider) if positions.__class__.__name__ == "StatementPositions" \
            else positions
        for node in parsed.parents:
            assert positions[node] == expected[node], (str(path), type(node).__name__)
            compared += 1
        by_statement += getattr(positions, "_all", True) is None
    assert compared > 100_000
    assert by_statement >= 190


def test_a_stored_parse_keeps_its_positions_right() -> None:
    # the result cache pickles parses: statements generated before are keyed by node, not by id()
    import pickle

    source = "a = 1\n\n\ndef f(x):\n    return {'k': [x, 2]}\n\n\nb = f(a)\n"
    parsed = parse_source(source, "case.py")
    parsed.positions[parsed.module.body[1]]
    loaded = pickle.loads(pickle.dumps(parsed))
    expected = loaded.wrapper.resolve(PositionProvider)
    assert loaded.positions._generated == {loaded.module.body[1]}
    for node in loaded.parents:
        assert loaded.positions[node] == expected[node]
    assert loaded.positions[loaded.module.body[2]] == CodeRange(CodePosition(8, 0), CodePosition(8, 8))
