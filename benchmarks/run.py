"""Benchmark asynccfg-lint against the libcst floor and its peers (issue 7), on this machine, in one run.

Three sections, each a list of rows; a row is one whole-process command run several times:

* **sparse** - the installed ``jax`` package (real code, almost no sinks): the libcst floor
  (``libcst.parse_module`` of every file in one process), ``asynccfg-lint check`` cold with
  ``-j 1`` and ``-j 2``, ``check`` with a warm cache, ``flake8 --select ACC`` with and without the
  plugin, ``ruff check --no-cache`` and TorchFix.
* **dense** - a generated tree (``dense_tree.py``) whose every module calls the sink with a
  traced config: the floor, ``check -j 1``, ``check -j 2``, ``fix --diff -j 2``.
* **startup** - ``check`` and ``flake8`` (with and without the plugin) on one sink-free file,
  against ``python -c pass``; also whether ``check`` imports libcst for that file.

Each row reports the median wall time, the median CPU time (user + system, children included)
and the largest max RSS of any single process of the run (``os.wait4``). Rows are measured
round-robin (every row once, then every row again, ...) so that a change of load on the machine
spreads over all rows instead of skewing one; every row has one untimed warm-up run first.
Options the CLI does not have yet (``check -j``, a cache) make their rows "n/a", detected from
``--help``. The issue's targets are then evaluated from the medians.

Usage (with the project's virtual environment; ``--help`` lists every option)::

    /tmp/venv312/bin/python benchmarks/run.py [--quick] [--json benchmarks/results.json] [--profile]

ruff, TorchFix and py-spy are installed into a separate virtual environment (``--bench-venv``,
default ``/tmp/benchvenv``), never into the project's. See ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dense_tree import sink_free_source, write_dense_tree, write_rules_module, write_wrapper_package

HERE = Path(__file__).resolve().parent
FLOOR = HERE / "floor.py"
FLAKE8_WITHOUT_PLUGIN = HERE / "flake8_without_plugin.py"
LSP_TIMING = HERE / "lsp_timing.py"

#: the distribution whose flake8 plugin is measured (and left out for the baseline)
PLUGIN_DISTRIBUTION = "asynccfg-lint"
#: flake8 arguments of every flake8 row: flake8 runs all its plugins whatever is selected, so
#: this only keeps the output small; the baseline drops the plugin itself
FLAKE8_ARGS = ("--select", "ACC")
#: installed into the benchmark venv
BENCH_PACKAGES = ("ruff", "torchfix", "py-spy")
#: in an argv, replaced by the directory the run happens in (a fresh one for every cold run)
RUN_DIR = "{run_dir}"
#: exit codes that mean "ran fine" for a linter (1: findings, or a diff to show)
LINTER_OK = frozenset({0, 1})

SECTIONS = ("sparse", "dense", "startup", "onefile", "scaling")
#: the package files the one-file rows edit and check (in a copy of the sparse tree)
SINK_FILE = "_src/lax/parallel.py"
SINK_FREE_FILE = "_src/lax/fft.py"
#: modules of the scaling rows' wrapper packages
SCALING_SIZES = (500, 2000)
#: rules of the scaling rows' single modules (dense_tree.write_rules_module)
RULES_SIZES = (250, 1000)
#: rows whose runs all take less than this many seconds (start-up rows) are not cut by the time budget
CHEAP_RUN_S = 1.0


@dataclass
class Sample:
    """One timed run: wall seconds, CPU seconds (children included), max RSS in KiB, exit code."""

    wall: float
    cpu: float
    max_rss_kib: int
    returncode: int
    output_lines: int


@dataclass
class Row:
    """One benchmark row: a command and what it is compared with.

    Attributes:
        section, key: where the row belongs; ``key`` is unique within the section.
        label: what the table prints.
        argv: the command (may contain :data:`RUN_DIR`); ``None`` when the row is not applicable.
        reference: key of the row (same section) whose median this row's median is divided by.
        runs: timed runs wanted.
        note: why the row is n/a, or how it is measured.
        warmup: the untimed command run first (default: ``argv``); fills caches and bytecode.
        shared_dir: run every repetition in one directory (the warm-cache row) instead of a fresh one.
        ok_codes: exit codes that count as a successful run.
        samples: the timed runs; error: why the row stopped (a failed or timed-out run);
        extra: more facts for the JSON (``libcst_imported``, ``budget_cut``).
    """

    section: str
    key: str
    label: str
    argv: list[str] | None
    reference: str | None = None
    runs: int = 3
    note: str = ""
    warmup: list[str] | None = None
    shared_dir: bool = False
    ok_codes: frozenset[int] = LINTER_OK
    samples: list[Sample] = field(default_factory=list)
    error: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def measured(self) -> bool:
        """True when the row ran at least once and never failed."""
        return self.argv is not None and self.error is None and bool(self.samples)

    @property
    def median_wall(self) -> float | None:
        """Median wall seconds (``None`` unless measured); likewise ``median_cpu`` and ``max_rss_mb``."""
        return statistics.median(s.wall for s in self.samples) if self.measured else None

    @property
    def median_cpu(self) -> float | None:
        return statistics.median(s.cpu for s in self.samples) if self.measured else None

    @property
    def max_rss_mb(self) -> float | None:
        return max(s.max_rss_kib for s in self.samples) / 1024 if self.measured else None


# --------------------------------------------------------------------------- running commands


class Runner:
    """Runs commands as whole processes in throw-away directories and measures them."""

    def __init__(self, workdir: Path, env: dict[str, str], timeout: float) -> None:
        self.workdir = workdir
        self.env = env
        self.timeout = timeout

    def fresh_dir(self) -> Path:
        """A new empty directory under the work directory (cwd of a run, home of its caches)."""
        (self.workdir / "runs").mkdir(exist_ok=True)
        return Path(tempfile.mkdtemp(dir=self.workdir / "runs"))

    def run(self, argv: Sequence[str], run_dir: Path | None = None) -> tuple[Sample, str]:
        """Run ``argv`` once in ``run_dir`` (a fresh directory if ``None``); return the sample and stderr's tail.

        ``XDG_CACHE_HOME`` points into the run directory, so a cache the tool keeps under the
        user's cache folder starts as empty as one it keeps under the working directory.
        """
        fresh = run_dir is None
        run_dir = self.fresh_dir() if fresh else run_dir
        env = dict(self.env, XDG_CACHE_HOME=str(run_dir / ".xdg-cache"))
        command = [part.replace(RUN_DIR, str(run_dir)) for part in argv]
        stdout_path, stderr_path = run_dir / ".bench-stdout", run_dir / ".bench-stderr"
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            start = time.perf_counter()
            process = subprocess.Popen(command, cwd=run_dir, env=env, stdin=subprocess.DEVNULL,
                                       stdout=out, stderr=err, start_new_session=True)
            timer = threading.Timer(self.timeout, _kill_group, (process.pid,))
            timer.start()
            try:
                _, status, usage = os.wait4(process.pid, 0)
            except BaseException:  # Ctrl-C reaches only us: the child runs in its own session
                _kill_group(process.pid)
                os.waitpid(process.pid, 0)
                raise
            finally:
                timer.cancel()
            wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        with open(stdout_path, "rb") as out:
            lines = sum(1 for _ in out)
        tail = stderr_path.read_text(errors="replace")[-2000:]
        if fresh:
            shutil.rmtree(run_dir, ignore_errors=True)
        return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, process.returncode, lines), tail

    def output(self, argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` untimed in a fresh directory and capture its output (help texts, versions)."""
        run_dir = self.fresh_dir()
        try:
            return subprocess.run(argv, cwd=run_dir, env=self.env, capture_output=True, text=True,
                                  timeout=self.timeout, check=False)
        finally:
            shutil.rmtree(run_dir, ignore_errors=True)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# --------------------------------------------------------------------------- tools and features


@dataclass(frozen=True)
class Features:
    """What the installed ``asynccfg-lint`` supports, read from its ``--help`` texts."""

    check_jobs: bool
    fix_jobs: bool
    cache_dir: bool
    no_cache: bool
    clean: bool

    @property
    def cache(self) -> bool:
        """True when ``check`` keeps a result cache (any cache option or a ``clean`` command)."""
        return self.cache_dir or self.no_cache or self.clean


@dataclass(frozen=True)
class Tools:
    """Executables of the project's environment and of the benchmark venv (``None``: not available)."""

    python: str
    lint: str
    flake8: str
    ruff: str | None
    torchfix: str | None
    py_spy: str | None
    features: Features

    def check(self, paths: Iterable[str], jobs: int | None = None) -> list[str]:
        """``asynccfg-lint check`` of ``paths``; ``-j`` only when given and supported; cache in the run dir."""
        argv = [self.lint, "check"]
        if jobs is not None and self.features.check_jobs:
            argv += ["-j", str(jobs)]
        if self.features.cache_dir:
            argv += ["--cache-dir", f"{RUN_DIR}/.asynccfg_lint_cache"]
        return argv + list(paths)

    def flake8_cmd(self, paths: Iterable[str], plugin: bool) -> list[str]:
        """flake8 with :data:`FLAKE8_ARGS`, with our plugin or with it left out (see flake8_without_plugin.py)."""
        if plugin:
            return [self.flake8, *FLAKE8_ARGS, *paths]
        return [self.python, str(FLAKE8_WITHOUT_PLUGIN), PLUGIN_DISTRIBUTION, "--", *FLAKE8_ARGS, *paths]

    def floor(self, file_list: Path) -> list[str]:
        """The libcst floor over the files named in ``file_list``."""
        return [self.python, str(FLOOR), str(file_list)]


def _has_option(help_text: str, *options: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text) for option in options)


def detect_features(runner: Runner, lint: str) -> Features:
    """Read ``asynccfg-lint --help``, ``check --help`` and ``fix --help`` for the options the rows use."""
    top = runner.output([lint, "--help"]).stdout
    check = runner.output([lint, "check", "--help"]).stdout
    fix = runner.output([lint, "fix", "--help"]).stdout
    if "usage" not in check:
        raise SystemExit(f"error: `{lint} check --help` printed no usage; is asynccfg-lint installed?")
    subcommands = re.search(r"\{([\w,-]+)\}", top)
    return Features(
        check_jobs=_has_option(check, "-j", "--jobs"),
        fix_jobs=_has_option(fix, "-j", "--jobs"),
        cache_dir=_has_option(check, "--cache-dir"),
        no_cache=_has_option(check, "--no-cache"),
        clean=bool(subcommands and "clean" in subcommands.group(1).split(",")),
    )


def ensure_bench_venv(venv: Path, python: str, install: bool) -> dict[str, str | None]:
    """Return the paths of ruff, torchfix and py-spy in ``venv``, creating it and installing them if needed."""
    binaries = {name: venv / "bin" / name for name in ("ruff", "torchfix", "py-spy")}
    if install and not all(path.exists() for path in binaries.values()):
        print(f"setting up the benchmark venv {venv} ({', '.join(BENCH_PACKAGES)}) ...", flush=True)
        if not (venv / "bin" / "python").exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True)
        result = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *BENCH_PACKAGES],
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            print(f"warning: pip install into {venv} failed; peer rows will be n/a\n{result.stderr[-1000:]}")
    return {name: str(path) if path.exists() else None for name, path in binaries.items()}


def find_tools(args: argparse.Namespace, runner: Runner) -> Tools:
    """Locate every executable the rows need (the project's next to ``--python``)."""
    bindir = Path(args.python).parent
    lint, flake8 = bindir / "asynccfg-lint", bindir / "flake8"
    for path in (lint, flake8):
        if not path.exists():
            raise SystemExit(f"error: {path} not found: pass --python of the venv asynccfg-lint is installed in")
    bench = ensure_bench_venv(args.bench_venv, args.python, install=not args.no_install)
    return Tools(python=args.python, lint=str(lint), flake8=str(flake8), ruff=bench["ruff"],
                 torchfix=bench["torchfix"], py_spy=bench["py-spy"], features=detect_features(runner, str(lint)))


def versions(runner: Runner, tools: Tools) -> dict[str, str]:
    """Version strings of everything measured, and the commit of the asynccfg-lint source (``+`` if modified)."""
    source = ("import asynccfg_lint, os, subprocess as s; d = os.path.dirname(asynccfg_lint.__file__); "
              "git = lambda *a: s.run(['git', '-C', d, *a], capture_output=True, text=True).stdout.strip(); "
              "print(git('rev-parse', '--short', 'HEAD') + ('+' if git('status', '--porcelain', '--', '.') else ''))")
    commands = {
        "python": [tools.python, "-c", "import sys; print(sys.version.split()[0])"],
        "libcst": [tools.python, "-c", "import importlib.metadata as m; print(m.version('libcst'))"],
        "asynccfg-lint": [tools.lint, "--version"],
        "asynccfg-lint source": [tools.python, "-c", source],
        "flake8": [tools.flake8, "--version"],
        "ruff": [tools.ruff, "--version"] if tools.ruff else None,
        "torchfix": [tools.torchfix, "--version"] if tools.torchfix else None,
    }
    found = {}
    for name, argv in commands.items():
        if argv is None:
            found[name] = "not installed"
            continue
        result = runner.output(argv)
        found[name] = " ".join((result.stdout or result.stderr).split()) or "?"
    return found


# --------------------------------------------------------------------------- trees


@dataclass(frozen=True)
class Tree:
    """A directory under test and the file list the floor parses."""

    root: Path
    file_list: Path
    files: int
    lines: int


def python_files(root: Path) -> list[Path]:
    """``*.py`` and ``*.pyi`` under ``root`` in a stable order, skipping ``__pycache__`` (as the checker walks)."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        found += [Path(folder) / name for name in sorted(names) if name.endswith((".py", ".pyi"))]
    return found


def describe_tree(root: Path, list_path: Path) -> Tree:
    """Write the file list of ``root`` to ``list_path`` and count its lines (this also warms the page cache)."""
    files = python_files(root)
    list_path.write_text("".join(f"{path}\n" for path in files), encoding="utf-8")
    lines = sum(path.read_bytes().count(b"\n") for path in files)
    return Tree(root, list_path, len(files), lines)


def default_sparse_tree(python: str) -> Path:
    """The installed ``jax`` package directory of ``python``'s environment."""
    result = subprocess.run([python, "-c", "import os, jax; print(os.path.dirname(jax.__file__))"],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit("error: jax is not importable with --python; pass --sparse-tree DIR")
    return Path(result.stdout.strip())


# --------------------------------------------------------------------------- rows


def not_available(section: str, key: str, label: str, reference: str | None, why: str) -> Row:
    """A row that cannot be measured here; it prints as n/a with ``why``."""
    return Row(section, key, label, None, reference, runs=0, note=why)


def floor_row(section: str, tools: Tools, tree: Tree, warm_file: str, runs: int) -> Row:
    """The libcst floor over ``tree`` (warmed up on ``warm_file``)."""
    return Row(section, "floor", "libcst.parse_module floor", tools.floor(tree.file_list), runs=runs,
               warmup=tools.floor(_one_file_list(tree, warm_file)))


def check_rows(section: str, tools: Tools, root: str, warm_file: str, runs: int) -> list[Row]:
    """``check -j 1`` (vs. the floor) and ``check -j 2`` (vs. ``-j 1``; n/a without ``-j``), cold."""
    rows = [Row(section, "check_j1", "check -j 1, cold", tools.check([root], jobs=1), "floor", runs,
                note="" if tools.features.check_jobs else "check has no -j: one process",
                warmup=tools.check([warm_file], jobs=1))]
    if tools.features.check_jobs:
        rows.append(Row(section, "check_j2", "check -j 2, cold", tools.check([root], jobs=2), "check_j1", runs,
                        warmup=tools.check([warm_file], jobs=2)))
    else:
        rows.append(not_available(section, "check_j2", "check -j 2, cold", "check_j1", "check has no -j/--jobs option"))
    return rows


def peer_row(key: str, label: str, executable: str | None, arguments: list[str], reference: str | None,
             root: str, warm_file: str, runs: int) -> Row:
    """A peer tool's row over the sparse tree (n/a when the bench venv lacks it)."""
    if executable is None:
        return not_available("sparse", key, label, reference, f"{key} not installed in the bench venv")
    return Row("sparse", key, label, [executable, *arguments, root], reference, runs,
               warmup=[executable, *arguments, warm_file])


def sparse_rows(tools: Tools, tree: Tree, warm_file: str, runs: int) -> list[Row]:
    """Rows of the sparse tree (the installed jax package)."""
    root = str(tree.root)
    if tools.features.cache:
        warm = Row("sparse", "check_warm", "check -j 1, warm cache", tools.check([root], jobs=1), "check_j1", runs,
                   note="cache filled by the untimed first run", warmup=tools.check([root], jobs=1), shared_dir=True)
    else:
        warm = not_available("sparse", "check_warm", "check -j 1, warm cache", "check_j1",
                             "check has no cache (no --cache-dir/--no-cache option, no clean command)")
    return [
        floor_row("sparse", tools, tree, warm_file, runs),
        *check_rows("sparse", tools, root, warm_file, runs),
        warm,
        Row("sparse", "flake8_without", "flake8 --select ACC, plugin left out",
            tools.flake8_cmd([root], plugin=False), runs=runs, warmup=tools.flake8_cmd([warm_file], plugin=False)),
        Row("sparse", "flake8_with", "flake8 --select ACC, with plugin", tools.flake8_cmd([root], plugin=True),
            "flake8_without", runs, warmup=tools.flake8_cmd([warm_file], plugin=True)),
        peer_row("ruff", "ruff check --no-cache", tools.ruff, ["check", "--no-cache"], None, root, warm_file, runs),
        peer_row("torchfix", "torchfix (TorchFix CLI, -j = CPUs)", tools.torchfix, [], "ruff", root, warm_file, runs),
    ]


def dense_rows(tools: Tools, tree: Tree, warm_file: str, runs: int) -> list[Row]:
    """Rows of the generated dense tree (every module calls the sink)."""
    root = str(tree.root)
    fix = [tools.lint, "fix", "--diff", *(["-j", "2"] if tools.features.fix_jobs else [])]
    return [
        floor_row("dense", tools, tree, warm_file, runs),
        *check_rows("dense", tools, root, warm_file, runs),
        Row("dense", "fix_diff_j2", "fix --diff -j 2", [*fix, root], "floor", runs,
            note="" if tools.features.fix_jobs else "fix has no -j: one process", warmup=[*fix, warm_file]),
    ]


def startup_rows(tools: Tools, sink_free: str, runs: int) -> list[Row]:
    """Rows of the start-up section (one sink-free file)."""
    return [
        Row("startup", "python", "python -c pass", [tools.python, "-c", "pass"], runs=runs, ok_codes=frozenset({0})),
        Row("startup", "check", "check one sink-free file", tools.check([sink_free]), "python", runs),
        Row("startup", "flake8_with", "flake8 --select ACC one file, with plugin",
            tools.flake8_cmd([sink_free], plugin=True), "python", runs),
        Row("startup", "flake8_without", "flake8 --select ACC one file, plugin left out",
            tools.flake8_cmd([sink_free], plugin=False), "python", runs),
    ]


def onefile_rows(tools: Tools, package: Path, outside: Path, runs: int) -> list[Row]:
    """Rows of what a user waits for on one file of a big package (a copy of the sparse tree, ``package``).

    ``check`` of the sink file after an edit with the cache warm for the rest of the package
    (pre-commit), ``check`` of a sink-free file of the package cold and warm against the same file
    outside any package, flake8 on each file with and without the plugin (on the sink-free file also
    a second run, over the cache its first run filled), and the language server opening
    and editing the sink file (``lsp_timing.py``; its open and edit CPU are read from its output).
    """
    sink, sink_free = package / SINK_FILE, package / SINK_FREE_FILE
    floor_list = package.parent / "sink_file.txt"
    floor_list.write_text(f"{sink}\n", encoding="utf-8")
    cache = f"{RUN_DIR}/.asynccfg_lint_cache"
    # the edited row works on a copy of its own, so the warm rows' package stays as their cache saw it
    edited_package = package.parent / "edited" / package.name
    shutil.copytree(package, edited_package)
    edited_sink = edited_package / SINK_FILE
    edited = ["sh", "-c", f'echo "# edited by run $$" >> "$0" && exec "$@"', str(edited_sink),
              tools.lint, "check", "-j", "1", "--cache-dir", cache, str(edited_sink)]
    rows = [
        Row("onefile", "floor", "libcst.parse_module floor, the sink file", tools.floor(floor_list), runs=runs),
        Row("onefile", "check_changed", "check the sink file after an edit, rest cached", edited, "floor", runs,
            note="cache filled by the untimed first run over the package", shared_dir=True,
            warmup=[tools.lint, "check", "-j", "1", "--cache-dir", cache, str(edited_package)]),
        Row("onefile", "check_outside", "check the sink-free file outside any package",
            tools.check([str(outside)], jobs=1), runs=runs),
        Row("onefile", "check_sink_free", "check the sink-free file of the package, cold",
            tools.check([str(sink_free)], jobs=1), "check_outside", runs),
        Row("onefile", "check_sink_free_warm", "check the sink-free file of the package, warm",
            tools.check([str(sink_free)], jobs=1), "check_outside", runs, shared_dir=True,
            note="cache filled by the untimed first run over the package",
            warmup=tools.check([str(package)], jobs=1)),
        Row("onefile", "flake8_sink_free_without", "flake8 the sink-free file, plugin left out",
            tools.flake8_cmd([str(sink_free)], plugin=False), runs=runs),
        Row("onefile", "flake8_sink_free_with", "flake8 the sink-free file, with plugin",
            tools.flake8_cmd([str(sink_free)], plugin=True), "flake8_sink_free_without", runs),
        Row("onefile", "flake8_sink_free_warm", "flake8 the sink-free file, with plugin, warm",
            tools.flake8_cmd([str(sink_free)], plugin=True), "flake8_sink_free_without", runs, shared_dir=True,
            note="the plugin's default cache (the run directory) filled by the untimed first run"),
        Row("onefile", "flake8_sink_without", "flake8 the sink file, plugin left out",
            tools.flake8_cmd([str(sink)], plugin=False), runs=runs),
        Row("onefile", "flake8_sink_with", "flake8 the sink file, with plugin",
            tools.flake8_cmd([str(sink)], plugin=True), "flake8_sink_without", runs),
        Row("onefile", "lsp", "language server: open the sink file, 3 edits", lsp_command(tools, sink), runs=runs,
            ok_codes=frozenset({0}), note="open/edit CPU: see the targets"),
    ]
    return rows


def lsp_command(tools: Tools, file: Path, edits: int = 3) -> list[str]:
    """``lsp_timing.py`` on ``file`` with the server of the project's environment."""
    return [tools.python, str(LSP_TIMING), "--edits", str(edits), "--server", f"{tools.lint} lsp", str(file)]


#: servers run over the filled cache for the language server's figures (each figure is their median)
LSP_WARM_RUNS = 3


def lsp_facts(runner: Runner, argv: list[str]) -> dict:
    """Run ``lsp_timing.py`` (``argv``) again, untimed: once to fill the cache, :data:`LSP_WARM_RUNS` times
    over it, and once opening the file with an unsaved line more; keep the medians of the warm runs' open
    CPU, edit CPU (each run's median edit) and bare parse, and the unsaved open's CPU. The target asks for
    the package's other modules from memory or the cache: the timed runs each had a cache home of their own
    (``XDG_CACHE_HOME``, where the key that signs stored parses is), so the first of these, under the user's
    home, stores the document's outcome and the parses of the modules the check looks up (``pxla.py``,
    ``util.py``, ``tree_util.py``); the warm runs read them, as a server started again does (the unchanged
    file's diagnostics come from its stored outcome; the first edit then looks those modules up); the
    last must analyse the document. One run's figures moved by a third between identical runs."""
    runner.output(argv)
    runs = [runner.output(argv) for _ in range(LSP_WARM_RUNS)]
    unsaved = runner.output([*argv[:-1], "--unsaved", argv[-1]])
    try:
        warm = [json.loads(run.stdout.strip().splitlines()[-1]) for run in runs]
        unsaved_facts = json.loads(unsaved.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"lsp_error": "".join(run.stderr for run in [*runs, unsaved]).strip()[-500:]}
    edits = [statistics.median(edit["cpu_s"] for edit in facts["edits"]) for facts in warm if facts["edits"]]
    return {"lsp_open_cpu_s": statistics.median(facts["open_cpu_s"] for facts in warm),
            "lsp_edit_cpu_s": statistics.median(edits) if edits else None,
            "lsp_parse_cpu_s": statistics.median(facts["parse_cpu_s"] for facts in warm),
            "lsp_open_wall_s": statistics.median(facts["open_wall_s"] for facts in warm),
            "lsp_open_unsaved_cpu_s": unsaved_facts["open_cpu_s"]}


def scaling_rows(tools: Tools, packages: dict[int, Path], modules: dict[int, Path], runs: int) -> list[Row]:
    """``check -j 1`` of the wrapper packages (``dense_tree.write_wrapper_package``), cold and warm, and of the
    single modules of many rules (``dense_tree.write_rules_module``), cold, with ACC201 on (every rule's
    parameters are then asked about)."""
    rows = []
    fewest = min(modules)
    for size, module in sorted(modules.items()):
        rows.append(Row("scaling", f"rules_{size}", f"check -j 1 --extend-select ACC201, one module of {size} rules",
                        [*tools.check([str(module)], jobs=1), "--extend-select", "ACC201"],
                        None if size == fewest else f"rules_{fewest}", runs=1))
    small = min(packages)
    for size, package in sorted(packages.items()):
        reference = None if size == small else f"cold_{small}"
        rows.append(Row("scaling", f"cold_{size}", f"check -j 1, {size} wrapper modules, cold",
                        tools.check([str(package)], jobs=1), reference, runs=1,
                        warmup=tools.check([str(package / "mod_0000.py")], jobs=1)))
        rows.append(Row("scaling", f"warm_{size}", f"check -j 1, {size} wrapper modules, warm cache",
                        tools.check([str(package)], jobs=1), None if size == small else f"warm_{small}", runs,
                        note="cache filled by the untimed first run", shared_dir=True))
    return rows


def _one_file_list(tree: Tree, path: str) -> Path:
    """A file list naming only ``path`` (the floor's warm-up), next to ``tree``'s list."""
    single = tree.file_list.with_name(tree.file_list.stem + ".warmup.txt")
    single.write_text(path + "\n", encoding="utf-8")
    return single


# --------------------------------------------------------------------------- measuring


def imports_libcst(runner: Runner, argv: list[str]) -> dict:
    """Run ``argv`` (a ``python -m ...`` command) under ``-X importtime``: is libcst imported, at what cost?"""
    result = runner.output([argv[0], "-X", "importtime", *argv[1:]])
    for line in result.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == "libcst":
            return {"libcst_imported": True, "libcst_import_ms": round(int(parts[1].split()[0]) / 1000, 1)}
    return {"libcst_imported": False, "libcst_import_ms": 0.0}


def _failure(sample: Sample, tail: str, timeout: float) -> str:
    reason = f"timed out after {timeout:g} s" if sample.wall >= timeout else f"exited {sample.returncode}"
    return f"{reason}: {tail.strip()[-500:]}"


def measure(rows: list[Row], runner: Runner, budget: float, started: float) -> None:
    """Warm every row up once, then time the rows round-robin until each has its runs.

    Every row gets at least one timed run; a further round of a row is skipped when it would
    end past ``budget`` seconds after ``started`` (0: no budget), judged by its slowest run so far,
    unless that run took under :data:`CHEAP_RUN_S` (the start-up rows cost nothing).
    """
    active = [row for row in rows if row.argv is not None]
    shared = {}
    for row in active:
        print(f"  warm-up  {row.section:8} {row.label}", flush=True)
        shared[row.key, row.section] = runner.fresh_dir() if row.shared_dir else None
        sample, tail = runner.run(row.warmup or row.argv, shared[row.key, row.section])
        if sample.returncode not in row.ok_codes:
            row.error = "warm-up " + _failure(sample, tail, runner.timeout)
            print(f"    error: {row.error}")
    for round_number in range(max((row.runs for row in active), default=0)):
        for row in active:
            if row.error is not None or round_number >= row.runs:
                continue
            slowest = max((sample.wall for sample in row.samples), default=0.0)
            if budget and slowest >= CHEAP_RUN_S and time.monotonic() - started + slowest > budget:
                row.extra["budget_cut"] = True
                continue
            sample, tail = runner.run(row.argv, shared[row.key, row.section])
            if sample.returncode not in row.ok_codes:
                row.error = _failure(sample, tail, runner.timeout)
                print(f"    error: {row.section} {row.label}: {row.error}")
                continue
            row.samples.append(sample)
            print(f"  run {round_number + 1:<4} {row.section:8} {row.label:48} {sample.wall:8.3f} s "
                  f"{sample.max_rss_kib / 1024:7.1f} MB", flush=True)


# --------------------------------------------------------------------------- targets


def find_row(rows: list[Row], section: str, key: str) -> Row | None:
    """The row ``key`` of ``section``, if that section was run."""
    return next((row for row in rows if row.section == section and row.key == key), None)


def median_wall(rows: list[Row], section: str, key: str, of: str = "median_wall") -> float | None:
    """The median wall time (or the median ``of`` another measure) of a row, if it was measured."""
    row = find_row(rows, section, key)
    return getattr(row, of) if row is not None else None


def ratio(rows: list[Row], section: str, key: str, reference: str, of: str = "median_wall") -> float | None:
    """Median wall time (or ``of``: ``median_cpu``) of row ``key`` over that of ``reference`` in the same section."""
    numerator, denominator = median_wall(rows, section, key, of), median_wall(rows, section, reference, of)
    return numerator / denominator if numerator is not None and denominator else None


def _times(value: float) -> str:
    return f"{value:.3g}x"


def _lsp_ratio(rows: list[Row], measure: str) -> float | None:
    """The language server's open or edit CPU over a bare in-process parse of the file (``lsp_timing.py``)."""
    row = find_row(rows, "onefile", "lsp")
    facts = row.extra if row is not None else {}
    value, parse = facts.get(measure), facts.get("lsp_parse_cpu_s")
    return value / parse if value is not None and parse else None


def evaluate_targets(rows: list[Row]) -> list[dict]:
    """The issue's targets, each with the measured figure and pass / FAIL / n/a (a row not measured)."""
    sparse_cold = "check_j2" if median_wall(rows, "sparse", "check_j2") is not None else "check_j1"
    startup = find_row(rows, "startup", "check")
    libcst_imported = startup.extra.get("libcst_imported", True) if startup else True
    memory_rows = [row for row in rows if row.section in ("sparse", "dense") and row.measured
                   and row.key.startswith(("check", "fix"))]
    peak = max((row.max_rss_mb for row in memory_rows), default=None)
    cpu_ratios = {
        "sparse tree, check -j 1 cold, vs. the libcst floor": ratio(rows, "sparse", "check_j1", "floor", "median_cpu"),
        "dense tree, check -j 1 vs. the floor": ratio(rows, "dense", "check_j1", "floor", "median_cpu"),
        "flake8 over the sparse tree, with the plugin vs. without":
            ratio(rows, "sparse", "flake8_with", "flake8_without", "median_cpu"),
    }
    checks: list[tuple[str, str, float | None, Callable[[float], bool], Callable[[float], str]]] = [
        ("sparse tree, check -j 1 cold, vs. the libcst floor", "<= 0.05x",
         ratio(rows, "sparse", "check_j1", "floor"), lambda v: v <= 0.05, _times),
        (f"sparse tree, check cold ({sparse_cold.replace('check_j', '-j ')}) vs. ruff check --no-cache", "<= 3x",
         ratio(rows, "sparse", sparse_cold, "ruff"), lambda v: v <= 3, _times),
        ("dense tree, check -j 1 vs. the floor", "<= 1.5x",
         ratio(rows, "dense", "check_j1", "floor"), lambda v: v <= 1.5, _times),
        ("dense tree, -j 2 vs. -j 1 (speed-up)", ">= 1.7x faster",
         ratio(rows, "dense", "check_j1", "check_j2"), lambda v: v >= 1.7, lambda v: f"{v:.3g}x faster"),
        ("warm cache vs. cold (sparse, -j 1)", "<= 0.2x",
         ratio(rows, "sparse", "check_warm", "check_j1"), lambda v: v <= 0.2, _times),
        ("flake8 over the sparse tree, with the plugin vs. without", "<= 1.10x",
         ratio(rows, "sparse", "flake8_with", "flake8_without"), lambda v: v <= 1.10, _times),
        ("start-up: check of one sink-free file", "<= 0.25 s wall, libcst not imported",
         median_wall(rows, "startup", "check"), lambda v: v <= 0.25 and not libcst_imported,
         lambda v: f"{v:.3f} s, libcst {'imported' if libcst_imported else 'not imported'}"),
        ("peak memory, sparse and dense tree (check, fix)", "<= 300 MB per process", peak, lambda v: v <= 300,
         lambda v: f"{v:.0f} MB"),
        ("one changed file in a big package, rest cached (cpu) vs. a bare parse", "<= 2x",
         ratio(rows, "onefile", "check_changed", "floor", "median_cpu"), lambda v: v <= 2, _times),
        ("sink-free file of the package vs. outside any package (check, cold, cpu)", "<= 1.10x",
         ratio(rows, "onefile", "check_sink_free", "check_outside", "median_cpu"), lambda v: v <= 1.10, _times),
        ("flake8 on the sink-free file, with the plugin vs. without (cpu)", "<= 1.10x",
         ratio(rows, "onefile", "flake8_sink_free_with", "flake8_sink_free_without", "median_cpu"),
         lambda v: v <= 1.10, _times),
        ("sink-free file of the package vs. outside any package (check, warm cache, cpu)", "<= 1.10x",
         ratio(rows, "onefile", "check_sink_free_warm", "check_outside", "median_cpu"), lambda v: v <= 1.10, _times),
        ("flake8 on the sink-free file, warm cache, with the plugin vs. without (cpu)", "<= 1.10x",
         ratio(rows, "onefile", "flake8_sink_free_warm", "flake8_sink_free_without", "median_cpu"),
         lambda v: v <= 1.10, _times),
        ("flake8 on the sink file, with the plugin vs. without (cpu)", "<= 1.5x",
         ratio(rows, "onefile", "flake8_sink_with", "flake8_sink_without", "median_cpu"), lambda v: v <= 1.5, _times),
        ("language server: open the sink file (cpu) vs. a bare parse in-process", "<= 2x",
         _lsp_ratio(rows, "lsp_open_cpu_s"), lambda v: v <= 2, _times),
        ("language server: an edit of it (cpu) vs. a bare parse in-process", "<= 1.5x",
         _lsp_ratio(rows, "lsp_edit_cpu_s"), lambda v: v <= 1.5, _times),
        (f"scaling, cold: {SCALING_SIZES[1]} vs. {SCALING_SIZES[0]} wrapper modules (cpu)", "<= 4.6x",
         ratio(rows, "scaling", f"cold_{SCALING_SIZES[1]}", f"cold_{SCALING_SIZES[0]}", "median_cpu"),
         lambda v: v <= 4.6, _times),
        (f"scaling, warm: {SCALING_SIZES[1]} vs. {SCALING_SIZES[0]} wrapper modules (cpu)", "<= 4.6x",
         ratio(rows, "scaling", f"warm_{SCALING_SIZES[1]}", f"warm_{SCALING_SIZES[0]}", "median_cpu"),
         lambda v: v <= 4.6, _times),
        (f"scaling within one module: {RULES_SIZES[1]} vs. {RULES_SIZES[0]} rules (cpu)", "<= 4.6x",
         ratio(rows, "scaling", f"rules_{RULES_SIZES[1]}", f"rules_{RULES_SIZES[0]}", "median_cpu"),
         lambda v: v <= 4.6, _times),
        (f"scaling, warm run over {SCALING_SIZES[1]} modules", "< 1 s wall",
         median_wall(rows, "scaling", f"warm_{SCALING_SIZES[1]}"), lambda v: v < 1, lambda v: f"{v:.3f} s"),
    ]
    targets = []
    for name, goal, value, ok, show in checks:
        cpu = cpu_ratios.get(name)
        shown = "n/a" if value is None else show(value) + (f" (cpu {cpu:.3g}x)" if cpu is not None else "")
        targets.append({"measure": name, "target": goal, "measured": None if value is None else round(value, 4),
                        "cpu_ratio": None if cpu is None else round(cpu, 4), "shown": shown,
                        "result": "n/a" if value is None else "pass" if ok(value) else "FAIL"})
    return targets


# --------------------------------------------------------------------------- profile


#: profile phases: the first whose marker occurs in a stack takes the sample
PHASES = (
    ("module imports", ("_find_and_load",)),
    ("libcst parse (parse_module)", ("parse_module", "libcst/_parser/")),
    ("libcst metadata (resolve_many)", ("resolve_many", "MetadataWrapper")),
    ("analysis (sinks, tracer, classifier)", ("asynccfg_lint/analysis/sinks.py", "asynccfg_lint/analysis/tracer.py",
                                              "asynccfg_lint/analysis/classifier.py", "asynccfg_lint/analysis/resolution.py")),
    ("other (walk, read, prefilter, output)", ("",)),
)
METADATA_PHASE = PHASES[2][0]
#: a metadata sample belongs to the innermost provider module on its stack (these two are plumbing)
_PROVIDER = re.compile(r"libcst/metadata/(\w+)\.py")
_NOT_PROVIDERS = frozenset({"wrapper", "base_provider"})


def _metadata_owner(frames: list[str]) -> str:
    """Which metadata provider a sample inside ``resolve_many`` is spent in (or the shared batched traversal)."""
    owners = [match.group(1) for match in map(_PROVIDER.search, frames)
              if match and match.group(1) not in _NOT_PROVIDERS]
    return owners[-1] if owners else "batched traversal (node visiting shared by the batchable providers)"


def profile_check(runner: Runner, tools: Tools, tree: Tree, out_path: Path) -> dict:
    """Sample ``check -j 1`` over ``tree`` with py-spy; return the phase shares and top functions.

    The raw collapsed stacks are written to ``out_path`` (for flamegraph.pl or speedscope).
    """
    if tools.py_spy is None:
        return {"error": "py-spy not installed"}
    argv = [tools.py_spy, "record", "--rate", "250", "--format", "raw", "--output", str(out_path), "--",
            *tools.check([str(tree.root)], jobs=1)]
    run_dir = runner.fresh_dir()
    result = subprocess.run([part.replace(RUN_DIR, str(run_dir)) for part in argv], cwd=run_dir, env=runner.env,
                            capture_output=True, text=True, check=False)
    if not out_path.exists():
        return {"error": f"py-spy failed: {result.stderr.strip()[-500:]}"}
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    phases: collections.Counter[str] = collections.Counter()
    providers: collections.Counter[str] = collections.Counter()
    total = 0
    for line in out_path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        count = int(count_text)
        total += count
        frames = [re.sub(r":\d+\)$", ")", frame) for frame in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] += count
        own[frames[-1]] += count
        phase = next(name for name, markers in PHASES if any(marker in stack for marker in markers))
        phases[phase] += count
        if phase == METADATA_PHASE:
            providers[_metadata_owner(frames)] += count

    def share(count: int) -> float:
        return round(100 * count / total, 1)

    return {
        "command": "check -j 1 over the sparse tree",
        "samples": total,
        "collapsed_stacks": str(out_path),
        "phases_percent": {name: share(phases[name]) for name, _ in PHASES if phases[name]},
        "metadata_providers_percent": {name: share(n) for name, n in providers.most_common()},
        "top_inclusive_percent": [(frame, share(n)) for frame, n in inclusive.most_common(40)
                                  if n < 0.97 * total][:15],
        "top_self_percent": [(frame, share(n)) for frame, n in own.most_common(15)],
    }


# --------------------------------------------------------------------------- output


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def print_table(rows: list[Row], trees: dict[str, Tree]) -> None:
    """Print the rows grouped by section, then nothing else (targets print separately)."""
    header = f"{'row':48} {'median s':>9} {'cpu s':>8} {'RSS MB':>7} {'n':>2} {'ratio':>8} {'cpu ratio':>9}  reference"
    for section in SECTIONS:
        section_rows = [row for row in rows if row.section == section]
        if not section_rows:
            continue
        tree = trees.get(section)
        about = f": {tree.root} ({tree.files} files, {tree.lines} lines)" if tree else ""
        print(f"\n[{section}{about}]\n{header}\n{'-' * len(header)}")
        for row in section_rows:
            reference = find_row(rows, section, row.reference) if row.reference else None
            shown = [f"{value:.3f}x" if value is not None else "-" for value in (
                ratio(rows, section, row.key, row.reference, of) if reference else None
                for of in ("median_wall", "median_cpu"))]
            notes = [f"error: {row.error}" if row.error else "" if row.measured else f"n/a: {row.note}"]
            notes += [row.note if row.measured else "",
                      "fewer runs: time budget" if row.extra.get("budget_cut") else ""]
            status = "".join(f"  [{note}]" for note in notes if note)
            print(f"{row.label:48} {_fmt(row.median_wall):>9} {_fmt(row.median_cpu, 2):>8} "
                  f"{_fmt(row.max_rss_mb, 1):>7} {len(row.samples):>2} {shown[0]:>8} {shown[1]:>9}  "
                  f"{reference.label if reference else ''}{status}")
            if "lsp_open_cpu_s" in row.extra:
                extra = row.extra
                print(f"{'':4}server CPU: open {extra['lsp_open_cpu_s']:.2f} s, an edit {extra['lsp_edit_cpu_s']:.2f} s, "
                      f"open with an unsaved line {extra.get('lsp_open_unsaved_cpu_s', float('nan')):.2f} s; "
                      f"a bare parse of the file {extra['lsp_parse_cpu_s']:.2f} s")
            if "libcst_imported" in row.extra:
                imported = row.extra["libcst_imported"]
                cost = f" ({row.extra['libcst_import_ms']} ms cumulative import)" if imported else ""
                print(f"{'':4}libcst imported: {'yes' if imported else 'no'}{cost}")


def print_targets(targets: list[dict]) -> None:
    """Print the targets table with pass / FAIL / n/a."""
    print(f"\n{'target':58} {'goal':36} {'measured':34} result")
    for target in targets:
        print(f"{target['measure']:58} {target['target']:36} {target['shown']:34} {target['result']}")


def print_profile(profile: dict) -> None:
    """Print the profile's headline: where ``check`` spends its time."""
    if "error" in profile:
        print(f"\nprofile: {profile['error']}")
        return
    print(f"\nprofile ({profile['command']}, {profile['samples']} py-spy samples at 250 Hz):")
    for name, percent in profile["phases_percent"].items():
        print(f"  {percent:5.1f}%  {name}")
        if name == METADATA_PHASE:
            for provider, share in profile["metadata_providers_percent"].items():
                print(f"  {'':7}{share:5.1f}%  {provider}")
    print("  top functions by own time:")
    for frame, percent in profile["top_self_percent"][:8]:
        print(f"  {percent:5.1f}%  {frame}")


def markdown_report(results: dict) -> str:
    """The targets, every row and the profile headline of ``results`` (the JSON data) as Markdown tables."""

    def number(value: float | None, digits: int) -> str:
        return "n/a" if value is None else f"{value:.{digits}f}"

    def times(value: float | None) -> str:
        return "" if value is None else f"{value:.3f}x"

    lines = ["| measure | target | measured | result |", "|---|---|---|---|"]
    lines += [f"| {t['measure']} | {t['target']} | {t['shown']} | {t['result']} |" for t in results["targets"]]
    lines += ["", "| section | row | median wall s | median cpu s | max RSS MB | runs | ratio (wall) | ratio (cpu) "
              "| reference | note |", "|---|---|---|---|---|---|---|---|---|---|"]
    labels = {(row["section"], row["key"]): row["label"] for row in results["rows"]}
    for row in results["rows"]:
        unsaved = row.get("lsp_open_unsaved_cpu_s")
        note = "; ".join(filter(None, [row["note"], "libcst imported" if row.get("libcst_imported") else "",
                                       "fewer runs: time budget" if row.get("budget_cut") else "",
                                       f"open with an unsaved line: {unsaved:.2f} s CPU" if unsaved is not None else ""]))
        lines.append(f"| {row['section']} | {row['label']} | {number(row['median_wall_s'], 3)} "
                     f"| {number(row['median_cpu_s'], 2)} | {number(row['max_rss_mb'], 1)} | {row['runs']} "
                     f"| {times(row['ratio'])} | {times(row['cpu_ratio'])} "
                     f"| {labels.get((row['section'], row['reference']), '')} | {note} |")
    profile = results.get("profile")
    if profile and "error" not in profile:
        lines += ["", f"py-spy, {profile['command']} ({profile['samples']} samples):", ""]
        for name, percent in profile["phases_percent"].items():
            lines.append(f"- {percent}% {name}")
            if name == METADATA_PHASE:
                providers = profile["metadata_providers_percent"]
                lines += [f"  - {share}% {provider}" for provider, share in providers.items()]
    return "\n".join(lines) + "\n"


def row_json(rows: list[Row], row: Row) -> dict:
    """One row as JSON data."""
    return {
        "section": row.section,
        "key": row.key,
        "label": row.label,
        "command": row.argv,
        "status": "error" if row.error else "ok" if row.measured else "n/a",
        "note": row.error or row.note,
        "runs": len(row.samples),
        "median_wall_s": row.median_wall,
        "median_cpu_s": row.median_cpu,
        "max_rss_mb": row.max_rss_mb,
        "wall_s": [round(s.wall, 4) for s in row.samples],
        "output_lines": row.samples[-1].output_lines if row.samples else None,
        "reference": row.reference,
        "ratio": ratio(rows, row.section, row.key, row.reference) if row.reference else None,
        "cpu_ratio": ratio(rows, row.section, row.key, row.reference, "median_cpu") if row.reference else None,
        **row.extra,
    }


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable,
                        help="python of the venv where asynccfg-lint, flake8 and jax are installed (default: this one)")
    parser.add_argument("--bench-venv", type=Path, default=Path("/tmp/benchvenv"),
                        help="venv for ruff, torchfix and py-spy, created if missing (default: /tmp/benchvenv)")
    parser.add_argument("--no-install", action="store_true", help="never create or install into --bench-venv")
    parser.add_argument("--sparse-tree", type=Path, help="sparse tree (default: the installed jax package)")
    parser.add_argument("--dense-files", type=int, default=500, help="modules in the dense tree (default: 500)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}")
    parser.add_argument("--runs", type=int, help="timed runs per row (default: 3; --quick: 1)")
    parser.add_argument("--startup-runs", type=int, help="timed runs per start-up row (default: 10; --quick: 3)")
    parser.add_argument("--quick", action="store_true", help="one timed run per row (three for start-up rows)")
    parser.add_argument("--budget", type=float, default=540,
                        help="skip a further run that would end after this many seconds; every row keeps one, "
                             "rows under 1 s a run are exempt (0: none; default: 540)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds before one run is killed (default: 900)")
    parser.add_argument("--json", type=Path, default=HERE / "results.json",
                        help="where to write the results (default: benchmarks/results.json)")
    parser.add_argument("--profile", action="store_true",
                        help="also sample check -j 1 over the sparse tree with py-spy and print where the time goes")
    parser.add_argument("--markdown", type=Path, help="also write the targets, rows and profile as Markdown tables")
    parser.add_argument("--keep-temp", action="store_true", help="keep the work directory (dense tree, file lists)")
    args = parser.parse_args(argv)
    args.runs = args.runs or (1 if args.quick else 3)
    args.startup_runs = args.startup_runs or (3 if args.quick else 10)
    args.sections = [name.strip() for name in args.sections.split(",") if name.strip()]
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    if args.dense_files < 500 and "dense" in args.sections:
        print(f"note: --dense-files {args.dense_files} is below the issue's 500 modules")
    return args


def benchmark_env(bench_venv: Path) -> dict[str, str]:
    """The environment of every measured command: bytecode caching on, its cache outside the repository."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(bench_venv / "pycache")
    return env


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the table, the targets (and the profile); write the JSON."""
    args = parse_args(argv)
    started = time.monotonic()
    load_before = os.getloadavg()
    workdir = Path(tempfile.mkdtemp(prefix="asynccfg-bench-"))
    runner = Runner(workdir, benchmark_env(args.bench_venv), args.timeout)
    try:
        tools = find_tools(args, runner)
        print(f"features of asynccfg-lint: {tools.features}")
        if load_before[0] > 0.5 * (os.cpu_count() or 1):
            print(f"warning: load average {load_before[0]:.2f} on {os.cpu_count()} CPUs: other work is running, "
                  "timings will be noisy (compare cpu s and ratios)")
        dense = write_dense_tree(workdir / "dense", args.dense_files)
        warm_file = str(dense.root / "mod_0000.py")
        sink_free = workdir / "startup" / "plain.py"
        sink_free.parent.mkdir()
        sink_free.write_text(sink_free_source(), encoding="utf-8")
        trees: dict[str, Tree] = {}
        rows: list[Row] = []
        if "sparse" in args.sections:
            sparse_root = args.sparse_tree or default_sparse_tree(args.python)
            trees["sparse"] = describe_tree(sparse_root, workdir / "sparse.txt")
            rows += sparse_rows(tools, trees["sparse"], warm_file, args.runs)
        if "dense" in args.sections:
            trees["dense"] = describe_tree(dense.root, workdir / "dense.txt")
            rows += dense_rows(tools, trees["dense"], warm_file, args.runs)
        if "startup" in args.sections:
            rows += startup_rows(tools, str(sink_free), args.startup_runs)
        if "onefile" in args.sections:
            sparse_root = args.sparse_tree or default_sparse_tree(args.python)
            package = workdir / "onefile" / sparse_root.name
            shutil.copytree(sparse_root, package, ignore=shutil.ignore_patterns("__pycache__"))
            outside = workdir / "onefile" / "outside" / Path(SINK_FREE_FILE).name
            outside.parent.mkdir()
            shutil.copyfile(package / SINK_FREE_FILE, outside)
            rows += onefile_rows(tools, package, outside, args.runs)
        if "scaling" in args.sections:
            packages = {size: write_wrapper_package(workdir / f"scaling_{size}", size) for size in SCALING_SIZES}
            modules = {size: write_rules_module(workdir / "rules", size) for size in RULES_SIZES}
            rows += scaling_rows(tools, packages, modules, args.runs)
        measure(rows, runner, args.budget, started)
        if "onefile" in args.sections:
            lsp = find_row(rows, "onefile", "lsp")
            if lsp is not None and lsp.argv is not None:
                lsp.extra.update(lsp_facts(runner, lsp.argv))
        if "startup" in args.sections:
            find_row(rows, "startup", "check").extra.update(
                imports_libcst(runner, [tools.python, "-m", "asynccfg_lint", "check", str(sink_free)]))
            find_row(rows, "startup", "flake8_with").extra.update(
                imports_libcst(runner, [tools.python, "-m", "flake8", *FLAKE8_ARGS, str(sink_free)]))
        targets = evaluate_targets(rows)
        profile = None
        if args.profile:
            sparse = trees.get("sparse") or describe_tree(
                args.sparse_tree or default_sparse_tree(args.python), workdir / "sparse.txt")
            profile = profile_check(runner, tools, sparse, args.json.with_suffix(".pyspy.txt"))
        print_table(rows, trees)
        if targets:
            print_targets(targets)
        if profile:
            print_profile(profile)
        results = {
            "settings": {key: str(value) if isinstance(value, Path) else value for key, value in vars(args).items()},
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                        "load_average_before": load_before, "load_average_after": os.getloadavg()},
            "versions": versions(runner, tools),
            "features": vars(tools.features),
            "trees": {name: {"root": str(tree.root), "files": tree.files, "lines": tree.lines,
                             **({"faulty_modules": dense.faulty} if name == "dense" else {})}
                      for name, tree in trees.items()},
            "rows": [row_json(rows, row) for row in rows],
            "targets": targets,
            "profile": profile,
            "duration_s": round(time.monotonic() - started, 1),
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {args.json} ({results['duration_s']} s in all)")
        if args.markdown:
            args.markdown.write_text(markdown_report(results), encoding="utf-8")
            print(f"wrote {args.markdown}")
        return 1 if any(row.error for row in rows) else 0
    finally:
        if args.keep_temp:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
