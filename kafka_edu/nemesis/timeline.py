"""Our own code, not a Kafka port: a nemesis run's timeline as a PNG: acknowledged and read records a second, the
faults as shaded spans, the anomalies as marks where the client saw them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

from kafka_edu.nemesis.checker import Verdict  # noqa: E402

FAULT_COLOURS = {"kill": "tab:red", "pause": "tab:orange", "partition": "tab:purple"}
ANOMALY_MARKS = {"lost": "x", "duplicate": "D", "reordered": "s", "unacknowledged_read": "^", "aborted_read": "v",
                 "offset_backwards": "<"}


def draw_timeline(events: list[dict[str, Any]], verdict: Verdict, path: Path, title: str) -> Path:
    """Write the PNG to `path` and return it."""
    start = min(e["t"] for e in events)

    def seconds(t: int) -> float:
        return (t - start) / 1e9

    acks = Counter(int(seconds(e["t"])) for e in events if e["type"] == "ack")
    reads = Counter(int(seconds(e["t"])) for e in events if e["type"] == "read" and e["consumer"].startswith("member"))
    end = max([*acks, *reads, 1])
    fig, ax = plt.subplots(figsize=(12, 4.5))
    xs = list(range(end + 1))
    ax.plot(xs, [acks.get(x, 0) for x in xs], label="acknowledged / s", color="tab:blue")
    ax.plot(xs, [reads.get(x, 0) for x in xs], label="read by the group / s", color="tab:green", alpha=0.7)
    open_faults: dict[tuple[str, int], float] = {}
    labelled: set[str] = set()
    labels: list[float] = []
    for e in events:
        if e["type"] != "fault":
            continue
        key = (e["kind"], e["node"])
        if e["phase"] == "start":
            open_faults[key] = seconds(e["t"])
            continue
        begun = open_faults.pop(key, None)
        if begun is None:
            continue
        colour = FAULT_COLOURS.get(e["kind"], "grey")
        ax.axvspan(begun, seconds(e["t"]), color=colour, alpha=0.15,
                   label=None if e["kind"] in labelled else e["kind"])
        labelled.add(e["kind"])
        # labels at three heights in turn, so that those of faults close together do not overlap
        ax.text(begun, 0.98 - 0.05 * (len(labels) % 3), f"{e['kind']} {e['node']}",
                transform=ax.get_xaxis_transform(), fontsize=7, va="top", color=colour)
        labels.append(begun)
    top = max([*acks.values(), *reads.values(), 1])
    for kind, mark in ANOMALY_MARKS.items():
        times = [seconds(a.t) for a in verdict.anomalies if a.kind == kind]
        if times:
            ax.scatter(times, [top * 1.05] * len(times), marker=mark, color="black", label=f"{kind} ({len(times)})",
                       zorder=3)
    verdict_text = "valid" if verdict.valid else "INVALID: " + ", ".join(
        f"{k} {v}" for k, v in verdict.counts.items() if v)
    ax.set_title(f"{title}: {verdict_text}", fontsize=10)
    ax.set_xlabel("seconds since the workload started")
    ax.set_ylabel("records / s")
    ax.set_ylim(0, top * 1.15)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
