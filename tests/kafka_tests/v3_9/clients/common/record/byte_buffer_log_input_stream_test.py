"""Port of clients/src/test/java/org/apache/kafka/common/record/ByteBufferLogInputStreamTest.java (Kafka 3.9).

Differences of form: the builders append to one bytearray; Kafka's shortened limit is a shorter view of it.
"""

from __future__ import annotations

import struct

import pytest

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException
from kafka_edu.v3_9.clients.common.compress.compression import NONE
from kafka_edu.v3_9.clients.common.record.byte_buffer_log_input_stream import ByteBufferLogInputStream
from kafka_edu.v3_9.clients.common.record.default_record_batch import LENGTH_OFFSET, MAGIC_OFFSET
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/ByteBufferLogInputStreamTest.java",
    cases=["iteratorIgnoresIncompleteEntries", "iteratorRaisesOnTooSmallRecords", "iteratorRaisesOnInvalidMagic",
           "iteratorRaisesOnTooLargeRecords"],
)

INT_MAX = 2**31 - 1


def _two_batches(first_batch_records: int = 2) -> tuple[bytearray, int]:
    """Two batches, and the position of the second."""
    buffer = bytearray()
    builder = MemoryRecords.builder(buffer, compression=NONE, timestamp_type=TimestampType.CREATE_TIME, base_offset=0)
    builder.append(15, b"a", b"1")
    if first_batch_records > 1:
        builder.append(20, b"b", b"2")
    builder.close()
    position = len(buffer)
    builder = MemoryRecords.builder(buffer, compression=NONE, timestamp_type=TimestampType.CREATE_TIME, base_offset=2)
    builder.append(30, b"c", b"3")
    builder.append(40, b"d", b"4")
    builder.close()
    return buffer, position


def test_iterator_ignores_incomplete_entries() -> None:
    buffer, _ = _two_batches()
    records = MemoryRecords.readable_records(memoryview(buffer)[:len(buffer) - 5])
    iterator = iter(records.batches())
    first = next(iterator, None)
    assert first is not None
    assert first.last_offset() == 1
    assert next(iterator, None) is None


def test_iterator_raises_on_too_small_records() -> None:
    buffer, position = _two_batches()
    struct.pack_into(">i", buffer, position + LENGTH_OFFSET, 9)
    log_input_stream = ByteBufferLogInputStream(memoryview(buffer), INT_MAX)
    assert log_input_stream.next_batch() is not None
    with pytest.raises(CorruptRecordException):
        log_input_stream.next_batch()


def test_iterator_raises_on_invalid_magic() -> None:
    buffer, position = _two_batches()
    buffer[position + MAGIC_OFFSET] = 37
    log_input_stream = ByteBufferLogInputStream(memoryview(buffer), INT_MAX)
    assert log_input_stream.next_batch() is not None
    with pytest.raises(CorruptRecordException):
        log_input_stream.next_batch()


def test_iterator_raises_on_too_large_records() -> None:
    buffer, _ = _two_batches(first_batch_records=1)
    log_input_stream = ByteBufferLogInputStream(memoryview(buffer), 60)
    assert log_input_stream.next_batch() is not None
    with pytest.raises(CorruptRecordException):
        log_input_stream.next_batch()
