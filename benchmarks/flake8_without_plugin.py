"""Run flake8 with one installed plugin distribution left out, as if it were not installed.

flake8 has no option to turn an installed plugin off: ``--select``/``--ignore`` only filter what
is *reported*, every plugin still runs on every file (``off_by_default`` exists only for plugins
that declare it). To measure a plugin's added cost, the benchmark runs flake8 through this
launcher, which drops the distribution's entry points before flake8 imports them, so neither the
plugin's module nor anything it imports (libcst) is loaded::

    python benchmarks/flake8_without_plugin.py asynccfg-lint -- [flake8 arguments ...]

It relies on ``flake8.plugins.finder._find_importlib_plugins`` (flake8 >= 5.0); ``--version``
lists the plugins that are left.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator


def main(argv: list[str]) -> int:
    """Run flake8 on ``argv[2:]`` (after ``--``) without the distribution named ``argv[0]``."""
    if len(argv) < 2 or argv[1] != "--":
        sys.stderr.write("usage: flake8_without_plugin.py DISTRIBUTION -- [flake8 arguments ...]\n")
        return 2
    excluded = argv[0].lower()
    from flake8.main.cli import main as flake8_main
    from flake8.plugins import finder

    found = finder._find_importlib_plugins

    def without_excluded() -> Iterator[finder.Plugin]:
        return (plugin for plugin in found() if plugin.package.lower() != excluded)

    finder._find_importlib_plugins = without_excluded
    return flake8_main(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
