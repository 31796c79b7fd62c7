"""Repairs of libcst 1.9.0 on CPython 3.12, for the processes the tool owns only: validation checks that
raise on valid code, and recursion through C (a ``**kwargs`` call, a recursive generator) that CPython
3.12's fixed C recursion limit ends on deep files whatever ``sys.setrecursionlimit`` says.

Each replacement is the same rule written without the defect, installed only while the defect is
present, by :func:`install_libcst_repairs` through :func:`~asynccfg_lint.process_owner.tune_once`, and
put back when the tool's ownership of the process ends. In a host's process (flake8, the codemod)
libcst stays as it is, and a file that needs a repair is reported as ACC001.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import libcst as cst

from asynccfg_lint.analysis.scopes import dotted_names
from asynccfg_lint.process_owner import tune_once


class _Replacements:
    """Attributes replaced for a while; :meth:`restore` puts back what each held."""

    def __init__(self) -> None:
        self._originals: list[tuple[object, str, object]] = []

    def replace(self, owner: object, name: str, value: object) -> None:
        self._originals.append((owner, name, vars(owner)[name]))
        setattr(owner, name, value)

    def restore(self) -> None:
        for owner, name, original in reversed(self._originals):
            setattr(owner, name, original)
        self._originals.clear()


def install_libcst_repairs() -> bool:
    """Install the repairs of this module for as long as the tool owns the process.

    Returns:
        whether they are in effect: False in a host's process, where nothing is changed.
    """
    def install() -> Callable[[], None]:
        replacements = _Replacements()
        repair_validation(replacements)
        codegen_without_c_recursion(replacements)
        dotted_names_without_c_recursion(replacements)
        return replacements.restore

    return tune_once("libcst repairs", install)


def repair_validation(replacements: _Replacements) -> None:
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
    def lambda_safe_to_use_with_word_operator(self: cst.Lambda, position) -> bool:  # noqa: ANN001
        if position.name == "LEFT":  # (libcst's ExpressionPosition is not public)
            return len(self.rpar) > 0 or self.body._safe_to_use_with_word_operator(position)
        return cst.BaseExpression._safe_to_use_with_word_operator(self, position)

    def asynchronous_validate(self: cst.Asynchronous) -> None:
        if self.whitespace_after.empty:
            raise cst.CSTValidationError("Must have at least one space after Asynchronous.")

    try:
        cst.parse_expression("not(lambda: 0)")
    except TypeError:
        replacements.replace(cst.Lambda, "_safe_to_use_with_word_operator", lambda_safe_to_use_with_word_operator)
    try:
        cst.parse_expression("[v async\n for v in g]")
    except AttributeError:
        replacements.replace(cst.Asynchronous, "_validate", asynchronous_validate)


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


def codegen_without_c_recursion(replacements: _Replacements) -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's code generation (behaviour-identical).

    ``CSTNode._codegen(self, state, **kwargs)`` (libcst 1.9.0) calls ``self._codegen_impl(state,
    **kwargs)``; a call that spreads ``**kwargs`` runs through C in CPython 3.12, which counts it
    against a C recursion limit that ``sys.setrecursionlimit`` does not raise. Positions
    (``PositionProvider``), ``module.code`` and a fix's ``module.bytes`` generate code one level per
    tree level, so a tree about 1 000 levels deep failed however large the stack (measured on
    ``x + x + ...``; ``elif`` chains pass ``is_elif=True`` at every level). This replacement makes
    the same call without the spread: with no keyword, or with one of the keyword sets libcst
    passes (:data:`_KEYWORD_CALLS`, which names them); any other set is libcst's own call.
    Only on CPython 3.12 and later (3.11 counts both recursions against the one limit the large-stack
    thread raises), and only while ``_codegen`` is still libcst's.
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
    replacements.replace(cst.CSTNode, "_codegen", _codegen)


def dotted_names_without_c_recursion(replacements: _Replacements) -> None:
    """Workaround for CPython 3.12's fixed C recursion limit in libcst's ``ScopeProvider`` (behaviour-identical).

    ``libcst.metadata.scope_provider._gen_dotted_names`` (libcst 1.9.0) is a recursive generator:
    each level's ``next()`` of the level below is a C call on CPython 3.12, so ``x.T.T...`` of
    about 1 000 attributes exceeded the C recursion limit whatever the stack. The replacement
    is :func:`~asynccfg_lint.analysis.scopes.dotted_names`, the same pairs in the same order from one walk
    down the chain. Under the same conditions as :func:`codegen_without_c_recursion`.
    """
    from libcst.metadata import scope_provider

    if sys.version_info < (3, 12) or scope_provider._gen_dotted_names.__module__ != scope_provider.__name__:
        return

    replacements.replace(scope_provider, "_gen_dotted_names", dotted_names)
