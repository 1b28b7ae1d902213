"""A Gateway as the product builds one: handed the simulator, which answers when upstream is sim."""

from __future__ import annotations

from typing import Any

from ratchet.llm.gateway import Gateway
from ratchet.sim.models import SIMULATOR


def sim_gateway(*args: Any, **kwargs: Any) -> Gateway:
    kwargs.setdefault("simulator", SIMULATOR)
    return Gateway(*args, **kwargs)
