"""The result cache's entries in one SQLite database, written in batches.

The cache once kept every entry in a file of its own, and a file creation is a file-system
transaction: a cold run over the benchmark's dense tree (500 modules) wrote 1,003 entry files,
0.3-1.0 s of its 4.6 s of CPU. SQLite (the standard library's :mod:`sqlite3`) keeps them all in
one file, ``entries.sqlite``; the entries a run makes are kept in memory and written together,
in one transaction, when :meth:`EntryStore.flush` is called (the project does at the end of each
analysis), when :data:`BATCH` of them are waiting, and at the process's exit. Each transaction is
atomic and SQLite's locks serialise concurrent runs (flake8's workers, a pre-commit run beside an
editor), each waiting up to :data:`BUSY_TIMEOUT_SECONDS` for the other. A database that cannot be
opened, read or written (locked for longer, corrupt, on a file system without locks) is a miss
and a skipped write, never the run's failure, and the process then leaves the cache alone (one
wait for a lock, not one per lookup). A database removed or replaced meanwhile (``asynccfg-lint
clean`` beside a running language server) is opened again at the next flush.
"""

from __future__ import annotations

import atexit
import os
import sqlite3
from collections.abc import Callable
from typing import Any

#: the database's only table: ``kind`` says what the entry is (an outcome, a module's binding units ...)
_SCHEMA = ("CREATE TABLE IF NOT EXISTS entries (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
           "PRIMARY KEY (kind, key)) WITHOUT ROWID")
#: entries waiting in memory before they are written without being asked to
BATCH = 512
#: how long a read or a transaction waits for another process's transaction to end before the cache is
#: given up for this process (the transactions here take milliseconds: a longer one is a stopped process)
BUSY_TIMEOUT_SECONDS = 5.0
#: connections opened by a process this one was forked from: never used or closed here (SQLite forbids
#: using a connection across a fork), only kept referenced so that their finalizer does not close them
_inherited: list[sqlite3.Connection] = []


class EntryStore:
    """Entries (``kind``, ``key``) -> bytes in the SQLite database at ``path``.

    Args:
        path: the database file; created (with its folder, by ``prepare``) at the first write.
        prepare: called before the database is first created, to make its folder.
    """

    def __init__(self, path: str, prepare: Callable[[], None]) -> None:
        self.path = path
        self._prepare = prepare
        self._pending: dict[tuple[str, str], bytes] = {}
        self._connection: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._exit_hook = False
        #: a read or write failed (no folder, a read-only or corrupt database, a lock held past the timeout):
        #: this process neither reads nor keeps entries any more, rather than wait for the lock at every one
        self._failed = False
        #: (device, inode) of the database file the connection opened, to see it removed or replaced
        self._identity: tuple[int, int] | None = None
        #: whether the connection's file was checked since the last flush (see :meth:`_connect`)
        self._checked = False

    def __getstate__(self) -> dict[str, Any]:
        """What a worker started by pickling (``spawn``) gets: the place, no connection, nothing pending."""
        return {"path": self.path, "_prepare": self._prepare}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"], state["_prepare"])  # type: ignore[misc]

    def get(self, kind: str, key: str) -> bytes | None:
        """The value of (``kind``, ``key``): waiting to be written, else stored; ``None`` when there is none
        or the database cannot be read."""
        self._own()
        value = self._pending.get((kind, key))
        if value is not None:
            return value
        connection = self._connect(create=False)
        if connection is None:
            return None
        try:
            row = connection.execute("SELECT value FROM entries WHERE kind = ? AND key = ?", (kind, key)).fetchone()
        except sqlite3.Error:
            self._failed = True
            return None
        return None if row is None else bytes(row[0])

    def put(self, kind: str, key: str, value: bytes) -> None:
        """Keep ``value`` under (``kind``, ``key``), written at the next :meth:`flush` (or once
        :data:`BATCH` entries wait, or at exit); dropped once a read or write has failed in this process."""
        self._own()
        if self._failed:
            return
        self._pending[kind, key] = value
        if not self._exit_hook:
            atexit.register(self.flush)
            self._exit_hook = True
        if len(self._pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Write the waiting entries in one transaction (a write that fails is dropped: the cache is
        only ever a saving); none waiting: nothing is written. Either way the database file is checked
        again before the next use (:meth:`_connect`): a flush ends each analysis."""
        self._own()
        self._checked = False
        if not self._pending:
            return
        pending, self._pending = self._pending, {}
        connection = self._connect(create=True)
        if connection is None:
            self._failed = True
            return
        try:
            connection.execute("BEGIN IMMEDIATE")  # (the connection is in autocommit mode: one transaction here)
            try:
                connection.executemany("INSERT OR REPLACE INTO entries (kind, key, value) VALUES (?, ?, ?)",
                                       [(kind, key, value) for (kind, key), value in pending.items()])
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error:
            self._failed = True

    def _own(self) -> None:
        """In a process forked from the one that last used this store: leave that process's connection alone
        and drop the entries it had waiting (copied by the fork, they are its to write)."""
        if os.getpid() == self._pid:
            return
        if self._connection is not None:
            _inherited.append(self._connection)
            self._connection = None
        self._pending = {}
        self._pid = os.getpid()

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """This process's connection, opened on first use; ``None`` when the cache failed in this process,
        or the database is absent (and ``create`` is false) or cannot be opened. Before the first use after
        each flush, the connection's file is checked to still be the one at :attr:`path` (one ``stat``):
        a connection to a removed or replaced file is closed and the database opened again."""
        if self._failed:
            return None
        if self._connection is not None and not self._checked:
            self._checked = True
            if self._file_identity() != self._identity:
                self._connection.close()
                self._connection = None
        if self._connection is not None:
            return self._connection
        if not create and not os.path.exists(self.path):
            return None
        try:
            if create and not os.path.exists(self.path):
                self._prepare()
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                                         check_same_thread=False)
            connection.execute(_SCHEMA)
        except (OSError, sqlite3.Error):
            self._failed = True
            return None
        self._connection, self._identity, self._checked = connection, self._file_identity(), True
        return connection

    def _file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the file at :attr:`path`, ``None`` when there is none."""
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        return status.st_dev, status.st_ino
