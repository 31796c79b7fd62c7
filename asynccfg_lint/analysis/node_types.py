"""Type tests of libcst nodes by exact type, for the walks that make one per node.

Every libcst node class has ``ABCMeta`` as its metaclass (``CSTNode`` is an ``abc.ABC``), so
``isinstance(node, cst.Call)`` is a C test only when ``node`` is exactly a ``Call``; any other
node goes through ``ABCMeta.__instancecheck__``, a Python-level call (129 k of them in one
analysis of ``jax/_src/lax/parallel.py``). A node's type is one of libcst's classes (its parser
makes no others), so ``type(node) in instance_types(kinds)`` — a set lookup — gives the same answer.
"""

from __future__ import annotations

import functools

import libcst as cst

# a skeleton's left-out block: a node class the sets below must hold
from asynccfg_lint.analysis.elision import ElidedBlock  # noqa: F401


def _subclasses(kind: type) -> set[type]:
    """``kind`` and every class derived from it, at any depth."""
    found, pending = {kind}, [kind]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass not in found:
                found.add(subclass)
                pending.append(subclass)
    return found


@functools.cache
def instance_types(kinds: tuple[type, ...]) -> frozenset[type]:
    """The classes whose instances ``isinstance(x, kinds)`` accepts: each of ``kinds`` and its subclasses.

    Args:
        kinds: classes, concrete (``cst.Call``) or abstract (``cst.BaseSuite``, libcst's ``BaseAssignment``).
    Returns:
        a frozenset to test ``type(node) in ...`` against (computed once per ``kinds``, when libcst's
        classes all exist: a class derived later is not in it).
    """
    return frozenset().union(*(_subclasses(kind) for kind in kinds))


#: every libcst node class: ``type(value) in NODE_TYPES`` is ``isinstance(value, cst.CSTNode)``
NODE_TYPES = instance_types((cst.CSTNode,))
