"""Whether the tool owns the process it runs in, and the undoing of what it tuned there.

A process the tool does not own is a host: flake8 running the plugin, libcst's codemod tool running
:class:`~asynccfg_lint.codemod.FixAsyncConfigCommand`, any program that imports the package. Other tools
share it (flake8-async and TorchFix use libcst too), so nothing global changes there: libcst's classes
and functions, the recursion limit, the thread stack size, the garbage collector, other child processes.
A file that cannot be analysed without such a change is reported as ACC001 there.

The processes the tool owns — the ``asynccfg-lint`` command and the language server it starts — run
their work inside :func:`owned_process`. Only inside it, the stages tune the process through
:func:`tune_once` (libcst's node validation paused around parses, the collector paused per file, a
large stack and recursion limit for deep files, repairs of libcst's defects), and every tuning is
undone when the outermost :func:`owned_process` ends.

This module imports nothing of the package: every layer may ask it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

_LOCK = threading.RLock()
#: how many :func:`owned_process` bodies are running now
_OWNERS = [0]
#: tuning name -> what undoes it, in the order the tunings were made
_UNDO: dict[str, Callable[[], None]] = {}


def process_is_owned() -> bool:
    """Whether the tool owns this process now (inside :func:`owned_process`)."""
    return _OWNERS[0] > 0


@contextlib.contextmanager
def owned_process() -> Iterator[None]:
    """The ``with`` body owns the process: the stages may tune it (:func:`tune_once`).

    For the tool's own front ends (the CLI's ``main``, the language server, a worker process of the
    CLI's pool). Bodies may nest; when the outermost one ends, every tuning is undone, last made first.
    """
    with _LOCK:
        _OWNERS[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _OWNERS[0] -= 1
            if not _OWNERS[0]:
                for name in reversed(list(_UNDO)):
                    _UNDO.pop(name)()


def tune_once(name: str, tune: Callable[[], Callable[[], None]]) -> bool:
    """Make the tuning ``name`` by calling ``tune`` (once per ownership), when the tool owns the process.

    Args:
        name: names the tuning; a second call with the same name does nothing until ownership ends.
        tune: changes the process and returns the function that undoes the change.
    Returns:
        whether the tuning is in effect (False in a host's process: nothing was changed).
    """
    with _LOCK:
        if not _OWNERS[0]:
            return False
        if name not in _UNDO:
            _UNDO[name] = tune()
        return True
