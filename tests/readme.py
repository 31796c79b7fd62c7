"""The README's code blocks, for the tests that run them as written (pre-commit routes, editor blocks)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_block(language: str, marker: str) -> str:
    """The text of the README's one fenced code block in ``language`` that contains ``marker``.

    Raises:
        AssertionError: when no block, or more than one, contains ``marker``.
    """
    fenced = re.findall(rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), re.M | re.S)
    blocks = [block for block in fenced if marker in block]
    assert len(blocks) == 1, f"{len(blocks)} {language} blocks of the README contain {marker!r}"
    return blocks[0]
