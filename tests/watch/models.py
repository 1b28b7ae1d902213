"""Fake agent models for watch tests: the simulator at the same noise behind a new name, moved or not."""

from __future__ import annotations

from ratchet.agent.prompt import read_skill_block
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest
from ratchet.core.errors import ModelCallError
from ratchet.sim.agent import SimAgentModel

NEW_MODEL = "provider/agent-2"
ADDED_LINE = "I double-checked every label with the maintainers' guide."
LOOPED_TOOL = "github_get_issue"
LOOPED_ARGUMENTS = {"repo": "acme/widgets", "number": 101}


def _skill(request: ChatRequest) -> str | None:
    system = next((m.content or "" for m in request.messages if m.role == "system"), "")
    block = read_skill_block(system)
    return block[0] if block is not None else None


class NewModel:
    """The simulator at `noise`, answering as another model id; for the tasks of `moved` (a skill name), every
    final answer ends with a line of its own: a provider update that changed how that skill's answers close.
    `fails` (a skill name): every call for it fails, as an upstream that errors on some prompts. `loops` (a skill
    name): for it, every turn asks for the same tool call again, so the run never finishes (ends at the turn limit).
    Its model_id is the name asked for (the simulator's, as the noise records were measured with); only the
    answers say NEW_MODEL, as a provider's new model behind the same name does."""

    def __init__(
        self, noise: float, *, moved: str | None = None, fails: str | None = None, loops: str | None = None
    ) -> None:
        self.inner = SimAgentModel(noise=noise)
        self.moved = moved
        self.fails = fails
        self.loops = loops

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        skill = _skill(request)
        if self.fails is not None and skill == self.fails:
            raise ModelCallError(f"{NEW_MODEL}: 500 internal error")
        response = self.inner.complete(request).model_copy(update={"model": NEW_MODEL})
        if self.loops is not None and skill == self.loops:
            again = ToolCallRequest(id="again", name=LOOPED_TOOL, arguments=LOOPED_ARGUMENTS)
            return response.model_copy(update={"message": Message(role="assistant", tool_calls=[again])})
        if skill != self.moved or self.moved is None or response.message.tool_calls:
            return response
        content = f"{response.message.content or ''}\n\n{ADDED_LINE}"
        return response.model_copy(update={"message": response.message.model_copy(update={"content": content})})
