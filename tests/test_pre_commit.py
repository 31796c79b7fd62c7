"""The README's pre-commit routes, each run as written by the real ``pre-commit`` executable and git.

A copy of this checkout (its working tree, as git would commit it) is committed to a temporary
repository, so it has a ``rev``: it stands for the project's git URL. Each ``yaml`` block of the
README's pre-commit section becomes a ``.pre-commit-config.yaml`` with only ``GIT_URL`` and
``COMMIT`` filled in (``file://`` URL and sha of that copy); pre-commit clones it (route 1) or pip
installs it from the git URL (routes 2 and flake8's) into its own virtual environment, its
dependencies from the package index, as it would from a hosted repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pre_commit_runs import (
    PROJECT,
    git,
    hook_results,
    pre_commit_executable,
    readme_config,
    run_pre_commit,
    work_repository,
)

BAD = """\
import numpy as np
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"tiled": np.bool_(True)})
"""
#: not fixable: the fix hook leaves it, the check hook reports it
NAN = """\
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"scale": float("nan")})
"""
#: a numpy float32 sum that overflows to inf (numpy computes it; JAX 0.12.0.1 then fails to compile: trial 7 F131)
OVERFLOW = """\
import numpy as np
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"scale": np.float32(1.0) + 1e39})
"""

def test_route_1_shipped_hooks_check_fails_fix_rewrites_second_run_passes(hook_repo, tmp_path, pre_commit_home):
    repo_path, rev = hook_repo
    work = tmp_path / "work"
    work.mkdir()
    config = readme_config("repo: GIT_URL", repo_path, rev)
    assert f"repo: {repo_path.as_uri()}\n    rev: {rev}\n" in config
    (work / ".pre-commit-config.yaml").write_text(config)
    # the project's configuration applies to the files pre-commit names (--force-exclude in the hooks)
    (work / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextend-exclude = ["generated"]\n')
    (work / "pkg").mkdir()
    (work / "pkg" / "lowering.py").write_text(BAD)
    (work / "generated").mkdir()
    (work / "generated" / "out.py").write_text(BAD)
    (work / "notes.txt").write_text('emit("t", 1, 2, {"a": {1}})\n')  # not Python: types_or keeps it out
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)  # staged, not committed
    home = pre_commit_home

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
    assert hook_results(again.stdout) == [("asynccfg-lint (fix)", "Passed"), ("asynccfg-lint", "Passed")]


def test_route_2_local_hooks_install_the_project_from_its_git_url(hook_repo, tmp_path, pre_commit_home):
    repo_path, rev = hook_repo
    config = readme_config('language: python\n        additional_dependencies: ["asynccfg-lint[numpy] @', repo_path, rev)
    assert f'["asynccfg-lint[numpy] @ git+{repo_path.as_uri()}@{rev}"]' in config
    work = work_repository(tmp_path / "work", config, {"pkg/lowering.py": BAD, "pkg/nan.py": NAN})

    first = run_pre_commit("run", "--all-files", cwd=work, home=pre_commit_home)
    assert first.returncode == 1, first.stdout + first.stderr
    assert hook_results(first.stdout) == [("asynccfg-lint (fix)", "Failed"), ("asynccfg-lint", "Failed")]
    assert (work / "pkg" / "lowering.py").read_text() == BAD.replace("np.bool_(True)", "bool(np.bool_(True))")
    assert "pkg/nan.py:5:55: ACC103 " in first.stdout  # expect: left for the check hook (no fix for NaN)
    assert "lowering.py:6:55" not in first.stdout.split("asynccfg-lint....")[-1]  # fixed before the check ran

    (work / "pkg" / "nan.py").write_text(NAN.replace('float("nan")', "0.5"))
    git("add", "-A", cwd=work)
    again = run_pre_commit("run", "--all-files", cwd=work, home=pre_commit_home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert hook_results(again.stdout) == [("asynccfg-lint (fix)", "Passed"), ("asynccfg-lint", "Passed")]


def test_route_3_local_system_hook_runs_the_installed_asynccfg_lint(tmp_path, pre_commit_home):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    config = readme_config("language: system", Path("/unused"), "unused")
    work = work_repository(tmp_path / "work", config, {"pkg/lowering.py": BAD})
    # the environment pre-commit runs in is this test's: its bin/ holds the installed asynccfg-lint
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    check = run_pre_commit("run", "--all-files", cwd=work, home=pre_commit_home, path=path)
    assert check.returncode == 1, check.stdout + check.stderr
    assert hook_results(check.stdout) == [("asynccfg-lint", "Failed")]
    assert 'pkg/lowering.py:6:55: ACC101 value for key "tiled" is numpy.bool_' in check.stdout


def test_flake8_route_local_hook_with_the_plugin_from_the_git_url(hook_repo, tmp_path, pre_commit_home):
    repo_path, rev = hook_repo
    config = readme_config("entry: flake8", repo_path, rev)
    work = work_repository(tmp_path / "work", config, {"pkg/lowering.py": BAD})
    check = run_pre_commit("run", "--all-files", cwd=work, home=pre_commit_home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert hook_results(check.stdout) == [("flake8", "Failed")]
    assert ('pkg/lowering.py:6:55: ACC101 value for key "tiled" is numpy.bool_, which JAX cannot serialize to JSON: '
            "lowering raises ValueError; use bool(...)") in check.stdout


@pytest.mark.parametrize(("marker", "hook"), [("repo: GIT_URL", "asynccfg-lint"),
                                              ('additional_dependencies: ["asynccfg-lint[numpy] @', "asynccfg-lint"),
                                              ("entry: flake8", "flake8")], ids=["shipped", "local", "flake8"])
def test_hook_environments_compute_numpy_floats_as_the_cli(hook_repo, tmp_path, pre_commit_home, marker, hook):
    """pre-commit's own environment has numpy (the shipped hooks' additional_dependencies, the local routes'
    [numpy] extra), so a numpy float that overflows is ACC103 there as in the CLI, not silently dropped."""
    repo_path, rev = hook_repo
    work = work_repository(tmp_path / "work", readme_config(marker, repo_path, rev), {"pkg/overflow.py": OVERFLOW})
    check = run_pre_commit("run", hook, "--all-files", cwd=work, home=pre_commit_home)
    assert check.returncode == 1, check.stdout + check.stderr
    assert ('pkg/overflow.py:6:55: ACC103 value for key "scale" is a non-finite float (NaN or Infinity)') in check.stdout


def test_manifest_is_valid_for_pre_commit():
    result = subprocess.run([*pre_commit_executable(), "validate-manifest", str(PROJECT / ".pre-commit-hooks.yaml")],
                            capture_output=True, text=True, check=False)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
