"""Session set-up shared by every test module."""

from __future__ import annotations

import os

import pytest

from asynccfg_lint.cache import CACHE_DIR_ENV


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
