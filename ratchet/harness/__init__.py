"""The harness adapters: how a task runs under Ratchet's minimal runner or a team's real agent.

A harness is the program that turns a task's prompt into tool calls: Ratchet's own runner, the
real Claude Code or Codex CLI, or any command. Each adapter is a small module here that installs
the skill set where that harness looks, starts it in a scratch workspace against Ratchet's
loopback model endpoint and MCP server, and reads back what it did, so a golden records what the
team's agent does rather than what Ratchet's runner would.
"""
