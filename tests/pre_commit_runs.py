"""The real ``pre-commit`` and git, as the tests run them: a committed copy of this checkout stands for the
project's git URL (:func:`copy_checkout`), and each run gets its own cache folder (``PRE_COMMIT_HOME``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.readme import readme_block

PROJECT = Path(__file__).resolve().parent.parent
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


def readme_config(marker: str, repo_path: Path, rev: str) -> str:
    """The README's one ``yaml`` block that contains ``marker``, with ``GIT_URL`` and ``COMMIT`` filled in."""
    return readme_block("yaml", marker).replace("GIT_URL", repo_path.as_uri()).replace("COMMIT", rev)


def work_repository(root: Path, config: str, files: dict[str, str]) -> Path:
    """A git repository with ``config`` as its ``.pre-commit-config.yaml`` and ``files``, all staged."""
    root.mkdir()
    (root / ".pre-commit-config.yaml").write_text(config)
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git("init", "-q", cwd=root)
    git("add", "-A", cwd=root)
    return root


def hook_results(stdout: str) -> list[tuple[str, str]]:
    """``(hook name, Passed/Failed/...)`` for each line pre-commit prints per hook."""
    outcomes = ("Passed", "Failed", "Skipped")
    return [(line.split("...", 1)[0].strip(), line.rsplit(".", 1)[-1])
            for line in stdout.splitlines() if "..." in line and line.rstrip().endswith(outcomes)]


def run_pre_commit(*args: str, cwd: Path, home: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real pre-commit in ``cwd`` with its cache (environments, clones) in ``home`` (``path``: its PATH)."""
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"}
    if path is not None:
        environment["PATH"] = path
    environment.pop("PRE_COMMIT", None)
    return subprocess.run([*pre_commit_executable(), *args], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=1500, check=False)
