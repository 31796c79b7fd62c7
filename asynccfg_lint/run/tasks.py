"""One file's analysis in a project run: the unit of work a process runs and the cache stores.

A task carries everything the analysis of one file depends on (its bytes, display path, the
known sinks it may call, and for a checked file its selection and sanitizers), so it can run in a
worker process and its outcome can be cached under a digest of it. Importing this module does
not import libcst: a run whose files all fail the prefilter, or whose outcomes are all cached,
never loads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from asynccfg_lint.diagnostics import UNSAFE, Coverage, Diagnostic
from asynccfg_lint.analysis.jax_facts import SinkSpec
from asynccfg_lint.run.collector import collector_paused
from asynccfg_lint.run.selection import Selection

if TYPE_CHECKING:
    from asynccfg_lint.analysis.parse import ParsedModule


class ModuleSource(Protocol):
    """Where a task finds the project's other modules (a :class:`~asynccfg_lint.run.project.Project`)."""

    def module_path(self, name: str) -> str | None:
        """The project file of the dotted module ``name``, or ``None``."""

    #: whether a task's own parse is kept for later (:meth:`parsed`), or only a parse already kept is reused
    keep_analysed: bool

    def source(self, path: str) -> bytes | None:
        """The bytes of ``path``, or ``None`` when it cannot be read."""

    def kept(self, path: str) -> ParsedModule | None:
        """``path``'s whole parse if one is kept, else ``None`` (parses only when a skeleton of it is kept)."""

    def parsed(self, path: str) -> ParsedModule | None:
        """``path`` parsed, or ``None`` when it cannot be read or parsed."""

    def skeleton_of(self, path: str, member: str | None = None, read: frozenset[str] = frozenset()) -> ParsedModule | None:
        """``path`` parsed for reading ``member`` and ``read``: perhaps a skeleton
        (:meth:`asynccfg_lint.run.project.Project.skeleton_of`)."""

    def parse_whole(self, path: str) -> None:
        """Parse ``path`` whole in its next :meth:`skeleton_of`, and from then on; so too every module a skeleton
        of is kept now; and make no skeleton any more (:attr:`skeletons`)."""

    def drop_facts(self) -> None:
        """Drop the facts the analysis kept on the parses held (a task starts again over a new parse of its file)."""

    #: whether :meth:`skeleton_of` may give skeletons
    skeletons: bool

    def digest(self, path: str) -> str | None:
        """A digest of ``path``'s bytes, or ``None`` when it cannot be read."""

    def naming(self, word: str) -> tuple[str, ...]:
        """The dotted names of the project's modules whose text has the identifier ``word``."""

    def mentions(self, name: str, word: str) -> bool | None:
        """Whether the project module ``name``'s text has the identifier ``word``; ``None``: no such module."""

    def file_modules(self) -> list[tuple[str, str]]:
        """``(dotted module name, path)`` of every file of the project."""

    def files_digest(self) -> str:
        """A digest of the project's list of files (it changes when a file is added or removed)."""


#: a module the analysis looked up: (dotted name, its project file or None, that file's digest or None);
#: or (:data:`PROJECT_FILES`, None, the digest of the project's list of files)
Dependency = tuple[str, "str | None", "str | None"]
#: the dependency name of an answer that depends on which files the project has (``naming``)
PROJECT_FILES = "<project files>"


@dataclass(frozen=True)
class CheckSettings:
    """How a checked file is reported (the settings that change its diagnostics).

    Attributes:
        selection: the rule codes reported.
        sanitizers: qualified names of functions whose result is JSON-safe.
        apply_noqa: honour ``# noqa`` comments (the flake8 plugin leaves them to flake8).
    """

    selection: Selection = Selection()
    sanitizers: frozenset[str] = frozenset()
    apply_noqa: bool = True


@dataclass(frozen=True)
class FileTask:
    """The analysis of one file with the sinks known so far.

    Attributes:
        path: the display path (also gives the module's dotted name).
        source: the file's bytes.
        sinks: the known sinks (built-in, configured, derived) that the file may call; the
            analysis cannot depend on the others (the prefilter's premise).
        check: how to report the file, or ``None`` to only summarise it (a package sibling of
            a checked file, read for its wrappers).
    """

    path: str
    source: bytes
    sinks: tuple[SinkSpec, ...]
    check: CheckSettings | None = None


@dataclass(frozen=True)
class FileOutcome:
    """What the analysis of a :class:`FileTask` found (picklable and JSON-serialisable).

    Attributes:
        diagnostics: the selected, unsuppressed diagnostics with their fixes, sorted by
            position (empty when the task only summarises).
        wrappers: the derived sinks the file defines (wrappers that forward to a sink).
        dependencies: every other module the analysis looked up (builders and constants
            imported from them), so a cached outcome is used only while they are unchanged.
        coverage: the file's sink calls, and those with values not followed (none when the task only
            summarises).
    """

    diagnostics: tuple[Diagnostic, ...] = ()
    wrappers: frozenset[SinkSpec] = field(default_factory=frozenset)
    dependencies: tuple[Dependency, ...] = ()
    coverage: Coverage = Coverage()

    def unsafe_fixes(self) -> int:
        """How many of the diagnostics have an unsafe fix."""
        return sum(1 for d in self.diagnostics if d.fix is not None and d.fix.safety == UNSAFE)

    def has_fix(self, unsafe: bool) -> bool:
        """Whether a fix would be applied: a diagnostic has a safe fix, or an unsafe one and ``unsafe``."""
        return any(d.fix is not None and (unsafe or d.fix.safety != UNSAFE) for d in self.diagnostics)


class _RecordingLoader:
    """The module loader of one task: finds modules through ``source`` and records each lookup. ``own``: the task's
    parse, given for its own module (another workspace of the task, a summary's, may look it up by name)."""

    def __init__(self, source: ModuleSource, own: ParsedModule | None = None) -> None:
        self.source = source
        self.own = own
        self.seen: dict[str, Dependency] = {}

    def __call__(self, name: str) -> ParsedModule | None:
        path = self.source.module_path(name)
        self.seen[name] = (name, path, self.source.digest(path) if path is not None else None)
        if self.own is not None and path == self.own.path:
            return self.own
        return self.source.parsed(path) if path is not None else None

    def part(self, name: str, member: str | None = None, read: frozenset[str] = frozenset()) -> ParsedModule | None:
        """The module ``name`` parsed for reading its top-level ``member`` and the names ``read`` (perhaps a skeleton,
        see :meth:`ModuleSource.skeleton_of`); the lookup is recorded."""
        path = self.source.module_path(name)
        self.seen[name] = (name, path, self.source.digest(path) if path is not None else None)
        if self.own is not None and path == self.own.path:
            return self.own
        return self.source.skeleton_of(path, member, read) if path is not None else None

    def mentions(self, name: str, word: str) -> bool | None:
        """As :meth:`asynccfg_lint.run.project.Project.mentions`, the module recorded as a lookup is."""
        path = self.source.module_path(name)
        self.seen[name] = (name, path, self.source.digest(path) if path is not None else None)
        return self.source.mentions(name, word)

    def naming(self, word: str) -> tuple[str, ...]:
        """As :meth:`ModuleSource.naming`; the outcome then depends on every file of the project (one
        that starts naming ``word`` changes the answer), so each is recorded, and so is the list of
        files (an added file may name it)."""
        for name, path in self.source.file_modules():
            self.seen.setdefault(name, (name, path, self.source.digest(path)))
        self.seen[PROJECT_FILES] = (PROJECT_FILES, None, self.source.files_digest())
        return self.source.naming(word)


def _parse(task: FileTask, modules: ModuleSource | None) -> ParsedModule:
    """The task's file parsed whole: the project's kept parse when it holds these bytes, else parsed
    here (and kept when the project keeps what it analyses: the language server, whose check of
    the document then does not parse it again; a CLI run frees each parse after its task).

    Raises:
        ParseFailure: as :func:`~asynccfg_lint.analysis.parse.parse_source`.
    """
    from asynccfg_lint.analysis.parse import parse_source

    if modules is not None and modules.source(task.path) == task.source:
        kept = modules.parsed(task.path) if modules.keep_analysed else modules.kept(task.path)
        if kept is not None:
            return kept
    return parse_source(task.source, task.path)


def analyse_task(task: FileTask, modules: ModuleSource | None = None) -> FileOutcome:
    """Parse the task's file, close it over its own wrappers and, when asked, check it.

    ``modules`` gives the project's other modules, to follow builders and constants imported
    from them (``None``: the file alone). A file that cannot be decoded or parsed has no
    wrappers and, when checked with ACC001 selected, its ACC001 diagnostic; so does a file on which
    libcst or the analysis raises (an internal error, never an exception out of here). Runs in worker
    processes: the libcst-based stages are imported here, on the first file that needs them.
    """
    try:
        with collector_paused():  # the file's tree and scopes are freed together when it resumes
            return _analyse(task, modules)
    except Exception as error:  # noqa: BLE001 - the per-file error boundary: this file's ACC001, the run goes on
        from asynccfg_lint.run.boundary import internal_error

        diagnostic = internal_error(task.path, error)
        if task.check is None or not task.check.selection.is_enabled("ACC001"):
            return FileOutcome()
        return FileOutcome((diagnostic,))


def _analyse(task: FileTask, modules: ModuleSource | None) -> FileOutcome:
    from asynccfg_lint.analysis.checker import parse_failure_diagnostic
    from asynccfg_lint.analysis.parse_failure import ParseFailure

    try:
        return _with_skeletons(task, modules)
    except ParseFailure as failure:  # the file cannot be parsed, or a deep file's analysis ran out of time
        if task.check is None or not task.check.selection.is_enabled("ACC001"):
            return FileOutcome()
        return FileOutcome((parse_failure_diagnostic(task.path, failure),))


#: a task's analysis starts again at most this often because it read what a skeleton of another module left out
#: (that module, and every other one, parsed whole from then on; past this, the file's internal error, never a hang)
MAX_RESTARTS = 2


def _with_skeletons(task: FileTask, modules: ModuleSource | None) -> FileOutcome:
    """The task's file parsed whole (:func:`_parse`) and analysed, started again when the analysis reads what a
    skeleton of another module left out (:class:`~asynccfg_lint.analysis.elision.ElidedBody`): that module and every
    other one held as a skeleton are parsed whole from then on, and the project makes no skeleton any more
    (``modules.parse_whole``). The restart drops the facts kept on the project's parses (some may lead into a
    skeleton)."""
    from asynccfg_lint.analysis.elision import ElidedBody

    restarts = 0
    parsed = _parse(task, modules)
    while True:
        try:
            return parsed.run(lambda: _analyse_parsed(task, modules, parsed))
        except ElidedBody as missing:
            restarts += 1
            if modules is None or missing.path == parsed.path or restarts > MAX_RESTARTS:
                raise
            modules.parse_whole(missing.path)
            parsed._memos.clear()


def _analyse_parsed(task: FileTask, modules: ModuleSource | None, parsed: ParsedModule) -> FileOutcome:
    from asynccfg_lint.analysis.checker import check_parsed
    from asynccfg_lint.analysis.summaries import summarise_module
    from asynccfg_lint.analysis.workspace import Workspace

    loader = _RecordingLoader(modules, parsed) if modules is not None else None
    # a builder imported from another module is followed there: the summary depends on that module too
    known = summarise_module(parsed, task.sinks, Workspace(parsed, loader).for_summary(parsed))
    wrappers = frozenset(known.difference(task.sinks))
    if task.check is None:
        return FileOutcome(wrappers=wrappers, dependencies=_dependencies(loader))
    settings = task.check
    calls: dict[int, bool] = {}
    located = check_parsed(parsed, settings.selection, known, settings.apply_noqa, with_fixes=True,
                           sanitizers=settings.sanitizers, modules=loader, calls=calls)
    return FileOutcome(tuple(item.diagnostic for item in located), wrappers, _dependencies(loader),
                       Coverage(len(calls), sum(calls.values())))


def _dependencies(loader: _RecordingLoader | None) -> tuple[Dependency, ...]:
    """Every module ``loader`` looked up, in a stable order (none without a project)."""
    return tuple(sorted(loader.seen.values(), key=str)) if loader is not None else ()
