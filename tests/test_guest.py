"""A guest changes nothing in its host: the flake8 plugin and the codemod leave libcst, the recursion limit, the
thread stack size, the collector and other tools' state as they found them, while they run and after.

The package below has a deep module (beyond :data:`~asynccfg_lint.analysis.parse.DEEP_TREE_DEPTH`): the CLI, which
owns its process, analyses it on a large stack; a guest reports it as ACC001 instead of raising the limits.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import libcst as cst
from flake8.api import legacy
from flake8.main.options import JobsArgument

from tests import host_state
from tests.frontend_runs import SINK_IMPORT

PACKAGE = {
    "__init__.py": "",
    "settings.py": "GROUPS = {1, 2}\n",
    "lowering.py": textwrap.dedent("""\
        import numpy as np
        from jax._src.lax.parallel import _emit_async_start_custom_call as emit
        from pkg.settings import GROUPS


        def lower(ctx, x, d):
            cfg = {k: (v)for k, v in d.items()}
            cfg["tiled"] = np.bool_(True)
            return emit("all-gather-start", ctx, x, {"groups": GROUPS, **cfg})
        """),
    # 150 nested dicts: deeper than DEEP_TREE_DEPTH, so only a process the tool owns analyses it
    "deep.py": SINK_IMPORT + 'emit("t", 1, 2, {"bad": {1}, ' + '"a": {' * 150 + "}" * 150 + "})\n",
}
#: what a guest reports on PACKAGE: (file, line, column, code), the column 1-based
GUEST_FINDINGS = [
    ("deep.py", 1, 1, "ACC001"),
    ("lowering.py", 8, 20, "ACC101"),
    ("lowering.py", 9, 56, "ACC101"),
]


def _rows(findings: list[tuple[str, int, int, str]]) -> list[str]:
    """``findings`` as the sorted ``file:line:column: CODE`` starts of flake8's rows."""
    return sorted(f"{file}:{line}:{column}: {code}" for file, line, column, code in findings)


def _package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text, encoding="utf-8")
    return package


#: a second libcst-based flake8 plugin: per file, what changed since flake8 loaded it, and whether libcst validates
SPY_PLUGIN = textwrap.dedent("""\
    import host_state

    BEFORE = host_state.host_state()


    class Spy:
        name = "spy"
        version = "1"

        def __init__(self, tree, filename):
            self.filename = filename

        def run(self):
            changed = host_state.changes(BEFORE, host_state.host_state())
            if changed:
                yield 1, 0, "SPY001 changed: " + ", ".join(changed)[:300], type(self)
            if not host_state.invalid_node_is_rejected():
                yield 1, 0, "SPY002 libcst made an invalid node", type(self)
    """)


def test_a_second_libcst_plugin_sees_stock_libcst_on_every_file(tmp_path):
    """flake8 with the plugin and a second libcst plugin, in one process and in forked workers: the second
    plugin finds libcst, the limits and the collector as they were on every file."""
    _package(tmp_path)
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    shutil.copy(Path(host_state.__file__), plugins / "host_state.py")
    (plugins / "spy_plugin.py").write_text(SPY_PLUGIN, encoding="utf-8")
    (tmp_path / ".flake8").write_text(textwrap.dedent("""\
        [flake8]
        select = ACC0,ACC1,SPY
        [flake8:local-plugins]
        extension =
            SPY = spy_plugin:Spy
        paths = ./plugins
        """), encoding="utf-8")
    for jobs in ("1", "2"):
        result = subprocess.run([sys.executable, "-m", "flake8", "--asynccfg-no-cache", "-j", jobs, "pkg"],
                                cwd=tmp_path, capture_output=True, text=True, timeout=300)
        rows = sorted(line.split(" ")[0].replace("pkg/", "") + " " + line.split(" ")[1]
                      for line in result.stdout.splitlines())
        assert (rows, result.stderr) == (_rows(GUEST_FINDINGS), ""), result.stdout


def test_flake8_in_process_changes_nothing_while_and_after_it_runs(tmp_path, monkeypatch, capsys):
    """flake8 run in this process over a package with a deep module: meanwhile another thread's invalid libcst
    nodes are rejected and nothing it watches changes; afterwards the limits and the collector are as before."""
    _package(tmp_path)
    monkeypatch.chdir(tmp_path)
    before = host_state.host_state()
    seen: dict[str, int] = {"checks": 0, "invalid nodes made": 0}
    changed: set[str] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen["checks"] += 1
            if not host_state.invalid_node_is_rejected():
                seen["invalid nodes made"] += 1
            changed.update(host_state.changes(before, host_state.host_state()))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        style = legacy.get_style_guide(select=["ACC0", "ACC1"], jobs=JobsArgument("1"), asynccfg_no_cache=True)
        report = style.check_files(["pkg"])
    finally:
        done.set()
        watcher.join()
    rows = [line.split(" ")[0].replace("pkg/", "") + " " + line.split(" ")[1]
            for line in capsys.readouterr().out.splitlines()]
    assert (sorted(rows), report.total_errors) == (_rows(GUEST_FINDINGS), 3)
    assert (seen["invalid nodes made"], sorted(changed)) == (0, [])
    assert seen["checks"] > 0
    assert host_state.changes(before, host_state.host_state()) == []


USER_PROGRAM = """\
import sys

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

wrapper = MetadataWrapper(cst.parse_module("x = {'a': 1}\\n"))
positions = wrapper.resolve(PositionProvider)
parents = wrapper.resolve(ParentNodeProvider)
dict_node = wrapper.module.body[0].body[0].value

from asynccfg_lint.codemod import FixAsyncConfigCommand  # noqa: E402 - after the user's metadata, on purpose

path = sys.argv[1]
with open(path, encoding="utf-8") as handle:
    tree = cst.parse_module(handle.read())
fixed = FixAsyncConfigCommand(CodemodContext(filename=path), unsafe_fixes=True).transform_module(tree)
start = positions[dict_node].start
print(start.line, start.column, type(parents[dict_node]).__name__)
print(fixed.code, end="")
"""


def test_a_users_resolved_metadata_survives_the_codemod(tmp_path):
    """A libcst program resolves metadata, then imports and runs the codemod: its metadata is still found, by
    the same nodes, and the codemod made its fix."""
    package = _package(tmp_path)
    (tmp_path / "user_program.py").write_text(USER_PROGRAM, encoding="utf-8")
    result = subprocess.run([sys.executable, "user_program.py", str(package / "lowering.py")], cwd=tmp_path,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    first, *code = result.stdout.splitlines()
    assert first == "1 4 Assign"
    assert code[7:9] == ['    cfg["tiled"] = bool(np.bool_(True))',
                         '    return emit("all-gather-start", ctx, x, {"groups": sorted(GROUPS), **cfg})']


def test_stock_libcst_rejects_what_the_owned_process_repairs():
    """The repairs are the CLI's: imported as a library, the tool leaves libcst's own behaviour (a parenthesized
    lambda after ``not`` fails in libcst 1.9 on CPython 3.12; the CLI parses it with a repair)."""
    import asynccfg_lint.analysis.parse  # noqa: F401 - importing changes nothing

    try:
        cst.parse_expression("not(lambda: 0)")
        outcome = "parsed"
    except TypeError:
        outcome = "TypeError"
    assert outcome == ("TypeError" if sys.version_info[:2] in ((3, 12), (3, 13)) else outcome)
