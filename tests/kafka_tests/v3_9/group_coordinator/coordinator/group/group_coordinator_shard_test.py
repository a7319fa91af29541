"""Port of group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupCoordinatorShardTest.java
(Kafka 3.9).

Mockito's mocks of GroupMetadataManager and OffsetMetadataManager are `create_autospec` of the port's classes when
their modules import, else plain Mocks; `verify(m, times(1)).x(args)` is `m.x.assert_called_once_with(args)`. A
mocked GroupCoordinatorConfig answers 0 where Mockito's would. Records and responses are the port's: response data
are dicts, DeletableGroupResultCollection a list of them.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException
from kafka_edu.v1_0_2.clients.common.requests.transaction_result import TransactionResult
from kafka_edu.v3_9.clients.common.protocol.api_keys import ApiKeys
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from kafka_edu.v3_9.core.server.remote_leader_end_point import error_exception
from kafka_edu.v3_9.group_coordinator.coordinator.group import coordinator_record_helpers as helpers
from kafka_edu.v3_9.group_coordinator.coordinator.group.coordinator_record import CoordinatorRecord
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_key import (
    ConsumerGroupCurrentMemberAssignmentKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_current_member_assignment_value import (  # noqa: E501
    ConsumerGroupCurrentMemberAssignmentValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_key import (
    ConsumerGroupMemberMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_member_metadata_value import (
    ConsumerGroupMemberMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_key import (
    ConsumerGroupMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_metadata_value import (
    ConsumerGroupMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_key import (
    ConsumerGroupPartitionMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_partition_metadata_value import (
    ConsumerGroupPartitionMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_key import (
    ConsumerGroupTargetAssignmentMemberKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_member_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMemberValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_key import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataKey,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.consumer_group_target_assignment_metadata_value import (  # noqa: E501
    ConsumerGroupTargetAssignmentMetadataValue,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_key import GroupMetadataKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.group_metadata_value import GroupMetadataValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_key import OffsetCommitKey
from kafka_edu.v3_9.group_coordinator.coordinator.group.generated.offset_commit_value import OffsetCommitValue
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_config import GroupCoordinatorConfig
from kafka_edu.v3_9.group_coordinator.coordinator.group.group_coordinator_shard import (
    GROUP_EXPIRATION_KEY,
    GroupCoordinatorShard,
)
from kafka_edu.v3_9.group_coordinator.coordinator.group.runtime.coordinator_result import CoordinatorResult
from kafka_edu.v3_9.metadata.image.metadata_image import MetadataImage
from kafka_edu.v3_9.server_common.server.common.api_message_and_version import ApiMessageAndVersion
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.group_coordinator_test_util import (
    create_group_coordinator_config,
    request_context,
)
from tests.kafka_tests.v3_9.group_coordinator.coordinator.group.mock_coordinator_timer import MockCoordinatorTimer

SHARE_GROUPS = "share groups (KIP-932) are not ported"

KAFKA = kafka_test_class(
    "3.9", "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/GroupCoordinatorShardTest.java",
    cases=[
        "testConsumerGroupHeartbeat",
        "testCommitOffset",
        "testCommitTransactionalOffset",
        "testDeleteGroups",
        "testDeleteGroupsInvalidGroupId",
        "testReplayOffsetCommit",
        "testReplayTransactionalOffsetCommit",
        "testReplayOffsetCommitWithNullValue",
        "testReplayConsumerGroupMetadata",
        "testReplayConsumerGroupMetadataWithNullValue",
        "testReplayConsumerGroupPartitionMetadata",
        "testReplayConsumerGroupPartitionMetadataWithNullValue",
        "testReplayConsumerGroupMemberMetadata",
        "testReplayConsumerGroupMemberMetadataWithNullValue",
        "testReplayConsumerGroupTargetAssignmentMetadata",
        "testReplayConsumerGroupTargetAssignmentMetadataWithNullValue",
        "testReplayConsumerGroupTargetAssignmentMember",
        "testReplayConsumerGroupTargetAssignmentMemberKeyWithNullValue",
        "testReplayConsumerGroupCurrentMemberAssignment",
        "testReplayConsumerGroupCurrentMemberAssignmentWithNullValue",
        "testReplayKeyCannotBeNull",
        "testReplayWithUnsupportedVersion",
        "testOnLoaded",
        "testReplayGroupMetadata",
        "testReplayGroupMetadataWithNullValue",
        "testScheduleCleanupGroupMetadata",
        "testCleanupGroupMetadata",
        "testReplayEndTransactionMarker",
        "testOnPartitionsDeleted",
        "testOnUnloaded",
        "testShareGroupHeartbeat",
        "testReplayShareGroupMetadata",
        "testReplayShareGroupMetadataWithNullValue",
        "testReplayShareGroupMemberMetadata",
        "testReplayShareGroupMemberMetadataWithNullValue",
    ],
    not_applicable={
        "testShareGroupHeartbeat": SHARE_GROUPS,
        "testReplayShareGroupMetadata": SHARE_GROUPS,
        "testReplayShareGroupMetadataWithNullValue": SHARE_GROUPS,
        "testReplayShareGroupMemberMetadata": SHARE_GROUPS,
        "testReplayShareGroupMemberMetadataWithNullValue": SHARE_GROUPS,
    },
)

NO_PRODUCER_ID = -1  # RecordBatch.NO_PRODUCER_ID
NO_PRODUCER_EPOCH = -1  # RecordBatch.NO_PRODUCER_EPOCH


def _mock_of(module: str, name: str) -> Any:
    """mock(X.class): an autospec of the port's class when it is there."""
    try:
        klass = getattr(__import__(f"kafka_edu.v3_9.group_coordinator.coordinator.group.{module}",
                                   fromlist=[name]), name)
    except (ImportError, AttributeError):
        return mock.Mock()
    return mock.create_autospec(klass, instance=True)


def mock_group_metadata_manager() -> Any:
    return _mock_of("group_metadata_manager", "GroupMetadataManager")


def mock_offset_metadata_manager() -> Any:
    return _mock_of("offset_metadata_manager", "OffsetMetadataManager")


def mock_config() -> Any:
    config = mock.create_autospec(GroupCoordinatorConfig, instance=True)
    config.offsets_retention_check_interval_ms.return_value = 0
    return config


class _Context:
    """The shard every case builds, with its mocks."""

    def __init__(self, time: Any = SYSTEM, timer: Any = None, config: Any = None) -> None:
        self.group_metadata_manager = mock_group_metadata_manager()
        self.offset_metadata_manager = mock_offset_metadata_manager()
        self.coordinator_metrics = mock.Mock()
        self.metrics_shard = mock.Mock()
        self.timer = timer if timer is not None else MockCoordinatorTimer(time)
        self.coordinator = GroupCoordinatorShard(
            "", self.group_metadata_manager, self.offset_metadata_manager, time, self.timer,
            config if config is not None else mock_config(), self.coordinator_metrics, self.metrics_shard)


def test_consumer_group_heartbeat() -> None:
    ctx = _Context()
    context = request_context(None)  # ApiKeys.CONSUMER_GROUP_HEARTBEAT
    request = object()
    result = CoordinatorResult([], dict(error_code=Errors.NONE))
    ctx.group_metadata_manager.consumer_group_heartbeat.return_value = result

    assert ctx.coordinator.consumer_group_heartbeat(context, request) == result
    ctx.group_metadata_manager.consumer_group_heartbeat.assert_called_once_with(context, request)


def test_commit_offset() -> None:
    ctx = _Context()
    context = request_context(ApiKeys.OFFSET_COMMIT)
    request = object()
    result = CoordinatorResult([], dict(topics=[]))
    ctx.offset_metadata_manager.commit_offset.return_value = result

    assert ctx.coordinator.commit_offset(context, request) == result
    ctx.offset_metadata_manager.commit_offset.assert_called_once_with(context, request)


def test_commit_transactional_offset() -> None:
    ctx = _Context(timer=MockCoordinatorTimer(MockTime()))
    context = request_context(ApiKeys.TXN_OFFSET_COMMIT)
    request = object()
    result = CoordinatorResult([], dict(topics=[]))
    ctx.offset_metadata_manager.commit_transactional_offset.return_value = result

    assert ctx.coordinator.commit_transactional_offset(context, request) == result
    ctx.offset_metadata_manager.commit_transactional_offset.assert_called_once_with(context, request)


def _add_offset_tombstone(group_id: str, records: list[CoordinatorRecord]) -> int:
    records.append(helpers.new_offset_commit_tombstone_record(group_id, "topic-name", 0))
    return 1


def _add_group_tombstone(group_id: str, records: list[CoordinatorRecord]) -> None:
    records.append(helpers.new_group_metadata_tombstone_record(group_id))


def test_delete_groups() -> None:
    ctx = _Context()
    context = request_context(ApiKeys.DELETE_GROUPS)
    group_ids = ["group-id-1", "group-id-2"]
    expected_result_collection = []
    expected_records = []
    for group_id in group_ids:
        expected_result_collection.append(dict(group_id=group_id, error_code=Errors.NONE))
        expected_records += [helpers.new_offset_commit_tombstone_record(group_id, "topic-name", 0),
                             helpers.new_group_metadata_tombstone_record(group_id)]
    expected_result = CoordinatorResult(expected_records, expected_result_collection)

    ctx.offset_metadata_manager.delete_all_offsets.side_effect = _add_offset_tombstone
    ctx.group_metadata_manager.create_group_tombstone_records.side_effect = _add_group_tombstone

    coordinator_result = ctx.coordinator.delete_groups(context, group_ids)

    validated = [c.args[0] for c in ctx.group_metadata_manager.validate_delete_group.call_args_list]
    tombstoned = [c.args[0] for c in ctx.group_metadata_manager.create_group_tombstone_records.call_args_list]
    deleted = [c.args[0] for c in ctx.offset_metadata_manager.delete_all_offsets.call_args_list]
    for group_id in group_ids:
        assert validated.count(group_id) == 1
        assert tombstoned.count(group_id) == 1
        assert deleted.count(group_id) == 1
    assert coordinator_result == expected_result


def test_delete_groups_invalid_group_id() -> None:
    ctx = _Context()
    context = request_context(ApiKeys.DELETE_GROUPS)
    group_ids = ["group-id-1", "group-id-2", "group-id-3"]

    expected_result_collection = [
        dict(group_id="group-id-1", error_code=Errors.NONE),
        dict(group_id="group-id-2", error_code=Errors.INVALID_GROUP_ID),
        dict(group_id="group-id-3", error_code=Errors.NONE),
    ]
    expected_records = [
        helpers.new_offset_commit_tombstone_record("group-id-1", "topic-name", 0),
        helpers.new_group_metadata_tombstone_record("group-id-1"),
        helpers.new_offset_commit_tombstone_record("group-id-3", "topic-name", 0),
        helpers.new_group_metadata_tombstone_record("group-id-3"),
    ]
    expected_result = CoordinatorResult(expected_records, expected_result_collection)

    def validate_delete_group(group_id: str) -> None:
        if group_id == "group-id-2":
            raise error_exception(Errors.INVALID_GROUP_ID)

    def delete_all_offsets(group_id: str, records: list[CoordinatorRecord]) -> None:
        # Kafka's answer returns null here; the shard counts it as no offset
        _add_offset_tombstone(group_id, records)

    ctx.group_metadata_manager.validate_delete_group.side_effect = validate_delete_group
    ctx.offset_metadata_manager.delete_all_offsets.side_effect = delete_all_offsets
    ctx.group_metadata_manager.create_group_tombstone_records.side_effect = _add_group_tombstone

    coordinator_result = ctx.coordinator.delete_groups(context, group_ids)

    validated = [c.args[0] for c in ctx.group_metadata_manager.validate_delete_group.call_args_list]
    tombstoned = [c.args[0] for c in ctx.group_metadata_manager.create_group_tombstone_records.call_args_list]
    deleted = [c.args[0] for c in ctx.offset_metadata_manager.delete_all_offsets.call_args_list]
    for group_id in group_ids:
        assert validated.count(group_id) == 1
        if group_id != "group-id-2":
            assert tombstoned.count(group_id) == 1
            assert deleted.count(group_id) == 1
    assert coordinator_result == expected_result


def _replay(ctx: _Context, key: Any, key_version: int, value: Any | None, offset: int = 0,
            producer_id: int = NO_PRODUCER_ID, producer_epoch: int = NO_PRODUCER_EPOCH) -> None:
    ctx.coordinator.replay(offset, producer_id, producer_epoch, CoordinatorRecord(
        ApiMessageAndVersion(key, key_version),
        ApiMessageAndVersion(value, 0) if value is not None else None))


def test_replay_offset_commit() -> None:
    ctx = _Context()
    key = OffsetCommitKey()
    value = OffsetCommitValue()

    _replay(ctx, key, 0, value, offset=0)
    _replay(ctx, key, 1, value, offset=1)

    ctx.offset_metadata_manager.replay.assert_has_calls([
        mock.call(0, NO_PRODUCER_ID, key, value),
        mock.call(1, NO_PRODUCER_ID, key, value),
    ])
    assert ctx.offset_metadata_manager.replay.call_count == 2


def test_replay_transactional_offset_commit() -> None:
    ctx = _Context(timer=MockCoordinatorTimer(MockTime()))
    key = OffsetCommitKey()
    value = OffsetCommitValue()

    _replay(ctx, key, 0, value, offset=0, producer_id=100, producer_epoch=0)
    _replay(ctx, key, 1, value, offset=1, producer_id=101, producer_epoch=1)

    ctx.offset_metadata_manager.replay.assert_has_calls([
        mock.call(0, 100, key, value),
        mock.call(1, 101, key, value),
    ])
    assert ctx.offset_metadata_manager.replay.call_count == 2


def test_replay_offset_commit_with_null_value() -> None:
    ctx = _Context()
    key = OffsetCommitKey()

    _replay(ctx, key, 0, None, offset=0)
    _replay(ctx, key, 1, None, offset=1)

    ctx.offset_metadata_manager.replay.assert_has_calls([
        mock.call(0, NO_PRODUCER_ID, key, None),
        mock.call(1, NO_PRODUCER_ID, key, None),
    ])
    assert ctx.offset_metadata_manager.replay.call_count == 2


def _check_group_replay(key: Any, key_version: int, value: Any | None) -> None:
    ctx = _Context()
    _replay(ctx, key, key_version, value)
    ctx.group_metadata_manager.replay.assert_called_once_with(key, value)


def test_replay_consumer_group_metadata() -> None:
    _check_group_replay(ConsumerGroupMetadataKey(), 3, ConsumerGroupMetadataValue())


def test_replay_consumer_group_metadata_with_null_value() -> None:
    _check_group_replay(ConsumerGroupMetadataKey(), 3, None)


def test_replay_consumer_group_partition_metadata() -> None:
    _check_group_replay(ConsumerGroupPartitionMetadataKey(), 4, ConsumerGroupPartitionMetadataValue())


def test_replay_consumer_group_partition_metadata_with_null_value() -> None:
    _check_group_replay(ConsumerGroupPartitionMetadataKey(), 4, None)


def test_replay_consumer_group_member_metadata() -> None:
    _check_group_replay(ConsumerGroupMemberMetadataKey(), 5, ConsumerGroupMemberMetadataValue())


def test_replay_consumer_group_member_metadata_with_null_value() -> None:
    _check_group_replay(ConsumerGroupMemberMetadataKey(), 5, None)


def test_replay_consumer_group_target_assignment_metadata() -> None:
    _check_group_replay(ConsumerGroupTargetAssignmentMetadataKey(), 6, ConsumerGroupTargetAssignmentMetadataValue())


def test_replay_consumer_group_target_assignment_metadata_with_null_value() -> None:
    _check_group_replay(ConsumerGroupTargetAssignmentMetadataKey(), 6, None)


def test_replay_consumer_group_target_assignment_member() -> None:
    _check_group_replay(ConsumerGroupTargetAssignmentMemberKey(), 7, ConsumerGroupTargetAssignmentMemberValue())


def test_replay_consumer_group_target_assignment_member_key_with_null_value() -> None:
    _check_group_replay(ConsumerGroupTargetAssignmentMemberKey(), 7, None)


def test_replay_consumer_group_current_member_assignment() -> None:
    _check_group_replay(ConsumerGroupCurrentMemberAssignmentKey(), 8, ConsumerGroupCurrentMemberAssignmentValue())


def test_replay_consumer_group_current_member_assignment_with_null_value() -> None:
    _check_group_replay(ConsumerGroupCurrentMemberAssignmentKey(), 8, None)


def test_replay_key_cannot_be_null() -> None:
    ctx = _Context()
    # Java's NullPointerException from the record's requireNonNull is the port's TypeError
    with pytest.raises(TypeError):
        ctx.coordinator.replay(0, NO_PRODUCER_ID, NO_PRODUCER_EPOCH, CoordinatorRecord(None, None))  # type: ignore[arg-type]


def test_replay_with_unsupported_version() -> None:
    ctx = _Context()
    key = ConsumerGroupCurrentMemberAssignmentKey()
    value = ConsumerGroupCurrentMemberAssignmentValue()

    with pytest.raises(IllegalStateException):
        _replay(ctx, key, 255, value)


def test_on_loaded() -> None:
    image = MetadataImage.EMPTY
    ctx = _Context()

    ctx.coordinator.on_loaded(image)

    ctx.group_metadata_manager.on_new_metadata_image.assert_called_once_with(image, mock.ANY)
    ctx.group_metadata_manager.on_loaded.assert_called_once_with()


def test_replay_group_metadata() -> None:
    _check_group_replay(GroupMetadataKey(), 2, GroupMetadataValue())


def test_replay_group_metadata_with_null_value() -> None:
    _check_group_replay(GroupMetadataKey(), 2, None)


def test_schedule_cleanup_group_metadata() -> None:
    mock_time = MockTime()
    timer: MockCoordinatorTimer[None, CoordinatorRecord] = MockCoordinatorTimer(mock_time)
    ctx = _Context(time=mock_time, timer=timer, config=create_group_coordinator_config(4096, 1000, 24 * 60))
    ctx.group_metadata_manager.group_ids.return_value = set()
    image = MetadataImage.EMPTY

    # scheduled once loaded
    ctx.coordinator.on_loaded(image)
    assert timer.contains(GROUP_EXPIRATION_KEY)

    # and again after each run
    mock_time.sleep(1000)
    tasks = timer.poll()
    assert len(tasks) == 1
    assert timer.contains(GROUP_EXPIRATION_KEY)

    ctx.coordinator.on_unloaded()
    assert not timer.contains(GROUP_EXPIRATION_KEY)


def test_cleanup_group_metadata() -> None:
    mock_time = MockTime()
    timer: MockCoordinatorTimer[None, CoordinatorRecord] = MockCoordinatorTimer(mock_time)
    ctx = _Context(time=mock_time, timer=timer)

    offset_commit_tombstone = helpers.new_offset_commit_tombstone_record("group-id", "topic", 0)
    group_metadata_tombstone = helpers.new_group_metadata_tombstone_record("group-id")

    ctx.group_metadata_manager.group_ids.return_value = {"group-id", "other-group-id"}

    def cleanup_expired_offsets(group_id: str, records: list[CoordinatorRecord]) -> bool:
        if group_id == "group-id":
            records.append(offset_commit_tombstone)
            return True
        return False

    def maybe_delete_group(group_id: str, records: list[CoordinatorRecord]) -> None:
        if group_id == "group-id":
            records.append(group_metadata_tombstone)

    ctx.offset_metadata_manager.cleanup_expired_offsets.side_effect = cleanup_expired_offsets
    ctx.group_metadata_manager.maybe_delete_group.side_effect = maybe_delete_group

    assert not timer.contains(GROUP_EXPIRATION_KEY)
    result = ctx.coordinator.cleanup_group_metadata()
    assert timer.contains(GROUP_EXPIRATION_KEY)

    assert result.records() == [offset_commit_tombstone, group_metadata_tombstone]
    assert result.response() is None
    assert result.append_future() is None

    ctx.group_metadata_manager.group_ids.assert_called_once_with()
    cleaned = [c.args[0] for c in ctx.offset_metadata_manager.cleanup_expired_offsets.call_args_list]
    assert sorted(cleaned) == ["group-id", "other-group-id"]
    deleted = [c.args[0] for c in ctx.group_metadata_manager.maybe_delete_group.call_args_list]
    assert deleted == ["group-id"]


@pytest.mark.parametrize("result", list(TransactionResult))
def test_replay_end_transaction_marker(result: TransactionResult) -> None:
    ctx = _Context()

    ctx.coordinator.replay_end_transaction_marker(100, 5, result)

    ctx.offset_metadata_manager.replay_end_transaction_marker.assert_called_once_with(100, result)


def test_on_partitions_deleted() -> None:
    ctx = _Context()
    records = [helpers.new_offset_commit_tombstone_record("group", "foo", 0)]
    ctx.offset_metadata_manager.on_partitions_deleted.return_value = records

    result = ctx.coordinator.on_partitions_deleted([TopicPartition("foo", 0)])

    ctx.offset_metadata_manager.on_partitions_deleted.assert_called_once_with([TopicPartition("foo", 0)])
    assert result.records() == records
    assert result.response() is None


def test_on_unloaded() -> None:
    mock_time = MockTime()
    timer: MockCoordinatorTimer[None, CoordinatorRecord] = MockCoordinatorTimer(mock_time)
    ctx = _Context(time=mock_time, timer=timer, config=create_group_coordinator_config(4096, 1000, 24 * 60))

    ctx.coordinator.on_unloaded()

    assert timer.size() == 0
    ctx.group_metadata_manager.on_unloaded.assert_called_once_with()
