"""triggers.yaml: queries in file order with their ids, and every fault one line naming the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import TaskFileError
from ratchet.goldens.tasks import Task
from ratchet.goldens.triggers import TriggerQuery, load_trigger_queries, parse_triggers

GOOD = """schema_version: 1
triggers:
  - skill: github-triage
    should_fire:
      - "Label issue #12 in acme/api as a bug"
      - {id: triage-by-number, prompt: "Triage #7"}
    should_not_fire:
      - "Summarise the README of acme/api"
  - skill: null
    should_not_fire:
      - What is the weather like in Lisbon today?
  - skill: github-triage
    should_fire:
      - Sort out the new bug report in acme/ledger
"""


def test_queries_come_in_file_order_with_generated_and_explicit_ids() -> None:
    queries = parse_triggers(GOOD, source="triggers.yaml")
    assert [(q.id, q.skill, q.should_fire, q.source) for q in queries] == [
        ("github-triage:fire:1", "github-triage", True, "triggers"),
        ("triage-by-number", "github-triage", True, "triggers"),
        ("github-triage:not:1", "github-triage", False, "triggers"),
        ("canary:not:1", None, False, "triggers"),
        ("github-triage:fire:3", "github-triage", True, "triggers"),  # numbering goes on across sets
    ]
    assert queries[0].prompt == "Label issue #12 in acme/api as a bug"


def test_a_commented_out_list_is_no_query() -> None:
    assert parse_triggers("schema_version: 1\ntriggers:\n  # - skill: a\n", source="t.yaml") == []


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "triggers:\n  - skill: a\n    should_fire:\n      - ok\n      - ''\n",
            5,
            "triggers.0.should_fire.1: an empty prompt",
        ),
        (
            "triggers:\n  - skill: a\n    should_fire:\n      - 42\n",
            4,
            "must be a prompt (a string) or {id, prompt}, not int",
        ),
        ("triggers:\n  - skill: a\n    shuold_fire: [x]\n", 3, "triggers.0: unknown key 'shuold_fire'"),
        ("triggers:\n  - should_fire: [x]\n", 2, "triggers.0: needs `skill`"),
        ("triggers:\n  - skill: A_b\n    should_fire: [x]\n", 2, "skill name 'A_b' must be"),
        ("triggers:\n  - skill: null\n    should_fire: [x]\n", 3, "use should_not_fire"),
        ("triggers:\n  - skill: a\n", 2, "lists no prompt"),
        ("triggers:\n  - skill: a\n    should_fire: x\n", 3, "must be a list of prompts"),
        ("triggers:\n  - skill: a\n    should_fire:\n      - {id: Bad:Id, prompt: x}\n", 4, "task id 'Bad:Id' must be"),
        ("triggers:\n  - skill: a\n    should_fire:\n      - {id: x, prompt: ''}\n", 4, "needs a non-empty prompt"),
        ("triggers:\n  - skill: a\n    should_fire:\n      - {id: x, prompt: p, why: z}\n", 4, "unknown key 'why'"),
        (
            "triggers:\n  - skill: a\n    should_fire: [{id: x, prompt: p}]\n  - skill: b\n    should_fire:\n"
            "      - {id: x, prompt: q}\n",
            4,
            "duplicate trigger query id 'x'",
        ),
        ("schema_version: 2\ntriggers: []\n", 1, "unsupported schema_version 2"),
        ("triggers: []\nextra: 1\n", 2, "unknown key 'extra'"),
        ("- a\n", 1, "expected a mapping with a 'triggers' list"),
        ("triggers: {a: 1}\n", 1, "triggers: must be a list"),
        ("triggers: [\n", 2, ""),  # YAML syntax: the loader's own line
    ],
)
def test_every_fault_is_one_line_with_its_line(text: str, line: int, message: str) -> None:
    with pytest.raises(TaskFileError) as caught:
        parse_triggers(text, source="triggers.yaml")
    assert caught.value.line == line
    assert message in caught.value.message
    assert caught.value.one_line().startswith(f"triggers.yaml:{line}: ")
    assert "\n" not in caught.value.one_line()


def test_a_skill_the_library_does_not_have_is_a_fault_when_the_library_is_given() -> None:
    text = "triggers:\n  - skill: a\n    should_fire: [x]\n  - skill: b\n    should_fire: [y]\n"
    assert len(parse_triggers(text, source="t.yaml", known_skills={"a", "b"})) == 2
    with pytest.raises(TaskFileError) as caught:
        parse_triggers(text, source="t.yaml", known_skills={"a"})
    assert caught.value.one_line() == "t.yaml:4: triggers.1.skill: no skill 'b' in the skills folder"


def test_fired_counts_by_skill_identity_and_a_canary_counts_any_skill() -> None:
    about = TriggerQuery(id="q", prompt="p", skill="fx-convert", should_fire=False, source="triggers")
    assert about.fired_counts("fx-convert") and about.fired_counts("\uff46x-convert")  # NFKC: the same skill
    assert not about.fired_counts("other") and not about.fired_counts(None)
    canary = TriggerQuery(id="c", prompt="p", skill=None, should_fire=False, source="tasks")
    assert canary.fired_counts("anything") and not canary.fired_counts(None)


TASKS = [Task(id="t1", prompt="triage #1", skill="github-triage"), Task(id="canary-1", prompt="a haiku")]


def test_tasks_are_queries_after_the_triggers_file(tmp_path: Path) -> None:
    (tmp_path / "triggers.yaml").write_text(GOOD, encoding="utf-8")
    queries = load_trigger_queries(tmp_path / "tasks.yaml", TASKS)
    assert [q.id for q in queries][-3:] == ["github-triage:fire:3", "task:t1", "task:canary-1"]
    assert (queries[-2].skill, queries[-2].should_fire, queries[-2].source) == ("github-triage", True, "tasks")
    assert (queries[-1].skill, queries[-1].should_fire, queries[-1].source) == (None, False, "tasks")


def test_without_a_triggers_file_the_tasks_are_the_queries(tmp_path: Path) -> None:
    assert [q.id for q in load_trigger_queries(tmp_path / "tasks.yaml", TASKS)] == ["task:t1", "task:canary-1"]


def test_a_broken_triggers_file_names_its_path_and_line(tmp_path: Path) -> None:
    (tmp_path / "triggers.yaml").write_text("triggers:\n  - skill: a\n", encoding="utf-8")
    with pytest.raises(TaskFileError) as caught:
        load_trigger_queries(tmp_path / "tasks.yaml", TASKS)
    assert (
        caught.value.one_line()
        == f"{tmp_path / 'triggers.yaml'}:2: triggers.0: lists no prompt (give should_fire or should_not_fire)"
    )
