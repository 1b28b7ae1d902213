"""`ratchet bench build` on a two-skill project, offline on the simulator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import git
import pytest
from typer.testing import CliRunner

from ratchet.bench.build.build import BuildOptions, BuildResult, build_bench
from ratchet.bench.build.scratch_repo import commit_edit
from ratchet.bench.data.dataset import BenchPaths, read_edits, read_labels
from ratchet.bench.data.models import REGRESSION_TYPES
from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.sim.injector import InjectContext, ToolInfo, propose, split_skill
from ratchet.skills.skill import parse_skill_text
from tests.bench.conftest import SOURCE, make_project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.helpers.live_tiers import set_live_tiers


def test_build_counts_and_labels(built_template: tuple[Path, BuildResult]) -> None:
    root, result = built_template
    assert result.goldens == 23  # 10 + 10 tasks and 3 canaries
    assert len(list((root / "goldens").glob("*/*.json"))) == 23
    assert result.edits["N0"] == 4
    assert result.edits["D1"] == 2  # only fx-expense-converter is world-dependent here
    kept_r = sum(result.edits.get(t, 0) for t in REGRESSION_TYPES)
    assert kept_r + len([d for d in result.dropped if d.type in REGRESSION_TYPES]) == 24
    assert kept_r >= 20
    paths = BenchPaths.at(root)
    edits = read_edits(paths.edits)
    labels = read_labels(paths.labels)
    assert labels is not None and {lb.edit_id for lb in labels.labels} == set(edits)
    for label in labels.labels:
        edit = edits[label.edit_id]
        assert parse_skill_text(edit.skill_md, folder=root / "skills" / edit.skill, source="x").name == edit.skill
        if label.type in REGRESSION_TYPES:
            assert label.expected_decision == "BLOCK" and label.affected_goldens
            assert all(label.expected_pairs[t] == "regression" for t in label.affected_goldens)
        else:
            assert label.expected_decision == "PASS" and label.review_required
    for edit_type in REGRESSION_TYPES:
        of_type = [lb for lb in labels.labels if lb.type == edit_type]
        assert sum(lb.review_required for lb in of_type) == math.ceil(len(of_type) * 0.2)
    d1 = [lb for lb in labels.labels if lb.type == "D1"]
    assert all("drift" in lb.expected_pairs.values() for lb in d1)
    assert all(edits[lb.edit_id].world_overlay and edits[lb.edit_id].fixtures["facts"] for lb in d1)
    n0 = [edits[lb.edit_id] for lb in labels.labels if lb.type == "N0"]
    for edit in n0:
        original = (root / "skills" / edit.skill / "SKILL.md").read_text(encoding="utf-8")
        assert split_skill(edit.skill_md)[0] == split_skill(original)[0]  # frontmatter untouched


def test_second_build_is_identical(bench_project: Path, built_template: tuple[Path, BuildResult]) -> None:
    labels_before = (bench_project / "labels" / "labels.json").read_bytes()
    edits_before = {p.name: p.read_bytes() for p in (bench_project / "bench" / "edits").glob("*.json")}
    goldens_before = {p.name: p.read_bytes() for p in (bench_project / "goldens").glob("*/*.json")}
    again = build_bench(bench_project, BuildOptions(work=bench_project / "var" / "bench"))
    assert again.digest == built_template[1].digest
    assert (bench_project / "labels" / "labels.json").read_bytes() == labels_before
    assert {p.name: p.read_bytes() for p in (bench_project / "bench" / "edits").glob("*.json")} == edits_before
    assert {p.name: p.read_bytes() for p in (bench_project / "goldens").glob("*/*.json")} == goldens_before


def test_partial_build_replaces_only_its_scope(bench_project: Path) -> None:
    edits_dir = bench_project / "bench" / "edits"
    r4 = edits_dir / "github-triage.R4.1.json"
    keep = r4.read_bytes()
    (edits_dir / "github-triage.R2.1.json").write_text("stale", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "bench",
            "build",
            "--skills",
            "github-triage",
            "--types",
            "R2",
            "--no-goldens",
            "--project",
            str(bench_project),
            "--work",
            str(bench_project / "var" / "bench"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "R2: kept 2, dropped 0" in result.output
    assert "goldens recorded: 0" in result.output
    assert json.loads((edits_dir / "github-triage.R2.1.json").read_text())["type"] == "R2"
    assert r4.read_bytes() == keep
    labels = read_labels(bench_project / "labels" / "labels.json")
    assert labels is not None and any(lb.edit_id == "fx-expense-converter.N0.1" for lb in labels.labels)


def test_build_prints_kept_and_dropped_per_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p", ("github-triage",))
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    result = CliRunner().invoke(
        app, ["bench", "build", "--types", "R3,R4,N0", "--project", str(root), "--work", str(tmp_path / "w")]
    )
    assert result.exit_code == 0, result.output
    assert "SIMULATED MODELS" in result.output
    assert "R4: kept 2, dropped 0, " in result.output
    assert "N0: kept 2, dropped 0" in result.output
    assert "wall time" in result.output and "dataset digest" in result.output
    assert not (root / "bench" / "edits" / "github-triage.R1.1.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--skills", "nope"], "unknown skill: nope"),
        (["--types", "R9"], "unknown edit type: R9"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    root = make_project(tmp_path / "p", ("github-triage",))
    result = CliRunner().invoke(app, ["bench", "build", *args, "--project", str(root), "--work", str(tmp_path / "w")])
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1
    assert (
        not (root / "labels").exists() and not (root / "goldens").exists() and not (root / "bench" / "edits").exists()
    )


def test_live_build_prints_the_estimate_and_needs_yes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_project(tmp_path / "p", ("github-triage",))
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI() as server:  # the preflight, before the estimate, asks it; nothing else does
        set_live_tiers(root, server.base_url)
        result = CliRunner().invoke(app, ["bench", "build", "--project", str(root), "--work", str(tmp_path / "w")])
        assert server.requests == []
    assert result.exit_code == 2
    assert "Estimate:" in result.output and "inject" in result.output
    assert "re-run with --yes" in result.output
    assert not (root / "goldens").exists()


def test_commit_edit_leaves_main_alone(bench_project: Path) -> None:
    work = bench_project / "var" / "bench" / "repo"
    repo = git.Repo(work)
    main_before = repo.commit("main").hexsha
    edit = read_edits(bench_project / "bench" / "edits")["fx-expense-converter.D1.1"]
    sha = commit_edit(work, edit, load_project(work))
    assert repo.commit("main").hexsha == main_before
    assert repo.commit(f"edit/{edit.id}").hexsha == sha
    changed = {d.a_path for d in repo.commit("main").diff(sha)}
    assert changed == {"skills/fx-expense-converter/SKILL.md", f"bench/world/zz-drift-{edit.id}.yaml"}
    assert not repo.is_dirty()


def _tools() -> InjectContext:
    return InjectContext(
        tools=(
            ToolInfo("files_read_file", "read", (("path", "string", True, ()),)),
            ToolInfo(
                "email_send",
                "send",
                (("to", "string", True, ()), ("subject", "string", True, ()), ("body", "string", True, ())),
            ),
        ),
        other_descriptions={"other": "Parse vendor invoices and record them."},
    )


# R7 needs fault handling to delete, which fx-expense-converter has none of: tests/sim/test_mutate_faults.py.
@pytest.mark.parametrize("edit_type", [t for t in REGRESSION_TYPES if t != "R7"])
def test_injector_is_seeded_and_keeps_the_skill_valid(edit_type: str, tmp_path: Path) -> None:
    text = (SOURCE / "skills" / "fx-expense-converter" / "SKILL.md").read_text(encoding="utf-8")
    first = propose(text, name="fx-expense-converter", edit_type=edit_type, variant=1, attempt=1, context=_tools())
    again = propose(text, name="fx-expense-converter", edit_type=edit_type, variant=1, attempt=1, context=_tools())
    assert first is not None and first == again and first.skill_md != text
    skill = parse_skill_text(first.skill_md, folder=tmp_path / "fx-expense-converter", source="x")
    original = parse_skill_text(text, folder=tmp_path / "fx-expense-converter", source="x")
    assert skill.name == "fx-expense-converter"
    if edit_type in ("R5", "R6"):
        assert skill.body == original.body and skill.description != original.description
    else:
        assert skill.description == original.description
    if edit_type == "R4":
        assert "`email_send(" in first.skill_md
    other = propose(
        text,
        name="fx-expense-converter",
        edit_type=edit_type,
        variant=2,
        attempt=1,
        context=_tools(),
        exclude=frozenset({first.key}),
    )
    assert other is None or other.key != first.key


def test_model_proposer_reads_the_fenced_skill_and_is_checked_like_a_template(bench_project: Path) -> None:
    """The live injector path with a scripted model: the prompt is filled, the reply parsed and checked."""
    from contextlib import closing

    from ratchet.bench.build.inject import ModelProposer, inject_type
    from ratchet.bench.build.replays import ReplayEnv
    from ratchet.goldens.tasks import load_tasks
    from ratchet.goldens.trace import load_goldens
    from ratchet.llm.fake import ScriptedModel
    from ratchet.skills.sets import load_skills
    from ratchet.store.db import open_store

    project = load_project(bench_project / "var" / "bench" / "repo", home=bench_project / "var" / "bench" / "home")
    text = (project.path("skills") / "github-triage" / "SKILL.md").read_text(encoding="utf-8")
    broken = text.replace('label="duplicate")', 'label="wontfix")')
    model = ScriptedModel(
        responses=[
            "```markdown\n" + text + "```\nChange: nothing",  # does not change the skill
            "```markdown\n" + broken + "```\nChange: the duplicate label became wontfix",
        ],
        echo=False,
    )
    with closing(open_store(project.home)) as store, sim_gateway(project, store, run_id="t") as gateway:
        env = ReplayEnv(
            project,
            load_tasks(project.path("tasks")),
            load_goldens(project.path("goldens")),
            load_skills(project.path("skills")),
            gateway.model("agent", "replay"),
        )
        proposer = ModelProposer(model, BenchPaths.at(bench_project).injector_prompt, env.inject_context)
        prompt = proposer.prompt("github-triage", text, "R3", 1, 1, "")
        assert "R3 (Tool-argument change)" in prompt and "name: github-triage" in prompt and "{{" not in prompt
        outcome = inject_type(env, "github-triage", "R3", proposer, base_content_hash="h")
    edit, checks = outcome.kept[0]
    assert edit.source == "injector" and edit.tries == 2 and edit.description == "the duplicate label became wontfix"
    assert [c.task_id for c in checks if c.diverged] == ["github-triage-09"]
    assert [d.edit_id for d in outcome.dropped] == ["github-triage.R3.2"]
    assert all("the injector call failed" in reason for reason in outcome.dropped[0].reasons)


def test_injector_prompt_is_the_projects_own_else_the_packaged_one(tmp_path: Path) -> None:
    from ratchet.data import packaged_prompt

    paths = BenchPaths.at(make_project(tmp_path / "project"))
    assert paths.injector_prompt == packaged_prompt("inject_regression.md")
    own = paths.prompts / "inject_regression.md"
    own.parent.mkdir(parents=True)
    own.write_text("{{skill}}\n", encoding="utf-8")
    assert paths.injector_prompt == own
