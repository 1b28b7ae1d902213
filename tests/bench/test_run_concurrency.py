"""bench run on one pool: results at --concurrency 8 are byte-identical to 1, and pay for the same calls."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from ratchet.bench.data.results import RESULTS_FILE, read_timings
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.data import packaged_config
from ratchet.store.db import open_store
from tests.bench.fixtures_mini import build_mini_dataset, mini_copy


@pytest.fixture(scope="session")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_dataset(tmp_path_factory.mktemp("mini-pool") / "root")


def _run_all(template: Path, dest: Path, concurrency: int) -> tuple[dict[str, bytes], dict[str, int]]:
    """cascade then a re-judging config, from a cold cache; every results file's bytes and paid calls per config."""
    root = mini_copy(template, dest)
    out = root / "bench" / "results" / "smoke-sim"
    for config in ("cascade", "nano_only"):
        run_config(
            RunOptions(
                config_path=packaged_config(config),
                out=out,
                root=root,
                command=f"test {config}",
                concurrency=concurrency,
            )
        )
    files = {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "timings.json"
    }
    paid: dict[str, int] = {}
    with closing(open_store(root / "var" / "bench")) as store:
        for config, run_ids in read_timings(out).run_ids.items():
            rows = [r for rid in run_ids for r in store.ledger(rid)]
            paid[config] = sum(1 for r in rows if not r.cache_hit and r.status == "ok")
    return files, paid


def test_concurrency_8_writes_what_concurrency_1_writes_and_pays_the_same(
    mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("RATCHET_HOME", raising=False)
    one, paid_one = _run_all(mini_template, tmp_path / "c1" / "root", 1)
    eight, paid_eight = _run_all(mini_template, tmp_path / "c8" / "root", 8)
    assert RESULTS_FILE in one and any(name.startswith("replays/") or "/" in name for name in one)
    assert sorted(eight) == sorted(one)
    for name in one:
        assert eight[name] == one[name], name
    assert paid_one["cascade"] > 0
    assert paid_eight == paid_one
