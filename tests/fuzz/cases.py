"""The generated malformed inputs: every file Ratchet reads, crossed with the commands that read it.

The families live beside this module (cases_files: SKILL.md, tasks.yaml, goldens, world;
cases_settings: ratchet.yaml, gate configs, RATCHET_* variables, flags, hooks, the store;
cases_bench: pending traces and the bench's files); their content comes from inputs.py.
`all_cases()` is deterministic: the only randomness is `random.Random(SEED)` (garbage bytes,
where a bad byte goes, which look-alike letter), never the clock. A case is a fixture to copy
(the blessed demo repository, the bench dataset, or an empty folder), a setup that corrupts it,
the argv, extra environment, the exit codes that keep the contract and the file the one-line
error must name. Placeholders in argv, env and names: {repo} (the copy), {home} (RATCHET_HOME,
beside the copy, never in it) and {tmp} (the case's folder).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from tests.fuzz.inputs import SEED, Setup

Fixture = Literal["demo", "bench", "none"]
Style = Literal["error", "report", "usage"]


@dataclass(frozen=True)
class Case:
    """One malformed input through one command, and what keeping the contract looks like."""

    id: str
    group: str
    fixture: Fixture
    setup: Setup | None
    argv: list[str]
    env: dict[str, str | None] = field(default_factory=dict)
    exit_codes: tuple[int, ...] = (2,)
    must_name: str | None = None
    style: Style = "error"
    forbid: tuple[str, ...] = ("{home}",)
    subprocess: bool = False
    timeout: float | None = None
    cwd: str | None = None
    snapshot_skip: tuple[str, ...] = ()

    @property
    def slug(self) -> str:
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in self.id)[:120]


# -- the generator ---------------------------------------------------------------------------


class CaseList:
    def __init__(self) -> None:
        self.items: list[Case] = []

    def add(self, case: Case) -> None:
        self.items.append(case)


def _families() -> list[Callable[[CaseList], None]]:
    # Imported here: the family modules import Case from this one.
    from tests.fuzz import cases_bench, cases_files, cases_settings

    return [
        cases_files.skill_cases,
        cases_files.tasks_cases,
        cases_files.golden_cases,
        cases_settings.config_cases,
        cases_settings.gate_cases,
        cases_files.world_cases,
        cases_bench.pending_cases,
        cases_bench.bench_cases,
        cases_settings.env_cases,
        cases_settings.flag_cases,
        cases_settings.store_cases,
    ]


@cache
def all_cases() -> tuple[Case, ...]:
    """Every case, in a fixed order (the same on every machine and every run)."""
    out = CaseList()
    for generate in _families():
        generate(out)
    ids = [case.id for case in out.items]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise AssertionError(f"duplicate fuzz case ids: {sorted(duplicates)}")
    return tuple(out.items)


FAST_SIZE = 60


@cache
def fast_cases() -> tuple[Case, ...]:
    """About FAST_SIZE cases for the normal test run: round-robin over the groups, in-process only
    (plus one proxy case), chosen by a seeded shuffle so every group keeps a fixed, varied sample."""
    by_group: dict[str, list[Case]] = {}
    for case in all_cases():
        if not case.subprocess or case.id == "flag:proxy-budget-nan":
            by_group.setdefault(case.group, []).append(case)
    pick = random.Random(SEED)
    for cases in by_group.values():
        pick.shuffle(cases)
    chosen: list[Case] = []
    while len(chosen) < FAST_SIZE and any(by_group.values()):
        for cases in by_group.values():
            if cases and len(chosen) < FAST_SIZE:
                chosen.append(cases.pop(0))
    order = {case.id: n for n, case in enumerate(all_cases())}
    return tuple(sorted(chosen, key=lambda case: order[case.id]))
