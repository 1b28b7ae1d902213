"""A live tier whose every answer is cached never imports litellm (issue 16's repeated check).

The gateway makes the tier's LiteLLMModel to learn its model id (part of the cache key); litellm,
seconds to import, comes in only with the first call that reaches the upstream.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_CALL = """
import sys
from pathlib import Path
from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.gateway import Gateway
from ratchet.core.chat import ChatRequest
from ratchet.store.db import open_store

home, run = Path(sys.argv[1]), sys.argv[2]
model = "openai/cached-model"
tiers = {"agent": TierConfig(model=model, api_base="http://127.0.0.1:9/v1")}
config = RatchetConfig(upstream="live", tiers=tiers, prices={model: Price(input=1e-6, output=2e-6)})
hello = ChatRequest.model_validate({"messages": [{"role": "user", "content": "hello"}]})
overrides = {"agent": ScriptedModel(model, ["recorded"])} if run == "record" else None
store = open_store(home)
with Gateway(Project(root=home, config=config, home=home), store, run_id=run, upstream_models=overrides) as gw:
    answer = gw.model("agent", "replay").complete(hello)
store.close()
print(answer.message.content, answer.cache_hit, "ratchet.llm.live" in sys.modules, "litellm" in sys.modules)
"""


def _call(home: Path, run: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _CALL, str(home), run], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def test_a_cached_live_answer_makes_the_model_but_imports_no_litellm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _call(home, "record") == "recorded False False False"  # a scripted upstream answered, and was cached
    assert _call(home, "replay") == "recorded True True False"  # the live model was made; litellm never imported
