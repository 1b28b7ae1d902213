"""Convention steps that run a command or read a file of the skill, followed behind a real harness.

Behind Claude Code or Codex the simulated agent has what the harness offers besides Ratchet's MCP
tools: a shell (Claude Code's `Bash` {"command"}, Codex's `exec_command` {"cmd"}) and a file reader
(Claude Code's `Read` {"file_path"}; `cat` through the shell otherwise). A skill's `## Steps` then
reads as a model following it would read it:

    1. Read `references/policy.md` as `$policy`.
    2. Run `python scripts/report.py --repo $repo` as `$report`.
    3. Then run `gh issue comment $number --repo $repo --body $report`.

- A span is a **command** when the text before it on its line (since the span before) has the word
  `run` or `execute`, and the span is not a call, an assignment, a `$variable` or a quoted string.
- A span is a **read** when that text has `read`, `open` or `consult` and the span is a relative
  path with a file extension (`references/policy.md`): a file of the skill folder. Without a folder
  the extension must be a known file type (`notes.txt`, not `config.timeout`); a version (`v4.2.0`)
  or `owner/name` is never one.
- Never in a step that forbids something (`never`, `not`, `don't`, `avoid`, `must not` ...: in its
  text, its continuation lines or a step it is nested in): "Never run `git push`" read as a command
  would be a new write, a false BLOCK for adding a warning. Never a span with a variable's attribute
  (`$issue.body`): that is a value of the skill, not a file or a command line.
- A `$name` of the skill's own variables (an input, an `as` target, an assignment, a loop variable)
  is put in as its value, quoted for the shell where it stands; any other `$` is left to the shell.
- A relative path with a folder and an extension in a command (`scripts/report.py`, not `../x.py`)
  names a file of the skill folder, so it is run as `<skill folder>/scripts/report.py`; the command
  runs in the harness's working directory.
- The result is the output (stdout and stderr as the harness shows them, trailing line breaks cut,
  line numbers cut from Claude Code's Read); a command that exits non-zero, or a read or call the
  harness refuses, is `{"error": <output>, "exit_code": N}` (no `exit_code` when there is none),
  so `If `$report.error`` reads it as it reads an MCP tool's error.

Each such span becomes a call of a tool the follower alone sees (SHELL, READ) and the reply goes
back as the harness's own call (`harness_call`). Where the harness offers no shell (Claude Code
without `Bash` in `harness.builtin_tools`) the body is left as it is: the minimal runner's follower
skips these spans, and so does this one. Codex always offers `exec_command` (it loads skills with it),
so there the switch is its sandbox: `shell` in `harness.builtin_tools` runs it `-s workspace-write`
(ratchet/harness/codex.py) and its request tells the model "`sandbox_mode` is `workspace-write`";
read-only (the default), where the command shims cannot record, the steps stay prose as before.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from typing import Any, Literal

from ratchet.config.harness import SHELL_TOOLS
from ratchet.core.chat import ChatRequest, ToolCallRequest, ToolSpec
from ratchet.core.jsonio import canonical_dumps
from ratchet.sim.expr import render_scalar

Shape = Literal["claude-code", "codex"]

SHELL = "__shell__"
"""The follower's name for the harness's shell (no MCP tool is named so)."""
READ = "__read__"
"""The follower's name for reading a file of the skill folder."""
CLAUDE_SHELL = "Bash"
CLAUDE_READ = "Read"
CODEX_SHELL = "exec_command"

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_SPAN = re.compile(r"`([^`\n]+)`")
_RUN = re.compile(r"\b(?:run|runs|execute|executes)\b", re.I)
_READS = re.compile(r"\b(?:read|reads|open|opens|consult)\b", re.I)
_CALL_LIKE = re.compile(r"^[A-Za-z_][\w-]*\s*\(")
_PROGRAM = re.compile(r"^[\w.+/-]+$")
_REL_PATH = re.compile(r"^(?:\./)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]*$")
_FILE_TYPES = frozenset(
    {"md", "markdown", "txt", "rst", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "csv", "tsv"}
    | {"xml", "html", "py", "sh", "js", "ts", "sql", "log", "env"}
)
"""Extensions a read without a folder must have: `notes.txt` is a file, `config.timeout` an attribute."""
_ATTRIBUTE = re.compile(r"(?<!/)\$\{?[A-Za-z_]\w*\}?\.[A-Za-z_]")
_NEGATION = re.compile(
    r"\b(?:never|not|cannot|nor|avoid\w*|refrain\w*|forbid\w*|prohibit\w*|instead of|rather than)\b|n['\u2019]t\b",
    re.I,
)
_ITEM = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s")
_SANDBOX = re.compile(r"`sandbox_mode` is `([\w-]+)`")
_CODEX_WRITES = frozenset({"workspace-write", "danger-full-access"})
_DEFINED = re.compile(r"^\$([A-Za-z_]\w*)\s*(?:=(?!=)|$)")
_VAR = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")
_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
_CLAUDE_EXIT = re.compile(r"\AExit code (\d+)\n?")
_READ_NUMBER = re.compile(r"^\s*\d+(?:\t|\u2192)", re.M)
_CODEX_HEADER = re.compile(r"\A((?:(?!Output:)[^\n]*\n){0,8}?)Output:\n?")
_CODEX_EXIT = re.compile(r"^Process exited with code (\d+)$", re.M)


def step_tools(shape: Shape, request: ChatRequest) -> tuple[bool, bool]:
    """(commands, reads): which of these steps the harness's request lets the follower take: Claude Code's
    offered Bash / Read; Codex's exec_command only where its sandbox lets the shell write (module docstring)."""
    offered = {tool.name for tool in request.tools}
    if shape == "codex":
        systems = "\n".join(m.content or "" for m in request.messages if m.role == "system")
        said = {found.group(1) for found in _SANDBOX.finditer(systems)}
        shell = CODEX_SHELL in offered and bool(said & _CODEX_WRITES)
        return shell, shell
    return CLAUDE_SHELL in offered, CLAUDE_SHELL in offered or CLAUDE_READ in offered


def harness_step_tools(harness: str, builtin_tools: Sequence[str]) -> frozenset[str]:
    """SHELL and READ as far as the configured harness offers them: the tool names to add to the offered ones
    when reading a skill as the follower behind it reads it (ratchet.sim.follow.follow_report)."""
    if harness == "codex":  # read-only unless `shell` is on (module docstring)
        return frozenset({SHELL, READ}) if SHELL_TOOLS & set(builtin_tools) else frozenset()
    if harness != "claude-code":
        return frozenset()
    shell = CLAUDE_SHELL in builtin_tools
    read = shell or CLAUDE_READ in builtin_tools
    return frozenset(name for name, on in ((SHELL, shell), (READ, read)) if on)


def step_specs(commands: bool, reads: bool) -> list[ToolSpec]:
    """The tools the follower is offered for these steps (only their names matter to it)."""
    specs = [ToolSpec(name=SHELL, description="[write] Run a command line in the harness's shell.")] if commands else []
    return specs + ([ToolSpec(name=READ, description="[read] Read a file of the skill folder.")] if reads else [])


def rewrite_steps(body: str, *, commands: bool, reads: bool) -> str:
    """`body` with each command or read span of `## Steps` written as a call of SHELL or READ."""
    if not (commands or reads):
        return body
    known = {m.group(1) for span in _SPAN.findall(body) if (m := _DEFINED.match(span.strip()))}
    lines = body.split("\n")
    for i in _allowed_lines(lines):
        lines[i] = _rewrite_line(lines[i], known, commands=commands, reads=reads)
    return "\n".join(lines)


def _allowed_lines(lines: list[str]) -> list[int]:
    """The lines of `## Steps` (outside fences) whose step, and every step it is nested in, forbids nothing."""
    steps: list[list[int]] = []  # each step's lines
    parents: list[int | None] = []
    open_items: list[tuple[int, int]] = []  # (indent, step) of the list items a new line may belong to
    in_steps = fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            in_steps = heading.group(1).strip().lower().rstrip(":") == "steps"
            open_items = []
        elif in_steps and not fenced and line.strip():
            item = _ITEM.match(line)
            if item is not None:
                indent = len(item.group(1))
                open_items = [(d, s) for d, s in open_items if d < indent]
                parents.append(open_items[-1][1] if open_items else None)
                open_items.append((indent, len(steps)))
                steps.append([i])
            elif open_items and (line[0].isspace() or lines[i - 1].strip()):
                steps[open_items[-1][1]].append(i)  # a continuation line of the step
            else:
                open_items = []
                parents.append(None)
                steps.append([i])  # a paragraph of its own
    forbids: list[bool] = []
    for n, step in enumerate(steps):
        prose = _SPAN.sub(" ", " ".join(lines[i] for i in step))
        parent = parents[n]
        forbids.append(_NEGATION.search(prose) is not None or (parent is not None and forbids[parent]))
    return [i for n, step in enumerate(steps) if not forbids[n] for i in step]


def _rewrite_line(line: str, known: set[str], *, commands: bool, reads: bool) -> str:
    out: list[str] = []
    last = 0
    for span in _SPAN.finditer(line):
        before, text = line[last : span.start()], span.group(1).strip()
        tool = None
        if _ATTRIBUTE.search(text):
            pass  # a variable's attribute (`$issue.body`): a value of the skill, neither a command nor a file
        elif commands and _RUN.search(before) and _is_command(text):
            tool = SHELL
        elif reads and _READS.search(before) and _is_path(text):
            tool = READ
        out += [before, span.group(0) if tool is None else f"`{_call_span(tool, text, known)}`"]
        last = span.end()
    return "".join(out) + line[last:]


def _is_command(text: str) -> bool:
    if not text or text[0] in "$\"'([{#" or text == "stop" or _CALL_LIKE.match(text):
        return False
    return _PROGRAM.match(text.split()[0]) is not None


def _is_path(text: str) -> bool:
    path = _VAR.sub("x", text)
    if not _REL_PATH.match(path):
        return False
    return "/" in path.removeprefix("./") or path.rsplit(".", 1)[1].lower() in _FILE_TYPES


def _literal(text: str) -> str:
    # A Python string literal with no `$` in it: the expression reader turns `$name` into a variable.
    return json.dumps(text).replace("$", "\\u0024")


def _call_span(tool: str, text: str, known: set[str]) -> str:
    parts: list[str] = []
    values: list[str] = []
    last = 0
    for found in _VAR.finditer(text):
        name = found.group(1) or found.group(2)
        if name in known:
            parts.append(text[last : found.start()])
            values.append(f"${name}")
            last = found.end()
    parts.append(text[last:])
    return f"{tool}(parts=[{', '.join(_literal(p) for p in parts)}], values=[{', '.join(values)}])"


# -- back in the harness's terms --------------------------------------------------------------------


def harness_call(call: ToolCallRequest, shape: Shape, base_dir: str, offered: frozenset[str]) -> ToolCallRequest:
    """A follower's SHELL or READ call as the harness's own tool call; any other call unchanged."""
    if call.name not in (SHELL, READ):
        return call
    parts = [str(p) for p in call.arguments.get("parts") or [""]]
    values = list(call.arguments.get("values") or [])
    if call.name == READ:
        path = f"{base_dir}/{_filled(parts, values).removeprefix('./')}"
        if shape == "claude-code" and CLAUDE_READ in offered:
            return call.model_copy(update={"name": CLAUDE_READ, "arguments": {"file_path": path}})
        line = f"cat {shlex.quote(path)}"
    else:
        line = _filled([_in_skill(part, base_dir) for part in parts], values)
    if shape == "claude-code":
        return call.model_copy(update={"name": CLAUDE_SHELL, "arguments": {"command": line}})
    return call.model_copy(update={"name": CODEX_SHELL, "arguments": {"cmd": line}})


def _in_skill(part: str, base_dir: str) -> str:
    """Each relative path with an extension in a command's literal text, as a path in the skill folder."""
    words = re.split(r"(\s+)", part)
    return "".join(
        shlex.quote(f"{base_dir}/{w.removeprefix('./')}")
        if "/" in w and _REL_PATH.match(w) and not w.startswith("../")
        else w
        for w in words
    )


def _filled(parts: Sequence[str], values: Sequence[Any]) -> str:
    out, state = [parts[0]], _quote_state(parts[0], None)
    for value, part in zip(values, parts[1:], strict=False):
        out += [_quoted(_text(value), state), part]
        state = _quote_state(part, state)
    return "".join(out)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return canonical_dumps(value, indent=None)
    return render_scalar(value)


def _quote_state(text: str, state: str | None) -> str | None:
    """The shell's quoting after `text`: None (outside quotes), "'" or '"'."""
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and state != "'":
            escaped = True
        elif state is None and char in "'\"":
            state = char
        elif char == state:
            state = None
    return state


def _quoted(text: str, state: str | None) -> str:
    if state == "'":
        return text.replace("'", "'\\''")
    if state == '"':
        return re.sub(r'([\\"$`])', r"\\\1", text)
    return shlex.quote(text)


# -- what the harness answered ----------------------------------------------------------------------


def followed_step(shape: Shape, call: ToolCallRequest) -> str | None:
    """SHELL or READ for a built-in call of the harness the follower made as a step; None otherwise."""
    if shape == "claude-code":
        return {CLAUDE_SHELL: SHELL, CLAUDE_READ: READ}.get(call.name)
    return SHELL if call.name == CODEX_SHELL else None


def step_result(shape: Shape, call: ToolCallRequest, text: str) -> Any:
    """What the step reads off the harness's answer: the output, or {"error", "exit_code"}."""
    if shape == "codex":
        header = _CODEX_HEADER.match(text)
        if header is None:
            return {"error": text.rstrip("\n")}
        code = _CODEX_EXIT.search(header.group(1))
        output = text[header.end() :].rstrip("\n")
        if code is not None and code.group(1) != "0":
            return {"error": output, "exit_code": int(code.group(1))}
        return output
    if text.startswith("Error: "):
        rest = text.removeprefix("Error: ")
        code = _CLAUDE_EXIT.match(rest)
        if code is None:
            return {"error": rest.rstrip("\n")}
        return {"error": rest[code.end() :].rstrip("\n"), "exit_code": int(code.group(1))}
    text = _REMINDER.sub("\n", text)
    if call.name == CLAUDE_READ:
        text = _READ_NUMBER.sub("", text)
    return text.rstrip("\n")
