"""Terminal rendering of verdicts (rich tables; plain text when not a terminal)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ratchet import SIMULATED_BANNER
from ratchet.gate.verdict import Verdict

_STYLE = {"PASS": "bold green", "WARN": "bold yellow", "BLOCK": "bold red"}


def short(rev: str) -> str:
    return rev if rev.startswith("<") else rev[:10]


def render_verdict(verdict: Verdict, console: Console) -> None:
    if verdict.simulated:
        console.print(f"[dim]{SIMULATED_BANNER}[/dim]")
    console.print(f"ratchet check  {short(verdict.base)} -> {short(verdict.head)}")
    console.print(f"skills changed: {', '.join(verdict.skills_changed) or 'none'}")
    if verdict.pairs:
        table = Table(show_lines=False, pad_edge=False)
        table.add_column("task")
        table.add_column("selected")
        table.add_column("outcome")
        table.add_column("by")
        table.add_column("evidence", overflow="fold")
        for pair in verdict.pairs:
            evidence = pair.reason
            table.add_row(pair.task_id, pair.selected_because, pair.outcome, pair.decided_by, evidence)
        console.print(table)
    console.print(
        f"[{_STYLE[verdict.decision]}]{verdict.decision}[/{_STYLE[verdict.decision]}]  {verdict.summary}",
        highlight=False,
    )
    console.print(
        f"cost ${verdict.cost_usd:.6f} · {len(verdict.pairs)} of {verdict.goldens_total} goldens replayed"
        f" · {verdict.wall_ms / 1000:.1f} s",
        highlight=False,
    )
