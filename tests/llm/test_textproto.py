"""The text tool-call protocol, alone and through the gateway."""

from __future__ import annotations

from ratchet.config.project import Project, TierConfig
from ratchet.core.chat import ChatRequest
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.textproto import first_call, to_text_request
from ratchet.store.db import Store
from tests.helpers.gateways import sim_gateway

TOOLS = [
    {"name": "fx_rate", "description": "FX rate", "parameters": {"type": "object"}},
    {"name": "send_email", "description": "send"},
]


def test_first_call_only_and_only_offered_tools() -> None:
    text = (
        'Sure. ```json\n{"name": "nope", "arguments": {}}\n``` then {"name": "fx_rate", "arguments": {"pair": "EURUSD"}}'
        ' and {"name": "send_email", "arguments": {"to": "x"}}'
    )
    call = first_call(text, {"fx_rate", "send_email"})
    assert call is not None and (call.name, call.arguments) == ("fx_rate", {"pair": "EURUSD"})
    assert first_call("The rate is 1.08. {not json", {"fx_rate"}) is None


def test_history_is_replayed_as_text() -> None:
    request = ChatRequest.model_validate(
        {
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "rate?"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "name": "fx_rate", "arguments": {"pair": "EURUSD"}}]},
                {"role": "tool", "tool_call_id": "c1", "name": "fx_rate", "content": "1.08"},
            ],
            "tools": TOOLS,
            "tool_choice": "auto",
        }
    )
    wire = to_text_request(request)
    assert wire.tools == [] and wire.tool_choice is None
    assert wire.messages[0].content is not None and wire.messages[0].content.endswith("\n\nBe brief.")
    assert "- fx_rate: FX rate" in wire.messages[0].content
    assert wire.messages[2].content == '{"arguments":{"pair":"EURUSD"},"name":"fx_rate"}'
    assert (wire.messages[3].role, wire.messages[3].content) == ("user", "Result of fx_rate:\n1.08")


def test_gateway_uses_text_protocol_when_configured(sim_project: Project, store: Store) -> None:
    tiers = dict(sim_project.config.tiers)
    tiers["agent"] = tiers["agent"].model_copy(update={"tool_protocol": "text"})
    project = sim_project.model_copy(update={"config": sim_project.config.model_copy(update={"tiers": tiers})})
    assert isinstance(project.config.tiers["agent"], TierConfig)
    fake = ScriptedModel("local/gemma", ['I will check. {"name": "fx_rate", "arguments": {"pair": "EURUSD"}}'])
    gw = sim_gateway(project, store, run_id="t", upstream_models={"agent": fake})
    out = gw.model("agent", "replay").complete(
        ChatRequest.model_validate({"messages": [{"role": "user", "content": "rate?"}], "tools": TOOLS})
    )
    assert fake.requests[0].tools == [] and "fx_rate" in (fake.requests[0].messages[0].content or "")
    (call,) = out.message.tool_calls
    assert (call.name, call.arguments, out.finish_reason) == ("fx_rate", {"pair": "EURUSD"}, "tool_calls")


def test_tools_come_before_the_system_prompt_so_a_skill_edit_keeps_them_in_the_cached_prefix() -> None:
    def wire(system: str) -> str:
        request = ChatRequest.model_validate(
            {"messages": [{"role": "system", "content": system}, {"role": "user", "content": "rate?"}], "tools": TOOLS}
        )
        return to_text_request(request).messages[0].content or ""

    before, after = wire("Preamble.\n\nSkill body, step 1."), wire("Preamble.\n\nSkill body, step 1 edited.")
    tools = before.index("- send_email: send")
    assert tools < before.index("Preamble.") and before.endswith("Skill body, step 1.")
    shared = len(_common([before, after]))
    assert shared > before.index("Skill body") > tools


def _common(texts: list[str]) -> str:
    """The longest common leading string (the prefix a prompt cache can reuse)."""
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]
