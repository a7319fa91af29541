"""Chart plumbing shared by the jobs: a headless matplotlib figure saved as PNG and as a reproducible SVG."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: jobs run in terminals, CI and on Spark drivers

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

# Same ids and no timestamp in every SVG, so re-running a job on the same runs gives the same file (docs diff cleanly).
plt.rcParams["svg.hashsalt"] = "kafka-edu-mining"
plt.rcParams["font.size"] = 9

PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
           "#bab0ac"]


def figure(width: float, height: float) -> tuple[Figure, plt.Axes]:
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return fig, ax


def save(fig: Figure, stem: Path) -> list[Path]:
    """`stem.png` and `stem.svg`; closes the figure."""
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    fig.savefig(paths[0], dpi=120)
    fig.savefig(paths[1], metadata={"Date": None})
    plt.close(fig)
    return paths


def short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"
