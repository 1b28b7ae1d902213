"""Fuzz cases for what configures a run: ratchet.yaml, gate configs, RATCHET_* variables, flags,
git hooks and the store.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable

from tests.fuzz.cases import Case, CaseList, Fixture, Style
from tests.fuzz.harness import GIT_IDENTITY, Ctx
from tests.fuzz.inputs import (
    BENCH_STATUS,
    BENCH_VALIDATE,
    BLESS,
    CHECK,
    CHECK_STAGED,
    CONFIG,
    HUGE_INT,
    PROXY,
    RECORD,
    REVIEW_ID,
    STORE,
    Setup,
    _alias_bomb,
    _bad_utf8,
    _benign_edit,
    _both,
    _commit_base,
    _commit_head,
    _deep_list,
    _garbage,
    _write,
)

CONFIG_MUTATIONS: dict[str, tuple[str | bytes | Callable[[Ctx], str | bytes], str | None, bool]] = {
    # name -> (ratchet.yaml content, what else the message must name (None: the file), subprocess?)
    "not-yaml": ("paths: [\n", None, False),
    "non-utf8": (lambda ctx: _bad_utf8(ctx.read(CONFIG)), None, False),
    "top-list": ("- paths\n", None, False),
    "top-scalar": ("upstream\n", None, False),
    "unknown-top-key": ("schema_version: 1\nupstreem: sim\n", None, False),
    "unknown-paths-key": ("schema_version: 1\npaths:\n  skils: skills\n", None, False),
    "paths-list": ("schema_version: 1\npaths: [skills]\n", None, False),
    "paths-skills-int": ("schema_version: 1\npaths:\n  skills: 5\n", None, False),
    "paths-skills-escape": ("schema_version: 1\npaths:\n  skills: ../outside\n", None, False),
    "paths-skills-inner-escape": ("schema_version: 1\npaths:\n  skills: skills/../../..\n", None, False),
    "paths-tasks-absolute": ("schema_version: 1\npaths:\n  tasks: /etc/hostname\n", None, False),
    "paths-goldens-escape": ("schema_version: 1\npaths:\n  goldens: ../../goldens\n", None, False),
    "paths-world-absolute": ("schema_version: 1\npaths:\n  world: /etc\n", None, False),
    "paths-workspaces-escape": ("schema_version: 1\npaths:\n  workspaces: ../\n", None, False),
    "paths-nul": ('schema_version: 1\npaths:\n  tasks: "tasks\\0.yaml"\n', None, False),
    "clock-word": ("schema_version: 1\nclock: yesterday\n", None, False),
    "clock-int": ("schema_version: 1\nclock: 5\n", None, False),
    "clock-offset": ('schema_version: 1\nclock: "2026-10-14T16:00:00+02:00"\n', None, False),
    "clock-date-only": ("schema_version: 1\nclock: 2026-10-14\n", None, False),
    "upstream-prod": ("schema_version: 1\nupstream: prod\n", None, False),
    "upstream-int": ("schema_version: 1\nupstream: 1\n", None, False),
    "tiers-list": ("schema_version: 1\ntiers: [nano, super]\n", None, False),
    "tier-no-model": ("schema_version: 1\ntiers:\n  agent:\n    api_base: http://localhost\n", None, False),
    "tier-protocol": ("schema_version: 1\ntiers:\n  agent:\n    model: x\n    tool_protocol: smoke\n", None, False),
    "price-negative": ("schema_version: 1\nprices:\n  x:\n    input: -1\n    output: 0\n", None, False),
    "max-turns-0": ("schema_version: 1\nmax_agent_turns: 0\n", None, False),
    "max-turns-word": ("schema_version: 1\nmax_agent_turns: many\n", None, False),
    "max-turns-huge-int": (f"schema_version: 1\nmax_agent_turns: {HUGE_INT}\n", None, False),
    "timeout-negative": ("schema_version: 1\ntimeout_s: -1\n", None, False),
    "timeout-nan": ("schema_version: 1\ntimeout_s: .nan\n", None, False),
    "retry-string": ("schema_version: 1\nretry: often\n", None, False),
    "schema-2": ("schema_version: 2\n", None, False),
    "schema-huge-int": (f"schema_version: {HUGE_INT}\n", None, False),
    "alias-bomb": (lambda ctx: _alias_bomb("x_bomb") + "schema_version: 1\n", None, True),
    "deep-nesting": ("schema_version: 1\npaths: " + _deep_list(20_000) + "\n", None, True),
    "garbage": (lambda ctx: _garbage(1024), None, False),
}


def config_cases(out: CaseList) -> None:
    for name, (data, _, heavy) in CONFIG_MUTATIONS.items():
        corrupt = _write(CONFIG, data)
        out.add(
            Case(
                f"config:{name}@check",
                "ratchet.yaml",
                "demo",
                _commit_base(corrupt),
                CHECK,
                must_name=CONFIG,
                subprocess=heavy,
            )
        )
        out.add(
            Case(f"config:{name}@record", "ratchet.yaml", "demo", corrupt, RECORD, must_name=CONFIG, subprocess=heavy)
        )
    for name in [
        "not-yaml",
        "non-utf8",
        "unknown-top-key",
        "paths-skills-escape",
        "paths-tasks-absolute",
        "clock-word",
        "upstream-prod",
        "max-turns-huge-int",
        "schema-2",
        "paths-nul",
    ]:
        corrupt = _write(CONFIG, CONFIG_MUTATIONS[name][0])
        out.add(Case(f"config:{name}@bless", "ratchet.yaml", "demo", corrupt, BLESS, must_name=CONFIG))
    for name in [
        "not-yaml",
        "non-utf8",
        "unknown-paths-key",
        "paths-skills-escape",
        "paths-skills-int",
        "schema-huge-int",
    ]:
        corrupt = _write(CONFIG, CONFIG_MUTATIONS[name][0])
        out.add(
            Case(f"config:{name}@validate-default", "ratchet.yaml", "demo", corrupt, ["validate"], must_name=CONFIG)
        )
    for name in ["not-yaml", "paths-skills-escape", "upstream-prod"]:
        corrupt = _write(CONFIG, CONFIG_MUTATIONS[name][0])
        out.add(
            Case(
                f"config:{name}@proxy",
                "ratchet.yaml",
                "demo",
                corrupt,
                PROXY,
                must_name=CONFIG,
                subprocess=True,
                timeout=10,
            )
        )
    for name in ["not-yaml", "non-utf8", "paths-tasks-absolute"]:
        corrupt = _write(CONFIG, CONFIG_MUTATIONS[name][0])
        out.add(Case(f"config:{name}@bench-status", "ratchet.yaml", "bench", corrupt, BENCH_STATUS, must_name=CONFIG))
        out.add(
            Case(
                f"config:{name}@bench-validate",
                "ratchet.yaml",
                "bench",
                corrupt,
                BENCH_VALIDATE,
                must_name=CONFIG,
                snapshot_skip=("var/",),
            )
        )


GATE_MUTATIONS: dict[str, str | bytes] = {
    "not-yaml": "tiers: [\n",
    "non-utf8": b"schema_version: 1\nname: caf\xe9\n",
    "top-list": "- nano\n",
    "schema-missing": "name: x\ntiers: []\n",
    "schema-2": "schema_version: 2\n",
    "unknown-key": "schema_version: 1\nlevel1: true\n",
    "unknown-tier": "schema_version: 1\ntiers:\n  - tier: mega\n    threshold: 0.5\n",
    "threshold-high": "schema_version: 1\ntiers:\n  - tier: nano\n    threshold: 1.5\n",
    "threshold-negative": "schema_version: 1\ntiers:\n  - tier: nano\n    threshold: -0.1\n",
    "threshold-word": "schema_version: 1\ntiers:\n  - tier: nano\n    threshold: high\n",
    "threshold-nan": "schema_version: 1\ntiers:\n  - tier: nano\n    threshold: .nan\n",
    "tiers-duplicate": "schema_version: 1\ntiers:\n  - {tier: nano, threshold: 0.5}\n  - {tier: nano, threshold: 0.6}\n",
    "tiers-string": "schema_version: 1\ntiers: nano\n",
    "no-level0-no-tiers": "schema_version: 1\nlevel0: false\ntiers: []\n",
    "block-confidence-2": "schema_version: 1\nblock_confidence: 2\n",
    "block-confidence-nan": "schema_version: 1\nblock_confidence: .nan\n",
    "replays-0": "schema_version: 1\nreplays_per_golden: 0\n",
    "replays-huge-int": f"schema_version: 1\nreplays_per_golden: {HUGE_INT}\n",
    "judge-prompt-escape": "schema_version: 1\ntiers:\n  - {tier: nano, threshold: 0.5}\njudge_prompt: ../../../../etc/hostname\n",
    "judge-prompt-missing": "schema_version: 1\ntiers:\n  - {tier: nano, threshold: 0.5}\njudge_prompt: missing.md\n",
    "drift-search-google": "schema_version: 1\ndrift:\n  search: google\n",
    "on-error-maybe": "schema_version: 1\non_error: maybe\n",
    "escalate-on-word": "schema_version: 1\ntiers:\n  - {tier: nano, threshold: 0.5, escalate_on: [maybe]}\n",
}

GATE_CHECK = ["check", "--repo", "{repo}", "--base", "HEAD~1"]


def gate_cases(out: CaseList) -> None:
    for name, data in GATE_MUTATIONS.items():

        def outside(ctx: Ctx, data: str | bytes = data) -> None:
            (ctx.tmp / "gates").mkdir(exist_ok=True)
            (ctx.tmp / "gates" / "strict.yaml").write_bytes(data if isinstance(data, bytes) else data.encode())
            _benign_edit(ctx)
            ctx.commit("fuzz: a valid skill edit")

        out.add(
            Case(
                f"gate:{name}@check-config-path",
                "gate config",
                "demo",
                outside,
                [*GATE_CHECK, "--config", "{tmp}/gates/strict.yaml"],
                must_name="strict.yaml",
            )
        )
    for name in [
        "not-yaml",
        "non-utf8",
        "schema-missing",
        "unknown-tier",
        "threshold-high",
        "threshold-nan",
        "judge-prompt-escape",
        "judge-prompt-missing",
        "replays-huge-int",
        "no-level0-no-tiers",
    ]:
        corrupt = _write("configs/cascade.yaml", GATE_MUTATIONS[name])
        out.add(
            Case(
                f"gate:{name}@check-project-config",
                "gate config",
                "demo",
                _commit_base(corrupt),
                GATE_CHECK,
                must_name="configs/cascade.yaml",
            )
        )
    out.add(
        Case(
            "gate:unknown-name@check",
            "gate config",
            "demo",
            _commit_base(lambda ctx: None),
            [*GATE_CHECK, "--config", "no_such_config"],
            must_name="no_such_config",
        )
    )
    out.add(
        Case(
            "gate:missing-path@check",
            "gate config",
            "demo",
            _commit_base(lambda ctx: None),
            [*GATE_CHECK, "--config", "{tmp}/missing.yaml"],
            must_name="missing.yaml",
        )
    )
    out.add(
        Case(
            "gate:config-is-dir@check",
            "gate config",
            "demo",
            _commit_base(lambda ctx: (ctx.tmp / "dir.yaml").mkdir()),
            [*GATE_CHECK, "--config", "{tmp}/dir.yaml"],
            must_name="dir.yaml",
        )
    )
    for name in ["not-yaml", "unknown-tier", "threshold-high"]:

        def outside(ctx: Ctx, data: str | bytes = GATE_MUTATIONS[name]) -> None:
            (ctx.tmp / "strict.yaml").write_bytes(data if isinstance(data, bytes) else data.encode())

        out.add(
            Case(
                f"gate:{name}@bench-run",
                "gate config",
                "bench",
                outside,
                [
                    "bench",
                    "run",
                    "--config",
                    "{tmp}/strict.yaml",
                    "--limit",
                    "1",
                    "--out",
                    "{repo}/results-fuzz",
                    "--root",
                    "{repo}",
                    "--work",
                    "{home}/bench",
                ],
                must_name="strict.yaml",
                subprocess=True,
                timeout=60,
                snapshot_skip=("var/",),
            )
        )


ENV_VALUES: dict[str, tuple[str, str]] = {
    # name -> (variable, value)
    "clock-word": ("RATCHET_CLOCK", "yesterday"),
    "clock-date": ("RATCHET_CLOCK", "2026-10-14"),
    "clock-offset": ("RATCHET_CLOCK", "2026-10-14T16:00:00+02:00"),
    "clock-out-of-range": ("RATCHET_CLOCK", "2026-13-45T99:00:00Z"),
    "clock-nul": ("RATCHET_CLOCK", "2026-10-14T16:00:00Z\u2028"),
    "upstream-prod": ("RATCHET_UPSTREAM", "prod"),
    "upstream-upper": ("RATCHET_UPSTREAM", "LIVE"),
    "cap-nan": ("RATCHET_BENCH_USD_CAP", "nan"),
    "cap-negative": ("RATCHET_BENCH_USD_CAP", "-1"),
    "cap-word": ("RATCHET_BENCH_USD_CAP", "lots"),
}


def env_cases(out: CaseList) -> None:
    commands: dict[str, tuple[list[str], Setup | None, bool]] = {
        "check": (CHECK, _commit_head(_benign_edit), False),
        "record": (RECORD, None, False),
        "bless": (BLESS, None, False),
        "validate-default": (["validate"], None, False),
        "bench-status": (BENCH_STATUS, None, False),
    }
    for name, (variable, value) in ENV_VALUES.items():
        for command, (argv, setup, _) in commands.items():
            fixture: Fixture = "bench" if command.startswith("bench") else "demo"
            out.add(
                Case(
                    f"env:{name}@{command}",
                    "environment",
                    fixture,
                    setup,
                    argv,
                    env={variable: value},
                    must_name=variable,
                    snapshot_skip=("var/",),
                )
            )
    for name in ["clock-word", "upstream-prod", "cap-nan"]:
        variable, value = ENV_VALUES[name]
        out.add(
            Case(
                f"env:{name}@proxy",
                "environment",
                "demo",
                None,
                PROXY,
                env={variable: value},
                must_name=variable,
                subprocess=True,
                timeout=10,
            )
        )
    # RATCHET_HOME (and the XDG cache it defaults under) that cannot be a folder.
    file_at: Callable[[str], Setup] = lambda name: lambda ctx: (ctx.tmp / name).write_text("x\n", encoding="utf-8")  # noqa: E731
    homes: dict[str, tuple[dict[str, str | None], Setup, str]] = {
        # name -> (environment, setup, what the message must name)
        "home-is-file": ({"RATCHET_HOME": "{tmp}/home-file"}, file_at("home-file"), "home-file"),
        "home-is-dev-null": ({"RATCHET_HOME": "/dev/null"}, lambda ctx: None, "/dev/null"),
        "home-under-file": ({"RATCHET_HOME": "{tmp}/home-file/sub"}, file_at("home-file"), "home-file"),
        "xdg-cache-is-file": (
            {"RATCHET_HOME": None, "XDG_CACHE_HOME": "{tmp}/xdg-file"},
            file_at("xdg-file"),
            "xdg-file",
        ),
    }
    for name, (env, make, must) in homes.items():
        out.add(
            Case(
                f"env:{name}@check",
                "environment",
                "demo",
                _both(make, _commit_head(_benign_edit)),
                CHECK,
                env=env,
                exit_codes=(2, 3),
                must_name=must,
                forbid=(),
            )
        )
        out.add(
            Case(
                f"env:{name}@record",
                "environment",
                "demo",
                make,
                RECORD,
                env=env,
                exit_codes=(2, 3),
                must_name=must,
                forbid=(),
            )
        )
    out.add(
        Case(
            "env:home-is-file@proxy",
            "environment",
            "demo",
            lambda ctx: (ctx.tmp / "home-file").write_text("x\n", encoding="utf-8"),
            PROXY,
            env={"RATCHET_HOME": "{tmp}/home-file"},
            exit_codes=(2, 3),
            must_name="home-file",
            forbid=(),
            subprocess=True,
            timeout=10,
        )
    )


def flag_cases(out: CaseList) -> None:
    edited = _commit_head(_benign_edit)
    file_here: Setup = lambda ctx: (ctx.tmp / "afile").write_text("x\n", encoding="utf-8")  # noqa: E731
    empty_dir: Setup = lambda ctx: (ctx.tmp / "notrepo").mkdir()  # noqa: E731
    flags: list[tuple[str, Setup | None, list[str], str, Style]] = [
        # (name, setup, argv, must name, style)
        ("check-budget-nan", edited, [*CHECK, "--budget", "nan"], "--budget", "error"),
        ("check-budget-negative", edited, [*CHECK, "--budget", "-5"], "--budget", "error"),
        ("check-budget-inf", edited, [*CHECK, "--budget", "-inf"], "--budget", "error"),
        ("check-cache-bogus", edited, [*CHECK, "--cache", "bogus"], "--cache", "usage"),
        ("check-on-error-x", edited, [*CHECK, "--on-error", "x"], "--on-error", "usage"),
        (
            "check-base-unknown",
            edited,
            ["check", "--repo", "{repo}", "--base", "no-such-rev", "--level0-only"],
            "no-such-rev",
            "error",
        ),
        ("check-base-empty", edited, ["check", "--repo", "{repo}", "--base", "", "--level0-only"], "revision", "error"),
        (
            "check-base-too-far",
            edited,
            ["check", "--repo", "{repo}", "--base", "HEAD~99", "--level0-only"],
            "HEAD~99",
            "error",
        ),
        (
            "check-base-tree",
            edited,
            ["check", "--repo", "{repo}", "--base", "HEAD:skills", "--level0-only"],
            "HEAD:skills",
            "error",
        ),
        (
            "check-base-option-like",
            edited,
            ["check", "--repo", "{repo}", "--base=--output=/tmp/x", "--level0-only"],
            "--output=/tmp/x",
            "error",
        ),
        ("check-head-unknown", edited, [*CHECK, "--head", "no-such-rev"], "no-such-rev", "error"),
        ("check-head-and-staged", edited, [*CHECK, "--head", "HEAD", "--staged"], "--staged", "error"),
        (
            "check-repo-file",
            file_here,
            ["check", "--repo", "{tmp}/afile", "--base", "HEAD~1", "--level0-only"],
            "afile",
            "error",
        ),
        (
            "check-repo-not-repo",
            empty_dir,
            ["check", "--repo", "{tmp}/notrepo", "--base", "HEAD~1", "--level0-only"],
            "notrepo",
            "error",
        ),
        (
            "check-repo-missing",
            None,
            ["check", "--repo", "{tmp}/nowhere", "--base", "HEAD~1", "--level0-only"],
            "nowhere",
            "error",
        ),
        ("check-work-file", _both(edited, file_here), [*CHECK, "--work", "{tmp}/afile"], "afile", "error"),
        (
            "check-config-empty",
            edited,
            ["check", "--repo", "{repo}", "--base", "HEAD~1", "--config", ""],
            "gate config",
            "error",
        ),
        (
            "check-config-nul",
            edited,
            ["check", "--repo", "{repo}", "--base", "HEAD~1", "--config", "a\0b"],
            "gate config",
            "error",
        ),
        ("record-project-file", file_here, ["record", "--project", "{tmp}/afile"], "afile", "error"),
        ("record-project-missing", None, ["record", "--project", "{tmp}/nowhere"], "nowhere", "error"),
        ("record-work-file", file_here, [*RECORD, "--work", "{tmp}/afile"], "afile", "error"),
        ("record-task-id-glob", None, [*RECORD, "*"], "*", "error"),
        ("bless-project-file", file_here, ["bless", "--project", "{tmp}/afile"], "afile", "error"),
        ("bless-work-file", file_here, [*BLESS, "--work", "{tmp}/afile"], "afile", "error"),
        ("validate-missing-path", None, ["validate", "{repo}/skills/nope"], "skills/nope", "report"),
        ("validate-file-not-skill", None, ["validate", "{repo}/tasks.yaml"], "tasks.yaml", "report"),
        ("validate-nul-path", None, ["validate", "{repo}/skills/a\0b"], "PATH", "usage"),
        ("validate-default-no-project", None, ["validate"], "skills", "report"),
        ("hook-repo-file", file_here, ["hook", "install", "--repo", "{tmp}/afile"], "afile", "error"),
        ("hook-repo-not-repo", empty_dir, ["hook", "install", "--repo", "{tmp}/notrepo"], "notrepo", "error"),
        ("hook-repo-missing", None, ["hook", "install", "--repo", "{tmp}/nowhere"], "nowhere", "error"),
        (
            "label-pair-bad",
            None,
            ["bench", "label", REVIEW_ID, "--disagree", "--pair", "oops", "--project", "{repo}"],
            "--pair",
            "error",
        ),
        (
            "label-decision-maybe",
            None,
            ["bench", "label", REVIEW_ID, "--disagree", "--decision", "MAYBE", "--project", "{repo}"],
            "--decision",
            "usage",
        ),
        (
            "label-unknown-edit",
            None,
            ["bench", "label", "no-such-edit", "--agree", "--project", "{repo}"],
            "no-such-edit",
            "error",
        ),
        (
            "label-edit-escape",
            None,
            ["bench", "label", "../../etc/passwd", "--agree", "--project", "{repo}"],
            "../../etc/passwd",
            "error",
        ),
        (
            "label-agree-and-disagree",
            None,
            ["bench", "label", REVIEW_ID, "--agree", "--disagree", "--project", "{repo}"],
            "--agree",
            "error",
        ),
        ("label-project-file", file_here, ["bench", "label", "--status", "--project", "{tmp}/afile"], "afile", "error"),
        (
            "bench-run-limit-0",
            None,
            ["bench", "run", "--config", "cascade", "--limit", "0", "--root", "{repo}"],
            "--limit",
            "usage",
        ),
        (
            "bench-run-concurrency-0",
            None,
            ["bench", "run", "--config", "cascade", "--concurrency", "0", "--root", "{repo}"],
            "--concurrency",
            "usage",
        ),
        (
            "bench-run-unknown-config",
            None,
            [
                "bench",
                "run",
                "--config",
                "no_such_config",
                "--root",
                "{repo}",
                "--work",
                "{home}/bench",
                "--out",
                "{repo}/results-fuzz",
            ],
            "no_such_config",
            "error",
        ),
        (
            "bench-validate-project-missing",
            None,
            ["bench", "validate", "--no-audit", "--project", "{tmp}/nowhere"],
            "nowhere",
            "error",
        ),
    ]
    for name, setup, argv, must, style in flags:
        fixture: Fixture = (
            "bench" if argv[0] == "bench" else ("none" if name == "validate-default-no-project" else "demo")
        )
        out.add(
            Case(
                f"flag:{name}", "cli flags", fixture, setup, argv, must_name=must, style=style, snapshot_skip=("var/",)
            )
        )
    proxy_flags: list[tuple[str, Setup | None, list[str], str, Style]] = [
        ("proxy-budget-nan", None, [*PROXY, "--budget", "nan"], "--budget", "error"),
        ("proxy-budget-negative", None, [*PROXY, "--budget", "-1"], "--budget", "error"),
        ("proxy-port-0", None, [*PROXY, "--port", "0"], "--port", "usage"),
        ("proxy-port-huge", None, [*PROXY, "--port", "70000"], "--port", "usage"),
        ("proxy-cache-bogus", None, [*PROXY, "--cache", "bogus"], "--cache", "usage"),
        ("proxy-project-file", file_here, ["proxy", "--port", "8799", "--project", "{tmp}/afile"], "afile", "error"),
        ("proxy-work-file", file_here, [*PROXY, "--work", "{tmp}/afile"], "afile", "error"),
    ]
    for name, setup, argv, must, style in proxy_flags:
        out.add(
            Case(
                f"flag:{name}",
                "cli flags",
                "demo",
                setup,
                argv,
                must_name=must,
                style=style,
                subprocess=True,
                timeout=10,
            )
        )
    # The other entry points, and git states the gate cannot work with.
    others: list[tuple[str, Fixture, Setup | None, list[str], str, Style, bool]] = [
        # (name, fixture, setup, argv, must name, style, subprocess?)
        ("demo-dir-file", "none", file_here, ["demo", "--dir", "{tmp}/afile"], "afile", "error", False),
        (
            "demo-dir-not-empty",
            "none",
            lambda ctx: ctx.write("keep.txt", "mine\n"),
            ["demo", "--dir", "{repo}"],
            "{repo}",
            "error",
            False,
        ),
        (
            "bench-build-unknown-type",
            "bench",
            None,
            ["bench", "build", "--types", "R9", "--project", "{repo}", "--work", "{home}/bench"],
            "R9",
            "error",
            True,
        ),
        (
            "bench-build-unknown-skill",
            "bench",
            None,
            ["bench", "build", "--skills", "no-such-skill", "--project", "{repo}", "--work", "{home}/bench"],
            "no-such-skill",
            "error",
            True,
        ),
        (
            "bench-smoke-limit-0",
            "bench",
            None,
            ["bench", "smoke", "--limit", "0", "--root", "{repo}"],
            "--limit",
            "usage",
            False,
        ),
        (
            "bench-selftest-root-file",
            "none",
            file_here,
            ["bench", "selftest", "--root", "{tmp}/afile"],
            "afile",
            "error",
            True,
        ),
        (
            "check-repo-no-commits",
            "none",
            lambda ctx: ctx.git("init", "-q"),
            ["check", "--repo", "{repo}", "--base", "HEAD", "--level0-only"],
            "HEAD",
            "error",
            False,
        ),
        (
            "check-repo-bare",
            "none",
            lambda ctx: ctx.git("init", "-q", "--bare"),
            ["check", "--repo", "{repo}", "--base", "HEAD", "--level0-only"],
            "{repo}",
            "error",
            False,
        ),
        (
            "check-staged-conflict",
            "demo",
            _conflicted_index,
            CHECK_STAGED,
            "skills/github-triage/SKILL.md",
            "error",
            False,
        ),
    ]
    for name, fixture, setup, argv, must, style, heavy in others:
        out.add(
            Case(
                f"flag:{name}",
                "cli flags",
                fixture,
                setup,
                argv,
                must_name=must,
                style=style,
                snapshot_skip=("var/",),
                subprocess=heavy,
                timeout=60 if heavy else None,
            )
        )
    # hook install into a repository whose hooks cannot be written, or hold someone else's hook.
    hooks: dict[str, tuple[Setup, str]] = {
        "foreign-pre-push": (lambda ctx: ctx.write(".git/hooks/pre-push", "#!/bin/sh\necho mine\n"), "pre-push"),
        "hooks-dir-is-file": (lambda ctx: (_rm_tree(ctx.path(".git/hooks")), ctx.write(".git/hooks", "x\n")), "hooks"),
        "hooks-path-is-file": (
            lambda ctx: (ctx.write("hookfile", "x\n"), ctx.git("config", "core.hooksPath", "hookfile")),
            "hookfile",
        ),
        "pre-push-is-dir": (lambda ctx: ctx.path(".git/hooks/pre-push").mkdir(parents=True), "pre-push"),
    }
    for name, (setup, must) in hooks.items():
        out.add(
            Case(
                f"hook:{name}@hook-install",
                "git hooks",
                "demo",
                setup,
                ["hook", "install", "--repo", "{repo}"],
                must_name=must,
            )
        )


def _conflicted_index(ctx: Ctx) -> None:
    """An index with an unresolved merge conflict in a skill (stages 1-3, no stage 0)."""
    path = "skills/github-triage/SKILL.md"
    ctx.git("checkout", "-q", "-b", "side")
    ctx.write(path, ctx.read(path) + "\nSide branch line.\n")
    ctx.commit("side")
    ctx.git("checkout", "-q", "main")
    ctx.write(path, ctx.read(path) + "\nMain branch line.\n")
    ctx.commit("main")
    subprocess.run(["git", *GIT_IDENTITY, "merge", "-q", "side"], cwd=ctx.repo, capture_output=True, check=False)


def _rm_tree(path: object) -> None:
    import shutil
    from pathlib import Path

    assert isinstance(path, Path)
    if path.is_dir():
        shutil.rmtree(path)


def _garbage_store(ctx: Ctx) -> None:
    ctx.home_write(STORE, _garbage(8192))


def _foreign_sqlite(ctx: Ctx) -> None:
    ctx.home.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(ctx.home / STORE) as db:
        db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, title TEXT)")
        db.execute("INSERT INTO photos VALUES (1, 'cat')")
    db.close()


def _foreign_migrations(ctx: Ctx) -> None:
    ctx.home.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(ctx.home / STORE) as db:
        db.execute("CREATE TABLE migrations (version INTEGER)")
        db.execute("INSERT INTO migrations VALUES (7)")
    db.close()


def _lying_migrations(ctx: Ctx) -> None:
    """Says every migration ran, but model_calls has the wrong shape."""
    ctx.home.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(ctx.home / STORE) as db:
        db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        db.execute("INSERT INTO migrations VALUES ('0001_runs_ledger_reservations', 0)")
        db.execute("CREATE TABLE model_calls (x TEXT)")
    db.close()


def _truncated_store(ctx: Ctx) -> None:
    ctx.home.mkdir(parents=True, exist_ok=True)
    scratch = ctx.tmp / "full.sqlite"
    with sqlite3.connect(scratch) as db:
        db.execute("PRAGMA page_size=1024")
        db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        db.executemany("INSERT INTO migrations VALUES (?, 0)", [(f"m{i:05d}" * 20,) for i in range(500)])
    db.close()
    ctx.home_write(STORE, scratch.read_bytes()[:3000])


STORE_FAULTS: dict[str, tuple[Setup, str]] = {
    "garbage": (_garbage_store, STORE),
    "foreign-sqlite": (_foreign_sqlite, STORE),
    "foreign-migrations": (_foreign_migrations, STORE),
    "lying-migrations": (_lying_migrations, STORE),
    "truncated": (_truncated_store, STORE),
    "is-dir": (lambda ctx: (ctx.home / STORE).mkdir(parents=True), STORE),
    "cache-is-file": (lambda ctx: ctx.home_write("cache/llm", "x\n"), "cache"),
    "cache-root-is-file": (lambda ctx: ctx.home_write("cache", "x\n"), "cache"),
}
# A response cache that cannot be used may degrade to misses with a warning (exit 0: nothing is
# read from it), or stop (3); the store and the work area's own folders are never optional.
STORE_EXIT: dict[str, tuple[int, ...]] = {"cache-is-file": (0, 3), "cache-root-is-file": (0, 3)}


def store_cases(out: CaseList) -> None:
    edited = _commit_head(_benign_edit)
    for name, (fault, must) in STORE_FAULTS.items():
        common = {"exit_codes": STORE_EXIT.get(name, (3,)), "must_name": must, "forbid": ("{home}/scratch",)}
        out.add(Case(f"store:{name}@check", "store", "demo", _both(edited, fault), CHECK, **common))
        out.add(Case(f"store:{name}@record", "store", "demo", fault, [*RECORD, "github-triage-01"], **common))
    for name in ["garbage", "foreign-sqlite", "is-dir"]:
        fault, must = STORE_FAULTS[name]
        out.add(
            Case(
                f"store:{name}@proxy",
                "store",
                "demo",
                fault,
                PROXY,
                exit_codes=(3,),
                must_name=must,
                forbid=("{home}/scratch",),
                subprocess=True,
                timeout=10,
            )
        )
    out.add(
        Case(
            "store:scratch-is-file@check",
            "store",
            "demo",
            _both(edited, lambda ctx: ctx.home_write("scratch", "x\n")),
            CHECK,
            exit_codes=(2, 3),
            must_name="scratch",
            forbid=(),
        )
    )
    out.add(
        Case(
            "store:pending-is-file@record",
            "store",
            "demo",
            lambda ctx: ctx.home_write("pending", "x\n"),
            [*RECORD, "github-triage-01"],
            exit_codes=(2, 3),
            must_name="pending",
            forbid=(),
        )
    )
    out.add(
        Case(
            "store:wal-garbage@check",
            "store",
            "demo",
            _both(edited, lambda ctx: (_foreign_sqlite(ctx), ctx.home_write(STORE + "-wal", _garbage(4096)))),
            CHECK,
            exit_codes=(3,),
            must_name=STORE,
            forbid=("{home}/scratch",),
        )
    )
