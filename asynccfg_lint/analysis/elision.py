"""Partial parses of the project's other modules: the definitions a check reads, the other bodies left out.

A check of ``parallel.py`` reads three functions of ``pxla.py`` (85 kB) and one each of ``util.py`` and
``tree_util.py``; libcst's parse and the scope walk of a module cost the same per token wherever the
analysis looks. A *skeleton* keeps every top-level statement and every signature, decorator and class
statement, and replaces the body of each top-level function and method it does not keep by ``...``
followed by blank lines, so every kept line keeps its number and its text (positions stay right).

A left-out body is an :class:`ElidedBlock`: reading its ``body`` raises :class:`ElidedBody`, which
names the unit to keep; the task's analysis then starts again with that unit parsed
(:func:`asynccfg_lint.run.tasks.analyse_task`). What no read of a body shows -- what a module-wide scan
of calls, accesses or statements would find in the left-out bodies -- is asked of the skeleton through
:meth:`~asynccfg_lint.analysis.parse.ParsedModule.whole` or
:meth:`~asynccfg_lint.analysis.parse.ParsedModule.require`, which raise :class:`ElidedBody` too.

Units are top-level functions (by name) and top-level classes (by name: all of a class's methods are
kept or left out together, since its instances' attributes are read from all of them). A body that
says ``global`` is never left out (it binds module names that ``module_bindings`` must see).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

import libcst as cst
from libcst.metadata import Assignment, ClassScope, GlobalScope, ImportAssignment

#: bodies of fewer lines are kept: their parse costs little, and a read of one would start the check again
MIN_ELIDED_LINES = 3

_IDENTIFIER = re.compile(r"[^\W\d]\w*")


class ElidedBody(Exception):
    """The analysis needs a part of a module that its skeleton left out.

    Attributes:
        path: the module's display path (:attr:`~asynccfg_lint.analysis.parse.ParsedModule.path`).
        units: the top-level function and class names to parse in full; ``None``: the whole module.
    """

    def __init__(self, path: str, units: frozenset[str] | None) -> None:
        super().__init__(f"{path}: {'the whole module' if units is None else ', '.join(sorted(units))} left out")
        self.path = path
        self.units = units


class ElidedBlock(cst.IndentedBlock):
    """The block of a function or method whose body a skeleton left out (a ``...`` line and blank lines).

    Reading :attr:`body` raises :class:`ElidedBody` naming the unit (a walk into the function starts the
    check again with it parsed); code generation writes the skeleton's text, so positions of the kept code
    around it stay those of the file.
    """

    def __getattribute__(self, name: str):  # noqa: ANN204 - any attribute of the block
        if name == "body":
            path, unit = object.__getattribute__(self, "_elided")
            raise ElidedBody(path, frozenset({unit}))
        return super().__getattribute__(name)

    def _codegen_impl(self, state) -> None:  # noqa: ANN001 - libcst's CodegenState
        object.__getattribute__(self, "_stub")._codegen_impl(state)

    def __reduce__(self) -> tuple:
        """Pickled as the stub it stands for (a skeleton is kept in the result cache)."""
        return elided_block, (object.__getattribute__(self, "_stub"), *object.__getattribute__(self, "_elided"))


def elided_block(stub: cst.IndentedBlock, path: str, unit: str) -> ElidedBlock:
    """The :class:`ElidedBlock` standing for ``stub`` (the parsed ``...`` block) in unit ``unit`` of ``path``."""
    block = ElidedBlock(body=stub.body, header=stub.header, indent=stub.indent, footer=stub.footer)
    object.__setattr__(block, "_stub", stub)
    object.__setattr__(block, "_elided", (path, unit))
    return block


def units_to_keep(tree: ast.Module, seeds: Iterable[str]) -> frozenset[str]:
    """``seeds`` (top-level names of ``tree``) and every top-level function and class their definitions or
    assignments name, at any depth: what a read of them is likely to read next."""
    definitions: dict[str, list[ast.AST]] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            definitions.setdefault(statement.name, []).append(statement)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        definitions.setdefault(node.id, []).append(statement)
    kept: set[str] = set()
    pending = [seed for seed in seeds if seed in definitions]
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        kept.add(name)
        for definition in definitions[name]:
            for node in ast.walk(definition):
                word = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
                if word is not None and word in definitions and word not in kept:
                    pending.append(word)
    return frozenset(kept)


def skeleton(text: str, tree: ast.Module, keep: frozenset[str]) -> tuple[str, dict[tuple[str, int], str]]:
    """``text`` (parsed by CPython as ``tree``) with the bodies of the top-level functions and methods of units
    not in ``keep`` replaced by ``...`` and blank lines (every other line as it was, at the same number).

    Returns:
        ``(skeleton text, left out)``: ``(unit, ordinal)`` -> the removed body's text, where ``ordinal`` counts the
        unit's function definitions in order (a function's redefinitions, a class's methods), from 0.
    """
    lines = text.splitlines(keepends=True)
    cuts: list[tuple[int, int, str]] = []
    removed: dict[tuple[str, int], str] = {}

    def cut(function: ast.FunctionDef | ast.AsyncFunctionDef, unit: str) -> None:
        ordinal = ordinals[unit] = ordinals.get(unit, -1) + 1
        first = function.body[0]
        indent = lines[first.lineno - 1][:first.col_offset]  # (bytes = characters in an all-blank prefix)
        end = function.end_lineno or first.lineno
        if not indent or indent.strip() or end - first.lineno + 1 < MIN_ELIDED_LINES:
            return  # a body after the colon, or a short one
        body = "".join(lines[first.lineno - 1:end])
        if ("global" in body or "nonlocal" in body) \
                and any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in ast.walk(function)):
            return  # one that binds module names
        cuts.append((first.lineno - 1, end, indent))
        removed[(unit, ordinal)] = body

    ordinals: dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name not in keep:
            cut(statement, statement.name)
        elif isinstance(statement, ast.ClassDef) and statement.name not in keep:
            for member in statement.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    cut(member, statement.name)
    out: list[str] = []
    done = 0
    for start, end, indent in cuts:
        out.extend(lines[done:start])
        out.append(f"{indent}...\n")
        out.append("\n" * (end - start - 1))
        done = end
    out.extend(lines[done:])
    return "".join(out), removed


def elided_module(module: cst.Module, path: str, removed: dict[tuple[str, int], str]) -> cst.Module:
    """``module`` (the parse of a :func:`skeleton`) with each left-out body's ``...`` block made an :class:`ElidedBlock`
    (the units' function definitions met in the order :func:`skeleton` counted them)."""
    ordinals: dict[str, int] = {}

    def replaced(function: cst.FunctionDef, unit: str) -> cst.FunctionDef:
        ordinal = ordinals[unit] = ordinals.get(unit, -1) + 1
        if (unit, ordinal) not in removed:
            return function
        if type(function.body) is not cst.IndentedBlock:
            raise ValueError(f"{path}: the skeleton's body of {unit} is not a block")
        return function.with_changes(body=elided_block(function.body, path, unit))

    body: list[cst.BaseStatement] = []
    for statement in module.body:
        if type(statement) is cst.FunctionDef:
            statement = replaced(statement, statement.name.value)
        elif type(statement) is cst.ClassDef and type(statement.body) is cst.IndentedBlock:
            unit = statement.name.value
            members = [replaced(m, unit) if type(m) is cst.FunctionDef else m for m in statement.body.body]
            statement = statement.with_changes(body=statement.body.with_changes(body=members))
        body.append(statement)
    return module.with_changes(body=body)


def mentioning(removed: dict[tuple[str, int], str], words: Iterable[str]) -> frozenset[str]:
    """The units whose left-out text has one of ``words`` as an identifier."""
    wanted = frozenset(words)
    return frozenset(unit for (unit, _), text in removed.items()
                     if any(word in text for word in wanted) and not wanted.isdisjoint(_IDENTIFIER.findall(text)))


class LeftOutCalls(list):
    """A skeleton's list of calls (those of the code it kept): iterating it raises :class:`ElidedBody` for the
    whole module, since a scan of every call would miss those of the left-out bodies. A scan that needs only
    the kept code's calls (a fact about nodes the check reads) takes :func:`kept_calls`."""

    def __init__(self, calls: list, path: str) -> None:
        super().__init__(calls)
        self.path = path

    def __iter__(self):  # noqa: ANN204 - the list's iterator
        raise ElidedBody(self.path, None)

    def __reduce__(self) -> tuple:
        return LeftOutCalls, (kept_calls(self), self.path)


def kept_calls(calls: list) -> list:
    """``calls`` (a module's :attr:`~asynccfg_lint.analysis.parse.ParsedModule.calls`) as a plain list: a skeleton's
    are the calls of the code it kept."""
    return list(list.__iter__(calls)) if type(calls) is LeftOutCalls else calls


def _left_out_references(assignment: object) -> object:
    path, units = assignment._elided  # type: ignore[attr-defined]
    raise ElidedBody(path, units)


class LeftOutAssignment(Assignment):
    """A skeleton's module- or class-level :class:`~libcst.metadata.Assignment` that a left-out body may use."""

    references = property(_left_out_references)


class LeftOutImportAssignment(ImportAssignment):
    """A skeleton's module- or class-level :class:`~libcst.metadata.ImportAssignment` that a left-out body may use."""

    references = property(_left_out_references)


#: an assignment class -> its subclass whose ``references`` raise (:func:`guard_references`); another kind of
#: assignment gets one made here (a skeleton holding it is not kept in the result cache: it does not pickle)
_GUARDED: dict[type, type] = {Assignment: LeftOutAssignment, ImportAssignment: LeftOutImportAssignment}


def guard_references(scopes: dict, path: str, removed: dict[tuple[str, int], str]) -> None:
    """Make the ``references`` of each module- and class-level assignment of a skeleton whose name a left-out
    body names raise :class:`ElidedBody` for the units that name it (their uses there are not recorded).

    ``scopes``: the skeleton's node -> scope. A function's own names are not touched: their uses are all in
    the function (a left-out body's names are no kept scope's).
    """
    words: dict[str, set[str]] = {}
    for (unit, _), text in removed.items():
        for word in set(_IDENTIFIER.findall(text)):
            words.setdefault(word, set()).add(unit)
    seen: set[int] = set()
    for scope in scopes.values():
        if id(scope) in seen or type(scope) not in (GlobalScope, ClassScope):
            continue
        seen.add(id(scope))
        for name, assignments in scope._assignments.items():
            if name not in words:
                continue
            for assignment in assignments:
                kind = type(assignment)
                guarded = _GUARDED.get(kind)
                if guarded is None:
                    guarded = _GUARDED[kind] = type(f"LeftOut{kind.__name__}", (kind,),
                                                    {"references": property(_left_out_references)})
                assignment.__class__ = guarded
                assignment._elided = (path, frozenset(words[name]))
