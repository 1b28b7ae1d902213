"""bench run and bench smoke check every gate config's judge tiers when it is loaded, as `ratchet check` does.

`agent` runs the tasks and is never a judge; a tier ratchet.yaml does not configure cannot be called.
Either is the check's one-line exit-2 error naming the config file, before anything is priced or run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bench.run.run import SMOKE_DIR
from ratchet.bench.run.smoke import run_smoke
from ratchet.cli import app
from ratchet.core.errors import ConfigError

KNOWN = "injector, nano, super, ultra"
AGENT = f"tier 'agent' runs the tasks and is never a judge: name a judge tier ({KNOWN})"


def _mine(root: Path, tier: str) -> Path:
    path = root / "configs" / "mine.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"schema_version: 1\nname: mine\ntiers:\n  - tier: {tier}\n    threshold: 0.0\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("tier", "message"),
    [
        ("agent", AGENT),
        (
            "mega",
            f"unknown judge tier 'mega' (ratchet.yaml configures: {KNOWN}): add it under tiers: in ratchet.yaml "
            "or name a configured tier",
        ),
    ],
    ids=["agent", "unknown"],
)
def test_bench_run_refuses_a_config_whose_judge_tier_cannot_judge(mini: Path, tier: str, message: str) -> None:
    path = _mine(mini, tier)
    out = mini / "out"
    ran = CliRunner().invoke(app, ["bench", "run", "--config", "mine", "--root", str(mini), "--out", str(out)])
    assert (ran.exit_code, ran.stdout, ran.stderr) == (2, "", f"error: {path}: {message}\n")
    assert not out.exists()


def test_bench_smoke_checks_every_config_before_building_or_running_any(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _mine(mini, "agent")
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with pytest.raises(ConfigError) as info:
        run_smoke(mini, configs=("cascade", "mine"))
    assert info.value.one_line() == f"{path}: {AGENT}"
    assert not (mini / SMOKE_DIR).exists(), "nothing built or run before the bad config was found"
    # The smoke runs on the simulator, and leaves the process as it found it (a later run here is not silently sim).
    assert os.environ["RATCHET_UPSTREAM"] == "live"
