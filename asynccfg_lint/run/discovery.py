"""File discovery: the one directory walker, with ruff's exclusions and ``.gitignore`` rules.

:func:`walk` is the only walk of the tool: the CLI passes its configuration's exclusions and a
:class:`GitIgnore` (``respect-gitignore``); :func:`iter_python_files` is the same walk with the
default excluded names only (the language server's and the flake8 plugin's package scans).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

#: folder names never descended into
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".asynccfg_lint_cache", "__pycache__", "build", "dist", "node_modules", "site-packages", ".eggs",
})
PYTHON_SUFFIXES = (".py", ".pyi")


#: the file that makes a folder a virtual environment (PEP 405), which a walk skips
VIRTUALENV_MARK = "pyvenv.cfg"


@dataclass(frozen=True)
class Missing:
    """A path named on the command line that does not exist."""

    path: str


class GitIgnore:
    """git's ignore rules for the files of a walk, read with ``pathspec``'s gitignore patterns.

    As ruff (and git) read them: only inside a git work tree (a folder at or above the path holds
    ``.git``); the ``.gitignore`` of every folder from the work tree's top down to the path's
    folder, a deeper file's last matching pattern winning (so ``!keep.py`` re-includes), and
    ``.git/info/exclude``. git's global ``core.excludesFile`` is not read. Only a pattern's match
    of the entry itself counts, not of a folder above it: a folder named on the command line is
    walked even when git ignores it (ruff 0.17.5 does the same), while the walk from above never
    enters it.
    """

    def __init__(self) -> None:
        self._layers: dict[str, list[tuple[int, list[object]]]] = {}
        self._tops: dict[str, str | None] = {}

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        """True when git ignores the file or folder ``path`` (absolute or relative to the working directory).

        Raises nothing: an unreadable ``.gitignore`` counts as empty.
        """
        absolute = os.path.abspath(path)
        verdict: bool | None = None
        for prefix, patterns in self._layers_of(os.path.dirname(absolute)):
            relative = absolute[prefix:].replace(os.sep, "/")
            parent_relative = relative.rpartition("/")[0]
            entry = relative + "/" if is_dir else relative
            for pattern in patterns:
                # a pattern that matches the parent folder too matches through it: the walk
                # prunes such folders below its start, so this is a folder at or above the
                # named path, which (as in ruff) does not hide what was named explicitly
                if pattern.match_file(entry) and not (  # type: ignore[attr-defined]
                        parent_relative and pattern.match_file(parent_relative + "/")):  # type: ignore[attr-defined]
                    verdict = pattern.include  # type: ignore[attr-defined]
        return bool(verdict)

    def _layers_of(self, folder: str) -> list[tuple[int, list[object]]]:
        """The patterns that apply in the absolute ``folder``, outermost first: ``(length of the
        prefix to cut for a path relative to their folder, patterns)``, only folders that have some."""
        if folder not in self._layers:
            top = self._work_tree(folder)
            if top is None:
                layers: list[tuple[int, list[object]]] = []
            else:
                files = [os.path.join(folder, ".gitignore")]
                if folder == top:  # info/exclude: the lowest precedence, so read first
                    files.insert(0, os.path.join(_git_common_dir(top), "info", "exclude"))
                    layers = []
                else:
                    layers = list(self._layers_of(os.path.dirname(folder)))
                patterns = [pattern for file in files for pattern in _patterns_in(file)]
                if patterns:
                    layers.append((len(folder.rstrip(os.sep)) + 1, patterns))
            self._layers[folder] = layers
        return self._layers[folder]

    def _work_tree(self, folder: str) -> str | None:
        if folder not in self._tops:
            parent = os.path.dirname(folder)
            if os.path.exists(os.path.join(folder, ".git")):
                self._tops[folder] = folder
            else:
                self._tops[folder] = None if parent == folder else self._work_tree(parent)
        return self._tops[folder]


def _patterns_in(file: str) -> list[object]:
    """The usable gitignore patterns of ``file`` (none when it is absent or unreadable)."""
    from pathspec import GitIgnoreSpec

    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except (ValueError, re.error):  # git skips a line it cannot use, not the whole file
        spec = GitIgnoreSpec.from_lines([line for line in lines if _usable(line)])
    return [pattern for pattern in spec.patterns if pattern.include is not None]


def _usable(line: str) -> bool:
    """True when ``pathspec`` accepts the gitignore line ``line``."""
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([line])
    except (ValueError, re.error):
        return False
    return True


def _git_common_dir(top: str) -> str:
    """The repository folder of the work tree ``top`` (``.git``, or where a worktree's ``.git`` file points)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8") as handle:
            gitdir = handle.read().strip().removeprefix("gitdir:").strip()
        gitdir = os.path.join(top, gitdir)
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(gitdir, handle.read().strip()))
    except OSError:
        return dot_git


def walk(paths: Iterable[str], excluded: Callable[[str, bool], bool],
         named_excluded: Callable[[str], bool] = lambda path: False) -> Iterator[str | Missing]:
    """Yield the Python files under ``paths`` in a stable order, and a :class:`Missing` for each missing path.

    Args:
        paths: files and folders as named on the command line.
        excluded: ``excluded(path, is_dir)`` is true for a file or folder the walk skips (the
            configured exclusions, ``.gitignore``); virtual environments are always skipped.
        named_excluded: true for a named file or folder that is skipped all the same
            (``--force-exclude``); by default a named file is yielded whatever its name or suffix.
    Yields:
        paths as given or joined under them, in ``os.walk`` order with sorted names.
    """
    for path in paths:
        if os.path.isfile(path):
            if not named_excluded(path):
                yield path
            continue
        if not os.path.isdir(path):
            yield Missing(path)
            continue
        if named_excluded(path):
            continue
        yield from _walk_folder(path, excluded)


def _walk_folder(top: str, excluded: Callable[[str, bool], bool]) -> Iterator[str]:
    """The Python files under the folder ``top`` (joined to it), as ``os.walk`` gives them with sorted names:
    a folder's files, then its subfolders' in order; symbolic links to folders, folders that cannot be read and
    virtual environments below ``top`` (a :data:`VIRTUALENV_MARK` file) are skipped. Read with ``os.scandir``
    directly (half the time of ``os.walk`` over jax's 90 folders: a one-file check of a big package walks it)."""
    pending = [top]
    while pending:
        folder = pending.pop()
        folders, files = [], []
        virtualenv = False
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        if not entry.is_symlink():
                            folders.append(entry.name)
                    elif entry.name.endswith(PYTHON_SUFFIXES):
                        files.append(entry.name)
                    elif entry.name == VIRTUALENV_MARK and folder is not top and entry.is_file():  # (follows a link)
                        virtualenv = True
                        break
        except OSError:
            continue
        if virtualenv:
            continue
        prefix = os.path.join(folder, "")
        for name in sorted(files):
            if not excluded(prefix + name, False):
                yield prefix + name
        subfolders = [prefix + name for name in sorted(folders)]
        pending.extend(reversed([path for path in subfolders if not excluded(path, True)]))


def _default_excluded(path: str, is_dir: bool) -> bool:
    if not is_dir:
        return False
    name = os.path.basename(path)
    return name in SKIPPED_DIRS or name.endswith(".egg-info")


def iter_python_files(paths: Iterable[str]) -> Iterator[str]:
    """Yield the Python files under ``paths`` in a stable (sorted) order (:func:`walk` with the default exclusions).

    A path naming a file is yielded as given, whatever its suffix; directories are walked,
    skipping :data:`SKIPPED_DIRS`, ``*.egg-info`` and virtual environments.

    Raises:
        FileNotFoundError: when a path does not exist.
    """
    for item in walk(paths, _default_excluded):
        if isinstance(item, Missing):
            raise FileNotFoundError(item.path)
        yield item


class ModuleName(NamedTuple):
    """A module's dotted name and its package (``""`` at the top level), as imports resolve them."""

    name: str
    package: str


def module_name_for(path: str | None) -> ModuleName:
    """Return the dotted module name of ``path``, found by walking up ``__init__.py`` folders.

    ``jax/_src/lax/parallel.py`` inside an installed ``jax`` package gives
    ``jax._src.lax.parallel``; a file outside any package gives its stem; ``None`` (stdin)
    gives ``__main__``.
    """
    if not path or path == "-":
        return ModuleName("__main__", "")
    file = os.path.abspath(path)
    stem = Path(file).stem
    parts = [] if stem == "__init__" else [stem]
    folder = os.path.dirname(file)  # (os.path, not pathlib: a third of the time over jax's folders)
    while os.path.exists(os.path.join(folder, "__init__.py")) and os.path.dirname(folder) != folder:
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    name = ".".join(reversed(parts)) or stem
    package = name if stem == "__init__" else name.rpartition(".")[0]
    return ModuleName(name, package)
