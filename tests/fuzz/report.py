"""Run every fuzz case and print the figures: `python -m tests.fuzz.report [--fast] [--only SUBSTRING]`.

Prints the inputs tried, how many raised a traceback, exited with the wrong code, hung, or wrote
files while failing, then each failing case id with its first output line, grouped by cause.
Exit code 0 when every case keeps the contract, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections import defaultdict

from tests.fuzz.cases import all_cases, fast_cases
from tests.fuzz.harness import Outcome, Templates, default_workdir, run_case


def _cause(outcome: Outcome) -> str:
    """What to group a failure under: the Ratchet frame at fault, else the kind of violation."""
    if outcome.setup_error:
        return "the probe's own setup"
    if outcome.hang:
        return f"hang in {outcome.culprit.rsplit(':', 1)[0]}" if outcome.culprit != "?" else "hang"
    if outcome.traceback and outcome.culprit != "?":
        return f"traceback in {outcome.culprit.rsplit(':', 1)[0]} ({outcome.culprit.rsplit(' ', 1)[-1]})"
    kinds = sorted(outcome.categories - {"written"}) or ["written"]
    return f"{', '.join(kinds)} from `ratchet {outcome.command}`"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fast", action="store_true", help="Only the fast subset the test suite runs.")
    parser.add_argument("--only", default="", help="Only case ids containing this text.")
    parser.add_argument("--keep", action="store_true", help="Keep the work folder.")
    parser.add_argument("--verbose", action="store_true", help="Print every failing case's full output.")
    parser.add_argument("--json", default="", help="Also write every outcome to this JSON file.")
    args = parser.parse_args(argv)
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    cases = [c for c in (fast_cases() if args.fast else all_cases()) if args.only in c.id]
    workdir = default_workdir()
    templates = Templates(workdir / "_templates")
    outcomes: list[Outcome] = []
    started = time.monotonic()
    try:
        for number, case in enumerate(cases, start=1):
            outcome = run_case(case, workdir / "cases", templates)
            outcomes.append(outcome)
            mark = "ok  " if not outcome.violations else "FAIL"
            print(f"[{number:>3}/{len(cases)}] {mark} {case.id} ({outcome.seconds:.1f} s)", file=sys.stderr, flush=True)
            if args.verbose and outcome.violations:
                print(outcome.explain(), file=sys.stderr)
            shutil.rmtree(workdir / "cases" / case.slug, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    failing = [o for o in outcomes if o.violations]
    if args.json:
        rows = [
            {
                "id": o.case_id,
                "exit_code": o.exit_code,
                "seconds": round(o.seconds, 2),
                "violations": o.violations,
                "first_line": o.first_line,
                "cause": _cause(o) if o.violations else None,
            }
            for o in outcomes
        ]
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2, ensure_ascii=False)
    count = lambda category: sum(category in o.categories for o in outcomes)  # noqa: E731
    print(f"inputs tried:                     {len(outcomes)} ({time.monotonic() - started:.0f} s)")
    print(f"kept the contract:                {len(outcomes) - len(failing)}")
    print(f"tracebacks:                       {count('traceback')}")
    print(f"wrong exit codes:                 {count('exit')}")
    print(f"hangs:                            {count('hang')}")
    print(f"files written by a failing command: {count('written')}")
    print(f"unclear message (not one 'error: ' line naming the file): {count('message')}")
    if count("setup"):
        print(f"broken cases (the probe's bug):   {count('setup')}")
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in failing:
        groups[_cause(outcome)].append(outcome)
    for cause, members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        print(f"\n## {cause}: {len(members)}")
        for outcome in members:
            print(f"  {outcome.case_id}  [{'; '.join(outcome.violations)}]")
            print(f"      {outcome.first_line[:220]}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
