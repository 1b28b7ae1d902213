"""A project's ratchet.yaml turned live, with every tier on one loopback base, for preflight tests.

    set_live_tiers(root, base)           # rewrite root/ratchet.yaml: upstream live, tiers at `base`
    live_tiers_text(text, base)          # the same, on the text (to commit it at a base revision)
    down_line(base), unlisted_line(base) # the one `error:` line each failure prints

A closed port (`closed_port()`) is a base that refuses at once; tests/helpers/fake_openai.py's
FakeOpenAI(listed=("other-model",)) is one that answers but does not serve MODEL.
"""

from __future__ import annotations

import socket
from pathlib import Path

import yaml

MODEL = "openai/fake-model"
TIERS = ("agent", "nano", "super", "ultra", "injector")


def closed_port() -> int:
    """A local port nobody listens on: connecting to it is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def live_tiers_text(text: str, api_base: str) -> str:
    config = yaml.safe_load(text) or {}
    config["upstream"] = "live"
    config["tiers"] = {name: {"model": MODEL, "api_base": api_base, "max_tokens": 64} for name in TIERS}
    config["prices"] = {MODEL: {"input": 0.0000001, "output": 0.0000002}}  # a live build's estimate stays under the cap
    return yaml.safe_dump(config, sort_keys=False)


def set_live_tiers(root: Path, api_base: str) -> None:
    path = root / "ratchet.yaml"
    path.write_text(live_tiers_text(path.read_text(encoding="utf-8"), api_base), encoding="utf-8")


def down_line(api_base: str, tier: str = "agent") -> str:
    return (
        f"error: tier {tier}: cannot reach {api_base} (connection refused); start the server or fix the "
        "tier's api_base in ratchet.yaml\n"
    )


def unlisted_line(api_base: str, tier: str = "agent") -> str:
    return (
        f"error: tier {tier}: {api_base} does not serve 'fake-model' (it lists other-model); set the tier's "
        "model in ratchet.yaml to a listed one, or serve that model\n"
    )
