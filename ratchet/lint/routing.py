"""The routing report: the skill each task fires under the lexical matcher, against tasks.yaml.

Why: the MinimalRunner routes before it runs, and a task that fires the wrong skill (or none)
records a golden of the wrong thing without a word: in a trial 4 of 10 tasks did, so the edited
skill's own tasks were never replayed. `ratchet record` and `ratchet validate --tasks` print this
report and refuse a misrouted task, naming its tasks.yaml line, before any trace is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field, computed_field

from ratchet.agent.trigger import MARGIN, THRESHOLD, ranked_scores
from ratchet.config.project import Project
from ratchet.core.errors import RoutingError
from ratchet.core.yamlio import item_lines
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill

_FIX = "reword the skill's description or fix the task's `skill:` in tasks.yaml"


class RoutingRow(BaseModel):
    """One task: where it sits in tasks.yaml, the skill it expects, the skill that fired and how narrowly."""

    task_id: str
    line: int | None = Field(description="1-based line of the task's entry in tasks.yaml.")
    expected: str | None = Field(description="The task's `skill:`; None for a canary (no skill should fire).")
    fired: str | None = Field(description="What the matcher fires; None when no skill clears the bar.")
    best: str | None = Field(description="The top-ranked skill, fired or not (None with no skills).")
    score: float | None = Field(description="The best score; None when the model picked (routing: model).")
    margin: float | None = Field(description="The best score over the runner-up's; None when the model picked.")
    expected_known: bool = Field(default=True, description="False when the expected skill is not in the skills folder.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ok(self) -> bool:
        """The fired skill is the expected one (compared as skill identities: NFKC)."""
        return optional_skill_key(self.fired) == optional_skill_key(self.expected)

    def problem(self) -> str:
        """What is wrong with this row, in the words of the refusal."""
        if self.score is None or self.margin is None:
            wanted = (
                f"task {self.task_id} is a canary (no skill should take it)"
                if self.expected is None
                else (f"task {self.task_id} expects skill {self.expected}")
            )
            return f"{wanted} but the model loaded {f'skill {self.fired}' if self.fired else 'no skill'}"
        numbers = f"score {self.score:.3f}, margin {self.margin:.3f}"
        if self.expected is None:
            wanted = f"task {self.task_id} is a canary (no skill should take it)"
        elif not self.expected_known:
            wanted = f"task {self.task_id} expects skill {self.expected}, which is not in the skills folder,"
        else:
            wanted = f"task {self.task_id} expects skill {self.expected}"
        if self.fired is not None:
            return f"{wanted} but skill {self.fired} fired ({numbers})"
        return f"{wanted} but no skill fired (best {self.best or 'none'}, {numbers})"


class RoutingReport(BaseModel):
    """The rows of one tasks.yaml (or of the tasks picked from it)."""

    source: str = Field(description="tasks.yaml as the user names it (relative to the project root).")
    rows: list[RoutingRow]
    by_model: bool = Field(
        default=False, description="The fired skills are what the agent model loaded (routing: model)."
    )

    @property
    def misrouted(self) -> list[RoutingRow]:
        return [row for row in self.rows if not row.ok]

    def table(self) -> str:
        """Fixed-width plain text, one line per task and a summary line; no colour, so CI logs read alike."""
        names = [(r.task_id, r.expected or "none", r.fired or "none") for r in self.rows]
        widths = [max([len(head), *(len(n[i]) for n in names)]) for i, head in enumerate(("task", "expected", "fired"))]

        def line(task: str, expected: str, fired: str, score: str, margin: str, status: str) -> str:
            return (
                f"{task:<{widths[0]}}  {expected:<{widths[1]}}  {fired:<{widths[2]}}  {score:>5}  {margin:>6}  {status}"
            ).rstrip()

        out = [line("task", "expected", "fired", "score", "margin", "")]
        out += [
            line(*n, _number(r.score), _number(r.margin), "ok" if r.ok else "MISROUTED")
            for n, r in zip(names, self.rows, strict=True)
        ]
        count = len(self.rows)
        rule = (
            "the skill the agent model loaded"
            if self.by_model
            else f"a skill fires at score >= {THRESHOLD:.2f} and margin >= {MARGIN:.2f}"
        )
        out.append(f"routing: {count} task{'' if count == 1 else 's'}, {len(self.misrouted)} misrouted ({rule})")
        return "\n".join(out)

    def refuse(self) -> None:
        """RoutingError naming the first misrouted task and its tasks.yaml line; nothing when all are routed."""
        misrouted = self.misrouted
        if not misrouted:
            return
        first = misrouted[0]
        more = len(misrouted) - 1
        others = f"; {more} more task{'' if more == 1 else 's'} misrouted (see the table)" if more else ""
        error = RoutingError(f"{first.problem()}{others}; {_FIX}", path=self.source, line=first.line)
        error.table = self.table()
        raise error


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def model_routed(report: RoutingReport, fired: Mapping[str, str | None]) -> RoutingReport:
    """`report` with each task's fired skill taken from its run (task id -> the skill the model loaded).

    Under `routing: model` the lexical matcher only predicts; what counts is what the agent loaded,
    so the rows carry no score or margin.
    """
    rows = [
        row.model_copy(
            update={"fired": fired.get(row.task_id), "best": fired.get(row.task_id), "score": None, "margin": None}
        )
        for row in report.rows
    ]
    return report.model_copy(update={"rows": rows, "by_model": True})


def route_tasks(
    tasks: Sequence[Task], skills: Mapping[str, Skill], *, lines: Sequence[int | None], source: str
) -> RoutingReport:
    """Route every task through the matcher the MinimalRunner uses; lines[i] is task i's tasks.yaml line."""
    known = {skill_key(name) for name in skills}
    rows = []
    for task, line in zip(tasks, lines, strict=True):
        ranking = ranked_scores(task.prompt, skills)
        rows.append(
            RoutingRow(
                task_id=task.id,
                line=line,
                expected=task.skill,
                fired=ranking.fired,
                best=ranking.best,
                score=ranking.score,
                margin=ranking.margin,
                expected_known=task.skill is None or skill_key(task.skill) in known,
            )
        )
    return RoutingReport(source=source, rows=rows)


def project_routing(
    project: Project, tasks: Sequence[Task] | None = None, *, skills: Mapping[str, Skill] | None = None
) -> RoutingReport:
    """The routing report of the project's tasks (all of them, or those given) under its skills (loaded unless given)."""
    path = project.path("tasks")
    every = load_tasks(path)
    at = dict(zip((task.id for task in every), item_lines(path.read_text(encoding="utf-8"), "tasks"), strict=False))
    chosen = every if tasks is None else list(tasks)
    skills = load_skills(project.path("skills")) if skills is None else skills
    return route_tasks(chosen, skills, lines=[at.get(task.id) for task in chosen], source=project.config.paths.tasks)
