"""A running capture proxy on a loopback port over a real store, for the wire-API tests.

The simulator is the default upstream (offline, free, deterministic); `live_rig` puts any
project (a FakeOpenAI server, the local llama.cpp model) behind the same proxy. The `rig` fixture is
that proxy on the simulator over tmp_path; a test module imports it (and lists it in `__all__`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from ratchet.config.project import Project, RatchetConfig
from ratchet.llm.proxy import CaptureProxy
from ratchet.sim.models import SIMULATOR
from ratchet.store.db import Store, open_store
from tests.helpers.fake_openai import ThreadedServer

TOKEN = "tok-h6"
ALIASES = {"claude-sonnet-4-5": "agent", "claude-haiku-*": "nano", "gpt-5-codex": "agent"}
PROBE_SKILL = (
    'Follow the skill below.\n<skill name="probe">\n# Probe\n## Steps\n'
    '1. Read the note: `files_read_file(path="note.txt")` as `$doc`.\n2. Record `$status = "read"`.\n'
    "## Output\n- `status`: `$status`\n- `content`: `$doc.content`\n</skill>"
)
"""A system prompt the simulated agent follows: one tool call, then a final answer."""
READ_TOOL_SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}

SDKClient = TypeVar("SDKClient")


@dataclass
class Rig:
    proxy: CaptureProxy
    store: Store
    port: int
    refusals: list[str] = field(default_factory=list)
    clients: list[Any] = field(default_factory=list)

    def keep(self, client: Any) -> Any:
        """Close `client` (an SDK client) when the proxy stops: no socket is left for the GC to warn about."""
        self.clients.append(client)
        return client

    def sdk(self, make: Callable[..., SDKClient], base_url: str, **options: Any) -> SDKClient:
        """`make(base_url=..., ...)`, an official SDK client, with the proxy's token unless `api_key` is
        given and no retries; kept, so it is closed when the proxy stops."""
        options.setdefault("api_key", TOKEN)
        client: SDKClient = self.keep(make(base_url=base_url, max_retries=0, **options))
        return client

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def v1(self) -> str:
        return f"{self.root}/v1"


def sim_project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, config=RatchetConfig(upstream="sim"), home=tmp_path / "home")


@contextmanager
def running_proxy(project: Project, *, run_id: str = "h6-run", **options: Any) -> Iterator[Rig]:
    store = open_store(project.home)
    refusals: list[str] = []
    # These tests read cache hits back as ledger rows, so they ask for them (`--ledger-hits`).
    options["gateway_options"] = {"ledger_hits": True, "simulator": SIMULATOR, **options.get("gateway_options", {})}
    proxy = CaptureProxy(
        project,
        store,
        run_id=run_id,
        token=TOKEN,
        model_aliases=options.pop("aliases", ALIASES),
        log=refusals.append,
        **options,
    )
    try:
        with ThreadedServer(proxy.app) as server:
            rig = Rig(proxy, store, server.port, refusals)
            try:
                yield rig
            finally:
                for client in rig.clients:
                    client.close()
    finally:
        proxy.close()
        store.close()


@contextmanager
def sim_rig(tmp_path: Path, **options: Any) -> Iterator[Rig]:
    """`running_proxy` on the simulator over a store in tmp_path/home."""
    with running_proxy(sim_project(tmp_path), **options) as running:
        yield running


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """A running proxy on the simulator over a store in tmp_path/home."""
    with sim_rig(tmp_path) as running:
        yield running
