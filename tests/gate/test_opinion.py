from __future__ import annotations

import pytest

from ratchet.gate.opinion import OPINION_SCHEMA, parse_answer


def test_plain_json() -> None:
    got = parse_answer('{"verdict": "regression", "confidence": 0.9, "changed_elements": ["total"], "rationale": "r"}')
    assert (got.verdict, got.confidence, got.changed_elements) == ("regression", 0.9, ["total"])


def test_tolerant_of_prose_fences_and_case() -> None:
    text = 'Sure! Here is my answer:\n```json\n{"verdict": " PASS ", "confidence": 1}\n```\nThanks.'
    got = parse_answer(text)
    assert got.verdict == "pass" and got.confidence == 1.0 and got.rationale == ""


def test_objects_that_are_no_answer_are_skipped() -> None:
    text = '{"note": "thinking"} {"verdict": "maybe", "confidence": 0.5} {"verdict": "unsure", "confidence": 0.4}'
    assert parse_answer(text).verdict == "unsure"


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "   ",
        "no json here",
        '{"verdict": "pass"}',
        '{"verdict": "pass", "confidence": 1.5}',
        "[1, 2]",
        "{broken",
    ],
)
def test_unparseable(text: str | None) -> None:
    with pytest.raises(ValueError):
        parse_answer(text)


def test_schema_names_every_verdict() -> None:
    assert OPINION_SCHEMA["properties"]["verdict"]["enum"] == ["same", "pass", "regression", "unsure"]
