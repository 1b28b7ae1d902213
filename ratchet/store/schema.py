"""The store's schema: named migrations, appended only, each run once per file.

A migration that has run is never edited: a store written by any earlier Ratchet opens and is
brought forward by the migrations it lacks. 0003 adds running totals so a budget reservation
reads two rows instead of summing the ledger: triggers keep them in the same transaction as the
row that changes them, so no code path can forget to, and the migration first fills them from
the rows an older store already holds.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_runs_ledger_reservations",
        """
        CREATE TABLE runs (
            run_id      TEXT PRIMARY KEY,
            started_at  REAL NOT NULL,
            pid         INTEGER NOT NULL,
            upstream    TEXT NOT NULL
        );
        CREATE TABLE model_calls (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id          TEXT NOT NULL,
            ts              REAL NOT NULL,
            purpose         TEXT NOT NULL,
            tier            TEXT NOT NULL,
            model           TEXT NOT NULL,
            api_base        TEXT,
            tokens_in       INTEGER NOT NULL DEFAULT 0,
            tokens_out      INTEGER NOT NULL DEFAULT 0,
            tokens_cached   INTEGER NOT NULL DEFAULT 0,
            cost_usd        REAL NOT NULL DEFAULT 0,
            latency_ms      REAL NOT NULL DEFAULT 0,
            cache_hit       INTEGER NOT NULL DEFAULT 0,
            simulated       INTEGER NOT NULL DEFAULT 0,
            request_digest  TEXT NOT NULL,
            status          TEXT NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 1,
            error           TEXT
        );
        CREATE INDEX model_calls_run ON model_calls(run_id);
        CREATE TABLE reservations (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id          TEXT NOT NULL,
            pid             INTEGER NOT NULL,
            ts              REAL NOT NULL,
            amount_usd      REAL NOT NULL,
            simulated       INTEGER NOT NULL,
            purpose         TEXT NOT NULL,
            tier            TEXT NOT NULL,
            model           TEXT NOT NULL,
            request_digest  TEXT NOT NULL
        );
        """,
    ),
    (
        # Who holds a reservation: a token whose lock file its live Store holds (flock), so a process
        # in another PID namespace sharing RATCHET_HOME is never mistaken for a dead one.
        "0002_reservation_owner",
        "ALTER TABLE reservations ADD COLUMN owner TEXT",
    ),
    (
        # Settled and held money per pool (real / simulated) and per run. `held` counts the open
        # reservations so the last release sets held_usd to exactly 0, not to a float residue.
        # call_rollups holds call counts the ledger no longer has row by row: cache hits not
        # ledgered, and rows folded in by `ratchet store compact`. Nothing subtracts from a
        # settled total: compaction deletes rows, never spend.
        "0003_spend_totals",
        """
        CREATE TABLE pool_totals (
            simulated   INTEGER PRIMARY KEY,
            settled_usd REAL NOT NULL DEFAULT 0,
            held_usd    REAL NOT NULL DEFAULT 0,
            held        INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE run_totals (
            run_id      TEXT PRIMARY KEY,
            settled_usd REAL NOT NULL DEFAULT 0,
            held_usd    REAL NOT NULL DEFAULT 0,
            held        INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE call_rollups (
            run_id        TEXT NOT NULL,
            purpose       TEXT NOT NULL,
            tier          TEXT NOT NULL,
            model         TEXT NOT NULL,
            simulated     INTEGER NOT NULL,
            cache_hit     INTEGER NOT NULL,
            status        TEXT NOT NULL,
            calls         INTEGER NOT NULL DEFAULT 0,
            tokens_in     INTEGER NOT NULL DEFAULT 0,
            tokens_out    INTEGER NOT NULL DEFAULT 0,
            tokens_cached INTEGER NOT NULL DEFAULT 0,
            cost_usd      REAL NOT NULL DEFAULT 0,
            latency_ms    REAL NOT NULL DEFAULT 0,
            PRIMARY KEY (run_id, purpose, tier, model, simulated, cache_hit, status)
        );
        CREATE INDEX model_calls_ts ON model_calls(ts);
        CREATE INDEX model_calls_tier ON model_calls(tier, status, cache_hit);
        INSERT INTO pool_totals (simulated, settled_usd)
            SELECT simulated, SUM(cost_usd) FROM model_calls WHERE 1 GROUP BY simulated;
        INSERT INTO pool_totals (simulated, held_usd, held)
            SELECT simulated, SUM(amount_usd), COUNT(*) FROM reservations WHERE 1 GROUP BY simulated
            ON CONFLICT(simulated) DO UPDATE SET held_usd = excluded.held_usd, held = excluded.held;
        INSERT INTO run_totals (run_id, settled_usd)
            SELECT run_id, SUM(cost_usd) FROM model_calls WHERE 1 GROUP BY run_id;
        INSERT INTO run_totals (run_id, held_usd, held)
            SELECT run_id, SUM(amount_usd), COUNT(*) FROM reservations WHERE 1 GROUP BY run_id
            ON CONFLICT(run_id) DO UPDATE SET held_usd = excluded.held_usd, held = excluded.held;
        CREATE TRIGGER model_calls_settle AFTER INSERT ON model_calls BEGIN
            INSERT INTO pool_totals (simulated, settled_usd) VALUES (new.simulated, new.cost_usd)
                ON CONFLICT(simulated) DO UPDATE SET settled_usd = settled_usd + excluded.settled_usd;
            INSERT INTO run_totals (run_id, settled_usd) VALUES (new.run_id, new.cost_usd)
                ON CONFLICT(run_id) DO UPDATE SET settled_usd = settled_usd + excluded.settled_usd;
        END;
        CREATE TRIGGER model_calls_never_change BEFORE UPDATE ON model_calls BEGIN
            SELECT RAISE(ABORT, 'ledger rows are never changed');
        END;
        CREATE TRIGGER reservations_hold AFTER INSERT ON reservations BEGIN
            INSERT INTO pool_totals (simulated, held_usd, held) VALUES (new.simulated, new.amount_usd, 1)
                ON CONFLICT(simulated) DO UPDATE SET held_usd = held_usd + excluded.held_usd, held = held + 1;
            INSERT INTO run_totals (run_id, held_usd, held) VALUES (new.run_id, new.amount_usd, 1)
                ON CONFLICT(run_id) DO UPDATE SET held_usd = held_usd + excluded.held_usd, held = held + 1;
        END;
        CREATE TRIGGER reservations_release AFTER DELETE ON reservations BEGIN
            UPDATE pool_totals SET held = held - 1,
                held_usd = CASE WHEN held <= 1 THEN 0.0 ELSE held_usd - old.amount_usd END
                WHERE simulated = old.simulated;
            UPDATE run_totals SET held = held - 1,
                held_usd = CASE WHEN held <= 1 THEN 0.0 ELSE held_usd - old.amount_usd END
                WHERE run_id = old.run_id;
        END;
        """,
    ),
    (
        # Budget grants (docs/adr/0027-durability-per-call.md): money one synced commit sets aside for
        # a Store's next calls, so each call's own reservation is drawn from it without an fsync. `boot`
        # is the kernel's boot id when it was written: a dead owner's grant is released in the same
        # boot (every draw it committed is in the WAL) and charged after a reboot (a draw may be lost).
        # The cap counts settled + held + granted; `held` stays the money of calls in flight.
        "0004_budget_grants",
        """
        CREATE TABLE grants (
            id          INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id      TEXT NOT NULL,
            simulated   INTEGER NOT NULL,
            amount_usd  REAL NOT NULL,
            boot        TEXT NOT NULL,
            owner       TEXT,
            pid         INTEGER NOT NULL,
            ts          REAL NOT NULL
        );
        ALTER TABLE pool_totals ADD COLUMN granted_usd REAL NOT NULL DEFAULT 0;
        ALTER TABLE pool_totals ADD COLUMN grants INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE run_totals ADD COLUMN granted_usd REAL NOT NULL DEFAULT 0;
        ALTER TABLE run_totals ADD COLUMN grants INTEGER NOT NULL DEFAULT 0;
        CREATE TRIGGER grants_hold AFTER INSERT ON grants BEGIN
            INSERT INTO pool_totals (simulated, granted_usd, grants) VALUES (new.simulated, new.amount_usd, 1)
                ON CONFLICT(simulated) DO UPDATE SET granted_usd = granted_usd + excluded.granted_usd,
                grants = grants + 1;
            INSERT INTO run_totals (run_id, granted_usd, grants) VALUES (new.run_id, new.amount_usd, 1)
                ON CONFLICT(run_id) DO UPDATE SET granted_usd = granted_usd + excluded.granted_usd,
                grants = grants + 1;
        END;
        CREATE TRIGGER grants_draw AFTER UPDATE OF amount_usd ON grants BEGIN
            UPDATE pool_totals SET granted_usd = granted_usd + new.amount_usd - old.amount_usd
                WHERE simulated = new.simulated;
            UPDATE run_totals SET granted_usd = granted_usd + new.amount_usd - old.amount_usd
                WHERE run_id = new.run_id;
        END;
        CREATE TRIGGER grants_release AFTER DELETE ON grants BEGIN
            UPDATE pool_totals SET grants = grants - 1,
                granted_usd = CASE WHEN grants <= 1 THEN 0.0 ELSE granted_usd - old.amount_usd END
                WHERE simulated = old.simulated;
            UPDATE run_totals SET grants = grants - 1,
                granted_usd = CASE WHEN grants <= 1 THEN 0.0 ELSE granted_usd - old.amount_usd END
                WHERE run_id = old.run_id;
        END;
        """,
    ),
    (
        "0005_spools",
        """
        CREATE TABLE spools (
            owner   TEXT PRIMARY KEY,
            folded  INTEGER NOT NULL
        );
        """,
    ),
]


def statements(sql: str) -> Iterator[str]:
    """The statements of a migration, whole: a trigger's body has semicolons of its own."""
    buffer = ""
    for piece in sql.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip().strip(";").strip():
                yield buffer
            buffer = ""
    if buffer.strip().strip(";").strip():
        yield buffer
