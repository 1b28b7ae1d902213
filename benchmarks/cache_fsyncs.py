"""The response cache's syncs per live call and per cache hit: an fsync per entry (before) vs one per batch.

In this process, os.fsync and ratchet.llm.cache.sync_filesystem (syncfs(2)) are wrapped to count
calls; the product is not changed. Each variant runs CHECKS "checks" in a fresh work area, each
a Gateway on a live project (a `nano` tier whose echo model is injected: the path a paid call takes; a
simulated answer is never synced at all) with a local echo upstream: K distinct live calls, the same
K again (every one a cache hit), then close (where the batch is synced). Variants:
  before         the cache's former put, verbatim: each entry written by atomic_write_text (one fsync)
  after          entries renamed into place unsynced, one syncfs per batch (FLUSH_EVERY, or the close)
  after-no-syncfs  the same batches where there is no syncfs: an fsync per entry and per folder at the end
The ledger's own syncs (SQLite, not os.fsync) are benchmarks/ledger_fsyncs.py's.
Run: .venv/bin/python benchmarks/cache_fsyncs.py [K] [CHECKS]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, digest
from ratchet.llm import cache as cache_module
from ratchet.llm.cache import CACHE_SCHEMA_VERSION, ResponseCache, cache_root
from ratchet.llm.gateway import Gateway
from ratchet.store.db import open_store


class Echo:
    """A local upstream that answers at once, so only the gateway's own work is measured."""

    model_id = "local/echo"

    def complete(self, request: ChatRequest) -> ChatResponse:
        text = str(request.messages[-1].content)
        return ChatResponse(
            message=Message(role="assistant", content=f"echo {text}"), usage=Usage(tokens_in=9, tokens_out=3)
        )


class EntrySyncedCache(ResponseCache):
    """The cache's put as it was before batches (an fsync per entry); its flush then has nothing to sync."""

    def put(self, key: str, response: ChatResponse) -> None:
        secret = self._load_secret()
        if secret is None:
            return
        body = response.model_dump(mode="json")
        content = digest(body)
        record = {
            "schema_version": CACHE_SCHEMA_VERSION,
            "key": key,
            "response": body,
            "response_sha256": content,
            "mac": cache_module._mac(secret, key, content),
        }
        atomic_write_text(self.path(key), canonical_dumps(record))


class Counts:
    def __init__(self) -> None:
        self.fsync = 0
        self.syncfs = 0


@contextmanager
def swapped(module: ModuleType, name: str, value: Any) -> Iterator[Any]:
    """`module.name` replaced by `value` in this process for the block; yields the original."""
    original = getattr(module, name)
    setattr(module, name, value)
    try:
        yield original
    finally:
        setattr(module, name, original)


@contextmanager
def counted(counts: Counts, *, syncfs: bool) -> Iterator[None]:
    real_fsync, real_sync_filesystem = os.fsync, cache_module.sync_filesystem

    def fsync(fd: int) -> None:
        counts.fsync += 1
        real_fsync(fd)

    def sync_filesystem(path: Path) -> bool:
        done = real_sync_filesystem(path)
        counts.syncfs += done
        return done

    with (
        swapped(os, "fsync", fsync),
        swapped(cache_module, "sync_filesystem", sync_filesystem),
        swapped(cache_module, "_syncfs", cache_module.__dict__["_syncfs"] if syncfs else lambda: None),
    ):
        yield


def _request(check: int, i: int) -> ChatRequest:
    return ChatRequest.model_validate(
        {"messages": [{"role": "user", "content": f"check {check} question {i}"}], "max_tokens": 20}
    )


def run_variant(variant: str, k: int, checks: int) -> dict[str, float]:
    live, hits = Counts(), Counts()
    live_s = hit_s = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        # live: nothing listens at the tier's api_base, the echo model below answers in its place
        tiers = {"nano": TierConfig(model="openai/echo", api_base="http://127.0.0.1:9/v1")}
        config = RatchetConfig(upstream="live", tiers=tiers, prices={"openai/echo": Price(input=0.0, output=0.0)})
        project = Project(root=Path(tmp), config=config, home=Path(tmp) / "home")
        store = open_store(project.home)
        ResponseCache(cache_root(project.home))._load_secret()  # the key file (its own fsync) made up front
        make: Callable[[Path], ResponseCache] = EntrySyncedCache if variant == "before" else ResponseCache
        for check in range(checks):
            gw = Gateway(project, store, run_id=f"check-{check}", upstream_models={"nano": Echo()})
            gw.cache = make(cache_root(project.home))
            model = gw.model("nano", "judge-nano")
            with counted(live, syncfs=variant != "after-no-syncfs"):
                started = time.perf_counter()
                for i in range(k):
                    model.complete(_request(check, i))
                live_s += time.perf_counter() - started
            with counted(hits, syncfs=variant != "after-no-syncfs"):
                started = time.perf_counter()
                for i in range(k):
                    assert model.complete(_request(check, i)).cache_hit
                hit_s += time.perf_counter() - started
            with counted(live, syncfs=variant != "after-no-syncfs"):  # the batch's sync belongs to the live calls
                started = time.perf_counter()
                gw.close()
                live_s += time.perf_counter() - started
        store.close()
    n = k * checks
    return {
        "live_fsync": live.fsync / n,
        "live_syncfs": live.syncfs / n,
        "hit_fsync": hits.fsync / n,
        "hit_syncfs": hits.syncfs / n,
        "live_ms": live_s * 1000 / n,
        "hit_ms": hit_s * 1000 / n,
    }


def main(k: int = 40, checks: int = 5) -> None:
    print(f"{checks} checks of {k} live calls then the same {k} as cache hits, each a gateway closed at its end")
    print(f"{'variant':<16} {'per live call: fsync  syncfs   ms':>34} {'per cache hit: fsync  syncfs   ms':>36}")
    for variant in ("before", "after", "after-no-syncfs"):
        r = run_variant(variant, k, checks)
        print(
            f"{variant:<16} {r['live_fsync']:20.3f} {r['live_syncfs']:7.3f} {r['live_ms']:5.2f}"
            f" {r['hit_fsync']:21.3f} {r['hit_syncfs']:7.3f} {r['hit_ms']:5.2f}"
        )


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
