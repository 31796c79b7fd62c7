"""Prefilter stage: skip the parse when the text cannot contain a sink call.

Every way to reach a sink (import, alias, ``functools.partial``) names the sink's last
dotted component somewhere in the file, so a file without any of those names has no finding.
A wrapper (derived sink) is also reached only from its own module or through an import that
names that module.
"""

from __future__ import annotations

from collections.abc import Iterable

from asynccfg_lint.jax_facts import SinkSpec


def mentions_sink(source: str | bytes, sink_names: Iterable[str]) -> bool:
    """Return True when ``source`` contains one of ``sink_names`` as a substring.

    Args:
        source: the file's text, or its raw bytes (names are ASCII, so no decode is needed).
        sink_names: short (unqualified) names, e.g. ``_emit_async_start_custom_call``.
    """
    if isinstance(source, bytes):
        return any(name.encode("ascii") in source for name in sink_names)
    return any(name in source for name in sink_names)


def may_call(source: str | bytes, module: str, spec: SinkSpec) -> bool:
    """Whether the module ``module`` (its text or bytes ``source``) may call ``spec``: substring tests.

    A built-in or configured sink must be named. A wrapper (``spec.wrapper_module`` set) must be
    named, and the file must be that module or mention its last dotted component: wrapper names
    such as ``lower`` are common words, and the module's name keeps the prefilter from parsing
    every file that contains them.
    """
    if not mentions_sink(source, spec.short_names):
        return False
    if spec.wrapper_module is None or spec.wrapper_module == module:
        return True
    return mentions_sink(source, {spec.wrapper_module.rpartition(".")[2]})


def may_call_any(source: str | bytes, module: str, sinks: Iterable[SinkSpec], own: bool = True) -> bool:
    """Whether ``source`` may call one of ``sinks`` (see :func:`may_call`).

    With ``own=False`` the module's own wrappers do not count (a project's later rounds: each
    module is already closed over its own wrappers).
    """
    return any(may_call(source, module, spec) for spec in sinks if own or spec.wrapper_module != module)
