"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/Assertions.java (Kafka 3.9).

Equality of responses and records where the order of a list carries no meaning (topics of an assignment, members
of a group record). Share-group responses are left out. Kafka re-serializes a classic member's subscription and
assignment in sorted order; here they are compared as their deserialized, sorted contents.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from kafka_edu.v3_9.clients.clients.consumer.internals import consumer_protocol
from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    ConsumerGroupPartitionMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion


def assert_unordered_list_equals(expected: Iterable[Any], actual: Iterable[Any]) -> None:
    assert Counter(expected) == Counter(actual)


def _assignment_map(assignment: Any) -> dict[Any, set[int]] | None:
    if assignment is None:
        return None
    return {tp.topic_id: set(tp.partitions) for tp in assignment.topic_partitions}


def assert_response_equals(expected: Any, actual: Any) -> None:
    """A ConsumerGroupHeartbeat response, its assignment compared as a map of sets."""
    expected_rest = dataclasses.replace(expected, assignment=None)
    actual_rest = dataclasses.replace(actual, assignment=None)
    assert expected_rest == actual_rest, f"expected {expected}, got {actual}"
    assert _assignment_map(expected.assignment) == _assignment_map(actual.assignment), \
        f"expected {expected}, got {actual}"


def assert_records_equals(expected_records: Sequence[CoordinatorRecord],
                          actual_records: Sequence[CoordinatorRecord]) -> None:
    assert len(expected_records) == len(actual_records), f"expected {expected_records}, got {actual_records}"
    for expected, actual in zip(expected_records, actual_records, strict=True):
        assert_record_equals(expected, actual)


def assert_record_equals(expected: CoordinatorRecord, actual: CoordinatorRecord) -> None:
    assert _normalized(expected.key()) == _normalized(actual.key()), f"expected {expected}, got {actual}"
    assert _normalized(expected.value()) == _normalized(actual.value()), f"expected {expected}, got {actual}"


def _normalized(message_and_version: ApiMessageAndVersion | None) -> Any:
    if message_and_version is None:
        return None
    message = message_and_version.message
    version = message_and_version.version
    if isinstance(message, ConsumerGroupCurrentMemberAssignmentValue):
        return (version, message.member_epoch, message.previous_member_epoch,
                frozenset((tp.topic_id, frozenset(tp.partitions)) for tp in message.assigned_partitions),
                frozenset((tp.topic_id, frozenset(tp.partitions)) for tp in message.partitions_pending_revocation))
    if isinstance(message, ConsumerGroupPartitionMetadataValue):
        return (version, frozenset(
            (tm.topic_id, tm.topic_name, tm.num_partitions,
             frozenset((pm.partition, frozenset(pm.racks)) for pm in tm.partition_metadata))
            for tm in message.topics))
    if isinstance(message, ConsumerGroupTargetAssignmentMemberValue):
        return (version, frozenset((tp.topic_id, frozenset(tp.partitions)) for tp in message.topic_partitions))
    if isinstance(message, GroupMetadataValue):
        members = tuple(sorted((_normalized_member(m) for m in message.members), key=lambda m: m[0]))
        return (version, dataclasses.replace(message, members=()), members)
    return (version, message)


def _normalized_member(member: Any) -> tuple[Any, ...]:
    try:
        subscription = consumer_protocol.deserialize_subscription(ByteBuffer.wrap(member.subscription))
        sub: Any = (tuple(sorted(subscription.topics())),
                    tuple(sorted((tp.topic, tp.partition) for tp in subscription.owned_partitions())))
    except Exception:  # noqa: BLE001 - not the consumer protocol: compared as bytes
        sub = member.subscription
    try:
        assignment = consumer_protocol.deserialize_assignment(ByteBuffer.wrap(member.assignment))
        asg: Any = tuple(sorted((tp.topic, tp.partition) for tp in assignment.partitions()))
    except Exception:  # noqa: BLE001
        asg = member.assignment
    return (member.member_id, dataclasses.replace(member, subscription=b"", assignment=b""), sub, asg)


def assert_sync_group_response_equals(expected: Any, actual: Any) -> None:
    """A SyncGroup response, its consumer-protocol assignment compared as sorted partitions."""
    def normalized(response: Any) -> Any:
        try:
            assignment = consumer_protocol.deserialize_assignment(ByteBuffer.wrap(response.assignment))
            parts: Any = tuple(sorted((tp.topic, tp.partition) for tp in assignment.partitions()))
        except Exception:  # noqa: BLE001
            parts = response.assignment
        return dataclasses.replace(response, assignment=b""), parts

    assert normalized(expected) == normalized(actual), f"expected {expected}, got {actual}"
