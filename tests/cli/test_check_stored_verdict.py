"""A repeat `ratchet check` of the same inputs answers from the verdict stored the first time, named as such.

The key (ratchet.gate.verdict_store) is the base and head commits (or the index), the options that change the
answer, a gate config kept outside the repository and Ratchet's version; any change of one is a fresh check.
A verdict with a pair that could not be checked (an error, or stopped by the budget) is never stored, and a
corrupt entry is a miss, never an error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ratchet
from ratchet.cli import app
from ratchet.cli.stored import store_verdict
from ratchet.gate import verdict_store
from ratchet.gate.models import PairOutcome, Verdict
from tests.helpers.gitrepo import commit, make_repo, stage

runner = CliRunner()
STORED = "answered from a stored verdict of "
SELECTED = "routed"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RATCHET_VERDICT_CACHE", "on")
    made = make_repo(tmp_path, {"README.md": "no skills here\n"})
    commit(made, {"notes.md": "an edit\n"}, "edit")
    return made


def _check(repo: Path, *flags: str) -> tuple[int, str, str]:
    level0 = [] if "--config" in flags else ["--level0-only"]  # --level0-only is the config level0_only
    result = runner.invoke(app, ["check", "--repo", str(repo), "--base", "main~1", "--json", *level0, *flags])
    return result.exit_code, result.stdout, result.stderr


def _entries() -> list[Path]:
    from ratchet.config.env import read_env

    home = read_env().home
    assert home is not None
    return sorted((home / verdict_store.FOLDER).glob("*.json"))


def test_a_repeat_answers_from_the_stored_verdict_named_and_otherwise_identical(repo: Path) -> None:
    code, fresh, err = _check(repo)
    assert (code, err) == (0, "")
    code, again, err = _check(repo)
    assert code == 0
    assert err.startswith(STORED) and err.rstrip().endswith("--no-verdict-cache checks afresh")
    served = json.loads(again)
    assert served.pop("answered_from").startswith("a stored verdict of ")
    assert served == json.loads(fresh)


def test_no_verdict_cache_checks_afresh(repo: Path) -> None:
    _check(repo)
    code, out, err = _check(repo, "--no-verdict-cache")
    assert (code, err) == (0, "")
    assert "answered_from" not in json.loads(out)


@pytest.mark.parametrize("flags", [["--on-error", "warn"], ["--budget", "0.5"], ["--cache", "new"]])
def test_another_option_is_a_fresh_check(repo: Path, flags: list[str]) -> None:
    _check(repo)
    code, out, err = _check(repo, *flags)
    assert (code, err) == (0, "")
    assert "answered_from" not in json.loads(out)


@pytest.mark.parametrize("mode", ["new", "none", "all"])
def test_cache_modes_other_than_once_neither_read_nor_store(repo: Path, mode: str) -> None:
    _check(repo, "--cache", mode)
    _check(repo, "--cache", mode)
    assert _entries() == []


def test_another_head_is_a_fresh_check(repo: Path) -> None:
    _check(repo)
    commit(repo, {"notes.md": "another edit\n"}, "another")
    _, out, err = _check(repo)
    assert err == "" and "answered_from" not in json.loads(out)


def test_the_index_is_the_head_of_a_staged_check(repo: Path) -> None:
    staged = ["--staged"]
    _check(repo, *staged)
    assert _check(repo, *staged)[2].startswith(STORED)
    stage(repo, {"more.md": "staged\n"})
    assert _check(repo, *staged)[2] == ""


def test_another_version_of_ratchet_is_a_fresh_check(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(repo)
    monkeypatch.setattr(ratchet, "__version__", "99.0.0")
    assert _check(repo)[2] == ""


def test_a_config_outside_the_repository_is_keyed_by_its_content(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "gates" / "mine.yaml"
    outside.parent.mkdir()
    packaged = (Path(ratchet.__file__).parent / "data" / "configs" / "level0_only.yaml").read_text(encoding="utf-8")
    outside.write_text(packaged, encoding="utf-8")
    assert _check(repo, "--config", str(outside))[:3:2] == (0, "")
    assert _check(repo, "--config", str(outside))[2].startswith(STORED)
    outside.write_text(packaged + "# edited\n", encoding="utf-8")
    assert _check(repo, "--config", str(outside))[2] == ""


def test_a_corrupt_entry_is_ignored_and_replaced(repo: Path) -> None:
    _check(repo)
    (entry,) = _entries()
    entry.write_text('{"schema": 1, "key": ', encoding="utf-8")
    code, out, err = _check(repo)
    assert (code, err) == (0, "")
    assert "answered_from" not in json.loads(out)
    assert _check(repo)[2].startswith(STORED)  # the fresh check stored its verdict again


def test_stored_verdicts_can_be_turned_off(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_VERDICT_CACHE", "off")
    _check(repo)
    assert _check(repo)[2] == ""
    assert _entries() == []


@pytest.mark.parametrize("decided_by", ["budget", "error"])
def test_a_verdict_with_a_pair_not_checked_is_never_stored(repo: Path, decided_by: str) -> None:
    key = verdict_store.store_key(
        repo, base="main~1", head=None, staged=False, home_for=lambda root: root / ".home", options={}
    )
    assert key is not None
    unchecked = PairOutcome.model_validate(
        {
            "task_id": "t-01",
            "golden_skill": "s",
            "selected_because": SELECTED,
            "outcome": "error",
            "decided_by": decided_by,
            "reason": "stopped",
        }
    )
    commits = {"base": key.base, "head": key.head}
    store_verdict(key, Verdict(**commits, skills_changed=[], decision="WARN", summary="", pairs=[unchecked]), None)
    assert verdict_store.load(key) is None
    store_verdict(key, Verdict(**commits, skills_changed=[], decision="PASS", summary=""), None)
    assert verdict_store.load(key) is not None  # the same key stores a verdict whose pairs were all checked


def test_a_verdict_is_stored_only_under_the_commits_it_checked(repo: Path) -> None:
    """A ref that moves between reading the key and the check must not store the new commit's verdict under
    the old commit's key (a BLOCK commit later answered with the other's PASS)."""
    from ratchet.gate.check import check_edit

    key = verdict_store.store_key(
        repo, base="main~1", head="HEAD", staged=False, home_for=lambda root: root / ".home", options={}
    )
    assert key is not None
    commit(repo, {"notes.md": "moved on\n"}, "moved")  # HEAD moves after the key was read, before the check
    verdict = check_edit(repo, base="main~1", head="HEAD", config="level0_only")
    store_verdict(key, verdict, None)
    assert verdict_store.load(key) is None
    checked = check_edit(repo, base=key.base, head=key.head, config="level0_only")
    store_verdict(key, checked, None)  # the check given the key's own commits is stored
    assert verdict_store.load(key) is not None


def test_a_staged_verdict_is_not_stored_when_the_index_changed_during_the_check(repo: Path) -> None:
    from ratchet.gate.check import check_edit

    key = verdict_store.store_key(
        repo, base="main~1", head=None, staged=True, home_for=lambda root: root / ".home", options={}
    )
    assert key is not None
    stage(repo, {"more.md": "staged meanwhile\n"})
    store_verdict(key, check_edit(repo, base=key.base, staged=True, config="level0_only"), None)
    assert verdict_store.load(key) is None


def _forge_block(entry: Path) -> None:
    raw = json.loads(entry.read_text(encoding="utf-8"))
    raw["verdict"]["decision"] = "BLOCK"
    entry.write_text(json.dumps(raw), encoding="utf-8")


def test_an_edited_entry_is_a_miss_and_the_check_runs_afresh(repo: Path) -> None:
    _check(repo)
    (entry,) = _entries()
    _forge_block(entry)  # a PASS rewritten by anyone who can write the work area
    code, out, err = _check(repo)
    assert (code, err) == (0, "")
    assert "answered_from" not in json.loads(out)


def test_a_symlinked_entry_is_a_miss(repo: Path, tmp_path: Path) -> None:
    _check(repo)
    (entry,) = _entries()
    elsewhere = tmp_path / "elsewhere.json"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert _check(repo)[2] == ""


def test_a_symlinked_verdicts_folder_is_a_miss(repo: Path, tmp_path: Path) -> None:
    _check(repo)
    (entry,) = _entries()
    folder = entry.parent
    folder.rename(tmp_path / "elsewhere")
    folder.symlink_to(tmp_path / "elsewhere")
    assert _check(repo)[2] == ""


def test_moving_the_work_area_key_clears_stored_verdicts(repo: Path) -> None:
    from ratchet.config.env import read_env
    from ratchet.llm.cache import KEY_FILE, cache_root

    _check(repo)
    home = read_env().home
    assert home is not None
    key_file = cache_root(home) / KEY_FILE
    key_file.rename(key_file.with_name("old.key"))
    assert _check(repo)[2] == ""


def test_the_store_is_in_the_checks_own_work_area(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--work` is taken as the check takes it (no `~` expansion of a quoted path): wiping that area clears
    the stored verdicts, and nothing is stored anywhere else."""
    import shutil

    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.chdir(tmp_path)
    _check(repo, "--work", "~/area")
    assert (tmp_path / "~" / "area" / verdict_store.FOLDER).is_dir()
    assert not (tmp_path / "user").exists()
    shutil.rmtree(tmp_path / "~")
    assert _check(repo, "--work", "~/area")[2] == ""


def test_a_named_folder_is_walked_no_further_than_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "named"
    folder.mkdir()
    for n in range(6):
        (folder / f"f{n}.md").write_text("x", encoding="utf-8")
    monkeypatch.setattr(verdict_store, "_MAX_NAMED_FILES", 2)
    real = Path.rglob
    seen: list[Path] = []

    def counted(self: Path, pattern: str) -> object:
        for found in real(self, pattern):
            seen.append(found)
            yield found

    monkeypatch.setattr(Path, "rglob", counted)
    assert verdict_store._files_under(folder) is None
    assert len(seen) == 3
