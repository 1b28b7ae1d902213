"""Before any model call: every tier a run names exists and, on the live path, has its key and an
api_base that answers and serves the tier's model, so a dead or wrong upstream fails the run in a
second with one line.

A base is asked once per preflight (GET <base>/models, the tier's key as a bearer token when it has
one, so a hosted provider's list can be read too), every distinct base at the same time, each with a wall-clock deadline of
PREFLIGHT_TIMEOUT_S, so the whole check stays under that however many bases a run names and however
slowly a server or the resolver answers.
"""

from __future__ import annotations

import difflib
import os
import socket
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ratchet.config.project import RatchetConfig, TierConfig
from ratchet.core.errors import ConfigError, InfraError
from ratchet.llm.secrets import key_from_env

PREFLIGHT_TIMEOUT_S = 1.5
PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")  # what httpx accepts in HTTP(S)_PROXY and ALL_PROXY
SOCKS_SCHEMES = ("socks5", "socks5h")
SHOWN_IDS = 3  # how many listed ids a "does not serve" line names: the closest to the one asked for


@dataclass(frozen=True)
class Listing:
    """What GET <base>/models said: why the base does not answer (`problem`), or the model ids it lists
    (`ids`; None when the answer cannot tell: a 401 or 404, a redirect, anything but an OpenAI-style list)."""

    problem: str | None = None
    ids: tuple[str, ...] | None = None
    proxy: str | None = None  # the variable naming the proxy the probe went through, if any
    bad_proxy: str | None = None  # the variable whose proxy httpx cannot use (`problem` says why)


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


def _listed_ids(body: Any) -> tuple[str, ...] | None:
    """The ids of an OpenAI-style model list ({"data": [{"id": ...}, ...]}), or None for anything else."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    ids = tuple(entry["id"] for entry in data if isinstance(entry, dict) and isinstance(entry.get("id"), str))
    return ids or None  # an empty list says nothing about what the server would answer


def _proxy_setting(scheme: str) -> str | None:
    """The variable httpx takes `scheme`'s proxy from (as urllib reads them: the lowercase one first)."""
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY"):
        if os.environ.get(name):
            return name
    return None


def proxy_variable(url: str) -> str | None:
    """The variable naming the proxy a request to `url` goes through (httpx: the scheme's, else ALL_PROXY)."""
    return _proxy_setting(urlsplit(url).scheme.lower()) or _proxy_setting("all")


def _bad_proxy(exc: BaseException) -> tuple[str, str]:
    """Which proxy variable httpx refused, and why in a few words (never the URL: it may hold a password)."""
    socks = isinstance(exc, ImportError)  # httpx raises it for a socks5:// proxy without socksio
    why = (
        "a SOCKS proxy needs the socksio package: pip install 'httpx[socks]'"
        if socks
        else ("not an http, https or socks5 proxy URL")
    )
    for scheme in ("http", "https", "all"):
        name = _proxy_setting(scheme)
        if name is None:
            continue
        value = os.environ[name]
        used = urlsplit(value if "://" in value else f"http://{value}").scheme.lower()
        if (used in SOCKS_SCHEMES) if socks else (used not in PROXY_SCHEMES):
            return name, why
    return "the proxy settings", why


def probe_base(api_base: str, *, key: str | None = None, timeout_s: float = PREFLIGHT_TIMEOUT_S) -> Listing:
    """GET <base>/models: any HTTP status means the base is up; a 200 with a model list also says what
    it serves. `key` goes in the Authorization header only (never into a message); proxies apply as
    for model calls. The whole probe, name lookup included, gets `timeout_s` of wall time: httpx's
    timeout bounds each read, so a server that trickles its answer a byte at a time would otherwise
    hold the run as long as it likes."""
    answer: list[Listing] = []
    failed: list[BaseException] = []
    done = threading.Event()

    def ask() -> None:
        try:
            answer.append(_ask(api_base, key, timeout_s))
        except BaseException as exc:  # re-raised below, in the caller's thread
            failed.append(exc)
        finally:
            done.set()

    # A daemon thread: a probe past its deadline is abandoned, and must not keep the process alive.
    threading.Thread(target=ask, name="ratchet-preflight", daemon=True).start()
    if not done.wait(timeout_s):  # httpx's own timeouts would say the same: no answer within timeout_s
        return Listing(problem=f"no answer within {timeout_s:g} s")
    if failed:
        raise failed[0]
    return answer[0]


def _through_proxy(client: Any, url: str) -> str | None:
    """The variable naming the proxy `client` sends `url` through, None when it goes direct. httpx's own
    choice (its private _transport_for_url: NO_PROXY matched exactly as for the request), so the line
    never blames a proxy the probe did not use; a future httpx without it just loses the wording."""
    import httpx

    try:
        direct = client._transport_for_url(httpx.URL(url)) is client._transport
    except (httpx.InvalidURL, AttributeError):
        return None
    return None if direct else proxy_variable(url)


def _ask(api_base: str, key: str | None, timeout_s: float) -> Listing:
    import httpx

    url = api_base.rstrip("/") + "/models"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        client = httpx.Client(timeout=timeout_s, follow_redirects=False)
    except (ImportError, ValueError) as exc:  # proxy settings httpx cannot use: no socksio, an ftp:// proxy
        name, why = _bad_proxy(exc)
        return Listing(problem=why, bad_proxy=name)
    with client:
        through = _through_proxy(client, url)
        try:
            reply = client.get(url, headers=headers)
        except httpx.TimeoutException:
            return Listing(problem=f"no answer within {timeout_s:g} s", proxy=through)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return Listing(problem=_connect_problem(exc), proxy=through)
    if reply.status_code != 200:
        return Listing()
    try:
        return Listing(ids=_listed_ids(reply.json()))
    except ValueError:  # not JSON: a web page, a proxy's banner
        return Listing()


def sent_names(model: str) -> tuple[str, ...]:
    """The names a server may list for a tier's model: litellm sends the id after the provider prefix
    (`openai/qwen2.5` asks for `qwen2.5`, `nebius/org/model` for `org/model`); the whole id too, for a
    server that lists it so; and Ollama lists `name:latest` for an untagged `name` it serves."""
    _, slash, rest = model.partition("/")
    sent = rest if slash else model
    names = [sent, model]
    if ":" not in sent:
        names.append(f"{sent}:latest")
    return tuple(dict.fromkeys(names))


def _served(ids: Iterable[str]) -> set[str]:
    """The model names a list serves: each id as listed and, for Gemini's OpenAI-compatible endpoint,
    which lists `models/gemini-2.0-flash` for the `gemini-2.0-flash` it answers to, without `models/`."""
    return {name for listed in ids for name in (listed, listed.removeprefix("models/"))}


def _not_served(tier: str, config: TierConfig, base: str, ids: tuple[str, ...]) -> InfraError:
    sent = sent_names(config.model)[0]
    closest = difflib.get_close_matches(sent, ids, n=SHOWN_IDS, cutoff=0.0)
    more = f" and {len(ids) - len(closest)} more" if len(ids) > len(closest) else ""
    # Exit 3, not 2: ratchet.yaml is not wrong on its face (the same file is right against a server that
    # serves this model); what the server serves is known only by asking it, like whether it answers.
    return InfraError(
        f"tier {tier}: {base} does not serve {sent!r} (it lists {', '.join(closest)}{more}); "
        "set the tier's model in ratchet.yaml to a listed one, or serve that model"
    )


def check_tiers(
    configured: Mapping[str, TierConfig],
    tiers: Iterable[str],
    *,
    injected: Collection[str],
    simulated: bool,
    probe: Callable[[str, str | None], Listing],
    named_by: Path | str | None = None,
) -> None:
    """What Gateway.preflight checks: `configured` are ratchet.yaml's tiers, `injected` the tiers an
    upstream model was handed for (never probed), `probe(base, key)` what an api_base answers."""
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
    keys: dict[str, str | None] = {}
    for tier, config in live:
        key = key_from_env(config.api_key_env)
        if config.api_key_env and key is None:
            raise InfraError(
                f"tier {tier}: {config.api_key_env} is not set (the key for {config.model}); export it, then re-run"
            )
        if config.api_base is not None and keys.get(config.api_base) is None:
            keys[config.api_base] = key  # one probe per base, with the first key a tier on it has
    listings = _probe_all(keys, probe)
    for tier, config in live:
        if config.api_base is None:  # the provider's own endpoint: litellm knows it, we do not
            continue
        listing = listings[config.api_base]
        if listing.bad_proxy is not None:
            raise InfraError(
                f"tier {tier}: the proxy in {listing.bad_proxy} cannot be used ({listing.problem}); "
                f"fix or unset {listing.bad_proxy}"
            )
        if listing.problem is not None and listing.proxy is not None:
            raise InfraError(
                f"tier {tier}: cannot reach {config.api_base} through the proxy in {listing.proxy} "
                f"({listing.problem}); start the server, or fix {listing.proxy} (or add the host to NO_PROXY)"
            )
        if listing.problem is not None:
            raise InfraError(
                f"tier {tier}: cannot reach {config.api_base} ({listing.problem}); start the server or "
                "fix the tier's api_base in ratchet.yaml"
            )
        if listing.ids is not None and not set(sent_names(config.model)) & _served(listing.ids):
            raise _not_served(tier, config, config.api_base, listing.ids)


def _probe_all(keys: Mapping[str, str | None], probe: Callable[[str, str | None], Listing]) -> dict[str, Listing]:
    """Every base's listing; several bases are asked at once, so a run's preflight waits for one timeout."""
    if len(keys) <= 1:
        return {base: probe(base, key) for base, key in keys.items()}
    with ThreadPoolExecutor(max_workers=min(8, len(keys)), thread_name_prefix="ratchet-preflight") as pool:
        futures = {base: pool.submit(probe, base, key) for base, key in keys.items()}
        return {base: future.result() for base, future in futures.items()}


def preflight_config(config: RatchetConfig, tiers: Iterable[str], *, named_by: Path | str | None = None) -> None:
    """Gateway.preflight for a command that has no gateway yet (or not before its first piece of work):
    the same checks, the same lines, for ratchet.yaml's tiers as configured."""
    check_tiers(
        config.tiers,
        tiers,
        injected=(),
        simulated=config.upstream == "sim",
        probe=lambda base, key: probe_base(base, key=key, timeout_s=PREFLIGHT_TIMEOUT_S),
        named_by=named_by,
    )
