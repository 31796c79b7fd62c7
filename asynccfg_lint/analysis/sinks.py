"""Sink finder: calls whose callee resolves to a sink, and the argument that reaches the config.

Callees are resolved to fully qualified names through libcst's scope analysis (every import form and
alias), through ``getattr(P, "_emit_async_start_custom_call")`` (a constant attribute name), through
a name assigned the sink (``emit = P._emit_async_start_custom_call``, or such a ``getattr``), and
through ``functools.partial(<sink>, ...)``: either the partial call itself carries
the argument, or the partial is called with the positions shifted (inline, or through a name
bound to it). A ``*args`` whose value is a tuple or list display (also through a name bound
once to one) passes its elements at their positions.
A top-level name bound so is a sink of its own qualified name too (:func:`alias_sinks`), so
another module of the package that imports it (``from pkg.sinks import emit``) calls a sink.
"""

from __future__ import annotations


from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import libcst as cst

from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.jax_facts import SinkKind, SinkSpec, sink_words, spec_order
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import (
    bindings_of_name,
    may_end_with,
    qualified_names,
    receiver_alternatives,
    string_value,
)
from asynccfg_lint.analysis.tracer import DictTracer
from asynccfg_lint.analysis.entries import TracedDict

_PARTIAL = frozenset({"functools.partial"})
_GETATTR = "builtins.getattr"


@dataclass(frozen=True)
class SinkCall:
    """A call that passes ``argument`` to the sink parameter described by ``spec``.

    Attributes:
        call: the call node (the sink call, a ``functools.partial`` call, or a call of a partial).
        spec: the sink.
        argument: the expression passed for ``spec.param``.
    """

    call: cst.Call
    spec: SinkSpec
    argument: cst.BaseExpression


def _argument(call: cst.Call, spec: SinkSpec, shift: int,
              starred: dict[int, list[cst.BaseExpression]] | None = None) -> cst.BaseExpression | None:
    """The argument ``call`` passes for ``spec.param``, its positional index shifted by ``shift``.

    ``starred`` maps (by ``id``) a ``*args`` argument of ``call`` to the elements it is known to
    pass (:meth:`SinkFinder._starred`); positions after any other ``*args`` are unknown.

    For a ``**kwargs`` sink (``SinkKind.KEYWORDS``) the call itself carries the config, and so
    does a call spreading ``**params`` for a keyword it does not name: ``prim.bind(x, **params)``,
    and ``start(x, **params)`` of a wrapper whose parameter is a value sink (the keyword may be in
    ``params``; a wrapper of such a wrapper passes it on, to any depth).
    """
    if spec.kind is SinkKind.KEYWORDS or spec.kind is SinkKind.PARAMETERS and spec.param == "**":
        return call
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == spec.param:
            return arg.value
    spread = any(arg.star == "**" for arg in call.args)
    if spec.binds and spread:
        return call  # prim.bind(x, **params): the keyword may be in `params`
    index = spec.position - shift if spec.position is not None else None
    if index is not None and index < 0:
        return None
    positional = []
    for arg in call.args:
        if arg.keyword is not None:
            continue
        if arg.star:  # *args: positions after it are unknown, unless it is a display the code shows
            elements = (starred or {}).get(id(arg))
            if elements is None:
                break
            positional.extend(elements)
            continue
        positional.append(arg.value)
    if index is not None and index < len(positional):
        return positional[index]
    return call if spread and (spec.kind in (SinkKind.VALUE, SinkKind.PARAMETERS) or spec.read is not None) else None


class SinkFinder:
    """Collect :class:`SinkCall` s of one module.

    Args:
        parsed: the module, with metadata.
        sinks: the sink specs to look for.
    """

    def __init__(self, parsed: ParsedModule, sinks: Iterable[SinkSpec]) -> None:
        self.parsed = parsed
        self.by_name: dict[str, list[SinkSpec]] = {}
        for spec in sinks:  # a wrapper can have several sink parameters
            if spec.kind is SinkKind.RULE:  # (a rule's own calls pass nothing to a sink)
                continue
            for name in spec.qualnames:
                self.by_name.setdefault(name, []).append(spec)
        for specs in self.by_name.values():  # the same order in every run, whatever order ``sinks`` iterates in
            if len(specs) > 1:
                specs.sort(key=spec_order)
        #: the last part of every name a sink is called by, and of ``functools.partial``
        self.last_parts = frozenset({name.rpartition(".")[2] for name in self.by_name} | {"partial"})
        self.found: list[SinkCall] = []

    def _specs_for(self, callee: cst.BaseExpression) -> list[SinkSpec]:
        if not may_end_with(self.parsed, callee, self.last_parts):
            return []
        for name in [*qualified_names(self.parsed, callee), *self._getattr_names(callee)]:
            if name in self.by_name:
                return self.by_name[name]
        if isinstance(callee, cst.Attribute):  # `prim.bind` of `prim = a_p if fast else b_p`, `TABLE[name].bind`
            found = {spec for receiver in receiver_alternatives(self.parsed, callee.value)
                     for name in qualified_names(self.parsed, receiver)
                     for spec in self.by_name.get(f"{name}.{callee.attr.value}", ())}
            return sorted(found, key=spec_order)
        return []

    def _getattr_names(self, callee: cst.BaseExpression) -> set[str]:
        """For ``getattr(obj, "name")`` (or with a default: the attribute exists on the sink's module),
        the qualified names ``obj.name`` stands for; else none."""
        if not isinstance(callee, cst.Call) or not 2 <= len(callee.args) <= 3 \
                or any(a.keyword is not None or a.star for a in callee.args):
            return set()
        attribute = string_value(callee.args[1].value)
        if attribute is None or _GETATTR not in qualified_names(self.parsed, callee.func):
            return set()
        return {f"{name}.{attribute}" for name in qualified_names(self.parsed, callee.args[0].value)}

    def _starred(self, call: cst.Call) -> dict[int, list[cst.BaseExpression]]:
        """Each ``*args`` of ``call`` whose elements are known (by ``id`` of the argument): a tuple or list
        display without starred elements, or a name bound once to one (a list only when that use is its
        only one: nothing can have changed it)."""
        found: dict[int, list[cst.BaseExpression]] = {}
        for arg in call.args:
            if arg.star != "*":
                continue
            display = arg.value
            if isinstance(display, cst.Name):
                bindings = bindings_of_name(self.parsed, display)
                binding = bindings[0] if bindings and len(bindings) == 1 else None
                display = binding.value if binding is not None and binding.augmented is None else None
                if isinstance(display, cst.List) and len(binding.assignment.references) != 1:
                    display = None  # the list may be changed through another use
            if isinstance(display, (cst.Tuple, cst.List)) \
                    and not any(isinstance(e, cst.StarredElement) for e in display.elements):
                found[id(arg)] = [element.value for element in display.elements]
        return found

    def _partial_target(self, call: cst.Call) -> tuple[list[SinkSpec], int]:
        """For ``functools.partial(sink, a, b)``: the sink's specs and the number of bound positionals."""
        if not call.args or not may_end_with(self.parsed, call.func, self.last_parts) or not qualified_names(self.parsed, call.func) & _PARTIAL:
            return [], 0
        bound = sum(1 for a in call.args[1:] if a.keyword is None and not a.star)
        return self._specs_for(call.args[0].value), bound

    def _add(self, call: cst.Call, specs: list[SinkSpec], shift: int, arguments: cst.Call | None = None) -> None:
        """Record ``call`` for each spec whose argument it passes (read from ``arguments``, default ``call``)."""
        arguments = arguments or call
        starred = self._starred(arguments) if any(arg.star == "*" for arg in arguments.args) else None
        for spec in specs:
            argument = _argument(arguments, spec, shift, starred)
            if argument is not None:
                self.found.append(SinkCall(call, spec, argument))

    def add_call(self, node: cst.Call) -> None:
        """Record ``node`` if it calls a sink, directly, through a partial, or through an alias."""
        specs = self._specs_for(node.func)
        if specs:
            self._add(node, specs, 0)
            return
        specs, _ = self._partial_target(node)
        if specs:  # the partial call itself may bind the config
            self._add(node, specs, 0, cst.Call(func=node.args[0].value, args=node.args[1:]))
            return
        if type(node.func) is cst.Call:  # `functools.partial(<sink>, "t")(ctx, x, cfg)`
            specs, shift = self._partial_target(node.func)
            if specs:
                self._add(node, specs, shift)
                return
        if isinstance(node.func, cst.Name):
            for binding in bindings_of_name(self.parsed, node.func) or ():
                aliased = self._specs_for(binding.value) if binding.value is not None else []
                if aliased:  # `emit = P._emit_async_start_custom_call`, then `emit(...)`
                    self._add(node, aliased, 0)
                    return
                if isinstance(binding.value, cst.Call):
                    specs, shift = self._partial_target(binding.value)
                    if specs:
                        self._add(node, specs, shift)
                        return


def alias_sinks(parsed: ParsedModule, sinks: Iterable[SinkSpec]) -> set[SinkSpec]:
    """The sinks that top-level names of ``parsed`` are: ``emit = P._emit_async_start_custom_call`` and
    ``emit = functools.partial(P._emit_async_start_custom_call, "t")`` (bound once, by that assignment),
    each spec of the sink under the name's qualified name (``pkg.sinks.emit``), its position shifted
    by the partial's bound positionals. None for a partial that binds the sink's argument itself
    (that call is the sink call, :meth:`SinkFinder.add_call`)."""
    finder = SinkFinder(parsed, sinks)
    scope = parsed.scopes.get(parsed.module)
    found: set[SinkSpec] = set()
    for statement in parsed.module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)):
                continue
            name = small.targets[0].target.value
            if scope is None or name not in scope or len(scope[name]) != 1:
                continue  # bound again elsewhere: not always the sink
            specs, shift, keywords = finder._specs_for(small.value), 0, frozenset()
            if not specs and isinstance(small.value, cst.Call):
                specs, shift = finder._partial_target(small.value)
                keywords = frozenset(a.keyword.value for a in small.value.args if a.keyword is not None)
            for spec in specs:
                if spec.param in keywords or spec.position is not None and spec.position < shift:
                    continue
                position = spec.position - shift if spec.position is not None else None
                found.add(replace(spec, qualnames=frozenset({f"{parsed.name.name}.{name}"}), position=position,
                                  wrapper_module=parsed.name.name))
    return found


def reexported_sinks(parsed: ParsedModule, sinks: Iterable[SinkSpec]) -> set[SinkSpec]:
    """The sinks a package's ``__init__`` re-exports from its own modules (``from .api import ring_shift``,
    ``from pkg._src.ops import shift as ring_shift``): each spec of the imported sink under the package's
    name for it (``pkg.ring_shift``), as a user's ``from pkg import ring_shift`` names it.

    Only a package's ``__init__``, and only names of the package's own modules: that is how a library
    publishes its API. A facade over another package's modules (``jax.lax`` over ``jax._src.lax``) is not
    followed, nor a name the ``__init__`` binds again."""
    package = parsed.name.name
    if package != parsed.name.package:
        return set()
    by_name: dict[str, list[SinkSpec]] = {}
    for spec in sinks:
        for name in spec.qualnames:
            if name.startswith(f"{package}."):
                by_name.setdefault(name, []).append(spec)
    if not by_name:
        return set()
    imported: dict[str, str] = {}
    bound_again: set[str] = set()
    for statement in parsed.module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    local = alias.evaluated_alias or alias.evaluated_name
                    if local in imported:
                        bound_again.add(local)
                    imported[local] = parsed.imported(small, alias)
            elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                targets = small.targets if isinstance(small, cst.Assign) else [small]
                bound_again.update(t.target.value for t in targets if isinstance(t.target, cst.Name))
    found: set[SinkSpec] = set()
    for local, target in imported.items():
        if local in bound_again:
            continue
        for spec in by_name.get(target, ()):
            found.add(replace(spec, qualnames=frozenset({f"{package}.{local}"}), wrapper_module=package))
    return found


def find_sink_calls(parsed: ParsedModule, sinks: Iterable[SinkSpec]) -> Iterator[SinkCall]:
    """Yield every sink call in ``parsed`` (an outer call before the calls in its arguments)."""
    sinks = tuple(sinks)
    parsed.require_reaching(sink_words(sinks))  # (a skeleton's left-out body calls a sink only by a name reaching one)
    finder = SinkFinder(parsed, sinks)
    for call in kept_calls(parsed.calls):  # the parse already listed them: no second walk of the tree
        finder.add_call(call)
    yield from finder.found


def traced_config(tracer: DictTracer, sink_call: SinkCall) -> TracedDict | None:
    """The entries of the config ``sink_call`` passes (a config sink's argument, or a ``**kwargs`` sink's keywords)."""
    if sink_call.spec.kind is SinkKind.KEYWORDS and isinstance(sink_call.argument, cst.Call):
        return tracer.trace_keywords(sink_call.argument, sink_call.spec.named)
    traced = tracer.trace(sink_call.argument)
    removed = sink_call.spec.removed
    if traced is None or not removed:
        return traced
    return replace(traced, entries=tuple(e for e in traced.entries if e.key not in removed))
