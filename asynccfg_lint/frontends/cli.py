"""The command line: ``asynccfg-lint check [PATH ...]`` and ``asynccfg-lint fix [PATH ...]``.

Exit codes follow ruff: 0 no findings (left), 1 findings (left), 2 usage or internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from asynccfg_lint import __version__
from asynccfg_lint.checker import check_source
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.discovery import iter_python_files
from asynccfg_lint.fixer import FileResult, FixOptions, fix_file
from asynccfg_lint.rules import RULES
from asynccfg_lint.selection import Selection, parse_code_list

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


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
    check.add_argument("--output-format", choices=("text", "json"), default="text")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--stdin-filename", help="the path to report for source read from stdin")
    fix = commands.add_parser("fix", help="apply the fixes of fixable diagnostics, then report what is left")
    fix.add_argument("paths", nargs="*", default=["."], help="files or directories; default: .")
    _add_selection_options(fix)
    fix.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that may change meaning")
    fix.add_argument("--diff", action="store_true",
                     help="write nothing; print a unified diff and exit 1 if there would be changes")
    fix.add_argument("--exit-non-zero-on-fix", action="store_true",
                     help="exit 1 when any fix was applied, even if no findings are left")
    fix.add_argument("-j", "--jobs", type=_positive_int, default=os.cpu_count() or 1,
                     help="files fixed in parallel (processes); default: the number of CPUs")
    return parser


def _add_selection_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--select", help="comma-separated code prefixes to report instead of the default (ACC0,ACC1)")
    command.add_argument("--extend-select", help="code prefixes to report in addition, e.g. ACC201")
    command.add_argument("--ignore", help="code prefixes not to report")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text}")
    return value


def _selection(args: argparse.Namespace) -> Selection:
    known = {rule.code for rule in RULES}
    lists = {
        "select": parse_code_list(args.select),
        "extend_select": parse_code_list(args.extend_select),
        "ignore": parse_code_list(args.ignore),
    }
    for option, prefixes in lists.items():
        for prefix in prefixes:
            if prefix != "ALL" and not any(code.startswith(prefix) for code in known):
                raise ValueError(f"--{option.replace('_', '-')}: unknown rule code or prefix {prefix!r}")
    return Selection(
        select=lists["select"] if args.select is not None else None,
        extend_select=lists["extend_select"],
        ignore=lists["ignore"],
    )


def _check_paths(args: argparse.Namespace, selection: Selection) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for path in args.paths:
        if path == "-":
            display = args.stdin_filename or "-"
            diagnostics.extend(check_source(sys.stdin.buffer.read(), display, selection, with_fixes=True))
            continue
        for file in iter_python_files([path]):
            try:
                with open(file, "rb") as handle:
                    source = handle.read()
            except OSError as exc:
                if selection.is_enabled("ACC001"):
                    diagnostics.append(Diagnostic(file, 1, 1, 1, 1, "ACC001", f"file not analysed: {exc.strerror}"))
                continue
            diagnostics.extend(check_source(source, file, selection, with_fixes=True))
    return diagnostics


def _print(diagnostics: list[Diagnostic], output_format: str) -> None:
    if output_format == "json":
        json.dump([d.to_json() for d in diagnostics], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for diagnostic in diagnostics:
            sys.stdout.write(diagnostic.to_text() + "\n")


#: a progress bar is shown (on a terminal) from this many files on
PROGRESS_MIN_FILES = 50


def _fix_results(files: list[str], options: FixOptions, jobs: int) -> Iterator[FileResult]:
    """Fix ``files`` in ``jobs`` processes (in this process for one job or one file), in ``files`` order."""
    work = partial(fix_file, options=options)
    if jobs == 1 or len(files) <= 1:
        yield from map(work, files)
        return
    workers = min(jobs, len(files))
    with ProcessPoolExecutor(max_workers=workers) as executor:
        yield from executor.map(work, files, chunksize=max(1, min(16, len(files) // (workers * 4))))


def _progress(results: Iterator[FileResult], total: int) -> Iterator[FileResult]:
    if total < PROGRESS_MIN_FILES or not sys.stderr.isatty():
        return results
    from tqdm import tqdm

    return iter(tqdm(results, total=total, unit="file", file=sys.stderr, leave=False))


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def _run_fix(args: argparse.Namespace, selection: Selection) -> int:
    """``asynccfg-lint fix``: apply fixes, print the diff (``--diff``) or what is left, and a summary on stderr."""
    if "-" in args.paths:
        sys.stderr.write("asynccfg-lint: error: fix does not read stdin; name the files\n")
        return EXIT_ERROR
    files = list(iter_python_files(args.paths))
    options = FixOptions(selection=selection, unsafe=args.unsafe_fixes, write=not args.diff)
    results = sorted(_progress(_fix_results(files, options, args.jobs), len(files)), key=lambda r: r.path)
    errors = [r for r in results if r.error is not None]
    for result in results:
        if args.diff and result.diff:
            sys.stdout.write(result.diff)
        if result.failure is not None:
            sys.stderr.write(f"{result.path}: not fixed: {result.failure}\n")
        if result.error is not None:
            sys.stderr.write(f"{result.path}: error: {result.error}\n")
    remaining = sorted((d for r in results for d in r.remaining), key=lambda d: d.sort_key)
    if not args.diff:
        _print(remaining, "text")
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    ``check``: 0 no findings, 1 findings (0 with ``--exit-zero``). ``fix``: 0 when nothing is left
    to report, 1 when findings remain, when ``--diff`` shows changes, or with
    ``--exit-non-zero-on-fix`` when a fix was applied. Both: 2 on a usage error, a missing path
    or an internal error (traceback on stderr).
    """
    args = build_parser().parse_args(argv)
    try:
        selection = _selection(args)
    except ValueError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    try:
        return _run_fix(args, selection) if args.command == "fix" else _run_check(args, selection)
    except FileNotFoundError as exc:
        sys.stderr.write(f"asynccfg-lint: error: no such file or directory: {exc.args[0]}\n")
        return EXIT_ERROR
    except Exception:  # noqa: BLE001 - an internal error is exit 2 with the traceback, never a silent pass
        sys.stderr.write("asynccfg-lint: internal error\n" + traceback.format_exc())
        return EXIT_ERROR


def _run_check(args: argparse.Namespace, selection: Selection) -> int:
    """``asynccfg-lint check``: print every diagnostic, sorted by path and position as ruff does."""
    diagnostics = sorted(_check_paths(args, selection), key=lambda d: d.sort_key)
    _print(diagnostics, args.output_format)
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
