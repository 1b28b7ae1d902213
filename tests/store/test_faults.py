"""A ledger that is not ours, is newer, or is locked: one line, exit 3, nothing deleted or rewritten."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.core.errors import InfraError, InputError
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.store.db import MIGRATIONS, STORE_FILE, Store, open_store
from tests.helpers.gitrepo import git

runner = CliRunner()
EDIT = {edit.branch: edit for edit in EDITS}
NOT_A_FOLDER = (
    "this is a file, but Ratchet's work area (RATCHET_HOME or --work) must be a folder; "
    "point it at a folder or move the file away"
)
RECOVER = "move it away and Ratchet starts a new ledger (nothing is deleted automatically)"


def foreign_db(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO photos VALUES (1, 'cat.jpg')")
    db.commit()
    db.close()


def test_garbage_bytes_are_an_infra_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(InfraError) as caught:
        open_store(tmp_path)
    assert caught.value.one_line() == f"{path}: not a Ratchet ledger (file is not a database); {RECOVER}"
    assert path.read_bytes() == b"this is not sqlite at all" * 100


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / STORE_FILE
    foreign_db(path)
    before = path.read_bytes()
    with pytest.raises(InfraError) as caught:
        open_store(tmp_path)
    assert caught.value.one_line() == f"{path}: not a Ratchet ledger (it has tables photos); {RECOVER}"
    assert path.read_bytes() == before
    assert not (tmp_path / f"{STORE_FILE}-wal").exists() or (tmp_path / f"{STORE_FILE}-wal").stat().st_size == 0


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    db = sqlite3.connect(tmp_path / STORE_FILE)
    db.execute("INSERT INTO migrations VALUES ('0099_from_the_future', 0)")
    db.commit()
    db.close()
    with pytest.raises(InfraError) as caught:
        open_store(tmp_path)
    assert caught.value.one_line() == (
        f"{tmp_path / STORE_FILE}: ledger was written by a newer Ratchet (unknown migration 0099_from_the_future);"
        " upgrade Ratchet, or move the file away to start a new ledger"
    )


def test_default_busy_timeout_is_a_few_seconds(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    try:
        assert store.busy_timeout_s == 5.0
        assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    finally:
        store.close()


def test_a_locked_ledger_waits_a_bounded_time_then_says_so(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    path = tmp_path / STORE_FILE
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        started = time.monotonic()
        with pytest.raises(InfraError) as caught:
            store = Store(path, busy_timeout_s=0.2)
            store.start_run("r", upstream="sim")
        assert time.monotonic() - started < 3
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert caught.value.one_line() == (
        f"{path}: ledger is locked by another process (waited 0.2 s); retry when it has finished"
    )


def test_a_locked_write_after_opening_is_an_infra_error(tmp_path: Path) -> None:
    store = Store(tmp_path / STORE_FILE, busy_timeout_s=0.2)
    holder = sqlite3.connect(tmp_path / STORE_FILE, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(InfraError, match="ledger is locked by another process"):
            store.start_run("r", upstream="sim")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.start_run("r", upstream="sim")  # usable again once the other process is done
    assert store.migrations() == [name for name, _ in MIGRATIONS]
    store.close()


def test_a_work_area_that_is_a_file_is_an_input_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("oops\n")
    for target in (home, home / "nested"):
        with pytest.raises(InputError) as caught:
            open_store(target)
        assert not isinstance(caught.value, InfraError)
        assert caught.value.one_line() == f"{home}: {NOT_A_FOLDER}"
    from ratchet.store.work_area import ensure_work_area

    assert ensure_work_area(tmp_path / "new" / "area") == tmp_path / "new" / "area"
    assert (tmp_path / "new" / "area").is_dir()


@pytest.fixture
def edited(demo_repo: Path) -> tuple[Path, str]:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    return demo_repo, base


def check(repo: Path, base: str, *extra: str) -> tuple[int, str, str]:
    result = runner.invoke(
        app, ["check", "--repo", str(repo), "--base", base, "--head", "edit/changed-argument", "--level0-only", *extra]
    )
    return result.exit_code, result.stdout, result.stderr


def test_check_on_a_corrupt_ledger_exits_3_with_one_line(edited: tuple[Path, str]) -> None:
    repo, base = edited
    ledger = repo / ".ratchet" / STORE_FILE
    for name in (f"{STORE_FILE}-wal", f"{STORE_FILE}-shm"):
        (ledger.parent / name).unlink(missing_ok=True)
    ledger.write_bytes(b"\0garbage" * 512)
    code, out, err = check(repo, base)
    assert (code, out) == (3, "")
    assert err == f"error: {ledger}: not a Ratchet ledger (file is not a database); {RECOVER}\n"
    assert ledger.read_bytes() == b"\0garbage" * 512


def test_check_with_the_work_area_a_file_exits_2(edited: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = edited
    work = tmp_path / "work-file"
    work.write_text("")
    code, out, err = check(repo, base, "--work", str(work))
    assert (code, out) == (2, "")
    assert err == f"error: {work}: {NOT_A_FOLDER}\n"


def test_a_live_reservation_from_another_pid_namespace_is_never_charged_as_orphaned(tmp_path: Path) -> None:
    """The pid a reservation records means nothing in another container sharing RATCHET_HOME: the
    owner's held lock decides. Charging a live reservation would count its spend twice."""
    import sqlite3 as sqlite

    from ratchet.store.db import open_store

    live, other = open_store(tmp_path), open_store(tmp_path)
    held = live.try_reserve(
        run_id="r",
        amount_usd=1.0,
        simulated=True,
        global_cap=None,
        run_cap=None,
        purpose="replay",
        tier="agent",
        model="m",
        request_digest="live",
    )
    assert held is not None
    gone = open_store(tmp_path)
    dropped = gone.try_reserve(
        run_id="r",
        amount_usd=2.0,
        simulated=True,
        global_cap=None,
        run_cap=None,
        purpose="replay",
        tier="agent",
        model="m",
        request_digest="gone",
    )
    assert dropped is not None
    gone.close()  # its owner lock is released: as if its process had died
    with sqlite.connect(tmp_path / "ratchet.sqlite") as db:  # the pids another namespace would show
        db.execute("UPDATE reservations SET pid = 999999999")
    assert other.recover_orphans() == 1
    rows = [(row.status, row.request_digest, row.cost_usd) for row in other.ledger("r")]
    assert rows == [("orphaned", "gone", 2.0)]
    assert other.reserved(simulated=True) == 1.0  # the live one still holds its money
    live.close()
    other.close()
