"""The garbage collector's pauses (``run/collector.py``), and the deferred collections of the CLI and the server.

The CLI's deferral lasts for the rest of its process, so those cases run in a child interpreter; the
CLI's own use is checked through ``python -m asynccfg_lint`` with a probe that counts the
collections of its last file.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import pytest

from asynccfg_lint.run.collector import PENDING_BUDGET, collect_pending, collection_deferred, collector_paused


class _Node:
    """A weak-referenceable object that can refer to itself (a cycle only the collector frees)."""


def _cycle() -> weakref.ref:
    node = _Node()
    node.self = node
    return weakref.ref(node)


def test_a_pause_turns_the_collector_off_and_its_outermost_end_turns_it_back_on(owned):
    assert gc.isenabled()
    with collector_paused():
        inner_state = gc.isenabled()
        with collector_paused():
            ref = _cycle()
        after_nested = gc.isenabled()  # expect: a nested pause's end does not resume it
    assert (inner_state, after_nested, gc.isenabled()) == (False, False, True)
    gc.collect()
    assert ref() is None  # expect: the cycle made in the pause is garbage once it resumes


def test_a_pause_in_a_hosts_process_leaves_the_collector_on():
    """A guest (the flake8 plugin, the codemod) pauses nothing."""
    with collector_paused():
        inside = gc.isenabled()
    assert (inside, gc.isenabled()) == (True, True)


def test_owning_ends_with_the_collector_on_and_nothing_deferred():
    """The CLI's main defers collection to the process's end; when main returns in-process, the collector is back."""
    from asynccfg_lint.process_owner import owned_process
    from asynccfg_lint.run.collector import defer_collection_until_exit

    with owned_process():
        defer_collection_until_exit()
        with collector_paused():
            ref = _cycle()
        inside = gc.isenabled()  # expect: off, its garbage pending until the next pause or the process's end
    gc.collect()
    assert (inside, gc.isenabled(), ref()) == (False, True, None)


def test_a_check_in_collection_deferred_keeps_its_garbage_until_collect_pending(owned):
    """The language server's order: the check, its diagnostics published, then the collection."""
    try:
        with collection_deferred():
            with collector_paused():
                ref = _cycle()
            collect_pending()  # expect: no effect while still deferring
            inside = (gc.isenabled(), ref() is not None)
        after = (gc.isenabled(), ref() is not None)
        collect_pending()
        resumed = gc.isenabled()
    finally:
        collect_pending()
        gc.enable()
    gc.collect()
    assert (inside, after, resumed, ref()) == ((False, True), (False, True), True, None)


_DEFERRED = textwrap.dedent("""
    import gc, json, sys, weakref
    from asynccfg_lint.process_owner import owned_process
    from asynccfg_lint.run.collector import collector_paused, defer_collection_until_exit, expect_remaining

    ownership = owned_process()  # (the CLI's process, to its end)
    ownership.__enter__()

    class Node:
        pass

    def cycle():
        node = Node()
        node.self = node
        return weakref.ref(node)

    defer_collection_until_exit()
    expect_remaining(json.loads(sys.argv[1]))
    with collector_paused():
        first = cycle()
    after_first = [first() is not None, gc.isenabled()]
    with collector_paused():
        in_second = [first() is not None, gc.isenabled()]
        with collector_paused():
            second = cycle()
        in_nested = [second() is not None]
    after_second = [second() is not None, gc.isenabled()]
    print(json.dumps([after_first, in_second, in_nested, after_second]))
""")


def _deferred_probe(remaining: int | None) -> list[list[bool]]:
    """The states :data:`_DEFERRED` reports with ``expect_remaining(remaining)`` said before its pauses."""
    run = subprocess.run([sys.executable, "-c", _DEFERRED, json.dumps(remaining)], capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(run.stdout)


@pytest.mark.parametrize("remaining", [None, PENDING_BUDGET])
def test_a_deferred_pause_leaves_its_garbage_to_the_start_of_the_next_pause(remaining):
    """The rest of the run not known (``None``), or as large as the budget: the next pause begins with a walk."""
    after_first, in_second, in_nested, after_second = _deferred_probe(remaining)
    assert after_first == [True, False]  # expect: the first pause's cycle lives on, the collector stays off
    assert in_second == [False, False]  # expect: freed as the second pause begins
    assert in_nested == [True]  # expect: a nested pause collects nothing
    assert after_second == [True, False]  # expect: the second pause's cycle waits for a next pause too


def test_a_deferred_pause_leaves_its_garbage_to_the_exit_when_the_rest_of_the_run_fits():
    """Little left to do (1,000 objects more, far under :data:`PENDING_BUDGET`): no pause walks the garbage."""
    after_first, in_second, in_nested, after_second = _deferred_probe(1_000)
    assert after_first == [True, False]
    assert in_second == [True, False]  # expect: the first pause's cycle is still there: no walk ran
    assert in_nested == [True]
    assert after_second == [True, False]


_LAST_FILE_PROBE = textwrap.dedent("""
    import gc, os, runpy, sys
    collected = []
    gc.callbacks.append(lambda phase, info: phase == "stop" and collected.append(info["collected"]))
    exit_now = os._exit
    def report_and_exit(code):
        sys.stderr.write("LARGEST %d\\n" % max(collected, default=0))
        exit_now(code)
    os._exit = report_and_exit
    sys.argv = ["asynccfg-lint", "check", "--no-cache", sys.argv[1]]
    runpy.run_module("asynccfg_lint", run_name="__main__")
""")


_RULE_MODULE = textwrap.dedent("""\
    from jax._src.lax.parallel import _emit_async_start_custom_call


    def lower(ctx, x):
        cfg = {"groups": {1, 2}}
        return _emit_async_start_custom_call("all-gather-start", ctx, x, cfg)
    """) + "".join(f"\n\ndef shard_sizes_{index}(n: int, parts: int = {index + 2}) -> list[int]:\n"
                   f"    base, extra = divmod(n, parts)\n"
                   f"    return [base + (1 if i < extra else 0) for i in range(parts)]\n" for index in range(12))


def _largest_collection(path: Path) -> tuple[list[str], int]:
    """``check --no-cache path`` through ``python -m asynccfg_lint``: its output lines and the most objects one
    collection freed."""
    run = subprocess.run([sys.executable, "-c", _LAST_FILE_PROBE, str(path)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1, run.stderr
    return run.stdout.splitlines(), int(run.stderr.split("LARGEST ")[1].split()[0])


def test_the_cli_ends_without_collecting_its_last_file(tmp_path):
    """``check`` of one module with a finding: the same diagnostic, and no collection frees the module's tree
    (with the collector resumed after the file, one collection freed about 3,000 objects; deferred, the largest
    collection is import-time garbage, about 170)."""
    module = tmp_path / "rule.py"
    module.write_text(_RULE_MODULE, encoding="utf-8")
    lines, largest = _largest_collection(module)
    assert lines[0].startswith(f"{module}:5:22: ACC101 ")
    assert largest < 1000  # expect: only import-time garbage is collected; the tree (thousands of objects) is not


def test_the_cli_leaves_every_files_garbage_to_the_exit_when_the_run_is_small(tmp_path):
    """``check`` of three such modules (about 7 kB, far under the budget): each has its diagnostic, and no
    collection frees the trees of the first two either (each pause began with the one before's garbage waiting)."""
    for name in ("rule_a.py", "rule_b.py", "rule_c.py"):
        (tmp_path / name).write_text(_RULE_MODULE, encoding="utf-8")
    lines, largest = _largest_collection(tmp_path)
    assert [line.split(" ACC101 ")[0] for line in lines[:3]] == [f"{tmp_path / name}:5:22:" for name in
                                                                 ("rule_a.py", "rule_b.py", "rule_c.py")]
    assert largest < 1000  # expect: import-time garbage only
