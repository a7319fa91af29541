"""Port of core/src/test/scala/unit/kafka/coordinator/group/GroupMetadataManagerTest.scala (Kafka 1.0.2).

Kafka mocks ZkUtils, ReplicaManager and Partition (nice mocks) and the offsets partition's Log and FileRecords
(strict mocks) with EasyMock; here small stand-ins play them. A stand-in records each call and answers what the test
told it to; a call nobody told it about gets a nice mock's empty answer (None, nothing done). The port's `Log.read`
returns the records' bytes, so one stand-in plays both the Log mock and its FileRecords mock (`read` answers what
`readInto` filled the buffer with). `EasyMock.verify(replicaManager)` becomes `verify()`: every expected
appendRecords happened (and, as on a mock, no more than expected). Kafka's `Option` is a value or None; a Java
ByteBuffer that several MemoryRecords builders write into one after another is a bytearray they are appended to.
`group.offsetWithRecordMetadata(tp)` (private[group] in Kafka) is the group's cached CommitRecordMetadataAndOffset,
`group.offsets[tp]` in the port.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.record.compression_type import CompressionType
from kafka_edu.v1_0_2.clients.common.record.control_record_type import ControlRecordType
from kafka_edu.v1_0_2.clients.common.record.end_transaction_marker import EndTransactionMarker
from kafka_edu.v1_0_2.clients.common.record.file_records import (
    MAGIC_VALUE_V2,
    NO_PARTITION_LEADER_EPOCH,
    NO_TIMESTAMP,
    MemoryRecords,
    TimestampType,
)
from kafka_edu.v1_0_2.clients.common.record.memory_records_builder import (
    MemoryRecordsBuilder,
    SimpleRecord,
    with_simple_records,
)
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata import (
    Empty,
    GroupMetadata,
    PreparingRebalance,
    Stable,
)
from kafka_edu.v1_0_2.core.coordinator.group.group_metadata_manager import (
    GROUP_METADATA_TOPIC_NAME,
    GroupMetadataKey,
    GroupMetadataManager,
    OffsetKey,
    group_metadata_key,
    group_metadata_value,
    offset_commit_key,
    offset_commit_value,
    read_group_message_value,
    read_message_key,
)
from kafka_edu.v1_0_2.core.coordinator.group.member_metadata import MemberMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_and_metadata import INVALID_OFFSET, OffsetAndMetadata
from kafka_edu.v1_0_2.core.coordinator.group.offset_config import OffsetConfig
from kafka_edu.v1_0_2.core.log.log import TopicPartition
from kafka_edu.v1_0_2.core.server.kafka_config import LATEST_API_VERSION, KafkaConfig
from kafka_edu.v1_0_2.core.server.replica_manager import PartitionResponse
from kafka_edu.v3_9.clients.common.protocol.errors import Errors
from tests.kafka_tests.mock_scheduler import MockTimeWithScheduler
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.test_utils import create_broker_config

KAFKA = kafka_test_class(
    "1.0.2", "core/src/test/scala/unit/kafka/coordinator/group/GroupMetadataManagerTest.scala",
    cases=[
        "testLoadOffsetsWithoutGroup", "testLoadEmptyGroupWithOffsets", "testLoadTransactionalOffsetsWithoutGroup",
        "testDoNotLoadAbortedTransactionalOffsetCommits", "testGroupLoadedWithPendingCommits",
        "testLoadWithCommittedAndAbortedTransactionalOffsetCommits",
        "testLoadWithCommittedAndAbortedAndPendingTransactionalOffsetCommits",
        "testLoadTransactionalOffsetCommitsFromMultipleProducers",
        "testGroupLoadWithConsumerAndTransactionalOffsetCommitsConsumerWins",
        "testGroupLoadWithConsumerAndTransactionalOffsetCommitsTransactionWins", "testLoadOffsetsWithTombstones",
        "testLoadOffsetsAndGroup", "testLoadGroupWithTombstone", "testOffsetWriteAfterGroupRemoved",
        "testLoadGroupAndOffsetsFromDifferentSegments", "testAddGroup", "testStoreEmptyGroup",
        "testStoreEmptySimpleGroup", "testStoreGroupErrorMapping", "testStoreNonEmptyGroup",
        "testStoreNonEmptyGroupWhenCoordinatorHasMoved", "testCommitOffset", "testTransactionalCommitOffsetCommitted",
        "testTransactionalCommitOffsetAppendFailure", "testTransactionalCommitOffsetAborted",
        "testCommitOffsetWhenCoordinatorHasMoved", "testCommitOffsetFailure", "testExpireOffset",
        "testGroupMetadataRemoval", "testGroupMetadataRemovalWithLogAppendTime", "testExpireGroupWithOffsetsOnly",
        "testExpireOffsetsWithActiveGroup",
    ],
)

GROUP_ID = "foo"
GROUP_PARTITION_ID = 0
GROUP_TOPIC_PARTITION = TopicPartition(GROUP_METADATA_TOPIC_NAME, GROUP_PARTITION_ID)
PROTOCOL_TYPE = "protocolType"
REBALANCE_TIMEOUT = 60000
SESSION_TIMEOUT = 10000

ResponseCallback = Callable[[dict[TopicPartition, PartitionResponse]], None]


# -- the mocks' stand-ins -----------------------------------------------------------------------------------------

class _ZkUtilsStandIn:
    """The nice ZkUtils mock: getTopicPartitionCount(__consumer_offsets) is Some(2), so that some partitions of the
    group topic are not owned by the coordinator."""

    def get_topic_partition_count(self, topic: str) -> int | None:
        return 2 if topic == GROUP_METADATA_TOPIC_NAME else None


class _LogStandIn:
    """The strict Log mock and its FileRecords mocks: logStartOffset is the first expected read's start offset; each
    expected read(startOffset, any, maxOffset = None, minOneMessage = true) answers its records once."""

    def __init__(self) -> None:
        self.start_offset: int | None = None
        self.expected_reads: dict[int, MemoryRecords] = {}

    def expect_read(self, start_offset: int, records: MemoryRecords) -> None:
        if self.start_offset is None:
            self.start_offset = start_offset
        self.expected_reads[start_offset] = records

    @property
    def log_start_offset(self) -> int:
        assert self.start_offset is not None, "Unexpected method call Log.logStartOffset()"
        return self.start_offset

    def read(self, start_offset: int, max_length: int, max_offset: int | None = None,
             min_one_message: bool = False) -> bytes:
        records = self.expected_reads.pop(start_offset, None)
        if records is None or max_offset is not None or min_one_message is not True:
            raise AssertionError(f"Unexpected method call Log.read({start_offset}, {max_length}, {max_offset}, "
                                 f"{min_one_message})")
        return bytes(records.buffer)


class _PartitionStandIn:
    """The nice Partition mock: appendRecordsToLeader(records, isFromClient, requiredAcks) keeps what it was given
    and answers nothing (LogAppendInfo.UnknownLogAppendInfo is not looked at)."""

    def __init__(self) -> None:
        self.appended: list[tuple[bytes, bool, int]] = []

    def reset(self) -> None:
        self.appended.clear()

    def append_records_to_leader(self, records: bytes, is_from_client: bool, required_acks: int) -> None:
        assert is_from_client is False
        self.appended.append((records, is_from_client, required_acks))

    @property
    def has_captured(self) -> bool:
        return bool(self.appended)

    @property
    def captured(self) -> MemoryRecords:
        return MemoryRecords(self.appended[-1][0])


class _AppendExpectation:
    """One expected appendRecords(anyLong, anyShort, internalTopicsAllowed = true, isFromClient = false, ...):
    it captures the records and the callback and, if `error` is given, answers with that error at once."""

    def __init__(self, error: Errors | None) -> None:
        self.error = error
        self.records: dict[TopicPartition, bytes] | None = None
        self.callback: ResponseCallback | None = None

    @property
    def has_captured(self) -> bool:
        return self.records is not None


class _ReplicaManagerStandIn:
    """The nice ReplicaManager mock: records every call and answers the expectations of the last reset."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.reset()

    def reset(self) -> None:
        self.logs: dict[TopicPartition, _LogStandIn] = {}
        self.log_end_offsets: dict[TopicPartition, int] = {}
        self.partitions: dict[TopicPartition, _PartitionStandIn] = {}
        self.magic: int | None = None
        self.append_expectations: list[_AppendExpectation] = []

    def verify(self) -> None:
        missing = [e for e in self.append_expectations if not e.has_captured]
        assert not missing, f"Expectation failure on verify: appendRecords expected {len(missing)} more time(s)"

    def get_log(self, topic_partition: TopicPartition) -> _LogStandIn | None:
        self.calls.append(("getLog", topic_partition))
        return self.logs.get(topic_partition)

    def get_log_end_offset(self, topic_partition: TopicPartition) -> int | None:
        self.calls.append(("getLogEndOffset", topic_partition))
        return self.log_end_offsets.get(topic_partition)

    def get_magic(self, topic_partition: TopicPartition) -> int | None:
        self.calls.append(("getMagic", topic_partition))
        return self.magic

    def get_partition(self, topic_partition: TopicPartition) -> _PartitionStandIn | None:
        self.calls.append(("getPartition", topic_partition))
        return self.partitions.get(topic_partition)

    def append_records(self, timeout: int, required_acks: int, internal_topics_allowed: bool, is_from_client: bool,
                       entries_per_partition: dict[TopicPartition, bytes],
                       response_callback: ResponseCallback) -> None:
        self.calls.append(("appendRecords", entries_per_partition))
        if not self.append_expectations:
            return  # a nice mock does nothing
        if internal_topics_allowed is not True or is_from_client is not False:
            raise AssertionError(f"Unexpected method call appendRecords(internalTopicsAllowed = "
                                 f"{internal_topics_allowed}, isFromClient = {is_from_client})")
        expectation = next((e for e in self.append_expectations if not e.has_captured), None)
        if expectation is None:
            raise AssertionError("Unexpected method call appendRecords: expected 1, actual 2")
        expectation.records = entries_per_partition
        expectation.callback = response_callback
        if expectation.error is not None:
            response_callback({GROUP_TOPIC_PARTITION: PartitionResponse(expectation.error, 0, NO_TIMESTAMP, 0)})


# -- the test class's fields and helpers --------------------------------------------------------------------------

class _World:
    """setUp: the broker config's offset settings, the mocks and the manager under test."""

    def __init__(self) -> None:
        config = KafkaConfig.from_props(create_broker_config(node_id=0, zk_connect=""))
        offset_config = OffsetConfig(
            max_metadata_size=config.offset_metadata_max_size,
            load_buffer_size=config.offsets_load_buffer_size,
            offsets_retention_ms=config.offsets_retention_minutes * 60 * 1000,
            offsets_retention_check_interval_ms=config.offsets_retention_check_interval_ms,
            offsets_topic_num_partitions=config.offsets_topic_partitions,
            offsets_topic_segment_bytes=config.offsets_topic_segment_bytes,
            offsets_topic_replication_factor=config.offsets_topic_replication_factor,
            offsets_topic_compression_codec=config.offsets_topic_compression_codec,
            offset_commit_timeout_ms=config.offset_commit_timeout_ms,
            offset_commit_required_acks=config.offset_commit_required_acks)
        self.zk_utils = _ZkUtilsStandIn()
        self.time = MockTimeWithScheduler()
        self.replica_manager = _ReplicaManagerStandIn()
        self.group_metadata_manager = GroupMetadataManager(
            0, offset_config, self.replica_manager,  # type: ignore[arg-type]
            inter_broker_protocol_version=LATEST_API_VERSION, time_ms=self.time.milliseconds,
            zk_utils=self.zk_utils)  # type: ignore[arg-type]
        self.partition = _PartitionStandIn()

    # appendAndCaptureCallback / expectAppendMessage

    def append_and_capture_callback(self) -> _AppendExpectation:
        expectation = _AppendExpectation(None)
        self.replica_manager.append_expectations.append(expectation)
        self.replica_manager.magic = MAGIC_VALUE_V2
        return expectation

    def expect_append_message(self, error: Errors) -> _AppendExpectation:
        expectation = _AppendExpectation(error)
        self.replica_manager.append_expectations.append(expectation)
        self.replica_manager.magic = MAGIC_VALUE_V2
        return expectation

    def mock_get_partition(self) -> None:
        self.replica_manager.partitions[GROUP_TOPIC_PARTITION] = self.partition

    def expect_group_metadata_load(self, group_metadata_topic_partition: TopicPartition, start_offset: int,
                                   records: MemoryRecords) -> None:
        log = _LogStandIn()
        self.replica_manager.logs[group_metadata_topic_partition] = log
        end_offset = _expect_log_read(log, start_offset, records)
        self.replica_manager.log_end_offsets[group_metadata_topic_partition] = end_offset

    def load(self, topic_partition: TopicPartition = GROUP_TOPIC_PARTITION) -> None:
        self.group_metadata_manager.load_groups_and_offsets(topic_partition, lambda _: None)

    def loaded_group(self) -> GroupMetadata:
        group = self.group_metadata_manager.get_group(GROUP_ID)
        if group is None:
            pytest.fail("Group was not loaded into the cache")
        return group

    def append_consumer_offset_commit(self, buffer: bytearray, base_offset: int,
                                      offsets: Mapping[TopicPartition, int]) -> int:
        builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.LOG_APPEND_TIME, base_offset,
                                       self.time.milliseconds(), -1, -1, -1, False, NO_PARTITION_LEADER_EPOCH)
        for record in _create_committed_offset_records(offsets):
            builder.append(record.timestamp, record.key, record.value)
        buffer += builder.build().buffer
        return len(offsets)

    def complete_transactional_offset_commit(self, buffer: bytearray, producer_id: int, producer_epoch: int,
                                             base_offset: int, is_commit: bool) -> int:
        builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.LOG_APPEND_TIME, base_offset,
                                       self.time.milliseconds(), producer_id, producer_epoch, 0, True,
                                       NO_PARTITION_LEADER_EPOCH, is_control_batch=True)
        control_record_type = ControlRecordType.COMMIT if is_commit else ControlRecordType.ABORT
        builder.append_end_txn_marker(self.time.milliseconds(), EndTransactionMarker(control_record_type, 0))
        buffer += builder.build().buffer
        return 1


@pytest.fixture
def world() -> Iterator[_World]:
    yield _World()


def _record_count(records: MemoryRecords) -> int:
    return sum(1 for batch in records.batches() for _ in batch.records())


def _records_of(records: MemoryRecords) -> list[Any]:
    return [record for batch in records.batches() for record in batch.records()]


def _expect_log_read(log: _LogStandIn, start_offset: int, records: MemoryRecords) -> int:
    """The second expectGroupMetadataLoad: the records the log reads from `start_offset`; returns the end offset
    to give getLogEndOffset."""
    log.expect_read(start_offset, records)
    return start_offset + _record_count(records)


def _create_committed_offset_records(committed_offsets: Mapping[TopicPartition, int],
                                     group_id: str = GROUP_ID) -> list[SimpleRecord]:
    return [SimpleRecord(offset_commit_value(OffsetAndMetadata(offset)), offset_commit_key(group_id, topic_partition))
            for topic_partition, offset in committed_offsets.items()]


def _with_records(start_offset: int, records: list[SimpleRecord]) -> MemoryRecords:
    """MemoryRecords.withRecords(startOffset, CompressionType.NONE, records: _*)."""
    return with_simple_records(records, start_offset, CompressionType.NONE)


def _append_transactional_offset_commits(buffer: bytearray, producer_id: int, producer_epoch: int, base_offset: int,
                                         offsets: Mapping[TopicPartition, int]) -> int:
    builder = MemoryRecordsBuilder(CompressionType.NONE, TimestampType.CREATE_TIME, base_offset, NO_TIMESTAMP,
                                   producer_id, producer_epoch, 0, True, NO_PARTITION_LEADER_EPOCH)
    for record in _create_committed_offset_records(offsets):
        builder.append(record.timestamp, record.key, record.value)
    buffer += builder.build().buffer
    return len(offsets)


def _build_stable_group_record_with_member(generation: int, protocol_type: str, protocol: str,
                                           member_id: str) -> SimpleRecord:
    member = MemberMetadata(member_id, GROUP_ID, "clientId", "clientHost", 30000, 10000, protocol_type,
                            [(protocol, b"")])
    group = GroupMetadata.load_group(GROUP_ID, Stable, generation, protocol_type, protocol, member_id, [member])
    return SimpleRecord(group_metadata_value(group, {member_id: b""}), group_metadata_key(GROUP_ID))


def _build_empty_group_record(generation: int, protocol_type: str) -> SimpleRecord:
    group = GroupMetadata.load_group(GROUP_ID, Empty, generation, protocol_type, None, None, [])
    return SimpleRecord(group_metadata_value(group, {}), group_metadata_key(GROUP_ID))


def _offset_of(group: GroupMetadata, topic_partition: TopicPartition) -> int | None:
    """group.offset(topicPartition).map(_.offset)."""
    offset = group.offset(topic_partition)
    return None if offset is None else offset.offset


def _appended_batch_offset(group: GroupMetadata, topic_partition: TopicPartition) -> int | None:
    """group.offsetWithRecordMetadata(topicPartition).head.appendedBatchOffset."""
    return group.offsets[topic_partition].appended_batch_offset


def _cached_offset(world: _World, topic_partitions: list[TopicPartition], topic_partition: TopicPartition
                   ) -> int | None:
    """groupMetadataManager.getOffsets(groupId, Some(topicPartitions)).get(topicPartition).map(_.offset)."""
    data = world.group_metadata_manager.get_offsets(GROUP_ID, topic_partitions).get(topic_partition)
    return None if data is None else data.offset


def _new_active_group(member_id: str) -> GroupMetadata:
    """A group with one member, in its first generation (AwaitingSync)."""
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    member = MemberMetadata(member_id, GROUP_ID, "clientId", "localhost", REBALANCE_TIMEOUT, SESSION_TIMEOUT,
                            PROTOCOL_TYPE, [("protocol", b"")])
    member.awaiting_join_callback = lambda _: None
    group.add(member)
    group.transition_to(PreparingRebalance)
    group.init_next_generation()
    return group


class _Errors:
    """var commitErrors / maybeError: Option[...] and the callback that sets it."""

    def __init__(self) -> None:
        self.value: Any = None

    def __call__(self, errors: Any) -> None:
        self.value = errors


COMMITTED_OFFSETS = {TopicPartition("foo", 0): 23, TopicPartition("foo", 1): 455, TopicPartition("bar", 0): 8992}
ABORTED_OFFSETS = {TopicPartition("foo", 2): 231, TopicPartition("foo", 3): 4551, TopicPartition("bar", 1): 89921}
PRODUCER_ID = 1000
PRODUCER_EPOCH = 2


# -- loading --------------------------------------------------------------------------------------------------------

def test_load_offsets_without_group(world: _World) -> None:
    start_offset = 15
    records = _with_records(start_offset, _create_committed_offset_records(COMMITTED_OFFSETS))
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_empty_group_with_offsets(world: _World) -> None:
    generation = 15
    protocol_type = "consumer"
    start_offset = 15
    records = _with_records(start_offset, _create_committed_offset_records(COMMITTED_OFFSETS)
                            + [_build_empty_group_record(generation, protocol_type)])
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert group.generation_id == generation
    assert group.protocol_type == protocol_type
    assert group.leader_or_null is None
    assert group.protocol_or_null is None
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_transactional_offsets_without_group(world: _World) -> None:
    buffer = bytearray()
    next_offset = 0
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        COMMITTED_OFFSETS)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=True)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset


def test_do_not_load_aborted_transactional_offset_commits(world: _World) -> None:
    aborted_offsets = COMMITTED_OFFSETS
    buffer = bytearray()
    next_offset = 0
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        aborted_offsets)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=False)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    # no committed offsets and no group record: no group
    assert world.group_metadata_manager.get_group(GROUP_ID) is None


def test_group_loaded_with_pending_commits(world: _World) -> None:
    pending_offsets = COMMITTED_OFFSETS
    buffer = bytearray()
    _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, 0, pending_offsets)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    # nothing materialized, but offsets pending
    assert len(group.all_offsets()) == 0
    assert group.has_offsets()
    assert group.has_pending_offset_commits_from_producer(PRODUCER_ID)


def test_load_with_committed_and_aborted_transactional_offset_commits(world: _World) -> None:
    buffer = bytearray()
    next_offset = 0
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        ABORTED_OFFSETS)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=False)
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        COMMITTED_OFFSETS)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=True)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    # only the committed offsets, and nothing pending: the aborted ones are gone
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)


def test_load_with_committed_and_aborted_and_pending_transactional_offset_commits(world: _World) -> None:
    pending_offsets = {TopicPartition("foo", 3): 2312, TopicPartition("foo", 4): 45512,
                       TopicPartition("bar", 2): 899212}
    buffer = bytearray()
    next_offset = 0
    commit_offsets_log_position = next_offset
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        COMMITTED_OFFSETS)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=True)
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        ABORTED_OFFSETS)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=False)
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        pending_offsets)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset
        assert _appended_batch_offset(group, topic_partition) == commit_offsets_log_position
    assert group.has_pending_offset_commits_from_producer(PRODUCER_ID)

    # the pending commits materialize once the commit marker comes in
    world.group_metadata_manager.handle_txn_completion(PRODUCER_ID, {GROUP_TOPIC_PARTITION.partition},
                                                       is_commit=True)
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    for topic_partition, offset in pending_offsets.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_transactional_offset_commits_from_multiple_producers(world: _World) -> None:
    first_producer_id, first_producer_epoch = 1000, 2
    second_producer_id, second_producer_epoch = 1001, 3
    committed_offsets_first_producer = COMMITTED_OFFSETS
    committed_offsets_second_producer = ABORTED_OFFSETS
    buffer = bytearray()
    next_offset = 0

    first_produce_record_offset = next_offset
    next_offset += _append_transactional_offset_commits(buffer, first_producer_id, first_producer_epoch, next_offset,
                                                        committed_offsets_first_producer)
    next_offset += world.complete_transactional_offset_commit(buffer, first_producer_id, first_producer_epoch,
                                                              next_offset, is_commit=True)
    second_producer_record_offset = next_offset
    next_offset += _append_transactional_offset_commits(buffer, second_producer_id, second_producer_epoch,
                                                        next_offset, committed_offsets_second_producer)
    next_offset += world.complete_transactional_offset_commit(buffer, second_producer_id, second_producer_epoch,
                                                              next_offset, is_commit=True)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(committed_offsets_first_producer) + len(committed_offsets_second_producer)
    for topic_partition, offset in committed_offsets_first_producer.items():
        assert _offset_of(group, topic_partition) == offset
        assert _appended_batch_offset(group, topic_partition) == first_produce_record_offset
    for topic_partition, offset in committed_offsets_second_producer.items():
        assert _offset_of(group, topic_partition) == offset
        assert _appended_batch_offset(group, topic_partition) == second_producer_record_offset


def test_group_load_with_consumer_and_transactional_offset_commits_consumer_wins(world: _World) -> None:
    transactional_offset_commits = {TopicPartition("foo", 0): 23}
    consumer_offset_commits = {TopicPartition("foo", 0): 24}
    buffer = bytearray()
    next_offset = 0
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        transactional_offset_commits)
    consumer_record_offset = next_offset
    next_offset += world.append_consumer_offset_commit(buffer, next_offset, consumer_offset_commits)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=True)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == 1
    assert group.has_offsets()
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert len(group.all_offsets()) == len(consumer_offset_commits)
    for topic_partition, offset in consumer_offset_commits.items():
        assert _offset_of(group, topic_partition) == offset
        assert _appended_batch_offset(group, topic_partition) == consumer_record_offset


def test_group_load_with_consumer_and_transactional_offset_commits_transaction_wins(world: _World) -> None:
    transactional_offset_commits = {TopicPartition("foo", 0): 23}
    consumer_offset_commits = {TopicPartition("foo", 0): 24}
    buffer = bytearray()
    next_offset = 0
    next_offset += world.append_consumer_offset_commit(buffer, next_offset, consumer_offset_commits)
    next_offset += _append_transactional_offset_commits(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                        transactional_offset_commits)
    next_offset += world.complete_transactional_offset_commit(buffer, PRODUCER_ID, PRODUCER_EPOCH, next_offset,
                                                              is_commit=True)
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, 0, MemoryRecords(buffer))

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == 1
    assert group.has_offsets()
    assert not group.has_pending_offset_commits_from_producer(PRODUCER_ID)
    assert len(group.all_offsets()) == len(consumer_offset_commits)
    for topic_partition, offset in transactional_offset_commits.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_offsets_with_tombstones(world: _World) -> None:
    start_offset = 15
    tombstone_partition = TopicPartition("foo", 1)
    tombstone = SimpleRecord(None, offset_commit_key(GROUP_ID, tombstone_partition))
    records = _with_records(start_offset, _create_committed_offset_records(COMMITTED_OFFSETS) + [tombstone])
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS) - 1
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        if topic_partition == tombstone_partition:
            assert group.offset(topic_partition) is None
        else:
            assert _offset_of(group, topic_partition) == offset


def test_load_offsets_and_group(world: _World) -> None:
    generation = 935
    protocol_type = "consumer"
    protocol = "range"
    start_offset = 15
    member_id = "98098230493"
    group_metadata_record = _build_stable_group_record_with_member(generation, protocol_type, protocol, member_id)
    records = _with_records(start_offset, _create_committed_offset_records(COMMITTED_OFFSETS)
                            + [group_metadata_record])
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Stable
    assert group.leader_or_null == member_id
    assert group.generation_id == generation
    assert group.protocol_type == protocol_type
    assert group.protocol_or_null == protocol
    assert group.all_members() == {member_id}
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_group_with_tombstone(world: _World) -> None:
    start_offset = 15
    member_id = "98098230493"
    group_metadata_record = _build_stable_group_record_with_member(15, "consumer", "range", member_id)
    group_metadata_tombstone = SimpleRecord(None, group_metadata_key(GROUP_ID))
    records = _with_records(start_offset, [group_metadata_record, group_metadata_tombstone])
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    assert world.group_metadata_manager.get_group(GROUP_ID) is None


def test_offset_write_after_group_removed(world: _World) -> None:
    # the group existed, was removed (all members left), then a simple consumer commits offsets under its id
    generation = 293
    start_offset = 15
    member_id = "98098230493"
    group_metadata_record = _build_stable_group_record_with_member(generation, "consumer", "range", member_id)
    group_metadata_tombstone = SimpleRecord(None, group_metadata_key(GROUP_ID))
    records = _with_records(start_offset, [group_metadata_record, group_metadata_tombstone]
                            + _create_committed_offset_records(COMMITTED_OFFSETS))
    world.expect_group_metadata_load(GROUP_TOPIC_PARTITION, start_offset, records)

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Empty
    assert len(group.all_offsets()) == len(COMMITTED_OFFSETS)
    for topic_partition, offset in COMMITTED_OFFSETS.items():
        assert _offset_of(group, topic_partition) == offset


def test_load_group_and_offsets_from_different_segments(world: _World) -> None:
    generation = 293
    protocol_type = "consumer"
    protocol = "range"
    start_offset = 15
    tp0, tp1, tp2, tp3 = (TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0),
                          TopicPartition("xxx", 0))
    log = _LogStandIn()
    world.replica_manager.logs[GROUP_TOPIC_PARTITION] = log

    segment1_member_id = "a"
    segment1_offsets = {tp0: 23, tp1: 455, tp3: 42}
    segment1_records = _with_records(start_offset, _create_committed_offset_records(segment1_offsets) + [
        _build_stable_group_record_with_member(generation, protocol_type, protocol, segment1_member_id)])
    segment1_end = _expect_log_read(log, start_offset, segment1_records)

    segment2_member_id = "b"
    segment2_offsets = {tp0: 33, tp2: 8992, tp3: 10}
    segment2_records = _with_records(segment1_end, _create_committed_offset_records(segment2_offsets) + [
        _build_stable_group_record_with_member(generation, protocol_type, protocol, segment2_member_id)])
    segment2_end = _expect_log_read(log, segment1_end, segment2_records)

    world.replica_manager.log_end_offsets[GROUP_TOPIC_PARTITION] = segment2_end

    world.load()

    group = world.loaded_group()
    assert group.group_id == GROUP_ID
    assert group.current_state == Stable
    assert group.leader_or_null == segment2_member_id, "segment2 group record member should be elected"
    assert group.all_members() == {segment2_member_id}, "segment2 group record member should be only member"

    # segment2's offsets override segment1's for the same partitions
    committed_offsets = {**segment1_offsets, **segment2_offsets}
    assert len(group.all_offsets()) == len(committed_offsets)
    for topic_partition, offset in committed_offsets.items():
        assert _offset_of(group, topic_partition) == offset


# -- storing groups ---------------------------------------------------------------------------------------------

def test_add_group(world: _World) -> None:
    group = GroupMetadata("foo", initial_state=Empty)
    assert world.group_metadata_manager.add_group(group) is group
    assert world.group_metadata_manager.add_group(GroupMetadata("foo", initial_state=Empty)) is group


def test_store_empty_group(world: _World) -> None:
    generation = 27
    protocol_type = "consumer"
    group = GroupMetadata.load_group(GROUP_ID, Empty, generation, protocol_type, None, None, [])
    world.group_metadata_manager.add_group(group)
    captured_records = world.expect_append_message(Errors.NONE)
    maybe_error = _Errors()

    world.group_metadata_manager.store_group(group, {}, maybe_error)

    assert maybe_error.value == Errors.NONE
    assert captured_records.has_captured
    assert captured_records.records is not None
    records = _records_of(MemoryRecords(captured_records.records[
        TopicPartition(GROUP_METADATA_TOPIC_NAME, GROUP_PARTITION_ID)]))
    assert len(records) == 1
    group_metadata = read_group_message_value(GROUP_ID, records[0].value)
    assert group_metadata is not None
    assert group_metadata.is_(Empty)
    assert group_metadata.generation_id == generation
    assert group_metadata.protocol_type == protocol_type


def test_store_empty_simple_group(world: _World) -> None:
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    captured_records = world.expect_append_message(Errors.NONE)
    maybe_error = _Errors()

    world.group_metadata_manager.store_group(group, {}, maybe_error)

    assert maybe_error.value == Errors.NONE
    assert captured_records.has_captured
    assert captured_records.records is not None
    records = _records_of(MemoryRecords(captured_records.records[
        TopicPartition(GROUP_METADATA_TOPIC_NAME, GROUP_PARTITION_ID)]))
    assert len(records) == 1
    group_metadata = read_group_message_value(GROUP_ID, records[0].value)
    assert group_metadata is not None
    assert group_metadata.is_(Empty)
    assert group_metadata.generation_id == 0
    assert group_metadata.protocol_type is None


@pytest.mark.parametrize(("append_error", "expected_error"), [
    (Errors.NONE, Errors.NONE),
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR),  # 1.0.2's NOT_LEADER_FOR_PARTITION (code 6)
    (Errors.MESSAGE_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.RECORD_LIST_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.INVALID_FETCH_SIZE, Errors.UNKNOWN_SERVER_ERROR),
    (Errors.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE),
])
def test_store_group_error_mapping(world: _World, append_error: Errors, expected_error: Errors) -> None:
    world.replica_manager.reset()
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    world.expect_append_message(append_error)
    maybe_error = _Errors()

    world.group_metadata_manager.store_group(group, {}, maybe_error)

    assert maybe_error.value == expected_error
    world.replica_manager.verify()


def test_store_non_empty_group(world: _World) -> None:
    member_id = "memberId"
    group = _new_active_group(member_id)
    world.group_metadata_manager.add_group(group)
    world.expect_append_message(Errors.NONE)
    maybe_error = _Errors()

    world.group_metadata_manager.store_group(group, {member_id: b""}, maybe_error)

    assert maybe_error.value == Errors.NONE
    world.replica_manager.verify()


def test_store_non_empty_group_when_coordinator_has_moved(world: _World) -> None:
    world.replica_manager.magic = None
    member_id = "memberId"
    group = _new_active_group(member_id)
    maybe_error = _Errors()

    world.group_metadata_manager.store_group(group, {member_id: b""}, maybe_error)

    assert maybe_error.value == Errors.NOT_COORDINATOR
    world.replica_manager.verify()
    assert ("getMagic", GROUP_TOPIC_PARTITION) in world.replica_manager.calls
    assert not [call for call in world.replica_manager.calls if call[0] == "appendRecords"]


# -- storing offsets --------------------------------------------------------------------------------------------

def test_commit_offset(world: _World) -> None:
    member_id = ""
    topic_partition = TopicPartition("foo", 0)
    offset = 37
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    offsets = {topic_partition: OffsetAndMetadata(offset)}
    world.expect_append_message(Errors.NONE)
    commit_errors = _Errors()

    world.group_metadata_manager.store_offsets(group, member_id, offsets, commit_errors)
    assert group.has_offsets()

    assert commit_errors.value is not None
    assert commit_errors.value.get(topic_partition) == Errors.NONE
    assert group.has_offsets()

    cached_offsets = world.group_metadata_manager.get_offsets(GROUP_ID, [topic_partition])
    partition_response = cached_offsets.get(topic_partition)
    assert partition_response is not None
    assert partition_response.error == Errors.NONE
    assert partition_response.offset == offset
    world.replica_manager.verify()


def _store_transactional_commit(world: _World) -> tuple[GroupMetadata, _AppendExpectation, TopicPartition, int]:
    """The first half of the three testTransactionalCommitOffset* cases."""
    member_id = ""
    topic_partition = TopicPartition("foo", 0)
    offset = 37
    producer_id = 232
    producer_epoch = 0
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    offsets = {topic_partition: OffsetAndMetadata(offset)}
    captured_response_callback = world.append_and_capture_callback()
    commit_errors = _Errors()

    world.group_metadata_manager.store_offsets(group, member_id, offsets, commit_errors, producer_id, producer_epoch)
    assert group.has_offsets()
    assert not group.all_offsets()
    return group, captured_response_callback, topic_partition, producer_id


def _answer(expectation: _AppendExpectation, error: Errors) -> None:
    """capturedResponseCallback.getValue.apply(Map(groupTopicPartition -> new PartitionResponse(error, 0, ...)))."""
    assert expectation.callback is not None
    expectation.callback({GROUP_TOPIC_PARTITION: PartitionResponse(error, 0, NO_TIMESTAMP, 0)})


def test_transactional_commit_offset_committed(world: _World) -> None:
    group, captured_response_callback, topic_partition, producer_id = _store_transactional_commit(world)
    _answer(captured_response_callback, Errors.NONE)

    assert group.has_offsets()
    assert not group.all_offsets()

    group.complete_pending_txn_offset_commit(producer_id, is_commit=True)
    assert group.has_offsets()
    assert group.all_offsets()
    assert group.offset(topic_partition) == OffsetAndMetadata(37)
    world.replica_manager.verify()


def test_transactional_commit_offset_append_failure(world: _World) -> None:
    group, captured_response_callback, _, producer_id = _store_transactional_commit(world)
    _answer(captured_response_callback, Errors.NOT_ENOUGH_REPLICAS)

    assert not group.has_offsets()
    assert not group.all_offsets()

    group.complete_pending_txn_offset_commit(producer_id, is_commit=False)
    assert not group.has_offsets()
    assert not group.all_offsets()
    world.replica_manager.verify()


def test_transactional_commit_offset_aborted(world: _World) -> None:
    group, captured_response_callback, _, producer_id = _store_transactional_commit(world)
    _answer(captured_response_callback, Errors.NONE)

    assert group.has_offsets()
    assert not group.all_offsets()

    group.complete_pending_txn_offset_commit(producer_id, is_commit=False)
    assert not group.has_offsets()
    assert not group.all_offsets()
    world.replica_manager.verify()


def test_commit_offset_when_coordinator_has_moved(world: _World) -> None:
    world.replica_manager.magic = None
    member_id = ""
    topic_partition = TopicPartition("foo", 0)
    offset = 37
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    offsets = {topic_partition: OffsetAndMetadata(offset)}
    commit_errors = _Errors()

    world.group_metadata_manager.store_offsets(group, member_id, offsets, commit_errors)

    assert commit_errors.value is not None
    assert commit_errors.value.get(topic_partition) == Errors.NOT_COORDINATOR
    world.replica_manager.verify()


@pytest.mark.parametrize(("append_error", "expected_error"), [
    (Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND, Errors.COORDINATOR_NOT_AVAILABLE),
    (Errors.NOT_LEADER_OR_FOLLOWER, Errors.NOT_COORDINATOR),  # 1.0.2's NOT_LEADER_FOR_PARTITION (code 6)
    (Errors.MESSAGE_TOO_LARGE, Errors.INVALID_COMMIT_OFFSET_SIZE),
    (Errors.RECORD_LIST_TOO_LARGE, Errors.INVALID_COMMIT_OFFSET_SIZE),
    (Errors.INVALID_FETCH_SIZE, Errors.INVALID_COMMIT_OFFSET_SIZE),
    (Errors.CORRUPT_MESSAGE, Errors.CORRUPT_MESSAGE),
])
def test_commit_offset_failure(world: _World, append_error: Errors, expected_error: Errors) -> None:
    world.replica_manager.reset()
    member_id = ""
    topic_partition = TopicPartition("foo", 0)
    offset = 37
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    offsets = {topic_partition: OffsetAndMetadata(offset)}
    captured_response_callback = world.append_and_capture_callback()
    commit_errors = _Errors()

    world.group_metadata_manager.store_offsets(group, member_id, offsets, commit_errors)
    assert group.has_offsets()
    _answer(captured_response_callback, append_error)

    assert commit_errors.value is not None
    assert commit_errors.value.get(topic_partition) == expected_error
    assert not group.has_offsets()
    assert _cached_offset(world, [topic_partition], topic_partition) == INVALID_OFFSET
    world.replica_manager.verify()


# -- expiration -------------------------------------------------------------------------------------------------

def _commit_two_expiring_offsets(world: _World, group: GroupMetadata, member_id: str,
                                 topic_partition1: TopicPartition, topic_partition2: TopicPartition,
                                 offset: int) -> None:
    """Offsets expiring 1 and 3 ms from now, committed."""
    start_ms = world.time.milliseconds()
    offsets = {topic_partition1: OffsetAndMetadata(offset, "", start_ms, start_ms + 1),
               topic_partition2: OffsetAndMetadata(offset, "", start_ms, start_ms + 3)}
    world.mock_get_partition()
    world.expect_append_message(Errors.NONE)
    commit_errors = _Errors()

    world.group_metadata_manager.store_offsets(group, member_id, offsets, commit_errors)
    assert group.has_offsets()

    assert commit_errors.value is not None
    assert commit_errors.value.get(topic_partition1) == Errors.NONE


def test_expire_offset(world: _World) -> None:
    topic_partition1 = TopicPartition("foo", 0)
    topic_partition2 = TopicPartition("foo", 1)
    offset = 37
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    _commit_two_expiring_offsets(world, group, "", topic_partition1, topic_partition2, offset)

    # expire only one of the offsets
    world.time.sleep(2)
    world.partition.reset()

    world.group_metadata_manager.cleanup_group_metadata()

    assert world.group_metadata_manager.get_group(GROUP_ID) is group
    assert group.offset(topic_partition1) is None
    assert _offset_of(group, topic_partition2) == offset
    both = [topic_partition1, topic_partition2]
    assert _cached_offset(world, both, topic_partition1) == INVALID_OFFSET
    assert _cached_offset(world, both, topic_partition2) == offset
    world.replica_manager.verify()


def _check_group_metadata_removal(world: _World) -> None:
    topic_partition1 = TopicPartition("foo", 0)
    topic_partition2 = TopicPartition("foo", 1)
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    group.generation_id = 5

    # the group metadata tombstone is expected
    world.partition.reset()
    world.replica_manager.magic = MAGIC_VALUE_V2
    world.mock_get_partition()

    world.group_metadata_manager.cleanup_group_metadata()

    assert world.partition.has_captured
    captured = world.partition.captured
    for batch in captured.batches():
        assert batch.magic == MAGIC_VALUE_V2
        # CREATE_TIME, as the producer writes; a LOG_APPEND_TIME topic converts it on append
        assert batch.timestamp_type == TimestampType.CREATE_TIME
    records = _records_of(captured)
    assert len(records) == 1

    metadata_tombstone = records[0]
    assert metadata_tombstone.has_key()
    assert metadata_tombstone.value is None
    assert metadata_tombstone.timestamp > 0

    group_key = read_message_key(metadata_tombstone.key)
    assert isinstance(group_key, GroupMetadataKey)
    assert group_key.key == GROUP_ID

    # all offsets are gone, so is the group
    assert world.group_metadata_manager.get_group(GROUP_ID) is None
    both = [topic_partition1, topic_partition2]
    assert _cached_offset(world, both, topic_partition1) == INVALID_OFFSET
    assert _cached_offset(world, both, topic_partition2) == INVALID_OFFSET


def test_group_metadata_removal(world: _World) -> None:
    _check_group_metadata_removal(world)


def test_group_metadata_removal_with_log_append_time(world: _World) -> None:
    _check_group_metadata_removal(world)


def test_expire_group_with_offsets_only(world: _World) -> None:
    # the group goes, but without a group tombstone: it only ever stored offsets
    topic_partition1 = TopicPartition("foo", 0)
    topic_partition2 = TopicPartition("foo", 1)
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    _commit_two_expiring_offsets(world, group, "", topic_partition1, topic_partition2, 37)

    # expire all of the offsets
    world.time.sleep(4)
    world.partition.reset()

    world.group_metadata_manager.cleanup_group_metadata()

    assert world.partition.has_captured
    # tombstones for the expired offsets only
    records = _records_of(world.partition.captured)
    assert len(records) == 2
    for message in records:
        assert message.has_key()
        assert message.value is None
        offset_key = read_message_key(message.key)
        assert isinstance(offset_key, OffsetKey)
        assert offset_key.key.group == GROUP_ID
        assert offset_key.key.topic_partition.topic == "foo"

    assert world.group_metadata_manager.get_group(GROUP_ID) is None
    both = [topic_partition1, topic_partition2]
    assert _cached_offset(world, both, topic_partition1) == INVALID_OFFSET
    assert _cached_offset(world, both, topic_partition2) == INVALID_OFFSET
    world.replica_manager.verify()


def test_expire_offsets_with_active_group(world: _World) -> None:
    member_id = "memberId"
    topic_partition1 = TopicPartition("foo", 0)
    topic_partition2 = TopicPartition("foo", 1)
    world.group_metadata_manager.add_partition_ownership(GROUP_PARTITION_ID)
    group = GroupMetadata(GROUP_ID, initial_state=Empty)
    world.group_metadata_manager.add_group(group)
    member = MemberMetadata(member_id, GROUP_ID, "clientId", "localhost", REBALANCE_TIMEOUT, SESSION_TIMEOUT,
                            PROTOCOL_TYPE, [("protocol", b"")])
    member.awaiting_join_callback = lambda _: None
    group.add(member)
    group.transition_to(PreparingRebalance)
    group.init_next_generation()
    _commit_two_expiring_offsets(world, group, member_id, topic_partition1, topic_partition2, 37)

    # expire all of the offsets
    world.time.sleep(4)
    world.partition.reset()

    world.group_metadata_manager.cleanup_group_metadata()

    # the group stays, its offsets go
    assert world.group_metadata_manager.get_group(GROUP_ID) is group
    assert group.offset(topic_partition1) is None
    assert group.offset(topic_partition2) is None
    both = [topic_partition1, topic_partition2]
    assert _cached_offset(world, both, topic_partition1) == INVALID_OFFSET
    assert _cached_offset(world, both, topic_partition2) == INVALID_OFFSET
    world.replica_manager.verify()
