"""The two test tiers: which tests are end-to-end (``e2e``) and which run in-process (the fast tier).

A test is end-to-end when it runs a real program in a child process (the CLI, flake8, pre-commit,
git, the language server over stdio, JAX's lowering in the oracle) or is marked ``jax``/``oracle``.
That is read from the code, not written by hand on each test: :func:`spawns_processes` looks for
the names that start a process in the test function, in the fixtures it requests, and in every
helper function of ``tests/`` they call, transitively. ``tests/conftest.py`` marks those tests
``e2e`` at collection, and makes every other test fail if it starts a process anyway, so a test
the reading misses is caught instead of slowing the fast tier. A test whose process starts in code
the reading cannot see (a library that runs git itself) takes ``@pytest.mark.e2e`` by hand.

    python -m pytest -m "not e2e and not slow"     # the fast tier
    python -m pytest -m "e2e or slow"              # the end-to-end tier, with the in-process corpus and fuzz tests (slow)
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable

#: names whose use in a test (or a helper it calls) means a child process: our runners, the LSP
#: client, pre-commit's runner and the subprocess module itself
PROCESS_NAMES = frozenset({
    "subprocess", "run_cli", "run_program", "run_flake8", "run_pre_commit", "LspClient", "run_oracle",
})
#: markers that mean real JAX (in a child process)
E2E_MARKERS = frozenset({"jax", "oracle"})


def _code_names(code: types.CodeType) -> Iterable[str]:
    """The global and attribute names a code object uses, nested functions and comprehensions included."""
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from _code_names(constant)


def spawns_processes(function: Callable, _seen: set[int] | None = None) -> bool:
    """True when ``function``, or a function of the ``tests`` package it names, uses a :data:`PROCESS_NAMES` name.

    Args:
        function: a test, fixture or helper function (decorators with ``__wrapped__`` are unwrapped).
    Returns:
        Whether a child process may start; names are looked up in the function's own module globals.
    """
    seen = set() if _seen is None else _seen
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    code = getattr(function, "__code__", None)
    if code is None or id(code) in seen:
        return False
    seen.add(id(code))
    namespace = getattr(function, "__globals__", {})
    for name in _code_names(code):
        if name in PROCESS_NAMES:
            return True
        helper = namespace.get(name)
        if (isinstance(helper, types.FunctionType) and (helper.__module__ or "").startswith("tests")
                and spawns_processes(helper, seen)):
            return True
    return False
