"""The gateway's own overhead per call: cache miss, live path, local fake upstream.

Times N distinct requests straight through the litellm adapter, then N other distinct
requests through the gateway (cache lookup and write, reservation, ledger row, pricing),
both against the same in-process OpenAI-compatible server. The overhead is the difference
of the medians. Run: .venv/bin/python benchmarks/gateway_overhead.py [N]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.core.chat import ChatRequest
from ratchet.llm.gateway import Gateway
from ratchet.llm.live import LiteLLMModel
from ratchet.store.db import open_store
from tests.helpers.fake_openai import FakeOpenAI


def _request(tag: str, i: int) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": f"{tag} {i}"}], "max_tokens": 50})


def _timed(fn: object, requests: list[ChatRequest]) -> list[float]:
    out = []
    for r in requests:
        start = time.perf_counter()
        fn(r)  # type: ignore[operator]
        out.append((time.perf_counter() - start) * 1000)
    return out


def main(n: int = 200) -> None:
    os.environ["RATCHET_BENCH_USD_CAP"] = "1000"
    with FakeOpenAI() as server, tempfile.TemporaryDirectory() as tmp:
        tier = TierConfig(model="openai/fake-model", api_base=server.base_url)
        config = RatchetConfig(
            upstream="live", tiers={"nano": tier}, prices={"openai/fake-model": Price(input=1e-7, output=4e-7)}
        )
        project = Project(root=Path(tmp), config=config, home=Path(tmp) / "home")
        raw = LiteLLMModel(tier, timeout_s=30)
        store = open_store(project.home)
        gw = Gateway(project, store, run_id="bench")
        model = gw.model("nano", "bench")
        for i in range(10):  # warm both paths (imports, connection pool)
            raw.complete(_request("warm-raw", i))
            model.complete(_request("warm-gw", i))
        direct = _timed(raw.complete, [_request("raw", i) for i in range(n)])
        through = _timed(model.complete, [_request("gw", i) for i in range(n)])
        hits = _timed(model.complete, [_request("gw", i) for i in range(n)])
        raw.close()
        gw.close()
        store.close()
    d, g, h = statistics.median(direct), statistics.median(through), statistics.median(hits)
    print(f"calls per path: {n} (cache miss, local fake upstream on 127.0.0.1)")
    print(f"direct litellm adapter   median {d:7.2f} ms   p90 {statistics.quantiles(direct, n=10)[-1]:7.2f} ms")
    print(f"through the gateway      median {g:7.2f} ms   p90 {statistics.quantiles(through, n=10)[-1]:7.2f} ms")
    print(f"gateway overhead / call  median {g - d:7.2f} ms")
    print(f"cache hit (no upstream)  median {h:7.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
