"""Terminal rendering of verdicts (rich tables; plain text when not a terminal)."""

from __future__ import annotations

from collections import Counter

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.outputs.edit_diff import diff_lines
from ratchet.outputs.evidence import evidence_lines
from ratchet.outputs.grouping import SEVERITY_ORDER, compact_ids, finding_label, group_pairs
from ratchet.outputs.model_change import model_change_lines
from ratchet.outputs.notes import note_label
from ratchet.outputs.triggers import COLUMNS, trigger_header, trigger_rows
from ratchet.skills.names import optional_skill_key

_STYLE = {"PASS": "bold green", "WARN": "bold yellow", "BLOCK": "bold red"}


def short(rev: str) -> str:
    return rev if rev.startswith("<") else rev[:10]


def routing_evidence(pair: PairOutcome) -> str:
    """`golden skill -> replay skill · ` when the replay fired another skill, else ''.

    Why: a routing change was only in `--json`, so a reviewer read a judge's reason for a replay
    that never ran the skill the golden did.
    """
    moved = optional_skill_key(pair.golden_skill) != optional_skill_key(pair.replay_skill)
    if not moved and not any(f.kind == "routing_changed" for f in pair.findings):
        return ""
    return f"{pair.golden_skill or 'no skill'} -> {pair.replay_skill or 'no skill'} · "


def row_key(pair: PairOutcome) -> tuple[str, str, str, tuple[str, ...]]:
    """Pairs that share this key share a table row: same outcome, decider, routing and findings.

    Why: a finding's detail carries each task's values (the new call's arguments), so one added
    call read as 9 near-identical rows; the findings' task-independent labels group them, and a
    pair with no finding groups by its reason.
    """
    # Hard fails lead (a new payment reads before the final state it changed), then the rest by name.
    ranked = sorted({(SEVERITY_ORDER.get(f.severity, 3), finding_label(f)) for f in pair.findings})
    labels = tuple(dict.fromkeys(label for _, label in ranked)) or (pair.reason,)
    return pair.outcome, pair.decided_by, routing_evidence(pair), labels


def grouped_evidence(pairs: list[PairOutcome]) -> str:
    """One pair: its evidence as always. Several: the reason if they share it, else the findings
    they share, then every task they hit (folded: fx-01..09)."""
    first = pairs[0]
    if len(pairs) == 1:
        return routing_evidence(first) + first.reason
    if len({p.reason for p in pairs}) == 1:
        said = first.reason
    else:
        said = "; ".join(row_key(first)[3]) + " (details differ per task: --format markdown shows each)"
    return f"{routing_evidence(first)}{said} · {', '.join(compact_ids(p.task_id for p in pairs))}"


def render_verdict(verdict: Verdict, console: Console) -> None:
    if verdict.harness_untested is not None:  # first: every line below came through a release never tested
        console.print(f"[bold yellow]{escape(verdict.harness_untested)}[/bold yellow]", highlight=False)
    if verdict.simulated:
        console.print(f"[dim]{SIMULATED_CHECK_BANNER}[/dim]")
    # What the gate could not check comes first: a reviewer must not have to read to the end for it.
    style = _STYLE[verdict.decision]
    if verdict.settings_changed:
        console.print(
            f"[{style}]settings changed: {escape(', '.join(verdict.settings_changed))}[/{style}]"
            " (checked with the base's settings)",
            highlight=False,
        )
    for line in evidence_lines(verdict):
        label = escape(line.label) + ":"
        console.print(
            f"{label if line.level == 'note' else f'[{style}]{label}[/{style}]'} {escape(line.text)}", highlight=False
        )
    for path in verdict.submodules_changed:
        console.print(
            f"[{style}]submodule changed: {escape(path)}[/{style}] (Ratchet cannot see inside it)", highlight=False
        )
    for note in (n for n in verdict.unseen if n.level == "warn"):
        console.print(f"[{style}]not checked:[/{style}] {escape(note.detail)}", highlight=False)
    console.print(f"ratchet check  {short(verdict.base)} -> {short(verdict.head)}")
    console.print(f"skills changed: {', '.join(verdict.skills_changed) or 'none'}")
    # A change of the agent is gated like a skill edit: per skill what its replays came to (ratchet.gate.model_change).
    for said in model_change_lines(verdict.model_change):
        console.print(escape(said), highlight=False)
    # What the edit changes, read without a model, leads the evidence (ratchet.outputs.edit_diff).
    for change in diff_lines(verdict):
        console.print(
            f"{f'[{style}]diff:[/{style}]' if change.level == 'warn' else 'diff:'} {escape(str(change))}",
            highlight=False,
        )
    if verdict.triggers is not None:
        _render_triggers(verdict, console)
    if verdict.pairs:
        table = Table(box=box.SIMPLE, pad_edge=False, show_edge=False)
        table.add_column("task", no_wrap=True)
        table.add_column("outcome", no_wrap=True)
        table.add_column("evidence", overflow="fold")
        same = [p for p in verdict.pairs if p.outcome == "same"]
        for (outcome, decided_by, *_), pairs in group_pairs([p for p in verdict.pairs if p.outcome != "same"], row_key):
            task = pairs[0].task_id if len(pairs) == 1 else f"{len(pairs)} tasks"
            table.add_row(escape(task), f"{outcome} ({decided_by})", escape(grouped_evidence(pairs)))
        if same:
            blind = sorted({n.skill for n in verdict.unseen if n.kind == "unfollowed" and n.level == "warn"})
            # Identical replays of a skill the simulator could not follow are no evidence about the edit.
            caveat = f"; the simulator could not follow {', '.join(blind)}, so this says nothing" if blind else ""
            table.add_row(f"{len(same)} more", "same", f"identical to the golden{caveat}")
        console.print(table)
    for note in (n for n in verdict.unseen if n.level == "note"):
        console.print(f"{note_label(note.kind)}: {escape(note.detail)}", highlight=False)
    console.print(
        f"[{_STYLE[verdict.decision]}]{verdict.decision}[/{_STYLE[verdict.decision]}]  {verdict.summary}",
        highlight=False,
    )
    deciders = Counter(p.decided_by for p in verdict.pairs if p.outcome != "same")
    if deciders:
        console.print("decided by: " + ", ".join(f"{who} x{n}" for who, n in sorted(deciders.items())), highlight=False)
    console.print(
        f"cost ${verdict.cost_usd:.6f} · {len(verdict.pairs)} of {verdict.goldens_total} goldens replayed"
        f" · {verdict.wall_ms / 1000:.1f} s",
        highlight=False,
    )


def _render_triggers(verdict: Verdict, console: Console) -> None:
    """The trigger queries run at base and head (ratchet.gate.triggers): a header, then a row per query that moved."""
    assert verdict.triggers is not None
    console.print(escape(trigger_header(verdict.triggers)), highlight=False)
    rows = trigger_rows(verdict.triggers)
    if not rows:
        return
    table = Table(box=box.SIMPLE, pad_edge=False, show_edge=False)
    for column in COLUMNS:
        # The query and what it expects take what the numbers leave (the numbers and the outcome are never cut);
        # a long prompt is clipped (the whole prompt is in the JSON, the Markdown and the review page).
        wide = column in ("query", "expects")
        table.add_column(
            column, overflow="fold", no_wrap=not wide, min_width=14 if wide else None, ratio=1 if wide else None
        )
    for row in rows:
        query, *rest = row
        # Text, not markup: a query id like `github-triage:fire:1` is no emoji code (rich would print a flame).
        table.add_row(Text(_clipped(query, 100)), *(Text(cell) for cell in rest))
    console.print(table)


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
