"""What the classifier asks the type model: the catalog types of calls, members and annotations.

Inputs and outputs are names and :class:`~asynccfg_lint.analysis.type_verdicts.PyType` verdicts, never syntax: the
classifier resolves the qualified names and receivers, this module walks the catalog.
"""

from __future__ import annotations

from collections.abc import Iterable

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import METHOD, Catalog, Known

#: a value the model knows: its verdict and its catalog type (one name)
Typed = tuple[T.PyType, Known]


def typed(catalog: Catalog, known: Known | None) -> list[Typed] | None:
    """One ``(verdict, type)`` pair per member of the union ``known`` (name order); ``None`` when unknown."""
    if known is None:
        return None
    return [(catalog.types[name].verdict, Known(frozenset({name}))) for name in sorted(known.names)]


def model_of(catalog: Catalog, pytype: T.PyType | None, known: Known | None) -> Known | None:
    """The catalog type of a value: ``known`` when the catalog produced it, else the type whose verdict
    ``pytype`` is (an ndarray built by ``np.array``, a ``jax.Array`` from ``jnp.int32(3)``, an ``int``)."""
    if known is not None:
        return known
    if pytype is None:
        return None
    kind = T.array_kind(pytype)
    name = catalog.by_verdict.get((kind or pytype).name)
    return Known(frozenset({name})) if name is not None else None


def member(catalog: Catalog, receivers: Iterable[Known | None], kind: str, name: str = "",
           with_arguments: bool = False) -> list[Typed] | None:
    """The type of ``receiver.<name>`` (or its call, operator, element) for every possible receiver.

    ``None`` when some receiver is unknown or lacks the member in the catalog; a method row applies
    to a call with arguments only when it says so (``a.sum(axis=0)`` is an array, ``a.sum()`` a scalar).
    """
    result: list[Typed] = []
    for known in receivers:
        if known is None:
            return None
        found = catalog.member(known, kind, name)
        if found is None:
            return None
        if kind == METHOD and with_arguments and not all(
                catalog.members[(owner, kind, name)].with_arguments for owner in known.names
                if (owner, kind, name) in catalog.members):
            return None
        for item in typed(catalog, found) or ():
            if item not in result:
                result.append(item)
    return result or None
