"""bench run --shard K/N and bench merge: the merged shards write what one unsharded run writes, byte for byte."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bench.data.results import read_results
from ratchet.bench.report.report import write_report
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.bench.run.sharded import SHARD_FILE, merge_bench_shards, owned_ids, shard_dir
from ratchet.cli import app
from ratchet.core.errors import InputError
from ratchet.data import packaged_config
from ratchet.gate.shard import Shard
from tests.bench.fixtures_mini import build_mini_dataset, mini_copy

CONFIGS = ("noise", "cascade", "nano_only")


@pytest.fixture(scope="module")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_dataset(tmp_path_factory.mktemp("mini-shard") / "root")


def _out(root: Path) -> Path:
    return root / "bench" / "results" / "smoke-sim"


def _run(root: Path, config: str, shard: Shard | None = None, seed: int = 0) -> None:
    run_config(
        RunOptions(
            config_path=packaged_config(config),
            out=_out(root),
            root=root,
            command=f"test {config}",
            seed=seed,
            concurrency=4,
            shard=shard,
        )
    )


def _files(out: Path) -> dict[str, bytes]:
    """Every file of a results directory but the wall clock (timings.json) and the shards' own folders."""
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "timings.json" and p.relative_to(out).parts[0] != "shards"
    }


@pytest.fixture(scope="module")
def sharded(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One unsharded root and one whose three shards ran (into the same --out) but are not merged yet."""
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    mp.delenv("RATCHET_HOME", raising=False)
    try:
        base = tmp_path_factory.mktemp("shard-runs")
        one = mini_copy(mini_template, base / "one" / "root")
        for config in CONFIGS:
            _run(one, config)
        write_report(_out(one))
        many = mini_copy(mini_template, base / "many" / "root")
        for k in (3, 1, 2):  # any order: each shard is its own machine
            for config in CONFIGS:
                _run(many, config, Shard(index=k, count=3))
    finally:
        mp.undo()
    return one, many


def test_shards_merged_write_the_unsharded_results_summary_and_report_byte_for_byte(
    sharded: tuple[Path, Path], tmp_path: Path
) -> None:
    one, many = sharded
    merged = tmp_path / "root"
    shutil.copytree(many, merged)
    out = _out(merged)
    dirs = [shard_dir(out, Shard(index=k, count=3)) for k in (2, 3, 1)]
    merge_bench_shards(dirs, out)
    expected, got = _files(_out(one)), _files(out)
    assert {"results.json", "summary.json", "report.md", "cost_vs_recall.svg"} <= set(expected)
    assert any(name.startswith("replays/cascade/") for name in expected)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name


def test_each_shard_holds_its_part_and_says_it_is_partial(sharded: tuple[Path, Path]) -> None:
    _, many = sharded
    out = _out(many)
    assert not (out / "results.json").exists()
    seen: dict[str, list[str]] = {}
    for k in (1, 2, 3):
        raw = json.loads((shard_dir(out, Shard(index=k, count=3)) / SHARD_FILE).read_text(encoding="utf-8"))
        assert raw["kind"] == "ratchet-bench-shard" and raw["shard"] == k and raw["shards"] == 3
        assert raw["note"].startswith(f"PARTIAL: shard {k}/3 of a bench run")
        for config in CONFIGS:
            items = raw["results"]["runs"][config]["noise" if config == "noise" else "edits"]
            assert sorted(items) == raw["configs"][config]["owned"]
            seen.setdefault(config, []).extend(items)
    assert sorted(seen["cascade"]) == raw["configs"]["cascade"]["sample"]
    assert len(seen["cascade"]) == 6 and sorted(seen["noise"]) == raw["configs"]["noise"]["sample"]


def test_a_shard_is_never_read_as_the_whole_run(sharded: tuple[Path, Path]) -> None:
    _, many = sharded
    folder = shard_dir(_out(many), Shard(index=2, count=3))
    with pytest.raises(InputError, match=r"PARTIAL: shard 2/3 of a bench run, .*ratchet bench merge"):
        read_results(folder)
    with pytest.raises(InputError, match=r"shard 2/3 of a bench run"):
        write_report(folder)
    copied = folder.parent / "copied"
    copied.mkdir(exist_ok=True)
    shutil.copy2(folder / SHARD_FILE, copied / "results.json")  # renamed, it still says what it is
    with pytest.raises(InputError, match=r"shard 2/3 of a bench run"):
        read_results(copied)
    shutil.rmtree(copied)


def test_partition_is_by_position_in_the_whole_dataset_so_a_smaller_sample_keeps_its_shard() -> None:
    candidates = ["e", "a", "c", "b", "d", "f", "g"]
    shards = [Shard(index=k, count=3) for k in (1, 2, 3)]
    everything = sorted(candidates)
    assert [owned_ids(candidates, everything, s) for s in shards] == [["a", "d", "g"], ["b", "e"], ["c", "f"]]
    assert [owned_ids(candidates, ["b", "c", "g"], s) for s in shards] == [["g"], ["b"], ["c"]]


def _merge(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["bench", "merge", *args])
    return result.exit_code, result.output


def test_merge_refuses_missing_duplicate_and_foreign_shards_in_one_line(
    sharded: tuple[Path, Path], mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, many = sharded
    out = _out(many)
    d1, d2, d3 = (str(shard_dir(out, Shard(index=k, count=3))) for k in (1, 2, 3))
    target = str(tmp_path / "merged")
    cases = [
        ([d1, d3], "shard(s) 2/3 missing"),
        ([d1, d2, d2, d3], "shard 2/3 given twice"),
        ([d1, str(tmp_path)], "not a bench shard directory"),
    ]
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("RATCHET_HOME", raising=False)
    other = mini_copy(mini_template, tmp_path / "other" / "root")
    _run(other, "cascade", Shard(index=2, count=3), seed=7)
    cases.append(([d1, str(shard_dir(_out(other), Shard(index=2, count=3))), d3], "of another run"))
    for args, message in cases:
        code, output = _merge([*args, "--out", target])
        assert code == 2, (args, output)
        assert message in output and output.count("\n") == 1, output
    assert not Path(target).exists()


def test_merge_cli_writes_the_results_directory(sharded: tuple[Path, Path], tmp_path: Path) -> None:
    one, many = sharded
    merged = tmp_path / "root"
    shutil.copytree(many, merged)
    out = _out(merged)
    code, output = _merge([*(str(shard_dir(out, Shard(index=k, count=3))) for k in (1, 2, 3)), "--out", str(out)])
    assert code == 0, output
    assert (
        output == f"merged 3 shards (cascade, nano_only, noise) into {out / 'results.json'} and {out / 'report.md'}\n"
    )
    assert (out / "results.json").read_bytes() == (_out(one) / "results.json").read_bytes()


def test_merge_refuses_an_unfinished_shard(sharded: tuple[Path, Path], tmp_path: Path) -> None:
    _, many = sharded
    out = _out(many)
    d1, d2, d3 = (shard_dir(out, Shard(index=k, count=3)) for k in (1, 2, 3))
    cut = tmp_path / "2-of-3"
    shutil.copytree(d2, cut)
    raw = json.loads((cut / SHARD_FILE).read_text(encoding="utf-8"))
    edits = raw["results"]["runs"]["cascade"]["edits"]
    edits.pop(sorted(edits)[0])  # as a shard killed before its last edit was saved
    (cut / SHARD_FILE).write_text(json.dumps(raw), encoding="utf-8")
    code, output = _merge([str(d1), str(cut), str(d3), "--out", str(tmp_path / "merged")])
    assert code == 2 and "shard 2/3 has not finished cascade: re-run it (it resumes)" in output, output
    assert output.count("\n") == 1


def test_a_shard_rerun_resumes_and_says_it_is_partial(
    sharded: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, many = sharded
    root = tmp_path / "root"
    shutil.copytree(many, root)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("RATCHET_HOME", raising=False)
    result = CliRunner().invoke(app, ["bench", "run", "--config", "cascade", "--shard", "2/3", "--root", str(root)])
    assert result.exit_code == 0, result.output
    written = shard_dir(_out(root), Shard(index=2, count=3)) / SHARD_FILE
    assert result.output.splitlines()[-1] == (
        f"cascade (record) PARTIAL shard 2/3: 0 run, 2 already in {written}; 2 of 6 in the sample; "
        f"ratchet bench merge all 3 shards into {_out(root)}"
    )


@pytest.mark.parametrize("value", ["4/3", "0/2", "2", "a/b"])
def test_a_bad_shard_is_one_line(value: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "run", "--config", "cascade", "--shard", value, "--root", str(tmp_path)])
    assert result.exit_code == 2
    assert f"--shard {value!r}: expected K/N with 1 <= K <= N" in result.output and result.output.count("\n") == 1
