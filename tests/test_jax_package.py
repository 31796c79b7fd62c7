"""The CLI over the real installed ``jax`` package: it must run clean, and really trace JAX's own sink calls.

``pytest -s`` prints how many files were checked and how long the run took.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from asynccfg_lint.run.discovery import iter_python_files
from asynccfg_lint.analysis.jax_facts import JAX_VERSION
from tests.frontend_runs import run_cli, run_program

pytestmark = pytest.mark.jax

PARALLEL = os.path.join("jax", "_src", "lax", "parallel.py")


@pytest.fixture(scope="module")
def jax_dir() -> str:
    if sys.version_info < (3, 12):
        pytest.skip(f"jax 0.12.0.1 needs Python >= 3.12; this is {sys.version.split()[0]}")
    try:
        import jax
    except ImportError as exc:
        pytest.skip(f"jax is not importable ({exc}); install the test extra: pip install -e '.[test]'")
    return os.path.dirname(jax.__file__)


def test_whole_jax_package_is_clean(jax_dir):
    files = sum(1 for _ in iter_python_files([jax_dir]))
    started = time.perf_counter()
    result = run_cli("--output-format", "json", jax_dir)
    elapsed = time.perf_counter() - started
    print(f"\nasynccfg-lint check over {jax_dir}: {files} files in {elapsed:.2f} s")
    assert result.returncode in (0, 1)
    assert result.stderr == "39 sink calls checked: all fully typed\n"
    diagnostics = json.loads(result.stdout)
    assert [d for d in diagnostics if d["path"].endswith(PARALLEL)] == []
    # measured with jax 0.12.0.1: JAX's own lowering rules pass only serializable configs
    assert diagnostics == []
    assert result.returncode == 0
    assert files > 500


def test_parallel_py_sink_calls_are_traced(jax_dir, tmp_path):
    """With ACC201 on, every value parallel.py's lowering rules write into their configs is typed: no finding.

    Each of JAX's five ``_emit_async_start_custom_call`` calls (lines 1138, 1232, 1636, 2087,
    2321) is found and its config traced back to the dict displays and helper functions that
    build it, also into the other jax modules its helpers come from (``pxla.axis_groups``). The
    bind keywords the registered lowering rules put into their configs are typed too: the batching
    rules' (``_all_to_all_batched_collective``, registered in ``batching.fancy_primitive_batchers``)
    keyword parameters hold what the primitive's binds pass and ``dims_in`` holds ints and Nones
    (``split_axis + (d <= split_axis)`` is an int), the private batchers they call hold what those
    calls pass, ``canonicalize_axis(...) -> int`` is an int by its annotation, and
    ``unreduced_psum_scatter``'s ``tiled=False`` (bound in a nested ``bind``) makes it a wrapper.
    That the calls really are traced: the same file with a set under ``"permutation"`` is reported there.
    """
    import jax

    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"the expected positions are those of jax {JAX_VERSION}; this is jax {jax.__version__}")
    path = os.path.join(jax_dir, "_src", "lax", "parallel.py")
    result = run_cli("--output-format", "json", "--extend-select", "ACC201", path)
    assert result.stderr == "38 sink calls checked: all fully typed\n"
    assert json.loads(result.stdout) == []
    assert result.returncode == 0
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    written = '{"permutation": full_perm.tolist(), **other_args}'
    assert source.count(written) == 1
    broken = tmp_path / "jax" / "_src" / "lax" / "parallel.py"  # the sink is this module's own function
    broken.parent.mkdir(parents=True)
    for package in (tmp_path / "jax", tmp_path / "jax" / "_src", broken.parent):
        (package / "__init__.py").write_text("", encoding="utf-8")
    # and a user's fault passed to a public function whose parameter (unannotated, default False)
    # reaches a config through its nested bind is still reported at the call
    caller = '\n\ndef _user(x):\n    return unreduced_psum_scatter(x, "i", tiled=np.bool_(True))\n'
    text = source.replace(written, '{"permutation": set(full_perm.tolist()), **other_args}') + caller
    broken.write_text(text, encoding="utf-8")
    result = run_cli("--output-format", "json", str(broken))
    assert [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)] == [
        (1234, 25, "ACC101"), (text.count("\n"), 49, "ACC101")]


def test_fix_over_a_copy_of_jax_and_the_fix_fixtures(jax_dir, tmp_path):
    """`fix -j 2` over a copy of the jax sources plus the fix fixtures: jax untouched, fixtures fixed."""
    tree = tmp_path / "tree"
    shutil.copytree(jax_dir, tree / "jax", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
    fixtures = Path(__file__).parent / "fixtures" / "fix"
    (tree / "fixtures").mkdir()
    shutil.copyfile(fixtures / "safe_scalars.py", tree / "fixtures" / "safe_scalars.py")
    before = {p: p.read_bytes() for p in (tree / "jax").rglob("*.py")}
    started = time.perf_counter()
    result = run_program("fix", "-j", "2", ".", cwd=tree)
    print(f"\nasynccfg-lint fix -j 2 over a copy of jax: {time.perf_counter() - started:.2f} s")
    assert result.returncode == 0, result.stderr
    assert all(p.read_bytes() == data for p, data in before.items())
    assert (tree / "fixtures" / "safe_scalars.py").read_bytes() == (fixtures / "safe_scalars.fixed.py").read_bytes()
    scanned = len(list(iter_python_files([str(tree)])))
    assert result.stderr == f"{scanned} files scanned, 1 file changed, 17 fixes applied, 0 findings left\n"


def test_the_check_of_parallel_py_parses_only_the_modules_its_builders_come_from(jax_dir):
    """A one-file check of parallel.py in the jax package parses the modules its lowering rules' helpers
    and constants come from, and no other: a call that passes a rule to one of JAX's own functions
    (``mlir.lower_fun(fn, ...)``) is no registrar function's call, so ``mlir.py`` is not parsed to find out."""
    import jax

    from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS
    from asynccfg_lint.run.project import Project
    from asynccfg_lint.run.tasks import CheckSettings

    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"the modules looked up are those of jax {JAX_VERSION}; this is jax {jax.__version__}")
    project = Project(iter_python_files([jax_dir]))
    path = os.path.join(jax_dir, "_src", "lax", "parallel.py")
    outcome = project.analyse(BUILTIN_SINKS, {path: CheckSettings()})[path]
    assert outcome.diagnostics == ()
    assert sorted(os.path.relpath(parsed, jax_dir) for parsed in project._parsed) == [
        "_src/interpreters/pxla.py", "_src/lib/__init__.py", "_src/lib/mlir/__init__.py",
        "_src/lib/mlir/dialects/__init__.py", "_src/tree_util.py", "_src/util.py"]
