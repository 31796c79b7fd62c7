"""What a host process's other tools see of it: libcst's classes and functions, the recursion limit, the thread
stack size and the garbage collector. :func:`host_state` is compared before, during and after the tool runs as a
guest (``tests/test_guest.py``); this file is also copied beside a second flake8 plugin that compares it per file.
"""

from __future__ import annotations

import gc
import sys
import threading

import libcst as cst
from libcst.metadata import scope_provider

#: the attributes of libcst's node classes a tool might replace: hashing, validation, code generation
NODE_ATTRIBUTES = ("__hash__", "__eq__", "__post_init__", "_validate", "_codegen", "_codegen_impl",
                   "_safe_to_use_with_word_operator", "__getattribute__")


def node_classes() -> list[type]:
    """``libcst.CSTNode`` and every subclass of it that libcst defines (a tool's own subclasses are its own)."""
    classes, pending = [cst.CSTNode], [cst.CSTNode]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass not in classes:
                classes.append(subclass)
                pending.append(subclass)
    return [kind for kind in classes if kind.__module__.startswith("libcst.")]


def host_state() -> dict[str, object]:
    """Everything a guest must leave as it found it, by name (functions compared by identity)."""
    state: dict[str, object] = {
        f"{kind.__qualname__}.{name}": vars(kind).get(name)
        for kind in node_classes() for name in NODE_ATTRIBUTES
    }
    state.update({f"scope_provider.{name}": value for name, value in vars(scope_provider).items() if callable(value)})
    state.update({
        "recursion limit": sys.getrecursionlimit(),
        "thread stack size": threading.stack_size(),
        "collector enabled": gc.isenabled(),
        "collector thresholds": gc.get_threshold(),
        "frozen objects": gc.get_freeze_count(),
    })
    return state


def changes(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """The names whose values differ between two :func:`host_state` results."""
    return sorted(name for name in before.keys() | after.keys() if before.get(name) is not after.get(name)
                  and before.get(name) != after.get(name))


def invalid_node_is_rejected() -> bool:
    """Whether libcst validates a node made now (``Name("")`` raises ``CSTValidationError``)."""
    try:
        cst.Name("")
    except cst.CSTValidationError:
        return True
    return False
