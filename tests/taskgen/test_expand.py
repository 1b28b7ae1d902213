"""Template expansion: knobs shape the prompt, the seed decides the draw, bad templates are one line."""

from __future__ import annotations

import pytest

from ratchet.core.errors import InputError
from ratchet.taskgen.expand import expand
from ratchet.taskgen.templates import parse_templates

WORLD = {
    "github": {
        "repos": {
            "acme/widgets": {
                "issues": [
                    {"number": 101, "state": "open"},
                    {"number": 102, "state": "open"},
                    {"number": 103, "state": "open"},
                    {"number": 90, "state": "closed"},
                ]
            }
        }
    }
}

TEMPLATE = """\
schema_version: 1
templates:
- id: triage
  skill: github-triage
  prompt: Please triage {issue} in {repo}.
  slots:
    repo: [acme/widgets]
    issue:
      world: [github, repos, acme/widgets, issues]
      field: number
      where: {state: open}
      format: "#{}"
  items: issue
  distractor: Leave {issue} alone, it was handled yesterday.
  edge: [999]
  knobs:
    horizon: [1, 2]
    distractors: [0, 1]
    edge_case: [false, true]
"""


def _tasks(seed: int) -> list[tuple[str, str]]:
    templates = parse_templates(TEMPLATE, source="t.yaml")
    return [(g.task.id, g.task.prompt) for g in expand(templates, WORLD, seed=seed, source="t.yaml")]


def test_the_grid_is_walked_and_the_knobs_show_in_the_prompt() -> None:
    tasks = dict(_tasks(3))
    assert len(tasks) == 8
    plain = tasks["triage-h1d0-s3-1"]
    assert plain.startswith("Please triage #10") and plain.endswith(" in acme/widgets.") and "#90" not in plain
    two = tasks["triage-h2d0-s3-1"]
    assert " and #10" in two  # horizon 2 names two open issues
    decoy = tasks["triage-h1d1-s3-1"]
    assert "Leave #10" in decoy and "alone, it was handled yesterday." in decoy
    assert "#999" in tasks["triage-h1d0e-s3-1"] and "#999" in tasks["triage-h2d1e-s3-1"]


def test_the_same_seed_draws_the_same_tasks_and_another_seed_others() -> None:
    assert _tasks(3) == _tasks(3)
    assert [p for _, p in _tasks(3)] != [p for _, p in _tasks(4)]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("    repo: [acme/widgets]\n", "", "t.yaml:3: template triage: {repo} is not one of its slots (issue)"),
        (
            "Leave {issue} alone",
            "Leave it alone",
            "t.yaml:3: template triage: distractors need a `distractor:` phrase that names {issue}",
        ),
        (
            "edge: [999]",
            "edge: []",
            "t.yaml:3: template triage: edge_case: true needs `edge:` values for its items slot",
        ),
        (
            'format: "#{}"',
            'format: "#{0.real}"',
            "t.yaml:3: template triage: slot issue: format must hold one {} and nothing else in braces, not '#{0.real}'",
        ),
        ("knobs:", "knobz:", "t.yaml:3: templates.0.knobz: Extra inputs are not permitted"),
    ],
)
def test_a_bad_template_is_one_line_naming_it(old: str, new: str, message: str) -> None:
    assert old in TEMPLATE
    with pytest.raises(InputError) as caught:
        parse_templates(TEMPLATE.replace(old, new), source="t.yaml")
    assert caught.value.one_line() == message


def test_a_pool_too_small_for_the_knobs_is_refused() -> None:
    templates = parse_templates(TEMPLATE.replace("horizon: [1, 2]", "horizon: [1, 3]"), source="t.yaml")
    with pytest.raises(InputError, match="slot issue has 3 value"):
        expand(templates, WORLD, seed=0, source="t.yaml")


def _one(body: str) -> str:
    return f"schema_version: 1\ntemplates:\n- id: a\n  skill: github-triage\n{body}"


def _expand(text: str, seed: int = 0) -> list[str]:
    templates = parse_templates(text, source="t.yaml")
    return [g.task.prompt for g in expand(templates, WORLD, seed=seed, source="t.yaml", lines=[3])]


def test_a_repeated_pool_value_counts_once() -> None:
    text = _one('  prompt: "Triage #{x}."\n  slots:\n    x: [101, 101, 102]\n  items: x\n')
    text += '  distractor: "Leave #{x} alone."\n  knobs:\n    distractors: [2]\n'
    with pytest.raises(InputError) as caught:
        _expand(text)
    assert caught.value.one_line() == "t.yaml:3: template a: slot x has 2 value(s); horizon 1 plus distractors 2 need 3"
    # A world field that repeats across rows: each value once, so two items are never the same value.
    states = _one(
        "  prompt: Triage the {x} issues.\n  slots:\n    x:\n      world: [github, repos, acme/widgets, issues]\n"
    )
    states += "      field: state\n  items: x\n  knobs:\n    horizon: [2]\n"
    for seed in range(6):
        (prompt,) = _expand(states, seed)
        assert prompt in ("Triage the open and closed issues.", "Triage the closed and open issues.")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2, 3]\n  items: x\n  knobs:\n    horizon: [1, 1, 2]\n",
            "t.yaml:3: template a: knobs: horizon lists 1 twice",
        ),
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2]\n  items: x\n  edge: [9]\n  knobs:\n"
            "    edge_case: [true, true]\n",
            "t.yaml:3: template a: knobs: edge_case lists True twice",
        ),
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2]\n  items: x\n  knobs:\n    horizon: [true]\n",
            "t.yaml:3: templates.0.knobs.horizon.0: Input should be a valid integer",
        ),
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2]\n  items: x\n  knobs:\n    horizon: ['2']\n",
            "t.yaml:3: templates.0.knobs.horizon.0: Input should be a valid integer",
        ),
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2]\n  items: x\n  edge: [9]\n  knobs:\n"
            "    edge_case: ['yes']\n",
            "t.yaml:3: templates.0.knobs.edge_case.0: Input should be a valid boolean",
        ),
        (
            "  prompt: Triage {x}.\n  slots:\n    x: [1, 2]\n  variants: '2'\n",
            "t.yaml:3: templates.0.variants: Input should be a valid integer",
        ),
    ],
)
def test_repeated_or_loosely_typed_knobs_are_one_line(body: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_templates(_one(body), source="t.yaml")
    assert caught.value.one_line() == message


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "  prompt: Triage {x}.\n  slots:\n    x:\n      world: [github, repos, acme/widgets, issues]\n",
            "t.yaml:3: template a: slot x: the rows at world path github.repos.acme/widgets.issues are mappings, "
            "not values: name one of their fields with `field:`",
        ),
        (
            "  prompt: 'Triage #{x}.'\n  slots:\n    x:\n      world: [github, repos, acme/widgets, issues]\n"
            "      field: number\n  items: x\n  edge: [101, 999]\n  knobs:\n    edge_case: [true]\n",
            "t.yaml:3: template a: edge value 101 is also a value of slot x: an edge case must be a value it does not hold",
        ),
    ],
)
def test_a_template_the_world_does_not_fit_is_one_line(body: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        _expand(_one(body))
    assert caught.value.one_line() == message


def test_a_seed_that_makes_an_id_too_long_is_refused_before_anything_runs() -> None:
    text = _one("  prompt: Triage {x}.\n  slots:\n    x: [1]\n").replace("- id: a", "- id: " + "a" * 48)
    assert len(_expand(text, seed=10**20)) == 1
    with pytest.raises(InputError) as caught:
        _expand(text, seed=10**40)
    assert caught.value.one_line().startswith(f"t.yaml:3: template {'a' * 48}: seed {10**40} makes task id ")
