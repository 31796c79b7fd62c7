"""The hooks of ``.pre-commit-hooks.yaml`` run by the real ``pre-commit`` executable.

A copy of this checkout (its working tree, as git would commit it) is committed to a temporary
repository, so it has a ``rev``; a second temporary repository uses it as a local-path ``repo:``
in its ``.pre-commit-config.yaml``. pre-commit clones it and installs it into its own virtual
environment (from PyPI), as it would from GitHub.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parent.parent
BAD = """\
import numpy as np
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"tiled": np.bool_(True)})
"""
GIT_IDENTITY = ["-c", "user.name=asynccfg-lint tests", "-c", "user.email=tests@example.invalid", "-c", "commit.gpgsign=false"]


def pre_commit_executable() -> list[str]:
    """The ``pre-commit`` console script installed beside this Python (the test extra), else ``python -m pre_commit``."""
    script = Path(sys.executable).parent / "pre-commit"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pre_commit"]


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` and return its stdout (fails the test on a non-zero exit)."""
    done = subprocess.run(["git", *GIT_IDENTITY, *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def copy_checkout(destination: Path) -> str:
    """Copy the files git would commit from this checkout (tracked and untracked, not ignored); commit them; return the rev."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=PROJECT)
    for relative in filter(None, listed.split("\0")):
        source = PROJECT / relative
        if source.is_file():
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git("init", "-q", cwd=destination)
    git("add", "-A", cwd=destination)
    git("commit", "-q", "-m", "snapshot", cwd=destination)
    return git("rev-parse", "HEAD", cwd=destination).strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """A committed copy of this checkout and its rev."""
    if shutil.which("git") is None or not (PROJECT / ".git").exists():
        pytest.skip("needs git and a git checkout of the project")
    destination = tmp_path_factory.mktemp("hook-repo")
    return destination, copy_checkout(destination)


def run_pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run the real pre-commit in ``cwd`` with its cache (environments, clones) in ``home``."""
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    environment.pop("PRE_COMMIT", None)
    return subprocess.run([*pre_commit_executable(), *args], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=1500, check=False)


def test_check_hook_fails_fix_hook_rewrites_second_run_passes(hook_repo, tmp_path):
    repo_path, rev = hook_repo
    work = tmp_path / "work"
    work.mkdir()
    (work / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {repo_path}\n"
        f"    rev: {rev}\n"
        "    hooks:\n"
        "      - id: asynccfg-lint\n"
        "      - id: asynccfg-lint-fix\n"
    )
    # the project's configuration applies to the files pre-commit names (--force-exclude in the hooks)
    (work / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextend-exclude = ["generated"]\n')
    (work / "pkg").mkdir()
    (work / "pkg" / "lowering.py").write_text(BAD)
    (work / "generated").mkdir()
    (work / "generated" / "out.py").write_text(BAD)
    (work / "notes.txt").write_text('emit("t", 1, 2, {"a": {1}})\n')  # not Python: types_or keeps it out
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)  # staged, not committed
    home = tmp_path / "pre-commit-home"

    check = run_pre_commit("run", "asynccfg-lint", "--all-files", cwd=work, home=home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert "asynccfg-lint" in check.stdout and "Failed" in check.stdout
    assert ('pkg/lowering.py:6:55: ACC101 value for key "tiled" is numpy.bool_, which JAX cannot serialize to JSON: '
            "lowering raises ValueError; use bool(...)") in check.stdout
    assert "generated/out.py" not in check.stdout
    assert "notes.txt" not in check.stdout
    assert (work / "pkg" / "lowering.py").read_text() == BAD

    fix = run_pre_commit("run", "asynccfg-lint-fix", "--all-files", cwd=work, home=home)
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout
    assert (work / "pkg" / "lowering.py").read_text() == BAD.replace("np.bool_(True)", "bool(np.bool_(True))")
    assert (work / "generated" / "out.py").read_text() == BAD

    git("add", "-A", cwd=work)
    again = run_pre_commit("run", "--all-files", cwd=work, home=home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert [line.rsplit(".", 1)[-1] for line in again.stdout.splitlines() if line.startswith("asynccfg-lint")] == [
        "Passed", "Passed",
    ]


def test_manifest_is_valid_for_pre_commit():
    result = subprocess.run([*pre_commit_executable(), "validate-manifest", str(PROJECT / ".pre-commit-hooks.yaml")],
                            capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
