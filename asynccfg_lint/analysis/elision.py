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
import io
import re
import unicodedata
from collections.abc import Iterable

import libcst as cst
from libcst.metadata import Assignment, ClassScope, FunctionScope, GlobalScope, ImportAssignment

#: bodies of fewer lines are kept: their parse costs little, and a read of one would start the check again
MIN_ELIDED_LINES = 3

_IDENTIFIER = re.compile(r"[^\W\d]\w*")
#: a run of characters none of which is ASCII punctuation or white space: holds every identifier of a non-ASCII text
#: whole (``विन्यास``, ``col·lecció``, whose marks and middle dots ``\w`` does not match)
_LOOSE_RUN = re.compile(r"[^\s!-/:-@\[-^`{-~]+")


def identifiers(text: str) -> set[str]:
    """Every identifier ``text`` may have, as written and (when not ASCII) NFKC-normalised as CPython reads it; more
    words besides (of strings and comments, runs that are no identifier): a test that a text names a word never
    misses it."""
    found = set(_IDENTIFIER.findall(text))
    if not text.isascii():
        loose = _LOOSE_RUN.findall(text)
        found.update(loose)
        found.update(unicodedata.normalize("NFKC", word) for word in loose)
    return found


def text_lines(text: str) -> list[str]:
    """``text``'s lines with their ends, split where CPython's ``ast`` counts lines (``\n``, ``\r\n``, ``\r``; not at
    the other breaks ``str.splitlines`` knows, such as U+2028 or U+0085)."""
    return io.StringIO(text, newline="").readlines()


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


def units_to_keep(tree: ast.Module, seeds: Iterable[str],
                  chunks: list[tuple[frozenset[str], frozenset[str]]]) -> frozenset[str]:
    """``seeds`` (top-level names of ``tree``) and every top-level function and class their definitions or
    assignments name, at any depth: what a read of them is likely to read next; also each function and class that
    names a module-level container they name (a dict, list or set display, or such a call): the code that may change
    it, which a read of it asks for. ``chunks``: the :func:`statement_words` of ``tree``, whose words stand for what
    a definition names (a superset of its names and attributes: a word of a string or comment keeps a unit too; a
    walk of each definition's nodes cost about as much as the skeleton's parse saved on the dense tree)."""
    definitions: dict[str, list[int]] = {}
    for index, statement in enumerate(tree.body):
        if _is_unit(statement):
            definitions.setdefault(statement.name, []).append(index)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        definitions.setdefault(node.id, []).append(index)
    kept: set[str] = set()
    named: set[str] = set()  # the words of the kept definitions
    pending = [seed for seed in seeds if seed in definitions]
    containers: set[str] | None = None
    while pending:
        while pending:
            name = pending.pop()
            if name in kept:
                continue
            kept.add(name)
            for index in definitions[name]:
                words = chunks[index][1]
                named |= words
                pending.extend(word for word in definitions.keys() & words if word not in kept)
        if containers is None:
            containers = _containers(tree)
            units = {s.name for s in tree.body if _is_unit(s)}
        changing = containers & named
        if changing:  # (and what the code changing them names: a setter storing ``Mode.PUSH``)
            pending = [name for (bound, words) in chunks for name in bound & units - kept
                       if not words.isdisjoint(changing)]
    return frozenset(kept)


_CONTAINER_CALLS = frozenset({"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque"})


def _containers(tree: ast.Module) -> set[str]:
    """The top-level names ``tree`` binds to a dict, list or set display or a call making one (``dict(...)``), also
    by unpacking a tuple or list display (``TABLE, SPARE = {...}, None``)."""
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            pending = [(target, statement.value) for target in targets]
            while pending:
                target, value = pending.pop()
                if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
                    if len(target.elts) == len(value.elts):
                        pending.extend(zip(target.elts, value.elts))
                elif _makes_container(value):
                    found |= {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}
    return found


def _makes_container(value: ast.expr) -> bool:
    """Whether ``value`` is a dict, list or set display or comprehension, or a call of a container's type."""
    if isinstance(value, ast.Call):
        func = value.func
        made = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return made in _CONTAINER_CALLS
    return isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp))


def statement_words(tree: ast.Module, text: str) -> list[tuple[frozenset[str], frozenset[str]]]:
    """For each top-level statement of ``tree`` (parsed from ``text``): the names it binds and the identifiers its
    text has (a function or class: its own name, and every word of its body). An expression statement binds
    nothing (a registration call ties no name to another)."""
    lines = text_lines(text)
    found: list[tuple[frozenset[str], frozenset[str]]] = []
    for statement in tree.body:
        words = frozenset(identifiers("".join(lines[statement.lineno - 1:statement.end_lineno or statement.lineno])))
        if _is_unit(statement):
            bound = {statement.name}
            if "global" in words:  # (``def _setup(): global EMIT; EMIT = parallel._emit_...``)
                bound |= {name for node in ast.walk(statement) if isinstance(node, ast.Global) for name in node.names}
        else:
            bound = set()
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    bound.add(node.id)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    bound |= {(alias.asname or alias.name).partition(".")[0] for alias in node.names}
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    bound.add(node.name)
        found.append((frozenset(bound), words))
    return found


class NameReach:
    """The words reaching given ones through a module's top-level names, answered from an index of its statements
    built once (a module of 1,000 primitives asks once per primitive; a scan of every statement per question made
    its check 2.7x slower).

    Called with ``seeds``, it gives ``seeds`` and, at any depth, the names each statement binds once it has one of
    them: every identifier code reaching one of ``seeds`` through the module's top-level names may name instead
    (``emit = parallel._emit_async_start_custom_call``, ``def send(...): emit(...)``).

    Args:
        chunks: ``(names it binds, words it has)`` of each top-level statement (:func:`statement_words`).
    """

    def __init__(self, chunks: Iterable[tuple[frozenset[str], frozenset[str]]]) -> None:
        #: word -> the names bound by each statement that has it
        self._binders: dict[str, list[frozenset[str]]] = {}
        for bound, words in chunks:
            if bound:
                for word in words:
                    self._binders.setdefault(word, []).append(bound)

    def __call__(self, seeds: Iterable[str]) -> frozenset[str]:
        """``seeds`` and, at any depth, the names bound by each statement having one of them."""
        found = set(seeds)
        pending = list(found)
        while pending:
            for bound in self._binders.get(pending.pop(), ()):
                for name in bound:
                    if name not in found:
                        found.add(name)
                        pending.append(name)
        return frozenset(found)


def left_out_words(removed: dict[tuple[str, int], str]) -> dict[str, frozenset[str]]:
    """Each identifier of a skeleton's left-out bodies (``removed``, :func:`skeleton`'s) -> the units whose bodies
    have it (:func:`identifiers`): a question about a word is one lookup, not a search of every body."""
    units: dict[str, set[str]] = {}
    for (unit, _), text in removed.items():
        for word in identifiers(text):
            units.setdefault(word, set()).add(unit)
    return {word: frozenset(found) for word, found in units.items()}


def left_out_strings(removed: dict[tuple[str, int], str]) -> dict[str, frozenset[str]] | None:
    """Each unit of a skeleton's left-out bodies (``removed``, :func:`skeleton`'s) -> the values of the string
    constants its bodies hold, as CPython reads them (each body parsed as the block of an ``if``); ``None`` when a
    body does not parse so."""
    found: dict[str, set[str]] = {}
    for (unit, _), text in removed.items():
        try:
            tree = ast.parse("if 1:\n" + text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        strings = found.setdefault(unit, set())
        strings.update(node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return {unit: frozenset(strings) for unit, strings in found.items()}


def units_naming(index: dict[str, frozenset[str]], words: Iterable[str]) -> frozenset[str]:
    """The units whose left-out bodies have one of ``words`` as an identifier (``index``: :func:`left_out_words`)."""
    found: set[str] = set()
    for word in words:
        units = index.get(word)
        if units is not None:
            found |= units
    return frozenset(found)


def _is_unit(statement: ast.stmt) -> bool:
    return isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))


def skeleton(text: str, tree: ast.Module, keep: frozenset[str],
             min_lines: int = MIN_ELIDED_LINES) -> tuple[str, dict[tuple[str, int], str]]:
    """``text`` (parsed by CPython as ``tree``) with the bodies of the top-level functions and classes of units
    not in ``keep`` replaced by ``...`` and blank lines (every other line as it was, at the same number); a body of
    fewer than ``min_lines`` lines is kept. A class's whole body goes at once (its class statement, bases and
    decorators stay); of a class whose body cannot go whole (one that says ``global``), the bodies of its methods.

    Returns:
        ``(skeleton text, left out)``: ``(unit, ordinal)`` -> the removed body's text, where ``ordinal`` counts the
        unit's function definitions in order (a function's redefinitions, a class's methods), from 0; a class's
        whole body is ``(unit, -1 - n)`` for the unit's ``n``-th class statement (:func:`elided_module` counts so).
    """
    lines = text_lines(text)
    cuts: list[tuple[int, int, str]] = []
    removed: dict[tuple[str, int], str] = {}

    def cut(definition: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, key: tuple[str, int]) -> bool:
        first = definition.body[0]
        start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])  # (its ``@`` lines)
        indent = lines[start - 1][:first.col_offset]  # (bytes = characters in an all-blank prefix)
        end = definition.end_lineno or first.lineno
        if not indent or indent.strip() or end - start + 1 < min_lines \
                or start < first.lineno and not lines[start - 1][first.col_offset:].startswith("@"):
            return False  # a body after the colon, a short one, or a decorator not on its ``@`` line (``@\`` and a newline)
        body = "".join(lines[start - 1:end])
        if ("global" in body or "nonlocal" in body) \
                and any(isinstance(node, (ast.Global, ast.Nonlocal)) for node in ast.walk(definition)):
            return False  # one that binds module names
        cuts.append((start - 1, end, indent))
        removed[key] = body
        return True

    def cut_function(function: ast.FunctionDef | ast.AsyncFunctionDef, unit: str) -> None:
        ordinal = ordinals[unit] = ordinals.get(unit, -1) + 1
        cut(function, (unit, ordinal))

    ordinals: dict[str, int] = {}
    classes: dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name not in keep:
            cut_function(statement, statement.name)
        elif isinstance(statement, ast.ClassDef) and statement.name not in keep:
            number = classes[statement.name] = classes.get(statement.name, -1) + 1
            if cut(statement, (statement.name, -1 - number)):
                continue
            for member in statement.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    cut_function(member, statement.name)
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
    (the units' function definitions and class statements met in the order :func:`skeleton` counted them)."""
    ordinals: dict[str, int] = {}
    classes: dict[str, int] = {}

    def replaced(function: cst.FunctionDef, unit: str) -> cst.FunctionDef:
        ordinal = ordinals[unit] = ordinals.get(unit, -1) + 1
        if (unit, ordinal) not in removed:
            return function
        if type(function.body) is not cst.IndentedBlock:
            raise ValueError(f"{path}: the skeleton's body of {unit} is not a block")
        return function.with_changes(body=elided_block(function.body, path, unit))

    body: list[cst.BaseStatement] = []
    for statement in module.body:  # (the units are named as CPython's ast names them: NFKC-normalised)
        if type(statement) is cst.FunctionDef:
            statement = replaced(statement, unicodedata.normalize("NFKC", statement.name.value))
        elif type(statement) is cst.ClassDef:
            unit = unicodedata.normalize("NFKC", statement.name.value)
            number = classes[unit] = classes.get(unit, -1) + 1
            if (unit, -1 - number) in removed:  # its whole body
                if type(statement.body) is not cst.IndentedBlock:
                    raise ValueError(f"{path}: the skeleton's body of class {unit} is not a block")
                statement = statement.with_changes(body=elided_block(statement.body, path, unit))
            elif type(statement.body) is cst.IndentedBlock:
                members = [replaced(m, unit) if type(m) is cst.FunctionDef else m for m in statement.body.body]
                statement = statement.with_changes(body=statement.body.with_changes(body=members))
        body.append(statement)
    return module.with_changes(body=body)


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


def read_body(function: cst.FunctionDef) -> bool:
    """True, once ``function``'s body is parsed: a left-out one raises :class:`ElidedBody` (a scan of the calls of
    ``function`` among :func:`kept_calls` needs it)."""
    if type(function.body) is ElidedBlock:
        function.body.body  # noqa: B018 - raises
    return True


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


class LeftOutFunctionScope(FunctionScope):
    """The scope of a function whose body a skeleton left out: its accesses were never recorded."""

    accesses = property(_left_out_references)


class LeftOutClassScope(ClassScope):
    """The scope of a class whose whole body a skeleton left out: it holds none of the class's names."""

    accesses = property(_left_out_references)
    assignments = property(_left_out_references)

    def __contains__(self, name: object) -> bool:
        return _left_out_references(self)

    def __getitem__(self, name: str) -> object:
        return _left_out_references(self)


#: an assignment class -> its subclass whose ``references`` raise (:func:`guard_references`); another kind of
#: assignment gets one made here (a skeleton holding it is not kept in the result cache: it does not pickle)
_GUARDED: dict[type, type] = {Assignment: LeftOutAssignment, ImportAssignment: LeftOutImportAssignment}


def guard_references(scopes: dict, path: str, words: dict[str, frozenset[str]]) -> None:
    """Make the ``references`` of each module- and class-level assignment of a skeleton whose name a left-out
    body names raise :class:`ElidedBody` for the units that name it (their uses there are not recorded).

    ``scopes``: the skeleton's node -> scope; ``words``: its :func:`left_out_words`. A function's own names are not
    touched: their uses are all in the function (a left-out body's names are no kept scope's).
    """
    seen: set[int] = set()
    for scope in scopes.values():
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        if type(scope) is FunctionScope and type(getattr(scope.node, "body", None)) is ElidedBlock:
            # a left-out function's parameters: their uses are in its body (what it reads of a bind's keyword)
            units = frozenset({object.__getattribute__(scope.node.body, "_elided")[1]})
            scope.__class__ = LeftOutFunctionScope
            scope._elided = (path, units)  # type: ignore[attr-defined]
            for assignments in scope._assignments.values():
                for assignment in assignments:
                    _guard(assignment, path, units)
            continue
        if type(scope) is ClassScope and type(getattr(scope.node, "body", None)) is ElidedBlock:
            scope.__class__ = LeftOutClassScope
            scope._elided = (path, frozenset({object.__getattribute__(scope.node.body, "_elided")[1]}))  # type: ignore[attr-defined]
            continue
        if type(scope) not in (GlobalScope, ClassScope):
            continue
        for name, assignments in scope._assignments.items():
            if name not in words:
                continue
            for assignment in assignments:
                _guard(assignment, path, words[name])


def _guard(assignment: object, path: str, units: frozenset[str]) -> None:
    """Make ``assignment``'s ``references`` raise :class:`ElidedBody` naming ``units`` of ``path``."""
    kind = type(assignment)
    guarded = _GUARDED.get(kind)
    if guarded is None:
        guarded = _GUARDED[kind] = type(f"LeftOut{kind.__name__}", (kind,), {"references": property(_left_out_references)})
    assignment.__class__ = guarded
    assignment._elided = (path, units)  # type: ignore[attr-defined]
