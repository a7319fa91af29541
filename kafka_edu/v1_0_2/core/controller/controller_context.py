"""Port of ControllerContext and LeaderIsrAndControllerEpoch from core/src/main/scala/kafka/controller/
KafkaController.scala (Kafka 1.0.2).

The module also holds the ZkUtils reads the context is filled from (`getAllBrokersInCluster`, `getAllTopics`,
`getReplicaAssignmentForTopics`, `getPartitionLeaderAndIsrForTopics` in 1.0.2's ZkUtils).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker
from kafka_edu.v1_0_2.core.utils.replication_utils import get_leader_isr_and_epoch_for_partition
from kafka_edu.v1_0_2.core.utils.zk_utils import BROKER_IDS_PATH, BROKER_TOPICS_PATH, ZkUtils


@dataclass(frozen=True)
class LeaderIsrAndControllerEpoch:
    """LeaderAndIsr plus the epoch of the controller that wrote it."""

    leader_and_isr: LeaderAndIsr
    controller_epoch: int


@dataclass
class ReassignedPartitionsContext:
    """A partition being reassigned: its target replicas and the watch on its state znode that waits for them."""

    new_replicas: list[int]
    isr_change_listener: object | None = None


class ControllerContext:
    """What the active controller knows about the cluster, read from ZooKeeper at failover and kept by its events."""

    def __init__(self, zk_utils: ZkUtils) -> None:
        self.zk_utils = zk_utils
        # Brokers in controlled shutdown: still registered, no longer counted as live.
        self.shutting_down_broker_ids: set[int] = set()
        # The controller epoch, and the zkVersion of /controller_epoch it was written at (Initial... - 1 until read).
        self.epoch = 0
        self.epoch_zk_version = 0
        self.all_topics: set[str] = set()
        self.partition_replica_assignment: dict[TopicPartition, list[int]] = {}
        self.partition_leadership_info: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        self.partitions_being_reassigned: dict[TopicPartition, ReassignedPartitionsContext] = {}
        # Replicas each broker answered KAFKA_STORAGE_ERROR for in a LeaderAndIsr response (a failed log dir).
        self.replicas_on_offline_dirs: dict[int, set[TopicPartition]] = {}
        # Broker is unhashable (its endpoints are a dict), so Kafka's Set[Broker] is kept by id.
        self._live_brokers: dict[int, Broker] = {}

    @property
    def live_brokers(self) -> list[Broker]:
        return [b for b in self._live_brokers.values() if b.id not in self.shutting_down_broker_ids]

    @live_brokers.setter
    def live_brokers(self, brokers: Iterable[Broker]) -> None:
        self._live_brokers = {b.id: b for b in brokers}

    @property
    def live_broker_ids(self) -> set[int]:
        return set(self._live_brokers) - self.shutting_down_broker_ids

    @property
    def live_or_shutting_down_broker_ids(self) -> set[int]:
        return set(self._live_brokers)

    @property
    def live_or_shutting_down_brokers(self) -> list[Broker]:
        return list(self._live_brokers.values())

    def is_replica_online(self, broker_id: int, topic_partition: TopicPartition) -> bool:
        """Its broker is live and has not reported the replica's log dir as failed."""
        return broker_id in self.live_broker_ids and \
            topic_partition not in self.replicas_on_offline_dirs.get(broker_id, set())

    def partitions_on_broker(self, broker_id: int) -> set[TopicPartition]:
        return {tp for tp, replicas in self.partition_replica_assignment.items() if broker_id in replicas}

    def partitions_for_topic(self, topic: str) -> set[TopicPartition]:
        return {tp for tp in self.partition_replica_assignment if tp.topic == topic}

    def remove_topic(self, topic: str) -> None:
        self.partition_leadership_info = {tp: info for tp, info in self.partition_leadership_info.items()
                                          if tp.topic != topic}
        self.partition_replica_assignment = {tp: replicas for tp, replicas in self.partition_replica_assignment.items()
                                             if tp.topic != topic}
        self.all_topics.discard(topic)


# -- ZkUtils reads -------------------------------------------------------------------------------------------------

def get_all_brokers_in_cluster(zk_utils: ZkUtils) -> list[Broker]:
    """The registered brokers, by id; a znode that vanishes while being read is skipped."""
    brokers = []
    for broker_id in sorted(int(b) for b in zk_utils.get_children(BROKER_IDS_PATH)):
        info = zk_utils.get_broker_info(broker_id)
        if info is not None:
            brokers.append(create_broker(broker_id, info))
    return brokers


def create_broker(broker_id: int, info: dict) -> Broker:
    """Broker.createBroker: a `/brokers/ids/<id>` registration (version 4 JSON) as a Broker."""
    endpoints = {}
    for endpoint in info.get("endpoints", []):
        listener, _, host_port = endpoint.partition("://")
        host, _, port = host_port.rpartition(":")
        endpoints[listener] = (host.strip("[]"), int(port))
    return Broker(broker_id, endpoints, info.get("rack"))


def get_all_topics(zk_utils: ZkUtils) -> list[str]:
    return zk_utils.get_children(BROKER_TOPICS_PATH)


def get_replica_assignment_for_topics(zk_utils: ZkUtils, topics: Iterable[str]) -> dict[TopicPartition, list[int]]:
    """Each partition's assigned replicas, from `/brokers/topics/<topic>` ({"version":1,"partitions":{...}})."""
    assignment: dict[TopicPartition, list[int]] = {}
    for topic in topics:
        data, _ = zk_utils.read_data_maybe_null(f"{BROKER_TOPICS_PATH}/{topic}")
        if data:
            for partition, replicas in json.loads(data).get("partitions", {}).items():
                assignment[TopicPartition(topic, int(partition))] = list(replicas)
    return assignment


def get_partition_leader_and_isr_for_topics(
        zk_utils: ZkUtils, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, LeaderIsrAndControllerEpoch]:
    """ZkUtils.getPartitionLeaderAndIsrForTopics: the state znodes that exist, by partition."""
    leadership = {}
    for tp in partitions:
        leader_isr_and_epoch = get_leader_isr_and_epoch_for_partition(zk_utils, tp.topic, tp.partition)
        if leader_isr_and_epoch is not None:
            leadership[tp] = leader_isr_and_epoch
    return leadership


def replica_assignment_zk_data(partitions: dict[int, list[int]]) -> str:
    """ZkUtils.replicaAssignmentZkData: the JSON of `/brokers/topics/<topic>`."""
    return json.dumps({"version": 1, "partitions": {str(p): r for p, r in sorted(partitions.items())}},
                      separators=(",", ":"))
