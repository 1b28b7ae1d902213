"""Selection at 1,000 skills: does a one-skill `ratchet check --level0-only` grow with tasks, or tasks x skills?

Builds three synthetic projects in a temp dir, each a real git repository with 1,000 skills and
100 / 1,000 / 10,000 goldens, commits a description edit to one skill (s0000-...), and runs the
real command in a fresh process (`python -m ratchet check --level0-only`), timing it and reading
its peak RSS (wait4, so git's children count too). Alongside, in this process, it times selection
alone (gate.select.affected_goldens through the routing index) and, for 100 prompts, the old
per-prompt matcher (tests/helpers/routing_oracle.py) against the index, so the figures below are
ratios from one run. Issue 16's must-show: 10,000 goldens within 10x of 1,000, and the 10,000-golden
check under 15 s and 300 MB.

The edited skill owns 10 tasks at every size (so every check replays the same 10 goldens on the
simulator; what grows is what selection reads); the other goldens are spread over the other 999
skills. Those 10 goldens are recorded and blessed for real; the others are that golden rewritten
for their task and skill (the same size and shape), because they are read and routed, never
replayed. Every skill is followable by the simulator (it reads the frozen clock).

Cold (issue 29): the in-process figures above are warm (a token cache serves every round after the
first), so at 10,000 goldens each figure below is the FIRST selection in a fresh process (one
subprocess per measurement: load tasks, goldens and skills, then time affected_goldens; "all of it" is
the loads and the selection together, so a cost moved out of the selection shows), and a one-skill
check in a fresh process (wall time, peak RSS), for the code at --before (default BEFORE, exported with
git archive into a temp dir and run from there) and for this tree, each with an empty work area, with
a work area a check of another edit of the same base filled (the usual case: many edits of one main),
and (selection only) the same edit again. Issue 29's must-show: the first selection with an EMPTY work
area at or under 200 ms in a fresh process. Ratios are before / after with the same work area, from
one run; the machine may be loaded (best of --repeat).
Run: .venv/bin/python benchmarks/selection_scaling.py [--repeat N] [--profile FILE] [--before REV] [--cold-only]
(N: best of N per check; FILE: a cProfile of the largest check, with the share of its named stages)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.agent.trigger import routing_index
from ratchet.bless.record import bless, record_tasks
from ratchet.config.project import load_project
from ratchet.gate.select import affected_goldens
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.goldens.trace import load_goldens
from ratchet.skills.sets import load_skills
from tests.helpers.gitrepo import commit, git, make_repo
from tests.helpers.routing_oracle import old_ranked_scores

ROOT = Path(__file__).resolve().parents[1]
SKILLS = 1_000
SIZES = (100, 1_000, 10_000)
EDITED_TASKS = 10
LIMIT_S, LIMIT_MB, LIMIT_RATIO = 15.0, 300.0, 10.0
COLD_LIMIT_MS = 200.0
BEFORE = "4a7d3b0"  # the tree before the empty work area's first selection was cut (collector paused, words remembered)
OTHER_DESCRIPTION = "Tell the user what day it is for the whole company. Use when asked about holidays."
_CONSONANTS, _VOWELS = "bdfgklmnprtvz", "aiou"
_SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]
RATCHET_YAML = (
    "schema_version: 1\nupstream: sim\n"
    "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
)


def _word(n: int) -> str:
    """A made-up three-syllable word, distinct per n: no stopword, nothing the stemmer cuts."""
    base = len(_SYLLABLES)
    return _SYLLABLES[n // base // base % base] + _SYLLABLES[n // base % base] + _SYLLABLES[n % base]


def _skill_name(i: int) -> str:
    return f"s{i:04d}-{_word(2 * i)}"


def _description(i: int) -> str:
    a, b = _word(2 * i), _word(2 * i + 1)
    return f"Tell the user what day it is for the {a} {b} team. Use when asked about {a} {b} schedules or dates."


def _skill_md(i: int, description: str) -> str:
    return (
        f"---\nname: {_skill_name(i)}\ndescription: {description}\n---\n# What day is it for {_word(2 * i)}\n\n"
        "## Steps\n\n1. Read the clock: `clock_now()` as `$now`.\n\n## Output\n\nReply with one line per field:\n\n"
        "- `date`: `$now.date`\n- `weekday`: `$now.weekday`\n"
    )


def _tasks(goldens: int) -> list[tuple[str, int, str]]:
    """(task id, skill index, prompt): EDITED_TASKS for skill 0, the rest round-robin over skills 1..999."""
    owners = [0] * EDITED_TASKS + [1 + n % (SKILLS - 1) for n in range(goldens - EDITED_TASKS)]
    seen: dict[int, int] = {}
    rows = []
    for owner in owners:
        seen[owner] = seen.get(owner, 0) + 1
        a, b = _word(2 * owner), _word(2 * owner + 1)
        rows.append(
            (
                f"{_skill_name(owner)}-{seen[owner]:02d}",
                owner,
                f"What day is it for the {a} {b} team? Tell me the date and weekday (request {seen[owner]}).",
            )
        )
    return rows


def _tasks_yaml(rows: list[tuple[str, int, str]]) -> str:
    body = "".join(
        f"- id: {tid}\n  skill: {_skill_name(owner)}\n  prompt: {json.dumps(prompt)}\n" for tid, owner, prompt in rows
    )
    return "schema_version: 1\ntasks:\n" + body


def build_project(root: Path, goldens: int) -> tuple[Path, str, str]:
    """A committed project (base) and a commit editing skill 0's description (head)."""
    rows = _tasks(goldens)
    files = {f"skills/{_skill_name(i)}/SKILL.md": _skill_md(i, _description(i)) for i in range(SKILLS)}
    files.update({"ratchet.yaml": RATCHET_YAML, "tasks.yaml": _tasks_yaml(rows), ".gitignore": ".home/\n"})
    repo = make_repo(root, files, name=f"p{goldens}")
    home = repo / ".home"
    project = load_project(repo, home=home)
    edited_ids = [tid for tid, owner, _ in rows if owner == 0]
    recorded = record_tasks(project, edited_ids)
    if recorded.errors:
        raise SystemExit(f"recording failed: {recorded.errors[0]}")
    bless(project, edited_ids)
    template = json.loads((repo / "goldens" / _skill_name(0) / f"{edited_ids[0]}.json").read_text(encoding="utf-8"))
    skills = load_skills(repo / "skills")
    for tid, owner, prompt in rows:
        if owner == 0:
            continue
        name = _skill_name(owner)
        golden = dict(
            template,
            task_id=tid,
            prompt=prompt,
            expected_skill=name,
            seed=task_seed(tid),
            final_output=template["final_output"].replace(_skill_name(0), name),
            skills_fired=[
                {"content_hash": skills[name].content_hash, "name": name, "substance_hash": skills[name].substance_hash}
            ],
        )
        path = repo / "goldens" / name / f"{tid}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    base = commit(repo, {}, "goldens")
    edited = _description(0) + " Also for on-call rosters."
    head = commit(repo, {f"skills/{_skill_name(0)}/SKILL.md": _skill_md(0, edited)}, "edit s0000's description")
    return repo, base, head


def other_edit(repo: Path, base: str, head: str) -> str:
    """A second edit of skill 0 on the same base (a branch beside head); the working tree stays at head."""
    git(repo, "checkout", "-q", "--detach", base)
    other = commit(repo, {f"skills/{_skill_name(0)}/SKILL.md": _skill_md(0, OTHER_DESCRIPTION)}, "another edit")
    git(repo, "checkout", "-q", "--detach", head)
    return other


def run_check(
    repo: Path, base: str, head: str, profile: Path | None, *, tree: Path = ROOT, home: Path | None = None
) -> tuple[float, float, dict[str, Any]]:
    """Wall seconds and peak RSS (MB) of one `ratchet check --level0-only --json` in a fresh process.

    `tree` is the Ratchet source run (this one, or --before's export); `home` the work area (repo/.home).
    """
    peak = Path(tempfile.mkstemp(prefix="ratchet-peak-")[1])
    prefix = (
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m"]
        if profile
        else [sys.executable, "-c", PEAK_WRAPPER, str(peak)]
    )
    # A tree with stored verdicts (issue 29) would answer a repeat from one: every run here checks afresh.
    afresh = ["--no-verdict-cache"] if "--no-verdict-cache" in (tree / "ratchet/cli/gate.py").read_text() else []
    command = [
        *prefix,
        "ratchet",
        "check",
        *afresh,
        "--level0-only",
        "--json",
        "--base",
        base,
        "--head",
        head,
        "--repo",
        str(repo),
        "--work",
        str(home or repo / ".home"),
    ]
    env = {**os.environ, "RATCHET_UPSTREAM": "sim", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(tree)}
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=repo)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text, problems = out.read().decode(), err.read().decode()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"check exited {proc.returncode}: {problems.strip()[-2000:]}")
    verdict = json.loads(text)
    own = peak.read_text().strip()
    peak.unlink()
    # VmHWM: the check's own peak; wait4's figure (for a profiled run) starts at this process's, which a child inherits.
    return wall, int(own) / 1024 if own else usage.ru_maxrss / 1024, verdict


def time_selection(repo: Path, runs: int = 3) -> tuple[float, int]:
    """Best-of-`runs` seconds for affected_goldens over every task, building the head index inside the timing.

    Each run edits the description anew, so no run reuses an index (or its remembered answers) from another.
    """
    skills = load_skills(repo / "skills")
    tasks = load_tasks(repo / "tasks.yaml")
    goldens = load_goldens(repo / "goldens")
    edited = _skill_name(0)
    best, selected = float("inf"), 0
    for run in range(runs):
        described = _description(0) + f" Also rosters {_word(10**5 + run)}."
        head = {**skills, edited: skills[edited].model_copy(update={"description": described})}
        started = time.perf_counter()
        selected = len(affected_goldens(tasks, goldens, [edited], head))
        best = min(best, time.perf_counter() - started)
    return best, selected


_PROFILED = (
    "affected_goldens",
    "load_tasks",
    "item_lines",
    "load_skills",
    "load_golden_files",
    "export_tree",
    "_release_scratch",
    "gate_pair",
)


def print_profile(path: Path) -> None:
    """Cumulative seconds of the stages named in _PROFILED, out of the profiled check's total."""
    import pstats

    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]  # typeshed leaves the table out
    total = max(cum for _, _, _, cum, _ in stats.values())
    for name in _PROFILED:
        rows = [
            (f"{Path(file).name}:{line}", cum)
            for (file, line, func), (_, _, _, cum, _) in stats.items()
            if func == name
        ]
        for where, cum in rows:
            print(f"  {name:<18} {where:<22} {cum:6.2f} s  {cum / total:5.1%} of {total:.2f} s (under cProfile)")


def per_prompt_ms(repo: Path, prompts: int = 100) -> tuple[float, float]:
    """Milliseconds per routed prompt: the old matcher (re-tokenizes every description) vs the built index."""
    skills = load_skills(repo / "skills")
    sample = [t.prompt for t in load_tasks(repo / "tasks.yaml")][:prompts]
    started = time.perf_counter()
    old = [old_ranked_scores(p, skills).fired for p in sample]
    old_ms = (time.perf_counter() - started) * 1000 / len(sample)
    index = routing_index(skills)
    started = time.perf_counter()
    new = [index.fired(p) for p in sample]
    new_ms = (time.perf_counter() - started) * 1000 / len(sample)
    if old != new:
        raise SystemExit("the index routed a prompt differently from the old matcher")
    return old_ms, new_ms


PEAK_WRAPPER = """
import atexit, runpy, sys
peak_file = sys.argv.pop(1)
def _peak():
    with open("/proc/self/status") as status:
        kb = next((line.split()[1] for line in status if line.startswith("VmHWM:")), "")
    with open(peak_file, "w") as out:
        out.write(kb)
atexit.register(_peak)
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""
"""Runs `python -m <module> args` and writes its peak RSS (VmHWM, kB) to a file: the peak of this process
alone, where wait4 and getrusage report at least the peak of the process that forked it."""

FIRST_SELECTION = """
import inspect, json, sys, time
from pathlib import Path
repo, home, name, old, new = Path(sys.argv[1]), Path(sys.argv[2]), *json.loads(sys.argv[3])
started = time.perf_counter()
from ratchet.gate.select import affected_goldens
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_goldens
from ratchet.skills.sets import load_skills
imported = time.perf_counter()
cached = "cache" in inspect.signature(affected_goldens).parameters  # this tree keeps parsed files on disk
if cached:
    from ratchet.store.parsed import ParsedCache
    extra = {"cache": ParsedCache(home)}
    tasks = load_tasks(repo / "tasks.yaml", extra["cache"])
else:
    extra = {}
    tasks = load_tasks(repo / "tasks.yaml")
loaded_tasks = time.perf_counter()
goldens = load_goldens(repo / "goldens")
loaded_goldens = time.perf_counter()
skills = load_skills(repo / "skills")
loaded_skills = time.perf_counter()
base = {**skills, name: skills[name].model_copy(update={"description": old})}
head = {**skills, name: skills[name].model_copy(update={"description": new})}
before, before_cpu = time.perf_counter(), time.process_time()
selected = affected_goldens(tasks, goldens, [name], head, base_skills=base, **extra)
after, after_cpu = time.perf_counter(), time.process_time()
print(json.dumps({"select_ms": (after - before) * 1000, "select_cpu_ms": (after_cpu - before_cpu) * 1000,
                  "tasks_ms": (loaded_tasks - imported) * 1000,
                  "goldens_ms": (loaded_goldens - loaded_tasks) * 1000, "skills_ms": (loaded_skills - loaded_goldens) * 1000,
                  "total_ms": (after - imported) * 1000, "selected": [s.task.id for s in selected],
                  "rss_kb": next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))}))
"""


def first_selection(repo: Path, tree: Path, home: Path, new: str) -> dict[str, Any]:
    """The first selection (and the loads before it) in a fresh process running `tree`, with work area `home`;
    its peak RSS is the child's own VmHWM (see PEAK_WRAPPER)."""
    edit = json.dumps([_skill_name(0), _description(0), new])
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, "-c", FIRST_SELECTION, str(repo), str(home), edit]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"first selection failed: {done.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    result["rss_mb"] = result.pop("rss_kb") / 1024
    return result


def export_before(rev: str, dest: Path) -> Path:
    """The source at `rev`, exported with git archive (never a checkout in this tree)."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def cold(repo: Path, base: str, head: str, before_tree: Path, scratch: Path, repeat: int, before: str) -> bool:
    """Issue 29's cold figures at 10,000 goldens, for --before's code and this tree, each with an empty work area
    and with warm ones: print them with their ratios (after / before, same work area); whether the first selection
    with an EMPTY work area is in budget."""
    edited = _description(0) + " Also for on-call rosters."
    other = other_edit(repo, base, head)
    homes = iter(range(10**6))

    def fresh_home() -> Path:
        return scratch / f"home{next(homes)}"

    def best_selection(tree: Path, warm: str | None, again: bool) -> dict[str, Any]:
        runs = []
        for _ in range(max(1, repeat)):
            home = fresh_home()
            if warm is not None:
                first_selection(repo, tree, home, warm)
            if again:
                first_selection(repo, tree, home, edited)
            runs.append(first_selection(repo, tree, home, edited))
        return min(runs, key=lambda run: float(run["select_ms"]))

    areas = {
        "empty work area": (None, False),
        "work area of another edit's check": (OTHER_DESCRIPTION, False),
        "the same edit again": (None, True),
    }
    rows = {
        (when, area): best_selection(tree, warm, again)
        for when, tree in (("before", before_tree), ("after", ROOT))
        for area, (warm, again) in areas.items()
    }
    picks = {json.dumps(row["selected"]) for row in rows.values()}
    if len(picks) != 1:
        raise SystemExit(f"the cold selections differ: {sorted(picks)}")
    print(
        f"first selection in a fresh process at 10,000 goldens / {SKILLS:,} skills "
        f"({len(rows['after', 'empty work area']['selected'])} selected, the same in every row); "
        f"before = {before}, ratio = before / after with the same work area:"
    )
    for (when, area), row in rows.items():
        was = rows["before", area]
        print(
            f"  {when:<6} {area:<34} select {row['select_ms']:6.1f} ms ({was['select_ms'] / row['select_ms']:5.2f}x; "
            f"CPU {row['select_cpu_ms']:5.1f} ms)  "
            f"load tasks {row['tasks_ms']:6.1f} ms ({was['tasks_ms'] / row['tasks_ms']:5.2f}x)  "
            f"load goldens {row['goldens_ms']:6.1f} ms ({was['goldens_ms'] / row['goldens_ms']:5.2f}x)  "
            f"load skills {row['skills_ms']:5.1f} ms  all of it {row['total_ms']:6.1f} ms "
            f"({was['total_ms'] / row['total_ms']:5.2f}x)  peak RSS {row['rss_mb']:6.1f} MB"
        )

    def best_check(tree: Path, warm_head: str | None) -> tuple[float, float, dict[str, Any]]:
        runs = []
        for _ in range(max(1, repeat)):
            home = fresh_home()
            if warm_head is not None:
                run_check(repo, base, warm_head, None, tree=tree, home=home)
            runs.append(run_check(repo, base, head, None, tree=tree, home=home))
        return min(runs, key=lambda run: run[0])

    checks = {
        (when, area): best_check(tree, warm)
        for when, tree in (("before", before_tree), ("after", ROOT))
        for area, warm in (("empty work area", None), ("work area of another edit's check", other))
    }
    print("one-skill `ratchet check --level0-only` at 10,000 goldens, fresh process (ratio = before / after):")
    for (when, area), (wall, rss, verdict) in checks.items():
        wall0, rss0, verdict0 = checks["before", area]
        same = _verdict_core(verdict) == _verdict_core(verdict0)
        print(
            f"  {when:<6} {area:<34} {wall:6.2f} s ({wall0 / wall:5.2f}x)  peak RSS {rss:6.1f} MB "
            f"({rss / rss0:4.2f}x of before)  decision {verdict['decision']}  pairs {len(verdict['pairs'])}  "
            f"same decision and pairs as before: {same}"
        )
    empty = float(rows["after", "empty work area"]["select_ms"])
    print(
        f"first selection with an empty work area: {empty:.1f} ms (must be <= {COLD_LIMIT_MS:g} ms); "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    return empty <= COLD_LIMIT_MS


def _verdict_core(verdict: dict[str, Any]) -> str:
    """What selection decides and the gate concludes: the decision, and each pair's task, why it was
    selected, and its outcome (the verdict's other fields grew between the revisions compared)."""
    pairs = [(p["task_id"], p["selected_because"], p["outcome"], p["decided_by"]) for p in verdict["pairs"]]
    return json.dumps([verdict["decision"], verdict["goldens_total"], pairs])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile", type=Path, help="write a cProfile of the 10,000-golden check here")
    parser.add_argument("--repeat", type=int, default=1, help="run each check this many times, keep the fastest")
    parser.add_argument("--before", default=BEFORE, help="the revision the cold figures compare against")
    parser.add_argument("--cold-only", action="store_true", help="only the cold figures at 10,000 goldens")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ratchet-selection-") as tmp:
        cold_ok = True
        if args.cold_only:
            repo, base, head = build_project(Path(tmp), SIZES[-1])
            before_tree = export_before(args.before, Path(tmp) / "before")
            sys.exit(0 if cold(repo, base, head, before_tree, Path(tmp) / "homes", args.repeat, args.before) else 1)
        for size in SIZES:
            built = time.perf_counter()
            repo, base, head = build_project(Path(tmp), size)
            built_s = time.perf_counter() - built
            wall, rss, verdict = min(
                (run_check(repo, base, head, None) for _ in range(max(1, args.repeat))), key=lambda run: run[0]
            )
            select_s, selected = time_selection(repo)
            rows.append((size, wall, rss, select_s, selected, verdict, built_s))
            print(
                f"{size:>6,} goldens  check {wall:6.2f} s  peak RSS {rss:6.1f} MB  selection {select_s * 1000:7.1f} ms "
                f"({selected} selected)  decision {verdict['decision']}  pairs {len(verdict['pairs'])}  "
                f"(built in {built_s:.1f} s)",
                flush=True,
            )
            if size == SIZES[-1]:
                old_ms, new_ms = per_prompt_ms(repo)
                if args.profile:
                    run_check(repo, base, head, args.profile)
                before_tree = export_before(args.before, Path(tmp) / "before")
                cold_ok = cold(repo, base, head, before_tree, Path(tmp) / "homes", args.repeat, args.before)
    by = {size: (wall, rss, select_s) for size, wall, rss, select_s, *_ in rows}
    check_ratio = by[10_000][0] / by[1_000][0]
    select_ratio = by[10_000][2] / by[1_000][2]
    print(
        f"check 10,000 / 1,000 goldens: {check_ratio:.2f}x (must be <= {LIMIT_RATIO:g}x); "
        f"selection alone: {select_ratio:.2f}x ({by[1_000][2] / 1_000 * 1e6:.1f} / {by[10_000][2] / 10_000 * 1e6:.1f} us "
        "per task, head index built inside)"
    )
    print(
        f"per routed prompt at {SKILLS:,} skills: old matcher {old_ms:.2f} ms, index {new_ms * 1000:.1f} us "
        f"({old_ms / new_ms:,.0f}x)"
    )
    wall, rss, _ = by[10_000]
    print(f"10,000-golden check: {wall:.2f} s (limit {LIMIT_S:g}), {rss:.0f} MB (limit {LIMIT_MB:g})")
    if args.profile:
        print(f"where the 10,000-golden check goes ({args.profile}; python -m pstats {args.profile}):")
        print_profile(args.profile)
    failed = check_ratio > LIMIT_RATIO or wall > LIMIT_S or rss > LIMIT_MB or not cold_ok
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
