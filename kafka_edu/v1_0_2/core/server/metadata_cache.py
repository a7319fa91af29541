"""Port of core/src/main/scala/kafka/server/MetadataCache.scala (Kafka 1.0.2)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from kafka_edu.v1_0_2.core.api.leader_and_isr import LeaderAndIsr
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.raft.raft.voter_set import Node

NO_NODE = Node(-1, "", -1)  # Node.noNode


@dataclass
class PartitionState:
    """UpdateMetadataRequest.PartitionState: who leads a partition and who is in sync."""

    controller_epoch: int
    leader: int
    leader_epoch: int
    isr: list[int]
    zk_version: int
    replicas: list[int]
    offline_replicas: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Broker:
    """A live broker as the metadata cache knows it: id, rack and its endpoints by listener name."""

    id: int
    endpoints: dict[str, tuple[str, int]]
    rack: str | None = None


@dataclass
class UpdateMetadataRequest:
    """UpdateMetadataRequest as the cache reads it: the sender, its epoch, live brokers and partition states."""

    controller_id: int
    controller_epoch: int
    partition_states: dict[TopicPartition, PartitionState]
    live_brokers: list[Broker]


@dataclass
class PartitionMetadata:
    error: Errors
    partition: int
    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]
    offline_replicas: list[int]


class MetadataCache:
    """This broker's view of the cluster: live brokers, the controller, and partition leadership.

    It starts empty; UpdateMetadata from the controller fills it (`update_cache_from_request`).
    """

    def __init__(self, broker_id: int) -> None:
        self.broker_id = broker_id
        self.cache: dict[str, dict[int, PartitionState]] = {}
        self.controller_id: int | None = None
        self.alive_brokers: dict[int, Broker] = {}
        self.partition_metadata_lock = threading.RLock()

    def get_alive_brokers(self) -> list[Broker]:
        with self.partition_metadata_lock:
            return sorted(self.alive_brokers.values(), key=lambda b: b.id)

    def is_broker_alive(self, broker_id: int) -> bool:
        with self.partition_metadata_lock:
            return broker_id in self.alive_brokers

    def get_controller_id(self) -> int | None:
        return self.controller_id

    def get_all_topics(self) -> set[str]:
        with self.partition_metadata_lock:
            return set(self.cache)

    def contains(self, topic: str) -> bool:
        with self.partition_metadata_lock:
            return topic in self.cache

    def get_partition_info(self, topic: str, partition: int) -> PartitionState | None:
        with self.partition_metadata_lock:
            return self.cache.get(topic, {}).get(partition)

    def get_partition_leader_endpoint(self, topic: str, partition_id: int, listener_name: str) -> Node | None:
        """The leader's endpoint at `listener_name`: None for a partition this cache does not know, NO_NODE when the
        leader is not alive or has no such listener."""
        with self.partition_metadata_lock:
            partition_info = self.cache.get(topic, {}).get(partition_id)
            if partition_info is None:
                return None
            broker = self.alive_brokers.get(partition_info.leader)
            if broker is None or listener_name not in broker.endpoints:
                return NO_NODE
            host, port = broker.endpoints[listener_name]
            return Node(broker.id, host, port)

    def get_topic_metadata(self, topics: set[str], listener_name: str) -> dict[str, list[PartitionMetadata]]:
        """Each known topic's partitions: leader, replicas and ISR, with Kafka's errors for missing brokers."""
        with self.partition_metadata_lock:
            return {topic: self._get_partition_metadata(topic, listener_name) for topic in topics
                    if topic in self.cache}

    def _get_partition_metadata(self, topic: str, listener_name: str) -> list[PartitionMetadata]:
        result = []
        for partition_id, state in sorted(self.cache[topic].items()):
            leader = self.alive_brokers.get(state.leader)
            if leader is None or listener_name not in leader.endpoints:
                error = Errors.LEADER_NOT_AVAILABLE
            elif any(r not in self.alive_brokers for r in state.replicas):
                error = Errors.REPLICA_NOT_AVAILABLE
            else:
                error = Errors.NONE
            result.append(PartitionMetadata(error, partition_id, state.leader if leader else -1, state.leader_epoch,
                                            list(state.replicas), list(state.isr), list(state.offline_replicas)))
        return result

    def update_cache_from_request(self, correlation_id: int,
                                  update_metadata_request: UpdateMetadataRequest) -> list[TopicPartition]:
        """MetadataCache.updateCache: replace the live brokers, cache each partition's state, and drop (and return)
        the partitions the controller marks as being deleted."""
        with self.partition_metadata_lock:
            controller_id = update_metadata_request.controller_id
            self.controller_id = controller_id if controller_id >= 0 else None
            self.alive_brokers = {b.id: b for b in update_metadata_request.live_brokers}
            deleted_partitions = []
            for topic_partition, info in update_metadata_request.partition_states.items():
                if info.leader == LeaderAndIsr.LeaderDuringDelete:
                    self._remove_partition_info(topic_partition.topic, topic_partition.partition)
                    deleted_partitions.append(topic_partition)
                else:
                    self.cache.setdefault(topic_partition.topic, {})[topic_partition.partition] = info
            return deleted_partitions

    def _remove_partition_info(self, topic: str, partition_id: int) -> bool:
        infos = self.cache.get(topic)
        if infos is None:
            return False
        infos.pop(partition_id, None)
        if not infos:
            del self.cache[topic]
        return True
