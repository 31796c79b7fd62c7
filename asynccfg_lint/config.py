"""Configuration: ``[tool.asynccfg-lint]`` in ``pyproject.toml``, found and layered as ruff does it.

Discovery: for each checked file, the nearest ``pyproject.toml`` that has a
``[tool.asynccfg-lint]`` table, walking up from the file's folder (a ``pyproject.toml`` without
the table is passed over, as ruff passes over one without ``[tool.ruff]``). A file with no such
ancestor uses the configuration found from the current directory, else the defaults.
``--config PATH`` uses one file for every checked file; ``--isolated`` reads none.

Relative globs in a discovered file are relative to that file's folder; in a file given with
``--config`` and on the command line they are relative to the current directory (ruff's rule).

Keys (all optional; unknown keys are an error)::

    [tool.asynccfg-lint]
    select = ["ACC1"]                    # code prefixes replacing the default (ACC0, ACC1)
    extend-select = ["ACC201"]           # code prefixes added
    ignore = ["ACC103"]                  # code prefixes removed
    per-file-ignores = { "tests/*" = ["ACC101"], "!src/**" = ["ACC2"] }   # "!" negates the glob
    exclude = ["generated"]              # replaces the default excluded names (.git, build, ...)
    extend-exclude = ["legacy/*.py"]     # added to them
    unsafe-fixes = false                 # `fix` also applies unsafe fixes
    extra-sinks = ["mypkg.collectives.emit_start:cfg@3"]   # QUALNAME:PARAMETER[@POSITION]
    sanitizers = ["mypkg.jsonsafe.sanitize"]               # functions whose result is JSON-safe
    types = { "mypkg.io.cache_root" = "pathlib.Path" }     # calls whose result is a catalog type

An extra sink ``QUALNAME:PARAMETER@POSITION`` is a function whose argument ``PARAMETER`` (passed
by keyword, or positionally at the 0-based ``POSITION``) is a whole config dict that reaches
JAX's serializer; without ``@POSITION`` the parameter is matched by keyword only.

Globs: ``*`` and ``?`` stay within one path component, ``**`` spans components, ``[...]`` is a
character class and ``{a,b}`` an alternative. A pattern without ``/`` is matched against the
file or folder name alone (``__init__.py``, ``*_pb2.py``, ``generated``); a pattern with ``/``
against the path relative to the configuration's folder (``tests/**``, ``src/legacy/*.py``).
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asynccfg_lint.discovery import PYTHON_SUFFIXES, SKIPPED_DIRS, is_virtualenv
from asynccfg_lint.jax_facts import BUILTIN_SINKS, SinkKind, SinkSpec
from asynccfg_lint.rules import RULES
from asynccfg_lint.selection import Selection, parse_code_list

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TABLE = "asynccfg-lint"
PYPROJECT = "pyproject.toml"
#: names excluded from the directory walk unless ``exclude`` replaces them (virtual environments,
#: folders holding ``pyvenv.cfg``, are always skipped)
DEFAULT_EXCLUDE: tuple[str, ...] = (*sorted(SKIPPED_DIRS), "*.egg-info")
KNOWN_KEYS = (
    "select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
    "unsafe-fixes", "extra-sinks", "sanitizers", "types",
)
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_QUALNAME = re.compile(rf"{_IDENTIFIER}(\.{_IDENTIFIER})*")
_SINK = re.compile(rf"(?P<qualname>{_QUALNAME.pattern}):(?P<param>{_IDENTIFIER})(@(?P<position>\d+))?")


class ConfigError(Exception):
    """A configuration file or option that cannot be used; ``str(exc)`` is the message shown (exit 2)."""

    def __repr__(self) -> str:
        # flake8 prints a plugin's exception with !r: keep the message readable there, unquoted
        return f"{type(self).__name__}: {self}"


# ---------------------------------------------------------------------------------------- globs
@functools.lru_cache(maxsize=None)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Translate a glob into a regular expression matching whole ``/``-separated paths.

    ``*`` and ``?`` do not cross ``/``; ``**`` does (``a/**/b`` also matches ``a/b``); ``[...]``
    and ``[!...]`` are character classes; ``{x,y}`` alternatives.

    Raises:
        ConfigError: on an unbalanced ``[`` or ``{``.
    """
    out: list[str] = []
    index, depth = 0, 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2 if pattern.startswith(("[!", "[^"), index) else index + 1)
            if end < 0:
                raise ConfigError(f"invalid glob {pattern!r}: unclosed '['")
            body = pattern[index + 1:end]
            if body.startswith(("!", "^")):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            index = end + 1
            continue
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise ConfigError(f"invalid glob {pattern!r}: unclosed '{{'")
    return re.compile("".join(out) + r"\Z")


@dataclass(frozen=True)
class Glob:
    """A glob and the folder its relative form is relative to.

    Attributes:
        pattern: the glob as written (without a leading ``!``).
        root: the absolute folder a pattern with ``/`` is relative to.
        negated: the pattern was written with a leading ``!`` (per-file-ignores only).
    """

    pattern: str
    root: str
    negated: bool = False

    def matches(self, path: str) -> bool:
        """True when the absolute ``path`` (a file or folder) matches; a negated glob inverts the result."""
        return self._matches(path) != self.negated

    def _matches(self, path: str) -> bool:
        pattern = self.pattern.rstrip("/") or self.pattern
        if pattern.startswith("./"):
            pattern = pattern[2:]
        regex = compile_glob(pattern)
        if "/" not in pattern:
            return regex.match(os.path.basename(path)) is not None
        if os.path.isabs(pattern):
            return regex.match(path.replace(os.sep, "/")) is not None
        relative = os.path.relpath(path, self.root).replace(os.sep, "/")
        if relative == ".." or relative.startswith("../"):
            return False
        return regex.match(relative) is not None


# ------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class Settings:
    """The options of one configuration file (or the defaults), validated.

    Attributes:
        source: the file they come from, or ``None`` for the defaults.
        select, extend_select, ignore: rule selection, as in :class:`~asynccfg_lint.selection.Selection`.
        per_file_ignores: ``(glob, code prefixes)`` pairs.
        exclude: globs replacing :data:`DEFAULT_EXCLUDE`, or ``None`` to keep it.
        extend_exclude: globs excluded in addition.
        unsafe_fixes: ``fix`` applies unsafe fixes (``None``: not set, so no).
        extra_sinks: sinks declared in ``extra-sinks``.
        sanitizers: qualified names declared in ``sanitizers``.
        root: the absolute folder relative globs are relative to.
    """

    source: Path | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[Glob, tuple[str, ...]], ...] = ()
    exclude: tuple[Glob, ...] | None = None
    extend_exclude: tuple[Glob, ...] = ()
    unsafe_fixes: bool | None = None
    extra_sinks: tuple[SinkSpec, ...] = ()
    sanitizers: frozenset[str] = frozenset()
    root: str = field(default_factory=os.getcwd)

    @property
    def selection(self) -> Selection:
        """This file's selection layer, on top of the defaults."""
        return Selection(self.select, self.extend_select, self.ignore)

    @property
    def sinks(self) -> tuple[SinkSpec, ...]:
        """The built-in sinks followed by the extra ones."""
        return (*BUILTIN_SINKS, *self.extra_sinks)


@dataclass(frozen=True)
class Overrides:
    """Command-line options that override the configuration file.

    Attributes:
        selection: the ``--select``/``--extend-select``/``--ignore`` layer (all empty: no override).
        exclude: ``--exclude`` globs (replacing the file's and the default), or ``None``.
        extend_exclude: ``--extend-exclude`` globs.
        unsafe_fixes: ``--unsafe-fixes`` (True) / ``--no-unsafe-fixes`` (False), or ``None``.
        force_exclude: apply the exclusions to paths named on the command line too.
    """

    selection: Selection = Selection()
    exclude: tuple[Glob, ...] | None = None
    extend_exclude: tuple[Glob, ...] = ()
    unsafe_fixes: bool | None = None
    force_exclude: bool = False


@dataclass(frozen=True)
class FileSettings:
    """What applies to one checked file: the file's settings with the command line on top.

    Attributes:
        selection: the layered selection (defaults, file, command line, per-file ignores).
        sinks: built-in and extra sinks.
        sanitizers: declared sanitizers.
        unsafe_fixes: ``fix`` applies unsafe fixes.
    """

    selection: Selection
    sinks: tuple[SinkSpec, ...]
    sanitizers: frozenset[str]
    unsafe_fixes: bool


def parse_sink(text: str) -> SinkSpec:
    """Parse an ``extra-sinks`` entry ``QUALNAME:PARAMETER[@POSITION]`` into a config sink.

    ``"mypkg.collectives.emit_start:cfg@3"``: the function ``mypkg.collectives.emit_start``, whose
    parameter ``cfg`` (keyword, or fourth positional argument) carries the whole config dict.

    Raises:
        ConfigError: when ``text`` is not of that form.
    """
    match = _SINK.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ConfigError(f"extra-sinks: {text!r} is not QUALIFIED.NAME:PARAMETER or QUALIFIED.NAME:PARAMETER@POSITION "
                          "(e.g. \"mypkg.collectives.emit_start:cfg@3\")")
    position = match["position"]
    return SinkSpec(frozenset({match["qualname"]}), param=match["param"],
                    position=int(position) if position is not None else None, kind=SinkKind.CONFIG)


def _strings(table: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{key}: expected a list of strings, got {value!r}")
    return tuple(value)


def _codes(table: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    values = _strings(table, key)
    if values is None:
        return None
    return validate_codes(key, parse_code_list(",".join(values)))


def validate_codes(option: str, prefixes: Iterable[str]) -> tuple[str, ...]:
    """Return ``prefixes`` when each is ``ALL`` or a prefix of a known rule code.

    Raises:
        ConfigError: naming ``option`` and the first unknown prefix.
    """
    known = [rule.code for rule in RULES]
    prefixes = tuple(prefixes)
    for prefix in prefixes:
        if prefix != "ALL" and not any(code.startswith(prefix) for code in known):
            raise ConfigError(f"{option}: unknown rule code or prefix {prefix!r}")
    return prefixes


def parse_settings(table: Mapping[str, Any], root: str, source: Path | None = None) -> Settings:
    """Validate the ``[tool.asynccfg-lint]`` table ``table`` into :class:`Settings`.

    Args:
        table: the table's keys and values as TOML parsed them.
        root: the absolute folder relative globs are relative to.
        source: the file, for :attr:`Settings.source`.
    Raises:
        ConfigError: on an unknown key or a value of the wrong type or form.
    """
    if not isinstance(table, Mapping):
        raise ConfigError(f"[tool.{TABLE}] must be a table")
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r}; known options: {', '.join(KNOWN_KEYS)}")
    per_file: list[tuple[Glob, tuple[str, ...]]] = []
    raw_per_file = table.get("per-file-ignores", {})
    if not isinstance(raw_per_file, Mapping):
        raise ConfigError(f"per-file-ignores: expected a table of glob = [codes], got {raw_per_file!r}")
    for pattern, codes in raw_per_file.items():
        prefixes = _codes({f"per-file-ignores.{pattern!r}": codes}, f"per-file-ignores.{pattern!r}") or ()
        negated = pattern.startswith("!")
        glob = Glob(pattern[1:] if negated else pattern, root, negated)
        compile_glob(glob.pattern)
        per_file.append((glob, prefixes))
    unsafe = table.get("unsafe-fixes")
    if unsafe is not None and not isinstance(unsafe, bool):
        raise ConfigError(f"unsafe-fixes: expected true or false, got {unsafe!r}")
    sanitizers = _strings(table, "sanitizers") or ()
    for name in sanitizers:
        if not _QUALNAME.fullmatch(name):
            raise ConfigError(f"sanitizers: {name!r} is not a qualified name (e.g. \"mypkg.jsonsafe.sanitize\")")
    sanitizers = (*sanitizers, *_catalog_rows(table.get("types", {})))
    return Settings(
        source=source,
        select=_codes(table, "select"),
        extend_select=_codes(table, "extend-select") or (),
        ignore=_codes(table, "ignore") or (),
        per_file_ignores=tuple(per_file),
        exclude=globs(_strings(table, "exclude"), root),
        extend_exclude=globs(_strings(table, "extend-exclude"), root) or (),
        unsafe_fixes=unsafe,
        extra_sinks=tuple(parse_sink(text) for text in _strings(table, "extra-sinks") or ()),
        sanitizers=frozenset(sanitizers),
        root=root,
    )


def _catalog_rows(raw: object) -> list[str]:
    """The ``[tool.asynccfg-lint.types]`` table (qualified name = catalog type) as ``QUALNAME=TYPE`` entries.

    They travel with the sanitizers, which are catalog rows too ("the result is JSON-safe"); the
    classifier's catalog (:func:`asynccfg_lint.infer.catalog.extended`) reads them.
    Raises:
        ConfigError: not a table of strings, a key that is not a qualified name, or a type the catalog lacks.
    """
    from asynccfg_lint.infer.catalog import USER_ROW_SEPARATOR, CatalogError, user_row

    if not isinstance(raw, Mapping):
        raise ConfigError(f"types: expected a table of \"qualified.name\" = \"catalog type\", got {raw!r}")
    rows = []
    for name, type_name in raw.items():
        if not _QUALNAME.fullmatch(name) or not isinstance(type_name, str):
            raise ConfigError(f"types: {name!r} = {type_name!r} is not \"qualified.name\" = \"catalog type\"")
        try:
            user_row(name, type_name)
        except CatalogError as exc:
            raise ConfigError(f"types: {name!r}: {exc}") from exc
        rows.append(f"{name}{USER_ROW_SEPARATOR}{type_name}")
    return rows


def globs(patterns: Iterable[str] | None, root: str) -> tuple[Glob, ...] | None:
    """Return ``patterns`` as :class:`Glob` s relative to ``root`` (``None`` stays ``None``).

    Raises:
        ConfigError: on a malformed glob.
    """
    if patterns is None:
        return None
    result = tuple(Glob(pattern, root) for pattern in patterns)
    for glob in result:
        compile_glob(glob.pattern)
    return result


def _read_toml(path: Path) -> dict[str, Any]:
    """Parse the TOML file ``path`` (cached while its size and modification time stay the same)."""
    try:
        stat = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _parse_toml(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _parse_toml(path: str, mtime_ns: int, size: int) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _table(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    tool = document.get("tool")
    return tool.get(TABLE) if isinstance(tool, Mapping) else None


def has_table(pyproject: Path) -> bool:
    """True when ``pyproject`` has a ``[tool.asynccfg-lint]`` table.

    Raises:
        ConfigError: when it cannot be read or is not valid TOML.
    """
    return _table(_read_toml(pyproject)) is not None


def load_settings(path: Path, root: str | None = None) -> Settings:
    """Read a configuration file.

    A file named ``pyproject.toml`` holds the options in ``[tool.asynccfg-lint]`` (none: the
    defaults); any other TOML file holds them at the top level.

    Args:
        path: the file.
        root: the folder relative globs are relative to; default: the file's folder.
    Raises:
        ConfigError: when the file cannot be read, is not TOML, or has a bad option (the message
            names the file).
    """
    document = _read_toml(path)
    table = _table(document) if path.name == PYPROJECT else document
    folder = root if root is not None else str(path.resolve().parent)
    try:
        return parse_settings(table or {}, folder, path)
    except ConfigError as exc:
        where = f"[tool.{TABLE}]" if path.name == PYPROJECT else "options"
        raise ConfigError(f"{path}: {where}: {exc}") from None


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


class Resolver:
    """Find the :class:`Settings` of each checked path.

    Args:
        config: ``--config PATH``: one file for everything (its relative globs relative to the
            current directory), or ``None`` to discover ``pyproject.toml`` files.
        isolated: ``--isolated``: read no configuration file.
        overrides: the command-line options layered on top.
    Raises:
        ConfigError: when ``config`` cannot be read or has a bad option, or when both
            ``config`` and ``isolated`` are given.
    """

    def __init__(self, config: str | None = None, isolated: bool = False, overrides: Overrides = Overrides()) -> None:
        if config is not None and isolated:
            raise ConfigError("--config cannot be used with --isolated")
        self.overrides = overrides
        self.isolated = isolated
        self._fixed = load_settings(Path(config), root=os.getcwd()) if config is not None else None
        self._by_folder: dict[str, Settings] = {}
        self._fallback: Settings | None = None

    def settings_for(self, path: str) -> Settings:
        """The settings that govern ``path`` (a file or a folder, existing or not).

        Raises:
            ConfigError: when a discovered configuration file is invalid.
        """
        if self._fixed is not None:
            return self._fixed
        if self.isolated:
            return self._default()
        absolute = os.path.abspath(path)
        folder = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        return self._for_folder(folder)

    def _default(self) -> Settings:
        if self._fallback is None:
            self._fallback = Settings(root=os.getcwd())
        return self._fallback

    def _for_folder(self, folder: str) -> Settings:
        visited: list[str] = []
        current = folder
        found: Settings | None = None
        while True:
            if current in self._by_folder:
                found = self._by_folder[current]
                break
            visited.append(current)
            pyproject = Path(current) / PYPROJECT
            if pyproject.is_file() and has_table(pyproject):
                found = load_settings(pyproject)
                break
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        if found is None:
            found = self._cwd_settings()
        for seen in visited:
            self._by_folder[seen] = found
        return found

    def _cwd_settings(self) -> Settings:
        """Files outside every configured project use the configuration found from the current directory."""
        if self._fallback is None:
            pyproject = find_config(os.getcwd())
            self._fallback = load_settings(pyproject) if pyproject is not None else Settings(root=os.getcwd())
        return self._fallback

    def file_settings(self, path: str) -> FileSettings:
        """The layered settings of the file ``path``: file options, then the command line, then per-file ignores."""
        settings = self.settings_for(path)
        selection = self.overrides.selection.over(settings.selection)
        absolute = os.path.abspath(path)
        ignored = tuple(code for glob, codes in settings.per_file_ignores if glob.matches(absolute) for code in codes)
        if ignored:
            selection = Selection(ignore=ignored, base=selection)
        unsafe = self.overrides.unsafe_fixes if self.overrides.unsafe_fixes is not None else settings.unsafe_fixes
        return FileSettings(selection, settings.sinks, settings.sanitizers, bool(unsafe))

    def is_excluded(self, path: str) -> bool:
        """True when the file or folder ``path`` matches an exclusion of the settings that govern it."""
        settings = self.settings_for(os.path.dirname(os.path.abspath(path)))
        if self.overrides.exclude is not None:
            exclude = self.overrides.exclude
        elif settings.exclude is not None:
            exclude = settings.exclude
        else:
            exclude = _default_exclude(settings.root)
        absolute = os.path.abspath(path)
        return any(glob.matches(absolute) for glob in (*exclude, *settings.extend_exclude, *self.overrides.extend_exclude))

    def is_excluded_with_ancestors(self, path: str) -> bool:
        """True when ``path`` or a folder above it, below the governing configuration's folder, is excluded.

        This is ``--force-exclude``: ``exclude = ["generated"]`` also drops ``generated/x.py``
        when pre-commit names that file.
        """
        absolute = os.path.abspath(path)
        root = self.settings_for(absolute).root
        current = absolute
        while True:
            if self.is_excluded(current):
                return True
            parent = os.path.dirname(current)
            if parent == current or not _is_within(parent, root) or parent == root:
                return False
            current = parent


@functools.lru_cache(maxsize=None)
def _default_exclude(root: str) -> tuple[Glob, ...]:
    return tuple(Glob(pattern, root) for pattern in DEFAULT_EXCLUDE)


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Missing:
    """A path named on the command line that does not exist."""

    path: str


def iter_files(paths: Iterable[str], resolver: Resolver) -> Iterator[str | Missing]:
    """Yield the Python files under ``paths`` in a stable order, and a :class:`Missing` for each missing path.

    A file named on the command line is yielded whatever its suffix, unless ``force_exclude``
    is set and it (or a folder above it) is excluded. Directories are walked in ``os.walk``
    order with sorted names, skipping excluded files and folders and virtual environments.
    """
    for path in paths:
        if os.path.isfile(path):
            if not (resolver.overrides.force_exclude and resolver.is_excluded_with_ancestors(path)):
                yield path
            continue
        if not os.path.isdir(path):
            yield Missing(path)
            continue
        if resolver.overrides.force_exclude and resolver.is_excluded_with_ancestors(path):
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d for d in dirs
                if not is_virtualenv(os.path.join(root, d)) and not resolver.is_excluded(os.path.join(root, d))
            )
            for name in sorted(files):
                file = os.path.join(root, name)
                if name.endswith(PYTHON_SUFFIXES) and not resolver.is_excluded(file):
                    yield file


@functools.lru_cache(maxsize=256)
def _plugin_settings_for_folder(folder: str) -> tuple[tuple[SinkSpec, ...], frozenset[str]]:
    pyproject = find_config(folder)
    if pyproject is None:
        return BUILTIN_SINKS, frozenset()
    settings = load_settings(pyproject)
    return settings.sinks, settings.sanitizers


def plugin_settings(filename: str) -> tuple[tuple[SinkSpec, ...], frozenset[str]]:
    """The sinks (built-in and ``extra-sinks``) and ``sanitizers`` for the flake8 plugin checking ``filename``.

    Read from the nearest ``pyproject.toml`` with a ``[tool.asynccfg-lint]`` table above the
    file (above the current directory for stdin); flake8's own options decide selection.

    Raises:
        ConfigError: when that file is invalid.
    """
    if filename in ("-", "stdin", "") or not os.path.exists(filename):
        folder = os.getcwd()
    else:
        folder = os.path.dirname(os.path.abspath(filename))
    return _plugin_settings_for_folder(folder)
