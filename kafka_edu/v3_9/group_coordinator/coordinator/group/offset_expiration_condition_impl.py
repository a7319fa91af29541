"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/OffsetExpirationConditionImpl.java
(Kafka 3.9)."""

from __future__ import annotations

from collections.abc import Callable

from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition import OffsetExpirationCondition


class OffsetExpirationConditionImpl(OffsetExpirationCondition):
    """An offset expires offsets.retention.ms after a base timestamp the group picks (the commit time, for a
    consumer group), unless its commit carried an explicit expiry time."""

    def __init__(self, base_timestamp: Callable[[OffsetAndMetadata], int]) -> None:
        self._base_timestamp = base_timestamp

    def is_offset_expired(self, offset: OffsetAndMetadata, current_timestamp_ms: int,
                          offsets_retention_ms: int) -> bool:
        if offset.expire_timestamp_ms is not None:
            # an old OffsetCommit (v1) set its own expiry: that wins over the retention
            return current_timestamp_ms >= offset.expire_timestamp_ms
        return current_timestamp_ms - self._base_timestamp(offset) >= offsets_retention_ms

    def base_timestamp(self) -> Callable[[OffsetAndMetadata], int]:
        return self._base_timestamp
