"""Port of group-coordinator/group-coordinator-api/.../api/assignor/SubscribedTopicDescriber.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Set

from kafka_edu.v3_9.clients.common.uuid import Uuid


class SubscribedTopicDescriber(ABC):
    """The topic metadata an assignor reads: partition counts and the racks of each partition's replicas."""

    @abstractmethod
    def num_partitions(self, topic_id: Uuid) -> int:
        """-1 for a topic the metadata has not got."""

    @abstractmethod
    def racks_for_partition(self, topic_id: Uuid, partition: int) -> Set[str]:
        """Empty for an unknown topic (or partition)."""
