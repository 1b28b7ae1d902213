"""Claude Code (`@anthropic-ai/claude-code`, `claude -p`) as a harness.

Skills go in <workspace>/.claude/skills/<name>/; Claude Code lists them (with its own bundled
skills) in the request and the model loads one by calling its `Skill` tool. It is started with
only the `Skill` built-in (plus `harness.builtin_tools`), Ratchet's MCP server as its only MCP
server (`--strict-mcp-config`, tools named mcp__ratchet__<tool>, listed directly:
ENABLE_TOOL_SEARCH=false), every model name mapped to the `agent` tier, no session files, no
telemetry or other traffic. The prompt goes on stdin, so a prompt starting with `-` is not a flag.
"""

from __future__ import annotations

import json
from pathlib import Path

from ratchet.config.harness import HarnessName
from ratchet.core.chat import ToolCallRequest
from ratchet.harness.base import (
    MCP_SERVER,
    BuiltinEffect,
    Finished,
    Launch,
    ReplayInput,
    restores,
    root_rewrites,
    shell_effect,
)
from ratchet.harness.sandbox import ProcessOutcome
from ratchet.llm.sessions import Rewrite

SKILL_TOOL = "Skill"
_READS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead"})
_BOOKKEEPING = frozenset({"TodoWrite", "TaskList", "TaskGet", "ExitPlanMode"})
_MODEL_VARS = (
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "CLAUDE_CODE_SUBAGENT_MODEL",
)


class ClaudeCode:
    """The `claude-code` harness."""

    name: HarnessName = "claude-code"
    binary = "claude"

    def skills_dir(self, replay: ReplayInput) -> Path:
        return replay.dirs.workspace / ".claude" / "skills"

    def launch(self, replay: ReplayInput, binary: Path | None) -> Launch:
        assert binary is not None
        config = replay.dirs.root / "mcp.json"
        server = {"type": "stdio", "command": replay.mcp_argv[0], "args": replay.mcp_argv[1:], "env": {}}
        tools = [SKILL_TOOL, *replay.settings.builtin_tools]
        argv = [
            str(binary),
            "-p",
            "--output-format",
            "json",
            "--model",
            "agent",
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--tools",
            ",".join(tools),
            "--allowedTools",
            *tools,
            f"mcp__{MCP_SERVER}",
            "--no-session-persistence",
        ]
        env = {
            "ANTHROPIC_BASE_URL": replay.endpoint_url,
            "ANTHROPIC_API_KEY": replay.token,
            "CLAUDE_CONFIG_DIR": str(replay.dirs.home / ".claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "ENABLE_TOOL_SEARCH": "false",
            "MCP_TIMEOUT": "60000",
        }
        env.update({var: "agent" for var in _MODEL_VARS})
        return Launch(
            argv=argv,
            env=env,
            stdin=replay.prompt,
            files={config: json.dumps({"mcpServers": {MCP_SERVER: server}}, indent=2, sort_keys=True)},
        )

    def rewrites(self, replay: ReplayInput) -> list[Rewrite]:
        return [
            *root_rewrites(replay),
            Rewrite(pattern=r"Today's date is \d{4}-\d{2}-\d{2}", replacement=f"Today's date is {replay.frozen_date}"),
            Rewrite(pattern=r"OS Version: [^\n]*", replacement="OS Version: -"),
        ]

    def restores(self, replay: ReplayInput) -> dict[str, str]:
        return restores(replay)

    def finished(self, replay: ReplayInput, outcome: ProcessOutcome) -> Finished:
        text = outcome.stdout.strip()
        try:
            result = json.loads(text.splitlines()[-1]) if text else None
        except json.JSONDecodeError:
            result = None
        if not isinstance(result, dict):
            return Finished(
                error=f"claude printed no result (exit {outcome.exit_code}): {outcome.stderr_tail() or text[-300:]}"
            )
        answer = result.get("result")
        if result.get("is_error") or outcome.exit_code != 0:
            why = answer if isinstance(answer, str) and answer else result.get("subtype") or "error"
            return Finished(
                final_output=answer if isinstance(answer, str) else "",
                error=f"claude ended with an error (exit {outcome.exit_code}): {' '.join(str(why).split())[:300]}",
            )
        return Finished(final_output=answer if isinstance(answer, str) else "")

    def loaded_skill(self, call: ToolCallRequest, replay: ReplayInput) -> str | None:
        if call.name != SKILL_TOOL:
            return None
        name = call.arguments.get("skill")
        return name.split(":")[-1].strip() if isinstance(name, str) and name.strip() else ""

    def builtin_effect(self, call: ToolCallRequest, replay: ReplayInput) -> BuiltinEffect:
        if call.name in _READS:
            return "read"
        if call.name in _BOOKKEEPING:
            return "ignore"
        if call.name == "Bash":
            command = call.arguments.get("command")
            return shell_effect(command if isinstance(command, str) else "", replay.settings.read_commands)
        return "write"
