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
must see them there (one machine, or a shared filesystem). Ray is an optional extra, reached through
ratchet/core/ray_cluster.py (the cluster and the actor pool mutate and watch use too), only when
--executor ray is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ratchet.bench.data.triggers import EditTriggers
from ratchet.bench.run.plan import Mode
from ratchet.bench.run.schedule import Scored
from ratchet.core.errors import InfraError
from ratchet.core.ray_cluster import EXECUTORS, RAY_MISSING, ActorCalls, ray_actors, ray_cluster, require_ray
from ratchet.diff.models import EditDiff
from ratchet.goldens.noise import NoiseRecord

__all__ = ["EXECUTORS", "RAY_MISSING", "RayItems", "RayWorker", "WorkerSpec", "ray_items", "require_ray"]

WORKER_THREADS = 2
"""Each actor's pool for the pairs inside its item (the items themselves are spread over actors)."""
SCORE_METHODS = ("score_edit", "score_golden")


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


class RayItems:
    """What schedule.execute needs of a pool (`size`, `submit`), over Ray actors: one item per idle actor.

    `submit(fn, item)` runs the Scorer method `fn` names on the actor's own Scorer (the driver's `fn`
    is bound to the driver's, which does not travel).
    """

    def __init__(self, calls: ActorCalls) -> None:
        self.size = calls.size
        self._calls = calls

    def submit(self, fn: Callable[[str], Scored], item: str) -> Future[Scored]:
        name = getattr(fn, "__name__", "")
        if name not in SCORE_METHODS:
            raise ValueError(f"RayItems runs Scorer.score_edit or score_golden, not {name or fn!r}")
        return self._calls.call("score", name, item)


@contextmanager
def ray_items(spec: WorkerSpec, workers: int, address: str | None) -> Iterator[RayItems]:
    """`workers` actors scoring `spec`'s items on the cluster at `address` (None: a local one started here).

    A Ray already connected in this process is used as it is and left connected.
    """
    with ray_cluster(address, workers) as ray, ray_actors(ray, RayWorker, spec, workers) as calls:
        yield RayItems(calls)
