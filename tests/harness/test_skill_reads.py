"""Which harness calls read an installed skill file (`skill:read`): only what shows the model its content
(Read; cat, head, tail, less, sed -n through a shell), naming it as a whole path word. A listing, an echo, a
count or a stat of the file shows its name or size: it stays the shell call it was."""

from __future__ import annotations

import pytest

from ratchet.harness.claude_code import ClaudeCode
from ratchet.harness.codex import Codex
from ratchet.harness.trace_map import map_calls
from tests.harness.test_trace_map_commands import SKILL, _replay, _turn

POLICY = ".claude/skills/report/references/policy.md"
ON_DISK = f"/r/ws/{POLICY}"  # the replay's real workspace (test DIRS)
AS_SEEN = f"/ratchet-scratch/ws/{POLICY}"  # the same file as the model saw it (PLACEHOLDER_ROOT)


def _claude(name: str, arguments: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), [_turn(("a", name, arguments))], [], [], {"report": SKILL})
    return [(call.name, call.arguments) for call in mapped.tool_calls]


READ = [("skill:read", {"skill": "report", "path": "references/policy.md"})]


@pytest.mark.parametrize(
    "line",
    [
        f"cat {POLICY}",
        f"cat ./{POLICY}",
        f"cat {AS_SEEN}",
        f"cat -n {ON_DISK}",
        f"head -n 20 {POLICY}",
        f"tail -5 {POLICY}",
        f"sed -n '1,40p' {POLICY}",
        f"less {POLICY}",
        f"cat {POLICY} | head -n 3",
    ],
)
def test_a_shell_line_that_shows_the_content_is_a_skill_read(line: str) -> None:
    assert _claude("Bash", {"command": line}) == READ


@pytest.mark.parametrize(
    "line",
    [
        f"ls -la {AS_SEEN}",
        f"echo {POLICY}",
        f"wc -c {POLICY}",
        f"stat {POLICY}",
        f"cat {POLICY} | wc -l",
        f"sed 's/a/b/' {POLICY}",
        f"sed -n 'w /tmp/copy' {POLICY}",
        f"cat {POLICY} /etc/hostname",
        f"cat notes/{POLICY}",
        f"cat /elsewhere/ws/{POLICY}",
        f"cat '--x={POLICY}'",
        f"cat {POLICY} & rm -rf .",
    ],
)
def test_a_shell_line_that_does_not_show_the_content_stays_a_shell_call(line: str) -> None:
    assert _claude("Bash", {"command": line}) == [("Bash", {"command": line})]


def test_a_read_tool_names_the_file_by_its_whole_path() -> None:
    assert _claude("Read", {"file_path": AS_SEEN}) == READ
    assert _claude("Read", {"file_path": ON_DISK}) == READ
    elsewhere = {"file_path": f"/tmp/ws/{POLICY}"}
    assert _claude("Read", elsewhere) == [("Read", elsewhere)]


def test_codex_reads_the_same_way() -> None:
    line = "head -n 50 .agents/skills/report/references/policy.md"
    mapped = map_calls(
        Codex(), _replay("codex"), [_turn(("a", "exec_command", {"cmd": line}))], [], [], {"report": SKILL}
    )
    assert [(c.name, c.arguments) for c in mapped.tool_calls] == READ
    listed = "ls .agents/skills/report/references/policy.md"
    mapped = map_calls(
        Codex(), _replay("codex"), [_turn(("a", "exec_command", {"cmd": listed}))], [], [], {"report": SKILL}
    )
    assert [c.name for c in mapped.tool_calls] == ["exec_command"]
