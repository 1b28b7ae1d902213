"""Selection under `routing: model`: the edited skill's tasks, the canaries, and the catalog neighbours.

A model routes by reading the catalog, not by the lexical matcher, so a description broadened into
words no prompt uses can still pull a neighbour's task: the lexical trigger neighbourhood cannot
see that, the catalog neighbourhood (the k skills whose descriptions are nearest) does.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

from ratchet.agent.catalog import LOAD_SKILL, nearest_skills
from ratchet.agent.runner import run_task
from ratchet.bench.data.dataset import read_edits
from ratchet.bless.record import bless
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import Project, load_project
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest
from ratchet.gate.context import CheckContext
from ratchet.gate.evaluate import evaluate_edit
from ratchet.gate.replay import Replayer
from ratchet.gate.select import affected_goldens
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.goldens.trace import load_goldens, write_trace
from ratchet.llm.fake import ScriptedModel
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world import load_world

REPO = Path(__file__).resolve().parents[2]

# -- routing: lexical: the benchmark's selection is what it was ----------------------------------

# sha256 of [[edit id, [[task id, because], ...]], ...] over every bench edit, computed with the
# selection code as it was before routing existed (1527 selections, 67 of them not "routed"). The fault
# class (R7, F0: issue 30) came later; its edits are pinned apart (each selects its skill's routed tasks).
LEXICAL_PIN = "94cf608ec9c394419dd4de4b55146739ac1e519ba0aaf882177d1fcd7d0b54c6"


def test_lexical_selection_of_every_benchmark_edit_is_unchanged() -> None:
    skills = load_skills(REPO / "skills")
    tasks = load_tasks(REPO / "bench/tasks.yaml")
    goldens = load_goldens(REPO / "goldens")
    rows, explicit, fault_class = [], [], []
    for edit_id, edit in sorted(read_edits(REPO / "bench/edits").items()):
        head = {
            **skills,
            edit.skill: parse_skill_text(edit.skill_md, folder=REPO / "skills" / edit.skill, source=edit_id),
        }
        selected = affected_goldens(tasks, goldens, [edit.skill], head)
        (fault_class if edit.type in ("R7", "F0") else rows).append(
            [edit_id, [[s.task.id, s.because] for s in selected]]
        )
        spelled = affected_goldens(
            tasks, goldens, [edit.skill], head, routing="lexical", base_skills=skills, neighbours=3
        )
        if edit.type not in ("R7", "F0"):
            explicit.append([edit_id, [[s.task.id, s.because] for s in spelled]])
    assert explicit == rows
    assert sum(len(r[1]) for r in rows) == 1527
    assert hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest() == LEXICAL_PIN
    assert sum(len(r[1]) for r in fault_class) == 70 and {b for r in fault_class for _, b in r[1]} == {"routed"}


# -- nearest skills ------------------------------------------------------------------------------


def skill(name: str, description: str) -> Skill:
    text = f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nAnswer in one line.\n"
    return parse_skill_text(text, folder=Path("skills") / name, source=f"{name}/SKILL.md")


def test_nearest_skills_rank_by_tfidf_cosine_with_ties_broken_by_name() -> None:
    candidates = {
        "expense-logger": skill("expense-logger", "Log an expense for a trip or a customer dinner."),
        "customer-crm": skill("customer-crm", "Update a customer record in the CRM."),
        "meeting-booker": skill("meeting-booker", "Book a meeting room on the calendar."),
        "issue-labeler": skill("issue-labeler", "Label a github issue by its severity."),
    }
    edited = [skill("invoice-sender", "Send an invoice to a customer.")]
    assert nearest_skills(edited, candidates, 2) == ["customer-crm", "expense-logger"]
    # Nothing shares a word with the other two: they tie at zero and go by name, so k is always k.
    assert nearest_skills(edited, candidates, 4) == [
        "customer-crm",
        "expense-logger",
        "issue-labeler",
        "meeting-booker",
    ]
    assert nearest_skills(edited, candidates, 0) == []


def test_a_skill_is_near_by_its_base_or_its_head_description() -> None:
    candidates = {
        "expense-logger": skill("expense-logger", "Log an expense for a trip."),
        "meeting-booker": skill("meeting-booker", "Book a meeting room on the calendar."),
    }
    base, head = skill("helper", "Log an expense."), skill("helper", "Book a room.")
    assert nearest_skills([base], candidates, 1) == ["expense-logger"]
    assert nearest_skills([head], candidates, 1) == ["meeting-booker"]
    assert set(nearest_skills([base, head], candidates, 2)) == {"expense-logger", "meeting-booker"}


# -- the must-show: a model's routing change caught through the catalog neighbourhood -------------

SKILLS = {
    "invoice-sender": "Send an invoice to a customer.",
    "expense-logger": "Log an expense for a trip or a customer dinner.",
    "issue-labeler": "Label a github issue by its severity.",
    "meeting-booker": "Book a meeting room on the calendar.",
}
# Broadened into words no prompt uses: the lexical matcher routes every task as before.
BROADENED = (
    "Send an invoice to a customer, and handle reconciliation, accruals, remittances, dunning, ledgers "
    "and receivables across every subsidiary."
)
TASKS = [
    {"id": "invoice-01", "prompt": "Send invoice INV-7 to Globex.", "skill": "invoice-sender"},
    {
        "id": "expense-01",
        "prompt": "Log the taxi expense from the Berlin trip with the customer.",
        "skill": "expense-logger",
    },
    {"id": "issue-01", "prompt": "Label issue 42 by severity.", "skill": "issue-labeler"},
    {"id": "meeting-01", "prompt": "Book a meeting room for Tuesday.", "skill": "meeting-booker"},
    {"id": "canary-01", "prompt": "What is the capital of France?"},
]
_ENTRY = re.compile(r"^- ([a-z0-9-]+): (.*)$", re.M)
_FILLER = frozenset(["a", "an", "the", "to", "for", "of", "or", "by", "on", "in", "its", "with", "from", "and"])


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - _FILLER


def catalog_rule(request: ChatRequest) -> ChatResponse:
    """A model of its own: of the catalog skills whose description shares a word with the prompt, it
    loads the one with the longest description (a model lured by thoroughness); then it answers."""
    system = request.messages[0].content or ""
    prompt = request.messages[1].content or ""
    loaded = [m.content or "" for m in request.messages if m.role == "tool" and m.name == LOAD_SKILL]
    if loaded:
        name = re.search(r'<skill name="([^"]+)">', loaded[0])
        return ChatResponse(
            message=Message(role="assistant", content=f"Handled with {name.group(1) if name else '?'}.")
        )
    fitting = [(len(d), n) for n, d in _ENTRY.findall(system) if _words(d) & _words(prompt)]
    if not fitting:
        return ChatResponse(message=Message(role="assistant", content="No skill fits; answered directly."))
    _, name = max(fitting)
    call = ToolCallRequest(id="load", name=LOAD_SKILL, arguments={"name": name})
    return ChatResponse(message=Message(role="assistant", tool_calls=[call]), finish_reason="tool_calls")


def fake_model() -> ScriptedModel:
    return ScriptedModel("fake/catalog-reader", [catalog_rule] * 200, echo=False)


def write_skill(root: Path, name: str, description: str) -> None:
    folder = root / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nAnswer in one line.\n", encoding="utf-8"
    )


def model_routed_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project with routing: model and k = 1, its goldens recorded with the fake model and blessed."""
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    (root / "ratchet.yaml").write_text("schema_version: 1\nrouting: model\nrouting_neighbours: 1\n", encoding="utf-8")
    (root / "tasks.yaml").write_text(
        yaml.safe_dump({"schema_version": 1, "tasks": TASKS}, sort_keys=False), encoding="utf-8"
    )
    for name, description in SKILLS.items():
        write_skill(root, name, description)
    project = load_project(root, home=root / ".ratchet")
    model, skills = fake_model(), load_skills(project.path("skills"))
    for task in load_tasks(project.path("tasks")):
        world = load_world(
            project.path("world"),
            workspaces_dir=project.path("workspaces"),
            workspace=None,
            frozen_time=project.config.clock,
        )
        trace = run_task(
            task,
            skills,
            world,
            model,
            seed=task_seed(task.id),
            frozen_time=project.config.clock,
            models={"agent": model.model_id},
            routing=project.config.routing,
            purpose="bless",
        )
        write_trace(project.pending_dir / f"{task.id}.json", trace)
    bless(project)
    return project


def test_a_broadened_description_that_pulls_a_neighbours_task_is_replayed_and_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = model_routed_project(tmp_path, monkeypatch)
    goldens = load_goldens(project.path("goldens"))
    assert {t: g.fired_skill for t, g in goldens.items()} == {
        "invoice-01": "invoice-sender",
        "expense-01": "expense-logger",
        "issue-01": "issue-labeler",
        "meeting-01": "meeting-booker",
        "canary-01": None,
    }
    base_skills = load_skills(project.path("skills"))
    write_skill(tmp_path, "invoice-sender", BROADENED)
    head_skills = load_skills(project.path("skills"))
    tasks = load_tasks(project.path("tasks"))

    # The lexical trigger neighbourhood sees nothing move: it would replay the edited skill's task only.
    lexical = affected_goldens(tasks, goldens, ["invoice-sender"], head_skills)
    assert [(s.task.id, s.because) for s in lexical] == [("invoice-01", "routed")]

    evaluation = evaluate_edit(
        CheckContext(config=resolve_gate_config("level0_only")),
        Replayer(project, tree=tmp_path, head_skills=head_skills, base_skills=base_skills, agent=fake_model()),
        changed=["invoice-sender"],
        tasks=tasks,
        goldens=goldens,
    )
    verdict = evaluation.verdict
    assert [(p.task_id, p.selected_because, p.outcome) for p in verdict.pairs] == [
        ("invoice-01", "routed", "same"),
        ("expense-01", "catalog-neighbour", "unsure"),  # expense-logger is invoice-sender's nearest (k = 1)
        ("canary-01", "trigger-neighbourhood", "same"),
    ]
    moved = verdict.pairs[1]
    assert (moved.golden_skill, moved.replay_skill) == ("expense-logger", "invoice-sender")
    assert moved.findings[0].detail == "routing changed: expense-logger -> invoice-sender"
    # A routing change is a "diff" finding, not a hard fail (a task can move to a better skill), so it
    # needs a judge; level0_only has none, so the pair is unsure and the edit is WARN, never a silent PASS.
    assert moved.findings[0].severity == "diff"
    assert verdict.decision == "WARN"


def record_and_bless(project: Project) -> None:
    model, skills = fake_model(), load_skills(project.path("skills"))
    for task in load_tasks(project.path("tasks")):
        world = load_world(project.path("world"), workspaces_dir=None, workspace=None, frozen_time=project.config.clock)
        trace = run_task(
            task,
            skills,
            world,
            model,
            seed=task_seed(task.id),
            frozen_time=project.config.clock,
            models={"agent": model.model_id},
            routing="model",
            purpose="bless",
        )
        write_trace(project.pending_dir / f"{task.id}.json", trace)
    bless(project)


def test_a_task_tasks_yaml_gives_the_edited_skill_is_replayed_even_when_its_golden_went_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = model_routed_project(tmp_path, monkeypatch)
    write_skill(tmp_path, "invoice-sender", BROADENED)
    record_and_bless(project)  # blessed as the model now routes: expense-01 goes to invoice-sender
    goldens = load_goldens(project.path("goldens"))
    assert goldens["expense-01"].fired_skill == "invoice-sender"
    skills = load_skills(project.path("skills"))
    selected = affected_goldens(
        load_tasks(project.path("tasks")),
        goldens,
        ["expense-logger"],
        skills,
        routing="model",
        base_skills=skills,
        neighbours=0,
    )
    assert [(s.task.id, s.because) for s in selected] == [
        ("expense-01", "routed"),
        ("canary-01", "trigger-neighbourhood"),
    ]


def test_a_task_whose_lexical_routing_moves_is_replayed_under_model_routing_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = model_routed_project(tmp_path, monkeypatch)
    base_skills = load_skills(project.path("skills"))
    write_skill(tmp_path, "issue-labeler", "Label a github issue by its severity, or book a meeting room for Tuesday.")
    head_skills = load_skills(project.path("skills"))
    selected = affected_goldens(
        load_tasks(project.path("tasks")),
        load_goldens(project.path("goldens")),
        ["issue-labeler"],
        head_skills,
        routing="model",
        base_skills=base_skills,
        neighbours=0,
    )
    assert [(s.task.id, s.because) for s in selected] == [
        ("issue-01", "routed"),
        ("meeting-01", "trigger-neighbourhood"),
        ("canary-01", "trigger-neighbourhood"),
    ]
