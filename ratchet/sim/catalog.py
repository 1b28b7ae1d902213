"""The simulated agent as a catalog reader (`routing: model`, see ratchet/agent/catalog.py).

With a catalog in the system prompt and no skill block, the simulated agent picks a skill the
way the lexical runner would, with the trigger matcher, but over the catalog entries it reads
off the prompt (a name and a description is all a real model is shown), and calls load_skill.
Once the tool result holds the skill's block, it reads the request as if the block had been in
the system prompt and the load_skill exchange had never happened, and follows the skill exactly
as it follows a system-prompt one: same calls, same answer, one model turn more.
"""

from __future__ import annotations

from ratchet.agent.catalog import LOAD_SKILL, read_catalog
from ratchet.agent.prompt import SKILL_BLOCK
from ratchet.agent.trigger import match_skill
from ratchet.core.chat import ChatRequest, Message, ToolCallRequest
from ratchet.skills.skill import Skill


def catalog_turn(request: ChatRequest) -> tuple[Message | None, ChatRequest]:
    """(the load_skill call to make now, request), or (None, the request as the skill follower reads it).

    A request without a catalog, or with a skill block already in its system prompt, comes back as is.
    """
    system = next((m.content or "" for m in request.messages if m.role == "system"), "")
    entries = read_catalog(system)
    if entries is None or SKILL_BLOCK.search(system) is not None:
        return None, request
    loads = {c.id for m in request.messages if m.role == "assistant" for c in m.tool_calls if c.name == LOAD_SKILL}
    if not loads:
        user = next((m.content or "" for m in request.messages if m.role == "user"), "")
        picked = match_skill(user, {name: _entry(name, text) for name, text in entries.items()})
        if picked is None:
            return None, request
        turn = sum(1 for m in request.messages if m.role == "assistant")
        call = ToolCallRequest(id=f"call_{turn}_0", name=LOAD_SKILL, arguments={"name": picked})
        return Message(role="assistant", content=None, tool_calls=[call]), request
    return None, _as_prompted(request, system, loads)


def _entry(name: str, description: str) -> Skill:
    """A catalog line as the matcher takes it: the matcher reads only a skill's name and description."""
    return Skill(name=name, description=description, body="", folder="", content_hash="", substance_hash="")


def _as_prompted(request: ChatRequest, system: str, loads: set[str]) -> ChatRequest:
    """The request with the first loaded block in the system prompt and the load_skill exchange gone."""
    answers = [m.content or "" for m in request.messages if m.role == "tool" and m.tool_call_id in loads]
    block = next((found for found in map(SKILL_BLOCK.search, answers) if found is not None), None)
    messages: list[Message] = []
    for message in request.messages:
        if message.role == "system":
            content = system if block is None else f"{system}\n\n{block.group(0)}"
            messages.append(message.model_copy(update={"content": content}))
        elif message.role == "tool" and message.tool_call_id in loads:
            continue
        elif message.role == "assistant" and message.tool_calls:
            kept = [c for c in message.tool_calls if c.id not in loads]
            if kept or message.content:
                messages.append(message.model_copy(update={"tool_calls": kept}))
        else:
            messages.append(message)
    tools = [t for t in request.tools if t.name != LOAD_SKILL]
    return request.model_copy(update={"messages": messages, "tools": tools})
