"""The flake8 plugin: reports the checker's diagnostics through flake8 (codes ``ACC``).

flake8 handles ``# noqa``, ``--select``/``--ignore`` and output; ACC201 is added to flake8's
default ignore list, so it is reported only when selected (``--extend-select ACC201``).
ACC001 is never emitted here: flake8 reports unparsable files as E999 itself.

flake8 does not read ``pyproject.toml``; the plugin reads ``extra-sinks`` and ``sanitizers``
from the nearest ``[tool.asynccfg-lint]`` table above each checked file, as the CLI finds it
(flake8's ``--isolated`` concerns flake8's own configuration files and does not change this).
Selection stays flake8's (``--select``/``--ignore``). An invalid table stops the run (exit 1)
with flake8's "failed during execution due to ConfigError: ..." line naming the file and the problem.

flake8 hands the plugin one file at a time. Wrappers defined in the same file are always seen;
for a file inside a package, the plugin also summarises every module of the top-level package
(the outermost folder chain with ``__init__.py``) once per flake8 process, so a wrapper defined
in a sibling module is a sink too. Builders and constants imported from another module of that
package (``from .cfgs import make_cfg``, ``defaults.TIMEOUT``) are read from that module (parsed
once per process, on first use); a value written there is reported in the checked file, at the
expression it arrives through, naming where it is written — as the CLI reports it. Wrappers and
builders outside that package are not seen (the CLI sees every file of its run).
"""

from __future__ import annotations

import ast
import functools
import logging
from collections.abc import Iterator
from typing import Any

from asynccfg_lint import __version__
from asynccfg_lint.checker import check_source
from asynccfg_lint.config import plugin_settings
from asynccfg_lint.discovery import iter_python_files
from asynccfg_lint.jax_facts import SinkSpec
from asynccfg_lint.project import Project, package_root
from asynccfg_lint.rules import DEFAULT_DISABLED
from asynccfg_lint.selection import Selection

#: every code, so that flake8's own select/ignore decides what is shown
_ALL_CODES = Selection(select=("ACC1", "ACC2"))
LOG = logging.getLogger(__name__)


@functools.lru_cache(maxsize=8)
def package_project(root: str) -> Project:
    """The project of the package folder ``root``: its modules, parsed on demand (once per process)."""
    return Project(iter_python_files([root]))


@functools.lru_cache(maxsize=8)
def package_sinks(root: str, sinks: tuple[SinkSpec, ...]) -> tuple[SinkSpec, ...]:
    """``sinks`` plus the wrappers of every module under the package folder ``root`` (once per process)."""
    project = package_project(root)
    found = project.sinks(sinks)
    project.release()  # later files parse again only the modules they import from
    return found


class AsyncCfgChecker:
    """flake8 tree plugin.

    Args:
        tree: flake8's ``ast`` tree (unused: the checker parses ``lines`` with libcst once).
        lines: the file's physical lines as flake8 read them.
        filename: the path flake8 checks (used to compute the module's dotted name, and to find
            the ``pyproject.toml`` whose ``extra-sinks``/``sanitizers`` apply).
    Raises:
        ConfigError: when that ``pyproject.toml`` is invalid. flake8 turns an exception raised
            while creating the plugin into its "failed during execution" message and exit 1.
    """

    name = "asynccfg-lint"
    version = __version__

    def __init__(self, tree: ast.AST, lines: list[str], filename: str) -> None:
        self.lines = lines
        self.filename = filename
        self.sinks, self.sanitizers = plugin_settings(filename)

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        """Keep opt-in rules (ACC201) off unless selected, as in the CLI."""
        option_manager.extend_default_ignore(list(DEFAULT_DISABLED))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Yield ``(line, column, "CODE message", type)``: 1-based line, 0-based character column.

        Never raises: flake8 aborts the whole run on a plugin exception, so any failure here
        means no diagnostics for this file.
        """
        try:
            root = package_root(self.filename)
            sinks = package_sinks(root, tuple(self.sinks)) if root else self.sinks
            modules = package_project(root).module if root else None
            diagnostics = check_source("".join(self.lines), self.filename, _ALL_CODES, sinks, apply_noqa=False,
                                       sanitizers=self.sanitizers, modules=modules)
        except Exception:  # noqa: BLE001 - see docstring
            LOG.warning("asynccfg-lint failed on %s; no diagnostics for it", self.filename, exc_info=True)
            return
        for diagnostic in diagnostics:
            if diagnostic.code == "ACC001":
                continue
            yield diagnostic.line, diagnostic.column - 1, f"{diagnostic.code} {diagnostic.message}", type(self)
