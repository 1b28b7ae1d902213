"""A changed skill file is replayed, not "unsent", only when a golden showed the model its content (skill:read) or
ran it (a shell line running the script by its whole path); named in the terms of the harness the check runs."""

from __future__ import annotations

from ratchet.config.harness import HarnessName
from ratchet.gate.models import Unseen
from ratchet.gate.unseen import unseen_notes
from ratchet.goldens.trace import ToolCall, Trace
from tests.gate.test_unseen_harness_reads import FILES, NAME, RAN, READ, SKILL, _golden

FORMAT = f"skills/{NAME}/references/format.md"
WORKSPACE_FILE = f"/ratchet-scratch/ws/.claude/skills/{NAME}/references/format.md"


def _unsent(golden: Trace, files: list[str], harness: HarnessName) -> list[str]:
    notes: list[Unseen] = unseen_notes(
        changed=[NAME],
        base_skills={NAME: SKILL},
        head_skills={NAME: SKILL},
        tasks=[],
        goldens={golden.task_id: golden},
        changed_files={NAME: files},
        tools=None,
        harness=harness,
    )
    return [n.detail.partition(" of skill")[0] for n in notes if n.kind == "unsent" and n.level == "warn"]


def _bash(line: str, effect: str = "write") -> ToolCall:
    return ToolCall(index=0, name="Bash", arguments={"command": line}, effect=effect)  # type: ignore[arg-type]


def test_a_listing_an_echo_or_a_count_of_the_file_is_no_read_of_it() -> None:
    for line in (
        f"ls -la {WORKSPACE_FILE}",
        f"echo {WORKSPACE_FILE}",
        f"wc -c {WORKSPACE_FILE}",
        f"stat {WORKSPACE_FILE}",
    ):
        assert _unsent(_golden("claude-code", [_bash(line, "read")]), [FORMAT], "claude-code") == [FORMAT], line


def test_a_send_whose_body_names_the_file_is_no_read_of_it() -> None:
    body = f"see {NAME}/references/format.md for the format"
    send = ToolCall(index=0, name="github_comment", arguments={"body": body}, effect="send")
    posted = ToolCall(
        index=1, name="cmd:gh", arguments={"argv": ["gh", "issue", "comment", "--body", body]}, effect="send"
    )
    assert _unsent(_golden("claude-code", [send, posted]), [FORMAT], "claude-code") == [FORMAT]


def test_running_the_script_by_its_whole_path_is_a_run_of_it_and_a_mention_is_not() -> None:
    assert _unsent(_golden("claude-code", [RAN]), [FILES[1]], "claude-code") == []
    other = _bash(f"python /tmp/not-{NAME}/scripts/report.py")
    assert _unsent(_golden("claude-code", [other]), [FILES[1]], "claude-code") == [FILES[1]]
    grep = _bash(f"grep -n week /ratchet-scratch/ws/.claude/skills/{NAME}/scripts/report.py")
    assert _unsent(_golden("claude-code", [grep]), [FILES[1]], "claude-code") == [FILES[1]]


def test_the_check_own_harness_decides_not_the_one_the_goldens_ran_through() -> None:
    golden = _golden("claude-code", [READ, RAN])
    assert _unsent(golden, FILES, "claude-code") == []
    (minimal,) = _unsent(golden, FILES, "minimal")
    assert minimal == f"{FILES[0]}, {FILES[1]}"
    notes = unseen_notes(
        changed=[NAME],
        base_skills={NAME: SKILL},
        head_skills={NAME: SKILL},
        tasks=[],
        goldens={golden.task_id: golden},
        changed_files={NAME: FILES},
        tools=None,
        harness="minimal",
    )
    assert "the runner sends only SKILL.md's body to the agent" in notes[0].detail
    # Goldens blessed through the minimal runner, checked through codex: what codex would need, in its terms.
    (codex,) = [
        n.detail
        for n in unseen_notes(
            changed=[NAME],
            base_skills={NAME: SKILL},
            head_skills={NAME: SKILL},
            tasks=[],
            goldens={golden.task_id: _golden(None, [])},
            changed_files={NAME: FILES},
            tools=None,
            harness="codex",
        )
        if n.kind == "unsent"
    ]
    assert codex.endswith(
        "no golden of it read them through codex: not replayed; add a task that makes the agent read them"
    )
