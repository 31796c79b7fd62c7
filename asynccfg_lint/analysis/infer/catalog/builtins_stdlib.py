"""Builtins and standard-library types: JSON builtins, pathlib, datetime, uuid, re, functools.partial,
range, collections (Counter, OrderedDict and their views), types.SimpleNamespace, argparse.

Measured on CPython 3.12 with ``json.dumps(..., default=_json_default)`` of jax 0.12.0.1.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, METHOD, OPERATOR, CallRow, MemberRow, TypeRow

IMPORTS = "import argparse, collections, datetime, functools, operator, pathlib, re, types, uuid"

PATH = T.rejected("pathlib.Path", "use str(...)", fix=T.STR_FIX)
TIMEDELTA = T.rejected("datetime.timedelta", "use x.total_seconds()")
UUID = T.rejected("uuid.UUID", "use str(...)")
PATTERN = T.rejected("re.Pattern", "use x.pattern")
PARTIAL = T.rejected("functools.partial object", "call it, or pass its name as a string")
RANGE = T.rejected("range", "use list(...)", fix=T.LIST_FIX)
NAMESPACE = T.rejected("types.SimpleNamespace", "use vars(x)")
ARGPARSE_NAMESPACE = T.rejected("argparse.Namespace", "pass the attributes you mean (each keeps its parsed type)")

ROWS = (
    # the JSON builtins (exact classes: a bool is not an int here)
    TypeRow("builtins.int", T.INT, "builtins.int", "1", "an int serializes and is a valid key", exact=True),
    TypeRow("builtins.float", T.FLOAT, "builtins.float", "1.5", "a float serializes and is a valid key", exact=True),
    TypeRow("builtins.bool", T.BOOL, "builtins.bool", "True", "a bool serializes and is a valid key", exact=True),
    TypeRow("builtins.str", T.STR, "builtins.str", "'a'", "a str serializes and is a valid key", exact=True),
    TypeRow("builtins.list", T.LIST, "builtins.list", "[1]", "a list of JSON values serializes; not a key", exact=True),
    TypeRow("builtins.tuple", T.TUPLE, "builtins.tuple", "(1, 2)", "a tuple serializes as a JSON array; not a key",
            exact=True),
    TypeRow("builtins.dict", T.DICT, "builtins.dict", "{'a': 1}", "a dict with str keys serializes; not a key",
            exact=True),
    TypeRow("builtins.frozenset", T.FROZENSET, "builtins.frozenset", "frozenset({'i'})",
            "a frozenset is rejected by the default hook (and by json as a key)", exact=True),
    TypeRow("JSON value", T.JSON_ANY, "builtins.list", "[1, 2]",
            "what .tolist() of a numeric array gives: nested lists of Python numbers, which serialize"),
    TypeRow("builtins.NoneType", T.NONE, "builtins.NoneType", "None", "None serializes as null", exact=True),
    TypeRow("tuple of int", T.TUPLE.named("tuple of int"), "builtins.tuple", "(2, 4)",
            "a tuple of ints serializes as a JSON array; not a key", exact=True),
    TypeRow("tuple of str", T.TUPLE.named("tuple of str"), "builtins.tuple", "('i',)",
            "a tuple of strs serializes as a JSON array; not a key", exact=True),
    MemberRow("tuple of int", ELEMENT, "", "builtins.int", "an element of a tuple of ints is an int"),
    MemberRow("tuple of str", ELEMENT, "", "builtins.str", "an element of a tuple of strs is a str"),
    CallRow("operator.index", "builtins.int", "operator.index(x) is the int x.__index__() returns", "operator.index(3)"),
    # pathlib
    TypeRow("pathlib.Path", PATH, "pathlib.PurePath", "pathlib.Path('/tmp')",
            "a Path (PosixPath here) is rejected by the default hook; str(p) serializes",
            annotation=("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath")),
    CallRow("pathlib.Path", "pathlib.Path", "Path(...) builds a path", "pathlib.Path('/tmp')"),
    CallRow("pathlib.PurePath", "pathlib.Path", "PurePath(...) builds a path", "pathlib.PurePath('/tmp')"),
    CallRow("pathlib.PosixPath", "pathlib.Path", "PosixPath(...) builds a path", "pathlib.PosixPath('/tmp')"),
    CallRow("pathlib.PurePosixPath", "pathlib.Path", "PurePosixPath(...) builds a path",
            "pathlib.PurePosixPath('/tmp')"),
    CallRow("pathlib.PureWindowsPath", "pathlib.Path", "PureWindowsPath(...) builds a path",
            "pathlib.PureWindowsPath('c:/tmp')"),
    CallRow("pathlib.Path.cwd", "pathlib.Path", "Path.cwd() is a path", "pathlib.Path.cwd()"),
    CallRow("pathlib.Path.home", "pathlib.Path", "Path.home() is a path", "pathlib.Path.home()"),
    MemberRow("pathlib.Path", OPERATOR, "/", "pathlib.Path", "path / 'x' is a path", "{} / 'x'"),
    MemberRow("pathlib.Path", METHOD, "joinpath", "pathlib.Path", "p.joinpath(...) is a path", "{}.joinpath('x')", with_arguments=True),
    MemberRow("pathlib.Path", METHOD, "with_suffix", "pathlib.Path", "p.with_suffix(...) is a path",
              "{}.with_suffix('.x')", with_arguments=True),
    MemberRow("pathlib.Path", METHOD, "with_name", "pathlib.Path", "p.with_name(...) is a path", "{}.with_name('y')", with_arguments=True),
    MemberRow("pathlib.Path", METHOD, "resolve", "pathlib.Path", "p.resolve() is a path"),
    MemberRow("pathlib.Path", METHOD, "absolute", "pathlib.Path", "p.absolute() is a path"),
    MemberRow("pathlib.Path", ATTRIBUTE, "parent", "pathlib.Path", "p.parent is a path"),
    MemberRow("pathlib.Path", ATTRIBUTE, "name", "builtins.str", "p.name is a str"),
    MemberRow("pathlib.Path", ATTRIBUTE, "stem", "builtins.str", "p.stem is a str"),
    MemberRow("pathlib.Path", ATTRIBUTE, "suffix", "builtins.str", "p.suffix is a str"),
    MemberRow("pathlib.Path", METHOD, "as_posix", "builtins.str", "p.as_posix() is a str"),
    MemberRow("pathlib.Path", METHOD, "exists", "builtins.bool", "p.exists() is a bool"),
    MemberRow("pathlib.Path", METHOD, "is_dir", "builtins.bool", "p.is_dir() is a bool"),
    MemberRow("pathlib.Path", METHOD, "is_file", "builtins.bool", "p.is_file() is a bool"),
    # datetime
    TypeRow("datetime.datetime", T.DATETIME, "datetime.datetime", "datetime.datetime(2020, 1, 2)",
            "a datetime is rejected; x.isoformat() is a str", annotation=("datetime.datetime",)),
    TypeRow("datetime.date", T.DATE, "datetime.date", "datetime.date(2020, 1, 2)",
            "a date is rejected; x.isoformat() is a str", annotation=("datetime.date",)),
    TypeRow("datetime.time", T.rejected("datetime.time", "use x.isoformat()"), "datetime.time",
            "datetime.time(1, 2)", "a time is rejected"),
    TypeRow("datetime.timedelta", TIMEDELTA, "datetime.timedelta", "datetime.timedelta(seconds=5)",
            "a timedelta is rejected; x.total_seconds() is a float",
            annotation=("datetime.timedelta",)),
    CallRow("datetime.datetime", "datetime.datetime", "datetime(...) is a datetime", "datetime.datetime(2020, 1, 2)"),
    CallRow("datetime.datetime.now", "datetime.datetime", "datetime.now() is a datetime", "datetime.datetime.now()"),
    CallRow("datetime.datetime.fromtimestamp", "datetime.datetime", "datetime.fromtimestamp(t) is a datetime",
            "datetime.datetime.fromtimestamp(0)"),
    CallRow("datetime.datetime.fromisoformat", "datetime.datetime", "datetime.fromisoformat(s) is a datetime",
            "datetime.datetime.fromisoformat('2020-01-02')"),
    CallRow("datetime.date", "datetime.date", "date(...) is a date", "datetime.date(2020, 1, 2)"),
    CallRow("datetime.date.today", "datetime.date", "date.today() is a date", "datetime.date.today()"),
    CallRow("datetime.time", "datetime.time", "time(...) is a time", "datetime.time(1, 2)"),
    CallRow("datetime.timedelta", "datetime.timedelta", "timedelta(...) is a timedelta",
            "datetime.timedelta(seconds=5)"),
    MemberRow("datetime.datetime", OPERATOR, "-", "datetime.timedelta", "the difference of datetimes is a timedelta",
              "{} - datetime.datetime(2019, 1, 1)"),
    MemberRow("datetime.datetime", METHOD, "isoformat", "builtins.str", "d.isoformat() is a str"),
    MemberRow("datetime.datetime", METHOD, "timestamp", "builtins.float", "d.timestamp() is a float"),
    MemberRow("datetime.datetime", METHOD, "date", "datetime.date", "d.date() is a date"),
    MemberRow("datetime.datetime", ATTRIBUTE, "year", "builtins.int", "d.year is an int"),
    MemberRow("datetime.date", METHOD, "isoformat", "builtins.str", "d.isoformat() is a str"),
    MemberRow("datetime.timedelta", METHOD, "total_seconds", "builtins.float", "td.total_seconds() is a float"),
    MemberRow("datetime.timedelta", ATTRIBUTE, "days", "builtins.int", "td.days is an int"),
    MemberRow("datetime.timedelta", ATTRIBUTE, "seconds", "builtins.int", "td.seconds is an int"),
    # uuid
    TypeRow("uuid.UUID", UUID, "uuid.UUID", "uuid.uuid4()", "a UUID is rejected; str(u) or u.hex is a str",
            annotation=("uuid.UUID",)),
    CallRow("uuid.uuid4", "uuid.UUID", "uuid4() is a UUID", "uuid.uuid4()"),
    CallRow("uuid.uuid1", "uuid.UUID", "uuid1() is a UUID", "uuid.uuid1()"),
    CallRow("uuid.UUID", "uuid.UUID", "UUID(text) is a UUID", "uuid.UUID(int=1)"),
    MemberRow("uuid.UUID", ATTRIBUTE, "hex", "builtins.str", "u.hex is a str"),
    MemberRow("uuid.UUID", ATTRIBUTE, "int", "builtins.int", "u.int is an int"),
    # re
    TypeRow("re.Pattern", PATTERN, "re.Pattern", "re.compile('a+')", "a compiled pattern is rejected"),
    CallRow("re.compile", "re.Pattern", "re.compile(...) is a Pattern", "re.compile('a+')"),
    MemberRow("re.Pattern", ATTRIBUTE, "pattern", "builtins.str", "p.pattern is a str"),
    MemberRow("re.Pattern", ATTRIBUTE, "flags", "builtins.int", "p.flags is an int"),
    # functools.partial (the sink's own partial is found by the sink finder, not here)
    TypeRow("functools.partial", PARTIAL, "functools.partial", "functools.partial(int, '1')",
            "a partial object is rejected"),
    CallRow("functools.partial", "functools.partial", "partial(f, ...) is a partial object",
            "functools.partial(int, '1')"),
    # range
    TypeRow("builtins.range", RANGE, "builtins.range", "range(3)", "a range is rejected; list(r) serializes"),
    CallRow("builtins.range", "builtins.range", "range(...) is a range", "range(3)"),
    MemberRow("builtins.range", ELEMENT, "", "builtins.int", "an element of a range is an int"),
    # collections: the mappings serialize (dict subclasses), their key/value/item views do not
    TypeRow("collections.Counter", T.DICT.named("collections.Counter"), "collections.Counter",
            "collections.Counter('aab')", "a Counter is a dict subclass: it serializes"),
    TypeRow("collections.OrderedDict", T.DICT.named("collections.OrderedDict"), "collections.OrderedDict",
            "collections.OrderedDict(i=2)", "an OrderedDict is a dict subclass: it serializes"),
    TypeRow("dict_keys", T.DICT_KEYS, "builtins.dict_keys", "{'a': 1}.keys()", "a dict's key view is rejected"),
    TypeRow("dict_values", T.DICT_VALUES, "builtins.dict_values", "{'a': 1}.values()",
            "a dict's value view is rejected"),
    TypeRow("dict_items", T.DICT_ITEMS, "builtins.dict_items", "{'a': 1}.items()", "a dict's item view is rejected"),
    TypeRow("odict_keys", T.DICT_KEYS.named("odict_keys"), "builtins.dict_keys",
            "collections.OrderedDict(i=2).keys()", "an OrderedDict's key view is rejected, though the mapping serializes"),
    TypeRow("odict_values", T.DICT_VALUES.named("odict_values"), "builtins.dict_values",
            "collections.OrderedDict(i=2).values()", "an OrderedDict's value view is rejected"),
    TypeRow("odict_items", T.DICT_ITEMS.named("odict_items"), "builtins.dict_items",
            "collections.OrderedDict(i=2).items()", "an OrderedDict's item view is rejected"),
    CallRow("collections.Counter", "collections.Counter", "Counter(...) is a Counter", "collections.Counter('aab')"),
    MemberRow("collections.Counter", METHOD, "keys", "dict_keys", "a Counter's keys() is a dict_keys view"),
    MemberRow("collections.Counter", METHOD, "values", "dict_values", "a Counter's values() is a dict_values view"),
    MemberRow("collections.OrderedDict", METHOD, "keys", "odict_keys", "an OrderedDict's keys() is odict_keys"),
    MemberRow("collections.OrderedDict", METHOD, "values", "odict_values", "an OrderedDict's values() is odict_values"),
    MemberRow("collections.OrderedDict", METHOD, "items", "odict_items", "an OrderedDict's items() is odict_items"),
    # types.SimpleNamespace and argparse
    TypeRow("types.SimpleNamespace", NAMESPACE, "types.SimpleNamespace", "types.SimpleNamespace(a=1)",
            "a SimpleNamespace is rejected; vars(ns) is a dict"),
    CallRow("types.SimpleNamespace", "types.SimpleNamespace", "SimpleNamespace(...) is a namespace",
            "types.SimpleNamespace(a=1)"),
    TypeRow("argparse.ArgumentParser", T.OBJECT.named("argparse.ArgumentParser"), "argparse.ArgumentParser",
            "argparse.ArgumentParser()", "a parser is rejected"),
    TypeRow("argparse.Namespace", ARGPARSE_NAMESPACE, "argparse.Namespace", "argparse.Namespace(a=1)",
            "parsed arguments are an argparse.Namespace, which is rejected",
            annotation=("argparse.Namespace",)),
    CallRow("argparse.ArgumentParser", "argparse.ArgumentParser", "ArgumentParser() is a parser",
            "argparse.ArgumentParser()"),
    CallRow("argparse.Namespace", "argparse.Namespace", "Namespace(...) is a namespace", "argparse.Namespace(a=1)"),
    MemberRow("argparse.ArgumentParser", METHOD, "parse_args", "argparse.Namespace",
              "parser.parse_args(...) is a Namespace", "{}.parse_args([])", with_arguments=True),
)
