"""Hand-built verdicts for the output tests: every kind of pair, and user text that tries to break out."""

from __future__ import annotations

from typing import Any

from ratchet.gate.models import PairOutcome, Unseen, Verdict

HOSTILE = "a | b </details><img src=x onerror=alert(1)> `` ``` ** [x](y) \x00\x07 &amp;"
"""A rationale a model or a task author could write: table pipes, an early </details>, HTML, fences, NUL."""


def send_finding(body: str, index: int) -> dict[str, Any]:
    return {
        "kind": "new_side_effect",
        "severity": "hard",
        "tool": "email_send",
        "effect": "send",
        "replay_index": index,
        "detail": f"new send call email_send(body='{body}', to='finance@example.com')",
    }


def pair(
    task_id: str,
    outcome: str,
    *,
    decided_by: str = "level0",
    reason: str = "",
    skill: str = "fx",
    findings: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> PairOutcome:
    return PairOutcome.model_validate(
        {
            "task_id": task_id,
            "golden_skill": skill,
            "replay_skill": skill,
            "selected_because": "routed",
            "outcome": outcome,
            "decided_by": decided_by,
            "reason": reason or f"{outcome} reason",
            "findings": findings or [],
            **extra,
        }
    )


def sends(count: int) -> list[PairOutcome]:
    """`count` pairs that each add the same email_send, with task-specific arguments."""
    return [
        pair(
            f"fx-{n:02d}",
            "regression",
            reason=f"hard fail: new send call email_send(body='Total {n}')",
            findings=[send_finding(f"Total {n}", n)],
        )
        for n in range(1, count + 1)
    ]


def judged() -> PairOutcome:
    return pair(
        "gh-02",
        "regression",
        decided_by="super",
        skill="github-triage",
        reason="nano: regression at 0.93; super: regression at 0.75",
        findings=[
            {
                "kind": "args_changed",
                "severity": "diff",
                "tool": "github_add_label",
                "golden_index": 1,
                "replay_index": 1,
                "detail": "github_add_label arguments changed (label: 'p/normal' -> 'p/medium')",
            },
            {"kind": "output_changed", "severity": "diff", "detail": "final output differs"},
        ],
        opinions=[
            {
                "tier": "nano",
                "model": "sim/judge-nano",
                "prompt_version": "v1",
                "verdict": "regression",
                "confidence": 0.93,
                "rationale": HOSTILE,
            },
            {
                "tier": "super",
                "model": "sim/judge-super",
                "prompt_version": "v1",
                "verdict": "regression",
                "confidence": 0.75,
                "rationale": "the label moved",
            },
        ],
    )


def drifted() -> PairOutcome:
    return pair(
        "fx-20",
        "drift",
        decided_by="drift",
        reason="explained by a moved fact",
        findings=[{"kind": "volatile_changed", "severity": "info", "detail": "volatile fact fx.EUR moved: 1.1 -> 1.2"}],
        drift={
            "moved": [
                {"key": "fx.EUR", "golden_value": 1.1, "replay_value": 1.2, "confirmed": True, "source": "fixtures"}
            ],
            "base_replay_ran": True,
            "base_matches_replay": True,
            "is_drift": True,
        },
        hint="re-bless the golden",
    )


def errored() -> PairOutcome:
    return pair(
        "gh-09",
        "error",
        decided_by="error",
        skill="github-triage",
        reason="replay failed: no cached answer",
        error="no cached answer under --cache none",
        findings=[{"kind": "replay_error", "severity": "info", "detail": "no cached answer"}],
    )


def unsure() -> PairOutcome:
    return pair(
        "gh-05",
        "unsure",
        decided_by="ultra",
        skill="github-triage",
        reason="judges unsure",
        findings=[
            {
                "kind": "call_removed",
                "severity": "diff",
                "tool": "github_comment",
                "golden_index": 3,
                "detail": "call no longer made: github_comment(body='hi')",
            }
        ],
    )


def mixed_verdict(**extra: Any) -> Verdict:
    """Nine pairs with one shared finding, a judged regression, drift, an error, an unsure, two same."""
    pairs = [
        *sends(9),
        judged(),
        drifted(),
        errored(),
        unsure(),
        pair("fx-30", "same", reason="identical to the golden"),
        pair("fx-31", "same", reason="identical to the golden"),
    ]
    fields: dict[str, Any] = {
        "base": "a" * 40,
        "head": "b" * 40,
        "skills_changed": ["fx", "github-triage"],
        "decision": "BLOCK",
        "summary": "10 regression(s), first fx-01",
        "pairs": pairs,
        "goldens_total": 23,
        "cost_usd": 0.0255358,
        "wall_ms": 735.3,
        "simulated": True,
        "gate_config": "cascade",
        "settings_changed": ["ratchet.yaml"],
        "submodules_changed": ["skills/vendored"],
        "unseen": [
            Unseen(
                kind="unsent", skill="fx", detail="fx: the frontmatter key `allowed-tools` is never sent", level="warn"
            ),
            Unseen(kind="prose", skill="fx", detail="fx: a reworded paragraph", level="note"),
        ],
    }
    fields.update(extra)
    return Verdict.model_validate(fields)
