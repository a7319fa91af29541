"""Port of group-coordinator/group-coordinator-api/.../api/assignor/ConsumerGroupPartitionAssignor.java (Kafka 3.9)."""

from __future__ import annotations

from abc import ABC

from kafka_edu.v3_9.group_coordinator_api.coordinator.group.api.assignor.partition_assignor import PartitionAssignor


class ConsumerGroupPartitionAssignor(PartitionAssignor, ABC):
    """A PartitionAssignor for consumer groups (KIP-848); it adds nothing, it marks which groups may use it."""
