"""Lints of a skill library as a whole: catalog budgets, cut entries and trigger collisions.

Why: each SKILL.md can be valid while the library fails where a harness lists it. The model
picks skills from a catalog of names and descriptions, and the harnesses cap it:

- Claude Code cuts one entry (description, plus `when_to_use` appended to it) at 1,536
  characters: CLAUDE_ENTRY_LIMIT.
- Codex budgets the whole listing: 2% of the context window, or CATALOG_BUDGET_CHARS (8,000)
  characters when it does not know the window. Each model-invocable skill is one line
  `- <name>: <description> (file: <path to SKILL.md>)` plus its newline: name + description +
  CATALOG_LINE_OVERHEAD (14) + the path. Ratchet counts the path relative to where validate
  runs; Codex writes it absolute, so the real listing is longer and this count is a floor.
  Over budget, Codex (codex-rs/core-skills/src/render.rs) first shortens descriptions, sharing
  the room a character at a time so the longest lose most; when even name-and-path lines do not
  fit, it removes every description and keeps skills in name order while they fit, dropping the
  rest. catalog_outcome replays that to name the skills affected.
- Two skills whose descriptions cover the same words route the same prompts: the trigger
  matcher (ratchet.agent.trigger) fires neither when their scores are within MARGIN. Each
  skill's own name and description is the probe (and each task prompt, when there are tasks).

Skills the model may not pick itself (Skill.model_invocable) are not in any catalog, so they
count for none of this; the report lists them instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.agent.trigger import MARGIN, THRESHOLD, route_scores
from ratchet.core.yamlio import item_lines
from ratchet.goldens.tasks import load_tasks
from ratchet.skills.discovery import SKILL_FILE
from ratchet.skills.names import skill_key
from ratchet.skills.problems import Problem
from ratchet.skills.skill import Skill

CLAUDE_ENTRY_LIMIT = 1536
CATALOG_BUDGET_CHARS = 8000
CATALOG_LINE_OVERHEAD = len("- ") + len(": ") + len(" (file: ") + len(")") + len("\n")
_TRUE = frozenset({"true", "True", "TRUE"})


class Probe(BaseModel):
    """A prompt to route through the library: a task from tasks.yaml, with where it is written."""

    label: str = Field(description="How messages name it, e.g. 'task fx-convert'.")
    prompt: str
    path: str
    line: int | None = None


class CatalogEntry(BaseModel):
    """One model-invocable skill's line in Codex's listing."""

    name: str
    description: str
    path: str = Field(description="The SKILL.md path the entry points at (relative where possible).")

    @property
    def minimum(self) -> int:
        """Characters of the line with no description: `- name: (file: path)` and its newline."""
        return len(f"- {self.name}: (file: {self.path})") + 1

    @property
    def full(self) -> int:
        return self.minimum + (len(self.description) + 1 if self.description else 0)


class CatalogOutcome(BaseModel):
    """What Codex's listing does to a library: its size, and the skills it shortens or drops."""

    chars: int = Field(description="The full listing in characters (a floor: see the module docstring).")
    shortened: list[str] = Field(default_factory=list, description="Skills whose descriptions Codex shortens.")
    dropped: list[str] = Field(default_factory=list, description="Skills Codex leaves out of the listing.")


class LibraryReport(BaseModel):
    """Every library-level problem, and the skills no catalog lists."""

    problems: list[Problem]
    not_invocable: list[tuple[str, str]] = Field(description="(SKILL.md path, why the model may not pick it).")
    skills: int
    catalog: CatalogOutcome

    def notes(self) -> list[str]:
        """Lines for `validate --library` besides the problems."""
        lines = [
            f"{path}: not model-invocable ({why}): only an explicit mention runs it" for path, why in self.not_invocable
        ]
        invocable = self.skills - len(self.not_invocable)
        lines.append(
            f"library: {invocable} of {self.skills} skills model-invocable; catalog {self.catalog.chars:,} "
            f"characters (Codex lists about {CATALOG_BUDGET_CHARS:,} when the context window is unknown)"
        )
        return lines


def _skill_md(skill: Skill, root: Path) -> str:
    path = Path(skill.folder) / SKILL_FILE
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def catalog_outcome(entries: Sequence[CatalogEntry], budget: int = CATALOG_BUDGET_CHARS) -> CatalogOutcome:
    """Codex's listing of these entries under a character budget (render.rs, replayed)."""
    ordered = sorted(entries, key=lambda e: (e.name, e.path))
    full = sum(e.full for e in ordered)
    if full <= budget:
        return CatalogOutcome(chars=full)
    minimum = sum(e.minimum for e in ordered)
    if minimum > budget:
        used, dropped = 0, []
        for entry in ordered:
            if used + entry.minimum <= budget:
                used += entry.minimum
            else:
                dropped.append(entry.name)
        return CatalogOutcome(chars=full, shortened=[e.name for e in ordered if e.description], dropped=dropped)
    remaining = budget - minimum
    shown = [0] * len(ordered)
    changed = True
    while changed:  # one character per skill per round; the first one also pays for its space
        changed = False
        for index, entry in enumerate(ordered):
            if shown[index] >= len(entry.description):
                continue
            cost = 2 if shown[index] == 0 else 1
            if cost <= remaining:
                shown[index] += 1
                remaining -= cost
                changed = True
    shortened = [e.name for e, n in zip(ordered, shown, strict=True) if n < len(e.description)]
    return CatalogOutcome(chars=full, shortened=shortened)


def _why_not_invocable(skill: Skill) -> str:
    flag = skill.frontmatter.get("disable-model-invocation")
    if isinstance(flag, str) and flag.strip() in _TRUE:
        return "disable-model-invocation: true"
    return "agents/openai.yaml policy.allow_implicit_invocation: false"


def _entry_problems(skills: Sequence[Skill], root: Path) -> list[Problem]:
    problems = []
    for skill in skills:
        extra = skill.frontmatter.get("when_to_use")
        length = len(skill.description) + (len(extra) if isinstance(extra, str) else 0)
        if length > CLAUDE_ENTRY_LIMIT:
            what = "description + when_to_use" if isinstance(extra, str) else "description"
            problems.append(
                Problem(
                    path=_skill_md(skill, root),
                    line=skill.key_lines.get("description"),
                    severity="warning",
                    message=f"catalog entry is {length:,} characters ({what}); Claude Code cuts it at "
                    f"{CLAUDE_ENTRY_LIMIT:,}: say when to use the skill first, move detail into the body",
                )
            )
    return problems


def _collisions(invocable: dict[str, Skill], root: Path, probes: Sequence[Probe]) -> list[Problem]:
    problems = []
    pairs: set[tuple[str, str]] = set()
    for name, skill in sorted(invocable.items()):
        scores = route_scores(skill.name.replace("-", " ") + " " + skill.description, invocable)
        for other, score in sorted(scores.items()):
            pair = (min(name, other), max(name, other))
            if other == name or score < THRESHOLD or scores[name] - score >= MARGIN or pair in pairs:
                continue
            pairs.add(pair)
            problems.append(
                Problem(
                    path=_skill_md(skill, root),
                    line=skill.key_lines.get("description"),
                    severity="warning",
                    message=f"trigger collision: '{other}' scores {score:.3f} on this skill's own name and description, "
                    f"within the matcher's margin ({MARGIN}) of its {scores[name]:.3f}: a prompt meant for one "
                    "may fire the other or neither; make each description say where it stops",
                )
            )
    for probe in probes:
        ranked = sorted(route_scores(probe.prompt, invocable).items(), key=lambda item: (-item[1], item[0]))
        if len(ranked) > 1 and ranked[1][1] >= THRESHOLD and ranked[0][1] - ranked[1][1] < MARGIN:
            (first, a), (second, b) = ranked[0], ranked[1]
            problems.append(
                Problem(
                    path=probe.path,
                    line=probe.line,
                    severity="warning",
                    message=f"trigger collision on {probe.label}: '{first}' {a:.3f} and '{second}' {b:.3f} are within "
                    f"the matcher's margin ({MARGIN}), so neither fires: make their descriptions tell them apart",
                )
            )
    return problems


def _duplicates(skills: Sequence[Skill], root: Path) -> list[Problem]:
    by_key: dict[str, list[Skill]] = {}
    for skill in skills:
        by_key.setdefault(skill_key(skill.name), []).append(skill)
    problems = []
    for key, same in sorted(by_key.items()):
        if len(same) > 1:
            paths = [_skill_md(s, root) for s in same]
            problems.append(
                Problem(
                    path=paths[1],
                    severity="warning",
                    message=f"skill '{key}' is also at {paths[0]}: a harness lists one of them; rename or remove one",
                )
            )
    return problems


def lint_library(skills: Sequence[Skill], *, root: Path, probes: Sequence[Probe] = ()) -> LibraryReport:
    """The library-level problems of these skills (paths shown relative to root), sorted."""
    invocable = {skill_key(s.name): s for s in skills if s.model_invocable}
    entries = [
        CatalogEntry(name=s.name, description=s.description, path=_skill_md(s, root)) for s in invocable.values()
    ]
    catalog = catalog_outcome(entries)
    problems = _entry_problems(skills, root) + _collisions(invocable, root, probes) + _duplicates(skills, root)
    if catalog.dropped or catalog.shortened:
        what = (
            f"removes every description and drops {', '.join(catalog.dropped)}"
            if catalog.dropped
            else f"shortens the descriptions of {', '.join(catalog.shortened)}"
        )
        problems.append(
            Problem(
                path=str(root),
                severity="warning",
                message=f"the catalog of model-invocable skills is at least {catalog.chars:,} characters (name + description "
                f"+ {CATALOG_LINE_OVERHEAD} + SKILL.md path per skill); Codex lists about {CATALOG_BUDGET_CHARS:,} "
                f"when it does not know the context window, so it {what}",
            )
        )
    not_invocable = sorted((_skill_md(s, root), _why_not_invocable(s)) for s in skills if not s.model_invocable)
    return LibraryReport(
        problems=sorted(problems, key=Problem.sort_key),
        not_invocable=not_invocable,
        skills=len(skills),
        catalog=catalog,
    )


def task_probes(tasks_file: Path, *, shown: str) -> list[Probe]:
    """Every task of a tasks.yaml as a Probe, located at its entry's line (messages name `shown`)."""
    tasks = load_tasks(tasks_file)
    lines = item_lines(tasks_file.read_text(encoding="utf-8"), "tasks")
    return [
        Probe(label=f"task {task.id}", prompt=task.prompt, path=shown, line=lines[i] if i < len(lines) else None)
        for i, task in enumerate(tasks)
    ]
