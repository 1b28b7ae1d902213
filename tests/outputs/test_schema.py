"""docs/schema/verdict.json is the Verdict model's schema, up to date, and what --format json writes fits it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from ratchet.outputs.schema import DIALECT, render_schema
from tests.outputs.verdicts import mixed_verdict

PUBLISHED = Path(__file__).parents[2] / "docs" / "schema" / "verdict.json"


def test_the_published_schema_is_not_stale() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == render_schema(), (
        "docs/schema/verdict.json is stale: run `python -m ratchet.outputs.schema`"
    )


def test_the_schema_is_a_valid_2020_12_schema() -> None:
    schema = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    assert schema["$schema"] == DIALECT
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_verdict_as_json_validates_and_a_broken_one_does_not() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(PUBLISHED.read_text(encoding="utf-8")))
    data = json.loads(mixed_verdict().to_json())
    validator.validate(data)
    data["decision"] = "MAYBE"
    assert not validator.is_valid(data)
