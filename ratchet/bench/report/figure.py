"""Figure 1: cost per verdict vs detection recall (E4), one point per configuration, as a deterministic SVG."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from ratchet.bench.report.metrics import ConfigMetrics
from ratchet.core.jsonio import atomic_write_text
from ratchet.core.labels import SIMULATED_BANNER


def cost_vs_recall_svg(metrics: Sequence[ConfigMetrics], *, simulated: bool) -> str:
    """The figure as SVG text: same metrics, same bytes (fixed hash salt, no date)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "ratchet-bench", "svg.fonttype": "none", "font.size": 9}):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        points = [(m.config, m.cost["total"].mean, m.detection_recall["overall"]) for m in metrics]
        shown = [(name, cost, recall) for name, cost, recall in points if cost is not None and recall is not None]
        for name, cost, recall in shown:
            ax.scatter([cost], [recall], s=36)
            ax.annotate(name, (cost, recall), textcoords="offset points", xytext=(5, 4))
        ax.set_xlabel("cost per verdict, USD (mean, catalog prices)")
        ax.set_ylabel("detection recall (BLOCK or WARN)")
        ax.set_ylim(-0.05, 1.05)
        ax.grid(True, linewidth=0.3)
        title = "Figure 1: cost per verdict vs detection recall (E4)"
        ax.set_title(f"{SIMULATED_BANNER}\n{title}" if simulated else title, fontsize=8 if simulated else 9)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        plt.close(fig)
    return buffer.getvalue()


def write_figure(path: Path, metrics: Sequence[ConfigMetrics], *, simulated: bool) -> Path:
    atomic_write_text(path, cost_vs_recall_svg(metrics, simulated=simulated))
    return path
