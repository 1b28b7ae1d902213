"""A change of the agent between base and head, read from both ratchet.yaml files (docs/adr/0023).

The agent is the part of ratchet.yaml that says who answers a task: `tiers.agent` (model, api_base,
api_key_env, tool_protocol, max_tokens), `harness` and `max_agent_turns`. When it differs between base
and head, or `--agent-model M` names another model, the check replays the goldens under the head's agent.
Everything else is still the base's (docs/adr/0011): the judge tiers and their prices, the gate config, the
goldens, noise records and world. So the replays run with a project that is the base's with only its agent
replaced (`AgentChange.project`), and a head ratchet.yaml that also changes anything outside the agent (the
agent models' price lines go with the agent) is still named as a settings change.

A head ratchet.yaml that is absent or does not parse is what it was before this module: a settings change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.config.project import CONFIG_FILE, Project, RatchetConfig, TierConfig, project_from_text
from ratchet.core.errors import ConfigError, InputError
from ratchet.gate.model_change import ReplayPlan, model_change_frame, plan_replays, with_model_change
from ratchet.gate.model_change_models import AgentSide
from ratchet.gate.models import Verdict
from ratchet.gate.provenance import BaseAgent
from ratchet.gate.revision_names import label
from ratchet.gate.revisions import RepoEdit
from ratchet.gate.shard import ShardJob
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.llm.pricing import price_for
from ratchet.repo.trees import read_file_at
from ratchet.sim.models import SIMULATOR

AGENT_TIER = "agent"

GATE_HARNESS_FIELDS = ("read_commands", "sandbox", "commands_allow")
"""Harness settings that are the gate's, not the agent's: `read_commands` decides which shell calls Level 0 takes
for reads, so a head that lists `rm` there would turn its own new side effects into reads; `sandbox: off` in a head
would run its own replays outside bubblewrap; `commands_allow` listing `git` would run a real `git push` past the
shims, unrecorded. They are never part of an agent change: a head that changes them is
a settings change, and the replays keep the base's."""

ELSEWHERE = frozenset({"tiers.agent.api_base", "tiers.agent.api_key_env", "harness.bin", "harness.command"})
"""Agent settings that say where the answers come from: an edit that sets one chooses what its own replays
answer (a server or a command of its making) and what every later check runs on. It is replayed and reported
like any agent change, and still named as a settings change (never a PASS on its own; docs/adr/0011)."""


@dataclass(frozen=True)
class AgentChange:
    """The base's agent, the head's, what differs, and the project the replays run with."""

    base: AgentSide
    head: AgentSide
    fields: tuple[str, ...]
    """The agent settings that differ, e.g. ("tiers.agent.model", "harness.bin")."""
    declared: bool
    """Named by `--agent-model` rather than read from the head's ratchet.yaml."""
    project: Project
    """The base's project with the head's agent: the replays' (the gate's other settings stay the base's)."""
    settings_too: bool
    """The head's ratchet.yaml also changes something outside the agent (named as a settings change)."""
    was: BaseAgent
    """What a golden recorded under the base's agent carries (provenance compares each golden with it)."""


def read_agent_change(edit: RepoEdit, *, agent_model: str | None, harness: HarnessName | None) -> AgentChange | None:
    """The agent change of `edit` (with `--agent-model`, `--harness` applied to both sides), or None."""
    base = edit.project
    read = _head_config(edit, harness)
    # A head ratchet.yaml that changed but could not be read (it does not parse, or names no agent) is a settings
    # change whatever else is declared: `--agent-model` must not turn it into a checked agent change.
    unread = read is None and any(change.path == CONFIG_FILE for change in edit.changes)
    settings_too = unread or (read is not None and _outside_differs(base.config, read))
    head_config = read if read is not None else base.config
    if agent_model is not None:
        if not agent_model.strip():
            raise InputError("--agent-model needs a model id, e.g. --agent-model openai/gpt-4o-mini")
        tier = _agent_tier(head_config) or _agent_tier(base.config)
        if tier is None:
            raise ConfigError("--agent-model: ratchet.yaml has no agent tier to change", path=CONFIG_FILE)
        agent = tier.model_copy(update={"model": agent_model.strip()})
        head_config = head_config.model_copy(update={"tiers": {**head_config.tiers, AGENT_TIER: agent}})
    fields = _differing(base.config, head_config)
    if not fields:
        if agent_model is not None:
            raise InputError(
                f"--agent-model {agent_model}: that is the base's agent already, so nothing changes the agent; "
                "to replay the current model against its goldens, use ratchet watch"
            )
        return None
    settings_too = settings_too or any(field in ELSEWHERE for field in fields)
    project = _replay_project(base, head_config)
    head_model = project.config.tiers[AGENT_TIER].model
    if head_model not in base.config.prices and head_model in project.config.prices:
        fields = (*fields, f"prices.{head_model}")  # the head prices its own model: shown, for review
    if project.config.upstream != "sim":
        price_for(project.config, project.config.tiers[AGENT_TIER].model)  # unpriced: refused before any work
    return AgentChange(
        base=_side(base.config),
        head=_side(head_config),
        fields=fields,
        declared=agent_model is not None,
        project=project,
        settings_too=settings_too,
        was=BaseAgent(_recorded(base), base.agent_tool_protocol, base.config.harness.name),
    )


def _recorded(base: Project) -> str:
    """The agent model id a golden recorded under the base's agent carries: the simulator's on `upstream: sim`."""
    if base.config.upstream == "sim":
        return SIMULATOR.model(AGENT_TIER, noise=base.config.sim_noise).model_id
    tier = _agent_tier(base.config)
    return tier.model if tier is not None else ""


def _head_config(edit: RepoEdit, harness: HarnessName | None) -> RatchetConfig | None:
    """The head's ratchet.yaml (with `--harness`), or None when it is absent or does not parse."""
    if not any(change.path == CONFIG_FILE for change in edit.changes):
        return None
    try:
        text = read_file_at(edit.repo, edit.head, CONFIG_FILE, error=ConfigError)
        if text is None:
            return None
        source = f"{CONFIG_FILE}@{label(edit.head)}"
        config = project_from_text(edit.root, text, source=source, home=edit.project.home).with_harness(harness).config
    except ConfigError:
        return None  # checked as a settings change, as before (docs/adr/0011)
    # A head with no agent tier names no agent to replay with: a settings change, as before.
    return config if _agent_tier(config) is not None else None


def _agent_tier(config: RatchetConfig) -> TierConfig | None:
    return config.tiers.get(AGENT_TIER)


def _agent_part(config: RatchetConfig) -> dict[str, Any]:
    """The agent settings that change what a replay does, by dotted name: tiers.agent.*, harness.*,
    max_agent_turns. A price changes what a replay costs, not what it does: a price alone replays nothing."""
    tier = _agent_tier(config)
    part: dict[str, Any] = {f"tiers.agent.{k}": v for k, v in (tier.model_dump() if tier else {}).items()}
    part.update({f"harness.{k}": v for k, v in config.harness.model_dump().items() if k not in GATE_HARNESS_FIELDS})
    part["max_agent_turns"] = config.max_agent_turns
    return part


def _differing(base: RatchetConfig, head: RatchetConfig) -> tuple[str, ...]:
    was, now = _agent_part(base), _agent_part(head)
    return tuple(name for name in dict.fromkeys([*was, *now]) if was.get(name) != now.get(name))


def _outside_agent(config: RatchetConfig, agent_models: set[str]) -> dict[str, Any]:
    """ratchet.yaml without the agent part. The prices of both sides' agent models go with the agent: an edit
    that swaps model a for model b usually swaps a's price line for b's, which changes nothing the gate judges
    with (the replays are priced by the base where it prices the model, _replay_project)."""
    dumped = config.model_dump()
    dumped["tiers"].pop(AGENT_TIER, None)
    for model in agent_models:
        dumped["prices"].pop(model, None)
    harness = dumped.pop("harness")
    dumped["harness"] = {name: harness[name] for name in GATE_HARNESS_FIELDS}
    dumped.pop("max_agent_turns")
    return dumped


def _outside_differs(base: RatchetConfig, head: RatchetConfig) -> bool:
    """Whether base and head differ anywhere outside the agent part."""
    models = {t.model for t in (_agent_tier(base), _agent_tier(head)) if t is not None}
    return _outside_agent(base, models) != _outside_agent(head, models)


def _side(config: RatchetConfig) -> AgentSide:
    tier = _agent_tier(config)
    settings: HarnessSettings = config.harness
    harness = f"{settings.name} ({settings.bin})" if settings.bin else settings.name
    return AgentSide(model=tier.model if tier is not None else "", harness=harness)


def _replay_project(base: Project, head: RatchetConfig) -> Project:
    """The base's project with the head's agent tier, harness and turn limit. Prices stay the base's; the head's
    price of its agent model is added only where the base has none (the PR cannot reprice what the base prices)."""
    prices = dict(base.config.prices)
    tier = _agent_tier(head)
    if tier is not None and tier.model not in prices and tier.model in head.prices:
        prices[tier.model] = head.prices[tier.model]
    tiers = {**base.config.tiers, **({AGENT_TIER: tier} if tier is not None else {})}
    # The gate's reading of shell calls stays the base's (GATE_HARNESS_FIELDS): only how the agent runs is the head's.
    harness = head.harness.model_copy(update={name: getattr(base.config.harness, name) for name in GATE_HARNESS_FIELDS})
    config = base.config.model_copy(
        update={"tiers": tiers, "prices": prices, "harness": harness, "max_agent_turns": head.max_agent_turns}
    )
    return base.model_copy(update={"config": config})


def refuse_sharded_agent_change(agent: AgentChange | None, shard: ShardJob | None) -> None:
    """A change of the agent is checked on one machine: a shard file does not carry it yet, so ratchet merge could
    not say per skill what regressed under the head's agent."""
    if agent is not None and shard is not None:
        raise InputError(
            f"--shard {shard.shard.label}: a change of the agent ({', '.join(agent.fields)}) is checked on one machine "
            "for now; run ratchet check without --shard"
        )


def plan_for(
    agent: AgentChange,
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    skills: Iterable[str],
    budget: float | None,
    edited: Sequence[str] = (),
) -> ReplayPlan:
    """The goldens to replay under the head's agent (ratchet.gate.model_change), estimated at its price first;
    `skills`: the base's skill names; `edited`: the skills the same change edits, never sampled away."""
    config = agent.project.config
    model = config.tiers[AGENT_TIER].model
    price = config.prices.get(model) if config.upstream == "sim" else price_for(config, model)
    return plan_replays(
        tasks,
        goldens,
        list(skills),
        price=price,
        budget_usd=budget,
        max_tokens=agent.project.agent_max_tokens(),
        edited=edited,
    )


def agent_verdict(
    verdict: Verdict, agent: AgentChange, plan: ReplayPlan, *, simulated: bool, confidence: float
) -> Verdict:
    """`verdict` with the change of the agent on it, its summary opening with it (model_change.with_model_change)."""
    frame = model_change_frame(
        agent.base, agent.head, plan, fields=agent.fields, declared=agent.declared, simulated=simulated
    )
    return with_model_change(verdict, frame, block_confidence=confidence)
