"""The checker: one file's source in, positioned diagnostics out. Every front end calls this."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import libcst as cst
from libcst.metadata import CodePosition

from asynccfg_lint.run.boundary import internal_error
from asynccfg_lint.run.collector import collector_paused
from asynccfg_lint.analysis.classifier import ConfigPath, Finding, ValueClassifier, hashable_fix, hashable_message
from asynccfg_lint.analysis.infer.values import UNKNOWN, Origin
from asynccfg_lint.diagnostics import UNSAFE, Diagnostic
from asynccfg_lint.fixing.argument_fixes import ArgumentFixes
from asynccfg_lint.fixing.fixes import build_fix, fix_site
from asynccfg_lint.analysis.elision import kept_calls, read_body
from asynccfg_lint.analysis.jax_facts import (
    BUILTIN_SINKS,
    DATACLASS_FIELDS,
    NAMED_TUPLE_FIELDS,
    PAIRS_DICT,
    PAIRS_KEYS,
    SinkKind,
    SinkSpec,
    primitive_words,
    read_method,
)
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule, module_name_for, parse_source
from asynccfg_lint.analysis.parse_failure import ParseFailure
from asynccfg_lint.analysis.params_rules import bind_calls, uncalled
from asynccfg_lint.analysis.prefilter import may_call_any
from asynccfg_lint.analysis.programs import (bind_visible, lambda_parameter, project_function, read_receiver,
                                             registrations, rule_registrations)
from asynccfg_lint.analysis.resolution import (
    bindings_of_name,
    enclosing,
    inside,
    local_definition,
    location,
    qualified_names,
)
from asynccfg_lint.analysis.functions import (
    defining_module,
    function_definition,
    keyword_read,
    narrowed_parameter,
    parameter_of,
    summarised_name,
)
from asynccfg_lint.rules import acc001, acc201
from asynccfg_lint.rules import rule as wording
from asynccfg_lint.run.selection import Selection
from asynccfg_lint.analysis.sinks import SinkCall, find_sink_calls, traced_config
from asynccfg_lint.analysis.summaries import module_level_function, sink_uses, summarise_module
from asynccfg_lint.run.suppression import NOQA_INLINE_REGEXP, is_suppressed, noqa_lines
from asynccfg_lint.analysis.tracer import DictTracer
from asynccfg_lint.analysis.entries import Entry, TracedDict
from asynccfg_lint.analysis.workspace import ModuleLoader, Workspace


def analyse(parsed: ParsedModule, sinks: Iterable[SinkSpec], sanitizers: frozenset[str] = frozenset(),
            modules: ModuleLoader | None = None, selection: Selection | None = None,
            calls: dict[int, bool] | None = None) -> list[Finding]:
    """Return the unpositioned findings of every sink call in ``parsed`` (each source once per code).

    ``sanitizers`` are qualified names of functions whose result is JSON-safe: a value built by a
    call to one is not reported, and neither is a config that always comes from one. ``modules``
    finds the project's other modules by dotted name (``Project.module``), to follow builders and
    constants imported from them; a value written in another module is reported at the
    expression of ``parsed`` it arrives through (``Finding.written_at`` says where it is written).
    A value passed to a primitive's ``bind`` is reported at the argument, its message naming where
    the registered rule uses it (``Finding.used_at``); with ``selection``, such findings of codes
    not selected are left out (naming the place costs the positions of the rule's module). A
    registered rule's parameters are ACC201 where it uses them when no ``bind`` of its primitive is
    visible (looked up only when ACC201 is selected, or ``selection`` is ``None``, or ``calls`` is given).
    ``calls``, when given, gets each sink call's node (by ``id``) -> whether a value of it is not followed:
    an ACC201 finding that selecting ACC201 would show (:class:`~asynccfg_lint.diagnostics.Coverage`).
    """
    workspace = Workspace(parsed, modules, sanitizers)
    sinks = summarise_module(parsed, sinks, workspace.for_summary(parsed))  # this module's own wrappers
    # (a parameter only hashed at the calls, SinkKind.PARAMETERS, still reaches its config unchecked)
    checked_at_calls = {(name, spec.param) for spec in sinks for name in spec.qualnames
                        if spec.kind not in (SinkKind.PARAMETERS, SinkKind.RULE)}
    tracer, classifier = workspace.tracer(parsed), workspace.classifier(parsed)
    findings: list[Finding] = []
    seen: set[tuple[int, str, str | None]] = set()
    places: dict[tuple[str, str], Callable[[], str]] = {}
    argument_fixes = ArgumentFixes(parsed, workspace, sinks)
    # a bind's hashability-only sinks last: where a keyword also reaches a config, that finding names its use
    for sink_call in sorted(find_sink_calls(parsed, sinks), key=lambda c: c.spec.kind is SinkKind.PARAMETERS):
        spec = sink_call.spec
        if calls is not None:
            calls.setdefault(id(sink_call.call), False)
        if sanitizers and _sanitized(parsed, classifier, sink_call.argument, sanitizers):
            continue
        if spec.kind is SinkKind.PARAMETERS:  # what becomes a keyword of the bind must be hashable
            found = _hashable_findings(classifier, tracer, sink_call)
        elif spec.read is not None:  # a bind keyword whose attribute or fields the rule of another module reads
            found = [] if _registers(parsed, spec.used_at) else _read_findings(classifier, tracer, sink_call)
        elif spec.used_at is not None:  # prim.bind(x, **params): parameters first, then the rule's config
            found = _bind_findings(classifier, tracer, sink_call,
                                   _narrowed_origins(parsed, workspace, sinks, spec, sink_call.argument))
        else:
            found = _sink_findings(classifier, tracer, sink_call)
            rule = _registered_rule(parsed, sink_call)
            if rule is not None and _has_bound_annotations(classifier, rule):  # binds may contradict annotations
                found = annotation_or_binds(found, _sink_findings(workspace.bind_view(parsed), tracer, sink_call))
            if rule is not None:  # an annotation every bind contradicts does not decide; a bind's value is reported there
                found = [_at_bind(parsed, f, rule, sink_call.argument, argument_fixes) for f in found
                         if not _annotation_contradicted(parsed, workspace, rule, f)
                         and not _default_overridden(parsed, workspace, rule, f)]
        if spec.wrapper_module is not None or spec.used_at is not None:  # a caller's argument: does the function take its fix?
            found = [argument_fixes.at_argument(f, sink_call) for f in found]
        found = [argument_fixes.at_default(f) for f in found]  # a parameter's default: does every use take its fix?
        for finding in found:
            # one diagnostic per value and code: a bind argument two rules use, a dict that holds itself
            # (`cfg = dict(cfg, w=cfg)` in a loop reaches the same value under ever longer paths); values
            # written in other modules arrive through one node here (`base_config(dim)`): one per message
            # (its key and type), whichever of the places that write it comes first
            key = (id(finding.node), finding.code, None if finding.written_at is None
                   else finding.message.removesuffix(wording.written_at("", finding.written_at)))
            if finding.code == "ACC201":
                if _read_at_binds(parsed, classifier, finding.node):
                    continue  # a keyword the rule reads: other modules' binds are checked where they are
                if _is_wrapper_parameter(parsed, finding.node, checked_at_calls) and (
                        calls is None and selection is not None and not selection.is_enabled("ACC201")
                        or not _unbound_rule(parsed, finding.node, workspace) and not _uncalled(parsed, finding.node)):
                    continue  # the wrapper is a derived sink: what its callers pass is checked at the calls
                if calls is not None:
                    calls[id(sink_call.call)] = True
            used_at: Callable[[], str] | None = None
            if spec.used_at is not None and spec.kind is not SinkKind.PARAMETERS:
                if selection is not None and not selection.is_enabled(finding.code):
                    continue  # naming the place costs the rule module's positions: only for what is shown
                place = (spec.used_at, spec.used_param or spec.param)
                if place not in places:
                    places[place] = use_location(parsed, workspace, sinks, spec)
                used_at = places[place]  # named below, once the finding is kept (the checks read its node only)
            if key not in seen:
                seen.add(key)
                findings.append(finding if used_at is None else _used_at(finding, used_at()))
    return findings


def _hashable_findings(classifier: ValueClassifier, tracer: DictTracer, sink_call: SinkCall) -> list[Finding]:
    """The unhashable values among the keywords of a call of a hashability-only sink (``SinkKind.PARAMETERS``):
    a ``bind``, or a wrapper passing its ``**kwargs`` on to one (not its named parameters, ``spec.named``),
    or the argument of a wrapper's named parameter that becomes a ``bind`` keyword."""
    spec = sink_call.spec
    if spec.param != "**":
        if sink_call.argument is sink_call.call:  # `start(x, **params)`: the keyword may be in `params`
            return [f for entry in _given(tracer, sink_call.call, spec.param) for f in classifier.check_hashable(entry)]
        return classifier.check_hashable(Entry(spec.param, None, sink_call.argument))
    entries = tracer.trace_keywords(sink_call.call, spec.named).entries
    return [f for entry in entries for f in classifier.check_hashable(entry)]


def _given(tracer: DictTracer, call: cst.Call, keyword: str) -> list[Entry]:
    """The entries ``call`` passes for ``keyword``, by name or through a ``**params`` it spreads."""
    return [entry for entry in tracer.trace_keywords(call, frozenset()).entries if entry.key == keyword]


def _sink_findings(classifier: ValueClassifier, tracer: DictTracer, sink_call: SinkCall) -> list[Finding]:
    """The findings of a call of a config (or value) sink: its config's entries, or the value.

    A value must also be hashable only when it becomes a ``bind`` keyword (``SinkSpec.bind_keyword``):
    a rule's parameter given by ``functools.partial(rule, groups=[0, 1])`` only reaches the config
    (measured: it lowers, the list a JSON array). A call spreading ``**params`` (``start(x, **params)``)
    passes the keyword of ``params`` that holds it, if any.
    """
    spec = sink_call.spec
    if spec.kind is SinkKind.VALUE and sink_call.argument is sink_call.call:
        return _spread_keyword_findings(classifier, tracer, sink_call.call, spec, spec.bind_keyword)
    if spec.kind is SinkKind.VALUE:
        entry = Entry(spec.key, None, sink_call.argument)
        return classifier.check_value(entry, top_level=True, path=ConfigPath(spec.key), parameter=spec.bind_keyword)
    traced = traced_config(tracer, sink_call)
    if traced is None:
        return [Finding(sink_call.argument, "ACC201", acc201.untraced_config())]
    return classifier.check_entries(traced)


def _registered_rule(parsed: ParsedModule, sink_call: SinkCall) -> cst.FunctionDef | None:
    """The registered lowering rule (a ``def``) ``sink_call`` is in, else ``None``."""
    function = enclosing(parsed, sink_call.call, (cst.FunctionDef,))
    return function if isinstance(function, cst.FunctionDef) and rule_registrations(parsed, function) else None


def _has_bound_annotations(classifier: ValueClassifier, rule: cst.FunctionDef) -> bool:
    """True when an annotated keyword of ``rule`` holds what a ``bind`` of the module passes
    (:meth:`~asynccfg_lint.analysis.infer.parameters.ParameterInference.bound_by_visible_binds`)."""
    params = [*rule.params.posonly_params, *rule.params.params, *rule.params.kwonly_params]
    return any(p.annotation is not None and classifier.bound_by_visible_binds(p) for p in params)


def annotation_or_binds(from_annotations: list[Finding], from_binds: list[Finding]) -> list[Finding]:
    """One verdict per config value and code for a rule whose annotated keywords the module's binds also show.

    ``from_annotations`` takes each annotated keyword as its annotation says, ``from_binds`` as what
    the binds pass (JAX calls the rule with those: the value that arrives decides). Per value (the
    config expression it arrives through) and code: the annotation's findings stand when it proves
    the fault, unless the binds show every value and none has it (every bind contradicts the
    annotation: measured, ``EnumOptions("pull")`` for ``mode: Mode`` lowers); where the annotation
    finds no fault of that code, the binds' findings of it are added (never ACC201: an annotation
    that shows a type is not made unknown by a bind's unknown value). So one fault never gets two
    diagnostics or two fixes.
    """
    def key(finding: Finding) -> tuple[int, str]:
        return id(finding.use if finding.use is not None else finding.node), finding.code

    annotated = {key(f) for f in from_annotations}
    bound = {key(f) for f in from_binds}
    unknown_in_binds = {k[0] for k in bound if k[1] == "ACC201"}
    kept = [f for f in from_annotations if key(f) in bound or key(f)[0] in unknown_in_binds]
    return kept + [f for f in from_binds if f.code != "ACC201" and key(f) not in annotated]


def _annotation_contradicted(parsed: ParsedModule, workspace: Workspace, rule: cst.FunctionDef, finding: Finding) -> bool:
    """True when ``finding`` is what the annotation of a keyword of the registered ``rule`` says
    (``mode: Mode`` put into the config as it is: ``finding.node`` is the keyword's use) and every
    ``bind`` of the rule's primitives in the package passes the keyword with a value of known type
    that the config checks accept: JAX calls the rule with those, so the value that arrives decides
    (measured: ``mode: Mode`` bound only with ``"pull"`` lowers; ``tests/fixtures/programs/extpkg/annotated.py``).

    The binds are this module's and those of every module of the package whose text names the
    primitive (:meth:`Workspace.naming`); a keyword a bind leaves out or may spread (``**params``),
    a value not known or faulty, or no bind at all keeps the annotation's verdict.
    """
    if finding.code == "ACC201" or not isinstance(finding.node, cst.Name) or not inside(parsed, finding.node, rule):
        return False
    name = parameter_of(parsed, finding.node, rule)
    param = next((p for p in rule.params.kwonly_params if p.name.value == name), None)
    if param is None or param.annotation is None or name is None:
        return False
    passed = _passed_by_every_bind(parsed, workspace, rule, name)
    if passed is None:
        return False
    for home, value in passed:
        entry = Entry(name, None, value)
        if workspace.classifier(home).check_value(entry, top_level=True, path=ConfigPath(name), parameter=True):
            return False
    return True


def _passed_by_every_bind(parsed: ParsedModule, workspace: Workspace, rule: cst.FunctionDef,
                          name: str) -> list[tuple[ParsedModule, cst.BaseExpression]] | None:
    """What each ``bind`` of the registered ``rule``'s primitives in the package passes as the keyword
    ``name`` (with the module it is written in), when every one passes it explicitly; ``None`` when a
    bind leaves it out or may spread it (``**params``), when a registration's ``functools.partial``
    binds it, or when no bind is visible.

    The binds are this module's and those of every module of the package whose text names the
    primitive (:meth:`Workspace.naming`)."""
    binds: list[tuple[ParsedModule, cst.Call]] = []
    for registration in rule_registrations(parsed, rule):
        if name in registration.bound:
            return None
        homes = [parsed]
        for qualified in registration.primitive:
            for module in workspace.naming(qualified.rpartition(".")[2]):
                home = workspace.module(module) if module != parsed.name.name else None
                if home is not None and all(home is not h for h in homes):
                    homes.append(home)
        binds += [(home, call) for home in homes for call in bind_calls(home, registration.primitive)]
        if any(_handed_on(home, registration.primitive, workspace) for home in homes):
            return None
    passed: list[tuple[ParsedModule, cst.BaseExpression]] = []
    for home, call in binds:
        values = [a.value for a in call.args if a.keyword is not None and a.keyword.value == name]
        if len(values) != 1 or any(a.star == "**" for a in call.args):
            return None
        passed.append((home, values[0]))
    return passed or None


def _handed_on(parsed: ParsedModule, primitive: frozenset[str], workspace: Workspace) -> bool:
    """True when ``parsed`` passes the primitive (of qualified names ``primitive``) to a function that may bind it
    out of sight: ``start(p, x, depth=2)`` of ``def start(prim, x, **kw): return prim.bind(x, **kw)``, which
    leaves out what the caller leaves out, or a registrar that also binds it (``def _register(prim, rule):
    mlir.register_lowering(prim, rule); return lambda x: prim.bind(x)``). A function of this module or of
    the project (found through ``workspace``: ``register_rule(p, rule)`` imported from the package's
    registry) whose body calls no ``bind``, and JAX's own functions (``mlir.register_lowering(p, rule)``,
    ``ad.deflinear2(p, ...)``) do not count."""
    parsed.require_reaching(primitive_words(primitive))  # (a skeleton's left-out bodies that name it)
    for call in kept_calls(parsed.calls):
        if not any(type(a.value) in (cst.Name, cst.Attribute) and qualified_names(parsed, a.value) & primitive
                   for a in call.args):
            continue
        names = qualified_names(parsed, call.func)
        if names and all(name.startswith("jax.") for name in names):
            continue
        home, definition = parsed, local_definition(parsed, call.func)
        if definition is None:
            home, definition = project_function(parsed, call.func, workspace) or (parsed, None)
        if isinstance(definition, cst.FunctionDef) and read_body(definition) and not any(
                type(c.func) is cst.Attribute and c.func.attr.value == "bind" and inside(home, c, definition)
                for c in kept_calls(home.calls)):
            continue
        return True
    return False


def _default_overridden(parsed: ParsedModule, workspace: Workspace, rule: cst.FunctionDef, finding: Finding) -> bool:
    """True when ``finding`` is in the default of a keyword of the registered ``rule`` that every ``bind``
    of its primitives in the package passes (:func:`_passed_by_every_bind`): JAX calls the rule with
    the bind's keywords, so the default is never used (measured: ``mode=Mode.PULL`` bound only with
    ``mode="pull"`` lowers; ``tests/fixtures/programs/rule_defaults.py``). What the binds pass is
    checked at the binds. With no bind visible, the default is a value like any other. The same holds for
    the default of a read of the rule's ``**params`` (``params.get("mode", Mode.PUSH)``; measured in
    ``tests/fixtures/programs/rule_defaults.py``)."""
    params = [*rule.params.params, *rule.params.kwonly_params]
    param = next((p for p in params if p.default is not None and inside(parsed, finding.node, p.default)), None)
    name = param.name.value if param is not None else _read_default_keyword(parsed, rule, finding.node)
    return name is not None and _passed_by_every_bind(parsed, workspace, rule, name) is not None


def _read_default_keyword(parsed: ParsedModule, rule: cst.FunctionDef, node: cst.CSTNode) -> str | None:
    """``"k"`` when ``node`` is in the default of a ``params.get("k", default)`` (or ``.pop``) read of the
    ``**params`` of ``rule`` (:func:`~asynccfg_lint.analysis.functions.keyword_read`), else ``None``."""
    child, parent = node, parsed.parents.get(node)
    while parent is not None and parent is not rule:
        if isinstance(parent, cst.Call) and len(parent.args) == 2 and child is parent.args[1]:
            return keyword_read(parsed, parent, rule)
        child, parent = parent, parsed.parents.get(parent)
    return None


def _at_bind(parsed: ParsedModule, finding: Finding, rule: cst.FunctionDef, config: cst.CSTNode,
             argument_fixes: ArgumentFixes) -> Finding:
    """``finding`` of ``rule``'s config naming where the rule uses the value when the value is a ``bind``
    argument written outside the rule (as for a bind keyword the rule puts into its config as it is):
    the config expression it arrives through, else the rule's ``config`` argument of the sink. Its fix is
    kept only when the rule uses the keyword's parameter only to put it into configs (``ArgumentFixes.at_bind``)."""
    if finding.used_at is not None or finding.node not in parsed.parents or inside(parsed, finding.node, rule):
        return finding
    calls = [call for r in rule_registrations(parsed, rule) for call in bind_calls(parsed, r.primitive)]
    binds = {id(call) for call in calls}
    node: cst.CSTNode | None = finding.node
    while node is not None and id(node) not in binds:
        node = parsed.parents.get(node)
    if node is None:  # written in a function that binds the primitive (`knobs = Knobs(...)`, then bind(knobs=knobs))
        function = enclosing(parsed, finding.node, (cst.FunctionDef,))
        if function is None or function is rule or not any(inside(parsed, call, function) for call in calls):
            return finding
    use = finding.use if finding.use is not None and inside(parsed, finding.use, rule) else config
    finding = argument_fixes.at_bind(finding, rule, [node] if isinstance(node, cst.Call) else
                                     [call for call in calls if inside(parsed, call, function)])
    return _used_at(finding, location(parsed, use, parsed.path))


def _registers(parsed: ParsedModule, rule: str | None) -> bool:
    """True when ``parsed`` registers the lowering rule of qualified name ``rule`` itself (its binds
    are then followed in the rule: ``ParameterInference._bound_keyword``)."""
    return any(r.function is not None and summarised_name(parsed, r.function) == rule for r in registrations(parsed))


def _read_findings(classifier: ValueClassifier, tracer: DictTracer, sink_call: SinkCall) -> list[Finding]:
    """The faults of a ``bind`` keyword's value whose attribute (``knobs.level``) or fields
    (``knobs._asdict()``, ``dataclasses.asdict(knobs)``) a rule of another module puts into its
    config (``SinkSpec.read``): reported here, at what this module writes.

    Their fixes are unsafe, as for this module's own binds (``fixes._through_parameter``): other
    binds may pass what the rule needs. A value not known here is ACC201 here (the rule's module then
    leaves the keyword to its binds: ``ParameterInference._read_at_binds``).
    """
    spec, value = sink_call.spec, sink_call.argument
    if value is sink_call.call:  # `peal(x, **kwargs)` passing `toll` on: the keyword its call gives, if any
        given = [e for e in _given(tracer, sink_call.call, spec.param) if e.home is None and e.value is not None]
        if len(given) != 1:
            return []
        value = given[0].value
    if spec.read in (NAMED_TUPLE_FIELDS, DATACLASS_FIELDS):
        traced = tracer.fields(value, spec.read == NAMED_TUPLE_FIELDS or None)
        found = classifier.check_entries(traced) if traced is not None else [
            Finding(value, "ACC201", acc201.untraced_config())]
    elif read_method(spec.read) is not None:  # {**opts.to_cfg()}: the dict the method gives for this instance
        traced = tracer.method_dict(value, read_method(spec.read), value)
        if spec.key is not None:  # {"labels": opts.labels()}: under its key; what no dict is, is not followed
            found = classifier.check_entries(traced, ConfigPath(spec.key)) if traced is not None else []
        else:
            found = classifier.check_entries(traced) if traced is not None else [
                Finding(value, "ACC201", acc201.untraced_config())]
    elif spec.read in (PAIRS_DICT, PAIRS_KEYS):  # dict(table) of a bind's pairs display: its keys and values under the rule's key
        traced = tracer._pairs(value)
        if traced is not None and spec.read == PAIRS_KEYS:  # {k: int(v) ...}: the values are the rule's (no value: no check)
            traced = replace(traced, entries=tuple(replace(e, value=None) for e in traced.entries))
        found = classifier.check_entries(traced, ConfigPath(spec.key)) if traced is not None else [
            Finding(value, "ACC201", acc201.untraced_config())]
    else:
        constructed = classifier.constructed(value)  # Knobs(Level.FAST, 2), the class of any module
        origins = classifier.members([constructed], spec.read, value, 0) if constructed is not None \
            else classifier.attribute_of(value, spec.read, value, 0)
        found = classifier.check_value(Entry(spec.key, None, value), top_level=True, path=ConfigPath(spec.key),
                                       origins=origins if origins is not None else [Origin(value, UNKNOWN)])
        # a field written outside the argument (`tags = frozenset(...)`; `CommOptions(tags=tags)`) has no fix here:
        # the argument is the object, not the value (its fix would wrap the object: `tuple(CommOptions(...))`)
        found = [f if inside(classifier.parsed, f.node, value) else replace(f, fix=None) for f in found]
    return [replace(f, fix=replace(f.fix, safety=UNSAFE) if f.fix is not None else None) for f in found]


def _bind_findings(classifier: ValueClassifier, tracer: DictTracer, sink_call: SinkCall,
                   origins: list[Origin] | None = None) -> list[Finding]:
    """The findings of a ``prim.bind(...)`` call whose keywords reach a registered rule's config.

    Every keyword is a jaxpr equation parameter, so it must be hashable before it is a config
    value (``jax._src.core.Primitive.bind``; measured: a list, set, dict or ndarray raises
    TypeError there, a tuple gets through to lowering). ``origins``: what the keyword's value may be
    that reaches the config, when the rule narrows it (:func:`_narrowed_origins`).
    """
    spec = sink_call.spec
    if not (isinstance(sink_call.argument, cst.Call) and sink_call.argument is sink_call.call):
        key = spec.key if spec.kind is SinkKind.VALUE else None  # a whole config as one parameter: unhashable
        return classifier.check_value(Entry(key, None, sink_call.argument), top_level=True, path=ConfigPath(key),
                                      parameter=True, origins=origins)
    return _spread_keyword_findings(classifier, tracer, sink_call.call, spec, True)


def _spread_keyword_findings(classifier: ValueClassifier, tracer: DictTracer, call: cst.Call, spec: SinkSpec,
                             hashed: bool) -> list[Finding]:
    """The findings of the keywords ``call`` passes (also through ``**params``) that reach ``spec``: its
    keyword ``spec.param``, or every keyword for a ``**kwargs`` sink; ``hashed``: they must be hashable too."""
    traced = tracer.trace_keywords(call, spec.named if spec.kind is SinkKind.KEYWORDS else frozenset())
    found: list[Finding] = []
    for entry in traced.entries:
        if spec.kind is not SinkKind.KEYWORDS and entry.key != spec.param:
            continue
        if spec.kind is SinkKind.VALUE:
            entry = replace(entry, key=spec.key)
        if entry.home is None and entry.value is not None:
            found += classifier.check_value(entry, top_level=True, path=ConfigPath(entry.key), parameter=hashed)
        else:
            found += classifier.check_entries(TracedDict((entry,), True))
    return found


def use_location(parsed: ParsedModule, workspace: Workspace, sinks: Iterable[SinkSpec],
                 spec: SinkSpec) -> Callable[[], str]:
    """Where the registered rule ``spec.used_at`` (a qualified name) puts ``spec.param`` into its config,
    else its ``def`` (it hands the keyword to a wrapper): a function giving that ``path:line`` (the rule's
    qualified name when its module is not read or the rule is not found there).

    The rule's module is ``parsed`` or a project module (through ``workspace``); it is summarised
    here if this process has not summarised it yet. The line is computed on the first call (it costs
    a code generation of the module: only for a finding that is reported), then kept.
    """
    found = _rule_use(parsed, workspace, sinks, spec)
    if found is None:
        return lambda: spec.used_at
    home, use = found
    return functools.cache(lambda: location(home, use, parsed.path))


def _rule_use(parsed: ParsedModule, workspace: Workspace, sinks: Iterable[SinkSpec],
              spec: SinkSpec) -> tuple[ParsedModule, cst.CSTNode] | None:
    """The module of the registered rule ``spec.used_at`` and where it puts ``spec.param`` into its config
    (else its ``def``); ``None`` when the module is not read or the rule not found (:func:`use_location`)."""
    home = defining_module(parsed, workspace, spec.used_at) if spec.used_at is not None else None
    if home is None:
        return None
    uses = sink_uses(home)
    param = spec.used_param or spec.param
    if (spec.used_at, param) not in uses:  # (a task's sinks are those its file may call: add JAX's)
        summarise_module(home, {*sinks, *BUILTIN_SINKS}, workspace.for_summary(home))
        uses = sink_uses(home)
    if (spec.used_at, param) not in uses:  # a read of the keyword (``knobs._asdict()``) is a use found with JAX's
        summarise_module(home, BUILTIN_SINKS, workspace.for_summary(home))  # sinks alone, whatever ran before
        uses = sink_uses(home)
    use = uses.get((spec.used_at, param)) or function_definition(home, spec.used_at)
    return (home, use) if use is not None else None


def _narrowed_origins(parsed: ParsedModule, workspace: Workspace, sinks: Iterable[SinkSpec], spec: SinkSpec,
                      value: cst.BaseExpression) -> list[Origin] | None:
    """What ``value`` (a call's argument for the parameter of a :attr:`SinkSpec.narrowed` sink) may be that
    arrives at the rule's config: less what the rule's ``isinstance`` test rules out there (``if
    isinstance(mode, enum.IntEnum): mode = int(mode)`` drops an ``IntEnum`` member, keeps a plain ``Enum``
    one: measured with jax 0.12.0.1, ``tests/fixtures/programs/extpkg/converted.py``), or what the helper the
    rule passes it to returns of it (``ValueClassifier.narrowed_through``). ``None`` when the spec is not
    narrowed or the rule's use is not found (``value``'s own origins then)."""
    found = _rule_use(parsed, workspace, sinks, spec) if spec.narrowed else None
    if found is not None and isinstance(found[1], cst.Call):  # {"mode": _jsonable(mode)}: through the helper
        return workspace.classifier(found[0]).narrowed_through(
            found[1], spec.used_param or spec.param, workspace.classifier(parsed).origins(value),
            workspace.classifier(parsed), value)
    if found is None or not isinstance(found[1], cst.Name):
        return None
    home, use = found
    bindings = bindings_of_name(home, use) or []
    param = next((b for b in bindings if isinstance(b.assignment.node if b.assignment else None, cst.Param)), None)
    if param is None:
        return None
    return workspace.classifier(home).narrowed(workspace.classifier(parsed).origins(value), use, param)


def _used_at(finding: Finding, used_at: str) -> Finding:
    """``finding`` at a ``bind`` argument, its message naming where the registered rule uses the value.

    Its fix must keep the argument hashable: one that makes a list (``sorted(s)``) is dropped.
    """
    return replace(finding, message=wording.used_at(hashable_message(finding.message), used_at), used_at=used_at,
                   fix=hashable_fix(finding.fix))


def _read_at_binds(parsed: ParsedModule, classifier: ValueClassifier, node: cst.CSTNode) -> bool:
    """True when ``node`` is where a registered rule reads a keyword (``knobs.level``: a read sink of
    :func:`~asynccfg_lint.analysis.programs.read_sinks`) that only other modules' binds pass
    (:meth:`~asynccfg_lint.analysis.infer.parameters.ParameterInference.read_at_binds`)."""
    if id(node) not in _read_sink_uses(parsed):
        return False
    name = read_receiver(node)
    bindings = bindings_of_name(parsed, name) if isinstance(name, cst.Name) else None
    param = bindings[0].assignment.node if bindings and bindings[0].assignment is not None else None
    return isinstance(param, cst.Param) and classifier.read_at_binds(param)


#: per module: the number of its sink uses when indexed, and the ids of the nodes of its read sinks' uses
_READ_SINK_USES: ModuleMemo[tuple[int, frozenset[int]] | None] = ModuleMemo(lambda: None)


def _read_sink_uses(parsed: ParsedModule) -> frozenset[int]:
    """The ids of the nodes where ``parsed``'s read sinks are used (:func:`~asynccfg_lint.analysis.summaries.sink_uses`
    keyed ``param.how``), indexed again only when sink uses were added (a scan per finding was quadratic)."""
    uses = sink_uses(parsed)
    known = _READ_SINK_USES.known(parsed)
    if known is None or known[0] != len(uses):
        known = _READ_SINK_USES.put(parsed, (len(uses), frozenset(id(use) for (_, key), use in uses.items() if "." in key)))
    return known[1]


def _is_wrapper_parameter(parsed: ParsedModule, node: cst.CSTNode, checked_at_calls: set[tuple[str, str]]) -> bool:
    """True when ``node`` is a (derived) sink parameter of the enclosing summarised function (or a
    keyword it reads from its ``**params``; also read in a function nested in it), or of the
    registered lambda rule it is in."""
    innermost = enclosing(parsed, node, (cst.FunctionDef, cst.Lambda))
    if isinstance(innermost, cst.Lambda):
        return lambda_parameter(parsed, node, innermost, checked_at_calls)
    function = module_level_function(parsed, node)
    if function is None:
        return False
    name = summarised_name(parsed, function)
    param = parameter_of(parsed, node, function) or keyword_read(parsed, node, function) \
        or narrowed_parameter(parsed, node.value if isinstance(node, cst.Attribute) else node, function)
    # (past `if isinstance(mode, X): mode = ...`, or its branch's `mode.value`: the binds' values are checked there)
    return name is not None and param is not None and (name, param) in checked_at_calls


def _unbound_rule(parsed: ParsedModule, node: cst.CSTNode, workspace: Workspace) -> bool:
    """True when ``node`` is in a registered lowering rule none of whose primitives has a ``bind``
    anywhere visible (:func:`~asynccfg_lint.analysis.programs.bind_visible`): no call shows what its
    parameters hold, so they are ACC201 where the rule uses them."""
    function = enclosing(parsed, node, (cst.FunctionDef, cst.Lambda))
    if function is None:
        return False
    found = rule_registrations(parsed, function)
    return bool(found) and not any(bind_visible(parsed, r, workspace.named_elsewhere) for r in found)


def _uncalled(parsed: ParsedModule, node: cst.CSTNode) -> bool:
    """True when ``node`` is in a module-private function of which no call is visible
    (:func:`~asynccfg_lint.analysis.params_rules.uncalled`): its parameters are ACC201 where it uses them."""
    function = module_level_function(parsed, node)
    return function is not None and uncalled(parsed, function)


def _sanitized(parsed: ParsedModule, classifier: ValueClassifier, argument: cst.BaseExpression,
               sanitizers: frozenset[str]) -> bool:
    """True when every value ``argument`` may have is the result of a call to a sanitizer."""
    origins = classifier.origins(argument)
    return bool(origins) and all(
        isinstance(origin.node, cst.Call) and qualified_names(parsed, origin.node.func) & sanitizers for origin in origins
    )


def node_range(parsed: ParsedModule, node: cst.CSTNode) -> tuple[CodePosition, CodePosition]:
    """Return where a diagnostic on ``node`` starts and ends (0-based columns), as Python's ``ast`` places it.

    libcst's positions leave out a node's own parentheses. Python's ``ast`` (and so flake8, ruff
    and the user reading the line) counts the innermost pair as part of a tuple or generator
    expression, so ``{(0, 1): v}`` is reported at the ``(``, and ``# noqa`` goes on its line.
    """
    position = parsed.positions[node]
    if isinstance(node, (cst.Tuple, cst.GeneratorExp)) and node.lpar and node.rpar:
        # a LeftParen's range covers the whitespace after it, a RightParen's the whitespace before
        return parsed.positions[node.lpar[-1]].start, parsed.positions[node.rpar[0]].end
    return position.start, position.end


@dataclass(frozen=True)
class Located:
    """A finding together with the diagnostic it prints as (the fix stage needs both).

    Attributes:
        finding: the classifier's finding; its ``node`` belongs to the parsed module checked.
        diagnostic: the positioned, printable form; its ``fix`` is set when asked for.
    """

    finding: Finding
    diagnostic: Diagnostic


def check_parsed(
    parsed: ParsedModule,
    selection: Selection = Selection(),
    sinks: Iterable[SinkSpec] = BUILTIN_SINKS,
    apply_noqa: bool = True,
    with_fixes: bool = False,
    sanitizers: frozenset[str] = frozenset(),
    modules: ModuleLoader | None = None,
    calls: dict[int, bool] | None = None,
) -> list[Located]:
    """Check a parsed module.

    Args:
        parsed: the module (see :func:`asynccfg_lint.analysis.parse.parse_source`).
        selection, sinks, apply_noqa, sanitizers, modules: as for :func:`check_source`.
        with_fixes: attach each finding's :class:`~asynccfg_lint.diagnostics.Fix` to its diagnostic.
        calls: filled as :func:`analyse` fills it (the coverage line), when given.
    Returns:
        the selected, unsuppressed findings sorted by their diagnostics' position (1-based lines,
        1-based character columns). A finding's fix is applicable only if ``finding.fix`` is set
        and there is a node to rewrite (:func:`~asynccfg_lint.fixing.fixes.fix_site`, which also says
        whether that is the value's own node or the config's use of it, and how safe).
    """
    located = []
    # flake8's noqa mapping tokenizes the whole file: made for the first finding, and only when the text
    # has a ``# noqa`` at all (a line's mapped text is a run of the file's lines, so it has none either)
    noqa: dict[int, str] | None = None if apply_noqa and NOQA_INLINE_REGEXP.search(parsed.text) else {}
    for finding in analyse(parsed, sinks, sanitizers, modules, selection, calls):
        if not selection.is_enabled(finding.code):
            continue
        start, end = node_range(parsed, finding.node)
        if noqa is None:
            noqa = noqa_lines(parsed.text)
        if is_suppressed(finding.code, noqa.get(start.line)):
            continue
        site = fix_site(parsed, finding, modules) if with_fixes else None
        fix = build_fix(parsed, *site) if site is not None else None
        located.append(Located(finding, Diagnostic(
            path=parsed.path,
            line=start.line,
            column=start.column + 1,
            end_line=end.line,
            end_column=end.column + 1,
            code=finding.code,
            message=finding.message,
            fix=fix,
        )))
    return sorted(located, key=lambda item: item.diagnostic.sort_key)


def check_source(
    source: str | bytes,
    path: str,
    selection: Selection = Selection(),
    sinks: Iterable[SinkSpec] = BUILTIN_SINKS,
    apply_noqa: bool = True,
    with_fixes: bool = False,
    sanitizers: frozenset[str] = frozenset(),
    parsed: ParsedModule | None = None,
    modules: ModuleLoader | None = None,
    parse: Callable[[str | bytes, str], ParsedModule] = parse_source,
    calls: dict[int, bool] | None = None,
) -> list[Diagnostic]:
    """Check one file.

    Args:
        source: the file's bytes (decoded as Python does) or text.
        path: the display path; also used to compute the module's dotted name.
        selection: which rule codes to report.
        sinks: the sink specs (built-in ones by default; the prefilter looks for their short names).
        apply_noqa: honour ``# noqa`` comments (the flake8 plugin leaves that to flake8).
        with_fixes: attach each diagnostic's :class:`~asynccfg_lint.diagnostics.Fix` when it has one.
        sanitizers: qualified names of functions whose result is JSON-safe (``[tool.asynccfg-lint] sanitizers``).
        parsed: ``source`` already parsed (a project run parses each file once), else ``None``.
        modules: the project's other modules by dotted name (``Project.module``), parsed only
            when a name of this file leads into them; ``None`` reads this file alone.
        parse: parses ``source`` when ``parsed`` is not given (a language server passes a document's
            :class:`~asynccfg_lint.analysis.parse.DocumentParser`); raises ``ParseFailure`` as ``parse_source``.
        calls: filled as :func:`analyse` fills it (the coverage line), when given.
    Returns:
        diagnostics sorted by position; 1-based lines and 1-based character columns.
        A file that cannot be decoded or parsed gives one ACC001 diagnostic; so does anything
        libcst or the analysis raises on it (:func:`asynccfg_lint.run.boundary.internal_error`).
    """
    sinks = tuple(sinks)
    try:
        if not may_call_any(source, module_name_for(path).name, sinks):
            return []
        try:
            with collector_paused():  # (see analyse_task)
                parsed = parsed or parse(source, path)
                return parsed.run(lambda: [item.diagnostic for item in check_parsed(
                    parsed, selection, sinks, apply_noqa, with_fixes, sanitizers, modules, calls)])
        except ParseFailure as failure:  # the file cannot be parsed, or a deep file's analysis ran out of time
            if not selection.is_enabled("ACC001"):
                return []
            return [parse_failure_diagnostic(path, failure)]
    except Exception as error:  # noqa: BLE001 - the per-file error boundary
        return [internal_error(path, error)] if selection.is_enabled("ACC001") else []


def parse_failure_diagnostic(path: str, failure: ParseFailure) -> Diagnostic:
    """The ACC001 diagnostic of a file that could not be decoded or parsed (at libcst's 1-based position)."""
    return Diagnostic(path, failure.line, failure.column, failure.line, failure.column, "ACC001",
                      acc001.not_analysed(failure))
