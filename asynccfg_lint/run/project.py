"""The project of one run: its files, read once, and their analysis in rounds to a fixed point.

A run over several files (the CLI, the fixer, the flake8 plugin's package) sees wrappers
defined in one module and called in another. Round 1 analyses every file that names a built-in
or configured sink: it is parsed, closed over its own wrappers (:mod:`asynccfg_lint.analysis.summaries`)
and, when it is one of the checked files, checked. A wrapper found there is a sink for the
other modules, so the next round analyses again the files that may call a wrapper added in the
round before, until no round adds one. A file's diagnostics are those of the last round that
analysed it: the sinks added after it are ones it does not name, which cannot change its
result (the prefilter's premise). Each round's files run in a process pool when ``jobs`` > 1,
and their outcomes go through the result cache when there is one. libcst is imported only when
a file has to be analysed.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
import os
import re
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from asynccfg_lint.process_owner import owned_process, process_is_owned
from asynccfg_lint.run.collector import expect_remaining
from asynccfg_lint.run.interrupts import ignore_interrupts, interrupted, interrupts_deferred
from asynccfg_lint.run.cache import MISSING, ResultCache, spec_json, task_key
from asynccfg_lint.run.discovery import PYTHON_SUFFIXES, iter_python_files, module_name_for
from asynccfg_lint.analysis.jax_facts import SinkSpec, spec_order
from asynccfg_lint.analysis.prefilter import SinkIndex, SinkNames, Unit, module_units
from asynccfg_lint.run.tasks import PROJECT_FILES, CheckSettings, FileOutcome, FileTask, analyse_task

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from asynccfg_lint.analysis.parse import ParsedModule

#: rounds of the project's fixed point at most (each round follows one more level of wrappers)
MAX_ROUNDS = 8
#: parsed modules a project keeps for the builders and constants other files import from them
KEPT_PARSES = 32
#: the objects the garbage collector counts per byte of a checked file with the modules its check reads, an estimate
#: above the ones measured (``jax/_src/lax/parallel.py``, 139 kB: about 186 k; a dense tree's module, 2.7 kB: about
#: 3 k); a file that makes more only makes the next pause's walk run (the budget is checked when each pause begins)
OBJECTS_PER_BYTE = 2
#: seconds a file's last change must lie behind its read for the package's wrappers to be stored under its
#: times (an edit within the same tick of the file system's clock could keep them: git's racy-clean rule)
RACY_SECONDS = 2.0
#: word searches in one file before its identifiers are listed once (:meth:`Project._has_word`)
SEARCHES_BEFORE_WORDS = 24
#: an identifier as ``\\b`` delimits it in a bytes pattern: ASCII letters, digits and ``_``
_ASCII_WORD = re.compile(rb"\w+")

#: what a file's state is compared on (:meth:`Project.stored_sinks`): size, modification and change times,
#: inode and device; a write always moves the change time, which no tool can set back
FileState = tuple[int, int, int, int, int]


#: a top-level ``def``/``class`` line
_DEFINED = re.compile(rb"^(?:(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|(\w+)[ \t]*(?::[^=\n]*)?=(?!=))", re.MULTILINE)


def _defined_names(source: bytes) -> set[str]:
    """The names of ``source``'s top-level functions and classes, and of the plain names its top-level statements
    assign (``TABLE = {}``, ``TABLE: dict = {}``), by their lines (ASCII names; a skeleton keeps the ones a check may
    read, and the code that changes a container it reads)."""
    return {match.decode("ascii", "replace") for pair in _DEFINED.findall(source) for match in pair if match}


def _file_state(status: os.stat_result) -> FileState:
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino, status.st_dev


def package_root(filename: str, folders: dict[str, str | None] | None = None) -> str | None:
    """The folder of the top-level package holding ``filename`` (outermost ``__init__.py`` chain), or ``None``.

    A Python file not on disk yet (``--stdin-filename pkg/new.py``, a new file open in the editor) is in
    the package of its folder, as it will be once saved. ``None`` for standard input ``-`` and an
    unsaved ``untitled:`` buffer (``-`` too), which belong to no package whatever the working directory
    holds, and for any other path that is not a file. ``folders``: each folder's answer, filled and read
    by the calls given the same dict (one question of many files: a check of jax's 630 files stat'ed 3,344
    paths without it).
    """
    if not os.path.isfile(filename) and (filename == "-" or not filename.endswith(PYTHON_SUFFIXES)):
        return None
    return _top_package(os.path.dirname(os.path.abspath(filename)), {} if folders is None else folders)


def _top_package(folder: str, folders: dict[str, str | None]) -> str | None:
    """The outermost folder of the ``__init__.py`` chain that ``folder`` is in, or ``None`` (see
    :func:`package_root`); each folder's answer is kept in ``folders``. A loop, not a recursion: a chain of 1,100
    nested packages is read as any other."""
    chain: list[str] = []  # the folders climbed, each with an __init__.py
    above = None  # the answer of the first folder above the chain that has one
    while folder not in folders:
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            folders[folder] = None
            break
        chain.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    else:
        above = folders[folder]
    top = above or (chain[-1] if chain else None)
    for climbed in chain:
        folders[climbed] = top
    return top


def summary_scope(files: Iterable[str]) -> list[str]:
    """``files`` plus every Python file of their top-level packages: what a run summarises.

    Checking one file of a package (as pre-commit does with the changed files) then still sees
    the wrappers its siblings define. A file already in ``files`` under another spelling
    (``./pkg/mod.py``) is not added again: each file is read and parsed once, and a module name
    is never claimed by two paths (which would make it ambiguous).
    """
    scope = {os.path.abspath(file): file for file in files}
    folders: dict[str, str | None] = {}
    roots = {root for file in scope.values() if (root := package_root(file, folders)) is not None}
    for root in sorted(roots):
        # the walk joins every path under root as given: place them from root's own absolute and
        # relative forms (os.path.relpath of each of jax's 630 files took 6 ms of a warm one-file run)
        absolute_root, relative_root = os.path.join(os.path.abspath(root), ""), os.path.relpath(root)
        # (run from inside the package, some of its files are below the working directory: each on its own)
        prefix = os.path.join(root, "") if not relative_root.startswith(os.pardir) else None
        relative_prefix = "" if relative_root == os.curdir else os.path.join(relative_root, "")
        for path in iter_python_files([root]):
            if prefix is None or not path.startswith(prefix):
                relative = os.path.relpath(path)
                scope.setdefault(os.path.abspath(path), path if relative.startswith("..") else relative)
                continue
            tail = path[len(prefix):]
            relative = relative_prefix + tail
            scope.setdefault(absolute_root + tail, path if relative.startswith("..") else relative)
    return list(scope.values())


@functools.lru_cache(maxsize=8)
def package_project(root: str, cache_dir: str | None = None) -> Project:
    """The project of the package folder ``root`` (its modules read and parsed on demand), once per process.

    For the front ends that see one file at a time (the flake8 plugin, the codemod); ``cache_dir``
    names a result cache to use, if any.
    """
    return Project(iter_python_files([root]), cache=ResultCache(cache_dir) if cache_dir else None)


def unread_package_imports(source: bytes, sinks: Iterable[SinkSpec], folder: str = ".") -> list[str]:
    """What standard input read without a filename (``check -``) imports from a package it is then not
    read with (``--stdin-filename`` would read it): each relative import (``.sinks``), and each package
    folder under ``folder`` it imports from whose modules bind a name through which the text may reach
    one of ``sinks`` (:meth:`Project.scope`: ``pkg`` for ``from pkg.sinks import permute_start``).
    Relative imports first, in the order written, then the packages sorted; ``[]`` when Python cannot
    parse ``source``.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    relative: list[str] = []
    packages: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            relative.append("." * node.level + (node.module or ""))
        elif isinstance(node, ast.ImportFrom) and node.module:
            packages.add(node.module.partition(".")[0])
        elif isinstance(node, ast.Import):
            packages.update(alias.name.partition(".")[0] for alias in node.names)
    reaching = [top for top in sorted(packages)
                if os.path.isfile(os.path.join(root := os.path.abspath(os.path.join(folder, top)), "__init__.py"))
                and package_project(root).scope(sinks, [source]) != frozenset()]
    return [*dict.fromkeys(relative), *reaching]


class PackageSinks(NamedTuple):
    """What a front end that sees one file at a time knows of that file's package (:func:`package_sinks`)."""

    #: the front end's sinks plus the package's wrappers the file's text may reach
    sinks: tuple[SinkSpec, ...]
    #: the package's project (its other modules as saved on disk), or ``None`` outside a package
    project: Project | None
    #: the package folder (:func:`package_root`), or ``None``
    root: str | None


def package_sinks(filename: str, sinks: Iterable[SinkSpec], text: str | bytes | None = None,
                  cache_dir: str | None = None) -> PackageSinks:
    """The package of ``filename`` as the flake8 plugin, the CLI's standard input and the codemod see it.

    Args:
        filename: the file's path (stdin ``-`` and unsaved buffers belong to no package).
        sinks: the configured sinks.
        text: the file's text as checked (possibly not as saved): only the wrappers it may reach
            are computed (:meth:`Project.sinks`); ``None``: every wrapper of the package.
        cache_dir: the result cache for the package's project (:func:`package_project`), or ``None``.
    Returns:
        ``sinks`` as a tuple with no project outside a package.
    """
    sinks = tuple(sinks)
    root = package_root(filename)
    if root is None:
        return PackageSinks(sinks, None, None)
    project = package_project(root, cache_dir)
    return PackageSinks(project.sinks(sinks, text), project, root)


class Project:
    """Files of one run, read once, and their analysis (see the module's docstring).

    Use it as a context manager when ``jobs`` > 1, so the worker processes end with it.

    Args:
        files: the paths of the run (display paths, as checked), including the files read
            only for their wrappers (see :func:`summary_scope`).
        jobs: processes analysing a round's files; 1 analyses them in this process.
        cache: the result cache, or ``None`` (no cache).
        keep_analysed: keep the parse of each file a task analyses in this process among the
            kept parses (the language server checks the document with it); otherwise only the
            modules looked up for builders and constants are kept.
    """

    def __init__(self, files: Iterable[str], jobs: int = 1, cache: ResultCache | None = None,
                 keep_analysed: bool = False) -> None:
        self.files = list(files)
        self.keep_analysed = keep_analysed
        self.jobs = jobs
        self.cache = cache
        self._sources: dict[str, bytes | OSError] = {}
        self._modules: dict[str, str] = {}
        self._packages: dict[str, str | None] = {}
        self._module_paths: dict[str, str | None] | None = None
        self._digests: dict[str, str | None] = {}
        #: each read file's state when it was read (before its bytes), for :meth:`stored_sinks`
        self._states: dict[str, FileState | None] = {}
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        #: the paths a check read more of than their skeleton held, and the skeletons held then (:meth:`parse_whole`,
        #: which also ends skeletons: a record of what was parsed whole again)
        self._whole: set[str] = set()
        #: the files of the tasks analysed here now (:meth:`_run`): another task reads each whole, and that parse then
        #: serves its own task (:meth:`kept`)
        self._tasked: frozenset[str] = frozenset()
        #: whether :meth:`skeleton_of` may give skeletons (``False`` once a task's check started again:
        #: :meth:`parse_whole`)
        self.skeletons = True
        self._sinks: dict[tuple[tuple[SinkSpec, ...], frozenset[str] | None], tuple[SinkSpec, ...]] = {}
        self._names: dict[tuple[SinkSpec, ...], SinkNames | None] = {}  # None: past the limit, as recorded
        self._stored: dict[tuple[SinkSpec, ...], tuple[SinkSpec, ...] | None] = {}
        self._naming: dict[str, tuple[str, ...]] = {}
        self._words: dict[str, frozenset[bytes]] = {}  # path -> its identifiers, once many are asked about
        self._searches: dict[str, int] = {}  # path -> the word searches made in it so far
        #: outcomes of this project's tasks by key, kept for a later analysis (the language server's next one)
        self._outcomes: dict[str, FileOutcome] = {}
        self._executor: Executor | None = None
        #: told of the tasks of each round and of each one done (a front end's progress bar), when set
        self.progress: ProgressBar | None = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """End the worker processes, if any were started."""
        if self._executor is not None:
            end_pool(self._executor)
            self._executor = None

    def read(self, path: str) -> bytes:
        """The bytes of ``path``, read once for every round and the check.

        Raises:
            OSError: when it cannot be read (the same error again on every call).
        """
        if path not in self._sources:
            try:
                with open(path, "rb") as handle:
                    status = os.fstat(handle.fileno())  # before the bytes: a later write changes the state
                    self._sources[path] = handle.read()
                racy = time.time_ns() - max(status.st_mtime_ns, status.st_ctime_ns) < RACY_SECONDS * 1e9
                self._states[path] = None if racy else _file_state(status)
            except OSError as exc:
                self._sources[path] = exc
                self._states[path] = None
        content = self._sources[path]
        if isinstance(content, OSError):
            raise content
        return content

    def source(self, path: str) -> bytes | None:
        """The bytes of ``path``, or ``None`` when it cannot be read."""
        try:
            return self.read(path)
        except OSError:
            return None

    def digest(self, path: str) -> str | None:
        """The SHA-256 hex digest of ``path``'s bytes, or ``None`` when it cannot be read."""
        if path not in self._digests:
            source = self.source(path)
            self._digests[path] = hashlib.sha256(source).hexdigest() if source is not None else None
        return self._digests[path]

    def parsed(self, path: str) -> ParsedModule | None:
        """``path`` parsed with its metadata, or ``None`` when it cannot be read or parsed.

        The last :data:`KEPT_PARSES` parses are kept (a module imported from by many files is
        parsed once); an older one is parsed again when asked for. With a result cache, an unchanged
        module's parse is read from it once a run has parsed it twice (:meth:`ResultCache.parsed_module`).
        """
        if path in self._parsed:
            self._parsed.move_to_end(path)
            found = self._parsed[path]
            if found is None or not found.elided:
                return found
        from asynccfg_lint.analysis.parse import parse_source
        from asynccfg_lint.analysis.parse_failure import ParseFailure

        source = self.source(path)
        digest = self.digest(path)
        parsed = self.cache.parsed_module(path, digest) if self.cache is not None and digest is not None else None
        if parsed is None and source is not None:
            try:
                parsed = parse_source(source, path)
            except ParseFailure:
                parsed = None
            if parsed is not None and self.cache is not None and digest is not None:
                self.cache.put_parsed_module(digest, parsed)  # (before any stage keeps facts on it)
        return self._keep_parse(path, parsed)

    def skeleton_of(self, path: str, member: str | None = None, read: frozenset[str] = frozenset()) -> ParsedModule | None:
        """``path`` parsed for a check that reads some of its definitions: a skeleton
        (:func:`~asynccfg_lint.analysis.elision.skeleton`) keeping ``member`` (a top-level name), the functions,
        classes and assigned names among ``read`` (what the checked module may read of it), and what they name;
        or the parse this project keeps (whole or a skeleton), a whole one the result cache holds, else ``None`` as
        :meth:`parsed`. Whole once a check read more than a skeleton of it held (:meth:`parse_whole`), and when the
        module is one of the files analysed here now (kept, its own task then takes this parse: modules reading each
        other were otherwise parsed twice, a skeleton and a whole parse of each).

        A skeleton's left-out bodies raise :class:`~asynccfg_lint.analysis.elision.ElidedBody` when read; the
        task then starts again after :meth:`parse_whole` (:func:`~asynccfg_lint.run.tasks.analyse_task`). Only a
        task's loader asks for skeletons: a project used as a module loader (:meth:`module`) gives whole parses.
        """
        if path in self._parsed:
            self._parsed.move_to_end(path)
            return self._parsed[path]
        if not self.skeletons or path in self._tasked:  # (parse_whole ends skeletons: none of _whole is made one)
            return self.parsed(path)
        from asynccfg_lint.analysis.parse import parse_source
        from asynccfg_lint.analysis.parse_failure import ParseFailure

        source = self.source(path)
        keep = frozenset({member} if member else ()) | (read & _defined_names(source) if source is not None else set())
        digest = self.digest(path)
        # (the cache keeps a skeleton under the units it was asked to keep, as a parse of other bytes; a whole
        # parse, stored by any run, is used as it is)
        key = f"{digest}\0{','.join(sorted(keep))}" if digest is not None else None
        parsed = None
        if self.cache is not None and digest is not None and key is not None:
            parsed = self.cache.parsed_module(path, digest) or self.cache.parsed_module(path, key)
        if parsed is None and source is not None:
            try:
                parsed = parse_source(source, path, keep=keep)
            except ParseFailure:
                parsed = None
            if parsed is not None and self.cache is not None and key is not None and digest is not None:
                self.cache.put_parsed_module(key if parsed.elided else digest, parsed)  # (before any stage keeps facts on it)
        return self._keep_parse(path, parsed)

    def parse_whole(self, path: str) -> None:
        """Parse ``path`` whole from now on, and every module this project now keeps a skeleton of: a check read a
        part of ``path`` that its skeleton left out (:class:`~asynccfg_lint.analysis.elision.ElidedBody`). Not only
        the parts read: each restart parses the module again, and a module read in many places (12 builders of one
        helper module) started a check again for each. Not only ``path``: a check that read one helper's builders
        and then the tables its other functions fill (17 helpers) started again once per helper.
        The skeletons kept now are dropped, and so is every fact kept on the project's parses (some may lead into
        them); and this project makes no skeleton any more (its code reads more than skeletons predict: modules
        reading many large helpers made skeletons that restarts then parsed whole again)."""
        self.skeletons = False
        self._whole.add(path)
        for held in [held for held, kept in self._parsed.items() if kept is not None and kept.elided]:
            self._whole.add(held)
            del self._parsed[held]
        self.drop_facts()

    def drop_facts(self) -> None:
        """Drop every fact the analysis kept on the parses this project keeps (a check that starts again over a
        new parse of a module: some may lead into the old one)."""
        for parsed in self._parsed.values():
            if parsed is not None:
                parsed._memos.clear()

    def _keep_parse(self, path: str, parsed: ParsedModule | None) -> ParsedModule | None:
        """Keep ``parsed`` as ``path``'s (the last :data:`KEPT_PARSES` are kept) and return it."""
        self._parsed[path] = parsed
        if len(self._parsed) > KEPT_PARSES:
            self._parsed.popitem(last=False)
        return parsed

    def kept(self, path: str) -> ParsedModule | None:
        """``path``'s whole parse if this project still keeps it (see :meth:`parsed`), else ``None``; parses only
        a module it keeps a skeleton of: parsed whole (:meth:`parsed`), kept in its place. A module other files'
        checks read is then parsed once for its own task and for the checks after it, as before skeletons (else
        modules importing each other are each parsed again for their task, then as skeletons again for the next
        readers: more than twice the time)."""
        if path in self._parsed:
            self._parsed.move_to_end(path)
        found = self._parsed.get(path)
        if found is None or not found.elided:
            return found
        self.drop_facts()  # (facts of other parses may lead into the skeleton: it would live on with them)
        return self.parsed(path)

    def module_path(self, name: str) -> str | None:
        """The project file whose dotted module name is ``name``; ``None`` when none or when two files claim it.

        The map of names is built on the first call only, so a run that never leaves its files pays nothing.
        """
        if self._module_paths is None:
            self._module_paths = {}
            for path in self.files:
                dotted = self._module(path)
                self._module_paths[dotted] = None if dotted in self._module_paths else path
        return self._module_paths.get(name)

    def module(self, name: str) -> ParsedModule | None:
        """The project module ``name``, parsed (see :meth:`module_path`); ``None`` when the project has none."""
        path = self.module_path(name)
        return self.parsed(path) if path is not None else None

    #: a project is the module loader of the analyses it runs (:data:`asynccfg_lint.analysis.workspace.ModuleLoader`)
    __call__ = module

    def mentions(self, name: str, word: str) -> bool | None:
        """Whether the text of the project module ``name`` has the identifier ``word`` (a byte search, no
        parse); ``None`` when the project has no such module."""
        path = self.module_path(name)
        source = self.source(path) if path is not None else None
        return None if source is None else self._has_word(path, source, word.encode())

    def naming(self, word: str) -> tuple[str, ...]:
        """The dotted module names of the project's files whose text has the identifier ``word`` (a byte
        search, no parse): where a primitive's ``bind`` may be called (:meth:`Workspace.named_elsewhere`)."""
        if word not in self._naming:
            encoded = word.encode()
            self._naming[word] = tuple(self._module(path) for path in self.files
                                       if (source := self.source(path)) is not None
                                       and self._has_word(path, source, encoded))
        return self._naming[word]

    def _has_word(self, path: str, source: bytes, word: bytes) -> bool:
        """Whether ``source`` (``path``'s bytes) has ``word`` as an identifier (``\\b`` on both sides, ASCII
        as a bytes pattern has it). The first few questions about a file are one search each; from
        :data:`SEARCHES_BEFORE_WORDS` on, its identifiers are listed once and looked up: a module of 1,000 rules
        is asked about each rule's primitive, and a search each is quadratic in its size."""
        if _ASCII_WORD.fullmatch(word) is not None:
            words = self._words.get(path)
            if words is None:
                self._searches[path] = self._searches.get(path, 0) + 1
                if self._searches[path] > SEARCHES_BEFORE_WORDS:
                    words = self._words[path] = frozenset(_ASCII_WORD.findall(source))
            if words is not None:
                return word in words
        return re.search(rb"\b" + re.escape(word) + rb"\b", source) is not None

    def file_modules(self) -> list[tuple[str, str]]:
        """``(dotted module name, path)`` of every file of the project."""
        return [(self._module(path), path) for path in self.files]

    def files_digest(self) -> str:
        """The SHA-256 hex digest of the project's sorted list of files (see :data:`~asynccfg_lint.run.tasks.PROJECT_FILES`)."""
        return hashlib.sha256("\n".join(sorted(self.files)).encode("utf-8", "surrogatepass")).hexdigest()

    def sinks(self, builtin: Iterable[SinkSpec], text: str | bytes | None = None) -> tuple[SinkSpec, ...]:
        """``builtin`` plus every wrapper of the project that forwards to a sink, to a fixed point.

        With ``text`` (a document of the project, possibly unsaved): every wrapper when they are known
        (computed by this project, or stored by a run over all its files while none has changed since:
        :meth:`stored_sinks`), else only the wrappers that text may reach (:meth:`scope`): the summaries
        of modules it cannot call are not computed. Either way the package's saved files are summarised,
        not the unsaved text. Computed once per distinct ``builtin`` and scope (files with the same
        settings share it).
        """
        builtin = tuple(builtin)
        if text is not None:
            every = self._sinks.get((builtin, None)) or self.stored_sinks(builtin)
            if every is not None:
                return every  # a superset of the scope's wrappers: no module is matched or summarised
        scope = self.scope(builtin, [text]) if text is not None else None
        if (builtin, scope) not in self._sinks:
            self._rounds(builtin, {}, scope)
        return self._sinks[builtin, scope]

    def scope(self, builtin: Iterable[SinkSpec], texts: Iterable[str | bytes]) -> frozenset[str] | None:
        """The project files whose summaries code with the texts ``texts`` may need (``None``: all of them).

        Found without libcst by :class:`~asynccfg_lint.analysis.prefilter.SinkNames`: the modules that
        bind a name through which a sink can be called, as far as the texts reach them. When those names
        grow past its limit (jax's do), the result cache records it for the project's list of files, and
        later runs over the same files answer ``None`` without reading them: all of them is never wrong,
        only slower for a package whose names shrank back below the limit, until a file is added or removed.
        """
        builtin = tuple(builtin)
        if builtin not in self._names:
            key = _names_key(builtin, self.files_digest()) if self.cache is not None else None
            if key is not None and self.cache is not None and self.cache.names_overflow(key):
                self._names[builtin] = None
            else:
                sources = {path: source for path in self.files if (source := self.source(path)) is not None}
                names = SinkNames(sources, {path: self._module(path) for path in sources}, builtin, self._binding_units)
                if names.homes is None and key is not None and self.cache is not None and not interrupted():
                    self.cache.put_names_overflow(key)
                self.save_cache()  # the binding units read, before flake8 forks its workers
                self._names[builtin] = names
        names = self._names[builtin]
        reached = names.reach(texts) if names is not None else None
        return frozenset(reached) if reached is not None else None

    def _binding_units(self, path: str, source: bytes) -> list[Unit] | None:
        """``path``'s :func:`~asynccfg_lint.analysis.prefilter.module_units`, through the result cache when there is one."""
        if self.cache is None:
            return module_units(source)
        digest = hashlib.sha256(source).hexdigest()
        units = self.cache.binding_units(digest)
        if units is MISSING:
            units = module_units(source)
            self.cache.put_binding_units(digest, units)
        return units

    def analyse(self, builtin: Iterable[SinkSpec],
                checked: Mapping[str, CheckSettings]) -> dict[str, FileOutcome]:
        """Run the rounds over the project's files and return the outcome of each file analysed.

        Args:
            builtin: the built-in and configured sinks to start from.
            checked: the files to check, with their settings; the other files are only
                summarised, and only those whose wrappers the checked files may reach
                (:meth:`scope`; every file when all are checked). A checked file that names no
                sink has no outcome (nothing to report).
        Returns:
            path -> the outcome of the last round that analysed the file.
        """
        builtin = tuple(builtin)
        scope = None
        if checked and len(checked) < len(self.files):
            every = self.stored_sinks(builtin)
            if every is not None:
                index = SinkIndex(every)
                if not any(index.matching(source, "") for path in checked if (source := self.source(path)) is not None):
                    return {}  # the checked files call none of the package's sinks: nothing to report
            scope = self.scope(builtin, [source for path in checked if (source := self.source(path)) is not None])
        return self._rounds(builtin, checked, scope)

    def save_cache(self) -> None:
        """Write what was stored in the result cache since the last call (outcomes, parse markers, binding
        units) in one transaction (:meth:`ResultCache.flush`); each analysis ends with it. No cache: no-op."""
        if self.cache is not None:
            self.cache.flush()

    def _rounds(self, builtin: tuple[SinkSpec, ...], checked: Mapping[str, CheckSettings],
                scope: frozenset[str] | None) -> dict[str, FileOutcome]:
        """The rounds of :meth:`analyse` over ``checked`` and the files of ``scope`` (``None``: every file)."""
        try:
            return self._rounds_unsaved(builtin, checked, scope)
        finally:
            self.save_cache()

    def _rounds_unsaved(self, builtin: tuple[SinkSpec, ...], checked: Mapping[str, CheckSettings],
                        scope: frozenset[str] | None) -> dict[str, FileOutcome]:
        files = self.files if scope is None else [path for path in self.files if path in scope or path in checked]
        known = set(builtin)
        added = SinkIndex(builtin)
        outcomes: dict[str, FileOutcome] = {}
        for _ in range(MAX_ROUNDS):
            index = SinkIndex(sorted(known, key=spec_order))
            tasks = []
            for path in files:
                source = self.source(path)
                if source is None or not added.matching(source, self._module(path), own=False):
                    continue
                relevant = self._relevant(index, path, source)
                tasks.append(FileTask(path, source, relevant, checked.get(path)))
            new: set[SinkSpec] = set()
            for task, outcome in zip(tasks, self._run(tasks)):
                outcomes[task.path] = outcome
                new |= outcome.wrappers - known
            if not new:
                break
            known |= new
            added = SinkIndex(sorted(new, key=spec_order))
        self._sinks[builtin, scope] = tuple(sorted(known, key=spec_order))
        if scope is None and self.cache is not None and not interrupted():
            states = [self._states.get(path) for path in self.files]
            if all(state is not None for state in states):
                self.cache.put_package_sinks(_package_key(builtin, dict(zip(self.files, states))),
                                             self._sinks[builtin, scope])
        return outcomes

    def checked(self, path: str, sinks: Iterable[SinkSpec], check: CheckSettings) -> FileOutcome:
        """The outcome of checking ``path`` as saved: the language server's document whose text is the file's.

        Args:
            path: the file's path, as the project lists it.
            sinks: the configured sinks plus the package's wrappers (:meth:`sinks`).
            check: the file's settings.
        Returns:
            the outcome kept in memory, or stored in the result cache by an earlier run, while the file and
            every module its analysis looked up are unchanged (:meth:`_cached`); else the file analysed here
            (and kept, and stored). A file that names none of ``sinks``, or cannot be read, is not parsed:
            no diagnostics.
        """
        source = self.source(path)
        relevant = self._relevant(SinkIndex(tuple(sinks)), path, source) if source is not None else ()
        if source is None or not relevant:
            return FileOutcome()
        return self._run([FileTask(path, source, relevant, check)])[0]

    def _relevant(self, index: SinkIndex, path: str, source: bytes) -> tuple[SinkSpec, ...]:
        """The sinks ``path`` may call, plus those the module of each registered rule its ``bind`` sinks
        name may call: a finding at a ``bind`` names where the rule uses the keyword, which the rule's
        module shows only with its own sinks (a ``functools.partial`` sink imported from a third module).
        As the front ends that see one file at a time have them (:meth:`sinks` gives every wrapper)."""
        relevant = index.matching(source, self._module(path))
        homes = {home for spec in relevant if spec.used_at is not None
                 and (home := self._defining_path(spec.used_at)) not in (None, path)}
        if not homes:
            return tuple(relevant)
        extra = {spec for home in sorted(homes) if (text := self.source(home)) is not None
                 for spec in index.matching(text, self._module(home))}
        return tuple(sorted(extra.union(relevant), key=spec_order))

    def _defining_path(self, qualified: str) -> str | None:
        """The project file of the longest dotted prefix of ``qualified`` (a rule's qualified name), else ``None``."""
        module = qualified
        while "." in module:
            module = module.rpartition(".")[0]
            if (path := self.module_path(module)) is not None:
                return path
        return None

    def stored_sinks(self, builtin: Iterable[SinkSpec]) -> tuple[SinkSpec, ...] | None:
        """Every sink of the project (``builtin`` and all its wrappers), as a run over all its files stored
        them in the result cache, while no file has changed since: the project's files, each one's size,
        modification and change times, inode and device as they were when that run read them (no file is
        read here, only stat'ed). ``None`` without a cache, with no such entry, or when a file is missing.

        A file whose times were within :data:`RACY_SECONDS` of its read is never part of a stored state,
        so an edit in the same clock tick as the read cannot go unseen; any later write moves the file's
        change time past the stored one.
        """
        builtin = tuple(builtin)
        if self.cache is None:
            return None
        if builtin not in self._stored:  # (looked up once, until a file is forgotten)
            states: dict[str, FileState | None] = {}
            try:
                for path in self.files:
                    states[path] = _file_state(os.stat(path))
            except OSError:
                self._stored[builtin] = None
            else:
                self._stored[builtin] = self.cache.package_sinks(_package_key(builtin, states))
        return self._stored[builtin]

    def refresh(self) -> list[str]:
        """Read every file again; forget (:meth:`forget`) those whose bytes changed, and return them."""
        changed = []
        for path in self.files:
            before = self._sources.get(path)
            if before is None:
                continue
            try:
                with open(path, "rb") as handle:
                    now: bytes | OSError = handle.read()
            except OSError as exc:
                now = exc
            if not (isinstance(before, bytes) and before == now):
                self.forget(path)
                changed.append(path)
        return changed

    def forget(self, path: str) -> None:
        """``path`` changed on disk: read it again when asked, and recompute what depends on it.

        Outcomes of other files stay (they are used again only while the modules they read are
        unchanged); the wrappers and the names leading to sinks are recomputed.
        """
        self._sources.pop(path, None)
        self._states.pop(path, None)
        self._digests.pop(path, None)
        self._parsed.pop(path, None)
        self._sinks.clear()
        self._names.clear()
        self._stored.clear()
        self._naming.clear()
        self._words.pop(path, None)
        self._searches.pop(path, None)

    def _module(self, path: str) -> str:
        """``path``'s dotted module name (:func:`~asynccfg_lint.run.discovery.module_name_for`), the walk up
        its folders done once per folder: a package of 600 files has a few dozen."""
        if path not in self._modules:
            folder = os.path.dirname(os.path.abspath(path))
            if folder not in self._packages:
                init = os.path.join(folder, "__init__.py")
                self._packages[folder] = module_name_for(init).name if os.path.isfile(init) else None
            package, stem = self._packages[folder], os.path.splitext(os.path.basename(path))[0]
            if package is None:
                self._modules[path] = module_name_for(path).name
            else:
                self._modules[path] = package if stem == "__init__" else f"{package}.{stem}"
        return self._modules[path]

    def _run(self, tasks: Sequence[FileTask]) -> list[FileOutcome]:
        """The outcomes of ``tasks`` in order: kept in memory, from the cache, else analysed (in the pool when there is one)."""
        keys = [task_key(task, self._module(task.path)) for task in tasks]
        self._tasked = frozenset(task.path for task in tasks)
        outcomes: list[FileOutcome | None] = [self._cached(key) for key in keys]
        missing = [index for index, outcome in enumerate(outcomes) if outcome is None]
        if self.progress is not None:
            self.progress.total += len(tasks)
            self.progress.update(len(tasks) - len(missing))
        for index, outcome in zip(missing, self._map([tasks[index] for index in missing])):
            outcomes[index] = outcome
            if self.progress is not None:
                self.progress.update(1)
            self._keep(keys[index], outcome)
            if tasks[index].check is not None:  # a later summary of the same file reads its wrappers from it
                self._keep(task_key(dataclasses.replace(tasks[index], check=None), self._module(tasks[index].path)),
                           FileOutcome(wrappers=outcome.wrappers, dependencies=outcome.dependencies))
        return outcomes  # type: ignore[return-value]  # every slot is filled

    def _in_process(self, tasks: list[FileTask]) -> Iterator[FileOutcome]:
        """The outcomes of ``tasks`` analysed here, one after the other, telling the collector how much is left
        (:func:`~asynccfg_lint.run.collector.expect_remaining`: :data:`OBJECTS_PER_BYTE` per byte of the tasks'
        sources, from each task's own on)."""
        remaining = sum(len(task.source) for task in tasks)
        try:
            for task in tasks:
                expect_remaining(OBJECTS_PER_BYTE * remaining)
                remaining -= len(task.source)
                yield analyse_task(task, self)
        finally:
            expect_remaining(None)

    def _keep(self, key: str, outcome: FileOutcome) -> None:
        self._outcomes[key] = outcome
        if self.cache is not None and not interrupted():  # a Ctrl-C swallowed meanwhile may have cut the analysis short
            self.cache.put(key, outcome)

    def _cached(self, key: str) -> FileOutcome | None:
        """The kept or cached outcome of ``key`` if there is one and the modules it looked up are unchanged."""
        outcome = self._outcomes.get(key)
        if outcome is None and self.cache is not None:
            outcome = self.cache.get(key)
        if outcome is None:
            return None
        for name, path, digest in outcome.dependencies:
            if name == PROJECT_FILES:
                if digest != self.files_digest():
                    return None
            elif self.module_path(name) != path or (path is not None and self.digest(path) != digest):
                return None
        self._outcomes[key] = outcome
        return outcome

    def _map(self, tasks: list[FileTask]) -> Iterator[FileOutcome]:
        if self.jobs == 1 or not _worth_a_pool(tasks):
            return self._in_process(tasks)
        if self._executor is None:
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(max_workers=self.jobs, initializer=start_worker,
                                                 initargs=(self.files, self.cache))
        # small chunks: one large module must not leave the other workers idle
        chunk = max(1, min(8, len(tasks) // (self.jobs * 8)))
        with interrupts_deferred():  # map submits every task now, and the first one forks the workers
            return self._executor.map(_analyse_in_worker, tasks, chunksize=chunk)


class ProgressBar(Protocol):
    """What :attr:`Project.progress` is told (``tqdm``'s own attributes): the files planned, and each one done."""

    total: float

    def update(self, n: float = 1) -> bool | None:
        """Count ``n`` more files done."""


def end_pool(executor: Executor) -> None:
    """Shut ``executor`` (a process pool) down, its queued tasks cancelled, and end those of its own worker
    processes still alive after the shutdown (they hold no work); other child processes are left alone.

    A Ctrl-C that lands while a pool is starting (workers forked, its manager thread not yet
    running) leaves workers that no one will tell to stop, and the interpreter's exit would wait
    for them for ever; the shutdown has already let every running task finish.
    """
    # (the pool's own table of its processes, which its shutdown empties)
    workers = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=True, cancel_futures=True)
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
            worker.join(timeout=5)


#: bytes of source that take about as long to analyse as a worker takes to start (import libcst)
POOL_THRESHOLD_BYTES = 64 * 1024


def _worth_a_pool(tasks: Sequence[FileTask]) -> bool:
    """Whether worker processes can finish ``tasks`` sooner than this process alone.

    The round takes at least as long as its largest file; the workers can only win back the
    time of the others, and each first spends a libcst import. On the jax tree (two files, one
    of them 100 KB) a pool made ``-j 2`` 12 % slower than ``-j 1``.
    """
    sizes = sorted((len(task.source) for task in tasks), reverse=True)
    return len(sizes) > 1 and sum(sizes[1:]) > POOL_THRESHOLD_BYTES


#: the ownership of a worker process of the tool's pool, for the process's life (:func:`start_worker`)
_WORKER_OWNERSHIP = owned_process()
#: a worker process's view of the project (its other modules, parsed on demand)
_worker_project: Project | None = None


def start_worker(files: list[str], cache: ResultCache | None = None) -> None:
    """Pool initializer: give this worker process its own :class:`Project` of ``files`` (see :func:`worker_project`),
    reading the other modules' stored parses from ``cache`` when there is one. The worker ignores Ctrl-C
    (:func:`~asynccfg_lint.run.interrupts.ignore_interrupts`): the main process ends the run."""
    global _worker_project
    ignore_interrupts()
    if not process_is_owned():  # (a forked worker inherits its parent's ownership; a spawned one is ours too)
        _WORKER_OWNERSHIP.__enter__()
    _worker_project = Project(files, cache=cache)


def worker_project() -> Project | None:
    """The project :func:`start_worker` made in this process, else ``None``."""
    return _worker_project


def _analyse_in_worker(task: FileTask) -> FileOutcome:
    try:
        return analyse_task(task, _worker_project)
    finally:
        if _worker_project is not None:
            _worker_project.save_cache()  # what the task stored (parses, units), before the pool may end this process


def _package_key(builtin: tuple[SinkSpec, ...], states: Mapping[str, FileState | None]) -> str:
    """The hex digest naming a project's stored sinks (:meth:`Project.stored_sinks`): the sinks it started
    from and every file's path and state."""
    cwd = os.getcwd()  # (a CLI run names the files relative, flake8 absolute; os.path.abspath asks each time)
    placed = sorted((os.path.normpath(os.path.join(cwd, path)), state) for path, state in states.items())
    text = "".join(f"{path}\0{state}\0" for path, state in placed)
    return hashlib.sha256(_specs_text(builtin) + text.encode("utf-8", "surrogateescape")).hexdigest()


def _names_key(builtin: tuple[SinkSpec, ...], files_digest: str) -> str:
    """The hex digest naming a project's record that its names leading to a sink pass the prefilter's
    limit (:meth:`Project.scope`): the sinks it started from and its list of files."""
    return hashlib.sha256(_specs_text(builtin) + files_digest.encode()).hexdigest()


def _specs_text(specs: Iterable[SinkSpec]) -> bytes:
    """``specs`` as JSON text in a stable order (whatever order they come in), for a digest."""
    return json.dumps(sorted(json.dumps(spec_json(spec), sort_keys=True) for spec in specs)).encode()
