"""``asynccfg-lint fix``: the real CLI in a subprocess over copies of ``tests/fixtures/fix/``.

Each ``name.py`` there is fixed into exactly ``name.fixed.py`` (options from a first-line
``# fixture-options:`` comment, e.g. ``--unsafe-fixes``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.diagnostics import Fix
from tests.expectations import FIXTURES, fixture_options
from tests.frontend_runs import SINK_IMPORT, parse_text, run_program
from tests.oracle.driver import CLEAN
from tests.oracle.programs import program_cases, run_programs

FIX_FIXTURES = FIXTURES / "fix"
INPUTS = sorted(p for p in FIX_FIXTURES.glob("*.py") if not p.name.endswith(".fixed.py"))
OUTPUTS = sorted(FIX_FIXTURES.glob("*.fixed.py"))


def run_fix(*args: str, cwd):
    """Run ``python -m asynccfg_lint fix ARGS`` in ``cwd``."""
    return run_program("fix", *args, cwd=cwd)


def test_every_input_has_its_output():
    assert [p.name.removesuffix(".py") for p in INPUTS] == [p.name.removesuffix(".fixed.py") for p in OUTPUTS]
    assert [p.name for p in INPUTS] == ["bindings.py", "no_fix.py", "safe_containers.py", "safe_scalars.py", "unsafe.py",
                                           "withheld_flag.py"]


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.name)
def test_fixture_is_fixed_into_its_pair(source, tmp_path):
    target = tmp_path / source.name
    shutil.copyfile(source, target)
    result = run_fix(*fixture_options(source), source.name, cwd=tmp_path)
    assert target.read_bytes() == source.with_name(source.name.replace(".py", ".fixed.py")).read_bytes()
    # what is left is exactly what `check` reports on the expected output
    left = parse_text(run_program("check", source.name, cwd=tmp_path).stdout)
    assert parse_text(result.stdout) == left
    assert result.returncode == (1 if left else 0)


@pytest.mark.parametrize("fixed", OUTPUTS, ids=lambda p: p.name)
def test_fixing_the_output_again_changes_nothing(fixed, tmp_path):
    target = tmp_path / "module.py"
    shutil.copyfile(fixed, target)
    result = run_fix("--unsafe-fixes", "module.py", cwd=tmp_path)
    assert target.read_bytes() == fixed.read_bytes()
    assert "0 files changed, 0 fixes applied" in result.stderr


def test_summary_and_exit_code_of_a_fix_that_leaves_nothing(tmp_path):
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.py", tmp_path / "m.py")
    result = run_fix("m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "1 file scanned, 1 file changed, 17 fixes applied, 0 findings left\n"


def test_exit_non_zero_on_fix(tmp_path):
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.py", tmp_path / "m.py")
    assert run_fix("--exit-non-zero-on-fix", "m.py", cwd=tmp_path).returncode == 1
    assert run_fix("--exit-non-zero-on-fix", "m.py", cwd=tmp_path).returncode == 0  # nothing left to fix


def test_unsafe_fixes_need_the_flag(tmp_path):
    source = FIX_FIXTURES / "unsafe.py"
    shutil.copyfile(source, tmp_path / "m.py")
    result = run_fix("m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_bytes() == source.read_bytes()
    assert result.returncode == 1
    assert len(parse_text(result.stdout)) == 12
    assert result.stderr == (
        "1 file scanned, 0 files changed, 0 fixes applied, 12 findings left (12 more fixable with --unsafe-fixes)\n"
    )


def test_a_binding_read_elsewhere_is_fixed_at_the_config_or_not_safely(tmp_path):
    """bindings.py: 4 safe fixes; the element of a list that is also returned only with --unsafe-fixes."""
    source = FIX_FIXTURES / "bindings.py"
    shutil.copyfile(source, tmp_path / "m.py")
    result = run_fix("m.py", cwd=tmp_path)
    assert result.stderr == (
        "1 file scanned, 1 file changed, 4 fixes applied, 1 finding left (1 more fixable with --unsafe-fixes)\n"
    )
    [left] = parse_text(result.stdout)
    assert (left.line, left.column, left.code) == (28, 14, "ACC101")
    # the fix data `check` would attach: unsafe, at the element inside `flags`
    fixes = [d.fix for d in check_source((tmp_path / "m.py").read_text(), "m.py", with_fixes=True)]
    assert fixes == [Fix("unsafe", "bool(np.bool_(1))", "wrap in bool(...)", 28, 14, 28, 25)]
    result = run_fix("--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text().splitlines()[27] == "    flags = [bool(np.bool_(1))]"
    assert result.stderr == "1 file scanned, 1 file changed, 1 fix applied, 0 findings left\n"


def test_a_fix_that_does_not_re_check_is_withheld_and_the_others_applied(tmp_path):
    """withheld_flag.py: the Flag's fix alone does not re-check clean, so it is left out, named on stderr
    (also in fix's JSON report), and the Enum member's fix is still applied."""
    shutil.copyfile(FIX_FIXTURES / "withheld_flag.py", tmp_path / "m.py")
    result = run_fix("--unsafe-fixes", "m.py", cwd=tmp_path)
    assert result.stderr == (
        "m.py: 1 fix left out (22:12 ACC101): the fixed source does not re-check clean at the fixed sites: "
        "findings disappeared\n1 file scanned, 1 file changed, 1 fix applied, 2 findings left\n")
    assert (tmp_path / "m.py").read_bytes() == (FIX_FIXTURES / "withheld_flag.fixed.py").read_bytes()
    shutil.copyfile(FIX_FIXTURES / "withheld_flag.py", tmp_path / "m.py")
    report = json.loads(run_fix("--unsafe-fixes", "--output-format", "json", "m.py", cwd=tmp_path).stdout)
    assert [(f["path"], f["fixes_applied"], f["failure"], f["withheld"].split(":")[0]) for f in report["files"]] == [
        ("m.py", 1, None, "1 fix left out (22")]


def test_a_fix_left_out_is_tried_again_once_the_others_are_in():
    """With a fix that never re-checks clean (``.tolist()`` of a jax array's element) the fixes are tried
    alone; ``Color.RED.value`` alone makes ``np.array([np.True_, Color.RED])`` numeric, so the bool's
    finding disappears and it is left out of the first pass too; the next pass applies it: one ``fix``
    does what two would, and a second changes nothing (idempotent, as the fuzz tests ask)."""
    from asynccfg_lint.fixing.fixer import FixOptions, fix_source

    source = (SINK_IMPORT + "import enum\nimport jax.numpy as jnp\nimport numpy as np\n\n\n"
              "class Color(enum.Enum):\n    RED = 1\n\n\ndef rule(ctx, x):\n"
              "    return emit('t', ctx, x, {'mixed': np.array([np.True_, Color.RED]), 'e': jnp.array([1])[0]})\n"
              ).encode()
    result = fix_source(source, "m.py", FixOptions(unsafe=True))
    assert result.fixed.decode().splitlines()[-1] == (
        "    return emit('t', ctx, x, {'mixed': np.array([bool(np.True_), Color.RED.value]), 'e': jnp.array([1])[0]})")
    assert (result.applied, result.failure) == (2, None)
    assert result.withheld.startswith("1 fix left out (12:90 ACC101): the fixed source does not re-check")
    assert [(d.line, d.column, d.code) for d in result.remaining] == [(12, 90, "ACC101")]
    assert [d.code for d in result.fixed_diagnostics] == ["ACC101", "ACC101"]
    again = fix_source(result.fixed, "m.py", FixOptions(unsafe=True))
    assert (again.changed, again.applied) == (False, 0)


def test_a_node_libcst_refuses_to_build_again_is_copied_by_the_analysis_and_the_fix(owned):
    """``{k: (v)for k, v in d.items()}`` compiles and libcst parses it, but libcst's validation refuses to
    build that node again ("Must have at least one space before 'for' keyword"), and a libcst visitor copies
    every node it passes (the analysis's search for writes of ``Mode.PUSH``, a fix's transform): they run
    unvalidated, and the member's fix applies. It was ACC001 "internal error"."""
    from asynccfg_lint.fixing.fixer import FixOptions, fix_source

    source = (SINK_IMPORT + "import enum\n\n\nclass Mode(enum.Enum):\n    PUSH = 'push'\n\n\n"
              "def lower(ctx, x, d):\n    names = {k: (v.value if isinstance(v, Mode) else v)for k, v in d.items()}\n"
              "    return emit('t', ctx, x, {'mode': Mode.PUSH, 'n': len(names)})\n").encode()
    result = fix_source(source, "m.py", FixOptions(unsafe=True))
    assert (result.applied, result.failure, result.remaining) == (1, None, ())
    assert result.fixed.decode().splitlines()[-2:] == [
        "    names = {k: (v.value if isinstance(v, Mode) else v)for k, v in d.items()}",
        "    return emit('t', ctx, x, {'mode': Mode.PUSH.value, 'n': len(names)})"]


def test_a_guest_reports_a_file_libcsts_validation_rejects_as_acc001_and_leaves_it():
    """The same file in a process the tool does not own (the codemod, a library user): libcst's validation stays on,
    rejects the file's ``(v if k else v)for``, and the file is ACC001 with the reason, left as it is."""
    from asynccfg_lint.analysis.parse import LIBCST_REJECTS_VALID
    from asynccfg_lint.fixing.fixer import FixOptions, fix_source

    source = (SINK_IMPORT + "def lower(ctx, x, d):\n    names = {k: (v if k else v)for k, v in d.items()}\n"
              "    return emit('t', ctx, x, {'s': {1}, 'n': len(names)})\n").encode()
    result = fix_source(source, "m.py", FixOptions(unsafe=True))
    assert (result.applied, result.fixed, [d.message for d in result.remaining]) == (0, source, [
        f"file not analysed: {LIBCST_REJECTS_VALID} (Must have at least one space before 'for' keyword.)"])


def test_a_wrapper_binding_two_primitives_keeps_no_fix_the_other_rule_would_not_take():
    """``start(x, Sched.TREE)`` binds ``sched`` to two primitives: one rule serializes it (ACC101), the other
    looks it up in ``{Sched.TREE: 2, ...}`` (its ``.value`` raises KeyError there: see the fixture). The fix
    is kept only when every use of the wrapper's parameter takes it, not only the rule the finding names."""
    from asynccfg_lint.fixing.fixer import FixOptions, fix_source

    source = (FIXTURES / "programs" / "two_rules_one_keyword.py").read_bytes()
    result = fix_source(source, "two_rules_one_keyword.py", FixOptions(unsafe=True))
    assert (result.applied, result.changed, result.failure) == (0, False, None)
    assert [(d.line, d.column, d.code, d.fix) for d in result.remaining] == [(53, 21, "ACC101", None)]


def test_fix_data_of_a_binding_read_elsewhere_points_at_the_config(tmp_path):
    """The diagnostic stays at the value; its fix edits the config's use of the name."""
    source = (SINK_IMPORT + "import jax.numpy as jnp\n\ndef lower(ctx, x):\n    level = jnp.int16(4)\n"
              "    emit('t', ctx, x, {'level': level})\n    return level + 1\n")
    [diagnostic] = check_source(source, "m.py", with_fixes=True)
    assert (diagnostic.line, diagnostic.column, diagnostic.code) == (5, 13, "ACC101")
    assert diagnostic.fix == Fix("safe", "int(level)", "wrap in int(...)", 6, 33, 6, 38)
    # a key the same way; a closure that reads the name is another reader
    source = (SINK_IMPORT + "import numpy as np\n\ndef lower(ctx, x):\n    k = np.int64(7)\n    b = np.bool_(1)\n"
              "    emit('t', ctx, x, {k: 'seven', 'b': b})\n    return k + 1, lambda: b\n")
    assert [(d.code, d.fix) for d in check_source(source, "m.py", with_fixes=True)] == [
        ("ACC102", Fix("safe", "int(k)", "wrap in int(...)", 7, 24, 7, 25)),
        ("ACC101", Fix("safe", "bool(b)", "wrap in bool(...)", 7, 41, 7, 42)),
    ]


def test_a_jnp_scalar_bound_as_a_keyword_is_replaced_by_its_literal_not_converted():
    """At a bind (traced: int(jnp.int32(3)) raises ConcretizationTypeError there) the fix writes the literal;
    a float, whose literal is not the float32 value, and an int the dtype cannot hold get none; inside the
    rule (concrete) the value is still wrapped in int(...)."""
    source = (
        "import jax.numpy as jnp\nfrom jax._src import core\nfrom jax._src.interpreters import mlir\n"
        "from jax._src.lax.parallel import _emit_async_start_custom_call\np = core.Primitive('p')\n"
        "def rule(ctx, x, *, depth):\n"
        "    return _emit_async_start_custom_call('t', ctx, x, {'depth': depth, 'n': jnp.int32(2)})\n"
        "mlir.register_lowering(p, rule)\n"
        "def a(x):\n    return p.bind(x, depth=jnp.int32(1 << 20))\n"
        "def b(x):\n    return p.bind(x, depth=jnp.bool_(1))\n"
        "def c(x):\n    return p.bind(x, depth=jnp.uint8(-1))\n"
        "def d(x):\n    return p.bind(x, depth=jnp.float32(0.5))\n"
        "def e(x):\n    return p.bind(x, depth=jnp.int64(-3))\n")
    found = [(d.line, d.code, d.fix) for d in check_source(source, "m.py", with_fixes=True)]
    assert found == [
        (7, "ACC101", Fix("safe", "int(jnp.int32(2))", "wrap in int(...)", 7, 77, 7, 89)),
        (10, "ACC101", Fix("safe", "(1 << 20)", "replace with (1 << 20)", 10, 28, 10, 46)),
        (12, "ACC101", Fix("safe", "True", "replace with True", 12, 28, 12, 40)),
        (14, "ACC101", None),
        (16, "ACC101", None),
        (18, "ACC101", Fix("safe", "-3", "replace with -3", 18, 28, 18, 41)),
    ]
    [message] = {d.message.rsplit(" (used at", 1)[0].rsplit("; ", 1)[1]
                 for d in check_source(source, "m.py") if d.line != 7}
    assert message == ("pass a Python or numpy scalar instead (3, np.int32(3)): the bind runs traced, "
                       "where int(...) of a jnp value raises ConcretizationTypeError")


def test_diff_writes_nothing_and_exits_1(tmp_path):
    source = FIX_FIXTURES / "safe_containers.py"
    shutil.copyfile(source, tmp_path / "m.py")
    result = run_fix("--diff", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_bytes() == source.read_bytes()
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[:3] == ["--- m.py", "+++ m.py", "@@ -10,22 +10,22 @@"]
    assert '-        "sum": jnp.ones(3) + jnp.zeros(3),' in lines
    assert '+        "sum": (jnp.ones(3) + jnp.zeros(3)).tolist(),' in lines
    assert result.stderr == "1 file scanned, 1 file would change, 15 fixes would be applied, 0 findings left\n"


def test_diff_of_a_file_without_fixes_is_empty(tmp_path):
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.fixed.py", tmp_path / "m.py")
    result = run_fix("--diff", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_select_and_ignore_limit_what_is_fixed(tmp_path):
    (tmp_path / "m.py").write_text(SINK_IMPORT + 'emit("t", 1, 2, {np.int64(1): np.bool_(True)})\nimport numpy as np\n')
    result = run_fix("--ignore", "ACC101", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text().splitlines()[1] == 'emit("t", 1, 2, {int(np.int64(1)): np.bool_(True)})'
    assert (result.returncode, result.stdout) == (0, "")
    result = run_fix("--select", "ACC101", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text().splitlines()[1] == 'emit("t", 1, 2, {int(np.int64(1)): bool(np.bool_(True))})'
    assert run_fix("--select", "XYZ", "m.py", cwd=tmp_path).returncode == 2


def test_crlf_line_endings_are_kept(tmp_path):
    source = (SINK_IMPORT + "import numpy as np\n\nemit('t', 1, 2, {\n    'a': np.bool_(1),  # c\n})\n").replace("\n", "\r\n")
    (tmp_path / "m.py").write_bytes(source.encode())
    assert run_fix("m.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "m.py").read_bytes() == source.replace("np.bool_(1)", "bool(np.bool_(1))").encode()


def test_bom_and_latin1_cookie_are_kept(tmp_path):
    bom = b"\xef\xbb\xbf" + (SINK_IMPORT + "import numpy as np\nemit('t', 1, 2, {'\xe9': {1}, 'b': np.bool_(1)})\n").encode()
    (tmp_path / "bom.py").write_bytes(bom)
    latin1 = ("# -*- coding: latin-1 -*-\n" + SINK_IMPORT + "import numpy as np\n"
              "emit('t', 1, 2, {'\xe9': np.bool_(1)})\n").encode("latin-1")
    (tmp_path / "latin1.py").write_bytes(latin1)
    result = run_fix("bom.py", "latin1.py", cwd=tmp_path)
    assert (tmp_path / "bom.py").read_bytes() == bom.replace(b"np.bool_(1)", b"bool(np.bool_(1))")
    assert (tmp_path / "latin1.py").read_bytes() == latin1.replace(b"np.bool_(1)", b"bool(np.bool_(1))")
    assert result.stderr == "2 files scanned, 2 files changed, 2 fixes applied, 1 finding left (1 more fixable with --unsafe-fixes)\n"


def test_a_file_libcst_does_not_round_trip_is_not_written(tmp_path):
    # libcst drops the form feed at the start of a line: the finding is reported where it is, the file not written
    source = (SINK_IMPORT + "import numpy as np\n\x0cemit('t', 1, 2, {'a': np.bool_(1)})\n").encode()
    (tmp_path / "m.py").write_bytes(source)
    result = run_fix("m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_bytes() == source
    assert result.returncode == 1
    assert [(r.line, r.column, r.code) for r in parse_text(result.stdout)] == [(3, 24, "ACC101")]
    assert result.stderr == (
        "m.py: not fixed: libcst cannot give this file back byte for byte (a form feed or backslash continuation "
        "before the first token of a line, which libcst drops); not written\n"
        "1 file scanned, 0 files changed, 0 fixes applied, 1 finding left\n")


def test_a_file_libcst_gives_back_otherwise_is_not_written_and_the_line_is_named(tmp_path):
    # libcst (1.9) drops the blank line before a comment at the end of the file indented less than the block above it
    source = (SINK_IMPORT + "import numpy as np\n\n\ndef lower(ctx, x):\n    emit('t', ctx, x, {'a': np.bool_(1)})\n"
              "\n  # the end\n").encode()
    (tmp_path / "m.py").write_bytes(source)
    result = run_fix("m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_bytes() == source
    assert [(r.line, r.column, r.code) for r in parse_text(result.stdout)] == [(6, 29, "ACC101")]
    assert result.stderr == ("m.py: not fixed: libcst does not give back the file's exact bytes (from line 7 on); not written\n"
                             "1 file scanned, 0 files changed, 0 fixes applied, 1 finding left\n")


def test_mixed_line_endings_round_trip_and_are_kept(tmp_path):
    source = (SINK_IMPORT + "import numpy as np\r\nemit('t', 1, 2, {'a': np.bool_(1)})\n").encode()
    (tmp_path / "m.py").write_bytes(source)
    assert run_fix("m.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "m.py").read_bytes() == source.replace(b"np.bool_(1)", b"bool(np.bool_(1))")


def test_a_file_that_does_not_parse_is_untouched(tmp_path):
    source = (SINK_IMPORT + "emit('t', 1, 2, {'a': {1}}\n").encode()
    (tmp_path / "m.py").write_bytes(source)
    result = run_fix("--unsafe-fixes", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_bytes() == source
    assert result.returncode == 1
    assert [(r.line, r.code) for r in parse_text(result.stdout)] == [(2, "ACC001")]


def test_permissions_are_kept(tmp_path):
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.py", tmp_path / "m.py")
    os.chmod(tmp_path / "m.py", 0o750)
    assert run_fix("m.py", cwd=tmp_path).returncode == 0
    assert stat.S_IMODE(os.stat(tmp_path / "m.py").st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]  # no temporary file left behind


def test_parallel_run_over_a_tree(tmp_path):
    for index, source in enumerate(INPUTS):
        folder = tmp_path / f"pkg{index % 2}"
        folder.mkdir(exist_ok=True)
        shutil.copyfile(source, folder / source.name)
    (tmp_path / "pkg0" / "unrelated.py").write_text("x = {1}\n")
    result = run_fix("-j", "2", "--unsafe-fixes", ".", cwd=tmp_path)
    for index, source in enumerate(INPUTS):
        fixed = source.with_name(source.name.replace(".py", ".fixed.py"))
        assert (tmp_path / f"pkg{index % 2}" / source.name).read_bytes() == fixed.read_bytes()
    assert result.returncode == 1  # no_fix.py's findings are left, and the Flag of withheld_flag.py
    assert [r.path for r in parse_text(result.stdout)] == ["./pkg1/no_fix.py"] * 11 + ["./pkg1/withheld_flag.py"] * 2
    assert result.stderr == (
        "./pkg1/withheld_flag.py: 1 fix left out (22:12 ACC101): the fixed source does not re-check clean "
        "at the fixed sites: findings disappeared\n"
        "7 files scanned, 5 files changed, 50 fixes applied, 13 findings left\n")


def test_fix_data_of_diagnostics():
    source = (SINK_IMPORT + "import numpy as np\nimport jax.numpy as jnp\nx = jnp.ones(2)\n"
              "emit('t', 1, 2, {'a': (x + x), 'b': np.bool_(1), 'c': {1}, 'd': 1.5j})\n")
    fixes = [d.fix for d in check_source(source, "m.py", with_fixes=True)]
    assert fixes == [  # the edit of (x + x) includes its parentheses: it starts one column before the diagnostic
        Fix("safe", "(x + x).tolist()", "append .tolist()", 5, 23, 5, 30),
        Fix("safe", "bool(np.bool_(1))", "wrap in bool(...)", 5, 37, 5, 48),
        Fix("unsafe", "sorted({1})", "wrap in sorted(...)", 5, 55, 5, 58),
        None,
    ]
    assert [d.column for d in check_source(source, "m.py")] == [24, 37, 55, 65]
    assert [d.fix for d in check_source(source, "m.py")] == [None] * 4


def test_libcst_codemod_command_applies_the_same_fixes(tmp_path):
    shutil.copyfile(FIX_FIXTURES / "unsafe.py", tmp_path / "m.py")
    result = run_program_module("libcst.tool", "codemod", "-x", "--no-format",
                                "asynccfg_lint.codemod.FixAsyncConfigCommand", "--unsafe-fixes", "m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "m.py").read_bytes() == (FIX_FIXTURES / "unsafe.fixed.py").read_bytes()
    assert " - Transformed 1 files successfully." in result.stderr


def run_program_module(module: str, *args: str, cwd, env: dict[str, str] | None = None):
    """Run ``python -m MODULE ARGS`` in ``cwd`` (``env``: the whole environment, default this one's)."""
    import subprocess

    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=env)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if not p.is_dir()}


@pytest.mark.parametrize("inside", [True, False], ids=["from the package folder", "from its parent"])
def test_the_codemod_leaves_only_the_users_files(tmp_path, inside):
    """The codemod keeps no result cache (none in the package folder, the working directory or the
    project root, whatever ``ASYNCCFG_LINT_CACHE_DIR`` says): after the real libcst tool the tree holds
    the user's files alone, those it did not fix byte for byte, the fixed ones as ``fix`` writes them."""
    package = tmp_path / "work" / "extpkg"
    shutil.copytree(FIXTURES / "programs" / "extpkg", package)
    (tmp_path / "work" / "pyproject.toml").write_text('[project]\nname = "ext"\n', encoding="utf-8")
    shutil.copytree(tmp_path / "work", tmp_path / "by_fix")
    before = _tree(tmp_path / "work")
    environment = {k: v for k, v in os.environ.items() if k != "ASYNCCFG_LINT_CACHE_DIR"}
    result = run_program_module("libcst.tool", "codemod", "-x", "--no-format", "asynccfg_lint.codemod.FixAsyncConfigCommand",
                                "--unsafe-fixes", "." if inside else "extpkg", cwd=package if inside else package.parent,
                                env=environment)
    assert result.returncode == 0, result.stderr
    fixed = run_fix("--no-cache", "--unsafe-fixes", "extpkg", cwd=tmp_path / "by_fix")
    assert fixed.returncode == 1, fixed.stderr  # some findings have no fix
    after, expected = _tree(tmp_path / "work"), _tree(tmp_path / "by_fix")
    assert sorted(after) == sorted(before)  # expect: no cache folder, no __pycache__, nothing else
    changed = sorted(name for name in after if after[name] != before[name])
    # (meshed.py: ROOT / "ring" of the imported Path becomes str(ROOT / "ring"); linked_api.py: the values a
    # wrapper passes to a bind the rule reads get Schedule.LAZY.value and tuple(frozenset(...)); narrowed.py: the rule's default
    # {"a"} becomes sorted({"a"}); carried_api.py: the Path a bind passes for a field the rule's method reads
    # becomes str(CACHE_DIR); routed.py: the np.True_ a setdefault puts into an imported builder's dict becomes
    # bool(np.True_), the tuple keys of an imported constant's pairs keep no fix; the bind's Mode.PUSH, which the rule hands to
    # a helper that tests it with isinstance, keeps no fix: fixing.argument_fixes; assigned_reads_api.py: the
    # bind's Level.FAST becomes Level.FAST.value; module_state_rules.py: Held.mode becomes Held.mode.value;
    # instance_rules.py: SETTINGS.kind, rewritten nowhere, becomes SETTINGS.kind.value)
    assert changed == ["extpkg/annotated_api.py", "extpkg/api.py", "extpkg/assigned_reads_api.py", "extpkg/carried_api.py",
                       "extpkg/fetched.py", "extpkg/gather.py", "extpkg/held.py",
                       "extpkg/helped.py", "extpkg/indexed.py", "extpkg/instance_rules.py", "extpkg/linked_api.py",
                       "extpkg/meshed.py", "extpkg/methods.py", "extpkg/module_state_rules.py",
                       "extpkg/narrowed.py", "extpkg/nested.py", "extpkg/primitive_table_api.py", "extpkg/registered.py", "extpkg/relayed.py",
                       "extpkg/relayed_api.py", "extpkg/routed.py", "extpkg/scheduled.py", "extpkg/tuned.py", "extpkg/typed_options_api.py",
                       "extpkg/weighted.py", "extpkg/wrapped_api.py"]
    assert after == expected
    assert f" - Transformed {len(changed)} files successfully." in result.stderr


def test_a_symlink_stays_a_symlink_and_its_target_is_fixed(tmp_path):
    target = tmp_path / "real_target.py"
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.py", target)
    (tmp_path / "fixd").mkdir()
    link = tmp_path / "fixd" / "link.py"
    link.symlink_to(Path("..") / "real_target.py")
    result = run_fix("fixd", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink()
    assert target.read_bytes() == (FIX_FIXTURES / "safe_scalars.fixed.py").read_bytes()


def test_the_owner_is_kept(tmp_path):
    if os.getuid() != 0:
        pytest.skip("only root can give a file to another user")
    target = tmp_path / "m.py"
    shutil.copyfile(FIX_FIXTURES / "safe_scalars.py", target)
    os.chown(target, 65534, 65534)
    result = run_fix("m.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (target.stat().st_uid, target.stat().st_gid) == (65534, 65534)
    assert target.read_bytes() == (FIX_FIXTURES / "safe_scalars.fixed.py").read_bytes()


def test_the_codemod_sees_wrappers_of_sibling_modules(tmp_path):
    shutil.copytree(FIXTURES / "project" / "pkg", tmp_path / "pkg")
    lowering = tmp_path / "pkg" / "lowering.py"
    before = lowering.read_text()
    result = run_program_module("libcst.tool", "codemod", "-x", "--no-format",
                                "asynccfg_lint.codemod.FixAsyncConfigCommand", "pkg/lowering.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # send_tiled is a wrapper defined in pkg/wrappers.py: its np.bool_ argument (line 11) gets the same fix as fix's
    assert lowering.read_text() == before.replace("send_tiled(ctx, x, np.bool_(True))",
                                                  "send_tiled(ctx, x, bool(np.bool_(True)))")
    assert " - Transformed 1 files successfully." in result.stderr


#: the trial's minimal repro (/work/coord/trial5/min/fixq/fq.py): keys of a numpy int and of a numpy range
RANGE_KEYS = (
    "import numpy as np\nfrom jax._src.lax import parallel\n\n\ndef rule(ctx, x):\n"
    '  cfg = {"slots": {np.int64(1): 2.0}, "slots2": {i: 1.0 for i in np.arange(3)}}\n'
    '  return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)\n'
)


def test_keys_from_a_numpy_range_get_the_int_fix(tmp_path):
    (tmp_path / "fq.py").write_text(RANGE_KEYS, encoding="utf-8")
    key_error = ("which json cannot use as a key: lowering raises TypeError (keys must be str, int, float, bool "
                 "or None); use int(k)")
    checked = run_program("check", "--no-cache", "--output-format", "json", "fq.py", cwd=tmp_path)
    reported = [(d["line"], d["column"], d["code"], d["message"], d["fix"]["safety"], d["fix"]["replacement"])
                for d in json.loads(checked.stdout)]
    assert reported == [  # expect: both keys, the same safe fix
        (6, 20, "ACC102", f'key of the dict under key "slots" is numpy.int64, {key_error}', "safe", "int(np.int64(1))"),
        (6, 50, "ACC102", f'key of the dict under key "slots2" is numpy.int64, {key_error}', "safe", "int(i)"),
    ]
    fixed = run_fix("--no-cache", "fq.py", cwd=tmp_path)
    assert (fixed.returncode, fixed.stderr) == (0, "1 file scanned, 1 file changed, 2 fixes applied, 0 findings left\n")
    assert (tmp_path / "fq.py").read_text(encoding="utf-8") == RANGE_KEYS.replace(
        "{np.int64(1): 2.0}", "{int(np.int64(1)): 2.0}").replace("{i: 1.0 for", "{int(i): 1.0 for")


#: a package whose registered lowering rule takes its config values from another module's constants
CONSTANTS_MODULE = """\
import enum

import numpy as np


class Mode(enum.Enum):
    SLOW = "slow"


TAG = b"ring"
FUSED = np.bool_(True)
GROUPS = {0, 1}
MODE = Mode.SLOW
LABELS = [b"a"]
for LANE in (1, Mode.SLOW):  # after the loop LANE may be either
    pass
"""
RING_MODULE = '''\
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax import parallel

from . import consts
from .consts import TAG


def _future(x, **params):
    return core.AbstractFuture(x, parallel.ppermute_done_p.bind)


ring_start_p = core.Primitive("ring_start")
ring_start_p.def_abstract_eval(_future)


def _ring_lowering(ctx, x):
    cfg = {"tag": TAG, "fused": consts.FUSED, "groups": consts.GROUPS, "mode": consts.MODE}
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)


mlir.register_lowering(ring_start_p, _ring_lowering)


def case_ring(x):  # oracle: ACC101
    return ring_start_p.bind(x).done()


def _labels_lowering(ctx, x):
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, {"labels": consts.LABELS})


def _lane_lowering(ctx, x):
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, {"lane": consts.LANE})
'''


def test_values_of_another_modules_constants_are_fixed_at_their_use(tmp_path):
    """A constant of another module reaching the config as it is gets its fix at the checked file's
    use of the name (``TAG.decode()``), as a same-module constant read elsewhere does; the constant's
    module stays untouched, and an element of such a constant (``LABELS[0]``) has no fix. Real JAX
    then lowers and compiles the fixed program, which raised before."""
    package = tmp_path / "xring"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "consts.py").write_text(CONSTANTS_MODULE, encoding="utf-8")
    (package / "ring.py").write_text(RING_MODULE, encoding="utf-8")
    checked = run_program("check", "--no-cache", "--output-format", "json", "xring/ring.py", cwd=tmp_path)
    reported = [(d["line"], d["column"], d["code"], d["message"].split("; ")[-1], d["fix"] and d["fix"]["replacement"])
                for d in json.loads(checked.stdout)]
    assert reported == [  # expect: each fix at the use, none for the element of LABELS nor for LANE
        (18, 19, "ACC101", "use x.decode() (written at xring/consts.py:10)", "TAG.decode()"),
        (18, 33, "ACC101", "use bool(...) (written at xring/consts.py:11)", "bool(consts.FUSED)"),
        (18, 57, "ACC101", "use sorted(...) or list(...) (written at xring/consts.py:12)", "sorted(consts.GROUPS)"),
        (18, 80, "ACC101", "use x.value (or x.name) (written at xring/consts.py:13)", "consts.MODE.value"),
        (30, 98, "ACC101", "use x.decode() (written at xring/consts.py:14)", None),
        (34, 96, "ACC101", "use x.value (or x.name) (written at xring/consts.py:15)", None),
    ]
    fixed = run_fix("--no-cache", "--unsafe-fixes", "xring", cwd=tmp_path)
    assert fixed.stderr == "3 files scanned, 1 file changed, 4 fixes applied, 2 findings left\n"
    assert (package / "consts.py").read_text(encoding="utf-8") == CONSTANTS_MODULE
    assert (package / "ring.py").read_text(encoding="utf-8") == RING_MODULE.replace(
        '{"tag": TAG, "fused": consts.FUSED, "groups": consts.GROUPS, "mode": consts.MODE}',
        '{"tag": TAG.decode(), "fused": bool(consts.FUSED), "groups": sorted(consts.GROUPS), "mode": consts.MODE.value}')
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    (tmp_path / "before" / "xring").mkdir(parents=True)
    for name, text in (("__init__.py", ""), ("consts.py", CONSTANTS_MODULE), ("ring.py", RING_MODULE)):
        (tmp_path / "before" / "xring" / name).write_text(text, encoding="utf-8")
    for root, verdict in ((tmp_path / "before", "ACC101"), (tmp_path, CLEAN)):
        cases = program_cases(root / "xring" / "ring.py", "xring.ring")
        assert {c.id: run_programs([str(root)], cases)[c.id].verdict for c in cases} == {"xring.ring.case_ring": verdict}


#: module constants that a rule puts into its config as they are (trial 9's ``fx``), read also by another module
SHARED_RULE_MODULE = '''\
import pathlib

import numpy as np
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax import parallel

CACHE = pathlib.Path("/tmp/xla-cache")
FLAG = np.bool_(True)

shared_p = core.Primitive("shared_start")
shared_p.def_abstract_eval(lambda x, **params: core.AbstractFuture(x, parallel.ppermute_done_p.bind))


def _shared_lowering(ctx, x):
    cfg = {"source_target_pairs": [[0, 1], [1, 0]], "cache": CACHE, "flag": FLAG}
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)


mlir.register_lowering(shared_p, _shared_lowering)


def case_shared(x):  # oracle: ACC101
    return shared_p.bind(x).done()
'''
SHARED_READER_MODULE = '''\
from .rule import CACHE, FLAG


def cache_file(name):
    return CACHE / name


def flag_bits():
    return FLAG.nbytes
'''


def test_a_module_constant_another_module_reads_is_fixed_at_the_config(tmp_path):
    """A constant put into the config as it is, read in its own module by the config only, is fixed where it is
    written unless another module of the package reads it (``from .rule import CACHE``): ``str(...)`` there
    made ``CACHE / name`` of that module raise TypeError (trial 9). Then the fix goes to the config's use.
    Real JAX raised before and lowers and compiles the fixed rule, and the reading module still works."""
    root = tmp_path
    package = root / "shared"
    package.mkdir()
    for name, text in (("__init__.py", ""), ("rule.py", SHARED_RULE_MODULE), ("other.py", SHARED_READER_MODULE)):
        (package / name).write_text(text, encoding="utf-8")
    fixed = run_fix("--no-cache", "shared", cwd=root)
    assert fixed.stderr == "3 files scanned, 1 file changed, 2 fixes applied, 0 findings left\n"
    assert (package / "rule.py").read_text(encoding="utf-8") == SHARED_RULE_MODULE.replace(
        '"cache": CACHE, "flag": FLAG}', '"cache": str(CACHE), "flag": bool(FLAG)}')  # expect: at the use
    assert (package / "other.py").read_text(encoding="utf-8") == SHARED_READER_MODULE
    (package / "other.py").unlink()  # alone, the module's one reader is the config: fixed where it is written
    (package / "rule.py").write_text(SHARED_RULE_MODULE, encoding="utf-8")
    run_fix("--no-cache", "shared", cwd=root)
    assert 'CACHE = str(pathlib.Path("/tmp/xla-cache"))\nFLAG = bool(np.bool_(True))\n' in (
        package / "rule.py").read_text(encoding="utf-8")
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    (package / "other.py").write_text(SHARED_READER_MODULE, encoding="utf-8")
    cases = program_cases(package / "rule.py", "shared.rule")
    for text, verdict in ((SHARED_RULE_MODULE, "ACC101"), (SHARED_RULE_MODULE.replace(
            '"cache": CACHE, "flag": FLAG}', '"cache": str(CACHE), "flag": bool(FLAG)}'), CLEAN)):
        (package / "rule.py").write_text(text, encoding="utf-8")
        assert run_programs([str(root)], cases)["shared.rule.case_shared"].verdict == verdict
    reader = subprocess.run([sys.executable, "-c", "from shared import other; print(other.cache_file('x'), "
                             "other.flag_bits())"], cwd=root, capture_output=True, text=True, check=False)
    assert reader.stdout == "/tmp/xla-cache/x 1\n", reader.stderr  # expect: the reader still works


#: a primitive whose abstract eval reads a keyword the rule puts into its config as it is (trial 9's ``fx4``)
HOOKED_MODULE = '''\
import numpy as np
from jax._src import core
from jax._src.interpreters import mlir
from jax._src.lax import parallel

hooked_p = core.Primitive("hooked_start")


def _hooked_abstract_eval(x, *, overlap):
    if overlap.item():
        return core.AbstractFuture(x, parallel.ppermute_done_p.bind)
    return core.AbstractFuture(x, parallel.ppermute_done_p.bind)


hooked_p.def_abstract_eval(_hooked_abstract_eval)


def _hooked_lowering(ctx, x, *, overlap):
    cfg = {"source_target_pairs": [[0, 1], [1, 0]], "overlap": overlap}
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)


mlir.register_lowering(hooked_p, _hooked_lowering)


def case_hooked(x):  # oracle: ACC101
    return hooked_p.bind(x, overlap=np.bool_(True)).done()
'''


def test_a_bind_keyword_the_abstract_eval_reads_gets_no_fix(tmp_path):
    """JAX gives a ``bind``'s keywords to the primitive's abstract eval too: ``overlap.item()`` there fails once
    ``bool(...)`` is bound instead (trial 9), so the finding at the bind keeps no fix; with an abstract eval
    that does not read the keyword, the fix is kept. Real JAX: the program raises at lowering, and with the fix
    it raises AttributeError while tracing."""
    package = tmp_path / "hooked"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "ops.py").write_text(HOOKED_MODULE, encoding="utf-8")

    def reported() -> list[tuple[int, int, str, str | None]]:
        checked = run_program("check", "--no-cache", "--output-format", "json", "hooked", cwd=tmp_path)
        return [(d["line"], d["column"], d["code"], d["fix"] and d["fix"]["replacement"])
                for d in json.loads(checked.stdout)]

    assert reported() == [(27, 37, "ACC101", None)]  # expect: the finding, without a fix
    (package / "ops.py").write_text(HOOKED_MODULE.replace("    if overlap.item():", "    if True:"), encoding="utf-8")
    assert reported() == [(27, 37, "ACC101", "bool(np.bool_(True))")]  # expect: not read there: fixed
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    cases = program_cases(package / "ops.py", "hooked.ops")
    outcomes = []
    for text in (HOOKED_MODULE, HOOKED_MODULE.replace("overlap=np.bool_(True)", "overlap=bool(np.bool_(True))")):
        (package / "ops.py").write_text(text, encoding="utf-8")
        outcomes.append(run_programs([str(tmp_path)], cases)["hooked.ops.case_hooked"])
    assert [outcomes[0].verdict, outcomes[1].lowering] == ["ACC101", "AttributeError"]


def test_the_abstract_eval_as_a_decorator_or_in_another_module_and_jaxs_impl(tmp_path):
    """The hooks trial 10 found missed: ``@p.def_abstract_eval`` over a function reading ``overlap.item()``, and
    ``p.def_abstract_eval(f)`` in another module of the package: no fix at the bind. JAX's own
    ``p.def_impl(functools.partial(dispatch.apply_primitive, p))`` reads no keyword: the fix stays."""
    package = tmp_path / "hooks"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    decorated = HOOKED_MODULE.replace("hooked_p.def_abstract_eval(_hooked_abstract_eval)\n", "").replace(
        "def _hooked_abstract_eval(", "@hooked_p.def_abstract_eval\ndef _hooked_abstract_eval(")
    (package / "decorated.py").write_text(decorated, encoding="utf-8")
    elsewhere = HOOKED_MODULE.replace("hooked_p.def_abstract_eval(_hooked_abstract_eval)\n", "")
    (package / "elsewhere.py").write_text(elsewhere, encoding="utf-8")
    (package / "registry.py").write_text("from .elsewhere import _hooked_abstract_eval, hooked_p\n\n"
                                         "hooked_p.def_abstract_eval(_hooked_abstract_eval)\n", encoding="utf-8")
    impl = HOOKED_MODULE.replace("hooked_p.def_abstract_eval(_hooked_abstract_eval)\n", (
        "hooked_p.def_abstract_eval(lambda x, **params: core.AbstractFuture(x, parallel.ppermute_done_p.bind))\n"
        "hooked_p.def_impl(functools.partial(dispatch.apply_primitive, hooked_p))\n")).replace(
        "import numpy as np\n", "import functools\n\nimport numpy as np\nfrom jax._src import dispatch\n")
    (package / "impl.py").write_text(impl, encoding="utf-8")
    checked = run_program("check", "--no-cache", "--output-format", "json", "hooks", cwd=tmp_path)
    assert [(Path(d["filename"]).name, d["code"], d["fix"] and d["fix"]["replacement"])
            for d in json.loads(checked.stdout)] == [  # expect: only JAX's impl leaves the fix
        ("decorated.py", "ACC101", None), ("elsewhere.py", "ACC101", None),
        ("impl.py", "ACC101", "bool(np.bool_(True))")]


#: a batching rule that reads the keyword as an enum member and binds the primitive again with it (trial 11)
BATCHED_MODULE = '''\
import enum

from jax._src import core
from jax._src.interpreters import batching, mlir
from jax._src.lax import parallel


class Mode(enum.Enum):
    PUSH = "push"
    PULL = "pull"


start_p = core.Primitive("batched_start")
start_p.def_abstract_eval(lambda x, *, mode: core.AbstractFuture(x, parallel.ppermute_done_p.bind))


def _batcher(args, dims, *, mode):
    (x,), (d,) = args, dims
    if mode.value == "pull":
        x = x[::-1]
    return start_p.bind(x, mode=mode), d


batching.primitive_batchers[start_p] = _batcher


def _lowering(ctx, x, *, mode):
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, {"mode": mode})


mlir.register_lowering(start_p, _lowering)


def case_start(x):  # oracle: ACC101
    return start_p.bind(x, mode=Mode.PUSH).done()
'''


def test_a_bind_keyword_a_batching_rule_reads_and_binds_again_gets_no_fix(tmp_path):
    """JAX calls the batching rule with the ``bind``'s keywords (``PARAMS_TABLES``), and the rule passes ``mode`` to
    ``start_p.bind`` again: the finding arrives there too, and its fix must also be kept away when the rule
    reads ``mode.value`` (trial 11: ``fix --unsafe-fixes`` bound ``Mode.PUSH.value``, and the rule then failed
    on a str). A rule that only binds it again keeps the fix. Real JAX: the program raises at lowering, and the
    rule given what the fixed bind passes raises AttributeError."""
    package = tmp_path / "batched"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")

    def reported(text: str) -> list[tuple[int, int, str, str | None]]:
        (package / "ops.py").write_text(text, encoding="utf-8")
        checked = run_program("check", "--no-cache", "--unsafe-fixes", "--output-format", "json", "batched", cwd=tmp_path)
        return [(d["line"], d["column"], d["code"], d["fix"] and d["fix"]["replacement"]) for d in json.loads(checked.stdout)]

    assert reported(BATCHED_MODULE) == [(35, 33, "ACC101", None)]  # expect: the finding, without a fix
    only_bound = BATCHED_MODULE.replace('    if mode.value == "pull":\n        x = x[::-1]\n', "")
    assert reported(only_bound) == [(33, 33, "ACC101", "Mode.PUSH.value")]  # expect: passed on only: fixed
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    (package / "ops.py").write_text(BATCHED_MODULE, encoding="utf-8")
    assert run_programs([str(tmp_path)], program_cases(package / "ops.py", "batched.ops"))[
        "batched.ops.case_start"].verdict == "ACC101"
    batcher = subprocess.run([sys.executable, "-c", "import numpy as np\nfrom batched.ops import _batcher\n"
                              "_batcher((np.zeros(2),), (0,), mode='push')"], cwd=tmp_path, capture_output=True,
                             text=True, check=False)
    assert "AttributeError: 'str' object has no attribute 'value'" in batcher.stderr


#: a dict constant spread into the config, read by another module (trial 10's ``dictbase``)
SHARED_DICT_RULE = SHARED_RULE_MODULE.replace(
    'CACHE = pathlib.Path("/tmp/xla-cache")\nFLAG = np.bool_(True)\n',
    'BASE = {"source_target_pairs": [[0, 1], [1, 0]], "cache": pathlib.Path("/tmp/xla-cache")}\n').replace(
    'cfg = {"source_target_pairs": [[0, 1], [1, 0]], "cache": CACHE, "flag": FLAG}', 'cfg = {**BASE, "n": 1}')


def test_an_entry_of_a_dict_constant_another_module_reads_is_fixed_at_the_config(tmp_path):
    """The entry's fix goes to the config's use of the constant (unsafe), not into the constant that another
    module reads (``BASE["cache"] / "x"`` there raised TypeError after the entry became a str). Real JAX lowers
    the rule after ``fix --unsafe-fixes``, and the reader still works."""
    package = tmp_path / "shared"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "rule.py").write_text(SHARED_DICT_RULE, encoding="utf-8")
    (package / "other.py").write_text('from .rule import BASE\n\n\ndef cache_file(name):\n    return BASE["cache"] / name\n',
                                      encoding="utf-8")
    checked = run_program("check", "--no-cache", "--output-format", "json", "shared", cwd=tmp_path)
    assert [(d["line"], d["code"], d["fix"]["replacement"], d["fix"]["safety"]) for d in json.loads(checked.stdout)] \
        == [(8, "ACC101", '{**BASE, "cache": str(BASE["cache"])}', "unsafe")]  # expect: at the use, unsafe
    run_fix("--no-cache", "--unsafe-fixes", "shared", cwd=tmp_path)
    assert 'cfg = {**{**BASE, "cache": str(BASE["cache"])}, "n": 1}' in (package / "rule.py").read_text(encoding="utf-8")
    if sys.version_info < (3, 12) or importlib.util.find_spec("jax") is None:
        pytest.skip("the oracle needs Python >= 3.12 and jax 0.12.0.1")
    cases = program_cases(package / "rule.py", "shared.rule")
    assert run_programs([str(tmp_path)], cases)["shared.rule.case_shared"].verdict == CLEAN
    reader = subprocess.run([sys.executable, "-c", "from shared import other; print(other.cache_file('x'))"],
                            cwd=tmp_path, capture_output=True, text=True, check=False)
    assert reader.stdout == "/tmp/xla-cache/x\n", reader.stderr  # expect: the reader still works


#: a rule whose keyword's default is an Enum member: put into the config as it is, and (in the second
#: rule) also compared with the member, which a `.value` default would turn false (the "depth" key lost)
DEFAULT_RULES = SINK_IMPORT + '''import enum


class Sched(enum.Enum):
    TREE = "tree"


def only_config(ctx, x, *, v=Sched.TREE):
    return emit("t", ctx, x, {"v": v})


def also_compared(ctx, x, *, v=Sched.TREE):
    cfg = {"v": v}
    if v == Sched.TREE:
        cfg["depth"] = 2
    return emit("t", ctx, x, cfg)
'''


def test_a_defaults_fix_is_kept_only_when_every_use_puts_the_parameter_into_a_config():
    """A fix in a parameter's default changes what every use sees when no caller passes one (a new-user
    trial: ``v=Sched.TREE.value`` made ``v == Sched.TREE`` false), as a fix at a call does."""
    found = check_source(DEFAULT_RULES, "m.py", with_fixes=True)
    assert [(d.line, d.column, d.code) for d in found] == [(9, 30, "ACC101"), (13, 32, "ACC101")]
    assert found[0].fix is not None and found[0].fix.replacement == "Sched.TREE.value"
    assert found[1].fix is None  # expect: the comparison needs the member
