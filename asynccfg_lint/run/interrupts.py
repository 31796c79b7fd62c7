"""Ctrl-C (SIGINT) in the command line: every Ctrl-C ends the run, wherever it lands.

Python turns SIGINT into KeyboardInterrupt at whatever bytecode runs next. Where that is a
``__del__``, a weakref callback or an at-fork hook, Python prints "Exception ignored" and goes
on; code that swallows exceptions could even go on with a half-computed answer. So the CLI opens
:func:`interrupt_latch` around a command: each SIGINT is also remembered, the run asks
:func:`interrupted` between its stages and files, ends as interrupted (exit 130) however the
KeyboardInterrupt itself fared, and stores no outcome computed meanwhile in the result cache.

A process that started with SIGINT ignored (``nohup``, a background job of a non-interactive
shell) keeps ignoring it, as Python itself does. Worker processes ignore it
(:func:`ignore_interrupts`): the main process stops the run between files.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

#: the SIGINTs that came while a latch was open (cleared when the outermost latch closes)
_came: list[int] = []


def interrupted() -> bool:
    """Whether a SIGINT came while :func:`interrupt_latch` is open (``False`` when none is open)."""
    return bool(_came)


@contextlib.contextmanager
def interrupt_latch() -> Iterator[None]:
    """While open, SIGINT raises KeyboardInterrupt as Python's default handler does and is remembered
    for :func:`interrupted`; a KeyboardInterrupt that Python ignored where it landed is not printed.

    A no-op off the main thread (where handlers cannot be set), when SIGINT is ignored (the process
    was started that way), or inside an open latch.
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) in (
            signal.SIG_IGN, _remember):
        yield
        return

    def unraisable(info: sys.UnraisableHookArgs) -> None:
        if info.exc_type is not None and issubclass(info.exc_type, KeyboardInterrupt):
            return  # Python ignored the Ctrl-C where it landed: the latch ends the run
        previous_hook(info)

    previous, previous_hook = signal.signal(signal.SIGINT, _remember), sys.unraisablehook
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = previous_hook
        _came.clear()


def _remember(signum: int, frame: object) -> None:
    _came.append(signum)
    raise KeyboardInterrupt


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt when a SIGINT came (one that the code it landed in swallowed still ends the run).

    Raises:
        KeyboardInterrupt: when :func:`interrupted`.
    """
    if interrupted():
        raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Block SIGINT in the main thread for the duration (a no-op elsewhere); a pending one is delivered after.

    Used around an atomic write (the temporary file is either moved into place or removed) and
    around the forks of a worker pool (no worker starts with Python's handler).
    """
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def ignore_interrupts() -> None:
    """In a worker process: ignore SIGINT, which reaches the whole process group; the main process ends the run."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
