"""`ratchet watch --executor ray`: every watched golden's replays run by a Ray actor, taken back in order.

The driver preflights, selects the goldens and prints the estimate as the local run does; then each
golden goes to the next idle actor, which replays it `repeats` times (one after another, the seeds the
local run uses) through its own Replayer, gateway and store connection in the project's work area,
under the driver's run id: the calls are the run's, so `--budget` (the run's cap, held in the store)
caps them all, as it caps the local run's threads. The outcomes come back in golden order, as the local
run lists them, so the report is byte for byte the local run's. `--concurrency` actors replay at once.
Every Ray node must see the project and the work area at the driver's paths (one machine or a shared
filesystem); an `upstream_models` fake of a test stays in the driver's process and is not used here.
See docs/adr/0028-ray-for-sweeps.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass

from ratchet.config.project import Project
from ratchet.core.ray_cluster import ray_actors, ray_cluster
from ratchet.gate.replay import Replayer
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.store.db import open_store
from ratchet.watch.models import ReplayOutcome
from ratchet.watch.run import PURPOSE, replay_once
from ratchet.watch.select import Watched

__all__ = ["GoldenReplayer", "ReplaySpec", "replayed_on_ray"]


@dataclass(frozen=True)
class ReplaySpec:
    """What an actor needs to replay as the driver does (pickled to each actor)."""

    project: Project
    run_id: str
    budget_usd: float | None
    repeats: int


class GoldenReplayer:
    """One Ray actor: its gateway and Replayer, built once; one golden's replays per actor task."""

    def __init__(self, spec: ReplaySpec) -> None:
        project = spec.project
        self._repeats = spec.repeats
        self._store = open_store(project.home)
        self._gateway = Gateway(
            project,
            self._store,
            simulator=SIMULATOR,
            run_id=spec.run_id,
            cache_mode=CacheMode.NEW,
            budget_usd=spec.budget_usd,
        )
        skills = load_skills(project.path("skills"))
        agent = self._gateway.model("agent", PURPOSE)
        self._replays = Replayer(project, tree=project.root, head_skills=skills, base_skills=skills, agent=agent)

    def replay(self, item: Watched) -> list[ReplayOutcome]:
        return [replay_once(self._replays, item, repeat) for repeat in range(self._repeats)]

    def close(self) -> None:
        with closing(self._store):
            self._gateway.close()


def replayed_on_ray(
    spec: ReplaySpec, goldens: Sequence[Watched], workers: int, address: str | None
) -> list[ReplayOutcome]:
    """Every golden's replays, in golden then repeat order, by `workers` actors on the cluster at `address`
    (None: a local one started here)."""
    with ray_cluster(address, workers) as ray, ray_actors(ray, GoldenReplayer, spec, workers) as calls:
        pending = [calls.call("replay", item) for item in goldens]
        return [outcome for done in pending for outcome in done.result()]
