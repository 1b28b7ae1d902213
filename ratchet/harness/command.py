"""`command`: any other agent, started from a command template in ratchet.yaml.

    harness:
      name: command
      command: my-agent --cwd {workspace} --mcp {mcp_config} --base-url {proxy_url} {prompt}
      skills_dir: .agents/skills

The template is split like a shell line first, then each placeholder is filled in inside its
word, so a prompt with spaces or quotes stays one argument and nothing is ever run through a
shell. Placeholders: {prompt}, {workspace} (the agent's working folder, with the skills under
`skills_dir`), {mcp_config} (a JSON file in the `mcpServers` shape both CLIs read, naming
Ratchet's MCP server), {proxy_url} (http://127.0.0.1:PORT), {token} (this replay's token),
{home} (the fresh HOME), {clock} (the frozen clock, ISO-8601 UTC, also RATCHET_CLOCK: an agent
that tells its model the date should tell it this one) and {output} (a file for the final answer;
without it stdout is the answer). The environment also carries the endpoint under the names OpenAI and Anthropic clients
read (OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY: the token, never a
provider key). A skill counts as loaded when a tool call names its SKILL.md or calls a
`Skill`/`load_skill` tool with its name.
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

from ratchet.config.harness import COMMAND_PLACEHOLDERS, HarnessName
from ratchet.core.chat import ToolCallRequest
from ratchet.core.errors import ConfigError
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

_LOADERS = frozenset({"Skill", "skill", "load_skill"})
_SHELLS = frozenset({"Bash", "bash", "shell", "exec_command", "run_shell", "run_command"})
_READS = frozenset({"Read", "read", "read_file", "Glob", "glob", "Grep", "grep", "LS", "ls", "list_files"})


class Command:
    """The `command` harness."""

    name: HarnessName = "command"
    binary = ""

    def skills_dir(self, replay: ReplayInput) -> Path:
        return replay.dirs.workspace / replay.settings.skills_dir

    def _values(self, replay: ReplayInput) -> dict[str, str]:
        return {
            "prompt": replay.prompt,
            "workspace": str(replay.dirs.workspace),
            "mcp_config": str(replay.dirs.root / "mcp.json"),
            "proxy_url": replay.endpoint_url,
            "token": replay.token,
            "home": str(replay.dirs.home),
            "output": str(replay.dirs.output),
            "clock": replay.frozen_time,
        }

    def launch(self, replay: ReplayInput, binary: Path | None) -> Launch:
        template = replay.settings.command or ""
        try:
            words = shlex.split(template)
        except ValueError as exc:
            raise ConfigError(f"harness.command: cannot split the command line ({exc})") from None
        values = self._values(replay)
        try:
            argv = [word.format_map(values) for word in words]
        except (KeyError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"harness.command: unknown placeholder {exc} (use "
                + ", ".join("{" + p + "}" for p in COMMAND_PLACEHOLDERS)
                + "; write {{ for a brace)"
            ) from None
        if argv and "/" not in argv[0]:  # the agent itself is found on Ratchet's PATH; the replay's is bin/ alone
            argv[0] = shutil.which(argv[0]) or argv[0]
        server = {"type": "stdio", "command": replay.mcp_argv[0], "args": replay.mcp_argv[1:], "env": {}}
        env = {
            "RATCHET_PROXY_URL": replay.endpoint_url,
            "RATCHET_TOKEN": replay.token,
            "RATCHET_CLOCK": replay.frozen_time,
            "RATCHET_MCP_CONFIG": values["mcp_config"],
            "RATCHET_WORKSPACE": values["workspace"],
            "OPENAI_BASE_URL": f"{replay.endpoint_url}/v1",
            "OPENAI_API_KEY": replay.token,
            "ANTHROPIC_BASE_URL": replay.endpoint_url,
            "ANTHROPIC_API_KEY": replay.token,
        }
        files = {
            replay.dirs.root / "mcp.json": json.dumps({"mcpServers": {MCP_SERVER: server}}, indent=2, sort_keys=True)
        }
        return Launch(argv=argv, env=env, files=files)

    def rewrites(self, replay: ReplayInput) -> list[Rewrite]:
        return root_rewrites(replay)

    def restores(self, replay: ReplayInput) -> dict[str, str]:
        return restores(replay)

    def finished(self, replay: ReplayInput, outcome: ProcessOutcome) -> Finished:
        uses_file = "{output}" in (replay.settings.command or "")
        if uses_file:
            output = replay.dirs.output
            answer = output.read_text(encoding="utf-8", errors="replace") if output.is_file() else ""
        else:
            answer = outcome.stdout
        if outcome.exit_code != 0:
            return Finished(
                final_output=answer.strip(),
                error=f"the harness command exited with code "
                f"{outcome.exit_code}: {outcome.stderr_tail() or 'no message'}",
            )
        return Finished(final_output=answer.strip())

    def loaded_skill(self, call: ToolCallRequest, replay: ReplayInput) -> str | None:
        if call.name in _LOADERS:
            for key in ("skill", "name"):
                value = call.arguments.get(key)
                if isinstance(value, str) and value.strip():
                    return value.split(":")[-1].strip()
        for value in call.arguments.values():
            found = skill_of_path(value) if isinstance(value, str) else None
            if found is not None and (
                call.name not in _SHELLS or shell_effect(str(value), replay.settings.read_commands) == "read"
            ):
                return found
        return None

    def builtin_effect(self, call: ToolCallRequest, replay: ReplayInput) -> BuiltinEffect:
        if call.name in _READS:
            return "read"
        if call.name in _SHELLS:
            command = call.arguments.get("command", call.arguments.get("cmd"))
            return shell_effect(command if isinstance(command, str) else "", replay.settings.read_commands)
        return "write"
