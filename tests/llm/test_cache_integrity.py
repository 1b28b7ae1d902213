"""The response cache cannot be poisoned silently: a rewritten or foreign entry is a miss."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import Project
from ratchet.core.chat import ChatRequest, ChatResponse, Message
from ratchet.core.errors import ModelCallError
from ratchet.core.jsonio import digest
from ratchet.gate.check import check_edit
from ratchet.llm.cache import ResponseCache, cache_key, cache_root
from ratchet.llm.fake import ScriptedModel
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.store.db import Store
from tests.helpers.gateways import sim_gateway
from tests.helpers.gitrepo import git

EDIT = {edit.branch: edit for edit in EDITS}
ANSWER = ChatResponse(message=Message(role="assistant", content='{"verdict": "regression"}'))
KEY = cache_key("m", None, ChatRequest.model_validate({"messages": [{"role": "user", "content": "judge this"}]}))


def forge(path: Path, old: str, new: str) -> None:
    """Rewrite an entry's answer the way an attacker would: every field they can compute is right."""
    record = json.loads(path.read_text(encoding="utf-8"))
    message = record["response"]["message"]
    message["content"] = message["content"].replace(old, new)
    if "response_sha256" in record:
        record["response_sha256"] = digest(record["response"])
    path.write_text(json.dumps(record, indent=2, sort_keys=True), encoding="utf-8")


def test_a_rewritten_answer_is_a_miss_and_is_counted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cache = ResponseCache(tmp_path / "llm")
    cache.put(KEY, ANSWER)
    assert cache.get(KEY) == ANSWER
    forge(cache.path(KEY), '"regression"', '"pass"')
    with caplog.at_level(logging.WARNING, logger="ratchet.llm.cache"):
        assert cache.get(KEY) is None
    assert cache.rejected == 1
    assert [r.getMessage() for r in caplog.records] == [
        f"cache entry {cache.path(KEY)} failed its integrity check (tampered, or written under another key file);"
        " treated as a miss and asked again"
    ]
    cache.put(KEY, ANSWER)  # re-recording heals it
    assert cache.get(KEY) == ANSWER


def test_an_entry_from_another_work_area_is_a_miss(tmp_path: Path) -> None:
    theirs = ResponseCache(tmp_path / "theirs")
    theirs.put(KEY, ANSWER)
    ours = ResponseCache(tmp_path / "ours")
    ours.put(cache_key("other", None, ChatRequest(messages=[])), ANSWER)  # our key file exists
    ours.path(KEY).parent.mkdir(parents=True, exist_ok=True)
    ours.path(KEY).write_bytes(theirs.path(KEY).read_bytes())
    assert ours.get(KEY) is None
    assert ours.rejected == 1


def test_an_entry_moved_to_another_request_is_a_miss(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    other = cache_key("m2", None, ChatRequest(messages=[]))
    cache.put(other, ANSWER)
    record = json.loads(cache.path(other).read_text(encoding="utf-8"))
    record["key"] = KEY
    cache.path(KEY).parent.mkdir(parents=True, exist_ok=True)
    cache.path(KEY).write_text(json.dumps(record), encoding="utf-8")
    assert cache.get(KEY) is None


def test_the_key_file_is_made_once_private_and_reused(tmp_path: Path) -> None:
    first = ResponseCache(tmp_path)
    first.put(KEY, ANSWER)
    key_file = tmp_path / ".key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    secret = key_file.read_bytes()
    assert len(secret) == 32
    assert ResponseCache(tmp_path).get(KEY) == ANSWER  # a new process reads the same key
    assert key_file.read_bytes() == secret
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [".key"]  # no temp file left


def test_a_bad_key_file_makes_every_entry_a_miss_not_a_crash(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(KEY, ANSWER)
    (tmp_path / ".key").write_bytes(b"short")
    fresh = ResponseCache(tmp_path)
    assert fresh.get(KEY) is None
    fresh.put(KEY, ANSWER)  # cannot be signed: not recorded, and never a traceback
    assert fresh.get(KEY) is None


def test_unreadable_entries_are_misses_never_tracebacks(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    path = cache.path(KEY)
    path.mkdir(parents=True)  # a directory where the entry should be
    assert cache.get(KEY) is None
    cache.put(KEY, ANSWER)  # cannot replace a directory: not recorded, no traceback
    assert cache.get(KEY) is None
    path.rmdir()
    path.write_bytes(b"\xff\xfe not utf-8")
    assert cache.get(KEY) is None
    path.write_text("[1, 2]", encoding="utf-8")
    assert cache.get(KEY) is None
    if os.geteuid() != 0:  # root reads a 000 file anyway
        cache.put(KEY, ANSWER)
        path.chmod(0)
        assert cache.get(KEY) is None


def test_cache_mode_none_fails_closed_on_a_tampered_entry(sim_project: Project, store: Store) -> None:
    request = ChatRequest(messages=[Message(role="user", content="judge this")])
    fake = ScriptedModel("sim/nano", [ANSWER])
    sim_gateway(sim_project, store, run_id="a", upstream_models={"nano": fake}).model("nano", "x").complete(request)
    (entry,) = cache_root(sim_project.home).rglob("*.json")
    forge(entry, '"regression"', '"pass"')
    gw = sim_gateway(sim_project, store, run_id="b", cache_mode="none", upstream_models={"nano": fake})
    with pytest.raises(ModelCallError, match="cache mode 'none'"):
        gw.model("nano", "x").complete(request)
    assert len(fake.requests) == 1


def test_rewritten_judge_answers_cannot_turn_a_block_into_a_pass(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    cascade = resolve_gate_config("cascade")
    assert check_edit(demo_repo, base=base, head="edit/changed-argument", config=cascade).decision == "BLOCK"
    judged = [
        path
        for path in sorted(cache_root(demo_repo / ".ratchet").rglob("*.json"))
        if '\\"verdict\\": \\"regression\\"' in path.read_text(encoding="utf-8")
    ]
    assert judged, "the judges' answers were cached"
    for path in judged:
        forge(path, '"verdict": "regression"', '"verdict": "pass"')
    verdict = check_edit(demo_repo, base=base, head="edit/changed-argument", config=cascade)
    assert verdict.decision == "BLOCK", verdict.summary
