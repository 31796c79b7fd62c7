"""The fix stage: apply every chosen fix of a file in one libcst transform, verify, and write atomically.

All fixes of a file are applied by one :class:`ApplyFixes` pass keyed on the original nodes, so
no edit invalidates another's position (the bug class of applying edits one after another). A
fixed node nested in another fixed node composes: the outer template wraps the inner result.
The new source is accepted only when it parses and re-checks with exactly the findings that were
not fixed; otherwise the file is left byte-for-byte as it was and the reason is reported.
"""

from __future__ import annotations

import difflib
import errno
import os
import tempfile
import traceback
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import libcst as cst

from asynccfg_lint.run.boundary import internal_error
from asynccfg_lint.run.interrupts import interrupts_deferred
from asynccfg_lint.analysis.checker import Located, check_parsed, parse_failure_diagnostic
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.fixing.fixes import apply_template, fix_site
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkSpec
from asynccfg_lint.analysis.parse import ParsedModule, first_difference, module_name_for, parse_source, source_text
from asynccfg_lint.analysis.large_stack import on_a_large_stack
from asynccfg_lint.analysis.parse_failure import ParseFailure
from asynccfg_lint.analysis.prefilter import may_call_any
from asynccfg_lint.run.selection import Selection
from asynccfg_lint.analysis.type_verdicts import SAFE, FixTemplate
from asynccfg_lint.analysis.workspace import ModuleLoader


class ApplyFixes(cst.CSTTransformer):
    """Replace each node of ``fixes`` (original node -> template) by the template applied to it.

    The replacement is built from the *updated* node, so fixes inside a fixed node are kept.

    Attributes:
        applied: how many nodes were replaced during the last ``visit``.
    """

    def __init__(self, fixes: dict[cst.CSTNode, FixTemplate]) -> None:
        super().__init__()
        self.fixes = fixes
        self.applied = 0

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        template = self.fixes.get(original_node)
        if template is None or not isinstance(updated_node, cst.BaseExpression):
            return updated_node
        self.applied += 1
        return apply_template(template, updated_node)


@dataclass(frozen=True)
class FixOptions:
    """What a ``fix`` run applies.

    Attributes:
        selection: the rule codes whose fixes are applied and whose findings are reported.
        unsafe: also apply fixes whose safety is ``"unsafe"``.
        write: write changed files (``False`` for ``--diff``).
        sinks: the sink specs.
        sanitizers: qualified names of functions whose result is JSON-safe.
    """

    selection: Selection = Selection()
    unsafe: bool = False
    write: bool = True
    sinks: tuple[SinkSpec, ...] = tuple(BUILTIN_SINKS)
    sanitizers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SourceFix:
    """The outcome of fixing one file's source, before anything is written.

    Attributes:
        original: the source bytes as read.
        fixed: the new bytes (equal to ``original`` when nothing changed or the fix was refused).
        applied: how many fixes are in ``fixed``.
        remaining: the diagnostics ``fixed`` still reports (sorted; 1-based positions).
        unsafe_skipped: unsafe fixes that were available but not applied (no ``--unsafe-fixes``).
        failure: why fixes that were chosen were not applied (``fixed`` is then ``original``).
        withheld: which chosen fixes were left out (their findings' places in ``fixed``), and why, when the
            others are applied without them (``None`` when every chosen fix is in ``fixed``, or none is:
            then see ``failure``).
        diff: a unified diff from ``original`` to ``fixed`` ('' when equal).
        found: the diagnostics of ``original`` (what is left when ``fixed`` cannot be written).
        fixed_diagnostics: the diagnostics of ``original`` whose fixes are in ``fixed``.
    """

    original: bytes
    fixed: bytes
    applied: int = 0
    remaining: tuple[Diagnostic, ...] = ()
    unsafe_skipped: int = 0
    failure: str | None = None
    withheld: str | None = None
    diff: str = ""
    found: tuple[Diagnostic, ...] = ()
    fixed_diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def changed(self) -> bool:
        """True when the fixed bytes differ from the original."""
        return self.fixed != self.original


def choose_fixes(parsed: ParsedModule, located: Iterable[Located], unsafe: bool, modules: ModuleLoader | None = None
                 ) -> tuple[dict[cst.CSTNode, FixTemplate], list[tuple[cst.CSTNode, Located]], int]:
    """Pick the fixes to apply: each fixable finding's template at its site (:func:`fix_site`, with the project's
    ``modules`` the check had), unsafe ones only when ``unsafe``.

    Returns:
        ``(site -> template, (site, finding) for each finding those fixes fix in ``located``'s order,
        number of unsafe fixes left out)``.
        Two different templates for one site (two findings disagreeing, e.g. ``bool`` and ``int``
        for a name bound to either) leave that site unfixed.
    """
    chosen: dict[cst.CSTNode, FixTemplate] = {}
    sites: list[tuple[cst.CSTNode, Located]] = []
    conflicting: set[cst.CSTNode] = set()
    skipped = 0
    for item in located:
        found = fix_site(parsed, item.finding, modules)
        if found is None:
            continue
        site, template = found
        if template.safety != SAFE and not unsafe:
            skipped += 1
            continue
        if chosen.get(site, template) != template:
            conflicting.add(site)
        chosen[site] = template
        sites.append((site, item))
    for site in conflicting:
        del chosen[site]
    return chosen, [(site, item) for site, item in sites if site in chosen], skipped


def fix_source(source: bytes, path: str, options: FixOptions = FixOptions(),
               modules: ModuleLoader | None = None) -> SourceFix:
    """Apply the chosen fixes of one file's source in one transform and verify the result.

    Args:
        source: the file's bytes (decoded as Python does: BOM, PEP 263 cookie, else UTF-8).
        path: the display path (also gives the module's dotted name).
        options: selection and safety (``options.write`` is not used here).
        modules: the project's other modules by dotted name (``Project.module``), so findings
            that arrive from them are counted before and after, as ``check`` reports them.
    Returns:
        a :class:`SourceFix`. The file is refused (``failure`` set, ``fixed == original``) when
        libcst does not give back its exact bytes, or the fixed source does not parse, or it does
        not re-check with exactly the findings that were not fixed. An unparsable file is not a
        failure: it reports ACC001 (when selected) and is left as it is; so is a file on which
        libcst or the analysis raises (its ACC001 ``internal error``): this never raises.
    """
    try:
        try:
            return _fix_source(source, path, options, modules)
        except RecursionError:  # a deeply nested file, parsed on a large stack: transform and re-check there too
            return on_a_large_stack(lambda: _fix_source(source, path, options, modules))
    except ParseFailure as failure:  # a deep file in a host's process, or its fix ran out of time
        remaining = (parse_failure_diagnostic(path, failure),) if options.selection.is_enabled("ACC001") else ()
        return SourceFix(source, source, remaining=remaining, found=remaining)
    except Exception as error:  # noqa: BLE001 - the per-file error boundary: nothing written, the run goes on
        remaining = (internal_error(path, error),) if options.selection.is_enabled("ACC001") else ()
        return SourceFix(source, source, remaining=remaining, found=remaining)


#: passes of :func:`_fix_source` at most: a pass that leaves fixes out is followed by another on its result
MAX_FIX_PASSES = 4


def _fix_source(source: bytes, path: str, options: FixOptions, modules: ModuleLoader | None) -> SourceFix:
    """:func:`_fix_pass` until no fix is left out or a pass changes nothing (at most :data:`MAX_FIX_PASSES`).

    A fix left out alone may re-check clean once the others are in (``Color.RED.value`` in
    ``np.array([np.True_, Color.RED])`` makes the array numeric, so the bool's finding disappears
    until ``bool(np.True_)`` is applied), so a second ``fix`` would apply it: the passes keep the
    command idempotent, as ruff's fix loop does.
    """
    result = _fix_pass(source, path, options, modules)
    for _ in range(MAX_FIX_PASSES - 1):
        if result.withheld is None or not result.changed:
            break
        again = _fix_pass(result.fixed, path, options, modules)
        if not again.changed:
            break
        result = _chained(result, again, path)
    if result.withheld is None:
        return result
    left_out = [d for d in result.remaining if d.fix is not None and (options.unsafe or d.fix.safety == SAFE)]
    places = ", ".join(f"{d.line}:{d.column} {d.code}" for d in left_out)
    fixes = "fix" if len(left_out) == 1 else "fixes"
    return replace(result, withheld=f"{len(left_out)} {fixes} left out ({places}): {result.withheld}")


def _chained(first: SourceFix, second: SourceFix, path: str) -> SourceFix:
    """``first`` followed by a pass over its result (``second``): the second pass's findings, both passes'
    fixes (the second's diagnostics positioned in the first's output)."""
    return replace(second, original=first.original, applied=first.applied + second.applied,
                   diff=_diff(first.original, second.fixed, path),
                   found=first.found, fixed_diagnostics=first.fixed_diagnostics + second.fixed_diagnostics)


def _fix_pass(source: bytes, path: str, options: FixOptions, modules: ModuleLoader | None) -> SourceFix:
    if not may_call_any(source, module_name_for(path).name, options.sinks):
        return SourceFix(source, source)
    try:
        parsed = parse_source(source, path)
        return parsed.run(lambda: _fix_parsed(parsed, source, path, options, modules))
    except ParseFailure as failure:  # the file cannot be parsed, or a deep file's fix ran out of time
        remaining = (parse_failure_diagnostic(path, failure),) if options.selection.is_enabled("ACC001") else ()
        return SourceFix(source, source, remaining=remaining)


def _fix_parsed(parsed: ParsedModule, source: bytes, path: str, options: FixOptions,
                modules: ModuleLoader | None) -> SourceFix:
    located = check_parsed(parsed, options.selection, options.sinks, with_fixes=True, sanitizers=options.sanitizers,
                           modules=modules)
    diagnostics = tuple(item.diagnostic for item in located)
    chosen, fixed_at, unsafe_skipped = choose_fixes(parsed, located, options.unsafe, modules)
    fixed_findings = [item for _, item in fixed_at]
    unchanged = SourceFix(source, source, remaining=diagnostics, unsafe_skipped=unsafe_skipped)
    if not chosen:
        return unchanged
    if parsed.inexact is not None:
        return _refused(unchanged, f"libcst cannot give this file back byte for byte ({parsed.inexact}); not written")
    if parsed.module.bytes != source:  # (libcst drops a blank line before a comment indented less than the block
        # above it at the end of a file; the check stays right, its positions are the file's)
        line, _ = first_difference(parsed.text, parsed.module.code)
        return _refused(unchanged, f"libcst does not give back the file's exact bytes (from line {line} on); not written")
    attempt = _attempt(parsed, source, path, options, modules, located, chosen, fixed_findings)
    if not isinstance(attempt, str):
        return replace(attempt, unsafe_skipped=unsafe_skipped, found=diagnostics,
                       diff=_diff(source, attempt.fixed, path))
    if len(chosen) == 1:
        return _refused(unchanged, attempt)
    # one bad fix must not hold back the others: keep each fix that re-checks clean alone, then all of those
    by_site: dict[cst.CSTNode, list[Located]] = {}
    for site, item in fixed_at:
        by_site.setdefault(site, []).append(item)
    kept = {site: template for site, template in chosen.items() if not isinstance(
        _attempt(parsed, source, path, options, modules, located, {site: template}, by_site.get(site, [])), str)}
    if not kept:
        return _refused(unchanged, attempt)
    partial = _attempt(parsed, source, path, options, modules, located, kept,
                       [item for site in kept for item in by_site.get(site, [])])
    if isinstance(partial, str):
        return _refused(unchanged, attempt)
    # (the findings left out are named by _fix_source, after the last pass, at their places in its result)
    return replace(partial, unsafe_skipped=unsafe_skipped, found=diagnostics,
                   diff=_diff(source, partial.fixed, path), withheld=attempt.removesuffix("; not written"))


def _attempt(parsed: ParsedModule, source: bytes, path: str, options: FixOptions, modules: ModuleLoader | None,
             located: list[Located], chosen: dict[cst.CSTNode, FixTemplate],
             fixed_findings: list[Located]) -> SourceFix | str:
    """``parsed`` with the fixes ``chosen`` applied, verified: it parses and re-checks with exactly the
    findings of ``located`` that ``fixed_findings`` leaves (no diff yet: most attempts are dropped);
    else why not (a sentence ending in ``not written``)."""
    transformer = ApplyFixes(chosen)
    new_module = parsed.module.visit(transformer)  # (inside ParsedModule.run: unvalidated, see validation_paused)
    fixed = new_module.bytes
    if transformer.applied != len(chosen):
        return f"only {transformer.applied} of {len(chosen)} fixes found their node"
    try:
        reparsed = parse_source(fixed, path)
    except ParseFailure as failure:
        return f"the fixed source does not parse ({failure}); not written"
    after = check_parsed(reparsed, options.selection, options.sinks, with_fixes=True, sanitizers=options.sanitizers,
                         modules=modules)
    fixed_ids = {id(item) for item in fixed_findings}
    expected = Counter((i.diagnostic.code, i.diagnostic.message) for i in located if id(i) not in fixed_ids)
    found = Counter((i.diagnostic.code, i.diagnostic.message) for i in after)
    if found != expected:
        extra = found - expected
        what = "; ".join(f"{code} {message}" for code, message in sorted(extra)) if extra else "findings disappeared"
        return f"the fixed source does not re-check clean at the fixed sites: {what}; not written"
    return SourceFix(source, fixed, applied=transformer.applied, remaining=tuple(i.diagnostic for i in after),
                     fixed_diagnostics=tuple(item.diagnostic for item in fixed_findings))


def _diff(original: bytes, fixed: bytes, path: str) -> str:
    """The unified diff from ``original`` to ``fixed`` (both decoded as Python reads them)."""
    return "".join(difflib.unified_diff(source_text(original).splitlines(keepends=True),
                                        source_text(fixed).splitlines(keepends=True), path, path))


def _refused(unchanged: SourceFix, reason: str) -> SourceFix:
    return SourceFix(unchanged.original, unchanged.original, remaining=unchanged.remaining,
                     unsafe_skipped=unchanged.unsafe_skipped, failure=reason)


@dataclass(frozen=True)
class FileResult:
    """The outcome of ``fix`` on one file (picklable, so worker processes can return it).

    Attributes:
        path: the file as given or found by the directory walk.
        changed: the file was (or, without writing, would be) changed.
        applied: fixes applied (or that would be).
        remaining: diagnostics left after the fixes.
        unsafe_skipped: unsafe fixes available but not applied.
        failure: why the file was left untouched although fixes were chosen.
        withheld: which chosen fixes were left out and why, the others applied (:attr:`SourceFix.withheld`).
        error: an internal error's traceback, or an OS error reading or writing the file.
        diff: the unified diff of the change ('' when unchanged).
        fixed: the diagnostics the applied fixes fixed (as found before fixing).
    """

    path: str
    changed: bool = False
    applied: int = 0
    remaining: tuple[Diagnostic, ...] = field(default=())
    unsafe_skipped: int = 0
    failure: str | None = None
    withheld: str | None = None
    error: str | None = None
    diff: str = ""
    fixed: tuple[Diagnostic, ...] = field(default=())


def fix_file(path: str, options: FixOptions, modules: ModuleLoader | None = None) -> FileResult:
    """Fix one file on disk: read, :func:`fix_source`, and (when ``options.write``) write atomically.

    The write goes to a temporary file in the same directory, which gets the original's mode
    bits and then replaces it (``os.replace``); the bytes are libcst's, so encoding, BOM and line
    endings are the file's own. ``modules`` as for :func:`fix_source`. Never raises: errors
    come back in ``FileResult.error``.
    """
    result = None
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        result = fix_source(source, path, options, modules)
        if result.changed and options.write:
            write_atomically(path, result.fixed)
    except OSError as exc:  # unreadable, or the fixed file could not be written: its findings are all left
        return FileResult(path, error=f"{exc.strerror or exc}", remaining=result.found if result else ())
    except Exception:  # noqa: BLE001 - reported and turned into exit 2 by the CLI
        return FileResult(path, error="internal error\n" + traceback.format_exc())
    return FileResult(path, changed=result.changed, applied=result.applied, remaining=result.remaining,
                      unsafe_skipped=result.unsafe_skipped, failure=result.failure, withheld=result.withheld,
                      diff=result.diff, fixed=result.fixed_diagnostics)


def write_atomically(path: str, data: bytes) -> None:
    """Replace the file ``path`` by ``data`` atomically, keeping its permission bits and owner.

    A symlink stays a symlink: its target is the file replaced (as ruff does). A file the user
    may not write is refused, as a plain write would be.

    SIGINT is held back while the temporary file exists, so Ctrl-C (KeyboardInterrupt) arrives
    once the file is replaced or the temporary file removed.

    Raises:
        OSError: when the temporary file cannot be created, written or moved into place (the
            original is then unchanged and the temporary file removed).
    """
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    if not os.access(path, os.W_OK):  # a replace would succeed in a writable folder; a write would not
        raise PermissionError(errno.EACCES, "Permission denied", path)
    status = os.stat(path)
    with interrupts_deferred():  # a Ctrl-C lands after the replace (or the clean-up), never between
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
        try:
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, status.st_mode & 0o7777)
            if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
                try:  # keep the owner (possible as root; otherwise the file could not be ours to write)
                    os.chown(temporary, status.st_uid, status.st_gid)
                except PermissionError:
                    pass
            os.replace(temporary, path)
        except BaseException:
            try:
                os.unlink(temporary)
            except FileNotFoundError:
                pass
            raise
