"""Unsent files under a real harness: replayed when a golden of the skill read them, else named with what would
make them visible, in that harness's own terms."""

from __future__ import annotations

from pathlib import Path

from ratchet.gate.models import Unseen
from ratchet.gate.unseen import unseen_notes
from ratchet.goldens.trace import HarnessRef, SkillRef, ToolCall, Trace
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world.commands import SKILL_READ

NAME = "weekly-report"
SKILL = parse_skill_text(
    f"---\nname: {NAME}\ndescription: Post the weekly report.\n---\n# Weekly\n1. Run `python scripts/report.py`.\n",
    folder=Path("skills") / NAME,
    source=f"skills/{NAME}/SKILL.md",
)
EDITED = parse_skill_text(
    f"---\nname: {NAME}\ndescription: Post the weekly report.\nallowed-tools: Bash\n---\n"
    "# Weekly\n1. Run `python scripts/report.py`.\n",
    folder=Path("skills") / NAME,
    source=f"skills/{NAME}/SKILL.md",
)


def _golden(harness: str | None, calls: list[ToolCall]) -> Trace:
    return Trace(
        task_id="weekly-01",
        prompt="post the report",
        expected_skill=NAME,
        skills_fired=[SkillRef(name=NAME, content_hash="c", substance_hash="s")],
        seed=1,
        frozen_time="2026-10-14T16:00:00Z",
        tool_calls=calls,
        harness=HarnessRef(name=harness, version="1") if harness else None,
    )


def _unsent(golden: Trace, files: list[str], head: Skill = SKILL) -> list[tuple[str, str]]:
    notes: list[Unseen] = unseen_notes(
        changed=[NAME],
        base_skills={NAME: SKILL},
        head_skills={NAME: head},
        tasks=[],
        goldens={golden.task_id: golden},
        changed_files={NAME: files},
        tools=None,
        harness=golden.harness.name if golden.harness is not None else "minimal",  # type: ignore[arg-type]
    )
    return [(n.level, n.detail) for n in notes if n.kind == "unsent"]


READ = ToolCall(index=0, name=SKILL_READ, arguments={"skill": NAME, "path": "references/format.md"}, effect="read")
RAN = ToolCall(
    index=1,
    name="Bash",
    arguments={"command": f"python /ratchet-scratch/ws/.claude/skills/{NAME}/scripts/report.py --week"},
    effect="write",
)
FILES = [f"skills/{NAME}/references/format.md", f"skills/{NAME}/scripts/report.py"]


def test_a_file_a_golden_read_or_ran_through_the_harness_is_replayed_not_unsent() -> None:
    assert _unsent(_golden("claude-code", [READ, RAN]), FILES) == []


def test_a_file_no_golden_read_says_what_would_make_it_visible_per_harness() -> None:
    assert _unsent(_golden("claude-code", [READ]), FILES) == [
        (
            "warn",
            f"skills/{NAME}/scripts/report.py of skill {NAME} changed, but no golden of it read it through "
            "claude-code: not replayed; add a task that makes the agent read it (with Read or Bash in "
            "harness.builtin_tools)",
        )
    ]
    assert _unsent(_golden("codex", []), FILES) == [
        (
            "warn",
            f"skills/{NAME}/references/format.md, skills/{NAME}/scripts/report.py of skill {NAME} changed, but no "
            "golden of it read them through codex: not replayed; add a task that makes the agent read them",
        )
    ]


def test_the_minimal_runner_never_sends_them_whatever_a_golden_read() -> None:
    assert _unsent(_golden(None, [READ, RAN]), FILES) == [
        (
            "warn",
            f"skills/{NAME}/references/format.md, skills/{NAME}/scripts/report.py of skill {NAME} changed, but the "
            "runner sends only SKILL.md's body to the agent: not replayed; review it, or check with a harness that "
            "loads it",
        )
    ]


def test_a_harness_is_sent_the_whole_skill_md_frontmatter_included() -> None:
    assert _unsent(_golden("claude-code", []), [f"skills/{NAME}/SKILL.md"], head=EDITED) == []
    assert _unsent(_golden(None, []), [f"skills/{NAME}/SKILL.md"], head=EDITED) == [
        (
            "warn",
            f"frontmatter allowed-tools of skill {NAME} changed, but the runner sends only SKILL.md's body to the "
            "agent: not replayed; review it, or check with a harness that loads it",
        )
    ]
