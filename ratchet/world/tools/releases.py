"""releases: tags, merged pull requests and draft releases of acme's repositories.

World shape: `releases.repos.<owner/name>` = {tags: [{name, date}], pulls: [{number, title,
author, labels, merged_at}], drafts: [..]}. A pull request belongs to the next release when it
was merged after the latest tag's date. Creating a draft release is a `write`.
"""

from __future__ import annotations

import copy
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

_REPO = Param("string", "Repository as owner/name, e.g. acme/widgets")


def _repo(ctx: ToolContext, name: str) -> dict[str, Any]:
    repos = ctx.world.section("releases").get("repos", {})
    if name not in repos:
        raise ToolFailure(f"repository not found: {name}")
    repo: dict[str, Any] = repos[name]
    return repo


def _tags(repo: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(repo.get("tags", []), key=lambda t: (str(t.get("date")), str(t.get("name"))))


def _latest_tag(ctx: ToolContext, args: dict[str, Any]) -> Any:
    tags = _tags(_repo(ctx, args["repo"]))
    if not tags:
        raise ToolFailure(f"{args['repo']} has no tags yet")
    latest = tags[-1]
    return {"repo": args["repo"], "tag": latest["name"], "date": latest["date"]}


def _list_merged_prs(ctx: ToolContext, args: dict[str, Any]) -> Any:
    repo = _repo(ctx, args["repo"])
    since = next((t for t in _tags(repo) if t.get("name") == args["since"]), None)
    if since is None:
        raise ToolFailure(f"tag {args['since']!r} not found in {args['repo']}")
    after = str(since["date"])
    rows = [
        {k: copy.deepcopy(p.get(k)) for k in ("number", "title", "author", "labels", "merged_at")}
        for p in sorted(repo.get("pulls", []), key=lambda p: int(p["number"]))
        if p.get("merged_at") and str(p["merged_at"])[:10] > after
    ]
    return {"repo": args["repo"], "since": args["since"], "prs": rows}


def _create_draft(ctx: ToolContext, args: dict[str, Any]) -> Any:
    repo = _repo(ctx, args["repo"])
    if any(t.get("name") == args["tag"] for t in repo.get("tags", [])):
        raise ToolFailure(f"tag {args['tag']} already exists in {args['repo']}")
    drafts = repo.setdefault("drafts", [])
    before = copy.deepcopy(drafts)
    draft = {"id": len(drafts) + 1, "tag": args["tag"], "title": args["title"], "notes": args["notes"], "draft": True}
    drafts.append(draft)
    ctx.changes.append(change(f"releases.repos.{args['repo']}.drafts", before, drafts))
    return {
        "repo": args["repo"],
        "tag": args["tag"],
        "draft_id": draft["id"],
        "url": f"https://git.example.com/{args['repo']}/releases/{args['tag']}",
    }


TOOLS = [
    Tool(
        "releases_latest_tag",
        "read",
        "The most recent release tag of a repository.",
        {"repo": _REPO},
        _latest_tag,
        "releases",
    ),
    Tool(
        "releases_list_merged_prs",
        "read",
        "Pull requests merged since a tag, oldest number first, with their labels.",
        {"repo": _REPO, "since": Param("string", "Tag name, e.g. v4.2.0")},
        _list_merged_prs,
        "releases",
    ),
    Tool(
        "releases_create_draft",
        "write",
        "Create a draft release (not yet published) with its notes.",
        {
            "repo": _REPO,
            "tag": Param("string", "New tag name, e.g. v4.3.0"),
            "title": Param("string", "Release title"),
            "notes": Param("string", "Release notes (Markdown)"),
        },
        _create_draft,
        "releases",
    ),
]
