"""A symlink that leads out of a skill folder: validate errors, record, noise and check refuse it, and
nothing of the file it points at reaches the work area (issue 22, "no host file reaches a sandbox").

The stand-in for a host secret (`~/.ssh/id_rsa`) is a file outside the repository holding a unique
string; after each run every regular file under the test's folder (the repository, RATCHET_HOME and
its scratch folders) is read, and the string must be in none of them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.core.errors import SkillError
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import validate_skill_folder
from tests.helpers.gitrepo import git

runner = CliRunner()
SECRET = b"SENTINEL-host-secret-5c1e0a9f"
LEAVES = "leads outside the skill folder: put the file itself in the folder (a replay never gets a file from outside the skill)"


def _host(tmp_path: Path) -> Path:
    """A folder outside every repository of the test, holding the stand-in secret."""
    host = tmp_path / "host"
    host.mkdir(exist_ok=True)
    (host / "id_rsa").write_bytes(b"-----BEGIN OPENSSH PRIVATE KEY-----\n" + SECRET + b"\n")
    return host


def _leaked(tmp_path: Path) -> list[str]:
    """Every regular file under tmp_path (the host folder aside) whose bytes hold the secret."""
    found = []
    for dirpath, dirnames, filenames in os.walk(tmp_path):  # links are not followed: a link is not a copy
        dirnames[:] = [d for d in dirnames if Path(dirpath, d) != tmp_path / "host"]
        for name in filenames:
            path = Path(dirpath, name)
            if not path.is_symlink() and SECRET in path.read_bytes():
                found.append(str(path.relative_to(tmp_path)))
    return found


def _skill(root: Path, name: str, body: str = "Body\n") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n{body}", encoding="utf-8")
    return folder


# --- validate and loading ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["absolute", "relative", "folder", "skill-md"])
def test_validate_errors_on_a_link_out_of_the_skill_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    host = _host(tmp_path)
    project = tmp_path / "proj"
    folder = _skill(project / "skills", "triage")
    (folder / "references").mkdir()
    link, target = {
        "absolute": ("references/id_rsa", str(host / "id_rsa")),
        "relative": ("references/id_rsa", "../../../../host/id_rsa"),
        "folder": ("references/ssh", str(host)),
        "skill-md": ("SKILL.md", str(host / "id_rsa")),
    }[kind]
    (folder / link).unlink(missing_ok=True)
    (folder / link).symlink_to(target)
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["validate", "skills"])
    assert result.exit_code == 2
    assert result.stdout == (
        f"skills/triage/{link}: error: symlink to {target!r} {LEAVES}\n1 skill checked: 1 error, 0 warnings\n"
    )
    assert _leaked(tmp_path) == []
    with pytest.raises(SkillError) as caught:
        load_skills(project / "skills")
    assert caught.value.one_line() == f"{project}/skills/triage/{link}: symlink to {target!r} {LEAVES}"


def test_skills_ref_says_nothing_of_a_link_out_a_documented_difference(tmp_path: Path) -> None:
    """docs/adr/0002-skill-validation.md lists this among the deliberate differences from skills-ref 0.1.1."""
    from skills_ref.validator import validate as reference_validate

    host = _host(tmp_path)
    folder = _skill(tmp_path / "skills", "triage")
    (folder / "key").symlink_to(host / "id_rsa")
    assert reference_validate(folder) == []
    assert [p.severity for p in validate_skill_folder(folder)] == ["error"]


def test_a_link_that_stays_inside_the_skill_folder_is_valid(tmp_path: Path) -> None:
    folder = _skill(tmp_path / "skills", "triage")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("# guide\n", encoding="utf-8")
    (folder / "guide.md").symlink_to("references/guide.md")
    (folder / "refs").symlink_to(folder / "references")  # absolute, but inside
    (folder / "references" / "up").symlink_to("..")  # the skill folder itself
    assert validate_skill_folder(folder) == []
    assert list(load_skills(tmp_path / "skills")) == ["triage"]


def test_a_skill_folder_linked_from_outside_the_skills_folder_is_refused_unsearched(tmp_path: Path) -> None:
    host = _host(tmp_path)
    _skill(host / "installed", "personal")  # a skill of the machine's own, not of the project
    skills = tmp_path / "proj" / "skills"
    _skill(skills, "triage")
    (skills / "mine").symlink_to(host / "installed")
    with pytest.raises(SkillError) as caught:
        load_skills(skills)
    assert caught.value.one_line() == (
        f"{skills}/mine: symlink to {str(host / 'installed')!r} leads outside {skills}: record, noise and check "
        "read skills only from the project's skills folder; move the skill folder into it"
    )


OUTSIDE = "record, noise and check read skills only from the project's skills folder; move the skill folder into it"


@pytest.mark.parametrize("args", [[], ["skills"]])
def test_validate_errors_on_a_skill_folder_linked_from_outside_the_skills_folder_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    host = _host(tmp_path)
    _skill(host / "installed", "personal")
    # Read, this SKILL.md would give errors of its own: none shows, nothing in the linked folder is read.
    (host / "installed" / "personal" / "SKILL.md").write_text("---\nname: Not A Name\n---\n", encoding="utf-8")
    project = tmp_path / "proj"
    _skill(project / "skills", "triage")
    (project / "skills" / "mine").symlink_to(host / "installed")
    (project / "ratchet.yaml").write_text("schema_version: 1\n", encoding="utf-8")
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["validate", *args])
    assert result.exit_code == 2
    assert result.stdout == (
        f"skills/mine: error: symlink to {str(host / 'installed')!r} leads outside skills: {OUTSIDE}\n"
        "1 skill checked: 1 error, 0 warnings\n"
    )


def test_validate_errors_on_a_harness_skills_folder_linked_from_outside_the_project_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no ratchet.yaml, validate looks in the harness folders of the current folder: not through a link out of it."""
    host = _host(tmp_path)
    _skill(host / "mine", "personal")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "skills").symlink_to(host / "mine")
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    assert result.stdout == (
        f"skills: error: symlink to {str(host / 'mine')!r} leads outside the project: {OUTSIDE}\n"
        "0 skills checked: 1 error, 0 warnings\n"
    )


# --- record, noise and check ---------------------------------------------------------------------


def _link_in_triage(repo: Path, host: Path, kind: str) -> str:
    """Plant a link to the host's secret in the demo's github-triage skill; its repo path."""
    folder = repo / "skills" / "github-triage"
    if kind == "skill-md":
        # The minimal runner reads SKILL.md itself: here the skill's own text, kept outside, with the secret in it.
        outside = host / "SKILL.md"
        outside.write_bytes((folder / "SKILL.md").read_bytes() + b"\n" + SECRET + b"\n")
        (folder / "SKILL.md").unlink()
        (folder / "SKILL.md").symlink_to(outside)
        return "skills/github-triage/SKILL.md"
    (folder / "id_rsa").symlink_to(host / "id_rsa")
    return "skills/github-triage/id_rsa"


@pytest.mark.parametrize("kind", ["file", "skill-md"])
def test_record_refuses_a_link_out_of_a_skill_and_leaks_nothing(demo_repo: Path, tmp_path: Path, kind: str) -> None:
    host = _host(tmp_path)
    link = _link_in_triage(demo_repo, host, kind)
    result = runner.invoke(app, ["record", "github-triage-01", "--project", str(demo_repo)])
    assert result.exit_code == 2, result.output
    target = str(host / ("SKILL.md" if kind == "skill-md" else "id_rsa"))
    assert result.stderr == f"error: {demo_repo}/{link}: symlink to {target!r} {LEAVES}\n"
    assert _leaked(tmp_path) == []


def test_noise_refuses_a_link_out_of_a_skill(demo_repo: Path, tmp_path: Path) -> None:
    host = _host(tmp_path)
    link = _link_in_triage(demo_repo, host, "file")
    result = runner.invoke(app, ["noise", "github-triage-01", "--repeats", "2", "--project", str(demo_repo)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {demo_repo}/{link}: symlink to {str(host / 'id_rsa')!r} {LEAVES}\n"
    assert _leaked(tmp_path) == []


@pytest.mark.parametrize("kind", ["file", "skill-md"])
def test_check_refuses_a_link_out_of_a_skill_at_the_head(demo_repo: Path, tmp_path: Path, kind: str) -> None:
    host = _host(tmp_path)
    base = git(demo_repo, "rev-parse", "HEAD")
    link = _link_in_triage(demo_repo, host, kind)
    git(demo_repo, "add", "-A")
    git(demo_repo, "commit", "-q", "-m", "a link to the host")
    head = git(demo_repo, "rev-parse", "HEAD")
    result = runner.invoke(app, ["check", "--base", base, "--head", head, "--repo", str(demo_repo)])
    assert result.exit_code == 2, result.output
    target = str(host / ("SKILL.md" if kind == "skill-md" else "id_rsa"))
    assert result.stderr == f"error: {link}@{head[:10]}: symlink to {target!r} {LEAVES}\n"
    assert _leaked(tmp_path) == []


def test_check_refuses_a_link_that_leaves_through_another_link(demo_repo: Path, tmp_path: Path) -> None:
    """Git stores links as text: where one leads is worked out through the others, as the file system would."""
    base = git(demo_repo, "rev-parse", "HEAD")
    folder = demo_repo / "skills" / "github-triage"
    (folder / "here").symlink_to(".")  # the skill folder itself: inside
    (folder / "notes").symlink_to("here/../SKILL.md")  # here/.. is skills/, not this folder: outside
    git(demo_repo, "add", "-A")
    git(demo_repo, "commit", "-q", "-m", "links")
    head = git(demo_repo, "rev-parse", "HEAD")
    result = runner.invoke(app, ["check", "--base", base, "--head", head, "--repo", str(demo_repo)])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: skills/github-triage/notes@{head[:10]}: symlink to 'here/../SKILL.md' {LEAVES}\n"
