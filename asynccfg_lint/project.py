"""The project of one run: its files, read once, and their analysis in rounds to a fixed point.

A run over several files (the CLI, the fixer, the flake8 plugin's package) sees wrappers
defined in one module and called in another. Round 1 analyses every file that names a built-in
or configured sink: it is parsed, closed over its own wrappers (:mod:`asynccfg_lint.summaries`)
and, when it is one of the checked files, checked. A wrapper found there is a sink for the
other modules, so the next round analyses again the files that may call a wrapper added in the
round before, until no round adds one. A file's diagnostics are those of the last round that
analysed it: the sinks added after it are ones it does not name, which cannot change its
result (the prefilter's premise). Each round's files run in a process pool when ``jobs`` > 1,
and their outcomes go through the result cache when there is one. libcst is imported only when
a file has to be analysed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor

from asynccfg_lint.cache import ResultCache
from asynccfg_lint.discovery import iter_python_files, module_name_for
from asynccfg_lint.jax_facts import SinkSpec
from asynccfg_lint.prefilter import may_call, may_call_any
from asynccfg_lint.tasks import CheckSettings, FileOutcome, FileTask, analyse_task

#: rounds of the project's fixed point at most (each round follows one more level of wrappers)
MAX_ROUNDS = 8


def package_root(filename: str) -> str | None:
    """The folder of the top-level package holding ``filename`` (outermost ``__init__.py`` chain), or ``None``."""
    folder = os.path.dirname(os.path.abspath(filename))
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return None
    while os.path.isfile(os.path.join(os.path.dirname(folder), "__init__.py")):
        folder = os.path.dirname(folder)
    return folder


def summary_scope(files: Iterable[str]) -> list[str]:
    """``files`` plus every Python file of their top-level packages: what a run summarises.

    Checking one file of a package (as pre-commit does with the changed files) then still sees
    the wrappers its siblings define. Package files under the working directory are named
    relative to it, as the checked files usually are, so each is read and parsed once.
    """
    scope = dict.fromkeys(files)
    roots = {root for root in map(package_root, scope) if root is not None}
    for root in sorted(roots):
        for path in iter_python_files([root]):
            relative = os.path.relpath(path)
            scope.setdefault(path if relative.startswith("..") else relative)
    return list(scope)


class Project:
    """Files of one run, read once, and their analysis (see the module's docstring).

    Use it as a context manager when ``jobs`` > 1, so the worker processes end with it.

    Args:
        files: the paths of the run (display paths, as checked), including the files read
            only for their wrappers (see :func:`summary_scope`).
        jobs: processes analysing a round's files; 1 analyses them in this process.
        cache: the result cache, or ``None`` (no cache).
    """

    def __init__(self, files: Iterable[str], jobs: int = 1, cache: ResultCache | None = None) -> None:
        self.files = list(files)
        self.jobs = jobs
        self.cache = cache
        self._sources: dict[str, bytes | OSError] = {}
        self._modules: dict[str, str] = {}
        self._sinks: dict[tuple[SinkSpec, ...], tuple[SinkSpec, ...]] = {}
        self._executor: Executor | None = None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """End the worker processes, if any were started."""
        if self._executor is not None:
            self._executor.shutdown(cancel_futures=True)
            self._executor = None

    def read(self, path: str) -> bytes:
        """The bytes of ``path``, read once for every round and the check.

        Raises:
            OSError: when it cannot be read (the same error again on every call).
        """
        if path not in self._sources:
            try:
                with open(path, "rb") as handle:
                    self._sources[path] = handle.read()
            except OSError as exc:
                self._sources[path] = exc
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

    def sinks(self, builtin: Iterable[SinkSpec]) -> tuple[SinkSpec, ...]:
        """``builtin`` plus every wrapper of the project that forwards to a sink, to a fixed point.

        Computed once per distinct ``builtin`` (files with the same settings share it).
        """
        builtin = tuple(builtin)
        if builtin not in self._sinks:
            self.analyse(builtin, {})
        return self._sinks[builtin]

    def analyse(self, builtin: Iterable[SinkSpec],
                checked: Mapping[str, CheckSettings]) -> dict[str, FileOutcome]:
        """Run the rounds over the project's files and return the outcome of each file analysed.

        Args:
            builtin: the built-in and configured sinks to start from.
            checked: the files to check, with their settings; the other files are only
                summarised. A checked file that names no sink has no outcome (nothing to report).
        Returns:
            path -> the outcome of the last round that analysed the file.
        """
        builtin = tuple(builtin)
        known = set(builtin)
        added = set(builtin)
        outcomes: dict[str, FileOutcome] = {}
        for _ in range(MAX_ROUNDS):
            ordered = sorted(known, key=_spec_order)
            tasks = []
            for path in self.files:
                source = self.source(path)
                if source is None or not may_call_any(source, self._module(path), added, own=False):
                    continue
                relevant = tuple(spec for spec in ordered if may_call(source, self._module(path), spec))
                tasks.append(FileTask(path, source, relevant, checked.get(path)))
            new: set[SinkSpec] = set()
            for task, outcome in zip(tasks, self._run(tasks)):
                outcomes[task.path] = outcome
                new |= outcome.wrappers - known
            if not new:
                break
            known |= new
            added = new
        self._sinks[builtin] = tuple(sorted(known, key=_spec_order))
        return outcomes

    def _module(self, path: str) -> str:
        if path not in self._modules:
            self._modules[path] = module_name_for(path).name
        return self._modules[path]

    def _run(self, tasks: Sequence[FileTask]) -> list[FileOutcome]:
        """The outcomes of ``tasks`` in order: from the cache, else analysed (in the pool when there is one)."""
        keys = [self.cache.key(task) for task in tasks] if self.cache is not None else [None] * len(tasks)
        outcomes: list[FileOutcome | None] = [self.cache.get(key) if key else None for key in keys]
        missing = [index for index, outcome in enumerate(outcomes) if outcome is None]
        for index, outcome in zip(missing, self._map([tasks[index] for index in missing])):
            outcomes[index] = outcome
            key = keys[index]
            if key is not None and self.cache is not None:
                self.cache.put(key, outcome)
        return outcomes  # type: ignore[return-value]  # every slot is filled

    def _map(self, tasks: list[FileTask]) -> Iterator[FileOutcome]:
        if self.jobs == 1 or len(tasks) < 2:
            return map(analyse_task, tasks)
        if self._executor is None:
            from concurrent.futures import ProcessPoolExecutor

            self._executor = ProcessPoolExecutor(max_workers=self.jobs)
        # small chunks: one large module must not leave the other workers idle
        chunk = max(1, min(8, len(tasks) // (self.jobs * 8)))
        return self._executor.map(analyse_task, tasks, chunksize=chunk)


def _spec_order(spec: SinkSpec) -> tuple[list[str], str]:
    return sorted(spec.qualnames), spec.param
