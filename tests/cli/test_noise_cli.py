"""`ratchet noise` and `ratchet bless --repeats N` on a real blessed demo repository, through the CLI.

The simulator varies only when ratchet.yaml sets `sim_noise`; the demo repo is blessed without it, so
a test that wants noise commits `sim_noise: 0.5` first (tests/helpers/noise_repo.py).
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.noise import golden_hash, noise_path
from ratchet.goldens.trace import read_trace
from tests.helpers.noise_repo import (
    golden_paths,
    noise_cli,
    noise_files,
    read_record,
    set_sim_noise,
)

runner = CliRunner()
SIMULATED = " (SIMULATED: the simulator varies only with sim_noise set)"


def _cli(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--project", str(repo), "--work", str(repo / ".ratchet")])
    return result.exit_code, result.stdout, result.stderr


def _lines_without_cost(out: str) -> list[str]:
    """stdout with the closing line's dollar figure cut (a second run answers from the cache)."""
    return [line.split(", $")[0] if line.startswith("wrote ") else line for line in out.splitlines()]


# -- ratchet noise ---------------------------------------------------------------------------------


def test_noise_writes_a_valid_record_beside_every_golden(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    goldens = golden_paths(demo_repo)
    code, out, err = noise_cli(demo_repo, "--repeats", "12")
    assert (code, err) == (0, "")
    assert sorted(noise_files(demo_repo)) == sorted(
        noise_path(path).relative_to(demo_repo).as_posix() for path in goldens.values()
    )
    lines = out.splitlines()
    assert len(lines) == len(goldens) + 1
    assert lines[-1].startswith(f"wrote {len(goldens)} noise record(s), $") and lines[-1].endswith(SIMULATED)
    for task_id, path in goldens.items():
        record = read_record(noise_path(path))
        assert (record.task_id, record.golden_hash) == (task_id, golden_hash(read_trace(path)))
        assert (record.repeats, record.errors, len(record.runs), record.simulated) == (12, 0, 12, True)
        assert record.agent == "sim/agent-1+noise0.5"
        # The counts agree with the per-repeat lists they summarise.
        assert record.differed == sum(1 for parts in record.runs if parts)
        assert record.varying == {
            part: sum(part in parts for parts in record.runs)
            for part in sorted({p for parts in record.runs for p in parts})
        }
        summary = (
            f"{task_id}: {record.differed} of 12 repeats differed from the golden; {len(record.varying)} part(s) varied"
        )
        assert summary in lines
    # At a 50% chance per replay, 12 repeats all alike has odds 1 in 4096 per golden: every golden varied.
    assert all(read_record(noise_path(path)).differed > 0 for path in goldens.values())


def test_noise_twice_writes_byte_identical_records(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    first_code, first_out, _ = noise_cli(demo_repo, "--repeats", "12")
    first = noise_files(demo_repo)
    second_code, second_out, _ = noise_cli(demo_repo, "--repeats", "12")
    assert (first_code, second_code) == (0, 0)
    assert noise_files(demo_repo) == first
    assert _lines_without_cost(second_out) == _lines_without_cost(first_out)


def test_a_quiet_simulator_records_that_nothing_varied(demo_repo: Path) -> None:
    goldens = golden_paths(demo_repo)
    code, out, err = noise_cli(demo_repo, "--repeats", "12")
    assert (code, err) == (0, "")
    assert sorted(out.splitlines()[:-1]) == sorted(
        f"{task_id}: 0 of 12 repeats differed from the golden; 0 part(s) varied" for task_id in goldens
    )
    for task_id, path in goldens.items():
        record = read_record(noise_path(path))
        assert (record.task_id, record.differed, record.varying, record.runs) == (task_id, 0, {}, [[]] * 12)
        assert record.agent == "sim/agent-1"
        assert not record.known_to_vary


def test_noise_for_an_unknown_task_is_one_line_and_writes_nothing(demo_repo: Path) -> None:
    code, out, err = noise_cli(demo_repo, "github-triage-01", "no-such-task")
    assert (code, out) == (2, "")
    assert err == "error: no golden for: no-such-task (ratchet record, then ratchet bless)\n"
    assert noise_files(demo_repo) == {}


def test_too_many_repeats_is_one_line(demo_repo: Path) -> None:
    code, out, err = noise_cli(demo_repo, "github-triage-01", "--repeats", "201")
    assert (code, out, err) == (2, "", "error: --repeats must be between 2 and 200, got 201\n")
    assert noise_files(demo_repo) == {}


def test_a_golden_whose_skill_changed_is_refused_and_the_others_are_measured(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    skill = demo_repo / "skills" / "github-triage" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")  # not committed
    code, out, err = noise_cli(demo_repo, "github-triage-01", "fx-expense-converter-01", "canary-01", "--repeats", "4")
    assert code == 2
    assert err.splitlines() == [
        "error: github-triage-01: skill 'github-triage' changed since the golden was recorded: "
        "re-record and bless it first",
        "error: 1 golden(s) not measured; fix them, then run ratchet noise again",
    ]
    lines = out.splitlines()
    assert [line.split(": ")[0] for line in lines[:2]] == ["fx-expense-converter-01", "canary-01"]
    assert lines[2].startswith("wrote 2 noise record(s), $") and len(lines) == 3
    assert sorted(noise_files(demo_repo)) == [
        "goldens/_none/canary-01.noise.json",
        "goldens/fx-expense-converter/fx-expense-converter-01.noise.json",
    ]


def test_a_changed_skill_refuses_each_of_its_goldens_by_name(demo_repo: Path) -> None:
    skill = demo_repo / "skills" / "github-triage" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    code, _, err = noise_cli(demo_repo, "--repeats", "2")
    assert code == 2
    refused = [
        f"error: github-triage-{n:02d}: skill 'github-triage' changed since the golden was recorded: "
        "re-record and bless it first"
        for n in range(1, 11)
    ]
    assert err.splitlines() == [*refused, "error: 10 golden(s) not measured; fix them, then run ratchet noise again"]
    written = {Path(path).name.removesuffix(".noise.json") for path in noise_files(demo_repo)}
    assert written == set(golden_paths(demo_repo)) - {f"github-triage-{n:02d}" for n in range(1, 11)}


# -- ratchet bless --repeats -----------------------------------------------------------------------


def _record_and_bless_with_repeats(repo: Path) -> str:
    """`ratchet record` two triage tasks, then `ratchet bless --repeats 5`: its stdout."""
    code, _, err = _cli(repo, "record", "github-triage-01", "github-triage-02")
    assert (code, err) == (0, "")
    code, out, err = _cli(repo, "bless", "--repeats", "5")
    assert (code, err) == (0, "")
    return out


def test_bless_with_repeats_writes_goldens_and_their_records(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    out = _record_and_bless_with_repeats(demo_repo)
    assert not list((demo_repo / ".ratchet" / "pending").glob("*.json"))
    goldens = golden_paths(demo_repo)
    # Only the goldens just blessed are measured.
    assert sorted(noise_files(demo_repo)) == [
        "goldens/github-triage/github-triage-01.noise.json",
        "goldens/github-triage/github-triage-02.noise.json",
    ]
    for task_id in ("github-triage-01", "github-triage-02"):
        path = goldens[task_id]
        record = read_record(noise_path(path))
        assert (record.task_id, record.golden_hash, record.repeats) == (task_id, golden_hash(read_trace(path)), 5)
        assert read_trace(path).models == {"agent": "sim/agent-1+noise0.5"}  # recorded under the same ratchet.yaml
    lines = out.splitlines()
    assert lines[0] == f"blessed 2 golden(s) into {demo_repo / 'goldens'}"
    assert lines[1].startswith("no mutation score for github-triage: ")  # tests/cli/test_bless_mutation_score.py
    assert [line.split(": ")[0] for line in lines[2:4]] == ["github-triage-01", "github-triage-02"]
    assert lines[4].startswith("wrote 2 noise record(s), $") and len(lines) == 5


def test_a_plain_rebless_removes_the_now_stale_record(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    _record_and_bless_with_repeats(demo_repo)
    kept = noise_files(demo_repo)["goldens/github-triage/github-triage-02.noise.json"]
    assert _cli(demo_repo, "record", "github-triage-01")[0] == 0
    code, out, err = _cli(demo_repo, "bless", "github-triage-01")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == f"blessed 1 golden(s) into {demo_repo / 'goldens'}"
    assert out.splitlines()[1:] == [  # tests/cli/test_bless_mutation_score.py
        "no mutation score for github-triage: ratchet mutate github-triage shows which breakages of a skill its "
        "goldens would notice (docs/mutate.md)"
    ]
    assert noise_files(demo_repo) == {"goldens/github-triage/github-triage-02.noise.json": kept}
