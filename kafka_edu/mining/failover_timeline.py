"""`kafka-edu mine failover-timeline`: how long a controller change takes, from the loss of the old controller to
every partition being led again.

For each election won after the first (ZooKeeper mode, Kafka 1.0.2), the timeline is:
- last seen: the old controller's last span ending before the loss (after a kill -9, about when it died);
- loss: the first `Reelect` controller event on any broker, i.e. the `/controller` znode deleted (the old
  controller's ZooKeeper session expired, or it resigned in a controlled shutdown);
- elected: the new controller's `onControllerFailover` starts (it created `/controller`);
- failover done: `onControllerFailover` ends (context loaded, state machines started, leaders elected);
- led again: the last `ReplicaManager.makeLeaders` that gives a partition whose leader was on the old
  controller's broker a new leader (the partitions it led when lost); none to move means nothing was leaderless.

Spark selects the few spans that matter out of the whole run and finds each old controller's last sign of life; the
timeline of the handful of elections is assembled on the driver. KRaft runs have no such spans yet and are skipped.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult

ELECT = "KafkaController.elect"
FAILOVER = "KafkaController.onControllerFailover"
MAKE_LEADERS = "ReplicaManager.makeLeaders"


def _ms(later: int | None, earlier: int | None) -> float | None:
    return None if later is None or earlier is None else (later - earlier) / 1e6


def failover_timeline(spark: SparkSession, spans: DataFrame, kraft_runs: list[str]) -> JobResult:
    attrs = F.col("attributes")
    relevant = (spans.where((F.col("name").isin(ELECT, FAILOVER, MAKE_LEADERS))
                            | F.col("step").isin("CT.event", "CT.resign"))
                .select("run_id", "trace_id", "span_id", "parent_span_id", "name", "step", "start_ns", "end_ns",
                        "service_instance", "broker_id", "controller_epoch",
                        attrs["kafka.controller.won"].alias("won"), attrs["kafka.controller.event"].alias("event"),
                        attrs["kafka.partitions"].alias("partitions"))
                .collect())
    by_run: dict[str, list[Any]] = defaultdict(list)
    for row in relevant:
        by_run[row["run_id"]].append(row)
    changes: list[dict[str, Any]] = []
    first_elections = 0
    for run_id in sorted(by_run):
        run_changes, firsts = _changes(run_id, by_run[run_id])
        changes += run_changes
        first_elections += firsts
    _add_last_seen(spark, spans, changes)
    for change in changes:
        change["last_seen_ms"] = _ms(change["loss_ns"], change.pop("last_seen_ns"))
        change["leaderless_ms"] = (None if change["led_again_ms"] is None or change["last_seen_ms"] is None
                                   else change["led_again_ms"] + change["last_seen_ms"])
    notes = [f"{first_elections} first election(s) at cluster start are not changes and are not shown"]
    if not changes:
        notes.append("no controller change in the chosen runs (kill -9 the controller to make one)")
    notes += [f"run {run_id} is a KRaft run: its quorum's leader changes are not mined yet (no KRaft spans exist "
              "yet), skipped" for run_id in kraft_runs]
    columns = [Col("run_id", "run"), Col("epoch", "epoch", "{:d}"), Col("previous", "old"), Col("controller", "new"),
               Col("cause", "cause"), Col("loss_seen_by", "loss seen by"),
               Col("last_seen_ms", "last seen before loss ms", "{:.0f}"), Col("elected_ms", "elected +ms", "{:.1f}"),
               Col("failover_done_ms", "failover done +ms", "{:.1f}"), Col("led_again_ms", "led again +ms", "{:.1f}"),
               Col("partitions_moved", "partitions moved", "{:d}"),
               Col("leaderless_ms", "leaderless ms", "{:.0f}")]
    return JobResult(job="failover-timeline", title="Controller changes: times after the loss (ms)", columns=columns,
                     rows=changes, notes=notes, chart=_chart)


def _changes(run_id: str, rows: list[Any]) -> tuple[list[dict[str, Any]], int]:
    """The controller changes of one run, from its elections, controller events, resignations and makeLeaders."""
    wins = sorted((r for r in rows if r["name"] == ELECT and r["won"] == "true"), key=lambda r: r["start_ns"])
    roots = {r["trace_id"]: r for r in rows if r["step"] == "CT.event" and r["parent_span_id"] == ""}
    failovers = {r["parent_span_id"]: r for r in rows if r["name"] == FAILOVER}
    reelects = sorted((r for r in rows if r["step"] == "CT.event" and r["event"] == "Reelect"),
                      key=lambda r: r["start_ns"])
    resigns = [r for r in rows if r["step"] == "CT.resign"]
    make_leaders = sorted((r for r in rows if r["name"] == MAKE_LEADERS), key=lambda r: r["end_ns"])
    changes = []
    for previous, win in zip(wins, wins[1:], strict=False):
        window = [r for r in reelects if previous["end_ns"] < r["start_ns"] <= win["start_ns"]]
        trigger = roots.get(win["trace_id"])
        if window:
            loss_ns, seen_by = window[0]["start_ns"], window[0]["service_instance"]
        else:  # no controller when this broker started: its own Startup event is the first sign
            loss_ns = trigger["start_ns"] if trigger else win["start_ns"]
            seen_by = win["service_instance"]
        resigned = any(r["service_instance"] == previous["service_instance"]
                       and previous["end_ns"] < r["start_ns"] <= loss_ns for r in resigns)
        cause = ("resigned (controlled shutdown)" if resigned else
                 "session lost: /controller deleted" if window else "no controller at startup")
        failover = failovers.get(win["span_id"])
        led_again_ns, moved = _led_again(make_leaders, previous["broker_id"], loss_ns)
        changes.append({
            "run_id": run_id, "epoch": win["controller_epoch"], "previous": previous["service_instance"],
            "previous_broker": previous["broker_id"], "controller": win["service_instance"], "cause": cause,
            "loss_seen_by": seen_by, "loss_ns": loss_ns, "last_seen_ns": None,
            "elected_ms": _ms(failover["start_ns"] if failover else None, loss_ns),
            "failover_done_ms": _ms(failover["end_ns"] if failover else None, loss_ns),
            "led_again_ms": _ms(led_again_ns, loss_ns), "partitions_moved": moved,
        })
    return changes, min(len(wins), 1)


def _led_again(make_leaders: list[Any], lost_broker: int | None, loss_ns: int) -> tuple[int | None, int]:
    """When every partition last led by `lost_broker` before the loss had a new leader, and how many there were."""
    leader: dict[str, int] = {}
    for r in make_leaders:
        if r["end_ns"] <= loss_ns:
            leader.update((p, r["broker_id"]) for p in json.loads(r["partitions"] or "[]"))
    orphaned = {p for p, broker in leader.items() if broker == lost_broker}
    led: dict[str, int] = {}
    for r in make_leaders:
        if r["start_ns"] > loss_ns:
            for p in json.loads(r["partitions"] or "[]"):
                if p in orphaned:
                    led.setdefault(p, r["end_ns"])
    if not orphaned:
        return None, 0
    return (max(led.values()) if len(led) == len(orphaned) else None), len(orphaned)


def _add_last_seen(spark: SparkSession, spans: DataFrame, changes: list[dict[str, Any]]) -> None:
    """The end of the old controller's last span before each loss: a join of the changes with that instance."""
    if not changes:
        return
    losses = spark.createDataFrame([(c["run_id"], c["previous"], c["loss_ns"]) for c in changes],
                                   "run_id string, service_instance string, loss_ns long")
    last = (spans.select("run_id", "service_instance", "end_ns").join(losses, ["run_id", "service_instance"])
            .where(F.col("end_ns") < F.col("loss_ns"))
            .groupBy("run_id", "service_instance", "loss_ns").agg(F.max("end_ns").alias("last_seen_ns")).collect())
    seen = {(r["run_id"], r["service_instance"], r["loss_ns"]): r["last_seen_ns"] for r in last}
    for change in changes:
        change["last_seen_ns"] = seen.get((change["run_id"], change["previous"], change["loss_ns"]))


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    fig, (before, after) = charts.plt.subplots(1, 2, figsize=(9, 0.5 * len(rows) + 1.6), layout="constrained",
                                               sharey=True, gridspec_kw={"width_ratios": [1, 2]})
    y = list(range(len(rows)))[::-1]
    labels = [f"{r['run_id'][-9:]} epoch {r['epoch']}: {r['previous']} → {r['controller']}" for r in rows]
    before.barh(y, [-(r["last_seen_ms"] or 0) / 1000 for r in rows], color=charts.PALETTE[9])
    before.set_xlabel("s before the loss: old controller last seen")
    before.set_yticks(y, labels)
    marks = (("elected_ms", "elected", "o"), ("failover_done_ms", "failover done", "s"),
             ("led_again_ms", "all partitions led again", "D"))
    for color, (key, label, marker) in zip(charts.PALETTE, marks, strict=False):
        points = [(r[key], i) for r, i in zip(rows, y, strict=True) if r[key] is not None]
        after.plot([p[0] for p in points], [p[1] for p in points], marker, color=color, label=label, markersize=7)
    for r, i in zip(rows, y, strict=True):
        end = max(v for v in (r["elected_ms"], r["failover_done_ms"], r["led_again_ms"], 0) if v is not None)
        after.hlines(i, 0, end, color="#999999", linewidth=1)
    after.axvline(0, color="black", linewidth=0.8)
    after.set_xlabel("ms after the loss (/controller deleted or resigned)")
    after.legend(loc="lower right", fontsize=7)
    fig.suptitle("Controller failover timeline")
    return charts.save(fig, stem)
