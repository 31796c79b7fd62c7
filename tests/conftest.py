"""Session set-up shared by every test module: the result cache's folder, the Hypothesis profiles and
the test tiers (``e2e`` marks, see :mod:`tests.tiers`).

Hypothesis profiles for the fuzz tests (``tests/test_fuzz.py``): ``ci`` (the default) runs 40
examples per test (15 for the tests that run every front end on whole fixture modules), about
two minutes on a loaded machine; ``--hypothesis-profile=long`` runs 10 000 examples per test,
the run the reliability note reports. ``ASYNCCFG_LINT_LONG_EXAMPLES=N`` sets the long profile's
number for a run boxed in time (hypothesis prints a test's statistics only when it completes;
one long-profile example costs about 0.1 s to 0.8 s on the 2-core machine, see README).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from subprocess import Popen

import pytest
from hypothesis import HealthCheck, settings

from asynccfg_lint.process_owner import owned_process
from asynccfg_lint.run.cache import CACHE_DIR_ENV
from tests.pre_commit_runs import PROJECT, copy_checkout
from tests.tiers import E2E_MARKERS, spawns_processes

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=40, **_COMMON)
settings.register_profile("long", max_examples=int(os.environ.get("ASYNCCFG_LINT_LONG_EXAMPLES", 10_000)), **_COMMON)
settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _caches_outside_the_tree_and_the_home(tmp_path_factory: pytest.TempPathFactory):
    """CLI runs write their result cache under the session's temporary folder, not into tests/fixtures; the
    user cache folder (the parse-signing key, the server's rule pages) is there too, not in the real home."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_DIR_ENV, str(tmp_path_factory.mktemp("result-cache")))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
        patch.delenv("FORCE_COLOR", raising=False)  # (the CLI's text rows stay plain unless a test asks for colour)
        yield


@pytest.fixture
def owned():
    """The test stands for the CLI or the language server: the tool owns the process for its length
    (:func:`~asynccfg_lint.process_owner.owned_process`), and every tuning is undone after it."""
    with owned_process():
        yield


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A committed copy of this checkout (standing for the project's git URL) and its rev."""
    if shutil.which("git") is None or not (PROJECT / ".git").exists():
        pytest.skip("needs git and a git checkout of the project")
    destination = tmp_path_factory.mktemp("hook-repo")
    return destination, copy_checkout(destination)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the session: runs with the same dependencies share an environment."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _is_end_to_end(item: pytest.Item) -> bool:
    if any(item.get_closest_marker(name) for name in E2E_MARKERS):
        return True
    function = getattr(item, "function", None)
    if function is not None and spawns_processes(function):
        return True
    info = getattr(item, "_fixtureinfo", None)
    definitions = info.name2fixturedefs.values() if info is not None else ()
    return any(spawns_processes(definition.func) for chain in definitions for definition in chain
               if (getattr(definition.func, "__module__", "") or "").startswith("tests"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that starts a child process ``e2e`` (:mod:`tests.tiers`)."""
    for item in items:
        if _is_end_to_end(item):
            item.add_marker(pytest.mark.e2e)


class _SpawnedInFastTier(AssertionError):
    """A test of the fast tier started a child process: :mod:`tests.tiers` should have marked it ``e2e``."""


@pytest.fixture(autouse=True)
def _fast_tier_starts_no_process(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Outside ``e2e``, ``subprocess.Popen`` raises, so a misclassified test fails instead of slowing the tier."""
    if request.node.get_closest_marker("e2e") is None:
        def refuse(*args, **kwargs):
            raise _SpawnedInFastTier(f"{request.node.nodeid} starts a process ({args[1:2]}); mark it e2e")

        # Popen is imported by name, so this fixture holds no "subprocess" that tests.tiers would read as a spawn
        monkeypatch.setattr(Popen, "_execute_child", refuse)
    yield
