"""The JUnit report, read back by junitparser (a real JUnit consumer): one case per pair, failures
carrying the evidence, an error for a pair that could not be checked, "not checked" as failures."""

from __future__ import annotations

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from ratchet.outputs.junit import NOT_CHECKED, render_junit
from tests.outputs.verdicts import HOSTILE, mixed_verdict


def suite_of(text: str) -> TestSuite:
    xml = JUnitXml.fromstring(text)
    suites = list(xml) if isinstance(xml, JUnitXml) else [xml]
    assert len(suites) == 1
    suite: TestSuite = suites[0]
    return suite


def cases(text: str) -> dict[str, TestCase]:
    return {case.name: case for case in suite_of(text)}


def test_one_suite_one_case_per_pair_named_by_skill_and_task() -> None:
    suite = suite_of(render_junit(mixed_verdict()))
    names = [(c.classname, c.name) for c in suite]
    assert names[:9] == [("fx", f"fx-{n:02d}") for n in range(1, 10)]
    assert names[9:15] == [
        ("github-triage", "gh-02"),
        ("fx", "fx-20"),
        ("github-triage", "gh-09"),
        ("github-triage", "gh-05"),
        ("fx", "fx-30"),
        ("fx", "fx-31"),
    ]
    assert suite.tests == 18 and suite.failures == 14 and suite.errors == 1 and suite.skipped == 0
    assert suite.name == "ratchet check aaaaaaaaaa..bbbbbbbbbb"
    assert {p.name: p.value for p in suite.properties()}["decision"] == "BLOCK"


def test_a_regression_is_a_failure_with_the_evidence_in_its_body() -> None:
    case = cases(render_junit(mixed_verdict()))["gh-02"]
    [result] = case.result
    assert isinstance(result, Failure) and result.type == "regression"
    assert result.message == "nano: regression at 0.93; super: regression at 0.75"
    assert result.text is not None
    assert (
        "finding args_changed (diff): github_add_label arguments changed (label: 'p/normal' -> 'p/medium')"
        in result.text
    )
    assert "judge super (sim/judge-super): regression at 0.75: the label moved" in result.text


def test_error_unsure_and_passing_pairs_map_as_documented() -> None:
    by_name = cases(render_junit(mixed_verdict()))
    [error] = by_name["gh-09"].result
    assert isinstance(error, Error) and error.message == "replay failed: no cached answer"
    [unsure] = by_name["gh-05"].result
    assert isinstance(unsure, Failure) and unsure.type == "unsure"
    for passing in ("fx-20", "fx-30"):
        assert by_name[passing].is_passed
    assert not any(isinstance(r, Skipped) for c in by_name.values() for r in c.result)


def test_what_was_not_checked_is_a_failing_case_of_its_own() -> None:
    unchecked = [c for c in suite_of(render_junit(mixed_verdict())) if c.classname == NOT_CHECKED]
    assert [c.name for c in unchecked] == [
        "settings changed: ratchet.yaml",
        "submodule changed: skills/vendored",
        "not checked: fx (unsent)",
    ]
    [result] = unchecked[2].result
    assert isinstance(result, Failure) and result.type == "unseen"
    assert result.message == "fx: the frontmatter key `allowed-tools` is never sent"


def test_characters_xml_cannot_carry_are_replaced_not_fatal() -> None:
    text = render_junit(mixed_verdict())
    assert "\x00" not in text
    [result] = cases(text)["gh-02"].result
    assert result.text is not None and "</details><img src=x onerror=alert(1)>" in result.text


def test_the_same_verdict_renders_the_same_bytes() -> None:
    assert render_junit(mixed_verdict()) == render_junit(mixed_verdict())


def test_a_simulated_verdict_is_labeled_in_the_suite_properties() -> None:
    from ratchet import SIMULATED_CHECK_BANNER
    from ratchet.gate.models import Verdict

    def props(simulated: bool) -> dict[str, str]:
        xml = render_junit(
            Verdict(base="a" * 40, head="b" * 40, skills_changed=[], decision="PASS", summary="s", simulated=simulated)
        )
        suite = next(iter(JUnitXml.fromstring(xml)))
        return {p.name: p.value for p in suite.properties()}

    assert props(True)["label"] == SIMULATED_CHECK_BANNER
    assert "label" not in props(False)


def test_an_inconclusive_pair_is_a_failure_named_so_and_the_markdown_groups_it() -> None:
    from ratchet.gate.models import RepeatEvidence
    from ratchet.outputs.markdown import render_markdown
    from tests.outputs.verdicts import pair

    evidence = RepeatEvidence(
        trigger="known-variation",
        replays=4,
        regressions=1,
        outcomes=["regression", "same", "regression", "same"],
        flips=5,
        repeats=30,
        max_repeats=4,
        needed=3,
        alpha=0.05,
        p_value=0.41,
    )
    doubtful = pair("fx-40", "inconclusive", decided_by="repeats", reason="1 of 3 repeats judged regressions")
    doubtful = doubtful.model_copy(update={"repeats": evidence})
    verdict = mixed_verdict().model_copy(update={"pairs": [doubtful]})
    [result] = cases(render_junit(verdict))["fx-40"].result
    assert isinstance(result, Failure) and result.type == "inconclusive"
    assert "1 of 3 repeats" in render_markdown(verdict)


def test_each_trigger_query_that_is_not_pass_is_a_case_worse_a_regression_failure() -> None:
    from ratchet.outputs.junit import TRIGGERS
    from tests.helpers.trigger_checks import mixed_check, verdict_with_triggers

    suite = suite_of(render_junit(verdict_with_triggers(mixed_check(prompt=HOSTILE))))
    queries = [c for c in suite if c.classname == TRIGGERS]
    # Worst first; the queries that stayed the same or got better are no case (the table has them).
    assert [c.name for c in queries] == ["github-triage:not:1", "github-triage:fire:3", "github-triage:fire:2"]
    [worse], [unsettled], [errors] = (c.result for c in queries)
    assert isinstance(worse, Failure) and worse.type == "regression"
    assert worse.message == "R5: github-triage does not fire: fired 0/5 at base -> 5/5 at head, p=0.00397, Holm 0.00794"
    assert worse.text is not None and worse.text.splitlines() == [
        f"worse (R5): github-triage does not fire on: {HOSTILE.replace(chr(0), chr(0xFFFD)).replace(chr(7), chr(0xFFFD))}",
        "fired at base 0/5, at head 5/5 (of 5 run(s) each)",
        "one-sided Fisher exact p 0.00397, Holm-adjusted 0.00794, alpha 0.05",
    ]
    assert isinstance(unsettled, Failure) and unsettled.type == "unsettled"
    assert unsettled.message == "github-triage fires: fired 5/5 at base -> 2/5 at head, p=0.0833, Holm 0.167"
    assert isinstance(errors, Error) and errors.type == "errors"
    assert errors.message == "github-triage fires: fired 5/5 at base -> 3/3 +2 err at head"
    assert suite.tests == 3 and suite.failures == 2 and suite.errors == 1


def test_a_changed_trigger_file_is_an_evidence_failure() -> None:
    from ratchet.outputs.junit import TRIGGERS
    from tests.helpers.trigger_checks import mixed_check, verdict_with_triggers

    check = mixed_check().model_copy(update={"file_changed": "triggers.yaml", "queries": []})
    [case] = [c for c in suite_of(render_junit(verdict_with_triggers(check))) if c.classname == TRIGGERS]
    [result] = case.result
    assert case.name == "trigger queries changed: triggers.yaml"
    assert isinstance(result, Failure) and result.type == "evidence"
    assert result.message == "triggers.yaml changed; the edit was checked with the base's trigger queries"
