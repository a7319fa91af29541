"""Port of clients/src/main/java/org/apache/kafka/common/record/RecordsSend.java and DefaultRecordsSend.java
(Kafka 3.9): records written to a channel by the records themselves, so that a log slice goes from the file to the
socket with FileChannel.transferTo (sendfile) and never through the broker's memory."""

from __future__ import annotations

from typing import Any

from kafka_edu.v3_9.clients.common.network.java_nio import ByteBuffer, EOFException
from kafka_edu.v3_9.clients.common.network.transferable_channel import TransferableChannel

_EMPTY_BYTE_BUFFER = ByteBuffer.allocate(0)


class RecordsSend:
    """A Send of at most `max_bytes_to_write` bytes of `records`; subclasses say how a part of them is written."""

    def __init__(self, records: Any, max_bytes_to_write: int) -> None:
        self._records = records
        self._max_bytes_to_write = max_bytes_to_write
        self._remaining = max_bytes_to_write
        self._pending = False

    def completed(self) -> bool:
        return self._remaining <= 0 and not self._pending

    def write_to(self, channel: TransferableChannel) -> int:
        written = 0
        if self._remaining > 0:
            written = self._write_to(channel, self._max_bytes_to_write - self._remaining, self._remaining)
            if written < 0:
                raise EOFException("Wrote negative bytes to channel. This shouldn't happen.")
            self._remaining -= written
        self._pending = channel.has_pending_writes()
        if self._remaining <= 0 and self._pending:
            channel.write(_EMPTY_BYTE_BUFFER)
        return written

    def size(self) -> int:
        return self._max_bytes_to_write

    def records(self) -> Any:
        return self._records

    def _write_to(self, channel: TransferableChannel, previously_written: int, remaining: int) -> int:
        raise NotImplementedError


class DefaultRecordsSend(RecordsSend):
    """Records that write themselves (TransferableRecords: FileRecords, MemoryRecords)."""

    def __init__(self, records: Any, max_bytes_to_write: int | None = None) -> None:
        super().__init__(records, records.size_in_bytes() if max_bytes_to_write is None else max_bytes_to_write)

    def _write_to(self, channel: TransferableChannel, previously_written: int, remaining: int) -> int:
        return self.records().write_to(channel, previously_written, remaining)
