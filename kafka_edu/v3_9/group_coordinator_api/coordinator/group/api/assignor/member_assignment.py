"""Port of group-coordinator/group-coordinator-api/.../api/assignor/MemberAssignment.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Set

from kafka_edu.v3_9.clients.common.uuid import Uuid


class MemberAssignment(ABC):
    """What one member of a consumer group is given: partition numbers by topic id."""

    @abstractmethod
    def partitions(self) -> Mapping[Uuid, Set[int]]: ...
