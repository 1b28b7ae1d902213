"""The `command` harness, proved end to end with a real agent program of our own.

tests/data/harness_agent/agent.py is a small agent CLI a team could have written: the `openai` SDK
against the loopback endpoint, the official `mcp` SDK against Ratchet's MCP server, skills read off
its workspace. Through it the demo's goldens are recorded (twice, byte-identical) and blessed, and
the demo's edits are gated as through the minimal runner. An agent that crashes, hangs or never
loads a skill makes each pair an error or a routing finding, never a PASS, and nothing of a replay
(process or file) outlives it.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import git
import pytest
import yaml
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.cli import mutate as mutate_cli
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.gate.check import check_edit
from ratchet.gate.models import Shard, Verdict
from ratchet.gate.shard import ShardJob, merge_shards
from ratchet.goldens.trace import read_trace
from ratchet.harness import sandbox
from ratchet.harness.bwrap import unavailable
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.harness_demo import build_recorded_demo, commit_all
from tests.helpers.leftovers import LeftoverSpy
from tests.mutate.hand_made import HandMade

AGENT = Path(__file__).resolve().parents[1] / "data" / "harness_agent" / "agent.py"
KEEP = (
    "github-triage-01",
    "github-triage-02",
    "github-triage-04",
    "fx-expense-converter-01",
    "fx-expense-converter-02",
    "canary-01",
)
EDIT = {edit.branch: edit for edit in EDITS}
LEFTOVERS = LeftoverSpy()
SANDBOX_OFF_LINE = (
    "harness replays run without the bubblewrap sandbox (harness.sandbox is off): only the process group and "
    "leftover processes are killed, so the harness can read what this user can and reach the network "
    "(docs/harnesses.md)"
)
# `--token={token}`, one word: a token may start with "-" (token_urlsafe), which argparse takes for a flag
# when it is a word of its own; `--` before the prompt for the same reason.
COMMAND = (
    f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} --workspace {{workspace}} --mcp {{mcp_config}} "
    "--base-url {proxy_url} --token={token} --output {output}"
)


def _harness(extra: str = "", timeout_s: float | None = None) -> dict[str, Any]:
    harness: dict[str, Any] = {
        "name": "command",
        "command": f"{COMMAND}{extra} -- {{prompt}}",
        "skills_dir": ".agents/skills",
    }
    if timeout_s is not None:
        harness["timeout_s"] = timeout_s
    return harness


def _write_config(root: Path, harness: dict[str, Any]) -> None:
    path = root / "ratchet.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["harness"] = harness
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _build(root: Path) -> str:
    sha = build_recorded_demo(root, KEEP, prepare=lambda tree: _write_config(tree, _harness()))
    assert load_project(root, home=root / ".ratchet").config.harness.name == "command"
    return sha


@pytest.fixture(scope="module")
def command_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = tmp_path_factory.mktemp("demo-command") / "repo"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RATCHET_UPSTREAM", "sim")
        mp.setenv("RATCHET_HOME", str(root / ".ratchet"))
        mp.delenv("CI", raising=False)
        mp.setattr(sandbox, "kill_leftovers", LEFTOVERS)  # what each replay left for the second line to kill
        base = _build(root)
        for edit in EDITS:
            apply_edit(root, edit)
        yield root, base


def _check(demo: tuple[Path, str], head: str, base: str | None = None) -> Verdict:
    root, blessed = demo
    return check_edit(
        root, base=base or blessed, head=head, home=root / ".ratchet", config=resolve_gate_config("cascade")
    )


def _assert_nothing_left(root: Path) -> None:
    """No replay so far left a process for the leftover kill (it looks before it kills), and no folder."""
    scratch = root / ".ratchet" / "scratch"
    assert LEFTOVERS.replays and LEFTOVERS.found == []
    assert not scratch.exists() or list(scratch.iterdir()) == []


def test_goldens_record_what_the_agent_loaded_and_called(command_demo: tuple[Path, str]) -> None:
    root, _ = command_demo
    golden = read_trace(root / "goldens" / "github-triage" / "github-triage-01.json")
    assert golden.harness is not None and golden.harness.name == "command"
    assert golden.harness.sandbox == ("bubblewrap" if not unavailable() else "none")
    assert golden.status == "ok" and golden.fired_skill == "github-triage"
    assert golden.tool_calls and golden.tool_calls[0].name == "github_get_issue"
    assert all(call.name != "load_skill" for call in golden.tool_calls)
    assert golden.model_calls and golden.simulated and golden.final_output
    assert golden.final_state is not None and any(path.endswith(".labels") for path in golden.final_state.effects)
    fx = read_trace(root / "goldens" / "fx-expense-converter" / "fx-expense-converter-01.json")
    assert fx.fired_skill == "fx-expense-converter" and fx.tool_calls and fx.final_output
    canary = read_trace(root / "goldens" / "_none" / "canary-01.json")
    assert canary.skills_fired == [] and canary.tool_calls == []
    _assert_nothing_left(root)


def test_a_cosmetic_edit_passes(command_demo: tuple[Path, str]) -> None:
    verdict = _check(command_demo, "edit/cosmetic")
    assert verdict.decision == "PASS", verdict.summary
    assert verdict.pairs and all(pair.outcome == "same" for pair in verdict.pairs)
    assert [n.kind for n in verdict.unseen if n.kind == "sandbox"] == ([] if not unavailable() else ["sandbox"])


def test_replays_without_the_sandbox_are_named_once_on_the_verdict(command_demo: tuple[Path, str]) -> None:
    base, head = _bad_pair(command_demo, "unsandboxed", {**_harness(), "sandbox": "off"})
    verdict = _check(command_demo, head, base=base)
    assert verdict.decision == "PASS", verdict.summary
    (note,) = [n for n in verdict.unseen if n.kind == "sandbox"]
    assert note.level == "note" and "ran without the bubblewrap sandbox (harness.sandbox is off)" in note.detail
    _assert_nothing_left(command_demo[0])


def test_a_sharded_check_without_the_sandbox_keeps_the_note_in_the_merge(
    command_demo: tuple[Path, str], tmp_path: Path
) -> None:
    """Review of issue 27, item 5: the note rode on the shard's verdict only, and the merge rebuilt without it."""
    base, head = _bad_pair(command_demo, "unsandboxed-shards", {**_harness(), "sandbox": "off"})
    whole = _check(command_demo, head, base=base)
    files = []
    for index in (1, 2):
        job = ShardJob(Shard(index=index, count=2))
        root, _ = command_demo
        check_edit(root, base=base, head=head, home=root / ".ratchet", config=resolve_gate_config("cascade"), shard=job)
        assert job.result is not None and job.result.pairs, "each shard replayed a pair"
        files.append(tmp_path / f"shard-{index}.json")
        files[-1].write_text(job.result.to_json(), encoding="utf-8")
    merged, _ = merge_shards(files)
    assert [n.kind for n in merged.unseen].count("sandbox") == 1
    assert merged.unseen == whole.unseen and (merged.decision, merged.summary) == (whole.decision, whole.summary)


def test_harness_sandbox_off_in_the_head_alone_is_not_obeyed(command_demo: tuple[Path, str]) -> None:
    """The check runs under the base's ratchet.yaml: an edit cannot turn the sandbox off for its own replays."""
    root, _ = command_demo
    repo = git.Repo(root)
    repo.git.checkout("-q", "-b", "edit/sandbox-off-in-head", "main")
    try:
        _write_config(root, {**_harness(), "sandbox": "off"})
        edit = EDIT["edit/cosmetic"]
        path = root / "skills" / edit.skill / "SKILL.md"
        path.write_text(edit.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
        head = commit_all(repo, "turn the sandbox off, and a cosmetic edit")
    finally:
        repo.git.checkout("-q", "main")
    verdict = _check(command_demo, head)
    assert verdict.pairs
    assert [n.kind for n in verdict.unseen if n.kind == "sandbox"] == ([] if not unavailable() else ["sandbox"])


def test_a_changed_tool_argument_is_blocked(command_demo: tuple[Path, str]) -> None:
    verdict = _check(command_demo, "edit/changed-argument")
    assert verdict.decision == "BLOCK", verdict.summary
    found = [f.detail for p in verdict.pairs for f in p.findings]
    assert any("priority/medium" in detail for detail in found), found


def test_an_added_side_effect_is_blocked_naming_email_send(command_demo: tuple[Path, str]) -> None:
    verdict = _check(command_demo, "edit/new-side-effect")
    assert verdict.decision == "BLOCK", verdict.summary
    blocked = [p for p in verdict.pairs if p.outcome == "regression"]
    assert blocked and all(p.decided_by == "level0" for p in blocked)
    assert "email_send" in blocked[0].reason


def test_a_narrowed_description_is_a_routing_change(command_demo: tuple[Path, str]) -> None:
    verdict = _check(command_demo, "edit/narrowed-description")
    assert verdict.decision == "BLOCK", verdict.summary
    moved = {p.task_id for p in verdict.pairs for f in p.findings if f.kind == "routing_changed"}
    assert moved and moved <= {"github-triage-02", "github-triage-04"}, moved


def _bad_pair(demo: tuple[Path, str], name: str, harness: dict[str, Any]) -> tuple[str, str]:
    """A base revision whose ratchet.yaml runs the misbehaving agent, and the cosmetic edit on top of it."""
    root, _ = demo
    repo = git.Repo(root)
    repo.git.checkout("-q", "-b", f"bad/{name}", "main")
    try:
        _write_config(root, harness)
        base = commit_all(repo, f"harness: {name}")
        edit = EDIT["edit/cosmetic"]
        path = root / "skills" / edit.skill / "SKILL.md"
        path.write_text(edit.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
        head = commit_all(repo, edit.message)
    finally:
        repo.git.checkout("-q", "main")
    return base, head


@pytest.mark.parametrize(
    ("name", "extra", "timeout_s"), [("crash", " --fail crash", None), ("hang", " --fail hang", 2.0)]
)
def test_an_agent_that_crashes_or_hangs_makes_every_pair_an_error(
    command_demo: tuple[Path, str], name: str, extra: str, timeout_s: float | None
) -> None:
    base, head = _bad_pair(command_demo, name, _harness(extra, timeout_s))
    verdict = _check(command_demo, head, base=base)
    assert verdict.decision != "PASS", verdict.summary
    assert verdict.pairs and all(pair.outcome == "error" for pair in verdict.pairs), [
        (p.task_id, p.outcome, p.reason) for p in verdict.pairs
    ]
    expected = "exited with code 1" if name == "crash" else "did not finish within 2 s"
    assert all(expected in pair.reason for pair in verdict.pairs), [p.reason for p in verdict.pairs]
    _assert_nothing_left(command_demo[0])


def test_an_agent_that_never_loads_a_skill_is_a_routing_change(command_demo: tuple[Path, str]) -> None:
    base, head = _bad_pair(command_demo, "no-skills", _harness(" --fail no-skills"))
    verdict = _check(command_demo, head, base=base)
    assert verdict.decision != "PASS", verdict.summary
    skilled = {p.task_id for p in verdict.pairs if not p.task_id.startswith("canary")}
    moved = {p.task_id for p in verdict.pairs if any(f.kind == "routing_changed" for f in p.findings)}
    assert skilled and moved == skilled, (skilled, moved)
    assert all(p.outcome != "same" for p in verdict.pairs if p.task_id in skilled)
    _assert_nothing_left(command_demo[0])


def test_goldens_recorded_through_the_agent_replay_the_same_on_the_minimal_runner(
    command_demo: tuple[Path, str],
) -> None:
    root, base = command_demo
    # A sentence the simulator does not read: the cosmetic edit's HTML comment is no change at all to the
    # minimal runner, which then replays nothing (ratchet.gate.static).
    repo = git.Repo(root)
    repo.git.checkout("-q", "-b", "edit/prose", "main")
    try:
        path = root / "skills" / "github-triage" / "SKILL.md"
        path.write_text(path.read_text(encoding="utf-8") + "\nBe kind.\n", encoding="utf-8")
        head = commit_all(repo, "github-triage: a sentence of prose")
    finally:
        repo.git.checkout("-q", "main")
    verdict = check_edit(
        root, base=base, head=head, home=root / ".ratchet", config=resolve_gate_config("cascade"), harness="minimal"
    )
    # Every pair is the same; only the provenance differs (recorded through `command`, replayed on the
    # minimal runner), which the gate names and floors at WARN: the comparison is not like for like.
    assert verdict.pairs and all(pair.outcome == "same" for pair in verdict.pairs)
    assert verdict.decision == "WARN", verdict.summary
    assert [(note.kind, note.level) for note in verdict.unseen if note.level == "warn"] == [("provenance", "warn")]
    assert "recorded through command but replayed through minimal" in verdict.unseen[0].detail


@pytest.fixture(scope="module")
def unsandboxed_copy(command_demo: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo (its work area too: the replays are cached) whose committed ratchet.yaml turns the
    sandbox off, for the commands that run replays outside `check`."""
    root = tmp_path_factory.mktemp("unsandboxed") / "repo"
    shutil.copytree(command_demo[0], root, symlinks=True)
    _write_config(root, {**_harness(), "sandbox": "off"})
    commit_all(git.Repo(root), "harness.sandbox: off")
    return root


@pytest.mark.parametrize(
    "args",
    [
        ["record", "canary-01"],
        ["noise", "canary-01", "--repeats", "2"],
        ["triggers", "--skill", "fx-expense-converter", "--repeats", "1"],
        ["mutate", "fx-expense-converter"],
    ],
    ids=lambda args: args[0],
)
def test_every_run_without_the_sandbox_says_so_in_one_line(
    unsandboxed_copy: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of issue 27, item 7: only a check's verdict said so; record, noise, triggers and mutate were silent."""
    monkeypatch.setattr(mutate_cli, "SOURCE", HandMade(()))  # mutate: the line comes before any mutant
    where = ["--repo", str(unsandboxed_copy)] if args[0] == "mutate" else ["--project", str(unsandboxed_copy)]
    result = CliRunner().invoke(app, [*args, *where, "--work", str(unsandboxed_copy / ".ratchet")])
    assert result.exit_code == 0, result.output
    said = [line for line in result.stderr.splitlines() if "without the bubblewrap sandbox" in line]
    assert said == [f"note: {SANDBOX_OFF_LINE}"], result.stderr
