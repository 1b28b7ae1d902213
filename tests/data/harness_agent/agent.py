"""A small agent CLI of the kind a team writes for itself, run by Ratchet's `command` harness.

    python agent.py --workspace DIR --mcp MCP.json --base-url URL --token=T [--output FILE] -- PROMPT

It does what a hand-rolled agent does: reads the skill catalog off its workspace's skills folder
(SKILL.md frontmatter, parsed with yaml), connects to the MCP server its config names with the
official `mcp` SDK over stdio, offers the model that server's tools plus `load_skill`, and loops on
the OpenAI-compatible endpoint with the `openai` SDK, running each tool call (a skill load is
answered from the folder, anything else goes to the MCP server) until the model answers in text.

Why it imports ratchet: it is a test fixture that must be played by the simulator, so it sends the
minimal runner's `routing: model` request byte for byte (the catalog system prompt, the skill
block load_skill answers with, the tool specs, the `call_{turn}_{i}` ids), which then lets a
golden recorded through it compare with a replay through the minimal runner. The date in that
prompt is the frozen clock the command harness hands every agent (RATCHET_CLOCK, or {clock}).

`--fail` makes it misbehave for the gate's failure tests: `crash` exits 1 before any model call,
`hang` starts its MCP server and a detached child, asks the model once and then never returns,
`no-skills` offers the model an empty catalog, so it answers without loading a skill.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from openai import AsyncOpenAI

from ratchet.agent.catalog import LOAD_SKILL, answer_load, catalog_system_prompt, load_skill_spec
from ratchet.skills.skill import Skill

MAX_TURNS = 16
MAX_TOKENS = 4096
SKILLS_DIR = ".agents/skills"


def read_skill(path: Path) -> Skill | None:
    """One SKILL.md as the catalog needs it: frontmatter name and description, and the body."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        return None
    meta = yaml.safe_load("\n".join(lines[1:end])) or {}
    if not isinstance(meta, dict) or not meta.get("name") or not meta.get("description"):
        return None
    return Skill(
        name=str(meta["name"]).strip(),
        description=str(meta["description"]),
        body="\n".join(lines[end + 1 :]),
        folder=str(path.parent),
        frontmatter={str(k): str(v) for k, v in meta.items()},
        content_hash="",
        substance_hash="",
    )


def read_catalog(skills_dir: Path) -> dict[str, Skill]:
    found = (read_skill(p) for p in sorted(skills_dir.glob("*/SKILL.md")))
    return {s.name: s for s in found if s is not None}


def mcp_server(config: Path) -> dict[str, Any]:
    servers = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]
    server: dict[str, Any] = next(iter(servers.values()))
    return server


def frozen_clock(server: dict[str, Any]) -> str:
    args = [str(a) for a in server.get("args", [])]
    if "--clock" in args[:-1]:
        return args[args.index("--clock") + 1]
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def tool_text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def run(args: argparse.Namespace) -> str:
    server = mcp_server(args.mcp)
    clock = os.environ.get("RATCHET_CLOCK") or frozen_clock(server)
    skills = {} if args.fail == "no-skills" else read_catalog(args.workspace / args.skills_dir)
    params = StdioServerParameters(
        command=server["command"], args=list(server.get("args", [])), env=server.get("env") or None
    )
    client = AsyncOpenAI(base_url=f"{args.base_url}/v1", api_key=args.token, max_retries=0)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        loader = load_skill_spec()
        tools: list[Any] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description or "", "parameters": t.input_schema},
            }
            for t in listed.tools
        ]
        tools.append(
            {
                "type": "function",
                "function": {"name": loader.name, "description": loader.description, "parameters": loader.parameters},
            }
        )
        messages: list[Any] = [
            {"role": "system", "content": catalog_system_prompt(clock, skills)},
            {"role": "user", "content": args.prompt},
        ]
        for turn in range(MAX_TURNS):
            response = await client.chat.completions.create(
                model="agent", messages=messages, tools=tools, temperature=0, max_tokens=MAX_TOKENS
            )
            if args.fail == "hang":
                # A child that leaves the process group, then no answer ever: the harness must kill both.
                subprocess.Popen(["sleep", "600"], cwd=args.workspace, start_new_session=True)
                time.sleep(3600)
            message = response.choices[0].message
            if not message.tool_calls:
                return message.content or ""
            calls = [
                (f"call_{turn}_{i}", c.function.name, json.loads(c.function.arguments or "{}"))
                for i, c in enumerate(message.tool_calls)
                if c.type == "function"
            ]
            messages.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
                        for cid, name, arguments in calls
                    ],
                }
            )
            for cid, name, arguments in calls:
                if name == LOAD_SKILL:
                    content = answer_load(skills, arguments, clock)[1]
                else:
                    content = tool_text(await session.call_tool(name, arguments))
                messages.append({"role": "tool", "tool_call_id": cid, "name": name, "content": content})
    raise SystemExit(f"agent: no final answer within {MAX_TURNS} turns")


def main() -> None:
    p = argparse.ArgumentParser(prog="agent")
    p.add_argument("--workspace", type=Path, required=True)
    p.add_argument("--skills-dir", default=SKILLS_DIR)
    p.add_argument("--mcp", type=Path, required=True, help="A JSON file in the mcpServers shape.")
    p.add_argument("--base-url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--output", type=Path, default=None)
    p.add_argument("--fail", choices=["crash", "hang", "no-skills"], default=None)
    p.add_argument("prompt")
    args = p.parse_args()
    if args.fail == "crash":
        print("agent: crashing before any model call, as asked", file=sys.stderr)
        raise SystemExit(1)
    answer = asyncio.run(run(args))
    if args.output is not None:
        args.output.write_text(answer, encoding="utf-8")
    else:
        print(answer)


if __name__ == "__main__":
    main()
