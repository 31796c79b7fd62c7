"""The language server: diagnostics, quick fixes and "fix all" in any LSP editor, over stdio.

    python -m asynccfg_lint.frontends.lsp        # needs the extra: pip install 'asynccfg-lint[lsp]'

Built on ``pygls`` 2. For every Python document (language id ``python``, or a ``.py``/``.pyi``
path) it publishes the checker's diagnostics on open, change and save, and clears them on close.
Each diagnostic that carries a :class:`~asynccfg_lint.diagnostics.Fix` is offered as a quick-fix
code action (safe fixes are ``isPreferred``); the source action ``source.fixAll.asynccfg-lint``
applies every safe fix through :func:`asynccfg_lint.fixing.fixer.fix_source`, so an editor's fix-all is
exactly ``asynccfg-lint fix`` on the unsaved text, verified the same way.

Positions: the checker's are 1-based lines and 1-based code-point columns; LSP's are 0-based lines
and columns in the code units of the negotiated position encoding (UTF-16 unless the client offers
UTF-8 or UTF-32), counted on lines split at ``\\n``, ``\\r\\n`` and ``\\r`` only (as Python and LSP
split them; a form feed is not a line break). Documents are synchronised in full, so pygls's own
incremental line splitting (``str.splitlines``) never touches the text.

Work: every analysis (checks, quick fixes, fix-all) runs on one analysis thread, in order, so the
protocol keeps reading while a check runs and the package state is never shared between threads.
A ``didChange`` starts its document's check only after :data:`CHANGE_DELAY` seconds without a
newer change (a debounce), a newer change cancels a check still waiting, and a check whose
document changed while it ran is dropped instead of published: a burst of edits is checked once,
at its last text. Each document keeps its last parse, so an edit parses again only the top-level
statements it touched (:class:`~asynccfg_lint.analysis.parse.DocumentParser`); one whose diagnostics came
without a parse (the saved file's stored outcome) is parsed once no check has waited for :data:`PRIME_DELAY`
seconds (:meth:`AsyncCfgLanguageServer.prime`). The fix-all action is computed only when the editor resolves it
(``codeAction/resolve``, for clients that declare ``resolveSupport`` for ``edit``; others get it
computed at once). Start-up imports only the protocol: ``initialize`` is answered first, and the
analysis (libcst) is imported on the analysis thread on ``initialized``, while the editor opens documents.
"""

from __future__ import annotations

import asyncio
import bisect
import difflib
import logging
import re
import tokenize
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

try:
    from lsprotocol import types as lsp
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("the language server needs pygls: pip install 'asynccfg-lint[lsp]'") from exc

from asynccfg_lint import __version__
from asynccfg_lint.run.boundary import LOG as BOUNDARY_LOG
from asynccfg_lint.run.boundary import internal_error
from asynccfg_lint.run.config import ConfigError, FileSettings, Resolver
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkSpec
from asynccfg_lint.diagnostics import SAFE, Diagnostic
from asynccfg_lint.run.discovery import iter_python_files
from asynccfg_lint.run.cache import ResultCache, cache_dir_for, user_cache_folder
from asynccfg_lint.process_owner import owned_process
from asynccfg_lint.run.collector import collect_pending, collection_deferred
from asynccfg_lint.run.project import Project, package_root
from asynccfg_lint.rules.pages import rule_page, rule_url
from asynccfg_lint.rules import ERROR, RULES_BY_CODE, WARNING
from asynccfg_lint.rules import severity as rule_severity
from asynccfg_lint.run.selection import Selection
from asynccfg_lint.run.tasks import CheckSettings

if TYPE_CHECKING:  # the analysis modules import libcst: the first check imports them, not start-up
    from pygls.workspace import TextDocument

    from asynccfg_lint.analysis.parse import DocumentParser
    from asynccfg_lint.analysis.workspace import ModuleLoader

#: what an unsaved buffer (or a file with an invalid configuration) is checked with: the CLI's defaults
DEFAULT_SETTINGS = FileSettings(Selection(), tuple(BUILTIN_SINKS), frozenset(), False)

SERVER_NAME = "asynccfg-lint"
#: the kind of the source action that applies every safe fix of a document
FIX_ALL_KIND = "source.fixAll.asynccfg-lint"
FIX_ALL_TITLE = f"{SERVER_NAME}: fix all safe fixes"
PYTHON_SUFFIXES = (".py", ".pyi")
#: seconds a document must go without a newer change before its check starts (the debounce)
CHANGE_DELAY = 0.2
#: seconds without any check waiting or running before a document whose diagnostics came without a parse is
#: parsed ahead of its first edit (:meth:`AsyncCfgLanguageServer.prime`)
PRIME_DELAY = 1.0
#: the files whose changes outside the editor the server asks to hear of: the package's modules, the settings
WATCHED_FILES = ("**/*.py", "**/*.pyi", "**/pyproject.toml")
#: the committed rule pages, present in a source checkout (an editable install)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


# --- positions -------------------------------------------------------------------------------


def code_units(text: str, encoding: str) -> int:
    """Return the length of ``text`` in the code units of an LSP position encoding.

    Args:
        text: a piece of one line.
        encoding: ``"utf-16"`` (LSP's default), ``"utf-8"`` or ``"utf-32"`` (code points).
    """
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == lsp.PositionEncodingKind.Utf32:
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class LineIndex:
    """One document's text with its line starts, to turn checker positions into LSP positions.

    Lines are split at ``\\n``, ``\\r\\n`` and ``\\r``, as Python's tokenizer, libcst and LSP split them.
    """

    def __init__(self, text: str, encoding: str = lsp.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]

    def line_text(self, index: int) -> str:
        """The text of 0-based line ``index`` without its line break."""
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.text)
        return _LINE_BREAK.sub("", self.text[self.starts[index]:end])

    def position(self, line: int, column: int) -> lsp.Position:
        """Return the LSP position of a checker position (1-based line, 1-based code-point column).

        A position past the end of a line is clamped to the line's end, one past the last line to
        the end of the document (libcst places some syntax errors there).
        """
        index = line - 1
        if index >= len(self.starts):
            return self.offset_position(len(self.text))
        prefix = self.line_text(max(index, 0))[: max(column - 1, 0)]
        return lsp.Position(line=max(index, 0), character=code_units(prefix, self.encoding))

    def offset_position(self, offset: int) -> lsp.Position:
        """Return the LSP position of a code-point offset into the text."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return lsp.Position(line=index, character=code_units(self.text[self.starts[index]:offset], self.encoding))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> lsp.Range:
        """Return the LSP range of a checker range (``end_column`` exclusive in both)."""
        return lsp.Range(start=self.position(line, column), end=self.position(end_line, end_column))


# --- diagnostics and edits -------------------------------------------------------------------


def severity(code: str) -> lsp.DiagnosticSeverity:
    """The LSP severity of ``code``: its rule module's ``SEVERITY``, as SARIF and GitHub output report it."""
    return _SEVERITIES[rule_severity(code)]


_SEVERITIES = {ERROR: lsp.DiagnosticSeverity.Error, WARNING: lsp.DiagnosticSeverity.Warning}


def cache_rules_dir() -> Path:
    """Where rule pages are written for editors when there is no source checkout to link to."""
    return Path(user_cache_folder()) / __version__ / "rules"


def rule_doc_uri(code: str, base_url: str | None = None) -> str | None:
    """Return the URI of ``code``'s rule page, for a diagnostic's ``codeDescription.href``.

    Args:
        code: a rule code.
        base_url: the client's ``initializationOptions.ruleDocsUrl`` (pages are ``<base>/<CODE>.md``).
    Returns:
        ``<base_url>/<CODE>.md`` when a base is given; else where JSON's ``url`` points
        (:func:`asynccfg_lint.rules.pages.rule_url`: the published page, else the committed page of a
        source checkout); else the page rendered by :mod:`asynccfg_lint.rules.pages` into
        :func:`cache_rules_dir`. ``None`` for an unknown code or when the page cannot be written.
    """
    if code not in RULES_BY_CODE:
        return None
    if base_url:
        return f"{base_url.rstrip('/')}/{code}.md"
    known = rule_url(code)
    if known is not None:
        return known
    page = cache_rules_dir() / f"{code}.md"
    text = rule_page(code)
    try:
        if not page.is_file() or page.read_text(encoding="utf-8") != text:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return page.resolve().as_uri()


def to_lsp_diagnostic(diagnostic: Diagnostic, index: LineIndex, doc_uri: str | None) -> lsp.Diagnostic:
    """Return the LSP form of a checker diagnostic (``doc_uri``: its rule page, or ``None``)."""
    return lsp.Diagnostic(
        range=index.range(diagnostic.line, diagnostic.column, diagnostic.end_line, diagnostic.end_column),
        message=diagnostic.placed_like("").message,  # other places as a run started in this folder names them
        severity=severity(diagnostic.code),
        code=diagnostic.code,
        code_description=lsp.CodeDescription(href=doc_uri) if doc_uri else None,
        source=SERVER_NAME,
    )


def fix_edit(diagnostic: Diagnostic, index: LineIndex) -> lsp.TextEdit | None:
    """Return the edit of ``diagnostic``'s fix, or ``None`` when it has none."""
    fix = diagnostic.fix
    if fix is None:
        return None
    return lsp.TextEdit(range=index.range(fix.line, fix.column, fix.end_line, fix.end_column),
                        new_text=fix.replacement)


def text_edits(index: LineIndex, new_text: str) -> list[lsp.TextEdit]:
    """Return edits that turn ``index.text`` into ``new_text``: one per block of changed lines.

    The blocks come from :class:`difflib.SequenceMatcher` over the lines with their breaks, so the
    edits do not overlap and untouched lines (and the cursor on them) stay where they are.
    """
    old_lines = _lines_with_breaks(index.text)
    new_lines = _lines_with_breaks(new_text)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [
        lsp.TextEdit(
            range=lsp.Range(start=index.offset_position(offsets[i1]), end=index.offset_position(offsets[i2])),
            new_text="".join(new_lines[j1:j2]),
        )
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _lines_with_breaks(text: str) -> list[str]:
    starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    if starts[-1] == len(text):
        starts.pop()
    return [text[start:end] for start, end in zip(starts, starts[1:] + [len(text)])]


def source_encoding(text: str) -> str:
    """The encoding Python would read this text's file with (its PEP 263 cookie, else UTF-8)."""
    head = b"".join(line.encode("utf-8", "surrogatepass") for line in _lines_with_breaks(text)[:2])
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(head).readline)
    except SyntaxError:
        return "utf-8"
    return "utf-8" if encoding == "utf-8-sig" else encoding


def fix_all_text(text: str, path: str, settings: FileSettings = DEFAULT_SETTINGS,
                 view: ProjectView | None = None) -> str | None:
    """Return ``text`` with every safe fix applied (:func:`asynccfg_lint.fixing.fixer.fix_source`).

    The text is encoded as its file would be (so a coding cookie means what it says), fixed and
    verified by the fixer, and decoded back. ``view`` gives the package's wrappers and modules
    (default: ``settings``' sinks, the file alone). ``None`` when nothing changes, when the fixer
    refuses the result, or when the text cannot be encoded in its declared encoding.
    """
    from asynccfg_lint.fixing.fixer import FixOptions, fix_source  # noqa: PLC0415 - libcst, imported on first use

    view = view or ProjectView(settings.sinks)
    encoding = source_encoding(text)
    try:
        source = text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return None
    result = fix_source(source, path, FixOptions(selection=settings.selection, unsafe=False, write=False,
                                                 sinks=view.sinks, sanitizers=settings.sanitizers), view.modules)
    if not result.changed or result.failure is not None:
        return None
    return result.fixed.decode(encoding)


@dataclass(frozen=True)
class ProjectView:
    """What a document sees of its package, as saved on disk.

    Attributes:
        sinks: the configured sinks plus the wrappers of the document's top-level package.
        modules: finds the package's other modules by dotted name (builders and constants), or
            ``None`` for a document outside any package.
        unchanged: the document's text is its file's on disk (its outcome is then the package's, from
            memory or the result cache while nothing it depends on changed: :meth:`Project.checked`).
    """

    sinks: tuple[SinkSpec, ...]
    modules: ModuleLoader | None = None
    unchanged: bool = False


def _kind_requested(kind: str, only: Sequence[str] | None) -> bool:
    """True when ``kind`` is among the requested code action kinds (kinds are dotted hierarchies)."""
    if not only:
        return True
    return any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(position: lsp.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


# --- the server ------------------------------------------------------------------------------


@dataclass
class _Checked:
    """The diagnostics of one version of a document's text."""

    text: str
    encoding: str
    diagnostics: list[Diagnostic]
    lsp_diagnostics: list[lsp.Diagnostic]

    @property
    def index(self) -> LineIndex:
        return LineIndex(self.text, self.encoding)


_Result = TypeVar("_Result")


class AsyncCfgLanguageServer(LanguageServer):
    """The asynccfg-lint language server (documents synchronised in full).

    Attributes:
        resolver: finds each file's ``[tool.asynccfg-lint]`` settings (selection, sinks, sanitizers); made
            anew at each save.
        rule_docs_url: the client's ``initializationOptions.ruleDocsUrl``, if any.
        cache_dir: the result cache folder (``None``: none), as the CLI finds it from the workspace's root
            folder (:func:`~asynccfg_lint.run.cache.cache_dir_for`): ``initializationOptions.noCache``
            (``true``) turns it off, ``initializationOptions.cacheDir`` moves it; set at ``initialize``.
    """

    def __init__(self) -> None:
        super().__init__(SERVER_NAME, __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.resolver = Resolver()
        self.rule_docs_url: str | None = None
        self.cache_dir: str | None = cache_dir_for()
        self._checked: dict[str, _Checked] = {}
        #: each open document's parser: an edit parses again only the top-level statements it touched
        self._parsers: dict[str, DocumentParser] = {}
        #: the documents whose diagnostics came without a parse (:meth:`prime`), and each one's waiting prime
        self._unparsed: set[str] = set()
        self._primes: dict[str, asyncio.Task[None]] = {}
        #: set at ``shutdown``: a job still running sends nothing more (the client may close the stream at ``exit``)
        self._stopping = False
        self._projects: dict[str, Project] = {}
        #: the one thread every analysis runs on (see the module's docstring)
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="asynccfg-lint-analysis")
        #: each document's check that is waiting or running, by URI
        self._scheduled: dict[str, asyncio.Task[None]] = {}

    # --- work on the analysis thread ---------------------------------------------------------

    def open_document(self, uri: str) -> TextDocument | None:
        """The document the editor opened at ``uri`` (pygls keys them unquoted), or ``None``."""
        return self.workspace.text_documents.get(unquote(uri))

    async def analysed(self, function: Callable[..., _Result], *args: Any) -> _Result:
        """Run ``function(*args)`` on the analysis thread and return its result (cancelling drops it if not started)."""
        return await asyncio.get_running_loop().run_in_executor(self._analysis, function, *args)

    def schedule(self, uri: str, delay: float = 0.0) -> None:
        """Check the document after ``delay`` seconds and publish, replacing its check (and :meth:`prime`) still waiting."""
        self.cancel(uri)
        self._scheduled[uri] = asyncio.ensure_future(self._check_and_publish(uri, delay))

    async def _check_and_publish(self, uri: str, delay: float) -> None:
        """Wait ``delay``, check the document on the analysis thread, publish unless it changed meanwhile."""
        try:
            if delay:
                await asyncio.sleep(delay)
            document = self.open_document(uri)
            if document is None or not self.is_python(uri):
                return
            version = document.version
            checked = await self.analysed(self._checked_then_collected, uri)
            if self.open_document(uri) is not document or document.version != version:
                return  # stale: the newer text has its own check scheduled
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=checked.lsp_diagnostics, version=version
            ))
            if uri in self._unparsed:
                self._primes[uri] = asyncio.ensure_future(self._prime_when_idle(uri))
        finally:
            collect_pending()  # the check's garbage, once its diagnostics are out
            if self._scheduled.get(uri) is asyncio.current_task():
                del self._scheduled[uri]

    async def _prime_when_idle(self, uri: str) -> None:
        """:meth:`prime` the document once no check has waited or run for :data:`PRIME_DELAY` seconds."""
        try:
            await asyncio.sleep(PRIME_DELAY)
            while self._scheduled:  # a check goes first: a document opened or edited meanwhile
                await asyncio.sleep(PRIME_DELAY)
            await self.analysed(self.prime, uri)
        finally:
            if self._primes.get(uri) is asyncio.current_task():
                del self._primes[uri]

    def _checked_then_collected(self, uri: str) -> _Checked:
        """:meth:`checked`, its garbage left for :func:`~asynccfg_lint.run.collector.collect_pending` after the publish
        (on ``jax/_src/lax/parallel.py`` the collection walked 87 k objects, 0.05-0.08 s, before the diagnostics)."""
        with collection_deferred():
            return self.checked(uri)

    def prepare(self) -> None:
        """Import the analysis on the analysis thread, ahead of the first check (start-up leaves it out)."""
        self._analysis.submit(import_analysis)

    def stop_analysis(self) -> None:
        """At ``shutdown``: drop every waiting check and queued job, so ``exit`` waits for at most the running one."""
        self._stopping = True
        for pending in [*self._scheduled.values(), *self._primes.values()]:
            pending.cancel()
        self._scheduled.clear()
        self._primes.clear()
        self._analysis.shutdown(wait=False, cancel_futures=True)

    def cancel(self, uri: str) -> None:
        """Drop the document's check and :meth:`prime` that are waiting (a running one finishes, unpublished)."""
        for waiting in (self._scheduled, self._primes):
            pending = waiting.pop(uri, None)
            if pending is not None:
                pending.cancel()

    @property
    def position_encoding(self) -> str:
        """The position encoding negotiated at ``initialize`` (``utf-16`` unless the client offered another)."""
        encoding = self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16
        return str(getattr(encoding, "value", encoding))

    def is_python(self, uri: str) -> bool:
        """True for a document opened as Python or named ``*.py``/``*.pyi``."""
        document = self.workspace.get_text_document(uri)
        return document.language_id == "python" or document.path.endswith(PYTHON_SUFFIXES)

    def display_path(self, uri: str) -> str:
        """The path given to the checker: the file's path for ``file:`` URIs (it gives the module's
        dotted name); ``-`` (module ``__main__``, as for stdin) for an unsaved ``untitled:`` buffer."""
        document = self.workspace.get_text_document(uri)
        return document.path if uri.startswith("file:") else "-"

    def settings(self, uri: str) -> FileSettings:
        """The ``[tool.asynccfg-lint]`` settings of the document's file, as the CLI finds them.

        An unsaved buffer, or a file whose configuration is invalid (the error is logged to the
        client), gets the defaults.
        """
        if not uri.startswith("file:"):
            return DEFAULT_SETTINGS
        try:
            return self.resolver.file_settings(self.display_path(uri))
        except ConfigError as exc:
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=f"asynccfg-lint: {exc}"))
            return DEFAULT_SETTINGS

    def view(self, uri: str, settings: FileSettings, text: str | None = None) -> ProjectView:
        """The document's package as saved: the wrappers its text may reach and the package's modules.

        The package is read once and kept: its modules' parses and summaries stay in memory
        (and in the result cache, :attr:`cache_dir`) until their files change.
        ``text`` is the document's text (default: as open in the editor).
        """
        path = self.display_path(uri)
        root = package_root(path)  # "-" for an unsaved buffer: no package
        if root is None:
            return ProjectView(settings.sinks)
        if root not in self._projects:
            cache = ResultCache(self.cache_dir) if self.cache_dir is not None else None
            self._projects[root] = Project(iter_python_files([root]), cache=cache, keep_analysed=True)
        project = self._projects[root]
        if text is None:
            text = self.workspace.get_text_document(uri).source
        sinks = project.sinks(settings.sinks, text)
        return ProjectView(sinks, project, project.source(path) == text.encode("utf-8", "surrogatepass"))

    def saved(self, uris: Sequence[str]) -> list[str]:
        """Files were saved, or changed outside the editor (``workspace/didChangeWatchedFiles``): the
        configuration files are read again (an edited ``pyproject.toml`` applies at once), and the changed
        files of each package read before (the other modules' parses and summaries are kept; a file added to
        or removed from a package makes it read anew). Returns the documents to check again: every open one
        (runs on the analysis thread)."""
        self.resolver = Resolver()
        self._checked.clear()
        roots = {package_root(to_fs_path(uri)) for uri in uris if uri.startswith("file:")}  # a checkout: one per package
        for root in sorted(root for root in roots if root is not None and root in self._projects):
            if sorted(iter_python_files([root])) != sorted(self._projects[root].files):
                del self._projects[root]
            else:
                self._projects[root].refresh()
        return list(self.workspace.text_documents)

    def watch_files(self) -> None:
        """Ask the client to report the Python files and ``pyproject.toml`` files that change outside the editor
        (``git checkout``, a formatter), when it can register file watchers (``workspace.didChangeWatchedFiles.
        dynamicRegistration``); without them such a change is seen at the next save."""
        workspace = self.client_capabilities.workspace if self.client_capabilities else None
        watched = workspace.did_change_watched_files if workspace else None
        if watched is None or not watched.dynamic_registration:
            return
        watchers = [lsp.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED_FILES]
        self.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
            id=f"{SERVER_NAME}-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))

    def checked(self, uri: str) -> _Checked:
        """The diagnostics of the document's current text (checked again only when the text changed)."""
        text = self.workspace.get_text_document(uri).source
        encoding = self.position_encoding
        cached = self._checked.get(uri)
        if cached is not None and cached.text == text and cached.encoding == encoding:
            return cached
        try:
            from asynccfg_lint.analysis.parse import DocumentParser  # noqa: PLC0415 - libcst, imported by the first check

            settings = self.settings(uri)
            view = self.view(uri, settings, text)
            parser = self._parsers.setdefault(uri, DocumentParser())
            self._unparsed.discard(uri)
            if view.unchanged and isinstance(view.modules, Project):  # the file as saved: as the CLI checks it
                check = CheckSettings(settings.selection, settings.sanitizers)
                diagnostics = list(view.modules.checked(self.display_path(uri), view.sinks, check).diagnostics)
                parser.last = view.modules.kept(self.display_path(uri)) or parser.last  # (the next edit starts from it)
                if parser.last is None:  # the outcome came from memory or the result cache
                    self._unparsed.add(uri)
            else:
                diagnostics = self._check_text(uri, text, settings, view, parser)
            if isinstance(view.modules, Project):
                view.modules.save_cache()  # the parses of other modules the check looked up
        except Exception as error:  # noqa: BLE001 - the per-file error boundary: the document's ACC001
            self.log_internal_error(uri)
            diagnostics = [internal_error(self.display_path(uri), error)]
        index = LineIndex(text, encoding)
        converted = [to_lsp_diagnostic(d, index, rule_doc_uri(d.code, self.rule_docs_url)) for d in diagnostics]
        checked = _Checked(text, encoding, diagnostics, converted)
        self._checked[uri] = checked
        return checked

    def _check_text(self, uri: str, text: str, settings: FileSettings, view: ProjectView,
                    parser: DocumentParser) -> list[Diagnostic]:
        """The checker's diagnostics of ``text`` as the document ``uri``, parsed by its ``parser``."""
        from asynccfg_lint.analysis.checker import check_source  # noqa: PLC0415 - libcst, imported by the first check

        return check_source(text, self.display_path(uri), settings.selection, view.sinks, with_fixes=True,
                            sanitizers=settings.sanitizers, modules=view.modules, parse=parser)

    def prime(self, uri: str) -> None:
        """Parse a document whose diagnostics came without a parse (the saved file's outcome, from memory or the
        result cache), and look up what its check looks up in the package, so that its first edit parses only
        what it touched and finds those modules in memory, as later edits do (``jax/_src/lax/parallel.py``: a
        first edit of 1.0-1.2 s CPU, later ones 0.2 s). On the analysis thread, once no check waits
        (:meth:`_prime_when_idle`); nothing is published, and a failure is left to the edit's own check.
        """
        parser = self._parsers.get(uri)
        if uri not in self._unparsed or parser is None or self.open_document(uri) is None:
            return
        self._unparsed.discard(uri)
        text = self.workspace.get_text_document(uri).source
        try:
            settings = self.settings(uri)
            view = self.view(uri, settings, text)
            self._check_text(uri, text, settings, view, parser)
            if isinstance(view.modules, Project):
                view.modules.save_cache()
        except Exception:  # noqa: BLE001 - the document's next check reports it
            return
        if parser.last is not None and not self._stopping and self.open_document(uri) is not None:  # (not closed meanwhile)
            self.window_log_message(lsp.LogMessageParams(
                type=lsp.MessageType.Log, message=f"asynccfg-lint: {uri} parsed ahead of its first edit"))

    def log_internal_error(self, uri: str) -> None:
        """Send the traceback of the exception being handled to the client's log (``window/logMessage``)."""
        self.window_log_message(lsp.LogMessageParams(
            type=lsp.MessageType.Error, message=f"asynccfg-lint: internal error on {uri}\n{traceback.format_exc()}"
        ))

    def forget(self, uri: str) -> None:
        """Clear a closed document's diagnostics (its waiting check is dropped; its cache entry and parser go on the
        analysis thread)."""
        self.cancel(uri)
        self._analysis.submit(self._checked.pop, uri, None)
        self._analysis.submit(self._parsers.pop, uri, None)
        self._analysis.submit(self._unparsed.discard, uri)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def workspace_edit(self, uri: str, edits: list[lsp.TextEdit]) -> lsp.WorkspaceEdit:
        """A workspace edit of one document: versioned ``documentChanges`` when the client takes them."""
        capabilities = self.client_capabilities
        workspace = capabilities.workspace if capabilities else None
        workspace_edit = workspace.workspace_edit if workspace else None
        if workspace_edit is not None and workspace_edit.document_changes:
            version = self.workspace.get_text_document(uri).version
            return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=edits
            )])
        return lsp.WorkspaceEdit(changes={uri: edits})

    def resolves_edits(self) -> bool:
        """True when the client resolves a code action's ``edit`` lazily (``codeAction/resolve``)."""
        text_document = self.client_capabilities.text_document if self.client_capabilities else None
        code_action = text_document.code_action if text_document else None
        support = code_action.resolve_support if code_action else None
        return support is not None and "edit" in support.properties

    def code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """The quick fixes of the diagnostics in ``params.range``, then the fix-all action.

        The fix-all action is offered when a safe fix exists; its edit comes from
        :meth:`resolve_code_action` when the client resolves edits, else it is computed here (and
        the action left out when it changes nothing). A document that is not open, or not Python,
        has none (runs on the analysis thread).
        """
        uri = params.text_document.uri
        if self.open_document(uri) is None or not self.is_python(uri):
            return []
        checked = self.checked(uri)
        index = checked.index
        only = params.context.only
        actions: list[lsp.CodeAction] = []
        if _kind_requested(lsp.CodeActionKind.QuickFix, only):
            for diagnostic, converted in zip(checked.diagnostics, checked.lsp_diagnostics):
                edit = fix_edit(diagnostic, index)
                if edit is None or not _overlaps(converted.range, params.range):
                    continue
                assert diagnostic.fix is not None
                safe = diagnostic.fix.safety == SAFE
                actions.append(lsp.CodeAction(
                    title=f"{SERVER_NAME} ({diagnostic.code}): {diagnostic.fix.description}"
                          + ("" if safe else " (unsafe fix)"),
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[converted],
                    is_preferred=safe,
                    edit=self.workspace_edit(uri, [edit]),
                ))
        has_safe_fix = any(d.fix is not None and d.fix.safety == SAFE for d in checked.diagnostics)
        if has_safe_fix and _kind_requested(FIX_ALL_KIND, only):
            fix_all = lsp.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL_KIND, data={"uri": uri})
            if self.resolves_edits():
                actions.append(fix_all)
            elif (resolved := self.resolve_code_action(fix_all)).edit is not None:
                actions.append(resolved)
        return actions

    def guarded_code_actions(self, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """:meth:`code_actions` behind the per-file error boundary: one document's failure is no
        JSON-RPC error but no actions, its traceback in the client's log."""
        try:
            return self.code_actions(params)
        except Exception:  # noqa: BLE001 - the per-file error boundary
            self.log_internal_error(params.text_document.uri)
            return []

    def guarded_resolve(self, action: lsp.CodeAction) -> lsp.CodeAction:
        """:meth:`resolve_code_action` behind the per-file error boundary: the action comes back as it was."""
        try:
            return self.resolve_code_action(action)
        except Exception:  # noqa: BLE001 - the per-file error boundary
            uri = action.data.get("uri") if isinstance(action.data, dict) else None
            self.log_internal_error(str(uri))
            return action

    def resolve_code_action(self, action: lsp.CodeAction) -> lsp.CodeAction:
        """Fill in the fix-all action's edit: every safe fix of the document's current text.

        The edit is empty (no change) when the fixer refuses the result or nothing changes; an
        action that is not ours, or whose document is closed, comes back as it was (runs on the
        analysis thread).
        """
        uri = action.data.get("uri") if isinstance(action.data, dict) else None
        if action.kind != FIX_ALL_KIND or not isinstance(uri, str) or self.open_document(uri) is None:
            return action
        checked = self.checked(uri)
        settings = self.settings(uri)
        fixed = fix_all_text(checked.text, self.display_path(uri), settings, self.view(uri, settings))
        edits = [] if fixed is None else text_edits(checked.index, fixed)
        if not edits and not self.resolves_edits():
            return action  # eager clients: no edit, no action
        action.edit = self.workspace_edit(uri, edits)
        return action


def import_analysis() -> None:
    """Import the checker and the fixer (libcst), which start-up leaves out."""
    import asynccfg_lint.analysis.checker  # noqa: F401, PLC0415
    import asynccfg_lint.fixing.fixer  # noqa: F401, PLC0415


class _ClientLog(logging.Handler):
    """Sends the boundary's records (an internal error's traceback) to the client's log (``window/logMessage``)."""

    def __init__(self, server: AsyncCfgLanguageServer) -> None:
        super().__init__(logging.DEBUG)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        self.server.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=self.format(record)))


def workspace_root(params: lsp.InitializeParams) -> str | None:
    """The folder of the workspace the client opened (its first ``file:`` workspace folder, else ``rootUri``,
    else ``rootPath``), where the result cache's project root is looked for; ``None``: the working directory."""
    uris = [folder.uri for folder in params.workspace_folders or ()] + [params.root_uri or ""]
    for uri in uris:
        if uri.startswith("file:"):
            return to_fs_path(uri)
    return params.root_path or None


def create_server() -> AsyncCfgLanguageServer:
    """Return a server with every feature registered (not started)."""
    server = AsyncCfgLanguageServer()
    BOUNDARY_LOG.addHandler(_ClientLog(server))
    BOUNDARY_LOG.setLevel(logging.DEBUG)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: AsyncCfgLanguageServer, params: lsp.InitializeParams) -> None:
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        if isinstance(options.get("ruleDocsUrl"), str):
            ls.rule_docs_url = options["ruleDocsUrl"]
        cache_dir = options.get("cacheDir")
        ls.cache_dir = cache_dir_for(options.get("noCache") is True, cache_dir if isinstance(cache_dir, str) else None,
                                     workspace_root(params))

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: AsyncCfgLanguageServer, params: lsp.InitializedParams) -> None:
        ls.prepare()  # the client has its answer
        ls.watch_files()

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: AsyncCfgLanguageServer, params: None) -> None:
        ls.stop_analysis()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: AsyncCfgLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: AsyncCfgLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, CHANGE_DELAY)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: AsyncCfgLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        for uri in await ls.analysed(ls.saved, [params.text_document.uri]):
            ls.schedule(uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(ls: AsyncCfgLanguageServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        for uri in await ls.analysed(ls.saved, [change.uri for change in params.changes]):
            ls.schedule(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: AsyncCfgLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True
    ))
    async def code_action(ls: AsyncCfgLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return await ls.analysed(ls.guarded_code_actions, params)

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: AsyncCfgLanguageServer, action: lsp.CodeAction) -> lsp.CodeAction:
        return await ls.analysed(ls.guarded_resolve, action)

    return server


def serve() -> None:
    """Run the language server on stdin/stdout until the client sends ``exit``; it owns the process meanwhile
    (:func:`~asynccfg_lint.process_owner.owned_process`)."""
    with owned_process():
        create_server().start_io()


if __name__ == "__main__":
    serve()
