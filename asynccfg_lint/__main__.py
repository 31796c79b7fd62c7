"""``python -m asynccfg_lint`` runs the CLI."""

import sys

from asynccfg_lint.frontends.cli import main

sys.exit(main())
