"""Port of clients/src/main/java/org/apache/kafka/common/requests/RecordsSend.java (Kafka 1.0.2): a partition's
records in a Fetch response, written by the records themselves, so that a log slice (FileRecords) goes from the
segment file to the socket with sendfile and never through the broker's memory."""

from __future__ import annotations

from typing import Any

from kafka_edu.v1_0_2.clients.common.network.send import Send
from kafka_edu.v1_0_2.clients.common.network.transport_layers import has_pending_writes

_EMPTY_BYTE_BUFFER = (b"",)


class RecordsSend(Send):
    """`records` is anything with size_in_bytes() and write_to(channel, position, length): FileRecords or
    MemoryRecords (kafka_edu/v1_0_2/clients/common/record/file_records.py)."""

    def __init__(self, destination: str, records: Any) -> None:
        self._destination = destination
        self.records = records
        self._size = records.size_in_bytes()
        self._remaining = self._size
        self._pending = False

    def destination(self) -> str:
        return self._destination

    def completed(self) -> bool:
        return self._remaining <= 0 and not self._pending

    def write_to(self, channel: Any) -> int:
        written = 0
        if self._remaining > 0:
            written = self.records.write_to(channel, self.size() - self._remaining, self._remaining)
            if written < 0:
                raise EOFError("Wrote negative bytes to channel. This shouldn't happen.")
            self._remaining -= written
        self._pending = has_pending_writes(channel)
        if self._remaining <= 0 and self._pending:
            channel.write(_EMPTY_BYTE_BUFFER)
        return written

    def size(self) -> int:
        # Kafka asks the records each time; a slice's size is fixed when it is cut, so it is taken once here
        return self._size
