"""argparse: the ``add_argument`` call that defines an attribute of parsed arguments.

``args = parser.parse_args(); args.mode`` is what ``parser.add_argument("--mode", type=Mode)``
makes of the command line: a ``Mode(...)`` call result (an Enum member), a ``str`` without
``type=``, a ``bool`` for ``store_true``, a list for ``nargs="+"`` or ``append``, or the default
when the option is absent. Read by the classifier (``ValueClassifier._parsed_argument``); the
facts are CPython 3.12's ``argparse`` (``_StoreAction``, ``_StoreTrueAction``, ``_AppendAction``,
``_CountAction``, and ``_get_values``, which applies ``type`` to string defaults only).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from asynccfg_lint.analysis.elision import kept_calls
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import string_value

#: actions whose value is a bool (the default is the opposite)
BOOL_ACTIONS = frozenset({"store_true", "store_false", "BooleanOptionalAction"})
#: actions and nargs whose value is a list of converted strings
LIST_ACTIONS = frozenset({"append", "extend"})
LIST_NARGS = frozenset({"*", "+"})


@dataclass(frozen=True)
class Argument:
    """One ``add_argument`` call: what its parsed value is made of.

    Attributes:
        call: the ``add_argument`` call (positions: 1-based line, 0-based column of the module).
        type: the ``type=`` expression, if any (``Mode``, ``int``, ``pathlib.Path``).
        action: the ``action=`` string, if it is a literal (``"store_true"``).
        listed: the value is a list (``nargs="+"``, a number, ``append``).
        default: the ``default=`` expression, if any (used as is when not a string).
    """

    call: cst.Call
    type: cst.BaseExpression | None
    action: str | None
    listed: bool
    default: cst.BaseExpression | None


def parser_of(parse_call: cst.CSTNode) -> cst.Name | None:
    """The parser name of ``parser.parse_args(...)`` / ``parser.parse_known_args(...)``, else ``None``."""
    if (isinstance(parse_call, cst.Call) and isinstance(parse_call.func, cst.Attribute)
            and parse_call.func.attr.value in ("parse_args", "parse_intermixed_args")
            and isinstance(parse_call.func.value, cst.Name)):
        return parse_call.func.value
    return None


def argument(parsed: ParsedModule, parser: cst.Name, dest: str) -> Argument | None:
    """The ``parser.add_argument(...)`` call of the same scope as ``parser`` whose destination is ``dest``.

    ``None`` when there is none or more than one (or an argument group adds it: not followed).
    """
    scope = parsed.scopes.get(parser)
    found: list[Argument] = []
    for call in kept_calls(parsed.calls):  # (a skeleton's left-out bodies hold no node of the parser's kept scope)
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "add_argument"
                and isinstance(func.value, cst.Name) and func.value.value == parser.value
                and parsed.scopes.get(func.value) is scope):
            continue
        keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        names = [string_value(a.value) for a in call.args if a.keyword is None]
        if _dest(names, keywords) != dest:
            continue
        nargs = keywords.get("nargs")
        action = string_value(keywords["action"]) if "action" in keywords else None
        if isinstance(keywords.get("action"), cst.Attribute):
            action = keywords["action"].attr.value  # argparse.BooleanOptionalAction
        listed = (nargs is not None and (string_value(nargs) in LIST_NARGS or isinstance(nargs, cst.Integer))
                  or action in LIST_ACTIONS)
        found.append(Argument(call, keywords.get("type"), action, listed, keywords.get("default")))
    return found[0] if len(found) == 1 else None


def _dest(names: list[str | None], keywords: dict[str, cst.BaseExpression]) -> str | None:
    """argparse's destination: ``dest=``, else the first long option, else the first name (``-`` as ``_``)."""
    if "dest" in keywords:
        return string_value(keywords["dest"])
    if not names or any(n is None for n in names):
        return None
    long = [n for n in names if n.startswith("--")]
    chosen = long[0][2:] if long else names[0].lstrip("-")
    return chosen.replace("-", "_")
