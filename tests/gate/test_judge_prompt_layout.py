"""The judge prompt is laid out for prefix caching: the rubric first, the per-call nonce after it (ADR 0022).

The nonce is still declared in the trusted system message, before the fenced data in the user message."""

from __future__ import annotations

from ratchet.config.gate import resolve_gate_config
from ratchet.core.chat import ChatRequest
from ratchet.core.fence import fence_token
from ratchet.gate.judge_prompt import build_judge_request, judge_sections, load_judge_prompt
from ratchet.gate.level0 import level0_findings
from tests.gate.judge_fakes import make_task, make_trace

PROMPT = load_judge_prompt(resolve_gate_config("cascade").prompt_path())


def _request(pair_id: str, replay_output: str) -> ChatRequest:
    golden = make_trace("Total: 10.00 EUR", [("read_csv", {"path": "a.csv"}, "read")])
    replay = make_trace(replay_output, [("read_csv", {"path": "b.csv"}, "read")])
    sections = judge_sections(make_task().prompt, golden, replay, level0_findings(golden, replay))
    return build_judge_request(
        PROMPT, sections, pair_id=pair_id, tier="nano", attempt=1, max_input_tokens=8000, max_output_tokens=300
    )


def test_two_pairs_share_the_whole_rubric_and_differ_only_from_the_fence_declaration() -> None:
    one, two = _request("edit1/t1", "Total: 12.50 EUR"), _request("edit2/t7", "Total: 99.00 EUR")
    system_one, system_two = one.messages[0].content or "", two.messages[0].content or ""
    assert fence_token(system_one) != fence_token(system_two)
    shared = len(_common([system_one, system_two]))
    declared = system_one.index("Fence token: ")
    assert shared >= declared  # nothing before the declaration varies per call
    assert declared > 0.8 * len(system_one)  # and the declaration is the short tail, the rubric comes first
    assert "{{nonce}}" not in PROMPT.system[: PROMPT.system.index("Fence token: {{nonce}}")]


def test_the_nonce_is_still_declared_in_trusted_text_before_the_data() -> None:
    request = _request("edit1/t1", "Total: 12.50 EUR")
    system, user = request.messages[0].content or "", request.messages[1].content or ""
    nonce = fence_token(system)
    assert nonce is not None and [m.role for m in request.messages] == ["system", "user"]
    tail = system[system.index("Fence token: ") :]
    assert f"<<<BEGIN {nonce} name>>>" in tail and "untrusted" in tail
    assert user.startswith(f"<<<BEGIN {nonce} task>>>")


def test_the_packaged_prompt_is_a_new_version() -> None:
    assert PROMPT.version == "judge-v4"


def _common(texts: list[str]) -> str:
    """The longest common leading string (the prefix a prompt cache can reuse)."""
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]
