"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetExpirationConditionImplTest.java
(Kafka 3.9)."""

from __future__ import annotations

from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_and_metadata import OffsetAndMetadata
from kafka_edu.v3_9.group_coordinator.coordinator.group.offset_expiration_condition_impl import (
    OffsetExpirationConditionImpl,
)
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/OffsetExpirationConditionImplTest.java",
    cases=["testIsOffsetExpired"],
)


def test_is_offset_expired() -> None:
    current_timestamp = 1500
    commit_timestamp = 500
    expire_timestamp_ms = 1500
    offsets_retention_ms = 500

    condition = OffsetExpirationConditionImpl(lambda _: commit_timestamp)
    offset_and_metadata = OffsetAndMetadata(100, 1, "metadata", commit_timestamp, expire_timestamp_ms)

    # an explicit expiry (a v1 commit) decides on its own: reached, then not yet reached
    assert condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)

    current_timestamp = 499
    assert not condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)

    # without one, the retention counts from the base timestamp
    offset_and_metadata = OffsetAndMetadata(100, 1, "metadata", commit_timestamp, None)

    current_timestamp = 1000
    assert condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)

    current_timestamp = 999
    assert not condition.is_offset_expired(offset_and_metadata, current_timestamp, offsets_retention_ms)
