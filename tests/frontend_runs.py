"""Run the real front ends in a subprocess and read what they print.

Both the CLI and flake8 print ``path:line:col: CODE message``; :func:`parse_text` turns those
lines into :class:`Reported` rows so a test can compare them with ``# expect:`` annotations.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.expectations import FIXTURES, Expected

CLI_FIXTURES = FIXTURES / "cli"
#: the coverage line a check ends with, on stderr with the text, JSON, GitHub and SARIF formats
COVERAGE_LINE = re.compile(r"\d+ sink calls? checked(: all fully typed"
                           r"|: \d+ fully typed, \d+ with values not followed \(--extend-select ACC201 shows where\))?\n")
#: the first line of small test modules: it names the sink, so the prefilter lets them through
SINK_IMPORT = "from jax._src.lax.parallel import _emit_async_start_custom_call as emit\n"
_TEXT_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) (?P<message>.+)$")


@dataclass(frozen=True, order=True)
class Reported:
    """One printed diagnostic."""

    path: str
    line: int
    column: int
    code: str
    message: str

    @property
    def expected(self) -> Expected:
        """The position and code, comparable with :func:`tests.expectations.expected_diagnostics`."""
        return Expected(self.line, self.column, self.code)


def cli_fixtures() -> list[Path]:
    """Every fixture module shared by the CLI and flake8 tests, sorted."""
    return sorted(CLI_FIXTURES.glob("*.py"))


def run_cli(*args: str, cwd: Path = CLI_FIXTURES, stdin: bytes | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m asynccfg_lint check ARGS`` and return the finished process (text decoded as UTF-8).

    ``env`` entries are added to (or, with an empty value, removed from) the environment.
    """
    return run_program("check", *args, cwd=cwd, stdin=stdin, env=env)


def run_program(*args: str, cwd: Path = CLI_FIXTURES, stdin: bytes | None = None,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m asynccfg_lint ARGS`` (no command added); ``env`` as for :func:`run_cli`."""
    return _run([sys.executable, "-m", "asynccfg_lint", *args], cwd, stdin, env)


def run_module(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m MODULE ARGS`` (``libcst.tool codemod ...``) and return the finished process."""
    return _run([sys.executable, "-m", module, *args], cwd, None)


def run_flake8(*args: str, cwd: Path = CLI_FIXTURES, stdin: bytes | None = None,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m flake8 --isolated ARGS`` (no user or project configuration) and return the finished process;
    ``env`` as for :func:`run_cli`."""
    return _run([sys.executable, "-m", "flake8", "--isolated", *args], cwd, stdin, env)


def _run(command: list[str], cwd: Path, stdin: bytes | None,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    for name in [name for name, value in environment.items() if value == ""]:
        del environment[name]
    completed = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, timeout=300, env=environment)
    return subprocess.CompletedProcess(
        completed.args, completed.returncode, completed.stdout.decode("utf-8"), completed.stderr.decode("utf-8")
    )


def parse_text(stdout: str) -> list[Reported]:
    """Parse every output line; a line that is not ``path:line:col: CODE message`` fails the test."""
    rows = []
    for line in stdout.splitlines():
        match = _TEXT_LINE.match(line)
        assert match is not None, f"not in path:line:col: CODE message form: {line!r}"
        rows.append(Reported(match["path"], int(match["line"]), int(match["column"]), match["code"], match["message"]))
    return rows


def acc_rows(stdout: str) -> list[Reported]:
    """The ``ACC`` rows of a flake8 run (other plugins' codes dropped)."""
    return [row for row in parse_text(stdout) if row.code.startswith("ACC")]
