"""Whether a trace shows its skill at work, as far as the machinery can tell without a model (issue 24).

A golden that shows nothing of its skill replays identically under any edit of it, so every edit would
PASS. For a task tasks.yaml routes to a skill (a canary is no skill's, and exempt) the evidence is:

- a skill was loaded (trace.skills_fired); when it is another than tasks.yaml's, the golden is that skill's and
  every check of the expected one names the task `unrouted` (ratchet.gate.unseen): the rest is read against it;
- its work: a tool the skill names was called (under its MCP name too), a command it names was run (the
  command's words in a call's arguments, as a harness's Bash receives them; a script by any runner of it), or
  the reply says why not (a negation about one: "I could not run pdftotext", "pdftotext was not available");
  for a skill that names no tool or command, any tool call;
- its output: the reply, or what a call wrote, carries at least half of the output elements the skill
  prescribes as headings, `Key:` lines, bold labels, table headers or JSON keys (not words in prose).

What the skill asks for is read from its body (ratchet.gate.asks). Bless refuses a thin golden unless
--accept-thin; the check decides it again from the base's goldens and skills (ratchet.gate.unseen), so a
golden blessed before this check, or with its `thin` flag stripped, is named too. A trace is thin when the skill was not
loaded, or when the skill asks for something a trace can show and the trace shows neither its work nor its
output. A skill that asks for nothing a trace can show is shown at work by being loaded. A simulator run of
a skill the simulator cannot follow is left to the `unfollowed` warning: `record` refuses it without
--allow-unfollowed and every simulated check of the skill names it (docs/adr/0012-never-a-silent-pass.md).
docs/adr/0020-thin-goldens.md says why these and not more.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from ratchet.core.kept import Kept
from ratchet.diff.effects import ToolCatalog, tool_catalog
from ratchet.diff.reading import expand_contractions
from ratchet.gate.asks import Asks, Command, bare_tool_name, skill_asks
from ratchet.goldens.trace import Trace
from ratchet.sim.follow import follow_report
from ratchet.skills.names import skill_key
from ratchet.skills.skill import Skill
from ratchet.world.state import World
from ratchet.world.tools import offered_tools

_COULD_NOT = (
    r"\b(?:could not|cannot|can not|was not able to|were not able to|am not able to|is not able to|unable to|"
    r"failed to|did not|do not have|had no|have no|no access to|without access to)\s+(?:\w+\s+){0,2}?"
    r"(?:run|use|call|read|execute|invoke|access|launch|reach|open)\b[^.!?]{0,40}?"
)
"""A negation of the act, close before the tool or command it is about: "I could not run pdftotext"."""
_NOT_THERE = r"\s+(?:is|was|were|are)\s+(?:unavailable|not available|not installed|missing|not found|failed|disabled)\b"
"""A negation after it: "pdftotext was not available"."""
_LAUNCHER = r"(?:python[\d.]*|py|node|bash|sh|zsh|ruby|perl|deno|bun|php|Rscript|npx|(?:uv|poetry|pipx|pdm|hatch|rye)\s+run(?:\s+python[\d.]*)?)"
"""Any runner of a script: the script's path is what says which command it is (python, python3, uv run alike)."""
_LABEL = re.compile(r"^\s{0,3}(?:#{1,6}\s+(.+?)\s*#*$|(?:[-*+]\s+)?\**([^:*\n]{1,60}?)\**\s*:(?:\s|$))")
_BOLD = re.compile(r"(?:^|\n)\s*(?:[-*+]\s+)?(?:\*\*|__)([^*_\n]{1,60})(?:\*\*|__)")
_JSON_KEY = re.compile(r'"([^"\n]{1,60})"\s*:')
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?")
_MAX_SHOWN = 8


class Exercise(BaseModel):
    """What one trace shows of its skill at work: nothing missing, or why it is thin."""

    task_id: str
    skill: str | None = Field(description="The skill tasks.yaml routes the task to (None: a canary).")
    missing: list[str] = Field(default_factory=list, description="Why it shows no sign of the skill at work.")

    @property
    def thin(self) -> bool:
        return bool(self.missing)

    def line(self) -> str:
        """One line naming the task, its skill and what is missing (record and bless add what follows)."""
        return f"task {self.task_id} shows no sign of skill {self.skill} at work: {'; '.join(self.missing)}"


_ASKS: Kept[tuple[str, bool, tuple[tuple[str, str], ...]], Asks] = Kept(256)
"""skill_asks by everything it reads (body, comment stripping, catalog): each check's and each bench edit's
Evidence asks again for the same few skills, and reading a body's instructions is most of the thin check."""


class Evidence:
    """Reads traces against one project's skills and the tools its world offers."""

    def __init__(self, skills: Mapping[str, Skill], *, catalog: ToolCatalog, offered: frozenset[str]) -> None:
        self.skills = {skill_key(name): skill for name, skill in skills.items()}
        self.catalog = catalog
        self.offered = offered  # the tool names the agent is offered: what the simulator can follow depends on them
        self._asks: dict[tuple[str, bool], Asks] = {}
        self._followable: dict[str, bool] = {}
        self._catalog_key = tuple(sorted(catalog.effects.items()))  # all of the catalog skill_asks reads

    @classmethod
    def over(cls, skills: Mapping[str, Skill], world: World) -> Evidence:
        """For traces run over `world` (the tools it offers do not depend on a task's workspace)."""
        return cls(
            skills,
            catalog=tool_catalog(world.declared_tools),
            offered=frozenset(tool.name for tool in offered_tools(world)),
        )

    def exercise(self, trace: Trace, expected: str | None) -> Exercise:
        """What `trace` shows of `expected` (the skill tasks.yaml routes its task to) at work."""
        if expected is None:
            return Exercise(task_id=trace.task_id, skill=None)  # a canary: no skill should take it
        if not trace.skills_fired:
            return Exercise(task_id=trace.task_id, skill=expected, missing=["it loaded no skill"])
        # Another skill than tasks.yaml's: the golden is that skill's (goldens/<fired>/), and every check of the
        # expected skill names the task as `unrouted` (ratchet.gate.unseen), so its own work is what to show.
        loaded = any(skill_key(ref.name) == skill_key(expected) for ref in trace.skills_fired)
        found = Exercise(task_id=trace.task_id, skill=expected if loaded else trace.fired_skill)
        skill = self.skills.get(skill_key(found.skill or expected))
        if skill is None or (trace.upstream == "sim" and not self._sim_follows(skill)):
            return found  # no body to read it against; or a gap the `unfollowed` warning already names
        asks = self._asks_of(skill, strips_comments=trace.harness is None)
        if not asks.anything:
            return found  # it names nothing to call and prescribes no output: being loaded is the evidence
        written = [trace.final_output, *(_strings(c.arguments) for c in trace.tool_calls if c.effect != "read")]
        shown, output_missing = _output_shown(asks.outputs, written)
        if _work_shown(asks, trace) or shown:
            return found
        missing = []
        if asks.tools:
            missing.append(f"no tool it names was called ({_names(asks.tools)})")
        if asks.commands:
            missing.append(f"no command it names was run ({_names([c.shown for c in asks.commands])})")
        if output_missing:
            missing.append(output_missing)
        return found.model_copy(update={"missing": missing})

    def _asks_of(self, skill: Skill, *, strips_comments: bool) -> Asks:
        key = (skill_key(skill.name), strips_comments)
        if key not in self._asks:
            self._asks[key] = _ASKS.get(
                (skill.body, strips_comments, self._catalog_key),
                lambda: skill_asks(skill.body, self.catalog, strips_comments=strips_comments),
            )
        return self._asks[key]

    def _sim_follows(self, skill: Skill) -> bool:
        name = skill_key(skill.name)
        if name not in self._followable:
            report = follow_report(skill.body, self.offered, body_line=skill.body_line)
            self._followable[name] = report.followable
        return self._followable[name]


# -- the checks ----------------------------------------------------------------------------------


def _work_shown(asks: Asks, trace: Trace) -> bool:
    if not (asks.tools or asks.commands):
        return bool(trace.tool_calls)  # the skill names nothing to call: any call is work
    wanted = {bare_tool_name(name) for name in asks.tools}
    if any(bare_tool_name(call.name) in wanted for call in trace.tool_calls):
        return True
    ran = [_strings(call.arguments) for call in trace.tool_calls]
    if any(_ran(command, text) for command in asks.commands for text in ran):
        return True
    return _says_why_not(asks, trace.final_output)


def _ran(command: Command, text: str) -> bool:
    """`command` in a call's arguments: a script after any runner of it, else all of the command's words."""
    if command.script:
        script = re.escape(command.words[0])
        return re.search(rf"(?<![\w.-]){_LAUNCHER}(?:\s+-\S+)*\s+(?:\S*/)?{script}(?![\w-])", text) is not None
    return all(_has_word(text, word) for word in command.words)


def _says_why_not(asks: Asks, output: str) -> bool:
    """The reply says a tool or command of the skill was not, or could not be, used: a negation about it."""
    text = expand_contractions(output.lower())
    names = [name.lower() for tool in asks.tools for name in {tool, bare_tool_name(tool)}]
    names += [(command.words[-1] if command.script else command.shown).lower() for command in asks.commands]
    for name in names:
        about = rf"(?:\S*/)?{re.escape(name)}(?![\w-])"
        if re.search(_COULD_NOT + about, text) or re.search(rf"(?<![\w.-]){about}\S*{_NOT_THERE}", text):
            return True
    return False


def _output_shown(outputs: Sequence[str], written: Sequence[str]) -> tuple[bool, str | None]:
    """(at least half of the prescribed output elements are labels in what was written, what is missing if not)."""
    if not outputs:
        return False, None
    labels = " | ".join(label for text in written for label in _labels(text))
    present = [name for name in outputs if re.search(rf"(?<![a-z0-9]){re.escape(_normal(name))}(?![a-z0-9])", labels)]
    if len(present) >= max(1, (len(outputs) + 1) // 2):
        return True, None
    if not present:
        return False, f"the output has none of the fields it prescribes ({_names(outputs)})"
    absent = [name for name in outputs if name not in present]
    return False, (
        f"the output has {len(present)} of the {len(outputs)} fields it prescribes (missing: {_names(absent)})"
    )


def _labels(text: str) -> list[str]:
    """The headings, `Key:` lines, bold labels, table headers and JSON keys of a reply, normalised."""
    lines = text.split("\n")
    found = [m.group(1) or m.group(2) for line in lines if (m := _LABEL.match(line))]
    found += [m.group(1) for m in _BOLD.finditer(text)] + [m.group(1) for m in _JSON_KEY.finditer(text)]
    for line, below in itertools.pairwise(lines):
        if "|" in line and _TABLE_RULE.fullmatch(below.strip()):
            found.extend(cell for cell in line.split("|") if cell.strip())
    return [_normal(label) for label in found]


def _normal(text: str) -> str:
    """Lower case, `_` and `-` as spaces, Markdown marks dropped: `total_usd`, "Total USD", **Total-USD** alike."""
    return " ".join(re.sub(r"[_\-*#`]+", " ", text.lower()).split())


def _strings(value: object) -> str:
    """Every string in a call's arguments, one per line (a shell command, a path, a query)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_strings(item) for item in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(item) for item in value)
    return json.dumps(value)


def _has_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w-])", text) is not None


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:_MAX_SHOWN])
    return shown + (", ..." if len(names) > _MAX_SHOWN else "")
