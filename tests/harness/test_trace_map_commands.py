"""Commands and skill-file reads in a harness trace: each `cmd:` call after the shell call that ran it, reads of
installed skill files as `skill:read`, and a new `git push` a Level 0 hard fail."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.harness import HarnessSettings
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest
from ratchet.gate.level0 import level0_findings
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.harness.base import ReplayInput
from ratchet.harness.claude_code import ClaudeCode
from ratchet.harness.codex import Codex
from ratchet.harness.command import Command
from ratchet.harness.commands import Collector, CountingModel, command_trail, harness_probes, install_commands
from ratchet.harness.sandbox import ReplayDirs, replay_dirs
from ratchet.harness.trace_map import CommandTrail, map_calls
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.sessions import Exchange
from ratchet.skills.skill import Skill
from ratchet.world.commands import CommandMock, CommandRun

ROOT = Path("/r")
DIRS = ReplayDirs(
    root=ROOT,
    workspace=ROOT / "ws",
    home=ROOT / "home",
    tmp=ROOT / "tmp",
    record=ROOT / "c",
    volatile=ROOT / "v",
    output=ROOT / "o",
)
SKILL = Skill(name="report", description="d", body="b", folder="/x/report", content_hash="c1", substance_hash="s1")


def _replay(name: str, command: str | None = None) -> ReplayInput:
    return ReplayInput(
        prompt="p",
        dirs=DIRS,
        endpoint_url="http://127.0.0.1:1",
        token="t",
        mcp_argv=["py"],
        frozen_time="2026-10-14T16:00:00Z",
        settings=HarnessSettings(name=name, command=command),
    )


def _turn(*calls: tuple[str, str, dict[str, object]]) -> Exchange:
    asked = [ToolCallRequest(id=call_id, name=name, arguments=args) for call_id, name, args in calls]
    return Exchange(
        api="anthropic",
        request=ChatRequest(messages=[Message(role="user", content="p")]),
        response=ChatResponse(message=Message(role="assistant", tool_calls=asked)),
    )


def _cmd(name: str, *args: str, effect: str = "write") -> ToolCall:
    return ToolCall(index=0, name=f"cmd:{name}", arguments={"argv": [name, *args]}, effect=effect)


def _shown(calls: list[ToolCall]) -> list[tuple[int, str]]:
    return [(c.index, c.name) for c in calls]


def test_each_command_follows_the_shell_call_of_the_turn_that_ran_it() -> None:
    exchanges = [
        _turn(("a", "Bash", {"command": "python scripts/report.py --week"})),
        _turn(("b", "Read", {"file_path": "/ratchet-scratch/ws/notes.md"}), ("c", "Bash", {"command": "ls"})),
        _turn(("d", "Bash", {"command": "git push origin main"}), ("e", "Bash", {"command": "echo done"})),
        _turn(),
    ]
    runs = [None, _cmd("gh", "issue", "comment", "7"), _cmd("gh", "api"), _cmd("git", "push")]
    # arrivals: the harness's exact probe (None) before the first request; gh twice while turn 0's Bash ran;
    # nothing in turn 1; `git push` in turn 2: it follows the shell call that names it, not the turn's last one
    trail = CommandTrail(calls=runs, arrivals=[1, 3, 3, 4])
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), exchanges, [], [], {}, commands=trail)
    assert _shown(mapped.tool_calls) == [
        (0, "Bash"),
        (1, "cmd:gh"),
        (2, "cmd:gh"),
        (3, "Read"),
        (4, "Bash"),
        (5, "Bash"),
        (6, "cmd:git"),
        (7, "Bash"),
    ]
    assert mapped.tool_calls[6].arguments == {"argv": ["git", "push"]}


def test_a_command_left_running_lands_after_the_turn_it_finished_in_and_the_harness_own_is_skipped() -> None:
    exchanges = [
        _turn(("a", "Bash", {"command": "(sleep 1; gh issue close 7) &"})),
        _turn(("b", "mcp__ratchet__clock_now", {})),
        _turn(),
    ]
    trail = CommandTrail(calls=[_cmd("gh", "issue", "close", "7"), None], arrivals=[0, None, 0])
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), exchanges, [], [], {}, commands=trail)
    # an unknown arrival counts as the turn before's; None in the trail: a run no shell made (the harness's own)
    assert _shown(mapped.tool_calls) == [(0, "Bash"), (1, "clock_now"), (2, "cmd:gh")]


def test_a_command_run_in_a_turn_without_a_shell_call_follows_the_turn_last_call() -> None:
    # Claude Code runs a SKILL.md's !`gh issue comment ...` as it loads the skill: no shell call asked for it
    exchanges = [_turn(("a", "Skill", {"skill": "report"}), ("b", "Read", {"file_path": "/r/ws/x"})), _turn()]
    trail = CommandTrail(calls=[_cmd("gh", "issue", "comment", "7", effect="send")], arrivals=[0, 1])
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), exchanges, [], [], {"report": SKILL}, commands=trail)
    assert _shown(mapped.tool_calls) == [(0, "Read"), (1, "cmd:gh")]
    assert [r.name for r in mapped.skills_fired] == ["report"]


def test_commands_before_the_first_request_come_first_and_only_exact_probes_are_none() -> None:
    exchanges = [_turn(("a", "Bash", {"command": "ls"})), _turn()]
    trail = CommandTrail(calls=[None, _cmd("git", "status"), _cmd("gh", "api")], arrivals=[2, 3])
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), exchanges, [], [], {}, commands=trail)
    assert _shown(mapped.tool_calls) == [(0, "cmd:git"), (1, "Bash"), (2, "cmd:gh")]


def test_reads_of_installed_skill_files_are_skill_reads_whatever_the_harness() -> None:
    claude = map_calls(
        ClaudeCode(),
        _replay("claude-code"),
        [
            _turn(
                ("a", "Read", {"file_path": "/ratchet-scratch/ws/.claude/skills/report/references/policy.md"}),
                ("b", "Read", {"file_path": "/ratchet-scratch/ws/.claude/skills/other/references/x.md"}),
                ("c", "Read", {"file_path": "/ratchet-scratch/ws/.claude/skills/report/../../../etc/passwd"}),
                ("d", "Bash", {"command": "cat .claude/skills/report/references/policy.md | head -n 20"}),
            )
        ],
        [],
        [],
        {"report": SKILL},
    )
    codex = map_calls(
        Codex(),
        _replay("codex"),
        [
            _turn(
                ("a", "exec_command", {"cmd": "cat /ratchet-scratch/ws/.agents/skills/report/references/policy.md"}),
                ("b", "exec_command", {"cmd": "cat .agents/skills/report/a.md ./.agents/skills/report/scripts/b.py"}),
                ("c", "exec_command", {"cmd": "rm .agents/skills/report/references/policy.md"}),
            )
        ],
        [],
        [],
        {"report": SKILL},
    )
    read = ("skill:read", "read")
    assert [(c.name, c.effect, c.arguments) for c in claude.tool_calls] == [
        (*read, {"skill": "report", "path": "references/policy.md"}),
        ("Read", "read", {"file_path": "/ratchet-scratch/ws/.claude/skills/other/references/x.md"}),
        ("Read", "read", {"file_path": "/ratchet-scratch/ws/.claude/skills/report/../../../etc/passwd"}),
        (*read, {"skill": "report", "path": "references/policy.md"}),
    ], "another folder than an installed skill, or a path leaving it, stays a plain Read"
    assert [(c.name, c.effect, c.arguments) for c in codex.tool_calls] == [
        (*read, {"skill": "report", "path": "references/policy.md"}),
        (*read, {"skill": "report", "path": "a.md"}),
        (*read, {"skill": "report", "path": "scripts/b.py"}),
        ("exec_command", "write", {"cmd": "rm .agents/skills/report/references/policy.md"}),
    ]


def test_a_command_agents_shell_and_skills_dir_are_read_the_same_way() -> None:
    replay = _replay("command", command="agent {prompt}")
    exchanges = [_turn(("a", "bash", {"command": "cat .agents/skills/report/references/policy.md"}))]
    trail = CommandTrail(calls=[_cmd("gh", "api")], arrivals=[0])
    mapped = map_calls(Command(), replay, exchanges, [], [], {"report": SKILL}, commands=trail)
    assert [(c.name, c.arguments) for c in mapped.tool_calls] == [
        ("skill:read", {"skill": "report", "path": "references/policy.md"}),
        ("cmd:gh", {"argv": ["gh", "api"]}),
    ]


def test_a_new_git_push_is_a_level0_hard_fail_named_by_the_command() -> None:
    golden = Trace(task_id="t", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z")
    replay = golden.model_copy(update={"tool_calls": [_cmd("git", "push", "origin", "main")]})
    [finding] = level0_findings(golden, replay)
    assert finding.severity == "hard" and "cmd:git(argv=['git', 'push'" in finding.detail


def _probe_trail(dirs: ReplayDirs, runs: list[CommandRun], before: int) -> CommandTrail:
    """The trail of `runs` where the first request arrived after `before` of them, with Codex's probes."""
    mocks = (CommandMock(name="gh", effect="send", stdout="ok\n"),)
    with Collector(dirs) as collector:
        counting = CountingModel(ScriptedModel(responses=["done", "done"]), collector)
        collector.runs.extend(runs[:before])
        request = ChatRequest(messages=[Message(role="user", content="p")])
        counting.complete(request)
        collector.runs.extend(runs[before:])
    exchange = Exchange(api="responses", request=request, response=ChatResponse(message=Message(role="assistant")))
    return command_trail(dirs, runs, mocks, {}, counting, [exchange], probes=harness_probes("codex", dirs))


def test_only_the_harness_exact_probe_before_the_first_request_is_left_out(tmp_path: Path) -> None:
    with replay_dirs(tmp_path) as dirs:
        install_commands(dirs, (), [])
        [(argv, home)] = harness_probes("codex", dirs)
        probe = CommandRun(name="git", argv=list(argv), cwd=home, exit=127)
        body = f"{dirs.root}/ws/body.json"
        runs = [
            probe,
            probe.model_copy(update={"cwd": str(dirs.workspace)}),  # the same words from the workspace: the agent's
            CommandRun(name="gh", argv=["gh", "api", "--input", body], cwd=str(dirs.workspace), mock=0),
            probe,  # the probe's very words after the first request: the agent's too
        ]
        trail = _probe_trail(dirs, runs, before=3)
    assert trail.arrivals == [3]
    assert [call.name if call else None for call in trail.calls] == [None, "cmd:git", "cmd:gh", "cmd:git"]
    gh = trail.calls[2]
    assert gh is not None and gh.arguments == {"argv": ["gh", "api", "--input", "/ratchet-scratch/ws/body.json"]}


def test_a_harness_that_never_asked_the_model_keeps_what_it_ran() -> None:
    trail = CommandTrail(calls=[_cmd("git", "status"), None], arrivals=[])
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), [], [], [], {}, commands=trail)
    assert _shown(mapped.tool_calls) == [(0, "cmd:git")]
