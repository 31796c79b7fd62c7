"""What the dict tracer finds for a config expression: its entries and what stayed opaque."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from asynccfg_lint.analysis.parse import ParsedModule


@dataclass(frozen=True)
class Entry:
    """One key/value pair that may be in a traced dict.

    Attributes:
        key: the key when it is a string literal, else ``None``.
        key_node: the key expression (``None`` for keyword arguments and dataclass fields).
        value: the value expression, or ``None`` when only ``annotation`` is known.
        annotation: a type annotation that stands for the value (dataclass field without value).
        home: the module ``key_node``/``value``/``annotation`` belong to when it is not the traced
            one (a builder or constant of another module); ``None`` for the traced module.
        via: for an entry of another module, the expression of the traced module it arrived
            through (the builder call, the imported name): where its diagnostics are reported.
        spreads: the names of dicts of this module the entry was spread or copied from on its way into
            the traced dict (``**base``, ``dict(base)``), innermost first.
        tuple_key: the key is written ``d[a, b]``: the tuple of the subscript's elements, for which no
            expression node exists; ``key_node`` is its first element (where Python's ``ast`` places the tuple).
        zipped: the entry stands for every pair of ``dict(zip(keys, values))``: ``key_node`` and ``value``
            are the two iterables; each key is an element of the first, its value the matching element of the second.
        key_elements: the entry stands for a key per element of the iterable ``key_node``, each with ``value``
            (``dict.fromkeys(Mode, 0)``; ``collections.Counter(members)``, whose counts have no node).
        recursion: the entry is a field of a record that ``dataclasses.asdict``, ``dataclasses.astuple`` or
            ``attrs.asdict`` converts (:data:`~asynccfg_lint.analysis.records.RECURSIONS`): what the value is
            after that function's recursion (a nested record of its kind becomes its fields); ``None``: as written.
        serialized: the entry reaches the use only through a plain ``json.dumps`` of its dict that returned
            (``try: json.dumps(cfg) except TypeError: cfg = ...``): its key and value are JSON-serializable
            (no ACC101/ACC102/ACC201); a NaN still is (``allow_nan`` is on), and so are XLA's readings of it.
        normalised: the classes whose instances a loop before the use replaced in the entry's dict
            (``for k, v in cfg.items(): if isinstance(v, enum.Enum): cfg[k] = v.value``): a value of the entry
            that is one never reaches the use (the replacement is an entry of its own).
        builder: for an entry a builder function returned that reads one of its parameters (``"transport":
            opts.transport`` of ``def build(opts)``): the builder's module, the builder, and the call of the
            traced module that passed the parameter (``build(options, perm)``), so a rule's keyword read so
            is one the rule reads (:func:`asynccfg_lint.analysis.programs.builder_read`); else ``None``.
    """

    key: str | None
    key_node: cst.BaseExpression | None
    value: cst.BaseExpression | None
    annotation: cst.BaseExpression | None = None
    home: ParsedModule | None = field(default=None, compare=False)
    via: cst.BaseExpression | None = field(default=None, compare=False)
    tuple_key: bool = False
    zipped: bool = False
    key_elements: bool = False
    spreads: tuple[cst.BaseExpression, ...] = field(default=(), compare=False)
    recursion: str | None = None
    serialized: bool = field(default=False, compare=False)
    normalised: tuple[cst.BaseExpression, ...] = field(default=(), compare=False)
    builder: tuple[ParsedModule, cst.FunctionDef, cst.Call] | None = field(default=None, compare=False)

    @property
    def anchor(self) -> cst.CSTNode | None:
        """The node of the traced module that stands for this entry's position."""
        return self.via if self.home is not None else self.value or self.key_node


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


def with_recursion(traced: TracedDict | None, recursion: str | None) -> TracedDict | None:
    """``traced`` (a record's fields) with every entry converted by ``recursion`` (``Entry.recursion``)."""
    if traced is None:
        return None
    return TracedDict(tuple(replace(e, recursion=recursion) for e in traced.entries), traced.complete, traced.opaque)
