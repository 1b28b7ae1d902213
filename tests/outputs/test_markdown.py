"""The Markdown report, read back by a CommonMark parser: decision first, one row per distinct finding,
one collapsed evidence block per pair that differs, and no user text that escapes its place."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.outputs.markdown import OUTPUTS_NOT_CARRIED, render_markdown
from tests.outputs.verdicts import mixed_verdict, pair

PARSER = MarkdownIt("commonmark").enable("table")


def tokens(text: str) -> list[Token]:
    return PARSER.parse(text)


def table_rows(text: str) -> list[list[str]]:
    """The first table's body rows, each as its cells' inline source."""
    toks = tokens(text)
    rows: list[list[str]] = []
    inside = False
    for tok in toks:
        if tok.type == "tbody_open":
            inside = True
        elif tok.type == "tbody_close":
            break
        elif inside and tok.type == "tr_open":
            rows.append([])
        elif inside and tok.type == "inline":
            rows[-1].append(tok.content)
    return rows


def test_the_decision_line_comes_first_then_the_banner_then_what_was_not_checked() -> None:
    text = render_markdown(mixed_verdict())
    lines = text.splitlines()
    assert lines[0] == "❌ **Ratchet: BLOCK** · 10 regression(s), first fx-01 · `aaaaaaaaaa` → `bbbbbbbbbb`"
    assert lines[2] == f"> {SIMULATED_CHECK_BANNER}"
    assert lines[4:7] == [
        "- **settings changed:** ratchet.yaml (checked with the base's settings)",
        "- **submodule changed:** skills/vendored (Ratchet cannot see inside it)",
        "- **not checked:** fx: the frontmatter key \\`allowed-tools\\` is never sent",
    ]
    kinds = [t.type for t in tokens(text)]
    assert kinds[:3] == ["paragraph_open", "inline", "paragraph_close"] and kinds[3] == "blockquote_open"


def test_no_banner_when_the_models_were_real() -> None:
    assert SIMULATED_CHECK_BANNER not in render_markdown(mixed_verdict(simulated=False))


def test_one_row_per_distinct_finding_with_the_tasks_it_hit_collapsed() -> None:
    rows = table_rows(render_markdown(mixed_verdict()))
    assert rows == [
        ["new side-effecting call email\\_send \\[send\\]", "hard", "regression x9", "9 tasks: fx-01..09"],
        ["arguments changed: github\\_add\\_label", "diff", "regression x1", "gh-02"],
        ["call no longer made: github\\_comment", "diff", "unsure x1", "gh-05"],
        ["final output differs", "diff", "regression x1", "gh-02"],
        ["no cached answer", "info", "error x1", "gh-09"],
        ["volatile fact fx.EUR moved: 1.1 -\\> 1.2", "info", "drift x1", "fx-20"],
    ]


def test_cost_time_and_the_identical_pairs_are_stated_once() -> None:
    text = render_markdown(mixed_verdict())
    assert "\n2 identical to the golden: fx-30, fx-31\n" in text
    assert "\ncost $0.025536 · 15 of 23 goldens replayed · 0.7 s · gate config `cascade`\n" in text
    assert "\n- not checked by the simulator: fx: a reworded paragraph\n" in text


def test_every_pair_that_differs_gets_one_collapsed_evidence_block() -> None:
    text = render_markdown(mixed_verdict())
    blocks = [t.content for t in tokens(text) if t.type == "html_block"]
    opened = [b for b in blocks if b.startswith("<details>")]
    assert len(opened) == 13 and sum(b.strip() == "</details>" for b in blocks) == 13
    assert opened[0] == "<details>\n<summary>fx-01 — regression (level0)</summary>\n"
    fences = [t for t in tokens(text) if t.type == "fence"]
    assert fences[0].info == "diff"
    assert fences[0].content == "+ new send call email_send(body='Total 1', to='finance@example.com')  (replay #1)\n"
    assert f"**Output diff:** {OUTPUTS_NOT_CARRIED} final output differs." in text


def test_each_tiers_opinion_and_the_drift_evidence_are_in_the_block() -> None:
    text = render_markdown(mixed_verdict())
    gh02 = text[text.index("<summary>gh-02") :]
    gh02 = gh02[: gh02.index("</details>")]
    assert "| super | sim/judge\\-super | regression | 0.75 | the label moved |" not in gh02  # '-' is not escaped
    assert "| super | sim/judge-super | regression | 0.75 | the label moved |" in gh02
    fx20 = text[text.index("<summary>fx-20") :]
    assert "**Drift:** drift · base replay ran and matches the replay" in fx20
    assert "- fx.EUR: 1.1 → 1.2 (confirmed by fixtures)" in fx20
    assert "**Next:** re-bless the golden" in fx20


def test_user_text_cannot_break_the_table_the_block_or_inject_html() -> None:
    text = render_markdown(mixed_verdict())
    html = PARSER.render(text)
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    # the hostile rationale stays in its one cell of the judges table: 5 cells, the pipe escaped
    judges = [t for t in tokens(text) if t.type == "inline" and "onerror" in t.content]
    assert len(judges) == 1
    blocks = [t.content for t in tokens(text) if t.type == "html_block"]
    assert sum(b.strip() == "</details>" for b in blocks) == 13


def test_a_hostile_task_id_is_escaped_in_the_summary() -> None:
    verdict = mixed_verdict(pairs=[pair("x</summary><b>", "regression")])
    assert "<summary>x&lt;/summary&gt;&lt;b&gt; — regression (level0)</summary>" in render_markdown(verdict)


def test_the_same_verdict_renders_the_same_bytes() -> None:
    assert render_markdown(mixed_verdict()) == render_markdown(mixed_verdict())
