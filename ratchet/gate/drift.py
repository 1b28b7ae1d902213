"""Drift: a difference that a moved volatile world fact explains is not a regression.

When the replay read a volatile fact whose value differs from the golden's, the unchanged
(base) skill is replayed on the current world too. If it moves the same way (same tool calls,
same output as the new replay) and search confirms the fact's new value, the world moved,
not the skill: `drift`, PASS, re-bless the golden. Otherwise the new replay is judged against
the base replay, so only the part the world does not explain counts. See docs/adr/0006-drift.md.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from ratchet.core.errors import ConfigError, InfraError, InputError, RatchetError
from ratchet.core.jsonio import canonical_dumps
from ratchet.core.yamlio import load_yaml_file
from ratchet.gate.level0 import volatile_pairs
from ratchet.gate.models import DriftEvidence, MovedFact
from ratchet.goldens.trace import Trace

FIXTURES_SCHEMA_VERSION = 1


class DriftCheck(BaseModel):
    """The evidence and, when it ran, the base skill's replay on the current world."""

    evidence: DriftEvidence
    base_replay: Trace | None = None


class FactSearch(Protocol):
    """Confirms that a fact has a given value out in the world (Tavily, or offline fixtures)."""

    name: str

    def confirm(self, key: str, value: Any) -> tuple[bool, str]:
        """(confirmed, source) for `key` now being `value`."""
        ...


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)))
    return canonical_dumps(a, indent=None) == canonical_dumps(b, indent=None)


class FixtureSearch:
    """Offline search: YAML files mapping a fact key to the value `search` reports.

    Each file: `schema_version: 1` and `facts: {<key>: <value> | {value: ..., source: ...}}`.
    """

    name = "fixtures"

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.facts: dict[str, tuple[Any, str]] = {}
        if not folder.is_dir():
            return
        for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
            raw = load_yaml_file(path, error=ConfigError)
            if not isinstance(raw, dict) or raw.get("schema_version") != FIXTURES_SCHEMA_VERSION:
                raise ConfigError(f"a search fixture needs schema_version: {FIXTURES_SCHEMA_VERSION}", path=path)
            facts = raw.get("facts") or {}
            if not isinstance(facts, dict):
                raise ConfigError("'facts' must map fact keys to values", path=path)
            for key, entry in facts.items():
                if isinstance(entry, dict) and "value" in entry:
                    source = str(entry.get("source") or f"fixture {path.name}")
                    self.facts[str(key)] = (entry["value"], source)
                else:
                    self.facts[str(key)] = (entry, f"fixture {path.name}")

    def confirm(self, key: str, value: Any) -> tuple[bool, str]:
        found = self.facts.get(key)
        if found is None:
            return False, f"no fixture for {key}"
        return _same_value(found[0], value), found[1]


class TavilySearch:
    """Live search (only with --live-tavily): the new value must appear in a result for the fact."""

    name = "tavily"

    def __init__(self, api_key: str | None = None) -> None:
        try:
            module = importlib.import_module("tavily")
        except ImportError:
            raise ConfigError("--live-tavily needs tavily-python: pip install tavily-python") from None
        key = api_key or os.environ.get("TAVILY_API_KEY")
        if not key:
            raise ConfigError("--live-tavily needs TAVILY_API_KEY in the environment")
        self._client = module.TavilyClient(api_key=key)

    def confirm(self, key: str, value: Any) -> tuple[bool, str]:
        query = f"current value of {key.replace('.', ' ').replace('_', ' ')}"
        try:
            answer = self._client.search(query, max_results=5)
        except Exception as exc:  # the client raises its own types; all mean "not confirmed"
            raise InfraError(f"tavily search failed: {type(exc).__name__}") from None
        needle = str(value)
        for result in answer.get("results", []):
            if needle in str(result.get("content", "")):
                return True, str(result.get("url", "tavily"))
        return False, "tavily: value not found in results"


def make_search(kind: str, fixtures: Path) -> FactSearch:
    return TavilySearch() if kind == "tavily" else FixtureSearch(fixtures)


def moved_facts(golden: Trace, replay: Trace) -> list[MovedFact]:
    """Volatile facts read in both runs with different values (the first difference of each fact), read for
    read as Level 0 pairs them (ratchet.gate.level0.volatile_pairs)."""
    moved: dict[str, MovedFact] = {}
    for key, value, now in volatile_pairs(golden, replay):
        if key not in moved and not _same_value(value, now):
            moved[key] = MovedFact(key=key, golden_value=value, replay_value=now)
    return list(moved.values())


def same_behaviour(a: Trace, b: Trace) -> bool:
    """Same routing, same tool calls (name, arguments), same final output."""
    calls_a = [(c.name, canonical_dumps(c.arguments, indent=None)) for c in a.tool_calls]
    calls_b = [(c.name, canonical_dumps(c.arguments, indent=None)) for c in b.tool_calls]
    return a.fired_skill == b.fired_skill and calls_a == calls_b and a.final_output == b.final_output


def drift_check(
    golden: Trace, replay: Trace, *, replay_base: Callable[[], Trace], search: FactSearch
) -> DriftCheck | None:
    """None when no volatile fact moved (nothing for drift to explain); else the evidence."""
    moved = moved_facts(golden, replay)
    if not moved:
        return None
    for fact in moved:
        try:
            fact.confirmed, fact.source = search.confirm(fact.key, fact.replay_value)
        except RatchetError as exc:
            fact.source = f"{search.name}: {exc.message}"
    confirmed = all(f.confirmed for f in moved)
    try:
        base = replay_base()
    except (InfraError, InputError) as exc:
        note = f"could not replay the base skill: {exc.message}"
        return DriftCheck(evidence=DriftEvidence(moved=moved, note=note))
    if base.status == "error":
        note = f"the base skill's replay failed: {base.error or 'unknown error'}"
        return DriftCheck(evidence=DriftEvidence(moved=moved, base_replay_ran=True, note=note))
    matches = same_behaviour(base, replay)
    keys = ", ".join(f.key for f in moved)
    if matches and confirmed:
        note = f"the unchanged skill moves the same way; {keys} confirmed by {search.name}: re-bless the golden"
    elif matches:
        note = f"the unchanged skill moves the same way, but {search.name} does not confirm {keys}"
    else:
        note = f"{keys} moved, but the edited skill differs from the unchanged one on the current world"
    evidence = DriftEvidence(
        moved=moved, base_replay_ran=True, base_matches_replay=matches, is_drift=matches and confirmed, note=note
    )
    return DriftCheck(evidence=evidence, base_replay=base)
