"""The text of small project files (SKILL.md, tasks.yaml, a world/tools/*.yaml) for tests to build on.

    SKILL = skill_md("what-day", "Tell the user ...", "What day is it",
                     steps=["Read the clock: `clock_now()` as `$now`."], output={"date": "$now.date"})
    TASKS = tasks_yaml(("what-day-01", "what-day", "What day is it today?"))

`WHAT_DAY_SKILL` / `WHAT_DAY_TASKS` are a one-skill project the simulator follows with the clock alone
(no world data). `FIND_CONTACT_TOOL` declares one valid read tool; tests derive broken ones from it.
"""

from __future__ import annotations

from collections.abc import Sequence


def skill_md(
    name: str,
    description: str,
    title: str,
    *,
    steps: Sequence[str],
    output: dict[str, str],
    inputs: Sequence[str] = (),
) -> str:
    """A followable SKILL.md: frontmatter, `# title`, optional `## Inputs`, numbered `## Steps`, and an
    `## Output` of one line per field (`output` maps each field to the `$variable` it prints)."""
    sections = [f"---\nname: {name}\ndescription: {description}\n---\n# {title}\n"]
    if inputs:
        sections.append("## Inputs\n\n" + "".join(f"- {line}\n" for line in inputs))
    sections.append("## Steps\n\n" + "".join(f"{n}. {step}\n" for n, step in enumerate(steps, 1)))
    sections.append(
        "## Output\n\nReply with one line per field:\n\n"
        + "".join(f"- `{field}`: `{value}`\n" for field, value in output.items())
    )
    return "\n".join(sections)


def tasks_yaml(*tasks: tuple[str, str, str]) -> str:
    """A tasks.yaml (schema 1) of `(id, skill, prompt)` tasks."""
    rows = "".join(f"- id: {task_id}\n  skill: {skill}\n  prompt: {prompt}\n" for task_id, skill, prompt in tasks)
    return "schema_version: 1\ntasks:\n" + rows


WHAT_DAY_SKILL = skill_md(
    "what-day",
    "Tell the user what day it is today. Use when asked for today's date or weekday.",
    "What day is it",
    steps=["Read the clock: `clock_now()` as `$now`."],
    output={"date": "$now.date", "weekday": "$now.weekday"},
)
WHAT_DAY_TASKS = tasks_yaml(("what-day-01", "what-day", "What day is it today? Tell me today's date and weekday."))

FIND_CONTACT_TOOL = """schema_version: 1
tools:
  - name: crm_find_contact
    description: Find a contact.
    effect: read
    input_schema:
      type: object
      properties:
        email: {type: string}
      required: [email]
"""
