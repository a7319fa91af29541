"""Controlled shutdown (Kafka 1.0.2): on SIGTERM a broker first asks the controller to move leadership off it
(KafkaServer.controlledShutdown → ControlledShutdown on the controller's event thread), so an idempotent acks=all
producer sees at most retriable errors and loses nothing."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.helpers import (
    PARTITIONS,
    bootstrap,
    consume_all,
    controller_of,
    metadata_leaders,
    partition_states,
    start_cluster,
    wait_until,
)


class BackgroundProducer(threading.Thread):
    """Produces numbered records until stopped; remembers which were acknowledged and every delivery error."""

    def __init__(self, servers: str, topic: str) -> None:
        super().__init__(daemon=True)
        self.topic = topic
        self.producer = Producer({"bootstrap.servers": servers, "acks": "all", "enable.idempotence": True,
                                  "linger.ms": 5})
        self.stop = threading.Event()
        self.acked: list[str] = []
        self.errors: list[Any] = []
        self.sent = 0

    def on_delivery(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors.append(err)
        else:
            self.acked.append(msg.value().decode())

    def run(self) -> None:
        while not self.stop.is_set():
            self.producer.produce(self.topic, key=str(self.sent).encode(), value=f"v{self.sent}".encode(),
                                  on_delivery=self.on_delivery)
            self.sent += 1
            self.producer.poll(0.005)
        self.remaining = self.producer.flush(60)


def test_sigterm_moves_leadership_off_the_broker_before_it_exits(brokers, zookeeper):
    cluster = start_cluster(brokers)
    topic = f"cs-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=3)])[topic].result(30)
    controller, epoch = controller_of(zookeeper)
    states = wait_until(lambda: partition_states(zookeeper, topic), 15, "the partition state znodes")
    wait_until(lambda: metadata_leaders(cluster, topic) == {p: s["leader"] for p, s in states.items()}, 15,
               "Metadata to name the controller's leaders")

    producer = BackgroundProducer(bootstrap(cluster), topic)
    producer.start()
    wait_until(lambda: len(producer.acked) >= 200, 30, "the producer to get going")

    # A broker that leads some partitions and is not the controller stops cleanly.
    victim = next(b for b in range(3) if b != controller and any(s["leader"] == b for s in states.values()))
    led = {p for p, s in states.items() if s["leader"] == victim}
    assert cluster[victim].terminate() == 0
    survivors = {i: b for i, b in cluster.items() if i != victim}

    # Right after the exit, ZooKeeper and the survivors' Metadata already name other leaders, and the ISRs are
    # without the stopped broker: the controller did it during the shutdown, not after a session timeout.
    after = partition_states(zookeeper, topic)
    assert after is not None
    for state in after.values():
        assert state["leader"] not in (victim, -1)
        assert victim not in state["isr"]
        assert state["controller_epoch"] == epoch
    for partition in led:
        assert after[partition]["leader_epoch"] > states[partition]["leader_epoch"]
    assert all(leader != victim for leader in metadata_leaders(survivors, topic).values())

    acked_at_exit = len(producer.acked)
    wait_until(lambda: len(producer.acked) >= acked_at_exit + 200, 30, "more records after the shutdown")
    producer.stop.set()
    producer.join(90)
    assert not producer.is_alive() and producer.remaining == 0
    # Only retriable errors (the idempotent producer retries them itself), and every record sent was acknowledged.
    assert all(err.retriable() for err in producer.errors), producer.errors
    assert len(producer.acked) == producer.sent
    values = consume_all(survivors, topic, len(producer.acked))
    assert sorted(values) == sorted(producer.acked)
    assert len(set(values)) == len(values)

    # The stopped broker's trace: LC.shutdown.02 between .01 and .03, PendingControlledShutdown inside it.
    victim_spans = cluster[victim].spans()
    shutdown = victim_spans.where(name="KafkaServer.shutdown").first()
    steps = victim_spans.where(trace_id=shutdown.trace_id).steps()
    assert steps[:3] == ["LC.shutdown.01", "LC.shutdown.02", "LC.shutdown.03"]
    controlled = victim_spans.where(step="LC.shutdown.02").first()
    assert controlled.attributes["kafka.controlled_shutdown.succeeded"] is True
    pending = [s for s in victim_spans.where(trace_id=shutdown.trace_id, name="BrokerState.newState")
               if s.attributes["kafka.broker.state.to"] == "PendingControlledShutdown"]
    assert len(pending) == 1
    assert pending[0].attributes["kafka.broker.state.value"] == 6
    assert controlled.start_ns <= pending[0].start_ns <= pending[0].end_ns <= controlled.end_ns
    shutting_down = victim_spans.where(step="LC.shutdown.03").first()
    assert controlled.end_ns <= shutting_down.start_ns

    # The controller's trace: a ControlledShutdown event, its CT.shutdown span, a ControlledShutdown election for
    # each partition the victim led, all before the victim went on to BrokerShuttingDown.
    spans = cluster[controller].spans()
    ct_shutdown = spans.where(step="CT.shutdown").first()
    assert ct_shutdown.attributes["kafka.shutdown.broker.id"] == victim
    assert ct_shutdown.attributes["kafka.partitions.remaining"] == []
    assert {"CT.event", "CT.shutdown"} <= set(spans.where(trace_id=ct_shutdown.trace_id).steps())
    event_span = spans.where(step="CT.event", trace_id=ct_shutdown.trace_id).first()
    assert event_span.attributes["kafka.controller.event"] == "ControlledShutdown"
    trace = spans.with_linked_traces(ct_shutdown.trace_id)
    selects = trace.where(name="ControlledShutdownLeaderSelector.selectLeader")
    assert {(s.attributes["kafka.topic"], s.attributes["kafka.partition"]) for s in selects} >= \
        {(topic, p) for p in led}
    for s in selects:
        assert s.attributes["kafka.leader"] != victim and victim not in s.attributes["kafka.isr"]
    assert ct_shutdown.end_ns <= shutting_down.start_ns
    psm = [e.attributes for s in trace for e in s.events if e.name == "partition.state.change"]
    assert {(e["kafka.partition"], e["from"], e["to"]) for e in psm if e["kafka.topic"] == topic} >= \
        {(p, "OnlinePartition", "OnlinePartition") for p in led}
    rsm = [e.attributes for s in trace for e in s.events if e.name == "replica.state.change"]
    assert {(e["kafka.partition"], e["kafka.replica"], e["to"]) for e in rsm if e["kafka.topic"] == topic} >= \
        {(p, victim, "OfflineReplica") for p in set(range(PARTITIONS)) - led}
    assert json.loads(zookeeper.client.get("/controller")[0])["brokerid"] == controller
