"""`ratchet bench run --concurrency 8` against 1, over a local upstream that answers in 300 ms.

The upstream is an OpenAI-compatible server on 127.0.0.1 that answers every chat request with
the simulator (the request's model names the tier) after a fixed delay, and counts what it
was sent. Each concurrency runs the cascade configuration over the same N edits of this
repository's bench, from a cold cache in its own work area, on the live path (litellm, the
gateway, the ledger), so the ratio is what the pool buys against a slow provider. A one-edit
warm-up run comes first, so neither side pays for imports or per-process caches.

Printed, per concurrency: wall time, time before the first edit started (serial start-up),
requests the server saw, paid ledger rows, cache hits (coalesced or cached). Then the speed-up
and whether paid calls, and results.json, are the same at both.

Run: .venv/bin/python benchmarks/concurrency.py [--edits 16] [--delay 0.3] [--high 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ratchet.bench.data.results import RESULTS_FILE, read_timings
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.core.chat import ChatModel
from ratchet.data import packaged_config
from ratchet.llm import chat_api
from ratchet.llm.wire import shown_answer
from ratchet.sim.models import sim_model_for
from ratchet.store.db import open_store
from tests.helpers.fake_openai import ThreadedServer

ROOT = Path(__file__).resolve().parents[1]
TIERS = ("agent", "nano", "super", "ultra")
KEY_ENV = "RATCHET_BENCH_FAKE_KEY"
PRICE = {"input": 0.10e-6, "output": 0.40e-6}


class SimUpstream:
    """The simulator behind an OpenAI-compatible chat endpoint, `delay_s` late, counting requests."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.models: dict[str, ChatModel] = {f"sim-{tier}": sim_model_for(tier) for tier in TIERS}
        self.requests = 0
        self._lock = threading.Lock()
        app = FastAPI()

        @app.get("/v1/models")
        async def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": name, "object": "model"} for name in self.models]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self.requests += 1
            await asyncio.sleep(self.delay_s)
            model = self.models[str(body.get("model", "")).removeprefix("openai/")]
            asked = chat_api.parse(body)
            response = await run_in_threadpool(model.complete, asked.request)
            answer = shown_answer(response, asked, id_prefix=chat_api.DIALECT.id_prefix)
            return JSONResponse(chat_api.render(answer, asked))

        self.server = ThreadedServer(app)

    def reset(self) -> None:
        with self._lock:
            self.requests = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/v1"


def _project_copy(dest: Path, base_url: str) -> Path:
    """This repository's bench dataset with its tiers pointed at the local upstream (live path)."""
    dest.mkdir(parents=True)
    for name in ("skills", "goldens", "labels"):
        shutil.copytree(ROOT / name, dest / name)
    (dest / "bench").mkdir()
    for name in ("edits", "fixtures", "world", "workspaces"):
        shutil.copytree(ROOT / "bench" / name, dest / "bench" / name)
    for name in ("tasks.yaml", "DIGESTS.json"):
        if (ROOT / "bench" / name).exists():
            shutil.copy2(ROOT / "bench" / name, dest / "bench" / name)
    raw = yaml.safe_load((ROOT / "ratchet.yaml").read_text(encoding="utf-8"))
    raw["upstream"] = "live"
    defaults = {"agent": 5000, "nano": 300, "super": 1000, "ultra": 2000}
    raw["tiers"] = {
        tier: {
            "model": f"openai/sim-{tier}",
            "api_base": base_url,
            "api_key_env": KEY_ENV,
            "max_tokens": defaults[tier],
        }
        for tier in TIERS
    }
    raw["prices"] = {f"openai/sim-{tier}": PRICE for tier in TIERS}
    (dest / "ratchet.yaml").write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return dest


def _one(upstream: SimUpstream, work: Path, concurrency: int, edits: int) -> dict[str, Any]:
    root = _project_copy(work / f"c{concurrency}", upstream.base_url)
    out = work / f"out-c{concurrency}"
    upstream.reset()
    first: list[float] = []

    def progress(done: int, total: int, item: str) -> None:
        if not first:
            first.append(time.perf_counter())

    started = time.perf_counter()
    run_config(
        RunOptions(
            config_path=packaged_config("cascade"),
            out=out,
            root=root,
            home=root / "var" / "home",
            limit=edits,
            concurrency=concurrency,
            yes=True,
            command="benchmarks/concurrency.py",
            on_progress=progress,
        )
    )
    wall = time.perf_counter() - started
    with closing(open_store(root / "var" / "home")) as store:
        run_ids = read_timings(out).run_ids["cascade"]
        rows = [row for rid in run_ids for row in store.ledger(rid)]
        hits = sum(store.cache_hits(rid) for rid in run_ids)
    return {
        "wall_s": wall,
        "startup_s": (first[0] - started) if first else wall,
        "server": upstream.requests,
        "paid": sum(1 for r in rows if not r.cache_hit and r.status == "ok"),
        "errors": sum(1 for r in rows if r.status != "ok"),
        "hits": hits,
        "results": (out / RESULTS_FILE).read_bytes(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--edits", type=int, default=16)
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--high", type=int, default=8)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "sk-local-benchmark"
    os.environ["RATCHET_BENCH_USD_CAP"] = "1000"
    os.environ.pop("RATCHET_UPSTREAM", None)
    os.environ.pop("RATCHET_HOME", None)
    upstream = SimUpstream(args.delay)
    upstream.server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="ratchet-concurrency-") as tmp:
            # A one-edit warm-up first: imports and per-process caches are not what either side measures.
            _one(upstream, Path(tmp) / "warm-up", 1, 1)
            runs = {c: _one(upstream, Path(tmp), c, args.edits) for c in (1, args.high)}
    finally:
        upstream.server.stop()
    print(f"cascade over {args.edits} edits, upstream delay {args.delay * 1000:.0f} ms, cold cache each")
    print(
        f"{'concurrency':>11} {'wall s':>8} {'start-up s':>10} {'server saw':>10} {'paid rows':>9} "
        f"{'errors':>6} {'hits':>6}"
    )
    for c, r in runs.items():
        print(
            f"{c:>11} {r['wall_s']:>8.2f} {r['startup_s']:>10.2f} {r['server']:>10} {r['paid']:>9} "
            f"{r['errors']:>6} {r['hits']:>6}"
        )
    low, high = runs[1], runs[args.high]
    print(f"speed-up {args.high} vs 1: {low['wall_s'] / high['wall_s']:.2f}x")
    print(
        f"paid upstream calls equal: {low['paid'] == high['paid']}; ledger = server at both: "
        f"{all(r['paid'] + r['errors'] == r['server'] for r in runs.values())}; "
        f"results.json identical: {low['results'] == high['results']}"
    )


if __name__ == "__main__":
    main()
