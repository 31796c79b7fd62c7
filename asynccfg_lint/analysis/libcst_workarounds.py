"""Workarounds of libcst 1.9.0 on CPython 3.12: validation checks that raise on valid code, and
recursion through C (a ``**kwargs`` call, a recursive generator) that CPython 3.12's fixed C
recursion limit ends on deep files whatever ``sys.setrecursionlimit`` says; and a node's hash
computed in Python. Each replacement is the same rule written without the defect, installed only
while the defect is present.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import libcst as cst


def repair_validation() -> None:
    """Work around two libcst bugs that make valid files unparsable (each repaired only while present).

    libcst validates every node it builds, and two of those checks raise instead of answering
    (libcst 1.9.0 on CPython 3.12), so ``parse_module`` fails on valid code:

    - ``Lambda._safe_to_use_with_word_operator`` calls zero-argument ``super()`` in a class its
      ``@add_slots`` re-creates (CPython issue 90562, fixed in 3.14), so a parenthesized lambda
      right after a keyword (``return(lambda: x)``, ``not(lambda: x)``, ``assert(lambda: x)``)
      raises ``TypeError: super(type, obj): obj must be an instance or subtype of type``;
    - ``Asynchronous._validate`` reads ``whitespace_after.value``, which the whitespace after
      ``async`` has not when a line break follows it inside brackets (``[v async\n for v in g]``):
      ``AttributeError: 'ParenthesizedWhitespace' object has no attribute 'value'``.

    Each method is replaced by the same rule written without the bug.
    """
    from libcst._nodes.expression import ExpressionPosition

    def lambda_safe_to_use_with_word_operator(self: cst.Lambda, position: ExpressionPosition) -> bool:
        if position == ExpressionPosition.LEFT:
            return len(self.rpar) > 0 or self.body._safe_to_use_with_word_operator(position)
        return cst.BaseExpression._safe_to_use_with_word_operator(self, position)

    def asynchronous_validate(self: cst.Asynchronous) -> None:
        if self.whitespace_after.empty:
            raise cst.CSTValidationError("Must have at least one space after Asynchronous.")

    try:
        cst.parse_expression("not(lambda: 0)")
    except TypeError:
        cst.Lambda._safe_to_use_with_word_operator = lambda_safe_to_use_with_word_operator  # type: ignore
    try:
        cst.parse_expression("[v async\n for v in g]")
    except AttributeError:
        cst.Asynchronous._validate = asynchronous_validate  # type: ignore[method-assign]


def identity_hash_in_c() -> None:
    """Hash libcst's nodes with ``object.__hash__``, the interpreter's own identity hash, instead of libcst's
    ``CSTNode.__hash__`` (``return id(self)``, a Python call on every dict or set operation keyed by a node).

    libcst 1.9.0 compares nodes by identity (``CSTNode.__eq__``: ``self is other``) and hashes them by identity,
    so any identity hash keeps every dict and set of nodes the same; its copy in each node class's own namespace
    (381 classes) is replaced where it is that function. The analysis keys its parents, scopes and facts by node:
    about a million hashes over the benchmark's dense tree (100 of its modules: 2.4 % fewer instructions).
    A dict of nodes made before this runs would no longer find its keys (the hash values differ): it runs when
    :mod:`asynccfg_lint.analysis.parse` is imported, before any of the analysis's trees is made.
    """
    python_hash = cst.CSTNode.__dict__.get("__hash__")
    if python_hash is None or cst.CSTNode.__eq__(cst.Name("a"), cst.Name("a")):
        return  # (not the identity rule this replaces)
    classes, pending = [cst.CSTNode], [cst.CSTNode]
    while pending:
        for subclass in pending.pop().__subclasses__():
            if subclass not in classes:
                classes.append(subclass)
                pending.append(subclass)
    for kind in classes:
        if kind.__dict__.get("__hash__") is python_hash:
            kind.__hash__ = object.__hash__  # type: ignore[method-assign]


#: the keyword sets libcst 1.9.0's nodes pass to ``_codegen``, each with a call that names them (no ``**`` spread)
_KEYWORD_CALLS: dict[frozenset[str], Callable] = {
    frozenset({"is_elif"}): lambda impl, state, kw: impl(state, is_elif=kw["is_elif"]),
    frozenset({"default_comma"}): lambda impl, state, kw: impl(state, default_comma=kw["default_comma"]),
    frozenset({"default_comma", "default_comma_whitespace"}): lambda impl, state, kw: impl(
        state, default_comma=kw["default_comma"], default_comma_whitespace=kw["default_comma_whitespace"]),
    frozenset({"default_comma", "default_star"}): lambda impl, state, kw: impl(
        state, default_comma=kw["default_comma"], default_star=kw["default_star"]),
    frozenset({"default_indicator"}): lambda impl, state, kw: impl(state, default_indicator=kw["default_indicator"]),
    frozenset({"default_space"}): lambda impl, state, kw: impl(state, default_space=kw["default_space"]),
    frozenset({"default_separator"}): lambda impl, state, kw: impl(state, default_separator=kw["default_separator"]),
    frozenset({"default_semicolon"}): lambda impl, state, kw: impl(state, default_semicolon=kw["default_semicolon"]),
}


def codegen_without_c_recursion() -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's code generation (behaviour-identical).

    ``CSTNode._codegen(self, state, **kwargs)`` (libcst 1.9.0) calls ``self._codegen_impl(state,
    **kwargs)``; a call that spreads ``**kwargs`` runs through C in CPython 3.12, which counts it
    against a C recursion limit that ``sys.setrecursionlimit`` does not raise. Positions
    (``PositionProvider``), ``module.code`` and a fix's ``module.bytes`` generate code one level per
    tree level, so a tree about 1 000 levels deep failed however large the stack (measured on
    ``x + x + ...``; ``elif`` chains pass ``is_elif=True`` at every level). This replacement makes
    the same call without the spread: with no keyword, or with one of the keyword sets libcst
    passes (:data:`_KEYWORD_CALLS`, which names them); any other set is libcst's own call.
    Installed on the first deep file (:func:`~asynccfg_lint.analysis.large_stack.on_a_large_stack`), only on CPython 3.12 and later
    (3.11 counts both recursions against the one limit the large-stack thread raises), and only
    while ``_codegen`` is still libcst's.
    """
    if sys.version_info < (3, 12):
        return
    original = cst.CSTNode._codegen
    if getattr(original, "__qualname__", "") != "CSTNode._codegen":
        return  # already replaced (here or by someone else): leave it
    calls = _KEYWORD_CALLS

    def _codegen(self: cst.CSTNode, state, **kwargs) -> None:
        state.before_codegen(self)
        if not kwargs:
            self._codegen_impl(state)
        else:
            call = calls.get(frozenset(kwargs))
            if call is None:
                self._codegen_impl(state, **kwargs)
            else:
                call(self._codegen_impl, state, kwargs)
        state.after_codegen(self)

    _codegen.__qualname__ = "asynccfg_lint._codegen"
    _codegen.__doc__ = original.__doc__
    _codegen.__wrapped__ = original  # type: ignore[attr-defined]
    cst.CSTNode._codegen = _codegen  # type: ignore[method-assign]


def dotted_names_without_c_recursion() -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's ``ScopeProvider`` (behaviour-identical).

    ``libcst.metadata.scope_provider._gen_dotted_names`` (libcst 1.9.0) is a recursive generator:
    each level's ``next()`` of the level below is a C call on CPython 3.12, so ``x.T.T...`` of
    about 1 000 attributes exceeded the C recursion limit whatever the stack. The replacement
    yields the same pairs in the same order from one walk down the chain: for ``a.b.c``
    ``("a.b.c", c), ("a.b", b), ("a", a)``; an attribute of a call (``f().b``) yields what the
    call's function yields; a chain that does not end in a name yields nothing. Installed with
    :func:`_codegen_without_c_recursion`, under the same conditions.
    """
    from libcst.metadata import scope_provider

    if sys.version_info < (3, 12) or scope_provider._gen_dotted_names.__module__ != scope_provider.__name__:
        return

    def _gen_dotted_names(node):
        spine: list[tuple[cst.Attribute, bool]] = []  # each attribute above the name, and whether it is of a call
        while not isinstance(node, cst.Name):
            value = node.value
            of_a_call = isinstance(value, cst.Call)
            if of_a_call:
                value = value.func
            if not isinstance(value, (cst.Attribute, cst.Name)):
                return
            spine.append((node, of_a_call))
            node = value
        names = [(node.value, node)]  # innermost first; yielded in reverse
        for attribute, of_a_call in reversed(spine):
            if not of_a_call:
                names.append((f"{names[-1][0]}.{attribute.attr.value}", attribute))
        yield from reversed(names)

    _gen_dotted_names.__module__ = __name__
    _gen_dotted_names.__wrapped__ = scope_provider._gen_dotted_names  # type: ignore[attr-defined]
    scope_provider._gen_dotted_names = _gen_dotted_names
