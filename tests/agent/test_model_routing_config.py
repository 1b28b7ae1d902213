"""ratchet.yaml `routing` and `routing_neighbours`: how the minimal runner routes, and how far selection looks."""

from __future__ import annotations

import pytest

from ratchet.config.project import RatchetConfig, parse_config
from ratchet.core.errors import ConfigError


def test_routing_defaults_to_lexical_with_three_neighbours() -> None:
    config = RatchetConfig()
    assert (config.routing, config.routing_neighbours) == ("lexical", 3)


def test_routing_model_and_neighbours_come_from_ratchet_yaml() -> None:
    config = parse_config("routing: model\nrouting_neighbours: 1\n", source="ratchet.yaml")
    assert (config.routing, config.routing_neighbours) == ("model", 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("routing: semantic\n", "ratchet.yaml: routing: Input should be 'lexical' or 'model'"),
        ("routing_neighbours: -1\n", "ratchet.yaml: routing_neighbours: Input should be greater than or equal to 0"),
        ("routing_neighbors: 2\n", "ratchet.yaml: routing_neighbors: Extra inputs are not permitted"),
    ],
)
def test_a_bad_routing_setting_is_one_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="ratchet.yaml")
    assert caught.value.one_line() == message
