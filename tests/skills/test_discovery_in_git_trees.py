"""The gate maps a changed path to the deepest folder holding a SKILL.md, at base or head."""

from __future__ import annotations

from pathlib import Path

from ratchet.repo.changes import changed_paths, changed_skills, skills_touched
from ratchet.repo.git import INDEX, open_repo
from ratchet.repo.skill_folders import skill_folders_at
from tests.helpers.gitrepo import commit, git, make_repo, stage

NESTED = {
    "skills/flat/SKILL.md": "flat\n",
    "skills/cat/inner/SKILL.md": "inner\n",
    "skills/cat/inner/references/guide.md": "guide\n",
    "skills/cat/README.md": "category notes\n",
    "skills/a/b/deep/SKILL.md": "deep\n",
    "tasks.yaml": "tasks: []\n",
}


def test_nested_skills_are_named_by_their_own_folder(tmp_path: Path) -> None:
    path = make_repo(tmp_path, NESTED)
    base = git(path, "rev-parse", "HEAD")
    head = commit(
        path,
        {
            "skills/cat/inner/references/guide.md": "guide v2\n",
            "skills/a/b/deep/SKILL.md": "deep v2\n",
            "skills/cat/README.md": "notes v2\n",  # a category's own file belongs to no skill
        },
        "edit",
    )
    repo = open_repo(path)
    assert skill_folders_at(repo, [base, head], "skills") == {"skills/flat", "skills/cat/inner", "skills/a/b/deep"}
    assert changed_skills(repo, base, head) == ["deep", "inner"]


def test_a_skill_added_or_deleted_counts_from_the_side_that_has_it(tmp_path: Path) -> None:
    path = make_repo(tmp_path, NESTED)
    base = git(path, "rev-parse", "HEAD")
    head = commit(
        path,
        {
            "skills/cat/inner/SKILL.md": None,
            "skills/cat/inner/references/guide.md": None,
            "skills/cat/new-one/SKILL.md": "new\n",
        },
        "move",
    )
    assert changed_skills(open_repo(path), base, head) == ["inner", "new-one"]
    stage(path, {"skills/a/b/deep/scripts/run.sh": "echo\n"})
    assert changed_skills(open_repo(path), head, staged=True) == ["deep"]
    assert "skills/a/b/deep" in skill_folders_at(open_repo(path), [INDEX], "skills")


def test_flat_layouts_give_the_first_folder_as_before(tmp_path: Path) -> None:
    # A flat folder with no SKILL.md on either side (a broken skill) still counts, as it always has.
    path = make_repo(tmp_path, {"skills/alpha/SKILL.md": "a\n", "skills/alpha/notes.txt": "n\n"})
    base = git(path, "rev-parse", "HEAD")
    git(path, "mv", "skills/alpha/notes.txt", "skills/delta-notes.txt")
    head = commit(path, {"skills/broken/extra/file.md": "x\n"}, "edit")
    repo = open_repo(path)
    changes = changed_paths(repo, base, head)
    folders = skill_folders_at(repo, [base, head], "skills")
    assert skills_touched(changes, "skills", folders) == skills_touched(changes, "skills") == ["alpha", "broken"]
