"""Prefilter stage: skip the parse when the text cannot contain a sink call.

Every way to reach a sink (import, alias, ``functools.partial``) names the sink's last
dotted component somewhere in the file, so a file without any of those names has no finding.
"""

from __future__ import annotations

from collections.abc import Iterable


def mentions_sink(source: str | bytes, sink_names: Iterable[str]) -> bool:
    """Return True when ``source`` contains one of ``sink_names`` as a substring.

    Args:
        source: the file's text, or its raw bytes (names are ASCII, so no decode is needed).
        sink_names: short (unqualified) names, e.g. ``_emit_async_start_custom_call``.
    """
    if isinstance(source, bytes):
        return any(name.encode("ascii") in source for name in sink_names)
    return any(name in source for name in sink_names)
