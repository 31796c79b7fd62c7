"""The garbage collector paused while one file is parsed and analysed.

A parsed file is libcst's tree plus libcst's scope objects, which refer to each other (a scope
to its assignments, each assignment back to its scope and to its node): the tree is freed by
the collector, not by reference counting, once its file is done. Left running, the collector
walks the tree while it is alive, every time its younger generations fill (a sixth of ``check -j 1``
over the benchmark's dense tree of 500 modules); paused for the file, it walks the file's objects
once, when it resumes and most of them are garbage.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the garbage collector (if it runs) for the ``with`` body: a parse, a stored parse read
    back, or one file's whole analysis. Nested uses resume it only at the outermost exit; objects
    that become garbage meanwhile are freed when it resumes (their memory is the file's, at most)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
