"""The config entries of a fixture module that can be rebuilt outside their lowering rule.

The checker's own sink finder and dict tracer list every entry that may reach a sink; each
entry is turned into a one-entry config ``{<key>: <value>}`` (or, for the public
``psum_scatter_start``, the ``tiled`` value) whose source text is the fixture's own. An entry
is *buildable* when every name its key and value use is module-level (imports, constants,
classes, functions), bound inside the expression itself, a function local with exactly one
assignment whose value is itself buildable, or a parameter given a value by the caller of
:func:`fixture_entries`. What depends on other parameters or on comprehension variables, on
a stub function known only by its return annotation (like a parameter, only the annotation
says what it is), and dataclass fields (built by ``dataclasses.asdict``, not by their
default's expression) needs the rest of a lowering context and is left out with the reason.

Each entry also carries the findings the checker makes for it alone (the same classifier
calls :func:`asynccfg_lint.analysis.checker.analyse` makes), positioned as diagnostics are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import GlobalScope

from asynccfg_lint.analysis.checker import node_range
from asynccfg_lint.analysis.classifier import ConfigPath, ValueClassifier
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkKind
from asynccfg_lint.analysis.parse import ParsedModule, parse_source
from asynccfg_lint.analysis.resolution import bindings_of_name
from asynccfg_lint.analysis.sinks import find_sink_calls
from asynccfg_lint.analysis.tracer import DictTracer
from asynccfg_lint.analysis.entries import Entry, TracedDict
from asynccfg_lint.analysis.functions import returns_of
from tests.expectations import Expected
from tests.oracle.driver import Case


class Unbuildable(Exception):
    """The entry needs something only its lowering context has."""


@dataclass(frozen=True)
class FixtureEntry:
    """One key/value pair that may reach a sink in a fixture module.

    Attributes:
        line: the line of its key (or value).
        key: the key's source text (the keyword of a ``dict(k=v)`` argument; ``tiled``).
        kind: ``"config"`` or ``"tiled"`` (the ``tiled`` argument of ``psum_scatter_start``).
        expr: the one-entry config (or the ``tiled`` value) as source text.
        bindings: ``(name, expression)`` pairs the expression needs first.
        unbuildable: why the entry cannot be built alone, or ``None``.
        findings: the checker's diagnostics for this entry (ACC201 aside), as ``Expected`` rows.
        unknown: the checker cannot tell the value's type (ACC201): it makes no claim.
    """

    line: int
    key: str
    kind: str
    expr: str
    bindings: tuple[tuple[str, str], ...]
    unbuildable: str | None
    findings: frozenset[Expected]
    unknown: bool

    @property
    def label(self) -> str:
        """Where the entry is, for messages: ``line 12 "tiled"``."""
        return f"line {self.line} {self.key}"

    @property
    def codes(self) -> set[str]:
        """The rule codes the checker reports for the entry."""
        return {f.code for f in self.findings}

    def case(self, case_id: str, namespace: str) -> Case:
        """The oracle case that builds this entry in ``namespace``."""
        return Case(case_id, namespace, self.expr, self.kind, self.bindings)


class _Builder:
    """Source text and bindings for entries of one parsed module."""

    def __init__(self, parsed: ParsedModule, parameters: dict[str, str]) -> None:
        self.parsed = parsed
        self.parameters = parameters

    def code(self, node: cst.CSTNode) -> str:
        return self.parsed.module.code_for_node(node)

    def bindings(self, expr: cst.CSTNode) -> list[tuple[str, str]]:
        """The bindings ``expr`` needs, dependencies first; raises :class:`Unbuildable`."""
        inside = _node_ids(expr)
        needed: list[tuple[str, str]] = []
        for name in _names(expr):
            bindings = bindings_of_name(self.parsed, name)
            if bindings is None:  # an import or a builtin
                continue
            for binding in bindings:
                function = binding.definition
                if isinstance(function, cst.FunctionDef) and function.returns and not any(
                        r.value is not None for r in returns_of(function)):
                    raise Unbuildable(f"calls {name.value}, a stub known only by its return annotation")
            if all(isinstance(b.assignment.scope, GlobalScope) or id(b.assignment.node) in inside for b in bindings):
                continue
            binding = bindings[0]
            if isinstance(binding.assignment.node, cst.Param):
                if name.value not in self.parameters:
                    raise Unbuildable(f"depends on the parameter {name.value}")
                needed.append((name.value, self.parameters[name.value]))
                continue
            if isinstance(binding.assignment.node, cst.Name) and isinstance(
                    self.parsed.parents.get(binding.assignment.node), cst.CompFor):
                raise Unbuildable(f"depends on the comprehension variable {name.value}")
            if len(bindings) != 1 or binding.value is None or binding.augmented is not None:
                raise Unbuildable(f"depends on {name.value}, which is not bound exactly once by an assignment")
            needed.extend(self.bindings(binding.value))
            needed.append((name.value, self.code(binding.value)))
        return list(dict.fromkeys(needed))


def _names(expr: cst.CSTNode) -> list[cst.Name]:
    found: list[cst.Name] = []

    class _Collect(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.append(node)

    expr.visit(_Collect())
    return found


def _node_ids(expr: cst.CSTNode) -> set[int]:
    found: set[int] = set()

    class _Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            found.add(id(node))
            return True

    expr.visit(_Collect())
    return found


def fixture_entries(path: Path, parameters: dict[str, str] | None = None) -> list[FixtureEntry]:
    """Every entry that may reach a sink in the module at ``path``, once each, in source order.

    Args:
        path: the fixture module.
        parameters: expressions for function parameters (by name) that entries may use.
    """
    parsed = parse_source(path.read_bytes(), str(path))
    tracer = DictTracer(parsed)
    classifier = ValueClassifier(parsed, tracer)
    builder = _Builder(parsed, parameters or {})
    result: list[FixtureEntry] = []
    seen: set[tuple[int, int]] = set()
    for sink_call in find_sink_calls(parsed, BUILTIN_SINKS):
        if sink_call.spec.kind is SinkKind.VALUE:
            entry = Entry(sink_call.spec.key, None, sink_call.argument)
            found = classifier.check_value(entry, top_level=True, path=ConfigPath(entry.key), parameter=True)
            candidates = [(entry, "tiled", found)]
        else:
            traced = tracer.trace(sink_call.argument)
            entries = traced.entries if traced is not None else ()
            candidates = [(e, "config", classifier.check_entries(TracedDict((e,), True))) for e in entries]
        for entry, kind, findings in candidates:
            identity = (id(entry.key_node), id(entry.value))
            if identity in seen:
                continue
            seen.add(identity)
            located = frozenset(
                Expected(start.line, start.column + 1, f.code)
                for f in findings
                for start in [node_range(parsed, f.node)[0]]
                if f.code != "ACC201"
            )
            result.append(_build(builder, entry, kind, located, any(f.code == "ACC201" for f in findings)))
    return result


def _build(builder: _Builder, entry: Entry, kind: str, findings: frozenset[Expected], unknown: bool) -> FixtureEntry:
    anchor = entry.key_node or entry.value or entry.annotation
    line = builder.parsed.positions[anchor].start.line
    key = builder.code(entry.key_node) if entry.key_node is not None else repr(entry.key)
    unbuildable = None
    expr, bindings = "", []
    try:
        if entry.annotation is not None:
            raise Unbuildable("a dataclass field: dataclasses.asdict builds it, not its default's expression")
        value = f"({builder.code(entry.value)}\n)"
        if kind == "tiled":
            expr = value
        else:
            expr = f"{{({key}\n): {value}}}"
            bindings = builder.bindings(entry.key_node) if entry.key_node is not None else []
        bindings = list(dict.fromkeys([*bindings, *builder.bindings(entry.value)]))
    except Unbuildable as reason:
        unbuildable = str(reason)
    return FixtureEntry(line, key, kind, expr, tuple(bindings), unbuildable, findings, unknown)
