"""`kafka-edu mine raft-elections`: every Raft election of the KRaft runs (Kafka 3.9's KafkaRaftClient), across runs:
who stood, in which epoch and why, which voters granted or refused their vote and why, and whether it made a leader
and how fast.

An election is one candidacy: a voter's `raft.role.change` event to `Candidate` in epoch E (from Follower after its
fetch timeout, from Unattached after its election timeout, from Candidate after its backoff, or on a restart that
finds its own vote on disk). What the raft describers record makes the rest:
- the trigger: `kafka.raft.poll.reason` of the poll phase that made it a candidate (the span carrying the event, the
  root of the election's trace);
- the votes: each voter's `KafkaRaftClient.handleVoteRequest` for (candidate, E), `kafka.raft.vote.granted` and
  `kafka.raft.vote.reason`; a voter whose side was not recorded but whose answer the candidate handled
  (`handleVoteResponse`, `kafka.raft.vote.voter_id`) still counts, its reason unknown;
- the outcome: `leader` when the candidate's next role change in E is to Leader (time to leader: from its Candidate
  transition to its Leader one); `lost: <node> leads epoch E` when another voter won E; `lost: refused by a majority`;
  `superseded by epoch N` when the candidate moved on to epoch N without a result (its own next candidacy after the
  backoff, or another candidate's Vote in a later epoch); `unresolved` when nothing follows (its process stopped);
- the winner: whoever led the first epoch from E on that had a leader.

Spark picks the few spans that say any of this out of the whole runs (role-change events, Vote handling, the poll
phases, the QuorumController's claim and activation, which `failover_timeline` reads too); each run's elections are
assembled on the driver.
"""

from __future__ import annotations

import json
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult

ROLE_CHANGE = "raft.role.change"
VOTE_REQUEST = "KafkaRaftClient.handleVoteRequest"
VOTE_RESPONSE = "KafkaRaftClient.handleVoteResponse"
POLL_FOLLOWER = "KafkaRaftClient.pollFollower"
CLAIM = "QuorumController.claim"
ACTIVATION = "QuorumController.completeActivation"
# spans read even without a role-change event on them
NAMES = (VOTE_REQUEST, VOTE_RESPONSE, POLL_FOLLOWER, CLAIM, ACTIVATION)
ATTRIBUTES = ("kafka.node.id", "kafka.raft.epoch", "kafka.raft.poll.reason", "kafka.raft.vote.candidate_id",
              "kafka.raft.vote.candidate_epoch", "kafka.raft.vote.granted", "kafka.raft.vote.reason", "kafka.error",
              "kafka.raft.vote.voter_id", "kafka.raft.votes.majority")
UNKNOWN_REASON = "(reason not traced)"


@dataclass(frozen=True)
class RoleChange:
    time_ns: int
    instance: str
    node: int | None
    from_role: str
    to_role: str
    epoch: int
    leader: int
    span_name: str  # the span the event is on: for a new candidacy, the poll phase that started it
    reason: str | None  # that span's kafka.raft.poll.reason
    trace_id: str


@dataclass(frozen=True)
class Vote:
    voter: str  # the voter's instance
    granted: bool
    reason: str
    time_ns: int  # when the answer was made (the voter's span end) or handled (the candidate's)


@dataclass
class RunRaft:
    """What one run's spans say about its Raft quorum."""

    run_id: str
    changes: list[RoleChange] = field(default_factory=list)  # time order
    # (candidate node, epoch) -> voter instance -> its answer (the voter's own span first, else the candidate's)
    votes: dict[tuple[int, int], dict[str, Vote]] = field(default_factory=lambda: defaultdict(dict))
    fetch_timeouts: list[tuple[int, str, str]] = field(default_factory=list)  # (start ns, instance, reason)
    claims: list[tuple[int, str, int]] = field(default_factory=list)  # (start ns, instance, epoch)
    activations: list[tuple[int, int, str]] = field(default_factory=list)  # (start ns, end ns, instance)
    majority: int | None = None  # as the candidates' tallies said
    nodes: dict[str, int] = field(default_factory=dict)  # instance -> node id

    def leaders(self) -> dict[int, RoleChange]:
        """epoch -> its leader's transition (the first one)."""
        out: dict[int, RoleChange] = {}
        for c in self.changes:
            if c.to_role == "Leader":
                out.setdefault(c.epoch, c)
        return out

    def voters(self) -> set[str]:
        """The instances seen acting as voters (standing, leading or answering a Vote); a broker, an observer, never
        does."""
        acting = {c.instance for c in self.changes if c.to_role in ("Candidate", "Leader")}
        return acting | {v for answers in self.votes.values() for v in answers}

    def instance_of(self, node: int) -> str:
        return next((i for i, n in self.nodes.items() if n == node), f"node-{node}")


def _node(instance: str | None, attribute: str | None) -> int | None:
    if attribute not in (None, ""):
        return int(attribute)
    match = re.search(r"(\d+)$", instance or "")
    return int(match.group(1)) if match else None


def _bool(text: str | None) -> bool:
    return (text or "").lower() == "true"


def raft_runs(spans: DataFrame) -> dict[str, RunRaft]:
    """The Raft story of every run that has one: one Spark pass that selects the spans that tell it."""
    changes = F.filter("events", lambda e: e["name"] == ROLE_CHANGE)
    rows = (spans.where(F.col("name").isin(*NAMES) | (F.size(changes) > 0))
            .select("run_id", "trace_id", "name", "service_instance", "start_ns", "end_ns",
                    F.map_filter("attributes", lambda k, _: k.isin(*ATTRIBUTES)).alias("attributes"),
                    changes.alias("changes"))
            .collect())
    runs: dict[str, RunRaft] = {}
    for r in rows:
        run = runs.setdefault(r["run_id"], RunRaft(r["run_id"]))
        a = r["attributes"] or {}
        instance = r["service_instance"]
        node = _node(instance, a.get("kafka.node.id"))
        if node is not None and node >= 0:
            run.nodes.setdefault(instance, node)
        for e in r["changes"] or []:
            ea = e["attributes"] or {}
            run.changes.append(RoleChange(
                e["time_ns"], instance, node, ea.get("kafka.raft.role.from", "?"), ea.get("kafka.raft.role.to", "?"),
                int(ea.get("kafka.raft.epoch", -1)), int(ea.get("kafka.raft.leader.id", -1)), r["name"],
                a.get("kafka.raft.poll.reason"), r["trace_id"]))
        name = r["name"]
        if name == VOTE_REQUEST and a.get("kafka.raft.vote.candidate_id") is not None:
            key = (int(a["kafka.raft.vote.candidate_id"]), int(a["kafka.raft.vote.candidate_epoch"]))
            granted = _bool(a.get("kafka.raft.vote.granted"))
            reason = a.get("kafka.raft.vote.reason") or (f"refused with {a['kafka.error']}" if a.get("kafka.error")
                                                          else UNKNOWN_REASON)
            previous = run.votes[key].get(instance)
            if previous is None or previous.reason == UNKNOWN_REASON or (granted and not previous.granted):
                run.votes[key][instance] = Vote(instance, granted, reason, r["end_ns"])
        elif name == VOTE_RESPONSE and a.get("kafka.raft.vote.voter_id") is not None \
                and a.get("kafka.raft.vote.granted") is not None and node is not None:
            run.votes[(node, int(a["kafka.raft.epoch"]))].setdefault(
                f"voter-{a['kafka.raft.vote.voter_id']}",  # renamed to the voter's instance once nodes are known
                Vote("", _bool(a["kafka.raft.vote.granted"]), UNKNOWN_REASON, r["start_ns"]))
            if a.get("kafka.raft.votes.majority"):
                run.majority = max(run.majority or 0, int(a["kafka.raft.votes.majority"]))
        elif name == POLL_FOLLOWER and (a.get("kafka.raft.poll.reason") or "").startswith("fetch timeout"):
            run.fetch_timeouts.append((r["start_ns"], instance, a["kafka.raft.poll.reason"]))
        elif name == CLAIM:
            run.claims.append((r["start_ns"], instance, int(a.get("kafka.raft.epoch", -1))))
        elif name == ACTIVATION:
            run.activations.append((r["start_ns"], r["end_ns"], instance))
    for run in runs.values():
        run.changes.sort(key=lambda c: (c.time_ns, c.instance))
        run.fetch_timeouts.sort()
        run.claims.sort()
        run.activations.sort()
        for answers in run.votes.values():  # the candidate's record of a vote, under the voter's name
            for placeholder in [v for v in answers if v.startswith("voter-")]:
                vote = answers.pop(placeholder)
                voter = run.instance_of(int(placeholder.removeprefix("voter-")))
                answers.setdefault(voter, Vote(voter, vote.granted, vote.reason, vote.time_ns))
    return {run_id: run for run_id, run in runs.items() if run.changes}


def short_reason(reason: str | None, fallback: str) -> str:
    """"fetch timeout", "election timeout", "backoff over": the poll reason up to its first ':' or '('."""
    if not reason:
        return fallback
    return re.split(r"[:(]", reason, maxsplit=1)[0].strip()


def elections(run: RunRaft, origin_ns: int) -> list[dict[str, Any]]:
    """One row per candidacy of the run, in time order."""
    leaders = run.leaders()
    majority = run.majority or (len(run.voters()) // 2 + 1 if run.voters() else None)
    seen: set[tuple[str, int]] = set()
    rows = []
    for c in run.changes:
        if c.to_role != "Candidate" or (c.instance, c.epoch) in seen:
            continue
        seen.add((c.instance, c.epoch))
        node = c.node if c.node is not None else -1
        answers = run.votes.get((node, c.epoch), {})
        granted = sorted(v.voter for v in answers.values() if v.granted and v.voter != c.instance)
        refused = sorted((v for v in answers.values() if not v.granted and v.voter != c.instance),
                         key=lambda v: v.voter)
        later = [x for x in run.changes if x.instance == c.instance and x.time_ns >= c.time_ns and x is not c]
        leader = leaders.get(c.epoch)
        to_leader_ms = end_ns = None
        if leader is not None and leader.instance == c.instance:
            outcome, to_leader_ms, end_ns = "leader", (leader.time_ns - c.time_ns) / 1e6, leader.time_ns
        elif leader is not None and leader.time_ns >= c.time_ns:
            outcome, end_ns = f"lost: {leader.instance} leads epoch {c.epoch}", leader.time_ns
        elif majority is not None and len(refused) >= majority:
            outcome, end_ns = "lost: refused by a majority", sorted(v.time_ns for v in refused)[majority - 1]
        else:
            moved = next((x for x in later if x.epoch > c.epoch), None)
            if moved is not None:
                outcome, end_ns = f"superseded by epoch {moved.epoch}", moved.time_ns
            else:
                outcome = "unresolved"
                end_ns = max([v.time_ns for v in answers.values()] + [c.time_ns])
        winner = next((leaders[e] for e in sorted(leaders) if e >= c.epoch), None)
        rows.append({
            "run_id": run.run_id, "epoch": c.epoch, "candidate": c.instance, "was": c.from_role,
            "trigger": short_reason(c.reason, c.span_name.rsplit(".", 1)[-1]), "trigger_detail": c.reason,
            "start": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(c.time_ns // 1_000_000_000))
                     + f".{c.time_ns // 1_000_000 % 1000:03d}Z",
            "start_s": (c.time_ns - origin_ns) / 1e9, "granted": len(granted), "granted_by": ", ".join(granted),
            "refused": len(refused), "refused_by": "; ".join(f"{v.voter}: {v.reason}" for v in refused),
            "refused_why": _grouped(refused),
            "outcome": outcome, "to_leader_ms": to_leader_ms,
            "winner": f"{winner.instance} (epoch {winner.epoch})" if winner is not None else None,
            "trace_id": c.trace_id, "start_ns": c.time_ns, "end_ns": end_ns})
    return rows


def _grouped(refused: list[Vote]) -> str:
    """"controller-2, controller-3: log behind": the refusing voters grouped by the first clause of their reason."""
    by_reason: dict[str, list[str]] = defaultdict(list)
    for v in refused:
        by_reason[short_reason(v.reason, v.reason)].append(v.voter)
    return "; ".join(f"{', '.join(voters)}: {reason}" for reason, voters in by_reason.items())


def run_faults(runs: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """The faults each run's manifest records (`faults`: fault, node, time_ns; see traces/samples/record_kraft.py),
    by run id; runs whose manifest records none are left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        try:
            manifest = json.loads((Path(run.path) / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        faults = [f for f in manifest.get("faults") or [] if isinstance(f, dict) and "time_ns" in f]
        if faults:
            out[run.run_id] = sorted(faults, key=lambda f: f["time_ns"])
    return out


def raft_elections(spans: DataFrame, faults: dict[str, list[dict[str, Any]]] | None = None) -> JobResult:
    runs = raft_runs(spans)
    origins = {r["run_id"]: r["origin"] for r in
               spans.where(F.col("run_id").isin(list(runs))).groupBy("run_id")
               .agg(F.min("start_ns").alias("origin")).collect()} if runs else {}
    rows: list[dict[str, Any]] = []
    for run_id in sorted(runs):
        rows += elections(runs[run_id], origins[run_id])
    notes = []
    if not rows:
        notes.append("no Raft election in the chosen runs (only KRaft runs have them: kafka-edu cluster up --mode "
                      "kraft)")
    won = [r["to_leader_ms"] for r in rows if r["to_leader_ms"] is not None]
    if won:
        notes.append(f"{len(won)} of {len(rows)} election(s) made a leader; time to leader "
                     f"{min(won):.1f} to {max(won):.1f} ms")
    chart_faults = {run_id: [dict(f, offset_s=(f["time_ns"] - origins[run_id]) / 1e9) for f in fs]
                    for run_id, fs in (faults or {}).items() if run_id in origins}
    columns = [Col("run_id", "run"), Col("epoch", "epoch", "{:d}"), Col("candidate", "candidate"), Col("was", "was"),
               Col("trigger", "trigger"), Col("trigger_detail", "trigger (poll reason)"), Col("start", "start (UTC)"),
               Col("start_s", "start s", "{:.3f}"), Col("granted", "granted", "{:d}"),
               Col("granted_by", "granted by"), Col("refused", "refused", "{:d}"),
               Col("refused_by", "refused by (reason)"), Col("refused_why", "refused by"), Col("outcome", "outcome"),
               Col("to_leader_ms", "to leader ms", "{:.1f}"), Col("winner", "won by"), Col("trace_id", "trace")]
    title = "Raft elections (a candidacy a row, in time order" + (" per run)" if len(runs) > 1 else
                                                                 f"; run {next(iter(runs), '-')})")
    return JobResult(job="raft-elections", title=title,
                     columns=columns, rows=rows, notes=notes,
                     chart=lambda chart_rows, stem: _chart(chart_rows, stem, chart_faults),
                     table_columns=["run_id"] * (len(runs) > 1) + [
                         "epoch", "candidate", "trigger", "start_s", "granted_by", "refused_why", "outcome",
                         "to_leader_ms", "winner"])


_OUTCOME_COLORS = {"leader": charts.PALETTE[4], "lost": charts.PALETTE[2], "superseded": charts.PALETTE[9],
                   "unresolved": "#dddddd"}
CHART_ROWS = 60


def _chart(rows: list[dict[str, Any]], stem: Path, faults: dict[str, list[dict[str, Any]]]) -> list[Path]:
    """Left: each candidacy's time from its start to its outcome (log ms). Right, on the same rows: when it started
    in its run, with the faults the run's manifest records."""
    shown = rows[-CHART_ROWS:]
    fig, (took, when) = charts.plt.subplots(1, 2, figsize=(10, 0.28 * len(shown) + 1.5), layout="constrained",
                                            sharey=True, gridspec_kw={"width_ratios": [3, 2]})
    y = list(range(len(shown)))[::-1]
    runs = list(dict.fromkeys(r["run_id"] for r in shown))
    single = len(runs) == 1
    labels = []
    for r, i in zip(shown, y, strict=True):
        kind = r["outcome"].split(":")[0].split(" ")[0]
        ms = max(((r["end_ns"] or r["start_ns"]) - r["start_ns"]) / 1e6, 0.1)
        took.barh(i, ms, color=_OUTCOME_COLORS.get(kind, "#999999"), edgecolor="black", linewidth=0.3)
        took.annotate(f"{r['outcome']} ({ms:.1f} ms)" if kind != "leader" else f"leader in {ms:.1f} ms",
                      (ms, i), xytext=(3, 0), textcoords="offset points", va="center", fontsize=6.5)
        labels.append(f"{'' if single else r['run_id'][-9:] + ' '}e{r['epoch']} {r['candidate']} ({r['trigger']})")
        when.plot([r["start_s"]], [i], "o", color=_OUTCOME_COLORS.get(kind, "#999999"), markeredgecolor="black",
                  markeredgewidth=0.3, markersize=5)
    took.set_xscale("log")
    took.set_xlim(0.1, max(((r["end_ns"] or r["start_ns"]) - r["start_ns"]) / 1e6 for r in shown) * 12)
    took.set_yticks(y, labels, fontsize=7)
    took.set_xlabel("ms from the Candidate transition to the outcome (log scale)")
    if single:
        for f in faults.get(runs[0], []):
            when.axvline(f["offset_s"], color="black", linestyle=":", linewidth=0.8)
            text = f"{f['fault']} c{f['node']}" if "node" in f else str(f["fault"])
            when.annotate(text, (f["offset_s"], max(y) + 0.6), xytext=(2, 0), textcoords="offset points",
                          fontsize=6.5, va="top", rotation=90)
    when.set_xlabel("s into the run" + (" (dotted: faults done to it)" if single else ""))
    when.set_ylim(-0.7, len(shown) - 0.3)
    title = "Raft elections: a candidacy a row, how it ended, how long it took and when" + (
        f" (run {runs[0]})" if single else "")
    if len(shown) < len(rows):
        title += f" (the last {len(shown)} of {len(rows)})"
    fig.suptitle(title)
    return charts.save(fig, stem)
