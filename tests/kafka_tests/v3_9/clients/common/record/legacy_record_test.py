"""Port of clients/src/test/java/org/apache/kafka/common/record/LegacyRecordTest.java (Kafka 3.9)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from kafka_edu.v1_0_2.clients.common.errors import CorruptRecordException
from kafka_edu.v3_9.clients.common.record import legacy_record
from kafka_edu.v3_9.clients.common.record.compression_type import CompressionType
from kafka_edu.v3_9.clients.common.record.legacy_record import LegacyRecord
from kafka_edu.v3_9.clients.common.record.record_batch import MAGIC_VALUE_V0, MAGIC_VALUE_V1, NO_TIMESTAMP
from kafka_edu.v3_9.clients.common.record.timestamp_type import TimestampType
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "clients/src/test/java/org/apache/kafka/common/record/LegacyRecordTest.java",
    cases=["testFields", "testChecksum", "testEquality"],
)


@dataclass(frozen=True)
class Args:
    magic: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    compression: CompressionType
    timestamp_type: TimestampType = TimestampType.CREATE_TIME
    record: LegacyRecord = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "record", LegacyRecord.create(self.magic, self.timestamp, self.key, self.value,
                                                               self.compression, self.timestamp_type))

    def __repr__(self) -> str:
        return f"magic={self.magic}, compression={self.compression}, timestamp={self.timestamp}"


def _legacy_record_arguments() -> list[Args]:
    payload = bytes([1]) * 1000
    return [Args(magic, timestamp, key, value, compression)
            for magic in (MAGIC_VALUE_V0, MAGIC_VALUE_V1)
            for timestamp in (NO_TIMESTAMP, 0, 1)
            for key in (None, b"", b"key", payload)
            for value in (None, b"", b"value", payload)
            for compression in CompressionType]


ARGS = pytest.mark.parametrize("args", _legacy_record_arguments())


def _copy_of(record: LegacyRecord) -> LegacyRecord:
    return LegacyRecord(bytearray(record.buffer()))


@ARGS
def test_fields(args: Args) -> None:
    record = args.record
    key = args.key
    assert record.compression_type() is args.compression
    assert record.has_key() == (key is not None)
    assert record.key() == key
    if key is not None:
        assert record.key_size() == len(key)
    assert record.magic() == args.magic
    assert record.value() == args.value
    if args.value is not None:
        assert record.value_size() == len(args.value)
    if args.magic > 0:
        assert record.timestamp() == args.timestamp
        assert record.timestamp_type() is args.timestamp_type
    else:
        assert record.timestamp() == NO_TIMESTAMP
        assert record.timestamp_type() is TimestampType.NO_TIMESTAMP_TYPE


@ARGS
def test_checksum(args: Args) -> None:
    record = args.record
    assert record.compute_checksum() == record.checksum()
    attributes = legacy_record.compute_attributes(args.magic, args.compression, TimestampType.CREATE_TIME)
    assert legacy_record.compute_checksum(args.magic, attributes, args.timestamp, args.key, args.value) \
        == record.checksum()
    assert record.is_valid()
    for i in range(legacy_record.CRC_OFFSET + legacy_record.CRC_LENGTH, record.size_in_bytes()):
        copy = _copy_of(record)
        copy.buffer()[i] = 69
        assert not copy.is_valid()
        with pytest.raises(CorruptRecordException):
            copy.ensure_valid()


@ARGS
def test_equality(args: Args) -> None:
    assert _copy_of(args.record) == args.record
