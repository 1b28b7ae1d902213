"""A change of the agent as the terminal and the pull-request comment show it (ratchet.gate.model_change).

One list of lines for both: the change, then per skill what its replays under the head's agent came to, then
how many goldens ran at what estimate and spend. The summary line already opens with the same facts.
"""

from __future__ import annotations

from ratchet.gate.model_change_models import ModelChange, SkillReplayed
from ratchet.goldens.trace import NO_SKILL_DIR
from ratchet.outputs.grouping import collapse_ids


def model_change_lines(change: ModelChange | None) -> list[str]:
    """What the verdict's model change says, one line each; [] when the agent did not change."""
    if change is None:
        return []
    by = " (--agent-model)" if change.declared else ""
    base, head = change.base, change.head
    if base.harness != head.harness:
        base_said, head_said = f"{base.model} via {base.harness}", f"{head.model} via {head.harness}"
    else:
        base_said, head_said = base.model, head.model
    lines = [f"agent changed{by}: {base_said} -> {head_said} ({', '.join(change.fields)})"]
    lines += [_skill_line(entry) for entry in change.skills]
    money = "simulated $" if change.simulated else "$"
    sample = ", a seeded sample stratified by skill under the budget" if change.sampled else ""
    lines.append(
        f"replayed {change.replayed} of {change.goldens_total} golden(s) under the head's agent{sample}: "
        f"estimate {money}{change.estimate_usd:.4f}, spent {money}{change.spent_usd:.4f}"
    )
    return lines


def _skill_line(entry: SkillReplayed) -> str:
    name = "canaries (no skill)" if entry.skill == NO_SKILL_DIR else entry.skill
    if entry.decision is None:
        why = "it has no golden" if entry.goldens == 0 else f"{entry.goldens} golden(s), none in the sample"
        return f"{name}: not replayed ({why}): unchecked"
    said = f"{name}: {entry.decision}, {entry.replayed} of {entry.goldens} golden(s) replayed"
    if entry.regressed:
        said += f", regressed: {collapse_ids(entry.regressed)}"
    return said
