"""Kafka 3.9's group coordinator traced (FIDELITY GC, and TX39.txoffsets) on real processes: one KRaft broker, where
two KIP-848 members join a group on the wire (a target assignment, reconciliations, epoch bumps) and leave it (a
fence each), a classic confluent-kafka consumer joins, syncs, heartbeats, fetches and commits, a transactional
producer commits offsets with its transaction, and the group the KIP-848 members left empty is deleted by the
expiration timer, which runs every second here. The run's traces must hold every GC row (check_trace.py --require
GC), and a write must read as one story: GC.write -> the event's turn -> its operation row -> GC.append -> GC.replay,
with a joining heartbeat's GC.hb -> GC.target -> GC.reconcile. A rebalance is one trace per heartbeat round, linked:
the first member's reconciliation towards the target the second one's join computed links to that GC.target, and the
target the remaining member's heartbeat computes after a leave links to the leave's GC.fence."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTopicPartition

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.tracing.query import SpanRecord, Spans, load_run
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.integration.helpers import request_to, wait_until
from tests.integration.test_kraft_consumer_groups import (
    OVERRIDES,
    PARTITIONS,
    History,
    WireMember,
    balanced,
    bootstrap,
    broker_port,
    new_topic,
    produce,
)

CHECK_TRACE = Path(__file__).resolve().parents[2].parent / "shared" / "acceptance" / "check_trace.py"
TRACE_OVERRIDES = [*OVERRIDES, "offsets.retention.check.interval.ms=1000",
                   "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
                   "transaction.state.log.num.partitions=1"]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(1, tmp_path / "traces", mode="kraft", controllers=1, timeout_s=120,
                              overrides=TRACE_OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def gc_spans(runner: ClusterRunner) -> Spans:
    return Spans(s for s in load_run(runner.run.path) if s.instance.startswith("broker-"))


def ancestors(span: SpanRecord, by_id: dict[tuple[str, str], SpanRecord]) -> list[SpanRecord]:
    chain = []
    while span.parent_id and (span.trace_id, span.parent_id) in by_id:
        span = by_id[(span.trace_id, span.parent_id)]
        chain.append(span)
    return chain


def classic_consumer_commits(cluster: ClusterRunner, topic: str, group: str) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group, "group.protocol": "classic",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "heartbeat.interval.ms": 300})
    try:
        consumer.subscribe([topic])
        seen = 0
        deadline = time.monotonic() + 30
        while seen < 6 and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                seen += 1
        assert seen == 6
        consumer.commit(asynchronous=False)
        committed = consumer.committed([CTopicPartition(topic, p) for p in range(PARTITIONS)], timeout=30)
        assert sum(tp.offset for tp in committed if tp.offset >= 0) == 6
    finally:
        consumer.close()


def transaction_commits_offsets(cluster: ClusterRunner, topic: str, group: str) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": group})
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "transactional.id": f"tx-{group}"})
    try:
        producer.init_transactions(30)
        producer.begin_transaction()
        producer.produce(topic, b"in-the-transaction", partition=0)
        producer.send_offsets_to_transaction([CTopicPartition(topic, 0, 3)], consumer.consumer_group_metadata(), 30)
        producer.commit_transaction(30)
    finally:
        consumer.close()


def test_every_gc_row_is_traced_and_a_write_is_one_story(cluster: ClusterRunner) -> None:
    topic = new_topic(cluster)
    produce(cluster, topic, 6)

    # two KIP-848 members, one after the other: a target assignment, reconciliations and epoch bumps; "a" leaves
    # (GC.fence) and "b", alone, takes every partition in its next heartbeat; then "b" leaves too
    group = f"g-848-{uuid.uuid4().hex[:6]}"
    history = History()
    members: list[WireMember] = []
    try:
        members.append(WireMember(cluster, group, topic, "a", history))
        wait_until(lambda: balanced(history, ["a"]), 30, "the first member to own every partition")
        members.append(WireMember(cluster, group, topic, "b", history))
        wait_until(lambda: balanced(history, ["a", "b"]), 30, "the two members to share the partitions")
        described = request_to(broker_port(cluster), ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, group_ids=[group],
                               include_authorized_operations=False)
        assert described.groups[0].error_code == Errors.NONE
        members[0].close()
        wait_until(lambda: balanced(history, ["b"]), 30, "the member left alone to own every partition")
    finally:
        for member in members:
            member.close()
    member_a, member_b = members

    classic_group = f"g-classic-{uuid.uuid4().hex[:6]}"
    classic_consumer_commits(cluster, topic, classic_group)
    transaction_commits_offsets(cluster, topic, f"g-txn-{uuid.uuid4().hex[:6]}")

    # the KIP-848 group is empty and has no offsets: the next expiration check deletes it
    def expired() -> bool:
        return any(group in s.attributes.get("kafka.group.ids", []) for s in gc_spans(cluster).where(step="GC.expire"))
    wait_until(expired, 20, f"GC.expire deleting {group}")

    spans = gc_spans(cluster)
    assert not [s.name for s in spans if "kafka.describe.error" in s.attributes]
    by_id = {(s.trace_id, s.span_id): s for s in spans}

    # a write: GC.write -> its turn -> the operation -> GC.append -> GC.replay, one trace
    replay = next(s for s in spans.where(step="GC.replay")
                  if any(a.step == "GC.write" for a in ancestors(s, by_id)))
    chain = ancestors(replay, by_id)
    assert chain[0].step == "GC.append"
    assert "CoordinatorRuntime.CoordinatorWriteEvent.run" in [a.name for a in chain]

    # a joining heartbeat: GC.hb -> GC.target -> GC.reconcile, the epoch bump on the replay of its epoch record
    def story(hb: SpanRecord) -> list[str]:
        return [s.step for s in sorted((s for s in spans if s.trace_id == hb.trace_id and s.step), key=lambda s:
                                       s.start_ns)]
    joins = sorted((hb for hb in spans.where(step="GC.hb") if hb.attributes.get("kafka.member.epoch.request") == 0
                    and hb.attributes.get("kafka.group.id") == group), key=lambda s: s.start_ns)
    assert [j.attributes["kafka.member.id"] for j in joins] == [member_a.member_id, member_b.member_id]
    first = story(joins[0])
    assert [s for s in first if s in ("GC.write", "GC.hb", "GC.target", "GC.reconcile", "GC.append")] == [
        "GC.write", "GC.hb", "GC.target", "GC.reconcile", "GC.append"], first
    target = next(s for s in spans.where(step="GC.target") if s.trace_id == joins[0].trace_id)
    assert joins[0] in ancestors(target, by_id) and target.attributes["kafka.group.id"] == group
    bumps = [e for s in spans.where(step="GC.replay") if s.trace_id == joins[0].trace_id for e in s.events
             if e.name == "group.epoch.bump"]
    assert bumps and bumps[0].attributes["kafka.group.epoch.to"] == 1
    assert bumps[0].attributes["kafka.reason"] == "member subscription changed"

    # what the TUI's Groups view reads: a heartbeat gives the group's epoch and state after it (the first member,
    # reconciled at once, makes the group Stable at epoch 1; the last leave leaves it Empty), a reconciliation its group
    heartbeats = [s for s in spans.where(step="GC.hb") if s.attributes.get("kafka.group.id") == group]
    assert all(isinstance(s.attributes.get("kafka.group.epoch"), int) and s.attributes.get("kafka.group.state") in
               ("Empty", "Assigning", "Reconciling", "Stable") for s in heartbeats), [s.attributes for s in heartbeats]
    assert (joins[0].attributes["kafka.group.epoch"], joins[0].attributes["kafka.group.state"]) == (1, "Stable")
    last_leave = max((s for s in heartbeats if s.attributes["kafka.member.epoch.request"] == -1),
                     key=lambda s: s.end_ns)
    assert last_leave.attributes["kafka.group.state"] == "Empty"
    reconciles = [s for s in spans.where(step="GC.reconcile") if s.trace_id in {j.trace_id for j in joins}]
    assert reconciles and all(s.attributes.get("kafka.group.id") == group for s in reconciles)

    # the rebalance as linked heartbeat rounds. The second member's join bumps the epoch to 2 and computes that
    # epoch's target in its own trace, where its own reconciliation needs no link.
    def in_trace(step: str, trace_id: str) -> list[SpanRecord]:
        return sorted((s for s in spans.where(step=step) if s.trace_id == trace_id), key=lambda s: s.start_ns)
    join_b = joins[1]
    assert [e.attributes["kafka.group.epoch.to"] for s in in_trace("GC.replay", join_b.trace_id) for e in s.events
            if e.name == "group.epoch.bump"] == [2]
    (target_b,) = in_trace("GC.target", join_b.trace_id)
    assert target_b.attributes["kafka.target.epoch"] == 2 and target_b.links == []
    assert [s.links for s in in_trace("GC.reconcile", join_b.trace_id)] == [[]]
    # the first member's next heartbeat that reconciles revokes what the second got, in a trace of its own, linked
    # to that GC.target; so does the one that then takes it to epoch 2
    a_reconciles = sorted((s for s in spans.where(step="GC.reconcile")
                           if s.attributes["kafka.member.id"] == member_a.member_id
                           and s.attributes["kafka.target.epoch"] == 2), key=lambda s: s.start_ns)
    assert a_reconciles, [s.attributes for s in spans.where(step="GC.reconcile")]
    revoking = a_reconciles[0]
    assert revoking.trace_id != join_b.trace_id
    assert revoking.attributes["kafka.partitions.pending.revocation"], revoking.attributes
    assert any(s.step == "GC.hb" for s in ancestors(revoking, by_id))
    assert all(s.links == [(target_b.trace_id, target_b.span_id)] for s in a_reconciles), \
        [(s.attributes, s.links) for s in a_reconciles]
    assert a_reconciles[-1].attributes["kafka.member.epoch.next"] == 2
    # "a" leaves: its GC.fence bumps the epoch (no target: nobody else heartbeats in that round); the target "b"'s
    # next heartbeat computes for that epoch links to the fence
    (fence_a,) = [s for s in spans.where(step="GC.fence") if s.attributes["kafka.member.id"] == member_a.member_id]
    (left_epoch,) = [e.attributes["kafka.group.epoch.to"] for s in in_trace("GC.replay", fence_a.trace_id)
                     for e in s.events if e.name == "group.epoch.bump"]
    assert left_epoch == fence_a.attributes["kafka.group.epoch"] + 1 and not in_trace("GC.target", fence_a.trace_id)
    group_targets = [s for s in spans.where(step="GC.target") if s.attributes["kafka.group.id"] == group]
    after_leaves = [s for s in group_targets if s.attributes["kafka.target.epoch"] == left_epoch]
    # once, in CI: none at that epoch; the group's targets say which epochs were assigned instead
    assert len(after_leaves) == 1, \
        (left_epoch, [(s.start_ns, s.trace_id, s.attributes, s.links) for s in group_targets])
    (after_leave,) = after_leaves
    assert after_leave.trace_id != fence_a.trace_id
    assert after_leave.links == [(fence_a.trace_id, fence_a.span_id)], after_leave.links
    assert after_leave.attributes["kafka.target.assignment"] == [
        f"{member_b.member_id}: {', '.join(f'{topic}-{p}' for p in range(PARTITIONS))}"]

    # the classic group: each JoinGroup's generation, state and member id (the one the coordinator made when the
    # request had none), each SyncGroup's decoded assignment (its only member gets every partition), its heartbeats,
    # and the LeaveGroup of its close naming the member it removed
    classic_joins = [s for s in spans.where(step="GC.join") if s.attributes.get("kafka.group.id") == classic_group]
    assert classic_joins and all(isinstance(s.attributes.get("kafka.group.generation"), int)
                                 and isinstance(s.attributes.get("kafka.group.state"), str)
                                 and s.attributes.get("kafka.member.id") for s in classic_joins), \
        [s.attributes for s in classic_joins]
    member_id = classic_joins[-1].attributes["kafka.member.id"]
    syncs = [s for s in spans.where(step="GC.sync") if s.attributes.get("kafka.group.id") == classic_group]
    assert [s.attributes.get("kafka.assignment.partitions") for s in syncs][-1] == \
        [f"{topic}-{p}" for p in range(PARTITIONS)], [s.attributes for s in syncs]
    classic = [s for s in spans.where(step="GC.classic") if s.attributes.get("kafka.group.id") == classic_group]
    assert {s.attributes.get("kafka.classic.operation") for s in classic} == {"heartbeat", "leave"}, \
        [s.attributes for s in classic]
    assert all(s.attributes["kafka.members.removed"] == [] for s in classic
               if s.attributes["kafka.classic.operation"] == "heartbeat")
    (leave,) = [s for s in classic if s.attributes["kafka.classic.operation"] == "leave"]
    assert leave.name == "GroupMetadataManager.classicGroupLeave"
    assert leave.attributes["kafka.members.removed"] == [member_id]
    assert leave.attributes["kafka.group.state"] in ("Empty", "PreparingRebalance")

    # each leave fences its member and bumps the epoch for that reason
    fences = [s for s in spans.where(step="GC.fence") if s.attributes.get("kafka.group.id") == group]
    assert sorted(s.attributes["kafka.member.id"] for s in fences) == sorted(m.member_id for m in members)
    leave_bumps = [e for s in spans.where(step="GC.replay") for e in s.events if e.name == "group.epoch.bump"
                   and e.attributes.get("kafka.group.id") == group and e.attributes["kafka.reason"] == "member left"]
    assert len(leave_bumps) == 2

    # the high watermark completes parked writes: it links to their turns
    assert any(s.links for s in spans.where(step="GC.hwm"))
    # the coordinator's load: INITIAL -> LOADING -> ACTIVE
    changes = [(e.attributes["kafka.coordinator.state.from"], e.attributes["kafka.coordinator.state.to"])
               for s in spans for e in s.events if e.name == "coordinator.state.change"]
    assert ("INITIAL", "LOADING") in changes and ("LOADING", "ACTIVE") in changes

    # the transactional offset commit (TX39.txoffsets), its write transactional
    (txoffsets,) = [s for s in spans.where(step="TX39.txoffsets")]
    assert txoffsets.attributes["kafka.txn.offsets"] == [f"{topic}-0@3"]
    assert any(s.attributes.get("kafka.producer.id") == txoffsets.attributes["kafka.producer.id"]
               for s in spans.where(step="GC.append"))

    if CHECK_TRACE.exists():
        done = subprocess.run([sys.executable, str(CHECK_TRACE), str(cluster.run.path), "--require", "GC"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
