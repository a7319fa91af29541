"""Port of core/src/main/scala/kafka/server/metadata/KRaftMetadataCache.scala (Kafka 3.9)."""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import InvalidTopicException
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.admin_manager import validate_topic
from kafka_edu.v1_0_2.core.server.metadata_cache import Broker, PartitionMetadata, PartitionState
from kafka_edu.v1_0_2.core.server.replica_manager import INTERNAL_TOPICS
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.metadata.controller.configuration_control_manager import ConfigResource, ConfigResourceType
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.metadata.metadata.broker_registration import BrokerRegistration, Endpoint
from kafka_edu.v3_9.metadata.metadata.partition_registration import NO_LEADER, PartitionRegistration
from kafka_edu.v3_9.raft.raft.voter_set import Node
from kafka_edu.v3_9.server_common.server.common import k_raft_version
from kafka_edu.v3_9.server_common.server.common.finalized_features import FinalizedFeatures
from kafka_edu.v3_9.server_common.server.common.k_raft_version import KRaftVersion
from kafka_edu.v3_9.server_common.server.common.metadata_version import MetadataVersion

log = logging.getLogger("kafka.server.metadata.KRaftMetadataCache")

ZERO_UUID = uuid.UUID(int=0)  # Uuid.ZERO_UUID: the id of a topic the image does not have
NO_NODE = Node(-1, "", -1)  # Node.noNode(): a leader that is known but has no endpoint on the listener


@dataclass
class UpdateMetadataPartitionState(PartitionState):
    """UpdateMetadataRequestData.UpdateMetadataPartitionState as getPartitionInfo answers: the 1.0.2 PartitionState
    (what the 1.0.2 code reading the cache expects) with the topic name and partition index 3.9's message has."""

    topic_name: str = ""
    partition_index: int = -1


class KRaftMetadataCache:
    """A broker's view of the cluster in KRaft mode: whatever the current MetadataImage says.

    The image is immutable and replaced whole by `set_image`, so no lock is needed: each query reads the field once
    and answers from that one image. It answers the queries the ZooKeeper-mode MetadataCache answers for KafkaApis
    (same names, same return types), so KafkaApis can use either.
    """

    def __init__(self, broker_id: int, cluster_id: str | None = None,
                 kraft_version_supplier: Callable[[], KRaftVersion] = lambda: KRaftVersion.KRAFT_VERSION_0) -> None:
        self.broker_id = broker_id
        # kraft.version is not in the image: the Raft client knows it (BrokerServer hands its getter over)
        self.kraft_version_supplier = kraft_version_supplier
        # 3.9 reads the cluster id from meta.properties, not the image (which does not hold it): BrokerServer passes it
        self._cluster_id = cluster_id
        self._current_image: MetadataImage = MetadataImage.EMPTY

    def _maybe_filter_alive_replicas(self, image: MetadataImage, brokers: tuple[int, ...], listener_name: str,
                                     filter_unavailable_endpoints: bool) -> list[int]:
        if not filter_unavailable_endpoints:
            return list(brokers)
        result = []
        for broker_id in brokers:
            broker = image.cluster.broker(broker_id)
            if broker is not None and not broker.fenced and listener_name in broker.listeners:
                result.append(broker_id)
        return result

    def current_image(self) -> MetadataImage:
        return self._current_image

    def _get_partition_metadata(self, image: MetadataImage, topic_name: str, listener_name: str,
                                error_unavailable_endpoints: bool,
                                error_unavailable_listeners: bool) -> list[PartitionMetadata] | None:
        topic = image.topics.get_topic(topic_name)
        if topic is None:
            return None
        result = []
        for partition_id, partition in sorted(topic.partitions.items()):
            filtered_replicas = self._maybe_filter_alive_replicas(image, partition.replicas, listener_name,
                                                                  error_unavailable_endpoints)
            filtered_isr = self._maybe_filter_alive_replicas(image, partition.isr, listener_name,
                                                             error_unavailable_endpoints)
            offline_replicas = self._get_offline_replicas(image, partition, listener_name)
            maybe_leader = self._get_alive_endpoint(image, partition.leader, listener_name)
            if maybe_leader is None:
                if not image.cluster.contains_broker(partition.leader):
                    log.debug("Error while fetching metadata for %s-%d: leader not available", topic_name,
                              partition_id)
                    error = Errors.LEADER_NOT_AVAILABLE
                else:
                    log.debug("Error while fetching metadata for %s-%d: listener %s not found on leader %d",
                              topic_name, partition_id, listener_name, partition.leader)
                    error = Errors.LISTENER_NOT_FOUND if error_unavailable_listeners else Errors.LEADER_NOT_AVAILABLE
                leader_id = NO_LEADER
            else:
                if len(filtered_replicas) < len(partition.replicas) or len(filtered_isr) < len(partition.isr):
                    # only when asked to filter (Metadata v0): replicas or ISR members without an endpoint
                    error = Errors.REPLICA_NOT_AVAILABLE
                else:
                    error = Errors.NONE
                leader_id = maybe_leader.id
            result.append(PartitionMetadata(error, partition_id, leader_id, partition.leader_epoch,
                                            filtered_replicas, filtered_isr, offline_replicas))
        return result

    def _get_offline_replicas(self, image: MetadataImage, partition: PartitionRegistration,
                              listener_name: str) -> list[int]:
        """Replicas whose broker is not registered, or is offline for this partition (`_is_replica_offline`)."""
        offline_replicas = []
        for broker_id in partition.replicas:
            broker = image.cluster.broker(broker_id)
            if broker is None or self._is_replica_offline(partition, listener_name, broker):
                offline_replicas.append(broker_id)
        return offline_replicas

    def _is_replica_offline(self, partition: PartitionRegistration, listener_name: str,
                            broker: BrokerRegistration) -> bool:
        """Fenced, not on this listener, or (JBOD) assigned to a log dir the broker does not have online."""
        return (broker.fenced or listener_name not in broker.listeners
                or self._is_replica_in_offline_dir(broker, partition))

    @staticmethod
    def _is_replica_in_offline_dir(broker: BrokerRegistration, partition: PartitionRegistration) -> bool:
        return not broker.has_online_dir(partition.directory(broker.id))

    def _get_alive_endpoint(self, image: MetadataImage, broker_id: int, listener_name: str) -> Node | None:
        """The broker's endpoint on the listener, if it is registered and has one (3.9 does not look at fencing
        here: a leader is reported while the controller has not yet moved its leaderships)."""
        broker = image.cluster.broker(broker_id)
        return None if broker is None else _node(broker_id, broker.listeners.get(listener_name))

    def get_topic_metadata(self, topics: set[str], listener_name: str, error_unavailable_endpoints: bool = False,
                           error_unavailable_listeners: bool = False) -> dict[str, list[PartitionMetadata]]:
        """Each known topic's partitions with their leader, replicas, ISR and offline replicas."""
        image = self._current_image
        result = {}
        for topic in topics:
            partition_metadata = self._get_partition_metadata(image, topic, listener_name,
                                                              error_unavailable_endpoints,
                                                              error_unavailable_listeners)
            if partition_metadata is not None:
                result[topic] = partition_metadata
        return result

    def _get_partition_metadata_for_describe_topic_response(
            self, image: MetadataImage, topic_name: str, listener_name: str, start_index: int,
            max_count: int) -> tuple[list[dict[str, Any]] | None, int]:
        """A page of the topic's partitions from `start_index`, at most `max_count`, and the index of the next
        partition (-1: none left); None for a topic the image does not have."""
        topic = image.topics.get_topic(topic_name)
        if topic is None:
            return None, -1
        result = []
        upper_index = min(len(topic.partitions), start_index + max_count)
        next_index = upper_index if upper_index < len(topic.partitions) else -1
        for partition_id in range(start_index, upper_index):
            partition = topic.partitions.get(partition_id)
            if partition is None:
                log.warning("The partition %d does not exist for %s", partition_id, topic_name)
                continue
            maybe_leader = self._get_alive_endpoint(image, partition.leader, listener_name)
            result.append(dict(
                error_code=Errors.NONE, partition_index=partition_id,
                leader_id=NO_LEADER if maybe_leader is None else maybe_leader.id,
                leader_epoch=partition.leader_epoch,
                replica_nodes=self._maybe_filter_alive_replicas(image, partition.replicas, listener_name, False),
                isr_nodes=self._maybe_filter_alive_replicas(image, partition.isr, listener_name, False),
                offline_replicas=self._get_offline_replicas(image, partition, listener_name),
                eligible_leader_replicas=list(partition.elr), last_known_elr=list(partition.last_known_elr)))
        return result, next_index

    def get_topic_metadata_for_describe_topic_response(
            self, topics: Iterable[str], listener_name: str, topic_partition_start_index: Callable[[str], int],
            maximum_number_of_partitions: int, ignore_topics_with_exceptions: bool) -> dict[str, Any]:
        """DescribeTopicPartitions' answer for `topics` (sorted by name), paged: at most
        `maximum_number_of_partitions` partitions, and a next cursor where the page ends."""
        image = self._current_image
        remaining = maximum_number_of_partitions
        result: dict[str, Any] = {"topics": [], "next_cursor": None}
        for topic_name in topics:
            if remaining > 0:
                partition_response, next_partition = self._get_partition_metadata_for_describe_topic_response(
                    image, topic_name, listener_name, topic_partition_start_index(topic_name), remaining)
                if partition_response is not None:
                    result["topics"].append(dict(
                        error_code=Errors.NONE, name=topic_name, topic_id=self.get_topic_id(topic_name),
                        is_internal=topic_name in INTERNAL_TOPICS, partitions=partition_response))
                    if next_partition != -1:
                        result["next_cursor"] = dict(topic_name=topic_name, partition_index=next_partition)
                        break
                    remaining -= len(partition_response)
                elif not ignore_topics_with_exceptions:
                    try:
                        validate_topic(topic_name)
                        error = Errors.UNKNOWN_TOPIC_OR_PARTITION
                    except InvalidTopicException:
                        error = Errors.INVALID_TOPIC_EXCEPTION
                    result["topics"].append(dict(error_code=error, name=topic_name,
                                                 topic_id=self.get_topic_id(topic_name),
                                                 is_internal=topic_name in INTERNAL_TOPICS, partitions=[]))
            elif remaining == 0:
                # the page is full at a topic boundary: the next one starts at this topic's first partition
                result["next_cursor"] = dict(topic_name=topic_name, partition_index=0)
                break
        return result

    # the name DescribeTopicPartitionsRequestHandler calls it by
    describe_topic_response = get_topic_metadata_for_describe_topic_response

    def get_all_topics(self) -> set[str]:
        return set(self._current_image.topics.topics_by_name)

    def get_topic_partitions(self, topic_name: str) -> set[TopicPartition]:
        topic = self._current_image.topics.get_topic(topic_name)
        return set() if topic is None else {TopicPartition(topic_name, p) for p in topic.partitions}

    def get_topic_id(self, topic_name: str) -> uuid.UUID:
        topic = self._current_image.topics.get_topic(topic_name)
        return ZERO_UUID if topic is None else topic.id

    def get_topic_name(self, topic_id: uuid.UUID) -> str | None:
        topic = self._current_image.topics.get_topic(topic_id)
        return None if topic is None else topic.name

    def has_alive_broker(self, broker_id: int) -> bool:
        broker = self._current_image.cluster.broker(broker_id)
        return broker is not None and not broker.fenced

    def is_broker_alive(self, broker_id: int) -> bool:
        """The ZooKeeper-mode cache's name for `has_alive_broker`."""
        return self.has_alive_broker(broker_id)

    def is_broker_fenced(self, broker_id: int) -> bool:
        broker = self._current_image.cluster.broker(broker_id)
        return broker is not None and broker.fenced

    def is_broker_shutting_down(self, broker_id: int) -> bool:
        broker = self._current_image.cluster.broker(broker_id)
        return broker is not None and broker.in_controlled_shutdown

    def get_alive_broker_epoch(self, broker_id: int) -> int | None:
        broker = self._current_image.cluster.broker(broker_id)
        return None if broker is None or broker.fenced else broker.epoch

    def get_alive_brokers(self) -> list[Broker]:
        """Registered, unfenced brokers with their endpoints by listener (a fenced broker is not alive)."""
        return self._get_alive_brokers(self._current_image)

    @staticmethod
    def _get_alive_brokers(image: MetadataImage) -> list[Broker]:
        return [Broker(broker.id, {name: (endpoint.host, endpoint.port) for name, endpoint in broker.listeners.items()},
                       broker.rack)
                for _, broker in sorted(image.cluster.brokers.items()) if not broker.fenced]

    def get_broker_nodes(self, listener_name: str) -> list[Node]:
        """Every registered broker with an endpoint on the listener, fenced or not."""
        image = self._current_image
        nodes = (_node(b.id, b.listeners.get(listener_name)) for b in image.cluster.brokers.values())
        return [n for n in nodes if n is not None]

    def get_alive_broker_node(self, broker_id: int, listener_name: str) -> Node | None:
        """The broker's endpoint on the listener; None if it is not registered, fenced, or not on the listener."""
        broker = self._current_image.cluster.broker(broker_id)
        return None if broker is None or broker.fenced else _node(broker_id, broker.listeners.get(listener_name))

    def get_alive_broker_nodes(self, listener_name: str) -> list[Node]:
        nodes = []
        for broker_id, broker in sorted(self._current_image.cluster.brokers.items()):
            node = None if broker.fenced else _node(broker_id, broker.listeners.get(listener_name))
            if node is not None:
                nodes.append(node)
        return nodes

    def get_partition_info(self, topic_name: str, partition_id: int) -> UpdateMetadataPartitionState | None:
        """The partition as UpdateMetadata would have carried it: no controller epoch (the controller keeps none for
        brokers), the partition epoch where ZooKeeper had the znode version; no offline replicas."""
        topic = self._current_image.topics.get_topic(topic_name)
        partition = None if topic is None else topic.partitions.get(partition_id)
        if partition is None:
            return None
        return UpdateMetadataPartitionState(
            topic_name=topic_name, partition_index=partition_id, controller_epoch=-1, leader=partition.leader,
            leader_epoch=partition.leader_epoch, isr=list(partition.isr), zk_version=partition.partition_epoch,
            replicas=list(partition.replicas))

    def num_partitions(self, topic_name: str) -> int | None:
        topic = self._current_image.topics.get_topic(topic_name)
        return None if topic is None else len(topic.partitions)

    def topic_names_to_ids(self) -> dict[str, uuid.UUID]:
        return {name: topic.id for name, topic in self._current_image.topics.topics_by_name.items()}

    def topic_ids_to_names(self) -> dict[uuid.UUID, str]:
        return {topic_id: topic.name for topic_id, topic in self._current_image.topics.topics_by_id.items()}

    def get_partition_leader_endpoint(self, topic_name: str, partition_id: int, listener_name: str) -> Node | None:
        """None: the partition is unknown; NO_NODE: its leader is not registered or has no such listener."""
        image = self._current_image
        topic = image.topics.get_topic(topic_name)
        partition = None if topic is None else topic.partitions.get(partition_id)
        if partition is None:
            return None
        broker = image.cluster.broker(partition.leader)
        if broker is None:
            return NO_NODE
        return _node(broker.id, broker.listeners.get(listener_name)) or NO_NODE

    def get_partition_replica_endpoints(self, topic_partition: TopicPartition, listener_name: str) -> dict[int, Node]:
        image = self._current_image
        result: dict[int, Node] = {}
        topic = image.topics.get_topic(topic_partition.topic)
        if topic is not None:
            # 3.9 walks every partition of the topic here, not only the one asked for; kept as it is
            for partition in topic.partitions.values():
                for replica_id in partition.replicas:
                    broker = image.cluster.broker(replica_id)
                    if broker is not None and not broker.fenced:
                        node = _node(replica_id, broker.listeners.get(listener_name))
                        if node is not None and not _is_empty(node):
                            result[replica_id] = node
        return result

    def get_controller_id(self) -> int | None:
        """Not the controller: clients cannot reach the KRaft controllers (KIP-590), so Metadata names a random
        alive broker, which forwards what only the controller can do."""
        return self._get_random_alive_broker(self._current_image)

    def _get_random_alive_broker(self, image: MetadataImage) -> int | None:
        alive_brokers = self._get_alive_brokers(image)
        return random.choice(alive_brokers).id if alive_brokers else None

    def contains(self, topic_or_partition: str | TopicPartition) -> bool:
        """Kafka's contains(String) and contains(TopicPartition)."""
        image = self._current_image
        if isinstance(topic_or_partition, str):
            return topic_or_partition in image.topics.topics_by_name
        topic = image.topics.get_topic(topic_or_partition.topic)
        return topic is not None and topic_or_partition.partition in topic.partitions

    def set_image(self, new_image: MetadataImage) -> None:
        self._current_image = new_image

    def config(self, config_resource: ConfigResource) -> dict[str, str]:
        """ConfigRepository.config: the resource's dynamic configs in the image."""
        return self._current_image.configs.config_properties(config_resource)

    def topic_config(self, topic_name: str) -> dict[str, str]:
        """ConfigRepository.topicConfig: a topic's overrides, what a new log of the topic is created with."""
        return self.config((ConfigResourceType.TOPIC, topic_name))

    def metadata_version(self) -> MetadataVersion:
        return self._current_image.features.metadata_version

    def get_cluster_id(self) -> str | None:
        return self._cluster_id

    def features(self) -> FinalizedFeatures:
        """The image's finalized features, kraft.version from the Raft client, at the image's offset."""
        image = self._current_image
        finalized_features = dict(image.features.finalized_versions)
        finalized_features[k_raft_version.FEATURE_NAME] = self.kraft_version_supplier().feature_level()
        return FinalizedFeatures(image.features.metadata_version, finalized_features,
                                 image.highest_offset_and_epoch().offset, True)


def _is_empty(node: Node) -> bool:
    """Node.isEmpty: no host or no port."""
    return not node.host or node.port < 0


def _node(broker_id: int, endpoint: Endpoint | None) -> Node | None:
    return None if endpoint is None else Node(broker_id, endpoint.host, endpoint.port)
