"""Port of group-coordinator/group-coordinator-api/.../api/assignor/SubscribedTopicDescriber.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Set


class SubscribedTopicDescriber(ABC):
    """The topic metadata an assignor reads: partition counts and the racks of each partition's replicas."""

    @abstractmethod
    def num_partitions(self, topic_id: uuid.UUID) -> int:
        """-1 for a topic the metadata has not got."""

    @abstractmethod
    def racks_for_partition(self, topic_id: uuid.UUID, partition: int) -> Set[str]:
        """Empty for an unknown topic (or partition)."""
