"""The harness versions Ratchet is tested with, and naming a binary outside them.

Why: a replay through Claude Code or Codex reads what that release sends (its skill listing, its tool
shapes), and teams run whatever release their machines auto-update to. With Claude Code 2.1.197, which
a plain `npm install` gave, the simulator behind it routed a demo task nowhere (that release bundles
other skills) and two of the demo's five decisions came out wrong, without a word about the version.
So every replay's version (read once per run: ratchet.harness.driver) is compared with the range below,
and one outside it is named on the verdict's first line and in `ratchet record`'s output: never used
silently. It is named, not a warning: a release outside the range is untested, not known to be wrong.

A range, not a list: CI runs both ends and the newest release the npm registry serves (scripts/check's
"harness versions" stage, scripts/install_harnesses.sh --latest); a release between two that pass is
taken to pass too. Widening the range is a CI run away: install the release, run that stage's tests.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from ratchet.harness.binaries import PINNED, BinaryHarness, install_command


class TestedRange(BaseModel):
    """The oldest and the newest release of one harness that CI runs the version tests with."""

    model_config = ConfigDict(frozen=True)

    low: str
    high: str

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def holds(self, version: str) -> bool:
        key, low, high = version_key(version), version_key(self.low), version_key(self.high)
        return key is not None and low is not None and high is not None and low <= key <= high


TESTED: dict[BinaryHarness, TestedRange] = {
    # CI runs 2.1.197 (what a plain `npm install` gave in 2026-11) and 2.1.332, the pin and the newest release the
    # registry served when last checked (2026-12-02).
    "claude-code": TestedRange(low="2.1.197", high="2.1.332"),
    # CI runs 0.169.0 (the pin) and 0.171.0, the newest release the registry served when last checked (2026-12-02).
    "codex": TestedRange(low="0.169.0", high="0.171.0"),
}

_SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$")


def version_key(version: str) -> tuple[int, int, int, int] | None:
    """An ordering key for "2.1.332" (a pre-release "2.1.332-beta.1" sorts before its release); None if not one."""
    found = _SEMVER.match(version.strip())
    if found is None:
        return None
    major, minor, patch, pre = found.groups()
    return int(major), int(minor), int(patch), 0 if pre else 1


def outside_tested(harness: str, version: str) -> str | None:
    """One line naming `harness` `version` when it is outside the tested range, e.g. "claude-code 2.0.1 is outside
    the tested range 2.1.197-2.1.332: ..."; None inside it, for a harness without versions (`command`,
    `minimal`) and when no version was read."""
    if harness not in TESTED or not version:
        return None
    if TESTED[harness].holds(version):
        return None
    return (
        f"{harness} {version} is outside the tested range {TESTED[harness]}: its replays may differ from a tested "
        f"release's for reasons that are not the edit's; `{install_command(harness)}` installs the pinned "
        f"{PINNED[harness].version} (docs/harnesses.md#versions)"
    )


def untested_versions(harnesses: list[tuple[str, str]]) -> str | None:
    """Every (harness, version) pair outside its tested range, named once each in first-seen order; None when none."""
    named = [outside_tested(name, version) for name, version in dict.fromkeys(harnesses)]
    said = [line for line in named if line is not None]
    return "; ".join(said) if said else None
