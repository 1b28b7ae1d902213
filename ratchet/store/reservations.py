"""Budget reservations: money set aside before a model call, settled into a ledger row after it.

The check of both caps and the insert are one IMMEDIATE transaction. A call's money is durable
before the call goes out: a synced grant sets aside GRANT_CALLS worst cases at once and each call's
reservation is drawn from it in an unsynced commit (docs/adr/0027-durability-per-call.md); the
settle that replaces it is synced only when the reservation does not cover the row
(ratchet/store/db.py: spend can go up after a crash, never down).
"""

from __future__ import annotations

import math
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratchet.store import owners as owner_locks
from ratchet.store.connection import OWNERS_DIR
from ratchet.store.ledger import Ledger
from ratchet.store.models import LedgerEntry, Refusal, Reservation
from ratchet.store.owners import owner_alive, pid_alive

GRANT_CALLS = 16
"""Worst cases one synced grant sets aside (fewer where a cap leaves less): the fsync of one commit is
shared by up to this many calls. A dead process's unused grant is released, not charged, in the same
boot; after a reboot it is charged, so a power cut can over-count by at most this many worst cases."""

_GRANT_ORPHAN = "the machine restarted with this budget grant unused; charged, since a call drawn from it may be lost"


@dataclass
class _Grant:
    """The unused part of this Store's grant for one run and pool, and the caps it was checked against."""

    id: int
    left_usd: float
    caps: tuple[float | None, float | None]


class Reservations(Ledger):
    """The money of one store: settled and held totals, reservations, settles, orphan recovery."""

    def __init__(self, path: Path, **kwargs: Any) -> None:
        self._grants: dict[tuple[str, bool], _Grant] = {}
        super().__init__(path, **kwargs)

    def close(self) -> None:
        """Give back this Store's unused grants (synced: a lost release would be charged after a reboot)."""
        try:
            with self._lock:
                if self._grants:
                    with self._write() as db:
                        for grant in self._grants.values():
                            db.execute("DELETE FROM grants WHERE id = ?", (grant.id,))
                    self._grants.clear()
        finally:  # a grant not given back is a dead owner's: the next start gives it back
            super().close()

    # money ----------------------------------------------------------------------------------

    def total_spend(self, *, simulated: bool = False) -> float:
        """Settled spend of all runs in one pool (real by default): what the global cap counts."""
        return self._total("SELECT settled_usd FROM pool_totals WHERE simulated = ?", int(simulated))

    def run_spend(self, run_id: str) -> float:
        """Settled spend of one run (both pools: a run has only one upstream)."""
        return self._total("SELECT settled_usd FROM run_totals WHERE run_id = ?", run_id)

    def reserved(self, *, simulated: bool = False) -> float:
        """Money set aside for calls in flight in one pool."""
        return self._total("SELECT held_usd FROM pool_totals WHERE simulated = ?", int(simulated))

    def granted(self, *, simulated: bool = False) -> float:
        """Money live Stores have set aside for calls not yet made (grants): the caps count it too."""
        return self._total("SELECT granted_usd FROM pool_totals WHERE simulated = ?", int(simulated))

    def _total(self, sql: str, key: int | str) -> float:
        with self._read() as db:
            row = db.execute(sql, (key,)).fetchone()
        return float(row[0]) if row else 0.0

    def try_reserve(
        self,
        *,
        run_id: str,
        amount_usd: float,
        simulated: bool,
        global_cap: float | None,
        run_cap: float | None,
        purpose: str,
        tier: str,
        model: str,
        request_digest: str,
    ) -> Reservation | None:
        """Set aside amount_usd if neither cap would be passed; None (nothing written) if it would (`reserve`)."""
        held = self.reserve(
            run_id=run_id,
            amount_usd=amount_usd,
            simulated=simulated,
            global_cap=global_cap,
            run_cap=run_cap,
            purpose=purpose,
            tier=tier,
            model=model,
            request_digest=request_digest,
        )
        return held if isinstance(held, Reservation) else None

    def reserve(
        self,
        *,
        run_id: str,
        amount_usd: float,
        simulated: bool,
        global_cap: float | None,
        run_cap: float | None,
        purpose: str,
        tier: str,
        model: str,
        request_digest: str,
    ) -> Reservation | Refusal:
        """Set aside amount_usd if neither cap would be passed; else (nothing written) the Refusal, with the
        totals it was decided on, so its message is the run's spend at that moment, not a later read.

        The check and the insert are one IMMEDIATE transaction, so concurrent threads and
        processes cannot both squeeze under the cap. When this Store's grant for the run holds
        the amount, the reservation is drawn from it in an unsynced commit: the grant was synced
        and checked against the caps, so the money is already durable.
        """
        boot = owner_locks.boot_id()
        row = (run_id, amount_usd, simulated, purpose, tier, model, request_digest)
        key, caps = (run_id, simulated), (global_cap, run_cap)
        with self._lock:
            grant = self._grants.get(key)
            if boot is not None and grant is not None and grant.caps == caps and grant.left_usd >= amount_usd:
                left = grant.left_usd - amount_usd
                with self._write(synced=False) as db:
                    db.execute("UPDATE grants SET amount_usd = ? WHERE id = ?", (left, grant.id))
                    held = self._hold(db, row)
                grant.left_usd = left
                return held
            fresh: _Grant | None = None
            with self._write() as db:
                if grant is not None:  # too little left, or other caps: give it back before the check
                    db.execute("DELETE FROM grants WHERE id = ?", (grant.id,))
                headroom = self._headroom(db, run_id, simulated, global_cap, run_cap, amount_usd)
                if isinstance(headroom, Refusal):
                    outcome: Reservation | Refusal = headroom
                else:
                    left = min(GRANT_CALLS * amount_usd, headroom) - amount_usd
                    if boot is not None and left > 0:
                        cursor = db.execute(
                            "INSERT INTO grants (run_id, simulated, amount_usd, boot, owner, pid, ts)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (run_id, int(simulated), left, boot, self.owner, os.getpid(), time.time()),
                        )
                        assert cursor.lastrowid is not None
                        fresh = _Grant(id=cursor.lastrowid, left_usd=left, caps=caps)
                    outcome = self._hold(db, row)
            # Only after the commit: a grant that was not committed must never be drawn from.
            self._grants.pop(key, None)
            if fresh is not None:
                self._grants[key] = fresh
            return outcome

    def _headroom(
        self,
        db: sqlite3.Connection,
        run_id: str,
        simulated: bool,
        global_cap: float | None,
        run_cap: float | None,
        amount_usd: float,
    ) -> float | Refusal:
        """What both caps leave (inf with none), or the Refusal when amount_usd does not fit."""
        # Primary-key reads of the running totals: the cost of a reservation does not grow with the ledger.
        row = db.execute(
            "SELECT settled_usd, held_usd, granted_usd FROM run_totals WHERE run_id = ?", (run_id,)
        ).fetchone()
        run_spent, run_held, run_granted = (float(row[0]), float(row[1]), float(row[2])) if row else (0.0, 0.0, 0.0)
        headroom = math.inf
        if global_cap is not None:
            row = db.execute(
                "SELECT settled_usd + held_usd + granted_usd FROM pool_totals WHERE simulated = ?", (int(simulated),)
            ).fetchone()
            counted = float(row[0]) if row else 0.0
            if counted + amount_usd > global_cap + 1e-12:
                return Refusal(
                    cap="global",
                    limit_usd=global_cap,
                    counted_usd=counted,
                    run_spent_usd=run_spent,
                    run_held_usd=run_held,
                )
            headroom = global_cap - counted
        if run_cap is not None:
            counted = run_spent + run_held + run_granted
            if counted + amount_usd > run_cap + 1e-12:
                return Refusal(
                    cap="run",
                    limit_usd=run_cap,
                    counted_usd=counted,
                    run_spent_usd=run_spent,
                    run_held_usd=run_held,
                )
            headroom = min(headroom, run_cap - counted)
        return max(headroom, amount_usd)

    def _hold(self, db: sqlite3.Connection, row: tuple[str, float, bool, str, str, str, str]) -> Reservation:
        run_id, amount_usd, simulated, purpose, tier, model, request_digest = row
        cursor = db.execute(
            "INSERT INTO reservations (run_id, pid, ts, amount_usd, simulated, purpose, tier, model, request_digest,"
            " owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                os.getpid(),
                time.time(),
                amount_usd,
                int(simulated),
                purpose,
                tier,
                model,
                request_digest,
                self.owner,
            ),
        )
        assert cursor.lastrowid is not None
        return Reservation(id=cursor.lastrowid, run_id=run_id, amount_usd=amount_usd, simulated=simulated)

    def settle(self, reservation: Reservation | None, entry: LedgerEntry) -> LedgerEntry:
        """Append a ledger row and release its reservation in one durable transaction.

        Synced unless its own reservation covers it: then losing the commit to a power cut
        leaves the reservation, charged at its worst case on the next start, never less. A simulated
        row with no reservation (the simulator's call in a run without a budget, Gateway.metered) is not
        synced either: no cap counts simulated money without a budget, so a power cut that loses it loses
        no money (a kill -9 loses no commit). A real row is synced whenever no reservation covers it.
        """
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        covered = reservation is not None and entry.cost_usd <= reservation.amount_usd + 1e-12
        unmetered = reservation is None and entry.simulated
        with self._write(synced=not (covered or unmetered)) as db:
            row_id = self._insert_row(db, entry)
            if reservation is not None:
                db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))
        return entry.model_copy(update={"id": row_id})

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation without a ledger row (the call never left this process). Not synced: if a
        power cut loses it, the reservation is charged at its worst case, which over-counts, never under."""
        with self._write(synced=False) as db:
            db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))

    def recover_orphans(self) -> int:
        """Turn reservations whose owner is gone into ledger rows charged at their worst case.

        A call in flight when its process died may have been paid for; we cannot know, so
        the reserved worst case is counted as spent. Spend never goes down after a crash.
        The owner is gone when nobody holds its lock file (the kernel drops a dead process's
        flock); rows from before owners were recorded fall back to the process id.
        """
        with self._write() as db:
            rows = db.execute(
                "SELECT id, run_id, pid, amount_usd, simulated, purpose, tier, model, request_digest, owner"
                " FROM reservations"
            ).fetchall()
            owners = self.path.parent / OWNERS_DIR
            dead = [
                row[:9]
                for row in rows
                if (not owner_alive(owners, str(row[9])) if row[9] else not pid_alive(int(row[2])))
            ]
            for rid, run_id, _pid, amount, simulated, purpose, tier, model, digest_ in dead:
                db.execute(
                    "INSERT INTO model_calls (run_id, ts, purpose, tier, model, cost_usd, simulated,"
                    " request_digest, status, attempts, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'orphaned', 0, ?)",
                    (
                        run_id,
                        time.time(),
                        purpose,
                        tier,
                        model,
                        amount,
                        simulated,
                        digest_,
                        "process died with the call in flight; charged at its reserved worst case",
                    ),
                )
                db.execute("DELETE FROM reservations WHERE id = ?", (rid,))
            return len(dead) + self._recover_grants(db, owners)

    def _recover_grants(self, db: sqlite3.Connection, owners: Path) -> int:
        """Release the grants of dead Stores; charge them instead when the machine has restarted since.

        In the same boot every draw the dead Store committed is in the WAL (a kill -9 loses no commit,
        synced or not), so what a grant has left was never spent. After a reboot a power cut may have
        lost draws whose calls went out: the grant's last durable amount covers them, so it is charged.
        """
        boot = owner_locks.boot_id()
        charged = 0
        for gid, run_id, pid, amount, simulated, grant_boot, owner in db.execute(
            "SELECT id, run_id, pid, amount_usd, simulated, boot, owner FROM grants"
        ).fetchall():
            if owner_alive(owners, str(owner)) if owner else pid_alive(int(pid)):
                continue
            if grant_boot != boot:
                db.execute(
                    "INSERT INTO model_calls (run_id, ts, purpose, tier, model, cost_usd, simulated,"
                    " request_digest, status, attempts, error) VALUES (?, ?, 'grant', '', '', ?, ?, '', 'orphaned', 0, ?)",
                    (run_id, time.time(), amount, simulated, _GRANT_ORPHAN),
                )
                charged += 1
            db.execute("DELETE FROM grants WHERE id = ?", (gid,))
        return charged
