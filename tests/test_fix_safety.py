"""Fixes that must not turn code that lowers into code that fails (trial 6, m19-m22).

- A fix at a ``bind`` keyword (or a wrapper's argument) changes what every use of the parameter sees: it
  is offered only when the rule only puts the parameter into configs (``fixing.argument_fixes``).
- A key conversion is safe only when no other key of the dict can equal the converted key
  (``fixing.key_collisions``).
- ``sorted()`` of a set only when its elements are known to be all numbers or all str; else ``list()``,
  and ``sorted()``/``list()`` of a set keep its elements, so a bad one is still reported.

The fixture programs (``tests/fixtures/fix_safety/``) are fixed through the real CLI and lowered and
compiled by real JAX 0.12.0.1 before and after.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys

import pytest

from asynccfg_lint.analysis.checker import check_source
from tests.expectations import FIXTURES, Expected, expected_diagnostics
from tests.frontend_runs import SINK_IMPORT, run_program
from tests.oracle.driver import CLEAN
from tests.oracle.programs import program_cases, run_programs

FIXTURE_DIR = FIXTURES / "fix_safety"
BIND_KEYWORDS = (FIXTURE_DIR / "bind_keywords.py").read_text(encoding="utf-8")
KEYS_AND_SETS = (FIXTURE_DIR / "keys_and_sets.py").read_text(encoding="utf-8")

#: (line, column, code, (safety, replacement) of the JSON ``fix`` field or None), as ``check`` prints them
BIND_KEYWORD_FIXES = [
    (62, 65, "ACC101", None),  # expect: the rule reads flag.item() in one branch: no fix at the bind (m20)
    (66, 66, "ACC101", None),  # expect: flag = flag.item() under a branch: no fix, not even unsafe (m19)
    (70, 63, "ACC101", ("safe", "bool(np.True_)")),  # expect: the rule only puts flag into its config
    (79, 63, "ACC101", None),  # expect: the **kw wrapper reads kw["flag"].name: no .value at its call (trial 8 F87)
    (98, 66, "ACC101", ("unsafe", "tuple(frozenset({0, 1}))")),  # expect: a tuple: list(...) would fail at bind
]
KEY_AND_SET_FIXES = [
    (37, 58, "ACC102", None),  # expect: int(k) would equal the key "1" as JSON prints it (m22)
    (41, 58, "ACC102", ("safe", "int(np.int64(1))")),  # expect: the other key is 2
    (41, 94, "ACC102", ("unsafe", "int(np.int64(1))")),  # expect: the other key is a parameter
    (45, 57, "ACC101", ("unsafe", 'list({0, "all"})')),  # expect: sorted() raises TypeError on int and str (m21)
    (49, 57, "ACC101", ("unsafe", "sorted({3, 1, 2})")),  # expect: all ints
    (53, 57, "ACC101", ("unsafe", "list({Mode.PUSH})")),  # expect: an Enum member cannot be ordered
]


@pytest.mark.parametrize("name", ["bind_keywords.py", "keys_and_sets.py"])
def test_fixtures_report_what_their_expect_comments_say(name):
    path = FIXTURE_DIR / name
    found = {Expected(d.line, d.column, d.code) for d in check_source(path.read_text(encoding="utf-8"), name)}
    assert found == expected_diagnostics(path)


def _fixes(stdout: str) -> list[tuple]:
    return [(d["line"], d["column"], d["code"], d["fix"] and (d["fix"]["safety"], d["fix"]["replacement"]))
            for d in json.loads(stdout)]


def _copy(tmp_path, folder: str):
    target = tmp_path / folder
    target.mkdir()
    for path in FIXTURE_DIR.glob("*.py"):
        shutil.copy(path, target / path.name)
    return target


def test_fix_fields_of_bind_keywords_keys_and_sets_through_the_cli(tmp_path):
    folder = _copy(tmp_path, "json")
    for name, expected in (("bind_keywords.py", BIND_KEYWORD_FIXES), ("keys_and_sets.py", KEY_AND_SET_FIXES)):
        checked = run_program("check", "--no-cache", "--isolated", "--output-format", "json", name, cwd=folder)
        assert _fixes(checked.stdout) == expected, name


def test_safe_fix_leaves_a_keyword_the_rule_converts_and_keys_that_would_merge(tmp_path):
    folder = _copy(tmp_path, "safe")
    fixed = run_program("fix", "--no-cache", "--isolated", ".", cwd=folder)
    assert fixed.stderr.splitlines()[-1] == ("2 files scanned, 2 files changed, 2 fixes applied, 9 findings left "
                                             "(5 more fixable with --unsafe-fixes)")
    assert (folder / "bind_keywords.py").read_text(encoding="utf-8") == BIND_KEYWORDS.replace(
        "plain_p.bind(x, flag=np.True_)", "plain_p.bind(x, flag=bool(np.True_))")
    assert (folder / "keys_and_sets.py").read_text(encoding="utf-8") == KEYS_AND_SETS.replace(
        '"names": {np.int64(1): "a", 2: "b"}', '"names": {int(np.int64(1)): "a", 2: "b"}')


def _unsafely_fixed(tmp_path):
    folder = _copy(tmp_path, "unsafe")
    return folder, run_program("fix", "--no-cache", "--isolated", "--unsafe-fixes", ".", cwd=folder)


def test_unsafe_fixes_list_an_unorderable_set_and_withhold_one_that_still_holds_a_member(tmp_path):
    folder, fixed = _unsafely_fixed(tmp_path)
    assert fixed.stderr.splitlines() == [
        './keys_and_sets.py: 1 fix left out (53:57 ACC101): the fixed source does not re-check clean at the fixed '
        'sites: ACC101 an element under key "modes" is enum.Enum member Mode, which JAX cannot serialize to JSON: '
        'lowering raises ValueError; use x.value (or x.name)',
        "2 files scanned, 2 files changed, 6 fixes applied, 5 findings left",
    ]
    assert (folder / "bind_keywords.py").read_text(encoding="utf-8") == BIND_KEYWORDS.replace(
        "plain_p.bind(x, flag=np.True_)", "plain_p.bind(x, flag=bool(np.True_))").replace(
        "groups=frozenset({0, 1})", "groups=tuple(frozenset({0, 1}))")
    assert (folder / "keys_and_sets.py").read_text(encoding="utf-8") == KEYS_AND_SETS.replace(
        '"names": {np.int64(1): "a", 2: "b"}, "more": {np.int64(1): "a", extra: "b"}',
        '"names": {int(np.int64(1)): "a", 2: "b"}, "more": {int(np.int64(1)): "a", extra: "b"}').replace(
        '"peers": {0, "all"}', '"peers": list({0, "all"})').replace('"peers": {3, 1, 2}', '"peers": sorted({3, 1, 2})')


@pytest.mark.oracle
def test_real_jax_lowers_what_lowered_before_and_the_fixed_faults(tmp_path):
    """Before: the m19/m20 look-alikes lower (the rule takes ``.item()``), the rest fail as declared. After
    ``fix --unsafe-fixes``: nothing that lowered fails, the fixed faults lower (the keys stay two), and the
    faults left unfixed fail as before."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    before = _copy(tmp_path, "before")
    after, _ = _unsafely_fixed(tmp_path)
    declared = {}
    for root, expected in ((before, None), (after, {
        "bind_keywords.case_plain": CLEAN, "bind_keywords.case_groups": CLEAN, "keys_and_sets.case_distinct": CLEAN, "keys_and_sets.case_mixed": CLEAN,
        "keys_and_sets.case_numbers": CLEAN,
    })):
        cases = [c for name in ("bind_keywords", "keys_and_sets") for c in program_cases(root / f"{name}.py", name)]
        declared = {c.id: c.declared for c in cases}
        outcomes = run_programs([str(root)], cases)
        assert {i: o.verdict for i, o in outcomes.items()} == {**declared, **(expected or {})}, root.name
    assert declared == {  # expect: as written on the cases' def lines
        "bind_keywords.case_branchy": CLEAN, "bind_keywords.case_narrowed": CLEAN, "bind_keywords.case_plain": "ACC101",
        "bind_keywords.case_logged": "ACC101", "bind_keywords.case_logged_int_enum": CLEAN,
        "bind_keywords.case_groups": "ACC101", "bind_keywords.case_groups_tuple": CLEAN,
        "keys_and_sets.case_merged": "ACC102", "keys_and_sets.case_distinct": "ACC102",
        "keys_and_sets.case_mixed": "ACC101", "keys_and_sets.case_numbers": "ACC101",
        "keys_and_sets.case_members": "ACC101",
    }
    config = json.loads(outcomes["keys_and_sets.case_distinct"].config)
    assert (config["names"], config["more"]) == ({"1": "a", "2": "b"}, {"1": "a", "2": "b"})  # expect: no key merged
    assert json.loads(outcomes["keys_and_sets.case_numbers"].config)["peers"] == [1, 2, 3]


def _fix_of(source: str) -> list[tuple]:
    return [(d.line, d.code, d.fix and (d.fix.safety, d.fix.replacement))
            for d in check_source(SINK_IMPORT + source, "m.py", with_fixes=True)]


def test_a_wrapper_argument_keeps_its_fix_only_when_the_wrapper_passes_it_on():
    source = ("import numpy as np\n\n\n"
              "def passes(ctx, x, flag):\n    return emit('t', ctx, x, {'flag': flag})\n\n\n"
              "def reads(ctx, x, flag):\n    if flag.item():\n        return emit('t', ctx, x, {})\n"
              "    return emit('t', ctx, x, {'flag': flag})\n\n\n"
              "def relays(ctx, x, flag):\n    return passes(ctx, x, flag=flag)\n\n\n"
              "def lower(ctx, x):\n    passes(ctx, x, np.True_)\n    reads(ctx, x, np.True_)\n"
              "    relays(ctx, x, np.True_)\n")
    assert _fix_of(source) == [  # expect: the fix where the value only reaches configs, none where .item() needs it
        (20, "ACC101", ("safe", "bool(np.True_)")),
        (21, "ACC101", None),
        (22, "ACC101", ("safe", "bool(np.True_)")),
    ]


@pytest.mark.parametrize(("display", "expected"), [
    ('{np.int64(1): "a", 1: "b"}', None),  # expect: equal keys (one entry already)
    ('{np.int64(1): "a", True: "b"}', None),  # expect: 1 == True
    ('{np.int64(1): "a", 1.5: "b"}', ("safe", "int(np.int64(1))")),
    ('{np.int64(1): "a", np.int64(2): "b"}', ("safe", "int(np.int64(1))")),  # expect: both fixed, still apart
    ('{np.int64(1): "a", np.int64(1): "b"}', None),
    ('{np.int64(1): "a", **extra}', ("unsafe", "int(np.int64(1))")),  # expect: the spread's keys are unknown
])
def test_a_key_fix_is_safe_only_when_no_other_key_can_equal_the_converted_key(display, expected):
    source = f"import numpy as np\n\n\ndef lower(ctx, x, extra):\n    emit('t', ctx, x, {{'k': {display}}})\n"
    assert _fix_of(source)[0] == (6, "ACC102", expected)


@pytest.mark.parametrize("call", ["sorted", "list", "tuple"])
def test_a_copy_of_a_set_keeps_its_elements_to_check(call):
    source = ("import enum\n\n\nclass Mode(enum.Enum):\n    PUSH = 'push'\n\n\n"
              f"def lower(ctx, x):\n    emit('t', ctx, x, {{'modes': {call}({{Mode.PUSH}}), 'ok': {call}({{1, 2}})}})\n")
    diagnostics = check_source(SINK_IMPORT + source, "m.py")
    assert [(d.line, d.column, d.code) for d in diagnostics] == [(10, 35 + len(call), "ACC101")]  # expect: the member
    assert "enum.Enum member Mode" in diagnostics[0].message


#: trial 7, C61/C62: attrs converters and ``__post_init__`` make the fields of the clean cases values already
CONVERTED_FIELDS = FIXTURES / "programs" / "converted_fields.py"
#: the one fix ``fix --unsafe-fixes`` makes there: a converter that passes the argument on keeps the member
CONVERTED_FIX = ('"mode": opts.mode})\n\n\ndef _lambdaed', '"mode": opts.mode.value})\n\n\ndef _lambdaed')


def _converted_fixed(tmp_path):
    folder = tmp_path / "converted"
    folder.mkdir()
    shutil.copy(CONVERTED_FIELDS, folder / CONVERTED_FIELDS.name)
    fixed = run_program("fix", "--no-cache", "--isolated", "--unsafe-fixes", CONVERTED_FIELDS.name, cwd=folder)
    return folder, fixed


def test_unsafe_fixes_leave_converted_fields_that_lower_byte_for_byte(tmp_path):
    """Before, ``Valued(Mode.PULL).mode`` (an attrs ``converter=_to_value``) was ACC101 with an unsafe ``.value``
    fix that raised AttributeError on the converted str (trial 7, m18). Now every clean case of the module is
    left as it is: the file changes only at the fault whose converter returns the member unchanged."""
    folder, fixed = _converted_fixed(tmp_path)
    source = CONVERTED_FIELDS.read_text(encoding="utf-8")
    assert source.count(CONVERTED_FIX[0]) == 1
    assert (folder / CONVERTED_FIELDS.name).read_text(encoding="utf-8") == source.replace(*CONVERTED_FIX)
    assert fixed.stderr.splitlines()[-1] == "1 file scanned, 1 file changed, 1 fix applied, 3 findings left"


def test_unsafe_fixes_leave_a_clean_converted_module_untouched(tmp_path):
    """A module holding only the clean look-alikes (the fault rules cut out) is byte-for-byte unchanged."""
    source = CONVERTED_FIELDS.read_text(encoding="utf-8")
    kept = [part for part in source.split("\n\n\n") if not any(
        name in part for name in ("_moded", "_passed", "_parsed", "Moded(", "Passed(", "Parsed(", "_to_mode",
                                  "case_converter_to_the_member", "case_converter_passing", "case_post_init_parses",
                                  "Reparsed", "_reparsed", "case_init_parses"))]
    clean = "\n\n\n".join(kept)
    path = tmp_path / "clean_converted.py"
    path.write_bytes(clean.encode("utf-8"))
    assert check_source(clean, "clean_converted.py") == []
    fixed = run_program("fix", "--no-cache", "--isolated", "--unsafe-fixes", path.name, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert path.read_bytes() == clean.encode("utf-8")


@pytest.mark.oracle
def test_real_jax_lowers_the_converted_fields_after_the_unsafe_fix(tmp_path):
    """After ``fix --unsafe-fixes``, every case that lowered still lowers, the fixed one lowers, and the two
    faults left (a converter and a ``__post_init__`` that make the member) still fail."""
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    folder, _ = _converted_fixed(tmp_path)
    cases = program_cases(folder / CONVERTED_FIELDS.name, "converted_fields")
    outcomes = run_programs([str(folder)], cases)
    assert {i: o.verdict for i, o in outcomes.items()} == {
        **{c.id: c.declared for c in cases}, "converted_fields.case_converter_passing_the_member_on": CLEAN}
