"""`ratchet mutate --executor ray`: every mutant checked by a Ray actor, the outcomes taken in mutant order.

The driver plans the mutants and commits all of them in the scratch clone first (the same commits the
local run makes one by one: plumbing, the base's date), then gives each to the next idle actor. An actor
runs the mutant's check exactly as the local run does (ratchet.mutate.checks.check_mutant: its own
gateway, store connection and scratch exports in the project's work area, its pairs one at a time); the
driver reads the outcomes back in mutant order and applies the local run's rules to them (progress
lines, the cap that stops the run), so the report and its files are byte for byte the local run's.
`--concurrency` actors check mutants at once (the local run checks one mutant at a time with
`--concurrency` pairs). Every Ray node must see the scratch clone and the work area at the driver's
paths (one machine or a shared filesystem). See docs/adr/0028-ray-for-sweeps.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import replace

from ratchet.core.ray_cluster import ray_actors, ray_cluster
from ratchet.mutate.checks import CheckSpec, check_mutant
from ratchet.mutate.models import Mutant, MutantOutcome

__all__ = ["MutantChecker", "mutants_on_ray"]


class MutantChecker:
    """One Ray actor: checks one mutant per actor task."""

    def __init__(self, spec: CheckSpec) -> None:
        self._spec = spec

    def check(self, mutant: Mutant, head: str) -> MutantOutcome:
        return check_mutant(self._spec, mutant, head, None)

    def close(self) -> None:
        return None


@contextmanager
def mutants_on_ray(
    spec: CheckSpec, mutants: Sequence[tuple[Mutant, str]], workers: int, address: str | None
) -> Iterator[list[Future[MutantOutcome]]]:
    """Each (mutant, head commit)'s outcome, as a Future in mutant order, checked by `workers` actors on the
    cluster at `address` (None: a local one started here). Checks not started when the context ends are
    dropped."""
    one_at_a_time = replace(spec, concurrency=1)  # the mutants are what runs at once, one per actor
    with ray_cluster(address, workers) as ray, ray_actors(ray, MutantChecker, one_at_a_time, workers) as calls:
        yield [calls.call("check", mutant, head) for mutant, head in mutants]
