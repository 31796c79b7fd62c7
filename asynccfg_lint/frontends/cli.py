"""The command line: ``asynccfg-lint check [PATH ...]``, ``fix [PATH ...]``, ``rule CODE|--all``, ``clean`` and ``lsp``.

Exit codes follow ruff: 0 no findings (left), 1 findings (left), 2 usage, configuration or
internal error. Options come from ``[tool.asynccfg-lint]`` (see :mod:`asynccfg_lint.config`),
with the command line on top. The libcst-based stages are imported only when a file passes the
prefilter and its outcome is not cached, so a run over sink-free files starts fast.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from asynccfg_lint import __version__
from asynccfg_lint.boundary import show_tracebacks
from asynccfg_lint.cache import NotACacheError, ResultCache, clean, default_cache_dir
from asynccfg_lint.config import ConfigError, Missing, Overrides, Resolver, globs, iter_files, validate_codes
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.frontends.output import FORMATS, STATISTICS_FORMATS, render, render_statistics, render_text
from asynccfg_lint.jax_facts import SinkSpec
from asynccfg_lint.project import Project, end_idle_workers, start_worker, summary_scope, worker_project
from asynccfg_lint.selection import Selection, parse_code_list
from asynccfg_lint.tasks import CheckSettings

if TYPE_CHECKING:
    from asynccfg_lint.fixer import FileResult, FixOptions

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: the exit code of a run stopped by Ctrl-C (SIGINT), as shells report it
EXIT_INTERRUPTED = 130
#: the message of the ACC001 diagnostic of a path that does not exist (ruff: E902)
MISSING_PATH = "file not analysed: No such file or directory"


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser (argparse exits with 2 on a usage error, as ruff does)."""
    parser = argparse.ArgumentParser(
        prog="asynccfg-lint",
        description="Find config values that JAX's async collectives cannot serialize, before the code runs.",
    )
    parser.add_argument("--version", action="version", version=f"asynccfg-lint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="report diagnostics")
    check.add_argument("paths", nargs="*", default=["."], help="files or directories ('-' reads stdin); default: .")
    _add_selection_options(check)
    _add_configuration_options(check)
    check.add_argument("--output-format", choices=FORMATS, default="text",
                       help="text (flake8's), json, grouped (by file), github (Actions annotations) or sarif (2.1.0)")
    check.add_argument("-o", "--output-file", help="write the output to this file instead of stdout")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of diagnostics per code instead of the diagnostics (text or json)")
    check.add_argument("--show-source", action="store_true", default=False,
                       help="print the source line of each diagnostic and a caret under its column")
    check.add_argument("--no-show-source", action="store_false", dest="show_source")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--stdin-filename",
                       help="read the source from stdin and report it under this path (its configuration applies)")
    _add_jobs_option(check, "files analysed in parallel (processes)")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the result cache")
    _add_cache_dir_option(check)
    fix = commands.add_parser("fix", help="apply the fixes of fixable diagnostics, then report what is left")
    fix.add_argument("paths", nargs="*", default=["."], help="files or directories; default: .")
    _add_selection_options(fix)
    _add_configuration_options(fix)
    fix.add_argument("--unsafe-fixes", action="store_true", default=None,
                     help="also apply fixes that may change meaning (overrides unsafe-fixes in the configuration)")
    fix.add_argument("--no-unsafe-fixes", action="store_false", dest="unsafe_fixes",
                     help="apply safe fixes only, whatever the configuration says")
    fix.add_argument("--diff", action="store_true",
                     help="write nothing; print a unified diff and exit 1 if there would be changes")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true",
                     help="exit 1 when any fix was applied, even if no findings are left")
    _add_jobs_option(fix, "files fixed in parallel (processes)")
    rule = commands.add_parser("rule", help="print a rule's page, or list every rule code")
    shown = rule.add_mutually_exclusive_group(required=True)
    shown.add_argument("code", nargs="?", help="a rule code, e.g. ACC101")
    shown.add_argument("--all", action="store_true", help="list every code with its name and summary")
    clean_command = commands.add_parser("clean", help="remove the result cache")
    _add_cache_dir_option(clean_command)
    commands.add_parser("lsp", help="run the language server on stdin/stdout (needs the lsp extra)")
    return parser


def _add_jobs_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("-j", "--jobs", type=_positive_int, default=os.cpu_count() or 1,
                         help=f"{what}; default: the number of CPUs")


def _add_cache_dir_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--cache-dir", metavar="PATH", default=None,
                         help="the result cache's folder (default: $ASYNCCFG_LINT_CACHE_DIR, else "
                              ".asynccfg_lint_cache in the working directory)")


def _run_clean(args: argparse.Namespace) -> int:
    """``asynccfg-lint clean``: remove the result cache folder (as ``ruff clean``)."""
    folder = args.cache_dir or default_cache_dir()
    try:
        removed = clean(folder)
    except NotACacheError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    except OSError as exc:
        sys.stderr.write(f"asynccfg-lint: error: cannot remove {folder}: {exc.strerror or exc}\n")
        return EXIT_ERROR
    sys.stderr.write(f"removed {folder}\n" if removed else f"no cache at {folder}\n")
    return EXIT_CLEAN


def _run_rule(args: argparse.Namespace) -> int:
    """``asynccfg-lint rule CODE`` prints the rule's page; ``rule --all`` lists the codes."""
    from asynccfg_lint.rule_pages import UnknownRuleError, rule_listing, rule_page

    if args.all:
        sys.stdout.write(rule_listing())
        return EXIT_CLEAN
    try:
        sys.stdout.write(rule_page(args.code.strip().upper()))
    except UnknownRuleError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    return EXIT_CLEAN


def _run_lsp() -> int:
    """``asynccfg-lint lsp``: serve LSP on stdin/stdout until the client says ``exit``."""
    try:
        from asynccfg_lint.frontends.lsp import serve
    except ImportError as exc:
        sys.stderr.write(f"asynccfg-lint: error: the language server needs the lsp extra "
                         f"(pip install 'asynccfg-lint[lsp]'): {exc}\n")
        return EXIT_ERROR
    serve()
    return EXIT_CLEAN


def _add_selection_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--select", help="comma-separated code prefixes to report instead of the default (ACC0,ACC1)")
    command.add_argument("--extend-select", help="code prefixes to report in addition, e.g. ACC201")
    command.add_argument("--ignore", help="code prefixes not to report")


def _add_configuration_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--config", metavar="PATH",
                         help="use this configuration file for every file (pyproject.toml: its [tool.asynccfg-lint] "
                              "table; another TOML file: its top level) instead of discovering pyproject.toml files")
    command.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    command.add_argument("--exclude", metavar="GLOBS",
                         help="comma-separated globs to exclude, replacing the configured and default ones")
    command.add_argument("--extend-exclude", metavar="GLOBS", help="comma-separated globs to exclude in addition")
    command.add_argument("--force-exclude", action="store_true", default=False,
                         help="apply the exclusions to paths named on the command line too (for pre-commit)")
    command.add_argument("--no-force-exclude", action="store_false", dest="force_exclude")
    command.add_argument("-v", "--verbose", action="store_true",
                         help="print the traceback of an internal error (a file's 'ACC001 internal error')")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _glob_list(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(part.strip() for part in text.split(",") if part.strip())


def command_line_overrides(args: argparse.Namespace) -> Overrides:
    """The command-line layer over the configuration file.

    Raises:
        ConfigError: on an unknown rule code or prefix, or a malformed glob.
    """
    lists = {
        option: validate_codes(f"--{option.replace('_', '-')}", parse_code_list(getattr(args, option)))
        for option in ("select", "extend_select", "ignore")
    }
    cwd = os.getcwd()
    return Overrides(
        selection=Selection(
            select=lists["select"] if args.select is not None else None,
            extend_select=lists["extend_select"],
            ignore=lists["ignore"],
        ),
        exclude=globs(_glob_list(args.exclude), cwd),
        extend_exclude=globs(_glob_list(args.extend_exclude), cwd) or (),
        unsafe_fixes=getattr(args, "unsafe_fixes", None),
        force_exclude=args.force_exclude,
    )


def _missing(path: str, resolver: Resolver) -> list[Diagnostic]:
    """ACC001 for a path that does not exist (as ruff reports E902), or a warning when ACC001 is not selected."""
    if resolver.file_settings(path).selection.is_enabled("ACC001"):
        return [Diagnostic(path, 1, 1, 1, 1, "ACC001", MISSING_PATH)]
    sys.stderr.write(f"asynccfg-lint: warning: {path}: No such file or directory\n")
    return []


def _check_stdin(display: str, resolver: Resolver, sources: dict[str, bytes | str]) -> list[Diagnostic]:
    from asynccfg_lint.checker import check_source

    source = sys.stdin.buffer.read()
    if display != "-" and resolver.overrides.force_exclude and resolver.is_excluded_with_ancestors(display):
        return []
    settings = resolver.file_settings(display)
    sources[display] = source
    return check_source(source, display, settings.selection, settings.sinks, with_fixes=True,
                        sanitizers=settings.sanitizers)


def _check_paths(args: argparse.Namespace, resolver: Resolver, sources: dict[str, bytes | str]) -> list[Diagnostic]:
    """Check every input; ``sources`` receives the bytes of each file with a diagnostic (for ``--show-source``)."""
    if args.stdin_filename is not None:  # as ruff: --stdin-filename reads stdin, with or without '-'
        for path in args.paths:
            if path != "-" and path != ".":
                sys.stderr.write(f"asynccfg-lint: warning: ignoring {path} in favour of standard input\n")
        return _check_stdin(args.stdin_filename, resolver, sources)
    diagnostics: list[Diagnostic] = []
    items: list[str | Missing] = []
    for path in args.paths:
        if path == "-":
            diagnostics.extend(_check_stdin("-", resolver, sources))
        else:
            items.extend(iter_files([path], resolver))
    cache = None if args.no_cache else ResultCache(args.cache_dir or default_cache_dir())
    files = [item for item in items if not isinstance(item, Missing)]
    with Project(summary_scope(files), jobs=args.jobs, cache=cache) as project:
        # files with the same configured sinks share their rounds
        groups: dict[tuple[SinkSpec, ...], dict[str, CheckSettings]] = {}
        for item in items:
            if isinstance(item, Missing):
                diagnostics.extend(_missing(item.path, resolver))
                continue
            settings = resolver.file_settings(item)
            try:
                project.read(item)
            except OSError as exc:
                if settings.selection.is_enabled("ACC001"):
                    diagnostics.append(Diagnostic(item, 1, 1, 1, 1, "ACC001", f"file not analysed: {exc.strerror}"))
                continue
            groups.setdefault(settings.sinks, {})[item] = CheckSettings(settings.selection, settings.sanitizers)
        for sinks, checked in groups.items():
            outcomes = project.analyse(sinks, checked)
            for path in checked:
                outcome = outcomes.get(path)
                if outcome is not None and outcome.diagnostics:
                    sources[path] = project.read(path)
                    diagnostics.extend(outcome.diagnostics)
    return diagnostics


def _write_output(text: str, output_file: str | None) -> None:
    """Write ``text`` to ``output_file`` (creating its folder), or to stdout."""
    if output_file is None:
        sys.stdout.write(text)
        return
    folder = os.path.dirname(output_file)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(output_file, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


#: a progress bar is shown (on a terminal) from this many files on
PROGRESS_MIN_FILES = 50


def _fix_results(files: list[str], options: list[FixOptions], jobs: int, project: Project) -> Iterator[FileResult]:
    """Fix ``files[i]`` with ``options[i]`` in ``jobs`` processes (in this process for one job or one file), in order.

    Each file reads the other modules of ``project`` (builders and constants imported from them).
    """
    from asynccfg_lint.fixer import fix_file

    if jobs == 1 or len(files) <= 1:
        yield from (fix_file(file, option, project.module) for file, option in zip(files, options))
        return
    from concurrent.futures import ProcessPoolExecutor

    workers = min(jobs, len(files))
    executor = ProcessPoolExecutor(max_workers=workers, initializer=_start_fix_worker, initargs=(project.files,))
    try:
        # one file per task: Ctrl-C cancels every file not yet handed to a worker
        yield from executor.map(_fix_in_worker, files, options)
    except BaseException:  # Ctrl-C (or the consumer gave up): run no new file, let running ones finish their writes
        executor.shutdown(wait=True, cancel_futures=True)
        end_idle_workers()
        raise
    executor.shutdown(wait=True)


def _start_fix_worker(files: list[str]) -> None:
    """In a fix worker: leave Ctrl-C to the main process, which stops the run between files; read ``files``' modules."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    start_worker(files)


def _fix_in_worker(path: str, options: FixOptions) -> FileResult:
    from asynccfg_lint.fixer import fix_file

    project = worker_project()
    return fix_file(path, options, project.module if project is not None else None)


def _progress(results: Iterator[FileResult], total: int) -> Iterator[FileResult]:
    if total < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return results
    from tqdm import tqdm

    return iter(tqdm(results, total=total, unit="file", file=sys.stderr, leave=False))


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def _target_outside(path: str, roots: Sequence[str]) -> str | None:
    """The real path of ``path`` when a symbolic link takes it out of every root (a named file's root is its folder)."""
    real = os.path.realpath(path)
    if real == os.path.abspath(path):
        return None
    for root in roots:
        folder = os.path.realpath(root if os.path.isdir(root) else os.path.dirname(os.path.abspath(root)))
        if os.path.commonpath([folder, real]) == folder:
            return None
    return real


def _run_fix(args: argparse.Namespace, resolver: Resolver) -> int:
    """``asynccfg-lint fix``: apply fixes, print the diff (``--diff``) or what is left, and a summary on stderr.

    Each file is fixed with its own settings (selection, sinks, sanitizers, unsafe-fixes); all
    settings are resolved before any file is written, so a configuration error changes nothing.
    """
    if "-" in args.paths:
        sys.stderr.write("asynccfg-lint: error: fix does not read stdin; name the files\n")
        return EXIT_ERROR
    missing: list[Diagnostic] = []
    files: list[str] = []
    for item in iter_files(args.paths, resolver):
        if isinstance(item, Missing):
            missing.extend(_missing(item.path, resolver))
        else:
            files.append(item)
    from asynccfg_lint.fixer import FixOptions

    options = []
    with Project(summary_scope(files), jobs=args.jobs) as project:  # the summaries, in the same number of processes
        for file in files:
            settings = resolver.file_settings(file)
            options.append(FixOptions(selection=settings.selection, unsafe=settings.unsafe_fixes, write=not args.diff,
                                      sinks=project.sinks(settings.sinks), sanitizers=settings.sanitizers))
    results = sorted(_progress(_fix_results(files, options, args.jobs, project), len(files)), key=lambda r: r.path)
    errors = [r for r in results if r.error is not None]
    for result in results:
        if args.diff and result.diff:
            sys.stdout.write(result.diff)
        if result.failure is not None:
            sys.stderr.write(f"{result.path}: not fixed: {result.failure}\n")
        if result.error is not None:
            sys.stderr.write(f"{result.path}: error: {result.error}\n")
        if result.changed and not args.diff and (target := _target_outside(result.path, args.paths)) is not None:
            sys.stderr.write(f"{result.path}: note: a symbolic link out of the checked tree; fixed its target {target}\n")
    remaining = sorted([*missing, *(d for r in results for d in r.remaining)], key=lambda d: d.sort_key)
    if not args.diff:
        sys.stdout.write(render_text(remaining))
    changed = sum(r.changed for r in results)
    applied = sum(r.applied for r in results)
    skipped = sum(r.unsafe_skipped for r in results)
    summary = (f"{_count(len(results), 'file')} scanned, {_count(changed, 'file')} "
               f"{'would change' if args.diff else 'changed'}, {_count(applied, 'fix', 'fixes')} "
               f"{'would be applied' if args.diff else 'applied'}, {_count(len(remaining), 'finding')} left")
    if skipped:
        summary += f" ({skipped} more fixable with --unsafe-fixes)"
    sys.stderr.write(summary + "\n")
    if errors:
        return EXIT_ERROR
    if remaining or (args.diff and changed) or (args.exit_non_zero_on_fix and applied):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _run_check(args: argparse.Namespace, resolver: Resolver) -> int:
    """``asynccfg-lint check``: print every diagnostic, sorted by path and position as ruff does."""
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        raise ConfigError(f"--statistics cannot be printed as {args.output_format}; "
                          f"use --output-format {' or '.join(STATISTICS_FORMATS)}")
    sources: dict[str, bytes | str] = {}
    diagnostics = sorted(_check_paths(args, resolver, sources), key=lambda d: d.sort_key)
    if args.statistics:
        text = render_statistics(diagnostics, args.output_format)
    else:
        text = render(diagnostics, args.output_format, sources, args.show_source)
    _write_output(text, args.output_file)
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    ``check``: 0 no findings, 1 findings (0 with ``--exit-zero``). ``fix``: 0 when nothing is left
    to report, 1 when findings remain, when ``--diff`` shows changes, or with
    ``--exit-non-zero-on-fix`` when a fix was applied. A path that does not exist is an ACC001
    finding (ruff's E902), and the other paths are still checked. Both: 2 on a usage or
    configuration error (a clear message on stderr) or an internal error (with the traceback);
    130 when interrupted (Ctrl-C), after the files being written are complete.
    """
    args = build_parser().parse_args(argv)
    if args.command == "rule":
        return _run_rule(args)
    if args.command == "lsp":
        return _run_lsp()
    if args.command == "clean":
        return _run_clean(args)
    if args.verbose:  # the boundary logs each internal error's traceback (forked workers inherit the handler)
        show_tracebacks()
    try:
        resolver = Resolver(args.config, args.isolated, command_line_overrides(args))
        return _run_fix(args, resolver) if args.command == "fix" else _run_check(args, resolver)
    except ConfigError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:  # every file is either as it was or completely fixed; no temporary file is left
        sys.stderr.write("asynccfg-lint: interrupted\n")
        return EXIT_INTERRUPTED
    except Exception:  # noqa: BLE001 - an internal error is exit 2 with the traceback, never a silent pass
        sys.stderr.write("asynccfg-lint: internal error\n" + traceback.format_exc())
        return EXIT_ERROR
