"""Fuzz cases for pending traces (`ratchet bless`) and the bench's files (labels, reviews, edits, results)."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.fuzz.cases import Case, CaseList
from tests.fuzz.harness import Ctx
from tests.fuzz.inputs import (
    BENCH_AGREE,
    BENCH_STATUS,
    BENCH_TASKS,
    BENCH_VALIDATE,
    BLESS,
    EDIT,
    EDIT_ID,
    GOLDEN,
    HUGE_INT,
    LABELS,
    REVIEWS,
    Setup,
    _bad_utf8,
    _both,
    _deep_list,
    _dir_in_place,
    _golden,
    _golden_raw,
    _golden_with,
    _write,
)


def _pending(name: str, make: Callable[[Ctx], str | bytes]) -> Setup:
    def setup(ctx: Ctx) -> None:
        ctx.home_write(f"pending/{name}", make(ctx))

    return setup


PENDING_MUTATIONS: dict[str, tuple[str, str | bytes | Callable[[Ctx], str | bytes]]] = {
    # name -> (pending file name, content)
    "task-id-star": ("star.json", _golden_with(task_id="*")),
    "task-id-escape": ("escaped.json", _golden_with(task_id="../../ESCAPED")),
    "task-id-dotdot": ("dotdot.json", _golden_with(task_id="../x")),
    "task-id-absolute": ("absolute.json", _golden_with(task_id="/tmp/ratchet-fuzz-ESCAPED")),
    "task-id-mismatch": ("github-triage-01.json", _golden_with(task_id="github-triage-02")),
    "task-id-unknown": ("ghost-task.json", _golden_with(task_id="ghost-task")),
    "status-error": ("github-triage-01.json", _golden_with(status="error", error="model call failed")),
    "skill-escape": (
        "github-triage-01.json",
        lambda ctx: json.dumps(
            {**_golden(ctx), "skills_fired": [{"name": "../../ESCAPED", "content_hash": "0", "substance_hash": "0"}]}
        ),
    ),
    "skill-absolute": (
        "github-triage-01.json",
        lambda ctx: json.dumps(
            {
                **_golden(ctx),
                "skills_fired": [{"name": "/tmp/ratchet-fuzz-skill", "content_hash": "0", "substance_hash": "0"}],
            }
        ),
    ),
    "not-json": ("github-triage-01.json", "{not json"),
    "truncated": ("github-triage-01.json", lambda ctx: ctx.read(GOLDEN)[:200]),
    "non-utf8": ("github-triage-01.json", lambda ctx: _bad_utf8(ctx.read(GOLDEN))),
    "schema-2": ("github-triage-01.json", _golden_with(schema_version=2)),
    "seed-huge-int": ("github-triage-01.json", _golden_raw("seed", HUGE_INT)),
    "top-list": ("github-triage-01.json", "[]"),
    "empty": ("github-triage-01.json", ""),
}


def pending_cases(out: CaseList) -> None:
    for name, (filename, data) in PENDING_MUTATIONS.items():
        out.add(
            Case(
                f"pending:{name}@bless",
                "pending traces",
                "demo",
                _pending(filename, data if callable(data) else (lambda ctx, d=data: d)),
                BLESS,
                must_name=filename.removesuffix(".json"),
                forbid=("{home}/scratch",),
            )
        )
    out.add(
        Case(
            "pending:star-by-id@bless",
            "pending traces",
            "demo",
            _pending("star.json", _golden_with(task_id="*")),
            [*BLESS, "star"],
            must_name="star",
            forbid=("{home}/scratch",),
        )
    )
    out.add(
        Case(
            "pending:unknown-id@bless",
            "pending traces",
            "demo",
            None,
            [*BLESS, "no-such-task"],
            must_name="no-such-task",
        )
    )
    out.add(
        Case(
            "pending:id-with-dotdot@bless",
            "pending traces",
            "demo",
            None,
            [*BLESS, "../../goldens/x"],
            must_name="../../goldens/x",
        )
    )
    out.add(
        Case(
            "pending:file-is-dir@bless",
            "pending traces",
            "demo",
            lambda ctx: (ctx.home / "pending" / "github-triage-01.json").mkdir(parents=True),
            BLESS,
            must_name="github-triage-01",
            forbid=("{home}/scratch",),
        )
    )


def _labels_with(**changes: object) -> Callable[[Ctx], str]:
    def make(ctx: Ctx) -> str:
        data = json.loads(ctx.read(LABELS))
        data.update(changes)
        return json.dumps(data)

    return make


def _first_label_with(**changes: object) -> Callable[[Ctx], str]:
    def make(ctx: Ctx) -> str:
        data = json.loads(ctx.read(LABELS))
        data["labels"][0].update(changes)
        return json.dumps(data)

    return make


def _reviews(text: str | bytes) -> Callable[[Ctx], str | bytes]:
    return lambda ctx: text


BENCH_FILE_MUTATIONS: dict[str, tuple[str, str | bytes | Callable[[Ctx], str | bytes]]] = {
    "labels-truncated": (LABELS, lambda ctx: ctx.read(LABELS)[:500]),
    "labels-non-utf8": (LABELS, lambda ctx: _bad_utf8(ctx.read(LABELS))),
    "labels-schema-2": (LABELS, _labels_with(schema_version=2)),
    "labels-top-list": (LABELS, "[]"),
    "labels-string": (LABELS, _labels_with(labels="all")),
    "labels-decision-maybe": (LABELS, _first_label_with(expected_decision="MAYBE")),
    "labels-huge-int": (
        LABELS,
        lambda ctx: ctx.read(LABELS).replace('"schema_version": 1', f'"schema_version": {HUGE_INT}'),
    ),
    "labels-deep-nesting": (LABELS, lambda ctx: '{"schema_version": 1, "labels": ' + _deep_list(100_000) + "}"),
    "reviews-not-json": (REVIEWS, "{"),
    "reviews-non-utf8": (REVIEWS, b'{"schema_version": 1, "reviews": [], "x": "\xff"}'),
    "reviews-schema-2": (REVIEWS, '{"schema_version": 2, "reviews": []}'),
    "reviews-wrong-types": (REVIEWS, '{"schema_version": 1, "reviews": [{"edit_id": 5}]}'),
    "reviews-is-dir": (REVIEWS, b""),
    "edit-truncated": (EDIT, lambda ctx: ctx.read(EDIT)[:300]),
    "edit-non-utf8": (EDIT, lambda ctx: _bad_utf8(ctx.read(EDIT))),
    "edit-schema-2": (EDIT, lambda ctx: json.dumps({**json.loads(ctx.read(EDIT)), "schema_version": 2})),
    "edit-id-mismatch": (EDIT, lambda ctx: json.dumps({**json.loads(ctx.read(EDIT)), "id": "github-triage.N0.9"})),
    "edit-id-escape": (EDIT, lambda ctx: json.dumps({**json.loads(ctx.read(EDIT)), "id": "../../ESCAPED"})),
    "digests-not-json": ("bench/DIGESTS.json", "{"),
    "bench-tasks-not-yaml": (BENCH_TASKS, "tasks: [\n"),
    "bench-tasks-dup": (BENCH_TASKS, lambda ctx: ctx.read(BENCH_TASKS) + "- id: github-triage-01\n  prompt: again\n"),
    "bench-skill-no-frontmatter": ("skills/github-triage/SKILL.md", "# no frontmatter\n"),
}


def bench_cases(out: CaseList) -> None:
    status_too = {name for name in BENCH_FILE_MUTATIONS if name.startswith(("labels-", "reviews-"))}
    agree_too = status_too | {"edit-truncated", "edit-non-utf8", "edit-schema-2", "edit-id-mismatch"}
    for name, (rel, data) in BENCH_FILE_MUTATIONS.items():
        corrupt = _dir_in_place(rel) if name.endswith("-is-dir") else _write(rel, data)
        heavy = "deep-nesting" in name
        common = {"must_name": rel, "snapshot_skip": ("var/",), "subprocess": heavy}
        if not name.startswith("reviews-"):  # reviews are human verdicts: bench validate does not read them
            out.add(Case(f"bench:{name}@bench-validate", "bench files", "bench", corrupt, BENCH_VALIDATE, **common))
        if name in status_too:
            out.add(Case(f"bench:{name}@bench-status", "bench files", "bench", corrupt, BENCH_STATUS, **common))
        if name in agree_too:
            argv = BENCH_AGREE if not name.startswith("edit-") else ["bench", "label", EDIT_ID, "--project", "{repo}"]
            out.add(Case(f"bench:{name}@bench-label", "bench files", "bench", corrupt, argv, **common))
    out.add(
        Case(
            "bench:digests-not-json@bench-validate-record",
            "bench files",
            "bench",
            _write("bench/DIGESTS.json", "{"),
            [*BENCH_VALIDATE, "--record-digest"],
            must_name="bench/DIGESTS.json",
            snapshot_skip=("var/",),
        )
    )
    results: dict[str, str | bytes] = {
        "not-json": "{",
        "non-utf8": b'{"x": "\xff"}',
        "top-list": "[]",
        "schema-99": '{"schema_version": 99}',
        "deep": '{"schema_version": 1, "configs": ' + _deep_list(100_000) + "}",
    }
    for name, data in results.items():
        out.add(
            Case(
                f"bench:results-{name}@bench-report",
                "bench files",
                "bench",
                _write("results-fuzz/results.json", data),
                ["bench", "report", "{repo}/results-fuzz"],
                must_name="results-fuzz/results.json",
                snapshot_skip=("var/",),
            )
        )
        out.add(
            Case(
                f"bench:results-{name}@bench-compare",
                "bench files",
                "bench",
                _both(_write("results-fuzz/results.json", data), _write("results-b/results.json", data)),
                ["bench", "compare", "{repo}/results-fuzz", "{repo}/results-b"],
                must_name="results.json",
                snapshot_skip=("var/",),
            )
        )
    out.add(
        Case(
            "bench:report-dir-is-file@bench-report",
            "bench files",
            "bench",
            _write("results-fuzz", "x"),
            ["bench", "report", "{repo}/results-fuzz"],
            must_name="results-fuzz",
            snapshot_skip=("var/",),
        )
    )
    out.add(
        Case(
            "bench:report-dir-missing@bench-report",
            "bench files",
            "bench",
            None,
            ["bench", "report", "{repo}/no-such-results"],
            must_name="no-such-results",
            snapshot_skip=("var/",),
        )
    )
