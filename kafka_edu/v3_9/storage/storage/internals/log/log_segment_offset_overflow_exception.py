"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogSegmentOffsetOverflowException.java
(Kafka 3.9): a segment holds (or would hold) an offset too far from its base offset for a 4-byte relative offset."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_edu.v1_0_2.clients.common.errors import KafkaException

if TYPE_CHECKING:
    from kafka_edu.v3_9.storage.storage.internals.log.log_segment import LogSegment


class LogSegmentOffsetOverflowException(KafkaException):
    def __init__(self, segment: LogSegment, offset: int) -> None:
        super().__init__(f"Detected offset overflow at offset {offset} in segment {segment}")
        self.segment = segment
        self.offset = offset
