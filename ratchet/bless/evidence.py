"""Whether a trace shows its skill at work, as far as the machinery can tell without a model (issue 24).

A golden that shows nothing of its skill replays identically under any edit of it, so every edit would
PASS. For a task tasks.yaml routes to a skill (a canary is no skill's, and exempt) the evidence is:

- a skill was loaded (trace.skills_fired); when it is another than tasks.yaml's, the golden is that skill's and
  every check of the expected one names the task `unrouted` (ratchet.gate.unseen): the rest is read against it;
- its work: a tool the skill names was called (under its MCP name too), a command it names was run (the
  command's words in a call's arguments, as a harness's Bash receives them), or the reply says why not
  (a sentence naming one with a negation: "I could not run pdftotext here"); for a skill that names no
  tool or command, any tool call;
- its output: the reply carries at least half of the output elements the skill prescribes.

What the skill asks for is read from its body (ratchet.bless.asks). A trace is thin when the skill was not
loaded, or when the skill asks for something a trace can show and the trace shows neither its work nor its
output. A skill that asks for nothing a trace can show is shown at work by being loaded. A simulator run of
a skill the simulator cannot follow is left to the `unfollowed` warning: `record` refuses it without
--allow-unfollowed and every simulated check of the skill names it (docs/adr/0012-never-a-silent-pass.md).
docs/adr/0020-thin-goldens.md says why these and not more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, Field

from ratchet.bless.asks import Asks, bare_tool_name, skill_asks
from ratchet.config.project import Project
from ratchet.diff.effects import ToolCatalog, tool_catalog
from ratchet.diff.reading import expand_contractions
from ratchet.goldens.trace import Trace
from ratchet.sim.follow import follow_report
from ratchet.skills.names import skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.world.state import World, load_world
from ratchet.world.tools import offered_tools

AT_RECORD = "; `ratchet bless` refuses it unless --accept-thin"
REFUSED = "; re-record it with an agent that follows the skill, or bless it with --accept-thin"
ACCEPTED = "; blessed with --accept-thin: every check that replays it names it"

_NEGATORS = frozenset({"not", "no", "cannot", "unable", "unavailable", "without", "never", "instead"})
_SENTENCES = re.compile(r"(?<=[.!?:])\s+|\n+")
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


class Evidence:
    """Reads traces against one project's skills and the tools its world offers."""

    def __init__(self, skills: Mapping[str, Skill], *, catalog: ToolCatalog, offered: frozenset[str]) -> None:
        self.skills = {skill_key(name): skill for name, skill in skills.items()}
        self.catalog = catalog
        self.offered = offered  # the tool names the agent is offered: what the simulator can follow depends on them
        self._asks: dict[tuple[str, bool], Asks] = {}
        self._followable: dict[str, bool] = {}

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
        shown, output_missing = _output_shown(asks.outputs, trace.final_output)
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
            self._asks[key] = skill_asks(skill.body, self.catalog, strips_comments=strips_comments)
        return self._asks[key]

    def _sim_follows(self, skill: Skill) -> bool:
        name = skill_key(skill.name)
        if name not in self._followable:
            report = follow_report(skill.body, self.offered, body_line=skill.body_line)
            self._followable[name] = report.followable
        return self._followable[name]


def project_evidence(project: Project) -> Evidence:
    """An Evidence over the project's working-tree skills and world (what `ratchet bless` checks against)."""
    world = load_world(project.path("world"), workspaces_dir=None, workspace=None, frozen_time=project.config.clock)
    return Evidence.over(load_skills(project.path("skills")), world)


# -- the checks ----------------------------------------------------------------------------------


def _work_shown(asks: Asks, trace: Trace) -> bool:
    if not (asks.tools or asks.commands):
        return bool(trace.tool_calls)  # the skill names nothing to call: any call is work
    wanted = {bare_tool_name(name) for name in asks.tools}
    if any(bare_tool_name(call.name) in wanted for call in trace.tool_calls):
        return True
    ran = [_strings(call.arguments) for call in trace.tool_calls]
    if any(all(_has_word(text, word) for word in command.words) for command in asks.commands for text in ran):
        return True
    return _says_why_not(asks, trace.final_output)


def _says_why_not(asks: Asks, output: str) -> bool:
    """A sentence of the reply names a tool or command of the skill and says it was not, or could not be, used."""
    for sentence in _SENTENCES.split(output):
        if not set(re.findall(r"[a-z]+", expand_contractions(sentence.lower()))) & _NEGATORS:
            continue
        if any(_has_word(sentence, name) or _has_word(sentence, bare_tool_name(name)) for name in asks.tools):
            return True
        if any(all(_has_word(sentence, word) for word in command.words) for command in asks.commands):
            return True
    return False


def _output_shown(outputs: Sequence[str], output: str) -> tuple[bool, str | None]:
    """(at least half of the prescribed output elements are in the reply, what is missing if they are not)."""
    if not outputs:
        return False, None
    reply = _normal(output)
    present = [name for name in outputs if re.search(rf"(?<![a-z0-9]){re.escape(_normal(name))}(?![a-z0-9])", reply)]
    if len(present) >= max(1, (len(outputs) + 1) // 2):
        return True, None
    if not present:
        return False, f"the output has none of the fields it prescribes ({_names(outputs)})"
    absent = [name for name in outputs if name not in present]
    return False, (
        f"the output has {len(present)} of the {len(outputs)} fields it prescribes (missing: {_names(absent)})"
    )


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
