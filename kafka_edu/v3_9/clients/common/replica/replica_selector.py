"""Port of clients/src/main/java/org/apache/kafka/common/replica/ReplicaSelector.java (Kafka 3.9): the plug-in
(`replica.selector.class`, KIP-392) that picks the replica a consumer should fetch from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_edu.v3_9.clients.common.replica.client_metadata import ClientMetadata
from kafka_edu.v3_9.clients.common.replica.partition_view import PartitionView
from kafka_edu.v3_9.clients.common.replica.replica_view import ReplicaView
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition


class ReplicaSelector:
    def select(self, topic_partition: TopicPartition, client_metadata: ClientMetadata,
               partition_view: PartitionView) -> ReplicaView | None:
        """The preferred replica, or None (Optional.empty)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass
