"""KRaft part 2 acceptance, on real processes: kill -9 of the active controller while an idempotent producer with
acks=all keeps writing through the brokers loses nothing it was told was written, and writes nothing twice. The
brokers keep leading their partitions (a controller failover moves no partition leadership); what they need from
the controller (heartbeats, producer id blocks) goes to the new leader."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from tests.integration.helpers import wait_until

TOPIC = "payments"
PARTITIONS = 3
OVERRIDES = ["broker.session.timeout.ms=6000", "broker.heartbeat.interval.ms=1000", "min.insync.replicas=2",
             "offsets.topic.replication.factor=3"]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(3, tmp_path / "traces", mode="kraft", controllers=3, timeout_s=120, overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def test_kill_9_of_the_active_controller_under_an_idempotent_acks_all_producer_loses_nothing(
        cluster: ClusterRunner) -> None:
    runner = cluster
    bootstrap = runner.run.read_manifest()["bootstrap_servers"]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 3)])[TOPIC].result(60)

    acked: list[bytes] = []
    failed: list[str] = []
    stop = threading.Event()

    def on_delivery(error: object, message: object) -> None:
        if error is None:
            acked.append(message.value())  # type: ignore[attr-defined]
        else:
            failed.append(str(error))

    def produce_until_stopped() -> None:
        producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                             "linger.ms": 5, "message.timeout.ms": 120000})
        n = 0
        while not stop.is_set():
            producer.produce(TOPIC, value=b"%08d" % n, on_delivery=on_delivery)
            n += 1
            producer.poll(0.005)
        assert producer.flush(120) == 0

    writer = threading.Thread(target=produce_until_stopped, name="producer")
    writer.start()
    try:
        wait_until(lambda: len(acked) >= 300, 60, "300 records acknowledged before the kill")
        old_leader = runner.wait_for_quorum(30)
        runner.kill(old_leader)
        at_kill = len(acked)
        new_leader = runner.wait_for_quorum(60)
        assert new_leader != old_leader
        wait_until(lambda: len(acked) >= at_kill + 300, 90, "300 more records acknowledged after the failover")
    finally:
        stop.set()
        writer.join(180)
    assert not writer.is_alive() and not failed, failed[:3]

    # A producer started after the failover gets its producer id (the broker's block, or a new one from the new
    # active controller), and its record is acknowledged too.
    late = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all"})
    late.produce(TOPIC, value=b"late", on_delivery=on_delivery)
    assert late.flush(60) == 0 and acked[-1] == b"late"

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "verify", "enable.auto.commit": False,
                         "auto.offset.reset": "earliest"})
    try:
        consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
        read: list[bytes] = []
        deadline_reached = threading.Event()
        timer = threading.Timer(120, deadline_reached.set)
        timer.start()
        while len(read) < len(acked) and not deadline_reached.is_set():
            for message in consumer.consume(500, 1.0):
                if message.error() is None:
                    read.append(message.value())
        timer.cancel()
    finally:
        consumer.close()
    assert sorted(read) == sorted(acked), (len(read), len(acked))  # every acknowledged record, each once
