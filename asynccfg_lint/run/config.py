"""Configuration: ``[tool.asynccfg-lint]`` in ``pyproject.toml``, found and layered as ruff does it.

Discovery (:mod:`asynccfg_lint.run.pyproject`): for each checked file, the nearest ``pyproject.toml`` that has a
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
    respect-gitignore = true             # the walk skips what git ignores (.gitignore, .git/info/exclude)
    extend = "../pyproject.toml"         # read that file first; these options go on top
    extra-sinks = ["mypkg.collectives.emit_start:cfg@3"]   # QUALNAME:PARAMETER[@POSITION]
    sanitizers = ["mypkg.jsonsafe.sanitize"]               # functions whose result is JSON-safe
    types = { "mypkg.io.cache_root" = "pathlib.Path" }     # calls whose result is a catalog type

An extra sink ``QUALNAME:PARAMETER@POSITION`` is a function whose argument ``PARAMETER`` (passed
by keyword, or positionally at the 0-based ``POSITION``) is a whole config dict that reaches
JAX's serializer; without ``@POSITION`` the parameter is matched by keyword only.

Globs are gitignore patterns, matched by ``pathspec`` as git matches them: a pattern without
``/`` (or with one only at its end) matches a file or folder name at any depth (``__init__.py``,
``*_pb2.py``, ``generated``); a pattern with ``/`` is anchored at the configuration's folder
(``tests/**``, ``src/legacy/*.py``); ``*`` and ``?`` stay within a path component, ``**`` spans
them, ``[...]`` is a character class, ``\\*`` a literal ``*``, and a trailing ``/`` matches
folders only. A pattern ``pathspec`` rejects is a configuration error naming the file and key.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from asynccfg_lint.run.discovery import SKIPPED_DIRS, GitIgnore, Missing, walk
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkKind, SinkSpec
from asynccfg_lint.rules import RULES
from asynccfg_lint.run.pyproject import PYPROJECT, TABLE, ConfigError, find_config, has_table, read_toml, table_of, toml
from asynccfg_lint.run.selection import Selection, parse_code_list

#: names excluded from the directory walk unless ``exclude`` replaces them (virtual environments,
#: folders holding ``pyvenv.cfg``, are always skipped)
DEFAULT_EXCLUDE: tuple[str, ...] = (*sorted(SKIPPED_DIRS), "*.egg-info")
KNOWN_KEYS = (
    "select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
    "unsafe-fixes", "respect-gitignore", "extra-sinks", "sanitizers", "types", "extend",
)
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_QUALNAME = re.compile(rf"{_IDENTIFIER}(\.{_IDENTIFIER})*")
_SINK = re.compile(rf"(?P<qualname>{_QUALNAME.pattern}):(?P<param>{_IDENTIFIER})(@(?P<position>\d+))?")


# ---------------------------------------------------------------------------------------- globs
@functools.lru_cache(maxsize=None)
def compile_glob(pattern: str) -> Any:
    """Compile one gitignore-style glob with ``pathspec``: its ``GitIgnoreSpec`` pattern, or ``None``
    for a pattern that can match nothing (a blank, a ``#`` comment, a ``!`` negation alone).

    Raises:
        ConfigError: when ``pathspec`` rejects the pattern (a trailing ``\\``, a lone ``!``, a
            character range such as ``[z-a]``); the message quotes it.
    """
    from pathspec import GitIgnoreSpec

    try:
        (compiled,) = GitIgnoreSpec.from_lines([pattern]).patterns
    except (ValueError, re.error) as exc:  # GitIgnorePatternError is a ValueError; bad ranges are re.error
        reason = exc.msg if isinstance(exc, re.error) else str(exc).removeprefix("Invalid git pattern: ").strip()
        raise ConfigError(f"invalid glob {pattern!r}" + (f": {reason}" if reason and reason != repr(pattern) else "")) from None
    return compiled if compiled.include else None


@dataclass(frozen=True)
class Glob:
    """A gitignore-style glob and the folder its relative form is relative to.

    Matching is ``pathspec``'s (git's ``gitignore`` rules): a pattern without ``/`` (or with one
    only at its end) matches a file or folder name at any depth; a pattern with ``/`` is anchored
    at ``root`` (a leading ``/`` too, as in a ``.gitignore``; an absolute path below ``root`` is
    taken relative to it); ``*`` and ``?`` stay within a path component and ``**`` spans them;
    ``\\*`` is a literal ``*``; a pattern ending in ``/`` matches folders only.

    Attributes:
        pattern: the glob as written (without a leading ``!``).
        root: the absolute folder a pattern with ``/`` is relative to.
        negated: the pattern was written with a leading ``!`` (per-file-ignores only).
    """

    pattern: str
    root: str
    negated: bool = False

    def matches(self, path: str, is_dir: bool | None = None, through_folders: bool = True) -> bool:
        """True when the absolute ``path`` (a file or folder) matches; a negated glob inverts the result.

        Args:
            path: an absolute path.
            is_dir: whether ``path`` is a folder (``None``: look at the file system).
            through_folders: also when the pattern matches a folder above ``path`` (gitignore's
                "everything in it", what ``per-file-ignores`` wants). ``False`` for the walk's
                exclusions: a folder is pruned when it matches, so a match through one above is a
                folder at or above a path named on the command line, which (as in ruff) is walked.
        """
        return self._matches(path, is_dir, through_folders) != self.negated

    def _matches(self, path: str, is_dir: bool | None, through_folders: bool) -> bool:
        pattern, root = _anchored(self.pattern, self.root)
        compiled = compile_glob(pattern)
        if compiled is None:
            return False
        if path.startswith(root) and path[len(root):len(root) + 1] == os.sep:
            relative = path[len(root) + 1:].replace(os.sep, "/")
        elif "/" in pattern.rstrip("/"):
            return False  # anchored at root: a path outside it cannot match
        else:
            relative = os.path.basename(path)  # a name pattern outside root: the name alone
        if not relative:
            return False
        if is_dir is None:
            is_dir = os.path.isdir(path)
        if not compiled.match_file(relative + "/" if is_dir else relative):
            return False
        parent = relative.rpartition("/")[0]
        return through_folders or not (parent and compiled.match_file(parent + "/"))


@functools.lru_cache(maxsize=1024)
def _anchored(pattern: str, root: str) -> tuple[str, str]:
    """``(pattern, root)`` as matched: ``./`` dropped, an absolute path below ``root`` anchored there."""
    pattern = pattern[2:] if pattern.startswith("./") else pattern
    root = os.path.normpath(root)
    inside = root.replace(os.sep, "/").rstrip("/") + "/"
    if pattern.startswith(inside):
        pattern = "/" + pattern[len(inside):]
    return pattern, root


# ------------------------------------------------------------------------------------- settings
# ------------------------------------------------------------------------------------- settings
@dataclass(frozen=True)
class Settings:
    """The options of one configuration file (or the defaults), validated.

    Attributes:
        source: the file they come from, or ``None`` for the defaults.
        select, extend_select, ignore: rule selection, as in :class:`~asynccfg_lint.run.selection.Selection`.
        per_file_ignores: ``(glob, code prefixes)`` pairs.
        exclude: globs replacing :data:`DEFAULT_EXCLUDE`, or ``None`` to keep it.
        extend_exclude: globs excluded in addition.
        unsafe_fixes: ``fix`` applies unsafe fixes (``None``: not set, so no).
        respect_gitignore: skip what git ignores in the walk (``None``: not set, so yes).
        extra_sinks: sinks declared in ``extra-sinks``.
        sanitizers: qualified names declared in ``sanitizers``.
        root: the absolute folder relative globs are relative to.
        keys: the options the file (or the files it extends) set.
        base_selection: the selection of the file this one extends (``extend``), below this one's.
    """

    source: Path | None = None
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[Glob, tuple[str, ...]], ...] = ()
    exclude: tuple[Glob, ...] | None = None
    extend_exclude: tuple[Glob, ...] = ()
    unsafe_fixes: bool | None = None
    respect_gitignore: bool | None = None
    extra_sinks: tuple[SinkSpec, ...] = ()
    sanitizers: frozenset[str] = frozenset()
    root: str = field(default_factory=os.getcwd)
    keys: frozenset[str] = frozenset()
    base_selection: Selection | None = None

    @property
    def selection(self) -> Selection:
        """This file's selection layer, on top of the defaults (and of the file it extends)."""
        return Selection(self.select, self.extend_select, self.ignore, self.base_selection)

    @property
    def sinks(self) -> tuple[SinkSpec, ...]:
        """The built-in sinks followed by the extra ones."""
        return (*BUILTIN_SINKS, *self.extra_sinks)

    def extended_by(self, child: Settings) -> Settings:
        """Return ``child`` on top of these settings, as ruff's ``extend`` and ``--config KEY=VALUE`` combine.

        An option ``child`` sets replaces this one's; selection is layered (``child``'s
        ``select``/``extend-select``/``ignore`` over this selection) and ``extend-exclude``
        accumulates. The result keeps ``child``'s ``source`` and folder; a layer read from no file
        (``--config KEY=VALUE``) keeps these settings' source and folder.
        """
        def pick(key: str, name: str) -> Any:
            return getattr(child if key in child.keys else self, name)

        return Settings(
            source=child.source or self.source,
            select=child.select,
            extend_select=child.extend_select,
            ignore=child.ignore,
            per_file_ignores=pick("per-file-ignores", "per_file_ignores"),
            exclude=pick("exclude", "exclude"),
            extend_exclude=(*self.extend_exclude, *child.extend_exclude),
            unsafe_fixes=pick("unsafe-fixes", "unsafe_fixes"),
            respect_gitignore=pick("respect-gitignore", "respect_gitignore"),
            extra_sinks=pick("extra-sinks", "extra_sinks"),
            sanitizers=frozenset(self._sanitizers_or_types(child, False) | self._sanitizers_or_types(child, True)),
            root=child.root if child.source is not None else self.root,  # an inline layer keeps the project's folder
            keys=self.keys | child.keys,
            base_selection=child.selection.over(self.selection).base,
        )

    def _sanitizers_or_types(self, child: Settings, types: bool) -> frozenset[str]:
        """The ``types`` rows (``QUALNAME=TYPE``, when ``types``) or the plain sanitizers of the layer
        that sets that key: both travel in ``sanitizers``, but each key replaces only its own part."""
        from asynccfg_lint.analysis.infer.catalog import USER_ROW_SEPARATOR

        layer = child if ("types" if types else "sanitizers") in child.keys else self
        return frozenset(s for s in layer.sanitizers if (USER_ROW_SEPARATOR in s) == types)

    def describe(self) -> list[str]:
        """``key = value`` lines of every option as it applies (``--show-settings``), TOML-like."""
        from asynccfg_lint.analysis.infer.catalog import USER_ROW_SEPARATOR

        exclude = self.exclude if self.exclude is not None else _default_exclude(self.root)
        return [
            f"select = {_toml_list(self.select) if self.select is not None else 'default'}",
            f"extend-select = {_toml_list(self.extend_select)}",
            f"ignore = {_toml_list(self.ignore)}",
            "per-file-ignores = {" + ", ".join(
                f"{_quote(('!' if glob.negated else '') + glob.pattern)} = {_toml_list(codes)}"
                for glob, codes in self.per_file_ignores) + "}",
            f"exclude = {_toml_list(glob.pattern for glob in exclude)}",
            f"extend-exclude = {_toml_list(glob.pattern for glob in self.extend_exclude)}",
            f"respect-gitignore = {'false' if self.respect_gitignore is False else 'true'}",
            f"unsafe-fixes = {'true' if self.unsafe_fixes else 'false'}",
            f"extra-sinks = {_toml_list(_sink_text(sink) for sink in self.extra_sinks)}",
            f"sanitizers = {_toml_list(sorted(s for s in self.sanitizers if USER_ROW_SEPARATOR not in s))}",
            "types = {" + ", ".join(f"{_quote(name)} = {_quote(kind)}" for name, kind in sorted(
                s.split(USER_ROW_SEPARATOR, 1) for s in self.sanitizers if USER_ROW_SEPARATOR in s)) + "}",
        ]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(_quote(item) for item in items) + "]"


def _sink_text(sink: SinkSpec) -> str:
    name = next(iter(sorted(sink.qualnames)))
    return f"{name}:{sink.param}" + (f"@{sink.position}" if sink.position is not None else "")


@dataclass(frozen=True)
class Overrides:
    """Command-line options that override the configuration file.

    Attributes:
        selection: the ``--select``/``--extend-select``/``--ignore`` layer (all empty: no override).
        exclude: ``--exclude`` globs (replacing the file's and the default), or ``None``.
        extend_exclude: ``--extend-exclude`` globs.
        unsafe_fixes: ``--unsafe-fixes`` (True) / ``--no-unsafe-fixes`` (False), or ``None``.
        force_exclude: apply the exclusions to paths named on the command line too.
        respect_gitignore: ``--respect-gitignore`` / ``--no-respect-gitignore``, or ``None``.
        options: ``--config 'KEY = VALUE'`` options, laid over every configuration file (``None``: none).
    """

    selection: Selection = Selection()
    exclude: tuple[Glob, ...] | None = None
    extend_exclude: tuple[Glob, ...] = ()
    unsafe_fixes: bool | None = None
    force_exclude: bool = False
    respect_gitignore: bool | None = None
    options: Settings | None = None


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


def _bool(table: Mapping[str, Any], key: str) -> bool | None:
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(f"{key}: expected true or false, got {value!r}")
    return value


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


def _unknown_keys(table: Mapping[str, Any], known: Iterable[str]) -> None:
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r}; known options: {', '.join(KNOWN_KEYS)}")


def parse_settings(table: Mapping[str, Any], root: str, source: Path | None = None) -> Settings:
    """Validate the ``[tool.asynccfg-lint]`` table ``table`` into :class:`Settings` (``extend`` is not followed here).

    Args:
        table: the table's keys and values as TOML parsed them.
        root: the absolute folder relative globs are relative to.
        source: the file, for :attr:`Settings.source`.
    Raises:
        ConfigError: on an unknown key or a value of the wrong type or form (a malformed glob
            names its key).
    """
    if not isinstance(table, Mapping):
        raise ConfigError(f"[tool.{TABLE}] must be a table")
    _unknown_keys(table, KNOWN_KEYS)
    per_file: list[tuple[Glob, tuple[str, ...]]] = []
    raw_per_file = table.get("per-file-ignores", {})
    if not isinstance(raw_per_file, Mapping):
        raise ConfigError(f"per-file-ignores: expected a table of glob = [codes], got {raw_per_file!r}")
    for pattern, codes in raw_per_file.items():
        key = f"per-file-ignores.{pattern!r}"
        prefixes = _codes({key: codes}, key) or ()
        negated = pattern.startswith("!")
        glob = Glob(pattern[1:] if negated else pattern, root, negated)
        _compiled(key, glob.pattern)
        per_file.append((glob, prefixes))
    sanitizers = _strings(table, "sanitizers") or ()
    for name in sanitizers:
        if not _QUALNAME.fullmatch(name):
            raise ConfigError(f"sanitizers: {name!r} is not a qualified name (e.g. \"mypkg.jsonsafe.sanitize\")")
    extend = table.get("extend")
    if extend is not None and not isinstance(extend, str):
        raise ConfigError(f"extend: expected the path of a configuration file, got {extend!r}")
    sanitizers = (*sanitizers, *_catalog_rows(table.get("types", {})))
    return Settings(
        source=source,
        select=_codes(table, "select"),
        extend_select=_codes(table, "extend-select") or (),
        ignore=_codes(table, "ignore") or (),
        per_file_ignores=tuple(per_file),
        exclude=globs(_strings(table, "exclude"), root, "exclude"),
        extend_exclude=globs(_strings(table, "extend-exclude"), root, "extend-exclude") or (),
        unsafe_fixes=_bool(table, "unsafe-fixes"),
        respect_gitignore=_bool(table, "respect-gitignore"),
        extra_sinks=tuple(parse_sink(text) for text in _strings(table, "extra-sinks") or ()),
        sanitizers=frozenset(sanitizers),
        root=root,
        keys=frozenset(table) - {"extend"},
    )


def _compiled(key: str, pattern: str) -> None:
    try:
        compile_glob(pattern)
    except ConfigError as exc:
        raise ConfigError(f"{key}: {exc}") from None


def _catalog_rows(raw: object) -> list[str]:
    """The ``[tool.asynccfg-lint.types]`` table (qualified name = catalog type) as ``QUALNAME=TYPE`` entries.

    They travel with the sanitizers, which are catalog rows too ("the result is JSON-safe"); the
    classifier's catalog (:func:`asynccfg_lint.analysis.infer.catalog.extended`) reads them.
    Raises:
        ConfigError: not a table of strings, a key that is not a qualified name, or a type the catalog lacks.
    """
    from asynccfg_lint.analysis.infer.catalog import USER_ROW_SEPARATOR, CatalogError, user_row

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


def globs(patterns: Iterable[str] | None, root: str, key: str = "exclude") -> tuple[Glob, ...] | None:
    """Return ``patterns`` as :class:`Glob` s relative to ``root`` (``None`` stays ``None``).

    Raises:
        ConfigError: on a malformed glob, naming ``key`` (the option it was given in).
    """
    if patterns is None:
        return None
    for pattern in patterns:
        if pattern.startswith("!") and pattern != "!":  # (a lone "!" is pathspec's error, below)
            # an exclusion is one glob at a time (a folder is pruned when one matches), so gitignore's
            # re-inclusion after an earlier match cannot be honoured: say so instead of matching nothing
            raise ConfigError(f"{key}: a negated glob ({pattern!r}) cannot re-include what another excludes; "
                              "leading '!' is for per-file-ignores (write '\\!' for a name that starts with '!')")
    result = tuple(Glob(pattern, root) for pattern in patterns)
    for glob in result:
        _compiled(key, glob.pattern)
    return result


def _options_of(path: Path) -> Mapping[str, Any]:
    """The options table of ``path``: a ``pyproject.toml``'s ``[tool.asynccfg-lint]`` (none: empty), else the top level."""
    document = read_toml(path)
    return (table_of(document) or {}) if path.name == PYPROJECT else document


def load_settings(path: Path, root: str | None = None, _chain: tuple[Path, ...] = (),
                  only: tuple[str, ...] | None = None) -> Settings:
    """Read a configuration file, following its ``extend`` chain.

    A file named ``pyproject.toml`` holds the options in ``[tool.asynccfg-lint]`` (none: the
    defaults); any other TOML file holds them at the top level. ``extend = "../pyproject.toml"``
    (relative to the file's folder) reads that file first and lays these options over it
    (:meth:`Settings.extended_by`); its relative globs stay relative to its own folder.

    Args:
        path: the file.
        root: the folder relative globs are relative to; default: the file's folder.
        only: read (and validate) only these options, besides refusing unknown ones (the flake8
            plugin's); ``None``: all.
    Raises:
        ConfigError: when the file cannot be read, is not TOML, has a bad option, or extends a
            file that cannot be loaded or extends it back (the message names the file).
    """
    table = _options_of(path)
    folder = root if root is not None else str(path.resolve().parent)
    where = f"[tool.{TABLE}]" if path.name == PYPROJECT else "options"
    try:
        if only is not None:
            _unknown_keys(table, KNOWN_KEYS)
        settings = parse_settings(table if only is None else {key: table[key] for key in only if key in table},
                                  folder, path)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {where}: {exc}") from None
    extend = table.get("extend")
    if extend is None:
        return settings
    target = Path(os.path.normpath(path.resolve().parent / os.path.expanduser(extend)))
    chain = (*_chain, path.resolve())
    if target in chain:
        raise ConfigError(f"{path}: {where}: extend: {extend!r} extends {path} again (a cycle)")
    if not target.is_file():
        raise ConfigError(f"{path}: {where}: extend: cannot read {target}: No such file")
    return load_settings(target, None, chain, only).extended_by(settings)


def parse_inline_options(texts: Iterable[str]) -> Settings | None:
    """``--config 'KEY = VALUE'`` options (ruff's inline overrides) as one :class:`Settings` layer.

    Relative globs are relative to the current directory.

    Raises:
        ConfigError: when a text is not TOML or names an unknown option or a bad value.
    """
    layer: Settings | None = None
    for text in texts:
        tomllib = toml()  # (imported only when there is an option to read)
        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"--config {text!r} is neither a configuration file nor a TOML "
                              f"'KEY = VALUE' option: {exc}") from None
        if "extend" in table:
            raise ConfigError(f"--config {text!r}: extend cannot be given on the command line")
        try:
            settings = parse_settings(table, os.getcwd())
        except ConfigError as exc:
            raise ConfigError(f"--config {text!r}: {exc}") from None
        layer = settings if layer is None else layer.extended_by(settings)
    return layer


def is_inline_option(text: str) -> bool:
    """True when a ``--config`` value is a ``KEY = VALUE`` option rather than a file (ruff's rule: not a file, has ``=``)."""
    return not os.path.isfile(text) and "=" in text


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
        self._fixed = self._layered(load_settings(Path(config), root=os.getcwd())) if config is not None else None
        self._by_folder: dict[str, Settings] = {}
        self._fallback: Settings | None = None
        self._gitignore: GitIgnore | None = None

    def _layered(self, settings: Settings) -> Settings:
        """``settings`` with the ``--config KEY=VALUE`` options on top."""
        options = self.overrides.options
        return settings if options is None else settings.extended_by(options)

    def settings_for(self, path: str) -> Settings:
        """The settings that govern ``path`` (a file or a folder, existing or not).

        Raises:
            ConfigError: when a discovered configuration file is invalid.
        """
        absolute = os.path.abspath(path)
        return self._settings_of_folder(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))

    def _settings_of_folder(self, folder: str) -> Settings:
        """The settings of the files in the absolute ``folder`` (no look at the file system for it)."""
        if self._fixed is not None:
            return self._fixed
        if self.isolated:
            return self._default()
        return self._for_folder(folder)

    def _default(self) -> Settings:
        if self._fallback is None:
            self._fallback = self._layered(Settings(root=os.getcwd()))
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
                found = self._layered(load_settings(pyproject))
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
            self._fallback = self._layered(load_settings(pyproject) if pyproject is not None else Settings(root=os.getcwd()))
        return self._fallback

    def file_settings(self, path: str) -> FileSettings:
        """The layered settings of the file ``path``: file options, then the command line, then per-file ignores."""
        settings = self.settings_for(path)
        selection = self.overrides.selection.over(settings.selection)
        absolute = os.path.abspath(path)
        ignored = tuple(code for glob, codes in settings.per_file_ignores if glob.matches(absolute, False)
                        for code in codes)  # through folders: "tests" covers every file under tests/
        if ignored:
            selection = Selection(ignore=ignored, base=selection)
        unsafe = self.overrides.unsafe_fixes if self.overrides.unsafe_fixes is not None else settings.unsafe_fixes
        return FileSettings(selection, settings.sinks, settings.sanitizers, bool(unsafe))

    def respects_gitignore(self, path: str) -> bool:
        """``--[no-]respect-gitignore``, else ``respect-gitignore`` of the settings governing ``path`` (default: true)."""
        if self.overrides.respect_gitignore is not None:
            return self.overrides.respect_gitignore
        return self.settings_for(path).respect_gitignore is not False

    def _exclusions(self, folder: str) -> tuple[Glob, ...]:
        """The exclusion globs of the settings governing the entries of the absolute ``folder``."""
        settings = self._settings_of_folder(folder)
        if self.overrides.exclude is not None:
            exclude = self.overrides.exclude
        elif settings.exclude is not None:
            exclude = settings.exclude
        else:
            exclude = _default_exclude(settings.root)
        return (*exclude, *settings.extend_exclude, *self.overrides.extend_exclude)

    def is_excluded(self, path: str, is_dir: bool | None = None) -> bool:
        """True when the file or folder ``path`` itself matches an exclusion of the settings that govern it
        (not through a folder above it, which the walk would have pruned)."""
        absolute = os.path.abspath(path)
        if is_dir is None:
            is_dir = os.path.isdir(absolute)
        return _NameGlobs.of(self._exclusions(os.path.dirname(absolute))).excludes(absolute, is_dir)

    def is_skipped_in_walk(self, path: str, is_dir: bool) -> bool:
        """True when the walk skips ``path``: an exclusion matches it, or git ignores it (``respect-gitignore``)."""
        if self.is_excluded(path, is_dir):
            return True
        if self.overrides.respect_gitignore is False or (
                self.overrides.respect_gitignore is None
                and self._settings_of_folder(os.path.dirname(os.path.abspath(path))).respect_gitignore is False):
            return False
        if self._gitignore is None:
            self._gitignore = GitIgnore()
        return self._gitignore.is_ignored(path, is_dir)

    def is_excluded_with_ancestors(self, path: str) -> bool:
        """True when ``path`` or a folder above it, below the governing configuration's folder, is excluded.

        This is ``--force-exclude``: ``exclude = ["generated"]`` also drops ``generated/x.py``
        when pre-commit names that file. As ruff, ``.gitignore`` does not apply to named files.
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


#: a glob that is one literal name (optionally a folder's: a trailing "/"): no wildcard, escape, negation,
#: comment or surrounding blank, which gitignore's rules would read otherwise
_LITERAL_NAME = re.compile(r"[^*?\[\\!#/\s][^*?\[\\/]*(?<=[^\s])/?")


class _NameGlobs:
    """Exclusion globs indexed for the walk, which asks about every file and folder (18 globs each by default).

    A glob with no ``/`` but a trailing one matches a name at any depth; it matches a path itself (not
    through a folder above it, which ``through_folders=False`` leaves out) only when it matches the path's
    last component and no folder between its root and the path. A literal name (``build``, ``dist/``, all
    the default exclusions) or ``*`` and a literal rest (``*.egg-info``) is decided so here, by comparing
    names (no ``pathspec`` import: a folder ``__pycache__`` in the walk need not pay for one); another name
    glob is left to ``pathspec`` only for a name its pattern matches; the globs with a ``/`` always are.
    """

    def __init__(self, globs: tuple[Glob, ...]) -> None:
        #: literal name -> (folders only, root) of each glob of that name
        self.literals: dict[str, list[tuple[bool, str]]] = {}
        self.suffixes: list[tuple[str, str]] = []  # (the literal rest after "*", root)
        self.wildcards: list[tuple[Any, Glob]] = []  # the other name globs, compiled
        others = []
        for glob in globs:
            pattern, root = _anchored(glob.pattern, glob.root)
            if glob.negated or "/" in pattern.rstrip("/"):
                others.append(glob)
            elif _LITERAL_NAME.fullmatch(pattern):
                self.literals.setdefault(pattern.rstrip("/"), []).append((pattern.endswith("/"), root))
            elif pattern.startswith("*") and _LITERAL_NAME.fullmatch(pattern[1:]) and not pattern.endswith("/"):
                self.suffixes.append((pattern[1:], root))
            elif (compiled := compile_glob(pattern)) is not None:  # (None: matches nothing)
                self.wildcards.append((compiled, glob))
        self.others = tuple(others)

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def of(globs: tuple[Glob, ...]) -> _NameGlobs:
        """The index of ``globs`` (made once per tuple of globs)."""
        return _NameGlobs(globs)

    def excludes(self, absolute: str, is_dir: bool) -> bool:
        """Whether one of the globs matches the absolute, normalised ``absolute`` itself (a folder when ``is_dir``)."""
        name = os.path.basename(absolute)
        for folder_only, root in self.literals.get(name, ()):
            if _matches_itself(absolute, is_dir, folder_only, root, name.__eq__):
                return True
        for suffix, root in self.suffixes:
            if name.endswith(suffix) and _matches_itself(absolute, is_dir, False, root,
                                                         lambda component: component.endswith(suffix)):
                return True
        candidate = name + "/" if is_dir else name
        rest = (*self.others, *(glob for compiled, glob in self.wildcards if compiled.match_file(candidate)))
        return any(glob.matches(absolute, is_dir, through_folders=False) for glob in rest)


def _matches_itself(absolute: str, is_dir: bool, folder_only: bool, root: str, test: Callable[[str], bool]) -> bool:
    """Whether a glob of one path component (its last one passed ``test``) matches ``absolute`` itself, as
    :meth:`Glob.matches` with ``through_folders=False`` decides: not through a folder between ``root`` and it;
    outside ``root``, by the name alone."""
    if folder_only and not is_dir or absolute == root:
        return False
    if not absolute.startswith(root + os.sep):
        return True
    return not any(test(component) for component in absolute[len(root) + 1:].split(os.sep)[:-1])


@functools.lru_cache(maxsize=None)
def _default_exclude(root: str) -> tuple[Glob, ...]:
    return tuple(Glob(pattern, root) for pattern in DEFAULT_EXCLUDE)


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def iter_files(paths: Iterable[str], resolver: Resolver) -> Iterator[str | Missing]:
    """Yield the Python files under ``paths`` in a stable order, and a :class:`Missing` for each missing path.

    :func:`asynccfg_lint.run.discovery.walk` with ``resolver``'s exclusions and ``.gitignore``: a file
    named on the command line is yielded whatever its suffix, unless ``force_exclude`` is set and
    it (or a folder above it) is excluded; folders are walked skipping excluded and git-ignored
    files and folders and virtual environments.
    """
    force = resolver.overrides.force_exclude
    return walk(paths, resolver.is_skipped_in_walk,
                resolver.is_excluded_with_ancestors if force else lambda path: False)
