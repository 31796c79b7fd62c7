"""What a parameter may hold: its default, its annotation, and what the callers the module shows pass.

Mixed into :class:`~asynccfg_lint.analysis.classifier.ValueClassifier`. Callers are never all visible in
general (JAX calls a registered rule; anything public may be called from elsewhere), so a default
is a value like any other and an unannotated parameter is unknown — unless its default is a
JSON scalar literal, whose type stands for what unseen callers pass (as pyright infers it), or
where the callers are known: a batching or differentiation rule registered here is called by JAX with the params
of an equation of its primitive, i.e. with the keywords of that primitive's ``bind`` calls
(:func:`asynccfg_lint.analysis.params_rules.params_rules`), and a module-private function whose every
reference is a call is called only by those calls (:func:`asynccfg_lint.analysis.params_rules.visible_calls`),
and a registered lowering rule's keyword that is not a derived sink holds what the module's binds of
its primitive pass (:meth:`ParameterInference._bound_keyword`).
The two feed each other (a batcher binds its primitive again with what it was given), so a
parameter's sources are followed once at a time: a cycle adds nothing beyond what enters it from
outside (the least fixed point), and what was found inside an unfinished cycle is not memoized.
"""

from __future__ import annotations

import libcst as cst

from asynccfg_lint.analysis.infer import lookup
from asynccfg_lint.analysis.infer.catalog.jax_ import BATCH_DIMS
from asynccfg_lint.analysis.infer.model import Known
from asynccfg_lint.analysis.infer.values import UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.programs import (
    JAX_ARRAY,
    LOWERING_RULE_CONTEXT,
    PRIMITIVE,
    bind_operands,
    is_rule_context,
    read_of,
    rule_registrations,
)
from asynccfg_lint.analysis.params_rules import DIMS_IN, bind_calls, params_rules, visible_calls
from asynccfg_lint.analysis.functions import parameter_of, summarised_name
from asynccfg_lint.analysis.resolution import (
    Binding,
    bindings_of_name,
    calls_in,
    enclosing,
    excluded_classes,
    isinstance_tested,
    local_definition,
)
from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.parse import ModuleMemo, ParsedModule
from asynccfg_lint.analysis.tracer import MAX_DEPTH
from asynccfg_lint.analysis.summaries import sink_uses

#: (the enclosing function or lambda, a name) -> the calls directly inside it that pass that bare name as a
#: leading positional argument, made once per module (:meth:`ParameterInference._forwarded_operand` asks
#: it for each parameter it types; resolving every call of a large module per parameter was slow)
_POSITIONAL_NAMES: ModuleMemo[dict[tuple[int, str], list[cst.Call]] | None] = ModuleMemo(lambda: None)


def _calls_passing(parsed: ParsedModule, function: cst.FunctionDef, name: str) -> list[cst.Call]:
    """The calls directly in ``function`` (not in a nested function or lambda) that pass the bare name ``name``
    positionally (before any keyword or star), in pre-order."""
    index = _POSITIONAL_NAMES.known(parsed)
    if index is None:
        index = _POSITIONAL_NAMES.put(parsed, {})
        for call in kept_calls(parsed.calls):  # (a skeleton's: the calls of a function it kept are all there)
            passed = []
            for arg in call.args:
                if arg.keyword is not None or arg.star:
                    break
                if isinstance(arg.value, cst.Name) and arg.value.value not in passed:
                    passed.append(arg.value.value)
            if passed:
                owner = id(enclosing(parsed, call, (cst.FunctionDef, cst.Lambda)))
                for passed_name in passed:
                    index.setdefault((owner, passed_name), []).append(call)
    return index.get((id(function), name), [])


class ParameterInference:
    """Parameter inference for :class:`~asynccfg_lint.analysis.classifier.ValueClassifier` (uses ``_active``, ``_cut``)."""

    def _parameter(self, expr: cst.CSTNode, binding: Binding, param: cst.Param, depth: int) -> list[Origin]:
        """What a parameter may hold: its default, and what callers pass (its annotation, the callers
        the module shows, else unknown). The first parameter of a registered lowering rule is
        ``mlir.LoweringRuleContext``, annotated or not; an unannotated parameter the function passes
        to a primitive's ``bind`` as an operand is a ``jax.Array``
        (:func:`~asynccfg_lint.analysis.programs.bind_operands`)."""
        if id(param) in self._following:  # a cycle through this parameter's own callers: nothing new
            self._cut.add(id(param))
            return []
        result = self.origins(param.default, depth + 1) if param.default is not None else []
        if is_rule_context(self.parsed, param):
            result += [Origin(expr, i) for i in self._annotation_names({LOWERING_RULE_CONTEXT}, None)]
        elif binding.annotation is not None and not (self.bind_view and self.bound_by_visible_binds(param)):
            result += [Origin(expr, i) for i in self.from_annotation(binding.annotation)]
        elif self._is_bind_operand(param, depth):
            result.append(Origin(expr, Inferred(self.catalog.types[JAX_ARRAY].verdict,
                                                model=Known(frozenset({JAX_ARRAY})))))
        else:
            self._following.add(id(param))
            try:
                passed = self._passed(expr, param, depth)
            finally:
                self._following.discard(id(param))
                self._cut.discard(id(param))
            result += passed if passed is not None else [] if _literal_scalar(param.default) else [Origin(expr, UNKNOWN)]
        return result

    def bound_by_visible_binds(self, param: cst.Param) -> bool:
        """True when ``param`` is a keyword of a lowering rule registered here, not a derived sink (what
        a bind passes for it is not checked at the bind), and a ``bind`` of the rule's primitive in this
        module passes it: what arrives there may differ from what its annotation says
        (:func:`asynccfg_lint.analysis.checker.annotation_or_binds` weighs the two)."""
        function = enclosing(self.parsed, param, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef) or is_rule_context(self.parsed, param):
            return False
        name = param.name.value
        if (summarised_name(self.parsed, function), name) in sink_uses(self.parsed):
            return False
        return any(name not in r.bound and any(a.keyword is not None and a.keyword.value == name
                                               for call in bind_calls(self.parsed, r.primitive) for a in call.args)
                   for r in rule_registrations(self.parsed, function))

    def checked_at_calls(self, origin: Origin) -> bool:
        """True when ``origin`` is the unknown value a parameter of a derived sink of this module holds where it is
        used (``mode`` of ``def rule(ctx, x, *, mode)`` whose binds are in other modules): what its calls pass is
        checked at each (:func:`~asynccfg_lint.analysis.summaries.sink_uses`), so what a helper makes of it is too."""
        node = origin.node
        if origin.inferred.type is not None or origin.home is not None or not isinstance(node, cst.Name):
            return False
        bindings = bindings_of_name(self.parsed, node)
        param = bindings[0].assignment.node if bindings and len(bindings) == 1 and bindings[0].assignment else None
        function = enclosing(self.parsed, param, (cst.FunctionDef,)) if isinstance(param, cst.Param) else None
        return isinstance(function, cst.FunctionDef) \
            and (summarised_name(self.parsed, function), param.name.value) in sink_uses(self.parsed)

    def _is_bind_operand(self, param: cst.Param, depth: int) -> bool:
        """True when every ``.bind(...)`` that the enclosing function passes ``param`` to positionally is a primitive's."""
        function = self.parsed.parents.get(self.parsed.parents.get(param))
        if not isinstance(function, cst.FunctionDef):
            return False
        receivers = bind_operands(self.parsed, function).get(param.name.value)
        if not receivers:
            return self._forwarded_operand(function, param.name.value, depth)
        primitive = Known(frozenset({PRIMITIVE}))
        return all(origins and all(lookup.model_of(self.catalog, o.inferred.type, o.inferred.model) == primitive
                                   for o in origins)
                   for origins in (self.origins(r, depth + 1) for r in receivers))

    def _forwarded_operand(self, function: cst.FunctionDef, name: str, depth: int) -> bool:
        """True when ``function`` passes its parameter ``name`` positionally to a wrapper of this module whose
        parameter there is a bind operand (:meth:`_is_bind_operand`): ``def user(x): return start(x, tag=x.dtype)``
        with ``def start(x, *, tag): return p.bind(x, tag=tag)`` (also through more wrappers). JAX passes the
        operand on unchanged, so under ``jit`` ``x`` is a tracer there too and ``x.dtype`` a ``numpy.dtype``
        (measured on jax 0.12.0.1, ``tests/fixtures/programs/operands.py``). A wrapper of another module is not
        followed."""
        if depth >= MAX_DEPTH:
            return False
        for call in _calls_passing(self.parsed, function, name):
            wrapper = local_definition(self.parsed, call.func)
            if not isinstance(wrapper, cst.FunctionDef) or wrapper is function:
                continue
            positional = [*wrapper.params.posonly_params, *wrapper.params.params]
            for index, arg in enumerate(call.args):
                if arg.keyword is not None or arg.star:
                    break
                if index < len(positional) and parameter_of(self.parsed, arg.value, function) == name \
                        and self._is_bind_operand(positional[index], depth + 1):
                    return True
        return False

    def _passed(self, expr: cst.CSTNode, param: cst.Param, depth: int) -> list[Origin] | None:
        """What the callers of ``param``'s function the module shows pass for it; ``None`` when they are not all shown."""
        function = enclosing(self.parsed, param, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef):
            return None
        name = param.name.value
        lowerings = [r for r in rule_registrations(self.parsed, function) if name not in r.bound]
        top_level = isinstance(self.parsed.parents.get(function), cst.Module)
        if not top_level and not lowerings:  # (a registered static or class method is a rule too)
            constructed = self._constructed(expr, param, function, depth)
            return constructed if constructed is not None else self._called_elsewhere(expr, param, function, depth)
        rules = [r for r in params_rules(self.parsed) if r.function is function] if top_level else []
        calls = visible_calls(self.parsed, function) if top_level else None
        if (summarised_name(self.parsed, function), name) in sink_uses(self.parsed):
            calls = lowerings = []  # a derived sink's parameter: what its calls (binds) pass is checked at each
        elif top_level and calls is None and not rules and not lowerings and not self._hands_on(function, name):
            # a public helper (`def fragment(config, aval)`): what the graph's calls of it pass, beside the unknown
            # of callers not seen (not a wrapper's parameter its callers' calls are checked for)
            return self._called_elsewhere(expr, param, function, depth)
        if not rules and not calls and not lowerings:
            return None
        positional = [*function.params.posonly_params, *function.params.params]
        index = next((i for i, p in enumerate(positional) if p is param), None)
        # callers elsewhere: unknown (a lowering rule's caller is JAX, with a bind's keywords)
        unseen = calls is None and not lowerings and not _literal_scalar(param.default)
        result: list[Origin] = [Origin(expr, UNKNOWN)] if unseen else []
        for rule in rules:
            slot = index - rule.bound if index is not None else None
            if slot is not None and slot < 0:  # bound by the registration's functools.partial: not followed
                result.append(Origin(expr, UNKNOWN))
            elif slot is not None and slot < len(rule.leading):  # what JAX passes positionally
                known = Known(frozenset({BATCH_DIMS})) if rule.leading[slot] == DIMS_IN else None
                result += self._typed(expr, lookup.typed(self.catalog, known)) or [Origin(expr, UNKNOWN)]
            else:  # an equation param: what each bind of the primitive passes as this keyword
                binds = bind_calls(self.parsed, rule.primitive)
                for call in binds:
                    result += self._argument_origins(call, name, None, [Origin(expr, UNKNOWN)], depth)
                if param.default is None and not any(a.keyword is not None and a.keyword.value == name
                                                     for call in binds for a in call.args):
                    result.append(Origin(expr, UNKNOWN))  # no bind names it: a transpose's operand, or unseen binds
        for registration in lowerings:  # JAX calls a lowering rule with the keywords of a bind of its primitive
            result += self._bound_keyword(expr, param, registration.primitive, depth)
        spread = [] if _literal_scalar(param.default) else [Origin(expr, UNKNOWN)]
        for call in calls or ():
            result += self._argument_origins(call, name, index, spread, depth)
        return result

    def narrowed_per_bind(self, use: cst.Name, binding: Binding, found: list[Origin]) -> list[Origin]:
        """``found`` (what the parameter ``binding`` of a registered lowering rule gives ``use``) less the values
        of each bind that an ``isinstance`` test rules out on the path that bind takes: a test before ``use`` of
        another keyword against a literal (``if kind == "enum":``) has the outcome the bind's literal gives it
        (JAX calls the rule with the bind's keywords as they are). Anything else stays."""
        param = binding.assignment.node if binding.assignment is not None else None
        if not found or not isinstance(param, cst.Param) or not isinstance_tested(self.parsed, use.value):
            return found
        function = enclosing(self.parsed, param, (cst.FunctionDef,))
        if function is None:
            return found
        registrations = rule_registrations(self.parsed, function)
        binds = {id(call): call for r in registrations for call in bind_calls(self.parsed, r.primitive)}
        if not binds:
            return found
        kept: list[Origin] = []
        excluded_by: dict[int, list[cst.BaseExpression]] = {}
        for origin in found:
            call = self._enclosing_bind(origin.node, binds)
            if call is None:
                kept.append(origin)
                continue
            if id(call) not in excluded_by:
                excluded_by[id(call)] = excluded_classes(
                    self.parsed, use, binding, lambda test, call=call: self._bind_decides(test, call, function))
            if not any(self._instance_of(origin, c) for c in excluded_by[id(call)]):
                kept.append(origin)
        return kept

    def _enclosing_bind(self, node: cst.CSTNode, binds: dict[int, cst.Call]) -> cst.Call | None:
        """The bind of ``binds`` whose argument holds ``node`` (a value written in the bind call), else ``None``."""
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
            if id(node) in binds:
                return binds[id(node)]
            node = self.parsed.parents.get(node)
        return None

    def _bind_decides(self, test: cst.BaseExpression, call: cst.Call, function: cst.FunctionDef) -> bool | None:
        """The outcome of ``test`` when it is ``<keyword> == <literal>`` (or ``!=``) of a keyword parameter of the
        rule ``function`` that the rule never rebinds, for the bind ``call`` passing it a literal (or leaving it
        its literal default); ``None`` otherwise."""
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1 \
                or not isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
            return None
        name, other = test.left, test.comparisons[0].comparator
        if not isinstance(name, cst.Name):
            name, other = other, name
        params = [*function.params.params, *function.params.kwonly_params]
        param = next((p for p in params if isinstance(name, cst.Name) and p.name.value == name.value), None)
        bindings = bindings_of_name(self.parsed, name) if param is not None else None
        if not bindings or len(bindings) != 1 or bindings[0].assignment is None or bindings[0].assignment.node is not param:
            return None
        if any(a.star for a in call.args):
            return None
        passed = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == param.name.value),
                      param.default)
        values = [self._literal(e) for e in (passed, other)]
        if any(isinstance(e, cst.Call) for e in (passed, other)) or not all(
                v is None or isinstance(v, (str, int, float)) for v in values):
            return None  # (a numpy scalar of a literal, a tuple, no literal at all)
        equal = values[0] == values[1]
        return equal if isinstance(test.comparisons[0].operator, cst.Equal) else not equal

    def _constructed(self, expr: cst.CSTNode, param: cst.Param, init: cst.FunctionDef, depth: int) -> list[Origin] | None:
        """What an ``__init__`` parameter of a top-level class of this module holds: what each of the module's
        calls of the class passes for it (``Collective(Mode.PULL)``, whose ``__call__`` binds ``self.mode``),
        and unknown as well for a public class or one referenced otherwise than called (a subclass, a value
        passed on: constructed where this module cannot see). ``None`` for any other parameter."""
        block = self.parsed.parents.get(init)
        cls = self.parsed.parents.get(block) if isinstance(block, cst.IndentedBlock) else None
        positional = [*init.params.posonly_params, *init.params.params]
        index = next((i for i, p in enumerate(positional) if p is param), None)
        scope = self.parsed.scopes.get(self.parsed.module)
        if init.name.value != "__init__" or not isinstance(cls, cst.ClassDef) or index == 0 or init.decorators \
                or not isinstance(self.parsed.parents.get(cls), cst.Module) or scope is None or cls.name.value not in scope:
            return None
        calls: list[cst.Call] = []
        unseen = not cls.name.value.startswith("_")
        for assignment in scope[cls.name.value]:
            if assignment.node is not cls:
                return None  # the name is bound to something else too
            for access in assignment.references:
                parent = self.parsed.parents.get(access.node)
                if isinstance(parent, cst.Call) and parent.func is access.node:
                    calls.append(parent)
                else:
                    unseen = True
        result = [Origin(expr, UNKNOWN)] if unseen else []
        for call in calls:  # (self is not passed)
            result += self._argument_origins(call, param.name.value, index - 1 if index is not None else None,
                                             [Origin(expr, UNKNOWN)], depth)
        return result

    def _bound_keyword(self, expr: cst.CSTNode, param: cst.Param, primitive: frozenset[str], depth: int) -> list[Origin]:
        """What a registered lowering rule's keyword ``param`` holds when the rule does not put it into
        its config as it is (``knobs.level``, ``Tuner(n).eager``): what this module's binds of
        ``primitive`` pass for it, as an argument reaches a parameter at a visible call; unknown as
        well when another module of the project names the primitive (its binds are not followed),
        or when no bind here passes it and it has no default."""
        name = param.name.value
        binds = bind_calls(self.parsed, primitive)
        result: list[Origin] = []
        for call in binds:
            result += self._argument_origins(call, name, None, [Origin(expr, UNKNOWN)], depth)
        elsewhere = self._named_elsewhere(primitive)
        if elsewhere and self.read_at_binds(param):  # the other modules' binds are checked where they are
            return result
        passed = any(a.keyword is not None and a.keyword.value == name for call in binds for a in call.args)
        if elsewhere or not passed and param.default is None:
            result.append(Origin(expr, UNKNOWN))
        return result

    def _named_elsewhere(self, primitive: frozenset[str]) -> bool:
        """True when another module of the project names the primitive (it may bind it)."""
        return self.workspace is not None and any(
            self.workspace.named_elsewhere(q.rpartition(".")[2], q.rpartition(".")[0]) for q in primitive)

    def read_at_binds(self, param: cst.Param) -> bool:
        """True when ``param`` is a keyword of a lowering rule registered here whose primitive another
        module names, and every use of it is a read that binds in other modules are checked for
        (``knobs.level`` under a key, ``knobs._asdict()``: the summary's read sinks,
        :func:`~asynccfg_lint.analysis.programs.read_sinks`): what they pass is then not unknown here."""
        function = enclosing(self.parsed, param, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef) or not any(
                self._named_elsewhere(r.primitive) for r in rule_registrations(self.parsed, function)):
            return False
        rule = summarised_name(self.parsed, function)
        name = param.name.value
        reads = {id(node) for (used_at, key), node in sink_uses(self.parsed).items()
                 if used_at == rule and key.startswith(f"{name}.")}
        if not reads:
            return False
        scope = self.parsed.scopes.get(param)
        assignments = [a for a in scope[name] if a.node is param] if scope is not None else []
        uses = [access.node for a in assignments for access in a.references]
        return bool(uses) and all(id(read_of(self.parsed, n)) in reads for n in uses)

    def _hands_on(self, function: cst.FunctionDef, name: str) -> bool:
        """Whether ``function`` passes its parameter ``name`` to a call as it is (``p.bind(x, bounds=bounds)``,
        ``_start(prim, x, bounds)``): a wrapper's parameter, whose callers' values are checked at their calls."""
        return any(isinstance(arg.value, cst.Name) and arg.value.value == name
                   for call in calls_in(self.parsed, function) for arg in call.args)

    def _called_elsewhere(self, expr: cst.CSTNode, param: cst.Param, function: cst.FunctionDef,
                          depth: int) -> list[Origin] | None:
        """What the calls of the project's call graph that may run ``function`` pass for ``param``
        (:meth:`~asynccfg_lint.analysis.callees.CallGraph.callers`: a registry's lookup, a method its subclasses
        override), beside the unknown of callers not seen (a literal scalar default stands for those). ``None``
        when none is seen."""
        if self.workspace is None or depth >= MAX_DEPTH:
            return None
        calls = self.workspace.call_graph.calls_passing(self.parsed, param, function)
        if not calls:
            return None
        unseen = [] if _literal_scalar(param.default) else [Origin(expr, UNKNOWN)]
        result: list[Origin] = list(unseen)
        for module, call, slot in calls:
            if slot is not None and slot < 0:
                return None  # the receiver: not a value a call passes
            found = self._peer(module)._argument_origins(call, param.name.value, slot, unseen, depth)
            result.extend(self._arrived(origin, module, expr) for origin in found)
        return result

    def _argument_origins(self, call: cst.Call, name: str, index: int | None, spread: list[Origin],
                          depth: int) -> list[Origin]:
        """What ``call`` passes for the parameter ``name`` (at position ``index``, if positional).

        ``spread`` is what a ``*args``/``**kwargs`` argument that may hold it passes: like an unseen
        caller (``def all_gather_start(*args, **kwargs): return _all_gather(*args, **kwargs)``).
        """
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == name:
                return self._source(arg.value, depth)
        positional = []
        for arg in call.args:
            if arg.star == "*":
                return spread  # f(*args): any position
            if arg.keyword is None and not arg.star:
                positional.append(arg.value)
        if index is not None and index < len(positional):
            return self._source(positional[index], depth)
        if any(arg.star == "**" for arg in call.args):
            return spread  # f(**params): the keyword may be in it
        return []  # left out: the default (already counted)

    def _source(self, value: cst.BaseExpression, depth: int) -> list[Origin]:
        """The origins of an argument, or nothing when it is being followed already (a cycle)."""
        if id(value) in self._active:
            self._cut.update(self._following)
            return []
        return self.origins(value, depth + 1)


def _literal_scalar(default: cst.BaseExpression | None) -> bool:
    """True for a default written as a JSON scalar literal: an int, float, str, ``True`` or ``False`` (not ``None``).

    Such a default stands for what callers the module does not show pass, as pyright infers an
    unannotated parameter's type from its default (``def all_gather(x, axis_name, *, tiled=False)``:
    a bool). ``None`` says nothing of the type of the values it stands in for.
    """
    if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, (cst.Minus, cst.Plus)):
        default = default.expression
    if isinstance(default, (cst.Integer, cst.Float)):
        return True
    if isinstance(default, cst.Name):
        return default.value in ("True", "False")
    if isinstance(default, cst.SimpleString):
        return "b" not in default.prefix.lower()
    return False
