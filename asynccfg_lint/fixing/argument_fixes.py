"""Fixes at call arguments that reach a function's parameter: kept only when every use of it takes the fix.

A value passed to a wrapper or to a primitive's ``bind`` is reported, and fixed, where the caller writes
it. The fix changes the value's type for every use of the parameter in the function that receives it
(:mod:`asynccfg_lint.fixing.parameter_uses`), so it is offered only when those uses only put the value
into a config as it is; otherwise the finding keeps no fix (the remedy stays in its message). The
function is found by the sink's qualified name, in the checked module or another module of the project.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from asynccfg_lint.analysis.classifier import Finding
from asynccfg_lint.analysis.functions import defining_module, function_definition, implicit_parameters, parameter_of
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, DATACLASS_FIELDS, NAMED_TUPLE_FIELDS, SinkKind, SinkSpec
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import enclosing, inside, qualified_names
from asynccfg_lint.analysis.sinks import SinkCall, alias_sinks, find_sink_calls
from asynccfg_lint.analysis.summaries import summarise_module
from asynccfg_lint.analysis.workspace import Workspace
from asynccfg_lint.analysis.programs import (
    HOOK_WORDS,
    KEYWORD_BLIND_HOOKS,
    PARTIAL,
    primitive_hooks,
    rule_registrations,
    top_level_function,
)
from asynccfg_lint.fixing.parameter_uses import (
    Callee,
    keyword_reads_put_as_they_are,
    only_put_into_configs,
    parameter_node,
    parameter_reads,
)


def _parameter_passed(call: cst.Call, argument: cst.BaseExpression, function: cst.FunctionDef) -> str | None:
    """The parameter of ``function`` that ``call`` passes ``argument`` to, else ``None``."""
    for index, arg in enumerate(call.args):
        if arg.value is not argument:
            continue
        if arg.keyword is not None:
            return arg.keyword.value if parameter_node(function, arg.keyword.value) is not None else None
        if arg.star or any(a.star for a in call.args[:index]):
            return None
        positional = [*function.params.posonly_params, *function.params.params][implicit_parameters(function):]
        return positional[index].name.value if index < len(positional) else None
    return None


class ArgumentFixes:
    """Decide, for the findings of one check, whether a fix at a call argument is kept.

    Args:
        parsed: the checked module.
        workspace: the check's workspace (other project modules).
        sinks: the sinks of ``parsed`` (its summary: wrappers and binds included).
    """

    def __init__(self, parsed: ParsedModule, workspace: Workspace, sinks: set[SinkSpec]) -> None:
        self.parsed = parsed
        self.workspace = workspace
        self.sinks = {id(parsed): sinks}
        self._calls: dict[int, list[SinkCall]] = {}

    def at_argument(self, finding: Finding, sink_call: SinkCall) -> Finding:
        """``finding`` of the argument of ``sink_call`` (a call of a derived sink: a wrapper or a ``bind``),
        without its fix when the parameter the argument reaches is used otherwise than put into a config."""
        if finding.fix is None or sink_call.spec.kind is SinkKind.PARAMETERS or finding.node not in self.parsed.parents:
            return finding
        if not inside(self.parsed, finding.node, sink_call.argument):
            return self._from_parameter(finding, sink_call)
        if not self._wrapper_reads_kept(sink_call):
            return replace(finding, fix=None)
        callee = self._callee(self.parsed, sink_call.spec)
        if callee is None and not self._builtin(sink_call.spec) and not self._alias_of_builtin(sink_call.spec):
            return replace(finding, fix=None)
        if callee is not None and not self._kept(callee):
            return replace(finding, fix=None)
        if sink_call.spec.used_at is not None and not self._hooks_kept(sink_call.spec):
            return replace(finding, fix=None)
        # the function the call passes the argument to may use it in other ways than the one the sink names
        # (a wrapper binding two primitives, the other rule doing `{Sched.TREE: 2}[sched]`)
        wrapper = self._called_function(self.parsed, sink_call.call, sink_call.argument)
        if wrapper is not None and (callee is None or wrapper[1] is not callee[1]) and not self._kept(wrapper):
            return replace(finding, fix=None)
        return finding

    def _from_parameter(self, finding: Finding, sink_call: SinkCall) -> Finding:
        """``finding`` of a value written outside ``sink_call``'s argument, which passes a parameter of the function
        it is in on (a batching rule's ``p.bind(x, mode=mode)``, whose ``mode`` JAX gives it from the binds):
        without its fix unless that function only puts the parameter into configs, since the fix changes what
        it receives (a batcher's ``mode.value == "pull"`` fails on the fixed bind's str)."""
        function = enclosing(self.parsed, sink_call.call, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef) or inside(self.parsed, finding.node, function):
            return finding
        param = parameter_of(self.parsed, sink_call.argument, function)
        if param is not None and not self._kept((self.parsed, function, param, None, False)):
            return replace(finding, fix=None)
        return finding

    def at_bind(self, finding: Finding, rule: cst.FunctionDef, binds: list[cst.Call]) -> Finding:
        """``finding`` of ``rule``'s config whose value the ``binds`` calls of this module write (``finding.node``
        inside a keyword's argument, or bound to a name a keyword passes), without its fix unless the keyword's
        parameter is only put into configs (every keyword passing a name, when the node is not in an argument).
        ``finding.use`` of an attribute of the parameter (``knobs.level``) says the fix changes that field only."""
        if finding.fix is None:
            return finding
        keywords = [a for bind in binds for a in bind.args if a.keyword is not None]
        within = [a for a in keywords if inside(self.parsed, finding.node, a.value)]
        arguments = within or [a for a in keywords if isinstance(a.value, cst.Name)]
        if not arguments:
            return replace(finding, fix=None)
        use = finding.use
        for argument in arguments:
            whole = argument.value is finding.node
            field = use.attr.value if isinstance(use, cst.Attribute) and not whole else None
            assert argument.keyword is not None
            if not self._kept((self.parsed, rule, argument.keyword.value, field, False)):
                return replace(finding, fix=None)
            primitives = [r.primitive for r in rule_registrations(self.parsed, rule)]
            if not all(self._hooks_keep(primitive, argument.keyword.value, [self.parsed]) for primitive in primitives):
                return replace(finding, fix=None)
        return finding

    def _hooks_kept(self, spec: SinkSpec) -> bool:
        """False when a function JAX calls with the ``bind``'s keywords besides the lowering rule (the primitive's
        abstract eval, impl, batching or differentiation rules: :func:`primitive_hooks`) reads the keyword that
        ``spec`` (a ``bind``, or a wrapper forwarding to one) passes otherwise than to put it into a config, or
        when such a function is not found: the fix at the argument would change what it reads."""
        assert spec.used_at is not None
        keyword = (spec.used_param or spec.param).partition(".")[0]
        rule_home = defining_module(self.parsed, self.workspace, spec.used_at)
        if spec.binds:
            primitives = [frozenset(name.removesuffix(".bind") for name in spec.qualnames)]
        elif rule_home is not None and (rule := function_definition(rule_home, spec.used_at)) is not None:
            primitives = [r.primitive for r in rule_registrations(rule_home, rule)]
        else:
            return False
        homes = [rule_home] if rule_home is not None else []
        return all(self._hooks_keep(primitive, keyword, homes) for primitive in primitives)

    def _hooks_keep(self, primitive: frozenset[str], keyword: str, homes: list[ParsedModule]) -> bool:
        """Whether every hook of ``primitive`` (:func:`primitive_hooks`) in its own module and in ``homes`` leaves
        ``keyword`` unread or only puts it into a config (a ``**params`` it takes is read only so)."""
        modules = {id(m): m for m in homes}
        for name in primitive:
            home = defining_module(self.parsed, self.workspace, name)
            if home is not None:
                modules[id(home)] = home
            short = name.rpartition(".")[2]
            for module in self.workspace.naming(short):  # another module registering on an imported primitive
                if any(self.workspace.may_mention(f"{module}.{short}", word) for word in HOOK_WORDS) \
                        and (other := self.workspace.module(module)) is not None:
                    modules[id(other)] = other
        for home in modules.values():
            for hook in primitive_hooks(home, primitive):
                if isinstance(hook, cst.Call) and hook.args and qualified_names(home, hook.func) & PARTIAL \
                        and qualified_names(home, hook.args[0].value) & KEYWORD_BLIND_HOOKS:
                    continue  # partial(dispatch.apply_primitive, p): JAX runs the primitive through its rule
                function = hook if isinstance(hook, (cst.Lambda, cst.FunctionDef)) else top_level_function(home, hook)
                if function is None:
                    return False  # not found here (imported, a partial): what it reads is not shown
                param = parameter_node(function, keyword)
                if param is None or param is function.params.star_kwarg:
                    if not keyword_reads_put_as_they_are(home, function, keyword, self._lookup):
                        return False
                elif parameter_reads(home, function, keyword) != [] and not self._kept(
                        (home, function, keyword, None, False)):
                    return False
        return True

    def at_default(self, finding: Finding) -> Finding:
        """``finding`` in the default of a parameter of a function of the checked module (``def rule(ctx, x, *,
        mode=Mode.TREE)``), without its fix unless every use of the parameter only puts it into a config: the
        fix changes what each use sees when no caller passes the parameter (a rule that also compares
        ``mode == Mode.TREE`` would take the other branch, and leave a key out)."""
        if finding.fix is None:
            return finding
        child, node = finding.node, self.parsed.parents.get(finding.node)
        while node is not None and not (type(node) is cst.Param and node.default is child):
            child, node = node, self.parsed.parents.get(node)
        if node is None:
            return finding
        function = self.parsed.parents.get(self.parsed.parents.get(node))  # Param -> Parameters -> the function
        if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            return finding
        return finding if self._kept((self.parsed, function, node.name.value, None, False)) else replace(finding, fix=None)

    def _wrapper_reads_kept(self, sink_call: SinkCall) -> bool:
        """False when the function ``sink_call`` calls takes the argument's keyword in its ``**kwargs`` and
        reads it there otherwise than to put it into a config (see :func:`keyword_reads_put_as_they_are`)."""
        keyword = next((a.keyword.value for a in sink_call.call.args
                        if a.value is sink_call.argument and a.keyword is not None), None)
        if keyword is None:
            return True
        for qualified in qualified_names(self.parsed, sink_call.call.func):
            module = defining_module(self.parsed, self.workspace, qualified)
            function = function_definition(module, qualified) if module is not None else None
            if function is not None and not keyword_reads_put_as_they_are(module, function, keyword, self._lookup):
                return False
        return True

    def _kept(self, callee: Callee) -> bool:
        home, function, param, field, fields = callee
        return only_put_into_configs(home, function, param, self._lookup, field, fields)

    def _alias_of_builtin(self, spec: SinkSpec) -> bool:
        """True when ``spec`` is a top-level name bound to JAX's own sink or a ``functools.partial`` of it
        (``permute_start = functools.partial(_emit_async_start_custom_call, "t")``, also in another module):
        the value is serialized as it is, as at a direct call."""
        qualified = min(spec.qualnames)
        module = defining_module(self.parsed, self.workspace, qualified)
        if module is None:
            return False
        return any(alias.qualnames == spec.qualnames and alias.param == spec.param and alias.kind is spec.kind
                   for alias in alias_sinks(module, BUILTIN_SINKS))

    @staticmethod
    def _builtin(spec: SinkSpec) -> bool:
        return spec.wrapper_module is None and spec.used_at is None

    def _callee(self, home: ParsedModule, spec: SinkSpec) -> Callee | None:
        """The function and parameter a derived sink's argument arrives in; ``None`` for JAX's own sinks or
        when the function is not found."""
        if self._builtin(spec):
            return None
        qualified = spec.used_at if spec.used_at is not None else min(spec.qualnames)
        module = defining_module(home, self.workspace, qualified)
        function = function_definition(module, qualified) if module is not None else None
        if module is None or function is None:
            return None
        param, field, fields = spec.used_param or spec.param, None, False
        if spec.read is not None:  # a keyword the rule reads: knobs.level, knobs._asdict()
            param = param.partition(".")[0]
            fields = spec.read in (NAMED_TUPLE_FIELDS, DATACLASS_FIELDS)
            field = None if fields else spec.read
        return module, function, param, field, fields

    def _lookup(self, home: ParsedModule, call: cst.Call, argument: cst.BaseExpression) -> tuple[bool, Callee | None]:
        """Whether ``call`` of ``home`` passes ``argument`` to a sink, and the function it arrives in: a sink
        call of ``home`` (JAX's, or a derived one the summaries of this check know), else a function of
        the project the call resolves to, which is then read as the sink would be (its parameter's uses)."""
        for sink_call in self._sink_calls(home):
            if sink_call.call is not call or sink_call.spec.kind is SinkKind.PARAMETERS:
                continue
            if sink_call.argument is argument or (sink_call.argument is call and sink_call.spec.kind is SinkKind.KEYWORDS):
                if self._builtin(sink_call.spec):
                    return True, None
                callee = self._callee(home, sink_call.spec)
                return callee is not None, callee
        callee = self._called_function(home, call, argument)
        return callee is not None, callee

    def _called_function(self, home: ParsedModule, call: cst.Call, argument: cst.BaseExpression) -> Callee | None:
        """The project function ``call`` calls and the parameter ``argument`` is passed to (by keyword, or by
        position before any ``*args``), when there is exactly one such function; else ``None``."""
        found = []
        for qualified in qualified_names(home, call.func):
            module = defining_module(home, self.workspace, qualified)
            function = function_definition(module, qualified) if module is not None else None
            if module is None or function is None:
                continue
            param = _parameter_passed(call, argument, function)
            if param is not None:
                found.append((module, function, param, None, False))
        return found[0] if len(found) == 1 else None

    def _sink_calls(self, home: ParsedModule) -> list[SinkCall]:
        if id(home) not in self._calls:
            if id(home) not in self.sinks:
                self.sinks[id(home)] = summarise_module(home, {*self.sinks[id(self.parsed)], *BUILTIN_SINKS},
                                                        self.workspace.for_summary(home))
            self._calls[id(home)] = list(find_sink_calls(home, self.sinks[id(home)]))
        return self._calls[id(home)]
