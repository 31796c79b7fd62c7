"""The fix stage as a LibCST codemod command, for ``python -m libcst.tool codemod``.

``python -m libcst.tool codemod codemod.FixAsyncConfigCommand PATH`` (with ``asynccfg_lint`` among
the ``modules`` of ``.libcst.codemod.yaml``), or ``asynccfg_lint.codemod.FixAsyncConfigCommand``
with libcst's default configuration. It applies the same fixes as ``asynccfg-lint fix``, through
the same :func:`asynccfg_lint.fixing.fixer.fix_source` (one transform, then the re-check), and sees what
``fix`` sees of a file's top-level package: the wrappers and builders of its other modules. It keeps
no result cache (it runs over the user's tree, and leaves nothing there but its edits).
"""

from __future__ import annotations

import argparse

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile, VisitorBasedCodemodCommand

from asynccfg_lint.run.boundary import internal_error
from asynccfg_lint.fixing.fixer import FixOptions, SourceFix, fix_source
from asynccfg_lint.analysis.jax_facts import BUILTIN_SINKS
from asynccfg_lint.run.project import package_sinks


class FixAsyncConfigCommand(VisitorBasedCodemodCommand):
    """Rewrite config values JAX's async collectives cannot serialize into JSON-safe ones.

    Args:
        context: the codemod context (``context.filename`` names the file in messages).
        unsafe_fixes: also apply unsafe fixes (``Enum`` -> ``.value``, ``set`` -> ``sorted``, ...).

    A file with nothing to fix is skipped (``SkipFile``); so is one whose fixed source would not
    parse or re-check clean, with the reason as a warning.
    """

    DESCRIPTION = "Make config values passed to JAX's async collectives JSON-safe (asynccfg-lint fix)."

    def __init__(self, context: CodemodContext, unsafe_fixes: bool = False) -> None:
        super().__init__(context)
        self.unsafe_fixes = unsafe_fixes

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        """Add ``--unsafe-fixes`` to the codemod's command line."""
        arg_parser.add_argument("--unsafe-fixes", dest="unsafe_fixes", action="store_true",
                                help="also apply fixes that may change meaning")

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        """Return ``tree`` with its fixes applied.

        Raises:
            SkipFile: when there is nothing to fix, or the fixed source fails the re-check, or the file was not
                analysed, or libcst or the analysis raised on it (its ACC001 is the warning; the codemod goes on with
                the other files).
        """
        filename = self.context.filename or "-"
        try:
            result = self._fixed(tree, filename)
        except Exception as error:  # noqa: BLE001 - the per-file error boundary
            result = None
            internal = internal_error(filename, error)
        else:
            internal = next((d for d in result.remaining if d.code == "ACC001"), None)  # not analysed, or raised
        if internal is not None:
            self.warn(f"ACC001 {internal.message}")
            raise SkipFile(internal.message)
        assert result is not None
        if result.failure is not None:
            self.warn(result.failure)
            raise SkipFile(result.failure)
        if result.withheld is not None:
            self.warn(result.withheld)
        if not result.changed:
            raise SkipFile("no fixable config values")
        return cst.parse_module(result.fixed)

    def _fixed(self, tree: cst.Module, filename: str) -> SourceFix:
        """:func:`fix_source` of the file, seeing its top-level package as ``fix`` does.

        The file's own bytes, not ``tree``'s: libcst's tool parsed the file before this command
        sees it, and its tree drops what libcst drops (a backslash continuation or form feed
        before a line's first token); fixing that text would write the loss back. From the
        file's bytes, ``fix_source`` refuses such a file with the reason.
        """
        try:
            with open(filename, "rb") as handle:
                source = handle.read()
        except OSError:  # not a file on disk (the tool reads stdin as "-")
            source = tree.bytes
        # no result cache: the tool runs over the user's tree, and the CLI's default place for one is
        # the project root or the working directory, which may be the package folder itself
        sinks, project, _ = package_sinks(filename, BUILTIN_SINKS, source, cache_dir=None)
        return fix_source(source, filename, FixOptions(unsafe=self.unsafe_fixes, write=False, sinks=sinks), project)
