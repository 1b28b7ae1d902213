"""The RATCHET_* environment, in one pydantic-settings model.

`read_env()` reads the environment afresh on every call (tests and the demo change it while
the process runs), and turns a bad value into one ConfigError line naming the variable.
ratchet.yaml sits under it: load_project applies RATCHET_UPSTREAM and RATCHET_CLOCK on top.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ratchet.core.errors import ConfigError

ENV_PREFIX = "RATCHET_"
DEFAULT_CAP_USD = 12.0
Upstream = Literal["sim", "live"]

_FALSE = ("0", "false", "no", "off", "n", "f")


def utc_instant(value: str) -> str:
    """`value` when it is an ISO-8601 UTC instant such as 2026-10-14T16:00:00Z (the frozen clock)."""
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        moment = None
    if moment is None or "T" not in value or moment.utcoffset() != dt.timedelta(0):
        raise ValueError(f"must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not {value!r}")
    return value


class _DebugEnv(BaseSettings):
    """RATCHET_DEBUG alone: the CLI's error path reads it and must not fail on another variable."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="ignore", frozen=True)

    debug: bool = Field(default=False, description="Re-raise RatchetErrors with their traceback.")

    @field_validator("debug", mode="before")
    @classmethod
    def _any_word_but_false(cls, value: object) -> object:
        # Any value but an explicit false switches debugging on, as a bare RATCHET_DEBUG=yes-please always did.
        if isinstance(value, str):
            return value.strip().lower() not in _FALSE
        return value


class RatchetEnv(_DebugEnv):
    """Every environment variable Ratchet reads for itself (API keys are read by name, elsewhere)."""

    upstream: Upstream | None = Field(default=None, description="Overrides ratchet.yaml's upstream.")
    clock: str | None = Field(default=None, description="Overrides ratchet.yaml's frozen clock.")
    home: Path | None = Field(default=None, description="The work area (store, caches, pending traces).")
    bench_usd_cap: float = Field(default=DEFAULT_CAP_USD, ge=0, description="Global cap on real spend, USD.")
    xdg_cache_home: Path | None = Field(
        default=None, validation_alias="XDG_CACHE_HOME", description="Where the default work area goes."
    )

    @field_validator("clock")
    @classmethod
    def _clock_is_utc(cls, value: str | None) -> str | None:
        return None if value is None else utc_instant(value)


# What a variable must be, for the one-line error; pydantic's own message otherwise.
_MUST_BE = {
    "upstream": "must be 'sim' or 'live'",
    "bench_usd_cap": "must be a number of USD, 0 or more",
}


def _one_line(exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    name = field if field.isupper() else f"{ENV_PREFIX}{field.upper()}"
    if field in _MUST_BE:
        return f"{name} {_MUST_BE[field]}, not {first['input']!r}"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{name} {message}"


def read_env() -> RatchetEnv:
    """The RATCHET_* environment as it is now; ConfigError naming the first bad variable."""
    try:
        return RatchetEnv()
    except ValidationError as exc:
        raise ConfigError(_one_line(exc)) from None


def debug_enabled() -> bool:
    """RATCHET_DEBUG: let RatchetErrors keep their traceback."""
    return _DebugEnv().debug


@contextmanager
def on_the_simulator() -> Iterator[None]:
    """RATCHET_UPSTREAM=sim inside the block (the demo, the smoke and the bench's mutation measurement are offline
    by definition, whatever the shell says), and as it was afterwards: a later run in the same process (a test
    session, an API caller) must not find itself silently on the simulator."""
    name = f"{ENV_PREFIX}UPSTREAM"
    was = os.environ.get(name)
    os.environ[name] = "sim"
    try:
        yield
    finally:
        if was is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = was
