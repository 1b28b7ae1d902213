"""Codex (`@openai/codex`, `codex exec`) as a harness.

Skills go in <workspace>/.agents/skills/<name>/; Codex lists them (with its bundled ones, which it
writes under CODEX_HOME/skills/.system) in a developer message and the model loads one by reading
its SKILL.md through `exec_command`. Codex is pointed at the loopback endpoint as a custom
Responses provider whose key is this replay's token, with a fresh CODEX_HOME whose config.toml
names Ratchet's MCP server (tools offered as the namespace mcp__ratchet), a read-only sandbox
(workspace-write when `shell` is in harness.builtin_tools), no approvals, no session files (`--ephemeral`). The final answer is written by `-o FILE`. The
prompt goes on stdin (`-`).
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
    skill_of_path,
)
from ratchet.harness.sandbox import ProcessOutcome
from ratchet.llm.sessions import Rewrite

SHELL_TOOL = "exec_command"
_READS = frozenset({"view_image", "list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
_BOOKKEEPING = frozenset({"update_plan", "get_goal", "create_goal", "update_goal"})
TOKEN_VAR = "RATCHET_TOKEN"


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class Codex:
    """The `codex` harness."""

    name: HarnessName = "codex"
    binary = "codex"

    def skills_dir(self, replay: ReplayInput) -> Path:
        return replay.dirs.workspace / ".agents" / "skills"

    def _codex_home(self, replay: ReplayInput) -> Path:
        return replay.dirs.home / ".codex"

    def launch(self, replay: ReplayInput, binary: Path | None) -> Launch:
        assert binary is not None
        args = ", ".join(_toml_string(a) for a in replay.mcp_argv[1:])
        config = "\n".join(
            [
                f"[mcp_servers.{MCP_SERVER}]",
                f"command = {_toml_string(replay.mcp_argv[0])}",
                f"args = [{args}]",
                "startup_timeout_sec = 60",
                # Required: Codex waits for it before the first turn (an optional server gets a short
                # grace, then the turn goes out without its tools).
                "required = true",
                # Without it Codex refuses every MCP call that may change something ("requires approval,
                # but approval policy is never"): the mocked tools change nothing real.
                'default_tools_approval_mode = "approve"',
                "",
            ]
        )
        if replay.settings.shell_tools:
            # The command shims send their record over a unix socket to the host (harness/commands.py), and
            # Codex's own sandbox refuses every connect() without network access. The replay's network is
            # still loopback alone under bubblewrap.
            config += "[sandbox_workspace_write]\nnetwork_access = true\n"
        provider = (
            f'model_providers.ratchet={{name="ratchet",base_url="{replay.endpoint_url}/v1",'
            f'env_key="{TOKEN_VAR}",wire_api="responses"}}'
        )
        argv = [
            str(binary),
            "exec",
            "--skip-git-repo-check",
            "--ephemeral",
            "--color",
            "never",
            "-m",
            "agent",
            "-c",
            "model_provider=ratchet",
            "-c",
            provider,
            "-s",
            # shell tools on (`shell` in harness.builtin_tools): it may write in the workspace, as the skill's
            # scripts do; off, it only reads (loading a skill is a read of its SKILL.md)
            "workspace-write" if replay.settings.shell_tools else "read-only",
            "-C",
            str(replay.dirs.workspace),
            "-o",
            str(replay.dirs.output),
            "-",
        ]
        home = self._codex_home(replay)
        env = {"CODEX_HOME": str(home), TOKEN_VAR: replay.token}
        return Launch(argv=argv, env=env, stdin=replay.prompt, files={home / "config.toml": config})

    def rewrites(self, replay: ReplayInput) -> list[Rewrite]:
        return [
            *root_rewrites(replay),
            Rewrite(
                pattern=r"<current_date>\d{4}-\d{2}-\d{2}</current_date>",
                replacement=f"<current_date>{replay.frozen_date}</current_date>",
            ),
            Rewrite(pattern=r"Chunk ID: [0-9a-f]+", replacement="Chunk ID: 0"),
            Rewrite(pattern=r"Wall time: [0-9.]+ seconds", replacement="Wall time: 0 seconds"),
        ]

    def restores(self, replay: ReplayInput) -> dict[str, str]:
        return restores(replay)

    def finished(self, replay: ReplayInput, outcome: ProcessOutcome) -> Finished:
        answer = (
            replay.dirs.output.read_text(encoding="utf-8", errors="replace") if replay.dirs.output.is_file() else ""
        )
        if outcome.exit_code != 0:
            return Finished(
                final_output=answer,
                error=f"codex exited with code {outcome.exit_code}: {outcome.stderr_tail() or 'no message'}",
            )
        return Finished(final_output=answer.rstrip("\n"))

    def loaded_skill(self, call: ToolCallRequest, replay: ReplayInput) -> str | None:
        if call.name != SHELL_TOOL:
            return None
        command = call.arguments.get("cmd")
        if not isinstance(command, str):
            return None
        return skill_of_path(command) if shell_effect(command, replay.settings.read_commands) == "read" else None

    def builtin_effect(self, call: ToolCallRequest, replay: ReplayInput) -> BuiltinEffect:
        if call.name in _READS:
            return "read"
        if call.name in _BOOKKEEPING:
            return "ignore"
        if call.name == SHELL_TOOL:
            command = call.arguments.get("cmd")
            return shell_effect(command if isinstance(command, str) else "", replay.settings.read_commands)
        return "write"
