"""The Markdown report: the score table per skill and class, then every mutant with its diff, survivors first
(the tests a team should add), labeled SIMULATED on the simulator."""

from __future__ import annotations

from ratchet.core.labels import SIMULATED_CHECK_BANNER
from ratchet.mutate.models import ClassScore, Mutant, MutantOutcome, MutationReport, SkillScore
from ratchet.mutate.render import render_json, render_markdown


def _mutant(n: int, cls: str, diff: str) -> Mutant:
    return Mutant.model_validate(
        {
            "id": f"s/op-{n}",
            "skill": "s",
            "mutant_class": cls,
            "operator": "op",
            "description": f"change {n} at SKILL.md:{n}",
            "files": {"SKILL.md": "x"},
            "diff": diff,
        }
    )


DIFF_1 = "--- a/skills/s/SKILL.md\n+++ b/skills/s/SKILL.md\n@@ -1 +1 @@\n-keep `this`\n+drop ```fenced```\n"
DIFF_2 = "--- a/skills/s/SKILL.md\n+++ b/skills/s/SKILL.md\n@@ -2 +2 @@\n-a | b\n+c\n"

REPORT = MutationReport(
    base="0123456789abcdef0123456789abcdef01234567",
    seed=3,
    simulated=True,
    skills=[
        SkillScore(
            skill="s",
            killed=1,
            survived=1,
            by_class=[ClassScore(mutant_class="R1", killed=1), ClassScore(mutant_class="R3", survived=1)],
        )
    ],
    outcomes=[
        MutantOutcome(
            mutant=_mutant(1, "R1", DIFF_1),
            status="killed",
            decision="BLOCK",
            reason="caught by 1 golden(s), first t-1: regression (level0): hard fail",
            caught_by=["t-1"],
        ),
        MutantOutcome(
            mutant=_mutant(2, "R3", DIFF_2),
            status="survived",
            decision="PASS",
            reason="no golden noticed it (PASS: 2 affected golden(s) replayed without a regression)",
        ),
    ],
    dropped_equivalent=2,
    estimate_usd=0.5,
)


def test_the_score_table_and_every_diff() -> None:
    text = render_markdown(REPORT)
    lines = text.splitlines()
    assert lines[0] == "# Mutation score of the goldens at `0123456789`"
    assert lines[2] == f"> {SIMULATED_CHECK_BANNER}"
    assert "| skill | score | killed | survived | R1 | R2 | R3 | R4 | R5 | R6 |" in lines
    assert "| s | 50% (1/2) | 1 | 1 | 1/1 | - | 0/1 | - | - | - |" in lines
    assert "| all | 50% (1/2) | 1 | 1 | 1/1 | - | 0/1 | - | - | - |" in lines
    assert "2 equivalent mutant(s) dropped before running (no change after normalisation)." in text
    # Survivors come first, each with its reason and diff; the killed one follows with its diff too.
    survived, killed = text.index("## Survived: the tests to add"), text.index("## Killed")
    assert survived < text.index("`s/op-2`") < killed < text.index("`s/op-1`")
    assert "````diff\n" + DIFF_1 + "````\n" in text  # a fence no backtick run in the diff can close
    assert "```diff\n" + DIFF_2 + "```\n" in text
    assert "no golden noticed it (PASS: 2 affected golden(s) replayed without a regression)" in text


def test_live_reports_carry_no_simulated_label_and_json_has_no_spend() -> None:
    live = REPORT.model_copy(update={"simulated": False, "cost_usd": 1.25})
    assert "SIMULATED" not in render_markdown(live)
    assert '"cost_usd"' not in render_json(live)
    assert render_json(live).endswith("}\n")
