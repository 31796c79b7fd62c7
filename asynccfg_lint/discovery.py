"""File discovery: which files a run checks, as ruff and flake8 walk directories."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

#: folder names never descended into
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".asynccfg_lint_cache", "__pycache__", "build", "dist", "node_modules", "site-packages", ".eggs",
})
PYTHON_SUFFIXES = (".py", ".pyi")


def is_virtualenv(path: str) -> bool:
    """True when ``path`` is a virtual environment (it holds ``pyvenv.cfg``)."""
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def iter_python_files(paths: Iterable[str]) -> Iterator[str]:
    """Yield the Python files under ``paths`` in a stable (sorted) order.

    A path naming a file is yielded as given, whatever its suffix; directories are walked,
    skipping :data:`SKIPPED_DIRS` and virtual environments.

    Raises:
        FileNotFoundError: when a path does not exist.
    """
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        if not os.path.isdir(path):
            raise FileNotFoundError(path)
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                and not is_virtualenv(os.path.join(root, d))
            )
            for name in sorted(files):
                if name.endswith(PYTHON_SUFFIXES):
                    yield os.path.join(root, name)


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
    file = Path(os.path.abspath(path))
    parts = [] if file.stem == "__init__" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").exists() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    name = ".".join(parts) or file.stem
    package = name if file.stem == "__init__" else name.rpartition(".")[0]
    return ModuleName(name, package)
