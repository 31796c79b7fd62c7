"""asynccfg_lint.analysis.resolution: the attribute writes of a module, found by a walk of its statements.

A libcst visitor over every node (the reference below, as the module once did it) finds the same
writes, in the same order, for every fixture module.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from asynccfg_lint.analysis.parse import parse_source
from asynccfg_lint.analysis.resolution import _attribute_writes, string_value

ROOT = Path(__file__).resolve().parent.parent
#: every fixture module libcst's visitor walks on the default stack (tests/fixtures/hard nests too deep)
MODULES = sorted(p for folder in (ROOT / "tests" / "fixtures", ROOT / "docs" / "examples")
                 for p in folder.rglob("*.py") if "hard" not in p.parts)

#: an attribute written in every statement form and nesting the walk must reach
WRITES = '''
self.top = 1
class C:
    a.cls: int = 2
    def m(self):
        if x:
            self.if_ = 3
        elif y:
            self.elif_ = 4
        else:
            self.else_ = 5
        for self.loop in z:
            self.for_body += 6
        else:
            del self.for_else
        while w: self.suite = 7
        try:
            self.try_ = 8
        except E:
            self.handler = 9
        else:
            self.try_else = 10
        finally:
            self.final, o.pair = 11, 12
        with ctx() as c:
            def inner():
                self.nested = 13
        match v:
            case 1:
                self.case = 14
        setattr(self, "by_call", 15)
        setattr(self, name, 16)
        b: int
        (self.nested_a, self.nested_b), self.flat = (17, 18), 19
        with ctx() as self.with_target:
            pass
        [None for self.comprehended in range(2)]
        self.__dict__["through_dict"] = 20
        vars(self)[key] = 21
        self.__dict__.update(more=22)
        delattr(self, "deleted")
'''


def writes_of(source: str) -> list[tuple[str, str, str | None]]:
    """``(attribute, object, value)`` of each write, as code (value ``None``: not seen)."""
    parsed = parse_source(source, None)
    code = parsed.module.code_for_node
    return [(name, code(obj), code(binding.value) if binding is not None and binding.value is not None else None)
            for name, found in _attribute_writes(parsed).items() for obj, binding in found]


def test_every_statement_form_is_walked_in_source_order():
    assert writes_of(WRITES) == [
        ("top", "self", "1"), ("cls", "a", "2"), ("if_", "self", "3"), ("elif_", "self", "4"),
        ("else_", "self", "5"), ("loop", "self", None), ("for_body", "self", "6"), ("for_else", "self", None),
        ("suite", "self", "7"), ("try_", "self", "8"), ("handler", "self", "9"), ("try_else", "self", "10"),
        ("final", "self", "11"), ("pair", "o", "12"), ("nested", "self", "13"), ("case", "self", "14"),
        ("nested_a", "self", None), ("nested_b", "self", None), ("flat", "self", "19"),
        ("with_target", "self", None), ("through_dict", "self", None), ("*", "self", None), ("*", "self", None),
        ("*", "self", None), ("comprehended", "self", None), ("by_call", "self", "15"), ("deleted", "self", None),
    ]


def reference_writes(parsed) -> dict[str, list[tuple[cst.CSTNode, object]]]:
    """The writes as a visitor of every node finds them: attribute -> ``(object, value)``, the value the
    assigned node, ``"unpacked"`` for an element of a tuple assignment, ``None`` when not seen."""
    writes: dict[str, list[tuple[cst.CSTNode, object]]] = {}

    def add(target, value):
        if isinstance(target, cst.Attribute):
            writes.setdefault(target.attr.value, []).append((target.value, value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                add(element.value, None)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Attribute) \
                and target.value.attr.value == "__dict__":
            key = target.slice[0].slice.value if len(target.slice) == 1 else None
            name = string_value(key) if isinstance(key, cst.BaseExpression) else None
            writes.setdefault(name or "*", []).append((target.value.value, None))

    class Writes(cst.CSTVisitor):
        def visit_Assign(self, node):
            for target in node.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)):
                    for element in target.target.elements:
                        add(element.value, "unpacked" if isinstance(element.value, cst.Attribute) else None)
                elif isinstance(target.target, cst.Attribute):
                    add(target.target, node.value)
                else:
                    add(target.target, None)

        def visit_WithItem(self, node):
            if node.asname is not None:
                add(node.asname.name, None)

        def visit_CompFor(self, node):
            add(node.target, None)

        def visit_AnnAssign(self, node):
            if node.value is not None:
                add(node.target, node.value)

        def visit_AugAssign(self, node):
            add(node.target, node.value)

        def visit_Del(self, node):
            add(node.target, None)

        def visit_For(self, node):
            add(node.target, None)

        def visit_Call(self, node):
            if isinstance(node.func, cst.Name) and node.func.value in ("setattr", "delattr") and len(node.args) >= 2:
                name = string_value(node.args[1].value)
                shown = node.func.value == "setattr" and name is not None and len(node.args) == 3
                writes.setdefault(name or "*", []).append((node.args[0].value, node.args[2].value if shown else None))
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value in ("update", "setdefault", "pop", "clear") \
                    and isinstance(node.func.value, cst.Attribute) and node.func.value.attr.value == "__dict__":
                writes.setdefault("*", []).append((node.func.value.value, None))

    parsed.module.visit(Writes())
    return writes


def comparable(writes: dict[str, list[tuple[cst.CSTNode, object]]]) -> dict[str, tuple[list, list]]:
    """Per attribute: every ``(object, seen)`` in a canonical order (a ``setattr`` write's place among the
    others does not matter: it makes the attribute unknown), and the seen values in their order."""
    return {name: (sorted(((id(obj), value is not None) for obj, value in found)),
                   ["unpacked" if value == "unpacked" else id(value) for _, value in found if value is not None])
            for name, found in writes.items()}


@pytest.mark.slow  # (6 s: every fixture)
@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_statement_walk_finds_what_a_visitor_of_every_node_finds(path):
    parsed = parse_source(path.read_bytes(), str(path))
    reference = reference_writes(parsed)
    unpacked = {id(obj) for found in reference.values() for obj, value in found if value == "unpacked"}
    walked = {name: [(obj, None if binding is None else "unpacked" if id(obj) in unpacked else binding.value)
                     for obj, binding in found] for name, found in _attribute_writes(parsed).items()}
    assert comparable(walked) == comparable(reference)
