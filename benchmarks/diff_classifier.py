"""The behavioural diff's classifier, measured: precision and recall per kind, and the time it adds to a check.

Two labelled sets (ratchet.diff.measure says how each is scored):
- the free-form corpus bench/diff-corpus/ (edits written for the diff, each with its expected kinds:
  the held-out check, never tuned to), and
- the benchmark's labelled edits, bench/edits/ with their type (R1-R6, N0, D1), against the shipped skills.
Time: the median wall time of one skill's diff per set (in this process, after a first warm-up edit), and
what a check pays once, in a fresh interpreter, to import the diff after the check itself is imported.
Run: .venv/bin/python benchmarks/diff_classifier.py
"""

from __future__ import annotations

import hashlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ratchet.bench.data.dataset import read_edits, read_labels  # noqa: E402
from ratchet.diff.effects import tool_catalog  # noqa: E402
from ratchet.diff.measure import LabelledEdit, Outcome, bench_table, corpus_table, read_corpus  # noqa: E402
from ratchet.diff.scripts import Analysers  # noqa: E402
from ratchet.world.tools.declared import load_declared_tools  # noqa: E402


def bench_edits() -> list[LabelledEdit]:
    """The benchmark's edits as labelled edits of the shipped skill they start from (checked by content hash)."""
    labels = read_labels(ROOT / "labels/labels.json")
    types = {label.edit_id: label.type for label in labels.labels} if labels is not None else {}
    edits = []
    for edit in read_edits(ROOT / "bench/edits").values():
        base = (ROOT / "skills" / edit.skill / "SKILL.md").read_bytes()
        if hashlib.sha256(base).hexdigest() != edit.base_content_hash:
            raise SystemExit(f"{edit.id}: skills/{edit.skill}/SKILL.md is not the base it was built on")
        edits.append(
            LabelledEdit(
                id=edit.id,
                group=types.get(edit.id, edit.type),
                base={"SKILL.md": base.decode()},
                head={"SKILL.md": edit.skill_md},
                expected=[],
            )
        )
    return sorted(edits, key=lambda e: e.id)


def run(edits: list[LabelledEdit], scratch: Path) -> tuple[list[Outcome], list[float]]:
    catalog = tool_catalog(load_declared_tools(ROOT / "bench/world"))
    analysers = Analysers.installed()
    edits[0].diff(catalog=catalog, analysers=analysers, scratch=scratch / "warm-up")
    outcomes, times = [], []
    for edit in edits:
        start = time.perf_counter()
        diff = edit.diff(catalog=catalog, analysers=analysers, scratch=scratch / edit.id)
        times.append((time.perf_counter() - start) * 1000)
        outcomes.append(Outcome.of(edit, diff))
    return outcomes, times


def import_cost_ms() -> float:
    """Median over 5 fresh interpreters of importing ratchet.diff after ratchet.gate.check."""
    code = (
        "import time, ratchet.gate.check; t = time.perf_counter(); import ratchet.diff.edit; "
        "print((time.perf_counter() - t) * 1000)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
        for _ in range(5)
    ]
    return statistics.median(runs)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        corpus = read_corpus(ROOT / "bench/diff-corpus")
        with_scripts = [e for e in corpus if any(p != "SKILL.md" for p in (*e.base, *e.head))]
        corpus_outcomes, corpus_times = run(corpus, scratch)
        bench_outcomes, bench_times = run(bench_edits(), scratch)
    script_times = [t for e, t in zip(corpus, corpus_times, strict=True) if e in with_scripts]
    skill_times = [t for e, t in zip(corpus, corpus_times, strict=True) if e not in with_scripts]
    print(f"## Free-form corpus ({len(corpus)} edits, bench/diff-corpus)\n")
    print(corpus_table(corpus_outcomes))
    misses = [o for o in corpus_outcomes if set(o.expected) != set(o.found)]
    for o in misses:
        print(f"- {o.id}: expected {[k.value for k in o.expected]}, found {[k.value for k in o.found]}")
    print(f"\n## Benchmark edits ({len(bench_outcomes)}, bench/edits, labels/labels.json)\n")
    print(bench_table(bench_outcomes))
    print("## Time\n")
    print(
        f"- a SKILL.md edit: median {statistics.median(bench_times):.1f} ms per skill (benchmark edits), "
        f"{statistics.median(skill_times):.1f} ms (corpus)"
    )
    print(
        f"- an edit with a script (Bandit or ShellCheck run): median {statistics.median(script_times):.1f} ms per skill"
    )
    print(f"- importing the diff in a check's process, once: median {import_cost_ms():.1f} ms")


if __name__ == "__main__":
    main()
