"""File discovery: which files a run checks, as ruff and flake8 walk directories."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

#: folder names never descended into
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", "__pycache__", "build", "dist", "node_modules", "site-packages", ".eggs",
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
