"""``fix`` over a tree of many files, interrupted at random moments by SIGINT (Ctrl-C) or SIGKILL.

Every file must be byte-for-byte the original or the complete fixed version (computed by an
uninterrupted run on a copy), never partial or empty. After SIGINT the run ends cleanly: exit 130,
a one-line message, no traceback, and no temporary file (``.NAME.XXXX.tmp``) left behind.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from asynccfg_lint.run.interrupts import interrupt_latch, interrupted, raise_if_interrupted
from tests.frontend_runs import SINK_IMPORT
from tests.inject_failure import CTRL_C_MARKER

INJECTOR = Path(__file__).with_name("inject_failure.py")

FILES = 40
#: the interruption rounds: (signal, seed of the delay, fix processes); with one, the main process writes
ROUNDS = [(signal.SIGINT, 1, 2), (signal.SIGINT, 2, 2), (signal.SIGINT, 5, 1), (signal.SIGKILL, 3, 2), (signal.SIGKILL, 4, 2)]


def module_text(index: int) -> str:
    """A module with ``index``-dependent fixable values (safe fixes) and one finding without a fix."""
    return (SINK_IMPORT + "import numpy as np\nimport jax.numpy as jnp\n\n\n"
            f"def lower_{index}(ctx, x):\n"
            f"    emit('all-gather-start', ctx, x, {{'a': np.bool_({index % 2}), 'b': jnp.int32({index}),\n"
            f"                                       'c': range({index}), 'd': float('nan')}})\n"
            + "# padding\n" * (index % 7))


def make_tree(root: Path) -> dict[str, bytes]:
    """Write the tree (several folders) and return each file's bytes by relative path."""
    originals = {}
    for index in range(FILES):
        relative = f"pkg{index % 5}/m{index:03d}.py"
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        data = module_text(index).encode()
        (root / relative).write_bytes(data)
        originals[relative] = data
    return originals


def default_ctrl_c() -> None:
    """In the child before exec: SIGINT's default action, as under a terminal (a test runner started in the
    background of a non-interactive shell hands its children SIGINT ignored, which Python keeps)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_fix(cwd: Path, jobs: int = 2) -> subprocess.Popen:
    """``asynccfg-lint fix -j JOBS .`` in its own process group (as a terminal's Ctrl-C reaches all of it)."""
    return subprocess.Popen([sys.executable, "-m", "asynccfg_lint", "fix", "--isolated", "-j", str(jobs), "."], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=default_ctrl_c)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> tuple[dict[str, bytes], dict[str, bytes], float]:
    """The original tree, the tree after one uninterrupted run, and how long that run took."""
    root = tmp_path_factory.mktemp("uninterrupted")
    originals = make_tree(root)
    started = time.monotonic()
    process = start_fix(root)
    _, stderr = process.communicate(timeout=120)
    seconds = time.monotonic() - started
    assert process.returncode == 1, stderr  # the NaN findings are left
    assert stderr.decode().endswith(f"{FILES} files scanned, {FILES} files changed, {3 * FILES} fixes applied, "
                                    f"{FILES} findings left\n")
    fixed = snapshot(root)
    assert sorted(fixed) == sorted(originals)
    print(f"uninterrupted: {seconds:.1f} s")
    return originals, fixed, seconds


@pytest.mark.parametrize("sent, seed, jobs", ROUNDS, ids=[f"{signal.Signals(s).name}-{seed}-j{j}" for s, seed, j in ROUNDS])
def test_every_file_is_original_or_completely_fixed(sent, seed, jobs, expected, tmp_path):
    originals, fixed, seconds = expected
    make_tree(tmp_path)
    process = start_fix(tmp_path, jobs)
    time.sleep(random.Random(seed).uniform(0.4, 0.95) * seconds)
    os.killpg(process.pid, sent)
    _, stderr = process.communicate(timeout=60)
    after = snapshot(tmp_path)
    temporary = sorted(name for name in after if name.endswith(".tmp"))
    for name in originals:
        assert after[name] in (originals[name], fixed[name]), name
    changed = sum(after[name] == fixed[name] for name in originals)
    print(f"{signal.Signals(sent).name}: exit {process.returncode}, {changed} of {FILES} files fixed")
    if sent == signal.SIGINT:
        assert temporary == []
        if process.returncode == 130:
            assert stderr.decode().splitlines()[-1] == "asynccfg-lint: interrupted"
        else:  # the run had finished (the findings left: exit 1), or was exiting when the signal came (-2)
            assert process.returncode in (1, -signal.SIGINT), stderr
            assert f"{FILES} files scanned, {FILES} files changed" in stderr.decode()
        assert b"Traceback" not in stderr
    else:
        assert sorted(after) == sorted([*originals, *temporary])  # SIGKILL may leave a temporary file, nothing else



# a Ctrl-C that the analysis swallows (tests/inject_failure.py, CTRL_C_MARKER): the run still ends as
# interrupted before any file is written, and the cut-short outcome is not stored in the result cache
SWALLOWING = (SINK_IMPORT + "import numpy as np\n\n\n"
              f"# {CTRL_C_MARKER}\n"
              "def lower(ctx, x):\n"
              "    emit('all-gather-start', ctx, x, {'a': np.bool_(1)})\n")
PLAIN = SINK_IMPORT + "import numpy as np\n\n\ndef lower(ctx, x):\n    emit('all-gather-start', ctx, x, {'b': np.bool_(0)})\n"


def run_injected(cwd: Path, *args: str, ctrl_c: Callable[[], None] | None = default_ctrl_c) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(INJECTOR), "asynccfg_lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, preexec_fn=ctrl_c)


@pytest.mark.parametrize("command", [["fix", "-j", "1"], ["fix", "-j", "2"], ["check"], ["check", "--add-noqa"]])
def test_a_swallowed_ctrl_c_ends_the_run_and_stores_nothing(command, tmp_path):
    (tmp_path / "swallowing.py").write_text(SWALLOWING)
    (tmp_path / "plain.py").write_text(PLAIN)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    interrupted = run_injected(tmp_path, *command, "--isolated", *cache, "swallowing.py", "plain.py")
    assert (interrupted.returncode, interrupted.stderr.splitlines()[-1:]) == (130, ["asynccfg-lint: interrupted"])
    assert interrupted.stdout == ""
    assert (tmp_path / "swallowing.py").read_text() == SWALLOWING
    assert (tmp_path / "plain.py").read_text() == PLAIN
    # the same cache, nothing injected: the swallowing file's finding is there (its outcome was not stored)
    again = subprocess.run([sys.executable, "-m", "asynccfg_lint", "check", "--isolated", *cache, "--output-format",
                            "concise", "swallowing.py", "plain.py"], cwd=tmp_path, capture_output=True, text=True)
    assert [line.split(" ")[:2] for line in again.stdout.splitlines()[:2]] == [
        ["plain.py:6:44:", "ACC101"], ["swallowing.py:7:44:", "ACC101"]], again.stdout


def test_a_process_started_with_ctrl_c_ignored_keeps_ignoring_it(tmp_path):
    (tmp_path / "swallowing.py").write_text(SWALLOWING)
    ignored = run_injected(tmp_path, "fix", "--isolated", "--no-cache", "swallowing.py",
                           ctrl_c=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert ignored.returncode == 0, ignored.stderr  # as Python itself: nohup's Ctrl-C is no Ctrl-C
    assert ignored.stderr == "1 file scanned, 1 file changed, 1 fix applied, 0 findings left\n"
    assert (tmp_path / "swallowing.py").read_text() == SWALLOWING.replace("np.bool_(1)", "bool(np.bool_(1))")


def test_the_latch_remembers_a_swallowed_ctrl_c_until_it_closes():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as under a terminal, whatever pytest got
    try:
        with interrupt_latch():
            assert interrupted() is False
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)  # the handler runs at the next bytecode boundary
            except KeyboardInterrupt:
                pass  # swallowed, as code under analysis may
            assert interrupted() is True
            with pytest.raises(KeyboardInterrupt):
                raise_if_interrupted()
        assert interrupted() is False
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with interrupt_latch():  # started ignored: stays ignored
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert interrupted() is False
    finally:
        signal.signal(signal.SIGINT, previous)
