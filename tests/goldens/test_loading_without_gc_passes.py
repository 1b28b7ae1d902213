"""Loading tasks.yaml and the goldens starts no cyclic-collector pass (ratchet.core.gcpause).

Why: at 10,000 goldens each full pass scans everything loaded so far; the loads make no cycles.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_golden_files
from ratchet.store.parsed import ParsedCache
from tests.helpers.gc_passes import assert_no_passes

ROOT = Path(__file__).resolve().parents[2]  # the repository's own tasks and goldens (it dogfoods itself)


def test_loading_tasks_and_goldens_starts_no_collection(tmp_path: Path) -> None:
    cache = ParsedCache(tmp_path / "home")
    assert_no_passes(lambda: load_tasks(ROOT / "bench" / "tasks.yaml"))
    assert_no_passes(lambda: load_tasks(ROOT / "bench" / "tasks.yaml", cache))  # cold
    assert_no_passes(lambda: load_tasks(ROOT / "bench" / "tasks.yaml", cache))  # from the cache
    assert_no_passes(lambda: load_golden_files(ROOT / "goldens"))
