"""ratchet.yaml: the retry policy and the timeout, and the frozen clock's shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config import DEFAULT_TIMEOUT_S, RatchetConfig, load_project, parse_config
from ratchet.errors import ConfigError
from ratchet.llm.retry import RetryPolicy


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
        ("clock: 2026-10-14 16:00\n",
         "ratchet.yaml: clock: Value error, must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, "
         "not '2026-10-14 16:00'"),
        ("clock: '2026-10-14T16:00:00'\n",
         "ratchet.yaml: clock: Value error, must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, "
         "not '2026-10-14T16:00:00'"),
    ],
)
def test_a_bad_section_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="ratchet.yaml")
    assert caught.value.one_line() == message
