"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetPosition.java (Kafka 3.9): an offset
index entry, a log offset and the byte position of its batch in the segment file."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OffsetPosition:
    offset: int
    position: int

    def index_key(self) -> int:
        return self.offset

    def index_value(self) -> int:
        return self.position
