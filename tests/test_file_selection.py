"""File selection against real git: ``respect-gitignore``, gitignore-style globs (``pathspec``) and
``--show-files``/``--show-settings``.

git is the judge: the globs of ``exclude``/``extend-exclude``/``per-file-ignores`` must match
exactly what ``git check-ignore`` says for the same pattern, and the files the walk yields must be
what ``git ls-files --others --exclude-standard`` lists (minus non-Python files).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from asynccfg_lint.run.config import ConfigError, Glob, Overrides, Resolver, globs, iter_files
from tests.frontend_runs import SINK_IMPORT, parse_text, run_cli, run_flake8

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")

#: ACC101 at 2:23 (a set)
ONE_FINDING = SINK_IMPORT + 'emit("t", 1, 2, {"a": {1}})\n'


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` and return its stdout (fails the test on an exit other than 0 or 1)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def make_repo(root: Path, files: dict[str, str]) -> Path:
    """A git work tree at ``root`` holding ``files`` (relative path -> text)."""
    git(root, "init", "-q", ".")
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git_unignored(root: Path) -> list[str]:
    """The Python files git does not ignore, as ``./relative`` paths, sorted."""
    listed = git(root, "ls-files", "--others", "--cached", "--exclude-standard").splitlines()
    return sorted(f"./{path}" for path in listed if path.endswith((".py", ".pyi")))


# ------------------------------------------------------------------------- globs against git
#: (pattern, paths) — each path is checked by git check-ignore and by our Glob; a trailing "/" marks a folder
GLOB_CASES = [
    ("**.py", ["a.py", "sub/a.py", "a.pyi"]),
    ("\\*.py", ["*.py", "a.py"]),                     # a literal "*": our old translator could not match it
    ("[]]x.py", ["]x.py", "x.py", "sub/]x.py"]),       # crashed the old translator (re.error: bad escape \Z)
    ("a/**/b.py", ["a/b.py", "a/x/y/b.py", "b.py", "x/a/b.py"]),
    ("/top.py", ["top.py", "sub/top.py"]),
    ("gen/", ["gen/", "sub/gen/", "other/gen"]),       # a trailing "/" matches folders only
    ("legacy/*.py", ["legacy/a.py", "legacy/sub/a.py", "x/legacy/a.py"]),
    ("*_pb2.py", ["m_pb2.py", "deep/er/m_pb2.py", "m_pb3.py"]),
    ("tests/**", ["tests/a.py", "tests/sub/b.py", "tests/"]),
    ("[!a]*.py", ["a.py", "b.py"]),
    ("?.py", ["a.py", "ab.py", "sub/a.py"]),
    ("{a,b}.py", ["a.py", "{a,b}.py"]),                # no alternatives in gitignore: braces are literal
]


@pytest.mark.parametrize(("pattern", "paths"), GLOB_CASES, ids=[case[0] for case in GLOB_CASES])
def test_globs_match_as_git_check_ignore_does(tmp_path, pattern, paths):
    make_repo(tmp_path, {".gitignore": pattern + "\n"})
    for path in paths:
        is_dir = path.endswith("/")
        target = tmp_path / path.rstrip("/")
        if is_dir:
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x = 1\n")
    for path in paths:
        git_says = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=tmp_path).returncode == 0
        ours = Glob(pattern, str(tmp_path)).matches(str(tmp_path / path.rstrip("/")), path.endswith("/"))
        assert ours == git_says, (pattern, path, git_says)


#: exclusions that name a file or folder at any depth (the walk rules most names out with one set lookup)
NAME_EXCLUSIONS = ["build", "out/", "*.egg-info", "gen?", "x]", "[ab]c.py", "*_pb2.py", "a b.py"]
NAME_TREE = ["build.py", "build/m.py", "sub/build", "out.py", "out/m.py", "sub/out/m.py", "pkg.egg-info/m.py",
             ".egg-info/m.py", "gen1/m.py", "gen/m.py", "gen12.py", "x].py", "x]", "ac.py", "bc.py", "cc.py",
             "deep/m_pb2.py", "a b.py", "kept.py", "sub/kept.py", "sub2/build/m.py", "a/pkg.egg-info/m.py"]


def test_name_exclusions_skip_what_git_ignores_for_the_same_patterns(tmp_path, monkeypatch):
    make_repo(tmp_path, {path: "x = 1\n" for path in NAME_TREE})
    (tmp_path / ".git" / "info" / "exclude").write_text("".join(f"{p}\n" for p in NAME_EXCLUSIONS))
    expected = git_unignored(tmp_path)
    assert expected == ["./build.py", "./cc.py", "./gen/m.py", "./gen12.py", "./kept.py", "./out.py", "./sub/kept.py",
                        "./x].py"]  # expect: git's verdict
    (tmp_path / ".git" / "info" / "exclude").write_text("")
    resolver = Resolver(overrides=Overrides(exclude=globs(NAME_EXCLUSIONS, str(tmp_path), "exclude")))
    monkeypatch.chdir(tmp_path)
    assert sorted(iter_files(["."], resolver)) == expected


def test_a_negated_exclusion_is_a_configuration_error_and_an_escaped_one_a_name(tmp_path):
    """git keeps ``a.py`` under ``*.py`` then ``!a.py``; an exclusion is matched on its own (trial 11: the
    ``!`` glob matched nothing, silently), so it is refused; ``\\!`` is a literal name starting with ``!``."""
    with pytest.raises(ConfigError) as raised:
        globs(["*.py", "!a.py"], str(tmp_path), "exclude")
    assert str(raised.value) == ("exclude: a negated glob ('!a.py') cannot re-include what another excludes; "
                                 "leading '!' is for per-file-ignores (write '\\!' for a name that starts with '!')")
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextend-exclude = ["!gen"]\n', encoding="utf-8")
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    check = run_cli(".", cwd=tmp_path)
    assert check.returncode == 2 and "extend-exclude: a negated glob ('!gen')" in check.stderr
    (escaped,) = globs(["\\!gen.py"], str(tmp_path), "exclude")
    assert escaped.matches(str(tmp_path / "!gen.py"), False) and not escaped.matches(str(tmp_path / "gen.py"), False)


@pytest.mark.parametrize(("pattern", "reason"), [("a\\", ""), ("!", ""), ("[z-a].py", ": bad character range z-a")])
def test_a_malformed_glob_is_a_configuration_error_naming_the_option(pattern, reason):
    with pytest.raises(ConfigError) as raised:
        globs([pattern], "/", "extend-exclude")
    assert str(raised.value) == f"extend-exclude: invalid glob {pattern!r}{reason}"  # expect: no re.error, no traceback


def test_a_malformed_glob_in_pyproject_does_not_abort_flake8(tmp_path):
    """The plugin reads only extra-sinks and sanitizers: a glob it never uses cannot stop a flake8 run."""
    (tmp_path / "pyproject.toml").write_text('[tool.asynccfg-lint]\nextend-exclude = ["[z-a]"]\n')
    (tmp_path / "m.py").write_text(ONE_FINDING)
    result = run_flake8("--select", "ACC", "m.py", cwd=tmp_path)
    assert (result.returncode, [(r.line, r.column, r.code) for r in parse_text(result.stdout)]) == (1, [(2, 23, "ACC101")])
    assert "failed during execution" not in result.stderr
    check = run_cli("m.py", cwd=tmp_path)  # the CLI, which uses the glob, refuses it
    assert check.returncode == 2
    assert check.stderr == (f"asynccfg-lint: error: {tmp_path / 'pyproject.toml'}: [tool.asynccfg-lint]: "
                            "extend-exclude: invalid glob '[z-a]': bad character range z-a\n")


# --------------------------------------------------------------------------- respect-gitignore
REPO = {
    ".gitignore": "ignored.py\ngenerated/\nnested/*.py\n*.log\n",
    "nested/.gitignore": "!keep.py\n",              # a deeper file re-includes what a higher one ignores
    "kept.py": ONE_FINDING,
    "ignored.py": ONE_FINDING,
    "generated/out.py": ONE_FINDING,
    "nested/keep.py": ONE_FINDING,
    "nested/drop.py": ONE_FINDING,
    "excluded_by_info.py": ONE_FINDING,
    "sub/deep.py": ONE_FINDING,
}


def test_the_walk_skips_what_git_ignores(tmp_path):
    make_repo(tmp_path, REPO)
    (tmp_path / ".git" / "info" / "exclude").write_text("excluded_by_info.py\n")
    expected = git_unignored(tmp_path)
    assert expected == ["./kept.py", "./nested/keep.py", "./sub/deep.py"]  # expect: git's own verdict
    assert [r.path for r in parse_text(run_cli(".", cwd=tmp_path).stdout)] == expected
    everything = [r.path for r in parse_text(run_cli("--no-respect-gitignore", ".", cwd=tmp_path).stdout)]
    assert everything == ["./excluded_by_info.py", "./generated/out.py", "./ignored.py", "./kept.py",
                          "./nested/drop.py", "./nested/keep.py", "./sub/deep.py"]


def test_respect_gitignore_in_the_configuration_and_the_command_line_over_it(tmp_path):
    make_repo(tmp_path, {**REPO, "pyproject.toml": "[tool.asynccfg-lint]\nrespect-gitignore = false\n"})
    assert len(parse_text(run_cli(".", cwd=tmp_path).stdout)) == 7
    assert len(parse_text(run_cli("--respect-gitignore", ".", cwd=tmp_path).stdout)) == 4


def test_gitignore_outside_a_git_work_tree_and_for_named_files(tmp_path):
    """As ruff: .gitignore counts only inside a git work tree, and a named file is checked even if ignored."""
    for relative, text in REPO.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    assert len(parse_text(run_cli(".", cwd=tmp_path).stdout)) == 7  # no .git: nothing is ignored
    git(tmp_path, "init", "-q", ".")
    assert [r.path for r in parse_text(run_cli("ignored.py", cwd=tmp_path).stdout)] == ["ignored.py"]
    assert [r.path for r in parse_text(run_cli("--force-exclude", "ignored.py", cwd=tmp_path).stdout)] == ["ignored.py"]


def test_a_named_folder_is_walked_even_if_git_ignores_it(tmp_path):
    """ruff 0.17.5: `ruff check --show-files ignored_dir` lists its files; `ruff check .` skips them."""
    make_repo(tmp_path, REPO)
    assert [r.path for r in parse_text(run_cli("generated", cwd=tmp_path).stdout)] == ["generated/out.py"]
    assert run_cli("--show-files", "generated", cwd=tmp_path).stdout == f"{tmp_path / 'generated' / 'out.py'}\n"
    assert "generated" not in run_cli("--show-files", ".", cwd=tmp_path).stdout


def test_a_named_folder_inside_an_excluded_one_is_walked_unless_force_exclude(tmp_path):
    """Measured with ruff 0.17.5 on node_modules/pkg/m.py: `ruff check --show-files node_modules/pkg` lists it,
    `.` and `--force-exclude node_modules/pkg` (or the file) do not."""
    (tmp_path / "node_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / "m.py").write_text(ONE_FINDING)
    listed = str(tmp_path / "node_modules" / "pkg" / "m.py") + "\n"
    assert run_cli("--show-files", "node_modules/pkg", cwd=tmp_path).stdout == listed
    assert run_cli("--show-files", ".", cwd=tmp_path).stdout == ""
    assert run_cli("--show-files", "--force-exclude", "node_modules/pkg", cwd=tmp_path).stdout == ""
    assert run_cli("--show-files", "--force-exclude", "node_modules/pkg/m.py", cwd=tmp_path).stdout == ""


def test_the_walk_started_below_the_top_reads_the_gitignore_files_above(tmp_path):
    make_repo(tmp_path, REPO)
    assert [r.path for r in parse_text(run_cli(".", cwd=tmp_path / "nested").stdout)] == ["./keep.py"]


def test_one_walker_in_process(tmp_path):
    """``iter_files`` (the CLI's walk) and git agree in-process too, exclusions included."""
    make_repo(tmp_path, {**REPO, "legacy/old.py": ONE_FINDING})
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        # an absolute path below the folder is anchored there
        resolver = Resolver(overrides=Overrides(extend_exclude=globs([f"{tmp_path}/legacy/"], str(tmp_path)) or ()))
        walked = sorted(str(item) for item in iter_files(["."], resolver))
    finally:
        os.chdir(cwd)
    assert walked == [path for path in git_unignored(tmp_path) if not path.startswith("./legacy/")]


# --------------------------------------------------------------------- --show-files / --show-settings
def test_show_files_lists_what_would_be_checked(tmp_path):
    make_repo(tmp_path, {**REPO, "notes.txt": "x\n", "pyproject.toml": '[tool.asynccfg-lint]\nextend-exclude = ["sub"]\n'})
    result = run_cli("--show-files", ".", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.splitlines() == [str(tmp_path / "excluded_by_info.py"), str(tmp_path / "kept.py"),
                                          str(tmp_path / "nested" / "keep.py")]


def test_show_settings_prints_the_resolved_options_of_the_first_file(tmp_path):
    make_repo(tmp_path, {"m.py": ONE_FINDING, "pyproject.toml": '[tool.asynccfg-lint]\nignore = ["ACC103"]\n'
                                                              'per-file-ignores = { "tests/**" = ["ACC1"] }\n'})
    result = run_cli("--show-settings", "--extend-select", "ACC201", "--no-respect-gitignore", "m.py", cwd=tmp_path)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[:2] == [f'Resolved settings for: "{tmp_path / "m.py"}"', f'Settings path: "{tmp_path / "pyproject.toml"}"']
    assert 'ignore = ["ACC103"]' in lines
    assert 'per-file-ignores = {"tests/**" = ["ACC1"]}' in lines
    assert 'enabled = ["ACC001", "ACC101", "ACC102", "ACC104", "ACC105", "ACC201"]' in lines
    assert "respect-gitignore = false" in lines


def test_show_settings_prints_types_apart_from_sanitizers(tmp_path):
    """``[tool.asynccfg-lint.types]`` rows are shown as the table they are written as, not among the sanitizers."""
    make_repo(tmp_path, {"m.py": ONE_FINDING, "pyproject.toml": '[tool.asynccfg-lint]\nsanitizers = ["mypkg.io.clean"]\n'
                                                              '[tool.asynccfg-lint.types]\n'
                                                              '"mypkg.io.cache_root" = "pathlib.Path"\n'})
    lines = run_cli("--show-settings", "m.py", cwd=tmp_path).stdout.splitlines()
    assert 'sanitizers = ["mypkg.io.clean"]' in lines
    assert 'types = {"mypkg.io.cache_root" = "pathlib.Path"}' in lines


def test_a_gitignore_line_git_cannot_use_is_skipped_not_the_whole_file(tmp_path):
    make_repo(tmp_path, {".gitignore": "a.py\n[z-a]\nfoo\\\n", "a.py": ONE_FINDING, "b.py": ONE_FINDING})
    assert git_unignored(tmp_path) == ["./b.py"]  # expect: git still ignores a.py
    assert run_cli("--show-files", ".", cwd=tmp_path).stdout == f"{tmp_path / 'b.py'}\n"


def test_the_walk_lists_a_folders_files_then_its_subfolders_sorted_and_skips_linked_and_unreadable_folders(tmp_path):
    from asynccfg_lint.run.discovery import iter_python_files

    for name in ("b.py", "a.py", "notes.txt", "sub/z.py", "sub/deeper/y.pyi", "a_sub/x.py", "env/pyvenv.cfg",
                 "env/lib.py", "__pycache__/c.py", "locked/hidden.py", "elsewhere/linked.py"):
        (tmp_path / "tree" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / name).write_text("")
    (tmp_path / "tree" / "link").symlink_to(tmp_path / "tree" / "elsewhere", target_is_directory=True)
    (tmp_path / "tree" / "dangling.py").symlink_to(tmp_path / "gone.py")
    for name in ("linked_mark", "fifo_mark"):  # (a pyvenv.cfg that is no file makes no virtual environment: trial 18)
        (tmp_path / "tree" / name).mkdir()
        (tmp_path / "tree" / name / "m.py").write_text("")
    (tmp_path / "tree" / "linked_mark" / "pyvenv.cfg").symlink_to(tmp_path / "gone.cfg")
    os.mkfifo(tmp_path / "tree" / "fifo_mark" / "pyvenv.cfg")
    (tmp_path / "tree" / "locked").chmod(0)
    try:
        found = list(iter_python_files([str(tmp_path / "tree")]))
    finally:
        (tmp_path / "tree" / "locked").chmod(0o755)
    expected = ["a.py", "b.py", "dangling.py", "a_sub/x.py", "elsewhere/linked.py", "fifo_mark/m.py",
                "linked_mark/m.py", "sub/z.py", "sub/deeper/y.pyi"]
    if os.geteuid() == 0:  # (root reads a folder whatever its mode)
        expected.insert(7, "locked/hidden.py")
    # expect: os.walk's order (a folder's files, then each subfolder's, names sorted); the link to a folder, a virtual
    # environment and __pycache__ skipped; a dangling link to a .py listed (the check then reports it unreadable)
    assert found == [str(tmp_path / "tree" / name) for name in expected]
    # expect: a virtual environment named on the command line is walked
    assert list(iter_python_files([str(tmp_path / "tree" / "env")])) == [str(tmp_path / "tree" / "env" / "lib.py")]
