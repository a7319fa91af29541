"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/TimestampOffset.java (Kafka 3.9): a time
index entry; every message with a larger timestamp than `timestamp` is at or after `offset`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True)
class TimestampOffset:
    UNKNOWN: ClassVar[TimestampOffset]

    timestamp: int
    offset: int

    def index_key(self) -> int:
        return self.timestamp

    def index_value(self) -> int:
        return self.offset

    def __str__(self) -> str:
        return f"TimestampOffset(offset = {self.offset}, timestamp = {self.timestamp})"


TimestampOffset.UNKNOWN = TimestampOffset(-1, -1)
