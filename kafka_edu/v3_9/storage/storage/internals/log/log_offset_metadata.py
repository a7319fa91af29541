"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogOffsetMetadata.java (Kafka 3.9): an offset
with, when known, the base offset of its segment and its byte position in that segment."""

from __future__ import annotations

from typing import ClassVar

from kafka_edu.v1_0_2.clients.common.errors import KafkaException

# TODO KAFKA-14484 in Kafka: these mirror UnifiedLog's unknown offset until UnifiedLog moves to storage
_UNIFIED_LOG_UNKNOWN_OFFSET = -1
_UNKNOWN_FILE_POSITION = -1


class LogOffsetMetadata:
    """Immutable; equal when all three fields are equal."""

    UNKNOWN_OFFSET_METADATA: ClassVar[LogOffsetMetadata]

    __slots__ = ("message_offset", "segment_base_offset", "relative_position_in_segment")

    def __init__(self, message_offset: int, segment_base_offset: int = _UNIFIED_LOG_UNKNOWN_OFFSET,
                 relative_position_in_segment: int = _UNKNOWN_FILE_POSITION) -> None:
        self.message_offset = message_offset
        self.segment_base_offset = segment_base_offset
        self.relative_position_in_segment = relative_position_in_segment

    def on_older_segment(self, that: LogOffsetMetadata) -> bool:
        """Whether this offset sits on a segment older than `that`'s (False when either lacks segment info)."""
        if self.message_offset_only() or that.message_offset_only():
            return False
        return self.segment_base_offset < that.segment_base_offset

    def on_same_segment(self, that: LogOffsetMetadata) -> bool:
        """Whether both offsets sit on the same segment (False when either lacks segment info)."""
        if self.message_offset_only() or that.message_offset_only():
            return False
        return self.segment_base_offset == that.segment_base_offset

    def position_diff(self, that: LogOffsetMetadata) -> int:
        """Bytes from `that` to this offset; both must be on the same segment."""
        if self.message_offset_only() or that.message_offset_only():
            raise KafkaException(f"{self} cannot compare its segment position with {that} since it only has "
                                 "message offset info")
        if not self.on_same_segment(that):
            raise KafkaException(f"{self} cannot compare its segment position with {that} since they are not on "
                                 "the same segment")
        return self.relative_position_in_segment - that.relative_position_in_segment

    def message_offset_only(self) -> bool:
        """Whether only the message offset is known."""
        return (self.segment_base_offset == _UNIFIED_LOG_UNKNOWN_OFFSET
                and self.relative_position_in_segment == _UNKNOWN_FILE_POSITION)

    def __str__(self) -> str:
        return (f"(offset={self.message_offset}, segment=[{self.segment_base_offset}:"
                f"{self.relative_position_in_segment}])")

    __repr__ = __str__

    def __eq__(self, o: object) -> bool:
        if self is o:
            return True
        if not isinstance(o, LogOffsetMetadata):
            return False
        return (self.message_offset == o.message_offset and self.segment_base_offset == o.segment_base_offset
                and self.relative_position_in_segment == o.relative_position_in_segment)

    def __hash__(self) -> int:
        return hash((self.message_offset, self.segment_base_offset, self.relative_position_in_segment))


LogOffsetMetadata.UNKNOWN_OFFSET_METADATA = LogOffsetMetadata(-1, _UNIFIED_LOG_UNKNOWN_OFFSET,
                                                              _UNKNOWN_FILE_POSITION)
