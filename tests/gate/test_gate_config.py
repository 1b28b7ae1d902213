from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.gate import (
    GateConfig,
    gate_config_path,
    load_gate_config,
    resolve_gate_config,
)
from ratchet.core.errors import ConfigError
from ratchet.data import packaged_config, packaged_config_names, packaged_prompt

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


def test_nine_configs_ship_in_the_package() -> None:
    assert packaged_config_names() == sorted((*SEVEN, "level0_only", "state_diff_off"))
    assert all(resolve_gate_config(name).prompt_path() == packaged_prompt("judge.md") for name in SEVEN)


def test_state_diff_off_is_the_cascade_without_the_state_diff() -> None:
    cascade, off = resolve_gate_config("cascade"), resolve_gate_config("state_diff_off")
    assert cascade.state_diff and not off.state_diff
    same = {"name", "description", "state_diff"}
    assert off.model_dump(exclude=same) == cascade.model_dump(exclude=same)


def test_level0_only_has_no_judges() -> None:
    config = resolve_gate_config("level0_only")
    assert config.tiers == [] and config.level0 and not config.drift.enabled
    assert "needs judging" in config.description
    assert GateConfig().tiers == []


def test_project_config_overrides_the_packaged_one(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    own = tmp_path / "configs" / "cascade.yaml"
    own.write_text(
        "schema_version: 1\nname: cascade\ndescription: ours\ntiers: [{tier: nano, threshold: 0.5}]\n", encoding="utf-8"
    )
    assert gate_config_path("cascade", project_root=tmp_path) == own
    assert resolve_gate_config("cascade", project_root=tmp_path).description == "ours"
    assert gate_config_path("nano_only", project_root=tmp_path) == packaged_config("nano_only")
    assert gate_config_path("cascade") == packaged_config("cascade")


def test_judge_prompt_is_relative_to_its_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gate").mkdir()
    path = tmp_path / "gate" / "strict.yaml"
    path.write_text(
        "schema_version: 1\njudge_prompt: prompts/strict.md\ntiers: [{tier: nano, threshold: 0.5}]\n", encoding="utf-8"
    )
    (tmp_path / "gate" / "prompts").mkdir()
    (tmp_path / "gate" / "prompts" / "strict.md").write_text("Judge strictly.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert resolve_gate_config("gate/strict.yaml").prompt_path() == tmp_path / "gate" / "prompts" / "strict.md"
    assert GateConfig(judge_prompt="mine.md").prompt_path() == Path("mine.md")


def test_unknown_config_name_is_one_line() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_gate_config("casade")
    message = str(info.value)
    assert message.startswith("unknown gate config 'casade': use one of cascade, drift_off, level0_off, level0_only,")
    assert "\n" not in message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tiers: [\n", "not valid YAML"),
        ("- a\n- b\n", "expected a mapping"),
        ("schema_version: 7\ntiers: []\n", "unsupported schema_version 7"),
        ("schema_version: 1\nlevel0: false\ntiers: []\n", "level0: false needs at least one judge tier"),
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


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        (
            "../../../../etc/hostname",
            "judge_prompt '../../../../etc/hostname' points outside this config file's folder: "
            "put the prompt inside this config file's folder and name it relative to the config file",
        ),
        (
            "missing.md",
            "judge_prompt 'missing.md' not found (relative to the config file's folder): fix the path, "
            "or drop judge_prompt to use the packaged judge",
        ),
    ],
)
def test_a_judge_prompt_outside_or_missing_names_the_config(tmp_path: Path, prompt: str, message: str) -> None:
    path = tmp_path / "gates" / "strict.yaml"
    path.parent.mkdir()
    path.write_text(
        f"schema_version: 1\ntiers: [{{tier: nano, threshold: 0.5}}]\njudge_prompt: {prompt}\n", encoding="utf-8"
    )
    with pytest.raises(ConfigError) as info:
        load_gate_config(path)
    assert info.value.one_line() == f"{path}: {message}"


def test_a_project_config_may_use_a_prompt_anywhere_in_the_project(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "judge.md").write_text("Judge.\n", encoding="utf-8")
    (tmp_path / "configs" / "mine.yaml").write_text(
        "schema_version: 1\ntiers: [{tier: nano, threshold: 0.5}]\njudge_prompt: ../prompts/judge.md\n",
        encoding="utf-8",
    )
    config = resolve_gate_config("mine", project_root=tmp_path)
    assert config.prompt_path().resolve() == (tmp_path / "prompts" / "judge.md").resolve()
    with pytest.raises(ConfigError, match="points outside this config file's folder"):
        load_gate_config(tmp_path / "configs" / "mine.yaml")  # no project given: its own folder is the limit
