"""fsyncs the store makes per live call and per cache hit, counted by strace.

Runs N store operations of one kind in a child process under `strace -f -c` and prints the
fdatasync/fsync calls per operation, less those of a child that only opens and closes the
store: `call` is a reservation plus its settle (what the gateway does around a live call, the
cache entry's own sync aside: benchmarks/cache_fsyncs.py counts those), `hit` a counted cache hit,
`hit-row` a hit written as a ledger row (`--ledger-hits`). Needs strace.
Run: .venv/bin/python benchmarks/ledger_fsyncs.py [N]
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from ratchet.store.db import LedgerEntry, Store
kind, n = sys.argv[1], int(sys.argv[2])
store = Store(Path(sys.argv[3]))
row = {{"run_id": "r", "purpose": "replay", "tier": "agent", "model": "m", "request_digest": "d"}}
for _ in range(n if kind != "open" else 0):
    if kind == "call":
        held = store.try_reserve(amount_usd=0.01, simulated=False, global_cap=None, run_cap=None, **row)
        store.settle(held, LedgerEntry.model_validate({{**row, "cost_usd": 0.005}}))
    else:
        store.record_hit(LedgerEntry.model_validate({{**row, "cache_hit": True}}), ledger_row=kind == "hit-row")
store.close()
"""


def _syncs(kind: str, n: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "strace.txt"
        subprocess.run(
            [
                "strace",
                "-f",
                "-c",
                "-e",
                "trace=fsync,fdatasync",
                "-o",
                str(report),
                sys.executable,
                "-c",
                CHILD.format(root=str(ROOT)),
                kind,
                str(n),
                str(Path(tmp) / "ratchet.sqlite"),
            ],
            check=True,
        )
        return sum(
            int(m.group(1))
            for m in re.finditer(
                r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync", report.read_text(), re.M
            )
        )


def main(n: int = 200) -> None:
    if shutil.which("strace") is None:
        sys.exit("strace is not installed")
    base = _syncs("open", n)
    print(f"operations per kind: {n} (opening and closing the store alone: {base} syncs)")
    for kind in ("call", "hit", "hit-row"):
        print(f"{kind:<8} {(_syncs(kind, n) - base) / n:5.2f} fsyncs per operation")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
