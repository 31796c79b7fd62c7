"""The modules one check reads: the checked file, and the project modules its imported names lead to.

A builder or constant imported from another module of the project (``from pkg.cfgs import
make_cfg``, ``from . import defaults; defaults.TIMEOUT``) is followed there: its qualified
name is split into a module the project holds and a top-level name of it (through re-exports,
``Class.attr`` one level deep). Each foreign module is parsed once (through the project's
cache) and gets its own tracer and classifier, so its nodes are always read with its own
metadata. A name the project does not hold (third-party code, a star import) stays unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from asynccfg_lint.analysis.callees import CallGraph
from asynccfg_lint.analysis.classifier import ValueClassifier
from asynccfg_lint.analysis.objects import class_function
from asynccfg_lint.analysis.jax_facts import table_name
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import (
    Binding,
    bindings_of_name,
    class_attribute_bindings,
    is_import,
    location,
    module_bindings,
    module_qualified_names,
    qualified_names,
)
from asynccfg_lint.analysis.tracer import MAX_DEPTH, DictTracer

#: how a project module is found: dotted module name -> its parse, or ``None``
ModuleLoader = Callable[[str], "ParsedModule | None"]


@dataclass(frozen=True, eq=False)
class Foreign:
    """A binding of a top-level name (or class attribute) in another module.

    Attributes:
        home: the module that binds it; the binding's nodes belong to ``home``.
        binding: how it is bound there.
    """

    home: ParsedModule
    binding: Binding


class Workspace:
    """Per-check registry of modules with their tracers and classifiers.

    Args:
        checked: the module being checked.
        modules: finds a project module by dotted name (``Project.module``); ``None`` keeps the
            check within ``checked`` (names imported from other modules stay unknown).
        sanitizers: qualified names of functions whose result is JSON-safe (every classifier).
        objects: whether the tracers may ask the classifiers what an object is (``obj.config()``);
            the summaries' workspace (:meth:`for_summary`) does not.
    """

    def __init__(self, checked: ParsedModule, modules: ModuleLoader | None = None,
                 sanitizers: frozenset[str] = frozenset(), objects: bool = True) -> None:
        self.checked = checked
        self._modules = modules
        self._sanitizers = sanitizers
        self._objects = objects
        self._homes: dict[str, ParsedModule | None] = {checked.name.name: checked}
        self._tracers: dict[int, DictTracer] = {}
        self._classifiers: dict[int, ValueClassifier] = {}
        self._bind_views: dict[int, ValueClassifier] = {}
        self._call_graph: CallGraph | None = None

    @property
    def call_graph(self) -> CallGraph:
        """The check's call graph over callables kept in data (:mod:`~asynccfg_lint.analysis.callees`)."""
        if self._call_graph is None:
            self._call_graph = CallGraph(self)
        return self._call_graph

    def tracer(self, parsed: ParsedModule) -> DictTracer:
        """The dict tracer of ``parsed`` (one per module per check)."""
        if id(parsed) not in self._tracers:
            self._tracers[id(parsed)] = DictTracer(parsed, self)
        return self._tracers[id(parsed)]

    def classifier(self, parsed: ParsedModule) -> ValueClassifier:
        """The value classifier of ``parsed`` (one per module per check)."""
        if id(parsed) not in self._classifiers:
            self._classifiers[id(parsed)] = ValueClassifier(parsed, self.tracer(parsed), self._sanitizers, self)
        return self._classifiers[id(parsed)]

    def bind_view(self, parsed: ParsedModule) -> ValueClassifier:
        """The classifier of ``parsed`` that takes a registered rule's annotated keywords from the module's
        binds instead of their annotations (one per module per check, made when a rule has such a keyword)."""
        if id(parsed) not in self._bind_views:
            self._bind_views[id(parsed)] = ValueClassifier(parsed, self.tracer(parsed), self._sanitizers, self,
                                                           bind_view=True)
        return self._bind_views[id(parsed)]

    def for_summary(self, parsed: ParsedModule) -> Workspace:
        """A workspace of the same project for summarising ``parsed`` (:func:`asynccfg_lint.analysis.summaries.summarise_module`):
        its tracers follow builders imported from other modules, without classifiers."""
        return Workspace(parsed, self._modules, self._sanitizers, objects=False)

    def consulted(self) -> dict[str, ParsedModule | None]:
        """The other modules looked up so far, by dotted name (``None``: not a project module)."""
        return {name: home for name, home in self._homes.items() if name != self.checked.name.name}

    def foreign(self, parsed: ParsedModule, expr: cst.BaseExpression) -> list[Foreign] | None:
        """The bindings in other project modules that ``expr`` (in ``parsed``) refers to.

        ``expr`` is a name bound only by imports, or a dotted attribute of an imported module
        (``defaults.TIMEOUT``). Returns ``None`` when it is neither, when its qualified name is
        ambiguous or outside the project, or when resolution stops at something unknowable.
        """
        if self._modules is None:
            return None
        if isinstance(expr, cst.Name):
            bindings = bindings_of_name(parsed, expr)
            if not bindings or not all(is_import(b) for b in bindings):
                return None
        elif not isinstance(expr, cst.Attribute):
            return None
        names = qualified_names(parsed, expr)
        if len(names) != 1:
            return None
        return self._lookup(next(iter(names)), 0)

    def module(self, name: str) -> ParsedModule | None:
        """The project module of dotted name ``name`` (parsed once per check), else ``None``: a whole parse, as its
        callers scan all of it (its binds, hooks, registrations, wrappers), unless this check already reads a
        skeleton of it (whose scans ask for the parts they need: :mod:`~asynccfg_lint.analysis.elision`)."""
        return self._home(name, whole=True)

    def unchanged(self, read: dict[str, ParsedModule | None]) -> bool:
        """Whether the project still gives the parses ``read`` (:meth:`consulted` of an earlier check) for their
        modules: the same whole parses or skeletons, nothing parsed anew to tell."""
        return all(self._home(name) is home for name, home in read.items())

    def named_elsewhere(self, word: str, module: str) -> bool:
        """True when a project module other than ``module`` has the identifier ``word`` in its text.

        Asked of a loader that can search the project's texts (a ``Project``, a task's loader:
        their ``naming``); with another loader, or none, only the checked module is visible.
        """
        return any(name != module for name in self.naming(word))

    def may_mention(self, qualified: str, word: str) -> bool:
        """False when the project module holding ``qualified`` (its longest dotted prefix that is a module)
        has no identifier ``word`` in its text, or there is none: a cheap test before parsing it (a loader's
        ``mentions``); True when the loader cannot tell (no such test)."""
        mentions = getattr(self._modules, "mentions", None)
        if mentions is None:
            return self._modules is not None
        module = qualified
        while "." in module:
            module = module.rpartition(".")[0]
            if (found := mentions(module, word)) is not None:
                return found
        return False

    def naming(self, word: str) -> tuple[str, ...]:
        """The dotted names of the project modules whose text has the identifier ``word`` (a loader's
        ``naming``, :meth:`asynccfg_lint.run.project.Project.naming`); none with another loader, or none."""
        naming = getattr(self._modules, "naming", None)
        word = table_name(word)
        return naming(word) if naming is not None else ()

    def _home(self, name: str, member: str | None = None, whole: bool = False) -> ParsedModule | None:
        """The project module ``name`` (once per check). Unless ``whole``, a loader that can (a task's: ``part``)
        may give a skeleton that keeps its top-level ``member`` (:meth:`asynccfg_lint.run.project.Project.skeleton_of`)."""
        if name not in self._homes:
            part = None if whole else getattr(self._modules, "part", None)
            # (a skeleton keeps, besides ``member``, what the checked module may read of it: ``helpers.build_1`` too)
            self._homes[name] = (part(name, member, self.checked.read_words) if part is not None
                                 else self._modules(name)) if self._modules is not None else None
        return self._homes[name]

    def _lookup(self, qualified: str, depth: int) -> list[Foreign] | None:
        """Split ``qualified`` into the longest project module and the names inside it."""
        parts = [table_name(part) for part in qualified.split(".")]
        for cut in range(len(parts) - 1, 0, -1):
            home = self._home(".".join(parts[:cut]), parts[cut])
            if home is not None:
                return self._member(home, parts[cut:], depth)
        return None

    def _member(self, home: ParsedModule, names: list[str], depth: int) -> list[Foreign] | None:
        if depth > MAX_DEPTH or len(names) > 2:
            return None
        bindings = module_bindings(home, names[0])
        if bindings is None:
            return None
        if all(is_import(b) for b in bindings):  # a re-export: follow it to where it is defined
            targets = module_qualified_names(home, names[0])
            return self._lookup(".".join([next(iter(targets)), *names[1:]]), depth + 1) if len(targets) == 1 else None
        if any(is_import(b) for b in bindings):
            return None
        if len(names) == 2:  # Class.attr
            if len(bindings) != 1 or not isinstance(bindings[0].definition, cst.ClassDef):
                return None
            bindings = class_attribute_bindings(home, bindings[0].definition, names[1])
            if bindings is None:
                return None
        return [Foreign(home, binding) for binding in bindings]

    def instance_methods(self, parsed: ParsedModule, expr: cst.BaseExpression, name: str,
                         depth: int) -> list[tuple[ParsedModule, cst.FunctionDef] | None]:
        """For each origin of ``expr``'s value, the method ``name`` of the project class it is an instance
        of, with the class's module (``None``: not such an instance, or no such method).

        What the tracer needs of the classifier to follow ``obj.config()`` (:class:`~asynccfg_lint.analysis.tracer.TracerPeers`);
        nothing in a summary's workspace.
        """
        if not self._objects:
            return []
        classifier = self.classifier(parsed)
        found: list[tuple[ParsedModule, cst.FunctionDef] | None] = []
        for origin in map(classifier._with_class, classifier.origins(expr, depth)):
            method = class_function(origin.inferred.cls, name) if origin.inferred.cls is not None else None
            # an instance of another module's class counts only where it is built here (no source there)
            local = origin.home is None or origin.source is None and isinstance(origin.node, cst.Call)
            found.append((origin.home or parsed, method) if method is not None and local else None)
        return found

    def written_elsewhere(self, parsed: ParsedModule, expr: cst.BaseExpression,
                          depth: int) -> tuple[ParsedModule, cst.BaseExpression] | None:
        """The module and expression where ``expr``'s one value is written, when that is another project module
        (``PRESET`` of ``from .options import PRESET``); else ``None``. Nothing in a summary's workspace."""
        if not self._objects:
            return None
        origins = self.classifier(parsed).origins(expr, depth)
        if len(origins) != 1 or origins[0].home is None or not isinstance(origins[0].source, cst.BaseExpression):
            return None
        return origins[0].home, origins[0].source

    def sequences(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int) -> list[cst.BaseExpression | None]:
        """For each origin of ``expr``'s value, the list or tuple display of ``parsed`` that makes it (``None``: not
        such a display): the pairs a bind passes for a rule's ``table`` that the rule turns into ``dict(table)``.
        What the tracer needs of the classifier (:class:`~asynccfg_lint.analysis.tracer.TracerPeers`); nothing in a
        summary's workspace."""
        if not self._objects:
            return []
        return [o.node if o.home is None and isinstance(o.node, (cst.List, cst.Tuple)) else None
                for o in self.classifier(parsed).origins(expr, depth)]

    def constructions(self, parsed: ParsedModule, expr: cst.BaseExpression, depth: int,
                      bound: cst.Param | None = None) -> list[cst.Call | None]:
        """For each origin of ``expr``'s value, the call of a class of ``parsed`` that makes it (``None``: not
        such an instance): ``Knobs(Level.FAST, 2)`` passed for a rule's ``knobs``. What the tracer needs
        of the classifier to follow ``knobs._asdict()`` (:class:`~asynccfg_lint.analysis.tracer.TracerPeers`);
        nothing in a summary's workspace. With ``bound``, the annotated keyword of a registered rule
        that ``expr`` names: what the module's binds pass for it (the bind view), nothing when none does
        (:meth:`~asynccfg_lint.analysis.infer.parameters.ParameterInference.bound_by_visible_binds`)."""
        if not self._objects:
            return []
        classifier = self.classifier(parsed)
        if bound is not None:
            if not classifier.bound_by_visible_binds(bound):
                return []
            classifier = self.bind_view(parsed)
        origins = [classifier._with_class(o) for o in classifier.origins(expr, depth)]
        # (an instance of another module's class built here has that module as home, but no source there)
        return list(dict.fromkeys(o.node if isinstance(o.node, cst.Call) and o.inferred.cls is not None
                                  and o.source is None else None for o in origins))

    def location(self, home: ParsedModule, node: cst.CSTNode) -> str:
        """``path:line`` of ``node`` in ``home``, its path in the form of the checked module's
        (:func:`asynccfg_lint.analysis.resolution.location`)."""
        return location(home, node, self.checked.path)
