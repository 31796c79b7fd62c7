"""Which summaries a run computes, and that a kept or cached one is never used once its module changed.

A one-file run (pre-commit, flake8, the language server) reads only the modules its file may
reach through names that lead to a sink (``prefilter.SinkNames``); summaries and outcomes are
kept in memory and in the result cache by content digest, so a changed module is analysed
again and an unchanged one is not. In-process tests with real packages on disk.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import time
from pathlib import Path

import libcst

from asynccfg_lint.analysis import parse, prefilter
from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.run import cache as cache_module
from asynccfg_lint.run import project as project_module
from asynccfg_lint.run.cache import MISSING, ResultCache
from asynccfg_lint.run.discovery import iter_python_files
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS, SinkKind, SinkSpec
from asynccfg_lint.analysis.prefilter import SinkIndex, SinkNames, may_call
from asynccfg_lint.run.project import Project
from asynccfg_lint.run.tasks import CheckSettings
from tests.frontend_runs import SINK_IMPORT, parse_text, run_cli, run_flake8

#: impl.send forwards its cfg to the sink through a module-level partial; relay.forward forwards to impl.send
IMPL = ("import functools\n" + SINK_IMPORT + 'start = functools.partial(emit, "all-gather-start")\n\n\n'
        "def send(ctx, x, cfg):\n    return start(ctx, x, cfg)\n")
RELAY = "from . import impl\n\n\ndef forward(ctx, x, cfg):\n    return impl.send(ctx, x, cfg)\n"
#: names no sink: its finding exists only through both wrappers (the set: line 4, column 27)
USER = 'from .relay import forward\n\n\ndef lower(ctx, x):\n    forward(ctx, x, {"groups": {1, 2}})\n'
UNRELATED = "import numpy as np\n\n\ndef area(r):\n    return np.pi * r * r\n"


def write_package(root: Path) -> Path:
    package = root / "pkg"
    package.mkdir()
    for name, text in {"__init__": "", "impl": IMPL, "relay": RELAY, "user": USER, "unrelated": UNRELATED}.items():
        (package / f"{name}.py").write_text(text)
    return package


def project_of(package: Path, cache: ResultCache | None = None) -> Project:
    # keep_analysed: every parse of the run stays in `_parsed`, so the tests see what was parsed
    return Project(iter_python_files([str(package)]), cache=cache, keep_analysed=True)


def codes(project: Project, path: Path) -> list[tuple[int, int, str]]:
    outcome = project.analyse(BUILTIN_SINKS, {str(path): CheckSettings()}).get(str(path))
    return [(d.line, d.column, d.code) for d in outcome.diagnostics] if outcome is not None else []


def test_the_names_that_lead_to_a_sink_and_their_modules(tmp_path):
    package = write_package(tmp_path)
    files = list(iter_python_files([str(package)]))
    modules = {path: f"pkg.{Path(path).stem}".removesuffix(".__init__") for path in files}
    names = SinkNames({path: Path(path).read_bytes() for path in files}, modules, BUILTIN_SINKS)
    homes = {name: where for name, where in names.homes.items() if None not in where}
    # the import alias `emit`, the partial `start`, the wrapper `send`, the wrapper of a wrapper
    # `forward` (and user's import of it), and `lower`, which may be one; `area` leads nowhere
    assert homes == {"emit": {"pkg.impl"}, "start": {"pkg.impl"}, "send": {"pkg.impl"},
                     "forward": {"pkg.relay", "pkg.user"}, "lower": {"pkg.user"}}


def test_a_file_reaches_only_the_modules_that_lead_it_to_a_sink(tmp_path):
    package = write_package(tmp_path)
    project = project_of(package)
    assert project.scope(BUILTIN_SINKS, [USER]) == {str(package / "relay.py"), str(package / "impl.py")}
    assert project.scope(BUILTIN_SINKS, [UNRELATED]) == frozenset()


def test_one_file_of_the_package_sees_the_wrappers_it_reaches(tmp_path):
    package = write_package(tmp_path)
    assert codes(project_of(package), package / "user.py") == [(5, 32, "ACC101")]  # expect: the set {1, 2}


def test_a_sink_free_file_parses_nothing(tmp_path):
    package = write_package(tmp_path)
    project = project_of(package)
    assert codes(project, package / "unrelated.py") == []
    assert project._parsed == {}  # not even the modules that define wrappers


def test_a_kept_summary_is_not_used_once_its_module_changed(tmp_path):
    # the language server keeps the project between checks; a save makes it read the changes
    package = write_package(tmp_path)
    project = project_of(package)
    assert codes(project, package / "user.py") == [(5, 32, "ACC101")]
    # impl.send now passes a fixed config: forward's cfg no longer reaches the sink
    (package / "impl.py").write_text(IMPL.replace("start(ctx, x, cfg)", 'start(ctx, x, {"tiled": True})'))
    assert project.refresh() == [str(package / "impl.py")]
    assert codes(project, package / "user.py") == []


def test_a_cached_summary_is_not_used_once_its_module_changed(tmp_path):
    package = write_package(tmp_path)
    cache = ResultCache(str(tmp_path / "cache"))
    assert codes(project_of(package, cache), package / "user.py") == [(5, 32, "ACC101")]
    (package / "relay.py").write_text(RELAY.replace("impl.send(ctx, x, cfg)", "impl.send(ctx, x, {})"))
    assert codes(project_of(package, cache), package / "user.py") == []
    (package / "relay.py").write_text(RELAY)  # back as it was: the first entries answer again, unparsed
    warm = project_of(package, cache)
    assert codes(warm, package / "user.py") == [(5, 32, "ACC101")]
    assert warm._parsed == {}


def test_a_checked_files_wrappers_serve_a_later_summary_of_it(tmp_path):
    # `check pkg` then `check pkg/user.py` (pre-commit): the siblings' summaries come from the cache
    package = write_package(tmp_path)
    cache = ResultCache(str(tmp_path / "cache"))
    whole = project_of(package, cache)
    whole.analyse(BUILTIN_SINKS, dict.fromkeys(whole.files, CheckSettings()))
    (package / "user.py").write_text(USER + "# changed\n")
    one = project_of(package, cache)
    assert codes(one, package / "user.py") == [(5, 32, "ACC101")]
    # parsed for its check; relay and impl only because the finding has a fix at forward's argument, and the
    # fix is kept only when forward and impl.send merely pass cfg on to the sink (fixing.argument_fixes)
    assert set(one._parsed) == {str(package / name) for name in ("user.py", "relay.py", "impl.py")}


def test_the_cli_on_one_changed_file_reads_its_siblings_summaries_from_the_cache(tmp_path):
    package = write_package(tmp_path)
    cold = run_cli("--isolated", "--cache-dir", "cache", "pkg", cwd=tmp_path)
    (package / "user.py").write_text(USER + "# changed\n")
    one = run_cli("--isolated", "--cache-dir", "cache", "pkg/user.py", cwd=tmp_path)
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(one.stdout)] == [("pkg/user.py", 5, 32, "ACC101")]
    assert [r.path for r in parse_text(cold.stdout)] == ["pkg/user.py"]


def test_the_index_matches_what_each_sink_alone_matches():
    # SinkIndex (one pass over the text) against may_call (one test per sink), with few and many sinks
    wrappers = [SinkSpec(frozenset({f"pkg.mod{i}.send{i}"}), "cfg", 2, SinkKind.CONFIG, wrapper_module=f"pkg.mod{i}")
                for i in range(40)]
    texts = ["from . import mod3\nmod3.send3(ctx, x, {})\n", "send3(1)\n", "import mod7, mod8\nmod8.send7()\n",
             "x = 1\n", SINK_IMPORT, "from .mod5 import send5 as s\n", b"mod9.send9(ctx)\n"]
    for sinks in (list(BUILTIN_SINKS) + wrappers[:2], list(BUILTIN_SINKS) + wrappers):
        index = SinkIndex(sinks)
        for text in texts:
            for module in ("pkg.user", "pkg.mod3"):
                assert index.matching(text, module) == [s for s in sinks if may_call(text, module, s)]
    many = SinkIndex(wrappers)
    assert many.matching("from . import mod3\nmod3.send3(ctx, x, {})\n", "pkg.user") == [wrappers[3]]
    assert many.matching("send3()\n", "pkg.mod3", own=False) == []  # its own wrapper, left out
    assert many.matching("send3()\n", "pkg.mod3") == [wrappers[3]]


def test_a_later_round_matches_the_bind_of_a_modules_own_primitive_that_another_module_registers():
    # lowering.py registers the rule of the primitive primitives.py defines and binds: the bind's sink is made by
    # lowering.py's summary, under primitives.py's name, so primitives.py is analysed again in the next round
    bind = SinkSpec(frozenset({"pkg.primitives.flow_p.bind"}), "**", None, SinkKind.PARAMETERS,
                    wrapper_module="pkg.primitives", used_at="pkg.lowering._flow_lowering")
    text = "def flow(x, **kw):\n    return flow_p.bind(x, **kw)\n"
    assert SinkIndex([bind]).matching(text, "pkg.primitives", own=False) == [bind]


def test_a_primitives_bind_is_matched_only_in_a_text_that_says_bind():
    # a text naming the primitive without binding it (a re-export, a cost model registered for it) cannot call
    # its bind; every form of the call says "bind" (measured on jax: lax/__init__.py, rooflines.py are not parsed)
    bind = SinkSpec(frozenset({"pkg.prims.gather_p.bind"}), "groups", None, SinkKind.PARAMETERS,
                    wrapper_module="pkg.prims", used_at="pkg.prims._rule")
    texts = {
        "from pkg import prims\nprims.gather_p.bind(x, groups=g)\n": True,
        "from pkg import prims\nsend = functools.partial(prims.gather_p.bind, groups=g)\n": True,
        "from pkg import prims\ngetattr(prims.gather_p, 'bind')(x, groups=g)\n": True,
        "from pkg.prims import gather_p as gather_p\n": False,
        "from pkg import prims\nroofline.register(prims.gather_p)(cost)\n": False,
    }
    for sinks in ([bind], [bind, *BUILTIN_SINKS]):
        index = SinkIndex(sinks)
        for text, matched in texts.items():
            assert may_call(text, "pkg.user", bind) is matched, text
            assert (bind in index.matching(text, "pkg.user")) is matched, text


def test_many_names_are_matched_as_the_texts_words():
    # past SUBSTRING_NAMES a name counts only as a whole identifier: `send1` is not in `send10`, `ésend2`
    # is one word, `mod.send3` is no identifier; a few names are substring searches (a coarser test)
    names = frozenset({f"send{i}" for i in range(30)} | {"mod.send3", ""})
    text = "from . import mod\nmod.send10(ctx)\nésend2 = send20\nx = send4_\n"
    mentioned = prefilter._Mentions(text.encode())
    assert sorted(mentioned.among(frozenset({"send1", "send4"}))) == ["send1", "send4"]  # expect: as substrings
    assert sorted(mentioned.among(names)) == ["send10", "send20"]  # expect: the words only
    assert (mentioned("send1"), mentioned("send10"), mentioned("ésend2")) == (False, True, True)


def test_very_many_names_are_matched_against_the_listed_words():
    # past LISTED_NAMES the text's words are listed once: the same answers as one search per name
    names = frozenset({f"send{i}" for i in range(prefilter.LISTED_NAMES + 4)} | {"mod.send3", ""})
    text = "from . import mod\nmod.send10(ctx)\nésend2 = send20\nx = send4_\n"
    mentioned = prefilter._Mentions(text)
    assert sorted(mentioned.among(names)) == ["send10", "send20"]  # expect: the words only
    assert mentioned._listed is not None
    assert (mentioned("send1"), mentioned("send10"), mentioned("ésend2"), mentioned("mod")) == (False, True, True, True)


def test_a_package_lsp_edit_sees_the_saved_siblings(tmp_path):
    # copying the fixture package keeps the language server's view (tests/test_lsp.py) honest on scope
    shutil.copytree(Path(__file__).parent / "fixtures" / "project" / "pkg", tmp_path / "pkg")
    project = project_of(tmp_path / "pkg")
    users = (tmp_path / "pkg" / "users.py").read_text()
    sinks = project.sinks(BUILTIN_SINKS, users)
    assert {name for spec in sinks if spec.wrapper_module for name in spec.qualnames} >= {"pkg.wrappers.send"}


def test_a_document_of_a_package_with_stored_sinks_summarises_no_module(tmp_path, monkeypatch):
    # the language server opening a file: the package's sinks stored by an earlier run over all its files
    # answer while none changed, so no module is matched or summarised (jax/_src/lax/parallel.py: 20 % of the open)
    package = write_package(tmp_path)
    time.sleep(project_module.RACY_SECONDS + 0.2)  # expect: older than the racy window, so the state is stored
    cache = ResultCache(str(tmp_path / "cache"))
    every = project_of(package, cache).sinks(BUILTIN_SINKS)
    cache.flush()
    opened = project_of(package, cache)
    summarised: list[str] = []
    monkeypatch.setattr(Project, "_run", lambda self, tasks: summarised.extend(t.path for t in tasks) or [])
    assert opened.sinks(BUILTIN_SINKS, USER) == every  # expect: the stored sinks, the two wrappers among them
    assert {name for spec in every if spec.wrapper_module for name in spec.qualnames} >= {"pkg.impl.send",
                                                                                           "pkg.relay.forward"}
    assert summarised == []  # expect: no module summarised
    found = check_source(USER, str(package / "user.py"), sinks=every, modules=opened)
    assert [(d.line, d.column, d.code) for d in found] == [(5, 32, "ACC101")]  # expect: the set, through both


#: a sanitizer named by its qualified name, pkg.user.clean: the set it wraps is reported once it is not that
SANITIZED = (SINK_IMPORT + "\n\ndef clean(value):\n    return value\n\n\n"
             "def lower(ctx, x):\n    return emit(\"t\", ctx, x, {\"groups\": clean({1, 2})})\n")


def test_a_stored_outcome_or_parse_is_not_used_once_the_module_is_renamed(tmp_path):
    # an __init__.py added above the package makes pkg.user outer.pkg.user: the sanitizer the settings
    # name is then no function of the file, whose stored outcome (and parse) must not answer
    package = tmp_path / "outer" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    user = package / "user.py"
    user.write_text(SANITIZED)
    cache = ResultCache(str(tmp_path / "cache"))
    settings = CheckSettings(sanitizers=frozenset({"pkg.user.clean"}))

    def found() -> list[tuple[int, int, str]]:
        project = project_of(package, cache)
        outcome = project.analyse(BUILTIN_SINKS, {str(user): settings}).get(str(user))
        project.save_cache()
        return [(d.line, d.column, d.code) for d in outcome.diagnostics] if outcome is not None else []

    assert found() == []  # expect: clean({1, 2}) is the sanitizer's result
    digest = hashlib.sha256(user.read_bytes()).hexdigest()
    fresh = parse.parse_source(user.read_bytes(), str(user))
    cache.put_parsed_module(digest, fresh)
    cache.put_parsed_module(digest, fresh)
    assert cache.parsed_module(str(user), digest) is not None  # expect: stored under the name pkg.user
    (tmp_path / "outer" / "__init__.py").write_text("")
    assert cache.parsed_module(str(user), digest) is None  # expect: the module is outer.pkg.user now
    # the set, at line 9, column 47 (1-based): no sanitizer is called any more
    assert found() == [(9, 47, "ACC101")]


def test_a_module_with_two_files_is_reached_through_both(tmp_path):
    # `impl.py` and its stub `impl.pyi` are one module: the wrapper is in the .py, whichever is listed last
    package = write_package(tmp_path)
    (package / "impl.pyi").write_text("def send(ctx, x, cfg): ...\n")
    project = project_of(package)
    assert {str(package / "impl.py"), str(package / "impl.pyi")} <= project.scope(BUILTIN_SINKS, [RELAY])
    assert codes(project, package / "user.py") == [(5, 32, "ACC101")]


def test_a_one_file_run_reads_the_binding_units_of_unchanged_modules_from_the_cache(tmp_path, monkeypatch):
    # pre-commit on one changed file: the modules SinkNames reads with `ast` come from the cache
    package = write_package(tmp_path)
    cache = ResultCache(str(tmp_path / "cache"))
    first = project_of(package, cache).scope(BUILTIN_SINKS, [USER])
    (package / "user.py").write_text(USER + "# changed\n")
    parsed: list[bytes] = []
    real_ast_of = prefilter._ast_of
    monkeypatch.setattr(prefilter, "_ast_of", lambda source: parsed.append(source) or real_ast_of(source))
    again = project_of(package, cache).scope(BUILTIN_SINKS, [USER + "# changed\n"])
    assert again == first == {str(package / "relay.py"), str(package / "impl.py")}  # expect: the same modules
    assert parsed == [(USER + "# changed\n").encode()]  # expect: only the changed module is read with ast
    digest = hashlib.sha256(IMPL.encode()).hexdigest()
    assert cache.binding_units(digest) == prefilter.module_units(IMPL.encode())  # expect: stored as computed
    assert cache.binding_units("0" * 64) is MISSING  # expect: no entry for bytes never seen


#: a table of 401 collective targets routed to the sink: its loop binds every target's name, so the
#: names that may lead to a sink pass ``prefilter.MAX_SINK_NAMES`` and SinkNames gives up (every module may matter)
ROUTES = ("from jax._src.lax.parallel import _emit_async_start_custom_call\n\nROUTES = {}\nfor target in ("
          + ", ".join(f'"t{i}"' for i in range(401)) + "):\n    ROUTES[target] = _emit_async_start_custom_call\n")


def test_sink_names_give_up_as_soon_as_the_names_pass_the_limit(tmp_path):
    package = write_package(tmp_path)
    (package / "routes.py").write_text(ROUTES)
    files = sorted(iter_python_files([str(package)]), key=lambda path: not path.endswith("routes.py"))
    modules = {path: f"pkg.{Path(path).stem}".removesuffix(".__init__") for path in files}
    read: list[str] = []
    names = SinkNames({path: Path(path).read_bytes() for path in files}, modules, BUILTIN_SINKS,
                      lambda path, source: read.append(Path(path).name) or prefilter.module_units(source))
    assert names.homes is None  # expect: gave up (every module may matter)
    assert read == ["routes.py"]  # expect: impl.py, which names the sink too, is never read with ast


def test_a_package_past_the_limit_is_recorded_and_not_searched_again_until_its_files_change(tmp_path, monkeypatch):
    # jax's names pass the limit: a one-file run there would search them again each time to give up again
    package = write_package(tmp_path)
    (package / "routes.py").write_text(ROUTES)
    cache = ResultCache(str(tmp_path / "cache"))
    searched: list[int] = []
    real_sink_names = project_module.SinkNames
    monkeypatch.setattr(project_module, "SinkNames", lambda *args: searched.append(1) or real_sink_names(*args))
    assert project_of(package, cache).scope(BUILTIN_SINKS, [USER]) is None  # expect: every module may matter
    assert project_of(package, cache).scope(BUILTIN_SINKS, [USER]) is None  # expect: the same answer...
    assert searched == [1]  # expect: ...from the record, without a second search
    (package / "more.py").write_text(UNRELATED)
    assert project_of(package, cache).scope(BUILTIN_SINKS, [USER]) is None
    assert searched == [1, 1]  # expect: another list of files is searched again
    (package / "routes.py").unlink()
    (package / "more.py").unlink()
    assert project_of(package, cache).scope(BUILTIN_SINKS, [USER]) == {str(package / "relay.py"), str(package / "impl.py")}
    assert searched == [1, 1, 1]  # expect: under the limit nothing is recorded: searched each time
    assert project_of(package, cache).scope(BUILTIN_SINKS, [USER]) == {str(package / "relay.py"), str(package / "impl.py")}
    assert searched == [1, 1, 1, 1]


def test_a_package_past_the_limit_still_gives_each_front_end_the_finding_two_modules_away(tmp_path):
    # SinkNames gives up on this package: user.py (no sink named) is then found through the full rounds
    package = write_package(tmp_path)
    (package / "routes.py").write_text(ROUTES)
    cli = run_cli("--isolated", "--no-cache", "pkg/user.py", "pkg/unrelated.py", cwd=tmp_path)
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(cli.stdout)] == [("pkg/user.py", 5, 32, "ACC101")]
    flake8 = run_flake8("--select", "ACC", "pkg/user.py", "pkg/unrelated.py", cwd=tmp_path)
    assert flake8.stdout.splitlines() == ["pkg/user.py:5:32: ACC101 " + parse_text(cli.stdout)[0].message]


#: helpers.to_json returns its parameter less what the isinstance test takes out: an Enum member passed
#: stays one under IntEnum (ACC101 at 6:34 of USE), becomes its .value under Enum (nothing to report)
HELPER = "import enum\n\n\ndef to_json(v):\n    if isinstance(v, enum.{}):\n        return v.value\n    return v\n"
USE = ("import enum\n" + SINK_IMPORT + "from pkg.helpers import to_json\n"
       "class Kind(enum.Enum):\n    PUSH = 'push'\n"
       "emit('t', 0, 0, {'mode': to_json(Kind.PUSH)})\n")


def test_a_one_file_run_reads_another_modules_parse_from_the_cache_until_that_module_changes(tmp_path, monkeypatch):
    # pre-commit on one changed file: the module its analysis looks up (helpers.py) is parsed by the first
    # two runs (the second stores the parse), read from the cache by the third, parsed again once it changes
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # where the signing key is made
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helpers, use = package / "helpers.py", package / "use.py"
    helpers.write_text(HELPER.format("IntEnum"))
    cache = ResultCache(str(tmp_path / "cache"))
    parsed: list[str] = []
    real_parse = parse.parse_source
    monkeypatch.setattr(parse, "parse_source", lambda source, path, **options: parsed.append(Path(path).name) or real_parse(source, path, **options))

    def edit_and_check(run: int) -> tuple[list[tuple[int, int, str]], list[str]]:
        use.write_text(USE + f"# edit {run}\n")  # a changed file: its outcome is not cached
        parsed.clear()
        return codes(Project(iter_python_files([str(package)]), cache=cache), use), sorted(parsed)

    assert edit_and_check(1) == ([(6, 34, "ACC101")], ["helpers.py", "use.py"])  # expect: both parsed
    assert edit_and_check(2) == ([(6, 34, "ACC101")], ["helpers.py", "use.py"])  # expect: helpers.py stored now
    assert edit_and_check(3) == ([(6, 34, "ACC101")], ["use.py"])  # expect: helpers.py read from the cache
    helpers.write_text(HELPER.format("Enum"))
    assert edit_and_check(4) == ([], ["helpers.py", "use.py"])  # expect: new bytes, parsed again, the new verdict
    helpers.write_text(HELPER.format("IntEnum"))
    assert edit_and_check(5) == ([(6, 34, "ACC101")], ["use.py"])  # expect: the first bytes' parse again
    stored = sorted((tmp_path / "cache").glob("*/parses/*/*.pickle"))
    assert len(stored) == 1  # expect: the IntEnum helpers.py only (the Enum one was parsed once)
    stored[0].write_bytes(stored[0].read_bytes()[:-1] + b"\0")  # a changed byte: the signature no longer matches
    assert edit_and_check(6) == ([(6, 34, "ACC101")], ["helpers.py", "use.py"])  # expect: a miss, parsed again


def test_a_stored_parse_is_read_only_under_the_key_that_signed_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "one-user"))
    module = tmp_path / "helpers.py"
    module.write_text(HELPER.format("IntEnum"))
    cache = ResultCache(str(tmp_path / "cache"))
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    fresh = parse.parse_source(module.read_bytes(), str(module))
    cache.put_parsed_module(digest, fresh)  # the first time: a marker only
    assert cache.parsed_module(str(module), digest) is None  # expect: nothing stored yet
    cache.put_parsed_module(digest, fresh)
    stored = cache.parsed_module(str(module), digest)
    assert stored is not fresh and stored.module.code == HELPER.format("IntEnum")  # expect: the same module, read back
    assert cache.parsed_module(str(tmp_path / "other.py"), digest) is None  # expect: another path, another entry
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    assert cache.parsed_module(str(module), digest) is None  # expect: another user's key does not verify it


def test_a_stored_parse_is_keyed_by_the_installed_libcst_version(tmp_path, monkeypatch):
    # libcst's own LIBCST_VERSION names the release whose objects a stored parse holds, as its metadata does
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    assert cache_module._libcst_version() == importlib.metadata.version("libcst")
    module = tmp_path / "helpers.py"
    module.write_text(HELPER.format("IntEnum"))
    cache = ResultCache(str(tmp_path / "cache"))
    digest = hashlib.sha256(module.read_bytes()).hexdigest()
    fresh = parse.parse_source(module.read_bytes(), str(module))
    cache.put_parsed_module(digest, fresh)
    cache.put_parsed_module(digest, fresh)
    assert cache.parsed_module(str(module), digest) is not None  # expect: stored under this libcst
    monkeypatch.setattr(libcst, "LIBCST_VERSION", "0.0.1")  # another release of libcst: another entry
    cache_module._libcst_version.cache_clear()
    try:
        assert cache.parsed_module(str(module), digest) is None  # expect: not read by another libcst
    finally:
        cache_module._libcst_version.cache_clear()


def test_the_entries_folder_is_named_by_every_module_of_the_tool():
    # an edited module of asynccfg_lint (another mtime) names another folder: no entry of the old code is read
    module = Path(cache_module.__file__).resolve().parents[1] / "analysis" / "sinks.py"
    status = module.stat()
    before = cache_module.tool_fingerprint()
    try:
        os.utime(module, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000_000))
        changed = cache_module.tool_fingerprint()
    finally:
        os.utime(module, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert len(before) == 16 and changed != before  # expect: a 16-digit digest, another one after the edit
    assert cache_module.tool_fingerprint() == before  # expect: the same again once the module is as it was
    assert ResultCache("/tmp/unused-cache").entries.name == before


def test_a_summary_stops_when_no_new_wrapper_is_named_again(monkeypatch):
    # a round derives more only through a call naming a sink it derived: `send` is named once (its def), so the
    # first round is the last (before: a second one confirmed it)
    from asynccfg_lint.analysis import summaries

    rounds: list[int] = []
    derive = summaries.derive_sinks
    monkeypatch.setattr(summaries, "derive_sinks", lambda *args: rounds.append(1) or derive(*args))
    single = SINK_IMPORT + '\n\ndef send(ctx, x, cfg):\n    return emit("all-gather-start", ctx, x, cfg)\n'
    once = summaries.summarise_module(parse.parse_source(single, "impl.py"), BUILTIN_SINKS)
    assert (len(rounds), sorted(min(s.qualnames) for s in once - set(BUILTIN_SINKS))) == (1, ["impl.send"])
    # `forward` calls `send`: a second round derives it, and is the last (`forward` is named once)
    rounds.clear()
    chained = single + "\n\ndef forward(ctx, x, cfg):\n    return send(ctx, x, cfg)\n"
    both = summaries.summarise_module(parse.parse_source(chained, "impl.py"), BUILTIN_SINKS)
    assert (len(rounds), sorted(min(s.qualnames) for s in both - set(BUILTIN_SINKS))) == (
        2, ["impl.forward", "impl.send"])
