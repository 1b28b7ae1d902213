from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.world import World, load_world

from .conftest import CLOCK, REPO


def test_bench_world_merges_files_and_marks_fx_rates_volatile(bench_world: World) -> None:
    assert "acme/widgets" in bench_world.data["github"]["repos"]
    assert bench_world.is_volatile("fx.rates.2026-10-09.EUR")
    assert not bench_world.is_volatile("github.repos.acme/widgets.issues.101")
    assert "weekend.csv" in bench_world.files
    assert all(isinstance(day, str) for day in bench_world.data["fx"]["rates"])


def test_no_rates_on_weekends(bench_world: World) -> None:
    assert "2026-10-10" not in bench_world.data["fx"]["rates"]
    assert "2026-10-11" not in bench_world.data["fx"]["rates"]


def test_digest_is_stable_and_moves_with_an_overlay(tmp_path: Path) -> None:
    def load(*overlays: Path) -> World:
        return load_world(
            REPO / "bench/world", workspaces_dir=None, workspace=None, frozen_time=CLOCK, overlays=overlays
        )

    overlay = tmp_path / "drift.yaml"
    overlay.write_text('fx:\n  rates:\n    "2026-10-09": {EUR: 1.1111}\n')
    moved = load(overlay)
    assert load().digest() == load().digest()
    assert moved.digest() != load().digest()
    assert moved.data["fx"]["rates"]["2026-10-09"]["EUR"] == 1.1111
    assert moved.data["fx"]["rates"]["2026-10-09"]["GBP"] == load().data["fx"]["rates"]["2026-10-09"]["GBP"]


def test_digest_covers_workspace_files() -> None:
    a = load_world(
        REPO / "bench/world", workspaces_dir=REPO / "bench/workspaces", workspace="fx-toronto", frozen_time=CLOCK
    )
    b = load_world(
        REPO / "bench/world", workspaces_dir=REPO / "bench/workspaces", workspace="fx-cdmx", frozen_time=CLOCK
    )
    assert a.digest() != b.digest()


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("people:\n  - handle: x\n  name: [unclosed\n")
    with pytest.raises(InputError) as info:
        load_world(tmp_path, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert "bad.yaml:" in info.value.one_line()
    assert info.value.line is not None


def test_missing_workspace_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="workspace 'nope' not found"):
        load_world(REPO / "bench/world", workspaces_dir=tmp_path, workspace="nope", frozen_time=CLOCK)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("github: lots of issues\n", "world section 'github' must be a mapping, not a string"),
        ("github:\n  repos: [a, b]\n", "world key github.repos must be a mapping, not a list"),
        ("people: {dana: x}\n", "world section 'people' must be a list, not a mapping"),
        ("mine: 3\n", "world section 'mine' must be a mapping or a list, not int"),
        ("github:\n", "world section 'github' must be a mapping, not empty"),
    ],
)
def test_a_section_of_the_wrong_shape_names_its_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "github.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_world(tmp_path, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert info.value.one_line() == f"{tmp_path / 'github.yaml'}: {message}"


def test_the_world_knows_which_files_each_section_came_from(tmp_path: Path) -> None:
    overlay = tmp_path / "drift.yaml"
    overlay.write_text('fx:\n  rates:\n    "2026-10-09": {EUR: 1.1111}\n')
    world = load_world(REPO / "bench/world", workspaces_dir=None, workspace=None, frozen_time=CLOCK, overlays=[overlay])
    assert world.sources["fx"] == (str(REPO / "bench/world/fx.yaml"), str(overlay))
    assert world.copy().sources == world.sources
