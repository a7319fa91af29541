"""Combined mode on real processes: three nodes with process.roles=broker,controller (`cluster up --mode kraft
--combined 3`). Each node binds two listeners and answers each as its kind (a client's Produce on the controller
listener closes the connection); clients produce and consume through the broker listeners; kill -9 of the node
that leads the quorum costs a controller and a broker at once: a new Raft leader, the dead broker fenced and its
partitions led elsewhere, and every acknowledged record still there."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.cluster_runner.runner import ClusterRunner
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.builder import build
from kafka_edu.v3_9.clients.common.protocol.codec import encode_request
from tests.integration.helpers import request_to, wait_until

TOPIC = "ledger"
OVERRIDES = ["broker.session.timeout.ms=4000", "broker.heartbeat.interval.ms=1000", "min.insync.replicas=2",
             "offsets.topic.replication.factor=3", "default.replication.factor=3"]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterRunner]:
    runner = ClusterRunner.up(0, tmp_path / "traces", mode="kraft", controllers=3, combined=True, timeout_s=120,
                              overrides=OVERRIDES)
    try:
        yield runner
    finally:
        runner.down()


def api_keys_on(port: int) -> set[int]:
    response = request_to(port, ApiKeys.API_VERSIONS, 3, client_software_name="t", client_software_version="1")
    return {k.api_key for k in response.api_keys}


def closed_after(port: int, frame: bytes) -> bool:
    """True if the node closes the connection instead of answering `frame`."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        return s.recv(4) == b""


def leaders(admin: AdminClient) -> dict[int, int]:
    topic = admin.list_topics(TOPIC, timeout=30).topics[TOPIC]
    return {p: meta.leader for p, meta in topic.partitions.items()}


def test_combined_nodes_serve_both_kinds_of_listener_and_survive_the_loss_of_the_leading_node(
        cluster: ClusterRunner) -> None:
    runner = cluster
    manifest = runner.run.read_manifest()
    nodes = {p["id"]: p for p in manifest["processes"]}
    assert sorted(nodes) == [1, 2, 3] and all(p["combined"] for p in nodes.values())

    one = nodes[1]
    controller_apis, broker_apis = api_keys_on(one["port"]), api_keys_on(one["broker_port"])
    assert ApiKeys.VOTE in controller_apis and ApiKeys.BROKER_HEARTBEAT in controller_apis
    assert ApiKeys.PRODUCE not in controller_apis and ApiKeys.JOIN_GROUP not in controller_apis
    assert {ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.JOIN_GROUP, ApiKeys.INIT_PRODUCER_ID} <= broker_apis
    assert ApiKeys.VOTE not in broker_apis
    produce = encode_request(ApiKeys.PRODUCE, 3, 1, "t", build(ApiKeys.PRODUCE.request_schema(3), acks=1,
                                                              timeout=1000, topic_data=[], transactional_id=None))
    assert closed_after(one["port"], produce)  # not an API of the controller listener
    assert api_keys_on(one["port"]) == controller_apis  # and the node goes on serving

    bootstrap = manifest["bootstrap_servers"]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 3, 3)])[TOPIC].result(60)
    acked: list[bytes] = []
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                         "message.timeout.ms": 120000})

    def produce_some(start: int, count: int) -> None:
        for n in range(start, start + count):
            producer.produce(TOPIC, value=b"%06d" % n, on_delivery=lambda e, m: acked.append(m.value())
                             if e is None else None)
        assert producer.flush(120) == 0

    produce_some(0, 500)
    leader = runner.wait_for_quorum(30)
    wait_until(lambda: leader in leaders(admin).values(), 30, f"node {leader} leads a partition of {TOPIC}")
    runner.kill(leader)
    new_leader = runner.wait_for_quorum(60)
    assert new_leader != leader
    # the dead node's broker is fenced after the session timeout and its partitions are led by the others
    wait_until(lambda: leader not in leaders(admin).values() and -1 not in leaders(admin).values(), 60,
               f"every partition led by a live node once node {leader} is fenced")
    produce_some(500, 500)

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "verify", "auto.offset.reset": "earliest"})
    try:
        consumer.assign([TopicPartition(TOPIC, p, 0) for p in range(3)])
        read: list[Any] = []

        def read_all() -> bool:
            read.extend(m.value() for m in consumer.consume(500, 0.5) if m.error() is None)
            return len(read) >= len(acked)
        wait_until(read_all, 90, "every acknowledged record read back")
    finally:
        consumer.close()
    assert sorted(read) == sorted(acked) and len(acked) == 1000
