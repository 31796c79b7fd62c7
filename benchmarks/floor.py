"""The benchmark's floor: ``libcst.parse_module`` of every listed file, in one process, nothing else.

No metadata, no analysis: this is what any libcst-based tool pays at least for a file it parses.
The file's bytes are parsed as ``asynccfg-lint`` parses them (libcst decodes them itself)::

    python benchmarks/floor.py FILE_LIST      # FILE_LIST: one path per line

Prints how many files were parsed and how many libcst could not parse (those still count: the
time spent on them is spent).
"""

from __future__ import annotations

import sys


def main(list_path: str) -> int:
    """Parse every file named in ``list_path``; return 0."""
    import libcst

    with open(list_path, encoding="utf-8") as handle:
        paths = [line.rstrip("\n") for line in handle if line.strip()]
    failures = 0
    for path in paths:
        with open(path, "rb") as source:
            data = source.read()
        try:
            libcst.parse_module(data)
        except Exception:  # noqa: BLE001 - a file libcst rejects is counted, not fatal
            failures += 1
    print(f"{len(paths)} files parsed, {failures} failed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: floor.py FILE_LIST\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
