"""Before any model call: every tier a run names exists and, on the live path, has its key and an
api_base that answers at all, so a dead upstream fails the run in a second with one line.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

from ratchet.config.project import TierConfig
from ratchet.core.errors import ConfigError, InfraError
from ratchet.llm.secrets import key_from_env

PREFLIGHT_TIMEOUT_S = 1.5


def _connect_problem(exc: BaseException) -> str:
    """A failed connection in a few words: the root cause, not the wrapper's name."""
    link: BaseException | None = exc
    depth = 0
    while link is not None:
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return "host not found"
        link = link.__cause__ or link.__context__
        depth += 1
        if depth > 20:  # a cyclic chain
            break
    return " ".join(str(exc).split())[:120] or type(exc).__name__


def probe_base(api_base: str, *, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> str | None:
    """Why `api_base` does not answer, or None when GET <base>/models gets any HTTP status at all
    (a 401 or 404 is an upstream that is up). No key is sent; proxies apply as for model calls."""
    import httpx

    try:
        with httpx.Client(timeout=timeout_s, follow_redirects=False) as client:
            client.get(api_base.rstrip("/") + "/models")
    except httpx.TimeoutException:
        return f"no answer within {timeout_s:g} s"
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        return _connect_problem(exc)
    return None


def check_tiers(
    configured: Mapping[str, TierConfig],
    tiers: Iterable[str],
    *,
    injected: Collection[str],
    simulated: bool,
    probe: Callable[[str], str | None],
    named_by: Path | str | None = None,
) -> None:
    """What Gateway.preflight checks: `configured` are ratchet.yaml's tiers, `injected` the tiers an
    upstream model was handed for (never probed), `probe` says why an api_base does not answer."""
    wanted = list(dict.fromkeys(tiers))
    for tier in wanted:
        if tier not in configured and tier not in injected:
            known = ", ".join(sorted(configured))
            raise ConfigError(
                f"unknown model tier {tier!r} (ratchet.yaml configures: {known}); add it under "
                "tiers: in ratchet.yaml or name a configured tier",
                path=named_by,
            )
    if simulated:
        return
    live = [(tier, configured[tier]) for tier in wanted if tier in configured and tier not in injected]
    for tier, config in live:
        if config.api_key_env and key_from_env(config.api_key_env) is None:
            raise InfraError(
                f"tier {tier}: {config.api_key_env} is not set (the key for {config.model}); export it, then re-run"
            )
    problems: dict[str, str | None] = {}
    for tier, config in live:
        if config.api_base is None:  # the provider's own endpoint: litellm knows it, we do not
            continue
        if config.api_base not in problems:
            problems[config.api_base] = probe(config.api_base)
        problem = problems[config.api_base]
        if problem is not None:
            raise InfraError(
                f"tier {tier}: cannot reach {config.api_base} ({problem}); start the server or "
                "fix the tier's api_base in ratchet.yaml"
            )
