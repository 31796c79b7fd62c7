"""The command line: ``asynccfg-lint check [PATH ...]``.

Exit codes follow ruff: 0 no findings, 1 findings, 2 usage or internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Sequence

from asynccfg_lint import __version__
from asynccfg_lint.checker import check_source
from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.discovery import iter_python_files
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
    check.add_argument("--select", help="comma-separated code prefixes to report instead of the default (ACC0,ACC1)")
    check.add_argument("--extend-select", help="code prefixes to report in addition, e.g. ACC201")
    check.add_argument("--ignore", help="code prefixes not to report")
    check.add_argument("--output-format", choices=("text", "json"), default="text")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--stdin-filename", help="the path to report for source read from stdin")
    return parser


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
            diagnostics.extend(check_source(sys.stdin.buffer.read(), display, selection))
            continue
        for file in iter_python_files([path]):
            try:
                with open(file, "rb") as handle:
                    source = handle.read()
            except OSError as exc:
                if selection.is_enabled("ACC001"):
                    diagnostics.append(Diagnostic(file, 1, 1, 1, 1, "ACC001", f"file not analysed: {exc.strerror}"))
                continue
            diagnostics.extend(check_source(source, file, selection))
    return diagnostics


def _print(diagnostics: list[Diagnostic], output_format: str) -> None:
    if output_format == "json":
        json.dump([d.to_json() for d in diagnostics], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for diagnostic in diagnostics:
            sys.stdout.write(diagnostic.to_text() + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default ``sys.argv[1:]``) and return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        selection = _selection(args)
    except ValueError as exc:
        sys.stderr.write(f"asynccfg-lint: error: {exc}\n")
        return EXIT_ERROR
    try:
        diagnostics = _check_paths(args, selection)
    except FileNotFoundError as exc:
        sys.stderr.write(f"asynccfg-lint: error: no such file or directory: {exc.args[0]}\n")
        return EXIT_ERROR
    except Exception:  # noqa: BLE001 - an internal error is exit 2 with the traceback, never a silent pass
        sys.stderr.write("asynccfg-lint: internal error\n" + traceback.format_exc())
        return EXIT_ERROR
    _print(diagnostics, args.output_format)
    if diagnostics and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN
