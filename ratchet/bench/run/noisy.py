"""A noisy bench run: the simulator's noise knob, and the goldens' noise records measured before gating.

`bench run --noise p` (or a configuration's `sim_noise`) makes the simulated agent vary with chance
p per replay; `--bless-repeats N` (default 30 when the noise is on, else 0) measures every golden's
noise record first, N replays of the unchanged skill, as `ratchet noise` does for a project. The
run then gates with those records: repeats where a pair differs only where its golden is known to
vary, and a BLOCK only on the exact test (ratchet.gate.repeats). The noise knob is the
simulator's; a live run brings its own noise and may still measure records with --bless-repeats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ratchet.bench.build.benchdata import BenchData
from ratchet.config.gate import GateConfig
from ratchet.core.chat import ChatModel
from ratchet.core.errors import InputError
from ratchet.core.pool import WorkPool
from ratchet.gate.noise import MAX_REPEATS, measure_noise
from ratchet.goldens.noise import NoiseRecord, share_within_skills

DEFAULT_BLESS_REPEATS = 30


@dataclass(frozen=True)
class NoiseSettings:
    """The run's noise: the simulator's chance (0 live) and how many repeats measure each golden's record."""

    sim_noise: float
    bless_repeats: int

    @property
    def measures(self) -> bool:
        return self.bless_repeats > 0


@dataclass
class NoiseRecords:
    records: dict[str, NoiseRecord] = field(default_factory=dict)
    refused: list[str] = field(default_factory=list)


def noise_settings(
    config: GateConfig, *, noise: float | None, bless_repeats: int | None, simulated: bool
) -> NoiseSettings:
    """What --noise and --bless-repeats come to for this configuration; bad values are InputErrors."""
    if noise is not None and not 0.0 <= noise <= 1.0:
        raise InputError(f"--noise must be between 0 and 1, got {noise}")
    if noise is not None and noise > 0 and not simulated:
        raise InputError(
            "--noise is the simulator's knob; a live agent brings its own noise (measure it with --bless-repeats N)"
        )
    chance = (noise if noise is not None else config.sim_noise) if simulated else 0.0
    repeats = bless_repeats if bless_repeats is not None else (DEFAULT_BLESS_REPEATS if chance > 0 else 0)
    if repeats != 0 and not 2 <= repeats <= MAX_REPEATS:
        raise InputError(f"--bless-repeats must be 0 or between 2 and {MAX_REPEATS}, got {repeats}")
    return NoiseSettings(sim_noise=chance, bless_repeats=repeats)


def measure_records(data: BenchData, settings: NoiseSettings, agent: ChatModel, pool: WorkPool | None) -> NoiseRecords:
    """Every golden's record under the dataset's unchanged skills (none when the run measures none)."""
    if not settings.measures:
        return NoiseRecords()
    project = data.project
    run = measure_noise(
        project,
        tasks=data.tasks,
        goldens=data.goldens,
        skills=data.base_skills,
        agent=agent,
        repeats=settings.bless_repeats,
        tree=project.root,
        pool=pool,
    )
    return NoiseRecords(records=share_within_skills(run.records, data.goldens), refused=[*run.refused, *run.failed])
