"""Run a stage on a thread with a large stack and a raised recursion limit, bounded in time.

libcst's parse, its metadata, code generation and the analysis recurse a few frames per syntax
level; a deep file (``parse.DEEP_TREE_DEPTH``) runs there, with the libcst workarounds for
CPython 3.12's C recursion limit installed (:mod:`asynccfg_lint.analysis.libcst_workarounds`).
Only in a process the tool owns (:mod:`asynccfg_lint.process_owner`): the recursion limit and the
thread stack size are the whole interpreter's. In a host's process (flake8, the codemod) the stage
is not run, and the file is reported as ACC001.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from asynccfg_lint.analysis.libcst_workarounds import install_libcst_repairs
from asynccfg_lint.analysis.parse_failure import ParseFailure

#: the stack and Python recursion limit of the thread that parses and analyses a deep file
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
#: how long that thread may take before the file is given up (it cannot be stopped; it ends with the process):
#: libcst's parse (its native parser takes seconds on 3 000 levels), and a deep module's analysis or fix
#: (which parses the fixed text again and re-checks it)
DEEP_PARSE_SECONDS = 30.0
DEEP_ANALYSIS_SECONDS = 60.0
#: why a deep file is not analysed in a host's process (the ACC001 message's reason)
NOT_IN_A_HOST = ("the file nests too deeply to be analysed inside another program's process "
                 "(it needs a larger stack and recursion limit); `asynccfg-lint check` analyses it")
#: set on the thread :func:`on_a_large_stack` runs its function on (a stage there calls the next directly)
_ON_A_LARGE_STACK = threading.local()

_Result = TypeVar("_Result")


def on_a_large_stack(function: Callable[[], _Result], unfinished: str = "libcst did not parse the file",
                     seconds: float = DEEP_PARSE_SECONDS) -> _Result:
    """``function()`` run on a thread with :data:`DEEP_STACK_BYTES` of stack and a raised recursion limit.

    Called on that thread, ``function()`` runs directly. Only in a process the tool owns, with
    :func:`~asynccfg_lint.analysis.libcst_workarounds.install_libcst_repairs`; the recursion limit and the stack
    size are put back once the thread has started and ended.

    Args:
        function: the stage to run.
        unfinished: what the failure says when the thread takes too long (followed by "within 30 s").
        seconds: how long the thread may take.
    Raises:
        what ``function`` raised; ParseFailure when it takes longer than ``seconds``, or (:data:`NOT_IN_A_HOST`)
        in a process the tool does not own.
    """
    if getattr(_ON_A_LARGE_STACK, "active", False):
        return function()
    if not install_libcst_repairs():
        raise ParseFailure(NOT_IN_A_HOST)
    outcome: dict[str, object] = {}

    def run() -> None:
        _ON_A_LARGE_STACK.active = True
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = error

    limit = sys.getrecursionlimit()
    previous_stack = threading.stack_size(DEEP_STACK_BYTES)
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION_LIMIT))
        thread = threading.Thread(target=run, name="asynccfg-lint deep parse", daemon=True)
        thread.start()
    finally:
        threading.stack_size(previous_stack)
    try:
        thread.join(seconds)
    finally:
        sys.setrecursionlimit(limit)
    if thread.is_alive():
        raise ParseFailure(f"{unfinished} within {seconds:g} s", timed_out=True)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]
