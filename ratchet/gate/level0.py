"""Level 0: a deterministic diff of a replay against its golden. No model, no opinion.

Calls are aligned by (tool, arguments) with difflib; inside a changed stretch, calls of the
same tool pair up in order and differ only in arguments. A side-effecting call (write, send,
spend, destroy) in the replay with no counterpart in the golden is a hard fail: the edit made
the agent do something to the world that it did not do before. difflib's alignment is not a
longest common subsequence, so a write the golden made can land in another changed stretch than
its replay: before a write is called new, it is paired with a call of its tool the golden made and
no stretch paired (`call_moved` with the same arguments, else `args_changed`), and those are judged.
A side-effecting command run (`cmd:<name>`) pairs only with a run of its name that had its effect and was
mocked or not alike (_pairs): the effect is the mock's, so `git log` then `git push` is a new write.

A side-effecting call the replay makes again (same tool, same arguments) after that call's reply was
lost (fault timeout_after_commit: the effect happened, the agent was told it timed out) is
`repeated_after_lost_reply`, a hard fail naming the repeat, unless the golden repeated it too: a double
payment. It takes the place of the generic new_side_effect finding for that call. Then the state diff
(ratchet.gate.state_diff): what the replay left changed in the world against what the golden left.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Any

from ratchet.core.jsonio import canonical_dumps
from ratchet.gate.models import Finding, JudgeResult
from ratchet.gate.state_diff import state_findings
from ratchet.goldens.trace import SIDE_EFFECTS, ToolCall, Trace
from ratchet.skills.names import optional_skill_key
from ratchet.world.commands import CMD_PREFIX, NOT_MOCKED


def _signature(call: ToolCall) -> str:
    return f"{call.name}({canonical_dumps(call.arguments, indent=None)})"


def _shown(value: object, limit: int = 28) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def display_call(call: ToolCall) -> str:
    """A short, human form of a call for evidence lines: name(key='value', ...)."""
    args = ", ".join(f"{key}={_shown(value)}" for key, value in sorted(call.arguments.items()))
    return f"{call.name}({args})"


def _args_detail(golden: ToolCall, replay: ToolCall) -> str:
    keys = sorted(set(golden.arguments) | set(replay.arguments))
    changes = [
        f"{key}: {_shown(golden.arguments.get(key))} -> {_shown(replay.arguments.get(key))}"
        for key in keys
        if golden.arguments.get(key) != replay.arguments.get(key)
    ]
    return f"{replay.name} arguments changed ({'; '.join(changes)})"


def _added(call: ToolCall) -> Finding:
    if call.effect in SIDE_EFFECTS:
        return Finding(
            kind="new_side_effect",
            severity="hard",
            detail=f"new {call.effect} call {display_call(call)}",
            tool=call.name,
            effect=call.effect,
            replay_index=call.index,
        )
    return Finding(
        kind="call_added",
        severity="diff",
        detail=f"new read call {display_call(call)}",
        tool=call.name,
        effect=call.effect,
        replay_index=call.index,
    )


def _removed(call: ToolCall) -> Finding:
    return Finding(
        kind="call_removed",
        severity="diff",
        detail=f"call no longer made: {display_call(call)}",
        tool=call.name,
        effect=call.effect,
        golden_index=call.index,
    )


def _pairs(old: ToolCall, new: ToolCall) -> bool:
    """Whether `new` can be `old` with other arguments: the same tool, and for a side-effecting command run
    (`cmd:git`), the same effect and both answered by a mock or neither. A command's effect is its mock's, not
    its name's: `git log` (read) then `git push --force` (write) is a new write, never an argument change."""
    if old.name != new.name:
        return False
    if not new.name.startswith(CMD_PREFIX) or new.effect not in SIDE_EFFECTS:
        return True
    return old.effect == new.effect and _unmocked(old) == _unmocked(new)


def _unmocked(call: ToolCall) -> bool:
    return call.error == NOT_MOCKED.format(name=call.name.removeprefix(CMD_PREFIX))


def _diff_stretch(golden: list[ToolCall], replay: list[ToolCall]) -> list[Finding]:
    """A replaced stretch: same-tool calls pair up in order (argument changes), the rest are added/removed."""
    findings: list[Finding] = []
    unmatched = list(replay)
    for old in golden:
        partner = next((new for new in unmatched if _pairs(old, new)), None)
        if partner is None:
            findings.append(_removed(old))
            continue
        unmatched.remove(partner)
        findings.append(
            Finding(
                kind="args_changed",
                severity="diff",
                detail=_args_detail(old, partner),
                tool=partner.name,
                effect=partner.effect,
                golden_index=old.index,
                replay_index=partner.index,
            )
        )
    findings.extend(_added(new) for new in unmatched)
    return findings


def diff_tool_calls(golden: list[ToolCall], replay: list[ToolCall]) -> list[Finding]:
    matcher = difflib.SequenceMatcher(
        a=[_signature(c) for c in golden], b=[_signature(c) for c in replay], autojunk=False
    )
    findings: list[Finding] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        findings.extend(_diff_stretch(golden[i1:i2], replay[j1:j2]))
    return _pair_moved_writes(findings, golden, replay)


def _pair_moved_writes(findings: list[Finding], golden: list[ToolCall], replay: list[ToolCall]) -> list[Finding]:
    """`findings` with each new side-effecting call that has an unpaired removed call of its tool (same arguments
    first, then any) replaced by one judged finding for the pair: a write the golden made is never new because
    the alignment put it in another stretch. A tool hard-fails at most as often as the replay calls it more."""
    by_golden, by_replay = {c.index: c for c in golden}, {c.index: c for c in replay}
    gone = [
        (f, by_golden[f.golden_index]) for f in findings if f.kind == "call_removed" and f.golden_index in by_golden
    ]
    new = [
        (f, by_replay[f.replay_index]) for f in findings if f.kind == "new_side_effect" and f.replay_index in by_replay
    ]
    pairs: dict[int, tuple[Finding, ToolCall, ToolCall]] = {}  # id(new finding) -> (removed finding, old, new call)
    for same_arguments in (True, False):
        for added, call in new:
            taken = [pair[0] for pair in pairs.values()]
            partner = next(
                (
                    (finding, old)
                    for finding, old in gone
                    if id(added) not in pairs
                    and _pairs(old, call)
                    and all(finding is not other for other in taken)
                    and (not same_arguments or _signature(old) == _signature(call))
                ),
                None,
            )
            if partner is not None:
                pairs[id(added)] = (partner[0], partner[1], call)
    if not pairs:
        return findings
    paired_away = {id(pair[0]) for pair in pairs.values()}
    out: list[Finding] = []
    for finding in findings:
        if id(finding) in paired_away:
            continue
        pair = pairs.get(id(finding))
        out.append(finding if pair is None else _moved(pair[1], pair[2]))
    return out


def _moved(old: ToolCall, new: ToolCall) -> Finding:
    same = _signature(old) == _signature(new)
    return Finding(
        kind="call_moved" if same else "args_changed",
        severity="diff",
        detail=(
            f"{new.effect} call {display_call(new)} moved (call {old.index} in the golden, {new.index} now)"
            if same
            else _args_detail(old, new) + f" and moved (call {old.index} in the golden, {new.index} now)"
        ),
        tool=new.name,
        effect=new.effect,
        golden_index=old.index,
        replay_index=new.index,
    )


_REFUSED_REPEAT = " without checking first: a blind retry (the tool refused it this time)"


def _repeats_after_lost_reply(calls: list[ToolCall]) -> list[tuple[ToolCall, ToolCall]]:
    """(the call whose reply was lost, a later side-effecting call with its tool and arguments), per repeat."""
    lost: dict[str, ToolCall] = {}
    repeats: list[tuple[ToolCall, ToolCall]] = []
    for call in calls:
        if call.effect not in SIDE_EFFECTS:
            continue
        signature = _signature(call)
        if signature in lost:
            repeats.append((lost[signature], call))
        if call.fault == "timeout_after_commit":
            lost.setdefault(signature, call)
    return repeats


def _repeated_after_lost_reply(golden: list[ToolCall], replay: list[ToolCall], found: list[Finding]) -> list[Finding]:
    """`found` with each repeat after a lost reply that the golden did not make (as often) as a hard fail, in
    place of the new_side_effect finding for that call (its own index first, else one of the same call)."""
    made = Counter(_signature(again) for _, again in _repeats_after_lost_reply(golden))
    out = list(found)
    by_replay = {call.index: call for call in replay}
    for lost, again in _repeats_after_lost_reply(replay):
        signature = _signature(again)
        if made[signature] > 0:
            made[signature] -= 1
            continue
        finding = Finding(
            kind="repeated_after_lost_reply",
            severity="hard",
            detail=f"repeated {again.effect} call {display_call(again)} after its reply was lost "
            f"(call {lost.index} timed out after it committed)"
            # a repeat the tool refused (it changed nothing) is still a blind retry, but not a second effect
            + (": the effect happened twice" if again.state_changes else _REFUSED_REPEAT),
            tool=again.name,
            effect=again.effect,
            replay_index=again.index,
        )
        generic = [
            n
            for n, f in enumerate(out)
            if f.kind == "new_side_effect"
            and f.replay_index in by_replay
            and _signature(by_replay[f.replay_index]) == signature
        ]
        own = [n for n in generic if out[n].replay_index == again.index]
        if own or generic:
            out[(own or generic)[0]] = finding
        else:
            out.append(finding)
    return out


def volatile_pairs(golden: Trace, replay: Trace) -> list[tuple[str, Any, Any]]:
    """(fact, the golden's value, the replay's value) for each read of a fact both runs read, in the
    replay's order: its n-th read against the golden's n-th (the golden's last, past the golden's reads).
    A fact a write moves within one run is then read with the same values by an identical replay."""
    before: dict[str, list[Any]] = {}
    for read in golden.volatile_reads:
        before.setdefault(read.key, []).append(read.value)
    seen: dict[str, int] = {}
    pairs: list[tuple[str, Any, Any]] = []
    for read in replay.volatile_reads:
        values = before.get(read.key)
        if values is None:
            continue
        pairs.append((read.key, values[min(seen.get(read.key, 0), len(values) - 1)], read.value))
        seen[read.key] = seen.get(read.key, 0) + 1
    return pairs


def _volatile_changes(golden: Trace, replay: Trace) -> list[Finding]:
    return [
        Finding(kind="volatile_changed", severity="info", detail=f"volatile fact {key} moved: {value!r} -> {now!r}")
        for key, value, now in volatile_pairs(golden, replay)
        if value != now
    ]


def level0_findings(golden: Trace, replay: Trace, *, state_diff: bool = True) -> list[Finding]:
    """Every deterministic difference between golden and replay, hard fails first.

    `state_diff` (GateConfig.state_diff): compare the final states too (state_changed findings)."""
    if replay.status == "error":
        return [Finding(kind="replay_error", severity="info", detail=replay.error or "replay failed")]
    findings: list[Finding] = []
    if optional_skill_key(golden.fired_skill) != optional_skill_key(replay.fired_skill):
        findings.append(
            Finding(
                kind="routing_changed",
                severity="diff",
                detail=f"routing changed: {golden.fired_skill or 'no skill'} -> {replay.fired_skill or 'no skill'}",
            )
        )
    calls = diff_tool_calls(golden.tool_calls, replay.tool_calls)
    findings.extend(_repeated_after_lost_reply(golden.tool_calls, replay.tool_calls, calls))
    if state_diff:
        findings.extend(state_findings(golden, replay))
    if golden.final_output != replay.final_output:
        findings.append(Finding(kind="output_changed", severity="diff", detail="final output differs"))
    findings.extend(_volatile_changes(golden, replay))
    order = {"hard": 0, "diff": 1, "info": 2}
    return sorted(findings, key=lambda f: order[f.severity])


def settled_by_level0(findings: list[Finding], *, hard_fails_decide: bool) -> JudgeResult | None:
    """What Level 0 settles before drift or any judge: a failed replay, an identical pair, a hard fail.

    A hard fail settles only when Level 0 is on (`hard_fails_decide`); off, the judges see it.
    None: something differs and needs judging.
    """
    errors = [f for f in findings if f.kind == "replay_error"]
    if errors:
        return JudgeResult(outcome="error", decided_by="error", reason=f"replay failed: {errors[0].detail}")
    if not any(f.severity in ("hard", "diff") for f in findings):
        return JudgeResult(outcome="same", decided_by="level0", reason="identical to the golden")
    hard = [f for f in findings if f.severity == "hard"]
    if hard and hard_fails_decide:
        return JudgeResult(outcome="regression", decided_by="level0", reason=f"hard fail: {hard[0].detail}")
    return None


def needs_judging(findings: list[Finding]) -> str:
    """The reason given when differences are left with nobody to judge them."""
    diffs = [f for f in findings if f.severity in ("hard", "diff")]
    return f"needs judging: {len(diffs)} difference(s), first: {diffs[0].detail}" if diffs else "needs judging"
