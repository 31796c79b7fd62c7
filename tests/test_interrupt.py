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
from pathlib import Path

import pytest

from tests.frontend_runs import SINK_IMPORT

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


def start_fix(cwd: Path, jobs: int = 2) -> subprocess.Popen:
    """``asynccfg-lint fix -j JOBS .`` in its own process group (as a terminal's Ctrl-C reaches all of it)."""
    return subprocess.Popen([sys.executable, "-m", "asynccfg_lint", "fix", "--isolated", "-j", str(jobs), "."], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


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

