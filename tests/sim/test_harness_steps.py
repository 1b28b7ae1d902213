"""The simulator behind a harness runs a convention skill's command steps through the harness's shell
and reads the skill's files through its reader (ratchet/sim/harness_steps.py), offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ratchet.agent.runner import run_task
from ratchet.core.chat import ToolCallRequest
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.sim.agent import SimAgentModel
from ratchet.sim.follow import follow_report
from ratchet.sim.harness_steps import READ, SHELL, harness_call, harness_step_tools, rewrite_steps, step_result
from ratchet.skills.sets import load_skills
from ratchet.world import load_world
from tests.helpers.shell_drive import CLAUDE_SKILLS, CODEX_SKILLS, ShellDrive, drive_with_shell

PROJECT = Path(__file__).resolve().parents[1] / "data" / "weekly_report"
CLOCK = "2026-10-14T16:00:00Z"
SKILLS = load_skills(PROJECT / "skills")
TASK = load_tasks(PROJECT / "tasks.yaml")[0]
WORLD = load_world(PROJECT / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
REPORT = "Week 42 in acme/widgets: 3 pull requests merged, 4 issues opened."
POSTED = "https://github.com/acme/widgets/issues/7#issuecomment-4242"
GH = {("gh", "issue", "comment"): (0, POSTED)}


def behind(codex: bool, **options: Any) -> ShellDrive:
    options.setdefault("mocks", GH)
    return drive_with_shell(codex, SimAgentModel(), TASK.prompt, SKILLS, WORLD, **options)


def fields(output: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in output.split("\n") if ": " in line and not line.startswith("I "))


def test_claude_code_with_bash_and_read_reads_the_reference_runs_the_script_then_posts() -> None:
    got = behind(False)
    folder = f"{CLAUDE_SKILLS}/weekly-report"
    assert got.loads == ["weekly-report"]
    assert got.calls == [
        ("Read", {"file_path": f"{folder}/references/policy.md"}),
        ("Bash", {"command": f"python {folder}/scripts/report.py --repo acme/widgets --week 42"}),
        ("Bash", {"command": f"gh issue comment 7 --repo acme/widgets --body '{REPORT}'"}),
    ]
    assert fields(got.final_output) == {
        "repo": "acme/widgets",
        "issue": "7",
        "status": "posted",
        "report": REPORT,
        "comment": POSTED,
        "rules": "Keep it to the numbers; sign off as the release crew.",
    }


def test_codex_runs_the_same_steps_through_exec_command_and_reads_with_cat() -> None:
    got = behind(True)
    folder = f"{CODEX_SKILLS}/weekly-report"
    assert got.loads == ["weekly-report"]
    assert got.calls == [
        ("exec_command", {"cmd": f"cat {folder}/references/policy.md"}),
        ("exec_command", {"cmd": f"python {folder}/scripts/report.py --repo acme/widgets --week 42"}),
        ("exec_command", {"cmd": f"gh issue comment 7 --repo acme/widgets --body '{REPORT}'"}),
    ]
    assert got.final_output == behind(False).final_output


def test_without_the_harnesss_shell_and_reader_the_steps_are_skipped_as_the_minimal_runner_skips_them() -> None:
    got = behind(False, tools=())
    minimal = run_task(
        TASK,
        SKILLS,
        WORLD,
        SimAgentModel(),
        seed=task_seed(TASK.id),
        frozen_time=CLOCK,
        models={"agent": "sim/agent-1"},
    )
    assert got.loads == ["weekly-report"] and got.calls == []
    assert got.final_output == minimal.final_output
    assert "status: posted" in got.final_output and "report: none" in got.final_output


def test_codex_without_its_shell_turned_on_skips_the_steps_as_the_minimal_runner_does() -> None:
    # Without `shell` in harness.builtin_tools Codex runs read-only (its request says so), where the command
    # shims cannot record: the steps stay as they were before there were shims, so its verdicts do not move.
    got = behind(True, tools=())
    assert got.loads == ["weekly-report"] and got.calls == []
    assert got.final_output == behind(False, tools=()).final_output


def test_with_bash_alone_a_skill_file_is_read_with_cat() -> None:
    got = behind(False, tools=("Bash",))
    assert got.calls[0] == ("Bash", {"command": f"cat {CLAUDE_SKILLS}/weekly-report/references/policy.md"})
    assert "rules: Keep it to the numbers; sign off as the release crew." in got.final_output


@pytest.mark.parametrize("codex", [False, True])
def test_a_failing_script_is_an_error_the_skill_reads_and_it_stops_before_posting(codex: bool) -> None:
    got = behind(codex, mocks={("python",): (1, "Traceback: no data for week 42"), **GH})
    assert [name for name, _ in got.calls] == (["exec_command"] * 2 if codex else ["Read", "Bash"])
    out = fields(got.final_output)
    assert out["status"] == "no report"
    assert out["report"] == "error=Traceback: no data for week 42, exit_code=1"


@pytest.mark.parametrize("codex", [False, True])
def test_an_unmocked_command_reads_as_its_error_and_exit_code(codex: bool) -> None:
    got = behind(codex, mocks={})
    assert fields(got.final_output)["comment"] == "error=ratchet: gh is not mocked (commands.yaml), exit_code=127"


BODY = """## Inputs

- `$repo`: the repository, written `owner/name`.

## Steps

1. Run `echo $repo $HOME` as `$out`.
2. Read the title: `github_get_issue(repo=$repo, number=1)` as `$issue`.
3. Note `$x = 1` then run `jq '{a: .b}' data.json` and read `notes.txt`.
4. If `$out.error`: run `gh issue comment 1 --body "$out"`.

```
1. Run `rm -rf /` (an example, in a fence)
```

## Output

- Run `never this`: `$out`
"""


def test_only_command_and_read_spans_of_the_steps_are_rewritten() -> None:
    lines = rewrite_steps(BODY, commands=True, reads=True).split("\n")
    assert lines[6] == f'1. Run `{SHELL}(parts=["echo ", " \\u0024HOME"], values=[$repo])` as `$out`.'
    assert lines[7] == BODY.split("\n")[7]
    assert lines[8] == (
        f"3. Note `$x = 1` then run `{SHELL}(parts=[\"jq '{{a: .b}}' data.json\"], values=[])` "
        f'and read `{READ}(parts=["notes.txt"], values=[])`.'
    )
    assert lines[9].startswith(f"4. If `$out.error`: run `{SHELL}(")
    assert lines[10:] == BODY.split("\n")[10:]
    assert rewrite_steps(BODY, commands=False, reads=True).split("\n")[6] == BODY.split("\n")[6]


def _call(name: str, parts: list[str], values: list[Any]) -> ToolCallRequest:
    return ToolCallRequest(id="call_0_0", name=name, arguments={"parts": parts, "values": values})


@pytest.mark.parametrize(
    ("parts", "values", "line"),
    [
        (
            ["gh issue comment 7 --body ", ""],
            ["it's done; rm -rf"],
            "gh issue comment 7 --body 'it'\"'\"'s done; rm -rf'",
        ),
        (
            ['gh issue comment 7 --body "', '"'],
            ['say "$HOME" `x`'],
            'gh issue comment 7 --body "say \\"\\$HOME\\" \\`x\\`"',
        ),
        (["echo '", "'"], ["it's"], "echo 'it'\\''s'"),
        (["echo ", " ", ""], [7, None], "echo 7 ''"),
        (["echo ", ""], [{"a": [1, True]}], "echo '{\"a\":[1,true]}'"),
        (
            ["python scripts/report.py --out out/report.md ../x.py", ""],
            [],
            "python /s/weekly/scripts/report.py --out /s/weekly/out/report.md ../x.py",
        ),
    ],
)
def test_a_command_is_filled_quoted_for_where_each_value_stands(parts: list[str], values: list[Any], line: str) -> None:
    call = harness_call(_call(SHELL, parts, values), "claude-code", "/s/weekly", frozenset({"Bash"}))
    assert (call.name, call.arguments) == ("Bash", {"command": line})
    codex = harness_call(_call(SHELL, parts, values), "codex", "/s/weekly", frozenset({"exec_command"}))
    assert (codex.name, codex.arguments) == ("exec_command", {"cmd": line})


def test_a_read_goes_to_the_skill_folder_through_read_or_cat() -> None:
    read = _call(READ, ["./references/", ".md"], ["policy"])
    assert harness_call(read, "claude-code", "/s/w", frozenset({"Read"})).arguments == {
        "file_path": "/s/w/references/policy.md"
    }
    assert harness_call(read, "claude-code", "/s/w", frozenset({"Bash"})).arguments == {
        "command": "cat /s/w/references/policy.md"
    }
    assert harness_call(read, "codex", "/s/w", frozenset()).arguments == {"cmd": "cat /s/w/references/policy.md"}
    other = ToolCallRequest(id="c", name="github_get_issue", arguments={"repo": "a/b"})
    assert harness_call(other, "codex", "/s/w", frozenset()) == other


@pytest.mark.parametrize(
    ("shape", "name", "text", "value"),
    [
        ("claude-code", "Read", "1\tKeep it short.\n2\tSign off.\n3\t", "Keep it short.\nSign off."),
        ("claude-code", "Read", "     1\u2192Keep it short.\n     2\u2192", "Keep it short."),
        ("claude-code", "Read", "1\tx\n\n<system-reminder>\nWhatever.\n</system-reminder>\n", "x"),
        ("claude-code", "Read", "Error: File does not exist.", {"error": "File does not exist."}),
        ("claude-code", "Bash", "report for --week 7", "report for --week 7"),
        ("claude-code", "Bash", "Error: Exit code 3\nout\nerr", {"error": "out\nerr", "exit_code": 3}),
        ("claude-code", "Bash", "Error: Permission denied", {"error": "Permission denied"}),
        (
            "codex",
            "exec_command",
            "Chunk ID: 0\nWall time: 0 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nout\n",
            "out",
        ),
        (
            "codex",
            "exec_command",
            "Chunk ID: 0\nWall time: 0 seconds\nProcess exited with code 127\nOutput:\nratchet: gh is not mocked\n",
            {"error": "ratchet: gh is not mocked", "exit_code": 127},
        ),
        (
            "codex",
            "exec_command",
            "exec_command failed: sandbox denied",
            {"error": "exec_command failed: sandbox denied"},
        ),
    ],
)
def test_results_read_off_the_forms_the_real_harnesses_send(shape: Any, name: str, text: str, value: Any) -> None:
    assert step_result(shape, ToolCallRequest(id="c", name=name), text) == value


def test_behind_a_harness_with_a_shell_the_follow_report_reads_command_steps_as_read_lines() -> None:
    skill = SKILLS["weekly-report"]
    # The step that posts: prose to the minimal runner's follower, a command behind a harness with a shell.
    post = next(n for n, line in enumerate(skill.body.split("\n"), 1) if "gh issue comment" in line)
    assert post not in follow_report(skill.body, frozenset()).read_lines
    behind = follow_report(skill.body, harness_step_tools("claude-code", ["Bash", "Read"]))
    assert post in behind.read_lines and behind.unfollowed == []
    assert harness_step_tools("claude-code", []) == frozenset()
    assert harness_step_tools("claude-code", ["Read"]) == frozenset({READ})
    assert harness_step_tools("codex", []) == frozenset()
    assert harness_step_tools("codex", ["shell"]) == frozenset({SHELL, READ})
    assert harness_step_tools("minimal", ["Bash"]) == frozenset()
