"""A check compares each golden's provenance with its replay's and names a difference first, at least WARN.

On the demo: goldens recorded on the simulator replayed live (a FakeOpenAI upstream on loopback), goldens
recorded live with one agent model replayed with another, goldens whose recorded tool protocol or Ratchet
version differs from the replay's, older goldens that recorded neither, and a sharded check merged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.cli.gate import table_text
from ratchet.config.gate import resolve_gate_config
from ratchet.core.clock import frozen_clock
from ratchet.core.labels import __version__
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.gate.policy import OnError
from ratchet.gate.shard import Shard, ShardJob, merge_shards
from ratchet.goldens.trace import NOISE_SUFFIX, golden_relpath, read_trace, write_trace
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit, git

LEVEL0_ONLY = resolve_gate_config("level0_only")
CASCADE = resolve_gate_config("cascade")
EDIT = {edit.branch: edit for edit in EDITS}
NOT_LIKE = "the comparison is not like for like"


def prose_edit(repo: Path) -> str:
    """A branch that adds prose to github-triage: replayed (not provably cosmetic), the same on the simulator."""
    git(repo, "checkout", "-q", "-b", "edit/prose", "main")
    path = repo / "skills" / "github-triage" / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nBe kind.\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a sentence of prose")
    git(repo, "checkout", "-q", "main")
    return "edit/prose"


def restamp(repo: Path, message: str, **fields: object) -> str:
    """Commit every golden of the repo with `fields` replaced, as if recorded so."""
    files: dict[str, str | None] = {}
    for path in sorted((repo / "goldens").glob("*/*.json")):
        if path.name.endswith(NOISE_SUFFIX):
            continue
        files[path.relative_to(repo).as_posix()] = read_trace(path).model_copy(update=fields).to_json()
    return commit(repo, files, message)


def check(repo: Path, head: str, home: Path) -> Verdict:
    """Level 0 only, an unchecked pair warns (a live echo agent's replays may fail to call what the golden did)."""
    return check_edit(
        repo, base="main", head=head, config=LEVEL0_ONLY, home=home, clock=frozen_clock, on_error=OnError.WARN
    )


def replayed(verdict: Verdict) -> str:
    """The goldens a note names: the first eight, and how many more."""
    ids = [p.task_id for p in verdict.pairs]
    assert ids
    return ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")


def rerecord(verdict: Verdict) -> str:
    """The command a note gives: with the task ids up to eight of them, else every task."""
    ids = " ".join(p.task_id for p in verdict.pairs)
    if len(verdict.pairs) > 8:
        return "re-record them: ratchet record && ratchet bless (every task)"
    return f"re-record them: ratchet record {ids} && ratchet bless {ids}"


def assert_first_on_the_terminal(verdict: Verdict, note: str, *, line: int) -> None:
    """The note opens the terminal's output at `line` (the table wraps it at a fixed width)."""
    shown = table_text(verdict).splitlines()[line]
    assert shown.startswith("not checked: ") and note.startswith(shown.removeprefix("not checked: ").rstrip())
    assert len(shown) > 40


# -- on the simulator ---------------------------------------------------------------------------------------------


def test_the_demos_goldens_record_the_protocol_and_version(demo_repo: Path) -> None:
    golden = read_trace(next((demo_repo / "goldens" / "github-triage").glob("*-01.json")))
    assert (golden.upstream, golden.tool_protocol, golden.ratchet_version) == ("sim", "native", __version__)


def test_goldens_recorded_alike_pass_with_no_provenance_note(demo_repo: Path, tmp_path: Path) -> None:
    verdict = check(demo_repo, prose_edit(demo_repo), tmp_path / "home")
    assert verdict.decision == "PASS" and verdict.pairs
    assert [n for n in verdict.unseen if n.kind == "provenance"] == []
    assert all(not p.provenance for p in verdict.pairs)


def test_older_goldens_that_recorded_no_protocol_or_version_are_no_difference(demo_repo: Path, tmp_path: Path) -> None:
    restamp(demo_repo, "goldens from before provenance", tool_protocol="", ratchet_version="")
    verdict = check(demo_repo, prose_edit(demo_repo), tmp_path / "home")
    assert verdict.decision == "PASS"
    assert [n for n in verdict.unseen if n.kind == "provenance"] == []


def test_another_tool_protocol_warns_first_where_the_pairs_alone_pass(demo_repo: Path, tmp_path: Path) -> None:
    restamp(demo_repo, "goldens recorded with the text protocol", tool_protocol="text")
    verdict = check(demo_repo, prose_edit(demo_repo), tmp_path / "home")
    assert {p.outcome for p in verdict.pairs} == {"same"}
    note = (
        f"{len(verdict.pairs)} golden(s) were recorded with tool protocol text but replayed with native "
        f"({replayed(verdict)}): {NOT_LIKE}; {rerecord(verdict)}"
    )
    assert verdict.decision == "WARN"
    assert verdict.summary.startswith(note + "; ")
    # On the terminal: right under the simulator's banner, before anything else.
    assert_first_on_the_terminal(verdict, note, line=1)


def test_a_ratchet_upgrade_is_a_note_and_decides_nothing(demo_repo: Path, tmp_path: Path) -> None:
    restamp(demo_repo, "goldens of an older Ratchet", ratchet_version="0.0.1")
    verdict = check(demo_repo, prose_edit(demo_repo), tmp_path / "home")
    assert verdict.decision == "PASS"
    (note,) = [n for n in verdict.unseen if n.kind == "provenance"]
    assert note.level == "note"
    assert note.detail.startswith(
        f"{len(verdict.pairs)} golden(s) were recorded with Ratchet 0.0.1 but replayed with {__version__} "
    )


@pytest.mark.parametrize("shards", [2, 3])
def test_shards_merged_name_the_difference_as_one_machine_does(demo_repo: Path, tmp_path: Path, shards: int) -> None:
    restamp(demo_repo, "goldens recorded with the text protocol", tool_protocol="text")
    head = prose_edit(demo_repo)
    whole = check_edit(demo_repo, base="main", head=head, config=CASCADE, home=tmp_path / "w", clock=frozen_clock)
    files = []
    for index in range(1, shards + 1):
        job = ShardJob(Shard(index=index, count=shards))
        check_edit(
            demo_repo,
            base="main",
            head=head,
            config=CASCADE,
            home=tmp_path / f"h{index}",
            clock=frozen_clock,
            shard=job,
        )
        assert job.result is not None
        files.append(tmp_path / f"shard-{index}.json")
        files[-1].write_text(job.result.to_json(), encoding="utf-8")
    merged, _ = merge_shards(files)
    assert whole.decision == "WARN" and whole.summary.startswith(f"{len(whole.pairs)} golden(s) were recorded with")
    assert merged.to_json() == whole.to_json()


# -- live: a FakeOpenAI upstream on loopback ---------------------------------------------------------------------


def _live_yaml(server: FakeOpenAI, model: str) -> str:
    tier = f'{{model: {model}, api_base: "{server.base_url}", max_tokens: 64}}'
    return (
        "schema_version: 1\nupstream: live\nretry: {max_attempts: 1, base_delay_s: 0.01, max_delay_s: 0.02}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        "prices:\n  openai/model-a: {input: 0.000001, output: 0.000002}\n"
        "  openai/model-b: {input: 0.000001, output: 0.000002}\n"
    )


def test_goldens_recorded_on_the_simulator_replayed_live_are_named_first(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI(listed=("model-a",)) as server:  # preflight asks the server whether it serves the tier's model
        commit(demo_repo, {"ratchet.yaml": _live_yaml(server, "openai/model-a")}, "go live")
        apply_edit(demo_repo, EDIT["edit/reworded-status"])
        verdict = check(demo_repo, "edit/reworded-status", tmp_path / "home")
        assert server.requests
    note = (
        f"{len(verdict.pairs)} golden(s) were recorded on the simulator but replayed live ({replayed(verdict)}): "
        f"{NOT_LIKE}; {rerecord(verdict)}"
    )
    assert verdict.decision in ("WARN", "BLOCK") and not verdict.simulated
    assert verdict.summary.startswith(note)
    assert_first_on_the_terminal(verdict, note, line=0)
    assert {d.kind for p in verdict.pairs for d in p.provenance} == {"upstream"}


def _record_live(repo: Path, task_ids: list[str]) -> None:
    """`ratchet record` live, then the pending traces put where `bless` puts goldens (bless's own checks of what a
    golden must show are not what this test is about; the echo model shows nothing)."""
    result = CliRunner().invoke(app, ["record", "--project", str(repo), *task_ids])
    assert result.exit_code == 0, result.output
    pending = Path(repo / ".ratchet" / "pending")
    for task_id in task_ids:
        trace = read_trace(pending / f"{task_id}.json")
        write_trace(repo / "goldens" / golden_relpath(trace), trace)
        (repo / "goldens" / golden_relpath(trace)).with_name(f"{task_id}{NOISE_SUFFIX}").unlink(missing_ok=True)


def test_goldens_recorded_with_another_agent_model_are_named_first(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    triage = sorted(p.stem for p in (demo_repo / "goldens" / "github-triage").glob("*.json") if "noise" not in p.name)
    with FakeOpenAI(listed=("model-a", "model-b")) as server:
        (demo_repo / "ratchet.yaml").write_text(_live_yaml(server, "openai/model-a"), encoding="utf-8")
        _record_live(demo_repo, triage)
        git(demo_repo, "add", "-A")
        git(demo_repo, "commit", "-q", "-m", "goldens recorded live with model a")
        commit(demo_repo, {"ratchet.yaml": _live_yaml(server, "openai/model-b")}, "the agent is model b now")
        head = prose_edit(demo_repo)
        verdict = check(demo_repo, head, tmp_path / "home")
        # The same echo agent under another name: every replay is its golden, so only provenance can speak.
        assert {p.outcome for p in verdict.pairs} == {"same"}
    assert {p.task_id for p in verdict.pairs} == set(triage)
    note = (
        f"{len(verdict.pairs)} golden(s) were recorded with agent model openai/model-a but replayed with "
        f"openai/model-b ({replayed(verdict)}): {NOT_LIKE}; {rerecord(verdict)}"
    )
    assert verdict.decision == "WARN"
    assert verdict.summary.startswith(note)
    assert_first_on_the_terminal(verdict, note, line=0)
