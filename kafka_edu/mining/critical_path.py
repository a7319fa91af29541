"""`kafka-edu mine critical-path`: per kind of trace, which spans are on the critical path and what share of the
trace's time they hold: the work that, made faster, makes the whole procedure faster.

The path is Jaeger's (kafka_edu/tracing/critical_path.py, shared with the TUI). Each trace is walked in a Spark
task (traces grouped by run and trace id); the sections are summed per trace kind (root span name, with the
controller event, the API or, for a Raft poll phase, the short reason of its poll for those roots).

A Raft election (KRaft, Kafka 3.9) is one trace across processes, but most of it is asynchronous: the candidate's
poll phase (the root, a few ms) sends the Vote requests and ends; each voter handles one later, as a child of the
send through its traceparent; the answers are handled by the candidate later still, as children of the root. Jaeger's
clipping would keep only the root's few ms. So a trace whose root carries the `raft.role.change` to Candidate is
walked as an election: a synthetic root spans from the candidacy's start to its outcome (the Leader transition, or
without one the candidate's last Vote answer), every span that starts after its parent ended (or whose parent was
not recorded) hangs from it instead, and the time no span covers on the path is the synthetic root's own:
`(between spans: in flight, queued)`, the requests on the wire and waiting in queues.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kafka_edu.mining import charts
from kafka_edu.mining.output import Col, JobResult
from kafka_edu.tracing.critical_path import critical_path

TABLE_SPANS_PER_KIND = 5
ELECTION_WON = "Raft election → Leader"
ELECTION_OTHER = "Raft election without a leader (to the last Vote answer)"
ELECTION_ROOT_ID = "(election)"
IN_FLIGHT = "(between spans: in flight, queued)"
VOTE_RESPONSE = "KafkaRaftClient.handleVoteResponse"


class PathSpan(NamedTuple):
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    detail: str | None  # the controller event, API or Raft poll reason of a root that has one
    candidate: bool = False  # carries the raft.role.change to Candidate: the root of an election
    leader_ns: int | None = None  # when a raft.role.change to Leader on it happened


def trace_kind(root: PathSpan) -> str:
    return f"{root.name}[{root.detail}]" if root.detail else root.name


def _trace_sections(spans: Iterable[PathSpan]) -> Iterator[tuple[str, str, int, int, int]]:
    """(kind, span name, section ns, root duration ns, 1 if it is the root's row) for one trace; nothing when
    the trace has no single root (a process died before the root ended)."""
    by_id = {s.span_id: s for s in spans}
    true_roots = [s for s in by_id.values() if not s.parent_id]
    if len(true_roots) != 1:
        yield ("(incomplete trace)", "", 0, 0, 1)
        return
    root = true_roots[0]
    kind = trace_kind(root)
    if root.candidate:
        by_id, root, kind = _as_election(by_id, root)
    sums: dict[str, int] = defaultdict(int)
    for section in critical_path(((s.span_id, s.parent_id, s.start, s.end) for s in by_id.values()), root.span_id):
        sums[by_id[section.span_id].name] += section.end_ns - section.start_ns
    yield (kind, "", 0, root.end - root.start, 1)
    for name, section in sums.items():
        yield (kind, name, section, 0, 0)


def _as_election(by_id: dict[str, PathSpan], root: PathSpan) -> tuple[dict[str, PathSpan], PathSpan, str]:
    """The election trace rearranged as the module docstring says: (spans by id, synthetic root, kind)."""
    leader = min((s.leader_ns for s in by_id.values() if s.leader_ns is not None), default=None)
    if leader is not None:
        end, kind = max(leader, root.start), ELECTION_WON
    else:
        end = max([s.end for s in by_id.values() if s.name == VOTE_RESPONSE] + [root.end])
        kind = ELECTION_OTHER
    election = PathSpan(ELECTION_ROOT_ID, "", IN_FLIGHT, root.start, end, None)
    spans = {ELECTION_ROOT_ID: election}
    for s in by_id.values():
        parent = by_id.get(s.parent_id) if s.parent_id else None
        if s is root or parent is None or s.start >= parent.end:
            s = s._replace(parent_id=ELECTION_ROOT_ID)
        spans[s.span_id] = s
    return spans, election, kind


def critical_paths(spark: SparkSession, spans: DataFrame) -> JobResult:
    attributes = F.col("attributes")
    raft_reason = F.trim(F.regexp_extract(attributes["kafka.raft.poll.reason"], r"^([^:(]*)", 1))
    detail = F.when(F.col("parent_span_id") == "",
                    F.coalesce(attributes["kafka.controller.event"], attributes["kafka.api.name"],
                               F.when(raft_reason != "", raft_reason)))
    changes = F.filter("events", lambda e: e["name"] == "raft.role.change")
    candidate = F.exists(changes, lambda e: e["attributes"]["kafka.raft.role.to"] == "Candidate")
    leader_ns = F.array_min(F.transform(F.filter(changes, lambda e: e["attributes"]["kafka.raft.role.to"] == "Leader"),
                                        lambda e: e["time_ns"]))
    rows = spans.select(F.concat_ws("/", "run_id", "trace_id").alias("key"), "span_id", "parent_span_id", "name",
                        "start_ns", "end_ns", detail.alias("detail"), candidate.alias("candidate"),
                        leader_ns.alias("leader_ns"))
    sections = (rows.rdd
                .map(lambda r: (r["key"], PathSpan(r["span_id"], r["parent_span_id"], r["name"], r["start_ns"],
                                                   r["end_ns"], r["detail"], bool(r["candidate"]), r["leader_ns"])))
                .groupByKey()
                .flatMap(lambda kv: _trace_sections(kv[1])))
    frame = spark.createDataFrame(sections, "kind string, span string, section_ns long, root_ns long, is_root int")
    kinds = (frame.where("is_root = 1").groupBy("kind")
             .agg(F.count("*").alias("traces"), F.sum("root_ns").alias("kind_ns")))
    on_path = (frame.where("is_root = 0").groupBy("kind", "span")
               .agg(F.sum("section_ns").alias("path_ns"), F.count("*").alias("traces_on_path")))
    joined = on_path.join(kinds, "kind").collect()
    incomplete = next((r["traces"] for r in kinds.where(F.col("kind") == "(incomplete trace)").collect()), 0)
    result: list[dict[str, Any]] = []
    for r in joined:
        result.append({
            "kind": r["kind"], "traces": r["traces"], "mean_trace_ms": r["kind_ns"] / r["traces"] / 1e6,
            "span": r["span"], "share_pct": 100.0 * r["path_ns"] / r["kind_ns"] if r["kind_ns"] else None,
            "mean_on_path_ms": r["path_ns"] / r["traces"] / 1e6, "traces_on_path": r["traces_on_path"],
            "kind_ns": r["kind_ns"]})
    result.sort(key=lambda r: (-r["kind_ns"], r["kind"], -(r["share_pct"] or 0), r["span"]))
    ranked: dict[str, int] = defaultdict(int)
    for r in result:
        ranked[r["kind"]] += 1
        r["rank"] = ranked[r["kind"]]
        del r["kind_ns"]
    single = {kind for kind, count in ranked.items() if count == 1}
    notes = [f"the table shows the top {TABLE_SPANS_PER_KIND} spans of each kind whose path has more than its root "
             f"({len(single)} single-span kinds left out); the CSV has them all"]
    if incomplete:
        notes.append(f"{incomplete} trace(s) without a single root (a process died before the root ended) skipped")
    columns = [Col("kind", "trace kind"), Col("traces", "traces", "{:d}"), Col("mean_trace_ms", "trace ms", "{:.2f}"),
               Col("rank", "#", "{:d}"), Col("span", "span on the critical path"),
               Col("share_pct", "share %", "{:.1f}"), Col("mean_on_path_ms", "ms per trace", "{:.3f}"),
               Col("traces_on_path", "in traces", "{:d}")]
    return JobResult(job="critical-path", title="Critical path per trace kind (heaviest kinds first)",
                     columns=columns, rows=result, notes=notes, chart=_chart,
                     table_rows=lambda r: r["rank"] <= TABLE_SPANS_PER_KIND and r["kind"] not in single)


def _chart(rows: list[dict[str, Any]], stem: Path) -> list[Path]:
    kinds: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        kinds.setdefault(r["kind"], []).append(r)
    # A kind whose only span is its root says nothing about paths: the chart keeps the ten heaviest others.
    shown = [(kind, spans) for kind, spans in kinds.items() if len(spans) > 1][:10]
    fig, ax = charts.figure(10, 0.55 * len(shown) + 1.4)
    shades = ["#1f4e79", "#2e75b6", "#5b9bd5", "#9dc3e6", "#c5dcef"]
    for y, (_, spans) in enumerate(reversed(shown)):
        left = 0.0
        for shade, r in zip(shades, spans, strict=False):
            ax.barh(y, r["share_pct"], left=left, color=shade, edgecolor="white", linewidth=0.5)
            if r["share_pct"] >= 9:
                ax.text(left + r["share_pct"] / 2, y, charts.short(r["span"].split(".", 1)[-1], 22), ha="center",
                        va="center", fontsize=6, color="white" if shade in shades[:3] else "black")
            left += r["share_pct"]
        ax.barh(y, max(0.0, 100 - left), left=left, color="#e5e5e5")
    ax.set_yticks(range(len(shown)), [f"{charts.short(kind, 50)} ({spans[0]['mean_trace_ms']:.1f} ms)"
                                      for kind, spans in reversed(shown)])
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the trace's time on the critical path (%), top five spans darkest first; grey: the rest")
    ax.set_title("Critical path per trace kind (mean trace duration in brackets)")
    return charts.save(fig, stem)
