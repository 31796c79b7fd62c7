"""The garbage collector paused while one file is parsed and analysed.

A parsed file is libcst's tree plus libcst's scope objects, which refer to each other (a scope
to its assignments, each assignment back to its scope and to its node): the tree is freed by
the collector, not by reference counting, once its file is done. Left running, the collector
walks the tree while it is alive, every time its younger generations fill (a sixth of ``check -j 1``
over the benchmark's dense tree of 500 modules); paused for the file, it walks the file's objects
once, when it resumes and most of them are garbage.

A process that ends with ``os._exit`` once its work is done (the CLI) need not free the last
files' objects at all: :func:`defer_collection_until_exit` moves each walk to the start of the
next pause, so the last one never runs (on a one-file check of ``jax/_src/lax/parallel.py`` it
walked 87 k objects, 0.06-0.08 s of a 0.9 s run); and when the run says how much is left to do
(:func:`expect_remaining`) and all of it fits under :data:`PENDING_BUDGET` with the garbage already
waiting, none of the walks left runs (the check of the installed jax package freed ``parallel.py``'s
objects as its next file began: 0.09-0.11 s of a 1.2 s run).

All of it only in a process the tool owns (:func:`~asynccfg_lint.process_owner.owned_process`): in a host's
process (flake8, the codemod) the collector is left as it is. When ownership ends, the collector is on again if it
was on at the first pause, and nothing stays deferred.

Walks are not put off for long otherwise: one walk after many files costs more than a walk after each
(the benchmark's dense tree, 500 modules: 0.58 s in 499 walks, 1.36 s in 5 walks of 250 k objects).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

from asynccfg_lint.process_owner import tune_once

#: set by :func:`defer_collection_until_exit`: a pause's end leaves the collector off, its garbage pending
_DEFERRING = [False]
#: a pause ended while deferring and its garbage is not collected yet
_PENDING = [False]
#: the objects the rest of the run may still make (:func:`expect_remaining`); ``None``: not known
_REMAINING: list[int | None] = [None]
#: the most objects left uncollected to the end of the process (the collector's count of objects made and not
#: freed since its last walk, ``gc.get_count()[0]``): the check of ``parallel.py`` leaves about 186 k behind, with
#: the process holding 105 MB
PENDING_BUDGET = 300_000


def expect_remaining(objects: int | None) -> None:
    """Say how many objects the rest of the run may still make (``None``: not known, the default): while
    those and the garbage waiting stay under :data:`PENDING_BUDGET`, a pause that begins leaves that
    garbage to the end of the process (:func:`defer_collection_until_exit`)."""
    _REMAINING[0] = objects


def _fits_until_exit() -> bool:
    """Whether the garbage waiting and what the rest of the run may make stay under :data:`PENDING_BUDGET`."""
    remaining = _REMAINING[0]
    return remaining is not None and gc.get_count()[0] + remaining < PENDING_BUDGET


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the garbage collector (if it runs) for the ``with`` body: a parse, a stored parse read
    back, or one file's whole analysis. Nested uses resume it only at the outermost exit; objects
    that become garbage meanwhile are freed when it resumes (their memory is the file's, at most),
    or, after :func:`defer_collection_until_exit`, when the next pause begins (or never, while the run's
    rest fits: :func:`expect_remaining`). In a host's process the body runs with the collector as it is."""
    if not tune_once("collector", _restore_collector_later):
        yield
        return
    collecting = gc.isenabled() or _PENDING[0]
    if _PENDING[0] and not _fits_until_exit():  # the previous pause's garbage, before this one makes more
        _PENDING[0] = False
        _collect_as_scheduled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if _DEFERRING[0]:
                _PENDING[0] = True
            else:
                gc.enable()


def _restore_collector_later() -> Callable[[], None]:
    """What puts the collector back as it is now, with nothing deferred (when the tool's ownership ends)."""
    enabled = gc.isenabled()

    def restore() -> None:
        _DEFERRING[0] = _PENDING[0] = False
        _REMAINING[0] = None
        if enabled:
            gc.enable()

    return restore


def defer_collection_until_exit() -> None:
    """From now on, collect a pause's garbage when the next pause begins, not when it ends.

    Only for a process that ends without the interpreter's shutdown (``os._exit``, as the CLI's
    :func:`~asynccfg_lint.frontends.cli.console_main`): the collector stays off between pauses, so
    the garbage of the last one is left to the end of the process. Memory stays bounded: each file's
    objects are freed before the next file is parsed, unless they and all the run may still make stay
    under :data:`PENDING_BUDGET` (:func:`expect_remaining`). Only in a process the tool owns.
    """
    if tune_once("collector", _restore_collector_later):
        _DEFERRING[0] = True


@contextlib.contextmanager
def collection_deferred() -> Iterator[None]:
    """In the ``with`` body, a pause's end leaves its garbage pending, as after :func:`defer_collection_until_exit`.

    For work whose result someone is waiting for (the language server's check of a document): the
    collection runs at :func:`collect_pending`, once the result is delivered, or when the next pause begins.
    """
    deferring = _DEFERRING[0]
    _DEFERRING[0] = True
    try:
        yield
    finally:
        _DEFERRING[0] = deferring


def collect_pending() -> None:
    """Turn the collector back on if a deferred pause left it off (its garbage goes at the next allocations)."""
    if _PENDING[0] and not _DEFERRING[0]:
        _PENDING[0] = False
        gc.enable()


def _collect_as_scheduled() -> None:
    """Collect the generation CPython's scheduler would collect next (the oldest whose count passed its
    threshold; at least the youngest), so the older generations are still walked now and then while the
    collector is off between pauses."""
    counts, thresholds = gc.get_count(), gc.get_threshold()
    generation = next((index for index in (2, 1) if thresholds[index] and counts[index] > thresholds[index]), 0)
    gc.collect(generation)
