"""Configs parsed from a constant string: ``json.loads('{"alpha": NaN}')``, ``tomllib.loads("stamp = 1979-05-27")``.

The result's values are known exactly: the linter parses the same text with the same library
(CPython 3.12's ``json`` accepts ``NaN``/``Infinity``, which XLA's compile then rejects; ``tomllib``
gives ``datetime.date`` for a bare date, which JAX's hook rejects). Each value of the result stands
in the code as a stand-in node (a ``cst.Ellipsis`` no source holds: no name to resolve) that the dict tracer puts in its
entries and the classifier reads back with :meth:`LoadedValues.loaded`; the findings are reported
at the ``loads`` call.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass

import libcst as cst

from asynccfg_lint.analysis.functions import bind_arguments, parameter_of, returns_of
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import qualified_names, string_value

#: the parsers folded, by qualified name
LOADERS = {"json.loads": json.loads, "tomllib.loads": tomllib.loads}
#: longer constant texts are not parsed (a data file pasted into the code): their result stays unknown
MAX_TEXT = 100_000


@dataclass(frozen=True)
class Loaded:
    """A value of a folded ``loads`` call: ``value`` (a Python object), reported at ``call``."""

    call: cst.Call
    value: object


def constant_text(parsed: ParsedModule, call: cst.Call) -> object | None:
    """The text of ``call`` when it is ``json.loads``/``tomllib.loads`` of one string literal, else ``None``."""
    if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None
    text = string_value(call.args[0].value)
    if text is None or len(text) > MAX_TEXT or not qualified_names(parsed, call.func) & LOADERS.keys():
        return None
    return text


class LoadedValues:
    """The stand-ins of one module's folded ``loads`` calls (one per dict tracer: ids stay valid while it lives)."""

    def __init__(self) -> None:
        self._by_node: dict[int, tuple[cst.Ellipsis, Loaded]] = {}
        self._results: dict[int, cst.Ellipsis | None] = {}

    def result(self, parsed: ParsedModule, call: cst.Call) -> cst.Ellipsis | None:
        """The stand-in of what ``call`` returns when it is a foldable ``loads`` call that parses, else ``None``
        (a text that does not parse raises before any config is built: nothing to report)."""
        text = constant_text(parsed, call)
        return self.parsed(call, qualified_names(parsed, call.func), text) if isinstance(text, str) else None

    def through_helper(self, home: ParsedModule, function: cst.FunctionDef, call: cst.Call) -> cst.Ellipsis | None:
        """What ``call`` returns when ``function`` (of ``home``) is ``return json.loads(text)`` of a parameter
        (``def from_json(text): return json.loads(text)``) and ``call`` passes a string literal for it."""
        returned = [r.value for r in returns_of(function)]
        if len(returned) != 1 or not isinstance(returned[0], cst.Call) or len(returned[0].args) != 1 \
                or returned[0].args[0].keyword is not None or returned[0].args[0].star:
            return None
        loader = qualified_names(home, returned[0].func) & LOADERS.keys()
        parameter = parameter_of(home, returned[0].args[0].value, function) if loader else None
        bound = bind_arguments(function, call) if parameter is not None else None
        text = string_value(bound.get(parameter)) if bound is not None else None
        return self.parsed(call, loader, text) if text is not None and len(text) <= MAX_TEXT else None

    def parsed(self, call: cst.Call, loader: set[str] | frozenset[str], text: str) -> cst.Ellipsis | None:
        """The stand-in of ``text`` parsed by the loader named in ``loader`` (one of :data:`LOADERS`), for ``call``."""
        if id(call) not in self._results:
            (name,) = set(loader) & LOADERS.keys()
            try:
                self._results[id(call)] = self.stand_in(call, LOADERS[name](text))
            except (ValueError, RecursionError):  # json.JSONDecodeError and tomllib.TOMLDecodeError are ValueErrors
                self._results[id(call)] = None
        return self._results[id(call)]

    def stand_in(self, call: cst.Call, value: object) -> cst.Ellipsis:
        """A new node standing for ``value``, a part of what ``call`` returns."""
        node = cst.Ellipsis()
        self._by_node[id(node)] = (node, Loaded(call, value))
        return node

    def loaded(self, node: cst.CSTNode) -> Loaded | None:
        """What the stand-in ``node`` holds; ``None`` for any other node."""
        found = self._by_node.get(id(node))
        return found[1] if found is not None and found[0] is node else None
