"""One answer in every front end: each module of each package fixture gets, from every front end that can
be handed it alone, exactly the rows ``check PACKAGE`` prints for it.

The front ends, each the real program: ``check FILE``, ``flake8 FILE``, ``check --stdin-filename FILE -``,
the language server with the file open, and the shipped pre-commit hook run by real pre-commit over the
package with its default parallel batches. The codemod command, run by libcst's own tool with its default
parallel jobs, makes exactly ``fix``'s edits. The package is the context of every file whatever a run was
handed: its registrations, rules, wrappers and values (splitpkg's binds are registered by a module
that neither binding module imports).
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.expectations import FIXTURES
from tests.frontend_runs import Reported, acc_rows, parse_text, run_cli, run_flake8, run_module, run_program
from tests.lsp_client import LspClient
from tests.pre_commit_runs import git, readme_config, run_pre_commit

PACKAGES = [FIXTURES / "project" / "pkg", *sorted(init.parent for init in (FIXTURES / "programs").glob("*/__init__.py"))]


def _rows(reported: list[Reported]) -> list[tuple[str, int, int, str, str]]:
    return sorted((row.path, row.line, row.column, row.code, row.message) for row in reported)


def _served(root: Path, modules: list[str]) -> dict[str, list[tuple[str, int, int, str, str]]]:
    """What one language server rooted at ``root`` publishes for each of ``modules`` opened in turn as saved."""
    client = LspClient(cwd=root)
    served = {}
    try:
        client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        for module in modules:
            uri = (root / module).as_uri()
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": (root / module).read_text()}})
            published = client.notification("textDocument/publishDiagnostics", timeout=120)
            while published["uri"] != uri:
                published = client.notification("textDocument/publishDiagnostics", timeout=120)
            served[module] = sorted((module, d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1,
                                     d["code"], d["message"]) for d in published["diagnostics"])
        assert client.request("shutdown") is None
        client.notify("exit")
        assert client.wait() == 0
    finally:
        client.close()
    return served


def _pre_commit_rows(package: Path, tmp_path: Path, hook_repo: tuple[Path, str], home: Path) -> list[Reported]:
    """The rows the shipped check hook prints, run by real pre-commit over a repository holding ``package``."""
    work = tmp_path / "work"
    shutil.copytree(package, work / package.name)
    (work / ".pre-commit-config.yaml").write_text(readme_config("repo: GIT_URL", *hook_repo))
    git("init", "-q", cwd=work)
    git("add", "-A", cwd=work)
    run = run_pre_commit("run", "asynccfg-lint", "--all-files", cwd=work, home=home)
    assert run.returncode == 1, run.stdout + run.stderr
    return parse_text("\n".join(line for line in run.stdout.splitlines() if ": ACC" in line))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_front_end_gives_each_module_the_package_runs_rows(package, tmp_path, hook_repo, pre_commit_home):
    root = package.parent
    modules = sorted(str(path.relative_to(root)) for path in package.rglob("*.py"))
    whole = _rows(parse_text(run_cli("--isolated", "--no-cache", package.name, cwd=root).stdout))
    assert len(whole) == {"pkg": 26, "classrulepkg": 2, "exportpkg": 9, "extpkg": 113, "optpkg": 4, "registrypkg": 6, "splitpkg": 4}[package.name]

    def alone(module: str) -> dict[str, list[tuple[str, int, int, str, str]]]:
        return {
            "check FILE": _rows(parse_text(run_cli("--isolated", "--no-cache", module, cwd=root).stdout)),
            "flake8 FILE": _rows(acc_rows(run_flake8(module, cwd=root).stdout)),
            "check --stdin-filename": _rows(parse_text(run_cli(
                "--isolated", "--no-cache", "--stdin-filename", module, "-", cwd=root,
                stdin=(root / module).read_bytes()).stdout)),
        }

    with ThreadPoolExecutor(max_workers=3) as pool:
        by_module = dict(zip(modules, pool.map(alone, modules)))
    served = _served(root, modules)
    hooked = _rows(_pre_commit_rows(package, tmp_path, hook_repo, pre_commit_home))
    assert hooked == whole
    for module in modules:
        expected = [row for row in whole if row[0] == module]
        assert by_module[module] == dict.fromkeys(by_module[module], expected), module
        assert served[module] == expected, module


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*.py"))}


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_the_codemod_makes_exactly_fixs_edits(package, unsafe, tmp_path):
    by_fix, by_codemod = tmp_path / "fix", tmp_path / "codemod"
    for root in (by_fix, by_codemod):
        shutil.copytree(package, root / package.name)
    flags = ["--unsafe-fixes"] if unsafe else []
    fixed = run_program("fix", "--isolated", "--no-cache", *flags, package.name, cwd=by_fix)
    assert fixed.returncode in (0, 1), fixed.stderr
    codemod = run_module("libcst.tool", "codemod", "-x", "--no-format", "asynccfg_lint.codemod.FixAsyncConfigCommand",
                         *flags, package.name, cwd=by_codemod)
    assert codemod.returncode == 0, codemod.stderr
    assert "0 warnings were generated" in codemod.stderr
    edited = {name for name, text in _tree(by_fix).items() if text != (package.parent / name).read_bytes()}
    assert len(edited) == {("pkg", False): 3, ("pkg", True): 3, ("extpkg", False): 8, ("extpkg", True): 26,
                           ("splitpkg", False): 1, ("splitpkg", True): 2,
                           ("optpkg", False): 0, ("optpkg", True): 1,
                           ("registrypkg", False): 0, ("registrypkg", True): 0,
                           ("classrulepkg", False): 0, ("classrulepkg", True): 1,
                           ("exportpkg", False): 0, ("exportpkg", True): 1}[package.name, unsafe]
    assert _tree(by_codemod) == _tree(by_fix)
