"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/Utils.java (Kafka 3.9), in part.

Only what the shard's replay needs (`message_or_null`) and the sentinel helpers; the assignment conversions
(toTopicPartitionMap, toConsumerProtocolAssignment, ...) belong to the group metadata manager's port.
"""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


def of_sentinel(value: int) -> int | None:
    """OptionalInt/OptionalLong.ofSentinel: -1 stands for "absent"."""
    return value if value != -1 else None


def to_optional(value: str | None) -> str | None:
    """An empty or null string is absent."""
    return value if value else None


def message_or_null(api_message_and_version: ApiMessageAndVersion | None) -> Any:
    """A tombstone has no value: its message is None."""
    if api_message_and_version is None:
        return None
    return api_message_and_version.message
