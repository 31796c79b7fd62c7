"""The result cache: a file's :class:`~asynccfg_lint.run.tasks.FileOutcome`, keyed on everything it depends on.

The key is a SHA-256 digest of the tool (its version and the size and modification time of
each of its own modules, so an edited checkout never reads a stale entry), the file's display
path and bytes, the sinks it may call and its check settings. A changed file, setting or
wrapper gives a new key; nothing is ever invalidated in place. An outcome also lists the other
modules its analysis looked up (with their digests); the project uses it only while they are
unchanged. Entries are JSON in one SQLite database, ``entries.sqlite``, written in batches
(:class:`~asynccfg_lint.run.entry_store.EntryStore`: a file per entry cost a file creation each);
concurrent runs at worst write the same entry twice, and an unreadable or malformed entry is a miss. The folder holds a ``.gitignore`` and
a ``CACHEDIR.TAG`` (as ruff's and pytest's caches do), and ``asynccfg-lint clean`` removes it.
Beside the outcomes, the ``units`` entries keep each module's binding units (what the prefilter reads with
``ast`` to find the modules a file may reach, :class:`~asynccfg_lint.analysis.prefilter.SinkNames`), keyed
by the digest of its bytes, so a run over one changed file does not read the package again.
And the folder ``parses/`` keeps the libcst parse (with its scopes and parents) of a module that runs keep having to
parse although it is unchanged: another module the checked file's analysis looks up (a builder, a
helper, a constant of it), so a one-file run reads ``pxla.py`` instead of parsing it again. A parse is
stored the second time a run parses the same bytes (the first leaves a ``wanted`` entry), so a cold run over a
package pays nothing for it. A parse is a pickle, signed with a key of this user's (HMAC-SHA256, the
key in the user cache folder, never in the result cache), and loaded only when the signature
matches: a cache folder that someone else wrote, or that came with a repository, is a miss.
``names`` entries record the packages (by their list of files) whose names that lead to a sink grew past the
prefilter's limit, so a one-file run there does not look for them again. Last, ``packages`` entries keep every
sink of a project (its wrappers too) under a digest of its files' states
(:meth:`~asynccfg_lint.run.project.Project.stored_sinks`), so a file that calls none of them is answered
from a ``stat`` of the package's files, none of them read.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from asynccfg_lint import __version__
from asynccfg_lint.diagnostics import Coverage, Diagnostic, Fix
from asynccfg_lint.analysis.jax_facts import SinkKind, SinkSpec
from asynccfg_lint.run.discovery import iter_python_files, module_name_for
from asynccfg_lint.run.entry_store import EntryStore
from asynccfg_lint.analysis.prefilter import Unit
from asynccfg_lint.run.tasks import FileOutcome, FileTask

if TYPE_CHECKING:
    from asynccfg_lint.analysis.parse import ParsedModule

#: the cache folder's default name, under the working directory
DEFAULT_CACHE_DIR = ".asynccfg_lint_cache"
#: the environment variable that moves the cache (``--cache-dir`` wins over it)
CACHE_DIR_ENV = "ASYNCCFG_LINT_CACHE_DIR"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# asynccfg-lint's result cache (https://bford.info/cachedir/)\n"


class Missing:
    """The type of :data:`MISSING`: no entry (distinct from a stored ``None``)."""


MISSING = Missing()


def default_cache_dir(start: str | None = None) -> str:
    """Where the cache goes unless ``--cache-dir`` says: ``$ASYNCCFG_LINT_CACHE_DIR`` when set, else
    ``.asynccfg_lint_cache`` in the project root (as ruff's ``.ruff_cache``): the nearest folder
    at or above ``start`` (default: the working directory) holding a ``pyproject.toml``, else ``start``.
    The path is relative to the working directory when that folder is the working directory itself.
    """
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return configured
    cwd = os.getcwd()
    origin = folder = os.path.abspath(start) if start is not None else cwd
    while not os.path.isfile(os.path.join(folder, "pyproject.toml")):
        parent = os.path.dirname(folder)
        if parent == folder:
            folder = origin
            break
        folder = parent
    return DEFAULT_CACHE_DIR if folder == cwd else os.path.join(folder, DEFAULT_CACHE_DIR)


def cache_dir_for(no_cache: bool = False, cache_dir: str | None = None, start: str | None = None) -> str | None:
    """The result cache folder a front end uses, the same rule for each: ``None`` with the opt-out
    (``--no-cache``, flake8's ``--asynccfg-no-cache``, the server's ``noCache``), else ``cache_dir``
    when given (``--cache-dir`` and its counterparts), else :func:`default_cache_dir` from ``start``."""
    if no_cache:
        return None
    return cache_dir or default_cache_dir(start)


def tool_fingerprint() -> str:
    """The tool's version and the (name, size, mtime) of each of its modules, as one digest."""
    digest = hashlib.sha256(__version__.encode())
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the whole package, from run/
    for module in iter_python_files([package]):  # an os.walk: a quarter of Path.rglob's time (3.6 ms)
        status = os.stat(module)
        digest.update(f"{os.path.relpath(module, package)}:{status.st_size}:{status.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def spec_json(spec: SinkSpec) -> dict[str, Any]:
    return {"qualnames": sorted(spec.qualnames), "param": spec.param, "position": spec.position,
            "kind": spec.kind.value, "key": spec.key, "wrapper_module": spec.wrapper_module,
            "named": sorted(spec.named), "used_at": spec.used_at, "used_param": spec.used_param,
            "read": spec.read, "bind_keyword": spec.bind_keyword,
            "forwarded": spec.forwarded, "narrowed": spec.narrowed, "removed": sorted(spec.removed),
            "registered_in": spec.registered_in}


def spec_from_json(data: dict[str, Any]) -> SinkSpec:
    return SinkSpec(frozenset(data["qualnames"]), data["param"], data["position"], SinkKind(data["kind"]),
                    data["key"], data["wrapper_module"], frozenset(data["named"]),
                    data.get("used_at"), data.get("used_param"), data.get("read"), data.get("bind_keyword", False),
                    data.get("forwarded", False), data.get("narrowed", False), frozenset(data.get("removed", ())),
                    data.get("registered_in"))


def outcome_to_json(outcome: FileOutcome) -> dict[str, Any]:
    """The JSON form of ``outcome`` (diagnostics as in ``--output-format json``, wrappers sorted)."""
    return {"diagnostics": [diagnostic.to_json() for diagnostic in outcome.diagnostics],
            "wrappers": sorted((spec_json(spec) for spec in outcome.wrappers), key=json.dumps),
            "dependencies": [list(dependency) for dependency in outcome.dependencies],
            "coverage": [outcome.coverage.calls, outcome.coverage.unfollowed]}


def outcome_from_json(data: dict[str, Any]) -> FileOutcome:
    """Inverse of :func:`outcome_to_json`.

    Raises:
        KeyError, TypeError, ValueError: when ``data`` is not such an object.
    """
    diagnostics = []
    for item in data["diagnostics"]:
        fix = Fix(**item["fix"]) if item["fix"] else None
        diagnostics.append(Diagnostic(**{**item, "fix": fix}))
    dependencies = tuple((name, path, digest) for name, path, digest in data["dependencies"])
    calls, unfollowed = data["coverage"]
    return FileOutcome(tuple(diagnostics), frozenset(map(spec_from_json, data["wrappers"])), dependencies,
                       Coverage(int(calls), int(unfollowed)))


def task_key(task: FileTask, module: str) -> str:
    """The hex digest of everything ``task``'s outcome depends on but other modules: its display path, its
    dotted module name ``module`` (an ``__init__.py`` added above the file renames it: qualified sanitizers
    and sinks then name other functions), the digest of its bytes, the sinks it may call and its check settings."""
    digest = hashlib.sha256()
    digest.update(task.path.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(module.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(hashlib.sha256(task.source).digest())
    sinks = sorted(json.dumps(spec_json(spec), sort_keys=True) for spec in task.sinks)
    check = None
    if task.check is not None:
        check = [sorted(task.check.selection.enabled_codes()), sorted(task.check.sanitizers), task.check.apply_noqa]
    digest.update(json.dumps([sinks, check]).encode())
    return digest.hexdigest()


#: kinds of the entries in ``entries.sqlite`` (see the module's docstring)
OUTCOMES, UNITS, NAMES, PACKAGES, WANTED = "outcomes", "units", "names", "packages", "wanted"


class ResultCache:
    """File outcomes on disk under ``folder/<fingerprint>/``.

    Args:
        folder: the cache folder (created on the first write).
    """

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self.entries = self.folder / tool_fingerprint()
        self.store = EntryStore(str(self.entries / "entries.sqlite"), functools.partial(self._prepare, self.entries))

    def flush(self) -> None:
        """Write the entries stored since the last flush (:meth:`EntryStore.flush`); never raises."""
        self.store.flush()

    def get(self, key: str) -> FileOutcome | None:
        """The stored outcome of ``key``, or ``None`` (absent, unreadable or malformed)."""
        try:
            return outcome_from_json(self._read(OUTCOMES, key))
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, outcome: FileOutcome) -> None:
        """Store ``outcome`` under ``key`` (written at the next :meth:`flush`); a cache that cannot be written
        is skipped silently."""
        self._write(OUTCOMES, key, outcome_to_json(outcome))

    def package_sinks(self, key: str) -> tuple[SinkSpec, ...] | None:
        """The sinks stored by :meth:`put_package_sinks` under ``key``, or ``None`` (absent, unreadable or malformed)."""
        try:
            return tuple(spec_from_json(item) for item in self._read(PACKAGES, key)["sinks"])
        except (ValueError, KeyError, TypeError):
            return None

    def put_package_sinks(self, key: str, sinks: tuple[SinkSpec, ...]) -> None:
        """Store every sink of a package (its wrappers included) under ``key``, a digest of the state of its
        files (:meth:`~asynccfg_lint.run.project.Project.stored_sinks`); skipped when unwritable."""
        self._write(PACKAGES, key, {"sinks": [spec_json(spec) for spec in sinks]})

    def names_overflow(self, key: str) -> bool:
        """True when :meth:`put_names_overflow` recorded ``key`` (absent or unreadable: ``False``)."""
        try:
            return self._read(NAMES, key)["overflow"] is True
        except (ValueError, KeyError, TypeError):
            return False

    def put_names_overflow(self, key: str) -> None:
        """Record that the names leading to a sink grew past the prefilter's limit in the package of ``key``
        (:meth:`~asynccfg_lint.run.project.Project.scope`); skipped when unwritable."""
        self._write(NAMES, key, {"overflow": True})

    def binding_units(self, digest: str) -> list[Unit] | None | Missing:
        """The stored :func:`~asynccfg_lint.analysis.prefilter.module_units` of the module whose bytes have the
        SHA-256 hex ``digest`` (``None``: Python cannot parse it), or :data:`MISSING`."""
        try:
            data = self._read(UNITS, digest)["units"]
            if data is None:
                return None
            return [(frozenset(bound), frozenset(mentioned)) for bound, mentioned in data]
        except (ValueError, KeyError, TypeError):
            return MISSING

    def put_binding_units(self, digest: str, units: list[Unit] | None) -> None:
        """Store ``units`` for the module bytes of ``digest`` (see :meth:`binding_units`); skipped when unwritable."""
        data = None if units is None else [[sorted(bound), sorted(mentioned)] for bound, mentioned in units]
        self._write(UNITS, digest, {"units": data})

    def parsed_module(self, path: str, digest: str) -> ParsedModule | None:
        """The stored parse of ``path`` whose bytes have the SHA-256 hex ``digest`` (see :meth:`put_parsed_module`),
        or ``None``: none stored, unreadable, not signed with this user's key, of another libcst or Python, or
        made when the file's dotted module name was another."""
        key = _signing_key()
        if key is None:
            return None
        from asynccfg_lint.analysis.parse import ParsedModule
        from asynccfg_lint.run.collector import collector_paused

        try:
            with open(self._parse_entry(path, digest, ".pickle"), "rb") as handle:
                signed = handle.read()
            signature, payload = signed[:_SIGNATURE_BYTES], signed[_SIGNATURE_BYTES:]
            if not hmac.compare_digest(signature, hmac.new(key, payload, hashlib.sha256).digest()):
                return None
            with collector_paused():
                parsed = _loads_on_a_fresh_stack(payload)
        except Exception:  # noqa: BLE001 - any unreadable or foreign entry is a miss, never this run's failure
            return None
        if not isinstance(parsed, ParsedModule) or parsed.path != path or parsed.name != module_name_for(path):
            return None  # another file's, or the module was renamed since (an ``__init__.py`` added or removed above it)
        return parsed

    def put_parsed_module(self, digest: str, parsed: ParsedModule) -> None:
        """Keep the fresh parse ``parsed`` (of bytes with the SHA-256 hex ``digest``) for a later run, the second
        time a run asks to: the first call leaves a ``wanted`` entry only. Skipped for a deep module (parsed on a
        large stack), one that does not pickle, and when the cache or the key cannot be written."""
        marker = self._parse_entry(parsed.path, digest, "").name
        if self.store.get(WANTED, marker) is None:
            self._write(WANTED, marker, None)
            return
        key = _signing_key()
        if key is None or parsed.deep:
            return
        try:
            import pickle  # (pickle, tempfile, shutil: imported where used, not by every run's start-up)

            payload = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - a tree too deep for the pickler, or an unpicklable part: not kept
            return
        self._write_bytes(self._parse_entry(parsed.path, digest, ".pickle"),
                          hmac.new(key, payload, hashlib.sha256).digest() + payload)

    def _parse_entry(self, path: str, digest: str, suffix: str) -> Path:
        """The entry of ``path``'s parse: by its display path (a parse holds it), bytes, libcst and Python."""
        name = hashlib.sha256(f"{path}\0{digest}\0{_libcst_version()}\0{sys.version}".encode(
            "utf-8", "surrogateescape")).hexdigest()
        return self.entries / "parses" / name[:2] / f"{name}{suffix}"

    def _read(self, kind: str, key: str) -> Any:
        """The JSON value of entry (``kind``, ``key``).

        Raises:
            KeyError: no such entry (or an unreadable database); ValueError: not JSON.
        """
        value = self.store.get(kind, key)
        if value is None:
            raise KeyError(key)
        return json.loads(value)

    def _write(self, kind: str, key: str, data: Any) -> None:
        """Keep ``data`` as JSON under (``kind``, ``key``), written at the next :meth:`flush`."""
        self.store.put(kind, key, json.dumps(data).encode("utf-8"))

    def _write_bytes(self, entry: Path, data: bytes) -> None:
        """Write ``data`` to ``entry`` atomically (a temporary file, then ``os.replace``); never raises OSError."""
        import tempfile

        try:
            self._prepare(entry.parent)
            descriptor, temporary = tempfile.mkstemp(dir=entry.parent, prefix=f".{entry.stem[:8]}.", suffix=".tmp")
            try:
                with os.fdopen(descriptor, "wb") as handle:
                    handle.write(data)
                os.replace(temporary, entry)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            pass

    def _prepare(self, folder: Path) -> None:
        if folder.is_dir():
            return
        new = not self.folder.exists()
        folder.mkdir(parents=True, exist_ok=True)
        if new:  # keep the cache out of version control and backups
            (self.folder / ".gitignore").write_text("# created by asynccfg-lint\n*\n", encoding="utf-8")
            (self.folder / "CACHEDIR.TAG").write_text(_CACHEDIR_TAG, encoding="utf-8")


def _loads_on_a_fresh_stack(payload: bytes) -> Any:
    """``pickle.loads(payload)`` on a thread of its own. A stored parse calls libcst's Python ``__setstate__``
    once per node (74 k for ``pxla.py``); CPython 3.12 gives a thread's frames 16 KiB chunks and frees a chunk
    as soon as its last frame returns, so when the caller's stack happens to end near a chunk's end every
    call maps and unmaps one (measured: 44.5 k ``munmap`` of one 16 KiB address in one run, 0.1-0.15 s of
    system time). A new thread's stack starts empty, so the calls fit in its first chunk whatever the caller."""
    import pickle

    result: list[Any] = []
    errors: list[BaseException] = []

    def load() -> None:
        try:
            result.append(pickle.loads(payload))
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(error)

    thread = threading.Thread(target=load, name="asynccfg-lint-load", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


@functools.cache
def _libcst_version() -> str:
    """The installed libcst's version (a stored parse is libcst's objects: another version may not read it).

    ``libcst.LIBCST_VERSION`` (libcst is imported by then: the parse is its tree); the distribution's
    metadata only when libcst does not know it ("unknown"): ``importlib.metadata`` costs 30 ms to import.
    """
    import libcst  # noqa: PLC0415 - imported already wherever a parse is stored or read

    if libcst.LIBCST_VERSION != "unknown":
        return libcst.LIBCST_VERSION
    import importlib.metadata  # noqa: PLC0415 - see above

    return importlib.metadata.version("libcst")


#: bytes of a stored parse's HMAC-SHA256 signature, before the pickle
_SIGNATURE_BYTES = 32
_KEY_BYTES = 32


def _signing_key() -> bytes | None:
    """This user's key for the stored parses: ``parse-key`` in :func:`user_cache_folder`, made once (random, readable by the user only); ``None``
    when it can be neither read nor made (the parses are then neither stored nor read)."""
    return _key_at(os.path.join(user_cache_folder(), "parse-key"))


def user_cache_folder() -> str:
    """This user's cache folder for the tool (``platformdirs.user_cache_dir``: ``$XDG_CACHE_HOME/asynccfg-lint``,
    else ``~/.cache/asynccfg-lint`` on Linux; the platform's own place elsewhere). Not created here."""
    import platformdirs  # (only the runs that sign a parse or write a rule page pay its import)

    return platformdirs.user_cache_dir("asynccfg-lint", appauthor=False)


@functools.lru_cache(maxsize=4)
def _key_at(path: str) -> bytes | None:
    """The key of :func:`_signing_key` at ``path``, read or made once per process."""
    import tempfile

    for _ in range(2):
        try:
            with open(path, "rb") as handle:
                key = handle.read()
            return key if len(key) == _KEY_BYTES else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:  # made atomically: a concurrent run reads the same key
            os.makedirs(os.path.dirname(path), exist_ok=True)
            descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".parse-key.")
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(os.urandom(_KEY_BYTES))
            try:
                os.link(temporary, path)  # fails if another run made it first: then that one is read
            except FileExistsError:
                pass
            finally:
                os.unlink(temporary)
        except OSError:
            return None
    return None


class NotACacheError(Exception):
    """``clean`` was pointed at a folder this tool did not create as its cache; ``str(exc)`` says which."""


def is_cache_folder(folder: str) -> bool:
    """True when ``folder`` holds the ``CACHEDIR.TAG`` this tool writes when it creates its cache."""
    try:
        with open(os.path.join(folder, "CACHEDIR.TAG"), encoding="utf-8") as handle:
            return handle.read() == _CACHEDIR_TAG
    except (OSError, UnicodeDecodeError):
        return False


def clean(folder: str) -> bool:
    """Remove the cache folder ``folder``; return whether there was one.

    Only a folder this tool created as its cache (see :func:`is_cache_folder`) is removed: a
    mistyped ``--cache-dir .`` must never delete a project.

    Raises:
        NotACacheError: when ``folder`` exists but is not such a folder (nothing is removed).
        OSError: when it cannot be removed.
    """
    if not os.path.isdir(folder):
        return False
    if not is_cache_folder(folder):
        raise NotACacheError(f"{folder} is not an asynccfg-lint cache (it has no CACHEDIR.TAG written by "
                             f"asynccfg-lint); nothing removed")
    import shutil

    shutil.rmtree(folder)
    return True
