from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.errors import ConfigError
from ratchet.gate.gate_config import (
    CONFIGS_DIR,
    default_gate_config,
    load_gate_config,
    resolve_gate_config,
)

SEVEN = ("cascade", "nano_only", "super_only", "ultra_only", "drift_off", "level0_off", "noise")


@pytest.mark.parametrize("name", SEVEN)
def test_every_config_loads(name: str) -> None:
    config = resolve_gate_config(name)
    assert config.name == name
    assert config.prompt_path().is_file()


def test_config_switches() -> None:
    configs = {name: resolve_gate_config(name) for name in SEVEN}
    assert [s.tier for s in configs["cascade"].tiers] == ["nano", "super", "ultra"]
    assert [s.tier for s in configs["nano_only"].tiers] == ["nano"]
    assert [s.tier for s in configs["super_only"].tiers] == ["super"]
    assert [s.tier for s in configs["ultra_only"].tiers] == ["ultra"]
    assert not configs["drift_off"].drift.enabled and configs["cascade"].drift.enabled
    assert not configs["level0_off"].level0 and configs["cascade"].level0
    assert configs["noise"].replays_per_golden > 1
    budgets = {s.tier: (s.max_input_tokens, s.max_output_tokens) for s in configs["cascade"].tiers}
    assert budgets == {"nano": (8000, 300), "super": (12000, 1000), "ultra": (15000, 2000)}


def test_default_is_cascade_yaml() -> None:
    assert default_gate_config() == load_gate_config(CONFIGS_DIR / "cascade.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tiers: [\n", "not valid YAML"),
        ("- a\n- b\n", "expected a mapping"),
        ("schema_version: 7\ntiers: []\n", "unsupported schema_version 7"),
        ("schema_version: 1\ntiers: []\n", "tiers: List should have at least 1 item"),
        ("schema_version: 1\nbogus: 1\ntiers: [{tier: nano, threshold: 0.5}]\n", "bogus: Extra inputs"),
        ("schema_version: 1\ntiers: [{tier: nano, threshold: 1.5}]\n", "tiers.0.threshold"),
        ("schema_version: 1\ntiers: [{tier: nano, threshold: 0.5}, {tier: nano, threshold: 0.5}]\n", "distinct"),
        ("schema_version: 1\ntiers: [{tier: nano, threshold: 0.5, escalate_on: [maybe]}]\n", "escalate_on"),
    ],
)
def test_bad_config_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_gate_config(path)
    assert message in str(info.value) and str(path) in str(info.value) and "\n" not in str(info.value)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_gate_config(tmp_path / "nope.yaml")
