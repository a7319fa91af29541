"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordVersion.java (Kafka 3.9): the record formats
(magic values) a message format version maps to."""

from __future__ import annotations

import enum

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException


class RecordVersion(enum.Enum):
    V0 = 0
    V1 = 1
    V2 = 2

    def precedes(self, other: RecordVersion) -> bool:
        return self.value < other.value

    @staticmethod
    def lookup(value: int) -> RecordVersion:
        if value < 0 or value >= len(RecordVersion):
            raise IllegalArgumentException(f"Unknown record version: {value}")
        return RecordVersion(value)

    @staticmethod
    def current() -> RecordVersion:
        return RecordVersion.V2
