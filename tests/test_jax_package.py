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

from asynccfg_lint.discovery import iter_python_files
from asynccfg_lint.jax_facts import JAX_VERSION
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
    assert result.stderr == ""
    diagnostics = json.loads(result.stdout)
    assert [d for d in diagnostics if d["path"].endswith(PARALLEL)] == []
    # measured with jax 0.12.0.1: JAX's own lowering rules pass only serializable configs
    assert diagnostics == []
    assert result.returncode == 0
    assert files > 500


def test_parallel_py_sink_calls_are_traced(jax_dir):
    """With ACC201 on, the only reports in parallel.py are the values whose type the checker cannot see.

    Each of JAX's five ``_emit_async_start_custom_call`` calls (lines 1138, 1232, 1636, 2087,
    2321) is found and its config traced back to the dict displays and helper functions that
    build it, also into the other jax modules its helpers come from (``pxla.axis_groups``);
    every other value there was classified as serializable. The lowering rules'
    parameters (``split_axis``, ``tiled``, ...) are not reported in the rules: each registered rule
    is a derived sink, whose keywords are checked at the primitives' ``bind`` calls.
    """
    import jax

    if jax.__version__ != JAX_VERSION:
        pytest.skip(f"the expected positions are those of jax {JAX_VERSION}; this is jax {jax.__version__}")
    path = os.path.join(jax_dir, "_src", "lax", "parallel.py")
    with open(path, encoding="utf-8") as handle:
        source_lines = handle.read().splitlines()
    result = run_cli("--output-format", "json", "--extend-select", "ACC201", path)
    assert result.stderr == ""
    assert result.returncode == 1
    found = [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)]
    assert {code for _, _, code in found} == {"ACC201"}
    # what each reported position holds in jax 0.12.0.1's parallel.py
    texts = [source_lines[line - 1][column - 1:] for line, column, _ in found]
    assert [text.split("(")[0].split(",")[0].split("}")[0] for text in texts] == [
        # (pxla.axis_groups at line 966 is followed into jax/_src/interpreters/pxla.py, another module
        # of the run: it returns tuple(...) of tuples, which serializes, so it is no longer unknown)
        "ir.DenseIntElementsAttr.get",  # replica_groups as an MLIR attribute
        "hlo.ReplicaGroupMeshAxesAttr.get",
        "other_args",                 # {"permutation": ..., **other_args}
        # the keywords of the primitives' bind calls, which the registered lowering rules put into
        # their configs (all_to_all_p, all_gather_p, all_gather_invariant_p, reduce_scatter_p, ...):
        # computed from the public functions' arguments, so their type is not known
        "split_axis + ", "concat_axis + ", "split_axis", "concat_axis", "split_axis", "split_axis",
        "all_gather_dimension", "all_gather_dimension", "canonicalize_axis", "canonicalize_axis",
        "scatter_dimension", "scatter_dimension", "tiled)",
    ]
    assert [line for line, _, _ in found] == [980, 1002, 1234, 1657, 1658, 1675, 1675, 1712, 1723, 2137, 2144, 2209,
                                              2209, 2369, 2812, 2813]


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
    assert result.stderr == f"{scanned} files scanned, 1 file changed, 13 fixes applied, 0 findings left\n"
