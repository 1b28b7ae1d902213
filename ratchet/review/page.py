"""One review page as one HTML string: inline CSS and JS, no external reference, same input same bytes.

Everything that came from a user (prompts, arguments, outputs, rationales, skill text) goes
through `html.escape` once, in `_e`, and nowhere else is text put into markup. A
Content-Security-Policy meta tag forbids every fetch but the served page's own `/api/decide`,
so even a value that slipped through could load nothing.
"""

from __future__ import annotations

import difflib
from html import escape
from typing import Any

from ratchet.core.jsonio import canonical_dumps
from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.gate.models import DriftEvidence, Finding, Opinion, Unseen
from ratchet.goldens.mutation import CLASS_MEANINGS
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.outputs.triggers import family_name, fires, p_text, trigger_header, worst_first
from ratchet.review.align import align_calls, golden_only
from ratchet.review.assets import CSP, CSS, JS
from ratchet.review.models import (
    AlignedRow,
    MutationSection,
    ReviewItem,
    ReviewPage,
    SkillMutation,
    accept_thin_command,
)
from ratchet.triggers.compare import FamilyChange, QueryChange
from ratchet.triggers.verdict import TriggerCheck

_HOW_TO_ACT = {
    "pending": "to bless from the terminal: ratchet bless {id}",
    "labels": "from the terminal: ratchet bench label {id} --agree (or --disagree --decision ...)",
}


def _e(value: object) -> str:
    return escape(value if isinstance(value, str) else str(value), quote=True)


def _json(value: Any) -> str:
    return canonical_dumps(value, indent=None)


def _args(call: ToolCall, changed: list[str]) -> str:
    if not call.arguments:
        return '<ul class="args"><li class="arg">(no arguments)</li></ul>'
    lines = []
    for key in sorted(call.arguments):
        cls = "arg changed-arg" if key in changed else "arg"
        lines.append(
            f'<li class="{cls}" data-arg="{_e(key)}"><span class="k">{_e(key)}</span>='
            f'<span class="v">{_e(_json(call.arguments[key]))}</span></li>'
        )
    return '<ul class="args">' + "".join(lines) + "</ul>"


def _call_cell(call: ToolCall | None, changed: list[str], side: str) -> str:
    if call is None:
        return f'<td class="{side} empty"></td>'
    result = f"<details><summary>result</summary><pre>{_e(_json(call.result))}</pre></details>"
    error = f'<div class="finding-hard">error: {_e(call.error)}</div>' if call.error else ""
    return (
        f'<td class="{side}"><div class="call">#{call.index} {_e(call.name)} '
        f'<span class="effect">({_e(call.effect)})</span></div>{_args(call, changed)}{error}{result}</td>'
    )


def _calls_table(rows: list[AlignedRow], *, has_replay: bool) -> str:
    head = "<tr><th>golden</th><th>replay</th></tr>" if has_replay else "<tr><th>golden (replay not kept)</th></tr>"
    body = []
    for row in rows:
        cells = _call_cell(row.golden, row.changed_args, "golden")
        if has_replay:
            cells += _call_cell(row.replay, row.changed_args, "replay")
        body.append(f'<tr class="row-{row.kind}" data-kind="{row.kind}">{cells}</tr>')
    return '<h3>Tool calls</h3><table class="calls">' + head + "".join(body) + "</table>"


def _rows(item: ReviewItem) -> list[AlignedRow]:
    if item.golden is None:  # a first recording: every call is new
        return [AlignedRow(kind="added", replay=call) for call in item.replay.tool_calls] if item.replay else []
    golden = item.golden.tool_calls
    if item.replay is not None:
        return align_calls(golden, item.replay.tool_calls)
    marked = {f.golden_index: f.kind for f in item.findings if f.golden_index is not None}
    return golden_only(golden, marked)


def _output_diff(golden: Trace | None, replay: Trace | None) -> str:
    if golden is None or replay is None:
        only = golden or replay
        return "" if only is None else f"<h3>Final output</h3><pre>{_e(only.final_output)}</pre>"
    lines = []
    for line in difflib.ndiff(golden.final_output.splitlines(), replay.final_output.splitlines()):
        tag, text = line[:2], line[2:]
        if tag == "? ":
            continue
        cls = {"- ": "del", "+ ": "ins"}.get(tag, "eq")
        lines.append(f'<div class="{cls}">{_e(tag + text)}</div>')
    same = " (identical)" if golden.final_output == replay.final_output else ""
    return f'<h3>Final output, golden vs replay{same}</h3><pre class="diff">' + "".join(lines) + "</pre>"


def _findings(findings: list[Finding]) -> str:
    if not findings:
        return ""
    items = "".join(
        f'<li class="finding-{f.severity}">{_e(f.severity)} · {_e(f.kind)}: {_e(f.detail)}</li>' for f in findings
    )
    return f'<h3>Level 0 findings</h3><ul class="findings">{items}</ul>'


def _opinions(opinions: list[Opinion]) -> str:
    if not opinions:
        return ""
    rows = []
    for o in opinions:
        answer = f"error: {o.error}" if o.error else f"{o.verdict} ({o.confidence:.2f})"
        changed = "; ".join(o.changed_elements)
        rows.append(
            f'<tr class="opinion" data-tier="{_e(o.tier)}"><td>{_e(o.asked_as)}</td><td>{_e(o.model)}</td>'
            f"<td>{_e(answer)}</td><td>{_e(o.rationale)}</td><td>{_e(changed)}</td>"
            f"<td>${o.cost_usd:.6f}</td></tr>"
        )
    return (
        '<h3>Judge opinions, in escalation order</h3><table class="opinions"><tr><th>tier</th><th>model</th>'
        "<th>verdict</th><th>rationale</th><th>changed elements</th><th>cost</th></tr>" + "".join(rows) + "</table>"
    )


def _drift(drift: DriftEvidence | None) -> str:
    if drift is None:
        return ""
    moved = "".join(
        f"<li>{_e(m.key)}: {_e(_json(m.golden_value))} → {_e(_json(m.replay_value))} "
        f"({'confirmed' if m.confirmed else 'not confirmed'}{': ' + _e(m.source) if m.source else ''})</li>"
        for m in drift.moved
    )
    facts = f"<ul>{moved}</ul>" if moved else "<p>no volatile fact moved</p>"
    base = (
        "base replay ran, " + ("matches" if drift.base_matches_replay else "differs from") + " the replay"
        if drift.base_replay_ran
        else "no base replay"
    )
    verdict = "drift" if drift.is_drift else "not drift"
    note = f" · {_e(drift.note)}" if drift.note else ""
    return f'<h3>Drift evidence</h3><div class="drift"><p>{verdict} · {base}{note}</p>{facts}</div>'


def _routing(item: ReviewItem) -> str:
    parts = []
    if item.golden is not None:
        parts.append(f"golden skill: {item.golden.fired_skill or 'none'}")
    if item.replay is not None:
        parts.append(f"replay skill: {item.replay.fired_skill or 'none'}")
    trace = item.replay or item.golden
    if trace is not None:
        parts.insert(0, f"prompt: {trace.prompt}")
    if item.outcome is not None:
        parts.append(f"outcome: {item.outcome} by {item.decided_by}: {item.reason}")
    return "".join(f'<div class="meta">{_e(p)}</div>' for p in parts)


def _actions(page: ReviewPage, item: ReviewItem, served: bool) -> str:
    if not item.actions:
        return ""
    if not served:
        if item.thin is not None:  # `ratchet bless TASK_ID` would refuse it: the thin line names what blesses it
            return ""
        how = _HOW_TO_ACT.get(page.mode, "")
        return f'<div class="meta">{_e(how.format(id=item.item_id))}</div>' if how else ""
    pick = ""
    if page.mode == "labels":
        options = "".join(f'<option value="{d}">{d}</option>' for d in ("PASS", "WARN", "BLOCK"))
        pick = f'<label>your decision on reject <select class="decision">{options}</select></label> '
    buttons = "".join(f'<button type="button" data-action="{a}">{a}</button>' for a in item.actions)
    return f'<div class="actions">{pick}{buttons}<span class="status"></span></div>'


_UNSEEN_HEADING = {
    "pending": "Before you bless: a check of an edit to these skills would warn",
    "verdict": "What this check could not see",
}


def _unseen_line(note: Unseen, tag: str) -> str:
    label = "warning" if note.level == "warn" else "note"
    return f'<{tag} class="unseen-{note.level}">{label}: {_e(note.detail)}</{tag}>'


def _unseen(page: ReviewPage) -> str:
    """The unseen notes above every item: an empty golden blessed by mistake is the costliest miss."""
    if not page.unseen:
        return ""
    heading = _UNSEEN_HEADING.get(page.mode, "Not seen")
    lines = "".join(_unseen_line(note, "li") for note in page.unseen)
    return f'<div class="unseen"><p>{_e(heading)}:</p><ul>{lines}</ul></div>'


def _thin(item: ReviewItem) -> str:
    """Why bless refuses the trace, before anyone clicks accept (the click would only show the refusal)."""
    if item.thin is None:
        return ""
    said = f"ratchet bless refuses it: {item.thin}. To bless it anyway: {accept_thin_command(item.item_id)}"
    return f'<div class="thin">{_e(said)}</div>'


def _skill_mutation(shown: SkillMutation) -> str:
    score = shown.score
    if score is None:
        said = f"{shown.skill}: no mutation score measured: ratchet mutate {shown.skill}"
        return (
            f'<div class="mutation-skill" data-skill="{_e(shown.skill)}"><p class="mutation-none">{_e(said)}</p></div>'
        )
    parts = [f'<p class="mutation-score">{_e(f"{shown.skill}: {score.line()} ({score.measured()})")}</p>']
    if score.kills_none:
        blind = (
            "these goldens would not notice this kind of change: "
            f"they killed none of the {score.checked} mutants checked"
        )
        parts.append(f'<p class="mutation-blind">{_e(blind)}</p>')
    rows = "".join(
        f'<tr class="mutation-class" data-class="{_e(c.mutant_class)}"><td>{_e(c.mutant_class)}</td>'
        f"<td>{_e(CLASS_MEANINGS[c.mutant_class])}</td><td>{c.killed}</td><td>{c.checked}</td></tr>"
        for c in score.by_class
    )
    parts.append(
        '<table class="mutation-classes"><tr><th>class</th><th>what a mutant of it does</th><th>killed</th>'
        f"<th>checked</th></tr>{rows}</table>"
    )
    if score.survivors:
        survivors = "".join(
            f'<li class="survivor" data-mutant="{_e(s.id)}">{_e(f"{s.id} · {s.mutant_class}: {s.description}")}</li>'
            for s in score.survivors
        )
        parts.append(
            '<h3 class="survivors-heading">Surviving mutants: the tests a team should add</h3>'
            f'<ul class="survivors">{survivors}</ul>'
        )
    else:
        parts.append('<p class="meta">no surviving mutant: the goldens noticed every mutant checked</p>')
    return f'<div class="mutation-skill" data-skill="{_e(shown.skill)}">' + "".join(parts) + "</div>"


def _mutation(section: MutationSection | None) -> str:
    """What `ratchet mutate` measured of the edited skills' goldens at the base: how much this verdict can catch."""
    if section is None:
        return ""
    skills = "skill" if len(section.skills) == 1 else "skills"
    head = f"<h2>Mutation score of the edited {skills} at the base {_e(section.base)} (docs/mutate.md)</h2>"
    if section.unread is not None:
        body = f'<p class="mutation-unread">{_e(f"Mutation score not read at the base: {section.unread}")}</p>'
    else:
        body = "".join(_skill_mutation(shown) for shown in section.skills)
    return f'<section class="mutation">{head}{body}</section>'


_TRIGGER_COLUMNS = (
    "query",
    "skill",
    "should",
    "base fired",
    "head fired",
    "p",
    "Holm-adjusted p",
    "outcome",
    "regression",
)


def _trigger_row(q: QueryChange) -> str:
    cells = (
        f"{q.query_id}: {q.prompt}",
        q.skill or "none (canary)",
        "fire" if q.should_fire else "not fire",
        fires(q.base_fires, q.base_n, q.base_errors),
        fires(q.head_fires, q.head_n, q.head_errors),
        p_text(q.p_value),
        p_text(q.adjusted_p),
        q.outcome,
        q.regression or "",
    )
    tds = "".join(f"<td>{_e(cell)}</td>" for cell in cells)
    return f'<tr class="trigger-query trigger-{q.outcome}" data-query="{_e(q.query_id)}" data-outcome="{q.outcome}">{tds}</tr>'


def _family_row(f: FamilyChange) -> str:
    """A family of queries read as one stratified exact test (ratchet.triggers.compare): its counts summed."""
    cells = (
        f"family: {family_name(f)}" + (f"; moved: {', '.join(f.moved)}" if f.moved else ""),
        f.skill or "none (canaries)",
        "fire" if f.should_fire else "not fire",
        f"{f.base_fires}/{f.base_n}",
        f"{f.head_fires}/{f.head_n}",
        p_text(f.p_value),
        p_text(f.adjusted_p),
        f.outcome,
        f.regression or "",
    )
    tds = "".join(f"<td>{_e(cell)}</td>" for cell in cells)
    return f'<tr class="trigger-family trigger-{f.outcome}" data-outcome="{f.outcome}">{tds}</tr>'


def _triggers(check: TriggerCheck | None) -> str:
    """The trigger queries the check ran at base and head, every one, worst first (docs/triggers.md)."""
    if check is None:
        return ""
    parts = [
        "<h2>Trigger queries (docs/triggers.md)</h2>",
        f'<p class="triggers-header">{_e(trigger_header(check))}</p>',
    ]
    if check.file_changed:
        said = f"the edit changes {check.file_changed}: the check ran the base's trigger queries; review the change"
        parts.append(f'<p class="triggers-file">{_e(said)}</p>')
    if check.queries:
        head = "".join(f"<th>{_e(name)}</th>" for name in _TRIGGER_COLUMNS)
        families = [f for f in check.families if f.outcome != "same"]  # as the terminal shows them: above the queries
        rows = "".join(_family_row(f) for f in families) + "".join(_trigger_row(q) for q in worst_first(check.queries))
        parts.append(f'<table class="trigger-queries"><tr class="trigger-columns">{head}</tr>{rows}</table>')
    return '<section class="triggers">' + "".join(parts) + "</section>"


def _item(page: ReviewPage, item: ReviewItem, served: bool) -> str:
    parts = [f"<h2>{_e(item.title)}</h2>", *(_unseen_line(note, "div") for note in item.unseen), _thin(item)]
    parts.append(_routing(item))
    parts += [f'<div class="note">{_e(note)}</div>' for note in item.notes]
    if item.text is not None:
        parts.append(f"<pre>{_e(item.text)}</pre>")
    parts.append(_findings(item.findings))
    if item.golden is not None or item.replay is not None:
        parts.append(_calls_table(_rows(item), has_replay=item.replay is not None))
        parts.append(_output_diff(item.golden, item.replay))
    parts += [_opinions(item.opinions), _drift(item.drift), _actions(page, item, served)]
    return (
        f'<section class="item" data-item="{_e(item.item_id)}" data-state="open">'
        + "".join(p for p in parts if p)
        + "</section>"
    )


def render_page(page: ReviewPage, *, served: bool = False) -> str:
    """The whole page. `served` adds the accept / reject / skip buttons (they need `--serve` to act)."""
    items = "".join(_item(page, item, served) for item in page.items) or "<p>nothing to review</p>"
    banner = f'<p class="simulated">{_e(SIMULATED_CHECK_BANNER)}</p>' if page.shows_simulated else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{_e(page.title)}</title><style>{CSS}</style></head>"
        f'<body data-mode="{page.mode}" data-served="{"1" if served else "0"}">'
        f'{banner}<h1>{_e(page.title)}</h1>{_unseen(page)}<div class="summary">{_e(page.summary)}</div>'
        f'<div class="meta">source: {_e(page.source)}</div>{_mutation(page.mutation)}{_triggers(page.triggers)}'
        '<label><input type="checkbox" id="hide-same"> hide unchanged calls</label>'
        f"{items}<script>{JS}</script></body></html>\n"
    )
