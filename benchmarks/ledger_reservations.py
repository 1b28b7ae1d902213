"""Ledger size vs budget-reservation time: a reservation must not grow with the ledger.

Fills three stores with 0, 100k and 1M ledger rows (executemany in one transaction, so the
triggers keep the running totals exactly as settles do), then times N reservations under both
caps on each, in interleaved rounds, each released again (the gateway's path for a call refused later or interrupted).
For contrast it times, on the same file, the four SUMs the store ran per reservation before the
running totals (migration 0003). Prints medians and the ratios to the empty ledger, measured in
one run. Run: .venv/bin/python benchmarks/ledger_reservations.py [N]
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.store.db import Store

SIZES = (0, 100_000, 1_000_000)
ARGS = {"purpose": "replay", "tier": "agent", "model": "m", "request_digest": "d"}
OLD_SUMS = (
    "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE simulated = 0",
    "SELECT COALESCE(SUM(amount_usd), 0) FROM reservations WHERE simulated = 0",
    "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE run_id = 'bench-7'",
    "SELECT COALESCE(SUM(amount_usd), 0) FROM reservations WHERE run_id = 'bench-7'",
)


def _fill(path: Path, rows: int) -> None:
    """Append ledger rows up to `rows`: 20 runs, mixed tiers, a few simulated, a $0 row in ten."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    have = db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0]
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO model_calls (run_id, ts, purpose, tier, model, tokens_in, tokens_out, cost_usd, simulated,"
        " request_digest, status) VALUES (?, ?, 'replay', ?, 'm', 1000, 100, ?, ?, ?, 'ok')",
        (
            (
                f"bench-{i % 20}",
                1_000_000.0 + i,
                ("agent", "nano", "super")[i % 3],
                0.0 if i % 10 == 0 else 1e-6,
                int(i % 7 == 0),
                f"{i:064x}",
            )
            for i in range(have, rows)
        ),
    )
    db.execute("COMMIT")
    db.close()


def _time_reservations(store: Store, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        held = store.try_reserve(
            run_id="bench-7", amount_usd=1e-4, simulated=False, global_cap=1e6, run_cap=1e6, **ARGS
        )
        out.append((time.perf_counter() - start) * 1000)
        assert held is not None
        store.release(held)
    return out


def _time_old_sums(path: Path, n: int) -> list[float]:
    db = sqlite3.connect(path)
    out = []
    for _ in range(n):
        start = time.perf_counter()
        for sql in OLD_SUMS:
            db.execute(sql).fetchone()
        out.append((time.perf_counter() - start) * 1000)
    db.close()
    return out


def main(n: int = 200) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths, fills = {}, {}
        for size in SIZES:
            paths[size] = Path(tmp) / f"{size}" / "ratchet.sqlite"
            paths[size].parent.mkdir()
            Store(paths[size]).close()  # the current schema, totals and triggers
            started = time.perf_counter()
            _fill(paths[size], size)
            fills[size] = time.perf_counter() - started
        stores = {size: Store(path) for size, path in paths.items()}
        for store in stores.values():
            _time_reservations(store, 10)  # warm the page cache
        # Interleaved rounds, so a busy disk slows every size alike and the ratios stay fair.
        times: dict[int, list[float]] = {size: [] for size in SIZES}
        for _ in range(10):
            for size, store in stores.items():
                times[size] += _time_reservations(store, max(1, n // 10))
        for store in stores.values():
            store.close()
        old = {size: statistics.median(_time_old_sums(paths[size], max(3, n // 20 if size else n))) for size in SIZES}
    reserve = {size: statistics.median(times[size]) for size in SIZES}
    print(f"reservations per size: {n} (try_reserve under both caps, then release; synced commits; interleaved)")
    print(f"{'ledger rows':>12} {'reserve median':>15} {'x empty':>8} {'old 4 SUMs':>12} {'x empty':>8} {'fill':>7}")
    for size in SIZES:
        print(
            f"{size:>12,} {reserve[size]:>12.3f} ms {reserve[size] / reserve[0]:>7.2f}x {old[size]:>9.3f} ms "
            f"{old[size] / old[0]:>7.0f}x {fills[size]:>6.1f}s"
        )
    print(f"reservation at 1M rows / empty ledger: {reserve[SIZES[-1]] / reserve[0]:.2f}x (must stay within 2x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
