"""Session set-up shared by every test module: the result cache's folder and the Hypothesis profiles.

Hypothesis profiles for the fuzz tests (``tests/test_fuzz.py``): ``ci`` (the default) runs 40
examples per test (15 for the tests that run every front end on whole fixture modules), about
two minutes on a loaded machine; ``--hypothesis-profile=long`` runs 10 000 examples per test,
the run the reliability note reports.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from asynccfg_lint.cache import CACHE_DIR_ENV

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=40, **_COMMON)
settings.register_profile("long", max_examples=10_000, **_COMMON)
settings.load_profile("ci")


@pytest.fixture(autouse=True, scope="session")
def _result_cache_outside_the_tree(tmp_path_factory: pytest.TempPathFactory):
    """CLI runs write their result cache under the session's temporary folder, not into tests/fixtures."""
    previous = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(tmp_path_factory.mktemp("result-cache"))
    yield
    if previous is None:
        del os.environ[CACHE_DIR_ENV]
    else:
        os.environ[CACHE_DIR_ENV] = previous
