"""The flake8 plugin: reports the checker's diagnostics through flake8 (codes ``ACC``).

flake8 handles ``# noqa``, ``--select``/``--ignore`` and output; ACC201 is added to flake8's
default ignore list, so it is reported only when selected (``--extend-select ACC201``).
ACC001 is emitted only for a file Python accepts but the checker cannot analyse (libcst's
limits: very deep nesting, syntax it does not support): flake8 reports the files Python rejects
as E999 itself, and says nothing about the others, whose findings would otherwise go unseen.

flake8 does not read ``pyproject.toml``; the plugin reads ``extra-sinks`` and ``sanitizers``
from the nearest ``[tool.asynccfg-lint]`` table above each checked file, as the CLI finds it
(flake8's ``--isolated`` concerns flake8's own configuration files and does not change this).
Selection stays flake8's (``--select``/``--ignore``). An invalid table stops the run (exit 1)
with flake8's "failed during execution due to ConfigError: ..." line naming the file and the problem.

flake8 hands the plugin one file at a time. Wrappers defined in the same file are always seen;
for a file inside a package, the plugin also analyses every module of the top-level package
(the outermost folder chain with ``__init__.py``) once per flake8 process, so a wrapper defined
in a sibling module is a sink too, and the file's own outcome is taken from that analysis when
flake8's text of the file is the text on disk. Builders and constants imported from another
module of that package (``from .cfgs import make_cfg``, ``defaults.TIMEOUT``) are read from
that module; a value written there is reported in the checked file, at the expression it
arrives through, naming where it is written, as the CLI reports it. Wrappers and builders
outside that package are not seen (the CLI sees every file of its run). flake8 forks its workers after calling ``parse_options``, so
the packages of the paths named on the command line are analysed there, once, before the fork,
instead of once in every worker. libcst is imported only when a file has to be analysed.

The plugin reads and writes the CLI's result cache, found as the CLI finds it from flake8's working
directory (``$ASYNCCFG_LINT_CACHE_DIR``, else ``.asynccfg_lint_cache`` in the nearest folder with a
``pyproject.toml``, else the working directory), so a second flake8 run reads the package's summaries
instead of analysing them again. ``--asynccfg-no-cache`` (or ``asynccfg-no-cache = true`` in flake8's
configuration) turns it off, as ``--no-cache`` does for the CLI; ``--asynccfg-cache-dir`` moves it. flake8's
workers write entries concurrently: each writes its analysis's entries in one SQLite transaction
(:class:`~asynccfg_lint.run.entry_store.EntryStore`).
"""

from __future__ import annotations

import ast
import functools
import io
import logging
import os
import tokenize
from collections.abc import Iterator, Sequence
from typing import Any

from asynccfg_lint import __version__
from asynccfg_lint.run.boundary import LOG as BOUNDARY_LOG
from asynccfg_lint.run.boundary import internal_error
from asynccfg_lint.run.cache import MISSING, Missing, cache_dir_for
from asynccfg_lint.run.pyproject import ConfigError, find_config
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.run.discovery import iter_python_files, module_name_for
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkSpec
from asynccfg_lint.analysis.prefilter import SinkIndex
from asynccfg_lint.run.project import package_project, package_root, package_sinks
from asynccfg_lint.rules import DEFAULT_DISABLED, RULES, acc001
from asynccfg_lint.run.selection import Selection
from asynccfg_lint.run.tasks import CheckSettings, FileOutcome

#: every code of the rule table, so that flake8's own select/ignore decides what is shown
_ALL_CODES = Selection(select=tuple(rule.code for rule in RULES))
#: how an ACC001 message starts when Python itself rejects the file's syntax (flake8 reports E999 then). Not
#: "cannot decode": flake8 reads a file that does not decode as latin-1 and reports nothing about it
#: (``FileProcessor.read_lines``, flake8 7), so the plugin's ACC001 says it, as the CLI's does
PYTHON_REJECTS = (acc001.not_analysed("syntax error"),)
LOG = logging.getLogger(__name__)
#: the options the plugin reads; the others (globs, selection) are the CLI's and not validated here
PLUGIN_KEYS = ("extra-sinks", "sanitizers", "types")


#: top-level package folder -> the files under it named on flake8's command line (absolute paths)
_NAMED: dict[str, frozenset[str]] = {}
#: the result cache folder (``None``: none) flake8's options chose in ``parse_options``; unset before it runs
_CACHE_DIR: str | None | Missing = MISSING


def result_cache_dir() -> str | None:
    """The result cache folder of this flake8 run (:func:`~asynccfg_lint.run.cache.cache_dir_for` of the
    plugin's options; the CLI's default when the plugin is used without flake8's option parsing)."""
    return cache_dir_for() if isinstance(_CACHE_DIR, Missing) else _CACHE_DIR


@functools.lru_cache(maxsize=256)
def _plugin_settings_for_folder(folder: str) -> tuple[tuple[SinkSpec, ...], frozenset[str]]:
    pyproject = find_config(folder)
    if pyproject is None:
        return BUILTIN_SINKS, frozenset()
    # imported here: without a table (the usual case) the plugin's start builds none of the settings classes
    from asynccfg_lint.run.config import load_settings

    settings = load_settings(pyproject, only=PLUGIN_KEYS)
    return settings.sinks, settings.sanitizers


def plugin_settings(filename: str) -> tuple[tuple[SinkSpec, ...], frozenset[str]]:
    """The sinks (built-in and ``extra-sinks``) and ``sanitizers`` for the plugin checking ``filename``.

    Read from the nearest ``pyproject.toml`` with a ``[tool.asynccfg-lint]`` table above the
    file (above the current directory for stdin); flake8's own options decide selection. Only
    the keys the plugin reads are validated (and an unknown key): a malformed glob or rule code,
    which only the CLI uses, does not stop a flake8 run. ``extend`` is followed as in the CLI.

    Raises:
        ConfigError: when that file is not TOML, has an unknown key, or a bad ``extra-sinks`` or
            ``sanitizers`` entry.
    """
    if filename in ("-", "stdin", "") or not os.path.exists(filename):
        folder = os.getcwd()
    else:
        folder = os.path.dirname(os.path.abspath(filename))
    return _plugin_settings_for_folder(folder)


@functools.lru_cache(maxsize=8)
def package_analysis(root: str, sinks: tuple[SinkSpec, ...], sanitizers: frozenset[str],
                     files: frozenset[str]) -> dict[str, FileOutcome]:
    """Analyse the modules ``files`` (absolute paths) of the package folder ``root`` (once per process).

    The package's other modules are summarised as far as ``files`` may reach their wrappers
    (``Project.analyse``): a sink-free file that reaches none costs no parse.

    Returns:
        absolute path -> outcome of each of ``files`` that names a sink (diagnostics of every
        ACC code, ``# noqa`` left to flake8).
    """
    project = package_project(root, result_cache_dir())
    settings = CheckSettings(_ALL_CODES, sanitizers, apply_noqa=False)
    outcomes = project.analyse(sinks, {path: settings for path in project.files if os.path.abspath(path) in files})
    if project.stored_sinks(sinks) is None:  # (stored: a file that calls none of them needs no names either)
        project.scope(sinks, ())  # the names that lead to a sink, found once before flake8 forks its workers
    return {os.path.abspath(path): outcome for path, outcome in outcomes.items()}


def _disk_bytes(path: str) -> bytes | None:
    """The bytes of the file ``path``, or ``None`` when it cannot be read (``-``: stdin, a folder, gone)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _as_flake8_reads(data: bytes) -> str | None:
    """``data`` as flake8 reads a file (its encoding, universal newlines), or ``None`` when it does not decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


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
        """Keep opt-in rules (ACC201) off unless selected, as in the CLI; register the result cache's options."""
        option_manager.extend_default_ignore(list(DEFAULT_DISABLED))
        option_manager.add_option("--asynccfg-no-cache", action="store_true", parse_from_config=True,
                                  help="asynccfg-lint: neither read nor write the result cache (the CLI's --no-cache)")
        option_manager.add_option("--asynccfg-cache-dir", metavar="PATH", default=None, parse_from_config=True,
                                  help="asynccfg-lint: the result cache's folder (default: $ASYNCCFG_LINT_CACHE_DIR, "
                                       "else .asynccfg_lint_cache in the nearest folder with a pyproject.toml, else "
                                       "the working directory)")

    @classmethod
    def parse_options(cls, option_manager: Any, options: Any, filenames: Sequence[str]) -> None:
        """Analyse the packages of the paths flake8 was given, in the main process, before it forks its workers.

        With ``-v``, an internal error's traceback goes where flake8's own log goes (stderr, or its
        ``--output-file``), as the CLI's ``--verbose`` prints it.
        """
        global _CACHE_DIR
        _CACHE_DIR = cache_dir_for(getattr(options, "asynccfg_no_cache", False),
                                   getattr(options, "asynccfg_cache_dir", None))
        for handler in logging.getLogger("flake8").handlers:  # flake8 adds one only when -v is given
            BOUNDARY_LOG.addHandler(handler)
            BOUNDARY_LOG.setLevel(logging.INFO)
        try:
            for root, files in sorted(_package_files(filenames or ["."]).items()):
                _NAMED[root] = frozenset(files)
                sinks, sanitizers = plugin_settings(os.path.join(root, "__init__.py"))
                package_analysis(root, tuple(sinks), sanitizers, _NAMED[root])
        except ConfigError:
            return  # reported (and fatal) when the plugin is created for a file under it
        except Exception:  # noqa: BLE001 - the workers analyse the files themselves
            LOG.warning("asynccfg-lint could not analyse the packages ahead of the run", exc_info=True)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Yield ``(line, column, "CODE message", type)``: 1-based line, 0-based character column.

        Never raises: flake8 aborts the whole run on a plugin exception, so a failure here is
        this file's ACC001 ``internal error`` (the traceback goes to the ``asynccfg_lint`` logger).
        """
        try:
            diagnostics = self._diagnostics()
        except Exception as error:  # noqa: BLE001 - see docstring
            diagnostics = (internal_error(self.filename, error),)
        for diagnostic in diagnostics:
            if diagnostic.code == "ACC001" and diagnostic.message.startswith(PYTHON_REJECTS):
                continue  # flake8's E999
            message = diagnostic.placed_like(self.filename).message  # the package is analysed under absolute paths
            yield diagnostic.line, diagnostic.column - 1, f"{diagnostic.code} {message}", type(self)

    def _diagnostics(self) -> Sequence[Diagnostic]:
        """The file's diagnostics: from its package's analysis when flake8's text is the file on disk.

        The sinks are the configured ones plus the package's wrappers this text may reach
        (``Project.sinks``); a file that calls none of them is not parsed.
        """
        text = "".join(self.lines)
        sinks, project, root = package_sinks(self.filename, self.sinks, text, result_cache_dir())
        if not SinkIndex(sinks).matching(text, module_name_for(self.filename).name):
            return ()
        data = _disk_bytes(self.filename)
        disk = _as_flake8_reads(data) if data is not None else None
        source: str | bytes = text
        if data is not None and disk is None:
            source = data  # flake8 read it as latin-1: its bytes give Python's verdict
        elif project is not None and root is not None and text == disk:
            path = os.path.abspath(self.filename)
            named = _NAMED.get(root, frozenset())
            outcomes = package_analysis(root, tuple(self.sinks), self.sanitizers,
                                        named if path in named else frozenset({path}))
            outcome = outcomes.get(path)
            return outcome.diagnostics if outcome is not None else ()
        from asynccfg_lint.analysis.checker import check_source

        try:
            return check_source(source, self.filename, _ALL_CODES, sinks, apply_noqa=False,
                                sanitizers=self.sanitizers, modules=project)
        finally:
            if project is not None:
                project.save_cache()  # the parses of other modules the check looked up


def _package_files(paths: Sequence[str]) -> dict[str, list[str]]:
    """The top-level package folders of the Python files under ``paths``, each with those files (absolute
    paths; missing paths are skipped)."""
    found: dict[str, list[str]] = {}
    for path in paths:
        if path == "-" or not os.path.exists(path):
            continue
        for file in iter_python_files([path]):
            root = package_root(file)
            if root is not None:
                found.setdefault(root, []).append(os.path.abspath(file))
    return found
