"""A pending trace `ratchet bless` refuses as thin says so on the review page, with the command that blesses it.

Why (issue 24): the page's accept runs `bless_pending` without --accept-thin, so a trace that shows no sign of
its skill at work (ratchet.bless.evidence) came back as a refusal after the click, and nothing on the page said
why before it or how to bless it anyway. The page now names the refusal, one line per task, and the CLI command
(`ratchet bless --accept-thin TASK`); the page itself offers no one-click accept-thin: blessing a golden that
proves nothing is a deliberate act, taken where bless records it.
"""

from __future__ import annotations

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.project import Project
from ratchet.goldens.trace import read_trace, write_trace
from ratchet.review.actions import DecideAnswer, DecideRequest, pending_session
from ratchet.review.collect import pending_page
from ratchet.review.page import render_page
from tests.review.conftest import CHANGED_TASK
from tests.review.test_page import _texts

THIN = (
    f"task {CHANGED_TASK} shows no sign of skill github-triage at work: no tool it names was called "
    "(github_get_issue, github_add_label, github_comment, github_close_issue, github_assign); the output has none "
    "of the fields it prescribes (repo, issue, status, type, priority, component, assignee, duplicate_of)"
    "; re-record it with an agent that follows the skill, or bless it with --accept-thin"
)
COMMAND = f"ratchet bless --accept-thin {CHANGED_TASK}"


def _thin(project: Project) -> None:
    """The pending trace as an agent that ignores the skill leaves it: the skill loaded, no call, no fields."""
    path = project.pending_dir / f"{CHANGED_TASK}.json"
    write_trace(path, read_trace(path).model_copy(update={"tool_calls": [], "final_output": "Done."}))


def test_a_thin_pending_trace_shows_bless_s_refusal_and_the_command(changed_argument: Project) -> None:
    _thin(changed_argument)
    page = pending_page(changed_argument)
    assert page.items[0].thin == THIN
    for served in (False, True):
        html = render_page(page, served=served)
        assert _texts(html, "thin") == [f"ratchet bless refuses it: {THIN}. To bless it anyway: {COMMAND}"]
        assert "accept-thin" not in "".join(_texts(html, "actions"))  # no one-click accept-thin
    # The file page's how-to would say `ratchet bless TASK`, which refuses it: the thin line says what works.
    assert f"ratchet bless {CHANGED_TASK}" not in render_page(page)


def test_a_trace_that_shows_its_skill_at_work_has_no_thin_line(changed_argument: Project) -> None:
    page = pending_page(changed_argument)
    assert page.items[0].thin is None
    assert _texts(render_page(page), "thin") == []


def test_accept_answers_with_the_refusal_and_the_command_and_the_command_blesses_it(
    changed_argument: Project,
) -> None:
    _thin(changed_argument)
    pending = changed_argument.pending_dir / f"{CHANGED_TASK}.json"
    answer = pending_session(changed_argument).decide(DecideRequest(item=CHANGED_TASK, action="accept"))
    assert answer == DecideAnswer(ok=False, state="refused", message=f"{THIN}: {COMMAND}")
    assert pending.is_file()
    result = CliRunner().invoke(app, [*COMMAND.split()[1:], "--project", str(changed_argument.root)])
    assert result.exit_code == 0, result.stderr
    assert not pending.exists()
    golden = read_trace(changed_argument.path("goldens") / "github-triage" / f"{CHANGED_TASK}.json")
    assert golden.thin and golden.final_output == "Done."
