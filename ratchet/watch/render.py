"""`ratchet watch`'s report on a terminal (rich; plain text when not a terminal) and as JSON."""

from __future__ import annotations

from collections import defaultdict

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ratchet.core.labels import SIMULATED
from ratchet.outputs.grouping import compact_ids
from ratchet.watch.models import ReplayOutcome, SkillWatch, WatchReport

SIMULATED_WATCH_BANNER = (
    f"{SIMULATED} — the offline simulator answered, not your model; for a live watch set upstream: live in ratchet.yaml"
)
_SHOWN_PARTS = 3


def render_json(report: WatchReport) -> str:
    return report.model_dump_json(indent=2) + "\n"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def _untested(skill: SkillWatch) -> str:
    if skill.world and not skill.errors:
        return "not tested: every replay was world drift"
    if skill.errors and not skill.world:
        return "not tested: every replay failed"
    return "not tested: every replay was world drift or failed" if skill.world else "not tested: no replay counted"


def _cannot_tell(skill: SkillWatch) -> str:
    """Why a skill's counts could not have been flagged, and what would have let them."""
    if skill.needs_repeats is not None:
        return f"needs --repeats {skill.needs_repeats}"
    return f"no --repeats can beat {skill.noise_differed} of {skill.noise_repeats} in its noise records"


def undecided_why(skill: SkillWatch) -> str:
    """Why this run cannot tell whether a skill's behaviour moved (it is named, never left quiet)."""
    return _untested(skill) if skill.p_value is None else _cannot_tell(skill)


def _result(skill: SkillWatch) -> str:
    if skill.p_value is None:
        return _untested(skill)
    if skill.moved:
        return "[bold red]moved[/bold red]"
    if not skill.could_flag:
        more = _cannot_tell(skill).replace("needs --repeats", "needs more repeats: --repeats")
        return f"cannot tell with these counts ({more})"
    return "within noise"


def moved_line(skill: SkillWatch) -> str:
    """Why one skill is flagged: the two rates and the test."""
    new = f"; new: {'; '.join(skill.new_parts[:_SHOWN_PARTS])}" if skill.new_parts else ""
    more = f" and {len(skill.new_parts) - _SHOWN_PARTS} more" if len(skill.new_parts) > _SHOWN_PARTS else ""
    return (
        f"{skill.skill}: {skill.differed} of {skill.replays} replays differed from their goldens, against "
        f"{skill.noise_differed} of {skill.noise_repeats} in their noise records "
        f"(p={_p(skill.p_value)}, Holm-adjusted {_p(skill.adjusted_p)}){new}{more}"
    )


def _undecided(report: WatchReport) -> str:
    by_name = {skill.skill: skill for skill in report.skills}
    return ", ".join(f"{name} ({undecided_why(by_name[name])})" for name in report.undecided)


def headline(report: WatchReport) -> str:
    """MOVED, INCOMPLETE (replays did not run), CANNOT TELL (a watched skill this run could not have flagged)
    or QUIET: only when every watched skill was tested, could have been flagged, and was not."""
    tested = sum(1 for skill in report.skills if skill.p_value is not None)
    if report.moved:
        return f"MOVED  the model's behaviour moved: {', '.join(report.moved)}"
    missing = sum(1 for replay in report.replays if replay.kind in ("error", "stopped"))
    untold = f"; cannot tell: {_undecided(report)}" if report.undecided else ""
    if missing:
        return (
            f"INCOMPLETE  no skill's behaviour moved in the replays that ran, but {missing} of "
            f"{len(report.replays)} did not run ({tested} skill(s) tested at alpha {report.alpha:g}){untold}"
        )
    if report.undecided:
        return (
            f"CANNOT TELL  no skill's behaviour moved, but this run could not have flagged {len(report.undecided)} "
            f"of {len(report.skills)} watched skill(s): {_undecided(report)}"
        )
    return f"QUIET  no skill's behaviour moved beyond its noise records ({tested} skill(s) tested at alpha {report.alpha:g})"


def _world_lines(world: list[ReplayOutcome]) -> list[str]:
    by_task: dict[str, list[ReplayOutcome]] = defaultdict(list)
    for replay in world:
        by_task[replay.task_id].append(replay)
    return [f"{task}: {len(replays)} replay(s), {replays[0].detail}" for task, replays in sorted(by_task.items())]


def render_report(report: WatchReport, console: Console) -> None:
    if report.simulated:
        console.print(f"[dim]{SIMULATED_WATCH_BANNER}[/dim]", highlight=False)
    models = report.models
    if models.changed:
        console.print(
            f"[bold yellow]model changed:[/bold yellow] the agent answered as {escape(', '.join(models.changed))}; "
            f"the goldens were recorded with {escape(', '.join(models.goldens) or 'unknown')}, their noise measured "
            f"with {escape(', '.join(models.noise) or 'unknown')}",
            highlight=False,
        )
    goldens = sum(len(skill.goldens) for skill in report.skills)
    console.print(
        f"ratchet watch  {goldens} golden(s) of {len(report.skills)} skill(s) x {report.repeats} repeats"
        f" · agent {escape(', '.join(models.answered) or 'none answered')}",
        highlight=False,
    )
    table = Table(box=box.SIMPLE, pad_edge=False, show_edge=False)
    for column in ("skill", "watch differed", "noise differed", "p (Holm)", "result"):
        # Skill names stay whole on a narrow terminal; the result (the longest text) wraps instead.
        table.add_column(column, no_wrap=column != "result")
    for skill in report.skills:
        aside = f" +{skill.world} world" if skill.world else ""
        aside += f" +{skill.errors} not run" if skill.errors else ""
        table.add_row(
            escape(skill.skill),
            f"{skill.differed}/{skill.replays}{aside}",
            f"{skill.noise_differed}/{skill.noise_repeats}",
            f"{_p(skill.p_value)} ({_p(skill.adjusted_p)})",
            _result(skill),
        )
    console.print(table)
    world = report.world
    if world:
        console.print(
            f"[bold yellow]world drift:[/bold yellow] {len(world)} replay(s) left out of the model's count: the "
            "mocked world answered otherwise than when the goldens were recorded (the world moved, not the model; "
            "re-record and bless them)",
            highlight=False,
        )
        for line in _world_lines(world):
            console.print(f"  {escape(line)}", highlight=False)
    failed = report.failed
    if failed:
        console.print(
            f"[bold yellow]failed:[/bold yellow] {len(failed)} replay(s), first {failed[0].task_id}: "
            f"{escape(failed[0].detail)}",
            highlight=False,
        )
    if report.stopped is not None:
        console.print(f"[bold yellow]stopped:[/bold yellow] {escape(report.stopped)}", highlight=False)
    by_why: dict[str, list[str]] = defaultdict(list)
    for item in report.not_watched:
        by_why[
            f"{item.why}: {item.detail}"
            if item.why in ("skill changed", "task gone", "noise record of another model")
            else item.why
        ].append(item.task_id)
    for why, ids in by_why.items():
        console.print(f"not watched ({escape(why)}): {', '.join(compact_ids(ids))}", highlight=False)
    style = (
        "bold red"
        if report.moved
        else "bold yellow"
        if report.failed or report.stopped or report.undecided
        else "bold green"
    )
    first, rest = headline(report).split("  ", 1)
    console.print(f"[{style}]{first}[/{style}]  {escape(rest)}", highlight=False)
    for skill in report.skills:
        if skill.moved:
            console.print(f"  {escape(moved_line(skill))}", highlight=False)
    console.print(
        f"cost ${report.cost_usd:.6f} (estimate ${report.estimate_usd:.4f}) · {len(report.replays)} replays",
        highlight=False,
    )
