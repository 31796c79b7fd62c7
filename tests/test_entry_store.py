"""The result cache's entry store (``run/entry_store.py``): batched writes to one SQLite database.

In-process (the fast tier): what is waiting is read back before it is written, a flush makes it
visible to another store, a full batch is written without being asked, a forked process writes
only its own entries, and a database that is not one is a miss and a skipped write, never an error.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from asynccfg_lint.run import entry_store
from asynccfg_lint.run.entry_store import EntryStore
from tests.cache_entries import stored


def store_in(folder: Path) -> EntryStore:
    """A store at ``folder/fp/entries.sqlite`` whose ``prepare`` makes ``folder/fp``."""
    return EntryStore(str(folder / "fp" / "entries.sqlite"), lambda: (folder / "fp").mkdir(parents=True, exist_ok=True))


def test_an_entry_waits_in_memory_until_the_flush_writes_it_in_one_database(tmp_path):
    store = store_in(tmp_path)
    store.put("outcomes", "k1", b'{"a": 1}')
    store.put("units", "k1", b'{"u": 2}')  # expect: the same key under another kind is another entry
    assert store.get("outcomes", "k1") == b'{"a": 1}'  # expect: read back before it is written
    assert not (tmp_path / "fp").exists()  # expect: nothing written yet, not even the folder
    assert store_in(tmp_path).get("outcomes", "k1") is None
    store.flush()
    assert sorted(path.name for path in (tmp_path / "fp").iterdir()) == ["entries.sqlite"]
    fresh = store_in(tmp_path)
    assert (fresh.get("outcomes", "k1"), fresh.get("units", "k1"), fresh.get("outcomes", "k2")) == (
        b'{"a": 1}', b'{"u": 2}', None)
    assert stored(tmp_path, "outcomes") == {"k1": b'{"a": 1}'}


def test_a_full_batch_is_written_without_a_flush(tmp_path, monkeypatch):
    monkeypatch.setattr(entry_store, "BATCH", 3)
    store = store_in(tmp_path)
    store.put("outcomes", "a", b"1")
    store.put("outcomes", "b", b"2")
    assert stored(tmp_path) == {}
    store.put("outcomes", "c", b"3")  # expect: the third entry fills the batch: all three written
    assert stored(tmp_path) == {"a": b"1", "b": b"2", "c": b"3"}


def test_a_forked_process_writes_its_own_entries_not_those_its_parent_had_waiting(tmp_path):
    store = store_in(tmp_path)
    store.put("outcomes", "parent", b"p")
    store.flush()  # expect: the connection is open before the fork, as in a pool started mid-run
    store.put("outcomes", "waiting", b"w")
    child = os.fork()
    if child == 0:  # the child, as a pool worker: stores, flushes, ends without Python's exit handlers
        try:
            store.put("outcomes", "child", b"c")
            store.flush()
            os._exit(0 if store.get("outcomes", "waiting") is None else 3)
        except BaseException:  # noqa: BLE001 - any error is the child's exit code, never a second test run
            os._exit(4)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0  # expect: the parent's waiting entry is not the child's
    assert stored(tmp_path) == {"child": b"c", "parent": b"p"}
    store.flush()
    assert stored(tmp_path) == {"child": b"c", "parent": b"p", "waiting": b"w"}


def test_a_database_that_is_not_one_is_a_miss_and_its_writes_are_skipped(tmp_path):
    (tmp_path / "fp").mkdir()
    database = tmp_path / "fp" / "entries.sqlite"
    database.write_bytes(b"not a database, as after a disk filled mid-write" * 100)
    store = store_in(tmp_path)
    assert store.get("outcomes", "k") is None
    store.put("outcomes", "k", b"v")
    store.flush()  # expect: no error
    assert database.read_bytes().startswith(b"not a database")  # expect: left as it was
    assert store_in(tmp_path).get("outcomes", "k") is None
    store.put("outcomes", "k2", b"v2")
    assert store.get("outcomes", "k2") is None  # expect: after a failed write, no more entries are kept


def test_a_folder_that_cannot_be_made_is_a_skipped_write(tmp_path):
    (tmp_path / "fp").write_text("a file where the cache's folder should be")
    store = EntryStore(str(tmp_path / "fp" / "entries.sqlite"), lambda: (tmp_path / "fp").mkdir(parents=True, exist_ok=True))
    store.put("outcomes", "k", b"v")
    store.flush()  # expect: no error (the folder cannot be made)
    assert (tmp_path / "fp").read_text() == "a file where the cache's folder should be"
    assert store.get("outcomes", "k") is None


def test_an_entry_written_by_another_connection_is_read(tmp_path):
    writer = store_in(tmp_path)
    writer.put("outcomes", "k", b"old")
    writer.flush()
    reader = store_in(tmp_path)
    assert reader.get("outcomes", "k") == b"old"  # expect: the reader's connection is open now
    with closing(sqlite3.connect(tmp_path / "fp" / "entries.sqlite")) as connection, connection:
        connection.execute("UPDATE entries SET value = ? WHERE key = ?", (b"new", "k"))
    assert reader.get("outcomes", "k") == b"new"  # expect: each read sees what is committed now


def test_a_database_locked_past_the_timeout_is_given_up_for_the_process(tmp_path, monkeypatch):
    monkeypatch.setattr(entry_store, "BUSY_TIMEOUT_SECONDS", 0.05)
    writer = store_in(tmp_path)
    writer.put("outcomes", "k", b"v")
    writer.flush()
    database = tmp_path / "fp" / "entries.sqlite"
    with closing(sqlite3.connect(database, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")  # as a process stopped in the middle of its write
        store = store_in(tmp_path)
        assert store.get("outcomes", "k") is None  # expect: a miss once the wait is over
        holder.execute("COMMIT")
    assert store.get("outcomes", "k") is None  # expect: given up, not waited for again at each lookup
    store.put("outcomes", "k2", b"v2")
    store.flush()
    assert stored(tmp_path) == {"k": b"v"}  # expect: nothing written by the store that gave up
    assert store_in(tmp_path).get("outcomes", "k") == b"v"  # expect: another process reads it


def test_a_database_removed_while_a_store_is_open_is_made_again_at_the_next_flush(tmp_path):
    server = store_in(tmp_path)  # as a language server, open for hours
    server.put("outcomes", "before", b"1")
    server.flush()
    assert server.get("outcomes", "before") == b"1"
    shutil.rmtree(tmp_path / "fp")  # `asynccfg-lint clean`
    cli = store_in(tmp_path)
    cli.put("outcomes", "cli", b"2")
    cli.flush()
    server.put("outcomes", "after", b"3")
    server.flush()  # expect: into the new database, not the removed file
    assert stored(tmp_path) == {"after": b"3", "cli": b"2"}
    assert server.get("outcomes", "cli") == b"2"  # expect: the server reads the new database
