"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/RollParams.java (Kafka 3.9): what
LogSegment.should_roll weighs before an append: the segment limits and the batch about to be appended."""

from __future__ import annotations


class RollParams:
    def __init__(self, max_segment_ms: int, max_segment_bytes: int, max_timestamp_in_messages: int,
                 max_offset_in_messages: int, messages_size: int, now: int) -> None:
        self.max_segment_ms = max_segment_ms
        self.max_segment_bytes = max_segment_bytes
        self.max_timestamp_in_messages = max_timestamp_in_messages
        self.max_offset_in_messages = max_offset_in_messages
        self.messages_size = messages_size
        self.now = now

    def __str__(self) -> str:
        return (f"RollParams(maxSegmentMs={self.max_segment_ms}, maxSegmentBytes={self.max_segment_bytes}, "
                f"maxTimestampInMessages={self.max_timestamp_in_messages}, "
                f"maxOffsetInMessages={self.max_offset_in_messages}, messagesSize={self.messages_size}, "
                f"now={self.now})")

    __repr__ = __str__
