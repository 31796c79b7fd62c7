"""The project of one run: its files, parsed on demand, and its derived sinks.

A run over several files (the CLI, the fixer) sees wrappers defined in one module and called
in another: summaries are computed over every file that may call a sink, to a fixed point,
before any file is checked. Only files that pass the prefilter are parsed, and the most recent
parses are kept for the check itself.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator

from asynccfg_lint.discovery import iter_python_files
from asynccfg_lint.jax_facts import SinkSpec
from asynccfg_lint.parse import ParseFailure, ParsedModule, module_name_for, parse_source
from asynccfg_lint.prefilter import may_call_any
from asynccfg_lint.summaries import close_over_wrappers


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


#: how many parsed modules a project keeps at once (bounds memory on large trees)
KEPT_PARSES = 256


class Project:
    """Files of one run, read and parsed on demand.

    Args:
        files: the paths of the run (display paths, as checked).
    """

    def __init__(self, files: Iterable[str]) -> None:
        self.files = list(files)
        self._sources: dict[str, bytes | OSError] = {}
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        self._sinks: dict[tuple[SinkSpec, ...], tuple[SinkSpec, ...]] = {}
        self._modules: dict[str, str | None] | None = None

    def read(self, path: str) -> bytes:
        """The bytes of ``path``, read once for the summaries and the check.

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

    def parsed(self, path: str) -> ParsedModule | None:
        """``path`` parsed with its metadata, or ``None`` when it cannot be read or parsed.

        The last :data:`KEPT_PARSES` parses are kept (a parsed module with its metadata takes
        about 100 times the file's size); an older one is parsed again when asked for.
        """
        if path in self._parsed:
            self._parsed.move_to_end(path)
            return self._parsed[path]
        source = self.source(path)
        try:
            parsed = parse_source(source, path) if source is not None else None
        except ParseFailure:
            parsed = None
        self._parsed[path] = parsed
        if len(self._parsed) > KEPT_PARSES:
            self._parsed.popitem(last=False)
        return parsed

    def sinks(self, builtin: Iterable[SinkSpec]) -> tuple[SinkSpec, ...]:
        """``builtin`` plus every wrapper of the project that forwards to a sink, to a fixed point.

        Each round parses only the files that name a sink known so far; the result is computed
        once per distinct ``builtin`` (files with the same settings share it).
        """
        builtin = tuple(builtin)
        if builtin not in self._sinks:
            self._sinks[builtin] = close_over_wrappers(self._modules_naming, builtin)
        return self._sinks[builtin]

    def module(self, name: str) -> ParsedModule | None:
        """The project file whose dotted module name is ``name``, parsed; ``None`` when the project has none.

        A name two files claim (two copies of a tree) is ambiguous and gives ``None``. The map of
        names is built on the first call only, so a run that never leaves its files pays nothing.
        """
        if self._modules is None:
            self._modules = {}
            for path in self.files:
                dotted = module_name_for(path).name
                self._modules[dotted] = None if dotted in self._modules else path
        path = self._modules.get(name)
        return self.parsed(path) if path is not None else None

    def cached(self, path: str) -> ParsedModule | None:
        """``path``'s parse if the summaries already made it (no new parse), else ``None``."""
        return self._parsed.get(path)

    def _modules_naming(self, sinks: set[SinkSpec]) -> Iterator[ParsedModule]:
        """The parsed files that may call one of ``sinks`` (the prefilter's test)."""
        for path in self.files:
            source = self.source(path)
            if source is not None and may_call_any(source, module_name_for(path).name, sinks, own=False):
                parsed = self.parsed(path)
                if parsed is not None:
                    yield parsed

    def release(self) -> None:
        """Drop every kept source and parse (after the summaries), keeping the sinks and the module map."""
        self._sources.clear()
        self._parsed.clear()

    def forget(self, path: str) -> None:
        """Drop what is kept for ``path`` (after it has been checked), to bound memory."""
        self._sources.pop(path, None)
        self._parsed.pop(path, None)
