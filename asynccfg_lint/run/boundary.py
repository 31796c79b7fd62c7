"""The per-file error boundary: what libcst or the analysis raises on one file becomes that file's ACC001.

ruff turns a panic on one file into an error for that file and goes on; every front end here
does the same through :func:`internal_error`: the file gets one ACC001 diagnostic at 1:1
(``internal error: TypeError: ...``, with how to report it), the traceback goes to the
``asynccfg_lint`` logger at INFO (``--verbose`` in the CLI, the server's log, flake8's logging), and
the run goes on with the other files.
"""

from __future__ import annotations

import logging

from asynccfg_lint.diagnostics import Diagnostic
from asynccfg_lint.rules import acc001

LOG = logging.getLogger("asynccfg_lint")
#: an exception's text is cut to this many characters in the one-line message
MESSAGE_LIMIT = 200


def internal_error(path: str, error: BaseException) -> Diagnostic:
    """The ACC001 diagnostic of ``path`` for ``error`` raised while analysing or fixing it; logs the traceback.

    Args:
        path: the display path of the file.
        error: the exception (its traceback is logged at INFO on the ``asynccfg_lint`` logger).
    Returns:
        a diagnostic at line 1, column 1 whose one-line message is
        ``internal error: <type>: <first line of the exception>; <how to report it>``.
    """
    LOG.info("asynccfg-lint: internal error on %s", path, exc_info=error)
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if len(text) > MESSAGE_LIMIT:
        text = text[:MESSAGE_LIMIT] + "..."
    what = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return Diagnostic(path, 1, 1, 1, 1, "ACC001", acc001.internal_error(what))


def is_internal_error(diagnostic: Diagnostic) -> bool:
    """True for a diagnostic made by :func:`internal_error`."""
    return diagnostic.code == "ACC001" and diagnostic.message.startswith(f"{acc001.INTERNAL_ERROR}: ")


def show_tracebacks() -> None:
    """Print each internal error's traceback on stderr (the CLI's ``--verbose``)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(message)s"))
    LOG.addHandler(handler)
    LOG.setLevel(logging.DEBUG)
