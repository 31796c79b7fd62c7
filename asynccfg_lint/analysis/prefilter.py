"""Prefilter stage: skip the parse when the text cannot contain a sink call.

Every way to reach a sink (import, alias, ``functools.partial``) names the sink's last
dotted component somewhere in the file, so a file without any of those names has no finding.
A wrapper (derived sink) is also reached only from its own module or through an import that
names that module.

:class:`SinkIndex` matches one file against every sink of a run at once (a run with thousands
of wrappers must not test each wrapper on each file), and :class:`SinkNames` finds, without
libcst, the modules of a package whose summaries a file can need at all.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from asynccfg_lint.analysis.jax_facts import SinkSpec

#: up to this many names asked at once, a file is searched for each name as a substring; above it, a name must be a word
SUBSTRING_NAMES = 24
#: what a text that calls a primitive's ``bind`` (:attr:`SinkSpec.binds`) has: every form of the call names it
#: (``p.bind(...)``, ``partial(p.bind, ...)``, ``getattr(p, "bind")``); a text that names the primitive only
#: (``jax/lax/__init__.py`` re-exports it, ``rooflines.py`` registers a cost model for it) cannot bind it
BIND = ("bind",)
#: above this many names asked at once, a file's words are listed once and intersected with them
LISTED_NAMES = 96
_WORD = re.compile(r"\w+")


def mentions_sink(source: str | bytes, sink_names: Iterable[str]) -> bool:
    """Return True when ``source`` contains one of ``sink_names`` as a substring.

    Args:
        source: the file's text, or its raw bytes (names are encoded as UTF-8, so no decode is needed).
        sink_names: short (unqualified) names, e.g. ``_emit_async_start_custom_call``.
    """
    if isinstance(source, bytes):
        return any(name.encode("utf-8") in source for name in sink_names)
    return any(name in source for name in sink_names)


class _Mentions:
    """Which names one file's text mentions: a substring test per name for a few names; once a call
    asks about more than :data:`SUBSTRING_NAMES` at once, whether each is one of the text's
    identifiers (a word, as ``\\w+`` lists them), for that call and every later one.

    A name is one of the words exactly when it occurs with no word character on either side. Up to
    :data:`LISTED_NAMES` names, each is tested so after a substring search: listing every identifier
    of a large file costs about 90 such searches (``jax/_src/lax/parallel.py``). A call about more
    names lists the words once and intersects (the smaller set is walked): a package of 2,000 wrapper
    modules asked each file about 2,000 module names, one search each, quadratic in the package.
    """

    def __init__(self, source: str | bytes) -> None:
        self.source = source
        self.text: str | None = None  # the decoded text, once names are matched as words
        self._words: dict[str, bool] = {}
        self._listed: set[str] | None = None  # every word of the text, once a call asked about many names

    def __call__(self, name: str) -> bool:
        if self.text is not None:
            return self._is_word(name)
        return mentions_sink(self.source, (name,))

    def among(self, names: frozenset[str]) -> Iterable[str]:
        """The members of ``names`` the text mentions."""
        if self.text is None and len(names) > SUBSTRING_NAMES:
            self.text = self.source.decode("utf-8", "replace") if isinstance(self.source, bytes) else self.source
        if self.text is None:
            return [name for name in names if mentions_sink(self.source, (name,))]
        if self._listed is None and len(names) > LISTED_NAMES:
            self._listed = set(_WORD.findall(self.text))
        if self._listed is not None:
            return names & self._listed
        return {name for name in names if self._is_word(name)}

    def _is_word(self, name: str) -> bool:
        if self._listed is not None:
            return name in self._listed
        known = self._words.get(name)
        if known is None:
            assert self.text is not None
            known = self._words[name] = _WORD.fullmatch(name) is not None and _occurs_as_word(self.text, name)
        return known


def _occurs_as_word(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` with no word character (``\\w``: alphanumeric or ``_``) on
    either side: where ``\\w+`` would list it."""
    return next(word_starts(text, name), None) is not None


def word_starts(text: str, name: str) -> Iterator[int]:
    """The 0-based offsets in ``text`` where ``name`` occurs as a word (no word character on either side), in order.

    A substring search per occurrence (a pattern with a lookbehind is searched character by character,
    several times slower).
    """
    start = text.find(name)
    while start != -1:
        end = start + len(name)
        if (start == 0 or not _word_character(text[start - 1])) and (end == len(text) or not _word_character(text[end])):
            yield start
        start = text.find(name, start + 1)


def _word_character(character: str) -> bool:
    return character.isalnum() or character == "_"


class SinkIndex:
    """The sinks of a run indexed by the names a file must mention to call them (see :func:`may_call`).

    Built once per set of sinks; :meth:`matching` then costs one pass over a file's text (its
    identifiers, or a few substring tests when the index has few names), whatever the number of
    wrappers: a project of 2,000 wrappers no longer tests each wrapper on each file.
    """

    def __init__(self, sinks: Iterable[SinkSpec]) -> None:
        self.sinks = tuple(sinks)
        #: short name -> the built-in and configured specs of that name
        self._plain: dict[str, list[SinkSpec]] = {}
        #: wrapper module -> short name -> its wrappers of that name
        self._own: dict[str, dict[str, list[SinkSpec]]] = {}
        #: last component of a wrapper module -> short name -> wrappers
        self._wrappers: dict[str, dict[str, list[SinkSpec]]] = {}
        for spec in self.sinks:
            for name in spec.short_names:
                if spec.wrapper_module is None:
                    self._plain.setdefault(name, []).append(spec)
                    continue
                self._own.setdefault(spec.wrapper_module, {}).setdefault(name, []).append(spec)
                module_short = spec.wrapper_module.rpartition(".")[2]
                self._wrappers.setdefault(module_short, {}).setdefault(name, []).append(spec)
        self._plain_names = frozenset(self._plain)
        self._module_names = frozenset(self._wrappers)
        self._names_of = {short: frozenset(names) for short, names in self._wrappers.items()}
        self._order = {spec: index for index, spec in reversed(list(enumerate(self.sinks)))}

    def matching(self, source: str | bytes, module: str, own: bool = True) -> list[SinkSpec]:
        """The sinks the module ``module`` (its text or bytes ``source``) may call, in index order.

        With ``own=False`` the module's own wrappers do not count (a project's later rounds:
        each module is already closed over its own wrappers), except the sinks of its primitives' ``bind``
        (:attr:`SinkSpec.binds`) whose rule another module registers: its summary made them (``lowering.py``
        registers the rule of the primitive ``primitives.py`` defines and binds).
        """
        if not self.sinks:
            return []
        mentioned = _Mentions(source)
        found: dict[SinkSpec, None] = {}
        for name in mentioned.among(self._plain_names):
            found.update(dict.fromkeys(self._plain[name]))
        for name, specs in self._own.get(module, {}).items():
            if mentioned(name):
                found.update(dict.fromkeys(spec for spec in specs if own or spec.binds and _registered_elsewhere(spec, module)))
        for short in mentioned.among(self._module_names):
            for name in mentioned.among(self._names_of[short]):
                found.update(dict.fromkeys(spec for spec in self._wrappers[short][name]
                                           if spec.wrapper_module != module))
        if not mentions_sink(source, BIND):  # (a primitive named, never bound: re-exported, registered elsewhere)
            return sorted((spec for spec in found if not spec.binds), key=self._order.__getitem__)
        return sorted(found, key=self._order.__getitem__)


def _registered_elsewhere(spec: SinkSpec, module: str) -> bool:
    """Whether the rule of the ``bind`` sink ``spec`` is registered for a primitive of ``module`` by another module
    (:attr:`SinkSpec.registered_in`, else its ``used_at`` is not one of ``module``'s names): that module's summary
    made the sink."""
    if spec.registered_in is not None:
        return spec.registered_in != module
    return spec.used_at is not None and not spec.used_at.startswith(f"{module}.")


def may_call(source: str | bytes, module: str, spec: SinkSpec) -> bool:
    """Whether the module ``module`` (its text or bytes ``source``) may call ``spec``: substring tests.

    A built-in or configured sink must be named. A wrapper (``spec.wrapper_module`` set) must be
    named, and the file must be that module or mention its last dotted component: wrapper names
    such as ``lower`` are common words, and the module's name keeps the prefilter from parsing
    every file that contains them. A primitive's ``bind`` also needs the text to say ``bind`` (:data:`BIND`).
    """
    if not mentions_sink(source, spec.short_names) or spec.binds and not mentions_sink(source, BIND):
        return False
    if spec.wrapper_module is None or spec.wrapper_module == module:
        return True
    return mentions_sink(source, {spec.wrapper_module.rpartition(".")[2]})


def may_call_any(source: str | bytes, module: str, sinks: Iterable[SinkSpec], own: bool = True) -> bool:
    """Whether ``source`` may call one of ``sinks`` (see :func:`may_call`).

    With ``own=False`` the module's own wrappers do not count (a project's later rounds: each
    module is already closed over its own wrappers).
    """
    return any(may_call(source, module, spec) for spec in sinks if own or spec.wrapper_module != module)


# --- which modules' summaries a file can need ---------------------------------------------------

#: :class:`SinkNames` gives up (every module may matter) beyond this many names or rounds
MAX_SINK_NAMES = 400
MAX_NAME_ROUNDS = 12


class SinkNames:
    """The names through which a call may reach a sink, and the modules that bind them (no libcst).

    A wrapper is a top-level function whose body calls a sink or another wrapper, by a name
    bound in its module: the sink's own name, an import alias (``import ... as emit``), a name
    assigned an expression that mentions one (``emit = P._emit``, ``send = partial(emit, ...)``),
    a re-export (``from .impl import send``). Starting from the sinks' short names, every module
    whose text mentions such a name (and, for a name bound in another module, that module's last
    component, as :func:`may_call` asks) is read with Python's ``ast``, and what it binds through
    them is added, to a fixed point. A module that binds none of these names cannot define a
    wrapper, so a file needs the summaries only of the modules it reaches through them
    (:meth:`reach`): a file that names no sink and none of them needs none.

    Args:
        sources: path -> bytes of every module of the project (unreadable ones left out).
        modules: path -> the module's dotted name.
        sinks: the built-in and configured sinks.
        units_of: ``(path, bytes)`` -> the module's :func:`module_units` (default: computed; the
            project reads them from the result cache).
    Attributes:
        homes: name -> the dotted names of the modules binding it (``None``: a sink's own name,
            reachable from anywhere); ``None`` when the names grew past :data:`MAX_SINK_NAMES`
            (then every module may matter).
    """

    def __init__(self, sources: Mapping[str, bytes], modules: Mapping[str, str], sinks: Iterable[SinkSpec],
                 units_of: Callable[[str, bytes], list[Unit] | None] | None = None) -> None:
        units_of = units_of or (lambda path, source: module_units(source))
        self.sources = sources
        self.modules = modules
        self._paths: dict[str, list[str]] = {}  # a module may have two files (``mod.py`` and ``mod.pyi``)
        for path, module in modules.items():
            self._paths.setdefault(module, []).append(path)
        homes: dict[str, set[str | None]] = {name: {None} for spec in sinks for name in spec.short_names}
        self.homes: dict[str, set[str | None]] | None = homes
        pending = dict(homes)
        units: dict[str, list[Unit] | None] = {}
        for _ in range(MAX_NAME_ROUNDS):
            if not pending:
                return
            found: dict[str, set[str | None]] = {}
            new_names = 0  # names of ``found`` not yet in ``homes``: the round ends with this many more
            test = _NameTest(pending)
            for path, source in sources.items():
                if not test(source, modules[path]):
                    continue
                if path not in units:
                    units[path] = units_of(path, source)
                if units[path] is None:  # Python cannot parse it: any of its words may be bound
                    bound = set(_WORD.findall(_text(source)))
                else:
                    bound = {name for names, mentioned in units[path] if not mentioned.isdisjoint(homes)
                             for name in names}
                for name in bound:
                    if modules[path] not in homes.get(name, ()):
                        if name not in found and name not in homes:
                            new_names += 1
                        found.setdefault(name, set()).add(modules[path])
                # the names only grow within a round: once past the limit, the rest of it cannot
                # change the answer (on jax the third round's first module passes it, before 60 more)
                if len(homes) + new_names > MAX_SINK_NAMES:
                    break
            for name, where in found.items():
                homes.setdefault(name, set()).update(where)
            if len(homes) > MAX_SINK_NAMES:
                break
            pending = found
        self.homes = None

    def reach(self, starts: Iterable[str | bytes]) -> set[str] | None:
        """The paths of the modules whose summaries code with the texts ``starts`` may need.

        The modules binding a name a text mentions (with that module's last component, or
        being that module), and so on from each of them. A text that says ``bind`` (:data:`BIND`)
        needs no import of the module: a registration ties a primitive to its rule wherever it is
        written (``lowering.py`` registers the rule of ``api.py``'s ``gather_p.bind``, and neither
        imports the other). ``None``: every module may (the names grew past the limit).
        """
        if self.homes is None:
            return None
        by_home: dict[str, set[str]] = {}
        for name, where in self.homes.items():
            for home in where:
                if home is not None:
                    by_home.setdefault(home, set()).add(name)
        reached: set[str] = set()
        stack = list(starts)
        while stack:
            text = stack.pop()
            binds = mentions_sink(text, BIND)
            for home, names in by_home.items():
                paths = [path for path in self._paths.get(home, ()) if path not in reached]
                if not paths or not mentions_sink(text, names) \
                        or not binds and not mentions_sink(text, (home.rpartition(".")[2],)):
                    continue
                reached.update(paths)
                stack.extend(self.sources[path] for path in paths)
        return reached


class _NameTest:
    """Whether a module's bytes mention one of ``names`` (name -> the modules binding it, ``None``: anywhere):
    a name bound anywhere, or one bound in this module or in a module whose last component it mentions
    or, in a text that says ``bind``, in any module (tested first: a few module names, then one pattern of
    their names)."""

    def __init__(self, names: Mapping[str, set[str | None]]) -> None:
        by_home: dict[str | None, list[str]] = {}
        for name, where in names.items():
            for home in where:
                by_home.setdefault(home, []).append(name)
        # a few names: substring searches (fast on long texts); many: one pattern (an alternation is
        # slower per byte than a substring search, faster than many of them)
        self.tests = [(home, home.rpartition(".")[2].encode("utf-8") if home else b"",
                       [name.encode("utf-8") for name in bound] if len(bound) <= 4 else
                       re.compile(b"|".join(re.escape(name.encode("utf-8")) for name in sorted(bound))).search)
                      for home, bound in by_home.items()]

    def __call__(self, source: bytes, module: str) -> bool:
        binds = mentions_sink(source, BIND)  # a registration elsewhere ties a bound primitive's name (SinkNames.reach)
        for home, short, names in self.tests:
            if home is None or home == module or binds or short in source:
                if names(source) if callable(names) else any(name in source for name in names):
                    return True
        return False


def _text(source: bytes) -> str:
    return source.decode("utf-8", "replace")


def _ast_of(source: bytes) -> ast.Module | None:
    """``source`` parsed by Python, or ``None`` (then every identifier of it counts as bound)."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def module_units(source: bytes) -> list[Unit] | None:
    """The :func:`binding_units` of a module's bytes; ``None`` when Python cannot parse them."""
    tree = _ast_of(source)
    return binding_units(tree, _text(source)) if tree is not None else None


def _identifiers(lines: list[str], node: ast.AST) -> frozenset[str]:
    """Every word of ``node``'s source lines: the names its code mentions, and more (strings, comments)."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return frozenset(_WORD.findall("".join(lines[first - 1:node.end_lineno])))


def _targets(statement: ast.Assign | ast.AnnAssign | ast.AugAssign) -> set[str]:
    """The names an assignment binds (tuple and list targets unpacked; not attributes or subscripts)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, ast.Starred):
            targets.append(target.value)
    return names


#: one way a module binds names: (the names bound, the names its code mentions)
Unit = tuple[frozenset[str], frozenset[str]]


def binding_units(tree: ast.Module, text: str) -> list[Unit]:
    """The module-level bindings of ``tree`` that may make a name lead to a sink, each with what it mentions.

    A function (at module level, also inside ``if``/``try``) or a class, with the names its
    functions declare ``global``; an import (each name, under its alias); an assignment's names
    with what the assigned expression mentions (the aliases the sink finder follows: ``emit =
    P._emit``, ``send = partial(emit, ...)``); a class's attributes (``Cls.emit``, ``self.emit``).
    Loop and ``with`` targets are not aliases the sink finder follows, so they are not units.
    A registration makes a primitive's ``bind`` a sink (:mod:`asynccfg_lint.analysis.programs`): a
    module-level call (``mlir.register_lowering(prim, rule)``), a function's decorators
    (``@partial(mlir.register_lowering, prim)``) and a ``for`` loop's iterable (``for p, f in
    [(prim, rule)]: ...``) bind every name they mention when they mention a sink's name.
    What a unit mentions is every word of its lines (``text`` is the module's source).
    """
    lines = text.splitlines(keepends=True)
    units: list[Unit] = []
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = {statement.name}
            mentioned = _identifiers(lines, statement)
            for decorator in statement.decorator_list:  # a registration by decorator names the primitive
                bound.update(_identifiers(lines, decorator))
            if isinstance(statement, ast.ClassDef):
                statements.extend(statement.body)
            elif "global" in mentioned:
                bound.update(name for node in ast.walk(statement) if isinstance(node, ast.Global) for name in node.names)
            units.append((frozenset(bound), mentioned))
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            units.extend((frozenset({(alias.asname or alias.name).partition(".")[0]}),
                          frozenset({alias.name.rpartition(".")[2]})) for alias in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if statement.value is not None:
                units.append((frozenset(_targets(statement)), _identifiers(lines, statement.value)))
        elif isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Constant):
            # mlir.register_lowering(prim, rule): binds prim's bind (a docstring binds nothing)
            mentioned = _identifiers(lines, statement)
            units.append((mentioned, mentioned))
        else:  # compound statements: their bodies run at module level
            if isinstance(statement, (ast.For, ast.AsyncFor)):  # registrations in a loop over (prim, rule) rows
                units.append((_identifiers(lines, statement.iter), _identifiers(lines, statement)))
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                for item in getattr(statement, field, ()):
                    statements.extend(item.body if isinstance(item, (ast.ExceptHandler, ast.match_case)) else [item])
    return units
