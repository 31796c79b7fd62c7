"""Skeletons of the project's other modules: what they keep, what reading a left-out part raises, and that a
check through them finds what a check of whole modules finds (the task starts again with the parts it read)."""

from __future__ import annotations

import ast
import pickle
import textwrap
from pathlib import Path

import libcst as cst
import pytest

import asynccfg_lint.analysis.parse as parse
from asynccfg_lint.analysis.checker import check_parsed, check_source
from asynccfg_lint.analysis.elision import ElidedBlock, ElidedBody, kept_calls, skeleton, statement_words, units_to_keep
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS
from asynccfg_lint.analysis.parse import parse_source
from asynccfg_lint.run.discovery import iter_python_files
from asynccfg_lint.run.project import Project
from asynccfg_lint.run.tasks import CheckSettings

#: a check through skeletons is the CLI's (flake8 and the codemod run the same code as guests: tests/test_guest.py)
pytestmark = pytest.mark.usefixtures("owned")

HELPERS = textwrap.dedent('''\
    import enum


    class Mode(enum.Enum):
        PUSH = "push"


    def _table(): return {"depth": 1}


    TABLE = _table()  # (not a display: a skeleton then leaves out what changes it, see units_to_keep)


    def build(depth):
        cfg = dict(TABLE)
        cfg["depth"] = _checked(depth)
        return cfg


    def _checked(depth):
        if depth < 0:
            raise ValueError(depth)
        return depth


    def set_enum_mode():
        previous = TABLE.get("mode")
        TABLE["mode"] = Mode.PUSH
        return previous


    def unrelated(a, b):
        total = a + b
        total += 1
        return total * 2


    def short(x): return x


    def rebinds():
        global COUNTER
        COUNTER = 1
        return COUNTER


    class Holder:
        def __init__(self):
            self.mode = Mode.PUSH
            self.depth = 1
            self.kind = "ring"

        def describe(self):
            text = str(self.mode)
            text += str(self.depth)
            return text
''')


def units_of(parsed) -> set[str]:
    return {unit for unit, _ in parsed.elided}


def test_a_skeleton_keeps_the_code_changing_a_table_bound_by_unpacking_and_what_that_code_names():
    source = textwrap.dedent('''\
        import enum


        class Mode(enum.Enum):
            PUSH = "push"


        class Other(enum.Enum):
            PULL = "pull"


        TABLE, SPARE = {"depth": 1}, None


        def set_default():
            TABLE["mode"] = Mode.PUSH


        def build():
            return dict(TABLE)
    ''')
    tree = ast.parse(source)
    # expect: TABLE, bound to a dict display by unpacking, is changed by set_default, kept with Mode (trial 17)
    # (SPARE: a name of the kept assignment)
    assert units_to_keep(tree, {"build"}, statement_words(tree, source)) == {"build", "TABLE", "SPARE", "set_default",
                                                                            "Mode"}


def test_a_skeleton_keeps_the_member_what_it_names_and_every_line_number():
    tree = ast.parse(HELPERS)
    # expect: what build names, at any depth (TABLE, and _table its assignment calls)
    chunks = statement_words(tree, HELPERS)
    assert units_to_keep(tree, {"build"}, chunks) == {"build", "TABLE", "_table", "_checked"}
    text, removed = skeleton(HELPERS, tree, units_to_keep(tree, {"build"}, chunks))
    # expect: the bodies of set_enum_mode and unrelated left out, and Holder's whole body; `short` (one line) and
    # `rebinds` (global) kept
    assert sorted(removed) == [("Holder", -1), ("set_enum_mode", 0), ("unrelated", 0)]
    assert removed[("unrelated", 0)] == "    total = a + b\n    total += 1\n    return total * 2\n"
    assert removed[("Holder", -1)].startswith("    def __init__(self):\n") and removed[("Holder", -1)].endswith(
        "        return text\n")
    assert len(text.splitlines()) == len(HELPERS.splitlines())  # expect: every line at its number
    kept = [line for line, old in zip(text.splitlines(), HELPERS.splitlines()) if line == old]
    # expect: 3 + 3 + 8 body lines became `...` or blank (Holder's blank line between its methods stays)
    assert len(kept) == len(HELPERS.splitlines()) - 14
    assert text.splitlines()[32:35] == ["    ...", "", ""]  # expect: unrelated's body, lines 33-35


def test_reading_a_left_out_body_names_its_unit_and_a_scan_of_every_call_the_module():
    parsed = parse_source(HELPERS, "pkg/helpers.py", keep={"build"})
    assert units_of(parsed) == {"Holder", "set_enum_mode", "unrelated"}
    assert parsed.module.code == parsed.text  # expect: code generation writes the skeleton's text
    functions = {s.name.value: s for s in parsed.module.body if isinstance(s, cst.FunctionDef)}
    assert type(functions["unrelated"].body) is ElidedBlock
    with pytest.raises(ElidedBody) as raised:
        functions["unrelated"].body.body
    assert (raised.value.path, raised.value.units) == ("pkg/helpers.py", frozenset({"unrelated"}))
    holder = next(s for s in parsed.module.body if isinstance(s, cst.ClassDef) and s.name.value == "Holder")
    with pytest.raises(ElidedBody) as raised:
        holder.body.body[0].body.body  # expect: a method's body names its class
    assert raised.value.units == frozenset({"Holder"})
    with pytest.raises(ElidedBody) as raised:
        list(parsed.calls)
    assert raised.value.units is None  # expect: every call of the module: the whole module
    # expect: the kept code's calls only (TABLE's, build's and _checked's; not Holder's str() calls)
    assert [cst.Module([]).code_for_node(c.func) for c in kept_calls(parsed.calls)] == [
        "_table", "dict", "_checked", "ValueError"]


def test_the_uses_of_a_module_name_a_left_out_body_names_are_not_read_from_a_skeleton():
    parsed = parse_source(HELPERS, "pkg/helpers.py", keep={"build"})
    scope = parsed.scopes[parsed.module]
    (table,) = scope.assignments["TABLE"]
    with pytest.raises(ElidedBody) as raised:
        table.references
    assert raised.value.units == frozenset({"set_enum_mode"})  # expect: the body that writes TABLE[...]
    (checked,) = scope.assignments["_checked"]
    assert len(checked.references) == 1  # expect: named in no left-out body: build's call is its one use
    with pytest.raises(ElidedBody):
        parsed.require("total")
    parsed.require("depth_unknown")  # expect: no left-out body names it: nothing raised


def test_a_skeleton_pickles_with_its_left_out_parts():
    parsed = pickle.loads(pickle.dumps(parse_source(HELPERS, "pkg/helpers.py", keep={"build"}), protocol=5))
    functions = {s.name.value: s for s in parsed.module.body if isinstance(s, cst.FunctionDef)}
    with pytest.raises(ElidedBody) as raised:
        functions["set_enum_mode"].body.body
    assert raised.value.units == frozenset({"set_enum_mode"})
    with pytest.raises(ElidedBody):
        list(parsed.calls)
    with pytest.raises(ElidedBody):
        parsed.scopes[parsed.module].assignments["TABLE"].__iter__().__next__().references


def test_nothing_is_left_out_without_keep_or_when_every_unit_is_kept():
    assert parse_source(HELPERS, "pkg/helpers.py").elided == {}
    every = {"build", "set_enum_mode", "unrelated", "Holder"}
    assert parse_source(HELPERS, "pkg/helpers.py", keep=every).elided == {}


USE = textwrap.dedent('''\
    from jax._src.lax import parallel

    from pkg import helpers


    def lower_table(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, helpers.TABLE)


    def lower_built(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, helpers.build(2))
''')


def check(package: Path, skeletons: bool) -> tuple[list[tuple[int, int, str, str]], Project]:
    project = Project(iter_python_files([str(package)]))
    project.skeletons = skeletons
    path = str(package / "use.py")
    outcome = project.analyse(BUILTIN_SINKS, {path: CheckSettings()})[path]
    return [(d.line, d.column, d.code, d.message) for d in outcome.diagnostics], project


def test_a_check_through_a_skeleton_finds_what_a_check_of_the_whole_module_finds(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text(HELPERS)
    (package / "use.py").write_text(USE)
    whole, _ = check(package, skeletons=False)
    found, project = check(package, skeletons=True)
    assert found == whole
    # expect: set_enum_mode (a public function) may put an Enum member into TABLE before a rule copies it, at both
    # sinks: seen through the skeleton only once the task started again with that body parsed
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 79, "ACC101"), (11, 79, "ACC101")]
    helpers = str(package / "helpers.py")
    # expect: the check started again once (the first skeleton, for helpers.TABLE, kept only TABLE; the uses of
    # TABLE a rule's copy must see are in build and set_enum_mode), with helpers.py parsed whole from then on
    assert project._whole == {helpers}
    assert project._parsed[helpers].elided == {}
    assert project.skeletons is False  # expect: after a restart, no more skeletons in this project (trial 15)


MESH = textwrap.dedent('''\
    import numpy as np


    def groups(size, parts):
        ids = np.arange(size).reshape(parts, -1)
        return [[int(i) for i in row] for row in ids]


    def unrelated(a, b):
        total = a + b
        total += 1
        return total * 2
''')

USE_MESH = textwrap.dedent('''\
    from jax._src.lax import parallel

    from pkg import mesh


    def lower(ctx, x):
        cfg = {"replica_groups": mesh.groups(8, 2), "mode": mesh.groups}
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, cfg)
''')


def test_a_skeleton_the_check_reads_no_left_out_part_of_stays(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "mesh.py").write_text(MESH)
    (package / "use.py").write_text(USE_MESH)
    whole, _ = check(package, skeletons=False)
    found, project = check(package, skeletons=True)
    assert found == whole
    # expect: the function object itself (mode), not the list of ints groups() builds from numpy ints
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 57, "ACC101")]
    assert "function" in found[0][3]
    mesh = str(package / "mesh.py")
    assert mesh not in project._whole  # expect: no check started again
    assert units_of(project._parsed[mesh]) == {"unrelated"}  # expect: its body never read


RULES = textwrap.dedent('''\
    from jax._src import core
    from jax.interpreters import mlir

    p = core.Primitive("p_start")
    register = mlir.register_lowering


    def config_for(ctx, x):
        cfg = {"depth": 2}
        cfg["mode"] = ctx
        return cfg


    def install():
        for prim, rule in [(p, config_for)]:
            register(prim, rule)
        return prim


    def unrelated(a, b):
        """Ordinary code no registration is in: a skeleton leaves it out."""
        total = a + b
        total += 1
        parts = [total * i for i in range(10)]
        parts.sort(reverse=True)
        return sum(parts) + max(parts) - min(parts)


    install()
''')


def test_whether_a_kept_def_is_a_registered_rule_reads_the_left_out_bodies_a_registration_may_be_in():
    from asynccfg_lint.analysis.programs import _registration_words, _registrations_naming, registrations

    parsed = parse_source(RULES, "pkg/rules.py", keep={"config_for"})
    assert units_of(parsed) == {"install", "unrelated"}
    # expect: register_lowering, the alias bound to it, and install, whose body calls the alias
    assert _registration_words(parsed, None) == {"register_lowering", "register", "install"}
    config_for = next(s for s in parsed.module.body if isinstance(s, cst.FunctionDef) and s.name.value == "config_for")
    with pytest.raises(ElidedBody) as raised:
        _registrations_naming(parsed, config_for)
    assert raised.value.units == frozenset({"install"})  # expect: the body that registers it
    kept = parse_source(RULES, "pkg/rules.py", keep={"config_for", "install"})
    assert units_of(kept) == {"unrelated"}
    config_for = next(s for s in kept.module.body if isinstance(s, cst.FunctionDef) and s.name.value == "config_for")
    found = _registrations_naming(kept, config_for)
    whole = parse_source(RULES, "pkg/rules.py")
    # expect: the loop's one registration of config_for, as the whole module's
    assert [r.function.name.value for r in found] == [r.function.name.value for r in registrations(whole)] == ["config_for"]


def write_package(root: Path, files: dict[str, str]) -> Path:
    package = root / "ext"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    return package


USE_BUILD = textwrap.dedent('''\
    from jax._src.lax import parallel

    from ext import helpers


    def lower(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, helpers.build(2))
''')

#: a helper module whose set_mode puts an Enum member into CONFIG before build copies it; ``{name}`` is CONFIG's name
#: and ``{doc}`` set_mode's docstring (trial 12: what skeletons got wrong)
HELPER_TEMPLATE = textwrap.dedent('''\
    import enum


    class Mode(enum.Enum):
        PUSH = "push"


    def _defaults(): return {{"depth": 1}}


    {name} = _defaults()


    def set_mode():
        """{doc}"""
        count = 1
        {name}["mode"] = Mode.PUSH


    def build(depth):
        cfg = dict({name})
        cfg["depth"] = depth
        return cfg
''')


@pytest.mark.parametrize(("name", "doc"), [
    ("CONFIG", "Switch to pushing.\u2028See the design notes."),  # a line break for str.splitlines, not for ast
    ("CONFIG", "Switch to pushing.\x85See the design notes."),
    ("विन्यास", "Switch to pushing."),  # an identifier with vowel signs, which \\w does not match
    ("col·lecció", "Switch to pushing."),  # a middle dot
])
def test_a_skeleton_guards_the_uses_of_a_name_whatever_its_characters_and_the_texts_line_breaks(tmp_path, name, doc):
    package = write_package(tmp_path, {"helpers.py": HELPER_TEMPLATE.format(name=name, doc=doc), "use.py": USE_BUILD})
    project = Project(iter_python_files([str(package)]))
    path = str(package / "use.py")
    found = [(d.line, d.column, d.code, d.message) for d in project.analyse(BUILTIN_SINKS, {path: CheckSettings()})[path].diagnostics]
    # expect: set_mode's write, seen (the check started again: CONFIG is named in a left-out body)
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 79, "ACC101")]
    assert found[0][3].endswith(f"(written at {package / 'helpers.py'}:17)")
    assert project._whole == {str(package / "helpers.py")}


def test_a_tasks_loader_gives_the_tasks_own_parse_for_its_module(tmp_path):
    from asynccfg_lint.run.tasks import _RecordingLoader

    package = write_package(tmp_path, {"helpers.py": HELPER_TEMPLATE.format(name="CONFIG", doc="."), "use.py": USE_BUILD})
    project = Project(iter_python_files([str(package)]))
    own = parse_source((package / "use.py").read_bytes(), str(package / "use.py"))
    loader = _RecordingLoader(project, own)
    # expect: a summary's workspace that looks the task's module up by name gets the task's parse, never a
    # skeleton of it (trial 12: a worker process made one and the check of api.py ended as an internal error)
    assert loader.part("ext.use", "lower") is own and loader("ext.use") is own
    assert loader.part("ext.helpers", "build").elided != {}  # expect: another module: a skeleton


TABLES = textwrap.dedent('''\
    import enum


    class Mode(enum.Enum):
        PUSH = "push"


    TABLE = {"depth": 1}


    def set_mode():
        previous = TABLE.get("mode")
        TABLE["mode"] = Mode.PUSH
        return previous


    def build_0(n):
        cfg = dict(TABLE)
        cfg["n"] = n
        return cfg


    def build_1(n):
        cfg = dict(TABLE)
        cfg["n"] = n + 1
        return cfg


    def unrelated(a, b):
        total = a + b
        total += 1
        parts = [total * i for i in range(10)]
        return sum(parts)
''')

USE_TABLES = textwrap.dedent('''\
    from jax._src.lax import parallel

    from ext import helpers


    def lower_0(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, helpers.build_0(2))


    def lower_1(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, helpers.build_1(2))
''')


def test_a_skeleton_keeps_what_the_checked_module_reads_of_it_and_the_code_that_changes_a_table_those_read(tmp_path):
    package = write_package(tmp_path, {"helpers.py": TABLES, "use.py": USE_TABLES})
    whole, _ = check(package, skeletons=False)
    found, project = check(package, skeletons=True)
    assert found == whole
    # expect: set_mode's Enum member, copied from TABLE by both builders
    assert [(line, column, code) for line, column, code, _ in found] == [(7, 79, "ACC101"), (11, 79, "ACC101")]
    helpers = str(package / "helpers.py")
    # expect: no restart: the first lookup (helpers.build_0) kept build_1 too (use.py reads it), and set_mode (it
    # changes TABLE, a dict display both builders read); only unrelated left out
    assert project._whole == set() and units_of(project._parsed[helpers]) == {"unrelated"}


def test_the_parameters_of_a_left_out_function_have_no_uses_to_read():
    parsed = parse_source(HELPERS, "pkg/helpers.py", keep={"build"})
    unrelated = next(s for s in parsed.module.body if isinstance(s, cst.FunctionDef) and s.name.value == "unrelated")
    (param,) = parsed.scopes[unrelated.params.params[0].name].assignments["a"]
    with pytest.raises(ElidedBody) as raised:
        param.references  # expect: its uses are in the left-out body (what an abstract eval reads of a keyword)
    assert raised.value.units == frozenset({"unrelated"})
    with pytest.raises(ElidedBody):
        list(parsed.scopes[unrelated.params.params[0].name].accesses)


GLOBAL_ALIAS = textwrap.dedent('''\
    from jax._src.lax import parallel


    def _setup():
        global EMIT
        EMIT = parallel._emit_async_start_custom_call


    _setup()


    def send(ctx, x, mode):
        cfg = {"mode": mode}
        cfg["depth"] = 2
        return EMIT("collective-permute-start", ctx, x, cfg)


    def ﬁnd_aval(x, *, overlap):
        if overlap.item():
            x = x
        return x
''')


def test_a_name_a_function_binds_through_global_reaches_the_sink_and_an_nfkc_name_is_left_out_as_its_unit():
    parsed = parse_source(GLOBAL_ALIAS, "pkg/emit.py", keep={"_setup"})
    # expect: EMIT, bound by _setup through `global`, reaches the sink; so does send, which calls it
    assert {"EMIT", "send"} <= parsed.words_reaching({"_emit_async_start_custom_call"})
    with pytest.raises(ElidedBody) as raised:
        parsed.require_reaching({"_emit_async_start_custom_call"})
    assert raised.value.units == frozenset({"send"})  # expect: the body calling EMIT is asked for
    functions = {s.name.value: s for s in parsed.module.body if isinstance(s, cst.FunctionDef)}
    # expect: the ligature's name (NFKC "find_aval" to CPython) left out as an ElidedBlock, never a plain `...` body
    assert type(functions["ﬁnd_aval"].body) is ElidedBlock


DECORATED_INNER = textwrap.dedent('''\
    import functools


    def traced(fn):
        @functools.wraps(fn)
        def inner(*args):
            return fn(*args)
        return inner


    def build(depth):
        return {"depth": depth}
''')


def test_a_left_out_body_that_starts_with_a_decorated_def_is_cut_at_its_decorator():
    """Trial 14: the body's first statement is decorated (``@functools.wraps(fn)``); CPython's line of that
    statement is its ``def``, and a cut there left the decorator above ``...``: no skeleton (a whole parse)."""
    parsed = parse_source(DECORATED_INNER, "pkg/deco.py", keep={"build"})
    # expect: traced's body (decorator, inner def, return) left out, starting at the decorator's line
    assert parsed.elided == {("traced", 0): "    @functools.wraps(fn)\n    def inner(*args):\n"
                                            "        return fn(*args)\n    return inner\n"}
    assert parsed.text.splitlines()[4:8] == ["    ...", "", "", ""]  # expect: lines 5-8, every other line kept


#: a helper module of trial 14: a rule reads build of each (a skeleton keeps build), another KNOBS.mode, whose writes
#: are in _configure (left out: no rule names it)
KNOB_HELPER = textwrap.dedent('''\
    import enum


    class Mode(enum.Enum):
        A = "a"


    class Knobs:
        def __init__(self):
            self.depth = 0
            self.mode = "x"


    KNOBS = Knobs()


    def _configure():
        KNOBS.mode = Mode.A
        KNOBS.depth = 1
        return KNOBS


    _configure()


    def build(depth):
        return {"depth": depth}


    def unrelated(values):
        total = 0
        for value in values:
            total += value
        return total
''')


def test_a_restart_parses_every_skeleton_the_project_holds_whole(tmp_path):
    """Trial 14: 17 helper modules whose skeletons a first rule made, each read again by a second rule beyond its
    skeleton: once a task started again for each, past the restarts' bound (an internal error, ACC001, every
    finding lost). Now the first restart parses all 17 whole: the findings of whole parses, one restart."""
    helpers = {f"h{index}.py": KNOB_HELPER for index in range(17)}
    imports = "".join(f"from ext import h{index}\n" for index in range(17))
    built = "".join(f"    cfg.update(h{index}.build(depth))\n" for index in range(17))
    knobs = "".join(f"    cfg['m{index}'] = h{index}.KNOBS.mode\n" for index in range(17))
    use = (f"from jax._src.lax import parallel\n{imports}\n\ndef lower_built(ctx, x, depth):\n    cfg = {{}}\n{built}"
           f"    return parallel._emit_async_start_custom_call('all-gather-start', ctx, x, cfg)\n\n\n"
           f"def lower_knobs(ctx, x):\n    cfg = {{'k': {{1}}}}\n{knobs}"
           f"    return parallel._emit_async_start_custom_call('all-gather-start', ctx, x, cfg)\n")
    package = write_package(tmp_path, {**helpers, "use.py": use})
    whole, _ = check(package, skeletons=False)
    found, project = check(package, skeletons=True)
    assert found == whole
    # expect: the set in lower_knobs' display, nothing else (the attribute written in _configure is not followed)
    assert [(line, column, code) for line, column, code, _ in found] == [(44, 17, "ACC101")]
    assert found[0][3].startswith('value for key "k" is set')
    # expect: every helper parsed whole after the one restart, none held as a skeleton
    assert project._whole == {str(package / name) for name in helpers}
    assert not any(kept.elided for kept in project._parsed.values() if kept is not None)


def test_a_skeleton_keeps_the_functions_changing_a_table_the_checked_module_reads_by_its_name(tmp_path):
    """Trial 14: a rule copies ``helpers.TABLE`` (a dict display) that ``_install`` fills with an Enum member;
    another reads ``helpers.build`` first. The name TABLE the checked module reads is kept with its changers:
    no restart, the finding a whole parse gives."""
    table_helper = KNOB_HELPER.replace("KNOBS = Knobs()", "TABLE = {\"depth\": 0}").replace(
        "    KNOBS.mode = Mode.A\n    KNOBS.depth = 1\n    return KNOBS\n",
        "    TABLE[\"mode\"] = Mode.A\n    TABLE[\"n\"] = 0\n    return TABLE\n").replace("_configure", "_install") + "".join(
        f"\n\ndef filler_{index}(values):\n    total = 0\n    for value in values:\n        total += value * {index}\n"
        f"    return total\n" for index in range(6))
    use = ("from jax._src.lax import parallel\nfrom ext import helpers\n\n\ndef lower_built(ctx, x, depth):\n"
           "    return parallel._emit_async_start_custom_call('all-gather-start', ctx, x, helpers.build(depth))\n\n\n"
           "def lower_table(ctx, x):\n    cfg = dict(helpers.TABLE)\n"
           "    return parallel._emit_async_start_custom_call('all-gather-start', ctx, x, cfg)\n")
    package = write_package(tmp_path, {"helpers.py": table_helper, "use.py": use})
    whole, _ = check(package, skeletons=False)
    found, project = check(package, skeletons=True)
    assert found == whole
    assert [(line, column, code) for line, column, code, _ in found] == [(10, 16, "ACC101")]  # expect: dict(TABLE)
    assert "enum.Enum member Mode" in found[0][3]
    # expect: no restart; _install kept (it changes TABLE), unrelated, the fillers and the class Knobs left out
    assert project._whole == set()
    assert units_of(project._parsed[str(package / "helpers.py")]) == {"Knobs", "unrelated"} | {
        f"filler_{index}" for index in range(6)}


def test_a_module_the_run_also_checks_is_read_whole_and_parsed_once(tmp_path):
    """Trial 15: a helper module that is checked in the same run (it calls a sink itself) and read by another
    checked module: its own task parses it whole, so a lookup of it does too, and that one parse is kept (a
    skeleton for the lookup and a whole parse for its task cost 30 modules of 4,900 lines 21 -> 28 s)."""
    helpers_text = HELPERS + textwrap.dedent('''\


        def lower_helper(ctx, x):
            from jax._src.lax import parallel
            return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, {"depth": 1})
    ''')
    package = write_package(tmp_path, {"helpers.py": helpers_text, "use.py": USE.replace("from pkg", "from ext")})
    project = Project(iter_python_files([str(package)]))
    helpers, use = str(package / "helpers.py"), str(package / "use.py")
    outcomes = project.analyse(BUILTIN_SINKS, {helpers: CheckSettings(), use: CheckSettings()})
    # expect: set_enum_mode's Enum member reaches both of use.py's sinks; helpers.py's own sink call is fine
    assert [(d.line, d.column, d.code) for d in outcomes[use].diagnostics] == [(7, 79, "ACC101"), (11, 79, "ACC101")]
    assert outcomes[helpers].diagnostics == ()
    assert project._whole == set()  # expect: no restart
    assert project._parsed[helpers] is not None and project._parsed[helpers].elided == {}  # expect: whole


#: a checked module whose rule copies a table that a function naming no sink word changes (line 22: an Enum member)
OWN_RULES = textwrap.dedent('''\
    import enum

    from jax._src.lax import parallel


    class Mode(enum.Enum):
        PUSH = "push"


    def _table(): return {"depth": 1}


    TABLE = _table()


    def lower(ctx, x):
        return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, dict(TABLE))


    def set_enum_mode():
        previous = TABLE.get("mode")
        TABLE["mode"] = Mode.PUSH
        return previous


    class Buffer:
        def __init__(self, size):
            self.size = size

        def push(self, value):
            return [value] * self.size


    def described(names):
        return ", ".join(names)


    LABEL = described(["a", "b"])
''')


def test_a_string_in_a_left_out_body_is_found_however_it_is_written():
    source = OWN_RULES + textwrap.dedent('''\


        def split_key(d):
            mode = d["mo" "de"]
            summer = d["\\u00e9t\\u00e9"]
            return mode, summer
    ''')
    parsed = parse_source(source, "pkg/rules.py", keep={"lower"})
    assert ("split_key", 0) in parsed.elided
    with pytest.raises(ElidedBody, match="split_key left out"):
        parsed.require_string("mode")  # expect: an implicit concatenation, read as CPython reads it
    with pytest.raises(ElidedBody, match="split_key left out"):
        parsed.require_string("été")  # expect: escapes
    parsed.require_string("depth")  # expect: no left-out body holds "depth" (the kept _table's does)


FIXTURE_FILES = sorted((Path(__file__).parent / "fixtures").rglob("*.py"))


@pytest.mark.slow  # (37 s: every fixture, unit by unit)
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda path: str(path.relative_to(Path(__file__).parent)))
def test_a_check_of_a_fixture_through_a_skeleton_finds_what_a_whole_check_finds(monkeypatch, path):
    """The guards of a skeleton are complete: each fixture checked from a skeleton of itself that leaves out every
    body of any length and keeps no unit, however little of the text it leaves out, started again with the units
    each read of a left-out part names (the whole module for a scan of all of it), gives the whole module's
    diagnostics and fixes. (A check reads less of another module's skeleton than of its own module.)"""
    keep: set[str] = set()
    monkeypatch.setattr(parse, "MIN_ELIDED_SHARE", 1e-9)
    monkeypatch.setattr(parse, "MIN_ELIDED_LINES", 1)
    source = path.read_bytes()
    display = str(path.relative_to(Path(__file__).parent.parent))
    whole = check_source(source, display, with_fixes=True)
    restarts = 0
    while True:
        try:
            parsed = parse_source(source, display, keep=frozenset(keep))
        except parse.ParseFailure:
            parsed = None
        if parsed is None or not parsed.elided:
            found = check_source(source, display, with_fixes=True, parsed=parsed)
            break
        try:
            found = parsed.run(lambda: [item.diagnostic for item in check_parsed(parsed, with_fixes=True)])
            break
        except ElidedBody as missing:
            restarts += 1
            assert missing.path == display
            # expect: each read asks for units, never the whole module (no scan of every call or statement remains
            # on the fixtures' paths: fixes._extractions, arguments.argument, programs.annotated_field_reads read the
            # kept calls), and for a unit not kept yet
            assert missing.units is not None
            assert not missing.units <= keep
            keep.update(missing.units)
    assert found == whole
