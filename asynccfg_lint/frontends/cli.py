"""The command line: ``asynccfg-lint check [PATH ...]``, ``fix [PATH ...]``, ``rule CODE|--all``, ``clean`` and ``lsp``.

Exit codes follow ruff: 0 no findings (left), 1 findings (left), 2 usage, configuration or
internal error. Options come from ``[tool.asynccfg-lint]`` (see :mod:`asynccfg_lint.run.config`),
with the command line on top. The libcst-based stages are imported only when a file passes the
prefilter and its outcome is not cached, so a run over sink-free files starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import stat
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from asynccfg_lint import __version__
from asynccfg_lint.process_owner import owned_process
from asynccfg_lint.run.boundary import show_tracebacks
from asynccfg_lint.run.interrupts import interrupt_latch, interrupts_deferred, raise_if_interrupted
from asynccfg_lint.run.cache import NotACacheError, ResultCache, cache_dir_for, clean, default_cache_dir
from asynccfg_lint.run.collector import defer_collection_until_exit
from asynccfg_lint.run.config import (
    ConfigError,
    FileSettings,
    Missing,
    Overrides,
    Resolver,
    globs,
    is_inline_option,
    iter_files,
    parse_inline_options,
    validate_codes,
)
from asynccfg_lint.diagnostics import Coverage, Diagnostic
from asynccfg_lint.frontends.output import (
    FORMATS,
    STATISTICS_FORMATS,
    SUMMARY_FORMATS,
    Fixable,
    any_fix,
    closing_summary,
    colour_wanted,
    fixes_table,
    in_colour,
    render,
    render_statistics,
    safe_fix,
)
from asynccfg_lint.analysis.jax_facts import SinkSpec
from asynccfg_lint.run.project import (
    Project,
    end_pool,
    package_sinks,
    start_worker,
    summary_scope,
    unread_package_imports,
    worker_project,
)
from asynccfg_lint.rules import acc001
from asynccfg_lint.run.selection import Selection, parse_code_list
from asynccfg_lint.run.tasks import CheckSettings, FileOutcome

if TYPE_CHECKING:
    from asynccfg_lint.fixing.fixer import FileResult, FixOptions

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: the exit code of a run stopped by Ctrl-C (SIGINT), as shells report it
EXIT_INTERRUPTED = 130
#: the reader of standard output closed it while the findings were written (the signal module's note on SIGPIPE)
EXIT_BROKEN_PIPE = 1
#: the message of the ACC001 diagnostic of a path that does not exist (ruff: E902)
MISSING_PATH = acc001.not_analysed("No such file or directory")


class _Parser(argparse.ArgumentParser):
    """argparse with ruff's usage errors: a mistyped option names the closest real one (``tip:``).

    Attributes:
        commands: the sub-command parsers by name (empty for a sub-command's own parser).
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.commands: dict[str, argparse.ArgumentParser] = {}

    def error(self, message: str) -> None:  # type: ignore[override]
        """Print the error, a one-line usage and where to read more, as ruff does (not the whole usage block);
        exit 2."""
        if message.startswith("unrecognized arguments: "):
            options = [option for action in self._actions for option in action.option_strings]
            for word in message.removeprefix("unrecognized arguments: ").split():
                import difflib  # (only for a mistyped option)

                close = difflib.get_close_matches(word.split("=")[0], options, n=1)
                if word.startswith("-") and close:
                    message += f"\n  tip: a similar option exists: '{close[0]}'"
                    break
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n\n{self.short_usage()}\n"
                              f"For more information, try '{self.prog} --help'.\n")

    def short_usage(self) -> str:
        """``usage: PROG [options] POSITIONALS``: one line, whatever the number of options."""
        words = [f"usage: {self.prog}", "[options]"]
        for action in self._actions:
            if action.option_strings:
                continue
            name = "{" + ",".join(action.choices) + "}" if action.choices else action.metavar or action.dest
            words.append({"*": f"[{name} ...]", "?": f"[{name}]", "+": f"{name} [{name} ...]",
                          argparse.PARSER: f"{name} ..."}.get(action.nargs, name))
        return " ".join(words)


def build_parser() -> _Parser:
    """Return the argument parser (argparse exits with 2 on a usage error, as ruff does).

    A usage error inside a sub-command prints that sub-command's usage (its options are parsed by
    its own parser: see :func:`parse_arguments`).
    """
    parser = _Parser(
        prog="asynccfg-lint",
        description="Find config values that JAX's async collectives cannot serialize, before the code runs.",
    )
    parser.add_argument("--version", action="version", version=f"asynccfg-lint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="report diagnostics (with --fix: fix them)")
    _add_check_options(check, fixing=False)
    fix = commands.add_parser("fix", help="apply the fixes of fixable diagnostics, then report what is left "
                                          "(check --fix)")
    _add_check_options(fix, fixing=True)
    rule = commands.add_parser("rule", help="print a rule's page, or list every rule")
    shown = rule.add_mutually_exclusive_group(required=True)
    shown.add_argument("code", nargs="?", help="a rule code or name, e.g. ACC101 or non-finite-float")
    shown.add_argument("--all", action="store_true", help="list every code with its name and summary")
    rule.add_argument("--output-format", choices=("text", "json"), default="text",
                      help="text (the page, or one line per rule) or json (ruff's rule objects)")
    clean_command = commands.add_parser("clean", help="remove the result cache")
    _add_cache_dir_option(clean_command)
    commands.add_parser("lsp", help="run the language server on stdin/stdout (needs the lsp extra)")
    parser.commands = dict(commands.choices)
    return parser


def _add_check_options(command: argparse.ArgumentParser, fixing: bool) -> None:
    """The options of ``check`` and of ``fix`` (``check --fix``): the same, only the defaults differ."""
    command.add_argument("paths", nargs="*", default=["."],
                         help="files or directories ('-' reads stdin); default: .")
    _add_selection_options(command)
    _add_configuration_options(command)
    command.add_argument("--output-format", choices=FORMATS, default="text",
                         help="text (flake8's), concise (ruff's, with a closing summary), full (concise with "
                              "each source line), json, grouped (by file), github (Actions annotations) or sarif (2.1.0)")
    command.add_argument("-o", "--output-file", help="write the output to this file instead of stdout")
    command.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                         help="colour the rows of the text, concise, full and grouped formats: auto (default: on a "
                              "terminal, unless NO_COLOR is set), always or never")
    command.add_argument("--statistics", action="store_true",
                         help="print the number of diagnostics per code instead of the diagnostics (text or json)")
    command.add_argument("--show-source", action="store_true", default=False,
                         help="print the source line of each diagnostic and a caret under its column")
    command.add_argument("--no-show-source", action="store_false", dest="show_source")
    command.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    command.add_argument("--stdin-filename",
                         help="read the source from stdin and report it under this path (its configuration applies)")
    _add_jobs_option(command, "files analysed in parallel (processes)")
    command.add_argument("--no-cache", action="store_true", help="neither read nor write the result cache")
    _add_cache_dir_option(command)
    command.add_argument("--fix", action="store_true", default=fixing,
                         help="apply the fixes, then report what is left" + (" (the default of fix)" if fixing else ""))
    command.add_argument("--no-fix", action="store_false", dest="fix", help="report only; apply no fix")
    command.add_argument("--unsafe-fixes", action="store_true", default=None,
                         help="also apply (and count as fixable) fixes that may change meaning "
                              "(overrides unsafe-fixes in the configuration)")
    command.add_argument("--no-unsafe-fixes", action="store_false", dest="unsafe_fixes",
                         help="safe fixes only, whatever the configuration says")
    command.add_argument("--fix-only", action="store_true", default=False,
                         help="apply the fixes and report nothing that is left")
    command.add_argument("--no-fix-only", action="store_false", dest="fix_only")
    command.add_argument("--show-fixes", action="store_true", default=False,
                         help="list the fixes applied, per file and code (text formats)")
    command.add_argument("--no-show-fixes", action="store_false", dest="show_fixes")
    command.add_argument("--diff", action="store_true",
                         help="write nothing; print a unified diff of the fixes and exit 1 if there would be changes")
    command.add_argument("-e", "--exit-non-zero-on-fix", action="store_true",
                         help="exit 1 when any fix was applied, even if no findings are left")
    command.add_argument("--add-noqa", action="store_true",
                         help="add '# noqa: CODE' on the right line of each diagnostic (never twice), then exit")
    command.add_argument("--show-files", action="store_true", help="print the files that would be checked, then exit")
    command.add_argument("--show-settings", action="store_true",
                         help="print the settings that apply to the first file, then exit")
    loudness = command.add_mutually_exclusive_group()
    loudness.add_argument("-q", "--quiet", action="store_true",
                          help="print the diagnostics only: no summary, no notes on stderr")
    loudness.add_argument("-v", "--verbose", action="store_true",
                          help="also print the configuration files used, the files checked, timings and "
                               "an internal error's traceback on stderr")


def _add_jobs_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("-j", "--jobs", type=_positive_int, default=os.cpu_count() or 1,
                         help=f"{what}; default: the number of CPUs")


def _add_cache_dir_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--cache-dir", metavar="PATH", default=None,
                         help="the result cache's folder (default: $ASYNCCFG_LINT_CACHE_DIR, else "
                              ".asynccfg_lint_cache in the project root: the nearest folder with a "
                              "pyproject.toml, else the working directory)")


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
    """``asynccfg-lint rule CODE|NAME`` prints the rule's page; ``rule --all`` lists the rules (``--output-format json``: ruff's objects)."""
    from asynccfg_lint.rules.pages import RULES, UnknownRuleError, find_rule, rule_json, rule_listing, rule_page

    if args.all:
        if args.output_format == "json":
            sys.stdout.write(json.dumps([rule_json(rule) for rule in RULES], indent=2) + "\n")
        else:
            sys.stdout.write(rule_listing())
        return EXIT_CLEAN
    try:
        rule = find_rule(args.code)
        if args.output_format == "json":
            sys.stdout.write(json.dumps(rule_json(rule), indent=2) + "\n")
        else:
            sys.stdout.write(rule_page(rule.code))
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
    command.add_argument("--config", metavar="PATH|KEY=VALUE", action="append", default=[],
                         help="use this configuration file for every file (pyproject.toml: its [tool.asynccfg-lint] "
                              "table; another TOML file: its top level) instead of discovering pyproject.toml files; "
                              "or a TOML option laid over whichever file applies, e.g. 'select = [\"ACC1\"]' (repeatable)")
    command.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    command.add_argument("--exclude", metavar="GLOBS",
                         help="comma-separated globs to exclude, replacing the configured and default ones")
    command.add_argument("--extend-exclude", metavar="GLOBS", help="comma-separated globs to exclude in addition")
    command.add_argument("--force-exclude", action="store_true", default=False,
                         help="apply the exclusions to paths named on the command line too (for pre-commit)")
    command.add_argument("--no-force-exclude", action="store_false", dest="force_exclude")
    command.add_argument("--respect-gitignore", action="store_true", default=None,
                         help="skip files git ignores (.gitignore, .git/info/exclude) in the walk (the default)")
    command.add_argument("--no-respect-gitignore", action="store_false", dest="respect_gitignore",
                         help="walk git-ignored files too")


def _positive_int(text: str) -> int:
    """argparse type of ``-j``: its messages name no internal function."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
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
    inline = [text for text in args.config if is_inline_option(text)]
    return Overrides(
        selection=Selection(
            select=lists["select"] if args.select is not None else None,
            extend_select=lists["extend_select"],
            ignore=lists["ignore"],
        ),
        exclude=globs(_glob_list(args.exclude), cwd, "--exclude"),
        extend_exclude=globs(_glob_list(args.extend_exclude), cwd, "--extend-exclude") or (),
        unsafe_fixes=args.unsafe_fixes,
        force_exclude=args.force_exclude,
        respect_gitignore=args.respect_gitignore,
        options=parse_inline_options(inline),
    )


def config_file(args: argparse.Namespace) -> str | None:
    """The one ``--config PATH`` (a file, not a ``KEY = VALUE`` option), or ``None``.

    Raises:
        ConfigError: when two files are given.
    """
    files = [text for text in args.config if not is_inline_option(text)]
    if len(files) > 1:
        raise ConfigError(f"--config: one configuration file at most, got {files[0]!r} and {files[1]!r}")
    return files[0] if files else None


def _missing(path: str, resolver: Resolver) -> list[Diagnostic]:
    """ACC001 for a path that is neither a file nor a folder (as ruff reports E902): one that does not exist, or
    that names something else (a FIFO, a socket, a device); a warning when ACC001 is not selected."""
    reason = _not_a_file_or_folder(path)
    if resolver.file_settings(path).selection.is_enabled("ACC001"):
        message = MISSING_PATH if reason == "No such file or directory" else acc001.not_analysed(reason)
        return [Diagnostic(path, 1, 1, 1, 1, "ACC001", message)]
    sys.stderr.write(f"asynccfg-lint: warning: {path}: {reason}\n")
    return []


#: what a path that is neither a file nor a folder is, by its ``stat`` mode
_SPECIAL_FILES = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                  (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _not_a_file_or_folder(path: str) -> str:
    """Why ``path`` is not read: the system's error (``No such file or directory``), or what it is instead."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return exc.strerror or str(exc)
    kind = next((name for test, name in _SPECIAL_FILES if test(mode)), "neither a file nor a folder")
    return f"{kind}, not a file or folder" if kind != "neither a file nor a folder" else kind


def _stdin_package(display: str, source: bytes, sinks: tuple[SinkSpec, ...],
                   args: argparse.Namespace) -> tuple[tuple[SinkSpec, ...], Project | None]:
    """The sinks and the package of standard input read as ``display`` (``--stdin-filename``): when that
    file is in a package, its other modules as saved on disk and the wrappers ``source`` may reach, as the
    flake8 plugin and the language server see an edited file; else ``sinks`` and no package."""
    found = package_sinks(display, sinks, source, cache_dir_for(args.no_cache, args.cache_dir))
    return found.sinks, found.project


def _check_stdin(display: str, resolver: Resolver, sources: dict[str, bytes | str],
                 args: argparse.Namespace, coverage: list[Coverage]) -> list[Diagnostic]:
    """The diagnostics of standard input read as ``display``; its :class:`Coverage` is appended to ``coverage``."""
    from asynccfg_lint.analysis.checker import check_source

    source = sys.stdin.buffer.read()
    if display != "-" and resolver.overrides.force_exclude and resolver.is_excluded_with_ancestors(display):
        return []
    settings = resolver.file_settings(display)
    sources[display] = source
    if display == "-" and not args.quiet and (unread := unread_package_imports(source, settings.sinks)):
        sys.stderr.write(f"asynccfg-lint: warning: standard input imports from its package ({', '.join(unread)}), which "
                         "is not read without --stdin-filename: sinks and wrappers defined there are not followed\n")
    sinks, project = _stdin_package(display, source, settings.sinks, args)
    calls: dict[int, bool] = {}
    diagnostics = check_source(source, display, settings.selection, sinks, with_fixes=True,
                               sanitizers=settings.sanitizers, modules=project, calls=calls)
    coverage.append(Coverage(len(calls), sum(calls.values())))
    return diagnostics


def _check_paths(args: argparse.Namespace, resolver: Resolver, sources: dict[str, bytes | str],
                 checked: list[str] | None = None, coverage: list[Coverage] | None = None) -> list[Diagnostic]:
    """Check every input; ``sources`` receives the bytes of each file with a diagnostic (for ``--show-source``),
    ``checked`` (when given) the files checked, ``coverage`` (when given) each checked input's :class:`Coverage`."""
    coverage = [] if coverage is None else coverage
    if args.stdin_filename is not None:  # as ruff: --stdin-filename reads stdin, with or without '-'
        for path in args.paths:
            if path != "-" and path != ".":
                sys.stderr.write(f"asynccfg-lint: warning: ignoring {path} in favour of standard input\n")
        if checked is not None:
            checked.append(args.stdin_filename)
        return _check_stdin(args.stdin_filename, resolver, sources, args, coverage)
    diagnostics: list[Diagnostic] = []
    items: list[str | Missing] = []
    for path in args.paths:
        if path == "-":
            if checked is not None:
                checked.append("-")
            diagnostics.extend(_check_stdin("-", resolver, sources, args, coverage))
        else:
            items.extend(iter_files([path], resolver))
    cache_dir = cache_dir_for(args.no_cache, args.cache_dir)
    cache = ResultCache(cache_dir) if cache_dir is not None else None
    files = [item for item in items if not isinstance(item, Missing)]
    if checked is not None:
        checked.extend(files)
    with Project(summary_scope(files), jobs=args.jobs, cache=cache) as project, _analysis_progress(len(files)) as bar:
        project.progress = bar
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
                    diagnostics.append(Diagnostic(item, 1, 1, 1, 1, "ACC001", acc001.not_analysed(exc.strerror)))
                continue
            groups.setdefault(settings.sinks, {})[item] = CheckSettings(settings.selection, settings.sanitizers)
        for sinks, checked in groups.items():
            outcomes = project.analyse(sinks, checked)
            for path in checked:
                outcome = outcomes.get(path)
                if outcome is not None:
                    coverage.append(outcome.coverage)
                if outcome is not None and outcome.diagnostics:
                    sources[path] = project.read(path)
                    diagnostics.extend(outcome.diagnostics)
    raise_if_interrupted()  # a Ctrl-C that the analysis swallowed: its findings may be incomplete
    return diagnostics


def _write_report(text: str, args: argparse.Namespace) -> None:
    """Write a report rendered as ``args.output_format`` (:func:`_write_output`), in colour on standard output when
    ``args.color`` asks for it (:func:`~asynccfg_lint.frontends.output.colour_wanted`)."""
    if args.output_file is None and colour_wanted(args.color, sys.stdout):
        text = in_colour(text, args.output_format)
    _write_output(text, args.output_file)


def _write_output(text: str, output_file: str | None) -> None:
    """Write ``text`` to ``output_file`` (creating its folder), or to stdout.

    Raises:
        ConfigError: when ``output_file`` cannot be written (the CLI's error line, exit 2).
    """
    if output_file is None:
        sys.stdout.write(text)
        return
    folder = os.path.dirname(output_file)
    if folder:
        os.makedirs(folder, exist_ok=True)
    try:
        with open(output_file, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:  # a folder, a path under a file, no permission: one error line and exit 2
        raise ConfigError(f"--output-file {output_file}: cannot write: {exc.strerror or exc}") from None


#: a progress bar is shown (on a terminal) from this many files on
PROGRESS_MIN_FILES = 50


def _fix_results(files: list[str], options: list[FixOptions], jobs: int, project: Project) -> Iterator[FileResult]:
    """Fix ``files[i]`` with ``options[i]`` in ``jobs`` processes (in this process for one job or one file), in order.

    Each file reads the other modules of ``project`` (builders and constants imported from them).
    A Ctrl-C that came (:func:`~asynccfg_lint.run.interrupts.interrupted`) ends the run after the file
    in flight, also when the code it landed in swallowed it.

    Raises:
        KeyboardInterrupt: on Ctrl-C; every file is then as it was or completely fixed.
    """
    from asynccfg_lint.fixing.fixer import fix_file

    if jobs == 1 or len(files) <= 1:
        for file, option in zip(files, options):
            result = fix_file(file, option, project)
            raise_if_interrupted()
            yield result
        return
    from concurrent.futures import ProcessPoolExecutor

    workers = min(jobs, len(files))
    executor = ProcessPoolExecutor(max_workers=workers, initializer=start_worker, initargs=(project.files,))
    try:
        # map submits every file now and forks the workers: with SIGINT held back, no worker starts
        # with Python's handler (a traceback of its own) and no Ctrl-C lands in an at-fork callback
        # (where Python ignores it); one that came meanwhile arrives here, after the forks
        with interrupts_deferred():
            results = executor.map(_fix_in_worker, files, options)  # one file per task
        for result in results:
            raise_if_interrupted()
            yield result
    except BaseException:  # Ctrl-C (or the consumer gave up): run no new file, let running ones finish their writes
        end_pool(executor)
        raise
    executor.shutdown(wait=True)


def _fix_in_worker(path: str, options: FixOptions) -> FileResult:
    from asynccfg_lint.fixing.fixer import fix_file

    project = worker_project()
    return fix_file(path, options, project)


@contextlib.contextmanager
def _analysis_progress(files: int) -> Iterator[object | None]:
    """A progress bar of the files a check analyses (on a terminal, from :data:`PROGRESS_MIN_FILES` files named),
    gone when the check ends; ``None`` otherwise. Files no sink reaches are not analysed: the bar counts the
    analyses planned, round by round."""
    if files < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=0, unit="file", file=sys.stderr, leave=False, desc="analysing") as bar:
        yield bar


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


def _fixable(args: argparse.Namespace, resolver: Resolver) -> Fixable:
    """Which diagnostics ``--fix`` fixes in this run: safe fixes, and unsafe ones where unsafe fixes are on."""
    if args.unsafe_fixes is not None:
        return any_fix if args.unsafe_fixes else safe_fix
    unsafe: dict[str, bool] = {}

    def fixable(diagnostic: Diagnostic) -> bool:
        if diagnostic.fix is None:
            return False
        if diagnostic.path not in unsafe:
            unsafe[diagnostic.path] = resolver.file_settings(diagnostic.path).unsafe_fixes
        return diagnostic.fix.safety == "safe" or unsafe[diagnostic.path]

    return fixable


def _verbose(args: argparse.Namespace, resolver: Resolver, files: Sequence[str], started: float) -> None:
    """``-v``: the configuration files used, how many files were checked and how long it took, on stderr."""
    if not args.verbose:
        return
    used = sorted({str(resolver.settings_for(file).source or "defaults (no configuration file)") for file in files})
    for source in used:
        sys.stderr.write(f"asynccfg-lint: settings: {source}\n")
    sys.stderr.write(f"asynccfg-lint: {_count(len(files), 'file')} checked in {time.perf_counter() - started:.2f} s\n")


def _read_sources(paths: Iterator[str] | Sequence[str]) -> dict[str, bytes | str]:
    sources: dict[str, bytes | str] = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                sources[path] = handle.read()
        except OSError:
            continue
    return sources


def _fix_options(settings: FileSettings, args: argparse.Namespace) -> FixOptions:
    """The fixer's options for a file with ``settings`` (its sinks: the configured ones; the project adds wrappers)."""
    from asynccfg_lint.fixing.fixer import FixOptions

    return FixOptions(selection=settings.selection, unsafe=settings.unsafe_fixes, write=not args.diff,
                      sinks=settings.sinks, sanitizers=settings.sanitizers)


def _fix_mode(args: argparse.Namespace) -> str:
    return "diff" if args.diff else "fix-only" if args.fix_only else "fix"


def _fix_report(results: Sequence[FileResult], remaining: Sequence[Diagnostic], sources: dict[str, bytes | str]) -> str:
    """``fix --output-format json``: ``{"fixed": [...], "remaining": [...], "files": [...]}`` (diagnostics as in ``check``)."""
    from asynccfg_lint.frontends.output import render_json

    fixed = sorted((d for r in results for d in r.fixed), key=lambda d: d.sort_key)
    report = {
        "fixed": json.loads(render_json(fixed, sources)),
        "remaining": json.loads(render_json(remaining, sources)),
        "files": [
            {"path": r.path, "changed": r.changed, "fixes_applied": r.applied, "failure": r.failure,
             "withheld": r.withheld, "error": r.error}
            for r in results if r.changed or r.failure or r.withheld or r.error
        ],
    }
    return json.dumps(report, indent=2) + "\n"


def _legacy_summary(results: Sequence[FileResult], remaining: Sequence[Diagnostic], diff: bool) -> str:
    """The one-line summary ``fix`` prints on stderr with the ``text`` format."""
    changed = sum(r.changed for r in results)
    applied = sum(r.applied for r in results)
    skipped = sum(r.unsafe_skipped for r in results)
    summary = (f"{_count(len(results), 'file')} scanned, {_count(changed, 'file')} "
               f"{'would change' if diff else 'changed'}, {_count(applied, 'fix', 'fixes')} "
               f"{'would be applied' if diff else 'applied'}, {_count(len(remaining), 'finding')} left")
    if skipped:
        summary += f" ({skipped} more fixable with --unsafe-fixes)"
    return summary + "\n"


def _fix_exit(args: argparse.Namespace, errors: int, remaining: Sequence[Diagnostic], changed: int, applied: int) -> int:
    """Exit codes as ruff's: ``--diff`` 1 when something would change; ``--fix-only`` 0; else 1 when findings are left."""
    if errors:
        return EXIT_ERROR
    if args.exit_non_zero_on_fix and applied and not args.diff:
        return EXIT_FINDINGS
    if args.diff:
        return EXIT_FINDINGS if changed else EXIT_CLEAN
    if remaining and not args.fix_only and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _run_fix(args: argparse.Namespace, resolver: Resolver) -> int:
    """``asynccfg-lint fix`` / ``check --fix``: apply fixes, print the diff (``--diff``) or what is left, and a summary.

    Each file is fixed with its own settings (selection, sinks, sanitizers, unsafe-fixes); all
    settings are resolved before any file is written, so a configuration error changes nothing.
    With ``text`` the summary is one line on stderr; with ruff's text formats it is ruff's, on stdout.
    """
    if args.stdin_filename is not None or "-" in args.paths:
        return _fix_stdin(args, resolver)
    started = time.perf_counter()
    missing: list[Diagnostic] = []
    files: list[str] = []
    for item in iter_files(args.paths, resolver):
        if isinstance(item, Missing):
            missing.extend(_missing(item.path, resolver))
        else:
            files.append(item)
    from asynccfg_lint.fixing.fixer import FileResult

    options = []
    analysed: dict[str, FileOutcome] = {}
    # the summaries and the check, in the same number of processes: a file with no fix to apply is
    # done there (its findings are the check's), only the others are fixed (parsed again, re-checked)
    with Project(summary_scope(files), jobs=args.jobs) as project:
        groups: dict[tuple[SinkSpec, ...], dict[str, CheckSettings]] = {}
        for file in files:
            settings = resolver.file_settings(file)
            if project.source(file) is not None:
                groups.setdefault(settings.sinks, {})[file] = CheckSettings(settings.selection, settings.sanitizers)
            options.append(_fix_options(settings, args))
        for sinks, checked in groups.items():
            analysed.update(project.analyse(sinks, checked))
        raise_if_interrupted()  # before any file is written
        options = [dataclasses.replace(option, sinks=project.sinks(option.sinks, project.source(file)))
                   for file, option in zip(files, options)]
    done = {}
    for file, option in zip(files, options):
        outcome = analysed.get(file, FileOutcome())  # no outcome: the file names no sink
        if project.source(file) is not None and not outcome.has_fix(option.unsafe):
            done[file] = FileResult(file, remaining=outcome.diagnostics, unsafe_skipped=outcome.unsafe_fixes())
    to_fix = [(file, option) for file, option in zip(files, options) if file not in done]
    fix_runs = _fix_results([file for file, _ in to_fix], [option for _, option in to_fix], args.jobs, project)
    results = sorted([*done.values(), *_progress(fix_runs, len(to_fix))], key=lambda r: r.path)
    errors = [r for r in results if r.error is not None]
    out: list[str] = []
    for result in results:
        if args.diff and result.diff:
            out.append(result.diff)
        if result.failure is not None:
            sys.stderr.write(f"{result.path}: not fixed: {result.failure}\n")
        if result.withheld is not None:
            sys.stderr.write(f"{result.path}: {result.withheld}\n")
        if result.error is not None:
            sys.stderr.write(f"{result.path}: error: {result.error}\n")
        if result.changed and not args.diff and not args.quiet and \
                (target := _target_outside(result.path, args.paths)) is not None:
            sys.stderr.write(f"{result.path}: note: a symbolic link out of the checked tree; fixed its target {target}\n")
    remaining = sorted([*missing, *(d for r in results for d in r.remaining)], key=lambda d: d.sort_key)
    fixed = [d for r in results for d in r.fixed]
    fixable = _fixable(args, resolver)
    sources = _read_sources({d.path for d in remaining if d.path in files}) if args.output_format != "text" else {}
    if args.output_format == "json" and args.command == "fix":
        out.append(_fix_report(results, remaining, sources))
    elif not args.diff and not args.fix_only:
        out.append(render(remaining, args.output_format, sources, args.show_source, fixable))
    if args.output_format in SUMMARY_FORMATS and not args.quiet:
        if args.show_fixes and not args.diff:
            out.append(fixes_table(fixed))
        out.append(closing_summary(remaining, fixable, len(fixed), _fix_mode(args)))
    _write_report("".join(out), args)
    if args.output_format == "text" and not args.quiet:  # stdout keeps flake8's lines only
        if args.show_fixes and not args.diff:
            sys.stderr.write(fixes_table(fixed).lstrip("\n"))
        sys.stderr.write(_legacy_summary(results, remaining, args.diff))
    _verbose(args, resolver, files, started)
    return _fix_exit(args, len(errors), remaining, sum(r.changed for r in results), sum(r.applied for r in results))


def _fix_stdin(args: argparse.Namespace, resolver: Resolver) -> int:
    """``fix -`` / ``check --fix --stdin-filename PATH``: the fixed text on stdout (``--diff``: the diff);
    what is left, in the chosen format, and the summary on stderr (or in ``--output-file``), as ruff does."""
    from asynccfg_lint.fixing.fixer import FileResult, fix_source

    display = args.stdin_filename or "-"
    source = sys.stdin.buffer.read()
    if display != "-" and resolver.overrides.force_exclude and resolver.is_excluded_with_ancestors(display):
        if not args.diff:
            sys.stdout.buffer.write(source)
        return EXIT_CLEAN
    options = _fix_options(resolver.file_settings(display), args)
    sinks, project = _stdin_package(display, source, options.sinks, args)
    fixed = fix_source(source, display, dataclasses.replace(options, sinks=sinks), project)
    if args.diff:
        sys.stdout.write(fixed.diff)
    else:
        sys.stdout.buffer.write(fixed.fixed)
    sys.stdout.flush()
    if fixed.failure is not None:
        sys.stderr.write(f"{display}: not fixed: {fixed.failure}\n")
    if fixed.withheld is not None:
        sys.stderr.write(f"{display}: {fixed.withheld}\n")
    result = FileResult(display, changed=fixed.changed, applied=fixed.applied, remaining=fixed.remaining,
                        unsafe_skipped=fixed.unsafe_skipped, failure=fixed.failure, withheld=fixed.withheld,
                        diff=fixed.diff, fixed=fixed.fixed_diagnostics)
    remaining = sorted(fixed.remaining, key=lambda d: d.sort_key)
    fixable = _fixable(args, resolver)
    sources = {display: fixed.fixed}
    if args.output_format == "json" and args.command == "fix":
        report = _fix_report([result], remaining, sources)
    elif not args.diff and not args.fix_only:
        report = render(remaining, args.output_format, sources, args.show_source, fixable)
    else:
        report = ""
    if args.output_format in SUMMARY_FORMATS and not args.quiet:
        if args.show_fixes and not args.diff:
            report += fixes_table(fixed.fixed_diagnostics)
        report += closing_summary(remaining, fixable, len(fixed.fixed_diagnostics), _fix_mode(args))
    elif args.output_format == "text" and not args.quiet:
        if args.show_fixes and not args.diff:
            report += fixes_table(fixed.fixed_diagnostics).lstrip("\n")
        report += _legacy_summary([result], remaining, args.diff)
    if args.output_file is not None:
        _write_output(report, args.output_file)
    else:
        sys.stderr.write(report)
    return _fix_exit(args, 0, remaining, int(fixed.changed), fixed.applied)


def _run_add_noqa(args: argparse.Namespace, resolver: Resolver) -> int:
    """``check --add-noqa``: add ``# noqa: CODE`` for every diagnostic on its noqa row, and say how many on stderr (ruff)."""
    from asynccfg_lint.fixing.fixer import write_atomically
    from asynccfg_lint.frontends.output import source_text
    from asynccfg_lint.run.suppression import add_noqa

    if args.stdin_filename is not None or "-" in args.paths:
        raise ConfigError("--add-noqa edits files; it cannot read stdin")
    sources: dict[str, bytes | str] = {}
    diagnostics = _check_paths(args, resolver, sources)
    by_path: dict[str, dict[int, set[str]]] = {}
    for d in diagnostics:
        if d.code != "ACC001" and isinstance(sources.get(d.path), bytes):
            by_path.setdefault(d.path, {}).setdefault(d.line, set()).add(d.code)
    added, failed = 0, 0
    for path, codes in sorted(by_path.items()):
        source = sources[path]
        assert isinstance(source, bytes)
        new, count = add_noqa(source, source_text(source), codes)
        if not count:
            continue
        try:
            write_atomically(path, new)
        except OSError as exc:
            sys.stderr.write(f"{path}: error: {exc.strerror or exc}\n")
            failed += 1
            continue
        added += count
    if not args.quiet:
        sys.stderr.write(f"Added {_count(added, 'noqa directive')}.\n")
    return EXIT_ERROR if failed else EXIT_CLEAN


def _show_files(args: argparse.Namespace, resolver: Resolver) -> int:
    """``--show-files``: every file a run would check, as absolute paths, sorted (ruff)."""
    files = sorted(os.path.abspath(item) for item in iter_files(args.paths, resolver) if not isinstance(item, Missing))
    _write_output("".join(file + "\n" for file in files), args.output_file)
    return EXIT_CLEAN


def _show_settings(args: argparse.Namespace, resolver: Resolver) -> int:
    """``--show-settings``: the settings of the first file a run would check (else the first path), as ruff."""
    first = next((item for item in iter_files(args.paths, resolver) if not isinstance(item, Missing)),
                 args.stdin_filename or args.paths[0])
    settings = resolver.settings_for(first)
    effective = resolver.file_settings(first)
    lines = [
        f'Resolved settings for: "{os.path.abspath(first)}"',  # quoted, as ruff prints them
        f'Settings path: "{settings.source.resolve()}"' if settings.source else "Settings path: none (defaults)",
        "",
        "# options (the file, the files it extends, --config KEY=VALUE)",
        *settings.describe(),
        "",
        "# in effect for this file (with the command line)",
        f"enabled = [{', '.join(chr(34) + code + chr(34) for code in sorted(effective.selection.enabled_codes()))}]",
        f"respect-gitignore = {'true' if resolver.respects_gitignore(first) else 'false'}",
        f"force-exclude = {'true' if resolver.overrides.force_exclude else 'false'}",
        f"unsafe-fixes = {'true' if effective.unsafe_fixes else 'false'}",
    ]
    _write_output("".join(line + "\n" for line in lines), args.output_file)
    return EXIT_CLEAN


def _run_check(args: argparse.Namespace, resolver: Resolver) -> int:
    """``asynccfg-lint check``: print every diagnostic, sorted by path and position as ruff does."""
    if args.statistics and args.output_format not in STATISTICS_FORMATS:
        raise ConfigError(f"--statistics cannot be printed as {args.output_format}; "
                          f"use --output-format {' or '.join(STATISTICS_FORMATS)}")
    started = time.perf_counter()
    sources: dict[str, bytes | str] = {}
    checked: list[str] = []
    coverage: list[Coverage] = []
    diagnostics = sorted(_check_paths(args, resolver, sources, checked, coverage), key=lambda d: d.sort_key)
    covered = sum(coverage, Coverage())
    fixable = _fixable(args, resolver)
    in_summary = args.output_format in SUMMARY_FORMATS and not args.statistics
    if args.statistics:
        text = render_statistics(diagnostics, args.output_format)
    else:
        text = render(diagnostics, args.output_format, sources, args.show_source, fixable, covered)
        if in_summary and not args.quiet:
            text += closing_summary(diagnostics, fixable) + covered.line() + "\n"
    _write_report(text, args)
    _verbose(args, resolver, checked, started)
    if not in_summary and not args.quiet:  # (stdout holds only the diagnostics, or a document: JSON, SARIF)
        sys.stderr.write(covered.line() + "\n")
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def parse_arguments(parser: _Parser, argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse ``argv``; an unknown option is a usage error of the sub-command it was given to (its usage printed)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.commands.get(args.command, parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _run_command(args: argparse.Namespace) -> int:
    """``check``, ``fix`` or ``--add-noqa`` (or ``--show-settings``, ``--show-files``) with ``args``; the exit code.

    Raises:
        ConfigError: on a bad configuration or option. KeyboardInterrupt: on Ctrl-C.
    """
    resolver = Resolver(config_file(args), args.isolated, command_line_overrides(args))
    if args.show_settings:
        return _show_settings(args, resolver)
    if args.show_files:
        return _show_files(args, resolver)
    if args.add_noqa:
        return _run_add_noqa(args, resolver)
    if args.fix or args.fix_only or args.diff:
        return _run_fix(args, resolver)
    return _run_check(args, resolver)


def main(argv: Sequence[str] | None = None, ends_process: bool = False) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    ``ends_process``: the caller ends the process with ``os._exit`` right after (:func:`console_main`),
    so a ``check`` or ``fix`` leaves the last file's garbage uncollected
    (:func:`~asynccfg_lint.run.collector.defer_collection_until_exit`).

    ``check``: 0 no findings, 1 findings (0 with ``--exit-zero``). ``fix`` (``check --fix``): 0 when
    nothing is left to report, 1 when findings remain, when ``--diff`` shows changes, or with
    ``--exit-non-zero-on-fix`` when a fix was applied; ``--fix-only`` 0. A path that does not
    exist is an ACC001 finding (ruff's E902), and the other paths are still checked. Both: 2 on
    a usage or configuration error (a clear message on stderr) or an internal error (with the
    traceback); 130 when interrupted (Ctrl-C), after the files being written are complete; 1, silently, when the
    reader of standard output closed it (`| head`).

    The run owns the process (:func:`~asynccfg_lint.process_owner.owned_process`) until it returns.
    """
    with owned_process():  # the command's own process: its stages may tune it, undone when main returns
        return _main(argv, ends_process)


def _main(argv: Sequence[str] | None, ends_process: bool) -> int:
    args = parse_arguments(build_parser(), argv)
    if args.command == "rule":
        return _run_rule(args)
    if args.command == "lsp":
        return _run_lsp()
    if args.command == "clean":
        return _run_clean(args)
    if args.verbose:  # the boundary logs each internal error's traceback (forked workers inherit the handler)
        show_tracebacks()
    if ends_process:
        defer_collection_until_exit()
    try:
        with interrupt_latch():  # every Ctrl-C ends the run, also one that the code it landed in swallowed
            code = _run_command(args)
            raise_if_interrupted()
            return code
    except ConfigError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:  # every file is either as it was or completely fixed; no temporary file is left
        sys.stderr.write("asynccfg-lint: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of the output went away (`| head`): nothing to report, as Python's docs advise
        with contextlib.suppress(OSError, ValueError, AttributeError):  # later flushes write to nowhere
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception:  # noqa: BLE001 - an internal error is exit 2 with the traceback, never a silent pass
        sys.stderr.write("asynccfg-lint: internal error\n" + traceback.format_exc())
        return EXIT_ERROR


#: the exit status CPython gives when flushing standard output at exit fails (a closed pipe)
EXIT_FLUSH_FAILED = 120


def console_main() -> None:
    """The ``asynccfg-lint`` command (and ``python -m asynccfg_lint``): :func:`main`, then the process ends.

    When no other thread is running, the process ends with ``os._exit`` once standard output and
    error are flushed, as mypy's command does: the interpreter's own shutdown would free every parsed
    tree one object at a time (0.2 s of a 2 s check of the installed jax package), and nothing is
    left to do (the run's files are written, its worker pools shut down). A thread still running
    (none in a check or fix) gets the interpreter's normal shutdown. The command owns its process from start to
    end (:func:`~asynccfg_lint.process_owner.owned_process`): its garbage is left to the end of the process.

    Raises:
        SystemExit: with :func:`main`'s exit code, only when another thread is still running.
    """
    ownership = owned_process()  # to the process's end: os._exit below leaves the tunings as they are
    ownership.__enter__()
    code = main(ends_process=True)
    if threading.active_count() > 1:
        ownership.__exit__(None, None, None)
        sys.exit(code)
    try:
        if not sys.stdout.closed:  # a stream the program closed is not flushed, as by CPython's shutdown
            sys.stdout.flush()
    except OSError:  # a closed pipe: what CPython's own shutdown reports as 120
        code = EXIT_FLUSH_FAILED
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(code)
