"""Files that vanish, cannot be written, or lead out of the tree: a reported error, never a crash, and the run goes on.

All through the real CLI in a subprocess. A file that vanishes between listing and reading is a
dangling symbolic link (listed by the walk, gone when opened). A read-only file is ``chmod 444``;
as root, which may write any file, it is made immutable (``chattr +i``) instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.frontend_runs import SINK_IMPORT, parse_text, run_program

SOURCE = SINK_IMPORT + "import numpy as np\nemit('t', 1, 2, {'a': np.bool_(1)})\n"
FIXED = SOURCE.replace("np.bool_(1)", "bool(np.bool_(1))")


def tree(root: Path) -> None:
    """``a.py`` and ``c.py`` with a fixable finding, and ``b_gone.py``, a link to a file that does not exist."""
    (root / "a.py").write_text(SOURCE)
    (root / "c.py").write_text(SOURCE)
    (root / "b_gone.py").symlink_to("removed.py")


def test_check_reports_a_vanished_file_and_goes_on(tmp_path):
    tree(tmp_path)
    result = run_program("check", "--isolated", ".", cwd=tmp_path)
    assert [(r.path, r.line, r.column, r.code, r.message) for r in parse_text(result.stdout) if r.code == "ACC001"] == [
        ("./b_gone.py", 1, 1, "ACC001", "file not analysed: No such file or directory"),
    ]
    assert [r.path for r in parse_text(result.stdout) if r.code == "ACC101"] == ["./a.py", "./c.py"]
    assert (result.returncode, result.stderr) == (1, "2 sink calls checked: all fully typed\n")


def test_fix_reports_a_vanished_file_and_goes_on(tmp_path):
    tree(tmp_path)
    result = run_program("fix", "--isolated", "-j", "2", ".", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == FIXED
    assert (tmp_path / "c.py").read_text() == FIXED
    assert result.returncode == 2
    assert result.stderr == ("./b_gone.py: error: No such file or directory\n"
                             "3 files scanned, 2 files changed, 2 fixes applied, 0 findings left\n")


@pytest.fixture
def read_only(tmp_path):
    """Make a file read-only for whoever runs the tests (immutable for root); undone afterwards."""
    made: list[Path] = []

    def make(path: Path) -> None:
        if os.geteuid() != 0:
            path.chmod(0o444)
        elif shutil.which("chattr") is None:
            pytest.skip("as root only an immutable file is read-only, and chattr is not installed")
        else:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"as root only an immutable file is read-only, and chattr +i failed: {done.stderr}")
            made.append(path)

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_fix_reports_a_read_only_file_and_goes_on(tmp_path, read_only):
    tree(tmp_path)
    (tmp_path / "b_gone.py").unlink()
    read_only(tmp_path / "a.py")
    result = run_program("fix", "--isolated", ".", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == SOURCE
    assert (tmp_path / "c.py").read_text() == FIXED
    assert result.returncode == 2
    assert result.stderr == ("./a.py: error: Permission denied\n"
                             "2 files scanned, 1 file changed, 1 fix applied, 1 finding left\n")
    # the unwritten file's finding is still reported (np.bool_(1) on line 3, column 23)
    assert [(r.path, r.line, r.column, r.code) for r in parse_text(result.stdout)] == [("./a.py", 3, 23, "ACC101")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "c.py"]  # no temporary file left


def test_a_symlink_out_of_the_tree_is_fixed_and_said(tmp_path):
    outside = tmp_path / "outside.py"
    outside.write_text(SOURCE)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "inside.py").write_text(SOURCE)
    (tmp_path / "tree" / "link.py").symlink_to(outside)
    (tmp_path / "tree" / "inner_link.py").symlink_to("inside.py")
    result = run_program("fix", "--isolated", "-j", "1", "tree", cwd=tmp_path)
    assert outside.read_text() == FIXED
    assert (tmp_path / "tree" / "link.py").is_symlink()
    assert result.returncode == 0
    assert result.stderr == (f"tree/link.py: note: a symbolic link out of the checked tree; fixed its target {outside}\n"
                             "3 files scanned, 2 files changed, 2 fixes applied, 0 findings left\n")
