"""Parallel checks over one work area leave no reservation behind (issue 22).

24 `ratchet check` processes on one RATCHET_HOME took turns at the ledger through SQLite's busy
handler, whose growing sleeps let a writer that had waited longest lose to fresh ones: on a loaded
machine a settle waited past the busy timeout, failed, and left its reservation, which the next
run charged at its worst case as "process died". Here each check waits at most 0.5 s for SQLite's
lock (what 5 s is on a machine loaded enough), so without a fair turn at the ledger some settle
or reservation would fail; every check must finish, leave nothing reserved, and the next run must
find no orphan to charge. The checks' own waits are not bounded: load only makes them slower.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ratchet.config.project import load_project
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.store.db import open_store
from tests.helpers.gateways import sim_gateway

CHECKS = 24
BUSY = "0.5"
# One check in its own process, every model call made afresh (cache mode `all`), so each one
# reserves and settles; the ledger's busy timeout is cut to BUSY seconds.
_CHECK = """
import sys
from pathlib import Path

import ratchet.store.db as store
from ratchet.store.work_area import ensure_work_area

def _impatient(home):
    return store.Store(ensure_work_area(home) / store.STORE_FILE, busy_timeout_s=float(sys.argv[3]))

store.open_store = _impatient  # before ratchet.gate.check imports it

from ratchet.gate.check import check_edit
from ratchet.llm.cache import CacheMode

verdict = check_edit(Path(sys.argv[1]), base="main", head=sys.argv[2], config="level0_only",
                     cache_mode=CacheMode.ALL, concurrency=4)
print(verdict.decision)
"""


def test_parallel_checks_leave_no_reservation_and_the_next_run_charges_nothing(demo_repo: Path) -> None:
    for edit in EDITS:
        apply_edit(demo_repo, edit)
    home = demo_repo / ".ratchet"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CHECK, str(demo_repo), EDITS[n % len(EDITS)].branch, BUSY],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(CHECKS)
    ]
    # No deadline of our own: a loaded machine only makes the checks slower.
    results = [(proc.returncode, out, err) for proc in procs for out, err in [proc.communicate()]]
    failed = [err.strip().splitlines()[-1:] for code, _, err in results if code != 0]
    store = open_store(home)
    try:
        left = store.reserved(simulated=True)
        paid = len(store.ledger())
        with sim_gateway(load_project(demo_repo, home=home), store, run_id="next-run"):  # recovers orphans on start
            pass
        orphaned = [row.run_id for row in store.ledger()[paid:] if row.status == "orphaned"]
    finally:
        store.close()
    assert (left, orphaned) == (0.0, []), failed
    assert failed == []
    assert sorted({out.strip() for _, out, _ in results}) == ["BLOCK", "PASS", "WARN"]
