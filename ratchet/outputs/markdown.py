"""A verdict as Markdown for a pull-request comment or a CI job summary (docs/outputs.md).

Order is the reviewer's: the decision first, what was not checked right after it, what the edit
changes (the behavioural diff, ratchet.outputs.edit_diff), one row per distinct finding (the tasks it hit collapsed), cost and time, then one collapsible block of evidence
per pair that differs. Every piece of user text is escaped (ratchet.outputs.text).
"""

from __future__ import annotations

from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.gate.models import DriftEvidence, Finding, Opinion, PairOutcome, Verdict
from ratchet.outputs.edit_diff import diff_lines
from ratchet.outputs.evidence import evidence_lines
from ratchet.outputs.grouping import collapse_ids, finding_groups
from ratchet.outputs.model_change import model_change_lines
from ratchet.outputs.notes import note_label
from ratchet.outputs.text import code_block, html_inline, md_inline
from ratchet.outputs.triggers import COLUMNS, trigger_header, trigger_rows

_MARK = {"PASS": "✅", "WARN": "⚠️", "BLOCK": "❌"}
_CALL_KINDS = {
    "new_side_effect": "+", "repeated_after_lost_reply": "+", "call_added": "+", "call_removed": "-",
    "args_changed": "!", "call_moved": "~",
}  # fmt: skip
OUTPUTS_NOT_CARRIED = "The verdict does not carry the golden's and the replay's final outputs; Level 0 compared them:"


def short(rev: str) -> str:
    """A revision as a reviewer reads it: 10 hex digits, or `<index>` for --staged."""
    return rev if rev.startswith("<") else rev[:10]


def decision_line(verdict: Verdict) -> str:
    """`❌ **Ratchet: BLOCK** · summary · base → head`: the line a reviewer reads first (with a harness release
    outside the tested range named at its end)."""
    untested = f" · ⚠️ {md_inline(verdict.harness_untested)}" if verdict.harness_untested is not None else ""
    return (
        f"{_MARK[verdict.decision]} **Ratchet: {verdict.decision}** · {md_inline(verdict.summary)}"
        f" · `{short(verdict.base)}` → `{short(verdict.head)}`{untested}"
    )


def not_checked_lines(verdict: Verdict) -> list[str]:
    """What the gate could not check, and the evidence the edit changes, as list items (the same lines
    the terminal prints first)."""
    lines = []
    if verdict.settings_changed:
        lines.append(
            f"- **settings changed:** {md_inline(', '.join(verdict.settings_changed))}"
            " (checked with the base's settings)"
        )
    lines += [f"- **{md_inline(line.label)}:** {md_inline(line.text)}" for line in evidence_lines(verdict)]
    lines += [
        f"- **submodule changed:** {md_inline(path)} (Ratchet cannot see inside it)"
        for path in verdict.submodules_changed
    ]
    lines += [f"- **not checked:** {md_inline(note.detail)}" for note in verdict.unseen if note.level == "warn"]
    return lines


def agent_list(verdict: Verdict) -> list[str]:
    """A change of the agent (ratchet.gate.model_change) as list items: the change in bold, then each skill."""
    lines = model_change_lines(verdict.model_change)
    return [f"- **{md_inline(line)}**" if n == 0 else f"- {md_inline(line)}" for n, line in enumerate(lines)]


def diff_list(verdict: Verdict) -> list[str]:
    """What the edit changes, as list items (the lines the terminal prints after `skills changed:`)."""
    return [f"- **diff:** {md_inline(str(line))}" for line in diff_lines(verdict)]


def findings_table(verdict: Verdict) -> list[str]:
    """One row per distinct finding: what it is, how hard, what the pairs came to, which tasks."""
    groups = finding_groups(verdict)
    if not groups:
        return []
    rows = ["| finding | severity | outcome | tasks |", "| --- | --- | --- | --- |"]
    for group in groups:
        outcomes = ", ".join(f"{outcome} x{count}" for outcome, count in group.outcomes)
        rows.append(
            f"| {md_inline(group.label)} | {group.severity or '—'} | {outcomes} "
            f"| {md_inline(collapse_ids(group.task_ids))} |"
        )
    return rows


def triggers_table(verdict: Verdict) -> list[str]:
    """The trigger queries run at base and head (ratchet.gate.triggers): a header, then a row per query that moved."""
    if verdict.triggers is None:
        return []
    rows = trigger_rows(verdict.triggers)
    lines = [f"**{md_inline(trigger_header(verdict.triggers))}**"]
    if rows:
        lines += ["", "| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
        lines += ["| " + " | ".join(md_inline(cell) for cell in row) + " |" for row in rows]
    return lines


def footer_line(verdict: Verdict) -> str:
    """Cost, how much was replayed, wall time and the gate config."""
    config = f" · gate config `{md_inline(verdict.gate_config)}`" if verdict.gate_config else ""
    return (
        f"cost ${verdict.cost_usd:.6f} · {len(verdict.pairs)} of {verdict.goldens_total} goldens replayed"
        f" · {verdict.wall_ms / 1000:.1f} s{config}"
    )


def _call_diff(findings: list[Finding]) -> list[str]:
    lines = []
    for finding in findings:
        if finding.kind not in _CALL_KINDS:
            continue
        where = [f"golden #{finding.golden_index}"] if finding.golden_index is not None else []
        where += [f"replay #{finding.replay_index}"] if finding.replay_index is not None else []
        lines.append(f"{_CALL_KINDS[finding.kind]} {finding.detail}  ({', '.join(where) or 'no index'})")
    if not lines:
        return ["**Tool-call diff (Level 0):** the tool calls are the same."]
    return ["**Tool-call diff (Level 0):**", "", code_block("\n".join(lines), "diff")]


def _other_findings(pair: PairOutcome) -> list[str]:
    other = [f for f in pair.findings if f.kind not in _CALL_KINDS]
    output = [f for f in other if f.kind == "output_changed"]
    said = md_inline(output[0].detail) if output else "the final output is the same"
    lines = [f"**Output diff:** {OUTPUTS_NOT_CARRIED} {said}."]
    rest = [f for f in other if f.kind != "output_changed"]
    if rest:
        lines += ["", "**Other findings:**", ""]
        lines += [f"- {f.kind} ({f.severity}): {md_inline(f.detail)}" for f in rest]
    return lines


def _opinion_row(opinion: Opinion) -> str:
    said = md_inline(opinion.rationale) if opinion.error is None else f"error: {md_inline(opinion.error)}"
    return (
        f"| {md_inline(opinion.asked_as)} | {md_inline(opinion.model) or '—'} | {opinion.verdict or 'error'} "
        f"| {opinion.confidence:.2f} | {said} |"
    )


def _opinions(opinions: list[Opinion]) -> list[str]:
    if not opinions:
        return ["**Judges:** none asked."]
    return [
        "**Judges:**",
        "",
        "| tier | model | verdict | confidence | rationale |",
        "| --- | --- | --- | --- | --- |",
        *(_opinion_row(o) for o in opinions),
    ]


def _drift(drift: DriftEvidence | None) -> list[str]:
    if drift is None:
        return ["**Drift:** not checked."]
    lines = [
        f"**Drift:** {'drift' if drift.is_drift else 'not drift'}"
        f"{' · base replay ran' if drift.base_replay_ran else ''}"
        f"{' and matches the replay' if drift.base_matches_replay else ''}"
        f"{' · ' + md_inline(drift.note) if drift.note else ''}"
    ]
    for fact in sorted(drift.moved, key=lambda f: f.key):
        confirmed = "confirmed" if fact.confirmed else "not confirmed"
        source = f" by {md_inline(fact.source)}" if fact.source else ""
        lines.append(
            f"- {md_inline(fact.key)}: {md_inline(repr(fact.golden_value))} → "
            f"{md_inline(repr(fact.replay_value))} ({confirmed}{source})"
        )
    return lines


def pair_details(pair: PairOutcome) -> list[str]:
    """One pair's evidence in a collapsed `<details>` block."""
    routed = ""
    if (pair.golden_skill or "") != (pair.replay_skill or ""):
        routed = f" · {pair.golden_skill or 'no skill'} → {pair.replay_skill or 'no skill'}"
    summary = html_inline(f"{pair.task_id} — {pair.outcome} ({pair.decided_by}){routed}")
    body = [f"**Reason:** {md_inline(pair.reason)}"]
    if pair.error:
        body += ["", f"**Error:** {md_inline(pair.error)}"]
    if pair.hint:
        body += ["", f"**Next:** {md_inline(pair.hint)}"]
    sections = [_call_diff(pair.findings), _other_findings(pair), _opinions(pair.opinions), _drift(pair.drift)]
    for section in sections:
        body += ["", *section]
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>"]


def render_markdown(verdict: Verdict) -> str:
    """The whole verdict as CommonMark (GitHub-flavoured tables), ending in one newline."""
    blocks: list[list[str]] = [[decision_line(verdict)]]
    if verdict.simulated:
        blocks.append([f"> {md_inline(SIMULATED_CHECK_BANNER)}"])
    for block in (
        not_checked_lines(verdict),
        agent_list(verdict),
        diff_list(verdict),
        triggers_table(verdict),
        findings_table(verdict),
    ):
        if block:
            blocks.append(block)
    same = sorted(p.task_id for p in verdict.pairs if p.outcome == "same")
    if same:
        blocks.append([f"{len(same)} identical to the golden: {md_inline(', '.join(same))}"])
    notes = [f"- {note_label(n.kind)}: {md_inline(n.detail)}" for n in verdict.unseen if n.level == "note"]
    if notes:
        blocks.append(notes)
    blocks.append([footer_line(verdict)])
    blocks += [pair_details(pair) for pair in verdict.pairs if pair.outcome != "same"]
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"
