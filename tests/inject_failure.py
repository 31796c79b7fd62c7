"""Run a real front end with one analysis stage broken on purpose, to test the per-file error boundary.

``python tests/inject_failure.py MODULE [ARGS ...]`` runs ``python -m MODULE ARGS`` after
:func:`install`: the classifier's ``check_entries`` (every front end's path from a traced config
to its findings) raises ``RuntimeError`` for a module whose text holds :data:`MARKER`, and the
language server's quick-fix edit raises for such a document. Worker processes forked by the front
end inherit the broken stage; every other file is analysed as usual.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

MARKER = "INJECTED_FAILURE"
#: the exception's text, as the ACC001 message repeats it
MESSAGE = "injected failure in check_entries"


def install() -> None:
    """Break ``ValueClassifier.check_entries`` (and the server's ``fix_edit``) for files holding :data:`MARKER`."""
    from asynccfg_lint.analysis.classifier import ValueClassifier

    original = ValueClassifier.check_entries

    def check_entries(self, *args, **kwargs):
        if MARKER in self.parsed.text:
            raise RuntimeError(MESSAGE)
        return original(self, *args, **kwargs)

    ValueClassifier.check_entries = check_entries
    try:
        from asynccfg_lint.frontends import lsp
    except ImportError:  # no pygls: nothing to break there
        return
    original_edit = lsp.fix_edit

    def fix_edit(diagnostic, index):
        if MARKER in index.text:
            raise RuntimeError("injected failure in fix_edit")
        return original_edit(diagnostic, index)

    lsp.fix_edit = fix_edit


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    install()
    module, *arguments = sys.argv[1:]
    sys.argv = [module, *arguments]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
