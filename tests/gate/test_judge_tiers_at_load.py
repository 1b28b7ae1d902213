"""A gate config's judge tiers are checked when it is loaded, not when the first pair is judged.

`agent` runs the tasks and is never a judge; a tier ratchet.yaml does not configure cannot be
called. Either is a one-line exit-2 error naming the config file and the tier, before any replay.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import GateConfig, TierStep, check_judge_tiers, resolve_gate_config
from ratchet.config.project import RatchetConfig
from ratchet.core.errors import ConfigError
from ratchet.data import packaged_config, packaged_config_names
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git

EDIT = next(edit for edit in EDITS if edit.branch == "edit/reworded-status")  # differs, so judges would be asked
KNOWN = "injector, nano, super, ultra"


def _mine(tier: str) -> str:
    return f"schema_version: 1\nname: mine\ntiers:\n  - tier: {tier}\n    threshold: 0.0\n"


@pytest.mark.parametrize(
    ("tier", "message"),
    [
        ("agent", f"tier 'agent' runs the tasks and is never a judge: name a judge tier ({KNOWN})"),
        (
            "mega",
            f"unknown judge tier 'mega' (ratchet.yaml configures: {KNOWN}): add it under tiers: in ratchet.yaml "
            "or name a configured tier",
        ),
    ],
    ids=["agent", "unknown"],
)
def test_check_refuses_a_config_whose_judge_tier_cannot_judge_before_any_replay(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch, tier: str, message: str
) -> None:
    commit(demo_repo, {"configs/mine.yaml": _mine(tier)}, "own gate")
    base = git(demo_repo, "rev-parse", "HEAD")
    rel = f"skills/{EDIT.skill}/SKILL.md"
    commit(demo_repo, {rel: EDIT.apply((demo_repo / rel).read_text(encoding="utf-8"))}, "edit")
    monkeypatch.chdir(demo_repo)
    checked = CliRunner().invoke(app, ["check", "--base", base, "--config", "mine"])
    assert (checked.exit_code, checked.stdout) == (2, "")
    assert checked.stderr == f"error: configs/mine.yaml@{base[:10]}: {message}\n"


@pytest.mark.parametrize("name", packaged_config_names())
def test_every_packaged_config_names_configured_judge_tiers(name: str) -> None:
    check_judge_tiers(resolve_gate_config(name), RatchetConfig().tiers, source=packaged_config(name))


def test_a_config_built_in_code_is_named_by_its_name() -> None:
    config = GateConfig(name="strict", tiers=[TierStep(tier="agent", threshold=0.5)])
    with pytest.raises(ConfigError) as info:
        check_judge_tiers(config, RatchetConfig().tiers, source=None)
    assert info.value.one_line() == (
        f"gate config 'strict': tier 'agent' runs the tasks and is never a judge: name a judge tier ({KNOWN})"
    )
