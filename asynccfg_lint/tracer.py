"""Dict tracer: follow a config expression back to what builds it and collect its entries.

Data flow is may-analysis within one module: a name bound on several paths contributes the
entries of every binding that reaches the use; mutations of the same binding before the use
(``cfg[k] = v``, ``cfg.update(...)``, ``cfg.setdefault(k, v)``, ``cfg |= {...}``) add entries.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from asynccfg_lint.parse import ParsedModule
from asynccfg_lint.resolution import (
    Binding,
    bind_arguments,
    parameter_of,
    bindings_of_name,
    enclosing,
    local_definition,
    qualified_names,
    starts_before,
    string_value,
)

_DICT_CONSTRUCTORS = frozenset(
    {"builtins.dict", "collections.OrderedDict", "collections.defaultdict", "typing.OrderedDict"}
)
_DEFAULTDICT = frozenset({"collections.defaultdict"})
_COPIERS = frozenset({"copy.copy", "copy.deepcopy", "types.MappingProxyType"})
_ASDICT = frozenset({"dataclasses.asdict"})
_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass"})
_FIELD = frozenset({"dataclasses.field"})
_NOT_FIELDS = frozenset({"typing.ClassVar", "dataclasses.InitVar", "dataclasses.KW_ONLY"})
MAX_DEPTH = 12


@dataclass(frozen=True)
class Entry:
    """One key/value pair that may be in a traced dict.

    Attributes:
        key: the key when it is a string literal, else ``None``.
        key_node: the key expression (``None`` for keyword arguments and dataclass fields).
        value: the value expression, or ``None`` when only ``annotation`` is known.
        annotation: a type annotation that stands for the value (dataclass field without value).
    """

    key: str | None
    key_node: cst.BaseExpression | None
    value: cst.BaseExpression | None
    annotation: cst.BaseExpression | None = None


@dataclass(frozen=True)
class TracedDict:
    """The entries found for a dict expression.

    Attributes:
        entries: every entry that may be present.
        complete: False when part of the dict came from something the tracer cannot see
            (an unknown call, a parameter, ``**unknown``).
        opaque: the sub-expressions that could not be traced (reported as ACC201 when selected).
    """

    entries: tuple[Entry, ...]
    complete: bool
    opaque: tuple[cst.BaseExpression, ...] = ()


class DictTracer:
    """Trace dict-valued expressions of one parsed module.

    Args:
        parsed: the module, with metadata.
    """

    def __init__(self, parsed: ParsedModule) -> None:
        self.parsed = parsed
        self._memo: dict[int, TracedDict | None] = {}
        self._active: set[int] = set()

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
        if isinstance(expr, cst.Dict):
            return self._dict_display(expr, depth)
        if isinstance(expr, cst.DictComp):
            return TracedDict((Entry(string_value(expr.key), expr.key, expr.value),), True)
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
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        return None

    # -- forms -------------------------------------------------------------------------
    def _dict_display(self, expr: cst.Dict, depth: int) -> TracedDict:
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                entries.append(Entry(string_value(element.key), element.key, element.value))
            else:  # StarredDictElement: {**base}
                inner = self.trace(element.value, depth + 1)
                if inner is None:
                    complete = False
                    opaque.append(element.value)
                else:
                    entries.extend(inner.entries)
                    complete &= inner.complete
                    opaque.extend(inner.opaque)
        return TracedDict(tuple(entries), complete, tuple(opaque))

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
        if names & _DICT_CONSTRUCTORS:
            if names & _DEFAULTDICT and call.args and call.args[0].keyword is None and not call.args[0].star:
                call = call.with_changes(args=call.args[1:])  # the first argument is the default factory
            return self._dict_call(call, depth)
        if names & _COPIERS and call.args:
            return self.trace(call.args[0].value, depth + 1)
        if names & _ASDICT and call.args:
            return self._asdict(call.args[0].value, depth)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "copy" and not call.args:
            return self.trace(call.func.value, depth + 1)
        definition = local_definition(self.parsed, call.func)
        if isinstance(definition, cst.FunctionDef):
            returns = [r.value for r in returns_of(definition) if r.value is not None]
            if returns:
                traced = self._union(returns, depth)
                return self._bind(traced, definition, call, depth) if traced is not None else None
        return None

    def _bind(self, traced: TracedDict, builder: cst.FunctionDef, call: cst.Call, depth: int) -> TracedDict:
        """Put ``call``'s arguments where the builder's result uses its parameters directly.

        ``def make(dim, mode): return {"dim": dim, "mode": mode}`` called as ``make(0, Mode.FAST)``
        has entries ``"dim": 0`` and ``"mode": Mode.FAST`` (reported at the arguments); a parameter
        spread into the result (``{**base}``) contributes the argument's own entries.
        """
        arguments = bind_arguments(builder, call)
        if not arguments:
            return traced
        entries = []
        for entry in traced.entries:
            param = parameter_of(self.parsed, entry.value, builder) if entry.value is not None else None
            entries.append(replace(entry, value=arguments[param]) if param in arguments else entry)
        opaque: list[cst.BaseExpression] = []
        complete = True
        for expr in traced.opaque:
            param = parameter_of(self.parsed, expr, builder)
            inner = self.trace(arguments[param], depth + 1) if param in arguments else None
            if inner is None:
                opaque.append(expr)
                continue
            entries.extend(inner.entries)
            opaque.extend(inner.opaque)
            complete = complete and inner.complete
        # every part the builder could not see is now either resolved or still listed as opaque
        return TracedDict(tuple(entries), complete and not opaque, tuple(opaque))

    def _dict_call(self, call: cst.Call, depth: int) -> TracedDict:
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        for arg in call.args:
            if arg.keyword is not None:
                entries.append(Entry(arg.keyword.value, None, arg.value))
            elif arg.star == "**":
                inner = self.trace(arg.value, depth + 1)
                if inner is None:
                    complete = False
                    opaque.append(arg.value)
                else:
                    entries.extend(inner.entries)
                    complete &= inner.complete
            elif arg.star == "":
                inner = self.trace(arg.value, depth + 1) or self._pairs(arg.value)
                if inner is None:
                    complete = False
                    opaque.append(arg.value)
                else:
                    entries.extend(inner.entries)
                    complete &= inner.complete
            else:
                complete = False
                opaque.append(arg.value)
        return TracedDict(tuple(entries), complete, tuple(opaque))

    @staticmethod
    def _pairs(expr: cst.BaseExpression) -> TracedDict | None:
        """``dict([("a", 1), ("b", 2)])``: a literal sequence of literal pairs."""
        if not isinstance(expr, (cst.List, cst.Tuple)):
            return None
        entries = []
        for element in expr.elements:
            pair = element.value
            if not isinstance(pair, (cst.Tuple, cst.List)) or len(pair.elements) != 2:
                return None
            key, value = pair.elements[0].value, pair.elements[1].value
            entries.append(Entry(string_value(key), key, value))
        return TracedDict(tuple(entries), True)

    def _name(self, name: cst.Name, depth: int) -> TracedDict | None:
        bindings = bindings_of_name(self.parsed, name)
        if not bindings:
            return None
        parts: list[TracedDict | None] = []
        exprs: list[cst.BaseExpression] = []
        for binding in bindings:
            if binding.augmented is not None:
                # `cfg |= {...}` adds the right-hand side; the earlier bindings are referents too
                if isinstance(binding.augmented.operator, cst.BitOrAssign):
                    parts.append(self.trace(binding.augmented.value, depth + 1))
                    exprs.append(binding.augmented.value)
                continue
            if binding.value is None:
                return None
            parts.append(self.trace(binding.value, depth + 1))
            exprs.append(binding.value)
        if not parts or all(p is None for p in parts):
            return None
        merged = self._merge(parts, exprs)
        mutations, removals = self._mutations(name, bindings, depth)
        entries = tuple(
            entry for entry in merged.entries + mutations.entries
            if not any(entry.key == key and starts_before(self.parsed, entry.value or entry.key_node, removal)
                       for key, removal in removals)
        )
        return TracedDict(entries, merged.complete and mutations.complete, merged.opaque + mutations.opaque)

    def _is_unconditional_before(self, statement: cst.CSTNode, use: cst.CSTNode) -> bool:
        """True when ``statement`` runs on every path to ``use``: its block also encloses ``use``."""
        block = enclosing(self.parsed, statement, (cst.IndentedBlock, cst.Module))
        ancestor = self.parsed.parents.get(use)
        while ancestor is not None and ancestor is not block:
            ancestor = self.parsed.parents.get(ancestor)
        return ancestor is block

    def _mutations(
        self, use: cst.Name, bindings: list[Binding], depth: int
    ) -> tuple[TracedDict, list[tuple[str, cst.CSTNode]]]:
        """Mutations of the binding before ``use``.

        Returns:
            the entries added by ``cfg[k] = v``, ``cfg.update(...)``, ``cfg.setdefault(k, v)``, and
            the ``(key, node)`` of each literal-key removal (``del cfg[k]``, ``cfg.pop(k)``) that runs
            on every path to ``use``: entries for that key set before the removal are gone.
        """
        parsed = self.parsed
        removals: list[tuple[str, cst.CSTNode]] = []
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        assignments = {id(b.assignment) for b in bindings}
        seen_scopes = {id(b.assignment.scope): b.assignment.scope for b in bindings}
        for scope in seen_scopes.values():
            for access in scope.accesses:
                node = access.node
                if node is use or not isinstance(node, cst.Name) or node.value != use.value:
                    continue
                if not any(id(r) in assignments for r in access.referents):
                    continue
                if not starts_before(parsed, node, use):
                    continue
                parent = parsed.parents.get(node)
                if isinstance(parent, cst.Subscript) and parent.value is node:
                    removed = self._replaced_key(parent)
                    if removed is not None and self._is_unconditional_before(parent, use):
                        removals.append((removed, parent))
                    target = parsed.parents.get(parent)
                    statement = parsed.parents.get(target) if isinstance(target, cst.AssignTarget) else None
                    if isinstance(statement, cst.Assign) and len(parent.slice) == 1:
                        index = parent.slice[0].slice
                        if isinstance(index, cst.Index):
                            entries.append(Entry(string_value(index.value), index.value, statement.value))
                elif isinstance(parent, cst.Attribute) and parent.value is node:
                    call = parsed.parents.get(parent)
                    if not isinstance(call, cst.Call) or call.func is not parent:
                        continue
                    method = parent.attr.value
                    if method == "update":
                        inner = self._dict_call(call, depth + 1)
                        entries.extend(inner.entries)
                        complete &= inner.complete
                        opaque.extend(inner.opaque)
                    elif method == "setdefault" and len(call.args) == 2:
                        key, value = call.args[0].value, call.args[1].value
                        entries.append(Entry(string_value(key), key, value))
                    elif method == "pop" and call.args and string_value(call.args[0].value) is not None:
                        if self._is_unconditional_before(call, use):
                            removals.append((string_value(call.args[0].value), call))
        return TracedDict(tuple(entries), complete, tuple(opaque)), removals

    def _replaced_key(self, subscript: cst.Subscript) -> str | None:
        """The literal key whose earlier value ``del cfg["k"]`` or ``cfg["k"] = v`` discards, else ``None``."""
        parent = self.parsed.parents.get(subscript)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            parent = self.parsed.parents.get(parent)
        if not isinstance(parent, (cst.Del, cst.AssignTarget)) or len(subscript.slice) != 1:
            return None
        index = subscript.slice[0].slice
        return string_value(index.value) if isinstance(index, cst.Index) else None

    def _asdict(self, expr: cst.BaseExpression, depth: int) -> TracedDict | None:
        """``dataclasses.asdict(x)`` for ``x`` an instance of a dataclass defined in this module."""
        call = expr
        if isinstance(expr, cst.Name):
            bindings = bindings_of_name(self.parsed, expr)
            if not bindings or len(bindings) != 1 or not isinstance(bindings[0].value, cst.Call):
                return None
            call = bindings[0].value
        if not isinstance(call, cst.Call):
            return None
        cls = local_definition(self.parsed, call.func)
        if not isinstance(cls, cst.ClassDef) or not is_dataclass(self.parsed, cls):
            return None
        fields = dataclass_fields(self.parsed, cls)
        positional = [a for a in call.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        entries = []
        for index, (name, annotation, default) in enumerate(fields):
            if index < len(positional):
                value = positional[index].value
            else:
                value = keywords.get(name, default)
            entries.append(Entry(name, None, value, annotation))
        return TracedDict(tuple(entries), True)


def returns_of(function: cst.FunctionDef) -> list[cst.Return]:
    """Return every ``return`` statement of ``function``, not those of nested functions or classes."""
    found: list[cst.Return] = []

    class _Returns(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            found.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    function.body.visit(_Returns())
    return found


def is_dataclass(parsed: ParsedModule, cls: cst.ClassDef) -> bool:
    """True when ``cls`` is decorated with ``dataclasses.dataclass`` (called or not)."""
    for decorator in cls.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        if qualified_names(parsed, target) & _DATACLASS_DECORATORS:
            return True
    return False


def dataclass_fields(parsed: ParsedModule, cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression, cst.BaseExpression | None]]:
    """Return ``(name, annotation, default)`` for each field of a dataclass body, in order.

    ``ClassVar``/``InitVar``/``KW_ONLY`` annotations are not fields (``asdict`` skips them). The
    default of ``field(default=v)`` is ``v``; ``field(default_factory=f)`` leaves only the annotation.
    """
    fields = []
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            annotation = small.annotation.annotation
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if qualified_names(parsed, head) & _NOT_FIELDS:
                continue
            default = small.value
            if isinstance(default, cst.Call) and qualified_names(parsed, default.func) & _FIELD:
                default = next((a.value for a in default.args if a.keyword and a.keyword.value == "default"), None)
            fields.append((small.target.value, annotation, default))
    return fields
