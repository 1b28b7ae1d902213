"""The retry layer's arithmetic: doubling, the cap, seeded jitter, and when it gives up."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from ratchet.config.retry import RetryPolicy
from ratchet.llm.retry import CallFailed, UpstreamError, call_with_retries


def test_delays_double_up_to_the_cap_without_jitter() -> None:
    policy = RetryPolicy(jitter=0)
    assert [policy.delay(n, random.Random(0)) for n in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_jitter_scales_each_delay_within_its_band_and_is_seeded() -> None:
    policy = RetryPolicy()
    rng = random.Random(7)
    delays = [policy.delay(n, rng) for n in range(1, 5)]
    for base, delay in zip([0.5, 1.0, 2.0, 4.0], delays, strict=True):
        assert 0.5 * base <= delay <= 1.5 * base
    again = random.Random(7)
    assert [policy.delay(n, again) for n in range(1, 5)] == delays


def test_the_default_policy_sleeps_three_times_then_gives_up() -> None:
    slept: list[float] = []

    def always_503() -> str:
        raise UpstreamError("HTTP 503", retryable=True, status=503)

    with pytest.raises(CallFailed) as caught:
        call_with_retries(always_503, policy=RetryPolicy(), seed=1, label="nano", sleep=slept.append)
    assert caught.value.attempts == 4
    assert caught.value.one_line() == "nano: gave up after 4 attempts: HTTP 503"
    rng = random.Random(1)
    assert slept == [RetryPolicy().delay(n, rng) for n in (1, 2, 3)]


def test_a_non_retryable_error_is_not_retried() -> None:
    slept: list[float] = []

    def unauthorized() -> str:
        raise UpstreamError("HTTP 401", retryable=False, status=401)

    with pytest.raises(CallFailed) as caught:
        call_with_retries(unauthorized, policy=RetryPolicy(), seed=1, label="nano", sleep=slept.append)
    assert (caught.value.attempts, slept) == (1, [])


@pytest.mark.parametrize(
    "fields", [{"max_attempts": 0}, {"base_delay_s": -1}, {"max_delay_s": -0.5}, {"jitter": 1.1}, {"retries": 3}]
)
def test_a_policy_out_of_bounds_is_refused(fields: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        RetryPolicy.model_validate(fields)


def test_a_policy_is_frozen() -> None:
    with pytest.raises(ValidationError):
        RetryPolicy().max_attempts = 9  # type: ignore[misc]
