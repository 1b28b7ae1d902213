"""The mocked world: state loaded from YAML, a frozen clock, volatile facts, and tool packs."""

from ratchet.world.state import World, load_world

__all__ = ["World", "load_world"]
