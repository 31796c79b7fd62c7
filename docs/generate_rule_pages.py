"""Generate ``docs/rules/<CODE>.md`` and ``docs/rules/README.md`` from the rule modules of ``asynccfg_lint/rules/``.

    python docs/generate_rule_pages.py          # rewrite the pages
    python docs/generate_rule_pages.py --check  # exit 1 when a committed page differs

The rule table is the only source: edit the rule's module in ``asynccfg_lint/rules/``, then run this script. The
pages are rendered by :mod:`asynccfg_lint.rules.pages`, the same renderer ``asynccfg-lint rule``
prints with; this script only writes (or compares) the files.
"""

from __future__ import annotations

import sys
from pathlib import Path

from asynccfg_lint.rules.pages import example_module, pages, render_index, render_page

__all__ = ["RULES_DIR", "example_module", "main", "pages", "render_index", "render_page"]

RULES_DIR = Path(__file__).resolve().parent / "rules"


def main(argv: list[str]) -> int:
    """Write the pages, or with ``--check`` report the ones that differ (exit 1)."""
    expected = pages()
    if argv == ["--check"]:
        present = {path.name for path in RULES_DIR.glob("*.md")}
        stale = sorted(
            name for name in expected.keys() | present
            if not (RULES_DIR / name).is_file() or (RULES_DIR / name).read_text(encoding="utf-8") != expected.get(name)
        )
        for name in stale:
            print(f"docs/rules/{name} is out of date; run python docs/generate_rule_pages.py")
        return 1 if stale else 0
    if argv:
        print(__doc__)
        return 2
    RULES_DIR.mkdir(exist_ok=True)
    for stale in RULES_DIR.glob("*.md"):
        if stale.name not in expected:
            stale.unlink()
    for name, text in expected.items():
        (RULES_DIR / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
