"""ratchet.yaml: the retry policy and the timeout, and the frozen clock's shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import DEFAULT_TIMEOUT_S, RatchetConfig, load_project, parse_config
from ratchet.config.retry import RetryPolicy
from ratchet.core.errors import ConfigError, InputError


def test_retry_and_timeout_default_to_the_built_in_policy() -> None:
    config = RatchetConfig()
    assert config.retry == RetryPolicy(max_attempts=4, base_delay_s=0.5, max_delay_s=8.0, jitter=0.5)
    assert config.timeout_s == DEFAULT_TIMEOUT_S == 120.0


def test_retry_and_timeout_come_from_ratchet_yaml(tmp_path: Path) -> None:
    (tmp_path / "ratchet.yaml").write_text(
        "retry: {max_attempts: 2, base_delay_s: 0.01, max_delay_s: 0.02}\ntimeout_s: 5\n", encoding="utf-8"
    )
    config = load_project(tmp_path).config
    assert config.retry == RetryPolicy(max_attempts=2, base_delay_s=0.01, max_delay_s=0.02, jitter=0.5)
    assert config.timeout_s == 5.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("retry: {max_attempts: 0}\n", "ratchet.yaml: retry.max_attempts: Input should be greater than or equal to 1"),
        ("retry: {jitter: 1.5}\n", "ratchet.yaml: retry.jitter: Input should be less than or equal to 1"),
        ("retry: {attempts: 3}\n", "ratchet.yaml: retry.attempts: Extra inputs are not permitted"),
        ("timeout_s: 0\n", "ratchet.yaml: timeout_s: Input should be greater than 0"),
        (
            "clock: 2026-10-14 16:00\n",
            "ratchet.yaml: clock: Value error, must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, "
            "not '2026-10-14 16:00'",
        ),
        (
            "clock: '2026-10-14T16:00:00'\n",
            "ratchet.yaml: clock: Value error, must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, "
            "not '2026-10-14T16:00:00'",
        ),
    ],
)
def test_a_bad_section_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="ratchet.yaml")
    assert caught.value.one_line() == message


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("skills", "../x", "paths.skills: must be a relative path inside the project, not '../x'"),
        (
            "skills",
            "skills/../../..",
            "paths.skills: must be a relative path inside the project, not 'skills/../../..'",
        ),
        ("tasks", "/etc/hostname", "paths.tasks: must be a relative path inside the project, not '/etc/hostname'"),
        ("goldens", "../../goldens", "paths.goldens: must be a relative path inside the project, not '../../goldens'"),
        ("world", "/etc", "paths.world: must be a relative path inside the project, not '/etc'"),
        ("workspaces", "../", "paths.workspaces: must be a relative path inside the project, not '../'"),
        ("tasks", '"tasks\\0.yaml"', "paths.tasks: must be a relative path inside the project, without NUL bytes"),
    ],
)
def test_a_path_outside_the_project_is_refused(setting: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(f"paths:\n  {setting}: {value}\n", source="ratchet.yaml")
    assert caught.value.one_line() == f"ratchet.yaml: {message}"


def test_a_path_that_stays_inside_the_project_is_kept() -> None:
    assert parse_config("paths:\n  skills: skills/../my-skills\n", source="ratchet.yaml").paths.skills == (
        "skills/../my-skills"
    )


def test_a_project_root_that_is_a_file_or_missing_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_project(tmp_path / "afile")
    assert caught.value.one_line() == (
        f"{tmp_path / 'afile'}: this is a file, but a project root must be the folder that holds ratchet.yaml"
    )
    with pytest.raises(InputError, match=r"nowhere: no such folder, but a project root must be"):
        load_project(tmp_path / "nowhere")


def test_a_work_area_that_is_a_file_is_refused_and_nothing_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_project(tmp_path, home=tmp_path / "afile" / "home")
    assert caught.value.one_line().startswith(f"{tmp_path / 'afile'}: this is a file, but Ratchet's work area")
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "afile"))
    with pytest.raises(InputError, match="RATCHET_HOME or --work"):
        load_project(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "fresh"))
    load_project(tmp_path)
    assert not (tmp_path / "fresh").exists()  # loading a project writes nothing


def test_a_ratchet_yaml_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "ratchet.yaml").write_bytes(b"schema_version: 1\nclock: caf\xe9\n")
    with pytest.raises(ConfigError) as caught:
        load_project(tmp_path)
    assert caught.value.one_line() == f"{tmp_path / 'ratchet.yaml'}:2: not UTF-8 text (byte 28): save the file as UTF-8"
