"""The comment body: a verdict too long for GitHub loses whole evidence blocks, never half of one."""

from __future__ import annotations

from ratchet.ci.comment import GITHUB_COMMENT_LIMIT, comment_body, error_line
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.outputs.markdown import render_markdown


def big_verdict(pairs: int) -> Verdict:
    return Verdict(
        base="a" * 40,
        head="b" * 40,
        skills_changed=["s"],
        decision="BLOCK",
        summary="many regressions",
        pairs=[
            PairOutcome(
                task_id=f"t-{n:04d}",
                golden_skill="s",
                selected_because="routed",
                outcome="regression",
                decided_by="level0",
                reason="r" * 900,
            )
            for n in range(pairs)
        ],
    )


def test_a_verdict_past_githubs_limit_keeps_whole_details_blocks_and_says_so() -> None:
    verdict = big_verdict(200)
    assert len(render_markdown(verdict)) > GITHUB_COMMENT_LIMIT
    body = comment_body(verdict, check_exit=1, run_url="https://github.example/a/b/actions/runs/1")
    assert len(body) + 100 <= GITHUB_COMMENT_LIMIT  # room for the marker line
    assert body.count("<details>") == body.count("</details>") > 0
    kept = body.count("<details>")
    assert body.endswith(
        f"_Evidence of {200 - kept} more pair(s) left out: GitHub's comment limit. "
        "The job's ratchet-outputs artifact has all of it._\n\n"
        "<sub>[job log and artifacts](https://github.example/a/b/actions/runs/1)</sub>\n"
    )


def test_a_short_verdict_is_its_markdown_unchanged() -> None:
    verdict = big_verdict(2)
    assert comment_body(verdict) == render_markdown(verdict)


def test_the_error_line_is_the_clis_last_error() -> None:
    assert error_line("progress\nerror: first\nmore\nerror: second\n\n") == "second"
    assert error_line("Traceback\n  boom\nValueError: x\n") == "ValueError: x"
    assert error_line("") == ""


def test_a_verdict_from_a_check_that_failed_as_infrastructure_leads_with_that() -> None:
    verdict = big_verdict(1)
    body = comment_body(verdict, check_exit=3, check_error="1 pair(s) could not be checked, first t-0000: boom")
    assert body.startswith(
        "⚠️ **The job fails (exit 3, infrastructure error: some of the edit could not be checked)**"
        ": 1 pair(s) could not be checked, first t-0000: boom\n\n❌ **Ratchet: BLOCK**"
    )


def test_a_verdict_from_a_check_the_budget_stopped_names_the_budget_not_bad_input() -> None:
    # Bad input (exit 2) writes no verdict; exit 2 with a verdict is the --budget cap stopping pairs (docs/ledger.md).
    verdict = big_verdict(1)
    stopped = "1 pair(s) not checked: the run's budget stopped them, first t-0000: refused"
    body = comment_body(verdict, check_exit=2, check_error=stopped)
    assert body.startswith(
        "⚠️ **The job fails (exit 2, the --budget cap stopped pairs before they were checked)**"
        f": {stopped}\n\n❌ **Ratchet: BLOCK**"
    )
