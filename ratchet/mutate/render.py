"""A mutation report as JSON and as Markdown, byte-stable for the same project and seed.

The Markdown leads with the score per skill and per class (killed over checked), then every mutant with
its diff: the survivors first, since each is a test the team should add, then the killed ones with the
golden that caught them, then those the run could not check. User text (reasons, descriptions) is
escaped (ratchet.outputs.text); a diff sits in a fence no run of backticks inside it can close.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ratchet.core.jsonio import canonical_dumps
from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.mutate.models import MUTANT_CLASSES, MutantOutcome, MutationReport, SkillScore
from ratchet.outputs.text import code_block, md_inline

__all__ = ["render_json", "render_markdown", "render_summary", "score_text"]

_NONE = "-"
_TICKS = re.compile(r"`+")
_INTRO = (
    "Each mutant is one deliberate breakage of a skill, checked as an edit by the normal check. "
    "**Killed**: a replayed golden noticed it (the check said WARN or BLOCK because of a pair). "
    "**Survived**: no golden noticed it; each survivor is a test worth adding (docs/mutate.md)."
)


def render_json(report: MutationReport) -> str:
    """The report as canonical JSON (sorted keys, a trailing newline); what this run spent is not in it."""
    return canonical_dumps(report.model_dump(mode="json"))


def score_text(killed: int, checked: int) -> str:
    """`50% (1/2)`, rounded half up; `-` when nothing was checked."""
    if checked == 0:
        return _NONE
    return f"{(200 * killed + checked) // (2 * checked)}% ({killed}/{checked})"


def render_summary(report: MutationReport) -> str:
    """The terminal's view: the heading, the score table and notes, and one line per survivor."""
    lines = _head(report)
    survivors = [o for o in report.outcomes if o.status == "survived"]
    if survivors:
        lines += ["", f"Survived ({len(survivors)}): the tests to add (--out DIR writes each one's diff)", ""]
        lines += [f"- {_title(o)}: {md_inline(o.reason)}" for o in survivors]
    return "\n".join(lines) + "\n"


def render_markdown(report: MutationReport) -> str:
    """The whole report: the score, then every mutant with its reason and diff."""
    lines = _head(report)
    sections = (
        ("Survived: the tests to add", ("survived",)),
        ("Killed", ("killed",)),
        ("Not checked", ("error", "unchecked")),
    )
    for heading, statuses in sections:
        chosen = [o for o in report.outcomes if o.status in statuses]
        if chosen:
            lines += ["", f"## {heading}"]
            for outcome in chosen:
                lines += ["", *_mutant_lines(outcome)]
    return "\n".join(lines) + "\n"


def _head(report: MutationReport) -> list[str]:
    lines = [f"# Mutation score of the goldens at `{report.base[:10]}`", ""]
    if report.simulated:
        lines += [f"> {SIMULATED_CHECK_BANNER}", ""]
    lines += [_INTRO, "", *_table(report.skills), ""]
    blind = [(s.skill, s.unfollowed) for s in report.skills if s.unfollowed]
    if blind:  # a low score here says what the simulator could not do, not only what the goldens miss
        lines += ["What the simulator could not measure:", *(f"- {md_inline(n)}: {md_inline(w)}" for n, w in blind), ""]
    notes = [f"Seed {report.seed}; worst-case estimate before the run ${report.estimate_usd:.4f}."]
    if report.dropped_equivalent:
        notes.append(
            f"{report.dropped_equivalent} equivalent mutant(s) dropped before running (no change after normalisation)."
        )
    if report.stopped is not None:
        notes.append(f"Stopped: {md_inline(report.stopped)}")
    if report.provenance is not None:
        notes.append(f"Not like for like: {md_inline(report.provenance)}")
    return lines + notes


def _table(skills: Sequence[SkillScore]) -> list[str]:
    apart = any(s.errors or s.unchecked for s in skills)
    columns = ["skill", "score", "killed", "survived", *(["error", "unchecked"] if apart else []), *MUTANT_CLASSES]
    rows = [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}"]
    for name, row in [(md_inline(s.skill), [s]) for s in skills] + [("all", list(skills))]:
        killed, survived = sum(s.killed for s in row), sum(s.survived for s in row)
        cells = [name, score_text(killed, killed + survived), str(killed), str(survived)]
        if apart:
            cells += [str(sum(s.errors for s in row)), str(sum(s.unchecked for s in row))]
        for cls in MUTANT_CLASSES:
            found = [c for s in row for c in s.by_class if c.mutant_class == cls]
            cls_killed, cls_checked = sum(c.killed for c in found), sum(c.checked for c in found)
            cells.append(f"{cls_killed}/{cls_checked}" if found and cls_checked else _NONE)
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def _title(outcome: MutantOutcome) -> str:
    mutant = outcome.mutant
    return f"{_code(mutant.id)} · {mutant.mutant_class} · {md_inline(mutant.operator)}"


def _mutant_lines(outcome: MutantOutcome) -> list[str]:
    mutant = outcome.mutant
    decided = f" ({outcome.decision})" if outcome.decision is not None else ""
    lines = [
        f"### {_title(outcome)}",
        "",
        md_inline(mutant.description),
        "",
        f"{outcome.status}{decided}: {md_inline(outcome.reason)}",
    ]
    if mutant.diff:
        lines += ["", code_block(mutant.diff, "diff")]
    return lines


def _code(text: str) -> str:
    """Inline code no run of backticks inside `text` can close."""
    longest = max((len(run) for run in _TICKS.findall(text)), default=0)
    pad = " " if longest else ""
    return f"{'`' * (longest + 1)}{pad}{text}{pad}{'`' * (longest + 1)}"
