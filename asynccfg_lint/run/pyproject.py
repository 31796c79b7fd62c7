"""Finding and reading the ``[tool.asynccfg-lint]`` table: which ``pyproject.toml`` governs a folder.

The nearest ``pyproject.toml`` with the table, walking up from a folder (ruff's discovery; one
without the table is passed over). TOML files are parsed once while their size and modification
time stay the same. :mod:`asynccfg_lint.run.config` turns a table into settings; this module is
kept apart from it so that a process that finds no table (the flake8 plugin's usual start) builds
none of the settings classes and imports no TOML parser.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

TABLE = "asynccfg-lint"
PYPROJECT = "pyproject.toml"


class ConfigError(Exception):
    """A configuration file or option that cannot be used; ``str(exc)`` is the message shown (exit 2)."""

    def __repr__(self) -> str:
        # flake8 prints a plugin's exception with !r: keep the message readable there, unquoted
        return f"{type(self).__name__}: {self}"


def toml() -> ModuleType:
    """The TOML parser: ``tomllib`` (Python 3.11+), else ``tomli``; imported on first use."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


def read_toml(path: Path) -> dict[str, Any]:
    """Parse the TOML file ``path`` (cached while its size and modification time stay the same).

    Raises:
        ConfigError: when it cannot be read or is not valid TOML (the message names the file).
    """
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _parse_toml(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _parse_toml(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    tomllib = toml()
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def table_of(document: Mapping[str, Any]) -> Any:
    """A parsed ``pyproject.toml``'s ``[tool.asynccfg-lint]`` value (``None``: absent; not always a table)."""
    tool = document.get("tool")
    return tool.get(TABLE) if isinstance(tool, Mapping) else None


def has_table(pyproject: Path) -> bool:
    """True when ``pyproject`` has a ``[tool.asynccfg-lint]`` table.

    Raises:
        ConfigError: when it cannot be read or is not valid TOML.
    """
    return table_of(read_toml(pyproject)) is not None


def find_config(folder: str) -> Path | None:
    """The nearest ``pyproject.toml`` with a ``[tool.asynccfg-lint]`` table in ``folder`` or its ancestors.

    Raises:
        ConfigError: when a ``pyproject.toml`` on the way is not valid TOML.
    """
    current = Path(folder).resolve()
    for candidate in (current, *current.parents):
        pyproject = candidate / PYPROJECT
        if pyproject.is_file() and has_table(pyproject):
            return pyproject
    return None
