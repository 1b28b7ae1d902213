"""`bench run --executor ray`: a run's items (edits, or goldens for E6) scored by Ray tasks.

Why the item and not a shard: it is the unit sharding already splits on (sharded.py says why not
pairs), and giving Ray one item at a time lets it balance them over the cluster as a thread pool
balances them over one machine. The driver stays the one run_config that writes results: each
finished item comes back to schedule.execute, which journals it and writes results.json once at the
end, exactly as a single-process run does, so the files are byte for byte the same (timings.json
excepted: wall clock). See docs/adr/0028-ray-for-sweeps.md.

Each worker is a Ray actor: it builds the run's Scorer once (the bench data, the diffs, its own
gateway and store connection in the same work area) and scores one item per actor task. The actors
read the dataset and write each edit's replays at the driver's absolute paths, so every Ray node
must see them there (one machine, or a shared filesystem). Ray is an optional extra: it is imported
only here, only when --executor ray is asked for.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ratchet.bench.data.triggers import EditTriggers
from ratchet.bench.run.plan import Mode
from ratchet.bench.run.schedule import Scored
from ratchet.core.errors import InfraError, InputError
from ratchet.diff.models import EditDiff
from ratchet.goldens.noise import NoiseRecord

EXECUTORS = ("local", "ray")
RAY_MISSING = "--executor ray needs Ray, an optional extra: pip install 'ratchet[ray]'"
WORKER_THREADS = 2
"""Each actor's pool for the pairs inside its item (the items themselves are spread over actors)."""
SCORE_METHODS = ("score_edit", "score_golden")


def require_ray() -> None:
    """One line (exit 2) when Ray is not installed; nothing is imported."""
    if importlib.util.find_spec("ray") is None:
        raise InputError(RAY_MISSING)


@dataclass(frozen=True)
class WorkerSpec:
    """What an actor needs to build the driver's Scorer for itself (pickled to each actor)."""

    config_path: Path
    root: Path
    home: Path | None
    results_dir: Path
    dest: Path
    live_tavily: bool
    mode: Mode
    records: Mapping[str, NoiseRecord]
    diffs: Mapping[str, EditDiff]
    triggers: Mapping[str, EditTriggers]
    agent_noise: float
    """The simulator's noise for the agent (0: the project's); see run_config's overrides."""
    ledger_hits: bool
    run_id: str
    """The driver's run id: the actors' calls are the run's calls in the ledger."""


class RayWorker:
    """One actor's Scorer, its gateway and pool; `score` is one actor task (an item)."""

    def __init__(self, spec: WorkerSpec) -> None:
        from ratchet.bench.build.benchdata import load_bench_data
        from ratchet.bench.run.scorer import Scorer
        from ratchet.config.gate import load_gate_config
        from ratchet.core.chat import ChatModel
        from ratchet.core.pool import WorkPool
        from ratchet.llm.gateway import Gateway
        from ratchet.sim.models import SIMULATOR, sim_model_for
        from ratchet.store.db import open_store

        if not (spec.root / "ratchet.yaml").is_file():
            raise InfraError(
                f"this Ray worker does not see the dataset at {spec.root}: every node of the cluster must see the "
                "project and the results directory at the driver's paths (one machine or a shared filesystem)"
            )
        config = load_gate_config(spec.config_path, project_root=spec.root)
        data = load_bench_data(spec.root, home=spec.home, results_dir=spec.results_dir)
        project = data.project
        self._store = open_store(project.home)
        overrides: dict[str, ChatModel] = {}
        if spec.agent_noise > 0:
            overrides["agent"] = sim_model_for("agent", noise=spec.agent_noise)
        self._gateway = Gateway(
            project,
            self._store,
            simulator=SIMULATOR,
            run_id=spec.run_id,
            upstream_models=overrides,
            ledger_hits=spec.ledger_hits,
        )
        self._pool = WorkPool(WORKER_THREADS, name="ratchet-ray")
        self._scorer = Scorer(
            data,
            config,
            spec.live_tavily,
            self._gateway,
            project.home,
            self._pool,
            spec.dest,
            spec.mode,
            spec.records,
            spec.diffs,
            spec.triggers,
        )

    def score(self, method: str, item_id: str) -> Scored:
        if method not in SCORE_METHODS:
            raise ValueError(f"not a Scorer method: {method}")
        work: Callable[[str], Scored] = getattr(self._scorer, method)
        return work(item_id)

    def close(self) -> None:
        with closing(self._store):
            self._pool.close()
            self._gateway.close()


def _unwrapped(exc: BaseException) -> BaseException:
    """The worker's own exception (an InputError stays one line), not Ray's wrapper around it."""
    seen = 0
    while seen < 3 and isinstance(getattr(exc, "cause", None), BaseException):
        exc = exc.cause  # type: ignore[attr-defined]
        seen += 1
    return exc


class RayItems:
    """What schedule.execute needs of a pool (`size`, `submit`), over Ray actors: one item per idle actor.

    `submit(fn, item)` runs the Scorer method `fn` names on the actor's own Scorer (the driver's `fn`
    is bound to the driver's, which does not travel).
    """

    def __init__(self, actors: list[Any]) -> None:
        self.size = len(actors)
        self._idle = list(actors)
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[str], Scored], item: str) -> Future[Scored]:
        name = getattr(fn, "__name__", "")
        if name not in SCORE_METHODS:
            raise ValueError(f"RayItems runs Scorer.score_edit or score_golden, not {name or fn!r}")
        with self._lock:
            actor = self._idle.pop()  # execute keeps at most `size` items in flight
        result: Future[Scored] = Future()

        def finished(ref: Future[Scored]) -> None:
            with self._lock:
                self._idle.append(actor)
            failure = ref.exception()
            if failure is not None:
                result.set_exception(_unwrapped(failure))
            else:
                result.set_result(ref.result())

        actor.score.remote(name, item).future().add_done_callback(finished)
        return result


def on_loopback(address: str | None) -> bool:
    """A local Ray started here (None), or a head at 127.x / localhost / ::1."""
    if address is None:
        return True
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


def _import_ray(loopback: bool) -> Any:
    """Ray, imported now; on loopback it is told so before it reads its constants."""
    require_ray()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if loopback:
        # Ray resolves "this node" (and a 127.0.0.1 head address) to the machine's routable address
        # unless clusters are off, its own switch for a one-machine Ray: then a head it starts listens
        # on 127.0.0.1 only, and a head given at 127.0.0.1 is reached there.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    return importlib.import_module("ray")


PROBE_TIMEOUT_S = 3.0


def _refuse_silent(address: str) -> None:
    """One line (exit 3) when nothing accepts a connection at `address`: Ray itself retries a wrong address for as
    long as it is left to (minutes), which would hang the run instead of failing it."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"--ray-address {address}: give the head as HOST:PORT (or ray://HOST:PORT)")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InfraError(
            f"could not reach a Ray cluster at {address}: {reason}; start the head or fix --ray-address"
        ) from None


@contextmanager
def ray_items(spec: WorkerSpec, workers: int, address: str | None) -> Iterator[RayItems]:
    """`workers` actors scoring `spec`'s items on the cluster at `address` (None: a local one started here).

    A Ray already connected in this process is used as it is and left connected.
    """
    ray = _import_ray(loopback=on_loopback(address))
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address is None:
            options.update(address="local", num_cpus=max(1, workers))
        else:
            _refuse_silent(address)
            options["address"] = address
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise InfraError(f"could not reach a Ray cluster at {address or 'local'}: {exc}") from None
    try:
        env = {k: v for k, v in os.environ.items() if k.startswith("RATCHET_")}
        actor_class = ray.remote(num_cpus=1, runtime_env={"env_vars": env})(RayWorker)
        actors = [actor_class.remote(spec) for _ in range(max(1, workers))]
        try:
            yield RayItems(actors)
        finally:
            closed = [actor.close.remote() for actor in actors]
            with suppress(Exception):  # an actor that failed to start has nothing to close
                ray.get(closed)
            for actor in actors:
                ray.kill(actor)
    finally:
        if started:
            ray.shutdown()
