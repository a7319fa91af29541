"""Port of clients/src/test/java/org/apache/kafka/common/record/SimpleLegacyRecordTest.java (Kafka 3.9)."""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.clients.common.compress.compression import Compression
from kafka_edu.v3_9.clients.common.invalid_record_exception import InvalidRecordException
from kafka_edu.v3_9.clients.common.record import abstract_legacy_record_batch, legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.memory_records import MemoryRecords
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V1
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/SimpleLegacyRecordTest.java",
    cases=["testCompressedIterationWithNullValue", "testCompressedIterationWithEmptyRecords"],
)


def test_compressed_iteration_with_null_value() -> None:
    out = bytearray()
    abstract_legacy_record_batch.write_header(out, 0, legacy_record.RECORD_OVERHEAD_V1)
    legacy_record.write(out, MAGIC_VALUE_V1, 1, None, None, CompressionType.GZIP, TimestampType.CREATE_TIME)
    records = MemoryRecords.readable_records(out)
    with pytest.raises(InvalidRecordException):
        next(iter(records.records()))


def test_compressed_iteration_with_empty_records() -> None:
    empty_compressed_value = Compression.gzip().build().wrap_for_output(b"", MAGIC_VALUE_V1)
    out = bytearray()
    abstract_legacy_record_batch.write_header(out, 0, legacy_record.RECORD_OVERHEAD_V1 + len(empty_compressed_value))
    legacy_record.write(out, MAGIC_VALUE_V1, 1, None, empty_compressed_value, CompressionType.GZIP,
                        TimestampType.CREATE_TIME)
    records = MemoryRecords.readable_records(out)
    with pytest.raises(InvalidRecordException):
        next(iter(records.records()))
