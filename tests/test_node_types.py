"""instance_types: a set of exact types that answers as isinstance does, for libcst's nodes and scope objects."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from libcst.metadata.scope_provider import Assignment, BuiltinAssignment, ImportAssignment

from asynccfg_lint.analysis.elision import LeftOutAssignment, LeftOutImportAssignment
from asynccfg_lint.analysis.node_types import NODE_TYPES, instance_types
from asynccfg_lint.analysis.parse import parse_source

FIXTURE = Path(__file__).parent / "fixtures" / "cli" / "findings.py"
KINDS = [(cst.CSTNode,), (cst.BaseExpression,), (cst.BaseSuite,), (cst.Call,), (cst.If, cst.IfExp),
         (cst.FunctionDef, cst.ClassDef, cst.Lambda), (cst.BaseSmallStatement, cst.BaseCompoundStatement)]


def test_every_node_of_a_module_is_tested_as_isinstance_tests_it():
    nodes: list[cst.CSTNode] = []

    class Every(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    parse_source(FIXTURE.read_bytes(), str(FIXTURE)).module.visit(Every())
    assert len(nodes) == 591  # expect: every node of the module, whitespace and punctuation included
    for kinds in KINDS:
        types = instance_types(kinds)
        assert [type(node) in types for node in nodes] == [isinstance(node, kinds) for node in nodes], kinds


def test_abstract_and_concrete_kinds():
    assert instance_types((cst.Call,)) == {cst.Call}  # expect: a leaf class alone
    # expect: with its subclasses (a skeleton's assignments whose uses it left out are of two of them)
    assert instance_types((Assignment,)) == {Assignment, ImportAssignment, LeftOutAssignment, LeftOutImportAssignment}
    assert BuiltinAssignment not in instance_types((Assignment,))
    assert cst.Name in NODE_TYPES and cst.SimpleWhitespace in NODE_TYPES and cst.CSTNode in NODE_TYPES
    assert str not in NODE_TYPES and tuple not in NODE_TYPES
