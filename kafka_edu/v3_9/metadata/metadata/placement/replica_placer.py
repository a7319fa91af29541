"""Port of metadata/src/main/java/org/apache/kafka/metadata/placement/ReplicaPlacer.java and its types (Kafka 3.9).

PlacementSpec, ClusterDescriber, UsableBroker, PartitionAssignment, TopicAssignment.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class UsableBroker:
    """A registered broker a replica may go to."""

    id: int
    rack: str | None
    fenced: bool


@dataclass(frozen=True)
class PlacementSpec:
    start_partition: int
    num_partitions: int
    num_replicas: int


class ClusterDescriber(ABC):
    """What the placer may know of the cluster (ClusterControlManager answers it)."""

    @abstractmethod
    def usable_brokers(self) -> Iterator[UsableBroker]: ...

    @abstractmethod
    def default_dir(self, broker_id: int) -> uuid.UUID:
        """The log directory a new replica on this broker goes to (DirectoryId.UNASSIGNED when unknown)."""


@dataclass(frozen=True)
class PartitionAssignment:
    """The replicas of one partition, the first one its preferred leader, and each one's log directory."""

    replicas: list[int]
    directories: list[uuid.UUID] = field(default_factory=list)

    @staticmethod
    def of(replicas: list[int], cluster: ClusterDescriber) -> PartitionAssignment:
        return PartitionAssignment(list(replicas), [cluster.default_dir(r) for r in replicas])


@dataclass(frozen=True)
class TopicAssignment:
    assignments: list[PartitionAssignment]


class ReplicaPlacer(ABC):
    @abstractmethod
    def place(self, placement: PlacementSpec, cluster: ClusterDescriber) -> TopicAssignment:
        """Replicas for each new partition; InvalidReplicationFactorException when it cannot be done."""
