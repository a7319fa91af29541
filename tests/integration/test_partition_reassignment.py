"""Partition reassignment through the controller (Kafka 1.0.2): `/admin/reassign_partitions` grows the replica set to
old + new, waits for the new replicas to join the ISR, moves the leader if it must, then drops the old replicas (their
logs deleted) and the znode; a reassignment the controller cannot do is logged and removed, nothing crashes."""

from __future__ import annotations

import json
from typing import Any

from tests.integration.helpers import PARTITIONS, Broker, ZooKeeper, consume_all, produce, start_cluster, wait_until

TOPIC = "moving"


def create_topic(zookeeper: ZooKeeper, assignment: dict[int, list[int]]) -> None:
    """What AdminUtils writes: the controller's TopicChange does the rest."""
    zookeeper.client.create(f"/brokers/topics/{TOPIC}", json.dumps(
        {"version": 1, "partitions": {str(p): r for p, r in assignment.items()}}).encode(), makepath=True)


def state(zookeeper: ZooKeeper, partition: int) -> dict[str, Any] | None:
    path = f"/brokers/topics/{TOPIC}/partitions/{partition}/state"
    return json.loads(zookeeper.client.get(path)[0]) if zookeeper.exists(path) else None


def assignment(zookeeper: ZooKeeper) -> dict[int, list[int]]:
    data = json.loads(zookeeper.client.get(f"/brokers/topics/{TOPIC}")[0])
    return {int(p): r for p, r in data["partitions"].items()}


def write_reassignment(zookeeper: ZooKeeper, partitions: dict[tuple[str, int], list[int]]) -> None:
    zookeeper.client.create("/admin/reassign_partitions", json.dumps({"version": 1, "partitions": [
        {"topic": t, "partition": p, "replicas": r} for (t, p), r in partitions.items()]}).encode(), makepath=True)


def controller_broker(cluster: dict[int, Broker], zookeeper: ZooKeeper) -> Broker:
    return cluster[json.loads(zookeeper.client.get("/controller")[0])["brokerid"]]


def test_reassignment_moves_a_replica_and_the_leadership_and_deletes_the_old_replica(brokers, zookeeper):
    cluster = start_cluster(brokers)
    initial = {p: [p % 3, (p + 1) % 3] for p in range(PARTITIONS)}
    create_topic(zookeeper, initial)
    wait_until(lambda: all(state(zookeeper, p) for p in range(PARTITIONS)), 30, "every partition to get a leader")
    assert not produce(cluster, TOPIC, 0, 300)

    # Partition 0 lives on 0 (leader) and 1; move it to 2 and 1: the leader is not among the new replicas.
    write_reassignment(zookeeper, {(TOPIC, 0): [2, 1]})
    wait_until(lambda: not zookeeper.exists("/admin/reassign_partitions"), 60, "the reassignment to finish")

    assert assignment(zookeeper)[0] == [2, 1]
    assert {p: r for p, r in assignment(zookeeper).items() if p != 0} == {p: r for p, r in initial.items() if p != 0}
    final = state(zookeeper, 0)
    assert final["leader"] == 2  # the first reassigned replica in the ISR
    assert sorted(final["isr"]) == [1, 2]
    old_log = cluster[0].run_dir.parent / "b0-logs" / f"{TOPIC}-0"
    wait_until(lambda: not old_log.exists(), 30, "the old replica's log to be deleted")
    assert (cluster[2].run_dir.parent / "b2-logs" / f"{TOPIC}-0").exists()

    # Nothing was lost on the way, and the partition keeps taking writes on its new leader.
    assert not produce(cluster, TOPIC, 300, 300)
    assert sorted(consume_all(cluster, TOPIC, 600), key=lambda v: int(v[1:])) == [f"v{i}" for i in range(600)]

    spans = controller_broker(cluster, zookeeper).spans()
    reassignments = spans.where(name="KafkaController.onPartitionReassignment")
    phases = [s.attributes["kafka.reassignment.phase"] for s in reassignments]
    assert phases[0] == "expand" and phases[-1] == "complete"
    select = spans.where(name="ReassignedPartitionLeaderSelector.selectLeader").last()
    assert select.attributes["kafka.step"] == "CT.select" and select.attributes["kafka.leader"] == 2
    events = [e for s in spans for e in s.events if e.name == "replica.state.change"
              and e.attributes.get("kafka.topic") == TOPIC and e.attributes.get("kafka.replica") == 0
              and e.attributes.get("kafka.partition") == 0]
    assert [e.attributes["to"] for e in events][-4:] == ["OfflineReplica", "ReplicaDeletionStarted",
                                                        "ReplicaDeletionSuccessful", "NonExistentReplica"]
    assert spans.where(step="CT.event", kafka__controller__event="PartitionReassignmentIsrChange")


def test_a_reassignment_the_controller_cannot_do_is_logged_and_removed(brokers, zookeeper):
    cluster = start_cluster(brokers)
    create_topic(zookeeper, {p: [p % 3, (p + 1) % 3] for p in range(PARTITIONS)})
    wait_until(lambda: all(state(zookeeper, p) for p in range(PARTITIONS)), 30, "every partition to get a leader")

    # Written behind the admin tool's back: a partition that does not exist and one already on those replicas.
    write_reassignment(zookeeper, {("no-such-topic", 0): [0, 1], (TOPIC, 1): [1, 2]})
    wait_until(lambda: not zookeeper.exists("/admin/reassign_partitions"), 30, "the controller to drop them")
    controller = controller_broker(cluster, zookeeper)
    log = controller.log_file.read_text()
    assert "Attempt to reassign partition no-such-topic-0 that doesn't exist" in log
    assert f"Partition {TOPIC}-1 to be reassigned is already assigned to replicas 1,2" in log
    # Every broker still serves, and the controller still handles the next change.
    assert not produce(cluster, TOPIC, 0, 60)
    write_reassignment(zookeeper, {(TOPIC, 1): [2, 1]})
    wait_until(lambda: not zookeeper.exists("/admin/reassign_partitions") and assignment(zookeeper)[1] == [2, 1],
               60, "a valid reassignment after the bad ones")
