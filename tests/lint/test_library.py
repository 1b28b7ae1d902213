"""Library lints: Claude Code's entry cut, Codex's catalog budget, trigger collisions, invocability."""

from __future__ import annotations

from pathlib import Path

from ratchet.lint.library import (
    CATALOG_BUDGET_CHARS,
    CatalogEntry,
    Probe,
    catalog_outcome,
    lint_library,
)
from ratchet.skills.skill import Skill, load_skill


def make(root: Path, name: str, description: str, extra: str = "") -> Skill:
    folder = root / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n{extra}---\nBody\n")
    return load_skill(folder)


def test_a_quiet_library_has_no_problems(tmp_path: Path) -> None:
    skills = [
        make(tmp_path, "fx-convert", "Convert amounts between currencies at today's rate."),
        make(tmp_path, "issue-triage", "Label and assign new GitHub issues."),
    ]
    report = lint_library(skills, root=tmp_path)
    assert report.problems == [] and report.not_invocable == []
    assert report.catalog.chars == sum(
        len(f"- {s.name}: {s.description} (file: skills/{s.name}/SKILL.md)\n") for s in skills
    )


def test_description_plus_when_to_use_over_1536_warns_on_the_description_line(tmp_path: Path) -> None:
    long = make(tmp_path, "long-one", "d" * 1000, extra=f"when_to_use: {'w' * 537}\n")
    fine = make(tmp_path, "fine-one", "d" * 1000, extra=f"when_to_use: {'w' * 536}\n")
    [problem] = lint_library([long, fine], root=tmp_path).problems
    assert problem.render() == (
        "skills/long-one/SKILL.md:3: warning: catalog entry is 1,537 characters (description + when_to_use); "
        "Claude Code cuts it at 1,536: say when to use the skill first, move detail into the body"
    )


def test_codex_shortens_the_longest_descriptions_first() -> None:
    entries = [
        CatalogEntry(name="a", description="x" * 10, path="a/SKILL.md"),
        CatalogEntry(name="b", description="y" * 2, path="b/SKILL.md"),
    ]
    minimum = sum(e.minimum for e in entries)
    assert catalog_outcome(entries, budget=minimum + 14).shortened == []  # 10+1 and 2+1 fit exactly
    outcome = catalog_outcome(entries, budget=minimum + 13)
    assert (outcome.shortened, outcome.dropped) == (["a"], [])


def test_codex_drops_skills_in_name_order_when_even_bare_lines_do_not_fit() -> None:
    entries = [CatalogEntry(name=n, description="d", path=f"{n}/SKILL.md") for n in ("c", "a", "b")]
    one = entries[0].minimum
    outcome = catalog_outcome(entries, budget=2 * one)
    assert (outcome.dropped, outcome.shortened) == (["c"], ["a", "b", "c"])


def test_a_library_over_the_budget_warns_naming_the_skills(tmp_path: Path) -> None:
    skills = [make(tmp_path, f"skill-{i:02d}", f"Handles case {i} " + "words " * 150) for i in range(10)]
    report = lint_library(skills, root=tmp_path)
    assert report.catalog.chars > CATALOG_BUDGET_CHARS
    [problem] = [p for p in report.problems if "catalog of model-invocable" in p.message]
    assert problem.path == str(tmp_path)
    assert problem.message.startswith(
        f"the catalog of model-invocable skills is at least {report.catalog.chars:,} characters (name + description "
        "+ 14 + SKILL.md path per skill); Codex lists about 8,000 when it does not know the context window, so it "
        "shortens the descriptions of skill-00, skill-01,"
    )


def test_two_skills_with_the_same_words_collide_once(tmp_path: Path) -> None:
    a = make(tmp_path, "export-invoices", "Export invoices to CSV for the accounting team.")
    b = make(tmp_path, "invoice-export", "Export the invoices as CSV for accounting.")
    c = make(tmp_path, "weather-report", "Report the weather forecast for a city.")
    problems = lint_library([a, b, c], root=tmp_path).problems
    assert [(p.path, p.line) for p in problems] == [("skills/invoice-export/SKILL.md", 3)]
    assert problems[0].message.startswith("trigger collision: 'export-invoices' scores ")
    assert "within the matcher's margin (0.05)" in problems[0].message


def test_task_prompts_that_two_skills_tie_on_warn_at_the_task(tmp_path: Path) -> None:
    a = make(tmp_path, "fx-convert", "Convert currency amounts using exchange rates.")
    b = make(tmp_path, "expense-report", "Build an expense report from receipts.")
    probes = [
        Probe(label="task t1", prompt="convert expense", path="tasks.yaml", line=4),
        Probe(label="task t2", prompt="convert 10 usd to eur at the exchange rate", path="tasks.yaml", line=8),
    ]
    problems = lint_library([a, b], root=tmp_path, probes=probes).problems
    assert [(p.path, p.line) for p in problems] == [("tasks.yaml", 4)]
    assert problems[0].message == (
        "trigger collision on task t1: 'expense-report' 0.500 and 'fx-convert' 0.500 are within the matcher's "
        "margin (0.05), so neither fires: make their descriptions tell them apart"
    )


def test_not_model_invocable_skills_are_listed_and_left_out_of_the_catalog(tmp_path: Path) -> None:
    a = make(tmp_path, "export-invoices", "Export invoices to CSV for the accounting team.")
    b = make(
        tmp_path,
        "invoice-export",
        "Export the invoices as CSV for accounting.",
        extra="disable-model-invocation: true\n",
    )
    report = lint_library([a, b], root=tmp_path)
    assert report.problems == []  # no collision: the model never sees b in its catalog
    assert report.not_invocable == [("skills/invoice-export/SKILL.md", "disable-model-invocation: true")]
    assert report.notes() == [
        "skills/invoice-export/SKILL.md: not model-invocable (disable-model-invocation: true): "
        "only an explicit mention runs it",
        f"library: 1 of 2 skills model-invocable; catalog {report.catalog.chars:,} characters "
        "(Codex lists about 8,000 when the context window is unknown)",
    ]


def test_two_folders_with_one_name_warn(tmp_path: Path) -> None:
    a = make(tmp_path, "same", "One thing.")
    other = tmp_path / "more" / "same"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: same\ndescription: Quite another thing entirely.\n---\nB\n")
    [problem] = lint_library([a, load_skill(other)], root=tmp_path).problems
    assert problem.render() == (
        "more/same/SKILL.md: warning: skill 'same' is also at skills/same/SKILL.md: a harness lists one of them; "
        "rename or remove one"
    )
