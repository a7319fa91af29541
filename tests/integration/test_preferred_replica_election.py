"""A killed broker comes back, catches up and re-enters the ISR (the leader tells the controller through
`/isr_change_notification`); a preferred replica election, written to `/admin/preferred_replica_election` or run by
the controller's auto-rebalance task, gives it back the partitions it is the first replica of (Kafka 1.0.2)."""

from __future__ import annotations

import json
from typing import Any

from kafka_edu.tracing.query import load_run
from kafka_edu.v1_0_2.core.admin.preferred_replica_leader_election_command import write_preferred_replica_election_data
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.utils.zk_utils import ZkUtils
from tests.integration.helpers import PARTITIONS, Broker, ZooKeeper, consume_all, produce, wait_until
from tests.integration.helpers import start_cluster as leadership_cluster

TOPIC = "preferred"


def start_cluster(brokers: Any, **props: str) -> dict[int, Broker]:
    return leadership_cluster(brokers, min_insync_replicas="2", replica_lag_time_max_ms="3000", **props)


def create_topic(zookeeper: ZooKeeper) -> None:
    """Partition p prefers broker p % 3: each broker is the first replica of two partitions."""
    zookeeper.client.create(f"/brokers/topics/{TOPIC}", json.dumps({"version": 1, "partitions": {
        str(p): [p % 3, (p + 1) % 3, (p + 2) % 3] for p in range(PARTITIONS)}}).encode(), makepath=True)


def states(zookeeper: ZooKeeper) -> dict[int, dict[str, Any]]:
    result = {}
    for p in range(PARTITIONS):
        path = f"/brokers/topics/{TOPIC}/partitions/{p}/state"
        if zookeeper.exists(path):
            result[p] = json.loads(zookeeper.client.get(path)[0])
    return result


def leaders(zookeeper: ZooKeeper) -> dict[int, int]:
    return {p: s["leader"] for p, s in states(zookeeper).items()}


def controller_broker(cluster: dict[int, Broker], zookeeper: ZooKeeper) -> Broker:
    return cluster[json.loads(zookeeper.client.get("/controller")[0])["brokerid"]]


def kill_restart_and_catch_up(cluster: dict[int, Broker], zookeeper: ZooKeeper, victim: int) -> None:
    """kill -9 `victim` while records flow, bring it back, and wait until it is in every ISR again."""
    assert not produce(cluster, TOPIC, 0, 300)
    cluster[victim].kill()
    wait_until(lambda: all(leader != victim for leader in leaders(zookeeper).values()), 30,
               f"leadership to leave broker {victim}")
    assert not produce(cluster, TOPIC, 300, 300)  # the restarted broker has these to catch up on
    cluster[victim].start().wait_running()
    wait_until(lambda: all(victim in s["isr"] for s in states(zookeeper).values()), 60,
               f"broker {victim} to re-enter every ISR")


def test_restarted_broker_rejoins_the_isr_and_a_preferred_election_gives_its_partitions_back(brokers, zookeeper):
    cluster = start_cluster(brokers, auto_leader_rebalance_enable="false")
    create_topic(zookeeper)
    wait_until(lambda: leaders(zookeeper) == {p: p % 3 for p in range(PARTITIONS)}, 30, "the preferred leaders")
    victim = next(b for b in cluster if b != json.loads(zookeeper.client.get("/controller")[0])["brokerid"])

    kill_restart_and_catch_up(cluster, zookeeper, victim)
    # Without a preferred election, the restarted broker leads nothing.
    assert victim not in leaders(zookeeper).values()
    controller = controller_broker(cluster, zookeeper)
    # The leaders announced the ISR changes, and the controller passed them on to every broker.
    wait_until(lambda: controller.spans().where(step="CT.event", kafka__controller__event="IsrChangeNotification"),
               30, "an IsrChangeNotification event")
    # The BrokerChange that saw the victim come back links to its registration, in its new startup trace.
    restart = cluster[victim].spans().where(name="KafkaServer.startup").last()
    comeback = [s for s in controller.spans().where(step="CT.broker") if s.attributes["kafka.brokers.new"] == [victim]]
    assert comeback and restart.trace_id in {trace_id for trace_id, _ in comeback[-1].links}
    # Each notification links the event to the leader's span that wrote it (both on disk within moments).
    def linked_to_a_propagation() -> bool:
        notifications = controller.spans().where(step="CT.event", kafka__controller__event="IsrChangeNotification")
        writers = {trace_id for s in notifications for trace_id, _ in s.links}
        propagations = load_run(controller.run_dir).where(name="ReplicaManager.maybePropagateIsrChanges")
        return bool(writers & {s.trace_id for s in propagations})
    wait_until(linked_to_a_propagation, 10, "an IsrChangeNotification linked to the leader's propagation span")

    zk_utils = ZkUtils(zookeeper.connect, 6000, 6000)
    try:
        write_preferred_replica_election_data(zk_utils, {TopicPartition(TOPIC, p) for p in range(PARTITIONS)})
    finally:
        zk_utils.close()
    wait_until(lambda: leaders(zookeeper) == {p: p % 3 for p in range(PARTITIONS)}, 30,
               "leadership back on the preferred replicas")
    wait_until(lambda: not zookeeper.exists("/admin/preferred_replica_election"), 10, "the admin znode to go")

    # The event's span ends after it removed the znode, and reaches the file moments later.
    wait_until(lambda: controller.spans().where(step="CT.event",
                                                kafka__controller__event="PreferredReplicaLeaderElection"),
               10, "the PreferredReplicaLeaderElection span")
    spans = controller.spans()
    election = spans.where(step="CT.event", kafka__controller__event="PreferredReplicaLeaderElection").last()
    assert election.attributes["kafka.controller.state"] == "ManualLeaderBalance"
    moved = [s for s in spans.where(name="PreferredReplicaPartitionLeaderSelector.selectLeader")
             if s.start_ns >= election.start_ns]
    assert sorted(s.attributes["kafka.partition"] for s in moved if s.attributes.get("kafka.leader") == victim) == \
        [p for p in range(PARTITIONS) if p % 3 == victim]
    # Every acknowledged record is still there, once.
    assert sorted(consume_all(cluster, TOPIC, 600), key=lambda v: int(v[1:])) == [f"v{i}" for i in range(600)]


def test_the_auto_rebalance_task_moves_leadership_back_on_its_own(brokers, zookeeper):
    cluster = start_cluster(brokers, leader_imbalance_check_interval_seconds="1",
                            leader_imbalance_per_broker_percentage="0")
    create_topic(zookeeper)
    wait_until(lambda: leaders(zookeeper) == {p: p % 3 for p in range(PARTITIONS)}, 30, "the preferred leaders")
    victim = next(b for b in cluster if b != json.loads(zookeeper.client.get("/controller")[0])["brokerid"])

    kill_restart_and_catch_up(cluster, zookeeper, victim)
    wait_until(lambda: leaders(zookeeper) == {p: p % 3 for p in range(PARTITIONS)}, 30,
               "the auto-rebalance task to restore the preferred leaders")
    # the rebalance's spans reach the span file a moment after its ZooKeeper writes, which the wait above saw
    controller = controller_broker(cluster, zookeeper)
    rebalance = wait_until(lambda: controller.spans().where(
        step="CT.event", kafka__controller__event="AutoPreferredReplicaLeaderElection"), 10, "the rebalance's spans")
    assert rebalance.last().attributes["kafka.controller.state"] == "AutoLeaderBalance"
    spans = controller.spans()
    assert spans.where(step="CT.failover.14").last().attributes["kafka.auto_leader_rebalance"] is True
    assert spans.where(name="KafkaController.checkAndTriggerAutoLeaderRebalance")
