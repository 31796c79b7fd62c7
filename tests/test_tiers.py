"""The tier split of :mod:`tests.tiers`: which tests read as end-to-end, and the fast tier's guard."""

from __future__ import annotations

import subprocess as child_processes  # an alias the reading does not know: the guard must catch it
import sys

import pytest

from tests.conftest import _SpawnedInFastTier
from tests.frontend_runs import run_cli
from tests.tiers import spawns_processes


def _checks_a_fixture():
    return run_cli("clean.py")


def _indirect():
    return [_checks_a_fixture() for _ in range(1)]  # through a helper, inside a comprehension


def _pure(text: str) -> int:
    return len(text.splitlines())


def test_helpers_that_reach_a_runner_read_as_end_to_end():
    assert spawns_processes(_checks_a_fixture) is True
    assert spawns_processes(_indirect) is True
    assert spawns_processes(_pure) is False


def test_a_process_started_in_the_fast_tier_fails_the_test(request):
    assert request.node.get_closest_marker("e2e") is None  # expect: this test is in the fast tier
    with pytest.raises(_SpawnedInFastTier, match="mark it e2e"):
        child_processes.run([sys.executable, "-c", "pass"], check=False)
