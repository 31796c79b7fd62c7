"""``python -m asynccfg_lint`` runs the CLI."""

from asynccfg_lint.frontends.cli import console_main

console_main()
