"""Port of storage/src/main/java/org/apache/kafka/storage/internals/log/LogOffsetsListener.java (Kafka 3.9): what a
log tells when its high watermark moves (Partition uses it to complete delayed fetches)."""

from __future__ import annotations


class LogOffsetsListener:
    NO_OP_OFFSETS_LISTENER: LogOffsetsListener

    def on_high_watermark_updated(self, offset: int) -> None:
        """Called when the log increments its high watermark; the default does nothing."""


LogOffsetsListener.NO_OP_OFFSETS_LISTENER = LogOffsetsListener()
