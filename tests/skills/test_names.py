"""Skill identity (ratchet/skills/names.py) and what the validator and the loader make of look-alike names."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import SkillError
from ratchet.skills.names import is_lookalike, optional_skill_key, skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import validate_skill_folder

LOOKALIKE = "\uff46x-expense-converter"  # fullwidth small f
NFC = "caf\u00e9"  # é as one code point
NFD = "cafe\u0301"  # e + combining acute: the same text, as macOS file systems write it


def write_skill(root: Path, folder: str, name: str) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody\n", encoding="utf-8")
    return path


def rendered(folder: Path) -> list[str]:
    return [p.render().replace(str(folder) + "/", "") for p in validate_skill_folder(folder)]


def test_skill_key_is_nfkc() -> None:
    assert skill_key(LOOKALIKE) == "fx-expense-converter"
    assert skill_key(NFD) == skill_key(NFC) == NFC
    assert skill_key("\ufb01le-tools") == "file-tools"  # the fi ligature
    assert skill_key("fx-expense-converter") == "fx-expense-converter"
    assert optional_skill_key(None) is None
    assert optional_skill_key(LOOKALIKE) == "fx-expense-converter"


def test_lookalike_means_compatibility_characters_not_canonical_variants() -> None:
    assert is_lookalike(LOOKALIKE)
    assert is_lookalike("\ufb01le-tools")
    assert not is_lookalike(NFD)
    assert not is_lookalike("fx-expense-converter")
    assert not is_lookalike("技能")


def test_lookalike_name_and_folder_are_errors(tmp_path: Path) -> None:
    both = write_skill(tmp_path / "a", LOOKALIKE, LOOKALIKE)
    assert rendered(both) == [
        f"SKILL.md:2: error: 'name' {LOOKALIKE!r} is a look-alike spelling of 'fx-expense-converter' "
        "(NFKC folds its compatibility characters): write it as 'fx-expense-converter'",
        f"SKILL.md:2: error: folder name {LOOKALIKE!r} is a look-alike spelling of 'fx-expense-converter' "
        "(NFKC folds its compatibility characters): rename the folder to 'fx-expense-converter'",
    ]
    only_folder = write_skill(tmp_path / "b", LOOKALIKE, "fx-expense-converter")
    assert rendered(only_folder) == [
        f"SKILL.md:2: error: folder name {LOOKALIKE!r} is a look-alike spelling of 'fx-expense-converter' "
        "(NFKC folds its compatibility characters): rename the folder to 'fx-expense-converter'",
    ]
    only_name = write_skill(tmp_path / "c", "fx-expense-converter", LOOKALIKE)
    assert rendered(only_name) == [
        f"SKILL.md:2: error: 'name' {LOOKALIKE!r} is a look-alike spelling of 'fx-expense-converter' "
        "(NFKC folds its compatibility characters): write it as 'fx-expense-converter'",
    ]


def test_canonical_variants_stay_valid(tmp_path: Path) -> None:
    assert validate_skill_folder(write_skill(tmp_path / "a", NFC, NFD)) == []
    assert validate_skill_folder(write_skill(tmp_path / "b", NFD, NFC)) == []


def test_skills_ref_accepts_the_lookalike_and_ratchet_does_not(tmp_path: Path) -> None:
    """A deliberate difference from skills-ref 0.1.1 (docs/adr/0002-skill-validation.md)."""
    from skills_ref.validator import validate as reference_validate

    folder = write_skill(tmp_path, LOOKALIKE, LOOKALIKE)
    assert reference_validate(folder) == []
    assert any(p.severity == "error" for p in validate_skill_folder(folder))


def test_two_folders_of_one_skill_are_refused_naming_both(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    write_skill(skills, NFC, NFC)
    write_skill(skills, NFD, NFD)
    with pytest.raises(SkillError) as caught:
        load_skills(skills)
    first, second = sorted([NFC, NFD])
    assert caught.value.one_line() == (
        f"{skills}: skill folders {first!r} and {second!r} are one skill: both names normalize to {NFC!r} "
        "(NFKC); remove or rename one of them"
    )


def test_loaded_skills_are_keyed_by_their_normal_form(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    write_skill(skills, NFD, NFD)
    write_skill(skills, "other", "other")
    loaded = load_skills(skills)
    assert sorted(loaded) == sorted([NFC, "other"])
    assert loaded[NFC].folder == str(skills / NFD)
