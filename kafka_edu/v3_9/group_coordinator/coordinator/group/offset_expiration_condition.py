"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/OffsetExpirationCondition.java (Kafka
3.9)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata


class OffsetExpirationCondition(ABC):
    """How a group decides that a committed offset has expired: what counts depends on the kind of group (and, for
    a classic group, on its state and record version)."""

    @abstractmethod
    def is_offset_expired(self, offset: OffsetAndMetadata, current_timestamp_ms: int,
                          offsets_retention_ms: int) -> bool: ...
