"""Port of group-coordinator/group-coordinator-api/.../api/assignor/MemberAssignment.java (Kafka 3.9)."""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Mapping, Set


class MemberAssignment(ABC):
    """What one member of a consumer group is given: partition numbers by topic id."""

    @abstractmethod
    def partitions(self) -> Mapping[uuid.UUID, Set[int]]: ...
