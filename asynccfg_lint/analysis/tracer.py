"""Dict tracer: follow a config expression back to what builds it and collect its entries.

Data flow is may-analysis: a name bound on several paths contributes the entries of every
binding that reaches the use; mutations of the same binding before the use (``cfg[k] = v``,
``cfg.update(...)``, ``cfg.setdefault(k, v)``, ``cfg |= {...}``) add entries. ``self.cfg`` and
``Cls.CFG`` contribute every assignment of the attribute in the class. With a
:class:`~asynccfg_lint.analysis.workspace.Workspace`, builders and constants imported from other project
modules are traced there, by that module's own tracer; their entries say which module they
belong to (``Entry.home``) and through which expression of this module they arrived (``Entry.via``).
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Sequence
from typing import Protocol

import libcst as cst
from libcst.metadata import GlobalScope

from asynccfg_lint.analysis import objects
from asynccfg_lint.analysis.callees import CallGraph
from asynccfg_lint.analysis.entries import Entry, TracedDict, with_recursion
from asynccfg_lint.analysis.loaded import LOADERS, LoadedValues
from asynccfg_lint.analysis.functions import (bind_arguments, parameter_of, passed_argument, returns_of, unpacked_values,
                                              yields_of)
from asynccfg_lint.analysis.mutations import DictMutations
from asynccfg_lint.analysis.programs import read_receiver
from asynccfg_lint.analysis.parse import ParsedModule, subscript_index
from asynccfg_lint.analysis.records import (
    AS_DICT,
    ATTRS_AS_DICT,
    RECURSIONS,
    attrs_fields,
    dataclass_fields,
    is_dataclass,
    is_typed_dict,
    record_kind,
)
from asynccfg_lint.analysis.resolution import (
    Binding,
    attribute_bindings,
    bindings_of_name,
    enclosing,
    is_import,
    local_definition,
    method_owner,
    qualified_names,
    normalised_classes,
    reaching,
    serialized_before,
    statements_of,
    string_value,
)
from asynccfg_lint.analysis.elision import kept_calls

_DICT_CONSTRUCTORS = frozenset(
    {"builtins.dict", "collections.OrderedDict", "collections.defaultdict", "typing.OrderedDict"}
)
_DEFAULTDICT = frozenset({"collections.defaultdict"})
_COPIERS = frozenset({"copy.copy", "copy.deepcopy", "types.MappingProxyType"})
_ASDICT = frozenset({"dataclasses.asdict", "attrs.asdict"})
#: ``dict.fromkeys`` (libcst names it ``builtins.dict``: the attribute is checked too) and ``OrderedDict.fromkeys``
_FROMKEYS = frozenset({"builtins.dict", "builtins.dict.fromkeys", "collections.OrderedDict.fromkeys"})
_COUNTER = frozenset({"collections.Counter"})
_REPLACE = frozenset({"dataclasses.replace"})
_VARS = frozenset({"builtins.vars"})
#: ``collections.ChainMap(m1, m2, ...)``: ``dict(cfg)`` in ``_emit_async_start_custom_call`` copies its entries
_CHAIN_MAP = frozenset({"collections.ChainMap"})
MAX_DEPTH = 12
#: calls that run a coroutine and give its result
ASYNC_RUNNERS = frozenset({"asyncio.run"})


class ForeignBinding(Protocol):
    """A binding of a name in another module of the check (``Workspace.foreign`` gives them)."""

    @property
    def home(self) -> ParsedModule:
        """The module that binds the name; the binding's nodes belong to it."""
        ...

    @property
    def binding(self) -> Binding:
        """How the name is bound there."""
        ...


class TracerPeers(Protocol):
    """What a module's tracer asks of the other modules of the check (``Workspace`` provides it).

    The tracer depends on this interface, not on :mod:`asynccfg_lint.analysis.workspace` (which builds the
    tracers and classifiers of a check), nor on the classifier: no import circle.
    """

    def tracer(self, parsed: ParsedModule) -> DictTracer:
        """The tracer of ``parsed`` (one per module per check)."""
        ...

    def foreign(self, parsed: ParsedModule, expr: cst.BaseExpression) -> Sequence[ForeignBinding] | None:
        """Where the name or dotted attribute ``expr`` of ``parsed`` is bound in other project modules, if known."""
        ...

    def instance_methods(self, parsed: ParsedModule, expr: cst.BaseExpression, name: str,
                         depth: int) -> list[tuple[ParsedModule, cst.FunctionDef] | None]:
        """For each origin of ``expr``'s value, the method ``name`` of the project class it is an instance
        of, with the class's module (``None``: not such an instance, or no such method)."""
        ...

    def written_elsewhere(self, parsed: ParsedModule, expr: cst.BaseExpression,
                          depth: int) -> tuple[ParsedModule, cst.BaseExpression] | None:
        """The module and expression where ``expr``'s one value is written, when that is another project module."""
        ...

    def sequences(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression | None]:
        """For each origin of ``expr``'s value (a parameter: what its known callers or binds pass), the list or
        tuple display of ``parsed`` that makes it (``None``: not such a display)."""
        ...

    @property
    def call_graph(self) -> CallGraph:
        """The check's call graph (:mod:`~asynccfg_lint.analysis.callees`)."""
        ...

    def constructions(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int,
                      bound: cst.Param | None = None) -> list[cst.Call | None]:
        """For each origin of ``expr``'s value (a parameter: what its known callers pass), the call of a
        class of ``parsed`` that makes it (``None``: not such an instance). With ``bound`` (the annotated
        keyword ``expr`` names), what this module's binds pass for it, else nothing."""
        ...


class DictTracer(DictMutations):
    """Trace dict-valued expressions of one parsed module.

    Args:
        parsed: the module, with metadata.
        workspace: the check's modules, to follow names imported from other project modules;
            ``None`` stays within ``parsed``.
    """

    def __init__(self, parsed: ParsedModule, workspace: TracerPeers | None = None) -> None:
        self.parsed = parsed
        self.workspace = workspace
        self._memo: dict[int, TracedDict | None] = {}
        self._active: set[int] = set()
        self._holds: dict[tuple[int, str], bool] = {}  # surely_holds of (expression, key)
        #: the values of this module's ``json.loads``/``tomllib.loads`` calls of constant strings
        self.loaded_values = LoadedValues()

    def trace(self, expr: cst.BaseExpression, depth: int = 0) -> TracedDict | None:
        """Return the entries of ``expr`` if it evaluates to a dict the tracer can follow.

        Each expression is traced once and each entry listed once: a name rebound from itself
        on many paths (``cfg = {**cfg, ...}`` in a run of ``if`` s) stays linear, not exponential.

        Returns ``None`` when ``expr`` is not recognisably a dict (unknown call, parameter,
        non-dict literal), or on a cycle.
        """
        key = id(expr)
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH or key in self._active:
            return None
        self._active.add(key)
        try:
            traced = self._trace(expr, depth)
        finally:
            self._active.discard(key)
        if traced is not None:
            traced = TracedDict(tuple(dict.fromkeys(traced.entries)), traced.complete,
                                tuple(dict.fromkeys(traced.opaque)))
        self._memo[key] = traced
        return traced

    def _trace(self, expr: cst.BaseExpression, depth: int) -> TracedDict | None:
        loaded = self.loaded_values.loaded(expr)
        if loaded is not None:  # a dict parsed from a constant string: its keys are strs, its values known
            if not isinstance(loaded.value, dict):
                return None
            return TracedDict(tuple(Entry(str(key), None, self.loaded_values.stand_in(loaded.call, value))
                                    for key, value in loaded.value.items()), True)
        if isinstance(expr, cst.Dict):
            return self._dict_display(expr, depth)
        if isinstance(expr, cst.DictComp):
            return self._comprehension(expr, depth)
        if isinstance(expr, cst.IfExp):
            return self._union([expr.body, expr.orelse], depth)
        if isinstance(expr, cst.BooleanOperation):
            return self._union([expr.left, expr.right], depth)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._merge([self.trace(expr.left, depth + 1), self.trace(expr.right, depth + 1)], [expr.left, expr.right])
        if isinstance(expr, cst.NamedExpr):
            return self.trace(expr.value, depth + 1)
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Await):
            return self._awaited(expr.expression, depth)
        if isinstance(expr, cst.Subscript):
            return self._item(expr, depth)
        return None

    def _item(self, expr: cst.Subscript, depth: int) -> TracedDict | None:
        """``TABLE[name]`` of a dict of dicts (a table of profiles): the entries of each value the table may give
        under that key (every value, for a key that is not a literal), beside an opaque part where the table is not
        all seen. ``None`` when the table is not seen, or holds no dict the tracer sees."""
        index = subscript_index(expr)
        table = self.trace(expr.value, depth + 1) if index is not None else None
        if table is None:
            return None
        key = string_value(index)
        parts: list[TracedDict | None] = []
        for entry in table.entries:
            if key is not None and entry.key is not None and entry.key != key:
                continue
            if entry.value is None or entry.zipped or entry.key_elements:
                parts.append(None)
                continue
            tracer = self if entry.home is None else self.workspace.tracer(entry.home)
            traced = tracer.trace(entry.value, depth + 1)
            parts.append(traced if entry.home is None else self._imported(traced, entry.home, entry.via or expr))
        if not parts or all(part is None for part in parts):
            return None
        merged = self._merge(parts, [expr] * len(parts))
        return merged if table.complete else TracedDict(merged.entries, False, (*merged.opaque, *table.opaque) or (expr,))

    def trace_keywords(self, call: cst.Call, named: frozenset[str]) -> TracedDict:
        """The entries a ``**kwargs`` wrapper's call puts in its config: keywords not in ``named``, and ``**x``."""
        extra = [arg for arg in call.args if arg.star == "**" or arg.keyword is not None and arg.keyword.value not in named]
        return self._dict_call(call.with_changes(args=extra), 0)

    # -- forms -------------------------------------------------------------------------
    def _dict_display(self, expr: cst.Dict, depth: int) -> TracedDict:
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                key = string_value(element.key)
                if key is not None:  # {**base, "k": v}: v replaces what base (or an earlier "k") put there
                    entries = [entry for entry in entries if entry.key != key]
                entries.append(Entry(key, element.key, element.value))
            else:  # StarredDictElement: {**base}
                inner = self.trace(element.value, depth + 1)
                if inner is None:
                    complete = False
                    opaque.append(element.value)
                else:
                    entries.extend(_spread(inner.entries, element.value))
                    complete &= inner.complete
                    opaque.extend(inner.opaque)
        return TracedDict(tuple(entries), complete, tuple(opaque))

    def _comprehension(self, expr: cst.DictComp, depth: int) -> TracedDict:
        """``{k: v for k, v in d.items() if k != "mode"}``: the entries of ``d`` the key tests keep (``k != "a"``,
        ``k not in ("a", "b")``, ``k == "a"``, ``k in (...)``); any other comprehension (or test): one entry of its
        key and value expressions."""
        written = TracedDict((Entry(string_value(expr.key), expr.key, expr.value),), True)
        loop = expr.for_in
        target = loop.target
        if loop.inner_for_in is not None or loop.asynchronous is not None or not isinstance(target, cst.Tuple) \
                or len(target.elements) != 2 or not all(isinstance(e.value, cst.Name) for e in target.elements):
            return written
        key, value = (e.value.value for e in target.elements)
        iterated = loop.iter
        if not (isinstance(expr.key, cst.Name) and expr.key.value == key and isinstance(expr.value, cst.Name)
                and expr.value.value == value and key != value and isinstance(iterated, cst.Call)
                and not iterated.args and isinstance(iterated.func, cst.Attribute) and iterated.func.attr.value == "items"):
            return written
        tests = [_key_test(condition.test, key) for condition in loop.ifs]
        if any(test is None for test in tests):
            return written
        source = self.trace(iterated.func.value, depth + 1)
        if source is None:
            return written
        entries = [entry for entry in source.entries
                   if entry.key is None or all((entry.key in keys) is keeps for keeps, keys in tests)]
        return TracedDict(tuple(_spread(tuple(entries), iterated.func.value)), source.complete, source.opaque)

    def _union(self, exprs: list[cst.BaseExpression], depth: int) -> TracedDict | None:
        traced = [self.trace(e, depth + 1) for e in exprs]
        if all(t is None for t in traced):
            return None
        return self._merge(traced, exprs)

    @staticmethod
    def _merge(parts: list[TracedDict | None], exprs: list[cst.BaseExpression]) -> TracedDict:
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for part, expr in zip(parts, exprs):
            if part is None:
                complete = False
                opaque.append(expr)
            else:
                entries.extend(part.entries)
                complete &= part.complete
                opaque.extend(part.opaque)
        return TracedDict(tuple(entries), complete, tuple(opaque))

    def _call(self, call: cst.Call, depth: int) -> TracedDict | None:
        names = qualified_names(self.parsed, call.func)
        if names & LOADERS.keys():  # json.loads('{"alpha": NaN}'): the dict it parses
            stand_in = self.loaded_values.result(self.parsed, call)
            return self.trace(stand_in, depth + 1) if stand_in is not None else None
        fromkeys = isinstance(call.func, cst.Attribute) and call.func.attr.value == "fromkeys" and names & _FROMKEYS
        if fromkeys or names & _COUNTER:
            keyed = self._keyed_by_elements(call, not fromkeys, depth)
            if keyed is not None or fromkeys:
                return keyed
        if names & _DICT_CONSTRUCTORS:
            if names & _DEFAULTDICT and call.args and call.args[0].keyword is None and not call.args[0].star:
                call = call.with_changes(args=call.args[1:])  # the first argument is the default factory
            return self._dict_call(call, depth)
        if names & _COPIERS and call.args:
            return self.trace(call.args[0].value, depth + 1)
        if names & _ASDICT and call.args:
            return self._asdict_call(call, names, depth)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "copy" and not call.args:
            return self.trace(call.func.value, depth + 1)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "_asdict" and not call.args:
            return self._asdict(call.func.value, depth, named_tuple=True)
        if names & ASYNC_RUNNERS and call.args:
            return self._awaited(call.args[0].value, depth)
        if names & _VARS and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star:
            return self._instance_dict(call.args[0].value, call, depth)
        if names & _CHAIN_MAP:
            return self._chain_map(call, depth)
        return self._result(call, depth, asynchronous=False)

    def _awaited(self, expr: cst.BaseExpression, depth: int) -> TracedDict | None:
        """The dict ``await f(...)`` or ``asyncio.run(f(...))`` gives for an ``async def f`` of the project."""
        return self._result(expr, depth, asynchronous=True) if isinstance(expr, cst.Call) else None

    def _builder(self, call: cst.Call) -> tuple[ParsedModule, cst.CSTNode | None]:
        """The ``def`` or ``class`` ``call``'s callee names, of this module or of one other project module
        (``workspace.foreign``), with its module; ``None`` for anything else, also for a method of another
        module's class (``Plan(Mode.PULL, 2).to_cfg()``: its ``self`` is the instance)."""
        home, definition = self.parsed, local_definition(self.parsed, call.func)
        if definition is None and self.workspace is not None:
            found = self.workspace.foreign(self.parsed, call.func)
            if found and len(found) == 1:
                home, definition = found[0].home, found[0].binding.definition
            if isinstance(definition, cst.FunctionDef) and _instance_method(home, definition):
                definition = None
        return home, definition

    def surely_holds(self, expr: cst.BaseExpression, key: str, depth: int = 0) -> bool:
        """True when the dict ``expr`` of this module makes holds ``key`` on every path: a display that writes
        it (``{"k": v, ...}``, also through ``**`` of such a dict), or a call of an undecorated builder of the
        project (:meth:`_builder`) whose every ``return`` gives such a dict (each call makes a new one).
        ``dict.setdefault(key, v)`` then leaves the key's value. False for anything else (a name: another
        holder of the dict may remove the key), and past :data:`MAX_DEPTH` or on a cycle."""
        memo = (id(expr), key)
        if memo in self._holds:
            return self._holds[memo]
        self._holds[memo] = False  # a builder that returns its own call: not known to hold it
        held = False
        if depth <= MAX_DEPTH and isinstance(expr, cst.Dict):
            held = any(string_value(e.key) == key if isinstance(e, cst.DictElement)
                       else self.surely_holds(e.value, key, depth + 1) for e in expr.elements)
        elif depth <= MAX_DEPTH and isinstance(expr, cst.Call):
            home, definition = self._builder(expr)
            if isinstance(definition, cst.FunctionDef) and definition.asynchronous is None \
                    and not definition.decorators and not yields_of(definition):
                returns = returns_of(definition)
                tracer = self if home is self.parsed else self.workspace.tracer(home)
                held = bool(returns) and all(r.value is not None and tracer.surely_holds(r.value, key, depth + 1)
                                             for r in returns)
        self._holds[memo] = held
        return held

    def _result(self, call: cst.Call, depth: int, asynchronous: bool) -> TracedDict | None:
        """The dict a call of a builder returns (an ``async def`` only when awaited or run)."""
        home, definition = self._builder(call)
        if isinstance(definition, cst.ClassDef) and is_typed_dict(home, definition):
            return self._dict_call(call, depth)  # a TypedDict's call (of any module) makes a plain dict of its arguments
        if isinstance(definition, cst.FunctionDef) and not asynchronous and definition.asynchronous is None:
            loaded = self.loaded_values.through_helper(home, definition, call)
            if loaded is not None:  # loaders.from_json('{"alpha": Infinity}'), a helper returning json.loads(text)
                return self.trace(loaded, depth + 1)
        if isinstance(definition, cst.FunctionDef) and (definition.asynchronous is not None) == asynchronous:
            returns = [r.value for r in returns_of(definition) if r.value is not None]
            tracer = self if home is self.parsed else self.workspace.tracer(home)
            if returns:
                traced = tracer._union(returns, depth)
                return self._bind(traced, definition, call, depth, home) if traced is not None else None
        if definition is None and isinstance(call.func, cst.Attribute) and not asynchronous:
            found = self._method_result(call, depth)
            if found is not None:
                return found
        if definition is None and not asynchronous:
            return self._dispatched(call, depth)
        return None

    def _dispatched(self, call: cst.Call, depth: int) -> TracedDict | None:
        """The dicts a call returns whose callee is kept in data (a registry's lookup, a table, a method its
        subclasses override: :mod:`~asynccfg_lint.analysis.callees`): what every function it may run returns,
        each with the call's arguments in place of its parameters. A function without ``return`` (one that
        raises) adds nothing. ``None`` when a callee is not known."""
        if self.workspace is None:
            return None
        callees = self.workspace.call_graph.callees(self.parsed, call.func)
        if not callees:
            return None
        parts: list[TracedDict | None] = []
        for callee in callees:
            node, home = callee.node, callee.home
            tracer = self if home is self.parsed else self.workspace.tracer(home)
            if callee.library:  # a library's callable: what it returns is no dict the tracer sees
                parts.append(None)
                continue
            if isinstance(node, cst.Lambda):
                traced = tracer.trace(node.body, depth + 1)
                parts.append(self._imported(traced, home, call) if home is not self.parsed else traced)
                continue
            if node.asynchronous is not None or yields_of(node):
                parts.append(None)
                continue
            returns = [r.value for r in returns_of(node) if r.value is not None]
            traced = tracer._union(returns, depth) if returns else TracedDict((), True)
            parts.append(self._bind(traced, node, call, depth, home, callee.bound, partial=True) if traced is not None else None)
        if all(part is None for part in parts):
            return None
        return self._merge(parts, [call] * len(parts))

    def _method_result(self, call: cst.Call, depth: int) -> TracedDict | None:
        """``obj.config()`` for an instance of a project class: the dicts the method returns.

        What the object is comes from the classifier (a constructor call, an annotation); the
        method's ``self.x`` are what the visible constructor call gives the attribute
        (:meth:`_on_instances`), else the class's attributes. A class of another module: only
        for one method of one class. Only in a check (the summaries have no classifier).
        """
        return self.method_dict(call.func.value, call.func.attr.value, call, depth)

    def method_dict(self, obj: cst.BaseExpression, name: str, via: cst.BaseExpression, depth: int = 0) -> TracedDict | None:
        """``obj.name()`` (``obj`` an expression of this module) for an instance of a project class: the dicts
        the method returns, its ``self.x`` what each visible constructor call gives the attribute (:meth:`_method_result`);
        what belongs to another module arrives through ``via``. Also for a ``bind`` keyword whose method a rule of
        another module calls for its config (``{**opts.to_cfg()}``: :func:`~asynccfg_lint.analysis.jax_facts.method_read`).
        ``None`` when not known (and in a summary)."""
        if self.workspace is None:
            return None
        found = self.workspace.instance_methods(self.parsed, obj, name, depth + 1)
        if (not found or any(f is None for f in found)) and depth < MAX_DEPTH:
            moved = self.workspace.written_elsewhere(self.parsed, obj, depth + 1)
            if moved is None:  # (an instance built in another module: its method there, on that instance)
                return None
            home, source = moved
            return self._imported(self.workspace.tracer(home).method_dict(source, name, source, depth + 1), home, via)
        if not found or any(f is None for f in found):
            return None
        methods = list({id(method): (home, method) for home, method in found}.values())
        home = methods[0][0]
        if home is not self.parsed and len(methods) != 1 or any(h is not self.parsed for h, _ in methods[1:]):
            return None
        returns = [r.value for _, m in methods for r in returns_of(m) if r.value is not None]
        tracer = self if home is self.parsed else self.workspace.tracer(home)
        traced = tracer._union(returns, depth) if returns else None
        if traced is None or len(methods) != 1:
            return traced
        # a registered rule's annotated keyword (`opts: Options`): what this module's binds pass, as for its asdict
        param = _annotated_parameter(self.parsed, obj)
        calls = self.workspace.constructions(self.parsed, obj, depth + 1, bound=param) if param is not None else []
        if not any(calls):  # (no bind passes it an instance: what the classifier says it is, the annotation)
            calls = self.workspace.constructions(self.parsed, obj, depth + 1)
        return self._on_instances(traced, home, methods[0][1], calls, via)

    def _on_instances(self, traced: TracedDict, home: ParsedModule, method: cst.FunctionDef,
                      calls: list[cst.Call | None], via: cst.Call) -> TracedDict:
        """``traced`` (what ``method`` of a class of ``home`` returns) for the instances ``calls`` make: a
        value ``self.x`` of the method is what each visible constructor call gives the attribute ``x``
        (``Holder(Mode.PUSH).to_cfg()`` returning ``{"mode": self.mode}`` has ``"mode": Mode.PUSH``,
        reported at the argument). Where an instance is not a visible call (``None``), or the
        attribute's value depends on more than the call (an annotation, a property, another
        assignment), the entry stays ``self.x``. What belongs to ``home`` arrives through ``via``."""
        params = method.params.posonly_params or method.params.params
        receiver = params[0].name.value if params else None
        foreign = home is not self.parsed
        entries: list[Entry] = []
        for entry in traced.entries:
            value = entry.value
            known: list[Entry] = []
            if (calls and entry.home is None and isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)
                    and value.value.value == receiver):
                for call in calls:
                    cls = self._class_of(call.func, home) if call is not None else None
                    member = objects.member(home, cls, value.attr.value, call) if cls is not None else None
                    if member is None or not member.found or member.annotations or member.getters or member.bindings:
                        known = []
                        break
                    passed = {id(arg.value) for arg in call.args}
                    known.extend(replace(entry, key_node=None if foreign else entry.key_node, value=v)
                                 if id(v) in passed or not foreign else self._arrived(replace(entry, value=v), home, via)
                                 for v in (*member.arguments, *member.values))
            if known:
                entries.extend(known)
                if foreign and entry.key_node is not None:  # the key is still the method's
                    entries.append(self._arrived(replace(entry, value=None), home, via))
            else:
                entries.append(self._arrived(entry, home, via) if foreign else entry)
        opaque = traced.opaque if not foreign else ((via,) if traced.opaque else ())
        return TracedDict(tuple(entries), traced.complete, opaque)

    def _instance_dict(self, obj: cst.BaseExpression, via: cst.BaseExpression, depth: int) -> TracedDict | None:
        """``vars(obj)`` / ``obj.__dict__`` of instances of one project class built by visible constructor
        calls, whose ``__init__`` only assigns ``self.x = ...``: one entry per attribute, what each call
        gives it (the argument, or the parameter's default). ``None`` for anything else."""
        if self.workspace is None:
            return None
        inits = self.workspace.instance_methods(self.parsed, obj, "__init__", depth + 1)
        if not inits or None in inits or len({id(init) for _, init in inits}) != 1:
            return None
        home, init = inits[0]
        names = _init_attributes(init)
        calls = self.workspace.constructions(self.parsed, obj, depth + 1)
        if names is None or not calls or None in calls:
            return None
        foreign = home is not self.parsed
        entries: list[Entry] = []
        for call in calls:
            cls = self._class_of(call.func, home)
            if cls is None:
                return None
            passed = {id(arg.value) for arg in call.args}
            for name in names:
                member = objects.member(home, cls, name, call)
                assigned = _assigned_values(member.bindings, init)
                if not member.found or member.annotations or member.getters or assigned is None:
                    return None
                entries.extend(Entry(name, None, v) if id(v) in passed or not foreign
                               else self._arrived(Entry(name, None, v), home, via)
                               for v in (*member.arguments, *member.values, *assigned))
        return TracedDict(tuple(entries), True)

    def _class_of(self, func: cst.BaseExpression, home: ParsedModule) -> cst.ClassDef | None:
        """The class of ``home`` that the callee ``func`` (of this module) names, if any."""
        definition = local_definition(self.parsed, func)
        if definition is None and home is not self.parsed and self.workspace is not None:
            found = self.workspace.foreign(self.parsed, func)
            definition = found[0].binding.definition if found and len(found) == 1 and found[0].home is home else None
        return definition if isinstance(definition, cst.ClassDef) else None

    def _bind(self, traced: TracedDict, builder: cst.FunctionDef, call: cst.Call, depth: int,
              home: ParsedModule, implicit: int = 0, partial: bool = False) -> TracedDict:
        """Put ``call``'s arguments where the builder's result uses its parameters directly.

        ``def make(dim, mode): return {"dim": dim, "mode": mode}`` called as ``make(0, Mode.FAST)``
        has entries ``"dim": 0`` and ``"mode": Mode.FAST`` (reported at the arguments); a parameter
        spread into the result (``{**base}``) contributes the argument's own entries. ``home`` is
        the builder's module: what the builder writes itself is reported through ``call`` when
        that is another module.
        """
        arguments = bind_arguments(builder, call, implicit, partial) or {}
        passed = {id(arg.value) for arg in call.args}
        foreign = home is not self.parsed
        entries = []
        for entry in traced.entries:
            own = entry.home is None and entry.value is not None
            param = parameter_of(home, entry.value, builder) if own else None
            if param not in arguments:
                if own and entry.builder is None and (receiver := read_receiver(entry.value)) is not None \
                        and parameter_of(home, receiver, builder) in arguments:  # {"t": opts.transport}
                    entry = replace(entry, builder=(home, builder, call))
                entries.append(self._arrived(entry, home, call) if foreign else entry)
            elif foreign and id(arguments[param]) not in passed:  # a default, written in the builder's module
                entries.append(self._arrived(replace(entry, value=arguments[param]), home, call))
            elif foreign:  # an argument, written here; the key is still the builder's
                entries.append(replace(entry, key_node=None, value=arguments[param]))
                if entry.key_node is not None:
                    entries.append(self._arrived(replace(entry, value=None), home, call))
            else:
                entries.append(replace(entry, value=arguments[param]))
        opaque: list[cst.BaseExpression] = []
        complete = True
        for expr in traced.opaque:
            param = parameter_of(home, expr, builder)
            inner = None
            star = builder.params.star_kwarg
            if isinstance(star, cst.Param) and param == star.name.value:  # cfg.update(extra) of `**extra`: the call's other keywords
                named = frozenset(p.name.value for p in (*builder.params.posonly_params, *builder.params.params,
                                                         *builder.params.kwonly_params))
                inner = self.trace_keywords(call, named)
            elif param in arguments and (not foreign or id(arguments[param]) in passed):
                inner = self.trace(arguments[param], depth + 1)
            elif param in arguments:  # `{**base}` with the default of `base`, in the builder's module
                inner = self._imported(self.workspace.tracer(home).trace(arguments[param], depth + 1), home, call)
            if inner is None:
                opaque.append(call if foreign else expr)
                continue
            entries.extend(inner.entries)
            opaque.extend(inner.opaque)
            complete = complete and inner.complete
        # every part the builder could not see is now either resolved or still listed as opaque
        return TracedDict(tuple(entries), complete and not opaque, tuple(opaque))

    def _dict_call(self, call: cst.Call, depth: int) -> TracedDict:
        replaceable: set[str] = set()  # keys of the positional mapping, which a keyword replaces
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for arg in call.args:
            if arg.keyword is not None:
                if arg.keyword.value in replaceable:  # dict(base, k=v): v replaces base's "k"
                    entries = [entry for entry in entries if entry.key != arg.keyword.value]
                entries.append(Entry(arg.keyword.value, None, arg.value))
            elif arg.star == "**":
                inner = self.trace(arg.value, depth + 1)
                if inner is None:
                    complete = False
                    opaque.append(arg.value)
                else:  # what `base` could not show stays untraceable in dict(**base), as in {**base}
                    entries.extend(_spread(inner.entries, arg.value))
                    complete &= inner.complete
                    opaque.extend(inner.opaque)
            elif arg.star == "":
                inner = self.trace(arg.value, depth + 1) or self._pairs(arg.value) or self._zipped(arg.value) \
                    or self._passed_pairs(arg.value, depth) or self._generated_pairs(arg.value)
                if inner is None:
                    complete = False
                    opaque.append(arg.value)
                else:
                    entries.extend(_spread(inner.entries, arg.value))
                    complete &= inner.complete
                    opaque.extend(inner.opaque)
                    replaceable.update(entry.key for entry in inner.entries if entry.key is not None)
            else:
                complete = False
                opaque.append(arg.value)
        return TracedDict(tuple(entries), complete, tuple(opaque))

    def _chain_map(self, call: cst.Call, depth: int) -> TracedDict:
        """``collections.ChainMap(m1, m2, ...)``: the entries of its maps, as ``dict(chain)`` copies them (what
        ``_emit_async_start_custom_call`` does with its config; measured on jax 0.12.0.1,
        ``tests/fixtures/programs/chain_maps.py``). A key is looked up in the first map that has it, so the
        literal keys of a map written as a display replace the later maps' entries of those keys."""
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for arg in reversed(call.args):
            inner = self.trace(arg.value, depth + 1) if arg.keyword is None and not arg.star else None
            if inner is None:
                complete = False
                opaque.append(arg.value)
                continue
            if isinstance(arg.value, cst.Dict):  # {"k": v, ...}: its "k" hides every later map's "k"
                keys = {string_value(e.key) for e in arg.value.elements if isinstance(e, cst.DictElement)}
                entries = [entry for entry in entries if entry.key is None or entry.key not in keys]
            entries.extend(_spread(inner.entries, arg.value))
            complete &= inner.complete
            opaque.extend(inner.opaque)
        return TracedDict(tuple(entries), complete, tuple(opaque))

    def _keyed_by_elements(self, call: cst.Call, counter: bool, depth: int) -> TracedDict | None:
        """``dict.fromkeys(keys, value)``: a key per element of ``keys``, each holding ``value`` (``None`` without
        one); ``collections.Counter(iterable)``: a key per element, holding an int count, and ``Counter(mapping)``
        or ``Counter(k=n)`` the mapping's entries (``Counter.update`` copies them). ``None`` for other forms."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        if len(positional) != sum(1 for arg in call.args if arg.keyword is None) or any(arg.star for arg in call.args):
            return None
        if counter:
            if len(positional) > 1:
                return None
            if not positional:
                return self._dict_call(call, depth)
            mapping = self.trace(positional[0], depth + 1)
            if mapping is not None or call.args[1:]:
                return None if mapping is None else self._dict_call(call, depth)
            return TracedDict((Entry(None, positional[0], None, key_elements=True),), True)
        if not 1 <= len(positional) <= 2 or len(call.args) != len(positional):
            return None
        value = positional[1] if len(positional) == 2 else None
        return TracedDict((Entry(None, positional[0], value, key_elements=True),), True)

    @staticmethod
    def _pairs(expr: cst.BaseExpression) -> TracedDict | None:
        """``dict([("a", 1), ("b", 2)])``: a literal sequence of literal pairs."""
        if not isinstance(expr, (cst.List, cst.Tuple)):
            return None
        return DictTracer._pair_entries([element.value for element in expr.elements])

    def _generated_pairs(self, expr: cst.BaseExpression) -> TracedDict | None:
        """``dict(gen())`` of a generator function of this module whose every ``yield`` gives a pair display
        (``yield "k", v``): an entry per pair. ``None`` for any other generator (a ``yield from``, a
        ``yield`` of another value) and for every other call."""
        if not isinstance(expr, cst.Call):
            return None
        definition = local_definition(self.parsed, expr.func)
        if not isinstance(definition, cst.FunctionDef) or definition.asynchronous is not None:
            return None
        values = [own.value for own in yields_of(definition)]
        return self._pair_entries(values) if values else None

    @staticmethod
    def _pair_entries(pairs: Sequence[cst.BaseExpression | None]) -> TracedDict | None:
        """An entry per pair display of ``pairs`` (``("a", 1)``: key ``"a"``, value ``1``); ``None`` when one is no pair display."""
        entries = []
        for pair in pairs:
            if not isinstance(pair, (cst.Tuple, cst.List)) or len(pair.elements) != 2 \
                    or any(isinstance(e, cst.StarredElement) for e in pair.elements):
                return None
            key, value = pair.elements[0].value, pair.elements[1].value
            entries.append(Entry(string_value(key), key, value))
        return TracedDict(tuple(entries), True)

    def _passed_pairs(self, expr: cst.BaseExpression, depth: int) -> TracedDict | None:
        """``dict(table)`` of a name whose values are pair displays the code shows: a rule's keyword that the
        module's binds pass as ``table=((Mode.PUSH, 1),)`` (a tuple gets through bind, a dict would not): the
        pairs of each, reported where they are written. Only in a check (the summaries have no classifier)."""
        if self.workspace is None or not isinstance(expr, cst.Name):
            return None
        displays = self.workspace.sequences(self.parsed, expr, depth + 1)
        parts = [self._pairs(display) if display is not None else None for display in displays]
        if not any(parts):
            return None
        return self._merge(parts, [display if display is not None else expr for display in displays])

    def _zipped(self, expr: cst.BaseExpression) -> TracedDict | None:
        """``dict(zip(keys, values))``: one entry for every pair, an element of ``keys`` under an element of ``values``."""
        if not isinstance(expr, cst.Call) or "builtins.zip" not in qualified_names(self.parsed, expr.func):
            return None
        if len(expr.args) != 2 or any(arg.keyword is not None or arg.star for arg in expr.args):
            return None
        return TracedDict((Entry(None, expr.args[0].value, expr.args[1].value, zipped=True),), True)

    def _arrived(self, entry: Entry, home: ParsedModule, via: cst.BaseExpression) -> Entry:
        """``entry``, traced in ``home``, as seen from this module: it arrived through ``via``."""
        home = entry.home or home
        if home is self.parsed:  # a module that imports from the checked one
            return replace(entry, home=None, via=None)
        return replace(entry, home=home, via=via)

    def _imported(self, traced: TracedDict | None, home: ParsedModule, via: cst.BaseExpression) -> TracedDict | None:
        """``traced``, found by ``home``'s tracer, as seen from this module: every part arrived through ``via``."""
        if traced is None:
            return None
        entries = tuple(self._arrived(entry, home, via) for entry in traced.entries)
        return TracedDict(entries, traced.complete, (via,) if traced.opaque else ())

    def _foreign(self, expr: cst.BaseExpression, depth: int) -> TracedDict | None:
        """A dict bound in another project module (``from .consts import CFG``, ``defaults.CFG``)."""
        found = self.workspace.foreign(self.parsed, expr) if self.workspace is not None else None
        if not found:
            return None
        parts = [self._imported(self.workspace.tracer(item.home)._module_dict(item.binding, depth + 1), item.home, expr)
                 for item in found]
        if all(part is None for part in parts):
            return None
        return self._merge(parts, [expr] * len(parts))

    def _module_dict(self, binding: Binding, depth: int) -> TracedDict | None:
        """What the module-level ``binding`` of this module gives a dict another module reads, with what this module
        changes in it (:meth:`~asynccfg_lint.analysis.mutations.DictMutations.after_import`)."""
        traced = self._bindings([binding], depth)
        if traced is None or binding.assignment is None or not isinstance(binding.assignment.scope, GlobalScope):
            return traced
        return self.after_import([binding], traced, depth)

    def _attribute(self, expr: cst.Attribute, depth: int) -> TracedDict | None:
        """``self.cfg`` / ``Cls.CFG`` (every assignment in the class), ``obj.__dict__``, or a dict of another module."""
        if expr.attr.value == "__dict__":
            return self._instance_dict(expr.value, expr, depth)
        bindings = attribute_bindings(self.parsed, expr)
        if bindings is not None:
            traced = self._bindings(bindings, depth)
            edits = self._attribute_edits(expr, depth) if traced is not None else None
            return self._merge([traced, edits], [expr, expr]) if edits is not None else traced
        return self._foreign(expr, depth)

    def _attribute_edits(self, expr: cst.Attribute, depth: int) -> TracedDict | None:
        """What the methods of ``self.x``'s class put into the dict ``x`` (``self._fields[name] = v``,
        ``self._fields.update(d)`` in any method, such as a fluent builder's ``set``): one entry per write,
        wherever it runs before the read. ``None`` when there is none."""
        cls = method_owner(self.parsed, expr.value) if isinstance(expr.value, cst.Name) else None
        if cls is None:
            return None
        name = expr.attr.value
        self.parsed.require(name)  # (a skeleton's left-out bodies that may write it)
        entries: list[Entry] = []
        parts: list[TracedDict | None] = []
        for statement in statements_of(self.parsed.module):
            if type(statement) is not cst.Assign:
                continue
            for target in statement.targets:
                holder = target.target.value if isinstance(target.target, cst.Subscript) else None
                if _attribute_of(self.parsed, holder, cls, name) and len(target.target.slice) == 1 \
                        and isinstance(target.target.slice[0].slice, cst.Index):
                    key = target.target.slice[0].slice.value
                    pairs = self._setter_pairs(key, statement.value, depth)
                    if pairs is not None:  # def set(self, key, value): self._fields[key] = value
                        parts.append(pairs)
                    else:
                        entries.append(Entry(string_value(key), key, statement.value))
        for call in kept_calls(self.parsed.calls):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "update" \
                    and _attribute_of(self.parsed, func.value, cls, name):
                parts.append(self._dict_call(call, depth + 1))
        if not entries and not parts:
            return None
        return self._merge([TracedDict(tuple(entries), True), *parts], [expr] * (len(parts) + 1))

    def _annotated(self, annotation: cst.BaseExpression) -> TracedDict | None:
        """The entries a parameter annotated with a ``TypedDict`` of this module has: one per field, by its annotation."""
        cls = local_definition(self.parsed, annotation)
        if not isinstance(cls, cst.ClassDef) or not is_typed_dict(self.parsed, cls):
            return None
        return TracedDict(tuple(Entry(name, None, None, field) for name, field, _ in dataclass_fields(self.parsed, cls)),
                          True)

    def _bindings(self, bindings: list[Binding] | None, depth: int) -> TracedDict | None:
        """The merged entries of every binding (``name |= {...}`` adds its right-hand side)."""
        if not bindings:
            return None
        parts: list[TracedDict | None] = []
        exprs: list[cst.BaseExpression] = []
        for binding in bindings:
            if binding.value is None and binding.annotation is not None and isinstance(
                    binding.assignment.node if binding.assignment is not None else None, cst.Param):
                typed = self._annotated(binding.annotation)  # `cfg: MyTypedDict`
                if typed is None:
                    return None
                parts.append(typed)
                exprs.append(binding.annotation)
                continue
            if binding.augmented is not None:
                # `cfg |= {...}` adds the right-hand side; the earlier bindings are referents too
                if isinstance(binding.augmented.operator, cst.BitOrAssign):
                    parts.append(self.trace(binding.augmented.value, depth + 1))
                    exprs.append(binding.augmented.value)
                continue
            if binding.value is None and binding.unpacked is not None:
                # `perm, other_args = helper(...)`: that element of every tuple the helper returns
                elements = unpacked_values(self.parsed, *binding.unpacked)
                if elements is None:
                    return None
                parts.extend(self.trace(element, depth + 1) for element in elements)
                exprs.extend(elements)
                continue
            node = binding.assignment.node if binding.assignment is not None else None
            if binding.value is None and isinstance(node, cst.Param):
                passed = self._passed(node, depth)  # a method's parameter: what the calls of it pass
                if passed is None:
                    return None
                parts.append(passed)
                exprs.append(node.name)
                continue
            if binding.value is None:
                return None
            parts.append(self.trace(binding.value, depth + 1))
            exprs.append(binding.value)
        if not parts or all(p is None for p in parts):
            return None
        return self._merge(parts, exprs)

    def _setter_pairs(self, key: cst.BaseExpression, value: cst.BaseExpression, depth: int) -> TracedDict | None:
        """For ``self._fields[key] = value`` in a method whose parameters ``key`` and ``value`` are: the pairs its calls
        pass (:meth:`~asynccfg_lint.analysis.callees.CallGraph.callers`), each an entry under the key the call gives
        (``.set("debug_name", v)``), or the entries of the dict a caller's loop takes them from (``for k, v in
        mapping.items(): self.set(k, v)``); a call that passes neither by name is opaque. ``None`` when ``key``
        and ``value`` are not such parameters, or no call is seen."""
        function = enclosing(self.parsed, key, (cst.FunctionDef,))
        if self.workspace is None or not isinstance(function, cst.FunctionDef) or depth > MAX_DEPTH \
                or not _instance_method(self.parsed, function):
            return None
        names = (parameter_of(self.parsed, key, function), parameter_of(self.parsed, value, function))
        if None in names:
            return None
        callers = self.workspace.call_graph.callers(self.parsed, function)
        if not callers:
            return None
        positional = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
        parts: list[TracedDict | None] = []
        for module, call, bound in callers:
            key_arg, value_arg = (passed_argument(call, n, positional.index(n) - bound if n in positional else None)
                                  for n in names)
            if key_arg is None or value_arg is None:
                parts.append(None)
                continue
            tracer = self if module is self.parsed else self.workspace.tracer(module)
            traced = tracer._loop_pairs(key_arg, value_arg, depth + 1) \
                or TracedDict((Entry(string_value(key_arg), key_arg, value_arg),), True)
            parts.append(traced if module is self.parsed else self._imported(traced, module, value))
        return self._merge(parts, [value] * len(parts))

    def _loop_pairs(self, key: cst.BaseExpression, value: cst.BaseExpression, depth: int) -> TracedDict | None:
        """The entries of ``d`` when ``key`` and ``value`` are the targets of ``for key, value in d.items()`` (a loop
        or comprehension of this module) and the tracer sees ``d``, else ``None``."""
        if not isinstance(key, cst.Name) or not isinstance(value, cst.Name):
            return None
        bindings = bindings_of_name(self.parsed, key)
        node = bindings[0].assignment.node if bindings and len(bindings) == 1 and bindings[0].assignment else None
        element = self.parsed.parents.get(node) if node is not None else None
        target = self.parsed.parents.get(element) if isinstance(element, cst.Element) else None
        loop = self.parsed.parents.get(target) if isinstance(target, cst.Tuple) else None
        if not isinstance(loop, (cst.For, cst.CompFor)) or loop.target is not target or len(target.elements) != 2 \
                or target.elements[0].value is not node or not isinstance(target.elements[1].value, cst.Name) \
                or target.elements[1].value.value != value.value:
            return None
        iterated = loop.iter
        if not (isinstance(iterated, cst.Call) and not iterated.args and isinstance(iterated.func, cst.Attribute)
                and iterated.func.attr.value == "items"):
            return None
        return self.trace(iterated.func.value, depth + 1)

    def _passed(self, param: cst.Param, depth: int) -> TracedDict | None:
        """The dicts the calls of the project's call graph that may run a method pass for its parameter ``param``
        (:meth:`~asynccfg_lint.analysis.callees.CallGraph.callers`: ``builder.merge(PROFILES[name])`` for
        ``def merge(self, mapping)``), as the classifier takes them
        (:meth:`~asynccfg_lint.analysis.infer.parameters.ParameterInference._called_elsewhere`); a call that does not
        name it (``*args``, ``**kwargs``) passes an opaque part. ``None`` for a function's parameter, and where no call
        is seen."""
        function = enclosing(self.parsed, param, (cst.FunctionDef,))
        if self.workspace is None or not isinstance(function, cst.FunctionDef) or depth > MAX_DEPTH \
                or not _instance_method(self.parsed, function):
            return None
        calls = self.workspace.call_graph.calls_passing(self.parsed, param, function)
        if not calls:
            return None
        parts: list[TracedDict | None] = []
        for module, call, slot in calls:
            argument = passed_argument(call, param.name.value, slot)
            tracer = self if module is self.parsed else self.workspace.tracer(module)
            traced = tracer.trace(argument, depth + 1) if argument is not None else None
            parts.append(traced if module is self.parsed else self._imported(traced, module, param.name))
        if all(part is None for part in parts):
            return None
        return self._merge(parts, [param.name] * len(parts))

    def _name(self, name: cst.Name, depth: int) -> TracedDict | None:
        bindings = bindings_of_name(self.parsed, name)
        if bindings and all(is_import(b) for b in bindings):
            return self._foreign(name, depth)
        if bindings and not any(b.augmented is not None for b in bindings):  # (`cfg |= {...}` adds to what reaches it)
            bindings = reaching(self.parsed, name, bindings)  # `cfg = {...}` again in the block replaces it
        merged = self._bindings(bindings, depth)
        if merged is None:
            return self._edited(name, bindings, depth)
        checked = [b for b in bindings if b.value is not None and serialized_before(self.parsed, name, b)]
        if checked:  # try: json.dumps(cfg) except TypeError: cfg = ...: what the dumps saw serializes
            seen = [e for b in checked for e in (self.trace(b.value, depth + 1) or TracedDict((), True)).entries]
            merged = replace(merged, entries=tuple(replace(e, serialized=True) if e in seen else e
                                                   for e in merged.entries))
        normalised = tuple(c for b in bindings for c in normalised_classes(self.parsed, name, b))
        if normalised:  # for k, v in cfg.items(): if isinstance(v, enum.Enum): cfg[k] = v.value
            merged = replace(merged, entries=tuple(replace(e, normalised=normalised) for e in merged.entries))
        mutations, removals = self._mutations(name, bindings, depth)
        return TracedDict(self.kept(merged.entries + mutations.entries, removals, name),
                          merged.complete and mutations.complete, merged.opaque + mutations.opaque)

    def _edited(self, name: cst.Name, bindings: list[Binding] | None, depth: int) -> TracedDict | None:
        """A dict the tracer cannot see that the code edits before ``name`` (``kw.setdefault("k", v)``,
        ``cfg.update(k=v)``, ``cfg["cache"] = path``): those entries, beside the unseen part, opaque: a function's
        ``**kwargs`` (what the callers pass, at ``name``), or a name bound to what the tracer cannot follow
        (``cfg = make_cfg()`` of a library, at the bound values: as ``{**make_cfg(), "cache": path}`` is traced,
        so the edits' findings are not lost with the unseen builder). ``None`` when nothing is edited, or a loop
        replaces the bound dict's enum members before ``name`` (what it leaves is not traced for an edit)."""
        if not bindings:
            return None
        param = bindings[0].assignment.node if len(bindings) == 1 and bindings[0].assignment is not None else None
        function = self.parsed.parents.get(param) if isinstance(param, cst.Param) else None
        if isinstance(function, cst.Parameters) and function.star_kwarg is param:
            unseen: tuple[cst.BaseExpression, ...] = (name,)
        elif all(b.value is not None for b in bindings) \
                and not any(normalised_classes(self.parsed, name, b) for b in bindings):
            unseen = tuple(b.value for b in bindings)
        else:
            return None
        mutations, removals = self._mutations(name, bindings, depth)
        entries = self.kept(mutations.entries, removals, name)
        if not entries:
            return None
        return TracedDict(entries, False, (*unseen, *mutations.opaque))

    def _asdict_of_parameter(self, param: cst.Name, depth: int, named_tuple: bool | None) -> TracedDict | None:
        """``knobs._asdict()`` of an unannotated parameter whose callers are known (a lowering rule's
        keyword: this module's binds): the fields of each instance they pass. Only in a check."""
        calls = self.workspace.constructions(self.parsed, param, depth + 1) if self.workspace is not None else []
        if not any(calls):
            return None
        # an origin that is no such instance (a bind elsewhere: unknown) leaves the param opaque beside the others
        return self._merge([self._asdict(call, depth + 1, named_tuple) if call is not None else None for call in calls],
                           [call if call is not None else param for call in calls])

    def fields(self, expr: cst.BaseExpression, named_tuple: bool | None, depth: int = 0) -> TracedDict | None:
        """``expr._asdict()`` (``named_tuple=True``) or ``dataclasses.asdict(expr)`` (``None``) of a value of this
        module (a ``bind`` keyword whose fields a rule of another module puts into its config; the fields
        ``dataclasses.astuple(expr)`` holds), if known."""
        return self._asdict(expr, depth, named_tuple)

    def _asdict(self, expr: cst.BaseExpression, depth: int, named_tuple: bool | None = None) -> TracedDict | None:
        """``dataclasses.asdict(x)`` for ``x`` an instance of a dataclass of the project (``x`` a
        constructor call, or a name bound once to one); with ``named_tuple=True``, ``x._asdict()``
        for any class of the project called so (a ``typing.NamedTuple``). ``x`` may also be a
        parameter annotated with such a class (``opts: CommOpts``): any instance, each field what
        its default or annotation says."""
        call: cst.Call | None = expr if isinstance(expr, cst.Call) else None
        class_expr = call.func if call is not None else None
        if isinstance(expr, cst.Name):
            bindings = bindings_of_name(self.parsed, expr)
            if not bindings or len(bindings) != 1:
                return None
            if isinstance(bindings[0].value, cst.Call):
                call = bindings[0].value
                class_expr = call.func
            elif bindings[0].value is None and bindings[0].annotation is not None:
                class_expr = bindings[0].annotation
                node = bindings[0].assignment.node if bindings[0].assignment is not None else None
                bound = self._asdict_of_bound(expr, node, class_expr, depth, named_tuple) \
                    if isinstance(node, cst.Param) else None
                if bound is not None:
                    return bound
            elif bindings[0].value is None and isinstance(
                    bindings[0].assignment.node if bindings[0].assignment is not None else None, cst.Param):
                return self._asdict_of_parameter(expr, depth, named_tuple)
        replaced = _replaced(self.parsed, call) if call is not None and depth <= MAX_DEPTH else None
        if replaced is not None:  # dataclasses.replace(opts, mode=...), knobs._replace(mode=...)
            base, keywords = replaced
            inner = self._asdict(base, depth + 1, named_tuple)
            if inner is None:
                return None
            entries = [entry for entry in inner.entries if entry.key not in keywords]
            recursion = inner.entries[0].recursion if inner.entries else None  # (the same for every field)
            entries.extend(Entry(name, None, value, recursion=recursion) for name, value in keywords.items())
            return TracedDict(tuple(entries), inner.complete, inner.opaque)
        if class_expr is None:
            return None
        return self._fields(class_expr, call, expr, named_tuple)

    def _asdict_of_bound(self, name: cst.Name, param: cst.Param, annotation: cst.BaseExpression, depth: int,
                         named_tuple: bool | None) -> TracedDict | None:
        """``dataclasses.asdict(feats)`` of a registered rule's annotated keyword that this module's binds
        pass (``feats: Features``, ``t.bind(x, feats=Features(Mode.PUSH))``): JAX calls the rule with
        those, so the fields of each instance a bind passes, and the annotation's fields for a value
        that is no such instance (an annotation that names no class leaves that value opaque). ``None``
        when no bind of this module passes the keyword an instance. Only in a check."""
        calls = self.workspace.constructions(self.parsed, name, depth + 1, bound=param) \
            if self.workspace is not None else []
        if not any(calls):
            return None
        parts = [self._asdict(call, depth + 1, named_tuple) if call is not None
                 else self._fields(annotation, None, name, named_tuple) for call in calls]
        return self._merge(parts, [call if call is not None else name for call in calls])

    def _record_class(self, class_expr: cst.BaseExpression) -> tuple[ParsedModule, cst.CSTNode | None]:
        """The definition ``class_expr`` names, of this module or another project module, with its module."""
        home, cls = self.parsed, local_definition(self.parsed, class_expr)
        if cls is None and self.workspace is not None:  # a class of another project module
            found = self.workspace.foreign(self.parsed, class_expr)
            if found and len(found) == 1:
                home, cls = found[0].home, found[0].binding.definition
        return home, cls

    def _fields(self, class_expr: cst.BaseExpression, call: cst.Call | None, expr: cst.BaseExpression,
                named_tuple: bool | None) -> TracedDict | None:
        """The fields of an instance of the class ``class_expr`` names (a dataclass, or with
        ``named_tuple=True`` any class): ``call``'s arguments, else each field's default or annotation."""
        home, cls = self._record_class(class_expr)
        if not isinstance(cls, cst.ClassDef) or named_tuple is False:
            return None
        # (dataclasses.asdict of an attrs instance, or attrs.asdict of a dataclass, raises before any config)
        fields = dataclass_fields(home, cls) if named_tuple or is_dataclass(home, cls) else attrs_fields(home, cls)
        if fields is None:
            return None
        # asdict converts what the fields hold, recursively; NamedTuple._asdict() leaves them as they are
        recursion = None if named_tuple else AS_DICT if is_dataclass(home, cls) else ATTRS_AS_DICT
        arguments = call.args if call is not None else ()
        positional = [a for a in arguments if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in arguments if a.keyword is not None}
        entries = []
        for index, (name, annotation, default) in enumerate(fields):
            written = objects.post_init_writes(home, cls, name)
            if written is not None:  # __post_init__ replaces the argument: what it assigns, or unknown
                entries.extend(self._arrived(Entry(name, None, v, recursion=recursion), home, call or expr)
                               if home is not self.parsed else Entry(name, None, v, recursion=recursion)
                               for v in (written.values if written.settled else [None]))
            elif index < len(positional):
                entries.append(Entry(name, None, positional[index].value, recursion=recursion))
            elif name in keywords:
                entries.append(Entry(name, None, keywords[name], recursion=recursion))
            elif home is self.parsed:
                entries.append(Entry(name, None, default, annotation, recursion=recursion))
            else:  # the field's default or annotation, written in the dataclass's module
                entries.append(self._arrived(Entry(name, None, default, annotation, recursion=recursion), home,
                                             call or expr))
        return TracedDict(tuple(entries), True)

    def _asdict_call(self, call: cst.Call, names: set[str], depth: int) -> TracedDict | None:
        """``dataclasses.asdict(x)`` / ``attrs.asdict(x)`` with the keywords that keep the fields as
        :meth:`_asdict` gives them (``dict_factory=dict``/``OrderedDict``; ``recurse=False``: the values
        are not converted); ``filter``, ``value_serializer`` or another factory: not followed."""
        recurse = True
        for arg in call.args[1:]:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "dict_factory" and qualified_names(self.parsed, arg.value) & _DICT_CONSTRUCTORS:
                continue
            if keyword == "recurse" and isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False") \
                    and names & {ATTRS_AS_DICT}:
                recurse = arg.value.value == "True"
                continue
            return None
        traced = self._asdict(call.args[0].value, depth)
        return traced if recurse else with_recursion(traced, None)

    def converted(self, node: cst.BaseExpression, recursion: str, depth: int) -> TracedDict | None:
        """What the conversion ``recursion`` (:data:`~asynccfg_lint.analysis.records.RECURSIONS`) makes of a
        record instance a field holds: its fields, each converted the same way, when ``node`` is a call of a
        record class of the kind it converts (``Inner(Mode.PUSH)``) or an annotation naming one (a field
        ``inner: Inner = field(default_factory=Inner)``); ``None`` for anything else (kept as it is)."""
        class_expr = node.func if isinstance(node, cst.Call) else node
        home, cls = self._record_class(class_expr)
        if not isinstance(cls, cst.ClassDef) or record_kind(home, cls) != RECURSIONS[recursion] or depth > MAX_DEPTH:
            return None
        call = node if isinstance(node, cst.Call) else None
        return with_recursion(self._fields(class_expr, call, node, None), recursion)


def _assigned_values(bindings: tuple[Binding, ...], init: cst.FunctionDef) -> list[cst.BaseExpression] | None:
    """The values of ``self.x = <value>`` bindings of an attribute that are not an ``__init__`` parameter
    (``self.enabled = np.bool_(enabled)``, ``self.ratio = 0.5``): what ``vars(obj)`` may hold under ``x``.
    ``None`` when one is another binding (a class-body name, a parameter no call gives a value)."""
    params = {p.name.value for p in [*init.params.posonly_params, *init.params.params, *init.params.kwonly_params]}
    values: list[cst.BaseExpression] = []
    for binding in bindings:
        value = binding.value
        if binding.assignment is not None or value is None or isinstance(value, cst.Name) and value.value in params:
            return None
        values.append(value)
    return values


def _init_attributes(init: cst.FunctionDef) -> list[str] | None:
    """The attributes an ``__init__`` whose every statement is ``self.x = ...`` sets, in order; ``None``
    when it does anything else (its instance's ``__dict__`` may then hold more)."""
    params = init.params.posonly_params or init.params.params
    body = init.body.body if isinstance(init.body, cst.IndentedBlock) else ()
    if not params or not body:
        return None
    receiver, names = params[0].name.value, []
    for statement in body:
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else None
        if not smalls:
            return None
        for small in smalls:
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [
                small.target] if isinstance(small, cst.AnnAssign) and small.value is not None else None
            if not targets or not all(isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
                                      and t.value.value == receiver for t in targets):
                return None
            names.extend(t.attr.value for t in targets if t.attr.value not in names)
    return names


def _replaced(parsed: ParsedModule, call: cst.Call) -> tuple[cst.BaseExpression, dict[str, cst.BaseExpression]] | None:
    """For ``dataclasses.replace(obj, k=v, ...)`` or ``obj._replace(k=v, ...)`` (a copy of ``obj`` with
    those fields replaced): ``obj`` and the keywords; else ``None``."""
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return None
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "_replace" and not positional:
        return call.func.value, keywords
    if len(positional) == 1 and qualified_names(parsed, call.func) & _REPLACE:
        return positional[0].value, keywords
    return None


def _spread(entries: tuple[Entry, ...], source: cst.BaseExpression) -> list[Entry]:
    """``entries`` of the dict ``source`` spread or copied into another (``**base``, ``dict(base)``):
    a name of this module is recorded in each entry's ``spreads``."""
    if not isinstance(source, cst.Name):
        return list(entries)
    return [replace(e, spreads=(*e.spreads, source)) if e.home is None else e for e in entries]


def _key_test(test: cst.BaseExpression, key: str) -> tuple[bool, frozenset[str]] | None:
    """A comprehension's test of its key name ``key`` against str literals: ``(True, keys)`` when only ``keys``
    pass (``k == "a"``, ``k in ("a", "b")``), ``(False, keys)`` when they do not (``k != "a"``, ``k not in
    (...)``); ``None`` for any other test."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left, operator, right = test.left, test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(operator, (cst.Equal, cst.NotEqual)) and isinstance(right, cst.Name) and right.value == key:
        left, right = right, left  # "a" != k
    if not (isinstance(left, cst.Name) and left.value == key):
        return None
    if isinstance(operator, (cst.Equal, cst.NotEqual)):
        literal = string_value(right)
        return (isinstance(operator, cst.Equal), frozenset({literal})) if literal is not None else None
    if isinstance(operator, (cst.In, cst.NotIn)) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        literals = [string_value(e.value) if isinstance(e, cst.Element) and not isinstance(e, cst.StarredElement)
                    else None for e in right.elements]
        if all(literal is not None for literal in literals):
            return isinstance(operator, cst.In), frozenset(literals)
    return None


def _attribute_of(parsed: ParsedModule, holder: cst.BaseExpression | None, cls: cst.ClassDef, name: str) -> bool:
    """Whether ``holder`` is ``self.name`` (or ``cls.name``) in a method of ``cls``."""
    return isinstance(holder, cst.Attribute) and holder.attr.value == name and isinstance(holder.value, cst.Name) \
        and method_owner(parsed, holder.value) is cls


def _instance_method(parsed: ParsedModule, function: cst.FunctionDef) -> bool:
    """True when ``function`` is defined in a class body of ``parsed`` without ``@staticmethod``/``@classmethod``."""
    block = parsed.parents.get(function)
    return isinstance(block, cst.IndentedBlock) and isinstance(parsed.parents.get(block), cst.ClassDef) and not any(
        isinstance(d.decorator, cst.Name) and d.decorator.value in ("staticmethod", "classmethod") for d in function.decorators)


def _annotated_parameter(parsed: ParsedModule, expr: cst.BaseExpression) -> cst.Param | None:
    """The annotated parameter ``expr`` (a name) is bound to and only to, else ``None``."""
    bindings = bindings_of_name(parsed, expr) if isinstance(expr, cst.Name) else None
    if not bindings or len(bindings) != 1 or bindings[0].value is not None or bindings[0].annotation is None:
        return None
    node = bindings[0].assignment.node if bindings[0].assignment is not None else None
    return node if isinstance(node, cst.Param) else None
