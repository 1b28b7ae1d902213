"""The spool (ratchet/store/spool.py): unmetered rows as lines of a file, folded into the ledger in batches.

A kill -9 loses no row and folds none twice; a line a power cut tore is skipped; a Store's own reads see its
waiting rows; a live Store's spool is left alone; a spool that cannot be written falls back to a commit.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ratchet.store.db import Store, open_store
from ratchet.store.models import LedgerEntry
from ratchet.store.spool import SPOOL_BATCH, SPOOL_DIR, spool_path

ROOT = Path(__file__).resolve().parents[2]


def entry(n: int, run_id: str = "r") -> LedgerEntry:
    return LedgerEntry(
        run_id=run_id,
        purpose="replay",
        tier="agent",
        model="sim",
        simulated=True,
        request_digest=f"d{n}",
        cost_usd=0.01,
    )


def rows_on_disk(store: Store) -> int:
    """The ledger's rows as another process sees them (no fold of this Store's waiting rows first)."""
    with sqlite3.connect(store.path) as db:
        return int(db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0])


def marks(store: Store) -> list[tuple[str, int]]:
    with sqlite3.connect(store.path) as db:
        return [(str(owner), int(folded)) for owner, folded in db.execute("SELECT owner, folded FROM spools")]


_KILLED = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from ratchet.store.db import open_store
    from tests.store.test_spool import entry

    store = open_store(Path(sys.argv[1]))
    for n in range(int(sys.argv[2])):
        store.spool_row(entry(n))
    print(store.owner, flush=True)
    sys.stdin.read()  # killed here: no fold, no close
    """
)


def spool_then_kill(home: Path, rows: int) -> str:
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED, str(home), str(rows)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    owner = child.stdout.readline().strip()
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdin.close()
    child.stdout.close()
    assert owner
    return owner


def test_rows_after_a_kill_9_are_folded_once_by_the_next_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    total = SPOOL_BATCH + 44  # one batch folded (and marked) before the kill, 44 rows only in the file
    owner = spool_then_kill(home, total)
    assert spool_path(home, owner).exists()
    store = open_store(home)
    try:
        assert sorted(row.request_digest for row in store.ledger("r")) == sorted(f"d{n}" for n in range(total))
        assert store.run_spend("r") == pytest.approx(0.01 * total)
        assert not spool_path(home, owner).exists() and marks(store) == []
    finally:
        store.close()
    again = open_store(home)  # nothing folded twice on a later open
    try:
        assert len(again.ledger("r")) == total
    finally:
        again.close()


def test_a_fold_that_committed_before_the_kill_is_not_folded_again(tmp_path: Path) -> None:
    """The mark and the rows are one commit: a crash between the commit and the file's removal repeats nothing."""
    home = tmp_path / "home"
    owner = spool_then_kill(home, SPOOL_BATCH)  # exactly one batch: folded and marked, the file still there
    with sqlite3.connect(home / "ratchet.sqlite") as db:
        assert db.execute("SELECT owner, folded FROM spools").fetchall() == [
            (owner, spool_path(home, owner).stat().st_size)
        ]
    store = open_store(home)
    try:
        assert len(store.ledger("r")) == SPOOL_BATCH
    finally:
        store.close()


def test_a_torn_last_line_is_skipped_and_the_rest_folded(tmp_path: Path) -> None:
    home = tmp_path / "home"
    open_store(home).close()
    lines = [entry(n).model_dump_json(exclude={"id"}).encode() + b"\n" for n in range(3)]
    spool = spool_path(home, "0dead0")
    spool.parent.mkdir()
    spool.write_bytes(b"".join(lines) + lines[0][:25])  # a power cut cut the fourth line short
    store = open_store(home)
    try:
        assert [row.request_digest for row in store.ledger("r")] == ["d0", "d1", "d2"]
        assert not spool.exists()
    finally:
        store.close()


def test_a_store_reads_its_own_waiting_rows_and_others_see_them_once_folded(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    try:
        for n in range(3):
            store.spool_row(entry(n))
        assert rows_on_disk(store) == 0  # waiting in the file
        other = open_store(tmp_path)  # a live Store's spool is not another's to fold
        try:
            assert other.ledger("r") == [] and spool_path(tmp_path, str(store.owner)).exists()
        finally:
            other.close()
        assert len(store.ledger("r")) == 3  # a read folds first
        assert rows_on_disk(store) == 3
        store.spool_row(entry(3))
        store.fold_spool()
        assert rows_on_disk(store) == 4
    finally:
        store.close()
    assert not spool_path(tmp_path, str(store.owner)).exists()
    reopened = open_store(tmp_path)
    try:
        assert len(reopened.ledger("r")) == 4 and marks(reopened) == []
    finally:
        reopened.close()


def test_a_full_batch_is_folded_without_a_read(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    try:
        for n in range(SPOOL_BATCH):
            store.spool_row(entry(n))
        assert rows_on_disk(store) == SPOOL_BATCH
    finally:
        store.close()


def test_a_spool_that_cannot_be_written_is_a_commit(tmp_path: Path) -> None:
    (tmp_path / SPOOL_DIR).write_text("a file where the folder goes", encoding="utf-8")
    store = open_store(tmp_path)
    try:
        store.spool_row(entry(0))
        assert rows_on_disk(store) == 1
    finally:
        store.close()


def test_a_mark_whose_file_is_gone_is_dropped(tmp_path: Path) -> None:
    """A crash between the file's removal and its mark's: the next Store drops the mark."""
    store = open_store(tmp_path)
    store.close()
    with sqlite3.connect(store.path) as db:
        db.execute("INSERT INTO spools VALUES ('0dead0', 120)")
    reopened = open_store(tmp_path)
    try:
        assert marks(reopened) == []
    finally:
        reopened.close()
