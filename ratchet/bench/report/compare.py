"""`ratchet bench compare A B`: per metric and type, A, B and B - A, flagging changes beyond the noise floor.

The noise band is 1 - the E6 noise floor (the share of unchanged-skill replays judged
something other than pass), the larger of the two directories'. A rate that moved by more
than that is flagged `!`; with no noise run on either side nothing can be flagged and the
output says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ratchet.bench.data.models import REGRESSION_TYPES
from ratchet.bench.data.results import BenchResults, read_results
from ratchet.bench.report.metrics import ConfigMetrics, summarize
from ratchet.bench.report.sections import ordered_configs
from ratchet.core.errors import InputError
from ratchet.core.labels import SIMULATED_BANNER

Getter = Callable[[ConfigMetrics], float | None]


def _rows() -> list[tuple[str, Getter, bool]]:
    """(metric, getter, is a rate) in print order."""
    rows: list[tuple[str, Getter, bool]] = []

    def recall_of(kind: str) -> Getter:
        return lambda m: m.detection_recall.get(kind)

    for t in (*REGRESSION_TYPES, "overall"):
        rows.append((f"detection recall {t}", recall_of(t), True))
    rows.append(("block recall overall", lambda m: m.block_recall["overall"], True))
    rows.append(("false-block rate N0", lambda m: m.false_block_rate["N0"], True))
    rows.append(("false-block rate D1", lambda m: m.false_block_rate["D1"], True))
    rows.append(("false-warn rate N0", lambda m: m.false_warn_rate, True))
    rows.append(("drift accuracy", lambda m: m.drift_accuracy, True))
    rows.append(("cost per verdict mean (USD)", lambda m: m.cost["total"].mean, False))
    rows.append(("cost per verdict p95 (USD)", lambda m: m.cost["total"].p95, False))
    return rows


def _noise(results: BenchResults, metrics: dict[str, ConfigMetrics]) -> float | None:
    floors = [m.noise_floor for name, m in metrics.items() if results.runs[name].mode == "noise"]
    return next((f for f in floors if f is not None), None)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def compare_results(a: BenchResults, b: BenchResults, *, names: tuple[str, str] = ("A", "B")) -> str:
    """The comparison as text; every configuration present on both sides."""
    ma = {c: summarize(a.runs[c], a.dataset.prices) for c in ordered_configs(a)}
    mb = {c: summarize(b.runs[c], b.dataset.prices) for c in ordered_configs(b)}
    floors = [f for f in (_noise(a, ma), _noise(b, mb)) if f is not None]
    band = max(1.0 - f for f in floors) if floors else None
    lines: list[str] = []
    if a.simulated or b.simulated:
        lines += [f"{SIMULATED_BANNER}", ""]
    lines.append(f"A = {names[0]} (dataset {a.dataset_digest[:12]}), B = {names[1]} (dataset {b.dataset_digest[:12]})")
    if a.dataset_digest != b.dataset_digest:
        lines.append("note: the datasets differ; differences mix gate and data changes")
    lines.append(
        f"noise band: {_fmt(band)} (1 - E6 noise floor; '!' marks a rate that moved more)"
        if band is not None
        else "noise band: unknown (no noise run on either side); nothing is flagged"
    )
    shared = [c for c in ma if c in mb and a.runs[c].mode != "noise"]
    if not shared:
        raise InputError("the two results directories share no configuration to compare")
    for config in shared:
        lines += ["", f"[{config}]", f"{'metric':<32} {'A':>10} {'B':>10} {'B - A':>10}"]
        for label, get, is_rate in _rows():
            va, vb = get(ma[config]), get(mb[config])
            diff = None if va is None or vb is None else vb - va
            flag = "!" if is_rate and band is not None and diff is not None and abs(diff) > band + 1e-12 else ""
            lines.append(f"{label:<32} {_fmt(va):>10} {_fmt(vb):>10} {_fmt(diff):>10} {flag}".rstrip())
    return "\n".join(lines) + "\n"


def compare_dirs(a: Path, b: Path) -> str:
    ra, rb = read_results(a), read_results(b)
    for path, results in ((a, ra), (b, rb)):
        if not results.runs:
            raise InputError(f"no results.json with runs in {path}")
    return compare_results(ra, rb, names=(str(a), str(b)))
