"""The entries of a result cache folder, read and written with the standard library's ``sqlite3``.

The cache keeps its entries in ``<folder>/<fingerprint>/entries.sqlite``, one table ``entries``
(``kind``, ``key``, ``value``); the tests look at them the way any SQLite client would.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path


def databases(cache: Path) -> list[Path]:
    """The entry databases under the cache folder ``cache`` (one per tool fingerprint), sorted."""
    return sorted(cache.glob("*/entries.sqlite"))


def stored(cache: Path, kind: str = "outcomes") -> dict[str, bytes]:
    """Every entry of ``kind`` in ``cache``'s databases, key -> value (``outcomes``: the files' outcomes)."""
    found: dict[str, bytes] = {}
    for database in databases(cache):
        with closing(sqlite3.connect(database)) as connection:
            found.update((key, bytes(value)) for key, value in
                         connection.execute("SELECT key, value FROM entries WHERE kind = ?", (kind,)))
    return found


def overwrite(cache: Path, kind: str, key: str, value: bytes) -> None:
    """Replace the value of entry (``kind``, ``key``) in every database of ``cache`` that holds it."""
    for database in databases(cache):
        with closing(sqlite3.connect(database)) as connection, connection:
            connection.execute("UPDATE entries SET value = ? WHERE kind = ? AND key = ?", (value, kind, key))
