"""Ratchet's mocked tools served over MCP, so a real harness (Claude Code, Codex) can replay against them.

`server.py` builds the MCP server over one World (stdio, the official `mcp` SDK's low-level
Server); `annotations.py` maps a tool's declared effect to MCP tool annotations; `record.py`
writes each call as one JSONL line. See docs/mcp.md and docs/adr/0014-mocked-tools-over-mcp.md.
"""
