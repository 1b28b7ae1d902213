"""The trigger report as text (the terminal table) and as JSON (`ratchet triggers --json`).

Plain text, no colour: the table is read in a terminal and pasted into issues alike. On the
simulator the first line says so: simulated rates show the pipeline works, they are no results.
"""

from __future__ import annotations

from ratchet.core.jsonio import canonical_dumps
from ratchet.core.labels import SIMULATED
from ratchet.triggers.rates import QueryRate, Rate, SkillRates, TriggerReport

SIMULATED_TRIGGERS_BANNER = (
    f"{SIMULATED} — the offline simulator routed these queries, not your model; "
    "for live rates set upstream: live in ratchet.yaml"
)
PROMPT_CHARS = 60
ERROR_LINES = 5
"""Queries whose errors the table names one line each; --json has them all."""


def _want(query: QueryRate) -> str:
    if query.skill is None:
        return "none"
    return "fire" if query.should_fire else "not"


def _rate(rate: Rate) -> str:
    return rate.text() if rate.n else "-"


def _prompt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PROMPT_CHARS else flat[: PROMPT_CHARS - 3] + "..."


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    return [
        "  ".join([*(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)), row[-1]]).rstrip()
        for row in [header, *rows]
    ]


def _skill_row(skill: SkillRates) -> list[str]:
    return [
        skill.skill if skill.skill is not None else "(canary)",
        _rate(skill.recall),
        _rate(skill.false_fire),
        str(skill.errors),
    ]


def render_text(report: TriggerReport) -> str:
    """The report as the terminal shows it, ending in a newline."""
    lines = [SIMULATED_TRIGGERS_BANNER] if report.simulated else []
    routing = f", routing {report.routing}" if report.harness == "minimal" else ""
    lines.append(
        f"trigger queries: {len(report.queries)}, {report.repeats} run(s) each, harness {report.harness}{routing}"
    )
    rows = [[q.id, q.skill or "-", _want(q), q.fire.text(), str(q.errors), _prompt(q.prompt)] for q in report.queries]
    lines += _table(["query", "skill", "want", "fires (95% CI)", "errors", "prompt"], rows)
    lines.append("")
    skills = [_skill_row(skill) for skill in report.skills]
    lines += _table(["skill", "recall (should fire)", "false fires (should not fire)", "errors"], skills)
    money = "simulated $" if report.simulated else "$"
    lines.append(f"spent {money}{report.cost_usd:.4f} (estimate {money}{report.estimate_usd:.4f})")
    if report.stopped is not None:
        lines.append(f"stopped: {report.stopped}")
    for query in report.queries:
        if query.first_error is not None:
            lines.append(
                f"error: {query.id}: {query.errors} run(s) did not run to a decision, first: {query.first_error}"
            )
    return "\n".join(lines) + "\n"


def render_json(report: TriggerReport) -> str:
    return canonical_dumps(report.model_dump(mode="json"))
