"""The controller decides leadership (Kafka 1.0.2): a new topic's partitions get a leader and ISR from it, and when a
leader dies the controller elects another from the ISR; an idempotent acks=all producer loses nothing."""

from __future__ import annotations

import json
import uuid
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from conftest import Broker, ZooKeeper, wait_until

from kafka_edu.tracing.query import load_run

SESSION_TIMEOUT_S = 2.0
PARTITIONS = 6
N = 600


def start_cluster(brokers: Any, **props: str) -> dict[int, Broker]:
    """Three brokers (ids 0-2) with a short session timeout and `props`, running and past the controller's election."""
    cluster = {i: brokers(f"b{i}", broker_id=str(i), zookeeper_session_timeout_ms=str(int(SESSION_TIMEOUT_S * 1000)),
                          **props)
               for i in range(3)}
    for broker in cluster.values():
        broker.start()
    for broker in cluster.values():
        broker.wait_running().wait_for_controller()
    return cluster


def bootstrap(cluster: dict[int, Broker]) -> str:
    return ",".join(b.props["listeners"].removeprefix("PLAINTEXT://") for b in cluster.values())


def controller_of(zookeeper: ZooKeeper) -> tuple[int, int]:
    """The active controller's id and its epoch."""
    controller = json.loads(zookeeper.client.get("/controller")[0])["brokerid"]
    return controller, int(zookeeper.client.get("/controller_epoch")[0])


def partition_states(zookeeper: ZooKeeper, topic: str) -> dict[int, dict[str, Any]] | None:
    """Every partition's state znode, once all exist."""
    states = {}
    for partition in range(PARTITIONS):
        path = f"/brokers/topics/{topic}/partitions/{partition}/state"
        if not zookeeper.exists(path):
            return None
        states[partition] = json.loads(zookeeper.client.get(path)[0])
    return states


def metadata_leaders(cluster: dict[int, Broker], topic: str) -> dict[int, int]:
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    partitions = admin.list_topics(topic, timeout=10).topics[topic].partitions
    return {p: m.leader for p, m in partitions.items()}


def produce(cluster: dict[int, Broker], topic: str, start: int, count: int) -> list[Any]:
    errors: list[Any] = []
    producer = Producer({"bootstrap.servers": bootstrap(cluster), "acks": "all", "enable.idempotence": True,
                         "linger.ms": 5})
    for i in range(start, start + count):
        producer.produce(topic, key=str(i).encode(), value=f"v{i}".encode(),
                         on_delivery=lambda err, _msg: errors.append(err) if err else None)
        producer.poll(0)
    assert producer.flush(60) == 0
    return errors


def consume_all(cluster: dict[int, Broker], topic: str, expected: int) -> list[str]:
    consumer = Consumer({"bootstrap.servers": bootstrap(cluster), "group.id": f"g-{uuid.uuid4().hex[:6]}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    values: list[str] = []

    def read_everything() -> bool:
        for message in consumer.consume(500, timeout=1):
            if message.error() is None:
                values.append(message.value().decode())
        return len(values) >= expected
    try:
        wait_until(read_everything, 60, f"{expected} records")
    finally:
        consumer.close()
    return values


def test_the_controller_elects_leaders_and_moves_them_off_a_killed_broker(brokers, zookeeper):
    cluster = start_cluster(brokers)
    topic = f"led-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap(cluster)})
    admin.create_topics([NewTopic(topic, num_partitions=PARTITIONS, replication_factor=3)])[topic].result(30)
    controller, epoch = controller_of(zookeeper)

    # Each partition's first assigned replica leads, with all three in the ISR, written by this controller's epoch.
    states = wait_until(lambda: partition_states(zookeeper, topic), 15, "the partition state znodes")
    assignment = json.loads(zookeeper.client.get(f"/brokers/topics/{topic}")[0])["partitions"]
    for partition, state in states.items():
        assert state["leader"] == assignment[str(partition)][0]
        assert sorted(state["isr"]) == [0, 1, 2]
        assert state["controller_epoch"] == epoch
    wait_until(lambda: metadata_leaders(cluster, topic) == {p: s["leader"] for p, s in states.items()}, 15,
               "Metadata to name the controller's leaders")
    assert produce(cluster, topic, 0, N // 2) == []

    # A broker that leads some partitions dies; not the controller, so the election is the controller's.
    victim = next(b for b in range(3) if b != controller and any(s["leader"] == b for s in states.values()))
    moved = {p for p, s in states.items() if s["leader"] == victim}
    cluster[victim].kill()

    def re_elected() -> dict[int, dict[str, Any]] | None:
        now = partition_states(zookeeper, topic)
        if now and all(now[p]["leader"] not in (victim, -1) and victim not in now[p]["isr"] for p in moved):
            return now
        return None
    after = wait_until(re_elected, SESSION_TIMEOUT_S + 2, "new leaders from the ISR")
    for partition in moved:
        assert after[partition]["leader"] in states[partition]["isr"]
        assert after[partition]["leader_epoch"] > states[partition]["leader_epoch"]
        assert after[partition]["controller_epoch"] == epoch
    survivors = {i: b for i, b in cluster.items() if i != victim}
    wait_until(lambda: all(leader != victim for leader in metadata_leaders(survivors, topic).values()), 15,
               "Metadata to name the new leaders")

    # Nothing acknowledged is lost, nothing is written twice.
    assert produce(survivors, topic, N // 2, N // 2) == []
    values = consume_all(survivors, topic, N)
    assert sorted(values) == sorted(f"v{i}" for i in range(N))

    # The controller's trace: BrokerChange → onBrokerFailure → OfflinePartitionLeaderSelector → state changes.
    spans = cluster[controller].spans()
    failure = spans.where(name="KafkaController.onBrokerFailure").last()
    assert {"CT.event", "CT.broker"} <= set(spans.where(trace_id=failure.trace_id).steps())
    # State changes and the requests they send are traces of their own, linked to the event (FIDELITY's order).
    trace = spans.with_linked_traces(failure.trace_id)
    assert {"CT.event", "CT.broker", "CT.select", "CT.channel"} <= set(trace.steps())
    selects = trace.where(name="OfflinePartitionLeaderSelector.selectLeader")
    assert {s.attributes["kafka.partition"] for s in selects} >= moved
    psm = [e.attributes for s in trace for e in s.events if e.name == "partition.state.change"]
    rsm = [e.attributes for s in trace for e in s.events if e.name == "replica.state.change"]
    assert all(e["kafka.step"] == "CT.psm" for e in psm) and all(e["kafka.step"] == "CT.rsm" for e in rsm)
    assert {(e["kafka.partition"], e["from"], e["to"]) for e in psm} >= \
        {(p, "OfflinePartition", "OnlinePartition") for p in moved}
    assert {(e["kafka.replica"], e["to"]) for e in rsm} >= {(victim, "OfflineReplica")}

    # A ZooKeeper watch links the controller's event to whoever wrote the znode: here the CreateTopics request
    # that wrote the topic's assignment.
    everything = load_run(cluster[controller].run_dir)
    topic_change = next(s for s in spans.where(step="CT.topic") if topic in s.attributes.get("kafka.topics.new", []))
    writers = {trace_id for trace_id, _ in topic_change.links}
    assert any(s.name == "RequestChannel.Request" and s.attributes.get("kafka.api.name") == "CreateTopics"
               for s in everything if s.trace_id in writers)
