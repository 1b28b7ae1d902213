from __future__ import annotations

from ratchet.sim.interp import Interpreter
from ratchet.sim.program import extract, parse_program

BODY = """
Intro prose with `not_a_tool(x=1)` in backticks, ignored.

## Inputs
- `$n`: how many, a `number` (default `3`).
- `$who`: the person, an `email`.

## Steps
1. <!-- a comment --> Start: `$items = []` and `$kind = "none"`.
2. If `$n > 5`: `$kind = "big"`.
3. Otherwise, if `$n > 2`: `$kind = "medium"`.
4. Otherwise: `$kind = "small"`.
5. For each `$i` in `[1, 2]`:
   - Ask: `lookup(key=$i)` as `$r` and `$items = $items + [$r.value]`.
6. Done: `stop`. `$kind = "unreachable"`

## Output
- `kind`: `$kind`
- `items`: `$items`
- `who`: `$who`
"""


def test_program_runs_branches_loops_and_records() -> None:
    program = parse_program(BODY, frozenset({"lookup"}))
    first = Interpreter(program, "mail ana@example.com", [])
    call = first.next_call()
    assert call is not None and (call.tool, call.arguments) == ("lookup", {"key": 1})
    done = Interpreter(program, "mail ana@example.com", [{"value": "a"}, {"value": "b"}])
    assert done.next_call() is None
    assert done.render() == ["kind: medium", "items:", "  - a", "  - b", "who: ana@example.com"]


def test_unoffered_tools_are_prose() -> None:
    program = parse_program(BODY, frozenset())
    interp = Interpreter(program, "n = 9", [])
    assert interp.next_call() is None
    assert interp.render()[0] == "kind: big"


def test_entity_extraction() -> None:
    assert extract("owner/name", "see acme/widgets#4 and data/x.csv") == "acme/widgets"
    assert extract("owner/name", "open data/x.csv") is None
    assert extract("#number", "acme/ledger issue 12") == 12
    assert extract("file path", "convert receipts/london.csv now") == "receipts/london.csv"
    assert extract("currency code", "in EUR please") == "EUR"
    assert extract("unknown kind", "x") is None
