"""Budget reservations: money set aside before a model call, settled into a ledger row after it.

The check of both caps and the insert are one IMMEDIATE transaction. A reservation is synced before
its call goes out; the settle that replaces it is synced only when the reservation does not cover
the row (ratchet/store/db.py: spend can go up after a crash, never down).
"""

from __future__ import annotations

import os
import time

from ratchet.store.connection import OWNERS_DIR
from ratchet.store.ledger import Ledger
from ratchet.store.models import LedgerEntry, Refusal, Reservation
from ratchet.store.owners import owner_alive, pid_alive


class Reservations(Ledger):
    """The money of one store: settled and held totals, reservations, settles, orphan recovery."""

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
        processes cannot both squeeze under the cap.
        """
        with self._write() as db:
            # Three primary-key reads of the running totals: the cost of a reservation does not grow with the ledger.
            row = db.execute("SELECT settled_usd, held_usd FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
            run_spent, run_held = (float(row[0]), float(row[1])) if row else (0.0, 0.0)
            if global_cap is not None:
                row = db.execute(
                    "SELECT settled_usd + held_usd FROM pool_totals WHERE simulated = ?", (int(simulated),)
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
            if run_cap is not None and run_spent + run_held + amount_usd > run_cap + 1e-12:
                return Refusal(
                    cap="run",
                    limit_usd=run_cap,
                    counted_usd=run_spent + run_held,
                    run_spent_usd=run_spent,
                    run_held_usd=run_held,
                )
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
        leaves the reservation, charged at its worst case on the next start, never less.
        """
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        covered = reservation is not None and entry.cost_usd <= reservation.amount_usd + 1e-12
        with self._write(synced=not covered) as db:
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
        return len(dead)
