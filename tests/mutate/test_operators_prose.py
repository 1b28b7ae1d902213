"""The mutation operators on free-form skills: plain prose, no backticked program for the simulator.

A weekly-report skill written here names its tool in prose and prescribes its output with headings;
the text operators make every class from it, each mutant a valid skill of the same name, the list
byte-identical for a seed, equivalent edits (inside an HTML comment) dropped and counted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratchet.mutate.models import MUTANT_CLASSES, Mutant
from ratchet.mutate.operators import MutantSet, mutants_of, mutate_skill
from ratchet.sim.follow import follow_report
from ratchet.sim.injector import ToolInfo
from ratchet.skills.skill import load_skill, parse_skill_text

WEEKLY = """\
---
name: weekly-report
description: Write the weekly status report for the platform team from the tracker export and the on-call notes. Use when asked for the weekly report, a status update or what the team did this week.
---
# Weekly report

Every Friday the platform team sends one short report to engineering leadership. Keep it factual
and never guess a number you did not read.

<!-- Maintainers: never shown to the model, only a note for us. -->

## Steps

1. Read the tracker export in reports/tracker.csv with the files_read_file tool.
2. Count the tickets closed this week and the tickets still open.
3. If a ticket has been open for more than 14 days, list it under Risks.
4. Only mention incidents that paged someone.
5. Do not include the names of customers.

## Output

Reply in Markdown with these headings:

### Highlights

Three bullets at most, the most important first.

### Numbers

- Closed: the tickets closed this week
- Open: the tickets still open

### Risks

Each stale ticket with its age in days.

End with one sentence on next week's focus.
"""

TOOLS = (
    ToolInfo("files_read_file", "read", (("path", "string", True, ()),)),
    ToolInfo("files_write_file", "write", (("path", "string", True, ()), ("content", "string", True, ()))),
    ToolInfo("email_send", "send", (("to", "string", True, ()), ("subject", "string", True, ()))),
)
FREEFORM = Path(__file__).resolve().parents[1] / "data" / "freeform" / "skills"


def _write(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def weekly(tmp_path: Path) -> Path:
    return _write(tmp_path, "weekly-report", WEEKLY)


def _set(folder: Path, *, seed: int = 0, per_operator: int = 100, tools: tuple[ToolInfo, ...] = TOOLS) -> MutantSet:
    return mutate_skill(load_skill(folder), folder, tools=tools, seed=seed, per_operator=per_operator)


def _added(mutant: Mutant) -> list[str]:
    return [line[1:] for line in mutant.diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def _removed(mutant: Mutant) -> list[str]:
    return [line[1:] for line in mutant.diff.splitlines() if line.startswith("-") and not line.startswith("---")]


def test_the_simulator_cannot_follow_it(weekly: Path) -> None:
    skill = load_skill(weekly)
    assert not follow_report(skill.body, frozenset(t.name for t in TOOLS), body_line=skill.body_line).followable


def test_every_class_and_every_text_operator(weekly: Path) -> None:
    result = _set(weekly)
    assert result.convention == "prose"
    assert sorted({m.mutant_class for m in result.mutants}) == list(MUTANT_CLASSES)
    assert {m.operator for m in result.mutants} == {
        "delete-step",
        "delete-sentence",
        "delete-section",
        "negate-rule",
        "drop-only",
        "drop-condition",
        "drop-field",
        "drop-heading",
        "change-value",
        "insert-side-effect",
        "broaden-description",
        "narrow-description",
    }


def _one(result: MutantSet, operator: str, needle: str) -> Mutant:
    found = [m for m in result.mutants if m.operator == operator and needle in m.description]
    assert len(found) == 1, (operator, needle, [m.description for m in result.mutants if m.operator == operator])
    return found[0]


def test_what_each_operator_does_and_its_class(weekly: Path) -> None:
    result = _set(weekly)
    step = _one(result, "delete-step", "Only mention incidents")
    assert (step.mutant_class, _removed(step), _added(step)) == (
        "R1",
        ["4. Only mention incidents that paged someone."],
        [],
    )
    assert step.description.startswith("SKILL.md:17: ")
    outro = _one(result, "delete-sentence", "End with one sentence")
    assert outro.mutant_class == "R2"  # an output element
    intro = _one(result, "delete-sentence", "Every Friday")
    assert intro.mutant_class == "R1"
    assert _added(intro) == ["Keep it factual"]
    risks = _one(result, "delete-section", "Risks")
    assert risks.mutant_class == "R2"
    assert _removed(risks)[0] == "### Risks"
    steps = _one(result, "delete-section", "Steps")
    assert steps.mutant_class == "R1"
    heading = _one(result, "drop-heading", "Numbers")
    assert (heading.mutant_class, _removed(heading)) == ("R2", ["### Numbers", ""])
    field = _one(result, "drop-field", "Closed")
    assert (field.mutant_class, _removed(field)) == ("R2", ["- Closed: the tickets closed this week"])
    never = _one(result, "negate-rule", "never guess")
    assert never.mutant_class == "R1" and _added(never) == ["and always guess a number you did not read."]
    do_not = _one(result, "negate-rule", "Do not include")
    assert _added(do_not) == ["5. Include the names of customers."]
    only = _one(result, "drop-only", "Only mention")
    assert (only.mutant_class, _added(only)) == ("R1", ["4. Mention incidents that paged someone."])
    condition = _one(result, "drop-condition", "If a ticket")
    assert (condition.mutant_class, _added(condition)) == ("R1", ["3. List it under Risks."])


def test_values_change_to_another_of_their_kind(weekly: Path) -> None:
    result = _set(weekly)
    values = [m for m in result.mutants if m.operator == "change-value"]
    assert values and {m.mutant_class for m in values} == {"R3"}
    days = _one(result, "change-value", "'14'")
    assert _added(days) == ["3. If a ticket has been open for more than 13 days, list it under Risks."]
    path = _one(result, "change-value", "reports/tracker.csv")
    # the only path the skill names: a near miss
    assert _added(path) == ["1. Read the tracker export in archive/reports/tracker.csv with the files_read_file tool."]


def test_the_side_effect_is_written_as_a_person_would(weekly: Path) -> None:
    result = _set(weekly)
    inserted = [m for m in result.mutants if m.operator == "insert-side-effect"]
    assert inserted and {m.mutant_class for m in inserted} == {"R4"}
    for mutant in inserted:
        text = " ".join(_added(mutant))
        assert "`files_write_file`" in text or "`email_send`" in text, text
        assert "(" not in text  # prose, not a program call
    # the read-only tool is never the one inserted
    assert not any(
        "files_read_file`" in " ".join(_added(m)) and "with `files_read_file`" in m.description for m in inserted
    )


def test_without_tools_the_side_effect_deletes_a_file_the_skill_names(weekly: Path) -> None:
    result = _set(weekly, tools=())
    inserted = [m for m in result.mutants if m.operator == "insert-side-effect"]
    assert inserted
    assert all("delete `reports/tracker.csv`" in " ".join(_added(m)) for m in inserted)


def test_the_description_is_broadened_and_narrowed(weekly: Path) -> None:
    result = _set(weekly)
    for operator, cls in (("broaden-description", "R5"), ("narrow-description", "R6")):
        mutants = [m for m in result.mutants if m.operator == operator]
        assert mutants and {m.mutant_class for m in mutants} == {cls}
        for mutant in mutants:
            assert mutant.description.startswith("SKILL.md:3: ")
            assert [line.split(":")[0] for line in _removed(mutant)] == ["description"]


def test_an_edit_inside_a_comment_is_equivalent_dropped_and_counted(weekly: Path) -> None:
    result = _set(weekly)
    assert result.dropped_equivalent >= 2  # "never" and "only" inside the HTML comment
    assert not any("Maintainers" in line for m in result.mutants for line in _removed(m))


def test_no_mutant_is_equivalent_and_all_are_valid(weekly: Path) -> None:
    skill = load_skill(weekly)
    result = _set(weekly)
    texts = [m.files["SKILL.md"] for m in result.mutants]
    assert len(set(texts)) == len(texts)
    for mutant in result.mutants:
        parsed = parse_skill_text(mutant.files["SKILL.md"], folder=weekly, source=mutant.id)
        assert parsed.name == "weekly-report"
        assert parsed.substance_hash != skill.substance_hash


def test_the_default_cap(weekly: Path) -> None:
    wide, capped = _set(weekly), mutate_skill(load_skill(weekly), weekly, tools=TOOLS, seed=0)
    assert capped.per_operator == 3
    for operator in {m.operator for m in wide.mutants}:
        assert len([m for m in capped.mutants if m.operator == operator]) == min(
            3, len([m for m in wide.mutants if m.operator == operator])
        )
    assert capped.capped == len(wide.mutants) - len(capped.mutants)


def test_a_long_skill_does_not_make_hundreds(tmp_path: Path) -> None:
    steps = "\n".join(f"{n}. Never skip check {n}: only look at the last {n + 2} days." for n in range(1, 61))
    text = f"---\nname: long-one\ndescription: Run the sixty checks of the long procedure.\n---\n# Long\n\n## Steps\n\n{steps}\n"
    folder = _write(tmp_path, "long-one", text)
    result = mutate_skill(load_skill(folder), folder, tools=TOOLS, seed=0)
    assert len(result.mutants) <= 3 * 13
    assert result.capped > 100


@pytest.mark.parametrize("folder", sorted(FREEFORM.iterdir()), ids=lambda p: p.name)
def test_the_freeform_corpus(folder: Path) -> None:
    skill = load_skill(folder)
    result = mutate_skill(skill, folder, tools=TOOLS, seed=0)
    assert result.convention == "prose"
    classes = {m.mutant_class for m in result.mutants}
    assert {"R1", "R4", "R5", "R6"} <= classes
    for mutant in result.mutants:
        assert parse_skill_text(mutant.files["SKILL.md"], folder=folder, source=mutant.id).name == skill.name


def test_the_postmortem_sections_listed_in_a_sentence_are_output_fields() -> None:
    folder = FREEFORM / "incident-postmortem"
    result = mutate_skill(load_skill(folder), folder, tools=TOOLS, seed=0, per_operator=100)
    fields = [m for m in result.mutants if m.operator == "drop-field"]
    assert len(fields) == 7 and {m.mutant_class for m in fields} == {"R2"}
    timeline = next(m for m in fields if "Timeline (UTC)" in m.description)
    assert _added(timeline) == ["A document with these sections: Summary, Impact, Root cause,"]


@settings(max_examples=12)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_any_seed_is_deterministic_and_valid(seed: int) -> None:
    root = Path(__file__).resolve().parents[1] / "data" / "freeform" / "skills" / "release-notes"
    skill = load_skill(root)
    first = mutants_of(skill, root, tools=TOOLS, seed=seed)
    assert [m.model_dump_json() for m in first] == [
        m.model_dump_json() for m in mutants_of(skill, root, tools=TOOLS, seed=seed)
    ]
    for mutant in first:
        parsed = parse_skill_text(mutant.files["SKILL.md"], folder=root, source=mutant.id)
        assert parsed.name == skill.name and parsed.substance_hash != skill.substance_hash


_BLOCKS = (
    "## Steps",
    "## Output",
    "### Summary",
    "1. Read the notes in notes/week.md with the files_read_file tool.",
    "2. If the total is over 500 EUR, ask for approval first.",
    "   - Never approve it yourself.",
    "- Only list items that changed.",
    "* Do not mention customers by name; don't guess numbers.",
    "Keep it short. You must cite the source, unless asked otherwise.",
    "Reply with these fields: Owner, Status, Risk and Next step.",
    "| Field | Meaning |\n| --- | --- |\n| owner | who owns it |",
    "```markdown\n# Report\nStatus: green\n```",
    "<!-- never edit this note -->",
    'Label it `needs-review` and assign "@sam-rivera" within 3 days.',
    "",
)


@settings(max_examples=40)
@given(blocks=st.lists(st.sampled_from(_BLOCKS), min_size=1, max_size=12), seed=st.integers(0, 5))
def test_any_prose_skill_gives_valid_distinct_mutants(
    tmp_path_factory: pytest.TempPathFactory, blocks: list[str], seed: int
) -> None:
    text = (
        "---\nname: any-prose\ndescription: Do the weekly thing for the team.\n---\n# Any\n\n"
        + "\n\n".join(blocks)
        + "\n"
    )
    folder = _write(tmp_path_factory.mktemp("prose"), "any-prose", text)
    skill = load_skill(folder)
    result = mutate_skill(skill, folder, tools=TOOLS, seed=seed)
    hashes = {skill.substance_hash}
    for mutant in result.mutants:
        parsed = parse_skill_text(mutant.files["SKILL.md"], folder=folder, source=mutant.id)
        assert parsed.name == "any-prose"
        assert parsed.substance_hash not in hashes, mutant.id
        hashes.add(parsed.substance_hash)
    assert mutate_skill(skill, folder, tools=TOOLS, seed=seed) == result


def test_a_command_the_skill_names_is_the_side_effect(tmp_path: Path) -> None:
    text = (
        "---\nname: tidy-branch\ndescription: Tidy a feature branch before review.\n---\n# Tidy\n\n"
        "1. Rebase the branch on main.\n2. Run the tests.\n\nTo publish it:\n\n```bash\ngit push origin HEAD\n```\n"
    )
    folder = _write(tmp_path, "tidy-branch", text)
    result = mutate_skill(load_skill(folder), folder, tools=(), seed=0, per_operator=100)
    inserted = [m for m in result.mutants if m.operator == "insert-side-effect"]
    assert [_added(m) for m in inserted] == [
        ["1. Rebase the branch on main. When you are done, run `git push origin HEAD`."],
    ]


def test_crlf_line_endings_are_kept(tmp_path: Path) -> None:
    folder = _write(tmp_path, "weekly-report", "")
    (folder / "SKILL.md").write_bytes(WEEKLY.replace("\n", "\r\n").encode())
    result = mutate_skill(load_skill(folder), folder, tools=TOOLS, seed=0)
    assert result.mutants
    for mutant in result.mutants:
        assert "\n" not in mutant.files["SKILL.md"].replace("\r\n", "")
        assert "\r" not in mutant.diff
