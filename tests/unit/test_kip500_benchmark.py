"""The KIP-500 benchmark's reading of spans (benchmarks/kip500.py): a KRaft controller failover split into detection,
election, claim and activation; a cold restart's load; a broker kill's fence and new leaders; topics split at 3.9's
CreateTopics limit; only the span-file lines that matter parsed. Synthetic spans, times in ms after a kill at t=0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.kip500 import (
    KraftKill,
    analyse_cold_load,
    analyse_kraft_broker_kill,
    analyse_kraft_controller_kill,
    read_spans,
    role_changes,
    summarise,
    topic_names,
)
from kafka_edu.tracing.query import SpanEvent, SpanRecord, Spans

KILL = 1_000_000_000_000  # ns


def at(ms: float) -> int:
    return KILL + int(ms * 1_000_000)


_ids = iter(range(1, 10**6))


def span(name: str, instance: str, start_ms: float, end_ms: float, events: list[SpanEvent] | None = None,
         **attributes: Any) -> SpanRecord:
    return SpanRecord(trace_id=f"t{next(_ids)}", span_id=f"s{next(_ids)}", parent_id="", name=name,
                      start_ns=at(start_ms), end_ns=at(end_ms),
                      attributes={k.replace("__", "."): v for k, v in attributes.items()},
                      resource={"service.instance.id": instance}, events=events or [])


def role(instance: str, at_ms: float, from_role: str, to_role: str, epoch: int, on: str = "KafkaRaftClient.poll"
         ) -> SpanRecord:
    event = SpanEvent("raft.role.change", at(at_ms), {"kafka.raft.role.from": from_role, "kafka.raft.role.to": to_role,
                                                      "kafka.raft.epoch": epoch})
    return span(on, instance, at_ms - 0.1, at_ms + 0.1, [event])


def controller_failover(split_vote: bool = False) -> list[SpanRecord]:
    """Controller 1 led epoch 1 and is killed at 0; 2 times out first; 3 wins epoch 2 (or 3 after a split vote)."""
    spans = [role("controller-1", -5000, "Candidate", "Leader", 1),
             role("controller-2", 1500, "Follower", "Candidate", 2, "KafkaRaftClient.pollFollower"),
             role("controller-3", 1520, "Follower", "Candidate", 2, "KafkaRaftClient.pollFollower")]
    epoch = 2
    if split_vote:
        epoch = 3
        spans.append(role("controller-3", 2900, "Candidate", "Candidate", 3, "KafkaRaftClient.pollCandidate"))
        spans.append(role("controller-2", 2910, "Candidate", "Unattached", 3, "KafkaRaftClient.handleVoteRequest"))
    spans += [role("controller-3", 3000, "Candidate", "Leader", epoch, "KafkaRaftClient.handleVoteResponse"),
              span("QuorumController.claim", "controller-3", 3100, 3100.2, kafka__raft__epoch=epoch),
              span("QuorumController.completeActivation", "controller-3", 3100.5, 3101.0)]
    return spans


def test_a_controller_failover_splits_at_the_first_candidacy_the_leader_the_claim_and_the_activation() -> None:
    kill = KraftKill(1, "controller", 1, KILL, 2.5, leaderless_max=0)
    f = analyse_kraft_controller_kill(Spans(controller_failover()), 100, kill, at(60_000))
    assert (f.killed, f.new_controller, f.epoch, f.candidacies) == ("controller-1", "controller-3", 2, 2)
    assert f.detection_ms == pytest.approx(1500)
    assert f.elected_ms == pytest.approx(3000)
    assert f.claim_ms == pytest.approx(3100)
    assert f.working_ms == pytest.approx(3101)
    assert f.activation_ms == pytest.approx(1.0)
    assert f.after_detection_ms == pytest.approx(1601)
    assert (f.leaders_moved, f.leaders_reapplied, f.leaderless_max, f.cold) == (0, 0, 0, None)


def test_a_split_vote_counts_every_candidacy_and_the_claim_of_the_winning_epoch() -> None:
    spans = controller_failover(split_vote=True)
    spans.append(span("QuorumController.claim", "controller-3", 2000, 2000.1, kafka__raft__epoch=1))  # an old claim
    f = analyse_kraft_controller_kill(Spans(spans), 10, KraftKill(1, "controller", 1, KILL, 1.0), at(60_000))
    assert (f.epoch, f.candidacies) == (3, 3)
    assert f.claim_ms == pytest.approx(3100)


def test_a_leader_moved_after_a_controller_kill_is_counted_apart_from_a_leader_applying_an_isr_change() -> None:
    spans = controller_failover() + [
        span("ReplicaManager.makeLeaders", "broker-4", -9000, -8000, kafka__partitions=["t-0", "t-3"]),  # creation
        span("ReplicaManager.makeLeaders", "broker-5", -9000, -8000, kafka__partitions=["t-1"]),
        span("ReplicaManager.makeLeaders", "broker-4", 4000, 4100, kafka__partitions=["t-0", "t-3"]),  # ISR change
        span("ReplicaManager.makeLeaders", "broker-6", 4200, 4300, kafka__partitions=["t-1"]),  # moved
        span("ReplicaManager.makeLeaders", "broker-6", 70_000, 70_100, kafka__partitions=["t-0"])]  # after
    f = analyse_kraft_controller_kill(Spans(spans), 10, KraftKill(1, "controller", 1, KILL, 1.0), at(60_000))
    assert (f.leaders_moved, f.leaders_reapplied) == (1, 2)


def test_a_failover_without_a_leader_or_an_activation_is_refused() -> None:
    no_activation = [s for s in controller_failover() if s.name != "QuorumController.completeActivation"]
    with pytest.raises(LookupError, match="never activated"):
        analyse_kraft_controller_kill(Spans(no_activation), 10, KraftKill(1, "controller", 1, KILL, 1.0), at(9999))
    with pytest.raises(LookupError, match="no Raft leader"):  # the leader comes after the window
        analyse_kraft_controller_kill(Spans(controller_failover()), 10, KraftKill(1, "controller", 1, KILL, 1.0),
                                      at(2000))


def cold_restart() -> list[SpanRecord]:
    """Controller 1, started again at 10 s, replays up to offset 130 (committed before the restart)."""
    qc = "QuorumController.QuorumMetaLogListener.handleCommit"
    return [span(qc, "controller-3", 5000, 5001, kafka__raft__offset__last=130),
            span(qc, "controller-1", -3000, -2999, kafka__raft__offset__last=100),  # before its kill
            span("Kafka.main", "controller-1", 12_000, 20_000),
            span("KafkaRaftClient.initialize", "controller-1", 12_050, 12_080),
            role("controller-1", 12_100, "Resigned", "Follower", 2),
            span(qc, "controller-1", 12_150, 12_160, kafka__raft__offset__last=24),
            span("QuorumController.replay", "controller-1", 12_151, 12_152, kafka__step="KR.replay",
                 kafka__raft__offset__first=21, kafka__raft__offset__last=24),
            span(qc, "controller-1", 12_200, 12_230, kafka__raft__offset__last=135),
            span("QuorumController.replay", "controller-1", 12_201, 12_221, kafka__step="KR.replay",
                 kafka__raft__offset__first=29, kafka__raft__offset__last=129),
            span("QuorumController.replay", "controller-1", 13_000, 13_005, kafka__step="KR.replay",  # later
                 kafka__raft__offset__first=140, kafka__raft__offset__last=140)]


def test_a_cold_restart_is_loaded_when_its_controller_replayed_what_was_committed_before() -> None:
    spans = Spans(cold_restart())
    load = analyse_cold_load(spans, "controller-1", at(10_000), at(60_000), role_changes(spans))
    assert load.target_offset == 130
    assert load.main_ms == pytest.approx(2000)
    assert load.log_open_ms == pytest.approx(2080)
    assert load.follower_ms == pytest.approx(2100)
    assert load.loaded_ms == pytest.approx(2230)
    assert load.main_to_loaded_ms == pytest.approx(230)
    assert load.replay_ms == pytest.approx(21)
    assert load.records == 4 + 101
    given = analyse_cold_load(spans, "controller-1", at(10_000), at(60_000), role_changes(spans), target=24)
    assert given.loaded_ms == pytest.approx(2160)


def test_a_controller_round_carries_its_cold_restart() -> None:
    spans = Spans(controller_failover() + cold_restart())
    kill = KraftKill(1, "controller", 1, KILL, 1.0, restart_ns=at(10_000), target_offset=130)
    f = analyse_kraft_controller_kill(spans, 100, kill, at(60_000))
    assert f.cold is not None and f.cold.loaded_ms == pytest.approx(2230)


def broker_kill() -> list[SpanRecord]:
    """Broker 4 led t-0 and t-3, killed at 0; fenced at 8 s; brokers 5 and 6 lead them by 8.3 s."""
    write = span("QuorumController.ControllerWriteEvent.run", "controller-2", 7999, 8003,
                 kafka__raft__offset__first=174, kafka__raft__offset__last=274)
    fence = span("QuorumController.rescheduleMaybeFenceStaleBrokers", "controller-2", 8000, 8002,
                 kafka__step="KR.fence", kafka__broker__id=4)
    fence.trace_id, fence.parent_id = write.trace_id, write.span_id
    qc = "QuorumController.QuorumMetaLogListener.handleCommit"
    return [span("ReplicaManager.makeLeaders", "broker-4", -9000, -8000, kafka__partitions=["t-0", "t-3"]),
            write, fence,
            span(qc, "controller-2", 8010, 8011, kafka__raft__offset__last=173),  # what was there before
            span(qc, "controller-1", 8040, 8050, kafka__raft__offset__last=275),  # a standby's
            span(qc, "controller-2", 8060, 8062, kafka__raft__offset__last=275),
            span("ReplicaManager.applyDelta", "broker-6", 8070, 8080, kafka__metadata__image__offset=273),  # ISR
            span("ReplicaManager.applyDelta", "broker-5", 8100, 8200, kafka__metadata__image__offset=275),
            span("ReplicaManager.makeLeaders", "broker-5", 8110, 8190, kafka__partitions=["t-0"]),
            span("ReplicaManager.applyDelta", "broker-6", 8120, 8300, kafka__metadata__image__offset=275),
            span("ReplicaManager.makeLeaders", "broker-6", 8130, 8290, kafka__partitions=["t-3"]),
            span("ReplicaManager.makeLeaders", "broker-5", 20_000, 20_100, kafka__partitions=["t-3"])]  # later


def test_a_broker_kill_splits_at_the_fence_the_first_delta_applied_and_the_last_new_leader() -> None:
    kill = KraftKill(1, "broker", 4, KILL, 3.0, moved=["t-0", "t-3"])
    f = analyse_kraft_broker_kill(Spans(broker_kill()), 10, kill, at(60_000))
    assert (f.killed, f.moved) == ("broker-4", 2)
    assert f.detection_ms == pytest.approx(8000)
    assert f.fence_ms == pytest.approx(2)
    assert f.commit_ms == pytest.approx(60)
    assert f.publish_ms == pytest.approx(38)
    assert f.leaders_ms == pytest.approx(190)
    assert f.led_again_ms == pytest.approx(8290)


def test_a_broker_kill_whose_partitions_never_get_a_leader_is_refused() -> None:
    kill = KraftKill(1, "broker", 4, KILL, 3.0, moved=["t-0", "t-3", "t-7"])
    with pytest.raises(LookupError, match="1 moved partitions never made leader"):
        analyse_kraft_broker_kill(Spans(broker_kill()), 10, kill, at(60_000))
    unfenced = [s for s in broker_kill() if s.step != "KR.fence"]
    with pytest.raises(LookupError, match="never fenced"):
        analyse_kraft_broker_kill(Spans(unfenced), 10, KraftKill(1, "broker", 4, KILL, 3.0, moved=["t-0"]), at(9e4))


def test_topics_stay_within_one_create_topics_of_kafka_3_9() -> None:
    assert topic_names(1000) == {"failover-bench": 1000}
    assert topic_names(9999) == {"failover-bench": 9999}
    split = topic_names(10_000)
    assert split == {"failover-bench-0": 5000, "failover-bench-1": 5000}
    assert sum(topic_names(25_000).values()) == 25_000 and max(topic_names(25_000).values()) <= 9999


def test_only_the_lines_holding_a_needle_are_read(tmp_path: Path) -> None:
    def line(name: str) -> str:
        return json.dumps({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": [
            {"traceId": "a", "spanId": name, "name": name, "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]})
    (tmp_path / "controller-1.jsonl").write_text(line("QuorumController.claim") + "\n" + line("Other.span") + "\n"
                                                 + line("QuorumController.claim"))  # the last line is unfinished
    (tmp_path / "controller-1.starts.jsonl").write_text(line("QuorumController.claim") + "\n")
    spans = read_spans(tmp_path, [b"QuorumController.claim"])
    assert [s.name for s in spans] == ["QuorumController.claim"]


def test_the_summary_takes_medians_and_the_spread_of_each_mode() -> None:
    results = {"partitions": [10], "zk": {"10": {"create_s": 1.0, "rounds": [
        {"detection_ms": 5000, "working_ms": 5100, "after_detection_ms": 100, "led_again_ms": 5200,
         "context_ms": 20, "failover_ms": 90, "moved": 4},
        {"detection_ms": 6000, "working_ms": 6300, "after_detection_ms": 300, "led_again_ms": 6400,
         "context_ms": 30, "failover_ms": 110, "moved": 3}]}},
        "kraft": {"10": {"create_s": 0.5, "controller_rounds": [
            {"detection_ms": 1500, "working_ms": 3500, "after_detection_ms": 2000, "activation_ms": 1.0,
             "leaders_moved": 0, "leaderless_max": 0, "cold": {"loaded_ms": 2500, "replay_ms": 3, "records": 20}}],
            "broker_rounds": []}}}
    row = summarise(results)[10]
    assert row["zk_working"] == (5700, (5100, 6300))
    assert row["kraft_working"] == (3500, (3500, 3500))
    assert row["kraft_cold_loaded"] == (2500, (2500, 2500))
    assert row["kraft_broker_led_again"] == (None, None)
    assert (row["zk_moved"], row["kraft_leaderless_max"]) == (3.5, 0)
