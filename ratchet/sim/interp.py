"""Running a skill program against a transcript, statelessly.

Each model call re-runs the program from the top. Tool calls already answered in the
transcript take their recorded results, in order; the first call without a result is the
next action. When the program ends (or reaches `stop`), the Output section is the answer.
An expression that cannot be computed yields None, as a careless but consistent model would.
An `unread` step (a condition it cannot read) is skipped with its children and its chained branches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ratchet.sim.expr import ExprError, evaluate, render_scalar
from ratchet.sim.program import Action, Program, Step, extract

MAX_ACTIONS = 5_000


@dataclass
class NextCall:
    tool: str
    arguments: dict[str, Any]


class _Stop(Exception):
    pass


class _Pending(Exception):
    def __init__(self, call: NextCall) -> None:
        self.call = call


class Interpreter:
    def __init__(self, program: Program, request_text: str, results: list[Any]) -> None:
        self.program = program
        self.results = results
        self.used = 0
        self.budget = MAX_ACTIONS
        self.env: dict[str, Any] = {}
        for spec in program.inputs:
            value = extract(spec.kind, request_text)
            if value is None and spec.default is not None:
                value = self._value(spec.default)
            self.env[spec.var] = value

    def next_call(self) -> NextCall | None:
        """The next tool call to make, or None when the program has finished."""
        try:
            self._block(self.program.steps)
        except _Pending as pending:
            return pending.call
        except _Stop:
            pass
        return None

    def render(self) -> list[str]:
        lines: list[str] = []
        for name, expr in self.program.outputs:
            value = self._value(expr)
            if isinstance(value, list) and value:
                lines.append(f"{name}:")
                lines.extend(f"  - {render_value(item)}" for item in value)
            else:
                lines.append(f"{name}: {render_value(value) if value != [] else 'none'}")
        return lines

    def _value(self, expr: Any) -> Any:
        try:
            return evaluate(expr, self.env)
        except ExprError:
            return None

    def _block(self, steps: list[Step]) -> None:
        chain_done: bool | None = None  # None: no if-chain open
        for step in steps:
            if step.kind == "unread":
                # Its condition is unknown: skip it, its children and the branches chained after it.
                chain_done = True
            elif step.kind == "if" or (step.kind in ("elif", "else") and chain_done is None):
                taken = step.kind == "else" or bool(self._value(step.cond))
                if taken:
                    self._body(step)
                chain_done = taken
            elif step.kind in ("elif", "else"):
                if not chain_done and (step.kind == "else" or bool(self._value(step.cond))):
                    self._body(step)
                    chain_done = True
                if step.kind == "else":
                    chain_done = None
            elif step.kind == "for":
                chain_done = None
                items = self._value(step.cond)
                for item in items if isinstance(items, (list, tuple)) else []:
                    self.env[step.var] = item
                    self._body(step)
            else:
                chain_done = None
                self._body(step)

    def _body(self, step: Step) -> None:
        for action in step.actions:
            self._act(action)
        self._block(step.children)

    def _act(self, action: Action) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _Stop
        if action.kind == "stop":
            raise _Stop
        if action.kind == "assign" and action.target:
            self.env[action.target] = self._value(action.expr)
            return
        if action.kind == "call":
            arguments = {name: self._value(node) for name, node in action.args}
            if self.used >= len(self.results):
                raise _Pending(NextCall(action.tool, arguments))
            result = self.results[self.used]
            self.used += 1
            if action.target:
                self.env[action.target] = result


def render_value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={render_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    return render_scalar(value)
