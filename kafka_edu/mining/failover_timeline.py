"""`kafka-edu mine failover-timeline`: how long a controller change takes, from the loss of the old controller to
a new one at work (and, in ZooKeeper mode, every partition being led again).

For each election won after the first (ZooKeeper mode, Kafka 1.0.2), the timeline is:
- last seen: the old controller's last span ending before the loss (after a kill -9, about when it died);
- loss: the first `Reelect` controller event on any broker, i.e. the `/controller` znode deleted (the old
  controller's ZooKeeper session expired, or it resigned in a controlled shutdown);
- elected: the new controller's `onControllerFailover` starts (it created `/controller`);
- failover done: `onControllerFailover` ends (context loaded, state machines started, leaders elected);
- led again: the last `ReplicaManager.makeLeaders` that gives a partition whose leader was on the old
  controller's broker a new leader (the partitions it led when lost); none to move means nothing was leaderless.

For each Raft leader after the first (KRaft mode, Kafka 3.9: the active controller is the Raft leader), from the
`raft.role.change` events and the raft spans (read by `raft_elections.raft_runs`):
- last seen: as above, the old leader's last span before the loss;
- loss: the first sign the quorum noticed: a follower's fetch timeout (`pollFollower`, no Fetch answered within
  controller.quorum.fetch.timeout.ms: the leader died or froze), or the old leader leaving the Leader role (it
  resigned, or a higher epoch's Vote deposed it);
- fetch timeouts: each follower's, after the loss; candidate: the first transition to Candidate; candidacies: how
  many there were before one won (a split vote takes two or more);
- votes: the voters that granted the winning candidacy, and when the last of them answered;
- elected: the winner's transition to Leader; claim: its QuorumController's `claim` of the epoch; failover done:
  `completeActivation` ends (the controller writes again). Partition leaders do not move with the active
  controller in KRaft, so there is no "led again"; no controller: from the old leader leaving the role (resigned or
  deposed) or, when it just went silent, from its last span, to failover done.

A fault the run's manifest records (`faults`, see traces/samples/record_kraft.py) between the previous change and
the loss is shown with its time before the loss: the real moment of a kill -9 or a pause, which no span can say.

Spark selects the few spans that matter out of the whole run and finds each old controller's last sign of life; the
timeline of the handful of elections is assembled on the driver.
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
from kafka_edu.mining.raft_elections import RunRaft, raft_runs

ELECT = "KafkaController.elect"
FAILOVER = "KafkaController.onControllerFailover"
MAKE_LEADERS = "ReplicaManager.makeLeaders"


def _ms(later: int | None, earlier: int | None) -> float | None:
    return None if later is None or earlier is None else (later - earlier) / 1e6


ZK_ONLY = ("led_again_ms", "partitions_moved", "leaderless_ms")
KRAFT_ONLY = ("fetch_timeouts", "candidate_ms", "candidacies", "votes", "votes_ms", "claim_ms", "no_controller_ms")


def failover_timeline(spark: SparkSession, spans: DataFrame,
                      faults: dict[str, list[dict[str, Any]]] | None = None) -> JobResult:
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
    notes: list[str] = []
    raft = raft_runs(spans)
    for run_id in sorted(raft):
        run_changes, firsts, run_notes = _kraft_changes(raft[run_id])
        changes += run_changes
        first_elections += firsts
        notes += run_notes
    _add_last_seen(spark, spans, changes)
    for change in changes:
        _add_fault(change, (faults or {}).get(change["run_id"], []))
        change.pop("window_ns")
        change["last_seen_ms"] = _ms(change["loss_ns"], change.pop("last_seen_ns"))
        if change["mode"] == "zk":
            change["leaderless_ms"] = (None if change["led_again_ms"] is None or change["last_seen_ms"] is None
                                       else change["led_again_ms"] + change["last_seen_ms"])
        else:  # since the old leader left the role, or, when it just went silent, since it was last seen
            left_ms = _ms(change.pop("left_ns"), change["loss_ns"])
            since = left_ms if left_ms is not None else (None if change["last_seen_ms"] is None
                                                         else -change["last_seen_ms"])
            change["no_controller_ms"] = (None if change["failover_done_ms"] is None or since is None
                                          else change["failover_done_ms"] - since)
    notes.insert(0, f"{first_elections} first election(s) at cluster start are not changes and are not shown")
    if not changes:
        notes.append("no controller change in the chosen runs (kill -9 the controller to make one)")
    columns = [Col("run_id", "run"), Col("mode", "mode"), Col("epoch", "epoch", "{:d}"), Col("previous", "old"),
               Col("controller", "new"), Col("cause", "cause"), Col("loss_seen_by", "loss seen by"),
               Col("fault", "faults (ms before the loss)"), Col("fault_ms", "first fault ms", "{:.0f}"),
               Col("last_seen_ms", "last seen before loss ms", "{:.0f}"),
               Col("fetch_timeouts", "fetch timeouts (+ms)"), Col("candidate_ms", "candidate +ms", "{:.1f}"),
               Col("candidacies", "candidacies", "{:d}"), Col("votes", "votes granted by"),
               Col("votes_ms", "votes +ms", "{:.1f}"), Col("elected_ms", "elected +ms", "{:.1f}"),
               Col("claim_ms", "claim +ms", "{:.1f}"), Col("failover_done_ms", "failover done +ms", "{:.1f}"),
               Col("led_again_ms", "led again +ms", "{:.1f}"), Col("partitions_moved", "partitions moved", "{:d}"),
               Col("leaderless_ms", "leaderless ms", "{:.0f}"), Col("no_controller_ms", "no controller ms", "{:.0f}")]
    modes = {c["mode"] for c in changes}
    hidden = set()
    if "zk" not in modes:
        hidden |= set(ZK_ONLY)
    if "kraft" not in modes:
        hidden |= set(KRAFT_ONLY)
    if len(modes) < 2:
        hidden.add("mode")
    if not any(c["fault"] for c in changes):
        hidden |= {"fault"}
    hidden.add("fault_ms")  # said in `fault`
    return JobResult(job="failover-timeline", title="Controller changes: times after the loss (ms)", columns=columns,
                     rows=changes, notes=notes, chart=_chart,
                     table_columns=[c.key for c in columns if c.key not in hidden])


def _blank(mode: str) -> dict[str, Any]:
    """Every column of a change, empty: each mode fills its own."""
    return {"mode": mode, "fault": None, "fault_ms": None, "fetch_timeouts": None, "fetch_timeouts_ms": [],
            "candidate_ms": None, "candidacies": None, "votes": None, "votes_ms": None, "claim_ms": None,
            "led_again_ms": None, "partitions_moved": None, "leaderless_ms": None, "no_controller_ms": None}


def _kraft_changes(run: RunRaft) -> tuple[list[dict[str, Any]], int, list[str]]:
    """The Raft leader changes of one KRaft run, after its first leader."""
    wins = sorted(run.leaders().values(), key=lambda c: c.time_ns)
    changes = []
    for previous, win in zip(wins, wins[1:], strict=False):
        def within(t: int, lo: int = previous.time_ns, hi: int = win.time_ns) -> bool:
            return lo < t <= hi
        old = previous.instance
        left = next((c for c in run.changes if c.instance == old and c.from_role == "Leader" and within(c.time_ns)),
                    None)
        timeouts = [(t, instance) for t, instance, _ in run.fetch_timeouts if within(t)]
        candidacies = {(c.instance, c.epoch): c for c in reversed(run.changes)
                       if c.to_role == "Candidate" and within(c.time_ns)}
        first_candidate = min(candidacies.values(), key=lambda c: c.time_ns, default=None)
        signs = timeouts + ([(left.time_ns, old)] if left is not None else [])
        if not signs and first_candidate is not None:
            signs = [(first_candidate.time_ns, first_candidate.instance)]
        loss_ns, seen_by = min(signs) if signs else (win.time_ns, win.instance)
        if left is not None and left.to_role == "Resigned":
            reason = left.reason or ""
            cause = ("resigned: no Fetch from a majority (check quorum)" if "check-quorum" in reason
                     else "resigned (graceful shutdown)")
        elif left is not None:
            deposer = first_candidate.instance if first_candidate is not None else "a voter"
            why = " after its fetch timeout" if any(i == deposer for _, i in timeouts) else ""
            cause = f"deposed: {deposer} stood in epoch {left.epoch}{why}"
        else:
            cause = "leader lost: followers' fetch timeouts"
        granted = [v for v in run.votes.get((win.node if win.node is not None else -1, win.epoch), {}).values()
                   if v.granted and v.voter != win.instance and v.time_ns <= win.time_ns]
        claim = next((t for t, instance, epoch in run.claims
                      if instance == win.instance and epoch == win.epoch and t >= win.time_ns), None)
        activated = next((end for start, end, instance in run.activations
                          if instance == win.instance and claim is not None and start >= claim), None)
        change = _blank("kraft") | {
            "run_id": run.run_id, "epoch": win.epoch, "previous": old, "previous_broker": None,
            "controller": win.instance, "cause": cause, "loss_seen_by": seen_by, "loss_ns": loss_ns,
            "last_seen_ns": None, "window_ns": previous.time_ns, "left_ns": left.time_ns if left is not None else None,
            "fetch_timeouts": ", ".join(f"{i} +{_ms(t, loss_ns):.1f}" for t, i in timeouts) or None,
            "fetch_timeouts_ms": [_ms(t, loss_ns) for t, _ in timeouts],
            "candidate_ms": _ms(first_candidate.time_ns if first_candidate else None, loss_ns),
            "candidacies": len(candidacies), "votes": ", ".join(sorted(v.voter for v in granted)) or None,
            "votes_ms": _ms(max((v.time_ns for v in granted), default=None), loss_ns),
            "elected_ms": _ms(win.time_ns, loss_ns), "claim_ms": _ms(claim, loss_ns),
            "failover_done_ms": _ms(activated, loss_ns)}
        changes.append(change)
    notes = []
    if wins:
        last = wins[-1]
        resigned = next((c for c in run.changes if c.instance == last.instance and c.from_role == "Leader"
                         and c.time_ns > last.time_ns), None)
        if resigned is not None:
            notes.append(f"run {run.run_id}: the last leader ({last.instance}, epoch {last.epoch}) left the role "
                         f"({resigned.to_role}) and no one was elected after it (the run ended)")
    return changes, min(len(wins), 1), notes


def _add_fault(change: dict[str, Any], faults: list[dict[str, Any]]) -> None:
    """The faults the manifest records after the previous change and up to this loss, each with its time before the
    loss; `fault_ms` is the first one's."""
    done = [f for f in faults if change["window_ns"] < f["time_ns"] <= change["loss_ns"]]
    if done:
        change["fault"] = ", ".join(
            (f"{f['fault']} of node {f['node']}" if "node" in f else str(f["fault"]))
            + f" ({_ms(f['time_ns'], change['loss_ns']):.0f} ms)" for f in done)
        change["fault_ms"] = _ms(done[0]["time_ns"], change["loss_ns"])
        change["faults_ms"] = [(_ms(f["time_ns"], change["loss_ns"]), str(f["fault"])) for f in done]


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
        changes.append(_blank("zk") | {
            "run_id": run_id, "epoch": win["controller_epoch"], "previous": previous["service_instance"],
            "previous_broker": previous["broker_id"], "controller": win["service_instance"], "cause": cause,
            "loss_seen_by": seen_by, "loss_ns": loss_ns, "last_seen_ns": None, "window_ns": previous["end_ns"],
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


_MARKS = (  # key, label, marker: in the order they happen
    ("candidate_ms", "first candidate (Raft)", "^"), ("votes_ms", "votes granted (Raft)", "v"),
    ("elected_ms", "elected / Raft leader", "o"), ("claim_ms", "claim (QuorumController)", "P"),
    ("failover_done_ms", "failover done / completeActivation", "s"), ("led_again_ms", "all partitions led again", "D"))


_ZK_LABELS = {"elected_ms": "elected (/controller written)", "failover_done_ms": "failover done (onControllerFailover)"}


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    fig, (before, after) = charts.plt.subplots(1, 2, figsize=(10, 0.55 * len(rows) + 2.2), layout="constrained",
                                               sharey=True, gridspec_kw={"width_ratios": [1, 2]})
    y = list(range(len(rows)))[::-1]
    labels = [f"{r['run_id'][-9:]} epoch {r['epoch']}: {r['previous']} → {r['controller']}" for r in rows]
    before.barh(y, [-(r["last_seen_ms"] or 0) / 1000 for r in rows], color=charts.PALETTE[9],
                label="old controller last seen")
    faults = [(ms / 1000, label, i) for r, i in zip(rows, y, strict=True) for ms, label in r.get("faults_ms", [])]
    if faults:
        before.plot([f[0] for f in faults], [f[2] for f in faults], "X", color="black", markersize=6,
                    label="fault done (manifest)")
        for x, label, i in faults:
            before.annotate(label, (x, i), xytext=(0, 6), textcoords="offset points", fontsize=6.5, ha="center")
    before.set_xlabel("s before the loss")
    before.margins(x=0.12)
    before.set_yticks(y, labels)
    timeouts = [(ms, i) for r, i in zip(rows, y, strict=True) for ms in r.get("fetch_timeouts_ms") or []]
    if timeouts:
        after.plot([t[0] for t in timeouts], [t[1] for t in timeouts], "|", color="black", markersize=12,
                   label="fetch timeout (Raft follower)")
    kraft = any(r.get("candidate_ms") is not None for r in rows)
    for color, (key, label, marker) in zip(charts.PALETTE, _MARKS, strict=False):
        if not kraft:  # a ZooKeeper-mode chart names its own steps, not the Raft ones
            label = _ZK_LABELS.get(key, label)
        points = [(r[key], i) for r, i in zip(rows, y, strict=True) if r.get(key) is not None]
        if points:
            after.plot([p[0] for p in points], [p[1] for p in points], marker, color=color, label=label,
                       markersize=7, alpha=0.85)
    for r, i in zip(rows, y, strict=True):
        end = max(v for v in [r.get(key) for key, _, _ in _MARKS] + [0] if v is not None)
        after.hlines(i, 0, end, color="#999999", linewidth=1)
        said = [f"{word} +{r[key]:.0f}" for key, word in (("elected_ms", "elected"), ("failover_done_ms", "done"),
                                                         ("led_again_ms", "led again")) if r.get(key) is not None]
        after.annotate(", ".join(said) + " ms", (0, i), xytext=(2, 7), textcoords="offset points", fontsize=6.5)
    after.axvline(0, color="black", linewidth=0.8)
    after.set_xlabel("ms after the loss")
    handles = [h for ax in (before, after) for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, loc="outside lower center", fontsize=7, ncol=4)
    fig.suptitle("Controller failover timeline")
    return charts.save(fig, stem)
