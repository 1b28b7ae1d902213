"""Prefix reuse on a local llama.cpp server: prompt tokens re-evaluated, old prompt layout vs new (ADR 0022).

Two scenarios, each a pair of requests sent back to back, so the second can reuse the first's prefix:
  agent  the agent's first request for a task under a skill, then the same under the skill with a
         one-line body edit (the text tool protocol: the tools are described in the system message)
  judge  two judge requests (nano tier, first attempt) for two different pairs
Each is sent with the old layout (text protocol and judge prompt read from git at OLD_REVISION,
the commit before the change: tools after the skill, the fence nonce in the judge prompt's first
lines) and with the new one (this checkout). The agent's system prompt (ratchet.agent.prompt) did not
change; only where the text protocol puts the tools did.

What was re-evaluated is read from the answer where the server reports it (llama.cpp's llama-server:
`timings.prompt_n` / `timings.cache_n`; OpenAI shape: `usage.prompt_tokens_details.cached_tokens`).
llama-cpp-python's server (scripts/local_model_server.sh) reports neither: give its log with
--server-log (it prints `Llama.generate: N prefix-match hit, remaining M prompt tokens to eval`).
Start that server with a chat format that keeps the system message (`--chat_format chatml`):
`--chat_format gemma` drops system messages, tools and skill included, and the benchmark says so.

Run: RATCHET_LOCAL_MODEL_URL=http://127.0.0.1:8791/v1 .venv/bin/python benchmarks/prompt_prefix.py \
       [--server-log var/local-model-server.log] [--old REVISION]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.agent.runner import run_task
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import load_project
from ratchet.core.chat import ChatRequest, ChatResponse, Message, approx_tokens
from ratchet.gate.judge_prompt import JudgePrompt, build_judge_request, judge_sections, load_judge_prompt
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.goldens.trace import Trace, load_goldens
from ratchet.llm import textproto
from ratchet.llm.live import request_kwargs
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.world.state import load_world

ROOT = Path(__file__).resolve().parents[1]
OLD_REVISION = "4356f01"  # the last commit with the old layout
TASK = "expense-report-01"
_PREFIX_LOG = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def _from_git(revision: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _old_textproto(revision: str, scratch: Path) -> ModuleType:
    file = scratch / "old_textproto.py"
    file.write_text(_from_git(revision, "ratchet/llm/textproto.py"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_textproto", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _old_judge_prompt(revision: str, scratch: Path) -> JudgePrompt:
    file = scratch / "old_judge.md"
    file.write_text(_from_git(revision, "ratchet/data/prompts/judge.md"), encoding="utf-8")
    return load_judge_prompt(file)


class _FirstRequest:
    """A ChatModel that keeps the first request and ends the task at once."""

    model_id = "capture"

    def __init__(self) -> None:
        self.request: ChatRequest | None = None

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.request = self.request or request
        return ChatResponse(message=Message(role="assistant", content="done"))


def _edited(skill: Skill) -> Skill:
    """The skill with one line in the middle of its body changed."""
    lines = skill.body.splitlines()
    filled = [i for i, line in enumerate(lines) if line.strip()]
    middle = filled[len(filled) // 2]
    lines[middle] += " Double-check this step."
    return skill.model_copy(update={"body": "\n".join(lines)})


def agent_requests() -> tuple[ChatRequest, ChatRequest]:
    project = load_project(ROOT)
    task = next(t for t in load_tasks(project.path("tasks")) if t.id == TASK)
    skills = load_skills(project.path("skills"))
    edited = {**skills, task.skill or "": _edited(skills[task.skill or ""])}
    out: list[ChatRequest] = []
    for skill_set in (skills, edited):
        world = load_world(
            project.path("world"),
            workspaces_dir=project.path("workspaces"),
            workspace=task.workspace,
            frozen_time=project.config.clock,
        )
        capture = _FirstRequest()
        run_task(
            task,
            skill_set,
            world,
            capture,
            seed=task_seed(task.id),
            frozen_time=project.config.clock,
            models={"agent": "capture"},
        )
        assert capture.request is not None
        out.append(capture.request)
    return out[0], out[1]


def _pair(golden: Trace, task_prompt: str) -> dict[str, str]:
    replay = golden.model_copy(update={"final_output": golden.final_output + "\nTotal checked twice."})
    return judge_sections(task_prompt, golden, replay, [])


def judge_requests(prompt: JudgePrompt) -> tuple[ChatRequest, ChatRequest]:
    project = load_project(ROOT)
    goldens = load_goldens(project.path("goldens"))
    tasks = {t.id: t for t in load_tasks(project.path("tasks"))}
    picked = [trace for _, trace in sorted(goldens.items()) if trace.task_id in tasks][:2]
    requests = [
        build_judge_request(
            prompt,
            _pair(trace, tasks[trace.task_id].prompt),
            pair_id=f"bench/{trace.task_id}",
            tier="nano",
            attempt=1,
            max_input_tokens=6000,
            max_output_tokens=1,
        )
        for trace in picked
    ]
    return requests[0], requests[1]


class Server:
    def __init__(self, url: str, log: Path | None) -> None:
        self.url = url.rstrip("/")
        self.log = log
        with urllib.request.urlopen(f"{self.url}/models", timeout=10) as response:
            self.model = os.environ.get("RATCHET_LOCAL_MODEL_NAME") or json.load(response)["data"][0]["id"]

    def send(self, request: ChatRequest) -> dict[str, Any]:
        """(prompt tokens, re-evaluated, seconds) for one request, max_tokens 1."""
        body = {**request_kwargs(request.model_copy(update={"max_tokens": 1})), "model": self.model}
        body.pop("response_format", None)  # a grammar costs time and changes nothing in the prompt
        mark = self.log.stat().st_size if self.log is not None else 0
        started = time.perf_counter()
        post = urllib.request.Request(
            f"{self.url}/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(post, timeout=600) as response:
            data = json.load(response)
        seconds = time.perf_counter() - started
        usage = data.get("usage") or {}
        prompt = int(usage.get("prompt_tokens") or 0)
        return {"prompt": prompt, "evaluated": self._evaluated(data, prompt, mark), "seconds": seconds}

    def _evaluated(self, data: dict[str, Any], prompt: int, mark: int) -> int:
        timings = data.get("timings") or {}
        if "prompt_n" in timings:
            return int(timings["prompt_n"])
        cached = ((data.get("usage") or {}).get("prompt_tokens_details") or {}).get("cached_tokens")
        if cached is not None:
            return prompt - int(cached)
        if self.log is None:
            raise SystemExit(
                "the server reports no cached tokens in its answer; give its log with --server-log "
                "(llama-cpp-python prints its prefix-match hits there)"
            )
        time.sleep(0.2)  # the log line is written before the answer; let the file catch up
        with self.log.open("rb") as file:
            file.seek(mark)
            new = file.read().decode("utf-8", "replace")
        hits = _PREFIX_LOG.findall(new)
        return int(hits[-1][1]) if hits else prompt


def _check_system_kept(server: Server, request: ChatRequest, sent: dict[str, Any]) -> None:
    system = sum(approx_tokens(m.content or "") for m in request.messages if m.role == "system")
    if sent["prompt"] < system // 2:
        raise SystemExit(
            f"the server counted {sent['prompt']} prompt tokens for a request whose system message alone is about "
            f"{system}: its chat format drops system messages (llama-cpp-python's `gemma` does); "
            "start it with `--chat_format chatml`"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-log", type=Path, default=os.environ.get("RATCHET_LOCAL_MODEL_LOG") or None)
    parser.add_argument("--old", default=OLD_REVISION, help="git revision with the old layout")
    args = parser.parse_args()
    url = os.environ.get("RATCHET_LOCAL_MODEL_URL")
    if not url:
        raise SystemExit("set RATCHET_LOCAL_MODEL_URL to the server's /v1 URL (e.g. http://127.0.0.1:8791/v1)")
    server = Server(url, args.server_log)
    first, edited = agent_requests()
    with tempfile.TemporaryDirectory() as scratch:
        old_proto = _old_textproto(args.old, Path(scratch))
        old_judge = _old_judge_prompt(args.old, Path(scratch))
    new_judge = load_judge_prompt(resolve_gate_config("cascade").prompt_path())
    layouts: dict[str, dict[str, tuple[ChatRequest, ChatRequest]]] = {}
    for name, to_text, prompt in (
        ("old", old_proto.to_text_request, old_judge),
        ("new", textproto.to_text_request, new_judge),
    ):
        convert: Callable[[ChatRequest], ChatRequest] = to_text
        layouts[name] = {"agent": (convert(first), convert(edited)), "judge": judge_requests(prompt)}
    print(f"server {server.url}, model {server.model}; old layout from git {args.old}")
    print(f"{'scenario':<34} {'layout':<6} {'prompt':>7} {'re-evaluated':>13} {'reused':>7} {'seconds':>8}")
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for scenario, label in (("agent", "agent: one-line skill edit"), ("judge", "judge: a second pair")):
        for name in ("old", "new"):
            before, after = layouts[name][scenario]
            warm = server.send(before)
            _check_system_kept(server, before, warm)
            sent = server.send(after)
            results[scenario, name] = sent
            reused = 1 - sent["evaluated"] / sent["prompt"]
            print(
                f"{label:<34} {name:<6} {sent['prompt']:>7} {sent['evaluated']:>13} {reused:>7.0%} "
                f"{sent['seconds']:>8.2f}"
            )
    for scenario in ("agent", "judge"):
        old, new = results[scenario, "old"], results[scenario, "new"]
        print(
            f"{scenario}: re-evaluated {old['evaluated']} -> {new['evaluated']} tokens "
            f"({old['evaluated'] / max(new['evaluated'], 1):.1f}x fewer), "
            f"time {old['seconds']:.2f}s -> {new['seconds']:.2f}s"
        )


if __name__ == "__main__":
    main()
