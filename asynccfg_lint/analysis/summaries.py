"""Function summaries: wrappers whose parameters reach a sink become sinks themselves (derived sinks).

``def send(ctx, x, cfg): return emit("t", ctx, x, {**cfg, "k": 1})`` makes ``send``'s ``cfg`` a
config sink, and ``def gather(ctx, x, tiled): emit("t", ctx, x, {"tiled": tiled})`` makes
``gather``'s ``tiled`` a value sink under key ``"tiled"``; ``def send(ctx, x, **cfg): return
emit("t", ctx, x, cfg)`` makes the keyword arguments of ``send(ctx, x, mode=...)`` config entries. Calls to them are then checked at the
call site, where the value is visible. Summaries are computed to a fixed point, so a wrapper of
a wrapper is a sink too; recursion cannot loop, because each round only adds specs that were
not there before and there are finitely many parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

import libcst as cst

from asynccfg_lint.analysis.callees import CallGraph
from asynccfg_lint.analysis.entries import Entry
from asynccfg_lint.analysis.jax_facts import SinkKind, SinkSpec
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule
from asynccfg_lint.analysis.prefilter import word_starts
from asynccfg_lint.analysis.programs import annotated_field_reads, bind_sinks, read_sinks
from asynccfg_lint.analysis.resolution import bindings_of_name, enclosing, local_definition, qualified_names, reaching
from asynccfg_lint.analysis.functions import (
    bind_arguments,
    implicit_parameters,
    keyword_read,
    narrowed_branch,
    narrowed_parameter,
    narrows_returned,
    parameter_of,
    rewrites_kwargs_values,
    summarised_name,
)
from asynccfg_lint.analysis.sinks import SinkCall, alias_sinks, find_sink_calls, reexported_sinks, traced_config
from asynccfg_lint.analysis.tracer import DictTracer, TracerPeers

#: rounds of the fixed point at most (a chain of wrappers this deep is already unusual)
MAX_ROUNDS = 8
#: per module: where each derived sink's parameter reaches the config, and its summary for each set of sinks given
_SINK_USES: ModuleMemo[dict[tuple[str, str], cst.CSTNode]] = ModuleMemo(dict)
#: (the other modules it read, by dotted name: it holds while the project gives the same parses)
_SUMMARIES: ModuleMemo[dict[frozenset[SinkSpec], tuple[frozenset[SinkSpec], dict[str, ParsedModule | None] | None]]] = \
    ModuleMemo(dict)


class SummaryPeers(TracerPeers, Protocol):
    """The project as a summary sees it (``Workspace.for_summary``): builders imported from other modules
    are followed there, so ``cfg = base(dim)`` with ``base`` from ``.cfgs`` shows where ``dim`` goes."""

    def module(self, name: str) -> ParsedModule | None:
        """The project module of dotted name ``name``, else ``None``."""
        ...

    def consulted(self) -> dict[str, ParsedModule | None]:
        """The other modules looked up so far, by dotted name."""
        ...

    def unchanged(self, read: dict[str, ParsedModule | None]) -> bool:
        """Whether the project still gives the parses ``read`` for their modules."""
        ...


def sink_uses(parsed: ParsedModule) -> dict[tuple[str, str], cst.CSTNode]:
    """``(derived sink's qualified name, parameter)`` -> the expression of ``parsed`` where that
    parameter reaches the config, for the derived sinks summarised so far (empty before)."""
    return _SINK_USES.known(parsed) or {}


def _positional_index(function: cst.FunctionDef, param: str) -> int | None:
    """0-based position of ``param`` among the positional arguments a call passes ``function`` (a
    ``@classmethod``'s ``cls`` is not passed), else ``None``."""
    positional = [*function.params.posonly_params, *function.params.params][implicit_parameters(function):]
    for index, candidate in enumerate(positional):
        if candidate.name.value == param:
            return index
    return None


def _spec(parsed: ParsedModule, function: cst.FunctionDef, param: str, kind: SinkKind, key: str | None,
          via: SinkSpec | None = None, narrowed: bool = False) -> set[SinkSpec]:
    """The derived sink for ``function``'s ``param`` (none for a ``**kwargs`` dict that lands under one key).

    ``param`` may also be a keyword the function reads from its ``**params`` (``params["k"]``:
    :func:`~asynccfg_lint.analysis.functions.keyword_read`), passed by keyword only. ``via``: the sink
    the function passes the parameter to; a ``bind`` keyword there stays one (:attr:`SinkSpec.bind_keyword`),
    and names the rule's use (:attr:`SinkSpec.forwarded`). A ``**kwargs`` passed on to a
    hashability-only sink (``SinkKind.PARAMETERS``) is one for every keyword (``param`` ``"**"``).
    ``narrowed``: :attr:`SinkSpec.narrowed` (also when ``via`` is).
    """
    qualname = summarised_name(parsed, function)
    if qualname is None:
        return set()
    params = function.params
    named: frozenset[str] = frozenset()
    if isinstance(params.star_kwarg, cst.Param) and params.star_kwarg.name.value == param:
        if kind is SinkKind.VALUE:
            return set()
        if kind is SinkKind.PARAMETERS:
            param = "**"
        else:
            kind = SinkKind.KEYWORDS  # the call's extra keywords are the config's entries
        named = frozenset(p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params])
    spec = SinkSpec(frozenset({qualname}), param=param, position=_positional_index(function, param), kind=kind,
                    key=key, wrapper_module=parsed.name.name, named=named,
                    bind_keyword=via is not None and via.bind_keyword,
                    narrowed=narrowed or via is not None and via.narrowed)
    if via is not None and via.used_at is not None and kind is not SinkKind.PARAMETERS:
        spec = replace(spec, used_at=via.used_at, used_param=via.used_param or via.param, forwarded=True)
    return {spec}


def _forwarded_keyword(function: cst.FunctionDef, call: cst.Call, keyword: str) -> str | None:
    """``keyword`` when ``call`` passes ``function``'s ``**kwargs`` on (``p.bind(x, **params)`` in ``def
    start(x, **params)``) and ``function`` has no parameter of that name: ``start(x, keyword=v)``
    then reaches the sink as ``keyword``. Else ``None``."""
    params = function.params
    if not isinstance(params.star_kwarg, cst.Param):
        return None
    named = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    star = params.star_kwarg.name.value
    forwarded = any(arg.star == "**" and isinstance(arg.value, cst.Name) and arg.value.value == star
                    for arg in call.args)
    # a caller's keyword that the function may convert first (`kw = {k: getattr(v, "value", v) ...}`) is
    # not followed: it may lower whatever was passed (what the function writes is checked where it is written)
    return keyword if forwarded and keyword not in named and not rewrites_kwargs_values(function, star) else None


def _passed_on(parsed: ParsedModule, function: cst.FunctionDef, call: SinkCall) -> list[str]:
    """The parameters of ``function`` whose values ``call`` of a hashability-only sink
    (``SinkKind.PARAMETERS``) makes ``bind`` keywords: its ``**kwargs`` spread on (``bind(x, **kwargs)``),
    a named parameter passed as a keyword (``bind(x, groups=groups)``), and for a wrapper's named
    hashability sink the parameter passed for it (``_start(prim, x, sections)``). A named parameter
    counts also where the function replaces a ``None`` first (``functions.parameter_of(unless_none=True)``).

    In JAX's own modules only a ``**kwargs`` counts: their public functions pass named parameters to their
    ``bind`` (``all_gather(x, ..., tiled=False)``), and their every caller in JAX would be analysed (measured:
    +0.6-0.9 s user, a third more, on the installed jax tree); a user's package sees no JAX function as a wrapper
    anyway (it is not in the project)."""
    star = function.params.star_kwarg
    spec = call.spec
    spread = [star.name.value] if isinstance(star, cst.Param) and spec.param == "**" and any(
        arg.star == "**" and isinstance(arg.value, cst.Name) and arg.value.value == star.name.value
        for arg in call.call.args) else []
    if parsed.name.name == "jax" or parsed.name.name.startswith("jax."):
        return spread
    if spec.param != "**":
        param = parameter_of(parsed, call.argument, function, unless_none=True)
        return [param] if param is not None and not (isinstance(star, cst.Param) and param == star.name.value) else []
    passed = list(spread)
    for arg in call.call.args:
        if arg.keyword is not None and arg.keyword.value not in spec.named:
            param = parameter_of(parsed, arg.value, function, unless_none=True)
            if param is not None and not (isinstance(star, cst.Param) and param == star.name.value):
                passed.append(param)
            elif param is None and isinstance(star, cst.Param) and _packs(parsed, arg.value, function) == star.name.value:
                passed.append(star.name.value)  # options=tuple(sorted(options.items())): each value is hashed
    return passed


#: calls that keep the pairs of ``d.items()`` as elements of what they make (a tuple hashes its elements)
_PAIR_KEEPERS = frozenset({"builtins.tuple", "builtins.sorted", "builtins.frozenset", "builtins.list"})


def _packs(parsed: ParsedModule, expr: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """The parameter ``d`` of ``function`` when ``expr`` is a tuple or frozenset of its pairs
    (``tuple(sorted(d.items()))``, ``frozenset(d.items())``): hashing it hashes each of ``d``'s values."""
    outer = True
    while isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword \
            and qualified_names(parsed, expr.func) & _PAIR_KEEPERS:
        if outer and not qualified_names(parsed, expr.func) & {"builtins.tuple", "builtins.frozenset"}:
            return None  # (a list of pairs is unhashable itself: checked where it is passed)
        expr, outer = expr.args[0].value, False
    if outer or not (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
                     and expr.func.attr.value == "items"):
        return None
    return parameter_of(parsed, expr.func.value, function)


def _rule_sinks(parsed: ParsedModule, reaching: Iterable[str], graph: CallGraph | None) -> set[SinkSpec]:
    """A :attr:`SinkKind.RULE` sink for each function of ``parsed`` that calls a sink (``reaching``, those without
    a sink of their own): a registration in another module makes its primitive's ``bind`` keywords hashability
    sinks. A ``__call__`` is named also by its class and the project's subclasses of it
    (``register_lowering(p, SkipRule())``)."""
    found: set[SinkSpec] = set()
    for name in reaching:
        names = {name}
        owner, _, method = name.rpartition(".")
        if method == "__call__" and graph is not None:
            cls = _top_level_class(parsed, owner.rpartition(".")[2]) if owner.rpartition(".")[0] == parsed.name.name \
                else None
            for sub in graph.subclasses(parsed, cls) if cls is not None else ():
                if _top_level_class(sub.home, sub.node.name.value) is sub.node:
                    names.add(f"{sub.home.name.name}.{sub.node.name.value}")
        found.add(SinkSpec(frozenset(names), param="**", position=None, kind=SinkKind.RULE,
                           wrapper_module=parsed.name.name))
    return found


def _top_level_class(parsed: ParsedModule, name: str) -> cst.ClassDef | None:
    return next((s for s in parsed.module.body if isinstance(s, cst.ClassDef) and s.name.value == name), None)


def module_level_function(parsed: ParsedModule, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The summarised ``def`` containing ``node`` (a top-level ``def``, or a static or class method
    of a top-level class: :func:`~asynccfg_lint.analysis.functions.summarised_name`), also through
    functions nested in it; ``None`` in an instance method.

    A function nested in a summarised one reads the outer function's parameters as closure
    variables (``def bind(leaf): return p.bind(leaf, tiled=tiled)`` in ``def start(x, *, tiled=False)``,
    as ``jax/_src/lax/parallel.py`` writes its public functions), so a sink reached there makes
    the outer function a wrapper.
    """
    function = enclosing(parsed, node, (cst.FunctionDef,))
    while isinstance(function, cst.FunctionDef) and summarised_name(parsed, function) is None:
        function = enclosing(parsed, function, (cst.FunctionDef, cst.ClassDef))
    if not isinstance(function, cst.FunctionDef):
        return None
    return function


def derive_sinks(parsed: ParsedModule, sinks: Iterable[SinkSpec], peers: SummaryPeers | None = None) -> set[SinkSpec]:
    """Return the derived sinks defined in ``parsed``: one round, given the sinks known so far.

    ``peers`` gives the project's other modules (``None``: ``parsed`` alone), whose builders the
    tracer follows with ``parsed``'s arguments bound.

    Besides wrappers these are the top-level names bound to a sink or a partial of one
    (:func:`asynccfg_lint.analysis.sinks.alias_sinks`) and the sinks of ``prim.bind(...)`` for the lowering rules registered
    here (:func:`asynccfg_lint.analysis.programs.bind_sinks`). Where each derived sink's parameter reaches
    the config is kept in :func:`sink_uses`.
    """
    sinks = set(sinks)
    derived: set[SinkSpec] = set()
    uses = _SINK_USES.of(parsed)
    tracer = peers.tracer(parsed) if peers is not None else DictTracer(parsed)

    def add(function: cst.FunctionDef, param: str | None, kind: SinkKind, key: str | None, use: cst.CSTNode,
            via: SinkSpec | None = None, narrowed: bool = False, removed: frozenset[str] = frozenset()) -> None:
        if param is None:
            return
        specs = _spec(parsed, function, param, kind, key, via, narrowed)
        if removed and kind is SinkKind.CONFIG:
            specs = {replace(spec, removed=removed) if spec.kind is SinkKind.CONFIG else spec for spec in specs}
        for spec in specs:
            uses.setdefault((min(spec.qualnames), param), use)
        derived.update(specs)

    graph = peers.call_graph if peers is not None else None

    def read(function: cst.FunctionDef, expr: cst.BaseExpression, key: str | None, entry: Entry | None = None,
             config: cst.BaseExpression | None = None) -> None:
        # (a read in another module's builder is used where the rule calls the builder; one in a method of
        # an object the rule makes, where the rule passes the config)
        use = entry.builder[2] if entry is not None and entry.home is not None and entry.builder is not None \
            else config if entry is not None and entry.home is not None and config is not None else expr
        if use not in parsed.parents and config is not None:  # (a read in a callee of another module's)
            use = config
        for spec in read_sinks(parsed, function, expr, key, entry, graph):  # knobs.level of a rule's keyword
            uses.setdefault((spec.used_at, spec.used_param) if spec.used_at is not None
                            else (min(spec.qualnames), spec.param), use)
            derived.add(spec)

    reaching: set[str] = set()  # the functions that call a sink (a registered one makes its bind's keywords parameters)
    for call in find_sink_calls(parsed, sinks):
        function = module_level_function(parsed, call.call)
        if function is not None and call.spec.kind is SinkKind.PARAMETERS:  # keywords a bind hashes, passed on
            for param in _passed_on(parsed, function, call):  # (no config use: not in sink_uses)
                # (a keyword the called wrapper names itself is not passed on: `_launch(x, **kw)` of
                # `def _launch(x, *, sections=None, **knobs)` converts `sections` first)
                derived.update(replace(spec, named=spec.named | call.spec.named) if spec.param == "**" else spec
                               for spec in _spec(parsed, function, param, SinkKind.PARAMETERS, None))
            continue
        if function is None:
            continue
        if call.spec.read is not None:  # a bind the rule reads: checked at the bind, or at a wrapper's calls
            # `def link(x, opts): p.bind(x, link=opts)`, also after `if opts is None: opts = default()`
            param = parameter_of(parsed, call.argument, function, unless_none=True)
            if param is None and call.argument is call.call:  # `def shift(x, **kw): return start(x, **kw)`
                param = _forwarded_keyword(function, call.call, call.spec.param)
            for spec in _spec(parsed, function, param, call.spec.kind, call.spec.key, call.spec) if param else ():
                derived.add(replace(spec, read=call.spec.read))
            continue
        name = summarised_name(parsed, function)
        if name is not None:
            reaching.add(name)
        if call.spec.kind is SinkKind.VALUE:
            param = parameter_of(parsed, call.argument, function)
            if param is None and call.argument is call.call:  # `prim.bind(x, **params)`, `start(x, **params)` in `def f(x, **params)`
                param = _forwarded_keyword(function, call.call, call.spec.param)
            if param is None:  # `wrapper(ctx, x, params["k"])`
                param = keyword_read(parsed, call.argument, function)
            add(function, param, SinkKind.VALUE, call.spec.key, call.argument, call.spec)
            continue
        param = parameter_of(parsed, call.argument, function)
        traced = traced_config(tracer, call)
        if param is not None and traced is None:
            add(function, param, SinkKind.CONFIG, None, call.argument, call.spec,
                removed=_removed_keys(tracer, call.argument, function))
            continue
        if traced is None:
            read(function, call.argument, None)  # dataclasses.asdict(opts)
            for value in _bound_value(parsed, call.argument):  # cfg = dataclasses.asdict(opts); emit(..., cfg)
                read(function, value, None)
            continue
        for opaque in traced.opaque:
            add(function, parameter_of(parsed, opaque, function), SinkKind.CONFIG, None, opaque, call.spec,
                removed=_removed_keys(tracer, call.argument, function, opaque))
            read(function, opaque, None)  # cfg.update(knobs._asdict())
        for read_call in annotated_field_reads(parsed, function):
            read(function, read_call, None)  # {**dataclasses.asdict(opts)} of `opts: Options`: its binds decide
        for entry in traced.entries:
            if entry.serialized or entry.normalised:  # json.dumps(cfg) returned first, or a loop replaced its enum
                continue  # members: checked in place, where the bind's values are filtered so
            param = parameter_of(parsed, entry.value, function) if entry.value is not None else None
            if param is None and entry.value is not None:  # {"k": params["k"]}, {"k": params.get("k", 1)}
                param = keyword_read(parsed, entry.value, function)
            narrowed = param is None and entry.value is not None and entry.home is None
            use = entry.value
            if narrowed:  # `if isinstance(mode, enum.IntEnum): mode = int(mode)` before {"mode": mode}
                param = narrowed_parameter(parsed, entry.value, function) \
                    or narrowing_call_parameter(parsed, entry.value, function, peers)  # {"mode": to_json(mode)}
                branch = narrowed_branch(parsed, entry.value, function) if param is None else None
                if branch is not None:  # {"mode": mode.value if isinstance(mode, enum.IntEnum) else mode}
                    param, use = branch  # (the branch passing it on is the use the binds' values are narrowed at)
            if entry.key is not None:
                add(function, param, SinkKind.VALUE, entry.key, use, call.spec, narrowed)
            if param is None and entry.value is not None:  # {"level": knobs.level}, also in a builder or a method
                read(function, entry.value, entry.key, entry, call.argument)
    # (a function with sinks of its own is seen by registrations through them, unless they name a class instance)
    named = {name for spec in derived for name in spec.qualnames if not name.endswith(".__call__")}
    derived |= _rule_sinks(parsed, reaching - named, graph)  # what another module's registration of them needs
    derived |= alias_sinks(parsed, sinks)  # `emit = functools.partial(<sink>, "t")`, imported by other modules
    derived |= reexported_sinks(parsed, sinks)  # `from .api import ring_shift` in `pkg/__init__.py`
    return derived | bind_sinks(parsed, sinks | derived, reaching, uses, peers)


def _removed_keys(tracer: DictTracer, argument: cst.BaseExpression, function: cst.FunctionDef,
                  after: cst.CSTNode | None = None) -> frozenset[str]:
    """The literal keys a wrapper takes out of its config ``argument`` (a name) on every path before the sink
    (:meth:`~asynccfg_lint.analysis.mutations.DictMutations.removals_before`), after ``after`` (where the caller's
    dict enters it: ``cfg = dict(cfg)``)."""
    return tracer.removals_before(argument, after) if isinstance(argument, cst.Name) else frozenset()


def _bound_value(parsed: ParsedModule, expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The value of the one assignment that reaches the name ``expr`` (``cfg`` of ``cfg = dataclasses.asdict(opts)``),
    as a one-item list; ``[]`` for anything else."""
    bindings = bindings_of_name(parsed, expr) if isinstance(expr, cst.Name) else None
    if not bindings or any(b.augmented is not None for b in bindings):
        return []
    bindings = reaching(parsed, expr, bindings)
    return [bindings[0].value] if len(bindings) == 1 and bindings[0].value is not None else []


def narrowing_call_parameter(parsed: ParsedModule, expr: cst.CSTNode, function: cst.FunctionDef,
                             peers: SummaryPeers | None) -> str | None:
    """The parameter of ``function`` that ``expr``, a call of a top-level helper of this module or of another
    project module (through ``peers``), passes as it is to a parameter the helper returns narrowed
    (:func:`~asynccfg_lint.analysis.functions.narrows_returned`: ``def _jsonable(v): if isinstance(v, enum.IntEnum):
    return v.value; return v``). Else ``None``. What reaches the config then depends on the class of what the
    function's callers pass (:attr:`SinkSpec.narrowed`)."""
    if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
        return None
    home, helper = parsed, local_definition(parsed, expr.func)
    if helper is None and peers is not None:
        found = peers.foreign(parsed, expr.func)
        if found and len(found) == 1:
            home, helper = found[0].home, found[0].binding.definition
    if not isinstance(helper, cst.FunctionDef) or helper is function or not isinstance(home.parents.get(helper), cst.Module):
        return None
    passed = {id(a.value) for a in expr.args}
    for name, value in (bind_arguments(helper, expr) or {}).items():
        param = parameter_of(parsed, value, function) if id(value) in passed else None
        if param is not None and narrows_returned(home, helper, name):
            return param
    return None


def summarise_module(parsed: ParsedModule, sinks: Iterable[SinkSpec], peers: SummaryPeers | None = None) -> set[SinkSpec]:
    """``sinks`` plus the derived sinks of ``parsed``, to the module's own fixed point.

    A wrapper of a wrapper in the same module, or a recursive one, is found here; only sinks
    added by other modules can change this module's summary later. ``peers`` (``Workspace.for_summary``)
    lets the tracer follow builders imported from other project modules; ``None`` stays in ``parsed``.
    The result is kept on ``parsed`` for the sinks given and for itself (a fixed point summarises to
    itself), so the check after a project's summary does not derive it again; it is used again only
    while ``peers`` gives the same parses of the other modules it read (one edited since is parsed anew).
    """
    memo = _SUMMARIES.of(parsed)
    given = frozenset(sinks)
    if given in memo and not _still_valid(memo[given][1], peers):
        del memo[given]
    if given not in memo:
        known: set[SinkSpec] = set(given)
        converged = False
        for _ in range(MAX_ROUNDS):
            new = derive_sinks(parsed, known, peers) - known
            known |= new
            if not new or not _named_again(parsed.text, new) and not (  # (a skeleton's left-out bodies too)
                    parsed.units_naming({n for spec in new for n in spec.short_names})):
                converged = True
                break
        read = peers.consulted() if peers is not None else None
        memo[given] = (frozenset(known), read)
        if converged:
            memo[memo[given][0]] = memo[given]
    return set(memo[given][0])


def _named_again(text: str, sinks: set[SinkSpec]) -> bool:
    """Whether a name of ``sinks`` (sinks derived in the module of ``text``) occurs in ``text`` more than once as a word.

    Another round can derive more only from a call that reaches one of them, and every such call, alias
    or reference names it (a call resolves to a sink through the names it is written with); a name that
    occurs once is its own definition (``def lower(...)``, ``p = Primitive(...)``), so the summary is a fixed
    point. On the benchmark's dense tree this spares the second round of almost every module.
    """
    for name in {name for spec in sinks for name in spec.short_names}:
        occurrences = word_starts(text, name)
        if next(occurrences, None) is None or next(occurrences, None) is not None:
            return True  # (not found at all: a name not written as such, e.g. a table's; let the round decide)
    return False


def _still_valid(read: dict[str, ParsedModule | None] | None, peers: SummaryPeers | None) -> bool:
    """Whether a summary that read the modules ``read`` (``None``: made without peers) holds for
    ``peers``: made the same way, and each module it read is the same parse."""
    if read is None or peers is None:
        return read is None and peers is None
    return peers.unchanged(read)
