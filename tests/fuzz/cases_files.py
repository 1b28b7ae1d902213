"""Fuzz cases for the project's files: SKILL.md, tasks.yaml, goldens and the world."""

from __future__ import annotations

from collections.abc import Callable

import yaml

from tests.fuzz.cases import Case, CaseList
from tests.fuzz.harness import Ctx
from tests.fuzz.inputs import (
    _DROP,
    BENCH_VALIDATE,
    BENCH_WORLD,
    CHECK,
    CHECK_STAGED,
    GOLDEN,
    HUGE_INT,
    LOOKALIKES,
    RECORD,
    SKILL,
    TASKS,
    WORLD,
    Setup,
    _alias_bomb,
    _bad_utf8,
    _commit_base,
    _commit_head,
    _corrupt_skill,
    _deep_list,
    _deep_map,
    _dir_in_place,
    _drop_key,
    _frontmatter_parts,
    _garbage,
    _golden_raw,
    _golden_with,
    _replace_key,
    _skill_text,
    _stage,
    _symlink,
    _with_frontmatter,
    _write,
)

GOOD_DESCRIPTION = "Triage a new GitHub issue."

# name -> (mutation of the SKILL.md text, subprocess?)  Each mutation makes the skill invalid.
SKILL_MUTATIONS: dict[str, tuple[Callable[[str], str | bytes], bool]] = {
    "no-frontmatter": (lambda t: _frontmatter_parts(t)[1], False),
    "unterminated-frontmatter": (lambda t: t.replace("\n---\n", "\n", 1), False),
    "bom": (lambda t: "\ufeff" + t, False),
    "frontmatter-list": (_with_frontmatter("- name\n- description"), False),
    "frontmatter-empty": (_with_frontmatter(""), False),
    "frontmatter-scalar": (_with_frontmatter("just some words"), False),
    "yaml-unclosed-flow": (_replace_key("name", "[github-triage"), False),
    "yaml-tab-indent": (_with_frontmatter(f"name: github-triage\n\tdescription: {GOOD_DESCRIPTION}"), False),
    "yaml-bad-escape": (_replace_key("description", '"bad \\q escape"'), False),
    "non-utf8-body": (lambda t: _bad_utf8(t), False),
    "latin1-frontmatter": (lambda t: t.replace("Triage", "Tri\u00e1ge", 1).encode("latin-1", "replace"), False),
    "utf16": (lambda t: t.encode("utf-16"), False),
    "huge-description": (_replace_key("description", "x" * 3_000_000), True),
    "huge-name": (_replace_key("name", "a" * 1_000_000), True),
    "huge-body-bad-name": (
        lambda t: _replace_key("name", "Github-Triage")(t) + ("lorem ipsum " * 8 + "\n") * 200_000,
        True,
    ),
    "deep-list-metadata": (_replace_key("metadata", _deep_list(20_000)), True),
    "deep-map-metadata": (_replace_key("metadata", _deep_map(20_000)), True),
    "alias-bomb": (
        lambda t: _with_frontmatter(_alias_bomb("metadata") + f"name: github-triage\ndescription: {GOOD_DESCRIPTION}")(
            t
        ),
        True,
    ),
    "recursive-alias": (_replace_key("metadata", "&loop [*loop]"), False),
    "comment-opens-bad-name": (lambda t: _replace_key("name", "Github-Triage")(t) + "<!--" * 60_000, True),
    "name-list": (_replace_key("name", "[github, triage]"), False),
    "name-map": (_replace_key("name", "{github: triage}"), False),
    "name-null": (_replace_key("name", ""), False),
    "name-number": (_replace_key("name", "123"), False),
    "name-bool": (_replace_key("name", "true"), False),
    "name-python-tag": (_replace_key("name", "!!python/object/apply:os.system ['echo pwned']"), False),
    "name-slash": (_replace_key("name", "github/triage"), False),
    "name-dotdot": (_replace_key("name", "../github-triage"), False),
    "name-absolute": (_replace_key("name", "/etc/github-triage"), False),
    "name-nul": (_replace_key("name", '"github-triage\\0"'), False),
    "name-uppercase": (_replace_key("name", "GitHub-Triage"), False),
    "name-other-skill": (_replace_key("name", "fx-expense-converter"), False),
    "duplicate-name": (lambda t: t.replace("---\n", "---\nname: github-triage\n", 1), False),
    "missing-name": (_drop_key("name"), False),
    "missing-description": (_drop_key("description"), False),
    "description-list": (_replace_key("description", "[a, b]"), False),
    "description-map": (_replace_key("description", "{a: b}"), False),
    "description-empty": (_replace_key("description", '""'), False),
    "unknown-key": (_replace_key("owner", "sam"), False),
    "metadata-list": (_replace_key("metadata", "[a, b]"), False),
    "metadata-nested": (_replace_key("metadata", "{a: [1, 2]}"), False),
    "license-map": (_replace_key("license", "{spdx: MIT}"), False),
    "compatibility-huge": (_replace_key("compatibility", "y" * 5000), False),
    "empty-file": (lambda t: b"", False),
    "nul-bytes-only": (lambda t: b"\x00" * 4096, False),
    "garbage": (lambda t: _garbage(2048), False),
}
for _label, _name in LOOKALIKES:
    SKILL_MUTATIONS[f"name-lookalike-{_label}"] = (_replace_key("name", f'"{_name}"'), False)


def skill_cases(out: CaseList) -> None:
    heavy_check = {"huge-description", "alias-bomb", "comment-opens-bad-name", "deep-list-metadata"}
    for name, (mutation, heavy) in SKILL_MUTATIONS.items():
        corrupt = _corrupt_skill(mutation)
        common = {"subprocess": heavy, "must_name": SKILL}
        out.add(
            Case(
                f"skill:{name}@validate",
                "skill.md",
                "demo",
                corrupt,
                ["validate", "{repo}/skills/github-triage"],
                style="report",
                **common,
            )
        )
        if not heavy or name in heavy_check:
            out.add(Case(f"skill:{name}@check-head", "skill.md", "demo", _commit_head(corrupt), CHECK, **common))
    staged = [
        "no-frontmatter",
        "non-utf8-body",
        "name-dotdot",
        "name-nul",
        "recursive-alias",
        "missing-description",
        "name-lookalike-cyrillic-i",
        "yaml-unclosed-flow",
        "utf16",
        "description-list",
    ]
    for name in staged:
        out.add(
            Case(
                f"skill:{name}@check-staged",
                "skill.md",
                "demo",
                _stage(_corrupt_skill(SKILL_MUTATIONS[name][0])),
                CHECK_STAGED,
                must_name=SKILL,
            )
        )
    recorded = [
        "no-frontmatter",
        "bom",
        "non-utf8-body",
        "yaml-tab-indent",
        "name-slash",
        "name-dotdot",
        "name-nul",
        "name-python-tag",
        "recursive-alias",
        "missing-name",
        "metadata-nested",
        "garbage",
        "utf16",
        "name-lookalike-rtl-override",
        "empty-file",
    ]
    for name in recorded:
        out.add(
            Case(
                f"skill:{name}@record",
                "skill.md",
                "demo",
                _corrupt_skill(SKILL_MUTATIONS[name][0]),
                RECORD,
                must_name=SKILL,
            )
        )
    # The folder itself: SKILL.md missing, a folder, a symlink out of the repository, a case-changed name.
    folder_faults: dict[str, Setup] = {
        "skill-md-is-dir": _dir_in_place(SKILL),
        "skill-md-symlink-out": _symlink(SKILL, "/etc/hostname"),
        "skill-md-dangling-symlink": _symlink(SKILL, "/nonexistent/SKILL.md"),
        "skill-md-lowercase": lambda ctx: ctx.path(SKILL).rename(ctx.path("skills/github-triage/skill.md")),
    }
    for name, corrupt in folder_faults.items():
        out.add(
            Case(
                f"skill:{name}@validate",
                "skill.md",
                "demo",
                corrupt,
                ["validate", "{repo}/skills/github-triage"],
                style="report",
                must_name=SKILL,
            )
        )
        # Renaming SKILL.md deletes the skill as far as git is concerned: the gate may refuse, or gate the removal.
        codes = (0, 2) if name == "skill-md-lowercase" else (2,)
        out.add(
            Case(
                f"skill:{name}@check-head",
                "skill.md",
                "demo",
                _commit_head(corrupt),
                CHECK,
                must_name="skills/github-triage",
                exit_codes=codes,
            )
        )
        out.add(Case(f"skill:{name}@record", "skill.md", "demo", corrupt, RECORD, must_name="skills/github-triage"))
    # A valid skill whose body opens 100k comments: the gate must finish (any verdict), not hang.
    many_opens: Setup = lambda ctx: ctx.write(SKILL, _skill_text(ctx) + "\n" + "<!--" * 100_000 + "\n")  # noqa: E731
    out.add(
        Case(
            "skill:comment-opens-valid@validate",
            "skill.md",
            "demo",
            many_opens,
            ["validate", "{repo}/skills/github-triage"],
            exit_codes=(0,),
            style="report",
            subprocess=True,
        )
    )
    out.add(
        Case(
            "skill:comment-opens-valid@check-head",
            "skill.md",
            "demo",
            _commit_head(many_opens),
            CHECK,
            exit_codes=(0, 1),
            subprocess=True,
        )
    )


def _tasks_text(ctx: Ctx) -> str:
    return ctx.read(TASKS)


def _task_edit(field_name: str, value: str, index: int = 0) -> Callable[[Ctx], str]:
    """tasks.yaml with one task's field set to a raw YAML value (kept as written: huge ints, .nan ...)."""

    def make(ctx: Ctx) -> str:
        raw = yaml.safe_load(_tasks_text(ctx))
        raw["tasks"][index][field_name] = "__RAW__"
        return yaml.safe_dump(raw, sort_keys=False, width=1000).replace("__RAW__", value, 1)

    return make


def _duplicate_first_task(ctx: Ctx) -> str:
    text = _tasks_text(ctx)
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("- id:")]
    return text.rstrip("\n") + "\n" + "\n".join(lines[starts[0] : starts[1]]) + "\n"


def _many_tasks(ctx: Ctx) -> str:
    items = "".join(f"- id: bulk-{i:06d}\n  prompt: task {i}\n" for i in range(150_000))
    return "schema_version: 1\ntasks:\n" + items + "- id: bulk-000000\n  prompt: again\n"


TASK_MUTATIONS: dict[str, tuple[str | bytes | Callable[[Ctx], str | bytes], bool]] = {
    "not-yaml": ("schema_version: 1\ntasks: [\n  - id: a\n", False),
    "non-utf8": (lambda ctx: _bad_utf8(_tasks_text(ctx)), False),
    "empty": ("", False),
    "null": ("~\n", False),
    "top-list": ("- id: a\n  prompt: b\n", False),
    "top-string": ("tasks\n", False),
    "tasks-string": ("schema_version: 1\ntasks: lots\n", False),
    "tasks-map": ("schema_version: 1\ntasks: {id: a, prompt: b}\n", False),
    "tasks-null": ("schema_version: 1\ntasks:\n", False),
    "task-is-string": ("schema_version: 1\ntasks:\n- just a string\n", False),
    "schema-2": (lambda ctx: _tasks_text(ctx).replace("schema_version: 1", "schema_version: 2"), False),
    "schema-string": (lambda ctx: _tasks_text(ctx).replace("schema_version: 1", 'schema_version: "1"'), False),
    "schema-huge-int": (
        lambda ctx: _tasks_text(ctx).replace("schema_version: 1", f"schema_version: {HUGE_INT}"),
        False,
    ),
    "unknown-top-key": (lambda ctx: "owner: me\n" + _tasks_text(ctx), False),
    "unknown-task-key": (_task_edit("priority", "high"), False),
    "prompt-int": (_task_edit("prompt", "42"), False),
    "prompt-empty": (_task_edit("prompt", '""'), False),
    "prompt-list": (_task_edit("prompt", "[a, b]"), False),
    "skill-list": (_task_edit("skill", "[github-triage]"), False),
    "edge-case-word": (_task_edit("edge_case", "maybe"), False),
    "id-int": (_task_edit("id", "42"), False),
    "id-huge-int": (_task_edit("id", HUGE_INT), False),
    "id-float-nan": (_task_edit("id", ".nan"), False),
    "id-empty": (_task_edit("id", '""'), False),
    "id-slash": (_task_edit("id", "github/triage-01"), False),
    "id-dotdot": (_task_edit("id", '".."'), False),
    "id-dotdot-path": (_task_edit("id", "../../ESCAPED"), False),
    "id-star": (_task_edit("id", '"*"'), False),
    "id-uppercase": (_task_edit("id", "GitHub-Triage-01"), False),
    "id-nul": (_task_edit("id", '"github-triage-01\\0"'), False),
    "duplicate-id": (_duplicate_first_task, False),
    "workspace-absolute": (_task_edit("workspace", "/etc", index=10), False),
    "workspace-dotdot": (_task_edit("workspace", "../../..", index=10), False),
    "workspace-dotdot-inner": (_task_edit("workspace", "fx-berlin-offsite/../../../etc", index=10), False),
    "workspace-missing": (_task_edit("workspace", "no-such-workspace", index=10), False),
    "workspace-list": (_task_edit("workspace", "[a, b]", index=10), False),
    "alias-bomb": (lambda ctx: _alias_bomb("notes_bomb") + _tasks_text(ctx), True),
    "alias-bomb-tasks": (lambda ctx: "schema_version: 1\n" + _alias_bomb("tasks"), True),
    "deep-nesting": (lambda ctx: "schema_version: 1\ntasks: " + _deep_list(20_000) + "\n", True),
    "huge-duplicate": (_many_tasks, True),
}


def tasks_cases(out: CaseList) -> None:
    record_too = {
        "not-yaml",
        "non-utf8",
        "empty",
        "top-list",
        "tasks-map",
        "schema-2",
        "schema-huge-int",
        "prompt-int",
        "id-huge-int",
        "id-slash",
        "id-dotdot-path",
        "id-star",
        "id-nul",
        "duplicate-id",
        "workspace-absolute",
        "workspace-dotdot",
        "workspace-dotdot-inner",
        "workspace-missing",
        "alias-bomb",
        "deep-nesting",
        "unknown-task-key",
        "edge-case-word",
    }
    for name, (data, heavy) in TASK_MUTATIONS.items():
        corrupt = _write(TASKS, data)
        if name != "workspace-missing":  # the gate loads only the workspaces of the tasks it replays
            out.add(
                Case(
                    f"tasks:{name}@check-base",
                    "tasks.yaml",
                    "demo",
                    _commit_base(corrupt),
                    CHECK,
                    must_name=TASKS,
                    subprocess=heavy,
                )
            )
        if name in record_too:
            must = "no-such-workspace" if name == "workspace-missing" else TASKS
            out.add(
                Case(f"tasks:{name}@record", "tasks.yaml", "demo", corrupt, RECORD, must_name=must, subprocess=heavy)
            )
    out.add(
        Case(
            "tasks:missing@check-base",
            "tasks.yaml",
            "demo",
            _commit_base(lambda ctx: ctx.path(TASKS).unlink()),
            CHECK,
            must_name=TASKS,
        )
    )
    out.add(Case("tasks:is-dir@record", "tasks.yaml", "demo", _dir_in_place(TASKS), RECORD, must_name=TASKS))
    out.add(
        Case(
            "tasks:unknown-id-arg@record",
            "tasks.yaml",
            "demo",
            None,
            [*RECORD, "no-such-task"],
            must_name="no-such-task",
        )
    )
    out.add(
        Case(
            "tasks:workspace-file-non-utf8@record",
            "tasks.yaml",
            "demo",
            _write("workspaces/fx-berlin-offsite/expenses.csv", _garbage(512)),
            [*RECORD, "fx-expense-converter-01"],
            must_name="workspaces/fx-berlin-offsite",
        )
    )


GOLDEN_MUTATIONS: dict[str, str | bytes | Callable[[Ctx], str | bytes]] = {
    "truncated": lambda ctx: ctx.read(GOLDEN)[: len(ctx.read(GOLDEN)) // 2],
    "empty": "",
    "not-json": "this is not json\n",
    "non-utf8": lambda ctx: _bad_utf8(ctx.read(GOLDEN)),
    "top-list": "[1, 2, 3]\n",
    "top-null": "null\n",
    "schema-missing": _golden_with(schema_version=_DROP),
    "schema-0": _golden_with(schema_version=0),
    "schema-2": _golden_with(schema_version=2),
    "schema-string": _golden_with(schema_version="1"),
    "schema-true": _golden_with(schema_version=True),
    "seed-huge-int": _golden_raw("seed", HUGE_INT),
    "seed-1e400": _golden_raw("seed", "1e400"),
    "cost-nan": _golden_raw("cost_usd", "NaN"),
    "cost-negative-infinity": _golden_raw("cost_usd", "-Infinity"),
    "deep-nesting": _golden_raw("final_output", _deep_list(100_000)),
    "tool-calls-string": _golden_with(tool_calls="lots"),
    "model-calls-ints": _golden_with(model_calls=[1, 2]),
    "task-id-int": _golden_with(task_id=5),
    "task-id-star": _golden_with(task_id="*"),
    "task-id-dotdot": _golden_with(task_id="../x"),
    "task-id-unknown": _golden_with(task_id="ghost-task"),
    "status-maybe": _golden_with(status="maybe"),
    "status-error": _golden_with(status="error", error="boom"),
    "skills-fired-bad": _golden_with(skills_fired=[{"name": 1}]),
    "prompt-missing": _golden_with(prompt=_DROP),
    "frozen-time-garbage": _golden_with(frozen_time="yesterday"),
    "garbage": lambda ctx: _garbage(1024),
}


def golden_cases(out: CaseList) -> None:
    for name, data in GOLDEN_MUTATIONS.items():
        out.add(
            Case(
                f"golden:{name}@check-base",
                "goldens",
                "demo",
                _commit_base(_write(GOLDEN, data)),
                CHECK,
                must_name=GOLDEN,
                subprocess=name == "deep-nesting",
            )
        )
    extra: dict[str, Setup] = {
        "second-golden-same-task": lambda ctx: ctx.write(
            "goldens/fx-expense-converter/github-triage-01.json", ctx.read(GOLDEN)
        ),
        "golden-is-dir": _dir_in_place(GOLDEN),
        "golden-symlink-out": _symlink(GOLDEN, "/etc/hostname"),
    }
    for name, corrupt in extra.items():
        out.add(
            Case(
                f"golden:{name}@check-base",
                "goldens",
                "demo",
                _commit_base(corrupt),
                CHECK,
                must_name="github-triage-01",
            )
        )


WORLD_MUTATIONS: dict[str, tuple[str | bytes | Callable[[Ctx], str | bytes], bool]] = {
    "not-yaml": ("github:\n  repos: [\n", False),
    "non-utf8": (lambda ctx: _bad_utf8(ctx.read(WORLD)), False),
    "top-list": ("- github\n", False),
    "top-scalar": ("github\n", False),
    "section-string": ("github: lots of issues\n", False),
    "repos-list": ("github:\n  repos: [a, b]\n", False),
    "issues-string": ("github:\n  repos:\n    acme/widgets:\n      issues: none\n", False),
    "huge-int": (lambda ctx: ctx.read(WORLD).replace("number: 101", f"number: {HUGE_INT}", 1), False),
    "python-tag": ("github: !!python/object/apply:os.system ['echo pwned']\n", False),
    "alias-bomb": (lambda ctx: _alias_bomb("bomb") + ctx.read(WORLD), True),
    "deep-nesting": ("github: " + _deep_list(20_000) + "\n", True),
    "garbage": (lambda ctx: _garbage(1024), False),
}


def world_cases(out: CaseList) -> None:
    for name, (data, heavy) in WORLD_MUTATIONS.items():
        corrupt = _write(WORLD, data)
        out.add(
            Case(
                f"world:{name}@check-base",
                "world",
                "demo",
                _commit_base(corrupt),
                CHECK,
                must_name=WORLD,
                subprocess=heavy,
            )
        )
        out.add(
            Case(
                f"world:{name}@record",
                "world",
                "demo",
                corrupt,
                [*RECORD, "github-triage-01"],
                must_name=WORLD,
                subprocess=heavy,
            )
        )
    out.add(
        Case(
            "world:file-is-dir@record",
            "world",
            "demo",
            _dir_in_place(WORLD),
            [*RECORD, "github-triage-01"],
            must_name=WORLD,
        )
    )
    for name in ["not-yaml", "non-utf8", "section-string", "huge-int"]:
        data = WORLD_MUTATIONS[name][0]

        def bench_world(ctx: Ctx, data: str | bytes | Callable[[Ctx], str | bytes] = data) -> None:
            # the mutations read the demo's world/github.yaml: give them the bench's under that name
            ctx.write(WORLD, ctx.read(BENCH_WORLD))
            ctx.write(BENCH_WORLD, data(ctx) if callable(data) else data)
            ctx.path(WORLD).unlink()

        out.add(
            Case(
                f"world:{name}@bench-validate",
                "world",
                "bench",
                bench_world,
                BENCH_VALIDATE,
                must_name=BENCH_WORLD,
                snapshot_skip=("var/",),
            )
        )
