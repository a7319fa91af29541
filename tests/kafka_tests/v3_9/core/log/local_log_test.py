"""Port of core/src/test/scala/unit/kafka/log/LocalLogTest.scala (Kafka 3.9).

Java's ClosedChannelException is an OSError here (a write to a closed file handle). testFlushingNonExistentDir
replaces the log's dir() on the instance where Kafka uses a Mockito spy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalStateException, KafkaException, KafkaStorageException
from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.topic_partition import TopicPartition
from kafka_edu.v3_9.core.log import local_log
from kafka_edu.v3_9.core.log.local_log import LocalLog, LogTruncation, SegmentDeletionReason
from kafka_edu.v3_9.server_common.server.util.mock_time import MockTime
from kafka_edu.v3_9.storage.storage.internals.log import log_file_utils
from kafka_edu.v3_9.storage.storage.internals.log.fetch_data_info import FetchDataInfo
from kafka_edu.v3_9.storage.storage.internals.log.log_config import LogConfig
from kafka_edu.v3_9.storage.storage.internals.log.log_dir_failure_channel import LogDirFailureChannel
from kafka_edu.v3_9.storage.storage.internals.log.log_offset_metadata import LogOffsetMetadata
from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment
from kafka_edu.v3_9.storage.storage.internals.log.log_segments import LogSegments
from tests.kafka_tests.referee import kafka_test_class
from tests.kafka_tests.v3_9.core.log.log_test_utils import create_log_config

KAFKA = kafka_test_class(
    "3.9", "core/src/test/scala/unit/kafka/log/LocalLogTest.scala",
    cases=[
        "testLogDeleteSegmentsSuccess",
        "testRollEmptyActiveSegment",
        "testLogDeleteDirSuccessWhenEmptyAndFailureWhenNonEmpty",
        "testUpdateConfig",
        "testLogDirRenameToNewDir",
        "testLogDirRenameToExistingDir",
        "testLogFlush",
        "testLogAppend",
        "testLogCloseSuccess",
        "testLogCloseIdempotent",
        "testLogCloseFailureWhenInMemoryBufferClosed",
        "testLogCloseHandlers",
        "testLogCloseHandlersIdempotent",
        "testRemoveAndDeleteSegmentsSync",
        "testRemoveAndDeleteSegmentsAsync",
        "testDeleteSegmentFilesSync",
        "testDeleteSegmentFilesAsync",
        "testCreateAndDeleteSegment",
        "testTruncateFullyAndStartAt",
        "testWhenFetchOffsetHigherThanMaxOffset",
        "testTruncateTo",
        "testNonActiveSegmentsFrom",
        "testParseTopicPartitionName",
        "testParseTopicPartitionNameWithPeriodForDeletedTopic",
        "testParseTopicPartitionNameForEmptyName",
        "testParseTopicPartitionNameForNull",
        "testParseTopicPartitionNameForMissingSeparator",
        "testParseTopicPartitionNameForMissingTopic",
        "testParseTopicPartitionNameForMissingPartition",
        "testParseTopicPartitionNameForInvalidPartition",
        "testParseTopicPartitionNameForExistingInvalidDir",
        "testLogDeleteDirName",
        "testOffsetFromFile",
        "testRollSegmentThatAlreadyExists",
        "testNewSegmentsAfterRoll",
        "testRollSegmentErrorWhenNextOffsetIsIllegal",
        "testFlushingNonExistentDir",
    ],
)

TOPIC_PARTITION = TopicPartition("test_topic", 1)


def _random_partition_log_dir(parent_dir: Path) -> Path:
    """TestUtils.randomPartitionLogDir: a new directory named like a partition's, under `parent_dir`."""
    import random
    for _ in range(100):
        d = parent_dir / f"kafka-{random.randrange(1_000_000)}"
        try:
            d.mkdir()
            return d
        except FileExistsError:
            continue
    raise OSError("Failed to create a random partition log dir")


class _Fixture:
    """LocalLogTest's fields: a temp dir, a log dir in it, a MockTime and a log with one empty active segment."""

    def __init__(self, tmp_dir: Path) -> None:
        self.tmp_dir = tmp_dir
        self.log_dir = _random_partition_log_dir(tmp_dir)
        self.topic_partition = TOPIC_PARTITION
        self.log_dir_failure_channel = LogDirFailureChannel(10)
        self.mock_time = MockTime()
        self.log = self.create_local_log_with_active_segment(config=create_log_config())

    def create_local_log_with_active_segment(self, config: LogConfig, dir: Path | None = None,
                                             segments: LogSegments | None = None, recovery_point: int = 0,
                                             next_offset_metadata: LogOffsetMetadata | None = None) -> LocalLog:
        dir = self.log_dir if dir is None else dir
        segments = LogSegments(self.topic_partition) if segments is None else segments
        segments.add(LogSegment.open(dir, 0, config, self.mock_time, init_file_size=config.init_file_size(),
                                     preallocate=config.preallocate))
        return LocalLog(dir, config, segments, recovery_point,
                        next_offset_metadata if next_offset_metadata is not None else LogOffsetMetadata(0, 0, 0),
                        self.mock_time.scheduler, self.mock_time, self.topic_partition, self.log_dir_failure_channel)

    def append_records(self, records: Sequence[SimpleRecord], log: LocalLog | None = None,
                       initial_offset: int = 0) -> None:
        log = self.log if log is None else log
        log.append(initial_offset + len(records) - 1, records[0].timestamp(), initial_offset,
                   MemoryRecords.with_records(Compression.NONE, *records, initial_offset=initial_offset,
                                              partition_leader_epoch=0))

    def read_records(self, start_offset: int = 0, max_length: int | None = None, min_one_message: bool = False,
                     max_offset_metadata: LogOffsetMetadata | None = None,
                     include_aborted_txns: bool = False) -> FetchDataInfo:
        log = self.log
        if max_length is None:
            max_length = log.segments.active_segment().size()
        if max_offset_metadata is None:
            max_offset_metadata = log.log_end_offset_metadata()
        return log.read(start_offset, max_length, min_one_message, max_offset_metadata, include_aborted_txns)

    def record(self) -> SimpleRecord:
        return SimpleRecord(b"a", timestamp=self.mock_time.milliseconds())


@pytest.fixture
def f(tmp_path: Path) -> Iterator[_Fixture]:
    fixture = _Fixture(tmp_path)
    yield fixture
    try:
        fixture.log.close()
    except KafkaStorageException:
        pass


@dataclass(frozen=True)
class KeyValue:
    key: str
    value: str

    def to_record(self, timestamp: int) -> SimpleRecord:
        return SimpleRecord(self.value.encode(), self.key.encode(), timestamp)

    @staticmethod
    def from_record(record: object) -> KeyValue:
        key = bytes(record.key()).decode() if record.has_key() else ""  # type: ignore[attr-defined]
        value = bytes(record.value()).decode() if record.has_value() else ""  # type: ignore[attr-defined]
        return KeyValue(key, value)


def _kvs_to_records(f: _Fixture, key_values: Iterable[KeyValue]) -> list[SimpleRecord]:
    return [kv.to_record(f.mock_time.milliseconds()) for kv in key_values]


def _records_to_kvs(records: Iterable[object]) -> list[KeyValue]:
    return [KeyValue.from_record(r) for r in records]


def _records(fetch_data_info: FetchDataInfo) -> list[object]:
    return list(fetch_data_info.records.records())


def test_log_delete_segments_success(f: _Fixture) -> None:
    f.append_records([f.record()])
    f.log.roll()
    assert f.log.segments.number_of_segments() == 2
    assert any(f.log_dir.iterdir())
    segments_before_delete = list(f.log.segments.values())
    deleted_segments = f.log.delete_all_segments()
    assert f.log.segments.is_empty()
    assert deleted_segments == segments_before_delete
    with pytest.raises(KafkaStorageException):
        f.log.check_if_memory_mapped_buffer_closed()
    assert f.log_dir.exists()


def test_roll_empty_active_segment(f: _Fixture) -> None:
    old_active_segment = f.log.segments.active_segment()
    f.log.roll()
    assert f.log.segments.number_of_segments() == 1
    assert f.log.segments.active_segment() is not old_active_segment
    assert any(f.log_dir.iterdir())
    assert old_active_segment.has_suffix(local_log.DELETED_FILE_SUFFIX)


def test_log_delete_dir_success_when_empty_and_failure_when_non_empty(f: _Fixture) -> None:
    f.append_records([f.record()])
    f.log.roll()
    assert f.log.segments.number_of_segments() == 2
    assert any(f.log_dir.iterdir())

    with pytest.raises(IllegalStateException):
        f.log.delete_empty_dir()
    assert f.log_dir.exists()

    f.log.delete_all_segments()
    f.log.delete_empty_dir()
    assert not f.log_dir.exists()


def test_update_config(f: _Fixture) -> None:
    old_config = f.log.config
    assert f.log.config == old_config

    new_config = create_log_config(segment_bytes=old_config.segment_size + 1)
    f.log.update_config(new_config)
    assert f.log.config == new_config


def test_log_dir_rename_to_new_dir(f: _Fixture) -> None:
    f.append_records([f.record()])
    f.log.roll()
    assert f.log.segments.number_of_segments() == 2
    new_log_dir = _random_partition_log_dir(f.tmp_dir)
    assert f.log.rename_dir(new_log_dir.name)
    assert not f.log_dir.exists()
    assert new_log_dir.exists()
    assert f.log.dir() == new_log_dir
    assert f.log.parent_dir() == str(new_log_dir.parent)
    assert str(f.log.dir().parent) == str(new_log_dir.parent)
    for segment in f.log.segments.values():
        assert str(segment.log().file().parent) == str(new_log_dir)
    assert f.log.segments.number_of_segments() == 2


def test_log_dir_rename_to_existing_dir(f: _Fixture) -> None:
    assert not f.log.rename_dir(f.log.dir().name)


def test_log_flush(f: _Fixture) -> None:
    assert f.log.recovery_point == 0
    assert f.log.last_flush_time() == f.mock_time.milliseconds()

    f.append_records([f.record()])
    f.mock_time.sleep(1)
    new_segment = f.log.roll()
    f.log.flush(new_segment.base_offset())
    f.log.mark_flushed(new_segment.base_offset())
    assert f.log.recovery_point == 1
    assert f.log.last_flush_time() == f.mock_time.milliseconds()


def test_log_append(f: _Fixture) -> None:
    fetch_data_info_before_append = f.read_records(max_length=1)
    assert not _records(fetch_data_info_before_append)

    f.mock_time.sleep(1)
    key_values = [KeyValue("abc", "ABC"), KeyValue("de", "DE")]
    f.append_records(_kvs_to_records(f, key_values))
    assert f.log.log_end_offset() == 2
    assert f.log.recovery_point == 0
    fetch_data_info = f.read_records()
    assert len(_records(fetch_data_info)) == 2
    assert _records_to_kvs(_records(fetch_data_info)) == key_values


def test_log_close_success(f: _Fixture) -> None:
    key_values = [KeyValue("abc", "ABC"), KeyValue("de", "DE")]
    f.append_records(_kvs_to_records(f, key_values))
    f.log.close()
    with pytest.raises(OSError):  # ClosedChannelException
        f.append_records(_kvs_to_records(f, key_values), initial_offset=2)


def test_log_close_idempotent(f: _Fixture) -> None:
    f.log.close()
    # a second close is harmless
    f.log.close()


def test_log_close_failure_when_in_memory_buffer_closed(f: _Fixture) -> None:
    key_values = [KeyValue("abc", "ABC"), KeyValue("de", "DE")]
    f.append_records(_kvs_to_records(f, key_values))
    f.log.close_handlers()
    with pytest.raises(KafkaStorageException):
        f.log.close()


def test_log_close_handlers(f: _Fixture) -> None:
    key_values = [KeyValue("abc", "ABC"), KeyValue("de", "DE")]
    f.append_records(_kvs_to_records(f, key_values))
    f.log.close_handlers()
    with pytest.raises(OSError):  # ClosedChannelException
        f.append_records(_kvs_to_records(f, key_values), initial_offset=2)


def test_log_close_handlers_idempotent(f: _Fixture) -> None:
    f.log.close_handlers()
    # a second close_handlers is harmless
    f.log.close_handlers()


def _test_remove_and_delete_segments(f: _Fixture, async_delete: bool) -> None:
    for offset in range(9):
        f.append_records([f.record()], initial_offset=offset)
        f.log.roll()

    assert f.log.segments.number_of_segments() == 10

    class TestDeletionReason(SegmentDeletionReason):
        def __init__(self) -> None:
            self.deleted_segments: list[LogSegment] = []

        def log_reason(self, to_delete: list[LogSegment]) -> None:
            self.deleted_segments = list(to_delete)

    reason = TestDeletionReason()
    to_delete = list(f.log.segments.values())
    f.log.remove_and_delete_segments(to_delete, async_delete, reason)
    if async_delete:
        f.mock_time.sleep(f.log.config.file_delete_delay_ms + 1)
    assert f.log.segments.is_empty()
    assert reason.deleted_segments == to_delete
    for segment in to_delete:
        assert segment.deleted()


def test_remove_and_delete_segments_sync(f: _Fixture) -> None:
    _test_remove_and_delete_segments(f, async_delete=False)


def test_remove_and_delete_segments_async(f: _Fixture) -> None:
    _test_remove_and_delete_segments(f, async_delete=True)


def _test_delete_segment_files(f: _Fixture, async_delete: bool) -> None:
    for offset in range(9):
        f.append_records([f.record()], initial_offset=offset)
        f.log.roll()

    assert f.log.segments.number_of_segments() == 10

    to_delete = list(f.log.segments.values())
    local_log.delete_segment_files(to_delete, async_delete, f.log.dir(), f.log.topic_partition, f.log.config,
                                   f.log.scheduler, f.log.log_dir_failure_channel, "")
    if async_delete:
        for segment in to_delete:
            assert not segment.deleted()
            assert segment.has_suffix(local_log.DELETED_FILE_SUFFIX)
        f.mock_time.sleep(f.log.config.file_delete_delay_ms + 1)
    for segment in to_delete:
        assert segment.deleted()


def test_delete_segment_files_sync(f: _Fixture) -> None:
    _test_delete_segment_files(f, async_delete=False)


def test_delete_segment_files_async(f: _Fixture) -> None:
    _test_delete_segment_files(f, async_delete=True)


def test_create_and_delete_segment(f: _Fixture) -> None:
    f.append_records([f.record()])
    new_offset = f.log.segments.active_segment().base_offset() + 1
    old_active_segment = f.log.segments.active_segment()
    new_active_segment = f.log.create_and_delete_segment(new_offset, f.log.segments.active_segment(), True,
                                                         LogTruncation(f.log))
    assert f.log.segments.number_of_segments() == 1
    assert f.log.segments.active_segment() is new_active_segment
    assert f.log.segments.active_segment() is not old_active_segment
    assert old_active_segment.has_suffix(local_log.DELETED_FILE_SUFFIX)
    assert f.log.segments.active_segment().base_offset() == new_offset
    assert f.log.recovery_point == 0
    assert f.log.log_end_offset() == new_offset
    fetch_data_info = f.read_records(start_offset=new_offset)
    assert not _records(fetch_data_info)


def test_truncate_fully_and_start_at(f: _Fixture) -> None:
    record = f.record()
    for offset in range(8):
        f.append_records([record], initial_offset=offset)
        if offset % 2 != 0:
            f.log.roll()
    for offset in range(8, 13):
        f.append_records([f.record()], initial_offset=offset)
    assert f.log.segments.number_of_segments() == 5
    assert f.log.segments.active_segment().base_offset() != 10
    expected = list(f.log.segments.values())
    deleted = f.log.truncate_fully_and_start_at(10)
    assert deleted == expected
    assert f.log.segments.number_of_segments() == 1
    assert f.log.segments.active_segment().base_offset() == 10
    assert f.log.recovery_point == 0
    assert f.log.log_end_offset() == 10
    fetch_data_info = f.read_records(start_offset=10)
    assert not _records(fetch_data_info)


def test_when_fetch_offset_higher_than_max_offset(f: _Fixture) -> None:
    record = f.record()
    for offset in range(5):
        f.append_records([record], initial_offset=offset)
        if offset % 2 != 0:
            f.log.roll()
    assert f.log.segments.number_of_segments() == 3

    # case-0: start offset below the max offset: a normal read
    fetch_data_info = f.read_records(start_offset=3, max_offset_metadata=LogOffsetMetadata(4, 4, 0))
    assert len(_records(fetch_data_info)) == 1
    assert fetch_data_info.fetch_offset_metadata == LogOffsetMetadata(3, 2, 69)

    # case-1: start offset at the max offset
    fetch_data_info = f.read_records(start_offset=4, max_offset_metadata=LogOffsetMetadata(4, 4, 0))
    assert not _records(fetch_data_info)
    assert fetch_data_info.fetch_offset_metadata == LogOffsetMetadata(4, 4, 0)

    # case-2: start offset above the max offset
    fetch_data_info = f.read_records(start_offset=5, max_offset_metadata=LogOffsetMetadata(4, 4, 0))
    assert not _records(fetch_data_info)
    assert fetch_data_info.fetch_offset_metadata == LogOffsetMetadata(5, 4, 69)

    # case-3: start offset below the max offset, whose metadata is message offset only
    fetch_data_info = f.read_records(start_offset=3, max_offset_metadata=LogOffsetMetadata(4, -1, -1))
    assert not _records(fetch_data_info)
    assert fetch_data_info.fetch_offset_metadata == LogOffsetMetadata(3, 2, 69)

    # case-4: start offset below the max offset, whose segment is older than the start offset's
    fetch_data_info = f.read_records(start_offset=3, max_offset_metadata=LogOffsetMetadata(4, 0, 40))
    assert not _records(fetch_data_info)
    assert fetch_data_info.fetch_offset_metadata == LogOffsetMetadata(3, 2, 69)


def test_truncate_to(f: _Fixture) -> None:
    for offset in range(12):
        f.append_records([f.record()], initial_offset=offset)
        if offset % 3 == 2:
            f.log.roll()
    assert f.log.segments.number_of_segments() == 5
    assert f.log.log_end_offset() == 12

    expected = list(f.log.segments.values(9, f.log.log_end_offset() + 1))
    # truncate below the active segment's base offset
    deleted = f.log.truncate_to(7)
    assert list(deleted) == expected
    assert f.log.segments.number_of_segments() == 3
    assert f.log.segments.active_segment().base_offset() == 6
    assert f.log.recovery_point == 0
    assert f.log.log_end_offset() == 7
    fetch_data_info = f.read_records(start_offset=6)
    assert len(_records(fetch_data_info)) == 1
    assert _records_to_kvs(_records(fetch_data_info)) == [KeyValue("", "a")]

    # the active segment still takes appends
    f.append_records([f.record()], initial_offset=7)
    assert f.log.log_end_offset() == 8


def test_non_active_segments_from(f: _Fixture) -> None:
    for i in range(5):
        key_values = [KeyValue(str(i), str(i))]
        f.append_records(_kvs_to_records(f, key_values), initial_offset=i)
        f.log.roll()

    def non_active_base_offsets_from(start_offset: int) -> list[int]:
        return [s.base_offset() for s in f.log.segments.non_active_log_segments_from(start_offset)]

    assert f.log.segments.active_segment().base_offset() == 5
    assert non_active_base_offsets_from(0) == list(range(5))
    assert non_active_base_offsets_from(5) == []
    assert non_active_base_offsets_from(2) == list(range(2, 5))
    assert non_active_base_offsets_from(6) == []


def _topic_partition_name(topic: str, partition: str) -> str:
    return topic + "-" + partition


def test_parse_topic_partition_name(f: _Fixture) -> None:
    topic = "test_topic"
    partition = "143"
    dir = f.log_dir / _topic_partition_name(topic, partition)
    topic_partition = local_log.parse_topic_partition_name(dir)
    assert topic_partition.topic == topic
    assert topic_partition.partition == int(partition)


def test_parse_topic_partition_name_with_period_for_deleted_topic(f: _Fixture) -> None:
    """KAFKA-5232: a topic with a period in its name, marked for deletion, parses."""
    topic = "foo.bar-testtopic"
    partition = "42"
    dir = f.log_dir / local_log.log_delete_dir_name(TopicPartition(topic, int(partition)))
    topic_partition = local_log.parse_topic_partition_name(dir)
    assert topic_partition.topic == topic, "Unexpected topic name parsed"
    assert topic_partition.partition == int(partition), "Unexpected partition number parsed"


def test_parse_topic_partition_name_for_empty_name(f: _Fixture) -> None:
    dir = Path("")
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir)


def test_parse_topic_partition_name_for_null(f: _Fixture) -> None:
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(None)


def test_parse_topic_partition_name_for_missing_separator(f: _Fixture) -> None:
    topic = "test_topic"
    partition = "1999"
    dir = f.log_dir / (topic + partition)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir)
    # the "-delete" marker too
    delete_marker_dir = f.log_dir / (topic + partition + "." + local_log.DELETE_DIR_SUFFIX)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(delete_marker_dir)


def test_parse_topic_partition_name_for_missing_topic(f: _Fixture) -> None:
    topic = ""
    partition = "1999"
    dir = f.log_dir / _topic_partition_name(topic, partition)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir)

    # the "-delete" marker too
    delete_marker_dir = f.log_dir / local_log.log_delete_dir_name(TopicPartition(topic, int(partition)))
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(delete_marker_dir)


def test_parse_topic_partition_name_for_missing_partition(f: _Fixture) -> None:
    topic = "test_topic"
    partition = ""
    dir = Path(str(f.log_dir) + _topic_partition_name(topic, partition))
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir)

    # the "-delete" marker too
    delete_marker_dir = f.log_dir / (_topic_partition_name(topic, partition) + "." + local_log.DELETE_DIR_SUFFIX)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(delete_marker_dir)


def test_parse_topic_partition_name_for_invalid_partition(f: _Fixture) -> None:
    topic = "test_topic"
    partition = "1999a"
    dir = f.log_dir / _topic_partition_name(topic, partition)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir)

    # the "-delete" marker too
    delete_marker_dir = f.log_dir / (topic + partition + "." + local_log.DELETE_DIR_SUFFIX)
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(delete_marker_dir)


def test_parse_topic_partition_name_for_existing_invalid_dir(f: _Fixture) -> None:
    dir1 = Path(str(f.log_dir) + "/non_kafka_dir")
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir1)
    dir2 = Path(str(f.log_dir) + "/non_kafka_dir-delete")
    with pytest.raises(KafkaException):
        local_log.parse_topic_partition_name(dir2)


def test_log_delete_dir_name(f: _Fixture) -> None:
    name1 = local_log.log_delete_dir_name(TopicPartition("foo", 3))
    assert len(name1) <= 255
    assert re.fullmatch(r"foo-3\.[0-9a-z]{32}-delete", name1)
    assert local_log.DELETE_DIR_PATTERN.fullmatch(name1)
    assert not local_log.FUTURE_DIR_PATTERN.fullmatch(name1)
    name2 = local_log.log_delete_dir_name(TopicPartition("n" + "o" * 248, 5))
    assert len(name2) == 255
    assert re.fullmatch(r"n[o]{212}-5\.[0-9a-z]{32}-delete", name2)
    assert local_log.DELETE_DIR_PATTERN.fullmatch(name2)
    assert not local_log.FUTURE_DIR_PATTERN.fullmatch(name2)


def test_offset_from_file(f: _Fixture) -> None:
    offset = 23423423

    log_file = log_file_utils.log_file(f.tmp_dir, offset)
    assert log_file_utils.offset_from_file(log_file) == offset

    offset_index_file = log_file_utils.offset_index_file(f.tmp_dir, offset)
    assert log_file_utils.offset_from_file(offset_index_file) == offset

    time_index_file = log_file_utils.time_index_file(f.tmp_dir, offset)
    assert log_file_utils.offset_from_file(time_index_file) == offset


def test_roll_segment_that_already_exists(f: _Fixture) -> None:
    assert f.log.segments.number_of_segments() == 1, "Log begins with a single empty segment."

    # rolling an empty active segment at its own base offset recreates it
    f.log.roll(0)
    assert f.log.segments.number_of_segments() == 1, "Expect 1 segment after roll() empty segment with base offset."

    # the recreated segment takes appends
    key_values1 = [KeyValue("k1", "v1")]
    f.append_records(_kvs_to_records(f, key_values1))
    assert f.log.segments.active_segment().base_offset() == 0
    # and more
    key_values2 = [KeyValue("k2", "v2")]
    f.append_records([kv.to_record(f.mock_time.milliseconds() + 10) for kv in key_values2], initial_offset=1)
    assert f.log.log_end_offset() == 2, "Expect two records in the log"
    read_result = f.read_records()
    assert len(_records(read_result)) == 2
    assert _records_to_kvs(_records(read_result)) == key_values1 + key_values2

    # roll so that the active segment is empty
    f.log.roll()
    assert f.log.segments.active_segment().base_offset() == 2, "Expect base offset of active segment to be LEO"
    assert f.log.segments.number_of_segments() == 2, "Expect two segments."
    assert f.log.log_end_offset() == 2


def test_new_segments_after_roll(f: _Fixture) -> None:
    assert f.log.segments.number_of_segments() == 1, "Log begins with a single empty segment."

    # rolling an empty active segment at its own base offset recreates it
    new_segment = f.log.roll()
    assert new_segment.base_offset() == 0
    assert f.log.segments.number_of_segments() == 1
    assert f.log.log_end_offset() == 0

    f.append_records([KeyValue("k1", "v1").to_record(f.mock_time.milliseconds())])

    new_segment = f.log.roll()
    assert new_segment.base_offset() == 1
    assert f.log.segments.number_of_segments() == 2
    assert f.log.log_end_offset() == 1

    f.append_records([KeyValue("k2", "v2").to_record(f.mock_time.milliseconds())], initial_offset=1)

    new_segment = f.log.roll(1)
    assert new_segment.base_offset() == 2
    assert f.log.segments.number_of_segments() == 3
    assert f.log.log_end_offset() == 2


def test_roll_segment_error_when_next_offset_is_illegal(f: _Fixture) -> None:
    assert f.log.segments.number_of_segments() == 1, "Log begins with a single empty segment."

    key_values = [KeyValue("k1", "v1"), KeyValue("k2", "v2"), KeyValue("k3", "v3")]
    f.append_records(_kvs_to_records(f, key_values))
    assert f.log.segments.active_segment().base_offset() == 0
    assert f.log.log_end_offset() == 3, "Expect two records in the log"

    # roll to an empty active segment
    f.log.roll()
    assert f.log.segments.active_segment().base_offset() == 3

    # set the log end offset back on purpose
    f.log.update_log_end_offset(1)

    # rolling to offset 1, below the active segment's base offset 3, fails
    with pytest.raises(KafkaException):
        f.log.roll()


def test_flushing_non_existent_dir(f: _Fixture) -> None:
    spy_log = f.log

    f.append_records([f.record()])
    f.mock_time.sleep(1)
    new_segment = f.log.roll()

    # the directory is renamed concurrently
    spy_log.dir = lambda: Path("__NON_EXISTENT__")  # type: ignore[method-assign]
    spy_log.flush(new_segment.base_offset())
