"""Port of group-coordinator/group-coordinator-api/.../api/assignor/SubscriptionType.java (Kafka 3.9)."""

from __future__ import annotations

from enum import Enum


class SubscriptionType(Enum):
    """Whether every member of a group subscribes to the same topics: the assignors pick their algorithm by it."""

    HOMOGENEOUS = "Homogeneous"  # all members share one set of topics
    HETEROGENEOUS = "Heterogeneous"  # at least two members' topic sets differ

    def __str__(self) -> str:
        return self.value
