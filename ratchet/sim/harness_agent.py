"""The simulated agent behind a real harness (Claude Code, Codex), read off the harness's request.

Why: a real binary runs offline only when something plays the model behind it, and that player
must be the follower the minimal runner's replays use, or a golden recorded through a harness
would gate another simulator. So a harness request is translated into the request the minimal
runner would have sent (the loaded skill's block in the system prompt, the user's prompt, bare
tool names, the results so far in order), the one follower (ratchet.sim.agent) answers that, and
its reply goes back in the harness's terms: the harness's loading tool, the internal
`mcp__<server>__<tool>` names, call ids counted over the whole conversation. Calls are counted,
never assistant messages: Claude Code merges turns that share a message id into one message.
Like the rest of the simulator it sees only the request (docs/adr/0001-simulator.md). A step that runs
a command or reads a file of the skill goes through the harness's own shell and reader when the request
offers them (Bash / Read; Codex's exec_command when its sandbox may write): ratchet/sim/harness_steps.py.

Routing reads the catalog off the request (names and descriptions, as a model is shown them) with
the matcher sim/catalog.py uses, over the project's skills only. The harness's own bundled skills
are left out, so a task routes as it does in the minimal runner: counted in, they move the idf and
"Triage acme/widgets#103 for me, it looks like a user question." routed nowhere behind Claude
Code. Claude Code's listing names no paths, so its bundled skills are known by name
(CLAUDE_CODE_BUNDLED_BY_VERSION: each tested release lists others, read off the request's cc_version;
any other release, all of them); Codex gives each skill's root, and a root outside the
working directory (<cwd>: Codex's own skills under CODEX_HOME) is not the project's.

Shapes, as captured (tests/data/harness_requests/sim/):
- Claude Code offers tool `Skill`; the catalog follows "The following skills are available for
  use with the Skill tool:" in a system message, one "- name: description" entry a line (longer
  ones go on over more lines); the sim loads with Skill {"skill": name}; the body arrives as the
  user text "Base directory for this skill: <dir>\\n\\n<body>"; a failed call reads "Error: <text>".
- Codex offers `exec_command` and sends an <environment_context> user message; the catalog is in
  <skills_instructions> ("- `r1` = `/root`" roots, "- name: description (file: r1/name/SKILL.md)"
  entries); the sim loads with exec_command {"cmd": "cat <absolute path>"}; every output opens with
  a header ending "Output:" ("Chunk ID", "Wall time", "Process exited with code N" ... lines).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

from ratchet.agent.catalog import skill_block
from ratchet.agent.prompt import PREAMBLE
from ratchet.agent.trigger import match_skill
from ratchet.core.chat import ChatRequest, Message, ToolCallRequest, ToolSpec
from ratchet.core.jsonio import canonical_dumps
from ratchet.sim.harness_steps import followed_step, harness_call, rewrite_steps, step_result, step_specs, step_tools
from ratchet.skills.skill import Skill

HarnessShape = Literal["claude-code", "codex"]

CLAUDE_SKILL_TOOL = "Skill"
CLAUDE_CATALOG = "The following skills are available for use with the Skill tool:\n\n"
CLAUDE_BODY = "Base directory for this skill: "
CLAUDE_CODE_BUNDLED = frozenset(
    {
        "claude-api",
        "code-review",
        "dataviz",
        "fewer-permission-prompts",
        "init",
        "keybindings-help",
        "loop",
        "plugin-authoring",
        "run",
        "security-review",
        "simplify",
        "update-config",
        "workflow-authoring",
    }
)
"""The skills Claude Code 2.1.332 lists of its own (bundled with the binary), by name."""
CLAUDE_CODE_BUNDLED_BY_VERSION: dict[str, frozenset[str]] = {
    "2.1.332": CLAUDE_CODE_BUNDLED,
    "2.1.197": (CLAUDE_CODE_BUNDLED - {"dataviz", "plugin-authoring", "workflow-authoring"})
    | {"deep-research", "review", "verify"},
}
"""Each tested release's own skills (ratchet/harness/versions.py): 2.1.197's deep-research, review and verify,
counted in, moved the idf so that a demo triage task routed nowhere."""
_CC_VERSION = re.compile(r"\bcc_version=(\d+\.\d+\.\d+)")
CODEX_EXEC = "exec_command"
CODEX_SKILLS = "<skills_instructions>"
_CODEX_ENV = "<environment_context>"
_MCP_NAME = re.compile(r"^mcp__(.+?)__(.+)$")
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
_CODEX_ROOT = re.compile(r"^- `([^`]+)` = `([^`]*)`$", re.M)
_CODEX_ENTRY = re.compile(r"^- (.+?): (.*) \(file: ([^()\s]+)\)$", re.M)
_CODEX_HEADER = re.compile(r"\A((?:(?!Output:)[^\n]*\n){0,8}?)Output:\n?")
_CODEX_EXIT = re.compile(r"^Process exited with code (\d+)$", re.M)
# skill_block cuts the block out of a full system prompt, which needs a moment; the block holds none.
_NO_MOMENT = "1970-01-01T00:00:00Z"


@dataclass(frozen=True)
class CatalogEntry:
    """One project skill as the harness lists it; `path` is Codex's absolute SKILL.md path."""

    name: str
    description: str
    path: str = ""


@dataclass(frozen=True)
class HarnessTurn:
    """A harness request as the follower takes it, and how its answer goes back.

    `load` is the loading call to make now (then the follower is not asked); otherwise `request`
    is the minimal runner's request for the follower and `restore` puts its reply in harness terms.
    """

    shape: HarnessShape
    request: ChatRequest
    load: Message | None
    names: Mapping[str, str]
    calls_made: int
    base_dir: str = ""
    """The loaded skill's folder as the harness names it: where a step's skill-relative paths lead."""
    offered: frozenset[str] = frozenset()

    def restore(self, message: Message) -> Message:
        """The follower's reply with internal tool names and ids unique in the conversation."""
        calls = [
            ToolCallRequest(
                id=f"call_{self.calls_made}_{i}", name=self.names.get(c.name, c.name), arguments=c.arguments
            )
            for i, c in enumerate(harness_call(c, self.shape, self.base_dir, self.offered) for c in message.tool_calls)
        ]
        return message.model_copy(update={"tool_calls": calls})


def harness_shape(request: ChatRequest) -> HarnessShape | None:
    """Which harness sent the request, from what it offers; None for the minimal runner's."""
    offered = {t.name for t in request.tools}
    if CLAUDE_SKILL_TOOL in offered:
        return "claude-code"
    if CODEX_EXEC in offered and any(
        m.role == "user" and (m.content or "").startswith(_CODEX_ENV) for m in request.messages
    ):
        return "codex"
    return None


def harness_turn(request: ChatRequest) -> HarnessTurn | None:
    """The request translated for the follower (or the load to make first); None when no harness sent it."""
    shape = harness_shape(request)
    if shape is None:
        return None
    made = [c for m in request.messages if m.role == "assistant" for c in m.tool_calls]
    answers = {m.tool_call_id: m.content or "" for m in request.messages if m.role == "tool"}
    names: dict[str, str] = {}
    tools: list[ToolSpec] = []
    for tool in request.tools:
        found = _MCP_NAME.match(tool.name)
        if found is not None and found.group(2) not in names:
            names[found.group(2)] = tool.name
            tools.append(tool.model_copy(update={"name": found.group(2)}))
    prompt = user_prompt(request)
    loads = [c for c in made if _is_load(shape, c)]
    block: str | None = None
    base_dir = ""
    offered = frozenset(t.name for t in request.tools)
    if not loads:
        entries = {e.name: e for e in catalog(shape, request)}
        picked = match_skill(prompt, {name: _as_skill(name, e.description, "") for name, e in entries.items()})
        if picked is not None:
            call = _load_call(shape, entries[picked], f"call_{len(made)}_0")
            load = Message(role="assistant", content=None, tool_calls=[call])
            return HarnessTurn(shape=shape, request=request, load=load, names=names, calls_made=len(made))
    else:
        loaded = _loaded(shape, request, loads[0], answers.get(loads[0].id))
        if loaded is not None:
            # Steps that run a command or read a skill file go through the harness's own tools (sim/harness_steps.py).
            commands, reads = step_tools(shape, request)
            body = rewrite_steps(loaded[1], commands=commands, reads=reads)
            block = skill_block(_as_skill(loaded[0], "", body), _NO_MOMENT)
            base_dir = _base_dir(shape, request, loads[0])
            tools += step_specs(commands, reads)
    messages = [
        Message(role="system", content=PREAMBLE if block is None else f"{PREAMBLE}\n\n{block}"),
        Message(role="user", content=prompt),
    ]
    for n, call in enumerate(c for c in made if not _is_load(shape, c) and c.id in answers):
        bare = _MCP_NAME.match(call.name)
        step = followed_step(shape, call) if bare is None else None
        if bare is None and step is None:
            continue  # a harness built-in the follower never asks for
        if step is not None:
            name, value = step, step_result(shape, call, answers[call.id])
        else:
            assert bare is not None
            name, value = bare.group(2), result_value(shape, answers[call.id])
        asked = ToolCallRequest(id=f"call_{n}_0", name=name, arguments=call.arguments)
        messages += [
            Message(role="assistant", content=None, tool_calls=[asked]),
            Message(role="tool", tool_call_id=asked.id, name=asked.name, content=canonical_dumps(value, indent=None)),
        ]
    followed = request.model_copy(update={"messages": messages, "tools": tools, "tool_choice": None})
    return HarnessTurn(
        shape=shape,
        request=followed,
        load=None,
        names=names,
        calls_made=len(made),
        base_dir=base_dir,
        offered=offered,
    )


def user_prompt(request: ChatRequest) -> str:
    """The user's prompt: the last user message before the first answer, the harness's reminders cut."""
    leading: list[Message] = []
    for message in request.messages:
        if message.role in ("assistant", "tool"):
            break
        leading.append(message)
    texts = [m.content or "" for m in leading if m.role == "user"]
    return _REMINDER.sub("", texts[-1]) if texts else ""


def catalog(shape: HarnessShape, request: ChatRequest) -> list[CatalogEntry]:
    """The project's skills as the harness lists them, in listing order (its bundled ones left out)."""
    systems = [m.content or "" for m in request.messages if m.role == "system"]
    if shape == "claude-code":
        text = next((s for s in systems if CLAUDE_CATALOG in s), None)
        version = next((found.group(1) for s in systems if (found := _CC_VERSION.search(s))), "")
        return [] if text is None else _claude_catalog(text, _claude_bundled(version))
    text = next((s for s in systems if CODEX_SKILLS in s), None)
    env = next(
        (m.content or "" for m in request.messages if m.role == "user" and (m.content or "").startswith(_CODEX_ENV)), ""
    )
    cwd = re.search(r"<cwd>([^<]*)</cwd>", env)
    return [] if text is None else _codex_catalog(text, cwd.group(1) if cwd else None)


def _claude_bundled(version: str) -> frozenset[str]:
    """The names a release lists of its own; for a release not tested, every name a tested one bundles."""
    known = CLAUDE_CODE_BUNDLED_BY_VERSION.get(version)
    return known if known is not None else frozenset[str]().union(*CLAUDE_CODE_BUNDLED_BY_VERSION.values())


def _claude_catalog(text: str, bundled: frozenset[str]) -> list[CatalogEntry]:
    section = text.split(CLAUDE_CATALOG, 1)[1].split("\n\n", 1)[0]
    listed: list[tuple[str, list[str]]] = []
    for line in section.split("\n"):
        name, sep, description = line.removeprefix("- ").partition(": ")
        if line.startswith("- ") and sep:
            listed.append((name, [description]))
        elif listed and line.strip():
            listed[-1][1].append(line.strip())  # a description listed over several lines
    return [CatalogEntry(name, " ".join(parts)) for name, parts in listed if name not in bundled]


def _codex_catalog(text: str, cwd: str | None) -> list[CatalogEntry]:
    block = text.split(CODEX_SKILLS, 1)[1]
    roots = {key: path.rstrip("/") for key, path in _CODEX_ROOT.findall(block)}
    entries: list[CatalogEntry] = []
    for found in _CODEX_ENTRY.finditer(block):
        head, _, rest = found.group(3).partition("/")
        path = f"{roots[head]}/{rest}" if head in roots else found.group(3)
        if cwd is None or path.startswith(cwd.rstrip("/") + "/"):
            entries.append(CatalogEntry(found.group(1), found.group(2), path))
    return entries


def _as_skill(name: str, description: str, body: str) -> Skill:
    """A catalog entry or a loaded body as the matcher and the block builder take a skill."""
    return Skill(name=name, description=description, body=body, folder="", content_hash="", substance_hash="")


def _load_call(shape: HarnessShape, entry: CatalogEntry, call_id: str) -> ToolCallRequest:
    if shape == "claude-code":
        return ToolCallRequest(id=call_id, name=CLAUDE_SKILL_TOOL, arguments={"skill": entry.name})
    return ToolCallRequest(id=call_id, name=CODEX_EXEC, arguments={"cmd": f"cat {shlex.quote(entry.path)}"})


def _is_load(shape: HarnessShape, call: ToolCallRequest) -> bool:
    if shape == "claude-code":
        return call.name == CLAUDE_SKILL_TOOL
    # Only a SKILL.md: a step's `cat` of another file of the skill is a read the follower made.
    return call.name == CODEX_EXEC and PurePosixPath(_cat_path(call)).name == "SKILL.md"


def _loaded(
    shape: HarnessShape, request: ChatRequest, call: ToolCallRequest, answer: str | None
) -> tuple[str, str] | None:
    """(name, body) of the skill the load call brought in; None when it brought none (a failed load)."""
    if answer is None or answer.startswith("Error: "):
        return None
    if shape == "claude-code":
        name = str(call.arguments.get("skill", ""))
        for message in request.messages:
            text = (message.content or "") if message.role == "user" else ""
            if CLAUDE_BODY in text:
                after = text.split(CLAUDE_BODY, 1)[1]
                body = after.split("\n\n", 1)[1] if "\n\n" in after else ""
                return name, re.split(r"\n\n(?=<system-reminder>|" + re.escape(CLAUDE_BODY) + ")", body, maxsplit=1)[0]
        return None
    header = _CODEX_HEADER.match(answer)
    exit_code = _CODEX_EXIT.search(header.group(1)) if header else None
    if header is None or (exit_code is not None and exit_code.group(1) != "0"):
        return None
    path = _cat_path(call)
    listed = next((e.name for e in catalog(shape, request) if e.path == path), None)
    return listed or PurePosixPath(path).parent.name, _without_frontmatter(answer[header.end() :])


def _base_dir(shape: HarnessShape, request: ChatRequest, load: ToolCallRequest) -> str:
    """The loaded skill's folder: Claude Code's "Base directory for this skill", the folder of Codex's SKILL.md."""
    if shape == "codex":
        return str(PurePosixPath(_cat_path(load)).parent)
    text = next(
        (m.content or "" for m in request.messages if m.role == "user" and CLAUDE_BODY in (m.content or "")), ""
    )
    return text.split(CLAUDE_BODY, 1)[1].split("\n", 1)[0].strip() if text else ""


def _cat_path(call: ToolCallRequest) -> str:
    """The file a `cat <path>` exec_command reads ('' when the command is not one)."""
    try:
        words = shlex.split(str(call.arguments.get("cmd", "")))
    except ValueError:
        return ""
    return words[1] if len(words) == 2 and words[0] == "cat" else ""


def _without_frontmatter(text: str) -> str:
    """A SKILL.md's body, split off its frontmatter as ratchet.skills.frontmatter splits it."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return text
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            return "\n".join(lines[i + 1 :])
    return text


def result_value(shape: HarnessShape, text: str) -> Any:
    """An MCP call's result as the minimal runner's follower reads it: the tool's JSON, or {"error": ...}.

    Ratchet's MCP server answers JSON text only, so a text that is not JSON is the harness's own
    refusal (Codex: "MCP tool call requires approval, ..."), an error to the follower like any other.
    """
    if shape == "claude-code":
        text = text.removeprefix("Error: ")
    else:
        header = _CODEX_HEADER.match(text)
        text = text if header is None else text[header.end() :]
    try:
        return json.loads(text)
    except ValueError:
        return {"error": text}
