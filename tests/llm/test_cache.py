"""The cache key covers what changes the answer, in canonical order, and nothing else."""

from __future__ import annotations

from pathlib import Path

from ratchet.core.chat import ChatRequest, ChatResponse, Message
from ratchet.llm.cache import ResponseCache, cache_key

BASE = {
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [
        {
            "name": "t",
            "description": "d",
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        }
    ],
    "response_format": {"type": "json_object", "schema": {"type": "object", "required": ["x"]}},
    "max_tokens": 100,
    "temperature": 0.0,
    "seed": 1,
}


def key(model: str = "m", base: str | None = "http://h/v1", **changes: object) -> str:
    return cache_key(model, base, ChatRequest.model_validate({**BASE, **changes}))


def test_reordered_keys_hit() -> None:
    reordered = {
        "seed": 1,
        "max_tokens": 100,
        "temperature": 0.0,
        "response_format": {"schema": {"required": ["x"], "type": "object"}, "type": "json_object"},
        "tools": [
            {
                "parameters": {"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "type": "object"},
                "description": "d",
                "name": "t",
            }
        ],
        "messages": [{"content": "hi", "role": "user"}],
    }
    assert cache_key("m", "http://h/v1", ChatRequest.model_validate(reordered)) == key()
    assert key(base="http://h/v1/") == key()  # a trailing slash is not a different server


def test_each_answer_changing_field_misses() -> None:
    variants = [
        key(model="m2"),
        key(base="http://other/v1"),
        key(temperature=0.5),
        key(seed=2),
        key(max_tokens=101),
        key(tools=[]),
        key(tool_choice="auto"),
        key(response_format=None),
        key(messages=[{"role": "user", "content": "hi!"}]),
    ]
    assert len({key(), *variants}) == len(variants) + 1


def test_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    k = key()
    resp = ChatResponse(message=Message(role="assistant", content="x"))
    cache.put(k, resp)
    assert cache.get(k) == resp
    cache.path(k).write_text("{not json")
    assert cache.get(k) is None
    cache.path(k).write_text('{"schema_version": 1, "key": "other", "response": {}}')
    assert cache.get(k) is None
    cache.path(k).write_bytes(b"\xff\xfe")
    assert cache.get(k) is None
    cache.put(k, resp)
    assert cache.get(k) == resp
