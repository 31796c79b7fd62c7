"""Values of other project modules: found by that module's classifier, seen from the checked one.

Each module's nodes are read only with its own metadata, so a value written in another module
is inferred by that module's classifier (through the check's ``workspace``) and carried back
as an :class:`~asynccfg_lint.analysis.infer.values.Origin` with ``home`` and ``source``.
"""

from __future__ import annotations

from typing import Self

import libcst as cst

from asynccfg_lint.analysis.infer.values import Origin
from asynccfg_lint.analysis.parse import ParsedModule


class Relocation:
    """Cross-module lookups for :class:`~asynccfg_lint.analysis.classifier.ValueClassifier` (its ``workspace``)."""

    def _peer(self, home: ParsedModule) -> Self:
        """The classifier of ``home`` (this one when ``home`` is this module)."""
        return self if home is self.parsed or self.workspace is None else self.workspace.classifier(home)

    def _arrived(self, origin: Origin, home: ParsedModule, via: cst.CSTNode) -> Origin:
        """``origin``, found by ``home``'s classifier, as seen from this module: it arrived through ``via``."""
        if origin.home is not None and origin.source is not None:
            home, source = origin.home, origin.source
        else:  # written in `home` (an enum member of a third module's class is judged there too)
            source = origin.node
        if home is self.parsed:  # a module that imports from the checked one
            return Origin(source if source is not None else via, origin.inferred)
        return Origin(via, origin.inferred, home, source)

    def _foreign(self, expr: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """The origins of a value bound in another project module (``TIMEOUT``, ``defaults.TIMEOUT``)."""
        found = self.workspace.foreign(self.parsed, expr) if self.workspace is not None else None
        if not found:
            return None
        result: list[Origin] = []
        for item in found:
            binding = item.binding
            anchor = binding.assignment.node if binding.assignment is not None else binding.value
            origins = self._peer(item.home)._from_bindings(anchor, [binding], depth + 1)
            result.extend(self._arrived(origin, item.home, expr) for origin in origins)
        return result

    def _foreign_definition(self, expr: cst.BaseExpression) -> tuple[ParsedModule, cst.FunctionDef | cst.ClassDef] | None:
        """The ``def``/``class`` of another project module that ``expr`` names, if unique."""
        found = self.workspace.foreign(self.parsed, expr) if self.workspace is not None else None
        if found and len(found) == 1 and found[0].binding.definition is not None:
            return found[0].home, found[0].binding.definition
        return None
