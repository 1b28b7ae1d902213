"""A model change is an edit (docs/adr/0023): when the agent differs between base and head, or `--agent-model`
names another model, `ratchet check` replays the goldens under the head's agent, judged by the base's gate.

Model B is the simulator's agent under another name that, on the tasks of one skill, also emails finance: the
verdict must BLOCK naming that skill and PASS the others; the same agent with only a harmless parameter changed
PASSes every skill; under a budget that fits part of the goldens, the sample is stratified by skill, seeded,
and names what it did not replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.agent.prompt import read_skill_block
from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import Price, RatchetConfig
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, ToolCallRequest
from ratchet.core.errors import InputError
from ratchet.core.ids import derived_seed
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.gate.shard import Shard, ShardJob
from ratchet.goldens.trace import NOISE_SUFFIX, read_trace
from ratchet.outputs.markdown import render_markdown
from ratchet.outputs.text import md_inline
from ratchet.sim.agent import SimAgentModel
from tests.helpers.gitrepo import commit, git

LEVEL0_ONLY = resolve_gate_config("level0_only")
TRIAGE, FX = "github-triage", "fx-expense-converter"
MODEL_B = "openai/model-b"
BASE_MODEL = "openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5"


class RegressesOneSkill:
    """Model B: the simulator's agent, except that on `skill`'s tasks its first turn also emails finance."""

    def __init__(self, skill: str, model_id: str = "fake/model-b") -> None:
        self.inner = SimAgentModel(model_id=model_id)
        self.skill = skill
        self.calls = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        response = self.inner.complete(request)
        fired = next((block for m in request.messages if (block := read_skill_block(m.content or ""))), None)
        first_turn = not any(m.role == "assistant" for m in request.messages)
        if fired is None or fired[0] != self.skill or not first_turn:
            return response
        email = ToolCallRequest(
            id="model-b-1",
            name="email_send",
            arguments={"to": "finance@example.com", "subject": "fyi", "body": "done"},
        )
        message = response.message.model_copy(update={"tool_calls": [*response.message.tool_calls, email]})
        return response.model_copy(update={"message": message})


def _yaml(repo: Path, extra: str) -> dict[str, str]:
    text = (repo / "ratchet.yaml").read_text(encoding="utf-8")
    return {"ratchet.yaml": text + extra}


def _agent(model: str, max_tokens: int = 5000, price: tuple[float, float] | None = (1e-7, 4e-7)) -> str:
    """ratchet.yaml's tiers and prices as the base has them (the defaults), with `model` as the agent."""
    config = RatchetConfig()
    tiers = {
        **config.tiers,
        "agent": config.tiers["agent"].model_copy(update={"model": model, "max_tokens": max_tokens}),
    }
    prices = {**config.prices, **({model: Price(input=price[0], output=price[1])} if price else {})}
    dump = {"tiers": {k: v.model_dump(exclude_none=True) for k, v in tiers.items()}}
    dump["prices"] = {k: v.model_dump(exclude_none=True) for k, v in prices.items()}
    return "".join(f"{key}: {json.dumps(value)}\n" for key, value in dump.items())


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def _check(repo: Path, base: str, model: ChatModel | None = None, **options: object) -> Verdict:
    upstream = {"agent": model} if model is not None else {}
    return check_edit(repo, base=base, config=LEVEL0_ONLY, upstream_models=upstream, **options)  # type: ignore[arg-type]


def _goldens(repo: Path, skill: str) -> list[str]:
    return sorted(p.stem for p in (repo / "goldens" / skill).glob("*.json") if "noise" not in p.name)


def test_a_model_that_regresses_one_skill_blocks_naming_it_and_passes_the_others(demo_repo: Path) -> None:
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B)), "the agent is model b")
    model_b = RegressesOneSkill(FX)
    verdict = _check(demo_repo, base, model_b)
    change = verdict.model_change
    assert change is not None and model_b.calls
    fx = _goldens(demo_repo, FX)
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.settings_changed == []  # only the agent changed: replayed, not named as a settings change
    assert change.replayed == change.goldens_total == len(verdict.pairs) == 23
    by_skill = {entry.skill: entry for entry in change.skills}
    assert by_skill[FX].regressed == fx and by_skill[FX].decision == "BLOCK"
    assert by_skill[TRIAGE].decision == "PASS" and not by_skill[TRIAGE].regressed
    assert by_skill["_none"].decision == "PASS"
    assert verdict.summary.startswith(
        f"agent model changed (openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5 -> {MODEL_B}): "
        f"skill {FX} regressed on {len(fx)} of {len(fx)} golden(s); 1 other skill(s) PASS; the canaries PASS; "
        "replayed 23 of 23 golden(s), estimate simulated $"
    )
    # Model b against goldens recorded by the base's agent is the point, not a provenance warning.
    assert not [note for note in verdict.unseen if note.kind == "provenance"]
    assert not verdict.skills_changed
    read = Verdict.model_validate_json(verdict.to_json()).model_change  # the JSON carries it whole
    assert read is not None and read.model_dump(mode="json") == change.model_dump(mode="json")
    markdown = render_markdown(verdict).splitlines()
    assert (
        "- **" + md_inline(f"agent changed: {BASE_MODEL} -> {MODEL_B} (tiers.agent.model, prices.{MODEL_B})") + "**"
        in markdown
    )
    assert "- " + md_inline(f"{FX}: BLOCK, 10 of 10 golden(s) replayed, regressed: 10 tasks: {FX}-01..10") in markdown


def test_goldens_recorded_with_yet_another_model_are_still_named(demo_repo: Path) -> None:
    files: dict[str, str | None] = {}
    for path in sorted((demo_repo / "goldens" / TRIAGE).glob("*.json")):
        if not path.name.endswith(NOISE_SUFFIX):
            trace = read_trace(path)
            retagged = trace.model_copy(update={"models": {**trace.models, "agent": "openai/model-z"}})
            files[path.relative_to(demo_repo).as_posix()] = retagged.to_json()
    base = commit(demo_repo, files, "triage's goldens say they were recorded with model z")
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B)), "the agent is model b")
    verdict = _check(demo_repo, base, RegressesOneSkill(FX))
    named = [note for note in verdict.unseen if note.kind == "provenance"]
    assert [note.skill for note in named] == [TRIAGE]
    # Compared with the base's agent (the simulator's id on upstream: sim), never with model b's.
    assert named[0].detail.startswith(
        "10 golden(s) were recorded with agent model openai/model-z but replayed with sim/agent-1 "
    )


def test_declaring_the_bases_own_model_is_refused(demo_repo: Path) -> None:
    with pytest.raises(InputError, match="that is the base's agent already"):
        _check(demo_repo, _head(demo_repo), agent_model=BASE_MODEL)


def test_a_sharded_check_of_an_agent_change_is_refused_in_one_line(demo_repo: Path) -> None:
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B)), "the agent is model b")
    with pytest.raises(InputError) as refused:
        _check(demo_repo, base, shard=ShardJob(Shard.parse("1/2")))
    assert str(refused.value) == (
        f"--shard 1/2: a change of the agent (tiers.agent.model, prices.{MODEL_B}) is checked on one machine for now; "
        "run ratchet check without --shard"
    )


def test_the_same_agent_with_a_harmless_parameter_changed_passes_every_skill(demo_repo: Path) -> None:
    base = _head(demo_repo)
    model = "openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5"
    commit(demo_repo, _yaml(demo_repo, _agent(model, 4096, None)), "max tokens")
    verdict = _check(demo_repo, base)
    change = verdict.model_change
    assert change is not None
    assert change.fields == ["tiers.agent.max_tokens"]
    assert verdict.decision == "PASS", verdict.summary
    assert {entry.decision for entry in change.skills} == {"PASS"}
    assert verdict.summary.startswith(
        f"agent changed (tiers.agent.max_tokens; model {model}): 2 skill(s) PASS; the canaries PASS; replayed 23 of 23 golden(s)"
    )


def test_an_agent_change_with_another_setting_still_names_the_settings(demo_repo: Path) -> None:
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B) + "static: block\n"), "model b, and a stricter static")
    verdict = _check(demo_repo, base, RegressesOneSkill(FX), on_error="block")
    assert verdict.model_change is not None
    assert verdict.settings_changed == ["ratchet.yaml"]
    assert verdict.decision == "BLOCK"
    assert "the gate's own settings changed (ratchet.yaml): checked with the base's settings" in verdict.summary


def _sample_expected(repo: Path, skills: dict[str, list[str]], count: int) -> list[str]:
    strata = {s: sorted(ids, key=lambda t: (derived_seed("model-change", t), t)) for s, ids in skills.items()}
    order = sorted(strata)
    robin = [strata[s][d] for d in range(max(map(len, strata.values()))) for s in order if d < len(strata[s])]
    return robin[:count]


def test_under_a_budget_the_sample_is_stratified_seeded_and_names_what_it_left_out(demo_repo: Path) -> None:
    base = _head(demo_repo)
    # Dear enough that about a third of the goldens fit the budget.
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B, 256, (1e-5, 4e-5))), "model b")
    full = _check(demo_repo, base, RegressesOneSkill(FX))
    assert full.model_change is not None and not full.model_change.sampled
    budget = full.model_change.estimate_usd / 3
    first = _check(demo_repo, base, RegressesOneSkill(FX), budget_usd=budget)
    again = _check(demo_repo, base, RegressesOneSkill(FX), budget_usd=budget)
    change = first.model_change
    assert change is not None and change.sampled
    assert [p.task_id for p in first.pairs] == [p.task_id for p in again.pairs]
    assert 0 < change.replayed < change.goldens_total
    assert change.estimate_usd <= budget and first.cost_usd <= budget
    skills = {
        TRIAGE: _goldens(demo_repo, TRIAGE),
        FX: _goldens(demo_repo, FX),
        "_none": _goldens(demo_repo, "_none"),
    }
    expected = _sample_expected(demo_repo, skills, change.replayed)
    assert sorted(p.task_id for p in first.pairs) == sorted(expected)
    assert {entry.skill: entry.replayed for entry in change.skills} == {
        skill: sum(1 for t in expected if t in ids) for skill, ids in skills.items()
    }
    assert first.decision == "BLOCK"  # the fx goldens in the sample still regress
    assert f"replayed {change.replayed} of 23 golden(s) (a seeded sample stratified by skill" in first.summary


def test_a_budget_too_small_for_any_golden_names_every_skill_and_never_passes(demo_repo: Path) -> None:
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, _agent(MODEL_B, 256, (1e-5, 4e-5))), "model b")
    verdict = _check(demo_repo, base, RegressesOneSkill(FX), budget_usd=0.0001)
    change = verdict.model_change
    assert change is not None and change.sampled and not verdict.pairs
    assert verdict.decision == "WARN"
    assert verdict.summary == (
        f"agent model changed (openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5 -> {MODEL_B}): "
        "the canaries (no skill) not replayed (3 golden(s), none in the sample): unchecked; "
        f"skill {FX} not replayed (10 golden(s), none in the sample): unchecked; "
        f"skill {TRIAGE} not replayed (10 golden(s), none in the sample): unchecked; "
        "replayed 0 of 23 golden(s) (a seeded sample stratified by skill: all of them, estimate simulated "
        f"${change.every_usd:.4f}, did not fit the budget), estimate simulated $0.0000, spent simulated $0.0000"
    )
    assert change.every_usd > 0.0001


def test_a_live_head_model_with_no_price_is_refused_in_one_line(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base = _head(demo_repo)
    args = ["check", "--repo", str(demo_repo), "--base", base, "--agent-model", "openai/unpriced"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    # Before any export, preflight or replay: the price is what a live estimate and the cap need first.
    assert result.output.splitlines() == [
        "error: no price for model 'openai/unpriced': add it under `prices:` in ratchet.yaml "
        "(USD per token; an explicit 0 is fine for a local model)"
    ]


def test_agent_model_on_the_cli_declares_a_change_with_no_file_changed(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    base = _head(demo_repo)
    args = ["check", "--repo", str(demo_repo), "--base", base, "--level0-only", "--agent-model", "openai/model-c"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    block = lines.index("skills changed: none")
    assert lines[block + 1 : block + 6] == [
        "agent changed (--agent-model): openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5 -> openai/model-c "
        "(tiers.agent.model)",
        "canaries (no skill): PASS, 3 of 3 golden(s) replayed",
        f"{FX}: PASS, 10 of 10 golden(s) replayed",
        f"{TRIAGE}: PASS, 10 of 10 golden(s) replayed",
        "replayed 23 of 23 golden(s) under the head's agent: estimate simulated $0.0000, spent simulated $0.0000",
    ]
    assert lines[-2] == (
        "PASS  agent model changed (openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5 -> openai/model-c) by "
        "--agent-model: 2 skill(s) PASS; the canaries PASS; replayed 23 of 23 golden(s), estimate simulated $0.0000, spent simulated "
        "$0.0000; 23 affected golden(s) replayed without a regression"
    )


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ('  api_base: "http://127.0.0.1:9/v1"\n', "tiers.agent.api_base"),
        ("harness:\n  name: command\n  command: cat {prompt}\n", "harness.command"),
    ],
    ids=["api_base", "command"],
)
def test_an_agent_the_edit_points_elsewhere_is_replayed_and_still_named_as_settings(
    demo_repo: Path, extra: str, field: str
) -> None:
    # Where the agent's answers come from (its endpoint, its key, a harness binary or command) is the edit's to
    # set: a replay under it proves only what that source chose to answer, and every later check would run on
    # it. The change is replayed and reported per skill, and never PASSes on its own (docs/adr/0023).
    base = _head(demo_repo)
    agent = _agent(BASE_MODEL)
    if field == "tiers.agent.api_base":
        config = RatchetConfig()
        tier = config.tiers["agent"].model_copy(update={"api_base": "http://127.0.0.1:9/v1"})
        agent = agent.replace(
            json.dumps(config.tiers["agent"].model_dump(exclude_none=True)),
            json.dumps(tier.model_dump(exclude_none=True)),
        )
        extra = ""
    commit(demo_repo, _yaml(demo_repo, agent + extra), "the agent from elsewhere")
    verdict = _check(demo_repo, base, RegressesOneSkill("none-of-them"), on_error="block")
    assert verdict.model_change is not None and field in verdict.model_change.fields
    assert verdict.settings_changed == ["ratchet.yaml"]
    assert verdict.decision == "BLOCK", verdict.summary


def test_a_skill_edited_with_the_agent_is_checked_in_full_however_small_the_budget(demo_repo: Path) -> None:
    # A one-line agent change must not turn a skill edit's full check into a sample that misses it: the edited
    # skill's goldens are always replayed; only the other skills' are sampled.
    base = _head(demo_repo)
    skill = f"skills/{TRIAGE}/SKILL.md"
    text = (demo_repo / skill).read_text(encoding="utf-8")
    assert 'else "priority/normal"' in text
    files = {skill: text.replace('else "priority/normal"', 'else "priority/medium"', 1)}
    commit(demo_repo, {**files, **_yaml(demo_repo, _agent(MODEL_B, 256, (1e-5, 4e-5)))}, "model b, and a label")
    full = _check(demo_repo, base, RegressesOneSkill("none-of-them"))
    assert full.model_change is not None and full.decision == "WARN"  # level 0 only: the changed label needs judging
    small = _check(demo_repo, base, RegressesOneSkill("none-of-them"), budget_usd=full.model_change.estimate_usd / 4)
    change = small.model_change
    assert change is not None and change.sampled
    by_skill = {entry.skill: entry for entry in change.skills}
    assert by_skill[TRIAGE].replayed == len(_goldens(demo_repo, TRIAGE))
    assert small.decision != "PASS", small.summary


def test_read_commands_are_the_gates_and_never_an_agent_change(demo_repo: Path) -> None:
    # Which shell commands Level 0 takes for reads is the gate's reading: a head listing `rm` there would turn its
    # own new side effects into reads. A settings change, and the replays keep the base's list.
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, "harness: {name: minimal, read_commands: [cat, rm, curl]}\n"), "rm reads")
    verdict = _check(demo_repo, base, on_error="block")
    assert verdict.model_change is None
    assert verdict.settings_changed == ["ratchet.yaml"] and verdict.decision == "BLOCK"


def test_commands_allow_is_the_gates_and_never_an_agent_change(demo_repo: Path) -> None:
    # Which commands run for real instead of through the recording shims is the gate's: a head allowing `git`
    # would let its own `git push` run unrecorded. A settings change, and the replays keep the base's list.
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, "harness: {name: minimal, commands_allow: [git, curl]}\n"), "git runs for real")
    verdict = _check(demo_repo, base, on_error="block")
    assert verdict.model_change is None
    assert verdict.settings_changed == ["ratchet.yaml"] and verdict.decision == "BLOCK"


def test_a_head_ratchet_yaml_that_does_not_parse_stays_a_settings_change_with_agent_model(demo_repo: Path) -> None:
    base = _head(demo_repo)
    commit(demo_repo, _yaml(demo_repo, "max_agent_turns: [\n"), "a broken ratchet.yaml")
    verdict = _check(demo_repo, base, RegressesOneSkill("none-of-them"), agent_model=MODEL_B, on_error="block")
    assert verdict.settings_changed == ["ratchet.yaml"]
    assert verdict.decision == "BLOCK", verdict.summary
