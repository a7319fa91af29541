"""Port of clients/src/main/java/org/apache/kafka/common/record/SimpleRecord.java (Kafka 3.9): a record before it
has an offset: what a producer hands a MemoryRecordsBuilder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kafka_edu.v3_9.clients.common.header.internals.record_header import RecordHeader
from kafka_edu.v3_9.clients.common.record.record import EMPTY_HEADERS

NO_TIMESTAMP = -1


def _nullable(field: bytes | bytearray | memoryview | None) -> bytes | None:
    return None if field is None else bytes(field)


class SimpleRecord:
    """Java's constructor overloads, by keyword: SimpleRecord(value), SimpleRecord(key=.., value=..),
    SimpleRecord(value, timestamp=..), SimpleRecord(value, key, timestamp, headers)."""

    __slots__ = ("_key", "_value", "_timestamp", "_headers")

    def __init__(self, value: bytes | bytearray | memoryview | None = None,
                 key: bytes | bytearray | memoryview | None = None, timestamp: int = NO_TIMESTAMP,
                 headers: Sequence[RecordHeader] = EMPTY_HEADERS) -> None:
        if headers is None:
            raise TypeError("Headers must be non-null")
        self._key = _nullable(key)
        self._value = _nullable(value)
        self._timestamp = timestamp
        self._headers = tuple(headers)

    @staticmethod
    def of(timestamp: int, key: bytes | None, value: bytes | None,
           headers: Sequence[RecordHeader] = EMPTY_HEADERS) -> SimpleRecord:
        """SimpleRecord(long timestamp, key, value[, headers]) in Java's argument order."""
        return SimpleRecord(value, key, timestamp, headers)

    @staticmethod
    def from_record(record: Any) -> SimpleRecord:
        """SimpleRecord(Record record)."""
        return SimpleRecord(record.value(), record.key(), record.timestamp(), record.headers())

    def key(self) -> bytes | None:
        return self._key

    def value(self) -> bytes | None:
        return self._value

    def timestamp(self) -> int:
        return self._timestamp

    def headers(self) -> tuple[RecordHeader, ...]:
        return self._headers

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, SimpleRecord):
            return False
        return (self._timestamp == other._timestamp and self._key == other._key and self._value == other._value
                and self._headers == other._headers)

    def __hash__(self) -> int:
        return hash((self._key, self._value, self._timestamp, self._headers))

    def __repr__(self) -> str:
        return (f"SimpleRecord(timestamp={self._timestamp}, key={0 if self._key is None else len(self._key)} bytes, "
                f"value={0 if self._value is None else len(self._value)} bytes)")
