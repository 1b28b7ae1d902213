"""action.yml's shape: its inputs, the order that fails the job last, and no input spliced into shell."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return data


def test_the_inputs_are_the_documented_ones_with_their_defaults() -> None:
    inputs = action()["inputs"]
    assert {name: spec["default"] for name, spec in inputs.items()} == {
        "config": "cascade",
        "budget": "",
        "harness": "minimal",
        "on-error": "",
        "base": "",
        "comment": "true",
        "github-token": "${{ github.token }}",
        "python-version": "3.12",
        "ratchet-source": "",
    }
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    for name in inputs:
        assert f"`{name}`" in docs, f"docs/ci.md does not document the input {name}"


def test_the_job_fails_only_after_the_comment_and_the_upload() -> None:
    steps = [s.get("name") or s["uses"] for s in action()["runs"]["steps"]]
    assert steps.index("Sticky PR comment") < steps.index("Upload Ratchet outputs") < steps.index("Decide")
    assert steps[-1] == "Decide"
    by_name = {s.get("name"): s for s in action()["runs"]["steps"]}
    for name in ("Sticky PR comment", "Upload Ratchet outputs", "Decide"):
        assert by_name[name]["if"].startswith("always()"), name


def test_a_pull_request_only_restores_the_cache() -> None:
    steps = action()["runs"]["steps"]
    caches = [(s["uses"], s.get("if", "")) for s in steps if s.get("uses", "").startswith("actions/cache")]
    assert caches == [
        ("actions/cache/restore@v4", ""),
        (
            "actions/cache/save@v4",
            "always() && github.event_name != 'pull_request' && github.event_name != 'pull_request_target'",
        ),
    ]


def test_no_expression_but_the_action_path_is_spliced_into_a_run_script() -> None:
    for step in action()["runs"]["steps"]:
        if "run" in step:
            assert re.findall(r"\$\{\{[^}]*\}\}", step["run"]) in ([], ["${{ github.action_path }}"]), step["name"]


def test_the_docs_workflow_uses_this_action_with_the_permissions_it_needs() -> None:
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", docs, flags=re.S)
    workflow = yaml.safe_load(blocks[0])
    assert workflow["permissions"] == {"contents": "read", "pull-requests": "write"}
    [job] = workflow["jobs"].values()
    checkout, gate = job["steps"][0], job["steps"][1]
    assert checkout["with"]["fetch-depth"] == 0
    assert set(gate.get("with", {})) <= set(action()["inputs"])
    gitlab = yaml.safe_load(blocks[-1])
    assert gitlab["ratchet"]["artifacts"]["reports"]["junit"] == "ratchet-junit.xml"
    assert "$CI_MERGE_REQUEST_DIFF_BASE_SHA" in " ".join(gitlab["ratchet"]["script"])
