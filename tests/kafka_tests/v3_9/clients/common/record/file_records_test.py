"""Port of clients/src/test/java/org/apache/kafka/common/record/FileRecordsTest.java (Kafka 3.9).

Differences of form: Kafka's Mockito FileChannel and TransferableChannel mocks are small fakes recording the calls
the cases verify; a temporary file is one under pytest's tmp_path.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException, KafkaException
from kafka_edu.v3_9.clients.common.compress.compression import NONE, Compression
from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords, LogOffsetPosition, TimestampAndOffset
from kafka_edu.v3_9.clients.common.record.lazy_down_conversion_records import LazyDownConversionRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    CURRENT_MAGIC_VALUE,
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_TIMESTAMP,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.record_version import RecordVersion
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from kafka_edu.v3_9.clients.common.utils.mock_time import MockTime
from kafka_edu.v3_9.clients.common.utils.time import SYSTEM
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/FileRecordsTest.java",
    cases=["testAppendProtectsFromOverflow", "testOpenOversizeFile", "testOutOfRangeSlice", "testFileSize",
           "testIterationOverPartialAndTruncation", "testSliceSizeLimitWithConcurrentWrite",
           "testIterationDoesntChangePosition", "testRead", "testSearch", "testIteratorWithLimits", "testTruncate",
           "testTruncateNotCalledIfSizeIsSameAsTargetSize", "testTruncateNotCalledIfSizeIsBiggerThanTargetSize",
           "testTruncateIfSizeIsDifferentToTargetSize", "testPreallocateTrue", "testPreallocateFalse",
           "testPreallocateClearShutdown", "testFormatConversionWithPartialMessage",
           "testFormatConversionWithNoMessages", "testSearchForTimestamp",
           "testDownconversionAfterMessageFormatDowngrade", "testConversion", "testBytesLengthOfWriteTo"],
)

VALUES = [b"abcd", b"efgh", b"ijkl"]
INT_MAX = 2**31 - 1
TP = ("topic-1", 0)


class _ChannelMock:
    """Mockito's FileChannel mock: a fixed size, and the calls made."""

    def __init__(self, size: int) -> None:
        self._size = size
        self.size_calls = 0
        self.truncate_calls: list[int] = []
        self.position_calls: list[int] = []

    def size(self) -> int:
        self.size_calls += 1
        return self._size

    def position(self, new_position: int | None = None) -> int:
        if new_position is not None:
            self.position_calls.append(new_position)
        return 0

    def truncate(self, size: int) -> None:
        self.truncate_calls.append(size)


class _TransferableChannelMock:
    def __init__(self) -> None:
        self.transfer_from_calls: list[tuple[Any, int, int]] = []

    def transfer_from(self, channel: Any, position: int, count: int) -> int:
        self.transfer_from_calls.append((channel, position, count))
        return count


def _temp_file(tmp_path: Path) -> Path:
    """TestUtils.tempFile: a new empty file."""
    fd, name = tempfile.mkstemp(prefix="kafka", suffix=".tmp", dir=tmp_path)
    os.close(fd)
    return Path(name)


def _append(file_records: FileRecords, values: list[bytes]) -> None:
    offset = 0
    for value in values:
        builder = MemoryRecords.builder(128, CURRENT_MAGIC_VALUE, NONE, TimestampType.CREATE_TIME, offset)
        builder.append_with_offset(offset, time.time_ns() // 1_000_000, None, value)
        offset += 1
        file_records.append(builder.build())
    file_records.flush()


def _create_file_records(tmp_path: Path, values: list[bytes]) -> FileRecords:
    file_records = FileRecords.open(_temp_file(tmp_path))
    _append(file_records, values)
    return file_records


def _batches(records: Any) -> list[RecordBatch]:
    return list(records.batches())


@pytest.fixture
def file_records(tmp_path: Path) -> Iterator[FileRecords]:
    records = _create_file_records(tmp_path, VALUES)
    yield records
    records.close()


@pytest.fixture
def mock_time() -> MockTime:
    return MockTime()


def test_append_protects_from_overflow(tmp_path: Path) -> None:
    records = FileRecords(tmp_path / "mock", _ChannelMock(INT_MAX), 0, INT_MAX, False)
    with pytest.raises(IllegalArgumentException):
        _append(records, VALUES)


def test_open_oversize_file(tmp_path: Path) -> None:
    with pytest.raises(KafkaException):
        FileRecords(tmp_path / "mock", _ChannelMock(INT_MAX + 5), 0, INT_MAX, False)


def test_out_of_range_slice(file_records: FileRecords) -> None:
    with pytest.raises(IllegalArgumentException):
        file_records.slice(file_records.size_in_bytes() + 1, 15).size_in_bytes()


def test_file_size(file_records: FileRecords) -> None:
    assert file_records.size_in_bytes() == file_records.channel().size()
    for _ in range(20):
        file_records.append(MemoryRecords.with_records(NONE, SimpleRecord(b"abcd")))
        assert file_records.size_in_bytes() == file_records.channel().size()


def _test_partial_write(size: int, file_records: FileRecords) -> None:
    file_records.channel().write(bytes(size))
    # Bytes appended behind the records' back do not change what they read.
    records = iter(file_records.records())
    for value in VALUES:
        record = next(records, None)
        assert record is not None
        assert record.value() == value


def test_iteration_over_partial_and_truncation(file_records: FileRecords) -> None:
    for size in (0, 2, 4, 5, 6):
        _test_partial_write(size, file_records)


def test_slice_size_limit_with_concurrent_write(tmp_path: Path) -> None:
    log = FileRecords.open(_temp_file(tmp_path))
    max_size_in_bytes = 16384

    def reader() -> None:
        while log.size_in_bytes() < max_size_in_bytes:
            current_size = log.size_in_bytes()
            slice_ = log.slice(0, current_size)
            assert slice_.size_in_bytes() == current_size

    def writer() -> None:
        while log.size_in_bytes() < max_size_in_bytes:
            _append(log, VALUES)

    with ThreadPoolExecutor(2) as executor:
        reader_completion = executor.submit(reader)
        writer_completion = executor.submit(writer)
        writer_completion.result()
        reader_completion.result()
    log.close()


def test_iteration_doesnt_change_position(file_records: FileRecords) -> None:
    position = file_records.channel().position()
    records = iter(file_records.records())
    for value in VALUES:
        record = next(records, None)
        assert record is not None
        assert record.value() == value
    assert file_records.channel().position() == position


def test_read(file_records: FileRecords) -> None:
    read = file_records.slice(0, file_records.size_in_bytes())
    assert read.size_in_bytes() == file_records.size_in_bytes()
    assert _batches(read) == _batches(file_records)
    items = _batches(read)
    first = items[0]

    # From the second message to the end.
    read = file_records.slice(first.size_in_bytes(), file_records.size_in_bytes() - first.size_in_bytes())
    assert read.size_in_bytes() == file_records.size_in_bytes() - first.size_in_bytes()
    assert _batches(read) == items[1:], "Read starting from the second message"

    # From the second message, with a size past the end of the file.
    read = file_records.slice(first.size_in_bytes(), file_records.size_in_bytes())
    assert read.size_in_bytes() == file_records.size_in_bytes() - first.size_in_bytes()
    assert _batches(read) == items[1:], "Read starting from the second message"

    # From the second message, where position + size overflows.
    read = file_records.slice(first.size_in_bytes(), INT_MAX)
    assert read.size_in_bytes() == file_records.size_in_bytes() - first.size_in_bytes()
    assert _batches(read) == items[1:], "Read starting from the second message"

    # The same on a slice of a slice.
    read = file_records.slice(1, file_records.size_in_bytes() - 1).slice(first.size_in_bytes() - 1,
                                                                         file_records.size_in_bytes())
    assert read.size_in_bytes() == file_records.size_in_bytes() - first.size_in_bytes()
    assert _batches(read) == items[1:], "Read starting from the second message"

    read = file_records.slice(1, file_records.size_in_bytes() - 1).slice(first.size_in_bytes() - 1, INT_MAX)
    assert read.size_in_bytes() == file_records.size_in_bytes() - first.size_in_bytes()
    assert _batches(read) == items[1:], "Read starting from the second message"

    # Only the second message.
    second = items[1]
    read = file_records.slice(first.size_in_bytes(), second.size_in_bytes())
    assert read.size_in_bytes() == second.size_in_bytes()
    assert _batches(read) == [second], "Read a single message starting from the second message"


def test_search(file_records: FileRecords) -> None:
    # A new message at a high offset.
    last_message = SimpleRecord(b"test")
    file_records.append(MemoryRecords.with_records(NONE, last_message, initial_offset=50))
    batches = _batches(file_records)
    position = 0
    message1_size = batches[0].size_in_bytes()
    assert file_records.search_for_offset_with_size(0, 0) == LogOffsetPosition(0, position, message1_size), \
        "Should be able to find the first message by its offset"
    position += message1_size
    message2_size = batches[1].size_in_bytes()
    assert file_records.search_for_offset_with_size(1, 0) == LogOffsetPosition(1, position, message2_size), \
        "Should be able to find second message when starting from 0"
    assert file_records.search_for_offset_with_size(1, position) == LogOffsetPosition(1, position, message2_size), \
        "Should be able to find second message starting from its offset"
    position += message2_size + batches[2].size_in_bytes()
    message4_size = batches[3].size_in_bytes()
    assert file_records.search_for_offset_with_size(3, position) == LogOffsetPosition(50, position, message4_size), \
        "Should be able to find fourth message from a non-existent offset"
    assert file_records.search_for_offset_with_size(50, position) == LogOffsetPosition(50, position, message4_size), \
        "Should be able to find fourth message by correct offset"


def test_iterator_with_limits(file_records: FileRecords) -> None:
    batch = _batches(file_records)[1]
    found = file_records.search_for_offset_with_size(1, 0)
    assert found is not None
    start = found.position
    size = batch.size_in_bytes()
    assert _batches(file_records.slice(start, size)) == [batch]
    assert _batches(file_records.slice(start, size - 1)) == []


def test_truncate(file_records: FileRecords) -> None:
    batch = _batches(file_records)[0]
    found = file_records.search_for_offset_with_size(1, 0)
    assert found is not None
    file_records.truncate_to(found.position)
    assert _batches(file_records) == [batch]
    assert file_records.size_in_bytes() == batch.size_in_bytes()


def test_truncate_not_called_if_size_is_same_as_target_size(tmp_path: Path) -> None:
    channel_mock = _ChannelMock(42)
    file_records = FileRecords(_temp_file(tmp_path), channel_mock, 0, INT_MAX, False)
    file_records.truncate_to(42)
    assert channel_mock.size_calls >= 1
    assert channel_mock.truncate_calls == []


def test_truncate_not_called_if_size_is_bigger_than_target_size(tmp_path: Path) -> None:
    channel_mock = _ChannelMock(42)
    file_records = FileRecords(_temp_file(tmp_path), channel_mock, 0, INT_MAX, False)
    with pytest.raises(KafkaException):
        file_records.truncate_to(43)
    assert channel_mock.size_calls >= 1


def test_truncate_if_size_is_different_to_target_size(tmp_path: Path) -> None:
    channel_mock = _ChannelMock(42)
    file_records = FileRecords(_temp_file(tmp_path), channel_mock, 0, INT_MAX, False)
    file_records.truncate_to(23)
    assert channel_mock.size_calls >= 1
    assert channel_mock.truncate_calls == [23]


def test_preallocate_true(tmp_path: Path) -> None:
    temp = _temp_file(tmp_path)
    file_records = FileRecords.open(temp, file_already_exists=False, init_file_size=1024 * 1024, preallocate=True)
    assert file_records.channel().position() == 0
    assert file_records.size_in_bytes() == 0
    assert temp.stat().st_size == 1024 * 1024
    file_records.close_handlers()


def test_preallocate_false(tmp_path: Path) -> None:
    temp = _temp_file(tmp_path)
    records = FileRecords.open(temp, file_already_exists=False, init_file_size=1024 * 1024, preallocate=False)
    assert records.channel().position() == 0
    assert records.size_in_bytes() == 0
    assert temp.stat().st_size == 0
    records.close_handlers()


def test_preallocate_clear_shutdown(file_records: FileRecords, tmp_path: Path) -> None:
    temp = _temp_file(tmp_path)
    records = FileRecords.open(temp, file_already_exists=False, init_file_size=1024 * 1024, preallocate=True)
    _append(records, VALUES)
    old_position = records.channel().position()
    old_size = records.size_in_bytes()
    assert old_position == file_records.size_in_bytes()
    assert old_size == file_records.size_in_bytes()
    records.close()
    temp_reopen = temp.absolute()
    reopen = FileRecords.open(temp_reopen, file_already_exists=True, init_file_size=1024 * 1024, preallocate=True)
    assert reopen.channel().position() == old_position
    assert reopen.size_in_bytes() == old_position
    assert temp_reopen.stat().st_size == old_position
    reopen.close_handlers()


def test_format_conversion_with_partial_message(file_records: FileRecords, mock_time: MockTime) -> None:
    batch = _batches(file_records)[1]
    found = file_records.search_for_offset_with_size(1, 0)
    assert found is not None
    size = batch.size_in_bytes()
    slice_ = file_records.slice(found.position, size - 1)
    message_v0 = slice_.down_convert(MAGIC_VALUE_V0, 0, mock_time).records()
    assert _batches(message_v0) == [], "No message should be there"
    assert message_v0.size_in_bytes() == size - 1, f"There should be {size - 1} bytes"
    # Lazy down-conversion returns nothing for a partial batch.
    lazy_records = LazyDownConversionRecords(TP, slice_, MAGIC_VALUE_V0, 0, SYSTEM)
    assert next(lazy_records.iterator(16 * 1024), None) is None, "No messages should be returned"


def test_format_conversion_with_no_messages() -> None:
    lazy_records = LazyDownConversionRecords(TP, MemoryRecords.EMPTY, MAGIC_VALUE_V0, 0, SYSTEM)
    assert lazy_records.size_in_bytes() == 0
    assert next(lazy_records.iterator(16 * 1024), None) is None, "No messages should be returned"


def _append_with_offset_and_timestamp(file_records: FileRecords, record_version: int, timestamp: int, offset: int,
                                      leader_epoch: int) -> None:
    builder = MemoryRecords.builder(128, record_version, NONE, TimestampType.CREATE_TIME, offset, timestamp,
                                    partition_leader_epoch=leader_epoch)
    builder.append(SimpleRecord.of(timestamp, b"", b""))
    file_records.append(builder.build())


def _assert_found_timestamp(expected: TimestampAndOffset, actual: TimestampAndOffset | None, version: int) -> None:
    if version == MAGIC_VALUE_V0:
        assert actual is None, "Expected no match for message format v0"
    else:
        assert actual is not None, f"Expected to find timestamp for message format {version}"
        assert actual.timestamp == expected.timestamp, f"Expected matching timestamps for message format{version}"
        assert actual.offset == expected.offset, f"Expected matching offsets for message format {version}"
        expected_leader_epoch = expected.leader_epoch if version >= MAGIC_VALUE_V2 else None
        assert actual.leader_epoch == expected_leader_epoch, f"Non-matching leader epoch for version {version}"


def test_search_for_timestamp(tmp_path: Path) -> None:
    for record_version in RecordVersion:
        version = record_version.value
        temp = _temp_file(tmp_path)
        file_records = FileRecords.open(temp, file_already_exists=False, init_file_size=1024 * 1024,
                                        preallocate=True)
        _append_with_offset_and_timestamp(file_records, version, 10, 5, 0)
        _append_with_offset_and_timestamp(file_records, version, 11, 6, 1)
        _assert_found_timestamp(TimestampAndOffset(10, 5, 0), file_records.search_for_timestamp(9, 0, 0), version)
        _assert_found_timestamp(TimestampAndOffset(10, 5, 0), file_records.search_for_timestamp(10, 0, 0), version)
        _assert_found_timestamp(TimestampAndOffset(11, 6, 1), file_records.search_for_timestamp(11, 0, 0), version)
        assert file_records.search_for_timestamp(12, 0, 0) is None
        file_records.close_handlers()


def test_downconversion_after_message_format_downgrade(tmp_path: Path, mock_time: MockTime) -> None:
    data = os.urandom(3000)
    compression = Compression.gzip().build()
    offsets = [0, 1]
    magic = [MAGIC_VALUE_V2, MAGIC_VALUE_V1]  # the format goes down from v2 to v1
    records = [SimpleRecord.of(1, b"k1", data), SimpleRecord.of(2, b"k2", data)]
    to_magic = 1
    buffer = bytearray()
    for i, record in enumerate(records):
        builder = MemoryRecords.builder(buffer, magic[i], compression, TimestampType.CREATE_TIME, 0)
        builder.append_with_offset(offsets[i], record)
        builder.close()
    file_records = FileRecords.open(_temp_file(tmp_path))
    try:
        file_records.append(MemoryRecords.readable_records(buffer))
        file_records.flush()
        _down_convert_and_verify_records(records, offsets, file_records, compression, to_magic, 0, mock_time)
    finally:
        file_records.close()


def test_conversion(tmp_path: Path, mock_time: MockTime) -> None:
    _do_test_conversion(tmp_path, mock_time, NONE, MAGIC_VALUE_V0)
    _do_test_conversion(tmp_path, mock_time, Compression.gzip().build(), MAGIC_VALUE_V0)
    _do_test_conversion(tmp_path, mock_time, NONE, MAGIC_VALUE_V1)
    _do_test_conversion(tmp_path, mock_time, Compression.gzip().build(), MAGIC_VALUE_V1)
    _do_test_conversion(tmp_path, mock_time, NONE, MAGIC_VALUE_V2)
    _do_test_conversion(tmp_path, mock_time, Compression.gzip().build(), MAGIC_VALUE_V2)


def test_bytes_length_of_write_to(file_records: FileRecords) -> None:
    size = file_records.size_in_bytes()
    first_written = size // 3
    channel = _TransferableChannelMock()
    # Some of the data first.
    file_records.write_to(channel, 0, first_written)
    assert channel.transfer_from_calls[-1][2] == first_written
    # Then more than is left: only what is left goes.
    second_written_length = size - first_written + 1
    file_records.write_to(channel, first_written, second_written_length)
    assert channel.transfer_from_calls[-1][2] == size - first_written


def _do_test_conversion(tmp_path: Path, time_: Any, compression: Compression, to_magic: int) -> None:
    offsets = [0, 2, 3, 9, 11, 15, 16, 17, 22, 24]
    headers = (RecordHeader("headerKey1", b"headerValue1"), RecordHeader("headerKey2", b"headerValue2"),
               RecordHeader("headerKey3", b"headerValue3"))
    records = [SimpleRecord.of(1, b"k1", b"hello"), SimpleRecord.of(2, b"k2", b"goodbye"),
               SimpleRecord.of(3, b"k3", b"hello again"), SimpleRecord.of(4, b"k4", b"goodbye for now"),
               SimpleRecord.of(5, b"k5", b"hello again"), SimpleRecord.of(6, b"k6", b"I sense indecision"),
               SimpleRecord.of(7, b"k7", b"what now"), SimpleRecord.of(8, b"k8", b"running out", headers),
               SimpleRecord.of(9, b"k9", b"ok, almost done"), SimpleRecord.of(10, b"k10", b"finally", headers)]
    assert len(offsets) == len(records), "incorrect test setup"
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V0, compression, TimestampType.CREATE_TIME, 0)
    for i in range(3):
        builder.append_with_offset(offsets[i], records[i])
    builder.close()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V1, compression, TimestampType.CREATE_TIME, 0)
    for i in range(3, 6):
        builder.append_with_offset(offsets[i], records[i])
    builder.close()
    builder = MemoryRecords.builder(buffer, MAGIC_VALUE_V2, compression, TimestampType.CREATE_TIME, 0)
    for i in range(6, 10):
        builder.append_with_offset(offsets[i], records[i])
    builder.close()
    file_records = FileRecords.open(_temp_file(tmp_path))
    try:
        file_records.append(MemoryRecords.readable_records(buffer))
        file_records.flush()
        _down_convert_and_verify_records(records, offsets, file_records, compression, to_magic, 0, time_)
        if to_magic <= MAGIC_VALUE_V1 and compression.type() is CompressionType.NONE:
            first_offset = 11 if to_magic == MAGIC_VALUE_V0 else 17  # a v1 record, a v2 record
            filtered_offsets = list(offsets)
            filtered_records = list(records)
            index = filtered_offsets.index(first_offset) - 1
            del filtered_records[index]
            del filtered_offsets[index]
            _down_convert_and_verify_records(filtered_records, filtered_offsets, file_records, compression, to_magic,
                                             first_offset, time_)
        else:
            # firstOffset has no effect here.
            _down_convert_and_verify_records(records, offsets, file_records, compression, to_magic, 10, time_)
    finally:
        file_records.close()


def _down_convert_and_verify_records(initial_records: list[SimpleRecord], initial_offsets: list[int],
                                     file_records: FileRecords, compression: Compression, to_magic: int,
                                     first_offset: int, time_: Any) -> None:
    min_batch_size = INT_MAX
    max_batch_size = -1
    for batch in file_records.batches():
        min_batch_size = min(min_batch_size, batch.size_in_bytes())
        max_batch_size = max(max_batch_size, batch.size_in_bytes())
    # The down-conversion at once.
    converted_records = [file_records.down_convert(to_magic, first_offset, time_).records()]
    _verify_converted_records(initial_records, initial_offsets, converted_records, compression, to_magic)
    # The lazy one, chunk by chunk.
    maximum_read_size = [16 * 1024, file_records.size_in_bytes(), file_records.size_in_bytes() - 1,
                         file_records.size_in_bytes() // 4, max_batch_size + 1, 1]
    for read_size in maximum_read_size:
        lazy_records = LazyDownConversionRecords(TP, file_records, to_magic, first_offset, SYSTEM)
        converted_records = [converted.records() for converted in lazy_records.iterator(read_size)]
        _verify_converted_records(initial_records, initial_offsets, converted_records, compression, to_magic)


def _verify_converted_records(initial_records: list[SimpleRecord], initial_offsets: list[int],
                              converted_records_list: list[Any], compression: Compression, magic_byte: int) -> None:
    i = 0
    for converted_records in converted_records_list:
        for batch in converted_records.batches():
            assert batch.magic() <= magic_byte, f"Magic byte should be lower than or equal to {magic_byte}"
            if batch.magic() == MAGIC_VALUE_V0:
                assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
            else:
                assert batch.timestamp_type() is TimestampType.CREATE_TIME
            assert batch.compression_type() is compression.type(), \
                "Compression type should not be affected by conversion"
            for record in batch:
                assert record.has_magic(batch.magic()), f"Inner record should have magic {magic_byte}"
                assert record.offset() == initial_offsets[i], "Offset should not change"
                assert record.key() == initial_records[i].key(), "Key should not change"
                assert record.value() == initial_records[i].value(), "Value should not change"
                assert not record.has_timestamp_type(TimestampType.LOG_APPEND_TIME)
                if batch.magic() == MAGIC_VALUE_V0:
                    assert record.timestamp() == NO_TIMESTAMP
                    assert not record.has_timestamp_type(TimestampType.CREATE_TIME)
                    assert record.has_timestamp_type(TimestampType.NO_TIMESTAMP_TYPE)
                elif batch.magic() == MAGIC_VALUE_V1:
                    assert record.timestamp() == initial_records[i].timestamp(), "Timestamp should not change"
                    assert record.has_timestamp_type(TimestampType.CREATE_TIME)
                    assert not record.has_timestamp_type(TimestampType.NO_TIMESTAMP_TYPE)
                else:
                    assert record.timestamp() == initial_records[i].timestamp(), "Timestamp should not change"
                    assert not record.has_timestamp_type(TimestampType.CREATE_TIME)
                    assert not record.has_timestamp_type(TimestampType.NO_TIMESTAMP_TYPE)
                    assert record.headers() == initial_records[i].headers(), "Headers should not change"
                i += 1
    assert i == len(initial_offsets)
