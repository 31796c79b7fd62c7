"""Hypothesis profiles for the fuzz tests (``tests/test_fuzz.py``).

``ci`` (the default) keeps the whole fuzz run under a minute; ``--hypothesis-profile=long`` runs
10 000 examples per test, the run the reliability note reports.
"""

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=40, **_COMMON)
settings.register_profile("long", max_examples=10_000, **_COMMON)
settings.load_profile("ci")
