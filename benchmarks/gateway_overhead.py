"""The gateway's own overhead per live call, before vs after, interleaved, with the disk kept busy.

A fake OpenAI-compatible upstream on 127.0.0.1 (tests/helpers/fake_openai.py) answers every request
in 300 ms. Each round runs two child processes, one per Ratchet tree (BEFORE: an exported older
commit; AFTER: this checkout), in alternating order. A child makes N live calls, each paired with a
call of the same shape straight through the litellm adapter, alternating, in cache mode `once` (every
answer is written to the cache); its overhead is the mean of (gateway - direct) per call, plus the
gateway's close (the cache's last sync) spread over the calls. The child also times the store's
reserve + settle and the cache's put, per call. Meanwhile a background process writes and fsyncs
a 4 MiB file in a loop on the same filesystem, as a busy neighbour would.

Each tree's overhead is printed as min / median / max over the rounds, and the before/after ratio per
round (the two children of a round ran back to back, so they saw the same neighbours): one noisy
figure is not a result on a shared disk.

Run: .venv/bin/python benchmarks/gateway_overhead.py --before /tmp/before-X [--rounds 7] [--calls 20]
(export the older tree with `git archive <commit> | tar -x -C /tmp/before-X`). Without --before it
measures this checkout alone. Quote the ratio: the machine's load moves the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
UPSTREAM_S = 0.3
WARM = 4

_WRITER = """
import os, sys
block = os.urandom(1 << 20)
path = sys.argv[1]
while True:
    with open(path, "wb") as handle:
        for _ in range(4):
            handle.write(block)
        handle.flush()
        os.fsync(handle.fileno())
"""


def child(root: str, base_url: str, calls: int, home: str) -> None:
    """Measure one tree (its ratchet/ first on sys.path) and print one JSON line."""
    sys.path.insert(0, root)
    from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
    from ratchet.core.chat import ChatRequest
    from ratchet.llm.gateway import Gateway
    from ratchet.llm.live import LiteLLMModel
    from ratchet.store.db import open_store

    os.environ["RATCHET_BENCH_USD_CAP"] = "1000"  # a live run: the global cap is checked on every call
    tier = TierConfig(model="openai/fake-model", api_base=base_url)
    config = RatchetConfig(
        upstream="live", tiers={"nano": tier}, prices={"openai/fake-model": Price(input=1e-7, output=4e-7)}
    )
    project = Project(root=Path(home), config=config, home=Path(home) / "home")
    raw = LiteLLMModel(tier, timeout_s=30)
    store = open_store(project.home)
    gw = Gateway(project, store, run_id="bench", cache_mode="once")
    spent = {"store": 0.0, "cache": 0.0}

    def timed(name: str, fn: object) -> object:
        def wrapper(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)  # type: ignore[operator]
            finally:
                spent[name] += time.perf_counter() - start

        return wrapper

    store.reserve = timed("store", store.reserve)  # type: ignore[method-assign]
    store.settle = timed("store", store.settle)  # type: ignore[method-assign]
    gw.cache.put = timed("cache", gw.cache.put)  # type: ignore[method-assign]
    model = gw.model("nano", "bench")

    def request(tag: str, i: int) -> ChatRequest:
        return ChatRequest.model_validate(
            {"messages": [{"role": "user", "content": f"{tag} {i:04d}"}], "max_tokens": 50}
        )

    def once(fn: object, r: ChatRequest) -> float:
        start = time.perf_counter()
        fn(r)  # type: ignore[operator]
        return time.perf_counter() - start

    for i in range(WARM):  # imports, the connection pool, the first grant
        once(raw.complete, request("warm-raw", i))
        once(model.complete, request("warm-gw", i))
    spent.update(store=0.0, cache=0.0)
    cpu = time.process_time()
    overheads = []
    for i in range(calls):
        direct = once(raw.complete, request("raw", i))
        overheads.append(once(model.complete, request("gw", i)) - direct)
    start = time.perf_counter()
    gw.close()
    closing = time.perf_counter() - start
    cpu = time.process_time() - cpu
    raw.close()
    store.close()
    per_call = (sum(overheads) + closing) / calls
    print(
        json.dumps(
            {
                "overhead_s": per_call,
                "store_s": spent["store"] / calls,
                "cache_s": (spent["cache"] + closing) / calls,
                "cpu_s": cpu,
            }
        )
    )


def run_child(root: Path, base_url: str, calls: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gw-overhead-") as home:
        env = {k: v for k, v in os.environ.items() if k not in ("RATCHET_HOME", "PYTHONPATH")}
        env["PYTHONPATH"] = str(root)
        out = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", str(root), base_url, str(calls), home],
            cwd=root,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="an exported older tree to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from tests.helpers.fake_openai import FakeOpenAI

    trees = {"after": HERE} if args.before is None else {"before": args.before.resolve(), "after": HERE}
    seen: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="gw-disk-") as scratch, FakeOpenAI(delay_s=UPSTREAM_S) as server:
        writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(Path(scratch) / "busy.bin")])
        try:
            for round_ in range(args.rounds):
                order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
                for name in order:
                    seen[name].append(run_child(trees[name], server.base_url, args.calls))
        finally:
            writer.kill()
            writer.wait()
    print(
        f"{args.rounds} rounds x {args.calls} live calls per tree, interleaved; upstream answers in "
        f"{UPSTREAM_S * 1000:.0f} ms (127.0.0.1); disk kept busy by a 4 MiB write + fsync loop; cache mode once"
    )
    print("overhead = (gateway call - direct call) per call, plus the gateway's close spread over the calls")
    print(f"{'':<7} {'overhead % of 300 ms: min / median / max':>42}   store ms  cache ms  loop CPU s")
    medians = {}
    for name, results in seen.items():
        pct = [r["overhead_s"] / UPSTREAM_S * 100 for r in results]
        store = statistics.median(r["store_s"] for r in results) * 1000
        cache = statistics.median(r["cache_s"] for r in results) * 1000
        cpu = statistics.median(r.get("cpu_s", 0.0) for r in results)
        medians[name] = statistics.median(pct)
        print(
            f"{name:<7} {min(pct):>22.2f} / {statistics.median(pct):5.2f} / {max(pct):5.2f}"
            f"   {store:8.2f}  {cache:8.2f}  {cpu:11.2f}"
        )
        print(f"{'':<7} per round %: {' '.join(f'{p:.2f}' for p in pct)}")
    if "before" in seen:
        ratios = [
            b["overhead_s"] / max(a["overhead_s"], 1e-9) for b, a in zip(seen["before"], seen["after"], strict=True)
        ]
        print(
            "before/after overhead ratio per round (same round, interleaved): "
            f"min {min(ratios):.2f}x / median {statistics.median(ratios):.2f}x / max {max(ratios):.2f}x"
        )
    worst = max(r["overhead_s"] for r in seen["after"]) / UPSTREAM_S * 100
    verdict = "met" if medians["after"] <= 5.0 else "NOT met"
    print(
        f"goal (after, at most 5%): {verdict} by the median round ({medians['after']:.2f}%); worst round {worst:.2f}%"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        main()
