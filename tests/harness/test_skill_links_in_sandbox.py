"""The harness installer never copies a host file into a replay's sandbox through a skill's symlink.

A link that stays inside its skill folder is installed as a link to the same place in the copy (never back
into the repository); one that leads out is refused. End to end: `ratchet record` through the `command`
harness, with an agent that reads every file of its skills folder and sends it to the model, refuses the
skill, and nothing of the stand-in secret reaches the work area (RATCHET_HOME, its store and scratch).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.core.errors import SkillError
from ratchet.harness.sandbox import install_skills
from ratchet.skills.skill import load_skill
from tests.helpers.demo_repo import demo_project
from tests.skills.test_skill_links import LEAVES, SECRET, _host, _leaked, _skill

runner = CliRunner()

# An agent that trusts its skills folder: it reads every file under it, links followed, and writes what it
# saw to a file outside its sandbox (the sandbox is gone after the replay; what an agent sends away is not).
NOSY_AGENT = """
import os, pathlib, sys
workspace, saw = sys.argv[1:3]
seen = []
for dirpath, _dirs, files in os.walk(pathlib.Path(workspace, ".agents", "skills"), followlinks=True):
    for name in sorted(files):
        seen.append(pathlib.Path(dirpath, name).read_text(encoding="utf-8", errors="replace"))
pathlib.Path(saw).write_text("\\n".join(seen), encoding="utf-8")
print("done")
"""


def test_a_link_inside_the_skill_is_installed_as_a_link_into_the_copy(tmp_path: Path) -> None:
    folder = _skill(tmp_path / "repo" / "skills", "triage")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("# guide\n", encoding="utf-8")
    (folder / "guide.md").symlink_to("references/guide.md")
    (folder / "refs").symlink_to(folder / "references")  # absolute: copied as is, it would lead back to the repo
    (folder / "references" / "up").symlink_to("..")
    installed = install_skills({"triage": load_skill(folder)}, tmp_path / "sandbox")["triage"]
    assert os.readlink(installed / "guide.md") == "references/guide.md"
    assert os.readlink(installed / "refs") == "references"
    assert os.readlink(installed / "references" / "up") == ".."
    assert (installed / "refs" / "guide.md").read_text(encoding="utf-8") == "# guide\n"
    assert (installed / "references" / "guide.md").is_file() and not (installed / "references").is_symlink()


@pytest.mark.parametrize("link", ["references/id_rsa", "references/ssh"])
def test_the_installer_refuses_a_link_out_of_the_skill(tmp_path: Path, link: str) -> None:
    host = _host(tmp_path)
    folder = _skill(tmp_path / "repo" / "skills", "triage")
    skill = load_skill(folder)  # loaded before the link appears: the installer checks again, itself
    (folder / "references").mkdir()
    target = host / "id_rsa" if link.endswith("id_rsa") else host
    (folder / link).symlink_to(target)
    with pytest.raises(SkillError) as caught:
        install_skills({"triage": skill}, tmp_path / "sandbox")
    assert caught.value.one_line() == f"{folder / link}: symlink to {str(target)!r} {LEAVES}"
    assert _leaked(tmp_path) == []


def test_record_through_the_command_harness_refuses_and_leaks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = _host(tmp_path)
    root = demo_project(tmp_path, monkeypatch)
    agent = tmp_path / "nosy_agent.py"
    agent.write_text(NOSY_AGENT, encoding="utf-8")
    config_path = root / "ratchet.yaml"
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    config["harness"] = {
        "name": "command",
        "skills_dir": ".agents/skills",
        "command": f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))} {{workspace}} "
        f"{shlex.quote(str(tmp_path / 'agent-saw.txt'))} -- {{prompt}}",
    }
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    link = root / "skills" / "github-triage" / "id_rsa"
    link.symlink_to(host / "id_rsa")
    result = runner.invoke(app, ["record", "github-triage-01", "--project", str(root)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {link}: symlink to {str(host / 'id_rsa')!r} {LEAVES}\n"
    assert _leaked(tmp_path) == []
    assert SECRET not in result.stdout_bytes
