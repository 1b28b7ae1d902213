"""What counts as evidence that a trace shows its skill at work (ratchet.bless.evidence).

Why (issue 24): a golden whose run shows nothing of its skill (no tool or command the skill names, none of
the output it prescribes) replays identically under any edit, so every edit PASSes. The evidence is only
what the machinery can tell without a model, and it must not make an honest golden thin: the simulator's
goldens of the shipped demo and benchmark all pass, a skill that names nothing to call or show is shown
at work by being loaded, and a canary is no skill's.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.bless.evidence import project_evidence
from ratchet.config.project import load_project
from ratchet.diff.effects import tool_catalog
from ratchet.gate.thin import Evidence
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import SkillRef, ToolCall, Trace, load_goldens
from ratchet.skills.skill import Skill, load_skill, parse_skill_text
from tests.bless.test_skill_asks import FREEFORM, PDF_FORMS

ROOT = Path(__file__).resolve().parents[2]


def _skill(name: str, body: str) -> Skill:
    text = f"---\nname: {name}\ndescription: Fill a PDF form from a customer's answers.\n---\n{body}"
    return parse_skill_text(text, folder=Path("skills") / name, source=f"skills/{name}/SKILL.md")


def _trace(
    skill: str | None, *, calls: list[ToolCall] | None = None, output: str = "", upstream: str = "live"
) -> Trace:
    fired = [SkillRef(name=skill, content_hash="c", substance_hash="s")] if skill else []
    return Trace.model_validate(
        {
            "task_id": "pdf-forms-01",
            "prompt": "Fill the form for Ada.",
            "expected_skill": skill,
            "skills_fired": fired,
            "upstream": upstream,
            "simulated": upstream == "sim",
            "seed": 0,
            "frozen_time": "2026-10-14T16:00:00Z",
            "tool_calls": calls or [],
            "final_output": output,
        }
    )


def _bash(command: str) -> ToolCall:
    return ToolCall(index=0, name="Bash", arguments={"command": command}, effect="read")


PDF = Evidence({"pdf-forms": _skill("pdf-forms", PDF_FORMS)}, catalog=tool_catalog(), offered=frozenset())


def test_every_shipped_simulator_golden_shows_its_skill_at_work(demo_repo: Path, tmp_path: Path) -> None:
    for root in (demo_repo, ROOT):  # the demo, and the benchmark's ten skills
        project = load_project(root, home=tmp_path / "home")
        evidence = project_evidence(project)
        tasks = {task.id: task for task in load_tasks(project.path("tasks"))}
        goldens = load_goldens(project.path("goldens"))
        assert len(goldens) > 20
        exercises = [evidence.exercise(golden, tasks[tid].skill) for tid, golden in goldens.items()]
        assert [exercise.line() for exercise in exercises if exercise.thin] == []


def test_a_thin_run_names_every_kind_of_evidence_it_lacks() -> None:
    exercise = PDF.exercise(_trace("pdf-forms", output="Done: the form is filled."), "pdf-forms")
    assert exercise.missing == [
        "no tool it names was called (mcp__ratchet__email_send, Write)",
        "no command it names was run (pdftotext, python scripts/fill_form.py)",
        "the output has none of the fields it prescribes (Fields filled, Fields left blank, Questions for the customer)",
    ]


def test_a_command_run_through_a_harness_shell_is_evidence() -> None:
    call = _bash("cd /tmp/work && python /skills/pdf-forms/scripts/fill_form.py form.pdf answers.json")
    assert not PDF.exercise(_trace("pdf-forms", calls=[call]), "pdf-forms").thin
    assert PDF.exercise(_trace("pdf-forms", calls=[_bash("python other.py")]), "pdf-forms").thin


def test_a_named_tool_called_under_its_mcp_name_is_evidence() -> None:
    call = ToolCall(index=0, name="email_send", arguments={"to": "ada@example.com"}, effect="send")
    assert not PDF.exercise(_trace("pdf-forms", calls=[call]), "pdf-forms").thin


def test_the_prescribed_output_is_evidence_when_at_least_half_of_it_is_there() -> None:
    half = "## Fields filled\nname, date\n## Fields left blank\nnone"
    assert not PDF.exercise(_trace("pdf-forms", output=half), "pdf-forms").thin
    one = PDF.exercise(_trace("pdf-forms", output="Fields filled: all of them."), "pdf-forms")
    assert one.missing[-1] == (
        "the output has 1 of the 3 fields it prescribes (missing: Fields left blank, Questions for the customer)"
    )


def test_saying_why_a_named_tool_was_not_called_is_evidence() -> None:
    said = "I could not run pdftotext here: no shell is available, so the form is not filled."
    assert not PDF.exercise(_trace("pdf-forms", output=said), "pdf-forms").thin
    boast = "I used pdftotext and filled the form."  # naming it is not saying why it was not run
    assert PDF.exercise(_trace("pdf-forms", output=boast), "pdf-forms").thin


def test_a_routed_task_whose_skill_was_not_loaded_is_thin() -> None:
    exercise = PDF.exercise(_trace(None, output="Done."), "pdf-forms")
    assert exercise.line() == "task pdf-forms-01 shows no sign of skill pdf-forms at work: it loaded no skill"


def test_a_run_that_loaded_another_skill_is_read_against_the_skill_it_loaded() -> None:
    # Its golden is that skill's, and every check of the expected skill names the task `unrouted`.
    assert not PDF.exercise(_trace("pdf-forms", calls=[_bash("pdftotext a.pdf a.txt")]), "pdf-invoices").thin
    exercise = PDF.exercise(_trace("pdf-forms", output="Done."), "pdf-invoices")
    assert exercise.line().startswith("task pdf-forms-01 shows no sign of skill pdf-forms at work: no tool it names")


def test_a_canary_and_a_skill_that_names_nothing_are_never_thin() -> None:
    plain = Evidence(
        {"plain": _skill("plain", "# Plain\n\nBe kind and brief.\n")}, catalog=tool_catalog(), offered=frozenset()
    )
    assert not plain.exercise(_trace("plain", output="ok"), "plain").thin
    assert not PDF.exercise(_trace(None, output="A haiku."), None).thin


def test_a_simulator_run_of_a_skill_it_cannot_follow_is_left_to_the_unfollowed_warning() -> None:
    # `record` refuses it without --allow-unfollowed and every simulated check of the skill names it
    # (docs/adr/0012-never-a-silent-pass.md): the same gap, already named where it matters.
    skill = load_skill(FREEFORM / "incident-postmortem")
    evidence = Evidence({skill.name: skill}, catalog=tool_catalog(), offered=frozenset())
    said = "I followed the incident-postmortem skill.\n\nResult:\n"
    assert not evidence.exercise(_trace(skill.name, output=said, upstream="sim"), skill.name).thin
    assert evidence.exercise(_trace(skill.name, output=said), skill.name).missing == [
        "the output has none of the fields it prescribes (Summary, Impact, Timeline, Root cause, "
        "Contributing factors, What went well, Action items)"
    ]


INCIDENT = """# Incident summary

Write an incident summary.

## Output format

```
## Impact
## Timeline
## Root cause
## Follow-ups
```
"""
TEMPLATED = Evidence({"incident": _skill("incident", INCIDENT)}, catalog=tool_catalog(), offered=frozenset())


def test_a_reply_that_only_mentions_a_tool_beside_a_negation_is_not_saying_why_not() -> None:
    # The negation must be about the tool: an invented answer with "no" anywhere is not a reason.
    for invented in ("Using pdftotext, I found no issues. Done.", "Instead of a shell I used pdftotext: no gaps."):
        assert PDF.exercise(_trace("pdf-forms", output=invented), "pdf-forms").thin, invented
    for said in (
        "I couldn't run python scripts/fill_form.py here.",
        "pdftotext was not available, so the form is not filled.",
        "I was not able to call mcp__ratchet__email_send: the address is missing.",
    ):
        assert not PDF.exercise(_trace("pdf-forms", output=said), "pdf-forms").thin, said


def test_output_elements_are_headings_fields_or_columns_of_the_reply_not_words_in_prose() -> None:
    prose = TEMPLATED.exercise(_trace("incident", output="Impact was minor. The root cause is unknown."), "incident")
    assert prose.thin
    for shaped in (
        "## Impact\nx\n## Timeline\ny\n## Root cause\nz\n## Follow-ups\nw",
        "**Impact**: x\n**Timeline**: y\n**Root cause**: z\n**Follow-ups**: none",
        "| Impact | Timeline | Root cause |\n|---|---|---|\n| minor | 2h | disk |",
    ):
        assert not TEMPLATED.exercise(_trace("incident", output=shaped), "incident").thin, shaped


def test_output_written_through_a_write_call_is_output() -> None:
    # The skill names files_write_file; a harness agent writes the summary with its own Write tool.
    body = INCIDENT.replace("Write an incident summary.", "Write an incident summary with files_write_file.")
    written = Evidence({"incident": _skill("incident", body)}, catalog=tool_catalog(), offered=frozenset())
    content = "## Impact\nx\n## Timeline\ny\n## Root cause\nz"
    call = ToolCall(index=0, name="Write", arguments={"file_path": "summary.md", "content": content}, effect="write")
    assert not written.exercise(_trace("incident", calls=[call], output="Wrote summary.md."), "incident").thin
    read = ToolCall(index=0, name="Read", arguments={"file_path": "## Impact ## Timeline"}, effect="read")
    assert written.exercise(_trace("incident", calls=[read], output="Done."), "incident").thin


def test_a_script_run_with_another_python_launcher_is_the_same_command() -> None:
    for line in (
        "python3 /home/u/.claude/skills/pdf-forms/scripts/fill_form.py form.pdf answers.json",
        "uv run scripts/fill_form.py form.pdf answers.json",
        "poetry run python3.12 scripts/fill_form.py form.pdf",
    ):
        assert not PDF.exercise(_trace("pdf-forms", calls=[_bash(line)]), "pdf-forms").thin, line
    # Reading the script is not running it.
    assert PDF.exercise(_trace("pdf-forms", calls=[_bash("cat scripts/fill_form.py")]), "pdf-forms").thin
