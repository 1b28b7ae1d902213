"""registry: the package registry acme's projects install from, and pull requests on acme repos.

World shape: `packages.registry.<name>` = {latest, deprecated, ...},
`packages.advisories.<name>` = [{id, severity, introduced, fixed_in, summary}],
`packages.repos` = [owner/name, ...], `packages.pull_requests` = [...].
The latest version of a package and its advisories move over time, so both are volatile facts.
"""

from __future__ import annotations

import re
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

_NAME = Param("string", "Package name, e.g. tidal-http")
_SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")


def _version(text: str) -> tuple[int, int, int]:
    match = _SEMVER.match(text.strip().lstrip("^~=v"))
    if match is None:
        raise ToolFailure(f"not a MAJOR.MINOR.PATCH version: {text!r}")
    return int(match.group(1)), int(match.group(2)), int(match.group(3))


def _section(ctx: ToolContext) -> dict[str, Any]:
    section: dict[str, Any] = ctx.world.data.setdefault("packages", {})
    return section


def _package(ctx: ToolContext, name: str) -> dict[str, Any]:
    registry = _section(ctx).get("registry", {})
    if name not in registry:
        raise ToolFailure(f"package not found in the registry: {name}")
    found: dict[str, Any] = registry[name]
    return found


def _get_package(ctx: ToolContext, args: dict[str, Any]) -> Any:
    name = args["name"]
    package = _package(ctx, name)
    latest = ctx.read(f"packages.registry.{name}.latest", package.get("latest"))
    return {
        "name": name,
        "latest": latest,
        "deprecated": bool(package.get("deprecated", False)),
        "license": package.get("license"),
    }


def _get_advisories(ctx: ToolContext, args: dict[str, Any]) -> Any:
    name = args["name"]
    _package(ctx, name)
    version = _version(args["version"])
    listed = ctx.read(f"packages.advisories.{name}", list(_section(ctx).get("advisories", {}).get(name, [])))
    hits = [
        {"id": a["id"], "severity": a.get("severity"), "fixed_in": a["fixed_in"], "summary": a.get("summary", "")}
        for a in listed
        if _version(a.get("introduced", "0.0.0")) <= version < _version(a["fixed_in"])
    ]
    fixed_in = max((h["fixed_in"] for h in hits), key=_version) if hits else None
    ids = [h["id"] for h in hits]
    return {"name": name, "version": args["version"], "advisories": hits, "ids": ids, "fixed_in": fixed_in}


def _open_pull_request(ctx: ToolContext, args: dict[str, Any]) -> Any:
    section = _section(ctx)
    if args["repo"] not in section.get("repos", []):
        raise ToolFailure(f"repository not found: {args['repo']}")
    pulls = section.setdefault("pull_requests", [])
    before = list(pulls)
    number = 200 + len(pulls) + 1
    pull = {
        "repo": args["repo"],
        "number": number,
        "branch": args["branch"],
        "title": args["title"],
        "body": args["body"],
    }
    pull["labels"] = list(args.get("labels", []))
    pulls.append(pull)
    ctx.changes.append(change("packages.pull_requests", before, pulls))
    return {"opened": True, "number": number, "url": f"https://git.example.com/{args['repo']}/pull/{number}"}


TOOLS = [
    Tool(
        "registry_get_package",
        "read",
        "A package's registry entry: latest published version, deprecation and licence.",
        {"name": _NAME},
        _get_package,
        "packages",
    ),
    Tool(
        "registry_get_advisories",
        "read",
        "Security advisories that affect one version of a package, and the version that fixes them all.",
        {"name": _NAME, "version": Param("string", "Installed version, MAJOR.MINOR.PATCH")},
        _get_advisories,
        "packages",
    ),
    Tool(
        "repo_open_pull_request",
        "write",
        "Open a pull request on an acme repository with the given branch, title and description.",
        {
            "repo": Param("string", "Repository as owner/name, e.g. acme/web-portal"),
            "branch": Param("string", "Head branch name"),
            "title": Param("string", "Pull request title"),
            "body": Param("string", "Pull request description (Markdown)"),
            "labels": Param("array", "Labels to add", required=False),
        },
        _open_pull_request,
        "packages",
    ),
]
