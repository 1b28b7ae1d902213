"""Ratchet's mocked tools served over MCP, so a real harness (Claude Code, Codex) can replay against them.

`server.py` builds the MCP server over one World (stdio, the official `mcp` SDK's low-level
Server); `annotations.py` maps a tool's declared effect to MCP tool annotations; `record.py`
writes each call and each volatile read as one JSONL line; `launch.py` loads the world as a
replay does and starts the server, for both `ratchet mcp` and the fast `python -m ratchet.mcp`
(`__main__.py`, no typer, no CLI). See docs/mcp.md and docs/adr/0014-mocked-tools-over-mcp.md.
"""
