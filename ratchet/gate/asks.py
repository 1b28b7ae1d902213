"""What a skill body asks for that a trace can show, read without a model: the tools and commands it names,
and the output sections and fields it prescribes.

Read from the body as people write it (ratchet.diff.instructions, the behavioural diff's reader), not only
from the simulator's backticked program: a tool is any name the world or the harness offers, found in prose
or code (ratchet.diff.effects), unless only a prohibition names it ("never send anything with email_send");
a command is a shell line in a shell code block, or a code span shaped like
one (a known program, or arguments that are flags or paths); an output element is a heading, field or
column of an output section (ratchet.diff.reading.output_name), a heading or `Key:` line of a template code
block in one, or a list of sections or fields a sentence names ("these sections: Summary, Impact",
"under **Features** and **Fixes**"). ratchet.gate.thin checks a trace against it. In the gate because the
check decides thinness itself from the base's goldens and skills (docs/adr/0020-thin-goldens.md); bless uses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ratchet.diff.effects import ToolCatalog
from ratchet.diff.instructions import Instruction, read_instructions
from ratchet.diff.reading import expand_contractions, output_name, split_code

_RUNNERS = frozenset(
    {"python", "python3", "py", "node", "bash", "sh", "zsh", "ruby", "perl", "deno", "bun", "php", "Rscript", "npx"}
)
"""Programs whose first argument (a script) says which command it is: `python scripts/fill.py`."""
_WITH_SUBCOMMANDS = frozenset(
    {"git", "gh", "npm", "pnpm", "yarn", "pip", "pip3", "uv", "cargo", "go", "docker", "kubectl", "helm"}
    | {"terraform", "aws", "gcloud", "az", "make", "poetry", "brew", "twine", "ratchet"}
)
"""Programs whose first word argument says which command it is: `git push`, `gh pr`."""
_PROGRAMS = (
    _RUNNERS
    | _WITH_SUBCOMMANDS
    | {"curl", "wget", "jq", "sed", "awk", "grep", "rg", "find", "ls", "cat", "cp", "mv", "rm", "mkdir", "tar"}
    | {"zip", "unzip", "pandoc", "pdftotext", "pdftoppm", "qpdf", "libreoffice", "soffice", "ffmpeg", "magick"}
    | {"sqlite3", "psql", "mysql", "ssh", "scp", "rsync", "pytest", "ruff", "mypy", "eslint", "prettier"}
)
"""Programs a code span is a command of, with any arguments (outside a shell block a span needs a reason)."""
_SHELL_INFO = frozenset({"bash", "sh", "shell", "console", "zsh", "fish", "terminal", "shell-session", "powershell"})
_SHELL_BUILTINS = frozenset(
    {"cd", "echo", "printf", "export", "set", "unset", "source", ".", "true", "false", "exit", "test", "read"}
    | {"if", "then", "else", "fi", "for", "do", "done", "while", "case", "esac", "alias", "eval", "exec"}
)
_WRAPPERS = frozenset({"sudo", "env", "time", "nohup", "exec"})
_RUN_WRAPPERS = frozenset({"uv", "poetry", "pipx", "pdm", "hatch", "rye"})
"""Programs whose `run` launches a script as a runner does: `uv run scripts/x.py` is `python scripts/x.py`."""
_CLAUSES = re.compile(r"[,;:()]|\s(?:but|and then|then)\s")
_PROHIBITION = re.compile(r"\b(?:never|do not|does not|must not|should not|shall not|may not|avoid|not to)\b")
_PROMPT = re.compile(r"^\s*[$>]\s+")
_ASSIGNMENT = re.compile(r"^[A-Za-z_]\w*=")
_PROGRAM = re.compile(r"(?:\.{0,2}/)?[A-Za-z][\w.+-]*(?:/[\w.+-]+)*")
_FILE = re.compile(r"[\w.-]+\.[A-Za-z0-9]{1,5}")
_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
_INFO = re.compile(r"[\w+#.-]+")

_LISTING = re.compile(r"\b(?:sections?|fields?|headings?|headers?|columns?|parts?|keys?)\b[^:]{0,60}:\s*(.+)$", re.I)
"""A sentence that lists output elements after a colon: "A document with these sections: Summary, Impact"."""
_UNDER = re.compile(r"\b(?:under|headings?|sections?|titled)\b", re.I)
_EMPHASIS = re.compile(r"\*\*([^*]+)\*\*|__([^_]+)__|`([^`]+)`")
_LIST_SPLIT = re.compile(r",\s*|;\s*|\s+(?:and|or)\s+")
_TEMPLATE_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*$")
_TEMPLATE_KEY = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?([A-Za-z][\w -]{0,40}?)(?:\*\*)?:(?:\s|$)")
_NOT_A_NAME = re.compile(r"[()=$\[\]{}<>|\"]")
_MAX_WORDS = 5
_MAX_PLAIN_WORDS = 3  # an output item named by its plain text (no marker, no colon): a short phrase only


@dataclass(frozen=True)
class Command:
    """A command a skill names: how a message shows it, and the words a call's arguments must hold.

    `script`: the command runs a script (`python scripts/x.py`, `uv run scripts/x.py`), and `words` is its file
    name: any runner of it is the same command (python, python3, python3.12, uv run, poetry run, pipx run).
    """

    shown: str
    words: tuple[str, ...]
    script: bool = False


@dataclass(frozen=True)
class Asks:
    """What a skill body asks for that a trace can show, each in the order the body names it."""

    tools: list[str] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)

    @property
    def anything(self) -> bool:
        return bool(self.tools or self.commands or self.outputs)


def skill_asks(body: str, catalog: ToolCatalog, *, strips_comments: bool = True) -> Asks:
    """The tools, commands and output elements `body` names (`strips_comments`: as the minimal runner sends it)."""
    instructions = [
        ins
        for ins in read_instructions(body, strips_comments=strips_comments)
        if ins.kind not in ("field", "delimiter")
    ]
    tools = _unique(name for ins in instructions for name in _tools_of(ins, catalog))
    commands: dict[tuple[str, ...], Command] = {}
    for ins in instructions:
        for command in _commands_of(ins, catalog):
            commands.setdefault(command.words, command)
    outputs: dict[str, str] = {}
    for ins in instructions:
        for name in _outputs_of(ins):
            outputs.setdefault(name.lower(), name)
    return Asks(tools=_bare_once(tools), commands=list(commands.values()), outputs=list(outputs.values()))


def _tools_of(ins: Instruction, catalog: ToolCatalog) -> list[str]:
    """The tools `ins` names, but not in a clause that forbids them ("never send anything with email_send")."""
    if ins.kind == "code":
        return list(catalog.names_in(ins.text))
    found: list[str] = []
    for clause in _CLAUSES.split(ins.text):
        if not _PROHIBITION.search(expand_contractions(clause.lower())):
            found.extend(catalog.names_in(clause))
    return found


def _unique(names: object) -> list[str]:
    return list(dict.fromkeys(names))  # type: ignore[call-overload]


def _bare_once(names: list[str]) -> list[str]:
    """Each tool once, as first written (`email_send` and `mcp__ratchet__email_send` are one tool)."""
    seen: set[str] = set()
    kept: list[str] = []
    for name in names:
        bare = bare_tool_name(name)
        if bare not in seen:
            seen.add(bare)
            kept.append(name)
    return kept


def bare_tool_name(name: str) -> str:
    """A tool's name without an MCP server prefix (`mcp__ratchet__email_send` -> `email_send`)."""
    match = re.match(r"^mcp__[\w-]+?__(.+)$", name)
    return match.group(1) if match else name


# -- commands ------------------------------------------------------------------------------------


def _commands_of(ins: Instruction, catalog: ToolCatalog) -> list[Command]:
    if ins.kind == "code":
        lines = ins.text.split("\n")
        info = lines[0].lower() if len(lines) > 1 and _INFO.fullmatch(lines[0]) else ""
        if info and info not in _SHELL_INFO:
            return []  # python, json, markdown: code the agent may write, not a command it runs
        shell = bool(info)
        candidates = lines[1:] if info else lines
    else:
        shell = False
        candidates = split_code(ins)[1]
    found: list[Command] = []
    for line in candidates:
        line = _PROMPT.sub("", line)
        if line.lstrip().startswith("#"):
            continue
        for part in re.split(r"&&|\|\||[;|]", line):
            command = _command(part.split(), shell=shell, catalog=catalog)
            if command is not None:
                found.append(command)
    return found


def _command(tokens: list[str], *, shell: bool, catalog: ToolCatalog) -> Command | None:
    while tokens and (tokens[0] in _WRAPPERS or _ASSIGNMENT.match(tokens[0])):
        tokens = tokens[1:]
    if not tokens or not _PROGRAM.fullmatch(tokens[0]):
        return None
    first, args = tokens[0], tokens[1:]
    program = first.rsplit("/", 1)[-1]
    if program in _SHELL_BUILTINS or program in catalog.effects:
        return None
    if not shell and not (
        args
        and (
            program in _PROGRAMS
            or first.startswith("./")
            or any(arg.startswith("-") or "/" in arg or _FILE.fullmatch(arg) for arg in args)
        )
    ):
        return None  # a span that is a word or two of prose (`file path`, `stop`), not a command
    plain = [arg for arg in args if not arg.startswith("-")]
    shown = first
    if len(plain) > 1 and program in _RUN_WRAPPERS and plain[0] == "run":
        shown, program, plain = f"{first} run", plain[1].rsplit("/", 1)[-1], plain[1:]
        if _runner(program) and len(plain) > 1:
            shown, plain = f"{shown} {plain[0]}", plain[1:]
        elif not _runner(program):
            return Command(shown=f"{shown} {plain[0]}", words=(plain[0].rsplit("/", 1)[-1],), script=True)
    if plain and _runner(program) and _PROGRAM.fullmatch(plain[0]):
        return Command(shown=f"{shown} {plain[0]}", words=(plain[0].rsplit("/", 1)[-1],), script=True)
    if plain and program in _WITH_SUBCOMMANDS and _SUBCOMMAND.fullmatch(plain[0]):
        return Command(shown=f"{first} {plain[0]}", words=(program, plain[0]))
    return Command(shown=first, words=(program,))


def _runner(program: str) -> bool:
    return program in _RUNNERS or re.fullmatch(r"python\d+(?:\.\d+)?", program) is not None


# -- output --------------------------------------------------------------------------------------


def _outputs_of(ins: Instruction) -> list[str]:
    if ins.kind == "code":
        return _template_names(ins.text) if ins.output else []
    name = output_name(ins)
    if name is not None:
        plain = ins.kind != "heading" and name == ins.text
        cleaned = _name(name, max_words=_MAX_PLAIN_WORDS if plain else _MAX_WORDS)
        return [cleaned] if cleaned else []
    if ins.kind not in ("sentence", "item"):
        return []
    listing = _LISTING.search(ins.text)
    if listing is not None:
        names = [_name(part, max_words=_MAX_WORDS) for part in _LIST_SPLIT.split(listing.group(1))]
        return [name for name in names if name]
    under = _UNDER.search(ins.text)
    if under is not None:
        spans = (next(g for g in m.groups() if g) for m in _EMPHASIS.finditer(ins.text, under.end()))
        return [name for name in (_name(span, max_words=_MAX_WORDS) for span in spans) if name]
    return []


def _template_names(text: str) -> list[str]:
    """Headings and `Key:` lines of a template block (its info line, if any, is not one)."""
    found: list[str] = []
    for line in text.split("\n"):
        match = _TEMPLATE_HEADING.match(line) or _TEMPLATE_KEY.match(line)
        name = _name(match.group(1), max_words=_MAX_WORDS) if match else None
        if name:
            found.append(name)
    return found


def _name(raw: str, *, max_words: int) -> str | None:
    """An output element's name as a reader would look for it in a reply, or None when it is no name."""
    text = raw.strip().strip("`*").strip()
    head, colon, _ = text.partition(":")
    if colon and head.strip():
        text = head.strip().strip("`*").strip()
    text = re.sub(r"\s*\([^)]*\)", "", text).strip().rstrip(".;,").strip().strip("`*").strip()
    if not text or len(text) > 48 or len(text.split()) > max_words or _NOT_A_NAME.search(text):
        return None
    return text if re.search(r"[A-Za-z]", text) else None
