"""Whether a trace shows its skill at work, as `record` and `bless` say it (issue 24).

The check itself is ratchet.gate.thin (what a skill asks for, ratchet.gate.asks): in the gate, because every
check decides it again from the base's goldens and skills. Here: the project's Evidence, and the words
record and bless add to a thin trace's line. docs/adr/0020-thin-goldens.md says why.
"""

from __future__ import annotations

from ratchet.config.project import Project
from ratchet.gate.thin import Evidence
from ratchet.skills.sets import load_skills
from ratchet.world.state import load_world

AT_RECORD = "; `ratchet bless` refuses it unless --accept-thin"
REFUSED = "; re-record it with an agent that follows the skill, or bless it with --accept-thin"
ACCEPTED = "; blessed with --accept-thin: every check that replays it names it"


def project_evidence(project: Project) -> Evidence:
    """An Evidence over the project's working-tree skills and world (what `ratchet bless` checks against)."""
    world = load_world(project.path("world"), workspaces_dir=None, workspace=None, frozen_time=project.config.clock)
    return Evidence.over(load_skills(project.path("skills")), world)
