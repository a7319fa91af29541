"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/SnapshottableCoordinatorTest.java
(Kafka 3.9).

LogContext is its prefix string in the port (`LOG_CONTEXT`); MockCoordinatorShard comes from the helper module ported
from CoordinatorRuntimeTest, MockCoordinatorTimer from the group package's test helper, as in Kafka.
"""

from __future__ import annotations

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.snapshottable_coordinator import (
    SnapshottableCoordinator,
)
from kafka_edu.v3_9.server_common.timeline.snapshot_registry import SnapshotRegistry
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import MockCoordinatorTimer
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.runtime.mock_coordinator_shard import (
    MockCoordinatorShard,
)

KAFKA = kafka_test_class(
    "3.9",
    "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/runtime/SnapshottableCoordinatorTest.java",
    cases=[
        "testUpdateLastWrittenOffset",
        "testUpdateLastWrittenOffsetFailed",
        "testRevertWrittenOffset",
        "testRevertLastWrittenOffsetFailed",
        "testUpdateLastCommittedOffset",
        "testUpdateLastCommittedOffsetFailed",
    ],
)

LOG_CONTEXT = ""  # new LogContext(): no prefix


def _coordinator() -> SnapshottableCoordinator[MockCoordinatorShard, str]:
    snapshot_registry = SnapshotRegistry(LOG_CONTEXT)
    return SnapshottableCoordinator(
        LOG_CONTEXT,
        snapshot_registry,
        MockCoordinatorShard(snapshot_registry, MockCoordinatorTimer(MockTime())),
        TopicPartition("test-topic", 0),
    )


def test_update_last_written_offset():
    coordinator = _coordinator()

    assert coordinator.snapshot_registry().has_snapshot(0)
    coordinator.update_last_written_offset(100)
    assert coordinator.last_written_offset() == 100
    assert coordinator.snapshot_registry().has_snapshot(100)
    assert coordinator.snapshot_registry().has_snapshot(0)


def test_update_last_written_offset_failed():
    coordinator = _coordinator()

    assert coordinator.last_written_offset() == 0
    with pytest.raises(IllegalStateException):
        coordinator.update_last_written_offset(0)
    assert coordinator.last_written_offset() == 0


def test_revert_written_offset():
    coordinator = _coordinator()

    coordinator.update_last_written_offset(100)
    coordinator.update_last_written_offset(200)
    assert coordinator.snapshot_registry().has_snapshot(0)
    assert coordinator.snapshot_registry().has_snapshot(100)
    assert coordinator.snapshot_registry().has_snapshot(200)

    coordinator.revert_last_written_offset(100)
    assert coordinator.last_written_offset() == 100
    assert coordinator.snapshot_registry().has_snapshot(100)
    assert not coordinator.snapshot_registry().has_snapshot(200)


def test_revert_last_written_offset_failed():
    coordinator = _coordinator()

    assert coordinator.last_written_offset() == 0
    with pytest.raises(IllegalStateException):
        coordinator.revert_last_written_offset(1)
    assert coordinator.last_written_offset() == 0


def test_update_last_committed_offset():
    coordinator = _coordinator()

    coordinator.update_last_written_offset(100)
    assert coordinator.snapshot_registry().has_snapshot(0)
    assert coordinator.snapshot_registry().has_snapshot(100)

    coordinator.update_last_committed_offset(100)
    assert coordinator.last_committed_offset() == 100
    assert not coordinator.snapshot_registry().has_snapshot(0)
    assert coordinator.snapshot_registry().has_snapshot(100)


def test_update_last_committed_offset_failed():
    coordinator = _coordinator()

    coordinator.update_last_written_offset(100)
    coordinator.update_last_committed_offset(100)
    assert coordinator.last_committed_offset() == 100
    with pytest.raises(IllegalStateException):
        coordinator.update_last_committed_offset(99)
    assert coordinator.last_committed_offset() == 100
    with pytest.raises(IllegalStateException):
        coordinator.update_last_committed_offset(101)
