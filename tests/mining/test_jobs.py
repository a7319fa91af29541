"""Each mining job's numbers on the committed sample runs, checked against plain Python over the same spans."""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict

import pytest

from kafka_edu.tracing.query import SpanRecord, Spans
from tests.mining.helpers import KRAFT, percentile


def _all(python_spans: dict[str, Spans]) -> list[SpanRecord]:
    return [s for spans in python_spans.values() for s in spans]


def test_startup_profile_matches_plain_python(loaded, python_spans) -> None:
    from kafka_edu.mining.startup_profile import startup_profile

    result = startup_profile(loaded.spans)
    spans = _all(python_spans)
    roots = {(s.resource["kafka.run.id"], s.trace_id): s for s in spans if s.step == "LC.main.4" and not s.parent_id}
    assert len(roots) == 5  # three brokers, one restarted after its kill -9, and the baseline's one
    durations: dict[str, list[float]] = defaultdict(list)
    for s in spans:
        if (s.step or "").startswith("LC.startup.") and (s.resource["kafka.run.id"], s.trace_id) in roots:
            durations[s.step].append(s.duration_ms)
    total_ms = sum(r.duration_ms for r in roots.values())
    by_step = {r["step"]: r for r in result.rows}
    assert set(by_step) == set(durations)
    for step, values in durations.items():
        row = by_step[step]
        assert row["count"] == len(values)
        assert row["p50_ms"] == pytest.approx(percentile(values, 0.5), abs=1e-6)
        assert row["p95_ms"] == pytest.approx(percentile(values, 0.95), abs=1e-6)
        assert row["max_ms"] == pytest.approx(max(values), abs=1e-6)
        assert row["share_pct"] == pytest.approx(100 * sum(values) / total_ms, rel=1e-6)
    shares = [r["share_pct"] for r in result.rows]
    assert shares == sorted(shares, reverse=True)  # heaviest first


METRICS = ("queue", "local", "remote", "throttle", "response_queue", "send", "total")
ATTRIBUTE = {"queue": "queue_time_ms", "local": "local_time_ms", "remote": "remote_time_ms",
             "throttle": "throttle_time_ms", "response_queue": "response_queue_time_ms",
             "send": "response_send_time_ms", "total": "total_time_ms"}


def test_request_breakdown_matches_plain_python(loaded, python_spans) -> None:
    from kafka_edu.mining.request_breakdown import request_breakdown

    result = request_breakdown(loaded.spans)
    groups: dict[tuple[int, int], list[SpanRecord]] = defaultdict(list)
    for s in _all(python_spans):
        if s.name == "RequestChannel.Request" and not s.parent_id:
            groups[(s.attributes["kafka.api.key"], s.attributes["kafka.api.version"])].append(s)
    rows = {(r["api_key"], r["api_version"]): r for r in result.rows}
    assert set(rows) == set(groups)
    assert {"Produce", "Fetch", "LeaderAndIsr", "UpdateMetadata"} <= {r["api"] for r in result.rows}
    for key, requests in groups.items():
        row = rows[key]
        assert row["count"] == len(requests)
        assert row["api"] == requests[0].attributes["kafka.api.name"]
        for metric in METRICS:
            values = [float(s.attributes[f"kafka.request.{ATTRIBUTE[metric]}"]) for s in requests]
            for p in (50, 95, 99):
                assert row[f"{metric}_p{p}"] == pytest.approx(percentile(values, p / 100), abs=1e-6), (key, metric)


def test_failover_timeline_on_the_kill_9_run(spark, loaded, python_spans) -> None:
    from kafka_edu.mining.failover_timeline import failover_timeline

    result = failover_timeline(spark, loaded.spans)
    spans = python_spans["mining-failover"]
    wins = sorted((s for s in spans.where(name="KafkaController.elect") if s.attributes.get("kafka.controller.won")),
                  key=lambda s: s.start_ns)
    changes = [r for r in result.rows if r["run_id"] == wins[0].resource["kafka.run.id"]]
    assert [r["epoch"] for r in changes] == [w.attributes["kafka.controller.epoch"] for w in wins[1:]]
    killed, successor = wins[0], wins[1]  # the sample kills the first controller with SIGKILL
    reelects = [s for s in spans.where(step="CT.event", kafka__controller__event="Reelect")
                if killed.end_ns < s.start_ns <= successor.start_ns]
    loss = min(s.start_ns for s in reelects)
    failover = spans.children_of(successor).where(name="KafkaController.onControllerFailover").first()
    last_seen = max(s.end_ns for s in spans.where(instance=killed.instance) if s.end_ns < loss)
    # partitions the killed broker led, and when each was led again (makeLeaders on a survivor)
    leader: dict[str, str] = {}
    made = sorted(spans.where(name="ReplicaManager.makeLeaders"), key=lambda s: s.end_ns)
    for s in made:
        if s.end_ns <= loss:
            leader.update((p, s.instance) for p in s.attributes["kafka.partitions"])
    orphaned = {p for p, instance in leader.items() if instance == killed.instance}
    led = {}
    for s in made:
        if s.start_ns > loss:
            for p in s.attributes["kafka.partitions"]:
                if p in orphaned:
                    led.setdefault(p, s.end_ns)
    row = changes[0]
    assert row["cause"] == "session lost: /controller deleted"
    assert row["previous"] == killed.instance and row["controller"] == successor.instance
    assert row["last_seen_ms"] == pytest.approx((loss - last_seen) / 1e6)
    assert row["elected_ms"] == pytest.approx((failover.start_ns - loss) / 1e6)
    assert row["failover_done_ms"] == pytest.approx((failover.end_ns - loss) / 1e6)
    assert 0 < row["partitions_moved"] == len(orphaned) == len(led)
    assert row["led_again_ms"] == pytest.approx((max(led.values()) - loss) / 1e6)
    # sensible on a live kill -9 with zookeeper.session.timeout.ms=6000: ZooKeeper notices within a few seconds
    # of the session timeout, then election and failover take milliseconds
    assert 2_000 < row["last_seen_ms"] < 15_000
    assert 0 < row["elected_ms"] < row["failover_done_ms"] < 5_000
    assert 0 < row["led_again_ms"] < 5_000
    # the later changes are the controlled shutdowns of `cluster down`
    assert all(r["cause"] == "resigned (controlled shutdown)" for r in changes[1:])


def _raft_changes(spans: Spans) -> list[tuple[int, str, dict]]:
    return sorted((e.time_ns, s.instance, e.attributes) for s in spans for e in s.events
                  if e.name == "raft.role.change")


def test_failover_timeline_on_the_kraft_run(spark, kraft_loaded, kraft_spans) -> None:
    """kill -9 of the Raft leader, then a paused voter that deposes the next one: each change's timeline from the
    followers' fetch timeouts to the new QuorumController's activation, read independently from the spans."""
    from kafka_edu.mining.failover_timeline import failover_timeline
    from kafka_edu.mining.raft_elections import run_faults

    result = failover_timeline(spark, kraft_loaded.spans, run_faults(kraft_loaded.runs))
    faults = json.loads((KRAFT / "manifest.json").read_text())["faults"]
    killed, paused = faults[0], faults[2]
    changes = _raft_changes(kraft_spans)
    wins: dict[int, tuple[int, str]] = {}
    for t, instance, a in changes:
        if a["kafka.raft.role.to"] == "Leader":
            wins.setdefault(a["kafka.raft.epoch"], (t, instance))
    ordered = sorted(wins.items(), key=lambda item: item[1][0])
    assert [r["epoch"] for r in result.rows] == [epoch for epoch, _ in ordered[1:]]
    assert all(r["mode"] == "kraft" and r["led_again_ms"] is None for r in result.rows)
    timeouts = sorted((s.start_ns, s.instance) for s in kraft_spans.where(name="KafkaRaftClient.pollFollower")
                      if s.attributes.get("kafka.raft.poll.reason", "").startswith("fetch timeout"))
    pairs = list(zip(ordered, ordered[1:], strict=False))
    for row, ((_, (before, old)), (epoch, (won_at, new))) in zip(result.rows, pairs, strict=True):
        in_window = [(t, i) for t, i in timeouts if before < t <= won_at]
        left = [(t, i) for t, i, a in changes
                if i == old and a["kafka.raft.role.from"] == "Leader" and before < t <= won_at]
        loss, seen_by = min(in_window + left)
        assert (row["previous"], row["controller"], row["loss_seen_by"]) == (old, new, seen_by)
        assert row["elected_ms"] == pytest.approx((won_at - loss) / 1e6)
        assert row["fetch_timeouts"] == ", ".join(f"{i} +{(t - loss) / 1e6:.1f}" for t, i in in_window)
        last_seen = max(s.end_ns for s in kraft_spans.where(instance=old) if s.end_ns < loss)
        assert row["last_seen_ms"] == pytest.approx((loss - last_seen) / 1e6)
        stood = {(i, a["kafka.raft.epoch"]) for t, i, a in changes
                 if a["kafka.raft.role.to"] == "Candidate" and before < t <= won_at}
        assert row["candidacies"] == len(stood) >= 1
        node = int(new.rsplit("-", 1)[1])
        granted = sorted(s.instance for s in kraft_spans.where(name="KafkaRaftClient.handleVoteRequest")
                         if s.attributes["kafka.raft.vote.candidate_id"] == node
                         and s.attributes["kafka.raft.vote.candidate_epoch"] == epoch
                         and s.attributes["kafka.raft.vote.granted"])
        assert row["votes"] == ", ".join(granted)
        claim = next(s for s in kraft_spans.where(instance=new, name="QuorumController.claim")
                     if s.attributes["kafka.raft.epoch"] == epoch)
        activation = min((s for s in kraft_spans.where(instance=new, name="QuorumController.completeActivation")
                          if s.start_ns >= claim.start_ns), key=lambda s: s.start_ns)
        assert row["claim_ms"] == pytest.approx((claim.start_ns - loss) / 1e6)
        assert row["failover_done_ms"] == pytest.approx((activation.end_ns - loss) / 1e6)
        assert 0 <= row["candidate_ms"] <= row["votes_ms"] <= row["elected_ms"] <= row["claim_ms"] \
            <= row["failover_done_ms"] < 5_000
        if left:  # no active controller from the moment the old one left the role, else from its last span
            assert row["no_controller_ms"] == pytest.approx(row["failover_done_ms"] - (left[0][0] - loss) / 1e6)
        else:
            assert row["no_controller_ms"] == pytest.approx(row["failover_done_ms"] + row["last_seen_ms"])
    after_kill, after_pause = result.rows
    assert after_kill["previous"] == f"controller-{killed['node']}"
    assert after_kill["cause"] == "leader lost: followers' fetch timeouts"
    # controller.quorum.fetch.timeout.ms is 2000: the followers give up on the dead leader about 2 s after the kill
    # (their timer restarts at each answered Fetch, and an idle leader answers one at least every 500 ms)
    assert -2_200 < after_kill["fault_ms"] < -1_300 and after_kill["fault"].startswith("kill -9 of node")
    assert after_kill["last_seen_ms"] > -after_kill["fault_ms"] - 600  # its last span: a little before the kill
    assert after_pause["cause"].startswith(f"deposed: controller-{paused['node']} stood in epoch")
    assert after_pause["loss_seen_by"] == f"controller-{paused['node']}"
    assert f"pause of node {paused['node']}" in after_pause["fault"]
    assert any("no one was elected after it" in note for note in result.notes)


def _election_spans(trace: list[SpanRecord]) -> tuple[list[SpanRecord], SpanRecord, str] | None:
    """An election trace as the job walks it: a synthetic root from the candidacy to its outcome, and every span that
    starts after its parent ended (or whose parent is missing) hung from it."""
    roots = [s for s in trace if not s.parent_id]
    if len(roots) != 1 or not any(e.name == "raft.role.change" and e.attributes["kafka.raft.role.to"] == "Candidate"
                                  for e in roots[0].events):
        return None
    root = roots[0]
    leader = [e.time_ns for s in trace for e in s.events
              if e.name == "raft.role.change" and e.attributes["kafka.raft.role.to"] == "Leader"]
    if leader:
        end, kind = min(leader), "Raft election → Leader"
    else:
        end = max([s.end_ns for s in trace if s.name == "KafkaRaftClient.handleVoteResponse"] + [root.end_ns])
        kind = "Raft election without a leader (to the last Vote answer)"
    top = SpanRecord(root.trace_id, "top", "", "(between spans: in flight, queued)", root.start_ns, end, {}, {})
    by_id = {s.span_id: s for s in trace}
    out = [top]
    for s in trace:
        parent = by_id.get(s.parent_id)
        if s is root or parent is None or s.start_ns >= parent.end_ns:
            s = SpanRecord(s.trace_id, s.span_id, "top", s.name, s.start_ns, s.end_ns, {}, {})
        out.append(s)
    return out, top, kind


def test_critical_path_of_election_traces(spark, kraft_loaded, kraft_spans) -> None:
    from kafka_edu.mining.critical_path import IN_FLIGHT, critical_paths

    result = critical_paths(spark, kraft_loaded.spans)
    by_trace: dict[str, list[SpanRecord]] = defaultdict(list)
    for s in kraft_spans:
        by_trace[s.trace_id].append(s)
    path_ns: dict[tuple[str, str], int] = defaultdict(int)
    kind_ns: dict[str, int] = defaultdict(int)
    traces: dict[str, int] = defaultdict(int)
    for trace in by_trace.values():
        election = _election_spans(trace)
        if election is None:
            continue
        spans, top, kind = election
        kept, children = _sanitized(spans, top)
        path: list[tuple[str, int, int]] = []
        _jaeger_critical_path(kept, top.span_id, path, children)
        for name, start, end in path:
            path_ns[(kind, name)] += end - start
        kind_ns[kind] += top.end_ns - top.start_ns
        traces[kind] += 1
    rows = {(r["kind"], r["span"]): r for r in result.rows if r["kind"].startswith("Raft election")}
    assert set(rows) == {key for key, ns in path_ns.items() if ns > 0}
    for key, ns in path_ns.items():
        if ns:
            assert rows[key]["share_pct"] == pytest.approx(100 * ns / kind_ns[key[0]], abs=1e-9)
            assert rows[key]["traces"] == traces[key[0]]
    won = "Raft election → Leader"
    leaders = {(i, a["kafka.raft.epoch"]) for _, i, a in _raft_changes(kraft_spans)
               if a["kafka.raft.role.to"] == "Leader"}
    assert traces[won] == len(leaders) == 3
    on_path = {r["span"] for r in result.rows if r["kind"] == won}
    # a won election's path crosses processes: the candidate's send, a voter's handling, the answer back, the wire
    assert {"KafkaRaftClient.maybeSendVoteRequests", "KafkaRaftClient.handleVoteRequest",
            "KafkaRaftClient.handleVoteResponse", IN_FLIGHT} <= on_path
    assert sum(r["share_pct"] for r in result.rows if r["kind"] == won) == pytest.approx(100)
    # the election traces are not left to Jaeger's clipping, which keeps only the candidate's first few ms
    assert not any(r["kind"].startswith("KafkaRaftClient.pollFollower") for r in result.rows)


def test_dependencies_match_plain_python(loaded, python_spans) -> None:
    from kafka_edu.mining.dependencies import dependencies

    result = dependencies(loaded.spans)
    calls: Counter[tuple[str, str, str]] = Counter()
    for spans in python_spans.values():
        by_id = {(s.trace_id, s.span_id): s for s in spans}
        for s in spans.where(name="RequestChannel.Request"):
            if s.parent_id:
                continue
            client = s.attributes["kafka.client.id"]
            sender = by_id.get(s.links[0]) if s.links else None
            if sender is not None and sender.name == "RequestSendThread.doWork":
                caller = f"{sender.instance} (controller)"
            elif sender is not None:
                caller = sender.instance
            elif client.startswith("controller-"):
                caller = f"broker-{client.split('-')[1]} (controller)"
            elif "-fetcher-" in client:
                caller = client.split("-fetcher-")[0]
            else:
                caller = f"client:{client}"
            calls[(caller, s.instance, s.attributes["kafka.api.name"])] += 1
        for s in spans:
            if s.name.startswith("ZkUtils."):
                calls[(s.instance, "zookeeper", s.name)] += 1
    answered = Counter()
    for r in result.rows:
        answered[(r["caller"], r["callee"], r["via"])] += r["calls"] - r["unanswered"]
    assert +answered == +calls
    kinds = {r["kind"] for r in result.rows}
    assert {"controller request", "replica fetch", "client request", "ZooKeeper"} <= kinds
    controller_calls = sum(r["calls"] for r in result.rows if r["kind"] == "controller request")
    sends = sum(len(spans.where(name="RequestSendThread.doWork")) for spans in python_spans.values())
    assert controller_calls >= sends  # every send is a call, answered or not


def _jaeger_critical_path(spans: dict[str, SpanRecord], span_id: str, path: list[tuple[str, int, int]],
                          children: dict[str, list[SpanRecord]], returning: int | None = None) -> None:
    """Jaeger UI's computeCriticalPath, recursive as written there."""
    span = spans[span_id]
    candidates = [c for c in children[span_id] if returning is None or c.end_ns < returning]
    last = max(candidates, key=lambda c: (c.end_ns, c.start_ns, c.span_id), default=None)
    end = returning if returning is not None else span.end_ns
    if last is not None:
        if last.end_ns != end:
            path.append((span.name, last.end_ns, end))
        _jaeger_critical_path(spans, last.span_id, path, children)
        # Jaeger re-enters the parent from the child's branch below; nothing more to do here
    else:
        if span.start_ns != end:
            path.append((span.name, span.start_ns, end))
        if span.parent_id and span.parent_id in spans:
            _jaeger_critical_path(spans, span.parent_id, path, children, span.start_ns)


def _sanitized(trace: list[SpanRecord], root: SpanRecord) -> tuple[dict[str, SpanRecord], dict[str, list]]:
    """Jaeger's sanitizeOverFlowingChildren: clip to the parent, drop what lies wholly outside it."""
    kids: dict[str, list[SpanRecord]] = defaultdict(list)
    for s in trace:
        if s is not root:
            kids[s.parent_id].append(s)
    kept = {root.span_id: root}
    children: dict[str, list[SpanRecord]] = defaultdict(list)

    def visit(parent: SpanRecord) -> None:
        for child in kids[parent.span_id]:
            start, end = max(child.start_ns, parent.start_ns), min(child.end_ns, parent.end_ns)
            if start > end:
                continue
            clipped = SpanRecord(child.trace_id, child.span_id, child.parent_id, child.name, start, end, {}, {})
            kept[child.span_id] = clipped
            children[parent.span_id].append(clipped)
            visit(clipped)
    visit(root)
    return kept, children


def test_critical_path_matches_jaegers_algorithm(spark, loaded, python_spans) -> None:
    from kafka_edu.mining.critical_path import critical_paths

    result = critical_paths(spark, loaded.spans)
    path_ns: dict[tuple[str, str], int] = defaultdict(int)
    kind_ns: dict[str, int] = defaultdict(int)
    traces: dict[str, int] = defaultdict(int)
    for spans in python_spans.values():
        by_trace: dict[str, list[SpanRecord]] = defaultdict(list)
        for s in spans:
            by_trace[s.trace_id].append(s)
        for trace in by_trace.values():
            roots = [s for s in trace if not s.parent_id]
            if len(roots) != 1:
                continue
            root = roots[0]
            detail = root.attributes.get("kafka.controller.event") or root.attributes.get("kafka.api.name")
            kind = f"{root.name}[{detail}]" if detail else root.name
            kept, children = _sanitized(trace, root)
            path: list[tuple[str, int, int]] = []
            _jaeger_critical_path(kept, root.span_id, path, children)
            assert sum(end - start for _, start, end in path) == root.end_ns - root.start_ns
            for name, start, end in path:
                path_ns[(kind, name)] += end - start
            kind_ns[kind] += root.end_ns - root.start_ns
            traces[kind] += 1
    rows = {(r["kind"], r["span"]): r for r in result.rows}
    expected = {key for key, ns in path_ns.items() if ns > 0}
    assert set(rows) == expected
    for (kind, name), ns in path_ns.items():
        if ns:
            assert rows[(kind, name)]["share_pct"] == pytest.approx(100 * ns / kind_ns[kind], abs=1e-9)
            assert rows[(kind, name)]["traces"] == traces[kind]
    for kind in kind_ns:
        if kind_ns[kind]:
            assert sum(r["share_pct"] for r in result.rows if r["kind"] == kind) == pytest.approx(100)
    # the new controller's failover trace: the election and the failover steps are on its path
    reelect = {r["span"] for r in result.rows if r["kind"] == "ControllerEventManager.process[Reelect]"}
    assert {"KafkaController.elect", "KafkaController.onControllerFailover"} <= reelect


def test_regressions_match_plain_python(loaded, python_spans) -> None:
    from kafka_edu.mining.regressions import regressions, robust_scale

    baseline_run = python_spans["mining-baseline"].first().resource["kafka.run.id"]
    other_run = python_spans["mining-failover"].first().resource["kafka.run.id"]
    result = regressions(loaded.spans, baseline_run, [other_run], threshold=3.5, min_change_ms=1.0)

    def by_step(spans: Spans) -> dict[tuple[str, str], list[float]]:
        out: dict[tuple[str, str], list[float]] = defaultdict(list)
        for s in spans:
            if s.step:
                out[(s.step, s.name)].append(s.duration_ms)
        return out

    base, other = by_step(python_spans["mining-baseline"]), by_step(python_spans["mining-failover"])
    rows = {(r["step"], r["name"]): r for r in result.rows}
    assert set(rows) == set(base) & set(other)
    flagged = set()
    for key in rows:
        median = statistics.median(base[key])
        mad = statistics.median(abs(x - median) for x in base[key])
        change = statistics.median(other[key]) - median
        z = change / robust_scale(mad, median)
        assert rows[key]["baseline_ms"] == pytest.approx(median, abs=1e-6)
        assert rows[key]["mad_ms"] == pytest.approx(mad, abs=1e-6)
        assert rows[key]["change_ms"] == pytest.approx(change, abs=1e-6)
        if abs(z) > 3.5 and abs(change) >= 1.0:
            flagged.add(key)
    assert {key for key, r in rows.items() if r["verdict"]} == flagged
    # the kill -9 run's brokers shut down with a controller that must move leaders away first: far slower
    assert rows[("LC.shutdown.02", "KafkaServer.controlledShutdown")]["verdict"] == "slower"


def test_array_attributes_survive_as_json(loaded) -> None:
    row = loaded.spans.where("name = 'ReplicaManager.makeLeaders'").select("attributes").first()
    assert isinstance(json.loads(row["attributes"]["kafka.partitions"]), list)
