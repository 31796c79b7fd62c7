"""Run a real front end with one analysis stage broken on purpose, to test the per-file error boundary.

``python tests/inject_failure.py MODULE [ARGS ...]`` runs ``python -m MODULE ARGS`` after
:func:`install`: the classifier's ``check_entries`` (every front end's path from a traced config
to its findings) raises ``RuntimeError`` for a module whose text holds :data:`MARKER`, and the
language server's quick-fix edit raises for such a document. For a module holding
:data:`CTRL_C_MARKER`, ``check_entries`` instead sends its own process a Ctrl-C (SIGINT) and swallows
the KeyboardInterrupt, dropping that config's findings, as code that catches every exception would.
Worker processes forked by the front end inherit the broken stage; every other file is analysed as usual.
"""

from __future__ import annotations

import os
import runpy
import signal
import sys
from pathlib import Path

MARKER = "INJECTED_FAILURE"
#: the exception's text, as the ACC001 message repeats it
MESSAGE = "injected failure in check_entries"
#: a module holding this text gets a Ctrl-C that its analysis swallows
CTRL_C_MARKER = "INJECTED_SWALLOWED_CTRL_C"


def install() -> None:
    """Break ``ValueClassifier.check_entries`` (and the server's ``fix_edit``) for files holding :data:`MARKER`,
    and make it swallow a Ctrl-C for files holding :data:`CTRL_C_MARKER`."""
    from asynccfg_lint.analysis.classifier import ValueClassifier

    original = ValueClassifier.check_entries

    def check_entries(self, *args, **kwargs):
        if MARKER in self.parsed.text:
            raise RuntimeError(MESSAGE)
        if CTRL_C_MARKER in self.parsed.text:
            try:
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):  # the handler runs at the next bytecode boundary
                    pass
            except KeyboardInterrupt:
                return []
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
