"""The benchmark's fault class on invoice-parser: R7 manifests on goldens with seeded faults, never without them;
F0 controls keep every golden; a run can strip the faults from the goldens it scores against."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
import yaml

from ratchet.bench.build.benchdata import load_bench_data
from ratchet.bench.build.build import BuildOptions, BuildResult, build_bench
from ratchet.bench.data.dataset import BenchPaths, read_labels
from ratchet.bench.run.stripped import strip_faults
from ratchet.store.db import open_store
from tests.bench.conftest import make_project
from tests.helpers.gateways import sim_gateway

FAULTED = ["invoice-parser-02", "invoice-parser-05", "invoice-parser-08"]


def _build(root: Path, monkeypatch: pytest.MonkeyPatch) -> BuildResult:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_HOME", str(root / "var" / "home"))
    return build_bench(root, BuildOptions(types=["R7", "F0"], work=root / "var" / "bench"))


@pytest.fixture
def invoices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, BuildResult]:
    root = make_project(tmp_path / "project", ("invoice-parser",))
    return root, _build(root, monkeypatch)


def test_r7_blocks_on_the_faulted_goldens_and_f0_keeps_them(invoices: tuple[Path, BuildResult]) -> None:
    root, result = invoices
    assert result.edits == {"R7": 2, "F0": 2} and not result.dropped
    labels = read_labels(BenchPaths.at(root).labels)
    assert labels is not None
    by_id = {lb.edit_id: lb for lb in labels.labels}
    for variant in (1, 2):
        r7 = by_id[f"invoice-parser.R7.{variant}"]
        assert r7.expected_decision == "BLOCK" and r7.affected_goldens == FAULTED
        f0 = by_id[f"invoice-parser.F0.{variant}"]
        assert f0.expected_decision == "PASS" and f0.review_required
        assert set(f0.expected_pairs.values()) == {"same"}


def test_without_faults_in_the_goldens_r7_does_not_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "project", ("invoice-parser",))
    tasks = root / "bench" / "tasks.yaml"
    raw = yaml.safe_load(tasks.read_text(encoding="utf-8"))
    for task in raw["tasks"]:
        task.pop("faults", None)
    tasks.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    result = _build(root, monkeypatch)
    assert "R7" not in result.edits
    tried = [r for d in result.dropped if d.type == "R7" for r in d.reasons if "no further R7" not in r]
    assert len(tried) == 2 and all("does not manifest: no golden diverged over 10" in r for r in tried)


def test_strip_faults_rerecords_only_the_faulted_goldens(invoices: tuple[Path, BuildResult]) -> None:
    root, _ = invoices
    data = load_bench_data(root, home=root / "var" / "bench" / "home")
    with (
        closing(open_store(root / "var" / "bench" / "home")) as store,
        sim_gateway(data.project, store, run_id="strip") as gateway,
    ):
        stripped = strip_faults(data, gateway.model("agent", "bless"))
    assert sorted(t for t, g in data.goldens.items() if g.faults) == FAULTED
    for task_id, golden in stripped.goldens.items():
        assert not golden.faults and not any(c.fault for c in golden.tool_calls)
        if task_id not in FAULTED:
            assert golden is data.goldens[task_id]
    paid = [c.name for c in stripped.goldens["invoice-parser-02"].tool_calls].count("payments_schedule")
    assert paid == 1 and [c.name for c in data.goldens["invoice-parser-02"].tool_calls].count("invoices_lookup") == 2
