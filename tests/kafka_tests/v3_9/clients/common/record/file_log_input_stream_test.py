"""Port of clients/src/test/java/org/apache/kafka/common/record/FileLogInputStreamTest.java (Kafka 3.9).

Differences of form: a temporary file is one under pytest's tmp_path; `batch.writeTo(buffer)` appends to a
bytearray.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.file_log_input_stream import FileLogInputStream
from kafka_edu.v3_9.clients.common.record.file_records import FileRecords
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import (
    MAGIC_VALUE_V0,
    MAGIC_VALUE_V1,
    MAGIC_VALUE_V2,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    RecordBatch,
)
from kafka_edu.v3_9.clients.common.record.simple_record import SimpleRecord
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/FileLogInputStreamTest.java",
    cases=["testWriteTo", "testSimpleBatchIteration", "testBatchIterationWithMultipleRecordsPerBatch",
           "testBatchIterationV2", "testBatchIterationIncompleteBatch", "testNextBatchSelectionWithMaxedParams",
           "testNextBatchSelectionWithZeroedParams"],
)

INT_MAX = 2**31 - 1
CREATE_TIME = TimestampType.CREATE_TIME


@dataclass(frozen=True)
class Args:
    magic: int
    compression: Compression

    def __repr__(self) -> str:
        return f"magic={self.magic}, compression={self.compression.type()}"


ARGS = pytest.mark.parametrize(
    "args", [Args(magic, Compression.of(type).build()) for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1, MAGIC_VALUE_V2)
             for type in CompressionType], ids=repr)


@pytest.fixture
def file_records(tmp_path: Path) -> Iterator[FileRecords]:
    fd, name = tempfile.mkstemp(prefix="kafka", suffix=".tmp", dir=tmp_path)
    os.close(fd)
    records = FileRecords.open(Path(name))
    yield records
    records.close()


def _assert_producer_data(batch: RecordBatch, producer_id: int, producer_epoch: int, base_sequence: int,
                          is_transactional: bool, *records: SimpleRecord) -> None:
    assert batch.producer_id() == producer_id
    assert batch.producer_epoch() == producer_epoch
    assert batch.base_sequence() == base_sequence
    assert batch.last_sequence() == base_sequence + len(records) - 1
    assert batch.is_transactional() == is_transactional


def _assert_no_producer_data(batch: RecordBatch) -> None:
    assert batch.producer_id() == NO_PRODUCER_ID
    assert batch.producer_epoch() == NO_PRODUCER_EPOCH
    assert batch.base_sequence() == NO_SEQUENCE
    assert batch.last_sequence() == NO_SEQUENCE
    assert not batch.is_transactional()


def _assert_generic_record_batch_data(args: Args, batch: RecordBatch, base_offset: int, max_timestamp: int,
                                      *records: SimpleRecord) -> None:
    magic = args.magic
    assert batch.magic() == magic
    assert batch.compression_type() is args.compression.type()
    if magic == MAGIC_VALUE_V0:
        assert batch.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE
    else:
        assert batch.timestamp_type() is CREATE_TIME
        assert batch.max_timestamp() == max_timestamp
    assert batch.last_offset() == base_offset + len(records) - 1
    if magic >= MAGIC_VALUE_V2:
        assert batch.count_or_null() == len(records)
    assert batch.base_offset() == base_offset
    assert batch.is_valid()
    batch_records = list(batch)
    for i, record in enumerate(records):
        assert batch_records[i].offset() == base_offset + i
        assert batch_records[i].key() == record.key()
        assert batch_records[i].value() == record.value()
        if magic == MAGIC_VALUE_V0:
            assert batch_records[i].timestamp() == NO_TIMESTAMP
        else:
            assert batch_records[i].timestamp() == record.timestamp()


def _unsupported(args: Args) -> bool:
    return args.compression.type() is CompressionType.ZSTD and args.magic < MAGIC_VALUE_V2


@ARGS
def test_write_to(args: Args, file_records: FileRecords) -> None:
    if _unsupported(args):
        return
    file_records.append(MemoryRecords.with_records(args.compression, SimpleRecord(b"foo"), magic=args.magic))
    file_records.flush()
    log_input_stream = FileLogInputStream(file_records, 0, file_records.size_in_bytes())
    batch = log_input_stream.next_batch()
    assert batch is not None
    assert batch.magic() == args.magic
    buffer = bytearray()
    batch.write_to(buffer)
    records = list(MemoryRecords.readable_records(buffer).records())
    assert len(records) == 1
    record0 = records[0]
    assert record0.has_magic(args.magic)
    assert record0.value() == b"foo"


@ARGS
def test_simple_batch_iteration(args: Args, file_records: FileRecords) -> None:
    if _unsupported(args):
        return
    first_batch_record = SimpleRecord.of(3241324, b"a", b"foo")
    second_batch_record = SimpleRecord.of(234280, b"b", b"bar")
    file_records.append(MemoryRecords.with_records(args.compression, first_batch_record, magic=args.magic,
                                                   initial_offset=0, timestamp_type=CREATE_TIME))
    file_records.append(MemoryRecords.with_records(args.compression, second_batch_record, magic=args.magic,
                                                   initial_offset=1, timestamp_type=CREATE_TIME))
    file_records.flush()
    log_input_stream = FileLogInputStream(file_records, 0, file_records.size_in_bytes())
    first_batch = log_input_stream.next_batch()
    assert first_batch is not None
    _assert_generic_record_batch_data(args, first_batch, 0, 3241324, first_batch_record)
    _assert_no_producer_data(first_batch)
    second_batch = log_input_stream.next_batch()
    assert second_batch is not None
    _assert_generic_record_batch_data(args, second_batch, 1, 234280, second_batch_record)
    _assert_no_producer_data(second_batch)
    assert log_input_stream.next_batch() is None


FIRST_BATCH_RECORDS = (SimpleRecord.of(3241324, b"a", b"1"), SimpleRecord.of(234280, b"b", b"2"))
SECOND_BATCH_RECORDS = (SimpleRecord.of(238423489, b"c", b"3"), SimpleRecord.of(897839, None, b"4"),
                        SimpleRecord.of(8234020, b"e", None))


@ARGS
def test_batch_iteration_with_multiple_records_per_batch(args: Args, file_records: FileRecords) -> None:
    if args.magic < MAGIC_VALUE_V2 and args.compression.type() is CompressionType.NONE:
        return
    if _unsupported(args):
        return
    file_records.append(MemoryRecords.with_records(args.compression, *FIRST_BATCH_RECORDS, magic=args.magic,
                                                   initial_offset=0, timestamp_type=CREATE_TIME))
    file_records.append(MemoryRecords.with_records(args.compression, *SECOND_BATCH_RECORDS, magic=args.magic,
                                                   initial_offset=1, timestamp_type=CREATE_TIME))
    file_records.flush()
    log_input_stream = FileLogInputStream(file_records, 0, file_records.size_in_bytes())
    first_batch = log_input_stream.next_batch()
    assert first_batch is not None
    _assert_no_producer_data(first_batch)
    _assert_generic_record_batch_data(args, first_batch, 0, 3241324, *FIRST_BATCH_RECORDS)
    second_batch = log_input_stream.next_batch()
    assert second_batch is not None
    _assert_no_producer_data(second_batch)
    _assert_generic_record_batch_data(args, second_batch, 1, 238423489, *SECOND_BATCH_RECORDS)
    assert log_input_stream.next_batch() is None


@ARGS
def test_batch_iteration_v2(args: Args, file_records: FileRecords) -> None:
    if args.magic != MAGIC_VALUE_V2:
        return
    producer_id = 83843
    producer_epoch = 15
    base_sequence = 234
    partition_leader_epoch = 9832
    file_records.append(MemoryRecords.with_idempotent_records(
        args.compression, producer_id, producer_epoch, base_sequence, *FIRST_BATCH_RECORDS, magic=args.magic,
        initial_offset=15, partition_leader_epoch=partition_leader_epoch))
    file_records.append(MemoryRecords.with_transactional_records(
        args.compression, producer_id, producer_epoch, base_sequence + len(FIRST_BATCH_RECORDS),
        *SECOND_BATCH_RECORDS, magic=args.magic, initial_offset=27, partition_leader_epoch=partition_leader_epoch))
    file_records.flush()
    log_input_stream = FileLogInputStream(file_records, 0, file_records.size_in_bytes())
    first_batch = log_input_stream.next_batch()
    assert first_batch is not None
    _assert_producer_data(first_batch, producer_id, producer_epoch, base_sequence, False, *FIRST_BATCH_RECORDS)
    _assert_generic_record_batch_data(args, first_batch, 15, 3241324, *FIRST_BATCH_RECORDS)
    assert first_batch.partition_leader_epoch() == partition_leader_epoch
    second_batch = log_input_stream.next_batch()
    assert second_batch is not None
    _assert_producer_data(second_batch, producer_id, producer_epoch, base_sequence + len(FIRST_BATCH_RECORDS), True,
                          *SECOND_BATCH_RECORDS)
    _assert_generic_record_batch_data(args, second_batch, 27, 238423489, *SECOND_BATCH_RECORDS)
    assert second_batch.partition_leader_epoch() == partition_leader_epoch
    assert log_input_stream.next_batch() is None


@ARGS
def test_batch_iteration_incomplete_batch(args: Args, file_records: FileRecords) -> None:
    if _unsupported(args):
        return
    first_batch_record = SimpleRecord(b"foo", timestamp=100)
    second_batch_record = SimpleRecord(b"bar", timestamp=200)
    file_records.append(MemoryRecords.with_records(args.compression, first_batch_record, magic=args.magic,
                                                   initial_offset=0, timestamp_type=CREATE_TIME))
    file_records.append(MemoryRecords.with_records(args.compression, second_batch_record, magic=args.magic,
                                                   initial_offset=1, timestamp_type=CREATE_TIME))
    file_records.flush()
    file_records.truncate_to(file_records.size_in_bytes() - 13)
    log_input_stream = FileLogInputStream(file_records, 0, file_records.size_in_bytes())
    first_batch = log_input_stream.next_batch()
    assert first_batch is not None
    _assert_no_producer_data(first_batch)
    _assert_generic_record_batch_data(args, first_batch, 0, 100, first_batch_record)
    assert log_input_stream.next_batch() is None


def test_next_batch_selection_with_maxed_params(file_records: FileRecords) -> None:
    assert FileLogInputStream(file_records, INT_MAX, INT_MAX).next_batch() is None


def test_next_batch_selection_with_zeroed_params(file_records: FileRecords) -> None:
    assert FileLogInputStream(file_records, 0, 0).next_batch() is None
