"""The controller decides leadership (Kafka 1.0.2): a new topic's partitions get a leader and ISR from it, and when a
leader dies the controller elects another from the ISR; an idempotent acks=all producer loses nothing."""

from __future__ import annotations

import json
import uuid
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from kafka_edu.tracing.query import load_run
from tests.integration.helpers import (
    PARTITIONS,
    SESSION_TIMEOUT_S,
    N,
    bootstrap,
    consume_all,
    controller_of,
    metadata_leaders,
    partition_states,
    produce,
    start_cluster,
    wait_until,
)


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
