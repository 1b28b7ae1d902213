"""What the simulator can follow of a skill body: free-form prose, unread conditions, bad spans, line numbers."""

from __future__ import annotations

from ratchet.core.markup import drop_html_comments
from ratchet.sim.follow import NOTHING_TO_READ, UnfollowedStep, follow_report
from ratchet.sim.interp import Interpreter
from ratchet.sim.program import numbered_lines, parse_program

FREE_FORM = """# Release notes

Write release notes the way the team likes them.

## Steps
1. Read the merged pull requests since the last tag.
2. Group them into features, fixes and chores.

## Output
A short Markdown list, newest first.
"""

UNREAD = """## Steps
1. Look: `read_file(path="a.txt")` as `$a`.
2. If the file is missing, stop.
   - Then: `lookup(key=1)` as `$r`.
3. Otherwise:
   - `lookup(key=2)` as `$s`
4. When it is Friday: `lookup(key=3)`.
5. `lookup(key=4)`

## Output
- `a`: `$a`
"""


def test_a_free_form_skill_is_not_followable() -> None:
    report = follow_report(FREE_FORM, frozenset({"read_file"}), body_line=5)
    assert (report.followable, report.reason, report.unfollowed) == (False, NOTHING_TO_READ, [])
    assert report.read_lines == [5 + 4, 5 + 8]  # only the Steps and Output headings


def test_an_unreadable_condition_is_skipped_with_its_children_and_its_branches() -> None:
    tools = frozenset({"read_file", "lookup"})
    program = parse_program(UNREAD, tools)
    assert [step.kind for step in program.steps] == ["do", "unread", "unread", "unread", "do"]
    interp = Interpreter(program, "", ["text"])
    call = interp.next_call()
    assert call is not None and (call.tool, call.arguments) == ("lookup", {"key": 4})
    assert follow_report(UNREAD, tools, body_line=3).unfollowed == [
        UnfollowedStep(
            line=5, last_line=6, text="If the file is missing, stop.", why="a condition the simulator cannot read"
        ),
        UnfollowedStep(line=7, last_line=8, text="Otherwise:", why="a branch of a condition the simulator cannot read"),
        UnfollowedStep(
            line=9, last_line=9, text="When it is Friday: `lookup(key=3)`.", why="a condition the simulator cannot read"
        ),
    ]
    # Only what runs is read: the skipped children's spans are not.
    assert follow_report(UNREAD, tools, body_line=3).read_lines == [3, 4, 10, 12, 13]


def test_a_loop_without_its_two_spans_is_unread() -> None:
    body = "## Steps\n1. For each row in the file:\n   - `lookup(key=1)`\n"
    program = parse_program(body, frozenset({"lookup"}))
    assert [step.kind for step in program.steps] == ["unread"]
    assert Interpreter(program, "", []).next_call() is None


def test_bad_call_spans_and_unoffered_tools_are_named_with_their_line() -> None:
    body = (
        "Intro `not_a_tool(x=1)` is prose outside the sections.\n\n## Steps\n"
        '1. Read: `lookup(key=)` then\n   `send_mail(to="x")` and `$n = len([1])`.\n\n## Output\n- `n`: `$n`\n'
    )
    report = follow_report(body, frozenset({"lookup"}), body_line=10)
    assert report.followable
    assert report.unfollowed == [
        UnfollowedStep(line=13, last_line=13, text="lookup(key=)", why="a call with arguments it cannot parse"),
        UnfollowedStep(line=14, last_line=14, text='send_mail(to="x")', why="a tool it is not offered: send_mail"),
    ]
    assert report.read_lines == [12, 14, 16, 17]


def test_line_numbers_survive_a_comment_spanning_lines() -> None:
    body = "<!-- a\ncomment\n-->\n## Steps\n1. <!-- x --> Go: `$a = 1`\n\n## Output\n- `a`: `$a`\n"
    report = follow_report(body, frozenset(), body_line=1)
    assert report.read_lines == [4, 5, 7, 8]


def test_numbered_lines_are_the_lines_the_parser_always_read() -> None:
    for body in ("a\n<!-- b\nc -->d\ne", "x <!-- unclosed\ny", "\r\nz\n\n<!---->w\n", "", "one"):
        assert [line for _, line in numbered_lines(body)] == drop_html_comments(body).splitlines()
    assert numbered_lines("a\n<!-- b\nc -->d\ne") == [(1, "a"), (3, "d"), (4, "e")]
