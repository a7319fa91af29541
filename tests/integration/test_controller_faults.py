"""The ZooKeeper controller under faults (Kafka 1.0.2): a controller killed under load, a controller paused past its
session (a long GC pause), and an unclean leader election, with what each costs and what the traces show."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.core.network.blocking_channel import BlockingChannel
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from tests.integration.helpers import (
    Broker,
    ZooKeeper,
    bootstrap,
    controller_epoch,
    controller_id,
    metadata_controller_id,
    metadata_leaders,
    wait_until,
)

SESSION_TIMEOUT_S = 6.0
SESSION_TIMEOUT_MS = str(int(SESSION_TIMEOUT_S * 1000))


# -- helpers ------------------------------------------------------------------------------------------------------

def start_cluster(brokers: Any, controller_first: bool = False, **per_broker: dict[str, str]) -> dict[int, Broker]:
    """Brokers 0, 1 and 2; with `controller_first`, broker 0 runs alone until it is the controller, so the test
    knows which broker that is before the others (with their own settings in `per_broker["b<id>"]`) start."""
    cluster = {i: brokers(f"b{i}", broker_id=str(i), **{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS,
                                                          **per_broker.get(f"b{i}", {})})
               for i in range(3)}
    cluster[0].start()
    if controller_first:
        cluster[0].wait_running()
        wait_until(lambda: cluster[0].spans().where(step="CT.elect", kafka__controller__won=True), 15,
                   "broker 0 to become the controller")
    for broker in (cluster[1], cluster[2]):
        broker.start()
    for broker in cluster.values():
        broker.wait_running().wait_for_controller()
    return cluster


def create_topic(cluster: dict[int, Broker], topic: str, partitions: int = 6, replication_factor: int = 3,
                 replica_assignment: list[list[int]] | None = None, **configs: str) -> None:
    if replica_assignment:
        # Raw, to the controller (broker 0 in the tests that assign): confluent-kafka's AdminClient always sends a
        # partition count, and kafka-python asks a 1.0 broker for one too, which 1.0.2 refuses beside an assignment.
        host, port = cluster[0].props["listeners"].removeprefix("PLAINTEXT://").rsplit(":", 1)
        channel = BlockingChannel(host, int(port), 30, "controller-faults-test")
        try:
            response = channel.send_and_receive(ApiKeys.CREATE_TOPICS, 2, build(
                ApiKeys.CREATE_TOPICS.request_schema(2), timeout=30000, validate_only=False, topics=[dict(
                    name=topic, num_partitions=-1, replication_factor=-1,
                    assignments=[dict(partition_index=p, broker_ids=r) for p, r in enumerate(replica_assignment)],
                    configs=[dict(name=k, value=v) for k, v in configs.items()])]))
        finally:
            channel.disconnect()
        assert [t.error_code for t in response.topics] == [0]
        return
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    new_topic = NewTopic(topic, num_partitions=partitions, replication_factor=replication_factor, config=configs)
    admin.create_topics([new_topic])[topic].result(30)


def partition_state(zookeeper: ZooKeeper, topic: str, partition: int) -> dict[str, Any] | None:
    """The partition's state znode: leader, leader_epoch, isr, controller_epoch."""
    path = f"/brokers/topics/{topic}/partitions/{partition}/state"
    return json.loads(zookeeper.client.get(path)[0]) if zookeeper.exists(path) else None


def partition_states(zookeeper: ZooKeeper, topic: str, partitions: int) -> dict[int, dict[str, Any]] | None:
    states = {p: partition_state(zookeeper, topic, p) for p in range(partitions)}
    return states if all(states.values()) else None


def wait_for_new_controller(zookeeper: ZooKeeper, old: int, epoch: int, timeout_s: float) -> int:
    """The broker in /controller once it is not `old` and /controller_epoch is `epoch` + 1."""
    def elected() -> bool:
        current = controller_id(zookeeper)
        return current not in (None, old) and controller_epoch(zookeeper) == epoch + 1
    wait_until(elected, timeout_s, f"a controller other than {old} at epoch {epoch + 1}")
    return controller_id(zookeeper)


def read_to_end(cluster: dict[int, Broker], topic: str, partitions: int) -> list[tuple[int, int, bytes]]:
    """Every record of the topic as (partition, offset, value), reading each partition up to its high watermark."""
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False})
    try:
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(partitions)}
        consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        records: list[tuple[int, int, bytes]] = []
        position = dict.fromkeys(range(partitions), 0)

        def read_more() -> bool:
            for message in consumer.consume(num_messages=5000, timeout=0.5):
                if message.error() is None:
                    records.append((message.partition(), message.offset(), message.value()))
                    position[message.partition()] = message.offset() + 1
            return all(position[p] >= ends[p] for p in range(partitions))
        wait_until(read_more, 120, f"every record of {topic} up to the high watermarks {ends}")
        return records
    finally:
        consumer.close()


def spans_with_event(run_dir: Path, name: str) -> list[tuple[Any, Any]]:
    """(span, event) for every span event of that name anywhere in the run."""
    return [(s, e) for s in load_run(run_dir).with_event(name) for e in s.events if e.name == name]


# -- 1. kill -9 of the controller under load ----------------------------------------------------------------------

RECORDS = 30_000


@pytest.mark.slow
def test_kill_9_of_the_controller_under_an_idempotent_producer_loses_and_duplicates_nothing(brokers, zookeeper):
    cluster = start_cluster(brokers)
    topic = "payments"
    create_topic(cluster, topic, partitions=6, replication_factor=3, **{"min.insync.replicas": "2"})
    states = wait_until(lambda: partition_states(zookeeper, topic, 6), 15, "the partition state znodes")
    wait_until(lambda: metadata_leaders(cluster, topic) == {p: s["leader"] for p, s in states.items()}, 15,
               "Metadata to name the leaders")
    old, epoch = controller_id(zookeeper), controller_epoch(zookeeper)

    acked: list[tuple[int, int, int]] = []  # (partition, offset, sequence number) of every acknowledged record
    failures: list[str] = []
    lock = threading.Lock()

    def on_delivery(err: Any, message: Any) -> None:
        with lock:
            if err:
                failures.append(str(err))
            else:
                acked.append((message.partition(), message.offset(), int(message.value())))

    def acked_count() -> int:
        with lock:
            return len(acked)

    def kill_the_controller() -> int:
        """kill -9 the controller mid-stream; returns the broker elected in its place."""
        before = partition_states(zookeeper, topic, 6)
        assert before is not None
        assert acked_count() < RECORDS  # mid-stream: most records are still queued or in flight
        cluster[old].kill()
        killed_at = time.monotonic()

        # The dead controller's session expires, /controller with it; another broker wins at epoch + 1.
        new = wait_for_new_controller(zookeeper, old, epoch, SESSION_TIMEOUT_S + 2)
        assert time.monotonic() - killed_at <= SESSION_TIMEOUT_S + 2

        # Each partition the dead broker led gets a live leader from its ISR.
        led = {p for p, s in before.items() if s["leader"] == old}
        live = set(cluster) - {old}

        def re_elected() -> dict[int, dict[str, Any]] | None:
            now = partition_states(zookeeper, topic, 6)
            return now if now and all(now[p]["leader"] in live for p in led) else None
        after = wait_until(re_elected, 15, "leaders for the dead broker's partitions")
        for p in led:
            assert after[p]["leader"] in before[p]["isr"], f"partition {p}: leader not from the ISR"
            assert after[p]["leader_epoch"] > before[p]["leader_epoch"]
            assert after[p]["controller_epoch"] == epoch + 1
        return new

    producer = Producer({"bootstrap.servers": bootstrap(cluster), "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5, "message.timeout.ms": 180000})
    stop_polling = threading.Event()
    poller = threading.Thread(target=lambda: [producer.poll(0.1) for _ in iter(stop_polling.is_set, True)])
    poller.start()
    try:
        for i in range(RECORDS):
            while True:
                try:
                    producer.produce(topic, value=f"{i:06d}".encode(), on_delivery=on_delivery)
                    break
                except BufferError:  # the local queue is full: let deliveries drain
                    producer.poll(0.1)
            if i == RECORDS // 3:
                wait_until(lambda: acked_count() > RECORDS // 10, 60, "a share of the records to be acknowledged")
                new = kill_the_controller()
        assert producer.flush(180) == 0
    finally:
        stop_polling.set()
        poller.join()
    assert failures == []
    assert acked_count() == RECORDS
    survivors = {i: b for i, b in cluster.items() if i != old}
    wait_until(lambda: all(leader in survivors for leader in metadata_leaders(survivors, topic).values()), 15,
               "Metadata to name live leaders only")

    # Every acknowledged record is in the log once, where its acknowledgement said, and nothing else is.
    records = read_to_end(survivors, topic, 6)
    assert len(records) == RECORDS
    assert sorted(int(value) for _, _, value in records) == list(range(RECORDS))
    assert sorted((p, offset, int(value)) for p, offset, value in records) == sorted(acked)

    # The new controller failed over at the next epoch, and every live broker names it.
    spans = cluster[new].spans()
    failover = spans.where(step="CT.failover.02").last()
    assert failover.attributes["kafka.controller.epoch"] == epoch + 1
    for broker in survivors.values():
        wait_until(lambda b=broker: metadata_controller_id(b) == new, 15, "Metadata to name the new controller")


# -- 2. a controller paused past its session ----------------------------------------------------------------------

@pytest.mark.slow
def test_a_paused_controller_resigns_and_brokers_fence_the_requests_it_still_sends(brokers, zookeeper):
    # A paused controller that had nothing queued sends nothing stale: once it runs again it finds its session
    # expired and resigns. So broker 1 stalls first (within its own, longer session): the controller's requests
    # to it wait in the controller's queue, as they would behind any slow broker, when the controller pauses.
    cluster = start_cluster(brokers, controller_first=True,
                            b1={"zookeeper.session.timeout.ms": "30000"})
    old, epoch = 0, controller_epoch(zookeeper)
    assert controller_id(zookeeper) == old
    controller, slow, other = cluster[0], cluster[1], cluster[2]
    create_topic(cluster, "before", partitions=6, replication_factor=3, **{"min.insync.replicas": "2"})
    wait_until(lambda: partition_states(zookeeper, "before", 6), 15, "the partition state znodes")

    os.kill(slow.pid, signal.SIGSTOP)
    try:
        # A new topic: the controller queues LeaderAndIsr and UpdateMetadata for every broker. Broker 1 answers
        # nothing, so its send thread waits on the first request and the UpdateMetadata stays queued.
        admin = AdminClient({"bootstrap.servers": bootstrap({0: controller})})
        admin.create_topics([NewTopic("during", num_partitions=6, replication_factor=3)])["during"].result(30)
        wait_until(lambda: controller.spans().where(step="CT.topic", kafka__topics__new=["during"]), 15,
                   "the controller to queue its requests for the new topic")

        os.kill(controller.pid, signal.SIGSTOP)  # the pause: no heartbeats, no events, no sends
        controller_stopped_ns = time.time_ns()
        try:
            # ZooKeeper expires the paused controller's session: broker 2 is elected at the next epoch.
            new = wait_for_new_controller(zookeeper, old, epoch, SESSION_TIMEOUT_S + 4)
            assert new == 2

            def heard_epoch(broker: Broker) -> bool:
                return any(s.attributes.get("kafka.controller.epoch") == epoch + 1
                           for s in broker.spans().where(name="ReplicaManager.maybeUpdateMetadataCache"))
            wait_until(lambda: heard_epoch(other), 15, f"broker 2 to hear from the controller of epoch {epoch + 1}")
            os.kill(slow.pid, signal.SIGCONT)
            wait_until(lambda: heard_epoch(slow), 15, f"broker 1 to hear from the controller of epoch {epoch + 1}")
        finally:
            resumed_ns = time.time_ns()
            os.kill(controller.pid, signal.SIGCONT)
    finally:
        os.kill(slow.pid, signal.SIGCONT)  # harmless if it already runs

    # The resumed controller's send thread delivers what was queued, stamped with its old epoch: broker 1, which
    # has heard from epoch + 1, refuses it (STALE_CONTROLLER_EPOCH).
    # The other broker may fence a request of the old controller too, and first: wait for broker 1's own.
    def fenced_by_slow() -> list[Any]:
        stale_events = [(s, e) for s, e in spans_with_event(controller.run_dir, "controller.epoch.stale")
                        if e.attributes.get("kafka.controller.id") == old]
        return stale_events if slow.pid in {s.resource.get("process.pid") for s, _ in stale_events} else []
    stale = [e for _, e in wait_until(fenced_by_slow, 15, "broker 1 to fence the old controller")]
    for e in stale:
        assert e.attributes["kafka.step"] == "CT.fence"
        assert e.attributes["kafka.controller.epoch"] == epoch
        assert e.attributes["kafka.controller.epoch.latest"] == epoch + 1
    assert any(e.time_ns >= resumed_ns for e in stale)  # the queued UpdateMetadata, sent after the pause

    # The old controller learns that its session expired, and resigns.
    def resigned() -> list[Any]:
        return [s for s in controller.spans().where(step="CT.resign") if s.start_ns >= resumed_ns]
    resign = wait_until(resigned, 30, "the old controller to resign")[0]
    assert resign.attributes["kafka.controller.epoch"] == epoch
    assert not [s for s in controller.spans().where(step="CT.failover") if s.start_ns >= controller_stopped_ns]

    # One controller, and everyone agrees: /controller, its epoch, and every broker's Metadata answer.
    assert controller_id(zookeeper) == new and controller_epoch(zookeeper) == epoch + 1
    for broker in cluster.values():
        wait_until(lambda b=broker: metadata_controller_id(b) == new, 20, f"{broker.name}'s Metadata to name {new}")

    def last_failover_epoch(broker: Broker) -> int | None:
        failovers = broker.spans().where(step="CT.failover.02")
        return failovers.last().attributes["kafka.controller.epoch"] if failovers else None
    assert [i for i, b in cluster.items() if last_failover_epoch(b) == epoch + 1] == [new]


# -- 3. unclean leader election -----------------------------------------------------------------------------------

def checkpointed_high_watermarks(log_dir: Path) -> dict[tuple[str, int], int]:
    """The broker's replication-offset-checkpoint file: version, count, then `topic partition offset` lines."""
    path = log_dir / "replication-offset-checkpoint"
    if not path.exists():
        return {}
    try:
        lines = path.read_text().splitlines()[2:]
        return {(topic, int(partition)): int(offset) for topic, partition, offset in (line.split() for line in lines)}
    except ValueError:  # caught between two writes
        return {}


def produce(cluster: dict[int, Broker], topic: str, values: range, acks: str) -> None:
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "acks": acks, "linger.ms": 5})
    for i in values:
        producer.produce(topic, value=str(i).encode(), partition=0,
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
    assert producer.flush(30) == 0
    assert errors == []


def select_spans(broker: Broker, topic: str) -> list[Any]:
    return list(broker.spans().where(name="OfflinePartitionLeaderSelector.selectLeader", kafka__topic=topic))


@pytest.mark.slow
def test_unclean_leader_election_needs_the_topic_to_allow_it_and_the_old_leader_reports_what_it_lost(
        brokers, zookeeper, tmp_path):
    # Broker 0 controls; broker 1 leads both topics, broker 2 follows. The follower will stall for longer than
    # replica.lag.time.max.ms but within its session; the leader checkpoints its high watermark often.
    leader_logs = tmp_path / "leader-logs"
    lag = {"replica.lag.time.max.ms": "2000"}
    cluster = start_cluster(
        brokers, controller_first=True, b0=lag,
        b1={**lag, "log.dirs": str(leader_logs), "zookeeper.session.timeout.ms": "4000",
            "replica.high.watermark.checkpoint.interval.ms": "100"},
        b2={**lag, "zookeeper.session.timeout.ms": "20000"})
    leader, follower = cluster[1], cluster[2]
    clean, unclean = "clean", "unclean"
    create_topic(cluster, clean, replica_assignment=[[1, 2]])  # the broker default: unclean election disabled
    create_topic(cluster, unclean, replica_assignment=[[1, 2]], **{"unclean.leader.election.enable": "true"})
    for topic in (clean, unclean):
        wait_until(lambda t=topic: (partition_state(zookeeper, t, 0) or {}).get("isr") == [1, 2], 15,
                   f"{topic}: leader 1 with ISR [1, 2]")

    # Replicated to both: acks=all waits for the follower.
    committed = range(0, 100)
    for topic in (clean, unclean):
        produce(cluster, topic, committed, acks="all")

    os.kill(follower.pid, signal.SIGSTOP)
    try:
        # The leader drops the silent follower from the ISR and writes it to ZooKeeper.
        for topic in (clean, unclean):
            wait_until(lambda t=topic: partition_state(zookeeper, t, 0)["isr"] == [1], 15,
                       f"{topic}: the leader to shrink the ISR to [1]")
        # Acknowledged by the leader alone (acks=1; with ISR [1] the high watermark moves at once).
        only_on_leader = range(100, 150)
        for topic in (clean, unclean):
            produce({1: leader}, topic, only_on_leader, acks="1")
        wait_until(lambda: all(checkpointed_high_watermarks(leader_logs).get((t, 0)) == 150 for t in (clean, unclean)),
                   10, "the leader to checkpoint high watermark 150")
        leader.kill()  # the whole ISR is gone
    finally:
        os.kill(follower.pid, signal.SIGCONT)

    # The controller sees broker 1 die. Only an out-of-sync replica is left.
    def elected_or_refused() -> bool:
        # both selections' spans, which reach the span file shortly after ZooKeeper has the new leader
        return bool(select_spans(cluster[0], clean)) and bool(select_spans(cluster[0], unclean)) and (
            partition_state(zookeeper, unclean, 0) or {}).get("leader") == 2
    wait_until(elected_or_refused, 15, "the controller to handle the leader's death")

    # Unclean election disabled (the default): no leader rather than a leader without the acknowledged records.
    refused = select_spans(cluster[0], clean)[-1]
    assert refused.is_error
    assert [e.attributes["exception.type"] for e in refused.events if e.name == "exception"] == \
        ["NoReplicaOnlineException"]
    state = partition_state(zookeeper, clean, 0)
    assert state["leader"] == -1 and state["isr"] == [1]  # the last ISR member is kept, to lead when it returns
    survivors = {0: cluster[0], 2: follower}
    wait_until(lambda: metadata_leaders(survivors, clean) == {0: -1}, 15, "Metadata to show clean without a leader")

    # Enabled for the topic: the out-of-sync follower leads, at the cost of what only the old leader had.
    elected = select_spans(cluster[0], unclean)[-1]
    assert elected.attributes["kafka.election.unclean"] is True
    assert elected.attributes["kafka.leader"] == 2
    assert not elected.is_error
    assert partition_state(zookeeper, unclean, 0)["isr"] == [2]
    wait_until(lambda: metadata_leaders(survivors, unclean) == {0: 2}, 15, "Metadata to name broker 2")

    # The old leader comes back as a follower with 50 records beyond the new leader's log end. Before its first
    # fetch it asks the new leader where its epoch (0) ends there, 100, and truncates them (KIP-101: its high
    # watermark, 150, would have kept them), and says so in its trace.
    back = brokers("b1-again", log_dirs=[leader_logs], broker_id="1", listeners=leader.props["listeners"],
                   **{"zookeeper.session.timeout.ms": SESSION_TIMEOUT_MS, **lag}).start().wait_running()

    def truncated() -> list[Any]:
        return [e.attributes for s in back.spans().where(step="LE.truncate") for e in s.events
                if e.name == "log.truncate" and e.attributes["kafka.records.lost"] > 0]
    reports = wait_until(truncated, 30, "the old leader to report the records it truncated")
    assert reports == [{"kafka.topic": unclean, "kafka.partition": 0, "kafka.offset": 100,
                        "kafka.truncation.by": "leader epoch", "kafka.leader.epoch.end_offset": 100,
                        "kafka.log_end_offset": 150, "kafka.high_watermark": 150, "kafka.records.lost": 50}]

    # Disabled: the last ISR member leads again with everything. Enabled: the 50 records are gone everywhere.
    cluster[1] = back
    wait_until(lambda: (partition_state(zookeeper, clean, 0) or {}).get("leader") == 1, 15, "clean: leader 1 again")
    assert sorted(int(v) for _, _, v in read_to_end(cluster, clean, 1)) == list(range(150))
    wait_until(lambda: sorted(partition_state(zookeeper, unclean, 0)["isr"]) == [1, 2], 20,
               "unclean: broker 1 back in the ISR")
    assert sorted(int(v) for _, _, v in read_to_end(cluster, unclean, 1)) == list(committed)
