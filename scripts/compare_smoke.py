#!/usr/bin/env python3
"""Compare a smoke results.json from before ADR 0010 (one pair pipeline) with one from after.

    python3 scripts/compare_smoke.py <(git show 1d553ff:bench/results/smoke-sim/results.json) \
        bench/results/smoke-sim/results.json

The refactor changed results.json in exactly these ways, which this script maps back before
comparing everything else byte for byte (after canonical JSON):
- each judge opinion gained `tokens_cached` (0 on the simulator);
- a verdict's `cost_usd` is kept at 9 places like every other money field (it was rounded to 6;
  where the 7th place is an exact 5 the old rounding fell on float noise, the new value is exact);
- configs moved into the package: each run's `command` says `--config <name>` and its
  `config_path` points into ratchet/data/configs/;
- the dataset's `git_sha`;
- (issue 13) each verdict gained `settings_changed` and `submodules_changed`, empty in the smoke.
Prints what it mapped and IDENTICAL or DIFFERENT (exit 1).
"""

from __future__ import annotations

import json
import sys
from typing import Any


def normalise(old: dict[str, Any], new: dict[str, Any]) -> dict[str, int]:
    counts = {
        "opinions with tokens_cached added": 0,
        "verdict costs at 9 places": 0,
        "ties at the 7th place": 0,
        "verdicts with empty settings_changed / submodules_changed added": 0,
    }
    new["dataset"]["git_sha"] = old["dataset"]["git_sha"]
    for name, run in new["runs"].items():
        run["command"] = run["command"].replace(f"--config {name} ", f"--config configs/{name}.yaml ")
        run["config_path"] = run["config_path"].replace("ratchet/data/configs/", "configs/")
        for edit_id, edit in run["edits"].items():
            verdict, before = edit["verdict"], old["runs"][name]["edits"][edit_id]["verdict"]["cost_usd"]
            if verdict.get("settings_changed") == [] and verdict.get("submodules_changed") == []:
                del verdict["settings_changed"], verdict["submodules_changed"]
                counts["verdicts with empty settings_changed / submodules_changed added"] += 1
            if round(verdict["cost_usd"], 6) != verdict["cost_usd"]:
                counts["verdict costs at 9 places"] += 1
            if round(verdict["cost_usd"], 6) != before:
                if abs(verdict["cost_usd"] - before) > 5e-7 + 1e-12 or round(verdict["cost_usd"] * 1e7) % 10 != 5:
                    continue  # a real difference: left in, so the comparison fails
                counts["ties at the 7th place"] += 1
                verdict["cost_usd"] = before
            verdict["cost_usd"] = round(verdict["cost_usd"], 6)
        pairs = [p for e in run["edits"].values() for p in e["verdict"]["pairs"]]
        pairs += [p for g in run["noise"].values() for p in g["outcomes"]]
        for pair in pairs:
            for opinion in pair["opinions"]:
                if opinion.get("tokens_cached") == 0:
                    del opinion["tokens_cached"]
                    counts["opinions with tokens_cached added"] += 1
    return counts


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as a, open(sys.argv[2], encoding="utf-8") as b:
        old, new = json.load(a), json.load(b)
    for what, n in normalise(old, new).items():
        print(f"mapped: {n} {what}")
    same = json.dumps(old, sort_keys=True) == json.dumps(new, sort_keys=True)
    print("IDENTICAL after the mappings" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
