"""files: the task's workspace, as an in-memory copy (writes never touch disk)."""

from __future__ import annotations

from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure


def _norm(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ToolFailure(f"path {path!r} leaves the workspace")
    return "/".join(parts)


def _read_file(ctx: ToolContext, args: dict[str, Any]) -> Any:
    path = _norm(args["path"])
    if path not in ctx.world.files:
        raise ToolFailure(f"file not found: {path}")
    return {"path": path, "content": ctx.read(f"files.{path}", ctx.world.files[path])}


def _list_files(ctx: ToolContext, args: dict[str, Any]) -> Any:
    prefix = _norm(args.get("directory", ""))
    names = sorted(p for p in ctx.world.files if not prefix or p.startswith(prefix + "/"))
    return {"files": names}


def _write_file(ctx: ToolContext, args: dict[str, Any]) -> Any:
    path = _norm(args["path"])
    if not path:
        raise ToolFailure("path is empty")
    before = ctx.world.files.get(path)
    ctx.world.files[path] = args["content"]
    ctx.changes.append(change(f"files.{path}", before, args["content"]))
    return {"path": path, "bytes": len(args["content"].encode())}


TOOLS = [
    Tool(
        "files_read_file",
        "read",
        "Read a text file from the task's workspace.",
        {"path": Param("string", "Path relative to the workspace root, e.g. expenses.csv")},
        _read_file,
    ),
    Tool(
        "files_list_files",
        "read",
        "List the files in the task's workspace.",
        {"directory": Param("string", "Optional sub-folder to list", required=False)},
        _list_files,
    ),
    Tool(
        "files_write_file",
        "write",
        "Create or overwrite a text file in the task's workspace.",
        {"path": Param("string", "Path relative to the workspace root"), "content": Param("string", "Full file text")},
        _write_file,
    ),
]
